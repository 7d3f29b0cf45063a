//! The native backend while HBase itself restarts (`hbase-local/hbase.sh down`, then `up`):
//! ZooKeeper, the master and the region server go away under load and come back with new
//! start codes, the meta region and every user region reopened. The client must find them
//! again by itself.
//!
//! What must hold: every acknowledged write reads back; no idempotent call fails (they are
//! retried until HBase is back); the scan, paused across the restart with its region scanner
//! open, returns every row once, in order; the counter ends at the acknowledged increments plus
//! at most one per increment whose fate is unknown. Its own test binary: nothing else runs while
//! HBase is down.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use hbase_orm::{Client, ColumnFamily, Config, Scan};
use hbase_orm_suite::load::{self, assert_acknowledged_are_there, counter, writer, Seen};
use hbase_orm_suite::{connect_with, launcher, native_url, with_table};

/// Rows the paused scan reads.
const SCAN_ROWS: usize = 400;

async fn native_client() -> Client {
    let mut config = Config::from_url(&native_url()).expect("a valid hbase:// URL");
    // HBase takes about 20 s to come back here; calls keep being sent again meanwhile.
    config.retry_deadline = Duration::from_secs(120);
    connect_with(config).await
}

#[tokio::test]
async fn hbase_restarted_under_load_loses_no_acknowledged_write_and_no_scanned_row() {
    let c = native_client().await;
    with_table(
        &c,
        "native_restart",
        vec![ColumnFamily::new("d")],
        &[],
        |t| async move {
            load::write_fixed_rows(&t, SCAN_ROWS).await;

            let stop = Arc::new(AtomicBool::new(false));
            let seen = Arc::new(Mutex::new(Seen::default()));
            let mut load = Vec::new();
            for id in 0..2 {
                let pause = Duration::from_millis(20);
                load.push(tokio::spawn(writer(
                    t.clone(),
                    id,
                    pause,
                    stop.clone(),
                    seen.clone(),
                )));
            }
            let pause = Duration::from_millis(50);
            load.push(tokio::spawn(counter(
                t.clone(),
                pause,
                stop.clone(),
                seen.clone(),
            )));
            // A scan of 20 rows a page that waits, its region scanner open, for the restart after
            // 100 rows: it spans the restart by construction.
            let (restarted, mut restarts) = tokio::sync::watch::channel(false);
            let scan_table = t.clone();
            let scan = tokio::spawn(async move {
                let mut keys = Vec::new();
                let mut rows = scan_table.scan(Scan::new().prefix("s").caching(20));
                while let Some(row) = rows.next().await {
                    keys.push(row.expect("the scan goes on across the restart").key);
                    if keys.len() == 100 {
                        restarts.wait_for(|done| *done).await.unwrap();
                    }
                }
                keys
            });

            tokio::time::sleep(Duration::from_millis(1000)).await;
            tokio::task::spawn_blocking(|| {
                launcher(&["down"]);
                launcher(&["up"]);
            })
            .await
            .unwrap();
            restarted.send(true).unwrap();
            tokio::time::sleep(Duration::from_millis(1000)).await;
            stop.store(true, Ordering::Relaxed);
            for task in load {
                task.await.unwrap();
            }
            let keys = scan.await.unwrap();

            let seen = std::mem::take(&mut *seen.lock().unwrap());
            let stats = t.client().stats();
            println!(
            "load: {} acknowledged writes (each read back at once), {} increments acknowledged, \
             {} of unknown fate, {} retries, {} connections opened, {} scans resumed, longest \
             stall {:?}",
            seen.acknowledged.len(),
            seen.increments_acked,
            seen.increments_unknown,
            stats.retries,
            stats.connections_opened,
            stats.scans_resumed,
            seen.longest_stall
        );
            assert!(
                seen.failed_idempotent.is_empty(),
                "idempotent calls failed: {:?}",
                seen.failed_idempotent
            );
            assert!(stats.retries > 0, "the restart was hidden by retries");
            assert!(
                stats.scans_resumed > 0,
                "the scan's region scanner went with the restart"
            );
            let want: Vec<Vec<u8>> = (0..SCAN_ROWS)
                .map(|i| load::fixed_key(i).into_bytes())
                .collect();
            assert_eq!(keys, want, "every row once, in order");

            // Every acknowledged write is there, read through a fresh client.
            let fresh = native_client().await;
            let check = fresh.table_named(t.name().clone());
            assert_acknowledged_are_there(&seen, &check).await;
        },
    )
    .await;
}
