//! Bulk loads on the local cluster that keeps its files in HDFS, as production clusters do
//! (`hbase-local/hbase.sh up --cluster 3 --hdfs`): the load's files are written into HDFS and
//! moved from there by the region servers.
//!
//!     hbase-local/hbase.sh up --cluster 3 --hdfs
//!     cargo test --features cluster --test cluster_bulk_load
//!
//! A region split in the middle of a load (from the progress callback, after the first region
//! took its files and before the last region's are sent; the load a stream in row order over
//! its memory budget, written into HDFS as it arrives, no run spilled): every row once, the
//! split region's files read back from HDFS and its rows written again at the new boundary.
//! A load whose
//! process is killed with `kill -9` after its first region took its files (the process is this
//! test binary run again, its test `a_load_tells_its_progress` loading into the killing test's
//! table): the table holds whole regions' rows or none, and a cleanup removes what the load
//! left here, in HDFS and in the servers' staging directory; a load after it leaves every row
//! once. What a killed load left in HDFS is removed only when it is the load's own.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use futures::TryStreamExt;
use hbase_orm::{BulkLoadOptions, BulkLoadReport, Client, ColumnFamily, Config, Put, Scan, Table};
use hbase_orm_suite::{connect_with, gateway_address, hdfs_url, native_url, TestTable};

/// Rows of the loaded table, in 12 regions of 1,000.
const ROWS: usize = 12_000;
const REGIONS: usize = 12;

fn key(i: usize) -> String {
    format!("order-{i:07}")
}

/// An order of eight columns, with strings of the lengths users' have.
fn order(i: usize) -> Put {
    Put::new(key(i))
        .column(
            "d",
            "customer",
            format!("customer-{:05}@example.com", i % 977),
        )
        .column("d", "status", ["NEW", "PAID", "SHIPPED"][i % 3])
        .column("d", "total", format!("{}.{:02}", i % 5000, i % 100))
        .column("d", "currency", "EUR")
        .column("d", "street", format!("{} Rue de la République", i % 300))
        .column("d", "city", "Lyon")
        .column("d", "note", "leave at the door if nobody answers")
        .column("d", "n", i.to_string())
}

async fn native() -> Client {
    connect_with(Config::from_url(&native_url()).unwrap()).await
}

/// A table of 12 regions of 1,000 rows each.
async fn twelve_regions(client: &Client, label: &str) -> TestTable {
    let splits: Vec<Vec<u8>> = (1..REGIONS)
        .map(|r| key(r * ROWS / REGIONS).into_bytes())
        .collect();
    TestTable::create(client, label, vec![ColumnFamily::new("d")], &splits).await
}

/// The names in the HDFS directory `dir` that contain `part`.
async fn hdfs_names(dir: &str, part: &str) -> Vec<String> {
    match hdfs_client().list_status(dir, false).await {
        Ok(list) => list
            .into_iter()
            .map(|s| s.path.rsplit('/').next().unwrap_or_default().to_string())
            .filter(|name| name.contains(part))
            .collect(),
        Err(hdfs_native::HdfsError::FileNotFound(_)) => Vec::new(),
        Err(e) => panic!("listing {dir} in HDFS at {}: {e}", hdfs_url()),
    }
}

fn hdfs_client() -> hdfs_native::Client {
    hdfs_native::ClientBuilder::new()
        .with_url(hdfs_url())
        .build()
        .expect("an HDFS client")
}

/// The names in the HDFS directory `/tmp` that start with `prefix`.
async fn hdfs_entries(prefix: &str) -> Vec<String> {
    let mut names = hdfs_names("/tmp", prefix).await;
    names.retain(|n| n.starts_with(prefix));
    names
}

fn load_prefix(table: &hbase_orm::TableName) -> String {
    format!("hbase-orm-bulk@{}@{}@", table.namespace, table.name)
}

/// Every row once, each cell as loaded.
async fn check_rows(table: &Table, label: &str) {
    let rows: Vec<_> = table
        .scan(Scan::new().caching(1000))
        .try_collect()
        .await
        .unwrap_or_else(|e| panic!("{label}: scan: {e}"));
    assert_eq!(rows.len(), ROWS, "{label}: every row once");
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row.key, key(i).into_bytes(), "{label}: rows in order");
        let want = order(i);
        assert_eq!(row.cells.len(), 8, "{label}: row {i}'s cells");
        for cell in &want.cells {
            assert_eq!(
                row.value(&cell.family, &cell.qualifier),
                Some(cell.value.as_ref()),
                "{label}: row {i}, column {}",
                String::from_utf8_lossy(&cell.qualifier)
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_region_split_in_the_middle_of_a_load_leaves_every_row_once() {
    let client = native().await;
    let guard = twelve_regions(&client, "cluster_bulk_split").await;
    let table = client.table_named(guard.name.clone());
    let prefix = load_prefix(&guard.name);

    // The last region, split at its middle once the first region took its files: the load
    // hands over eight regions at once, so the last region's files (cut at the boundaries of
    // before) are sent after the split.
    let split_at = key(ROWS - ROWS / REGIONS / 2);
    let split_done = Arc::new(AtomicBool::new(false));
    let staged_in_hdfs = Arc::new(Mutex::new(Vec::new()));
    // A client of its own: the load's task, blocked in the callback meanwhile, may hold the
    // read side of the load's connections (its calls' replies are read by whichever of its
    // calls holds it).
    let admin = native().await;
    let options = {
        let name = guard.name.clone();
        let (done, staged, prefix) = (split_done.clone(), staged_in_hdfs.clone(), prefix.clone());
        BulkLoadOptions::new().on_progress(move |so_far| {
            if so_far.regions != 1 || done.swap(true, Ordering::SeqCst) {
                return;
            }
            let (admin, name, at) = (admin.clone(), name.clone(), split_at.clone());
            let (staged, prefix) = (staged.clone(), prefix.clone());
            tokio::task::block_in_place(move || {
                tokio::runtime::Handle::current().block_on(async move {
                    *staged.lock().unwrap() = hdfs_entries(&prefix).await;
                    let took = hbase_orm_suite::split_and_wait(&admin, &name, at.as_bytes()).await;
                    println!("split the last region in {took:?}");
                })
            });
        })
    };
    let puts = futures::stream::iter((0..ROWS).map(|i| Ok(order(i))));
    let options = options.memory_budget(512 << 10);
    let report = table.bulk_load_stream(puts, &options).await.unwrap();
    println!("loaded with a split in the middle: {report:?}");
    assert!(split_done.load(Ordering::SeqCst), "the split was made");
    assert_eq!(report.spilled_runs, 0, "{report:?}");
    assert_eq!(report.rows, ROWS as u64);
    assert_eq!(report.cells, 8 * ROWS as u64);
    assert!(
        report.rewritten >= 1,
        "the split region's rows were written again: {report:?}"
    );
    // The first round's files were written into HDFS as the stream (in row order) came.
    assert!(report.written_as_read > 0, "{report:?}");
    assert_eq!(report.written_as_read + report.rewritten, report.files);
    // Twelve regions took files in the first round, one of them again after the split (its
    // daughters: two).
    assert!(report.regions > REGIONS as u64, "{report:?}");

    let staged = staged_in_hdfs.lock().unwrap().clone();
    assert_eq!(
        staged.len(),
        1,
        "the load's files went through its directory in HDFS /tmp: {staged:?}"
    );
    assert_eq!(
        hdfs_entries(&prefix).await,
        Vec::<String>::new(),
        "the load's directory in HDFS is removed"
    );
    check_rows(&table, "native").await;
    let thrift2 = connect_with(Config {
        address: gateway_address(),
        ..Config::default()
    })
    .await;
    check_rows(&thrift2.table_named(guard.name.clone()), "thrift2").await;
}

/// A killed load's directory in HDFS (named like its local directory, whose file `remote` has
/// its URL) is removed with the local one by the next cleanup; a remote directory of another
/// name is not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_load_s_files_in_hdfs_are_removed() {
    let client = native().await;
    let guard = TestTable::create(
        &client,
        "cluster_bulk_leftover",
        vec![ColumnFamily::new("d")],
        &[],
    )
    .await;
    let table = client.table_named(guard.name.clone());
    let staging = std::env::temp_dir().join(format!(
        "hbase-orm-bulk-hdfs-leftover-{}",
        std::process::id()
    ));
    let options = BulkLoadOptions::new().staging_dir(&staging);
    let hdfs = hdfs_client();
    let gone = u32::MAX - 1;
    let prefix = load_prefix(&guard.name);
    let killed = format!("{prefix}{gone}@1");
    let other = format!("{prefix}{gone}@2-not-its-own");
    for name in [&killed, &other] {
        let mut file = hdfs
            .create(
                &format!("/tmp/{name}/d/0123456789abcdef0123456789abcdef"),
                hdfs_native::WriteOptions::default(),
            )
            .await
            .unwrap();
        file.write_bytes(bytes::Bytes::from_static(b"staged"))
            .await
            .unwrap();
        file.close().await.unwrap();
    }
    let local = |name: &str, remote: &str| {
        let dir = staging.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("lock"), b"").unwrap();
        std::fs::write(dir.join("remote"), format!("{}/tmp/{remote}", hdfs_url())).unwrap();
        dir
    };
    let killed_dir = local(&killed, &killed);
    // A local directory whose `remote` names a directory of another name.
    let planted_dir = local(&format!("{prefix}{gone}@3"), &other);
    assert_eq!(table.bulk_load_cleanup(&options).await.unwrap(), 2);
    assert!(!killed_dir.exists() && !planted_dir.exists());
    assert_eq!(
        hdfs_entries(&prefix).await,
        vec![other.clone()],
        "the killed load's directory in HDFS is removed, the other one stays"
    );
    hdfs.delete(&format!("/tmp/{other}"), true).await.unwrap();
    std::fs::remove_dir_all(&staging).unwrap();
}

/// Run by `a_killed_load_leaves_whole_regions_and_a_cleanup_takes_the_rest` (which sets
/// `HBASE_ORM_LOAD_INTO` and `HBASE_ORM_LOAD_STAGING`): loads into its table, printing each
/// region taken and pausing after it, and is killed. Alone: loads into a fresh table. Either
/// way the progress callback is called once per region, its figures growing to the report's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_load_tells_its_progress() {
    let client = native().await;
    let run_by_killer = std::env::var("HBASE_ORM_LOAD_INTO").ok();
    let (name, _guard) = match &run_by_killer {
        Some(name) => {
            let (namespace, table) = name.split_once(':').expect("namespace:table");
            (hbase_orm::TableName::new(namespace, table), None)
        }
        None => {
            let guard = twelve_regions(&client, "cluster_bulk_progress").await;
            (guard.name.clone(), Some(guard))
        }
    };
    let table = client.table_named(name);
    let seen: Arc<Mutex<Vec<BulkLoadReport>>> = Arc::default();
    let mut options = BulkLoadOptions::new().on_progress({
        let (seen, paused) = (seen.clone(), run_by_killer.is_some());
        move |so_far| {
            seen.lock().unwrap().push(so_far.clone());
            println!("bulk-load-progress regions={}", so_far.regions);
            if paused {
                // Long enough for the killer to see the line and kill this process.
                std::thread::sleep(Duration::from_secs(5));
            }
        }
    });
    if let Ok(dir) = std::env::var("HBASE_ORM_LOAD_STAGING") {
        options = options.staging_dir(dir);
    }
    let report = table
        .bulk_load((0..ROWS).map(order).collect(), &options)
        .await
        .unwrap();
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), REGIONS, "one call per region: {seen:?}");
    assert!(seen.windows(2).all(|w| w[0].rows < w[1].rows));
    assert_eq!(seen.last(), Some(&report));
    check_rows(&table, "after a load").await;
}

/// Rows per region of `table`, in region order.
async fn rows_per_region(client: &Client, table: &Table) -> Vec<usize> {
    let mut starts: Vec<Vec<u8>> = client
        .admin()
        .region_locations(table.name())
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.start_key)
        .collect();
    starts.sort();
    let rows: Vec<_> = table
        .scan(Scan::new().caching(1000).filter("FirstKeyOnlyFilter()"))
        .try_collect()
        .await
        .unwrap();
    let mut counts = vec![0; starts.len()];
    for row in rows {
        counts[starts.partition_point(|s| *s <= row.key) - 1] += 1;
    }
    counts
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_load_leaves_whole_regions_and_a_cleanup_takes_the_rest() {
    let client = native().await;
    let guard = twelve_regions(&client, "cluster_bulk_killed").await;
    let table = client.table_named(guard.name.clone());
    let staging =
        std::env::temp_dir().join(format!("hbase-orm-bulk-killed-{}", std::process::id()));
    std::fs::create_dir_all(&staging).unwrap();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "a_load_tells_its_progress", "--nocapture"])
        .env("HBASE_ORM_LOAD_INTO", guard.name.to_string())
        .env("HBASE_ORM_LOAD_STAGING", &staging)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let first_region = tokio::task::spawn_blocking(move || {
        BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .any(|l| l.starts_with("bulk-load-progress regions=1"))
    });
    let taken = tokio::time::timeout(Duration::from_secs(120), first_region)
        .await
        .expect("the load took its first region in 120 s")
        .unwrap();
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert!(
        taken,
        "the load reported a region taken before it ended ({status})"
    );

    let counts = rows_per_region(&client, &table).await;
    println!("rows per region after the kill: {counts:?}");
    assert!(
        counts.iter().all(|&n| n == 0 || n == ROWS / REGIONS),
        "whole regions or none: {counts:?}"
    );
    assert!(counts.contains(&(ROWS / REGIONS)), "{counts:?}");
    assert!(counts.contains(&0), "killed half way: {counts:?}");

    // What it left: its directory here, its directory in HDFS, the servers' staging directory.
    let prefix = load_prefix(&guard.name);
    let servers_part = format!("__{}_{}__", guard.name.namespace, guard.name.name);
    let local_left = || {
        std::fs::read_dir(&staging)
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .is_ok_and(|e| e.file_name().to_string_lossy().starts_with(&prefix))
            })
            .count()
    };
    assert_eq!(local_left(), 1, "the killed load's directory is here");
    assert_eq!(hdfs_entries(&prefix).await.len(), 1, "and in HDFS");
    assert_eq!(
        hdfs_names("/hbase/staging", &servers_part).await.len(),
        1,
        "and in the servers' staging directory"
    );
    let options = BulkLoadOptions::new().staging_dir(&staging);
    assert_eq!(table.bulk_load_cleanup(&options).await.unwrap(), 1);
    assert_eq!(local_left(), 0);
    assert_eq!(hdfs_entries(&prefix).await, Vec::<String>::new());
    assert_eq!(
        hdfs_names("/hbase/staging", &servers_part).await,
        Vec::<String>::new()
    );

    // A load after it: every row once.
    let report = table
        .bulk_load((0..ROWS).map(order).collect(), &options)
        .await
        .unwrap();
    assert_eq!(report.rows, ROWS as u64);
    check_rows(&table, "after the killed load and another").await;
    std::fs::remove_dir_all(&staging).unwrap();
}
