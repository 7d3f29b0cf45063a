//! Memory of a long scan: the peak resident set of this process while an entity scan streams
//! ten million rows from the running HBase. Not a test: it prints what it measured.
//!
//!     HBASE_ORM_JIT=full HBASE_ORM_MASTER_HEAP=4g hbase-local/hbase.sh up
//!     cargo bench --bench scan_memory
//!
//! The rows are the `reads` bench's 8-column orders, written into
//! `hbase_orm_bench:scan_memory_<rows>` and dropped at the end (`HBASE_ORM_BENCH_KEEP=1` keeps
//! them, so that the next run only scans). `HBASE_ORM_BENCH_ROWS` sets the row count (default
//! 10,000,000). Ten million orders take about 5 GB in HBase, more than the launcher's standalone
//! HBase holds with its default 1 GiB heap next to other work, hence the bigger heap above.
//!
//! The peak is Linux's `VmHWM`, reset (`/proc/self/clear_refs`) after the rows are written, so
//! it is the scan's own peak: runtime, pool, one page being read, one page prefetched, and the
//! entity being decoded.

use std::time::Instant;

use futures::TryStreamExt;
use hbase_orm::{
    Client, ColumnFamily, Get, HBaseEntity, Put, Repository, TableDescriptor, TableName,
};
use hbase_orm_suite::workload::{cpu_time, memory_mib, order, reset_peak_memory, Order};

const PAGE: i32 = 1000;
const NAMESPACE: &str = "hbase_orm_bench";

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The row in family `m` that says every order was written (the entity reads only `d`).
const LOADED: &[u8] = b"~loaded";

/// Creates the table and writes `rows` orders unless an earlier run did.
async fn ensure_loaded(client: &Client, name: &TableName, rows: u64) -> Repository<Order> {
    let admin = client.admin();
    if !admin.namespace_exists(NAMESPACE).await.unwrap() {
        admin.create_namespace(NAMESPACE).await.unwrap();
    }
    let repo = client.repository::<Order>().on_table(name.clone());
    let table = client.table_named(name.clone());
    if admin.table_exists(name).await.unwrap()
        && table.get(Get::new(LOADED)).await.unwrap().is_some()
    {
        println!("{rows} orders already in {name}");
        return repo;
    }
    if admin.table_exists(name).await.unwrap() {
        admin.delete_table(name).await.unwrap();
    }
    let mut families = Order::family_descriptors();
    families.push(ColumnFamily::new("m"));
    // Pre-split into 8 regions so the writes spread over the region server's handlers.
    let customers = rows / 50;
    let mut splits: Vec<Vec<u8>> = (1..8u64)
        .map(|k| (customers * k / 8).to_be_bytes().to_vec())
        .filter(|k| *k != 0u64.to_be_bytes())
        .collect();
    splits.dedup();
    admin
        .create_table(
            &TableDescriptor {
                families,
                ..TableDescriptor::new(name.clone())
            },
            &splits,
        )
        .await
        .unwrap();
    let started = Instant::now();
    let writers = 4u64;
    let mut tasks = Vec::new();
    for w in 0..writers {
        let repo = repo.clone();
        tasks.push(tokio::spawn(async move {
            let chunk = 2000u64;
            let mut first = w * chunk;
            while first < rows {
                let batch: Vec<Order> = (first..(first + chunk).min(rows)).map(order).collect();
                repo.save_all(&batch).await.unwrap();
                first += writers * chunk;
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    table
        .put(Put::new(LOADED).column("m", "rows", rows.to_string()))
        .await
        .unwrap();
    let took = started.elapsed();
    println!(
        "wrote {rows} orders in {:.0} s ({:.0} rows/s)",
        took.as_secs_f64(),
        rows as f64 / took.as_secs_f64()
    );
    repo
}

fn main() {
    let rows = env("HBASE_ORM_BENCH_ROWS", 10_000_000);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async move {
        let client = hbase_orm_suite::client().await;
        let name = TableName::new(NAMESPACE, format!("scan_memory_{rows}"));
        let repo = ensure_loaded(&client, &name, rows).await;

        let before = memory_mib("VmRSS:");
        if let Err(e) = reset_peak_memory() {
            eprintln!("cannot reset the peak resident set ({e}): the peak includes the writes");
        }
        let (c0, t0) = (cpu_time(), Instant::now());
        let (count, checksum) = repo
            .scan()
            .page_size(PAGE)
            .stream()
            .try_fold((0u64, 0i64), |(n, sum), o| async move {
                Ok((n + 1, sum.wrapping_add(o.amount_cents)))
            })
            .await
            .unwrap();
        let (wall, used) = (t0.elapsed(), cpu_time().saturating_sub(c0));
        let peak = memory_mib("VmHWM:");
        assert_eq!(count, rows, "every order scanned once");

        println!();
        println!(
            "hbase-orm scan memory: entity scan of {count} orders (8 columns), pages of {PAGE}"
        );
        println!("| {:<34} | {:>12} |", "measure", "value");
        println!("|{:-<36}|{:->14}|", "", "");
        println!(
            "| {:<34} | {:>12.1} |",
            "resident before the scan, MiB", before
        );
        println!(
            "| {:<34} | {:>12.1} |",
            "peak resident during the scan, MiB", peak
        );
        println!("| {:<34} | {:>12.1} |", "wall, s", wall.as_secs_f64());
        println!(
            "| {:<34} | {:>12.0} |",
            "rows/s",
            count as f64 / wall.as_secs_f64()
        );
        println!(
            "| {:<34} | {:>12.2} |",
            "client CPU per row, µs",
            used.as_secs_f64() * 1e6 / count as f64
        );
        println!("(checksum {checksum})");

        if std::env::var("HBASE_ORM_BENCH_KEEP").is_ok_and(|v| v == "1") {
            println!("kept {name}");
        } else {
            client.admin().delete_table(&name).await.unwrap();
            println!("dropped {name}");
        }
    });
}
