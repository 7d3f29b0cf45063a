//! Scan speed across region servers, on the local cluster (`hbase-local/hbase.sh up
//! --cluster`): an entity scan of a table of 12 regions spread over the three servers, plain
//! and with `parallel(n)`, through the Thrift2 gateway and natively. Not a test: it asserts
//! nothing about speed and prints one table, every row measured in this run (the scans take
//! turns, fastest of 3, with the first run's rate beside it). The servers, the gateway and the
//! client share the machine's cores, so the ratio is what parallel reads win here, not on a
//! cluster of machines.
//!
//!     HBASE_ORM_JIT=full hbase-local/hbase.sh up --cluster
//!     cargo bench --features cluster --bench cluster
//!
//! `HBASE_ORM_BENCH_ROWS` sets the rows (default 60,000 orders of 8 columns).

use std::time::{Duration, Instant};

use futures::TryStreamExt;
use hbase_orm::{Config, HBaseEntity, Repository};
use hbase_orm_suite::workload::{cpu_time, order, Order};
use hbase_orm_suite::{connect_with, gateway_address, native_url, TestTable};

const RUNS: usize = 3;
const REGIONS: u64 = 12;

async fn scan(repo: &Repository<Order>, parallel: Option<usize>) -> usize {
    let mut scan = repo.scan().page_size(1000);
    if let Some(n) = parallel {
        scan = scan.parallel(n);
    }
    let rows: Vec<Order> = scan.stream().try_collect().await.unwrap();
    rows.len()
}

fn main() {
    let rows: u64 = std::env::var("HBASE_ORM_BENCH_ROWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(60_000);
    tokio::runtime::Runtime::new().unwrap().block_on(async move {
        let native = connect_with(Config::from_url(&native_url()).unwrap()).await;
        let servers = native.admin().region_servers().await.unwrap();
        let thrift2 = connect_with(Config {
            address: gateway_address(),
            ..Config::default()
        })
        .await;
        let customers = rows / 50;
        let splits: Vec<Vec<u8>> = (1..REGIONS)
            .map(|k| (customers * k / REGIONS).to_be_bytes().to_vec())
            .collect();
        let table =
            TestTable::create(&native, "cluster_scan", Order::family_descriptors(), &splits).await;
        let repo = native.repository::<Order>().on_table(table.name.clone());
        let all: Vec<Order> = (0..rows).map(order).collect();
        for chunk in all.chunks(1000) {
            repo.save_all(chunk).await.unwrap();
        }
        let mut per_server = std::collections::BTreeMap::new();
        for r in native.admin().region_locations(&table.name).await.unwrap() {
            *per_server.entry(r.host + ":" + &r.port.unwrap_or(0).to_string()).or_insert(0) += 1;
        }
        let paths: Vec<(String, Repository<Order>, Option<usize>)> = [("thrift2", &thrift2), ("native", &native)]
            .into_iter()
            .flat_map(|(name, client)| {
                let repo = client.repository::<Order>().on_table(table.name.clone());
                [None, Some(2), Some(4), Some(12)].into_iter().map(move |p| {
                    let what = match p {
                        None => format!("{name}: entity scan"),
                        Some(n) => format!("{name}: entity scan, parallel({n})"),
                    };
                    (what, repo.clone(), p)
                })
            })
            .collect();
        let mut best: Vec<Option<(Duration, Duration, f64)>> = vec![None; paths.len()];
        for _ in 0..RUNS {
            for ((_, repo, parallel), best) in paths.iter().zip(&mut best) {
                let (c0, t0) = (cpu_time(), Instant::now());
                let n = scan(repo, *parallel).await;
                let (wall, cpu) = (t0.elapsed(), cpu_time().saturating_sub(c0));
                assert_eq!(n as u64, rows);
                let first = best.map_or(rows as f64 / wall.as_secs_f64(), |b| b.2);
                if best.is_none_or(|b| wall < b.0) {
                    *best = Some((wall, cpu, first));
                }
            }
        }
        println!();
        println!(
            "hbase-orm on the cluster: {rows} orders of 8 columns in {REGIONS} regions over {} servers {per_server:?}, fastest of {RUNS} (in turns)",
            servers.len()
        );
        println!("| {:<40} | {:>10} | {:>12} | {:>12} |", "path (same table, same run)", "rows/s", "client CPU", "1st run /s");
        println!("|{:-<42}|{:->12}|{:->14}|{:->14}|", "", "", "", "");
        for ((what, _, _), best) in paths.iter().zip(&best) {
            let (wall, cpu, first) = best.unwrap();
            println!(
                "| {:<40} | {:>10.0} | {:>9.2} µs | {:>12.0} |",
                what,
                rows as f64 / wall.as_secs_f64(),
                cpu.as_secs_f64() * 1e6 / rows as f64,
                first
            );
        }
    });
}
