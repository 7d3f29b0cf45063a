//! Salted scan throughput against the running HBase: the same rows in tables salted with
//! N = 1, 4 and 16 buckets (pre-split one region per bucket), read back as one merged,
//! key-ordered stream, next to a plain scan of an unsalted table. Prints a table; asserts only
//! that every scan returns all rows in order.
//!
//!     HBASE_ORM_JIT=full hbase-local/hbase.sh up
//!     cargo bench --bench salted
//!
//! `HBASE_ORM_BENCH_ROWS` (default 50000) sets the row count.

use std::time::{Duration, Instant};

use futures::TryStreamExt;
use hbase_orm::rowkey::{hash_bucket, salt_split_keys};
use hbase_orm::{ColumnFamily, Config, Put, Scan, Table};
use hbase_orm_suite::{connect_with, gateway_address, TestTable};

const RUNS: usize = 5;

async fn fill(t: &Table, rows: usize, buckets: Option<u8>) {
    let puts: Vec<Put> = (0..rows as u32)
        .map(|i| {
            let key = i.to_be_bytes();
            let row = match buckets {
                Some(n) => [&[hash_bucket(&key, n)][..], &key].concat(),
                None => key.to_vec(),
            };
            Put::new(row).column("d", "v", vec![b'x'; 100])
        })
        .collect();
    for chunk in puts.chunks(2000) {
        t.put_many(chunk.to_vec()).await.unwrap();
    }
}

async fn scan_once(t: &Table, buckets: Option<u8>, limit: Option<usize>, rows: usize) -> Duration {
    let mut scan = Scan::new().caching(1000);
    if let Some(n) = limit {
        scan = scan.limit(n).caching(n as i32);
    }
    let start = Instant::now();
    let stream = match buckets {
        Some(n) => t.scan_salted(scan, n),
        None => t.scan(scan),
    };
    let keys: Vec<Vec<u8>> = stream
        .map_ok(|r| r.key[r.key.len() - 4..].to_vec())
        .try_collect()
        .await
        .unwrap();
    let elapsed = start.elapsed();
    assert_eq!(keys.len(), limit.unwrap_or(rows));
    assert!(
        keys.windows(2).all(|w| w[0] < w[1]),
        "merged stream out of order"
    );
    elapsed
}

fn main() {
    let rows: usize = std::env::var("HBASE_ORM_BENCH_ROWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50_000);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let results = rt.block_on(async {
        let client = connect_with(Config {
            address: gateway_address(),
            pool_size: 16,
            ..Config::default()
        })
        .await;
        let mut results = Vec::new();
        for buckets in [None, Some(1u8), Some(4), Some(16)] {
            let splits = buckets.map(salt_split_keys).unwrap_or_default();
            let t = TestTable::create(
                &client,
                "bench_salted",
                vec![ColumnFamily::new("d")],
                &splits,
            )
            .await;
            let table = client.table_named(t.name.clone());
            fill(&table, rows, buckets).await;
            scan_once(&table, buckets, None, rows).await; // warm-up
            let mut full: Vec<Duration> = Vec::new();
            let mut first100: Vec<Duration> = Vec::new();
            for _ in 0..RUNS {
                full.push(scan_once(&table, buckets, None, rows).await);
                first100.push(scan_once(&table, buckets, Some(100), rows).await);
            }
            full.sort();
            first100.sort();
            results.push((buckets, full[RUNS / 2], first100[RUNS / 2]));
        }
        results
    });
    println!();
    println!(
        "salted scans, {rows} rows of 100 B, {} (median of {RUNS})",
        gateway_address()
    );
    println!(
        "| {:<12} | {:>10} | {:>12} | {:>16} |",
        "table", "full scan", "rows/s", "first 100 rows"
    );
    println!("|{:-<14}|{:->12}|{:->14}|{:->18}|", "", "", "", "");
    for (buckets, full, first) in results {
        let name = match buckets {
            None => "unsalted".to_string(),
            Some(n) => format!("{n} buckets"),
        };
        println!(
            "| {:<12} | {:>8.0}ms | {:>12.0} | {:>14.1}ms |",
            name,
            full.as_secs_f64() * 1e3,
            rows as f64 / full.as_secs_f64(),
            first.as_secs_f64() * 1e3
        );
    }
}
