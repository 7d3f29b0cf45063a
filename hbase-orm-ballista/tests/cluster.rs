//! Against processes of their own: the scheduler and two executors of `hbase-local/ballista.sh up
//! 2` (the example program `node`, which knows the shop's entities), beside the local HBase
//! cluster (`hbase-local/hbase.sh up --cluster 3 --hdfs`). Random predicates answer through
//! them as in one process, with tasks on both executors; an executor killed with `kill -9` in
//! the middle of a query, and a region server killed in the middle of a distributed scan, leave
//! the answer exact: no row lost, none counted twice; an `INSERT` from CSV files is written by
//! the tasks of both executors, each its own rows, and reads back with its index rows.
//!
//!     hbase-local/hbase.sh up --cluster 3 --hdfs && hbase-local/ballista.sh up 2
//!     cd hbase-orm-ballista && cargo test --test cluster
//!
//! The tests take turns (each kills a process the others need) and fail, with what to start,
//! when the scheduler or the cluster is not there.

use std::sync::Arc;
use std::time::{Duration, Instant};

use datafusion::prelude::SessionContext;
use futures::TryStreamExt;
use hbase_orm::Client;
use hbase_orm_sql::{register_as, EntityTable};
use hbase_orm_suite::cluster::{
    ballista_log, ballista_url, launch, launch_ballista, launcher_name, StartAgain,
};
use hbase_orm_suite::example::Lcg;
use hbase_orm_suite::{fresh_split_repository, TestTable};
use tokio::sync::Mutex;

mod common;

use common::shop::{CustomerByCity, CustomerByCityKey, CustomerKey};
use common::{answer, shop, Customer, Order};

/// One test at a time: each kills a process the others need.
static TURN: Mutex<()> = Mutex::const_new(());

/// A table of orders in three regions, registered as `orders` in a context of the local
/// Ballista cluster and in one of this process.
struct Scene {
    client: Client,
    table: TestTable,
    orders: Vec<Order>,
    cluster: SessionContext,
    local: SessionContext,
}

impl Scene {
    /// `n` orders; `page_size` rows per scanner page (small: a slow scan, for the faults).
    async fn new(label: &str, n: u32, page_size: Option<i32>) -> Scene {
        let config = hbase_orm::Config::from_url(&hbase_orm_suite::native_url()).unwrap();
        let client = hbase_orm_suite::connect_with(config).await;
        let splits = [b"c04".to_vec(), b"c08".to_vec()];
        let (repo, table) = fresh_split_repository::<Order>(&client, label, &splits).await;
        let orders = shop::orders(n);
        repo.save_all(&orders).await.unwrap();

        let url = ballista_url();
        let registry = Arc::new(shop::registry("the test's client", client.clone()));
        let cluster = hbase_orm_ballista::remote(&url, &registry)
            .await
            .unwrap_or_else(|e| {
                panic!(
                    "no Ballista scheduler at {url}: {e}\n\
                     Start one beside HBase first:  hbase-local/ballista.sh up 2"
                )
            });
        let local = SessionContext::new();
        for ctx in [&cluster, &local] {
            let mut entity = EntityTable::<Order>::new(&client)
                .unwrap()
                .on_table(table.name.clone());
            if let Some(rows) = page_size {
                entity = entity.page_size(rows);
            }
            register_as(ctx, "orders", entity).unwrap();
        }
        Scene {
            client,
            table,
            orders,
            cluster,
            local,
        }
    }

    /// The count, distinct numbers, sum of numbers and sum of totals of every order saved, as
    /// `WHOLE` answers them.
    fn whole(&self) -> Vec<Vec<String>> {
        let n = self.orders.len() as u64;
        let cents: i64 = self
            .orders
            .iter()
            .map(|o| (o.total * 100.0).round() as i64)
            .sum();
        vec![vec![
            n.to_string(),
            n.to_string(),
            (n * (n - 1) / 2).to_string(),
            format!("{}.{:02}", cents / 100, cents % 100),
        ]]
    }
}

/// Counts every order, and every distinct number (a row read twice would count once there and
/// twice in `count(*)`).
const WHOLE: &str = "SELECT count(*), count(DISTINCT number), sum(number), \
                     CAST(round(sum(total), 2) AS DECIMAL(20, 2)) FROM orders";

/// Tasks each executor has started so far, from its log.
fn tasks_started() -> [usize; 2] {
    ["executor-1", "executor-2"].map(|name| {
        let path = ballista_log(name);
        std::fs::read_to_string(&path)
            .unwrap_or_else(|e| {
                panic!(
                    "reading {}: {e} (hbase-local/ballista.sh up 2 writes it)",
                    path.display()
                )
            })
            .matches("Execute task")
            .count()
    })
}

/// A condition on orders in SQL: key ranges, whole keys, values, NULLs and their combinations.
fn predicate(rng: &mut Lcg, depth: u32) -> String {
    if depth > 0 && rng.next(3) > 0 {
        let (a, b) = (predicate(rng, depth - 1), predicate(rng, depth - 1));
        return match rng.next(5) {
            0 | 1 => format!("({a} AND {b})"),
            2 | 3 => format!("({a} OR {b})"),
            _ => format!("(NOT {a})"),
        };
    }
    let customer = |rng: &mut Lcg| format!("'c{:02}'", rng.next(13));
    let cmp = |rng: &mut Lcg| ["<", "<=", ">", ">=", "=", "<>"][rng.next(6) as usize];
    match rng.next(10) {
        0 => format!("customer = {}", customer(rng)),
        1 => format!("customer IN ({}, {})", customer(rng), customer(rng)),
        2 => format!("customer {} {}", cmp(rng), customer(rng)),
        3 => format!(
            "customer LIKE '{}%'",
            ["c0", "c1", "c", "x"][rng.next(4) as usize]
        ),
        4 => format!("number {} {}", cmp(rng), rng.next(2_100)),
        5 => {
            let from = rng.next(2_000);
            format!("number BETWEEN {from} AND {}", from + rng.next(300))
        }
        6 => format!("total {} {}", cmp(rng), rng.next(500)),
        7 => format!(
            "status {} '{}'",
            cmp(rng),
            ["new", "paid", "shipped", "p"][rng.next(4) as usize]
        ),
        8 => ["note IS NULL", "note IS NOT NULL"][rng.next(2) as usize].to_string(),
        _ => format!("note LIKE 'leave order {}%'", rng.next(20)),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn random_predicates_answer_as_one_process_on_both_executors() {
    let _turn = TURN.lock().await;
    let scene = Scene::new("ballista_predicates", 2_000, None).await;
    let before = tasks_started();
    let mut rng = Lcg(0xBA11);
    for case in 0..40 {
        let mut pred = predicate(&mut rng, 2);
        if case % 4 == 0 {
            // Whole keys too (some orders', and a number no order has): gets.
            let picked: Vec<&Order> = (0..1 + rng.next(3))
                .map(|_| &scene.orders[rng.next(scene.orders.len() as u64) as usize])
                .collect();
            let customers: Vec<String> =
                picked.iter().map(|o| format!("'{}'", o.customer)).collect();
            let numbers: Vec<String> = picked
                .iter()
                .map(|o| o.number.to_string())
                .chain(["99999".to_string()])
                .collect();
            pred = format!(
                "(customer IN ({}) AND number IN ({})) AND {pred}",
                customers.join(", "),
                numbers.join(", ")
            );
        }
        for sql in [
            format!("SELECT customer, number, status FROM orders WHERE {pred}"),
            format!(
                "SELECT customer, count(*), round(sum(total), 2), count(note) FROM orders \
                 WHERE {pred} GROUP BY customer"
            ),
        ] {
            let sql = format!("{sql} ORDER BY 1, 2");
            let want = answer(&scene.local, &sql).await;
            let got = answer(&scene.cluster, &sql).await;
            assert_eq!(got, want, "case {case}: {sql}");
        }
    }
    let got = answer(&scene.cluster, WHOLE).await;
    assert_eq!(got, scene.whole(), "{WHOLE}");
    let after = tasks_started();
    let ran: Vec<usize> = after.iter().zip(&before).map(|(a, b)| a - b).collect();
    eprintln!("tasks run by executor-1 and executor-2: {ran:?}");
    assert!(ran.iter().all(|&n| n > 0), "tasks per executor: {ran:?}");
}

/// `WHOLE` running on the cluster, once an executor has started a task of it.
struct Running {
    query: tokio::task::JoinHandle<Vec<Vec<String>>>,
    started: Instant,
    /// Tasks each executor had started before.
    before: [usize; 2],
}

impl Running {
    /// Starts the query and returns once executor `executor` (1 or 2; 0: either) has started
    /// a task of it.
    async fn start(scene: &Scene, executor: usize) -> Running {
        let before = tasks_started();
        let waiting = |now: [usize; 2]| match executor {
            0 => now == before,
            k => now[k - 1] == before[k - 1],
        };
        let cluster = scene.cluster.clone();
        let started = Instant::now();
        let query = tokio::spawn(async move { answer(&cluster, WHOLE).await });
        while waiting(tasks_started()) {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "executor {executor} started no task of the query in 60 s (0: either)"
            );
            assert!(
                !query.is_finished(),
                "the query ended before a task started"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Running {
            query,
            started,
            before,
        }
    }

    /// Its answer; it must not have ended before the fault (now).
    async fn outcome(self) -> Vec<Vec<String>> {
        assert!(
            !self.query.is_finished(),
            "the query ended before the fault ({:?}): it must be slower for this test",
            self.started.elapsed()
        );
        let answer = tokio::time::timeout(Duration::from_secs(300), self.query)
            .await
            .expect("the query answered within 5 minutes of the fault")
            .expect("the query did not panic");
        let now = tasks_started();
        eprintln!(
            "answered {:?} after it began; tasks started by executor-1 and executor-2 since: \
             {:?}",
            self.started.elapsed(),
            [now[0] - self.before[0], now[1] - self.before[1]]
        );
        answer
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_executor_killed_in_the_middle_of_a_query() {
    let _turn = TURN.lock().await;
    let scene = Scene::new("ballista_executor_kill", 30_000, Some(3)).await;
    let running = Running::start(&scene, 2).await;
    eprintln!("tasks started before the kill: {:?}", tasks_started());
    launch_ballista(&["kill", "executor-2"]).await;
    let restart = StartAgain::ballista("executor-2");
    let got = running.outcome().await;
    assert_eq!(got, scene.whole(), "{WHOLE} with executor-2 killed");
    eprintln!("tasks started by the end: {:?}", tasks_started());
    restart.now().await;
    // The one executor left ran the query to its end; the one started again takes tasks.
    let got = answer(&scene.cluster, WHOLE).await;
    assert_eq!(got, scene.whole(), "{WHOLE} after executor-2 started again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_region_server_killed_in_the_middle_of_a_distributed_scan() {
    let _turn = TURN.lock().await;
    let scene = Scene::new("ballista_server_kill", 30_000, Some(3)).await;
    let admin = scene.client.admin();
    let servers = admin.region_servers().await.unwrap();
    assert!(
        servers.len() >= 3,
        "this test needs the local cluster (hbase-local/hbase.sh up --cluster 3 --hdfs), \
         found region servers {servers:?}"
    );
    // The server of the middle region (c04 .. c08).
    let middle = admin
        .region_locations(&scene.table.name)
        .await
        .unwrap()
        .into_iter()
        .find(|r| r.start_key == b"c04")
        .expect("a region starts at c04");
    let victim = launcher_name(&format!("{}:{}", middle.host, middle.port.unwrap_or(16020)));
    let running = Running::start(&scene, 0).await;
    // Scans under way in every region first.
    tokio::time::sleep(Duration::from_millis(500)).await;
    eprintln!("kill -9 {victim}, which holds the region from c04");
    launch(&["kill", &victim]).await;
    let restart = StartAgain::hbase(&victim);
    let got = running.outcome().await;
    assert_eq!(got, scene.whole(), "{WHOLE} with {victim} killed");
    restart.now().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_import_from_csv_files_saved_by_both_executors() {
    import_from_csv_files(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_import_from_csv_files_bulk_loaded_by_both_executors() {
    import_from_csv_files(true).await;
}

/// 2,000 customers from CSV files into their table (saved, or with `bulk` bulk-loaded, each
/// task its own rows), read back with their index rows.
async fn import_from_csv_files(bulk: bool) {
    let _turn = TURN.lock().await;
    let config = hbase_orm::Config::from_url(&hbase_orm_suite::native_url()).unwrap();
    let client = hbase_orm_suite::connect_with(config).await;
    // The customers' table and its index table, made afresh (dropped with the guards).
    let tables = TestTable::ensure_entity::<Customer>(&client, "ballista_import").await;
    let name = tables[0].name.clone();
    // 2,000 customers in four CSV files, in a directory the executors read (this machine's).
    let n = 2_000usize;
    let dir = std::env::temp_dir().join(format!("hbase-orm-ballista-import-{}", name.name));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let city = |i: usize| shop::CITIES[i % 3];
    for f in 0..4 {
        let lines: Vec<String> = std::iter::once("id,name,city".to_string())
            .chain(
                (f * n / 4..(f + 1) * n / 4)
                    .map(|i| format!("k{i:05},Customer number {i},{}", city(i))),
            )
            .collect();
        std::fs::write(dir.join(format!("part{f}.csv")), lines.join("\n") + "\n").unwrap();
    }

    let url = ballista_url();
    let registry = Arc::new(shop::registry("the test's client", client.clone()));
    let cluster = hbase_orm_ballista::remote(&url, &registry)
        .await
        .unwrap_or_else(|e| panic!("no Ballista scheduler at {url}: {e}"));
    let mut table = EntityTable::<Customer>::new(&client)
        .unwrap()
        .on_table(name.clone());
    if bulk {
        // The files in this machine's temporary directory, where the region servers (on this
        // machine too) read them.
        let options = hbase_orm::BulkLoadOptions::new().staging_dir(std::env::temp_dir());
        table = table.insert_by_bulk_load(options);
    }
    register_as(&cluster, "customers", table).unwrap();
    cluster
        .register_csv("files", dir.to_str().unwrap(), Default::default())
        .await
        .unwrap();

    let before = tasks_started();
    let got = answer(
        &cluster,
        "INSERT INTO customers SELECT id, name, city FROM files",
    )
    .await;
    assert_eq!(got, [[n.to_string()]]);
    let after = tasks_started();
    let ran: Vec<usize> = after.iter().zip(&before).map(|(a, b)| a - b).collect();
    eprintln!("import tasks (bulk: {bulk}) run by executor-1 and executor-2: {ran:?}");
    assert!(ran.iter().all(|&t| t > 0), "tasks per executor: {ran:?}");

    // Every customer reads back, and the index finds each city's.
    let customers = client.repository::<Customer>().on_table(name.clone());
    for i in [0, 499, 500, n - 1] {
        let want = Customer {
            id: format!("k{i:05}"),
            name: format!("Customer number {i}"),
            city: city(i).to_string(),
        };
        let key = CustomerKey {
            id: want.id.clone(),
        };
        assert_eq!(customers.get(&key).await.unwrap(), Some(want));
    }
    let local = SessionContext::new();
    let table = EntityTable::<Customer>::new(&client)
        .unwrap()
        .on_table(name.clone());
    register_as(&local, "customers", table).unwrap();
    let counted = answer(&local, "SELECT count(*), count(DISTINCT id) FROM customers").await;
    assert_eq!(counted, [[n.to_string(), n.to_string()]]);
    for c in shop::CITIES {
        let found: Vec<Customer> = customers
            .index::<CustomerByCity>()
            .prefix(CustomerByCityKey::prefix_by_city(&c.to_string()).unwrap())
            .stream()
            .try_collect()
            .await
            .unwrap();
        let want = (0..n).filter(|&i| city(i) == c).count();
        assert_eq!(found.len(), want, "customers of {c} by the index");
        assert!(found.iter().all(|f| f.city == c));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
