//! Against the local cluster of three region servers (`hbase-local/hbase.sh up --cluster`), not
//! the standalone HBase: regions moved one after another and split under load, a region
//! server killed with `kill -9` and started again, the master stopped for a while.
//!
//!     hbase-local/hbase.sh up --cluster && cargo test --features cluster --test cluster
//!
//! Every test drives the same load through two clients at once, one of the Thrift2 gateway
//! and one native: salted entities saved and read back, `parallel(4)` scans of a table of
//! fixed rows checked row by row, and (when a server dies) a counter. It prints what each
//! client's load held. The tests take turns: each changes the whole cluster.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::TryStreamExt;
use hbase_orm::rowkey::salt_split_keys;
use hbase_orm::{Client, ColumnFamily, Config, HBaseEntity, Repository, Scan, Table};
use hbase_orm_suite::cluster::{launch, launcher_name, StartAgain};
use hbase_orm_suite::load::{self, Seen};
use hbase_orm_suite::{connect_with, gateway_address, native_url, TestTable};

/// One test at a time: each moves, splits or stops parts of the one cluster.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Rows of the scanned table, `s00000` .. in 12 regions.
const SCAN_ROWS: usize = 6000;
const REGIONS: usize = 12;

/// A saved event, salted over the 12 regions of its table.
#[derive(HBaseEntity, Clone, Debug, PartialEq)]
#[hbase(
    namespace = "hbase_orm_it",
    table = "cluster_events",
    family = "d",
    salt(buckets = 12)
)]
struct Event {
    #[hbase(key)]
    writer: u32,
    #[hbase(key)]
    seq: u64,
    body: String,
}

fn event(writer: u32, seq: u64) -> Event {
    let mut body = format!("event {seq} of writer {writer}: ");
    while body.len() < 120 {
        body.push_str("payload ");
    }
    Event { writer, seq, body }
}

/// The clients of one test: the load's two, and a native one for admin calls.
struct Clients {
    thrift2: Client,
    native: Client,
    admin: Client,
}

async fn clients() -> Clients {
    let native = || async { connect_with(Config::from_url(&native_url()).unwrap()).await };
    Clients {
        thrift2: connect_with(Config {
            address: gateway_address(),
            ..Config::default()
        })
        .await,
        native: native().await,
        admin: native().await,
    }
}

/// The test's tables: the events (12 salt buckets, 12 regions) and the scanned rows (12
/// regions of 500 rows, plus a counter row before them), dropped with it (also when the test
/// fails).
struct Tables {
    events: hbase_orm::TableName,
    scanned: hbase_orm::TableName,
    _dropped_with_these: [TestTable; 2],
}

impl Tables {
    async fn create(admin: &Client, label: &str) -> Tables {
        let events = TestTable::create(
            admin,
            &format!("{label}_events"),
            Event::family_descriptors(),
            &salt_split_keys(REGIONS as u8),
        )
        .await;
        let splits: Vec<Vec<u8>> = (1..REGIONS)
            .map(|i| load::fixed_key(i * SCAN_ROWS / REGIONS).into_bytes())
            .collect();
        let families = vec![ColumnFamily::new("d")];
        let scanned =
            TestTable::create(admin, &format!("{label}_scanned"), families, &splits).await;
        load::write_fixed_rows(&admin.table_named(scanned.name.clone()), SCAN_ROWS).await;
        Tables {
            events: events.name.clone(),
            scanned: scanned.name.clone(),
            _dropped_with_these: [events, scanned],
        }
    }
}

/// What one client's load saw.
#[derive(Debug, Default)]
struct Held {
    /// Saves and the counter, as the fault tests' load notes them.
    seen: Seen,
    /// Event keys saved and read back.
    saved: Vec<(u32, u64)>,
    /// Whole scans of the fixed rows, each checked.
    scans: usize,
    /// Scans that did not return every row once, in order (with what was wrong).
    bad_scans: Vec<String>,
    /// Scans that failed.
    failed_scans: Vec<String>,
}

/// Until `stop`: saves events of `writer` and reads each back, `pause` apart.
async fn saver(
    repo: Repository<Event>,
    writer: u32,
    stop: Arc<AtomicBool>,
    held: Arc<Mutex<Held>>,
) {
    let mut seq = 0;
    while !stop.load(Ordering::Relaxed) {
        let e = event(writer, seq);
        let started = Instant::now();
        let key = EventKey { writer, seq };
        let done = match repo.save(&e).await {
            Ok(()) => repo.get(&key).await.map(|found| found == Some(e)),
            Err(err) => Err(err),
        };
        {
            let mut h = held.lock().unwrap();
            h.seen.longest_stall = h.seen.longest_stall.max(started.elapsed());
            match done {
                Ok(true) => h.saved.push((writer, seq)),
                Ok(false) => h
                    .seen
                    .failed_idempotent
                    .push(format!("{writer}/{seq}: read back something else")),
                Err(err) => h
                    .seen
                    .failed_idempotent
                    .push(format!("{writer}/{seq}: {err}")),
            }
        }
        seq += 1;
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Until `stop`: scans the fixed rows with `parallel(4)` and checks every scan.
async fn scanner(t: Table, stop: Arc<AtomicBool>, held: Arc<Mutex<Held>>) {
    while !stop.load(Ordering::Relaxed) {
        let scan = Scan::new().start("s").caching(200).parallel(4);
        let rows: hbase_orm::Result<Vec<hbase_orm::Row>> = t.scan(scan).try_collect().await;
        let mut h = held.lock().unwrap();
        match rows {
            Err(e) => h.failed_scans.push(e.to_string()),
            Ok(rows) => {
                h.scans += 1;
                let keys: Vec<String> = rows
                    .iter()
                    .map(|r| String::from_utf8_lossy(&r.key).into_owned())
                    .collect();
                if keys.len() != SCAN_ROWS
                    || keys
                        .iter()
                        .enumerate()
                        .any(|(i, k)| *k != load::fixed_key(i))
                {
                    let first_wrong = keys
                        .iter()
                        .enumerate()
                        .find(|(i, k)| **k != load::fixed_key(*i));
                    h.bad_scans.push(format!(
                        "{} rows, first out of place: {first_wrong:?}",
                        keys.len()
                    ));
                }
            }
        }
    }
}

/// The load of one client: two savers, a scanner, and the counter if `count`.
struct Load {
    stop: Arc<AtomicBool>,
    held: Arc<Mutex<Held>>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    client: Client,
    name: &'static str,
}

impl Load {
    fn start(
        name: &'static str,
        client: &Client,
        tables: &Tables,
        writers: [u32; 2],
        count: bool,
    ) -> Load {
        let stop = Arc::new(AtomicBool::new(false));
        let held = Arc::new(Mutex::new(Held::default()));
        let repo = client.repository::<Event>().on_table(tables.events.clone());
        let scanned = client.table_named(tables.scanned.clone());
        let mut tasks: Vec<tokio::task::JoinHandle<()>> = writers
            .iter()
            .map(|&w| tokio::spawn(saver(repo.clone(), w, stop.clone(), held.clone())))
            .collect();
        tasks.push(tokio::spawn(scanner(
            scanned.clone(),
            stop.clone(),
            held.clone(),
        )));
        if count {
            let seen = Arc::new(Mutex::new(Seen::default()));
            let (stop2, held2) = (stop.clone(), held.clone());
            tasks.push(tokio::spawn(async move {
                load::counter(scanned, Duration::from_millis(20), stop2, seen.clone()).await;
                let s = seen.lock().unwrap();
                let mut h = held2.lock().unwrap();
                h.seen.increments_acked = s.increments_acked;
                h.seen.increments_unknown = s.increments_unknown;
            }));
        }
        Load {
            stop,
            held,
            tasks,
            client: client.clone(),
            name,
        }
    }

    /// Stops the load and returns what it held.
    async fn finish(self) -> (Held, &'static str, Client) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.tasks {
            t.await.unwrap();
        }
        let held = std::mem::take(&mut *self.held.lock().unwrap());
        (held, self.name, self.client)
    }
}

/// What a test lets a load's calls do besides succeed.
#[derive(Clone, Copy, PartialEq)]
enum Failures {
    /// Nothing idempotent fails, no scan fails.
    None,
    /// Calls may fail (a server crashed under them), but the native client's scans do not: a
    /// scan reopens its lost scanner after its last row until the region is served again.
    NotNativeScans,
}

/// Checks what a load held: nothing idempotent failed (unless `failures` allow it), every
/// acknowledged save reads back through a fresh client, every scan was whole; prints it.
async fn check(
    test: &str,
    held: &Held,
    name: &str,
    client: &Client,
    tables: &Tables,
    failures: Failures,
) {
    let stats = client.stats();
    println!(
        "{test} | {name} | saves {} | scans {} ({} rows each) | counter +{} ({} unknown) | longest stall {:?} | retries {} | scans resumed {} | failed {} | failed scans {}",
        held.saved.len(),
        held.scans,
        SCAN_ROWS,
        held.seen.increments_acked,
        held.seen.increments_unknown,
        held.seen.longest_stall,
        stats.retries,
        stats.scans_resumed,
        held.seen.failed_idempotent.len(),
        held.failed_scans.len(),
    );
    if failures == Failures::NotNativeScans && name == "native" {
        assert!(
            held.failed_scans.is_empty(),
            "{name}: scans failed: {:?}",
            held.failed_scans
        );
    }
    if failures == Failures::None {
        assert!(
            held.seen.failed_idempotent.is_empty(),
            "{name}: idempotent calls failed: {:?}",
            &held.seen.failed_idempotent[..held.seen.failed_idempotent.len().min(5)]
        );
        assert!(
            held.failed_scans.is_empty(),
            "{name}: scans failed: {:?}",
            held.failed_scans
        );
    }
    assert!(held.bad_scans.is_empty(), "{name}: {:?}", held.bad_scans);
    assert!(held.scans > 0, "{name}: no scan finished under the load");
    assert!(!held.saved.is_empty(), "{name}: no save went through");
    // Read back through a fresh native client.
    let fresh = connect_with(Config::from_url(&native_url()).unwrap()).await;
    let repo = fresh.repository::<Event>().on_table(tables.events.clone());
    let keys: Vec<EventKey> = held
        .saved
        .iter()
        .map(|&(writer, seq)| EventKey { writer, seq })
        .collect();
    for chunk in keys.chunks(500) {
        let found = repo.get_many(chunk).await.unwrap();
        assert!(
            found.iter().all(Option::is_some),
            "{name}: an acknowledged save is missing"
        );
    }
}

/// The servers and which regions of `table` each holds.
async fn regions_by_server(admin: &Client, table: &hbase_orm::TableName) -> Vec<(String, Vec<u8>)> {
    admin
        .admin()
        .region_locations(table)
        .await
        .unwrap()
        .into_iter()
        .map(|r| {
            (
                format!("{}:{}", r.host, r.port.unwrap_or(16020)),
                r.start_key,
            )
        })
        .collect()
}

/// The cluster's region servers; at least three.
async fn servers(admin: &Client) -> Vec<String> {
    let servers = admin.admin().region_servers().await.unwrap();
    assert!(
        servers.len() >= 3,
        "these tests need the cluster (hbase-local/hbase.sh up --cluster), found {servers:?}"
    );
    servers
}

/// A test under way: its turn at the cluster, its clients, the cluster's servers, its tables
/// and the two loads running on them.
struct Scene {
    _turn: tokio::sync::MutexGuard<'static, ()>,
    c: Clients,
    servers: Vec<String>,
    tables: Tables,
    loads: [Load; 2],
}

impl Scene {
    /// Waits for the test's turn, makes the tables and starts the loads (with the counter if
    /// `count`).
    async fn begin(label: &str, count: bool) -> Scene {
        let turn = ONE_AT_A_TIME.lock().await;
        let c = clients().await;
        let servers = servers(&c.admin).await;
        let tables = Tables::create(&c.admin, label).await;
        let loads = [
            Load::start("thrift2", &c.thrift2, &tables, [1, 2], count),
            Load::start("native", &c.native, &tables, [3, 4], count),
        ];
        Scene {
            _turn: turn,
            c,
            servers,
            tables,
            loads,
        }
    }

    /// Stops the loads, checks what each held (see [`check`]) and the counter both loads
    /// incremented (no increment applied twice, none lost), and drops the tables.
    async fn end(self, test: &str, failures: Failures) {
        let (mut acked, mut unknown) = (0, 0);
        for load in self.loads {
            let (held, name, client) = load.finish().await;
            acked += held.seen.increments_acked;
            unknown += held.seen.increments_unknown;
            check(test, &held, name, &client, &self.tables, failures).await;
        }
        let n = self
            .c
            .admin
            .table_named(self.tables.scanned.clone())
            .get(hbase_orm::Get::new("counter"))
            .await
            .unwrap()
            .and_then(|r| r.counter("d", "n"))
            .unwrap_or(0);
        if acked + unknown > 0 {
            println!("{test} | counter {n}: {acked} acknowledged, {unknown} of unknown fate");
        }
        assert!(
            n >= acked && n <= acked + unknown,
            "counter {n}: {acked} acknowledged, {unknown} unknown"
        );
        drop(self.tables);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regions_moved_one_after_another_under_load() {
    let scene = Scene::begin("moves", false).await;
    let (c, servers, tables) = (&scene.c, &scene.servers, &scene.tables);
    let was_on = c.admin.admin().set_balancer(false).await.unwrap();
    tokio::time::sleep(Duration::from_secs(2)).await;
    // Every region of both tables, one after another, to the next server.
    let started = Instant::now();
    let mut moves = 0;
    for table in [&tables.events, &tables.scanned] {
        for (server, start) in regions_by_server(&c.admin, table).await {
            let at = servers.iter().position(|s| *s == server).unwrap_or(0);
            let to = &servers[(at + 1) % servers.len()];
            c.admin
                .admin()
                .move_region(table, &start, Some(to))
                .await
                .unwrap_or_else(|e| panic!("moving the region at {start:?} to {to}: {e}"));
            moves += 1;
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
    }
    println!("{moves} regions moved in {:?}", started.elapsed());
    tokio::time::sleep(Duration::from_secs(2)).await;
    c.admin.admin().set_balancer(was_on).await.unwrap();
    scene.end("moves", Failures::None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hot_region_split_under_load() {
    let scene = Scene::begin("split", false).await;
    let (c, tables) = (&scene.c, &scene.tables);
    tokio::time::sleep(Duration::from_secs(3)).await;
    // Bucket 5 of the events, between writer 2's keys and writer 3's; a region of the
    // scanned rows in its middle.
    let started = Instant::now();
    let mut hot = vec![5u8];
    hot.extend_from_slice(&3u32.to_be_bytes());
    let a = c.admin.admin();
    a.split_region(&tables.events, &hot).await.unwrap();
    a.split_region(&tables.scanned, load::fixed_key(750).as_bytes())
        .await
        .unwrap();
    println!("two regions split in {:?}", started.elapsed());
    tokio::time::sleep(Duration::from_secs(4)).await;
    assert_eq!(
        a.region_locations(&tables.events).await.unwrap().len(),
        REGIONS + 1
    );
    scene.end("split", Failures::None).await;
}

/// Saves acknowledged so far.
fn saves(load: &Load) -> usize {
    load.held.lock().unwrap().saved.len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_region_server_killed_under_load_and_started_again() {
    let scene = Scene::begin("kill", true).await;
    let (c, tables, loads) = (&scene.c, &scene.tables, &scene.loads);
    tokio::time::sleep(Duration::from_secs(3)).await;
    // The server holding the most regions of the events.
    let mut count: Vec<(usize, String)> = Vec::new();
    for (server, _) in regions_by_server(&c.admin, &tables.events).await {
        match count.iter_mut().find(|(_, s)| *s == server) {
            Some((n, _)) => *n += 1,
            None => count.push((1, server)),
        }
    }
    count.sort();
    let (held_regions, victim) = count.pop().unwrap();
    let name = launcher_name(&victim);
    println!("kill -9 {name} ({victim}, {held_regions} of the {REGIONS} event regions)");
    let killed = Instant::now();
    launch(&["kill", &name]).await;
    let victim = StartAgain::hbase(&name);
    tokio::time::sleep(Duration::from_secs(15)).await;
    victim.now().await;
    println!("{name} started again {:?} after the kill", killed.elapsed());
    let after_restart: Vec<usize> = loads.iter().map(saves).collect();
    // The load goes on until both clients have saved again for a while.
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        tokio::time::sleep(Duration::from_secs(2)).await;
        let now: Vec<usize> = loads.iter().map(saves).collect();
        if now.iter().zip(&after_restart).all(|(n, a)| *n > a + 200) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the clients did not recover: saves {after_restart:?} at the restart, {now:?} now"
        );
    }
    println!(
        "both clients saving again {:?} after the kill",
        killed.elapsed()
    );
    scene.end("kill", Failures::NotNativeScans).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_master_stopped_for_a_while() {
    let scene = Scene::begin("master", false).await;
    let loads = &scene.loads;
    tokio::time::sleep(Duration::from_secs(2)).await;
    launch(&["stop", "master"]).await;
    let master = StartAgain::hbase("master");
    let stopped = Instant::now();
    let before: Vec<usize> = loads.iter().map(saves).collect();
    // Admin calls that need the master fail, and say so, within their limits (listing
    // namespaces: whether a table exists, a gateway answers from meta without the master).
    let quick = |config: Config| {
        connect_with(Config {
            retry_deadline: Duration::from_secs(2),
            request_timeout: Duration::from_secs(5),
            ..config
        })
    };
    let native_admin = quick(Config::from_url(&native_url()).unwrap()).await;
    let thrift_admin = quick(Config {
        address: gateway_address(),
        ..Config::default()
    })
    .await;
    for (name, admin) in [("native", &native_admin), ("thrift2", &thrift_admin)] {
        let asked = Instant::now();
        let e = admin
            .admin()
            .list_namespaces()
            .await
            .expect_err("an admin call with the master stopped");
        println!(
            "master | {name}: admin call failed after {:?}: {e}",
            asked.elapsed()
        );
        assert!(asked.elapsed() < Duration::from_secs(30), "{name}: {e}");
    }
    tokio::time::sleep(Duration::from_secs(10).saturating_sub(stopped.elapsed())).await;
    let during: Vec<usize> = loads.iter().map(saves).collect();
    assert!(
        during.iter().zip(&before).all(|(d, b)| d > b),
        "data calls went on without the master: {before:?} then {during:?}"
    );
    master.now().await;
    println!("master | stopped for {:?}", stopped.elapsed());
    // Admin calls work again once it is back.
    let back = Instant::now();
    for admin in [&native_admin, &thrift_admin] {
        loop {
            match admin.admin().list_namespaces().await {
                Ok(namespaces) => {
                    assert!(namespaces.iter().any(|n| n == "hbase_orm_it"));
                    break;
                }
                Err(e) => {
                    assert!(
                        back.elapsed() < Duration::from_secs(120),
                        "admin calls did not recover: {e}"
                    );
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
            }
        }
    }
    println!(
        "master | admin calls answer again {:?} after the start",
        back.elapsed()
    );
    tokio::time::sleep(Duration::from_secs(2)).await;
    scene.end("master", Failures::None).await;
}
