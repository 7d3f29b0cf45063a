//! Bulk load against batched puts, on the same rows in one run: `Table::bulk_load` of N
//! eight-column orders (`workload::write_order`, strings of 6 to 36 bytes) beside
//! `Table::put_many` of the same puts, 500 a call, each into a fresh table of four regions (or
//! `HBASE_ORM_BENCH_REGIONS`);
//! and `Table::bulk_load_stream` of the same rows made as the stream is read (their making
//! inside the clock), under a memory budget of 64 MiB: its peak memory is the load's alone.
//! `put_many_made` is `put_many` with its puts made the stream's way, inside the clock (500
//! orders made and mapped, then sent): the baseline that does the same work as the stream.
//! For entities: `Repository::bulk_load` of the orders (made before the clock, mapped inside
//! it) and `Repository::bulk_load_stream` (made inside the clock, 64 MiB budget) beside their
//! baseline, `Repository::save_all` of the same orders, 500 a call.
//! Below the table, each measured round's CPU per row, and the CPU per row of making the
//! streams' orders (and puts) alone (no load), which their figures include. Not a test: it
//! prints its figures and asserts nothing about speed.
//!
//!     HBASE_ORM_JIT=full hbase-local/hbase.sh up
//!     cargo bench --bench bulk_load
//!
//! Each method runs a warm-up round and three measured rounds, each on a table of its own
//! (created before the clock starts, dropped after). The puts are built before the clock
//! starts; the bulk load's clock covers the sort, the files written, the staging calls, one
//! `BulkLoadHFile` per region and the region servers' copies (a standalone HBase on the local
//! filesystem copies each file twice: into its staging directory and into the region). CPU is
//! this process's (`getrusage`); HBase runs in other processes. Peak memory is this process's
//! resident set (`VmHWM`, reset before each round), the puts included; the stream runs first,
//! so that its figure is not the heap the other methods' rounds left resident. The last round's
//! table of each method is checked to hold the N rows.
//!
//! Environment: `HBASE_ORM_BENCH_ROWS` (N, default 200,000), `HBASE_ORM_BENCH_REGIONS` (default
//! 4), `HBASE_ORM_BENCH_COMPRESSION` (the family's: `NONE` by default, `SNAPPY`, `GZ`; every
//! method writes the same table), `HBASE_ORM_BENCH_METHODS` (some of `bulk_load_stream`,
//! `repo_bulk_load_stream`, `put_many`, `put_many_made`, `bulk_load`, `save_all`,
//! `repo_bulk_load`, comma-separated: to profile one), `HBASE_ORM_BENCH_RUNS` (measured rounds
//! after the warm-up, default 3; 1 for a ten-million-row stream's peak memory),
//! `HBASE_ORM_NATIVE_URL`. On the local cluster on HDFS, the files are written straight into
//! HDFS (the feature `hdfs`, which the suite's `cluster` brings):
//!
//!     HBASE_ORM_JIT=full hbase-local/hbase.sh up --cluster 3 --hdfs
//!     HBASE_ORM_BENCH_ROWS=1000000 HBASE_ORM_BENCH_REGIONS=12 \
//!         cargo bench --features cluster --bench bulk_load

use std::time::{Duration, Instant};

use futures::{StreamExt, TryStreamExt};
use hbase_orm::{
    BulkLoadOptions, Client, ColumnFamily, Compression, Config, HBaseEntity, Put, Scan, Table,
};
use hbase_orm_suite::workload::{cpu_time, memory_mib, reset_peak_memory, write_order, Order};
use hbase_orm_suite::{connect_with, native_url, TestTable};

const BATCH: usize = 500;

struct Round {
    wall: Duration,
    cpu: Duration,
    peak_mib: f64,
}

fn from_env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().replace('_', "").parse().ok())
        .unwrap_or(default)
}

/// `regions` regions: the customers split in as many parts (the key starts with the customer,
/// 8 bytes).
fn splits(rows: u64, regions: u64) -> Vec<Vec<u8>> {
    let customers = rows / 50;
    (1..regions)
        .map(|k| (customers * k / regions).to_be_bytes().to_vec())
        .collect()
}

/// The table's one family, `d`, in the compression `HBASE_ORM_BENCH_COMPRESSION` names
/// (`NONE` by default; `SNAPPY`, `GZ`).
fn family() -> ColumnFamily {
    let compression = std::env::var("HBASE_ORM_BENCH_COMPRESSION").unwrap_or_default();
    let family = ColumnFamily::new("d");
    match compression.to_ascii_uppercase().as_str() {
        "" | "NONE" => family,
        "SNAPPY" => family.compression(Compression::Snappy),
        "GZ" => family.compression(Compression::Gz),
        other => panic!("HBASE_ORM_BENCH_COMPRESSION={other}: NONE, SNAPPY or GZ"),
    }
}

/// The rows in `table`, counted as they come (not held: the next method's peak memory would
/// start from them).
async fn count(table: &Table) -> u64 {
    table
        .scan(Scan::new().caching(1000).filter("FirstKeyOnlyFilter()"))
        .try_fold(0, |n, _| async move { Ok(n + 1) })
        .await
        .unwrap()
}

/// How a round writes.
#[derive(Clone, Copy, PartialEq)]
enum Method {
    PutMany,
    /// `put_many` of puts made as the stream's are, inside the clock: 500 orders made, mapped
    /// and sent, then the next 500.
    PutManyMade,
    BulkLoad,
    /// `bulk_load_stream` of puts made as the stream is read, under a 64 MiB budget.
    Stream,
    /// `Repository::bulk_load` of the orders (made before the clock).
    RepoBulkLoad,
    /// `Repository::bulk_load_stream` of orders made as the stream is read, under a 64 MiB
    /// budget.
    RepoStream,
    /// `Repository::save_all` of the orders (made before the clock), 500 a call.
    SaveAll,
}

async fn round(client: &Client, rows: u64, regions: u64, method: Method, check: bool) -> Round {
    let guard =
        TestTable::create(client, "bench_bulk", vec![family()], &splits(rows, regions)).await;
    let table = client.table_named(guard.name.clone());
    let puts: Vec<Put> = match method {
        Method::PutMany | Method::BulkLoad => (0..rows)
            .map(|i| write_order(i).to_put().unwrap())
            .collect(),
        _ => Vec::new(),
    };
    let orders: Vec<Order> = match method {
        Method::RepoBulkLoad | Method::SaveAll => (0..rows).map(write_order).collect(),
        _ => Vec::new(),
    };
    let repository = client
        .repository::<Order>()
        .on_table(guard.name.clone())
        .with_save_chunk(BATCH);
    let _ = reset_peak_memory();
    let (cpu, started) = (cpu_time(), Instant::now());
    match method {
        Method::PutMany => {
            for chunk in puts.chunks(BATCH) {
                table.put_many(chunk.to_vec()).await.unwrap();
            }
        }
        Method::PutManyMade => {
            for from in (0..rows).step_by(BATCH) {
                let made = (from..(from + BATCH as u64).min(rows))
                    .map(|i| write_order(i).to_put().unwrap())
                    .collect();
                table.put_many(made).await.unwrap();
            }
        }
        Method::BulkLoad => {
            let report = table
                .bulk_load(puts, &BulkLoadOptions::new())
                .await
                .unwrap();
            assert_eq!(report.cells, rows * 8);
        }
        Method::Stream => {
            let made = futures::stream::iter(0..rows).map(|i| write_order(i).to_put());
            let options = BulkLoadOptions::new().memory_budget(64 << 20);
            let report = table.bulk_load_stream(made, &options).await.unwrap();
            assert_eq!(report.cells, rows * 8);
        }
        Method::RepoBulkLoad => {
            let report = repository
                .bulk_load(&orders, &BulkLoadOptions::new())
                .await
                .unwrap();
            assert_eq!(report.cells, rows * 8);
        }
        Method::RepoStream => {
            let made = futures::stream::iter(0..rows).map(|i| Ok(write_order(i)));
            let options = BulkLoadOptions::new().memory_budget(64 << 20);
            let report = repository.bulk_load_stream(made, &options).await.unwrap();
            assert_eq!(report.cells, rows * 8);
        }
        Method::SaveAll => repository.save_all(&orders).await.unwrap(),
    }
    let round = Round {
        wall: started.elapsed(),
        cpu: cpu_time() - cpu,
        peak_mib: memory_mib("VmHWM:"),
    };
    if check {
        assert_eq!(count(&table).await, rows, "rows in the table");
    }
    round
}

#[tokio::main]
async fn main() {
    let rows = from_env("HBASE_ORM_BENCH_ROWS", 200_000);
    let runs = from_env("HBASE_ORM_BENCH_RUNS", 3).max(1) as usize;
    let regions = from_env("HBASE_ORM_BENCH_REGIONS", 4).max(1);
    let client = connect_with(Config::from_url(&native_url()).unwrap()).await;
    let mut table = Vec::new();
    // The stream first: its peak memory is then the load's, not what the heap kept of the
    // other methods' rounds (the allocator keeps freed pages resident).
    let methods = [
        ("bulk_load_stream", Method::Stream),
        ("repo_bulk_load_stream", Method::RepoStream),
        ("put_many, 500 a call", Method::PutMany),
        ("put_many_made", Method::PutManyMade),
        ("bulk_load", Method::BulkLoad),
        ("save_all, 500 a call", Method::SaveAll),
        ("repo_bulk_load", Method::RepoBulkLoad),
    ];
    // `HBASE_ORM_BENCH_METHODS=bulk_load,put_many` runs only those (to profile one of them).
    let only = std::env::var("HBASE_ORM_BENCH_METHODS").ok();
    let wanted = |name: &str| {
        let short = name.split(',').next().unwrap_or(name);
        only.as_deref()
            .is_none_or(|o| o.split(',').any(|m| m.trim() == short))
    };
    for (name, method) in methods {
        if !wanted(name) {
            continue;
        }
        let mut rounds = Vec::new();
        for i in 0..=runs {
            rounds.push(round(&client, rows, regions, method, i == runs).await);
        }
        table.push((name, rounds));
    }
    println!(
        "\nbulk load vs batched puts: {rows} orders of 8 columns (strings of 6 to 36 bytes) into \
         a fresh table of {regions} regions each round, native backend ({}); a warm-up round, \
         then {runs}",
        native_url()
    );
    println!("| method                | warm-up rows/s | measured rounds, rows/s | best rows/s | CPU µs/row (best) | peak RSS MiB (best) |");
    println!("|-----------------------|----------------|-------------------------|-------------|-------------------|---------------------|");
    let rate = |r: &Round| rows as f64 / r.wall.as_secs_f64();
    let cpu_per_row = |r: &Round| r.cpu.as_secs_f64() * 1e6 / rows as f64;
    // The measured rounds (the warm-up left out), each as `show` writes it.
    let each_round = |rounds: &[Round], show: &dyn Fn(&Round) -> String| {
        let shown: Vec<String> = rounds[1..].iter().map(show).collect();
        shown.join(" / ")
    };
    let mut best_rates = std::collections::HashMap::new();
    for (name, rounds) in &table {
        let best = rounds[1..]
            .iter()
            .min_by(|a, b| a.wall.cmp(&b.wall))
            .unwrap();
        best_rates.insert(*name, rate(best));
        println!(
            "| {name:<21} | {:>14.0} | {:>23} | {:>11.0} | {:>17.2} | {:>19.1} |",
            rate(&rounds[0]),
            each_round(rounds, &|r| format!("{:.0}", rate(r))),
            rate(best),
            cpu_per_row(best),
            best.peak_mib
        );
    }
    // Every round's CPU, beside the best round's above: a round's CPU per row moves with what
    // the machine does beside it (the HBase processes share its cores), not only with its speed.
    for (name, rounds) in &table {
        println!(
            "{name}: CPU µs/row of the measured rounds {}",
            each_round(rounds, &|r| format!("{:.2}", cpu_per_row(r)))
        );
    }
    // What the streams' own making of their rows costs, inside their clock: the orders (and
    // the puts of `bulk_load_stream`, mapped from them) made and dropped alone, no load (the
    // best of three), so that the load's own CPU per row can be told from it.
    let alone = |make: &dyn Fn(u64)| {
        let best = (0..3)
            .map(|_| {
                let cpu = cpu_time();
                for i in 0..rows {
                    make(std::hint::black_box(i));
                }
                cpu_time() - cpu
            })
            .min()
            .unwrap_or_default();
        best.as_secs_f64() * 1e6 / rows as f64
    };
    let orders = alone(&|i| drop(std::hint::black_box(write_order(i))));
    let puts = alone(&|i| drop(std::hint::black_box(write_order(i).to_put())));
    println!(
        "made alone, no load (best of 3; inside the streams' figures above): the orders \
         {orders:.2} µs of CPU per row, the puts of bulk_load_stream (orders mapped) {puts:.2}"
    );
    for (baseline, loads) in [
        ("put_many, 500 a call", ["bulk_load", "bulk_load_stream"]),
        ("put_many_made", ["bulk_load", "bulk_load_stream"]),
        (
            "save_all, 500 a call",
            ["repo_bulk_load", "repo_bulk_load_stream"],
        ),
    ] {
        let Some(puts) = best_rates.get(baseline) else {
            continue;
        };
        let short = baseline.split(',').next().unwrap_or(baseline);
        for name in loads {
            if let Some(rate) = best_rates.get(name) {
                println!("{name} / {short} (best rows/s): {:.2}x", rate / puts);
            }
        }
    }
}
