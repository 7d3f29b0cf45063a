//! Arrow batches and SQL beside the entity scan, on one table in one run.
//!
//!     HBASE_ORM_JIT=full hbase-local/hbase.sh up      # from the repository root
//!     cd hbase-orm-sql && cargo bench --bench sql
//!
//! The table: `HBASE_ORM_BENCH_ROWS` (200,000) eight-column orders of the writes bench (two
//! `i64`, a timestamp, an `f64`, four strings of 6 to 36 bytes), keyed `[customer][order]`,
//! pre-split into `HBASE_ORM_BENCH_REGIONS` (4) regions, read through HBase's own RPC
//! (`HBASE_ORM_NATIVE_URL`, `hbase://127.0.0.1:2181`). Each method runs a warm-up round, then
//! three; the table gives each round and the best, rows per second and this process's CPU time
//! per row (user + system, every thread: DataFusion's too).
//!
//! | method | what runs |
//! |---|---|
//! | entity scan | `Repository::scan().stream()`, every entity decoded, pages of 1,000 |
//! | arrow batches | `EntityTable::batches`, every column, batches of 8,192 rows, pages of 1,000 |
//! | sql group by, 1 partition | `SELECT customer, count(*), sum(amount_cents) ... GROUP BY customer`, the table read as one partition |
//! | sql group by, per region | the same query, one partition per region |
//! | sql group by, per region, whole families | the same, the family read whole (`EntityTable::whole_families`) instead of its two columns by name |
//! | sql aggregate of 3 columns, per region | `SELECT count(*), sum(amount_cents), min(placed_at), max(quantity) FROM orders`: 3 of the 8 columns, no struct built |
//! | sql aggregate of 3 columns, whole families | the same, the family read whole |
//! | sql aggregate of 3 columns, whole families, whole regions | the same, each region read by one scanner (`EntityTable::whole_regions`); the methods above cut a table of fewer regions than DataFusion's partitions into sub-ranges read at once |
//!
//! `HBASE_ORM_BENCH_REGIONS=1` measures a one-region table, where one scanner reads it all.

use std::future::Future;
use std::time::{Duration, Instant};

use datafusion::arrow::record_batch::RecordBatch;
use datafusion::prelude::{SessionConfig, SessionContext};
use futures::TryStreamExt;
use hbase_orm::{Client, Config, EntityKey, Repository};
use hbase_orm_sql::{register_as, EntityTable, BATCH_ROWS};
use hbase_orm_suite::workload::{cpu_time, write_order, Order, OrderKey};
use hbase_orm_suite::{connect_with, fresh_split_repository, native_url};

const PAGE: i32 = 1000;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One round: rows read, wall time, CPU time.
#[derive(Clone, Copy)]
struct Round {
    rows: u64,
    wall: Duration,
    cpu: Duration,
}

impl Round {
    fn rate(&self) -> f64 {
        self.rows as f64 / self.wall.as_secs_f64()
    }

    fn cpu_per_row(&self) -> f64 {
        self.cpu.as_secs_f64() * 1e6 / self.rows.max(1) as f64
    }
}

/// A warm-up round, then three; each round returns the rows it read.
async fn rounds<F, Fut>(name: &str, mut run: F) -> Vec<Round>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = u64>,
{
    let mut out = Vec::new();
    for round in 0..4 {
        let (c0, t0) = (cpu_time(), Instant::now());
        let rows = run().await;
        let r = Round {
            rows,
            wall: t0.elapsed(),
            cpu: cpu_time().saturating_sub(c0),
        };
        eprintln!(
            "{name}, round {round}: {rows} rows in {:.3} s, {:.0} rows/s, {:.2} µs CPU/row",
            r.wall.as_secs_f64(),
            r.rate(),
            r.cpu_per_row()
        );
        if round > 0 {
            out.push(r);
        }
    }
    out
}

fn best(rounds: &[Round]) -> Round {
    *rounds
        .iter()
        .max_by(|a, b| a.rate().total_cmp(&b.rate()))
        .expect("three rounds")
}

/// The answer to `sql`.
async fn answer(ctx: &SessionContext, sql: &str) -> Vec<RecordBatch> {
    ctx.sql(sql)
        .await
        .expect("planning")
        .collect()
        .await
        .expect("running")
}

/// The aggregate of three of the eight columns, over the whole table: its rows counted.
async fn aggregate(ctx: &SessionContext) -> u64 {
    let sql = "SELECT count(*), sum(amount_cents), min(placed_at), max(quantity) FROM orders";
    let batches = answer(ctx, sql).await;
    let counted = batches[0]
        .column(0)
        .as_any()
        .downcast_ref::<datafusion::arrow::array::Int64Array>()
        .expect("a count")
        .value(0);
    counted as u64
}

async fn group_by(ctx: &SessionContext) -> u64 {
    let sql = "SELECT customer, count(*), sum(amount_cents) FROM orders GROUP BY customer";
    let batches = answer(ctx, sql).await;
    batches.iter().map(|b| b.num_rows() as u64).sum()
}

fn context(table: EntityTable<Order>) -> SessionContext {
    let ctx = SessionContext::new_with_config(SessionConfig::new().with_batch_size(BATCH_ROWS));
    register_as(&ctx, "orders", table).expect("registering");
    ctx
}

#[tokio::main]
async fn main() {
    let rows = env_usize("HBASE_ORM_BENCH_ROWS", 200_000) as u64;
    let regions = env_usize("HBASE_ORM_BENCH_REGIONS", 4).max(1) as u64;
    let client: Client = connect_with(Config::from_url(&native_url()).expect("native URL")).await;
    let customers = rows.div_ceil(50);
    let splits: Vec<Vec<u8>> = (1..regions)
        .map(|r| {
            OrderKey {
                customer: customers * r / regions,
                order: 0,
            }
            .row_key()
            .expect("a key")
        })
        .collect();
    let (repo, table): (Repository<Order>, _) =
        fresh_split_repository::<Order>(&client, "sql_bench", &splits).await;
    let data: Vec<Order> = (0..rows).map(write_order).collect();
    for chunk in data.chunks(5_000) {
        repo.save_all(chunk).await.expect("saving");
    }
    drop(data);
    eprintln!("{rows} rows in {} ({regions} regions)", table.name);

    let entity = rounds("entity scan", || async {
        repo.scan()
            .page_size(PAGE)
            .stream()
            .try_fold(0u64, |n, _| async move { Ok(n + 1) })
            .await
            .expect("entity scan")
    })
    .await;
    let arrow_table = EntityTable::<Order>::new(&client)
        .expect("an SQL table")
        .on_table(table.name.clone())
        .page_size(PAGE);
    let arrow = rounds("arrow batches", || async {
        arrow_table
            .batches(None, BATCH_ROWS)
            .try_fold(0u64, |n, b| async move { Ok(n + b.num_rows() as u64) })
            .await
            .expect("arrow batches")
    })
    .await;
    let one = context(
        EntityTable::<Order>::new(&client)
            .expect("an SQL table")
            .on_table(table.name.clone())
            .page_size(PAGE)
            .one_partition(),
    );
    let per_region = context(
        EntityTable::<Order>::new(&client)
            .expect("an SQL table")
            .on_table(table.name.clone())
            .page_size(PAGE),
    );
    let families = context(
        EntityTable::<Order>::new(&client)
            .expect("an SQL table")
            .on_table(table.name.clone())
            .page_size(PAGE)
            .whole_families(),
    );
    let groups = group_by(&one).await;
    assert_eq!(groups, customers, "one group per customer");
    // Rows/s of the table read, not of the groups answered.
    let sql_one = rounds("sql group by, 1 partition", || async {
        assert_eq!(group_by(&one).await, customers);
        rows
    })
    .await;
    let sql_regions = rounds("sql group by, per region", || async {
        assert_eq!(group_by(&per_region).await, customers);
        rows
    })
    .await;
    let sql_families = rounds("sql group by, per region, whole families", || async {
        assert_eq!(group_by(&families).await, customers);
        rows
    })
    .await;

    let sql_aggregate = rounds("sql aggregate of 3 columns, per region", || async {
        aggregate(&per_region).await
    })
    .await;
    let sql_aggregate_families = rounds("sql aggregate of 3 columns, whole families", || async {
        aggregate(&families).await
    })
    .await;
    let one_scanner = context(
        EntityTable::<Order>::new(&client)
            .expect("an SQL table")
            .on_table(table.name.clone())
            .page_size(PAGE)
            .whole_families()
            .whole_regions(),
    );
    let sql_aggregate_one_scanner = rounds(
        "sql aggregate of 3 columns, whole families, whole regions",
        || async { aggregate(&one_scanner).await },
    )
    .await;

    println!(
        "\n{rows} rows, {regions} regions, native backend; warm-up round then 3, best by rows/s \
         (CPU: this process, every thread)\n"
    );
    println!(
        "| method | round 1 | round 2 | round 3 | best rows/s | CPU µs/row (best round) | vs entity scan |"
    );
    println!("|---|---|---|---|---|---|---|");
    let base = best(&entity).rate();
    for (name, r) in [
        ("entity scan", &entity),
        ("arrow batches", &arrow),
        ("sql group by, 1 partition", &sql_one),
        ("sql group by, per region", &sql_regions),
        ("sql group by, per region, whole families", &sql_families),
        ("sql aggregate of 3 columns, per region", &sql_aggregate),
        (
            "sql aggregate of 3 columns, whole families",
            &sql_aggregate_families,
        ),
        (
            "sql aggregate of 3 columns, whole families, whole regions",
            &sql_aggregate_one_scanner,
        ),
    ] {
        let b = best(r);
        println!(
            "| {name} | {:.0} | {:.0} | {:.0} | {:.0} | {:.2} | {:.2}x |",
            r[0].rate(),
            r[1].rate(),
            r[2].rate(),
            b.rate(),
            b.cpu_per_row(),
            b.rate() / base
        );
    }
}
