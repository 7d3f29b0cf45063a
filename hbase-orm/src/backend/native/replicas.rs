//! Reads with timeline consistency, for tables with region replicas: the region's primary
//! replica is asked first; when it has not answered within the client's
//! `primary_call_timeout` (10 ms, as HBase's `hbase.client.primaryCallTimeout.get`), or as
//! soon as it fails, every secondary replica is asked too. The first answer wins and the calls
//! still running are dropped. A secondary's answer is marked stale by the server itself.

use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;
use futures::stream::{FuturesUnordered, StreamExt};

use super::connection::CallError;
use super::frame::{Reply, Service};
use super::regions::Region;
use super::rpc::{self, Core, Remedy};
use crate::model::{Result, TableName};

/// The calls to other replicas still under way when one answered: a scan closes the scanners
/// they open (a get's are dropped).
pub(crate) type Others<'a, T, E> =
    FuturesUnordered<BoxFuture<'a, (Arc<Region>, std::result::Result<T, E>)>>;

/// Runs `call` on `region`'s primary replica and, after `delay` (the client's primary call
/// timeout) or once the primary failed, on each of its secondaries; the replica that answered
/// first, its answer, and the calls still under way. When every replica failed, the primary's
/// error.
pub(crate) async fn first_answer<'a, T, E, F, Fut>(
    delay: std::time::Duration,
    region: &Arc<Region>,
    call: F,
) -> std::result::Result<(Arc<Region>, T, Others<'a, T, E>), E>
where
    F: Fn(Arc<Region>) -> Fut,
    Fut: Future<Output = std::result::Result<T, E>> + Send + 'a,
    T: 'a,
    E: 'a,
{
    let attempt = |replica: Arc<Region>| -> BoxFuture<'a, _> {
        let answer = call(replica.clone());
        Box::pin(async move { (replica, answer.await) })
    };
    let mut running: Others<'a, T, E> = FuturesUnordered::new();
    running.push(attempt(region.clone()));
    let mut waiting: Vec<Arc<Region>> = region.replicas.iter().cloned().map(Arc::new).collect();
    let delay = tokio::time::sleep(delay);
    tokio::pin!(delay);
    let mut primary_error = None;
    // `running` is never empty here: an answer returns, and so does the last failure.
    loop {
        tokio::select! {
            biased;
            Some((replica, answer)) = running.next() => match answer {
                Ok(value) => return Ok((replica, value, running)),
                Err(e) => {
                    // The primary failed, or a secondary did: the others need not wait.
                    running.extend(waiting.drain(..).map(attempt));
                    let is_primary = replica.name == region.name;
                    if running.is_empty() {
                        return Err(match is_primary {
                            true => e,
                            false => primary_error.take().unwrap_or(e),
                        });
                    }
                    if is_primary {
                        primary_error = Some(e);
                    }
                }
            },
            () = &mut delay, if !waiting.is_empty() => {
                running.extend(waiting.drain(..).map(attempt));
            }
        }
    }
}

/// One call to `replica`, a replica of the region `primary` of `table` (no sending again: the
/// replicas stand in for each other, and the client's retry rules apply to the read as a
/// whole). A region that is not where the cache says, or a server that failed, is forgotten,
/// so that the next read looks it up again.
pub(crate) async fn call_replica(
    core: &Core,
    table: &TableName,
    primary: &Region,
    replica: &Region,
    method: &'static str,
    request: &impl prost::Message,
) -> Result<Reply> {
    match core
        .call_at(&replica.server, Service::Client, method, request)
        .await
    {
        Ok(reply) => Ok(reply),
        Err(CallError::Remote(exception)) => {
            if rpc::remedy(&exception) == Remedy::Relocate {
                core.regions.forget(table, primary);
            }
            Err(rpc::server_error(method, exception))
        }
        Err(e) => {
            if !e.is_size() {
                core.regions.forget_server(&replica.server);
            }
            Err(core.call_error(method, &replica.server, e))
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use bytes::Bytes;

    use super::*;

    /// A region on `a:1` with secondaries on `b:1` and `c:1`.
    fn region() -> Arc<Region> {
        let at = |server: &str, name: &'static [u8]| Region {
            name: Bytes::from_static(name),
            start: Vec::new(),
            end: Vec::new(),
            id: 1,
            server: server.into(),
            replicas: Vec::new(),
        };
        Arc::new(Region {
            replicas: vec![at("b:1", b"t,,1_0001"), at("c:1", b"t,,1_0002")],
            ..at("a:1", b"t,,1")
        })
    }

    /// A server's answer: the server, after how many ms, and whether it succeeds.
    type Answer = (&'static str, u64, bool);

    /// The race of these answers: the winner's (and the servers still under way then), or
    /// the error; and when it ended.
    async fn race(
        answers: &[Answer],
    ) -> (std::result::Result<(String, Vec<String>), String>, u128) {
        let started = tokio::time::Instant::now();
        let outcome = first_answer(Duration::from_millis(10), &region(), |replica| {
            let (_, after, ok) = *answers
                .iter()
                .find(|(server, ..)| *server == replica.server)
                .unwrap();
            async move {
                tokio::time::sleep(Duration::from_millis(after)).await;
                match ok {
                    true => Ok(replica.server.clone()),
                    false => Err(format!("{} failed", replica.server)),
                }
            }
        })
        .await;
        let elapsed = started.elapsed().as_millis();
        let outcome = match outcome {
            Ok((r, answer, others)) => {
                assert_eq!(r.server, answer);
                // The others run on to their own answers (a scan closes what they opened).
                let mut others: Vec<String> = others
                    .map(|(r, answer)| {
                        assert_eq!(answer.as_ref().ok(), Some(&r.server));
                        r.server.clone()
                    })
                    .collect()
                    .await;
                others.sort();
                Ok((answer, others))
            }
            Err(e) => Err(e),
        };
        (outcome, elapsed)
    }

    /// The answer that wins, when, and the calls left under way, for each server's (delay in
    /// ms, success): a primary that answers in time is the only one asked; a slow one is
    /// overtaken by a secondary after the delay; one that fails sends the read to the
    /// secondaries at once.
    #[tokio::test(start_paused = true)]
    async fn the_first_answer_wins_after_the_delay_or_a_failure() {
        let cases: [([Answer; 3], &str, u128, &[&str]); 3] = [
            (
                [("a:1", 5, true), ("b:1", 0, true), ("c:1", 0, true)],
                "a:1",
                5,
                &[],
            ),
            (
                [("a:1", 500, true), ("b:1", 30, true), ("c:1", 20, true)],
                "c:1",
                30,
                &["a:1", "b:1"],
            ),
            (
                [("a:1", 1, false), ("b:1", 2, true), ("c:1", 5, true)],
                "b:1",
                3,
                &["c:1"],
            ),
        ];
        for (answers, winner, after, others) in cases {
            let others = others.iter().map(|s| s.to_string()).collect();
            assert_eq!(
                race(&answers).await,
                (Ok((winner.into(), others)), after),
                "{answers:?}"
            );
        }
    }

    #[tokio::test(start_paused = true)]
    async fn when_every_replica_fails_the_primary_s_error_is_returned() {
        let (outcome, _) = race(&[("a:1", 50, false), ("b:1", 1, false), ("c:1", 2, false)]).await;
        assert_eq!(outcome, Err("a:1 failed".into()));
        let (outcome, _) = race(&[("a:1", 1, false), ("b:1", 1, false), ("c:1", 2, false)]).await;
        assert_eq!(outcome, Err("a:1 failed".into()));
    }
}
