//! Scans that outlive their scanner.
//!
//! A Thrift gateway drops a scanner that has not been used for
//! `hbase.client.scanner.timeout.period` (60 s by default). The launcher's second Thrift2
//! gateway (`thrift-short`, 127.0.0.1:9093) runs with 2 s, so a caller here can pause past it
//! in a few seconds. After such a pause the stream reopens after the last row it returned:
//! every row once, in order. Raw, salted (merged), parallel and entity scans alike.

use std::time::Duration;

use futures::{Stream, StreamExt};
use hbase_orm::rowkey::salt_split_keys;
use hbase_orm::{Client, ColumnFamily, Config, HBaseEntity, Put, Result, Scan, Table};
use hbase_orm_suite::{
    connect_with, fresh_repository, short_gateway_address, short_scanner_timeout, with_table,
};

const ROWS: usize = 60;

/// A client of the short-scanner gateway only.
async fn short_client() -> Client {
    connect_with(Config {
        address: short_gateway_address(),
        ..Config::default()
    })
    .await
}

/// Longer than the gateway keeps an unused scanner.
fn pause() -> Duration {
    short_scanner_timeout() + Duration::from_millis(1500)
}

fn key(i: usize) -> Vec<u8> {
    format!("k{i:03}").into_bytes()
}

/// Writes rows `key(0..ROWS)`, each under `salted(i, key)`.
async fn fill(t: &Table, salted: impl Fn(usize, Vec<u8>) -> Vec<u8>) {
    let puts = (0..ROWS)
        .map(|i| Put::new(salted(i, key(i))).column("d", "v", format!("{i}")))
        .collect();
    t.put_many(puts).await.unwrap();
}

/// Takes `first` items, pauses past the scanner timeout, then takes the rest.
async fn read_with_a_pause<T>(
    mut items: impl Stream<Item = Result<T>> + Unpin,
    first: usize,
) -> Vec<T> {
    let mut out = Vec::new();
    while let Some(item) = items.next().await {
        out.push(item.unwrap_or_else(|e| panic!("item {}: {e}", out.len())));
        if out.len() == first {
            tokio::time::sleep(pause()).await;
        }
    }
    assert!(out.len() > first, "the pause came before the end");
    out
}

fn all_keys() -> Vec<Vec<u8>> {
    (0..ROWS).map(key).collect()
}

#[tokio::test]
async fn the_test_gateway_drops_an_idle_scanner() {
    // What the other tests rely on: without it they would prove nothing.
    let c = short_client().await;
    with_table(&c, "lease_idle", vec![ColumnFamily::new("d")], &[], |t| {
        let c = c.clone();
        async move {
            fill(&t, |_, k| k).await;
            let mut rows = t.scan(Scan::new().caching(5));
            rows.next().await.unwrap().unwrap();
            let id = rows.scanner_id().expect("a scanner is open");
            assert!(c.scanner_is_open(id).await.unwrap());
            tokio::time::sleep(pause()).await;
            assert!(
                !c.scanner_is_open(id).await.unwrap(),
                "the gateway at {} keeps scanners longer than {:?}: start it with \
                 hbase-local/hbase.sh (HBASE_ORM_SHORT_SCANNER_MS)",
                short_gateway_address(),
                short_scanner_timeout()
            );
        }
    })
    .await;
}

#[tokio::test]
async fn a_scan_paused_past_the_scanner_timeout_resumes() {
    let c = short_client().await;
    with_table(&c, "lease_raw", vec![ColumnFamily::new("d")], &[], |t| {
        let c = c.clone();
        async move {
            fill(&t, |_, k| k).await;
            let rows = read_with_a_pause(t.scan(Scan::new().caching(7)), 12).await;
            let keys: Vec<_> = rows.into_iter().map(|r| r.key).collect();
            assert_eq!(keys, all_keys(), "every row once, in order");
            assert!(c.stats().scans_resumed >= 1, "{:?}", c.stats());

            // Reversed, too.
            let rows = read_with_a_pause(t.scan(Scan::new().caching(7).reversed()), 12).await;
            let mut want = all_keys();
            want.reverse();
            assert_eq!(rows.into_iter().map(|r| r.key).collect::<Vec<_>>(), want);
        }
    })
    .await;
}

#[tokio::test]
async fn a_paused_salted_scan_resumes_every_bucket() {
    let c = short_client().await;
    with_table(
        &c,
        "lease_salted",
        vec![ColumnFamily::new("d")],
        &salt_split_keys(4),
        |t| {
            let c = c.clone();
            async move {
                fill(&t, |i, k| [vec![(i % 4) as u8], k].concat()).await;
                let rows = read_with_a_pause(t.scan_salted(Scan::new().caching(4), 4), 10).await;
                let keys: Vec<_> = rows.into_iter().map(|r| r.key[1..].to_vec()).collect();
                assert_eq!(keys, all_keys(), "merged in unsalted order, every row once");
                assert!(c.stats().scans_resumed >= 1, "{:?}", c.stats());
            }
        },
    )
    .await;
}

#[tokio::test]
async fn a_paused_parallel_scan_resumes_every_region() {
    let c = short_client().await;
    let splits = vec![key(15), key(30), key(45)];
    with_table(
        &c,
        "lease_par",
        vec![ColumnFamily::new("d")],
        &splits,
        |t| {
            let c = c.clone();
            async move {
                fill(&t, |_, k| k).await;
                let rows = read_with_a_pause(t.scan(Scan::new().caching(4).parallel(3)), 10).await;
                let keys: Vec<_> = rows.into_iter().map(|r| r.key).collect();
                assert_eq!(keys, all_keys(), "in key order, every row once");
                assert!(c.stats().scans_resumed >= 1, "{:?}", c.stats());
            }
        },
    )
    .await;
}

/// A small entity for the entity scan.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(table = "lease", family = "d")]
struct Reading {
    #[hbase(key)]
    id: u32,
    value: i64,
}

#[tokio::test]
async fn a_paused_entity_scan_resumes() {
    let c = short_client().await;
    let (repo, _table) = fresh_repository::<Reading>(&c, "lease_entity").await;
    let all: Vec<Reading> = (0..ROWS as u32)
        .map(|id| Reading {
            id,
            value: i64::from(id) * 3,
        })
        .collect();
    repo.save_all(&all).await.unwrap();
    let read = read_with_a_pause(repo.scan().page_size(6).stream(), 9).await;
    assert_eq!(read, all);
    assert!(c.stats().scans_resumed >= 1, "{:?}", c.stats());
}
