//! Entities and `Repository<T>` on every backend (see `hbase_orm_suite::conformance!`): codec round trips, key encodings,
//! prefix/range/reversed scans, paging, projection, None-clears-the-cell, and decode errors on
//! cells written by hand.

use futures::TryStreamExt;
use hbase_orm::{Client, Error, Get, HBaseEntity, Put, Repository, Versions};
use hbase_orm_suite::{unsupported_on, TestTable, TEST_NAMESPACE};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Address {
    city: String,
    zip: Option<String>,
}

/// Every built-in codec in one entity.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "hbase_orm_it", table = "entity_codecs", family = "d")]
struct AllTypes {
    #[hbase(key)]
    id: u32,
    s: String,
    i8_: i8,
    i16_: i16,
    i32_: i32,
    i64_: i64,
    u8_: u8,
    u16_: u16,
    u64_: u64,
    f32_: f32,
    f64_: f64,
    b: bool,
    raw: Vec<u8>,
    opt: Option<i64>,
    #[hbase(family = "j", json)]
    address: Address,
    #[hbase(family = "j", json)]
    tags: Option<Vec<String>>,
    #[hbase(default)]
    missing_ok: u16,
    #[hbase(skip)]
    transient: u8,
}

/// The customer/order key of the HBase reference guide: `[customer][order]`, a variable-length
/// customer id delimited from a fixed-width, order-preserving order number.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    namespace = "hbase_orm_it",
    table = "entity_orders",
    family = "o",
    key_delimiter = '|'
)]
struct Order {
    #[hbase(key)]
    customer: String,
    #[hbase(key)]
    number: i64,
    #[hbase(rename = "t")]
    total: f64,
    #[hbase(rename = "n")]
    note: Option<String>,
    #[hbase(rename = "st", default = "default_status")]
    status: String,
}

fn default_status() -> String {
    "new".into()
}

/// Fixed-width text keys.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "hbase_orm_it", table = "entity_fixed", family = "d")]
struct Sku {
    #[hbase(key(fixed = 6))]
    code: String,
    #[hbase(key)]
    variant: u16,
    name: String,
}

/// Creates the entity's table under a unique name (dropped with the guard) and returns a
/// repository bound to it.
async fn repo<T: HBaseEntity>(client: &Client, label: &str) -> (Repository<T>, TestTable) {
    let table = TestTable::for_entity::<T>(client, label).await;
    (client.repository::<T>().on_table(table.name.clone()), table)
}

/// Orders 0..n of customer `c`, for the paging tests.
fn numbered_orders(n: i64) -> Vec<Order> {
    (0..n)
        .map(|number| Order {
            customer: "c".into(),
            number,
            total: 0.0,
            note: None,
            status: "x".into(),
        })
        .collect()
}

fn all_types(id: u32) -> AllTypes {
    AllTypes {
        id,
        s: format!("héllo {id}"),
        i8_: -8,
        i16_: -16_000,
        i32_: i32::MIN,
        i64_: i64::MAX,
        u8_: 255,
        u16_: 65_000,
        u64_: u64::MAX,
        f32_: -1.25,
        f64_: std::f64::consts::PI,
        b: true,
        raw: vec![0, 1, 0xFF],
        opt: Some(-42),
        address: Address {
            city: "Oslo".into(),
            zip: None,
        },
        tags: Some(vec!["a".into(), "b".into()]),
        missing_ok: 7,
        transient: 99,
    }
}

/// Only key fields: the row is kept alive by an empty marker cell.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(table = "follows", family = "f", key_delimiter = '\0')]
struct Follows {
    #[hbase(key)]
    user: String,
    #[hbase(key)]
    follower: String,
}

/// Every stored field optional.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(table = "sparse", family = "d")]
struct Sparse {
    #[hbase(key)]
    id: u32,
    a: Option<String>,
}

/// A device as a new user declared it: a label, a message counter and a wide map of tags.
/// Its presence cell is `d:label` (its first required plain field).
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(table = "devices", family = "d")]
struct Device {
    #[hbase(key)]
    id: u64,
    label: String,
    #[hbase(counter)]
    messages: i64,
    #[hbase(family = "t", wide)]
    tags: std::collections::BTreeMap<String, String>,
}

fn device(id: u64, tags: &[(&str, &str)]) -> Device {
    Device {
        id,
        label: format!("device {id}"),
        messages: 0,
        tags: tags
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    }
}

/// A device's firmware scores, one version per firmware build, with a label.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "hbase_orm_it", table = "entity_scores", family = "d")]
struct Scored {
    #[hbase(key)]
    id: u64,
    label: String,
    #[hbase(versions = 5)]
    scores: Versions<f64>,
}

hbase_orm_suite::conformance! {
    async fn every_codec_round_trips_and_matches_java_bytes(c: Client) {
        let (r, _table) = repo::<AllTypes>(&c, "codecs").await;
        let v = all_types(1);
        r.save(&v).await.unwrap();
        let back = r.get(&AllTypesKey { id: 1 }).await.unwrap().unwrap();
        assert_eq!(
            back,
            AllTypes {
                transient: 0,
                ..v.clone()
            },
            "skip fields read as default"
        );

        // The raw cells are Java's Bytes.toBytes encodings.
        let raw = r
            .table()
            .get(hbase_orm::Get::new(1u32.to_be_bytes().to_vec()))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(raw.value("d", "i64_"), Some(&i64::MAX.to_be_bytes()[..]));
        assert_eq!(raw.value("d", "b"), Some(&[0xFF][..]));
        assert_eq!(
            raw.value("d", "f64_"),
            Some(&std::f64::consts::PI.to_be_bytes()[..])
        );
        assert_eq!(raw.value("d", "s"), Some("héllo 1".as_bytes()));
        assert_eq!(
            raw.value("j", "address"),
            Some(&br#"{"city":"Oslo","zip":null}"#[..])
        );
        assert_eq!(raw.value("d", "transient"), None);

        // A cell missing for a defaulted field reads as the default.
        r.table()
            .delete(hbase_orm::Delete::new(1u32.to_be_bytes().to_vec()).column("d", "missing_ok"))
            .await
            .unwrap();
        assert_eq!(
            r.get(&AllTypesKey { id: 1 })
                .await
                .unwrap()
                .unwrap()
                .missing_ok,
            0
        );
    }

    async fn saving_none_clears_the_old_value(c: Client) {
        let (r, _table) = repo::<AllTypes>(&c, "clears").await;
        let mut v = all_types(2);
        r.save(&v).await.unwrap();
        v.opt = None;
        v.tags = None;
        r.save(&v).await.unwrap();
        let back = r.get(&AllTypesKey { id: 2 }).await.unwrap().unwrap();
        assert_eq!(back.opt, None);
        assert_eq!(back.tags, None);
        // Thrift1 reads one version per column.
        let raw = r
            .table()
            .get(hbase_orm::Get::new(2u32.to_be_bytes().to_vec()).max_versions(3))
            .await;
        if let Some(raw) = unsupported_on(&c, &["thrift1"], raw) {
            assert_eq!(
                raw.unwrap().versions("d", "opt").count(),
                0,
                "no older version stays readable"
            );
        }

        // save_all mixes plain puts and row images with deletes.
        let mut batch: Vec<_> = (10..20).map(all_types).collect();
        for v in batch.iter_mut().step_by(2) {
            v.opt = None;
        }
        r.save_all(&batch).await.unwrap();
        let keys: Vec<_> = (10..20).map(|id| AllTypesKey { id }).collect();
        let read = r.get_many(&keys).await.unwrap();
        let read: Vec<_> = read.into_iter().map(Option::unwrap).collect();
        assert_eq!(
            read.iter().map(|v| v.opt).collect::<Vec<_>>(),
            batch.iter().map(|v| v.opt).collect::<Vec<_>>()
        );
    }

    async fn repository_reads_writes_deletes_and_checks_existence(c: Client) {
        let (r, _table) = repo::<Order>(&c, "orders").await;
        let order = |customer: &str, number: i64| Order {
            customer: customer.into(),
            number,
            total: number as f64 * 1.5,
            note: (number % 2 == 0).then(|| format!("note {number}")),
            status: "paid".into(),
        };
        let orders: Vec<_> = ["acme", "acme-2", "bolt"]
            .iter()
            .flat_map(|c| (-2..3).map(move |n| order(c, n)))
            .collect();
        r.save_all(&orders).await.unwrap();

        let key = OrderKey {
            customer: "acme".into(),
            number: -1,
        };
        assert_eq!(r.get(&key).await.unwrap(), Some(order("acme", -1)));
        assert!(r.exists(&key).await.unwrap());
        r.delete(&key).await.unwrap();
        assert!(!r.exists(&key).await.unwrap());
        assert_eq!(r.get(&key).await.unwrap(), None);

        // Prefix scan per customer: "acme|" does not match "acme-2|", and negative order
        // numbers sort before positive ones.
        let prefix = OrderKey::prefix_by_customer(&"acme".to_string()).unwrap();
        let acme: Vec<Order> = r
            .scan()
            .prefix(prefix.clone())
            .stream()
            .try_collect()
            .await
            .unwrap();
        assert_eq!(
            acme.iter().map(|o| o.number).collect::<Vec<_>>(),
            vec![-2, 0, 1, 2]
        );
        assert!(acme.iter().all(|o| o.customer == "acme"));

        let newest_first: Vec<Order> = r
            .scan()
            .prefix(prefix.clone())
            .reversed()
            .limit(2)
            .stream()
            .try_collect()
            .await
            .unwrap();
        assert_eq!(
            newest_first.iter().map(|o| o.number).collect::<Vec<_>>(),
            vec![2, 1]
        );

        // Range scan [acme-2 #-1, bolt #0). Ranges follow the bytes of the encoded keys: the
        // delimiter '|' (0x7C) sorts after '-' (0x2D), so every "acme|" key lies between "acme-2|"
        // and "bolt|" (a delimiter below every text byte, such as '\0', would sort by parts).
        let from = OrderKey {
            customer: "acme-2".into(),
            number: -1,
        };
        let to = OrderKey {
            customer: "bolt".into(),
            number: 0,
        };
        let range: Vec<Order> = r
            .scan()
            .range(&from, &to)
            .stream()
            .try_collect()
            .await
            .unwrap();
        let got: Vec<_> = range
            .iter()
            .map(|o| (o.customer.as_str(), o.number))
            .collect();
        assert_eq!(
            got,
            vec![
                ("acme-2", -1),
                ("acme-2", 0),
                ("acme-2", 1),
                ("acme-2", 2),
                ("acme", -2),
                ("acme", 0),
                ("acme", 1),
                ("acme", 2),
                ("bolt", -2),
                ("bolt", -1),
            ]
        );
    }

    async fn paging_forward_and_backward_visits_every_entity_once(c: Client) {
        let (r, _table) = repo::<Order>(&c, "paging").await;
        r.save_all(&numbered_orders(23)).await.unwrap();
        let prefix = OrderKey::prefix_by_customer(&"c".to_string()).unwrap();
        for reversed in [false, true] {
            let mut seen = Vec::new();
            let mut after: Option<OrderKey> = None;
            let mut pages = 0;
            loop {
                let mut scan = r.scan().prefix(prefix.clone());
                if reversed {
                    scan = scan.reversed();
                }
                if let Some(k) = &after {
                    scan = scan.after(k);
                }
                let page = scan.page(5).await.unwrap();
                pages += 1;
                seen.extend(page.items.iter().map(|o| o.number));
                match page.next {
                    Some(k) => after = Some(k),
                    None => break,
                }
            }
            let mut expected: Vec<i64> = (0..23).collect();
            if reversed {
                expected.reverse();
            }
            assert_eq!(seen, expected, "reversed = {reversed}");
            assert_eq!(pages, 5);
        }
    }

    async fn a_full_last_page_says_it_is_the_last(c: Client) {
        let (r, _table) = repo::<Order>(&c, "paging_exact").await;
        r.save_all(&numbered_orders(20)).await.unwrap();
        for reversed in [false, true] {
            let scan = || if reversed { r.scan().reversed() } else { r.scan() };
            let first = scan().page(10).await.unwrap();
            assert_eq!(first.items.len(), 10);
            let next = first.next.expect("ten more entities follow the first page");
            let last = scan().after(&next).page(10).await.unwrap();
            assert_eq!(last.items.len(), 10, "reversed = {reversed}");
            assert!(
                last.next.is_none(),
                "a full page with nothing after it is the last (reversed = {reversed})"
            );
            let whole = scan().page(20).await.unwrap();
            assert_eq!((whole.items.len(), whole.next.is_none()), (20, true));
            let empty = scan().page(0).await.unwrap();
            assert!(empty.items.is_empty() && empty.next.is_none());
        }
    }

    async fn projection_reads_only_the_named_fields(c: Client) {
        let (r, _table) = repo::<Order>(&c, "projection").await;
        let o = Order {
            customer: "p".into(),
            number: 1,
            total: 12.5,
            note: Some("hi".into()),
            status: "paid".into(),
        };
        r.save(&o).await.unwrap();
        let key = o.clone();
        let key = OrderKey {
            customer: key.customer,
            number: key.number,
        };

        // `note` is an Option and `status` has a default: a projection on `total` leaves them out.
        let p = r.get_fields(&key, Order::TOTAL).await.unwrap().unwrap();
        assert_eq!(
            p,
            Order {
                note: None,
                status: "new".into(),
                ..o.clone()
            }
        );
        let scanned: Vec<Order> = r
            .scan()
            .fields((Order::TOTAL, Order::NOTE))
            .stream()
            .try_collect()
            .await
            .unwrap();
        assert_eq!(
            scanned,
            vec![Order {
                status: "new".into(),
                ..o.clone()
            }]
        );

        // A required field left out of the projection is reported, not invented.
        let (ar, _t2) = repo::<AllTypes>(&c, "projection2").await;
        ar.save(&all_types(5)).await.unwrap();
        let err = ar
            .get_fields(&AllTypesKey { id: 5 }, AllTypes::OPT)
            .await
            .unwrap_err();
        assert!(
            matches!(err, Error::Decode { ref column, .. } if column.contains("field `s`")),
            "{err}"
        );
        // Names as strings are the fallback: a typo is found when the call runs.
        let err = r.get_fields(&key, ["nope"]).await.unwrap_err();
        assert!(
            matches!(err, Error::IllegalArgument { ref message } if message.contains("nope")),
            "{err}"
        );
    }

    async fn a_whole_family_read_and_a_projection_of_every_field_agree(c: Client) {
        // Full reads ask for whole families; projections list columns (see `read_columns`).
        let (r, _table) = repo::<AllTypes>(&c, "family_read").await;
        let values: Vec<AllTypes> = (1..=3).map(all_types).collect();
        r.save_all(&values).await.unwrap();
        let every: Vec<&str> = AllTypes::COLUMNS.iter().map(|col| col.field).collect();
        let key = AllTypesKey { id: 2 };
        let whole = r.get(&key).await.unwrap().unwrap();
        let listed = r.get_fields(&key, &every).await.unwrap().unwrap();
        assert_eq!(whole, listed);
        let scanned_whole: Vec<AllTypes> = r.scan().stream().try_collect().await.unwrap();
        let scanned_listed: Vec<AllTypes> =
            r.scan().fields(&every).stream().try_collect().await.unwrap();
        assert_eq!(scanned_whole, scanned_listed);
        assert_eq!(scanned_whole.len(), 3);
    }

    async fn a_row_holding_columns_the_entity_does_not_declare_still_decodes(c: Client) {
        let (r, _table) = repo::<Order>(&c, "extra_column").await;
        let o = Order {
            customer: "x".into(),
            number: 7,
            total: 1.5,
            note: None,
            status: "paid".into(),
        };
        r.save(&o).await.unwrap();
        let key = OrderKey {
            customer: "x".into(),
            number: 7,
        };
        // Another writer adds a column of its own to the same family and row.
        let raw_key = o.row_key().unwrap();
        r.table()
            .put(Put::new(raw_key.clone()).column("o", "audit", vec![0xFF; 300]))
            .await
            .unwrap();
        let raw = r.table().get(Get::new(raw_key)).await.unwrap().unwrap();
        assert!(raw.value("o", "t").is_some() && raw.value("o", "audit").is_some());
        assert_eq!(r.get(&key).await.unwrap(), Some(o.clone()));
        let scanned: Vec<Order> = r.scan().stream().try_collect().await.unwrap();
        assert_eq!(scanned, vec![o]);
    }

    async fn cells_written_by_hand_with_wrong_types_give_errors_that_name_everything(c: Client) {
        let (r, _table) = repo::<AllTypes>(&c, "badcells").await;
        let key = |id: u32| id.to_be_bytes().to_vec();
        r.save(&all_types(1)).await.unwrap();

        let cases: Vec<(u32, &str, &str, Vec<u8>, &str)> = vec![
            (2, "d", "i64_", vec![1, 2, 3], "3 bytes, expected 8"),
            (3, "d", "s", vec![0xFF, 0xFE], "invalid UTF-8"),
            (4, "j", "address", b"{\"city\":".to_vec(), "EOF"),
            (5, "d", "b", vec![], "0 bytes, expected 1"),
        ];
        for (id, family, qualifier, bytes, reason) in cases {
            let mut v = all_types(id);
            v.id = id;
            r.save(&v).await.unwrap();
            r.table()
                .put(Put::new(key(id)).column(family, qualifier, bytes))
                .await
                .unwrap();
            let err = r.get(&AllTypesKey { id }).await.unwrap_err();
            let Error::Decode {
                table,
                row,
                column,
                expected,
                reason: why,
            } = &err
            else {
                panic!("expected a decode error, got {err}");
            };
            assert_eq!(table, &_table.name.to_string());
            assert_eq!(row, &hbase_orm::printable_key(&key(id)));
            assert!(
                column.starts_with(&format!("{family}:{qualifier}")),
                "{column}"
            );
            assert!(!expected.is_empty());
            assert!(why.contains(reason), "{why}");
            let text = err.to_string();
            assert!(
                text.contains(&_table.name.to_string()) && text.contains(qualifier),
                "{text}"
            );
        }

        // A missing required cell.
        r.table()
            .delete(hbase_orm::Delete::new(key(1)).column("d", "f32_"))
            .await
            .unwrap();
        let err = r.get(&AllTypesKey { id: 1 }).await.unwrap_err();
        assert!(
            matches!(err, Error::Decode { ref column, ref reason, .. } if column.starts_with("d:f32_") && reason.contains("missing")),
            "{err}"
        );

        // A row key of the wrong shape.
        r.table()
            .put(Put::new(vec![1u8, 2]).column("d", "s", "x"))
            .await
            .unwrap();
        let raw = r
            .table()
            .get(hbase_orm::Get::new(vec![1u8, 2]))
            .await
            .unwrap()
            .unwrap();
        let err = AllTypes::from_row_of(raw, &_table.name).unwrap_err();
        assert!(
            matches!(err, Error::Decode { ref column, ref row, .. } if column.contains("row key part `id`") && row == "\\x01\\x02"),
            "{err}"
        );

        // Unknown columns are ignored.
        r.save(&all_types(9)).await.unwrap();
        r.table()
            .put(Put::new(key(9)).column("d", "added_later", "x"))
            .await
            .unwrap();
        assert!(r.get(&AllTypesKey { id: 9 }).await.unwrap().is_some());
    }

    async fn fixed_width_keys_sort_like_their_text_and_refuse_to_truncate(c: Client) {
        let (r, _table) = repo::<Sku>(&c, "fixed").await;
        for (code, variant) in [("b", 1), ("ab", 2), ("abc", 1), ("ab", 1)] {
            r.save(&Sku {
                code: code.into(),
                variant,
                name: format!("{code}/{variant}"),
            })
            .await
            .unwrap();
        }
        let all: Vec<Sku> = r.scan().stream().try_collect().await.unwrap();
        let order: Vec<_> = all.iter().map(|s| (s.code.as_str(), s.variant)).collect();
        assert_eq!(order, vec![("ab", 1), ("ab", 2), ("abc", 1), ("b", 1)]);
        let raw = r
            .table()
            .scan(hbase_orm::Scan::new().limit(1))
            .try_collect::<Vec<_>>()
            .await
            .unwrap();
        assert_eq!(raw[0].key, b"ab\0\0\0\0\0\x01");

        // In a batch, a value that cannot be encoded is reported and the others are written.
        let batch = ["aa", "toolong", "cc"].map(|code| Sku {
            code: code.into(),
            variant: 9,
            name: code.into(),
        });
        let err = r
            .clone()
            .with_save_chunk(1)
            .save_all(&batch)
            .await
            .unwrap_err();
        assert!(
            matches!(&err, Error::PartialBatch { total: 3, failed_rows, .. } if failed_rows.len() == 1),
            "{err}"
        );
        assert!(r
            .exists(&SkuKey {
                code: "aa".into(),
                variant: 9
            })
            .await
            .unwrap());
        assert!(r
            .exists(&SkuKey {
                code: "cc".into(),
                variant: 9
            })
            .await
            .unwrap());

        let err = r
            .save(&Sku {
                code: "toolong".into(),
                variant: 1,
                name: "x".into(),
            })
            .await
            .unwrap_err();
        assert!(
            matches!(err, Error::Encode { field: "code", ref reason, .. } if reason.contains("fixed width 6")),
            "{err}"
        );
        assert_eq!(TEST_NAMESPACE, _table.name.namespace);
    }

    async fn entities_with_nothing_but_a_key_are_saved_and_read_back(c: Client) {
        let (r, _table) = repo::<Follows>(&c, "follows").await;
        let edges: Vec<_> = ["bob", "carol"]
            .iter()
            .map(|f| Follows {
                user: "ada".into(),
                follower: f.to_string(),
            })
            .collect();
        r.save_all(&edges).await.unwrap();
        r.save(&Follows {
            user: "bob".into(),
            follower: "ada".into(),
        })
        .await
        .unwrap();
        assert!(r
            .exists(&FollowsKey {
                user: "ada".into(),
                follower: "carol".into()
            })
            .await
            .unwrap());
        let of_ada: Vec<Follows> = r
            .scan()
            .prefix(FollowsKey::prefix_by_user(&"ada".into()).unwrap())
            .stream()
            .try_collect()
            .await
            .unwrap();
        assert_eq!(of_ada, edges);

        let (s, _t2) = repo::<Sparse>(&c, "sparse").await;
        s.save(&Sparse {
            id: 1,
            a: Some("x".into()),
        })
        .await
        .unwrap();
        s.save(&Sparse { id: 1, a: None }).await.unwrap();
        assert_eq!(
            s.get(&SparseKey { id: 1 }).await.unwrap(),
            Some(Sparse { id: 1, a: None }),
            "still exists, value cleared"
        );
    }

    async fn insert_into_a_row_of_wide_entries_keeps_them_and_every_read_agrees(c: Client) {
        let (r, _t) = repo::<Device>(&c, "partial_wide").await;
        let key = DeviceKey { id: 1 };
        let tags = r.wide(Device::TAGS);
        tags.put(&key, &"colour".into(), &"red".into()).await.unwrap();

        // A row holding only wide entries holds no device, for every read.
        assert!(!r.exists(&key).await.unwrap(), "exists");
        assert_eq!(r.get(&key).await.unwrap(), None, "get");
        assert_eq!(r.get_many(std::slice::from_ref(&key)).await.unwrap(), vec![None], "get_many");
        assert_eq!(r.get_fields(&key, Device::LABEL).await.unwrap(), None, "projection");
        let scanned: Vec<Device> = r.scan().stream().try_collect().await.unwrap();
        assert!(scanned.is_empty(), "scan: {scanned:?}");
        assert_eq!(tags.get(&key, &"colour".into()).await.unwrap().as_deref(), Some("red"));

        // The insert creates the device and removes nothing it was not asked to.
        // Thrift1's checkAndPut takes one cell: an insert of a whole entity is unsupported there.
        let inserted = r.insert(&device(1, &[("size", "xl")])).await;
        if unsupported_on(&c, &["thrift1"], inserted).is_none() {
            return;
        }
        let back = r.get(&key).await.unwrap().expect("inserted");
        assert_eq!(back.label, "device 1");
        assert_eq!(
            back.tags.get("colour").map(String::as_str),
            Some("red"),
            "the entry written before the insert is still there: {:?}",
            back.tags
        );
        assert_eq!(back.tags.get("size").map(String::as_str), Some("xl"));
        assert!(r.exists(&key).await.unwrap());

        // Now the row holds a device: a second insert is a conflict and changes nothing.
        let again = r.insert(&device(1, &[])).await.unwrap_err();
        assert!(matches!(again, Error::Conflict { .. }), "{again}");
        assert_eq!(r.get(&key).await.unwrap().unwrap().tags.len(), 2);
    }

    async fn a_row_holding_only_a_counter_reads_as_no_entity_and_keeps_its_count(c: Client) {
        let (r, _t) = repo::<Device>(&c, "partial_counter").await;
        let key = DeviceKey { id: 7 };
        // A message counted before the device was registered.
        assert_eq!(r.increment(&key, Device::MESSAGES, 2).await.unwrap(), 2);
        assert!(!r.exists(&key).await.unwrap());
        assert_eq!(r.get(&key).await.unwrap(), None);
        assert_eq!(r.counter(&key, Device::MESSAGES).await.unwrap(), Some(2));
        assert_eq!(
            r.counter(&DeviceKey { id: 8 }, Device::MESSAGES).await.unwrap(),
            None,
            "a counter never written"
        );
        let mut value = device(7, &[]);
        value.messages = 5;
        r.insert(&value).await.unwrap();
        let back = r.get(&key).await.unwrap().expect("inserted");
        assert_eq!(back.messages, 7, "the insert adds its count to the stored one");
    }

    async fn scans_skip_partial_rows_and_their_limit_counts_entities(c: Client) {
        let (r, _t) = repo::<Device>(&c, "partial_scan").await;
        // Keys 1, 3, 5 hold devices; 2 and 4 only a counter or a tag.
        for id in [1, 3, 5] {
            r.save(&device(id, &[])).await.unwrap();
        }
        r.increment(&DeviceKey { id: 2 }, Device::MESSAGES, 1).await.unwrap();
        r.wide(Device::TAGS)
            .put(&DeviceKey { id: 4 }, &"k".into(), &"v".into())
            .await
            .unwrap();
        let ids = |v: Vec<Device>| v.into_iter().map(|d| d.id).collect::<Vec<_>>();
        let all: Vec<Device> = r.scan().stream().try_collect().await.unwrap();
        assert_eq!(ids(all), [1, 3, 5]);
        let two: Vec<Device> = r.scan().limit(2).stream().try_collect().await.unwrap();
        assert_eq!(ids(two), [1, 3], "the limit counts devices, not rows");
        let page = r.scan().page(2).await.unwrap();
        assert_eq!(ids(page.items), [1, 3]);
        let next = r
            .scan()
            .after(&page.next.expect("a next page"))
            .page(2)
            .await
            .unwrap();
        assert_eq!(ids(next.items), [5]);
        let projected: Vec<Device> = r.scan().fields(Device::LABEL).stream().try_collect().await.unwrap();
        assert_eq!(projected.len(), 3, "a projection skips them too");
    }

    async fn one_version_of_a_field_is_written_read_and_deleted_without_the_rest(c: Client) {
        let (r, _table) = repo::<Scored>(&c, "scores").await;
        let key = ScoredKey { id: 1 };
        let value = Scored {
            id: 1,
            label: "boiler".into(),
            scores: Versions::new(),
        };
        r.save(&value).await.unwrap();
        // One version at a time (Thrift1 cannot save cells of several timestamps at once).
        let scores = r.versions(Scored::SCORES);
        scores.put_at(&key, 1_000, &0.5).await.unwrap();
        scores.put_at(&key, 2_000, &0.7).await.unwrap();
        scores.put_at(&key, 3_000, &0.9).await.unwrap();
        let pairs = |v: Versions<f64>| -> Vec<(i64, f64)> {
            v.iter().map(|v| (v.timestamp, v.value)).collect()
        };
        assert_eq!(pairs(scores.latest(&key, 1).await.unwrap()), [(3_000, 0.9)]);
        // Thrift1 reads one version and no time range starting above 0, and cannot delete one
        // version: the calls say so.
        if let Some(two) = unsupported_on(&c, &["thrift1"], scores.latest(&key, 2).await) {
            assert_eq!(pairs(two), [(3_000, 0.9), (2_000, 0.7)]);
        }
        let range = scores.in_range(&key, 1_000, 3_000).await;
        if let Some(range) = unsupported_on(&c, &["thrift1"], range) {
            assert_eq!(pairs(range), [(2_000, 0.7), (1_000, 0.5)]);
        }
        if unsupported_on(&c, &["thrift1"], scores.delete_at(&key, 2_000).await).is_some() {
            let left = r.get(&key).await.unwrap().unwrap();
            assert_eq!(pairs(left.scores), [(3_000, 0.9), (1_000, 0.5)]);
            assert_eq!(left.label, "boiler", "the other fields are left as they were");
        }
        // A version at the server's time is the newest.
        scores.put(&key, &0.99).await.unwrap();
        let newest = scores.latest(&key, 1).await.unwrap();
        let newest = newest.newest().unwrap();
        assert!(newest.timestamp > 3_000 && newest.value == 0.99, "{newest:?}");
        // Deleting them all leaves the entity with no scores.
        scores.delete_all(&key).await.unwrap();
        assert!(scores.latest(&key, 1).await.unwrap().is_empty());
        // A key with no row has no versions; a plain field has versions too (one kept here).
        assert!(scores.latest(&ScoredKey { id: 9 }, 1).await.unwrap().is_empty());
        let labels = r.versions(Scored::LABEL);
        assert_eq!(labels.latest(&key, 1).await.unwrap().newest().unwrap().value, "boiler");
    }
}
