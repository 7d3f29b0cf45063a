//! One query on a Ballista cluster of one executor and of two, beside the same query in one
//! process, on one table in one run.
//!
//!     HBASE_ORM_JIT=full hbase-local/hbase.sh up                # from the repository root
//!     HBASE_ORM_BALLISTA_PROFILE=release hbase-local/ballista.sh up 2
//!     cd hbase-orm-ballista && cargo bench --bench ballista
//!
//! Not a test: it prints one table, every figure measured in this run. The shop's orders
//! (`examples/shop/`: a customer id, a number, a price, a status and, one order in four, a
//! note of about 40 bytes), `HBASE_ORM_BENCH_ROWS` of them (600,000), bulk-loaded into a table
//! split at each of the twelve customers (12 regions), and the twelve customers; HBase's own RPC
//! (`HBASE_ORM_NATIVE_URL`, `hbase://127.0.0.1:2181`), read by the executors the launcher
//! started (they know the shop's entities) and by this process.
//!
//! | query | SQL |
//! |---|---|
//! | whole-table aggregate | `count(*)`, a sum, a min and max of the number and `count(note)` over every order: every region read, 3 of the columns |
//! | key-range join | the orders of customers `c03` to `c08` (a key range: 6 of the 12 regions read) joined with their customers, totals per city |
//!
//! Each runs in turn: in this process (DataFusion over the same tables, one partition per
//! region), on the cluster with executor-2 stopped (one executor), and with it started again
//! (two). Three rounds each, after one whole-table scan in this process that warms HBase
//! (the JVM's compiler and its block cache: no round pays for a cold region server). Round 1
//! of the two-executor rows is executor-2's first work since it started (its connections to
//! HBase and its region lookups). Every answer is checked against this process's. Columns:
//! rows per second of the orders read, in round 1 (a single run) and the best round; CPU per
//! order read (µs) of this process and of the executors (`/proc/PID/stat`, 10 ms ticks); the
//! tasks each executor ran (from their logs).
//!
//! On this machine the executors, the region server and this process share two cores: a
//! second executor adds slots to run tasks, not cores to run them on.

use std::sync::Arc;
use std::time::{Duration, Instant};

use datafusion::prelude::SessionContext;
use futures::TryStreamExt;
use hbase_orm::{BulkLoadOptions, Client, Config};
use hbase_orm_sql::register_as;
use hbase_orm_sql::EntityTable;
use hbase_orm_suite::cluster::{ballista_log, ballista_pid, ballista_url, launch_ballista};
use hbase_orm_suite::workload::{cpu_time, process_cpu_time};
use hbase_orm_suite::{connect_with, fresh_split_repository, native_url, TestTable};

#[path = "../tests/common/mod.rs"]
mod common;

use common::{answer, shop, Customer, Order};

const ROUNDS: usize = 3;
const EXECUTORS: [&str; 2] = ["executor-1", "executor-2"];

const AGGREGATE: &str = "SELECT count(*), sum(CAST(round(total * 100) AS BIGINT)), \
     min(number), max(number), count(note) FROM orders";

const JOIN: &str = "SELECT c.city, count(*), sum(CAST(round(o.total * 100) AS BIGINT)) \
     FROM orders o JOIN customers c ON o.customer = c.id \
     WHERE o.customer >= 'c03' AND o.customer < 'c09' GROUP BY c.city ORDER BY c.city";

/// One round: wall time, and the CPU time of this process and of the executors.
#[derive(Clone, Copy)]
struct Round {
    wall: Duration,
    client_cpu: Duration,
    executors_cpu: Duration,
}

/// The rounds of one query on one setup, and the tasks each executor ran in them.
struct Measured {
    setup: &'static str,
    query: &'static str,
    rows: u64,
    rounds: Vec<Round>,
    tasks: [usize; 2],
}

impl Measured {
    fn rate(&self, round: &Round) -> f64 {
        self.rows as f64 / round.wall.as_secs_f64()
    }

    fn best(&self) -> Round {
        *self
            .rounds
            .iter()
            .min_by_key(|r| r.wall)
            .expect("three rounds")
    }

    fn per_row(&self, cpu: Duration) -> f64 {
        cpu.as_secs_f64() * 1e6 / self.rows.max(1) as f64
    }
}

/// Tasks each executor has started so far, from its log.
fn tasks_started() -> [usize; 2] {
    EXECUTORS.map(|name| {
        std::fs::read_to_string(ballista_log(name))
            .map(|log| log.matches("Execute task").count())
            .unwrap_or(0)
    })
}

/// The executors' CPU time so far (those running).
fn executors_cpu() -> Duration {
    EXECUTORS
        .iter()
        .filter_map(|name| ballista_pid(name).and_then(process_cpu_time))
        .sum()
}

/// Three rounds of `query` on `ctx`, each answer checked against `want`.
async fn measure(
    setup: &'static str,
    (name, query): (&'static str, &str),
    ctx: &SessionContext,
    rows: u64,
    want: &[Vec<String>],
) -> Measured {
    let tasks_before = tasks_started();
    let mut rounds = Vec::new();
    for round in 1..=ROUNDS {
        let (c0, e0, t0) = (cpu_time(), executors_cpu(), Instant::now());
        let got = answer(ctx, query).await;
        let r = Round {
            wall: t0.elapsed(),
            client_cpu: cpu_time().saturating_sub(c0),
            executors_cpu: executors_cpu().saturating_sub(e0),
        };
        assert_eq!(got, want, "{setup}, {name}: the answer of one process");
        eprintln!(
            "{setup}, {name}, round {round}: {:.3} s, {:.0} rows/s",
            r.wall.as_secs_f64(),
            rows as f64 / r.wall.as_secs_f64()
        );
        rounds.push(r);
    }
    let after = tasks_started();
    Measured {
        setup,
        query: name,
        rows,
        rounds,
        tasks: [after[0] - tasks_before[0], after[1] - tasks_before[1]],
    }
}

/// Executors the scheduler has dropped so far, from its log (a stopped executor tells it
/// before it exits; one that did not is dropped after the launcher's 5 s timeout).
fn executors_dropped() -> usize {
    std::fs::read_to_string(ballista_log("scheduler"))
        .map(|log| log.matches("Removing executor").count())
        .unwrap_or(0)
}

/// Stops executor-2 and waits until the scheduler has dropped it.
async fn stop_executor_2() {
    let before = executors_dropped();
    launch_ballista(&["stop", "executor-2"]).await;
    let started = Instant::now();
    while executors_dropped() == before {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the scheduler did not drop executor-2 in 30 s (its log: {})",
            ballista_log("scheduler").display()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::main]
async fn main() {
    let n: u32 = std::env::var("HBASE_ORM_BENCH_ROWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(600_000);
    let client: Client = connect_with(Config::from_url(&native_url()).expect("native URL")).await;
    let url = ballista_url();
    let registry = Arc::new(shop::registry("the bench's client", client.clone()));
    let cluster = hbase_orm_ballista::remote(&url, &registry)
        .await
        .unwrap_or_else(|e| {
            panic!(
                "no Ballista scheduler at {url}: {e}\nStart one beside HBase first:  \
                 HBASE_ORM_BALLISTA_PROFILE=release hbase-local/ballista.sh up 2"
            )
        });

    let customers_tables = TestTable::ensure_entity::<Customer>(&client, "bench_customers").await;
    let customers = client
        .repository::<Customer>()
        .on_table(customers_tables[0].name.clone());
    customers
        .save_all(&shop::customers())
        .await
        .expect("saving");
    let splits: Vec<Vec<u8>> = (1..12).map(|c| format!("c{c:02}").into_bytes()).collect();
    let (orders, orders_table) =
        fresh_split_repository::<Order>(&client, "bench_orders", &splits).await;
    let saved = shop::orders(n);
    // Bulk-loaded: the rounds find the orders in files, with no memstore flushes after them.
    orders
        .bulk_load(&saved, &BulkLoadOptions::new())
        .await
        .expect("bulk-loading the orders");
    let in_range = saved
        .iter()
        .filter(|o| ("c03".."c09").contains(&o.customer.as_str()))
        .count() as u64;
    drop(saved);
    eprintln!("{n} orders in {} (12 regions)", orders_table.name);

    let local = SessionContext::new();
    for ctx in [&cluster, &local] {
        register_as(
            ctx,
            "customers",
            EntityTable::<Customer>::new(&client)
                .expect("an SQL table")
                .on_table(customers_tables[0].name.clone()),
        )
        .expect("registering");
        register_as(
            ctx,
            "orders",
            EntityTable::<Order>::new(&client)
                .expect("an SQL table")
                .on_table(orders_table.name.clone()),
        )
        .expect("registering");
    }

    // HBase warmed: one whole-table scan in this process, not measured.
    let warm: usize = orders
        .scan()
        .stream()
        .try_fold(0, |n, _| async move { Ok(n + 1) })
        .await
        .expect("a whole-table scan");
    assert_eq!(warm, n as usize);
    let queries = [
        ("whole-table aggregate", AGGREGATE),
        ("key-range join", JOIN),
    ];
    let rows = [n as u64, in_range];
    let mut wanted = Vec::new();
    for (_, query) in queries {
        wanted.push(answer(&local, query).await);
    }

    let mut measured = Vec::new();
    for (k, query) in queries.into_iter().enumerate() {
        measured.push(measure("one process", query, &local, rows[k], &wanted[k]).await);
    }
    stop_executor_2().await;
    for (k, query) in queries.into_iter().enumerate() {
        measured.push(measure("Ballista, 1 executor", query, &cluster, rows[k], &wanted[k]).await);
    }
    launch_ballista(&["start", "executor-2"]).await;
    for (k, query) in queries.into_iter().enumerate() {
        measured.push(
            measure(
                "Ballista, 2 executors",
                query,
                &cluster,
                rows[k],
                &wanted[k],
            )
            .await,
        );
    }

    println!(
        "\n{n} orders in 12 regions ({in_range} in the join's key range), native backend; \
         {ROUNDS} rounds each after HBase was warmed; CPU: µs per order read\n"
    );
    println!(
        "| query | where | orders read | round 1 rows/s | best rows/s | vs one process (best) | \
         client CPU | executors' CPU | tasks of the 3 rounds (executor-1, executor-2) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for m in &measured {
        let base = measured
            .iter()
            .find(|b| b.setup == "one process" && b.query == m.query)
            .expect("one process's");
        let best = m.best();
        println!(
            "| {} | {} | {} | {:.0} | {:.0} | {:.2}x | {:.2} | {:.2} | {}, {} |",
            m.query,
            m.setup,
            m.rows,
            m.rate(&m.rounds[0]),
            m.rate(&best),
            m.rate(&best) / base.rate(&base.best()),
            m.per_row(best.client_cpu),
            m.per_row(best.executors_cpu),
            m.tasks[0],
            m.tasks[1],
        );
    }
}
