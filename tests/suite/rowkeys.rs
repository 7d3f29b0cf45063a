//! Row-key designs on every backend (see `hbase_orm_suite::conformance!`): reverse timestamps, reversed text, MD5 parts read
//! back from their column, salted tables with merged scans, time buckets, record types sharing
//! one table, and the numeric-substitution dictionary.

use futures::TryStreamExt;
use hbase_orm::rowkey::{hash_bucket, md5, salt_split_keys};
use hbase_orm::{Dictionary, HBaseEntity, HBaseRecord};
use hbase_orm_suite::{
    ensure_test_namespace, fresh_split_repository, row_keys, unique_table_name, TestTable,
};

/// Log events, newest first per host: `[host|][i64::MAX - ts]`.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(table = "events", family = "e", key_delimiter = '|')]
struct Event {
    #[hbase(key)]
    host: String,
    #[hbase(key(reverse_timestamp))]
    ts: i64,
    message: String,
}

/// Orders keyed by their id reversed, the guide's trick against sequential hot spots.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(table = "rev", family = "d")]
struct Ticket {
    #[hbase(key(reversed))]
    id: String,
    title: String,
}

/// The guide's `[MD5 of customer number][order number]`.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(table = "md5orders", family = "d")]
struct HashedOrder {
    #[hbase(key(md5))]
    customer: i64,
    #[hbase(key)]
    number: u32,
    total: i64,
}

/// A 4-byte MD5 prefix of a text part, before a readable part.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(table = "md5short", family = "d")]
struct ShortHash {
    #[hbase(key(md5 = 4))]
    user: String,
    #[hbase(key)]
    seq: u16,
}

/// Salted by the customer part only: one customer's rows stay in one bucket.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(table = "salted", family = "d", salt(buckets = 4, hash = "customer"))]
struct SaltedOrder {
    #[hbase(key)]
    customer: u32,
    #[hbase(key)]
    number: u32,
    total: i64,
}

fn salted_orders() -> Vec<SaltedOrder> {
    (0..20u32)
        .flat_map(|c| {
            (0..7u32).map(move |n| SaltedOrder {
                customer: c,
                number: n,
                total: i64::from(c * 100 + n),
            })
        })
        .collect()
}

/// The time-bucket variant: `[ts mod 4][ts][host]`.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    table = "tsbucket",
    family = "d",
    key_delimiter = '|',
    salt(buckets = 4, modulo = "ts")
)]
struct Metric {
    #[hbase(key)]
    ts: i64,
    #[hbase(key)]
    host: String,
    value: f64,
}

/// CUSTOMER++: customers and their orders in one table, `[customer][type][order]`.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(table = "crm", family = "d", record_type(tag = 1, after = "id"))]
struct Customer {
    #[hbase(key)]
    id: u64,
    name: String,
}

#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(table = "crm", family = "d", record_type(tag = 2, after = "customer"))]
struct Order {
    #[hbase(key)]
    customer: u64,
    #[hbase(key)]
    number: u32,
    total: i64,
}

#[derive(HBaseRecord, Debug, Clone, PartialEq)]
enum CustomerRecord {
    Customer(Customer),
    Order(Order),
}

/// A salted CUSTOMER++ table: the salt hashes every key part, so one customer's records are
/// spread over the buckets and a record-set prefix scan has to merge them.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    table = "scrm",
    family = "d",
    salt(buckets = 3),
    record_type(tag = 1, after = "id")
)]
struct SCustomer {
    #[hbase(key)]
    id: u64,
    name: String,
}

#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    table = "scrm",
    family = "d",
    salt(buckets = 3),
    record_type(tag = 2, after = "customer")
)]
struct SOrder {
    #[hbase(key)]
    customer: u64,
    #[hbase(key)]
    number: u32,
    total: i64,
}

#[derive(HBaseRecord, Debug, Clone, PartialEq)]
enum SRecord {
    Customer(SCustomer),
    Order(SOrder),
}

hbase_orm_suite::conformance! {
    async fn reverse_timestamps_put_the_newest_event_first(c: Client) {
        let (r, _t) = fresh_split_repository::<Event>(&c, "revts", &[]).await;
        let events: Vec<_> = [
            ("web1", 1_000),
            ("web1", 3_000),
            ("web1", 2_000),
            ("web2", 5_000),
        ]
        .iter()
        .map(|(h, ts)| Event {
            host: h.to_string(),
            ts: *ts,
            message: format!("{h}@{ts}"),
        })
        .collect();
        r.save_all(&events).await.unwrap();
        let web1 = EventKey::prefix_by_host(&"web1".into()).unwrap();
        let newest: Vec<Event> = r
            .scan()
            .prefix(web1.clone())
            .limit(2)
            .stream()
            .try_collect()
            .await
            .unwrap();
        assert_eq!(
            newest.iter().map(|e| e.ts).collect::<Vec<_>>(),
            vec![3_000, 2_000]
        );
        let oldest: Vec<Event> = r
            .scan()
            .prefix(web1)
            .reversed()
            .limit(1)
            .stream()
            .try_collect()
            .await
            .unwrap();
        assert_eq!(oldest[0].ts, 1_000);
        let raw = r
            .table()
            .get(hbase_orm::Get::new(
                [b"web2|".as_slice(), &(i64::MAX - 5_000).to_be_bytes()].concat(),
            ))
            .await
            .unwrap();
        assert!(
            raw.is_some(),
            "the key bytes are host | (i64::MAX - ts) big-endian"
        );
    }

    async fn reversed_text_keys_spread_sequential_ids_and_read_back(c: Client) {
        let (r, _t) = fresh_split_repository::<Ticket>(&c, "revtext", &[]).await;
        let tickets: Vec<_> = (10_001..10_006)
            .map(|i| Ticket {
                id: i.to_string(),
                title: format!("t{i}"),
            })
            .collect();
        r.save_all(&tickets).await.unwrap();
        let keys = row_keys(r.table(), hbase_orm::Scan::new()).await;
        assert_eq!(keys[0], b"10001", "10001 reversed is itself");
        assert_eq!(
            keys.iter().map(|k| k[0]).collect::<Vec<_>>(),
            vec![b'1', b'2', b'3', b'4', b'5']
        );
        assert_eq!(
            r.get(&TicketKey { id: "10003".into() })
                .await
                .unwrap()
                .unwrap()
                .title,
            "t10003"
        );
        let all: Vec<Ticket> = r.scan().stream().try_collect().await.unwrap();
        assert_eq!(all.len(), 5);
    }

    async fn md5_parts_are_fixed_length_and_the_value_is_read_back_from_its_column(c: Client) {
        let (r, _t) = fresh_split_repository::<HashedOrder>(&c, "md5", &[]).await;
        let orders: Vec<_> = [(42, 1), (42, 2), (7, 1)]
            .iter()
            .map(|(c, n)| HashedOrder {
                customer: *c,
                number: *n,
                total: c * 100 + i64::from(*n),
            })
            .collect();
        r.save_all(&orders).await.unwrap();

        let key = HashedOrderKey {
            customer: 42,
            number: 2,
        };
        assert_eq!(r.get(&key).await.unwrap(), Some(orders[1].clone()));
        let mut expected_key = md5(&42i64.to_be_bytes()).to_vec();
        expected_key.extend_from_slice(&2u32.to_be_bytes());
        assert_eq!(HashedOrder::row_key(&orders[1]).unwrap(), expected_key);
        let raw = r
            .table()
            .get(hbase_orm::Get::new(expected_key))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            raw.value("d", "customer"),
            Some(&42i64.to_be_bytes()[..]),
            "value kept in a column"
        );

        let of_42: Vec<HashedOrder> = r
            .scan()
            .prefix(HashedOrderKey::prefix_by_customer(&42).unwrap())
            .stream()
            .try_collect()
            .await
            .unwrap();
        assert_eq!(of_42, orders[..2].to_vec());

        // A projection still reads the column that holds the hashed key part.
        let p = r.get_fields(&key, HashedOrder::TOTAL).await.unwrap().unwrap();
        assert_eq!(p, orders[1]);
        let projected: Vec<HashedOrder> = r
            .scan()
            .fields(HashedOrder::TOTAL)
            .stream()
            .try_collect()
            .await
            .unwrap();
        assert_eq!(projected.len(), 3);

        let (s, _t2) = fresh_split_repository::<ShortHash>(&c, "md5short", &[]).await;
        let v = ShortHash {
            user: "ada".into(),
            seq: 9,
        };
        s.save(&v).await.unwrap();
        assert_eq!(v.row_key().unwrap().len(), 6);
        assert_eq!(
            s.get(&ShortHashKey {
                user: "ada".into(),
                seq: 9
            })
            .await
            .unwrap(),
            Some(v)
        );
    }

    async fn salted_scans_merge_every_bucket_in_unsalted_key_order(c: Client) {
        let (r, t) = fresh_split_repository::<SaltedOrder>(&c, "salted", &salt_split_keys(4)).await;
        let regions = c.admin().region_locations(&t.name).await.unwrap();
        assert_eq!(regions.len(), 4, "one region per bucket");
        let orders = salted_orders();
        r.save_all(&orders).await.unwrap();

        // The salt byte is the bucket of the customer part's bytes, and every bucket is used.
        let raw = row_keys(r.table(), hbase_orm::Scan::new()).await;
        for k in &raw {
            assert_eq!(k[0], hash_bucket(&k[1..5], 4));
        }
        let mut used: Vec<u8> = raw.iter().map(|k| k[0]).collect();
        used.dedup();
        assert_eq!(used, vec![0, 1, 2, 3]);

        let mut expected = orders.clone();
        expected.sort_by_key(|o| (o.customer, o.number));
        let all: Vec<SaltedOrder> = r.scan().stream().try_collect().await.unwrap();
        assert_eq!(all, expected, "merged stream = sorted unsalted keys");

        let first: Vec<SaltedOrder> = r.scan().limit(10).stream().try_collect().await.unwrap();
        assert_eq!(first, expected[..10].to_vec());
        let last: Vec<SaltedOrder> = r
            .scan()
            .reversed()
            .limit(9)
            .stream()
            .try_collect()
            .await
            .unwrap();
        let mut tail = expected.clone();
        tail.reverse();
        assert_eq!(last, tail[..9].to_vec());

        // A range over unsalted keys, across buckets.
        let from = SaltedOrderKey {
            customer: 3,
            number: 5,
        };
        let to = SaltedOrderKey {
            customer: 5,
            number: 2,
        };
        let range: Vec<SaltedOrder> = r
            .scan()
            .range(&from, &to)
            .stream()
            .try_collect()
            .await
            .unwrap();
        let want: Vec<_> = expected
            .iter()
            .filter(|o| (o.customer, o.number) >= (3, 5) && (o.customer, o.number) < (5, 2))
            .cloned()
            .collect();
        assert_eq!(range, want);

        // A prefix that fixes the bucket is one plain scan.
        let p = SaltedOrderKey::prefix_by_customer(&11).unwrap();
        assert!(!p.all_buckets);
        assert_eq!(p.bytes[0], hash_bucket(&11u32.to_be_bytes(), 4));
        let of_11: Vec<SaltedOrder> = r
            .scan()
            .prefix(p)
            .reversed()
            .stream()
            .try_collect()
            .await
            .unwrap();
        assert_eq!(
            of_11.iter().map(|o| o.number).collect::<Vec<_>>(),
            vec![6, 5, 4, 3, 2, 1, 0]
        );

        // Point reads compute the bucket.
        assert_eq!(
            r.get(&SaltedOrderKey {
                customer: 19,
                number: 6
            })
            .await
            .unwrap(),
            Some(expected[139].clone())
        );

        // A prefix that fixes a bucket, narrowed by a key of another bucket (compared unsalted).
        let from_other_bucket = SaltedOrderKey {
            customer: 2,
            number: 0,
        };
        let of_5: Vec<SaltedOrder> = r
            .scan()
            .prefix(SaltedOrderKey::prefix_by_customer(&5).unwrap())
            .from(&from_other_bucket)
            .stream()
            .try_collect()
            .await
            .unwrap();
        assert_eq!(of_5.len(), 7, "customer 5's rows are all after customer 2");

        // Paging from a start key: `after` and `from` are compared without their salt bytes.
        let mut seen = Vec::new();
        let mut after = None;
        for _ in 0..100 {
            let mut scan = r.scan().from(&SaltedOrderKey {
                customer: 1,
                number: 0,
            });
            if let Some(k) = &after {
                scan = scan.after(k);
            }
            let page = scan.page(4).await.unwrap();
            seen.extend(page.items);
            match page.next {
                Some(k) => after = Some(k),
                None => break,
            }
        }
        assert_eq!(
            seen,
            expected[7..].to_vec(),
            "every row from customer 1 on, once, in order"
        );

        // Paging through the merged stream, forward and reversed.
        for reversed in [false, true] {
            let mut seen = Vec::new();
            let mut after = None;
            loop {
                let mut scan = r.scan();
                if reversed {
                    scan = scan.reversed();
                }
                if let Some(k) = &after {
                    scan = scan.after(k);
                }
                let page = scan.page(25).await.unwrap();
                seen.extend(page.items);
                match page.next {
                    Some(k) => after = Some(k),
                    None => break,
                }
            }
            let mut want = expected.clone();
            if reversed {
                want.reverse();
            }
            assert_eq!(seen, want, "paging reversed={reversed}");
        }
    }

    async fn time_buckets_spread_consecutive_timestamps_and_merge_back_in_time_order(c: Client) {
        let (r, _t) = fresh_split_repository::<Metric>(&c, "tsbucket", &salt_split_keys(4)).await;
        let metrics: Vec<_> = (0..40i64)
            .map(|ts| Metric {
                ts: 1_000 + ts,
                host: format!("h{}", ts % 3),
                value: ts as f64,
            })
            .collect();
        r.save_all(&metrics).await.unwrap();
        let raw = row_keys(r.table(), hbase_orm::Scan::new()).await;
        assert!(raw.iter().all(
            |k| i64::from(k[0]) == (i64::from_be_bytes(k[1..9].try_into().unwrap()) ^ i64::MIN) % 4
        ));
        let all: Vec<Metric> = r.scan().stream().try_collect().await.unwrap();
        assert_eq!(all, metrics);
        let p = MetricKey::prefix_by_ts(&1_017).unwrap();
        assert!(!p.all_buckets);
        let at: Vec<Metric> = r.scan().prefix(p).stream().try_collect().await.unwrap();
        assert_eq!(at, vec![metrics[17].clone()]);
    }

    async fn record_types_share_a_table_and_one_prefix_scan_reads_a_customer_with_its_orders(c: Client) {
        let (customers, t) = fresh_split_repository::<Customer>(&c, "crm", &[]).await;
        let orders = c.repository::<Order>().on_table(t.name.clone());
        for id in [1u64, 2] {
            customers
                .save(&Customer {
                    id,
                    name: format!("c{id}"),
                })
                .await
                .unwrap();
            let os: Vec<_> = (0..3)
                .map(|n| Order {
                    customer: id,
                    number: n,
                    total: (id * 10) as i64 + i64::from(n),
                })
                .collect();
            orders.save_all(&os).await.unwrap();
        }
        let records = c.records::<CustomerRecord>().on_table(t.name.clone());
        let of_2: Vec<CustomerRecord> = records
            .scan_prefix(OrderKey::prefix_by_customer(&2).unwrap())
            .try_collect()
            .await
            .unwrap();
        assert_eq!(of_2.len(), 4);
        assert_eq!(
            of_2[0],
            CustomerRecord::Customer(Customer {
                id: 2,
                name: "c2".into()
            })
        );
        assert!(of_2[1..]
            .iter()
            .all(|r| matches!(r, CustomerRecord::Order(o) if o.customer == 2)));

        // A page counts only its own record type: the customer row inside the prefix is skipped
        // without using up the page.
        let page = orders
            .scan()
            .prefix(OrderKey::prefix_by_customer(&2).unwrap())
            .page(2)
            .await
            .unwrap();
        assert_eq!(
            page.items.iter().map(|o| o.number).collect::<Vec<_>>(),
            vec![0, 1]
        );
        let rest = orders
            .scan()
            .prefix(OrderKey::prefix_by_customer(&2).unwrap())
            .after(page.next.as_ref().expect("a full page has a next key"))
            .page(2)
            .await
            .unwrap();
        assert_eq!(
            rest.items.iter().map(|o| o.number).collect::<Vec<_>>(),
            vec![2]
        );
        assert!(rest.next.is_none());

        // A partial row of a listed type (a customer 3 row holding a cell other than `name`,
        // its presence cell) holds no record: skipped, as the entity's own reads skip it.
        let row = hbase_orm::entity::encode_key::<Customer>(&CustomerKey { id: 3 }).unwrap();
        let partial = hbase_orm::Put::new(row).column("d", "note", "written by another tool");
        c.table_named(t.name.clone()).put(partial).await.unwrap();
        let of_3: Vec<CustomerRecord> = records
            .scan_prefix(OrderKey::prefix_by_customer(&3).unwrap())
            .try_collect()
            .await
            .unwrap();
        assert!(of_3.is_empty(), "{of_3:?}");
        assert_eq!(customers.get(&CustomerKey { id: 3 }).await.unwrap(), None);

        // Entity scans read only their own record type.
        let all_orders: Vec<Order> = orders.scan().stream().try_collect().await.unwrap();
        assert_eq!(all_orders.len(), 6);
        let all_customers: Vec<Customer> = customers.scan().stream().try_collect().await.unwrap();
        assert_eq!(
            all_customers.iter().map(|c| c.id).collect::<Vec<_>>(),
            vec![1, 2]
        );
        assert_eq!(
            customers
                .get(&CustomerKey { id: 1 })
                .await
                .unwrap()
                .unwrap()
                .name,
            "c1"
        );
        assert!(Customer::is_record(
            &Customer {
                id: 5,
                name: String::new()
            }
            .row_key()
            .unwrap()
        ));
        assert!(!Order::is_record(
            &Customer {
                id: 5,
                name: String::new()
            }
            .row_key()
            .unwrap()
        ));
    }

    async fn the_dictionary_assigns_each_name_one_compact_id(c: Client) {
        ensure_test_namespace(&c).await;
        let name = unique_table_name("dict");
        Dictionary::ensure_table(&c, &name).await.unwrap();
        let _drop = TestTable::adopt(&c, name.clone());
        let hosts = Dictionary::new(&c, name.clone(), "hosts");
        assert_eq!(hosts.lookup("web-01.example.com").await.unwrap(), None);
        assert_eq!(hosts.id("web-01.example.com").await.unwrap(), 1);
        assert_eq!(hosts.id("web-02.example.com").await.unwrap(), 2);
        assert_eq!(hosts.id("web-01.example.com").await.unwrap(), 1);

        // Another dictionary in the same table counts on its own.
        let events = Dictionary::new(&c, name.clone(), "events");
        assert_eq!(events.id("login").await.unwrap(), 1);

        // A fresh instance (empty cache) reads what is stored.
        let fresh = Dictionary::new(&c, name.clone(), "hosts");
        assert_eq!(fresh.lookup("web-02.example.com").await.unwrap(), Some(2));
        assert_eq!(
            fresh.name(1).await.unwrap().as_deref(),
            Some("web-01.example.com")
        );
        assert_eq!(fresh.name(99).await.unwrap(), None);

        // Many clients naming the same new name at once agree on one id.
        let racers: Vec<_> = (0..8)
            .map(|_| Dictionary::new(&c, name.clone(), "hosts"))
            .collect();
        let ids = futures::future::join_all(racers.iter().map(|d| d.id("db-01"))).await;
        let ids: Vec<u64> = ids.into_iter().map(Result::unwrap).collect();
        assert!(ids.iter().all(|&id| id == ids[0]), "{ids:?}");
        assert_eq!(fresh.name(ids[0]).await.unwrap().as_deref(), Some("db-01"));
    }

    async fn a_salted_record_set_prefix_scan_merges_every_bucket(c: Client) {
        let (customers, t) = fresh_split_repository::<SCustomer>(&c, "scrm", &salt_split_keys(3)).await;
        let orders = c.repository::<SOrder>().on_table(t.name.clone());
        customers
            .save(&SCustomer {
                id: 7,
                name: "seven".into(),
            })
            .await
            .unwrap();
        let os: Vec<_> = (0..6)
            .map(|n| SOrder {
                customer: 7,
                number: n,
                total: i64::from(n),
            })
            .collect();
        orders.save_all(&os).await.unwrap();
        orders
            .save(&SOrder {
                customer: 8,
                number: 0,
                total: 0,
            })
            .await
            .unwrap();
        let buckets: std::collections::BTreeSet<u8> =
            os.iter().map(|o| o.row_key().unwrap()[0]).collect();
        assert!(buckets.len() > 1, "the orders are spread over buckets");

        let prefix = SOrderKey::prefix_by_customer(&7).unwrap();
        assert!(prefix.all_buckets);
        let records: Vec<SRecord> = c
            .records::<SRecord>()
            .on_table(t.name.clone())
            .scan_prefix(prefix)
            .try_collect()
            .await
            .unwrap();
        assert_eq!(records.len(), 7);
        assert_eq!(
            records[0],
            SRecord::Customer(SCustomer {
                id: 7,
                name: "seven".into()
            })
        );
        let numbers: Vec<u32> = records[1..]
            .iter()
            .map(|r| match r {
                SRecord::Order(o) => o.number,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(numbers, vec![0, 1, 2, 3, 4, 5]);
    }
}
