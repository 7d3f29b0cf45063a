//! Load for the fault tests (`tests/faults.rs`, `tests/native_restart.rs`): tasks that write,
//! read back and count while a gateway or HBase itself restarts, and what they saw.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hbase_orm::{Get, Put, Table};

/// What the load saw.
#[derive(Debug, Default)]
pub struct Seen {
    /// Keys written and read back at once.
    pub acknowledged: Vec<String>,
    /// Puts or gets (idempotent, so retried) that failed anyway, with their errors.
    pub failed_idempotent: Vec<String>,
    /// Increments acknowledged.
    pub increments_acked: i64,
    /// Increments that failed: applied or not, the client cannot know.
    pub increments_unknown: i64,
    /// The longest a write and its read took.
    pub longest_stall: Duration,
}

/// Until `stop`: puts `w{id}-{n}` and reads it back, `pause` apart, noting each outcome.
pub async fn writer(
    t: Table,
    id: usize,
    pause: Duration,
    stop: Arc<AtomicBool>,
    seen: Arc<Mutex<Seen>>,
) {
    let mut n = 0;
    while !stop.load(Ordering::Relaxed) {
        let key = format!("w{id}-{n:05}");
        let started = Instant::now();
        let put = t
            .put(Put::new(key.clone()).column("d", "v", key.clone()))
            .await;
        let read = match &put {
            Ok(()) => t.get(Get::new(key.clone())).await.map(|_| ()),
            Err(_) => Ok(()),
        };
        {
            let mut s = seen.lock().unwrap();
            s.longest_stall = s.longest_stall.max(started.elapsed());
            match (put, read) {
                (Ok(()), Ok(())) => s.acknowledged.push(key),
                (Err(e), _) | (_, Err(e)) => s.failed_idempotent.push(format!("{key}: {e}")),
            }
        }
        n += 1;
        tokio::time::sleep(pause).await;
    }
}

/// Until `stop`: adds 1 to the counter `d:n` of row `counter`, `pause` apart, noting each
/// outcome.
pub async fn counter(t: Table, pause: Duration, stop: Arc<AtomicBool>, seen: Arc<Mutex<Seen>>) {
    while !stop.load(Ordering::Relaxed) {
        let done = t.increment_column("counter", "d", "n", 1).await;
        {
            let mut s = seen.lock().unwrap();
            match done {
                Ok(_) => s.increments_acked += 1,
                Err(_) => s.increments_unknown += 1,
            }
        }
        tokio::time::sleep(pause).await;
    }
}

/// The key of row `i` of the rows a fault test scans: `s00000`, `s00001`, ...
pub fn fixed_key(i: usize) -> String {
    format!("s{i:05}")
}

/// Writes rows `fixed_key(0..n)` (`d:v` = `x`) for a fault test to scan, a thousand a call.
pub async fn write_fixed_rows(t: &Table, n: usize) {
    let puts: Vec<Put> = (0..n)
        .map(|i| Put::new(fixed_key(i)).column("d", "v", "x"))
        .collect();
    for chunk in puts.chunks(1000) {
        t.put_many(chunk.to_vec()).await.unwrap();
    }
}

/// Asserts what the load's acknowledgements promise, read through `check` (a table handle of a
/// fresh client): every acknowledged write is there, and the counter holds the acknowledged
/// increments plus at most one per increment whose fate is unknown.
pub async fn assert_acknowledged_are_there(seen: &Seen, check: &Table) {
    let gets: Vec<Get> = seen
        .acknowledged
        .iter()
        .map(|k| Get::new(k.clone()))
        .collect();
    for chunk in gets.chunks(500) {
        let found = check.get_many(chunk.to_vec()).await.unwrap();
        assert!(
            found.iter().all(Option::is_some),
            "an acknowledged write is missing"
        );
    }
    let n = check
        .get(Get::new("counter"))
        .await
        .unwrap()
        .and_then(|r| r.counter("d", "n"))
        .unwrap_or(0);
    assert!(
        n >= seen.increments_acked && n <= seen.increments_acked + seen.increments_unknown,
        "counter {n}: {} acknowledged, {} unknown",
        seen.increments_acked,
        seen.increments_unknown
    );
}
