//! A Ballista scheduler and two executors run by this crate's `run_scheduler` and
//! `run_executor` (each with a registry and, on HBase, a client of its own, on local ports, in
//! this test's process), and a client's context pointed at the scheduler (`remote`): the shared
//! queries answer as DataFusion does in one process, and a whole-table query's tasks are spread
//! over both executors, each task a scan of one partition. On the in-memory store and on the
//! local HBase through its own RPC (`native::` fails when it is not up:
//! `hbase-local/hbase.sh up`).

use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hbase_orm::Client;
use hbase_orm_ballista::{
    remote, run_executor, run_scheduler, EntityRegistry, ExecutorOptions, SchedulerOptions,
    DEFAULT_CLIENT,
};
use hbase_orm_sql::register_as;

mod common;

use common::{answer, entity, local_context, orders_table, sorted_rows, Order, QUERIES};

/// A port nothing listens on now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn registry(process: &str, client: Client) -> Arc<EntityRegistry> {
    Arc::new(
        EntityRegistry::new(process)
            .add::<Order>()
            .client(DEFAULT_CLIENT, client),
    )
}

/// `clients` gives each process its client (the scheduler's, each executor's, the client's).
async fn queries_run_on_two_executors(clients: impl Fn() -> Client) {
    let client = clients();
    let (table, _) = orders_table(&client, "ballista_nodes", 600).await;
    let scheduler = SocketAddr::from(([127, 0, 0, 1], free_port()));
    let mut options = SchedulerOptions::default();
    options.bind = scheduler;
    tokio::spawn(run_scheduler(registry("scheduler", clients()), options));
    let executors: Vec<Arc<EntityRegistry>> = (1..=2)
        .map(|i| registry(&format!("executor {i}"), clients()))
        .collect();
    for executor in &executors {
        let mut options = ExecutorOptions::default();
        options.flight_port = free_port();
        options.grpc_port = free_port();
        options.scheduler = scheduler;
        options.task_slots = 2;
        options.heartbeat = Duration::from_secs(1);
        tokio::spawn(run_executor(executor.clone(), options));
    }

    let entity = || entity(&client, &table.name);
    let local = local_context(&client, &table.name);
    let url = format!("df://{scheduler}");
    let ctx = remote(&url, &registry("client", client.clone()))
        .await
        .unwrap();
    register_as(&ctx, "orders", entity()).unwrap();

    // The first query waits for the scheduler to answer and the executors to register.
    let started = Instant::now();
    let first = "SELECT count(*) FROM orders";
    let want = answer(&local, first).await;
    loop {
        match ctx.sql(first).await.unwrap().collect().await {
            Ok(got) => {
                assert_eq!(sorted_rows(&got), want);
                break;
            }
            Err(e) if started.elapsed() < Duration::from_secs(60) => {
                eprintln!("waiting for the scheduler: {e}");
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            Err(e) => panic!("the scheduler at {url} did not answer in 60 s: {e}"),
        }
    }

    for sql in QUERIES {
        let want = answer(&local, sql).await;
        let got = answer(&ctx, sql).await;
        assert_eq!(got, want, "{sql}: through Ballista");
    }

    // A whole-table query: one task per sub-range of a region, spread over both executors.
    let before: Vec<_> = executors.iter().map(|e| e.scans_decoded()).collect();
    let sql = "SELECT count(*), sum(total) FROM orders";
    let want = answer(&local, sql).await;
    let got = answer(&ctx, sql).await;
    assert_eq!(got, want, "{sql}");
    let tasks: Vec<u64> = executors
        .iter()
        .zip(&before)
        .map(|(e, b)| e.scans_decoded().scans - b.scans)
        .collect();
    let partitions: Vec<u64> = executors
        .iter()
        .zip(&before)
        .map(|(e, b)| e.scans_decoded().partitions - b.partitions)
        .collect();
    let per_region = ctx.state().config().target_partitions().div_ceil(3) as u64;
    assert_eq!(
        tasks.iter().sum::<u64>(),
        3 * per_region,
        "tasks per executor: {tasks:?}"
    );
    assert_eq!(partitions, tasks, "each task one partition");
    assert!(
        tasks.iter().all(|&n| n > 0),
        "tasks per executor: {tasks:?}"
    );
    eprintln!("tasks per executor for {sql}: {tasks:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn memory_queries_run_on_two_executors() {
    // One store: every process names the one client.
    let client = hbase_orm_suite::Target::Memory.client().await;
    queries_run_on_two_executors(move || client.clone()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn native_queries_run_on_two_executors() {
    // A client (a pool of connections) per process, as on machines of their own.
    let config = hbase_orm::Config::from_url(&hbase_orm_suite::native_url()).unwrap();
    let mut clients = Vec::new();
    for _ in 0..4 {
        clients.push(hbase_orm_suite::connect_with(config.clone()).await);
    }
    let next = std::sync::Mutex::new(clients.into_iter());
    queries_run_on_two_executors(move || {
        next.lock()
            .unwrap()
            .next()
            .expect("four clients: the test's, the scheduler's, two executors'")
    })
    .await;
}
