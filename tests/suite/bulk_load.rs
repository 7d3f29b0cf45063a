//! Bulk load through the native backend into the local HBase: puts written as HFiles (the
//! families' compression and bloom filters), taken by the regions of a split table, read back
//! through the native backend, the Thrift2 gateway and HBase's own Java client (after a major
//! compaction), newer loads over older ones, a region split after the load; and the loads
//! refused before any file is written.

use futures::TryStreamExt;
use hbase_orm::{
    BulkLoadOptions, Client, ColumnFamily, Compression, Config, Error, Get, Put, Row, Scan,
};
use hbase_orm_suite::java::{zk_quorum, JavaProgram};
use hbase_orm_suite::{client, connect_with, native_url, with_table};

async fn native() -> Client {
    connect_with(Config::from_url(&native_url()).expect("a valid hbase:// URL")).await
}

/// Order rows `o-00000` .. : a `d` family of four columns (strings of 6 to 36 bytes) and a
/// gzip family `g` of one.
fn puts(n: usize, version: &str) -> Vec<Put> {
    (0..n)
        .map(|i| {
            Put::new(format!("o-{i:05}"))
                .column_at(
                    "d",
                    "city",
                    1_000,
                    ["Oslo", "Trondheim", "Kristiansand"][i % 3],
                )
                .column_at(
                    "d",
                    "note",
                    1_000,
                    format!("{version}: ring {} times", i % 5),
                )
                .column_at("d", "status", 1_000, "SHIPPED")
                .column_at("d", "total", 1_000, format!("{}.{:02}", i * 7, i % 100))
                .column_at(
                    "g",
                    "blob",
                    1_000,
                    format!("{version} blob of order {i}").repeat(3),
                )
        })
        .collect()
}

fn families() -> Vec<ColumnFamily> {
    vec![
        ColumnFamily::new("d"),
        ColumnFamily::new("g").compression(Compression::Gz),
    ]
}

/// Splits at o-02500, o-05000, o-07500: four regions.
fn splits() -> Vec<Vec<u8>> {
    [2500, 5000, 7500]
        .iter()
        .map(|i| format!("o-{i:05}").into_bytes())
        .collect()
}

async fn rows(client: &Client, table: &hbase_orm::TableName) -> Vec<Row> {
    client
        .table_named(table.clone())
        .scan(Scan::new())
        .try_collect()
        .await
        .unwrap()
}

/// HBase's Java client (`tests/java/ReadBack.java`): a major compaction of `table`, waited for,
/// then every cell it reads, as `row family:qualifier timestamp value` lines.
fn java_read_back(table: &hbase_orm::TableName) -> Vec<String> {
    let java = JavaProgram::prepare("tests/java/ReadBack.java", "ReadBack");
    let args = [
        format!("table={table}"),
        format!("zk={}", zk_quorum(&native_url())),
        "compact=true".to_string(),
    ];
    let lines = java.run(&args, std::time::Duration::from_secs(300));
    assert!(
        lines.iter().any(|l| l.starts_with("compacted\t")),
        "{lines:?}"
    );
    lines
        .iter()
        .filter_map(|l| l.strip_prefix("cell\t"))
        .map(|l| l.replace('\t', " "))
        .collect()
}

/// Every row loaded reads back through the native backend and the Thrift2 gateway; a second
/// load of the same cells with new values wins over the first, also for HBase's Java client
/// after a major compaction; the rows outlive a split.
#[tokio::test]
async fn loaded_rows_read_back_and_a_later_load_wins() {
    let client = native().await;
    let gateway = client_of_gateway().await;
    let reader = client.clone();
    with_table(
        &client,
        "bulk_load",
        families(),
        &splits(),
        |t| async move {
            let client = reader;
            let report = t
                .bulk_load(puts(10_000, "first"), &BulkLoadOptions::new())
                .await
                .unwrap();
            assert_eq!(report.cells, 50_000);
            assert_eq!(report.regions, 4);
            assert_eq!(report.files, 8, "one file per region and family");
            for reader in [&client, &gateway] {
                let all = rows(reader, t.name()).await;
                assert_eq!(all.len(), 10_000);
                let row = &all[4321];
                assert_eq!(row.key, b"o-04321");
                assert_eq!(row.value("d", "note"), Some(&b"first: ring 1 times"[..]));
                assert_eq!(row.value("d", "total"), Some(&b"30247.21"[..]));
                assert_eq!(
                    row.value("g", "blob"),
                    Some("first blob of order 4321".repeat(3).as_bytes())
                );
            }

            // The same cells again, with other values: the later load is read.
            t.bulk_load(puts(10_000, "second"), &BulkLoadOptions::new())
                .await
                .unwrap();
            let row = t
                .get(Get::new("o-09999"))
                .await
                .unwrap()
                .expect("the row is there");
            assert_eq!(row.value("d", "note"), Some(&b"second: ring 4 times"[..]));

            // Two files in each store, compacted into one; then HBase's own client reads
            // every cell of the second load.
            let name = t.name().clone();
            let java = tokio::task::spawn_blocking(move || java_read_back(&name))
                .await
                .unwrap();
            let mut want: Vec<String> = puts(10_000, "second")
                .iter()
                .flat_map(|p| {
                    p.cells.iter().map(|c| {
                        format!(
                            "{} {}:{} {} {}",
                            String::from_utf8_lossy(&p.row),
                            String::from_utf8_lossy(&c.family),
                            String::from_utf8_lossy(&c.qualifier),
                            c.timestamp.unwrap_or_default(),
                            String::from_utf8_lossy(&c.value)
                        )
                    })
                })
                .collect();
            want.sort();
            let mut got = java;
            got.sort();
            assert_eq!(got.len(), want.len(), "cells the Java client read");
            assert!(
                got == want,
                "the Java client reads the cells of the second load"
            );

            // The loaded files are split with their region.
            client
                .admin()
                .split_region(t.name(), b"o-06000")
                .await
                .unwrap();
            let all = rows(&client, t.name()).await;
            assert_eq!(all.len(), 10_000);
            assert!(all
                .iter()
                .all(|r| r.value("d", "status") == Some(&b"SHIPPED"[..])));
        },
    )
    .await;
}

/// A load larger than its memory budget whose input comes out of row order after many chunks:
/// the regions' files written while it was in order are read back as the first run, the rest
/// sorted in runs spilled to the staging directory, all merged: every row once, a row given
/// twice (in different runs) with its later cells, the files and runs removed after.
#[tokio::test]
async fn a_load_over_its_memory_budget_spills_and_merges() {
    let client = native().await;
    let staging = std::env::temp_dir().join(format!("hbase-orm-bulk-spill-{}", std::process::id()));
    std::fs::create_dir_all(&staging).unwrap();
    let options = BulkLoadOptions::new()
        .staging_dir(&staging)
        .memory_budget(256 * 1024);
    let (reader, dir) = (client.clone(), staging.clone());
    with_table(
        &client,
        "bulk_spill",
        families(),
        &splits(),
        |t| async move {
            let (client, staging) = (reader, dir);
            // Every row, then rows 0, 3, 6, ... again with newer values: thousands of puts later,
            // so in other runs.
            let mut all = puts(10_000, "first");
            all.extend(puts(10_000, "again").into_iter().step_by(3));
            let stream = futures::stream::iter(all.into_iter().map(Ok));
            let report = t.bulk_load_stream(stream, &options).await.unwrap();
            assert_eq!(report.cells, 50_000);
            assert_eq!(report.regions, 4);
            assert!(report.spilled_runs > 2, "{report:?}");
            assert_eq!(report.written_as_read, 0, "out of order: {report:?}");
            let rows = rows(&client, t.name()).await;
            assert_eq!(rows.len(), 10_000);
            for (i, row) in rows.iter().enumerate() {
                let version = if i % 3 == 0 { "again" } else { "first" };
                let note = format!("{version}: ring {} times", i % 5);
                assert_eq!(row.value("d", "note"), Some(note.as_bytes()), "row {i}");
            }
            let left: Vec<_> = std::fs::read_dir(&staging).unwrap().collect();
            assert!(left.is_empty(), "staging left: {left:?}");
        },
    )
    .await;
    std::fs::remove_dir(&staging).unwrap();
}

/// A stream in row order over its memory budget is written into the regions' files as it
/// arrives (no run spilled): with a region split after the first region took its files (so
/// the last regions' files, cut at the boundaries of the load's start, come to it after), the
/// split region's files are read back and its rows written at the new boundaries; every row
/// loaded once, the staging directory empty after.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ordered_stream_is_written_as_it_arrives_and_a_split_region_again_from_its_files() {
    let client = native().await;
    let staging =
        std::env::temp_dir().join(format!("hbase-orm-bulk-through-{}", std::process::id()));
    std::fs::create_dir_all(&staging).unwrap();
    // Twelve regions: more than a load hands over at once (8).
    let twelve: Vec<Vec<u8>> = (1..12)
        .map(|i| format!("o-{:05}", i * 800).into_bytes())
        .collect();
    // A client of its own for the split: the load's task, blocked in the callback meanwhile,
    // may hold the read side of the load's connections.
    let admin = native().await;
    let (reader, dir) = (client.clone(), staging.clone());
    with_table(
        &client,
        "bulk_through",
        families(),
        &twelve,
        |t| async move {
            let (client, staging) = (reader, dir);
            let split = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            let (name, done) = (t.name().clone(), split.clone());
            let options = BulkLoadOptions::new()
                .staging_dir(&staging)
                .memory_budget(256 * 1024)
                .on_progress(move |so_far| {
                    let first = so_far.regions == 1;
                    if !first || done.swap(true, std::sync::atomic::Ordering::SeqCst) {
                        return;
                    }
                    let (admin, name) = (admin.clone(), name.clone());
                    tokio::task::block_in_place(move || {
                        tokio::runtime::Handle::current().block_on(async move {
                            hbase_orm_suite::split_and_wait(&admin, &name, b"o-09600").await
                        })
                    });
                });
            let stream = futures::stream::iter(puts(10_000, "first").into_iter().map(Ok));
            let report = t.bulk_load_stream(stream, &options).await.unwrap();
            assert!(split.load(std::sync::atomic::Ordering::SeqCst), "split");
            assert_eq!((report.rows, report.cells), (10_000, 50_000), "{report:?}");
            assert_eq!(report.spilled_runs, 0, "{report:?}");
            assert!(report.rewritten >= 1, "the split region again: {report:?}");
            // The first round's files were written as the stream came, the split region's
            // again from them.
            assert!(report.written_as_read >= 11, "{report:?}");
            assert_eq!(report.written_as_read + report.rewritten, report.files);
            assert!(report.regions > 12, "{report:?}");
            let rows = rows(&client, t.name()).await;
            assert_eq!(rows.len(), 10_000);
            for (i, row) in rows.iter().enumerate() {
                assert_eq!(row.key, format!("o-{i:05}").into_bytes());
                let note = format!("first: ring {} times", i % 5);
                assert_eq!(row.value("d", "note"), Some(note.as_bytes()), "row {i}");
                let blob = format!("first blob of order {i}").repeat(3);
                assert_eq!(row.value("g", "blob"), Some(blob.as_bytes()), "row {i}");
            }
            let left: Vec<_> = std::fs::read_dir(&staging).unwrap().collect();
            assert!(left.is_empty(), "staging left: {left:?}");
        },
    )
    .await;
    std::fs::remove_dir(&staging).unwrap();
}

/// What a killed load leaves (its directory, named after a process that is gone, with a sorted
/// run, its unheld lock and the token of the servers' staging directory) is removed by the next
/// cleanup: the directory here, and the servers' directory by the region server. A token that
/// names anything but a directory beside the servers' staging directories is not sent.
#[tokio::test]
async fn a_killed_load_s_leftovers_are_removed() {
    let client = native().await;
    let staging =
        std::env::temp_dir().join(format!("hbase-orm-bulk-leftover-{}", std::process::id()));
    let options = BulkLoadOptions::new().staging_dir(&staging);
    let dir_of = staging.clone();
    with_table(&client, "bulk_leftover", families(), &[], |t| async move {
        let staging = dir_of;
        // The standalone HBase shares this filesystem: a directory beside its staging
        // directories stands for the killed load's, and one elsewhere for what a planted token
        // might name.
        let servers = hbase_orm_suite::hbase_root_dir()
            .join("staging")
            .join(format!("leftover-test-{}", std::process::id()));
        let elsewhere = staging.join("not-staging");
        for dir in [&servers, &elsewhere] {
            std::fs::create_dir_all(dir.join("d")).unwrap();
            std::fs::write(dir.join("d").join("f"), b"staged").unwrap();
        }
        let gone = u32::MAX - 1;
        let name = t.name();
        let killed = |n: u32, token: &std::path::Path| {
            let dir = staging.join(format!(
                "hbase-orm-bulk@{}@{}@{gone}@{n}",
                name.namespace, name.name
            ));
            std::fs::create_dir_all(dir.join("runs")).unwrap();
            std::fs::write(dir.join("runs").join("run-00000"), b"sorted").unwrap();
            std::fs::write(dir.join("lock"), b"").unwrap();
            std::fs::write(dir.join("token"), format!("file:{}", token.display())).unwrap();
            dir
        };
        let (killed, planted) = (killed(1, &servers), killed(2, &elsewhere));
        let removed = t.bulk_load_cleanup(&options).await.unwrap();
        assert_eq!(removed, 2);
        assert!(
            !killed.exists() && !planted.exists(),
            "the directories are removed"
        );
        assert!(
            !servers.exists(),
            "the region server removed its staging directory"
        );
        assert!(
            elsewhere.exists(),
            "a token naming another directory was not sent"
        );
        assert_eq!(t.bulk_load_cleanup(&options).await.unwrap(), 0);
    })
    .await;
    std::fs::remove_dir_all(&staging).unwrap();
}

async fn client_of_gateway() -> Client {
    client().await
}

/// Refused before any file is written: a gateway (no bulk-load call), a family the table
/// lacks, a put with a TTL. Nothing is left in the staging directory.
#[tokio::test]
async fn loads_that_cannot_work_are_refused_before_any_file() {
    let client = native().await;
    let gateway = client_of_gateway().await;
    let staging = std::env::temp_dir().join(format!("hbase-orm-bulk-test-{}", std::process::id()));
    std::fs::create_dir_all(&staging).unwrap();
    let options = BulkLoadOptions::new().staging_dir(&staging);
    let (reader, dir) = (client.clone(), staging.clone());
    with_table(&client, "bulk_refused", families(), &[], |t| async move {
        let (client, staging) = (reader, dir);
        let on_gateway = gateway.table_named(t.name().clone());
        // Named after the call made, not the first RPC of a load.
        let err = on_gateway.bulk_load(puts(10, "x"), &options).await.unwrap_err();
        assert!(
            matches!(&err, Error::Unsupported { operation, .. } if operation == "bulk_load"),
            "{err}"
        );
        let stream = futures::stream::iter(puts(10, "x").into_iter().map(Ok));
        let err = on_gateway.bulk_load_stream(stream, &options).await.unwrap_err();
        assert!(
            matches!(&err, Error::Unsupported { operation, .. } if operation == "bulk_load_stream"),
            "{err}"
        );
        let err = on_gateway.bulk_load_cleanup(&options).await.unwrap_err();
        assert!(
            matches!(&err, Error::Unsupported { operation, .. } if operation == "bulk_load_cleanup"),
            "{err}"
        );

        let mut bad = puts(10, "x");
        bad[3] = bad[3].clone().column("nope", "q", "v");
        let err = t.bulk_load(bad, &options).await.unwrap_err();
        assert!(
            matches!(&err, Error::IllegalArgument { message } if message.contains("no family nope")),
            "{err}"
        );

        let mut ttl = puts(10, "x");
        ttl[0] = ttl[0].clone().ttl(std::time::Duration::from_secs(60));
        let err = t.bulk_load(ttl, &options).await.unwrap_err();
        assert!(matches!(err, Error::IllegalArgument { .. }), "{err}");

        assert!(rows(&client, t.name()).await.is_empty(), "nothing loaded");
        let left: Vec<_> = std::fs::read_dir(&staging).unwrap().collect();
        assert!(left.is_empty(), "staging left: {left:?}");
    })
    .await;
    std::fs::remove_dir(&staging).unwrap();
}

/// A shipment with an index by city, an optional note and a counter.
#[derive(hbase_orm::HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    namespace = "hbase_orm_it",
    table = "bulk_shipments",
    family = "d",
    key_delimiter = '\0',
    index(name = "by_city", parts = "city, id")
)]
struct Shipment {
    #[hbase(key)]
    id: u64,
    city: String,
    total: i64,
    note: Option<String>,
    #[hbase(counter)]
    views: i64,
}

fn shipment(id: u64) -> Shipment {
    Shipment {
        id,
        city: ["Oslo", "Lima", "Pune"][(id % 3) as usize].to_string(),
        total: id as i64 * 10,
        note: (!id.is_multiple_of(4)).then(|| format!("leave shipment {id} at the door")),
        views: id as i64 % 7,
    }
}

/// The shipments the index finds in `city`.
async fn in_city(shipments: &hbase_orm::Repository<Shipment>, city: &str) -> Vec<Shipment> {
    shipments
        .index::<ShipmentByCity>()
        .prefix(ShipmentByCityKey::prefix_by_city(&city.to_string()).unwrap())
        .stream()
        .try_collect()
        .await
        .unwrap()
}

/// Entities bulk-loaded with their index rows: each reads back equal (counters included), and
/// the index finds them.
#[tokio::test]
async fn entities_load_with_their_index_rows() {
    let client = native().await;
    let tables =
        hbase_orm_suite::TestTable::ensure_entity::<Shipment>(&client, "bulk_shipments").await;
    let name = tables[0].name.clone();
    let shipments = client.repository::<Shipment>().on_table(name);
    let values: Vec<Shipment> = (0..3000).map(shipment).collect();
    let report = shipments
        .bulk_load(&values, &BulkLoadOptions::new())
        .await
        .unwrap();
    assert_eq!(report.regions, 2, "the data table and the index table");
    for id in [0, 1, 1234, 2999] {
        let got = shipments.get(&ShipmentKey { id }).await.unwrap();
        assert_eq!(got, Some(shipment(id)));
    }
    let in_lima = in_city(&shipments, "Lima").await;
    assert_eq!(in_lima.len(), 1000);
    assert!(in_lima
        .iter()
        .all(|s| s.city == "Lima" && *s == shipment(s.id)));
}

/// Entities streamed into a load over its memory budget, in a task of its own: their data rows
/// and index rows are sorted in spilled runs, read back equal (counters included) and found by
/// the index; the progress callback saw the values read, then the tables loaded added up; the
/// staging directory is left empty.
#[tokio::test]
async fn a_stream_of_entities_over_its_budget_spills_and_loads_with_its_index() {
    let client = native().await;
    let tables =
        hbase_orm_suite::TestTable::ensure_entity::<Shipment>(&client, "bulk_stream_shipments")
            .await;
    let shipments = client
        .repository::<Shipment>()
        .on_table(tables[0].name.clone());
    let staging =
        std::env::temp_dir().join(format!("hbase-orm-bulk-stream-{}", std::process::id()));
    std::fs::create_dir_all(&staging).unwrap();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let told = seen.clone();
    let options = BulkLoadOptions::new()
        .staging_dir(&staging)
        .memory_budget(512 * 1024)
        .on_progress(move |so_far| told.lock().unwrap().push(so_far.clone()));
    let n = 140_000u64;
    // Made as the load reads them, never all in memory; the load runs as a task of its own
    // (its future is `Send`; with the feature `hdfs` it is not yet, so it is awaited here).
    let values = futures::stream::iter((0..n).map(|id| Ok(shipment(id))));
    let loader = shipments.clone();
    let load = async move { loader.bulk_load_stream(values, &options).await };
    #[cfg(not(feature = "hdfs"))]
    let report = tokio::spawn(load).await.unwrap().unwrap();
    #[cfg(feature = "hdfs")]
    let report = load.await.unwrap();
    assert_eq!(report.read, n);
    assert_eq!(report.rows, 2 * n, "a data row and an index row per value");
    assert!(report.spilled_runs > 2, "{report:?}");
    // The data rows come in row order (ids counted up): written as read; the index rows (by
    // city) do not: sorted and merged.
    assert!(
        report.written_as_read > 0 && report.written_as_read < report.files,
        "{report:?}"
    );
    let seen = seen.lock().unwrap().clone();
    let reading: Vec<u64> = seen
        .iter()
        .filter(|r| r.rows == 0)
        .map(|r| r.read)
        .collect();
    assert_eq!(reading, [65_536, 131_072], "told every 65,536 values read");
    let last = seen.last().unwrap();
    assert_eq!((last.read, last.rows), (n, 2 * n), "{last:?}");
    assert!(seen.windows(2).all(|w| w[0].rows <= w[1].rows));

    for id in [0, 1, 65_536, 99_999, n - 1] {
        let got = shipments.get(&ShipmentKey { id }).await.unwrap();
        assert_eq!(got, Some(shipment(id)));
    }
    let in_pune = in_city(&shipments, "Pune").await;
    assert_eq!(in_pune.len() as u64, n / 3);
    assert!(in_pune.iter().all(|s| *s == shipment(s.id)));
    let left: Vec<_> = std::fs::read_dir(&staging).unwrap().collect();
    assert!(left.is_empty(), "staging left: {left:?}");
    std::fs::remove_dir(&staging).unwrap();
}

/// A profile whose cells a save writes out of HBase's order (a wide map declared before a
/// field of an earlier family), and one with only `Option` fields (its marker cell comes last).
#[derive(hbase_orm::HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "hbase_orm_it", table = "bulk_profiles", family = "d")]
struct Profile {
    #[hbase(key)]
    id: u64,
    #[hbase(family = "t", wide)]
    tags: std::collections::BTreeMap<String, String>,
    name: String,
}

#[derive(hbase_orm::HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "hbase_orm_it", table = "bulk_notes", family = "d")]
struct Note {
    #[hbase(key)]
    id: u64,
    text: Option<String>,
}

/// Entities whose cells come out of order, sorted before they are written: each reads back
/// equal.
#[tokio::test]
async fn entities_whose_cells_need_sorting_load_too() {
    let client = native().await;
    let profiles =
        hbase_orm_suite::TestTable::ensure_entity::<Profile>(&client, "bulk_profiles").await;
    let profiles = client
        .repository::<Profile>()
        .on_table(profiles[0].name.clone());
    let profile = |id: u64| Profile {
        id,
        tags: (0..id % 4)
            .map(|t| (format!("tag{t}"), format!("{id}-{t}")))
            .collect(),
        name: format!("profile {id}"),
    };
    let stream = futures::stream::iter((0..500).map(|id| Ok(profile(id))));
    let report = profiles
        .bulk_load_stream(stream, &BulkLoadOptions::new())
        .await
        .unwrap();
    assert_eq!(report.read, 500);
    for id in [0, 3, 498, 499] {
        let got = profiles.get(&ProfileKey { id }).await.unwrap();
        assert_eq!(got, Some(profile(id)));
    }
    let notes = hbase_orm_suite::TestTable::ensure_entity::<Note>(&client, "bulk_notes").await;
    let notes = client.repository::<Note>().on_table(notes[0].name.clone());
    let note = |id: u64| Note {
        id,
        text: id.is_multiple_of(2).then(|| format!("note {id}")),
    };
    let values: Vec<Note> = (0..300).map(note).collect();
    notes
        .bulk_load(&values, &BulkLoadOptions::new())
        .await
        .unwrap();
    for id in [0, 1, 299] {
        assert_eq!(notes.get(&NoteKey { id }).await.unwrap(), Some(note(id)));
    }
}

/// An entity load where there is no bulk load (a gateway, the in-memory store) is refused,
/// named after the call made, before any value is read.
#[tokio::test]
async fn entity_loads_are_refused_where_there_is_no_bulk_load() {
    for client in [client_of_gateway().await, Client::in_memory()] {
        let shipments = client.repository::<Shipment>();
        let err = shipments
            .bulk_load(&[shipment(1)], &BulkLoadOptions::new())
            .await
            .unwrap_err();
        assert!(
            matches!(&err, Error::Unsupported { operation, .. } if operation == "bulk_load"),
            "{err}"
        );
        let never =
            futures::stream::iter((0..1).map(|_| -> hbase_orm::Result<Shipment> {
                panic!("a refused load reads no value")
            }));
        let err = shipments
            .bulk_load_stream(never, &BulkLoadOptions::new())
            .await
            .unwrap_err();
        assert!(
            matches!(&err, Error::Unsupported { operation, .. } if operation == "bulk_load_stream"),
            "{err}"
        );
    }
}

/// A load whose index table is missing fails before any data file is taken: the index tables
/// are loaded first, so that no loaded entity is missing from its index.
#[tokio::test]
async fn a_load_whose_index_table_is_missing_loads_no_entity() {
    let client = native().await;
    let guard = hbase_orm_suite::TestTable::for_entity::<Shipment>(&client, "bulk_no_index").await;
    let shipments = client.repository::<Shipment>().on_table(guard.name.clone());
    let values: Vec<Shipment> = (0..100).map(shipment).collect();
    let err = shipments
        .bulk_load(&values, &BulkLoadOptions::new())
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("by_city"),
        "the error names the index table: {text}"
    );
    let loaded = rows(&client, &guard.name).await;
    assert!(loaded.is_empty(), "{} data rows were loaded", loaded.len());
}
