//! Region replicas on the local cluster of three region servers (`hbase-local/hbase.sh up
//! --cluster`, whose HBase keeps secondary replicas current): a table of 12 regions with
//! region replication 3, read by two loops at once, gets and short scans with timeline
//! consistency in one and strong consistency in the other, while a writer saves rows, and
//! `kill -9` takes down a region server holding primaries of the table (not the one holding
//! `hbase:meta`, whose loss stops every client until HBase has moved it).
//!
//!     hbase-local/hbase.sh up --cluster && cargo test --features cluster --test cluster_replicas
//!
//! It prints each loop's longest stall (the longest time between two reads answered) and its
//! share of stale answers. The timeline loop must go on within seconds of the kill, where the
//! strong one waits until HBase has reassigned the dead server's regions; no strong read may
//! be stale; every acknowledged write must be there afterwards.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::TryStreamExt;
use hbase_orm::{Client, ColumnFamily, Config, Consistency, Get, Put, Scan, TableDescriptor};
use hbase_orm_suite::cluster::{launch, launcher_name, StartAgain};
use hbase_orm_suite::TestTable;
use hbase_orm_suite::{connect_with, ensure_test_namespace, native_url, unique_table_name};

const REGIONS: usize = 12;
const ROWS_PER_REGION: usize = 500;
/// Each region's copies: the primary and two secondaries, one on each server.
const REPLICATION: u32 = 3;

fn row_key(i: usize) -> String {
    format!("r{:02}-{:05}", i / ROWS_PER_REGION, i)
}

async fn native() -> Client {
    connect_with(Config::from_url(&native_url()).unwrap()).await
}

/// What a read loop saw.
#[derive(Debug, Default)]
struct Reads {
    answered: u64,
    stale: u64,
    failed: u64,
    /// The longest time between two answered reads (or from the start to the first).
    longest_stall: Duration,
    /// When it began.
    stall_began: Option<Duration>,
    last_error: Option<String>,
}

/// Reads with `consistency` until `stop`: a get of one of the table's first rows, then a scan
/// of ten rows from one, in turns; counts what came and how long nothing did.
async fn read_loop(
    client: Client,
    table: hbase_orm::TableName,
    consistency: Consistency,
    stop: Arc<AtomicBool>,
    started: Instant,
) -> Reads {
    let table = client.table_named(table);
    let mut reads = Reads::default();
    let mut last_answer = Instant::now();
    let mut n = 0usize;
    while !stop.load(Ordering::Relaxed) {
        n += 1;
        // Rows spread over every region.
        let i = (n * 7919) % (REGIONS * ROWS_PER_REGION);
        // Whether the answer was stale.
        let outcome = if n.is_multiple_of(2) {
            let get = Get::new(row_key(i)).consistency(consistency);
            table.get(get).await.map(|row| match row {
                Some(row) => {
                    assert_eq!(row.key, row_key(i).as_bytes());
                    row.is_stale()
                }
                // Only a secondary that has not had the row yet can answer without it.
                None => {
                    assert_eq!(consistency, Consistency::Timeline, "{} missing", row_key(i));
                    true
                }
            })
        } else {
            let scan = Scan::new()
                .start(row_key(i))
                .limit(10)
                .consistency(consistency);
            let rows = table.scan(scan).try_collect::<Vec<_>>().await;
            rows.map(|rows| rows.iter().any(|r| r.is_stale()))
        };
        match outcome {
            Ok(stale) => {
                let now = Instant::now();
                let gap = now - last_answer;
                if gap > reads.longest_stall {
                    reads.longest_stall = gap;
                    reads.stall_began = Some(last_answer - started);
                }
                last_answer = now;
                reads.answered += 1;
                reads.stale += u64::from(stale);
            }
            Err(e) => {
                reads.failed += 1;
                reads.last_error = Some(e.to_string());
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
    }
    reads
}

/// Saves rows `w<n>` until `stop`; the keys acknowledged.
async fn write_loop(
    client: Client,
    table: hbase_orm::TableName,
    stop: Arc<AtomicBool>,
) -> Vec<String> {
    let table = client.table_named(table);
    let mut acked = Vec::new();
    let mut n = 0u64;
    while !stop.load(Ordering::Relaxed) {
        n += 1;
        // Spread over the regions: the key starts as the loaded rows' do.
        let key = format!("r{:02}-w{n:06}", n % REGIONS as u64);
        match table
            .put(Put::new(key.as_str()).column("d", "v", key.as_str()))
            .await
        {
            Ok(()) => acked.push(key),
            Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
    acked
}

/// Waits until every region of `table` has its secondaries on servers (meta's
/// `info:server_000N`); the number of regions.
async fn wait_for_replicas(client: &Client, table: &hbase_orm::TableName) {
    let meta = client.table_named(hbase_orm::TableName::new("hbase", "meta"));
    let prefix = format!("{}:{},", table.namespace, table.name);
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        // The whole of meta, the table's rows picked here (meta orders its keys by table,
        // start key and region id, not byte by byte: a prefix scan would miss some).
        let rows: Vec<_> = meta.scan(Scan::new()).try_collect().await.unwrap();
        let rows: Vec<_> = rows
            .into_iter()
            .filter(|r| r.key.starts_with(prefix.as_bytes()))
            .collect();
        let placed = rows
            .iter()
            .filter(|r| {
                (1..REPLICATION).all(|id| {
                    let column = format!("server_{id:04X}");
                    r.value("info", column.as_str())
                        .is_some_and(|s| !s.is_empty())
                })
            })
            .count();
        if rows.len() == REGIONS && placed == REGIONS {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{placed} of {} regions have their {} secondaries placed after 120 s",
            rows.len(),
            REPLICATION - 1
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeline_reads_go_on_when_a_server_holding_primaries_dies() {
    let admin = native().await;
    ensure_test_namespace(&admin).await;
    let servers = admin.admin().region_servers().await.unwrap();
    assert!(
        servers.len() >= 3,
        "this test needs the cluster (hbase-local/hbase.sh up --cluster), found {servers:?}"
    );
    let name = unique_table_name("replicas");
    let splits: Vec<Vec<u8>> = (1..REGIONS)
        .map(|r| format!("r{r:02}").into_bytes())
        .collect();
    let descriptor = TableDescriptor::new(name.clone())
        .family(ColumnFamily::new("d"))
        .region_replication(REPLICATION);
    admin
        .admin()
        .create_table(&descriptor, &splits)
        .await
        .unwrap();
    let _dropped = TestTable::adopt(&admin, name.clone());
    wait_for_replicas(&admin, &name).await;
    let table = admin.table_named(name.clone());
    let puts: Vec<Put> = (0..REGIONS * ROWS_PER_REGION)
        .map(|i| Put::new(row_key(i)).column("d", "v", format!("value of {}", row_key(i))))
        .collect();
    for chunk in puts.chunks(1000) {
        table.put_many(chunk.to_vec()).await.unwrap();
    }
    // The secondaries get the edits through region replica replication.
    tokio::time::sleep(Duration::from_secs(3)).await;

    // The victim: the server with the most primaries of the table that does not hold meta.
    let meta_holder = admin
        .admin()
        .region_locations(&hbase_orm::TableName::new("hbase", "meta"))
        .await
        .unwrap()
        .into_iter()
        .map(|l| format!("{}:{}", l.host, l.port.unwrap_or(16020)))
        .next()
        .unwrap();
    let mut primaries: Vec<(usize, String)> = Vec::new();
    for l in admin.admin().region_locations(&name).await.unwrap() {
        let server = format!("{}:{}", l.host, l.port.unwrap_or(16020));
        match primaries.iter_mut().find(|(_, s)| *s == server) {
            Some((n, _)) => *n += 1,
            None => primaries.push((1, server)),
        }
    }
    primaries.retain(|(_, s)| *s != meta_holder);
    primaries.sort();
    let (held, victim) = primaries
        .pop()
        .expect("a server with primaries that is not meta's");

    let stop = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let timeline = tokio::spawn(read_loop(
        native().await,
        name.clone(),
        Consistency::Timeline,
        stop.clone(),
        started,
    ));
    let strong = tokio::spawn(read_loop(
        native().await,
        name.clone(),
        Consistency::Strong,
        stop.clone(),
        started,
    ));
    let writer = tokio::spawn(write_loop(native().await, name.clone(), stop.clone()));
    tokio::time::sleep(Duration::from_secs(3)).await;
    let launcher = launcher_name(&victim);
    println!(
        "kill -9 {launcher} ({victim}, {held} of the {REGIONS} primaries; meta on {meta_holder}) \
         at {:?}",
        started.elapsed()
    );
    launch(&["kill", &launcher]).await;
    let again = StartAgain::hbase(&launcher);
    // HBase notices (the ZooKeeper session of 10 s) and reassigns; then a while more.
    tokio::time::sleep(Duration::from_secs(25)).await;
    stop.store(true, Ordering::Relaxed);
    let timeline = timeline.await.unwrap();
    let strong = strong.await.unwrap();
    let acked = writer.await.unwrap();
    again.now().await;
    for (label, reads) in [("timeline", &timeline), ("strong", &strong)] {
        println!(
            "{label}: {} reads answered, {} stale ({:.1}%), {} failed; longest stall {:?} \
             (from {:?}); last error {:?}",
            reads.answered,
            reads.stale,
            100.0 * reads.stale as f64 / reads.answered.max(1) as f64,
            reads.failed,
            reads.longest_stall,
            reads.stall_began,
            reads.last_error
        );
    }
    assert_eq!(strong.stale, 0, "a strong read was answered by a secondary");
    assert!(timeline.stale > 0, "no timeline read went to a secondary");
    assert!(
        timeline.longest_stall < Duration::from_secs(5),
        "the timeline reads stalled {:?}: they waited for the reassignment",
        timeline.longest_stall
    );
    // Every acknowledged write is there (strong reads, after the reassignment).
    println!("{} writes acknowledged", acked.len());
    for chunk in acked.chunks(500) {
        let gets: Vec<Get> = chunk.iter().map(|k| Get::new(k.as_str())).collect();
        let found = table.get_many(gets).await.unwrap();
        assert!(
            found.iter().all(Option::is_some),
            "an acknowledged write is missing"
        );
    }
}
