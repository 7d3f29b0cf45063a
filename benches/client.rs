//! Raw client throughput and latency, the same workload on each backend in one run: the
//! Thrift2 gateway, the Thrift1 gateway, the native backend (HBase's own RPC, no gateway; all
//! three of the running HBase) and the in-memory store.
//! Not a test: it asserts nothing about speed, it prints a table.
//!
//!     HBASE_ORM_JIT=full hbase-local/hbase.sh up
//!     cargo bench --bench client
//!
//! Environment: `HBASE_ORM_THRIFT_ADDR` (default 127.0.0.1:9090), `HBASE_ORM_THRIFT1_ADDR`
//! (default 127.0.0.1:9092), `HBASE_ORM_BENCH_OPS` (operations per measurement, default 2000;
//! every measurement is bounded by that count), `HBASE_ORM_BENCH_BACKENDS` (a comma-separated
//! subset of `thrift2,thrift1,native,memory`, default all four), `HBASE_ORM_NATIVE_URL`
//! (default `hbase://127.0.0.1:2181`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::TryStreamExt;
use hbase_orm::{Client, ColumnFamily, Config, Gateway, Get, Put, Scan, Table};
use hbase_orm_suite::{
    connect_with, gateway_address, native_url, thrift1_gateway_address, with_table,
};

const VALUE_BYTES: usize = 100;
const BATCH: usize = 100;
const SCAN_ROWS: usize = 20_000;

struct Measurement {
    backend: &'static str,
    name: &'static str,
    concurrency: usize,
    calls: usize,
    rows: usize,
    elapsed: Duration,
    latencies: Vec<Duration>,
}

impl Measurement {
    fn percentile(&self, p: f64) -> Duration {
        let i = ((self.latencies.len() as f64 - 1.0) * p).round() as usize;
        self.latencies[i]
    }
}

/// Runs `calls` calls of `op` spread over `concurrency` tasks; `op(i)` returns rows touched.
async fn measure<F, Fut>(name: &'static str, concurrency: usize, calls: usize, op: F) -> Measurement
where
    F: Fn(usize) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = usize> + Send,
{
    let op = Arc::new(op);
    let start = Instant::now();
    let workers: Vec<_> = (0..concurrency)
        .map(|w| {
            let op = op.clone();
            tokio::spawn(async move {
                let mut lat = Vec::new();
                let mut rows = 0;
                for i in (w..calls).step_by(concurrency) {
                    let t = Instant::now();
                    rows += op(i).await;
                    lat.push(t.elapsed());
                }
                (lat, rows)
            })
        })
        .collect();
    let mut latencies = Vec::with_capacity(calls);
    let mut rows = 0;
    for w in workers {
        let (l, r) = w.await.expect("bench worker panicked");
        latencies.extend(l);
        rows += r;
    }
    let elapsed = start.elapsed();
    latencies.sort();
    Measurement {
        backend: "",
        name,
        concurrency,
        calls,
        rows,
        elapsed,
        latencies,
    }
}

fn key(i: usize) -> String {
    // Spread keys over the key space like hashed keys would.
    format!("{:08x}", (i as u32).wrapping_mul(2_654_435_761))
}

async fn run(t: Table, ops: usize) -> Vec<Measurement> {
    let value = vec![b'v'; VALUE_BYTES];
    let mut out = Vec::new();
    // Scan data, written once.
    let fill: Vec<_> = (0..SCAN_ROWS)
        .map(|i| Put::new(format!("s{}", key(i))).column("d", "v", value.clone()))
        .collect();
    for chunk in fill.chunks(1000) {
        t.put_many(chunk.to_vec()).await.unwrap();
    }
    for concurrency in [1, 4, 16] {
        let (t1, v1) = (t.clone(), value.clone());
        out.push(
            measure("put", concurrency, ops, move |i| {
                let (t, v) = (t1.clone(), v1.clone());
                async move {
                    t.put(Put::new(format!("p{}", key(i))).column("d", "v", v))
                        .await
                        .unwrap();
                    1
                }
            })
            .await,
        );
        let (t2, v2) = (t.clone(), value.clone());
        out.push(
            measure("put_many x100", concurrency, ops / 20, move |i| {
                let (t, v) = (t2.clone(), v2.clone());
                async move {
                    let puts = (0..BATCH)
                        .map(|j| {
                            Put::new(format!("b{}", key(i * BATCH + j))).column("d", "v", v.clone())
                        })
                        .collect();
                    t.put_many(puts).await.unwrap();
                    BATCH
                }
            })
            .await,
        );
        let t3 = t.clone();
        out.push(
            measure("get", concurrency, ops, move |i| {
                let t = t3.clone();
                async move {
                    let row = t.get(Get::new(format!("p{}", key(i)))).await.unwrap();
                    assert!(row.is_some(), "bench data missing");
                    1
                }
            })
            .await,
        );
        let t4 = t.clone();
        out.push(
            measure("get_many x100", concurrency, ops / 20, move |i| {
                let t = t4.clone();
                async move {
                    let gets = (0..BATCH)
                        .map(|j| Get::new(format!("s{}", key((i * BATCH + j) % SCAN_ROWS))))
                        .collect();
                    let rows = t.get_many(gets).await.unwrap();
                    rows.iter().filter(|r| r.is_some()).count()
                }
            })
            .await,
        );
        let t5 = t.clone();
        let scans = (concurrency * 2).max(4);
        out.push(
            measure("scan 20k rows", concurrency, scans, move |_| {
                let t = t5.clone();
                async move {
                    let rows: Vec<_> = t
                        .scan(Scan::new().prefix("s").caching(1000))
                        .try_collect()
                        .await
                        .unwrap();
                    assert_eq!(rows.len(), SCAN_ROWS);
                    rows.len()
                }
            })
            .await,
        );
    }
    out
}

/// A client of `backend` with a pool of 16 connections.
async fn connect(backend: &str) -> Client {
    let config = |address, gateway| Config {
        address,
        gateway,
        pool_size: 16,
        ..Config::default()
    };
    match backend {
        "thrift2" => connect_with(config(gateway_address(), Gateway::Thrift2)).await,
        "thrift1" => connect_with(config(thrift1_gateway_address(), Gateway::Thrift1)).await,
        "native" => {
            let mut native = Config::from_url(&native_url()).expect("a valid hbase:// URL");
            native.pool_size = 16;
            connect_with(native).await
        }
        "memory" => Client::in_memory(),
        other => panic!("unknown backend {other:?}: use thrift2, thrift1, native or memory"),
    }
}

fn main() {
    let ops: usize = std::env::var("HBASE_ORM_BENCH_OPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let backends: Vec<&'static str> = std::env::var("HBASE_ORM_BENCH_BACKENDS")
        .unwrap_or_else(|_| "thrift2,thrift1,native,memory".into())
        .split(',')
        .map(|b| match b.trim() {
            "thrift2" => "thrift2",
            "thrift1" => "thrift1",
            "native" => "native",
            "memory" => "memory",
            other => panic!("unknown backend {other:?}: use thrift2, thrift1, native or memory"),
        })
        .collect();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let results = runtime.block_on(async move {
        let mut results = Vec::new();
        for backend in backends {
            let client = connect(backend).await;
            let mut measured = Vec::new();
            let slot = &mut measured;
            with_table(
                &client,
                "bench",
                vec![ColumnFamily::new("d")],
                &[],
                |t| async move {
                    *slot = run(t, ops).await;
                },
            )
            .await;
            results.extend(measured.into_iter().map(|m| Measurement { backend, ..m }));
        }
        results
    });
    println!();
    println!(
        "hbase-orm raw client: Thrift2 {} and Thrift1 {} (buffered/binary), native {}, \
         in-memory store; values {VALUE_BYTES} B",
        gateway_address(),
        thrift1_gateway_address(),
        native_url()
    );
    println!(
        "| {:<8} | {:<14} | {:>4} | {:>6} | {:>10} | {:>10} | {:>9} | {:>9} |",
        "backend", "operation", "conc", "calls", "calls/s", "rows/s", "p50 ms", "p99 ms"
    );
    println!(
        "|{:-<10}|{:-<16}|{:->6}|{:->8}|{:->12}|{:->12}|{:->11}|{:->11}|",
        "", "", "", "", "", "", "", ""
    );
    for m in &results {
        let secs = m.elapsed.as_secs_f64();
        println!(
            "| {:<8} | {:<14} | {:>4} | {:>6} | {:>10.0} | {:>10.0} | {:>9.3} | {:>9.3} |",
            m.backend,
            m.name,
            m.concurrency,
            m.calls,
            m.calls as f64 / secs,
            m.rows as f64 / secs,
            m.percentile(0.50).as_secs_f64() * 1e3,
            m.percentile(0.99).as_secs_f64() * 1e3,
        );
    }
}
