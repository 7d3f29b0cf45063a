//! Scans on every backend (see `hbase_orm_suite::conformance!`): bounds, prefixes, reversed
//! order, limits, paging, columns, versions, filters, and the server-side scanner's lifetime.

use futures::{StreamExt, TryStreamExt};
use hbase_orm::{ColumnFamily, Put, Scan, Table};
use hbase_orm_suite::{unsupported_on, with_table};

/// Rows `a`, `ab`, `abc`, `ac`, `b`, `ba`, `b\xff`, `c` (in key order) with one cell each.
const KEYS: [&[u8]; 8] = [b"a", b"ab", b"abc", b"ac", b"b", b"ba", b"b\xff", b"c"];

async fn fill(t: &Table) {
    let puts = KEYS
        .iter()
        .map(|k| Put::new(*k).column("d", "v", *k).column("m", "meta", "m"))
        .collect();
    t.put_many(puts).await.unwrap();
}

async fn keys(t: &Table, scan: Scan) -> Vec<Vec<u8>> {
    hbase_orm_suite::row_keys(t, scan).await
}

fn expect(keys: &[&[u8]]) -> Vec<Vec<u8>> {
    keys.iter().map(|k| k.to_vec()).collect()
}

fn families() -> Vec<ColumnFamily> {
    vec![
        ColumnFamily::new("d").max_versions(3),
        ColumnFamily::new("m"),
    ]
}

hbase_orm_suite::conformance! {
    async fn parallel_scans_return_the_rows_of_a_plain_scan_in_order(c: Client) {
        // Four regions, so the parts cross boundaries and some scans skip regions.
        let splits = vec![b"ab".to_vec(), b"b".to_vec(), b"ba".to_vec()];
        with_table(&c, "parallel", families(), &splits, |t| async move {
            fill(&t).await;
            let scans = [
                Scan::new(),
                Scan::new().reversed(),
                Scan::new().prefix("a"),
                Scan::new().prefix("b").reversed(),
                Scan::new().start("ab").stop(b"b\xff".to_vec()),
                Scan::new().limit(3),
                Scan::new().reversed().limit(5),
                Scan::new().caching(1),
            ];
            for scan in scans {
                let plain = keys(&t, scan.clone()).await;
                for n in [2, 4, 8] {
                    let parallel = keys(&t, scan.clone().parallel(n)).await;
                    assert_eq!(parallel, plain, "{scan:?} parallel({n})");
                }
                let mut unordered = keys(&t, scan.clone().parallel_unordered(3)).await;
                assert_eq!(unordered.len(), plain.len(), "{scan:?} unordered");
                if scan.limit.is_none() {
                    let mut sorted = plain.clone();
                    sorted.sort();
                    unordered.sort();
                    assert_eq!(unordered, sorted, "{scan:?} unordered");
                }
            }

            // A stream dropped early closes every scanner it opened.
            let client = t.client().clone();
            let mut rows = t.scan(Scan::new().caching(1).parallel(4));
            rows.next().await.unwrap().unwrap();
            assert!(client.stats().scanners_open > 0, "the parts hold scanners");
            drop(rows);
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
            while client.stats().scanners_open > 0 {
                assert!(
                    std::time::Instant::now() < deadline,
                    "scanners left open: {:?}",
                    client.stats()
                );
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
        })
        .await;
    }

    async fn forward_and_reversed_scans_honour_bounds_prefixes_and_limits(c: Client) {
        // Two regions, so scans cross a region boundary.
        with_table(
            &c,
            "bounds",
            families(),
            &[b"abc".to_vec()],
            |t| async move {
                fill(&t).await;
                let all = expect(&KEYS);
                let mut all_rev = all.clone();
                all_rev.reverse();
                assert_eq!(keys(&t, Scan::new()).await, all);
                assert_eq!(keys(&t, Scan::new().reversed()).await, all_rev);

                // [start, stop) in ascending terms, in both directions.
                assert_eq!(
                    keys(&t, Scan::new().start("ab").stop("b")).await,
                    expect(&[b"ab", b"abc", b"ac"])
                );
                assert_eq!(
                    keys(&t, Scan::new().start("ab").stop("b").reversed()).await,
                    expect(&[b"ac", b"abc", b"ab"])
                );

                // Prefixes, including rows with 0xFF bytes next to the prefix's end key.
                assert_eq!(
                    keys(&t, Scan::new().prefix("ab")).await,
                    expect(&[b"ab", b"abc"])
                );
                assert_eq!(
                    keys(&t, Scan::new().prefix("ab").reversed()).await,
                    expect(&[b"abc", b"ab"])
                );
                assert_eq!(
                    keys(&t, Scan::new().prefix("b")).await,
                    expect(&[b"b", b"ba", b"b\xff"])
                );
                assert_eq!(
                    keys(&t, Scan::new().prefix("b").reversed()).await,
                    expect(&[b"b\xff", b"ba", b"b"])
                );
                assert_eq!(keys(&t, Scan::new().prefix("zz")).await, expect(&[]));
                assert_eq!(
                    keys(&t, Scan::new().prefix("zz").reversed()).await,
                    expect(&[])
                );

                // Limits, forward and reversed, with and without a prefix.
                assert_eq!(
                    keys(&t, Scan::new().limit(3)).await,
                    expect(&[b"a", b"ab", b"abc"])
                );
                assert_eq!(
                    keys(&t, Scan::new().reversed().limit(2)).await,
                    expect(&[b"c", b"b\xff"])
                );
                assert_eq!(
                    keys(&t, Scan::new().prefix("a").reversed().limit(2)).await,
                    expect(&[b"ac", b"abc"])
                );
                assert_eq!(keys(&t, Scan::new().limit(0)).await, expect(&[]));

                // Tiny pages: many round trips, same answer.
                assert_eq!(keys(&t, Scan::new().caching(1)).await, all);
                assert_eq!(keys(&t, Scan::new().caching(3).reversed()).await, all_rev);

                // An empty range.
                assert_eq!(
                    keys(&t, Scan::new().start("b").stop("b")).await,
                    expect(&[])
                );
            },
        )
        .await;
    }

    async fn paging_resumes_after_the_last_key_seen(c: Client) {
        with_table(&c, "paging", families(), &[], |t| async move {
            let puts = (0..95)
                .map(|i| Put::new(format!("p{i:03}")).column("d", "v", "x"))
                .collect();
            t.put_many(puts).await.unwrap();
            let mut seen = Vec::new();
            let mut next_start: Vec<u8> = Vec::new();
            let mut pages = 0;
            loop {
                let page = keys(&t, Scan::new().start(next_start.clone()).limit(10)).await;
                if page.is_empty() {
                    break;
                }
                pages += 1;
                next_start = page.last().unwrap().clone();
                next_start.push(0); // the smallest key after the last one seen
                seen.extend(page);
            }
            assert_eq!(pages, 10);
            let expected: Vec<_> = (0..95).map(|i| format!("p{i:03}").into_bytes()).collect();
            assert_eq!(seen, expected);
        })
        .await;
    }

    async fn scans_select_columns_versions_time_ranges_and_filters(c: Client) {
        with_table(&c, "columns", families(), &[], |t| async move {
            for (row, ts, v) in [("r1", 10, "a"), ("r1", 20, "b"), ("r2", 30, "c")] {
                t.put(
                    Put::new(row)
                        .column_at("d", "v", ts, v)
                        .column_at("m", "meta", ts, "m"),
                )
                .await
                .unwrap();
            }
            let rows: Vec<_> = t.scan(Scan::new().family("m")).try_collect().await.unwrap();
            assert!(rows
                .iter()
                .all(|r| r.cells.iter().all(|c| c.family == b"m"[..])));
            assert_eq!(rows.len(), 2);

            // Thrift1 scans read one version per column, and only a range's upper bound.
            let versions: hbase_orm::Result<Vec<_>> = t
                .scan(Scan::new().column("d", "v").max_versions(3))
                .try_collect()
                .await;
            if let Some(rows) = unsupported_on(t.client(), &["thrift1"], versions) {
                assert_eq!(rows[0].versions("d", "v").count(), 2);
                assert_eq!(rows[0].cells.len(), 2);
            }

            let range: hbase_orm::Result<Vec<_>> =
                t.scan(Scan::new().time_range(15, 25)).try_collect().await;
            if let Some(rows) = unsupported_on(t.client(), &["thrift1"], range) {
                assert_eq!(rows.len(), 1);
                assert_eq!(rows[0].value("d", "v"), Some(&b"b"[..]));
            }
            let rows: Vec<_> = t
                .scan(Scan::new().time_range(0, 25))
                .try_collect()
                .await
                .unwrap();
            assert_eq!(rows.len(), 1);
            assert_eq!(rows[0].value("d", "v"), Some(&b"b"[..]));

            let rows: Vec<_> = t
                .scan(Scan::new().filter("ValueFilter(=, 'binary:c')"))
                .try_collect()
                .await
                .unwrap();
            assert_eq!(rows.len(), 1);
            assert_eq!(rows[0].key, b"r2");

            // A wide row split into parts of at most 2 cells.
            let wide = (0..5).fold(Put::new("w"), |p, i| p.column("d", format!("q{i}"), "x"));
            t.put(wide).await.unwrap();
            let parts: Vec<_> = t
                .scan(Scan::new().prefix("w").family("d").batch_size(2))
                .try_collect()
                .await
                .unwrap();
            assert_eq!(
                parts.iter().map(|r| r.cells.len()).collect::<Vec<_>>(),
                vec![2, 2, 1]
            );
            assert!(parts.iter().all(|r| r.key == b"w"));
            // The same with a part or two per page: the parts span pages and stay as asked.
            for caching in [1, 2] {
                let scan = Scan::new().prefix("w").family("d").batch_size(2).caching(caching);
                let parts: Vec<_> = t.scan(scan).try_collect().await.unwrap();
                assert_eq!(
                    parts.iter().map(|r| r.cells.len()).collect::<Vec<_>>(),
                    vec![2, 2, 1],
                    "pages of {caching}"
                );
            }
        })
        .await;
    }

    async fn scanners_are_closed_when_the_stream_ends_fails_or_is_dropped(c: Client) {
        with_table(&c, "lifetime", families(), &[], |t| async move {
            let c = t.client().clone();
            fill(&t).await;
            // Dropped early: the scanner is closed in the background.
            let mut stream = t.scan(Scan::new().caching(2));
            let first = stream.next().await.unwrap().unwrap();
            assert_eq!(first.key, b"a");
            let id = stream.scanner_id().expect("scanner opened");
            assert!(c.scanner_is_open(id).await.unwrap());
            drop(stream);
            let mut closed = false;
            for _ in 0..50 {
                if !c.scanner_is_open(id).await.unwrap() {
                    closed = true;
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
            assert!(
                closed,
                "scanner {id} still open after the stream was dropped"
            );

            // Run to the end: closed before the stream reports its end.
            let mut stream = t.scan(Scan::new().caching(3));
            let mut id = None;
            while let Some(row) = stream.next().await {
                row.unwrap();
                id = id.or(stream.scanner_id());
            }
            assert!(!c.scanner_is_open(id.unwrap()).await.unwrap());

            // Stopped by a limit: closed as well.
            let mut stream = t.scan(Scan::new().limit(2).caching(1));
            let mut id = None;
            while let Some(row) = stream.next().await {
                row.unwrap();
                id = id.or(stream.scanner_id());
            }
            assert!(!c.scanner_is_open(id.unwrap()).await.unwrap());
        })
        .await;
    }

    async fn a_scan_of_a_missing_table_fails_with_table_not_found(c: Client) {
        let t = c.table("hbase_orm_it:no_such_table_anywhere").unwrap();
        let err = t.scan(Scan::new()).next().await.unwrap().unwrap_err();
        assert!(
            matches!(err, hbase_orm::Error::TableNotFound { ref table } if table.contains("no_such_table_anywhere")),
            "{err}"
        );
    }
}
