//! Scanner ids across a gateway restart. Each gateway process numbers its scanners from the
//! start, so the id of a scanner opened before a restart may name another caller's scanner
//! after it. A stream dropped after the restart must not close that other scanner.
//!
//! This test restarts the launcher's second Thrift2 gateway (`thrift-short`, 9093) twice; it is
//! alone in its test binary so that no other test uses that gateway meanwhile.

use std::time::Duration;

use futures::StreamExt;
use hbase_orm::{ColumnFamily, Config, Get, Put, Scan};
use hbase_orm_suite::{connect_with, launcher, short_gateway_address, with_table};

#[tokio::test]
async fn a_stream_dropped_after_a_restart_leaves_the_new_process_scanners_alone() {
    // A fresh process: its scanners are numbered from the start.
    tokio::task::spawn_blocking(|| launcher(&["restart", "thrift-short"]))
        .await
        .unwrap();
    let c = connect_with(Config {
        address: short_gateway_address(),
        ..Config::default()
    })
    .await;
    with_table(&c, "scanner_ids", vec![ColumnFamily::new("d")], &[], |t| {
        let c = c.clone();
        async move {
            let puts = (0..10)
                .map(|i| Put::new(format!("r{i}")).column("d", "v", "x"))
                .collect();
            t.put_many(puts).await.unwrap();

            // The first scanner of this process.
            let mut before = t.scan(Scan::new().caching(2));
            before.next().await.unwrap().unwrap();

            // The gateway goes down, a call finds it unreachable, and it comes back.
            tokio::task::spawn_blocking(|| launcher(&["stop", "thrift-short"]))
                .await
                .unwrap();
            let unreachable = t
                .clone()
                .retry_deadline(Duration::ZERO)
                .get(Get::new("r0"))
                .await;
            assert!(unreachable.is_err(), "the gateway is down");
            tokio::task::spawn_blocking(|| launcher(&["restart", "thrift-short"]))
                .await
                .unwrap();

            // The first scanner of the new process: the same number as `before`'s.
            let mut after = t.scan(Scan::new().caching(2));
            after.next().await.unwrap().unwrap();
            let id = after.scanner_id().expect("a scanner is open");

            drop(before);
            tokio::time::sleep(Duration::from_millis(300)).await;
            assert!(
                c.scanner_is_open(id).await.unwrap(),
                "dropping the stream from before the restart closed another scanner"
            );
            let mut rest = 1;
            while let Some(row) = after.next().await {
                row.unwrap();
                rest += 1;
            }
            assert_eq!(rest, 10);
            assert_eq!(c.stats().scans_resumed, 0, "{:?}", c.stats());
        }
    })
    .await;
}
