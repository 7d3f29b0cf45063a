//! The client under gateway faults: the buffered Thrift2 gateway is restarted twice
//! (`hbase-local/hbase.sh restart thrift`) while several tasks save, read, count and scan.
//!
//! What must hold: every acknowledged write reads back; no idempotent call fails (they are
//! retried until the gateway is back; an entity's save, row mutations of a put and a column
//! delete, is one); the scan returns every row once, in order (it reopens
//! after the last row it returned); each counter ends at the acknowledged increments plus at
//! most one per increment that failed (an increment whose connection broke after it was sent
//! may or may not have been applied, so it is reported, never re-sent).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use hbase_orm::{ColumnFamily, HBaseEntity, Repository, Scan};
use hbase_orm_suite::load::{self, assert_acknowledged_are_there, counter, writer, Seen};
use hbase_orm_suite::{client, launcher, with_table};

/// Between two calls of each load task.
const PAUSE: Duration = Duration::from_millis(5);

/// Rows the long scan reads, a few at a time.
const SCAN_ROWS: usize = 600;

fn restart_gateway() {
    launcher(&["restart", "thrift"]);
}

/// An entity whose save is a put of its fields and a delete of its `None` one: row mutations
/// that end the same when sent twice, so a save is retried like a put.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "hbase_orm_it", table = "faults", family = "d")]
struct Saved {
    #[hbase(key)]
    id: String,
    v: String,
    note: Option<String>,
}

async fn saver(saved: Repository<Saved>, stop: Arc<AtomicBool>, seen: Arc<Mutex<Seen>>) {
    let mut n = 0;
    while !stop.load(Ordering::Relaxed) {
        let key = format!("e{n:05}");
        let value = Saved {
            id: key.clone(),
            v: format!("{key} saved through the repository"),
            note: None,
        };
        let started = Instant::now();
        let save = saved.save(&value).await;
        let read = match &save {
            Ok(()) => saved.get(&value.key()).await.map(|got| got == Some(value)),
            Err(_) => Ok(true),
        };
        {
            let mut s = seen.lock().unwrap();
            s.longest_stall = s.longest_stall.max(started.elapsed());
            match (save, read) {
                (Ok(()), Ok(true)) => s.acknowledged.push(key),
                (Ok(()), Ok(false)) => s.failed_idempotent.push(format!("{key}: read back wrong")),
                (Err(e), _) | (_, Err(e)) => s.failed_idempotent.push(format!("{key}: {e}")),
            }
        }
        n += 1;
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_gateway_restarts_lose_no_acknowledged_write_and_no_scanned_row() {
    let c = client().await;
    with_table(
        &c,
        "faults",
        vec![ColumnFamily::new("d")],
        &[],
        |t| async move {
            load::write_fixed_rows(&t, SCAN_ROWS).await;

            let stop = Arc::new(AtomicBool::new(false));
            let seen = Arc::new(Mutex::new(Seen::default()));
            let mut load = Vec::new();
            for id in 0..3 {
                load.push(tokio::spawn(writer(
                    t.clone(),
                    id,
                    PAUSE,
                    stop.clone(),
                    seen.clone(),
                )));
            }
            load.push(tokio::spawn(counter(
                t.clone(),
                PAUSE,
                stop.clone(),
                seen.clone(),
            )));
            let saved = t.client().repository::<Saved>().on_table(t.name().clone());
            load.push(tokio::spawn(saver(saved, stop.clone(), seen.clone())));
            // A scan of 20 rows a page that waits, its scanner open, for the first restart after
            // 100 rows and for the second after 300: it spans both by construction.
            let (restarted, mut restarts) = tokio::sync::watch::channel(0u32);
            let scan_table = t.clone();
            let scan = tokio::spawn(async move {
                let mut keys = Vec::new();
                let mut rows = scan_table.scan(Scan::new().prefix("s").caching(20));
                while let Some(row) = rows.next().await {
                    keys.push(row.expect("the scan goes on across restarts").key);
                    for (at, after) in [(100, 1), (300, 2)] {
                        if keys.len() == at {
                            restarts.wait_for(|n| *n >= after).await.unwrap();
                        }
                    }
                }
                keys
            });

            for n in 1..=2 {
                tokio::time::sleep(Duration::from_millis(700)).await;
                tokio::task::spawn_blocking(restart_gateway).await.unwrap();
                restarted.send(n).unwrap();
            }
            tokio::time::sleep(Duration::from_millis(700)).await;
            stop.store(true, Ordering::Relaxed);
            for task in load {
                task.await.unwrap();
            }
            let keys = scan.await.unwrap();

            let seen = std::mem::take(&mut *seen.lock().unwrap());
            let stats = t.client().stats();
            println!(
            "load: {} acknowledged saves (each read back at once), {} increments acknowledged, \
             {} of unknown fate, {} retries, {} connections opened, longest stall {:?}",
            seen.acknowledged.len(),
            seen.increments_acked,
            seen.increments_unknown,
            stats.retries,
            stats.connections_opened,
            seen.longest_stall
        );
            assert!(
                seen.failed_idempotent.is_empty(),
                "idempotent calls failed: {:?}",
                seen.failed_idempotent
            );
            assert!(stats.retries > 0, "the restarts were hidden by retries");
            let want: Vec<Vec<u8>> = (0..SCAN_ROWS)
                .map(|i| load::fixed_key(i).into_bytes())
                .collect();
            assert_eq!(keys, want, "every row once, in order");

            // Every acknowledged write is there, read through a fresh client.
            let fresh = client().await;
            let check = fresh.table_named(t.name().clone());
            assert_acknowledged_are_there(&seen, &check).await;
        },
    )
    .await;
}
