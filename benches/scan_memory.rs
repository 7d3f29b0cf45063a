//! Memory of a long scan: the peak resident set of this process while an entity scan streams
//! ten million rows from the running HBase. Not a test: it prints what it measured.
//!
//!     hbase-local/hbase.sh up
//!     cargo bench --bench scan_memory
//!
//! The rows are the `reads` bench's 8-column orders. They are written once into
//! `hbase_orm_bench:scan_memory_<rows>` and kept, so that a second run only scans (about 5 GB
//! in the local HBase for ten million rows; `HBASE_ORM_BENCH_DROP=1` drops the table at the
//! end). `HBASE_ORM_BENCH_ROWS` sets the row count (default 10,000,000).
//!
//! The peak is Linux's `VmHWM`, reset (`/proc/self/clear_refs`) after the rows are written, so
//! it is the scan's own peak: runtime, pool, one page being read, one page prefetched, and the
//! entity being decoded.

use std::time::{Duration, Instant};

use futures::TryStreamExt;
use hbase_orm::{
    Client, ColumnFamily, Get, HBaseEntity, Put, Repository, TableDescriptor, TableName,
};

const PAGE: i32 = 1000;
const NAMESPACE: &str = "hbase_orm_bench";

/// The `reads` bench's order: eight stored columns in family `d`.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(table = "bench_orders", family = "d")]
struct Order {
    #[hbase(key)]
    customer: u64,
    #[hbase(key)]
    order: u64,
    quantity: i64,
    amount_cents: i64,
    placed_at: i64,
    price: f64,
    status: String,
    city: String,
    channel: String,
    currency: String,
}

fn order(i: u64) -> Order {
    Order {
        customer: i / 50,
        order: i % 50,
        quantity: (i % 7) as i64,
        amount_cents: (i * 137 % 100_000) as i64,
        placed_at: 1_700_000_000_000 + i as i64,
        price: i as f64 * 0.25,
        status: ["new", "paid", "sent"][(i % 3) as usize].into(),
        city: ["Oslo", "Lima", "Pune", "Kobe"][(i % 4) as usize].into(),
        channel: "web".into(),
        currency: "EUR".into(),
    }
}

/// A line of `/proc/self/status` in MiB (`VmHWM`, `VmRSS`).
fn status_mib(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

/// Resets `VmHWM` to the current resident set.
fn reset_peak() {
    if let Err(e) = std::fs::write("/proc/self/clear_refs", "5") {
        eprintln!("cannot reset the peak resident set ({e}): the peak includes the writes");
    }
}

/// This process's CPU time so far (user + system, from `/proc/self/stat`).
fn cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let rest = stat.rsplit(')').next().unwrap_or_default();
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let field = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    Duration::from_millis((field(11) + field(12)) * 10)
}

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
    let splits: Vec<Vec<u8>> = (1..8u64)
        .map(|k| (customers * k / 8).to_be_bytes().to_vec())
        .collect();
    admin
        .create_table(
            &TableDescriptor {
                name: name.clone(),
                families,
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

        let before = status_mib("VmRSS:");
        reset_peak();
        let (c0, t0) = (cpu(), Instant::now());
        let (count, checksum) = repo
            .scan()
            .page_size(PAGE)
            .stream()
            .try_fold((0u64, 0i64), |(n, sum), o| async move {
                Ok((n + 1, sum.wrapping_add(o.amount_cents)))
            })
            .await
            .unwrap();
        let (wall, used) = (t0.elapsed(), cpu().saturating_sub(c0));
        let peak = status_mib("VmHWM:");
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

        if std::env::var("HBASE_ORM_BENCH_DROP").is_ok_and(|v| v == "1") {
            client.admin().delete_table(&name).await.unwrap();
            println!("dropped {name}");
        }
    });
}
