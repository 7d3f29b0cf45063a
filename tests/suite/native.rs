//! What only the native backend does, against the local HBase: scans that cross many regions
//! (its client keeps the scan's place between region scanners), and many calls at once on one
//! connection per server.

use futures::TryStreamExt;
use hbase_orm::{Client, ColumnFamily, Config, Get, Put, Row, Scan, Table};
use hbase_orm_suite::{connect_with, native_masters_url, native_url, with_table};

async fn native() -> Client {
    connect_with(Config::from_url(&native_url()).expect("a valid hbase:// URL")).await
}

/// Row `k<i>-<j>` for i in 0..8, j in 0..10, in key order: ten rows in each of 8 regions.
fn keys() -> Vec<String> {
    (0..8)
        .flat_map(|i| (0..10).map(move |j| format!("k{i}-{j}")))
        .collect()
}

/// Splits at `k1` .. `k7`: the region boundaries fall between the groups of ten.
fn splits() -> Vec<Vec<u8>> {
    (1..8).map(|i| format!("k{i}").into_bytes()).collect()
}

async fn fill(t: &Table) {
    let puts = keys()
        .iter()
        .map(|k| Put::new(k.as_str()).column("d", "v", format!("value of {k}")))
        .collect();
    t.put_many(puts).await.unwrap();
}

async fn scan(t: &Table, scan: Scan) -> Vec<String> {
    let rows: Vec<Row> = t.scan(scan).try_collect().await.unwrap();
    rows.iter()
        .map(|r| {
            let key = String::from_utf8(r.key.clone()).unwrap();
            assert_eq!(
                r.value("d", "v"),
                Some(format!("value of {key}").as_bytes())
            );
            key
        })
        .collect()
}

/// The keys of `keys()` in `[start, stop)`, ascending.
fn between(start: &str, stop: &str) -> Vec<String> {
    let all = keys();
    all.into_iter()
        .filter(|k| k.as_str() >= start && k.as_str() < stop)
        .collect()
}

fn rev(mut keys: Vec<String>) -> Vec<String> {
    keys.reverse();
    keys
}

#[tokio::test]
async fn scans_cross_eight_regions_forward_and_reversed_with_stops_on_boundaries() {
    let c = native().await;
    with_table(
        &c,
        "native_regions",
        vec![ColumnFamily::new("d")],
        &splits(),
        |t| async move {
            assert_eq!(
                t.client()
                    .admin()
                    .region_locations(t.name())
                    .await
                    .unwrap()
                    .len(),
                8
            );
            fill(&t).await;
            // Pages of 3 rows, so pages end inside regions and at their ends.
            let all = keys();
            assert_eq!(scan(&t, Scan::new().caching(3)).await, all);
            assert_eq!(
                scan(&t, Scan::new().caching(3).reversed()).await,
                rev(all.clone())
            );
            // Bounds exactly on region boundaries, forward and reversed.
            let inner = between("k2", "k5");
            assert_eq!(inner.len(), 30);
            assert_eq!(
                scan(&t, Scan::new().start("k2").stop("k5").caching(4)).await,
                inner
            );
            assert_eq!(
                scan(&t, Scan::new().start("k2").stop("k5").caching(4).reversed()).await,
                rev(inner)
            );
            // From the first row to a boundary, from a boundary to the end.
            assert_eq!(scan(&t, Scan::new().stop("k1")).await, between("k0", "k1"));
            assert_eq!(
                scan(&t, Scan::new().start("k7").reversed()).await,
                rev(between("k7", "k8"))
            );
            // A limit that ends inside the third region, forward and reversed.
            assert_eq!(
                scan(&t, Scan::new().limit(25).caching(7)).await,
                all[..25].to_vec()
            );
            assert_eq!(
                scan(&t, Scan::new().limit(25).caching(7).reversed()).await,
                rev(all.clone())[..25].to_vec()
            );
            // A prefix inside one region; a range with no rows between two boundaries.
            assert_eq!(
                scan(&t, Scan::new().prefix("k4-")).await,
                between("k4-", "k4.")
            );
            assert!(scan(&t, Scan::new().start("k3-99").stop("k4"))
                .await
                .is_empty());
            // Nothing moved: no region scanner was lost and reopened on the way (each page
            // after the first is the next call of the same region scanner, numbered as HBase
            // expects).
            assert_eq!(t.client().stats().scans_resumed, 0);
        },
    )
    .await;
}

#[tokio::test]
async fn sixty_four_gets_at_once_share_one_connection_to_the_server() {
    let c = native().await;
    with_table(
        &c,
        "native_multiplex",
        vec![ColumnFamily::new("d")],
        &[],
        |t| async move {
            fill(&t).await;
            let opened = t.client().stats().connections_opened;
            let all = keys();
            let gets = all.iter().cycle().take(64).map(|k| {
                let t = &t;
                async move { (k, t.get(Get::new(k.as_str())).await.unwrap()) }
            });
            for (key, row) in futures::future::join_all(gets).await {
                let row = row.expect("written");
                assert_eq!(row.key, key.as_bytes());
                assert_eq!(
                    row.value("d", "v"),
                    Some(format!("value of {key}").as_bytes())
                );
            }
            assert_eq!(
                t.client().stats().connections_opened,
                opened,
                "the 64 gets went over the connection already open"
            );
        },
    )
    .await;
}

#[tokio::test]
async fn batches_are_grouped_per_server_and_answered_in_order_across_regions() {
    let c = native().await;
    with_table(
        &c,
        "native_batches",
        vec![ColumnFamily::new("d")],
        &splits(),
        |t| async move {
            // One put_many over all 8 regions; one get_many reading them back in a shuffled order
            // with two keys that do not exist.
            fill(&t).await;
            let mut wanted: Vec<String> = keys().into_iter().rev().step_by(3).collect();
            wanted.insert(5, "k9-missing".into());
            wanted.push("a-missing".into());
            let gets = wanted.iter().map(|k| Get::new(k.as_str())).collect();
            let rows = t.get_many(gets).await.unwrap();
            assert_eq!(rows.len(), wanted.len());
            for (key, row) in wanted.iter().zip(&rows) {
                match row {
                    Some(row) => {
                        assert_eq!(row.key, key.as_bytes());
                        assert_eq!(
                            row.value("d", "v"),
                            Some(format!("value of {key}").as_bytes())
                        );
                    }
                    None => assert!(key.ends_with("-missing"), "{key} was written"),
                }
            }
            // One delete_many over every other row of every region.
            let gone: Vec<String> = keys().into_iter().step_by(2).collect();
            let deletes = gone
                .iter()
                .map(|k| hbase_orm::Delete::new(k.as_str()))
                .collect();
            t.delete_many(deletes).await.unwrap();
            let left = scan(&t, Scan::new()).await;
            let expected: Vec<String> = keys().into_iter().skip(1).step_by(2).collect();
            assert_eq!(left, expected);
        },
    )
    .await;
}

#[tokio::test]
async fn a_region_split_under_a_scan_and_a_save_loop_loses_and_repeats_no_row() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let c = native().await;
    // Two regions: the scanned rows in [.., t), the saves in [t, ..). A region made by a split
    // cannot split again until it is compacted, so each split is of one of these two.
    let splits = [b"t".to_vec()];
    with_table(
        &c,
        "native_split",
        vec![ColumnFamily::new("d")],
        &splits,
        |t| async move {
            let scanned: Vec<String> = (0..2000).map(|i| format!("s{i:04}")).collect();
            let puts = scanned
                .iter()
                .map(|k| Put::new(k.as_str()).column("d", "v", format!("value of {k}")));
            t.put_many(puts.collect()).await.unwrap();

            // Saves one row after another while the regions split, keeping those acknowledged.
            let stop = Arc::new(AtomicBool::new(false));
            let saver = tokio::spawn({
                let (t, stop) = (t.clone(), stop.clone());
                async move {
                    let mut acknowledged = Vec::new();
                    while !stop.load(Ordering::Relaxed) {
                        let key = format!("w{:05}", acknowledged.len());
                        let put =
                            Put::new(key.as_str()).column("d", "v", format!("value of {key}"));
                        t.put(put).await.unwrap();
                        acknowledged.push(key);
                    }
                    acknowledged
                }
            });

            // A scan in pages of 50 rows; the table splits twice under it: the region it reads
            // (at a row it has still to read), then the region the saves go to.
            let admin = t.client().admin();
            let mut rows = t.scan(Scan::new().start("s").stop("t").caching(50));
            let mut seen = Vec::new();
            while let Some(row) = rows.try_next().await.unwrap() {
                seen.push(String::from_utf8(row.key.clone()).unwrap());
                match seen.len() {
                    500 => admin.split_region(t.name(), b"s1000").await.unwrap(),
                    1200 => admin.split_region(t.name(), b"w").await.unwrap(),
                    _ => {}
                }
            }
            stop.store(true, Ordering::Relaxed);
            let acknowledged = saver.await.unwrap();
            assert_eq!(seen, scanned, "every row once, in order");
            assert!(
                t.client().stats().scans_resumed >= 1,
                "the split closed the region the scan was reading"
            );
            assert_eq!(admin.region_locations(t.name()).await.unwrap().len(), 4);

            // Every acknowledged save is there.
            assert!(!acknowledged.is_empty());
            let gets = acknowledged.iter().map(|k| Get::new(k.as_str())).collect();
            let found = t.get_many(gets).await.unwrap();
            for (key, row) in acknowledged.iter().zip(found) {
                let row = row.unwrap_or_else(|| panic!("acknowledged save {key} is missing"));
                assert_eq!(
                    row.value("d", "v"),
                    Some(format!("value of {key}").as_bytes())
                );
            }
        },
    )
    .await;
}

#[tokio::test]
async fn a_quorum_that_does_not_answer_fails_at_connect_naming_it() {
    let e = Client::connect("hbase://127.0.0.1:1?connect_timeout_ms=1000")
        .await
        .unwrap_err();
    assert!(
        matches!(e, hbase_orm::Error::Connect { ref address, .. } if address == "127.0.0.1:1"),
        "{e}"
    );
    // A parent znode HBase does not use: the message says where to look.
    let url = format!("{}?znode=/not-hbase", native_url());
    let e = Client::connect(&url).await.unwrap_err();
    assert!(e.to_string().contains("/not-hbase"), "{e}");
}

#[tokio::test]
async fn a_client_given_the_masters_finds_meta_and_the_master_without_zookeeper() {
    let config = Config::from_url(&native_masters_url()).expect("a valid hbase+rpc:// URL");
    assert_eq!(config.registry, hbase_orm::Registry::Masters);
    let c = connect_with(config).await;
    // Admin calls go to the master it named, data calls to the regions meta names.
    with_table(
        &c,
        "native_masters",
        vec![ColumnFamily::new("d")],
        &splits(),
        |t| async move {
            fill(&t).await;
            assert_eq!(scan(&t, Scan::new()).await, keys());
            assert_eq!(scan(&t, Scan::new().reversed()).await, rev(keys()));
            let row = t.get(Get::new("k5-3")).await.unwrap().expect("written");
            assert_eq!(row.value("d", "v"), Some(&b"value of k5-3"[..]));
            let regions = t.client().admin().region_locations(t.name()).await.unwrap();
            assert_eq!(regions.len(), 8);
        },
    )
    .await;
    // No master at the first address: the next one answers.
    let second = native_masters_url().replacen("hbase+rpc://", "hbase+rpc://127.0.0.1:1,", 1);
    let c = Client::connect(&format!("{second}?connect_timeout_ms=1000"))
        .await
        .unwrap();
    assert!(c.admin().namespace_exists("default").await.unwrap());
    // None answers: the error names them.
    let e = Client::connect("hbase+rpc://127.0.0.1:1?connect_timeout_ms=1000")
        .await
        .unwrap_err();
    assert!(
        matches!(e, hbase_orm::Error::Connect { ref address, .. } if address == "127.0.0.1:1"),
        "{e}"
    );
}

#[tokio::test]
async fn a_batch_larger_than_one_call_is_split_and_answered_whole() {
    let c = native().await;
    with_table(
        &c,
        "native_big_batch",
        vec![ColumnFamily::new("d")],
        &[],
        |t| async move {
            // 3,000 rows of 1 KiB: three calls of at most 1,000 actions each way.
            let keys: Vec<String> = (0..3000).map(|i| format!("b{i:05}")).collect();
            let value = "v".repeat(1024);
            let puts = keys
                .iter()
                .map(|k| Put::new(k.as_str()).column("d", "v", value.as_str()));
            t.put_many(puts.collect()).await.unwrap();
            let gets = keys.iter().map(|k| Get::new(k.as_str())).collect();
            let rows = t.get_many(gets).await.unwrap();
            assert_eq!(rows.len(), keys.len());
            for (key, row) in keys.iter().zip(rows) {
                let row = row.unwrap_or_else(|| panic!("{key} was written"));
                assert_eq!(row.key, key.as_bytes());
                assert_eq!(row.value("d", "v").map(<[u8]>::len), Some(1024));
            }
        },
    )
    .await;
}

/// A reply over the client's `max_reply_bytes` fails its own call with an error that names the
/// limit; the connection stays open and the next call on it is answered.
#[tokio::test]
async fn a_reply_over_the_limit_fails_its_call_and_keeps_the_connection() {
    let mut config = Config::from_url(&native_url()).expect("a valid hbase:// URL");
    config.max_reply_bytes = 64 * 1024;
    let c = connect_with(config).await;
    with_table(
        &c,
        "native_large_reply",
        vec![ColumnFamily::new("d")],
        &[],
        |t| async move {
            let big = vec![b'x'; 200 * 1024];
            t.put(Put::new("big").column("d", "v", big)).await.unwrap();
            t.put(Put::new("small").column("d", "v", "s"))
                .await
                .unwrap();
            let opened = t.client().stats().connections_opened;
            let e = t.get(Get::new("big")).await.unwrap_err();
            assert!(
                matches!(e, hbase_orm::Error::IllegalArgument { .. })
                    && e.to_string().contains("max_reply_bytes"),
                "{e}"
            );
            let row = t.get(Get::new("small")).await.unwrap().expect("written");
            assert_eq!(row.value("d", "v"), Some(&b"s"[..]));
            assert_eq!(
                t.client().stats().connections_opened,
                opened,
                "the reply too large was read past on the connection already open"
            );
        },
    )
    .await;
}

#[tokio::test]
async fn meta_reads_as_a_table_and_says_where_it_is() {
    let c = native().await;
    let meta_name = hbase_orm::TableName::new("hbase", "meta");
    let meta = c.table_named(meta_name.clone());
    let locations = c.admin().region_locations(&meta_name).await.unwrap();
    assert_eq!(locations.len(), 1);
    assert!(locations[0].start_key.is_empty() && locations[0].end_key.is_empty());
    with_table(
        &c,
        "meta_rows",
        vec![ColumnFamily::new("d")],
        &splits(),
        |t| async move {
            let rows: Vec<Row> = meta.scan(Scan::new()).try_collect().await.unwrap();
            let prefix = format!("{}:{},", t.name().namespace, t.name().name);
            let ours: Vec<&Row> = rows
                .iter()
                .filter(|r| r.key.starts_with(prefix.as_bytes()))
                .collect();
            assert_eq!(ours.len(), 8, "a meta row per region");
            assert!(ours.iter().all(|r| r.value("info", "server").is_some()));
            let first = meta.get(Get::new(ours[0].key.clone())).await.unwrap();
            assert_eq!(first.as_ref().map(|r| &r.key), Some(&ours[0].key));
        },
    )
    .await;
}
