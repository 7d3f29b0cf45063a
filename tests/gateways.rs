//! One client, several gateways of the same HBase: calls go round them, a gateway that cannot
//! be reached is set aside, and scans stay on the gateway that holds their scanner.
//!
//! Two gateway processes serve the same HBase here: the buffered Thrift2 gateway (9090) and the
//! launcher's second one (`thrift-short`, 9093), which one test stops for good mid-run (and
//! starts again when it ends). Scanner ids belong to one gateway process, so a scan opened on
//! the stopped one must go on elsewhere. Other tests put a TCP relay in front of a gateway and
//! stop the relay.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use hbase_orm::{Client, ColumnFamily, Config, Get, Put, Scan};
use hbase_orm_suite::relay::Relay;
use hbase_orm_suite::{connect_with, gateway_address, launcher, short_gateway_address, with_table};

async fn client_of(address: String, more: Vec<String>) -> Client {
    connect_with(Config {
        address,
        addresses: more,
        pool_size: 4,
        ..Config::default()
    })
    .await
}

#[tokio::test]
async fn a_gateway_that_cannot_be_reached_is_set_aside() {
    // A port nothing listens on, first in the list.
    let dead = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .to_string();
    let c = client_of(dead, vec![gateway_address()]).await;
    with_table(
        &c,
        "gw_dead",
        vec![ColumnFamily::new("d")],
        &[],
        |t| async move {
            for i in 0..20 {
                let key = format!("r{i:02}");
                t.put(Put::new(key.clone()).column("d", "v", "x"))
                    .await
                    .unwrap();
                assert!(t.get(Get::new(key)).await.unwrap().is_some());
            }
            assert_eq!(t.scan(Scan::new().caching(3)).count().await, 20);
            assert_eq!(t.client().stats().retries, 0, "no call waited for a retry");
        },
    )
    .await;
}

/// Starts the launcher's second gateway again when dropped, so that a failed test does not
/// leave it stopped for the tests after it.
struct StartAgain;

impl Drop for StartAgain {
    fn drop(&mut self) {
        launcher(&["restart", "thrift-short"]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_gateways_share_the_calls_and_one_stopped_for_good_is_set_aside() {
    // Both gateways answer before the client connects: one that does not is set aside, and
    // no scan would open on it.
    tokio::task::spawn_blocking(|| launcher(&["start", "thrift-short"]))
        .await
        .unwrap();
    let c = client_of(short_gateway_address(), vec![gateway_address()]).await;
    with_table(
        &c,
        "gw_two",
        vec![ColumnFamily::new("d")],
        &[],
        |t| async move {
            let rows: Vec<Put> = (0..300)
                .map(|i| Put::new(format!("s{i:04}")).column("d", "v", "x"))
                .collect();
            t.put_many(rows).await.unwrap();

            // Four scans opened one after another, before anything else calls: calls go round
            // the two gateways, so two scanners are on each. Each reads its first row here and
            // waits after 50 rows, its scanner open, until the gateway has stopped: they span
            // the stop by construction, however long the stop takes on a loaded machine.
            let (stopped, stop_seen) = tokio::sync::watch::channel(false);
            let mut scans = Vec::new();
            for _ in 0..4 {
                let mut rows = t.scan(Scan::new().prefix("s").caching(10));
                let first = rows
                    .next()
                    .await
                    .expect("a first row")
                    .expect("the scan opens");
                let mut stop_seen = stop_seen.clone();
                scans.push(tokio::spawn(async move {
                    let mut keys = vec![first.key];
                    while let Some(row) = rows.next().await {
                        keys.push(row.expect("the scan goes on").key);
                        if keys.len() == 50 {
                            stop_seen.wait_for(|done| *done).await.unwrap();
                        }
                    }
                    keys
                }));
            }

            let running = Arc::new(AtomicBool::new(true));
            let mut writers = Vec::new();
            for w in 0..3 {
                let (t, running) = (t.clone(), running.clone());
                writers.push(tokio::spawn(async move {
                    let mut written = Vec::new();
                    let mut n = 0;
                    while running.load(Ordering::Relaxed) {
                        let key = format!("w{w}-{n:04}");
                        t.put(Put::new(key.clone()).column("d", "v", "x"))
                            .await
                            .unwrap_or_else(|e| panic!("put {key}: {e}"));
                        written.push(key);
                        n += 1;
                        tokio::time::sleep(Duration::from_millis(3)).await;
                    }
                    written
                }));
            }
            tokio::time::sleep(Duration::from_millis(400)).await;
            let before = t.client().stats();
            assert!(
                before.scanners_open > 0,
                "scans are open while the gateway stops: {before:?}"
            );
            let start_again = StartAgain;
            tokio::task::spawn_blocking(|| launcher(&["stop", "thrift-short"]))
                .await
                .unwrap();
            stopped.send(true).unwrap();
            tokio::time::sleep(Duration::from_millis(600)).await;
            running.store(false, Ordering::Relaxed);

            let mut written = Vec::new();
            for w in writers {
                written.extend(w.await.unwrap());
            }
            let want: Vec<Vec<u8>> = (0..300).map(|i| format!("s{i:04}").into_bytes()).collect();
            for s in scans {
                assert_eq!(s.await.unwrap(), want, "every row once, in order");
            }
            let gets: Vec<Get> = written.iter().map(|k| Get::new(k.clone())).collect();
            let found = t.get_many(gets).await.unwrap();
            assert!(
                found.iter().all(Option::is_some),
                "every acknowledged put is there"
            );
            let stats = t.client().stats();
            println!(
                "{} puts while one of two gateways stopped; {} retries; stats {stats:?}",
                written.len(),
                stats.retries,
            );
            assert!(
                stats.scans_resumed >= 1,
                "some scan lost its scanner: {stats:?}"
            );
            tokio::task::spawn_blocking(move || drop(start_again))
                .await
                .unwrap();
        },
    )
    .await;
}

#[tokio::test]
async fn a_handle_sets_its_own_retry_deadline() {
    let relay = Relay::start(gateway_address()).await;
    let relayed = relay.address.clone();
    let real = hbase_orm_suite::client().await;
    with_table(
        &real,
        "gw_deadline",
        vec![ColumnFamily::new("d")],
        &[],
        |t| async move {
            // A client whose only gateway is the relay, which then goes away for good.
            let through = client_of(relayed, vec![]).await;
            let table = through.table_named(t.name().clone());
            table
                .put(Put::new("r").column("d", "v", "x"))
                .await
                .unwrap();
            relay.stop();
            tokio::time::sleep(Duration::from_millis(100)).await;

            let started = std::time::Instant::now();
            let once = table
                .clone()
                .retry_deadline(Duration::ZERO)
                .get(Get::new("r"))
                .await
                .unwrap_err();
            assert!(
                matches!(
                    once,
                    hbase_orm::Error::Connect { .. } | hbase_orm::Error::Transport { .. }
                ),
                "sent once, the error as it is: {once}"
            );
            assert!(started.elapsed() < Duration::from_secs(2));

            let short = table
                .retry_deadline(Duration::from_millis(400))
                .get(Get::new("r"))
                .await
                .unwrap_err();
            match short {
                hbase_orm::Error::Retried {
                    attempts,
                    operation,
                    ..
                } => {
                    assert_eq!(operation, "get");
                    assert!(attempts >= 2, "{attempts}");
                }
                other => panic!("expected Retried, got {other}"),
            }
            assert!(started.elapsed() < Duration::from_secs(5));
        },
    )
    .await;
}
