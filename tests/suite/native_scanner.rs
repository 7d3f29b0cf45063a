//! Native region scanners against the local HBase: a caller that pauses past the scanner's
//! lease (the launcher's region server keeps an unused scanner 10 s, HBase's default is 60 s)
//! while the stream keeps it alive, and replies that end inside a row (a tiny
//! `max_result_size`).

use std::time::Duration;

use futures::{Stream, StreamExt};
use hbase_orm::{Client, ColumnFamily, Config, Put, Result, Row, Scan, Table};
use hbase_orm_suite::{connect_with, native_url, region_scanner_lease, with_table};

async fn native() -> Client {
    connect_with(Config::from_url(&native_url()).expect("a valid hbase:// URL")).await
}

fn key(i: usize) -> String {
    format!("row{i:03}")
}

/// Takes `first` rows, pauses `pause`, then reads the rest; the keys in the order read.
async fn keys_with_a_pause(
    mut rows: impl Stream<Item = Result<Row>> + Unpin,
    first: usize,
    pause: Duration,
) -> Vec<String> {
    let mut out = Vec::new();
    while let Some(row) = rows.next().await {
        let row = row.unwrap_or_else(|e| panic!("row {}: {e}", out.len()));
        assert_eq!(
            row.value("d", "v"),
            Some(format!("v of {}", String::from_utf8_lossy(&row.key)).as_bytes())
        );
        out.push(String::from_utf8(row.key).unwrap());
        if out.len() == first {
            tokio::time::sleep(pause).await;
        }
    }
    out
}

#[tokio::test]
async fn a_scan_paused_past_its_scanner_lease_keeps_its_scanner() {
    const ROWS: usize = 40;
    let c = native().await;
    with_table(
        &c,
        "native_lease",
        vec![ColumnFamily::new("d")],
        &[],
        |t| async move {
            let puts = (0..ROWS)
                .map(|i| Put::new(key(i)).column("d", "v", format!("v of {}", key(i))))
                .collect();
            t.put_many(puts).await.unwrap();
            let before = t.client().stats();
            let pause = region_scanner_lease() + Duration::from_secs(3);
            // Pages of 5: the region scanner is open, with rows left, when the caller pauses,
            // and the next page waits for the caller.
            let forward = keys_with_a_pause(t.scan(Scan::new().caching(5)), 12, pause);
            let reversed = keys_with_a_pause(t.scan(Scan::new().caching(5).reversed()), 7, pause);
            let (forward, reversed) = futures::join!(forward, reversed);
            let all: Vec<String> = (0..ROWS).map(key).collect();
            assert_eq!(forward, all, "every row once, in order");
            let mut down = all;
            down.reverse();
            assert_eq!(reversed, down, "every row once, in order");
            let after = t.client().stats();
            println!(
                "paused {pause:?} past a lease of {:?}: {} renewals, {} reopens",
                region_scanner_lease(),
                after.scanners_renewed - before.scanners_renewed,
                after.scans_resumed - before.scans_resumed
            );
            assert_eq!(
                after.scans_resumed - before.scans_resumed,
                0,
                "no scan lost its region scanner"
            );
            assert!(
                after.scanners_renewed - before.scanners_renewed >= 2,
                "each scan's lease was renewed while it paused"
            );
        },
    )
    .await;
}

/// Row `i` of the wide table: `cells(i)` columns `c000`.. of 2 KB values.
fn cells(i: usize) -> usize {
    [1, 40, 3, 25, 0, 60][i % 6] + 1
}

fn wide_value(i: usize, j: usize) -> Vec<u8> {
    let mut v = format!("{i}:{j}:").into_bytes();
    v.resize(2048, b'a' + (j % 26) as u8);
    v
}

async fn fill_wide(t: &Table, rows: usize) {
    let puts = (0..rows)
        .map(|i| {
            (0..cells(i)).fold(Put::new(key(i)), |p, j| {
                p.column("d", format!("c{j:03}"), wide_value(i, j))
            })
        })
        .collect();
    t.put_many(puts).await.unwrap();
}

/// Checks that `rows` are rows `expected` whole: every cell once, in column order.
fn assert_whole(rows: &[Row], expected: &[usize]) {
    let keys: Vec<String> = rows
        .iter()
        .map(|r| String::from_utf8_lossy(&r.key).into_owned())
        .collect();
    let want: Vec<String> = expected.iter().map(|&i| key(i)).collect();
    assert_eq!(keys, want, "each row once, in order");
    for (row, &i) in rows.iter().zip(expected) {
        let columns: Vec<String> = row
            .cells
            .iter()
            .map(|c| String::from_utf8_lossy(&c.qualifier).into_owned())
            .collect();
        let want: Vec<String> = (0..cells(i)).map(|j| format!("c{j:03}")).collect();
        assert_eq!(columns, want, "row {} whole", key(i));
        for (j, cell) in row.cells.iter().enumerate() {
            assert_eq!(cell.value, wide_value(i, j), "row {} cell {j}", key(i));
        }
    }
}

#[tokio::test]
async fn replies_cut_inside_rows_by_a_tiny_max_result_size_still_give_whole_rows() {
    const ROWS: usize = 18;
    let c = native().await;
    with_table(
        &c,
        "native_partials",
        vec![ColumnFamily::new("d")],
        &[],
        |t| async move {
            fill_wide(&t, ROWS).await;
            let read = |scan: Scan| {
                let t = t.clone();
                async move {
                    let rows: Vec<Row> = t.scan(scan).map(|r| r.unwrap()).collect::<Vec<_>>().await;
                    rows
                }
            };
            let all: Vec<usize> = (0..ROWS).collect();
            // 5 KB: most replies end inside a row (rows hold up to 61 cells of 2 KB); 1 byte:
            // a reply per cell.
            for size in [5_000, 1] {
                let rows = read(Scan::new().max_result_size(size)).await;
                assert_whole(&rows, &all);
                let rows = read(Scan::new().max_result_size(size).reversed()).await;
                let down: Vec<usize> = all.iter().rev().copied().collect();
                assert_whole(&rows, &down);
                let rows = read(Scan::new().max_result_size(size).start(key(3)).limit(4)).await;
                assert_whole(&rows, &[3, 4, 5, 6]);
            }
            // Pages of 2 rows with replies cut inside them: rows still whole, pages join up.
            let rows = read(Scan::new().max_result_size(10_000).caching(2)).await;
            assert_whole(&rows, &all);
        },
    )
    .await;
}
