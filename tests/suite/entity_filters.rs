//! Server-side filters of entity scans on every backend (see `hbase_orm_suite::conformance!`): typed comparisons encoded with
//! each field's codec (eq, ne, ranges, prefixes), raw filter-language expressions, and how they
//! combine with key prefixes, limits, reversed scans, paging and salted tables.

use futures::TryStreamExt;
use hbase_orm::codec::Codec;
use hbase_orm::rowkey::salt_split_keys;
use hbase_orm::{filter_literal, Client, EntityKey, Error, HBaseEntity, Put, Repository, Scan};
use hbase_orm_suite::{fresh_split_repository, TestTable};

/// An order with one field of each kind the filters are tried on.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "hbase_orm_it", table = "filter_orders", family = "d")]
struct Order {
    #[hbase(key)]
    customer: u32,
    #[hbase(key)]
    number: u32,
    city: String,
    #[hbase(rename = "t")]
    total: u64,
    name: String,
    note: Option<String>,
    code: Option<Vec<u8>>,
    balance: i64,
}

/// The same layout, salted over 4 buckets.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    namespace = "hbase_orm_it",
    table = "filter_salted",
    family = "d",
    salt(buckets = 4)
)]
struct SaltedOrder {
    #[hbase(key)]
    customer: u32,
    #[hbase(key)]
    number: u32,
    city: String,
    total: u64,
}

/// A codec that refuses empty strings, to see an encode error come out of a scan.
struct NonEmpty;

impl Codec<String> for NonEmpty {
    fn expected() -> std::borrow::Cow<'static, str> {
        "non-empty UTF-8".into()
    }
    fn encode(value: &String, out: &mut Vec<u8>) -> Result<(), String> {
        if value.is_empty() {
            return Err("empty tag".into());
        }
        out.extend_from_slice(value.as_bytes());
        Ok(())
    }
    fn decode(bytes: &[u8]) -> Result<String, String> {
        String::from_utf8(bytes.to_vec()).map_err(|e| e.to_string())
    }
}

#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "hbase_orm_it", table = "filter_tags", family = "d")]
struct Tagged {
    #[hbase(key)]
    id: u32,
    #[hbase(codec = NonEmpty)]
    tag: String,
}

const CITIES: [&str; 4] = ["Paris", "Lyon", "O'Hare", "Nice"];
const NAMES: [&str; 5] = ["alpha", "alps", "beta", "al", "gamma"];
/// A binary value with a NUL, a quote, a closing parenthesis and bytes that are not UTF-8.
const ODD_CODE: [u8; 6] = [0x00, 0xFF, b'\'', 0x80, b')', 0x27];

/// 2 customers x 10 orders: city cycles through `CITIES`, total = number * 10 + customer,
/// every third order has a note, orders 4 carry codes.
fn orders() -> Vec<Order> {
    (1..=2u32)
        .flat_map(|customer| {
            (0..10u32).map(move |number| Order {
                customer,
                number,
                city: CITIES[number as usize % 4].into(),
                total: u64::from(number * 10 + customer),
                name: NAMES[number as usize % 5].into(),
                note: (number % 3 == 0).then(|| format!("note {number}")),
                code: match number {
                    4 => Some(ODD_CODE.to_vec()),
                    5 => Some(b"plain".to_vec()),
                    _ => None,
                },
                balance: i64::from(number) - 5,
            })
        })
        .collect()
}

/// A repository of `T` on a fresh table with the families `T` declares.
async fn filled(client: &Client, label: &str) -> (Repository<Order>, TestTable) {
    let (r, t) = fresh_split_repository::<Order>(client, label, &[]).await;
    r.save_all(&orders()).await.unwrap();
    (r, t)
}

/// (customer, number) of each order, in scan order.
fn keys(items: &[Order]) -> Vec<(u32, u32)> {
    items.iter().map(|o| (o.customer, o.number)).collect()
}

/// The keys of `orders()` that pass `keep`, in key order.
fn expected(keep: impl Fn(&Order) -> bool) -> Vec<(u32, u32)> {
    keys(&orders().into_iter().filter(keep).collect::<Vec<_>>())
}

/// Makes one of the scans a test compares.
type MakeScan = fn(&Repository<Order>) -> hbase_orm::EntityScan<Order>;

async fn run(scan: hbase_orm::EntityScan<Order>) -> Vec<(u32, u32)> {
    keys(&scan.stream().try_collect::<Vec<_>>().await.unwrap())
}

/// Every entity `scan` returns.
async fn collect<T: HBaseEntity>(scan: hbase_orm::EntityScan<T>) -> Vec<T> {
    scan.stream().try_collect().await.unwrap()
}

/// The new user's readings: `[salt][device]\0[reverse ts]`, salted over 8 buckets.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    namespace = "hbase_orm_it",
    table = "filter_readings",
    family = "d",
    key_delimiter = '\0',
    salt(buckets = 8)
)]
struct Reading {
    #[hbase(key)]
    device: String,
    #[hbase(key(reverse_timestamp))]
    ts: i64,
    value: f64,
}

/// Readings of 5 devices, one a minute for an hour, from a time whose encoded bytes go past
/// 0x7F (and hold 0x0A): the key filter must match any byte.
fn readings() -> Vec<Reading> {
    let start = 1_700_000_000_000i64;
    (0..5)
        .flat_map(|d| {
            (0..60).map(move |m| Reading {
                device: format!("device-{d}"),
                ts: start + m * 60_000,
                value: d as f64 + m as f64 / 100.0,
            })
        })
        .collect()
}

/// Three text parts with a printable delimiter; the last part may hold it.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    namespace = "hbase_orm_it",
    table = "filter_paths",
    family = "d",
    key_delimiter = '|'
)]
struct Path {
    #[hbase(key)]
    a: String,
    #[hbase(key)]
    b: String,
    #[hbase(key)]
    c: String,
    v: i64,
}

hbase_orm_suite::conformance! {
    async fn a_count_is_the_number_of_entities_the_scan_streams(c: Client) {
        let (r, _t) = filled(&c, "filter_count").await;
        // A partial row (a column of the entity, not its presence cell) holds no entity.
        let partial = OrderKey { customer: 3, number: 0 };
        r.table()
            .put(Put::new(partial.row_key().unwrap()).column("d", "note", "no order here"))
            .await
            .unwrap();
        let paris = "Paris".to_string();
        let scans: Vec<(&str, MakeScan)> = vec![
            ("all", |r| r.scan()),
            ("where_eq", |r| r.scan().where_eq(Order::CITY, &"Paris".to_string())),
            ("prefix", |r| r.scan().prefix(OrderKey::prefix_by_customer(&2).unwrap())),
            ("limit", |r| r.scan().limit(7)),
            ("reversed limit", |r| r.scan().reversed().limit(3)),
            ("key test", |r| r.scan().where_key_eq(Order::NUMBER, &4)),
        ];
        for (what, scan) in scans {
            let streamed = run(scan(&r)).await.len() as u64;
            assert_eq!(scan(&r).count().await.unwrap(), streamed, "{what}");
        }
        assert_eq!(r.scan().count().await.unwrap(), 20);
        assert_eq!(
            r.scan().where_eq(Order::CITY, &paris).count().await.unwrap(),
            expected(|o| o.city == "Paris").len() as u64
        );
        assert_eq!(r.scan().limit(0).count().await.unwrap(), 0);

        let (salted, _s) =
            fresh_split_repository::<SaltedOrder>(&c, "filter_count_salted", &salt_split_keys(4)).await;
        let all: Vec<SaltedOrder> = (0..5u32)
            .map(|customer| SaltedOrder { customer, number: 1, city: "Lima".into(), total: 1 })
            .collect();
        salted.save_all(&all).await.unwrap();
        assert_eq!(salted.scan().count().await.unwrap(), 5);
    }

    async fn the_filter_language_reads_operators_as_stored_op_given(c: Client) {
        let (r, _t) = fresh_split_repository::<Order>(&c, "filter_op_order", &[]).await;
        let table = r.table();
        for (row, v) in [("r3", "3"), ("r5", "5"), ("r7", "7")] {
            table.put(Put::new(row).column("d", "v", v)).await.unwrap();
        }
        let rows_with = |op: &'static str| {
            let table = table.clone();
            async move {
                let filter = format!("SingleColumnValueFilter('d', 'v', {op}, 'binary:5', true, true)");
                let rows: Vec<_> = table
                    .scan(Scan::new().filter(filter))
                    .try_collect()
                    .await
                    .unwrap();
                rows.into_iter()
                    .map(|r| String::from_utf8(r.key).unwrap())
                    .collect::<Vec<_>>()
            }
        };
        // Stored value on the left, given value on the right: `>=` keeps 5 and 7.
        assert_eq!(rows_with(">=").await, ["r5", "r7"]);
        assert_eq!(rows_with(">").await, ["r7"]);
        assert_eq!(rows_with("<=").await, ["r3", "r5"]);
        assert_eq!(rows_with("<").await, ["r3"]);
        assert_eq!(rows_with("=").await, ["r5"]);
        assert_eq!(rows_with("!=").await, ["r3", "r7"]);
    }

    async fn typed_comparisons_mean_what_their_names_say(c: Client) {
        let (r, _t) = filled(&c, "filter_typed").await;

        let paris = "Paris".to_string();
        assert_eq!(
            run(r.scan().where_eq(Order::CITY, &paris)).await,
            expected(|o| o.city == "Paris")
        );
        assert_eq!(
            run(r.scan().where_ne(Order::CITY, &paris)).await,
            expected(|o| o.city != "Paris")
        );
        // Totals are 1, 2, 11, 12, ..., 91, 92: 51 is one of them, 50 is not.
        for v in [51u64, 50, 0, 92] {
            assert_eq!(
                run(r.scan().where_ge(Order::TOTAL, &v)).await,
                expected(|o| o.total >= v),
                ">= {v}"
            );
            assert_eq!(
                run(r.scan().where_gt(Order::TOTAL, &v)).await,
                expected(|o| o.total > v),
                "> {v}"
            );
            assert_eq!(
                run(r.scan().where_le(Order::TOTAL, &v)).await,
                expected(|o| o.total <= v),
                "<= {v}"
            );
            assert_eq!(
                run(r.scan().where_lt(Order::TOTAL, &v)).await,
                expected(|o| o.total < v),
                "< {v}"
            );
        }
        // `lo` included, `hi` excluded: 21, 22, 31, 32, 41, 42 but not 51.
        let range = run(r.scan().where_range(Order::TOTAL, &21, &51)).await;
        assert_eq!(range, expected(|o| (21..51).contains(&o.total)));
        assert_eq!(range.len(), 6);
        // A range with nothing in it.
        assert_eq!(
            run(r.scan().where_range(Order::TOTAL, &3, &11)).await,
            Vec::<(u32, u32)>::new()
        );

        let al = run(r.scan().where_prefix(Order::NAME, "al")).await;
        assert_eq!(al, expected(|o| o.name.starts_with("al")));
        assert_eq!(al.len(), 12, "alpha, alps and al, of both customers");
        assert_eq!(
            run(r.scan().where_prefix(Order::NAME, b"alp")).await,
            expected(|o| o.name.starts_with("alp"))
        );
    }

    async fn raw_filters_and_several_calls_and_together(c: Client) {
        let (r, _t) = filled(&c, "filter_and").await;

        let mut lyon = b"SingleColumnValueFilter('d', 'city', =, ".to_vec();
        lyon.extend(filter_literal(b"binary:Lyon"));
        lyon.extend_from_slice(b", true, true)");
        assert_eq!(
            run(r.scan().filter(lyon.clone())).await,
            expected(|o| o.city == "Lyon")
        );
        // A raw `OR` keeps its meaning next to a typed comparison.
        let either = "SingleColumnValueFilter('d', 'city', =, 'binary:Lyon', true, true) \
                      OR SingleColumnValueFilter('d', 'city', =, 'binary:Nice', true, true)";
        assert_eq!(
            run(r.scan().filter(either).where_ge(Order::TOTAL, &40)).await,
            expected(|o| (o.city == "Lyon" || o.city == "Nice") && o.total >= 40)
        );
        assert_eq!(
            run(r
                .scan()
                .where_ne(Order::CITY, &"Paris".to_string())
                .where_range(Order::TOTAL, &10, &80)
                .where_prefix(Order::NAME, "al"))
            .await,
            expected(|o| o.city != "Paris" && (10..80).contains(&o.total) && o.name.starts_with("al"))
        );
        // Contradicting filters leave nothing.
        assert!(run(r
            .scan()
            .where_eq(Order::CITY, &"Lyon".to_string())
            .where_eq(Order::CITY, &"Nice".to_string()))
        .await
        .is_empty());
    }

    async fn filters_combine_with_prefix_limit_reversed_and_paging(c: Client) {
        let (r, _t) = filled(&c, "filter_combine").await;
        let customer_2 = OrderKey::prefix_by_customer(&2).unwrap();
        let not_paris = "Paris".to_string();

        assert_eq!(
            run(r
                .scan()
                .prefix(customer_2.clone())
                .where_ne(Order::CITY, &not_paris))
            .await,
            expected(|o| o.customer == 2 && o.city != "Paris")
        );
        // The limit counts entities that passed the filter.
        let all = expected(|o| o.city != "Paris");
        assert_eq!(
            run(r.scan().where_ne(Order::CITY, &not_paris).limit(4)).await,
            all[..4]
        );
        let mut backwards = all.clone();
        backwards.reverse();
        assert_eq!(
            run(r
                .scan()
                .where_ne(Order::CITY, &not_paris)
                .reversed()
                .limit(5))
            .await,
            backwards[..5]
        );

        // Paging: every filtered entity once, in both directions.
        for reversed in [false, true] {
            let mut seen = Vec::new();
            let mut after: Option<OrderKey> = None;
            let mut pages = 0;
            loop {
                let mut scan = r.scan().where_ne(Order::CITY, &not_paris);
                if reversed {
                    scan = scan.reversed();
                }
                if let Some(k) = &after {
                    scan = scan.after(k);
                }
                let page = scan.page(4).await.unwrap();
                pages += 1;
                seen.extend(keys(&page.items));
                match page.next {
                    Some(k) => after = Some(k),
                    None => break,
                }
            }
            let want = if reversed { &backwards } else { &all };
            assert_eq!(&seen, want, "reversed = {reversed}");
            assert_eq!(pages, want.len() / 4 + 1, "reversed = {reversed}");
        }
    }

    async fn rows_without_the_column_are_dropped_and_option_fields_filter(c: Client) {
        let (r, _t) = filled(&c, "filter_missing").await;

        // `note` is None (no cell) for two orders in three: every comparison drops those rows.
        let note_3 = "note 3".to_string();
        assert_eq!(
            run(r.scan().where_eq(Order::NOTE, &note_3)).await,
            vec![(1, 3), (2, 3)]
        );
        let ne = run(r.scan().where_ne(Order::NOTE, &note_3)).await;
        assert_eq!(ne, expected(|o| o.note.is_some() && o.number != 3));
        assert_eq!(ne.len(), 6, "orders 0, 6 and 9 of both customers");
        assert_eq!(
            run(r.scan().where_prefix(Order::NOTE, "note")).await,
            expected(|o| o.note.is_some())
        );

        // A projection that leaves out the tested column still filters on it (HBase would take
        // a column the scan does not read for a missing one, and drop every row).
        let projected: Vec<Order> = r
            .scan()
            .fields((Order::CITY, Order::TOTAL, Order::NAME, Order::BALANCE))
            .where_eq(Order::NOTE, &note_3)
            .stream()
            .try_collect()
            .await
            .unwrap();
        assert_eq!(keys(&projected), vec![(1, 3), (2, 3)]);
        assert!(projected.iter().all(|o| o.code.is_none()), "not read");
    }

    async fn quotes_and_binary_values_match_exactly(c: Client) {
        let (r, _t) = filled(&c, "filter_bytes").await;

        assert_eq!(
            run(r.scan().where_eq(Order::CITY, &"O'Hare".to_string())).await,
            expected(|o| o.city == "O'Hare")
        );
        assert_eq!(
            run(r.scan().where_prefix(Order::CITY, "O'")).await,
            expected(|o| o.city == "O'Hare")
        );
        assert_eq!(
            run(r.scan().where_eq(Order::CODE, &ODD_CODE.to_vec())).await,
            vec![(1, 4), (2, 4)]
        );
        assert_eq!(
            run(r.scan().where_prefix(Order::CODE, &ODD_CODE[..3])).await,
            vec![(1, 4), (2, 4)]
        );
        assert_eq!(
            run(r.scan().where_ne(Order::CODE, &ODD_CODE.to_vec())).await,
            vec![(1, 5), (2, 5)]
        );
    }

    async fn ranges_follow_the_stored_bytes_not_signed_numbers(c: Client) {
        let (r, _t) = filled(&c, "filter_signed").await;
        // Balances are number - 5: -5..=4. Big-endian two's complement puts every negative value
        // above every positive one, as documented.
        let gt_zero = run(r.scan().where_gt(Order::BALANCE, &0)).await;
        assert_eq!(gt_zero, expected(|o| o.balance != 0));
        let non_negative = run(r.scan().where_range(Order::BALANCE, &0, &i64::MAX)).await;
        assert_eq!(non_negative, expected(|o| o.balance >= 0));
    }

    async fn filters_apply_to_every_bucket_of_a_salted_entity(c: Client) {
        let (r, _t) = fresh_split_repository::<SaltedOrder>(&c, "filter_salted", &salt_split_keys(4)).await;
        let all: Vec<SaltedOrder> = (0..6u32)
            .flat_map(|customer| {
                (0..8u32).map(move |number| SaltedOrder {
                    customer,
                    number,
                    city: CITIES[(customer + number) as usize % 4].into(),
                    total: u64::from(customer * 100 + number),
                })
            })
            .collect();
        r.save_all(&all).await.unwrap();
        let used: std::collections::BTreeSet<u8> = r
            .table()
            .scan(Scan::new())
            .map_ok(|row| row.key[0])
            .try_collect()
            .await
            .unwrap();
        assert_eq!(used.len(), 4, "every bucket holds rows");

        let want = |keep: &dyn Fn(&SaltedOrder) -> bool| -> Vec<(u32, u32)> {
            all.iter()
                .filter(|o| keep(o))
                .map(|o| (o.customer, o.number))
                .collect()
        };
        let got = |items: Vec<SaltedOrder>| -> Vec<(u32, u32)> {
            items.iter().map(|o| (o.customer, o.number)).collect()
        };
        let nice = "Nice".to_string();
        let merged: Vec<SaltedOrder> = r
            .scan()
            .where_eq(SaltedOrder::CITY, &nice)
            .stream()
            .try_collect()
            .await
            .unwrap();
        assert_eq!(got(merged), want(&|o| o.city == "Nice"));

        let ranged: Vec<SaltedOrder> = r
            .scan()
            .where_range(SaltedOrder::TOTAL, &203, &406)
            .reversed()
            .limit(7)
            .stream()
            .try_collect()
            .await
            .unwrap();
        let mut expect = want(&|o| (203..406).contains(&o.total));
        expect.reverse();
        expect.truncate(7);
        assert_eq!(got(ranged), expect);

        let prefixed: Vec<SaltedOrder> = r
            .scan()
            .prefix(SaltedOrderKey::prefix_by_customer(&3).unwrap())
            .where_ne(SaltedOrder::CITY, &nice)
            .stream()
            .try_collect()
            .await
            .unwrap();
        assert_eq!(
            got(prefixed),
            want(&|o| o.customer == 3 && o.city != "Nice")
        );

        let page = r
            .scan()
            .where_ne(SaltedOrder::CITY, &nice)
            .page(10)
            .await
            .unwrap();
        let rest = r
            .scan()
            .where_ne(SaltedOrder::CITY, &nice)
            .after(page.next.as_ref().unwrap())
            .page(100)
            .await
            .unwrap();
        let mut paged = got(page.items);
        paged.extend(got(rest.items));
        assert_eq!(paged, want(&|o| o.city != "Nice"));
        assert!(rest.next.is_none());
    }

    async fn an_encode_error_comes_out_of_stream_and_page(c: Client) {
        let (r, _t) = fresh_split_repository::<Tagged>(&c, "filter_encode", &[]).await;
        r.save(&Tagged {
            id: 1,
            tag: "x".into(),
        })
        .await
        .unwrap();

        let mut stream = r
            .scan()
            .where_eq(Tagged::TAG, &"x".to_string())
            .where_ne(Tagged::TAG, &String::new())
            .stream();
        match stream.try_next().await {
            Err(Error::Encode { field, reason, .. }) => {
                assert_eq!(field, "tag");
                assert_eq!(reason, "empty tag");
            }
            other => panic!("expected an encode error, got {other:?}"),
        }
        assert!(stream.try_next().await.unwrap().is_none(), "then nothing");

        let err = r
            .scan()
            .where_gt(Tagged::TAG, &String::new())
            .page(5)
            .await
            .unwrap_err();
        assert!(matches!(err, Error::Encode { field: "tag", .. }), "{err}");

        let found: Vec<Tagged> = r
            .scan()
            .where_eq(Tagged::TAG, &"x".to_string())
            .stream()
            .try_collect()
            .await
            .unwrap();
        assert_eq!(found.len(), 1);
    }

    async fn key_part_filters_keep_the_entities_whose_key_holds_the_values_in_every_bucket(c: Client) {
        let splits = salt_split_keys(8);
        let (r, _t) = fresh_split_repository::<Reading>(&c, "key_parts", &splits).await;
        let all = readings();
        r.save_all(&all).await.unwrap();
        let start = 1_700_000_000_000i64;
        let (t1, t2) = (start + 10 * 60_000, start + 20 * 60_000);
        let sorted = |mut v: Vec<Reading>| {
            v.sort_by(|a, b| (&a.device, a.ts).cmp(&(&b.device, b.ts)));
            v
        };
        let expect = |keep: &dyn Fn(&Reading) -> bool| {
            sorted(all.iter().filter(|r| keep(r)).cloned().collect())
        };

        // Every device's readings of ten minutes: [t1, t2), whatever the bucket.
        let between: Vec<Reading> = collect(r.scan().where_key_between(Reading::TS, &t1, &t2)).await;
        assert_eq!(between.len(), 50);
        assert_eq!(sorted(between), expect(&|r| r.ts >= t1 && r.ts < t2));

        // A later part's equality, and both together.
        let d3: Vec<Reading> = collect(r.scan().where_key_eq(Reading::DEVICE, &"device-3".to_string()).where_key_between(Reading::TS, &t1, &t2)).await;
        assert_eq!(sorted(d3), expect(&|r| r.device == "device-3" && r.ts >= t1 && r.ts < t2));
        let one: Vec<Reading> = collect(r.scan().where_key_eq(Reading::TS, &t1)).await;
        assert_eq!(sorted(one), expect(&|r| r.ts == t1));

        // The text part's equality goes to the region servers as a RowFilter; the binary
        // range cannot (HBase reads keys as UTF-8 there) and is tested on the client only.
        let device = r.scan().where_key_eq(Reading::DEVICE, &"device-3".to_string());
        assert!(format!("{device:?}").contains("RowFilter"), "{device:?}");
        let range = r.scan().where_key_between(Reading::TS, &t1, &t2);
        assert!(!format!("{range:?}").contains("RowFilter"), "{range:?}");
        // A device name that is a prefix of another matches only itself.
        let none: Vec<Reading> = collect(r.scan().where_key_eq(Reading::DEVICE, &"device-".to_string())).await;
        assert!(none.is_empty());
        // An empty range keeps nothing; a range of a variable-length part is refused.
        let empty: Vec<Reading> = collect(r.scan().where_key_between(Reading::TS, &t2, &t1)).await;
        assert!(empty.is_empty());
        let refused = r
            .scan()
            .where_key_between(Reading::DEVICE, &"a".to_string(), &"b".to_string())
            .stream()
            .try_collect::<Vec<Reading>>()
            .await;
        assert!(matches!(refused, Err(Error::IllegalArgument { .. })), "{refused:?}");
    }

    async fn a_key_value_holding_the_delimiter_matches_no_key(c: Client) {
        let (r, _t) = fresh_split_repository::<Path>(&c, "paths", &[]).await;
        let path = |a: &str, b: &str, c: &str| Path {
            a: a.into(),
            b: b.into(),
            c: c.into(),
            v: 1,
        };
        r.save(&path("s", "x", "y|z")).await.unwrap();
        // `b` is "x" here; "x|y" would match across into `c` if the delimiter were not
        // checked (a delimited part never holds it: the key writer refuses such a value).
        let across: Vec<Path> = collect(r.scan().where_key_eq(Path::B, &"x|y".to_string())).await;
        assert!(across.is_empty(), "{across:?}");
        let found: Vec<Path> = collect(r.scan().where_key_eq(Path::C, &"y|z".to_string())).await;
        assert_eq!(found, [path("s", "x", "y|z")]);
    }
}
