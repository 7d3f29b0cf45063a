//! Calls sent again when the gateway is briefly unreachable, under a deadline.
//!
//! Every call of [`super::Table`], [`super::Admin`] and the scan streams is an operation value
//! (`backend::op`) run by [`Client::run`]. What is sent again depends on what a repeat could
//! do, which the operation says ([`Safety`]):
//!
//! - [`Safety::Idempotent`] operations (reads, puts, whole-row and column deletes, row
//!   mutations made of those, such as an entity's save, family option changes) are sent again after any failure that may be passing: the gateway could
//!   not be reached, the connection broke, the call timed out, or HBase named a passing
//!   condition (a region moving or opening, a server too busy).
//! - [`Safety::FailsCleanly`] (admin changes) and [`Safety::UnsentOnly`] operations
//!   (increments, appends, check-and-mutate, latest-version deletes and row mutations
//!   holding one, scanner calls) are sent again only when the request cannot have reached the server: no
//!   connection could be opened. An increment whose connection broke after it was sent may or
//!   may not have been applied: that error is returned as it is, so the caller decides.
//!
//! Waits between attempts grow exponentially from [`Config::retry_backoff`] up to 2 s, each a
//! random fraction of the step ("full jitter"), until [`Config::retry_deadline`] from the first
//! attempt; then [`Error::Retried`] says how many attempts were made and the last cause.

use std::time::{Duration, Instant};

use super::handle::Client;
use crate::backend::op::{Operation, Safety};
use crate::model::{Backoff, Error, Result};

/// Whether `e` may pass if the call is sent again, for a call of `safety` (and whose gateway's
/// own failures pass, `Operation::GATEWAY_FAILURE_PASSES`, with `gateway_failure_passes`).
fn worth_retrying(e: &Error, safety: Safety, gateway_failure_passes: bool) -> bool {
    let unsent = matches!(
        e,
        Error::Connect { .. }
            | Error::Timeout {
                operation: "connect",
                ..
            }
    );
    let passing = match e {
        Error::Transport { .. } | Error::Timeout { .. } => true,
        // Over HTTP: the gateway is busy or starting, or a proxy before it lost it or timed out.
        // A proxy may answer so after it passed the call on: it may have been done.
        Error::HttpStatus {
            status: 502..=504, ..
        } => true,
        Error::Server { message, .. } => {
            TRANSIENT.iter().any(|t| message.contains(t))
                || (gateway_failure_passes && message.contains(GATEWAY_INTERNAL))
        }
        _ => false,
    };
    unsent || (safety == Safety::Idempotent && passing)
}

/// HBase exceptions that say "not now" rather than "no": a region moving or opening, a
/// server too busy. (`TIOError.canRetry` is no guide: the gateway sets it on permanent
/// failures too, a put into a missing family for one, after its own HBase client has already
/// retried.)
const TRANSIENT: &[&str] = &[
    "NotServingRegionException",
    "RegionMovedException",
    "RegionOpeningException",
    "RegionTooBusyException",
    "ServerTooBusyException",
    "CallQueueTooBigException",
    "PleaseHoldException",
];

/// How a Thrift gateway's own failure reads (an application exception of kind InternalError:
/// an exception inside the gateway, not an answer of HBase's).
const GATEWAY_INTERNAL: &str = "the gateway failed the call (InternalError)";

impl Client {
    /// Runs `op`: its checks, then attempts until one succeeds, the failure is final, or the
    /// client's retry deadline passes.
    pub(crate) async fn run<O: Operation>(&self, op: &O) -> Result<O::Output> {
        self.run_within(None, op).await
    }

    /// [`Client::run`] with a deadline of its own instead of the client's, if given.
    pub(crate) async fn run_within<O: Operation>(
        &self,
        deadline: Option<Duration>,
        op: &O,
    ) -> Result<O::Output> {
        op.check()?;
        self.run_checked_within(deadline, op).await
    }

    /// [`Client::run_within`] of an operation whose checks passed already.
    pub(crate) async fn run_checked_within<O: Operation>(
        &self,
        deadline: Option<Duration>,
        op: &O,
    ) -> Result<O::Output> {
        let config = self.config();
        let mut backoff = Backoff::new(
            config.retry_backoff,
            deadline.unwrap_or(config.retry_deadline),
        );
        loop {
            let error = match self.attempt(op).await {
                Ok(v) => return Ok(v),
                Err(e) => e,
            };
            let attempts = backoff.attempts();
            let wait = match backoff.next_wait() {
                Some(wait) if worth_retrying(&error, op.safety(), O::GATEWAY_FAILURE_PASSES) => {
                    wait
                }
                _ if attempts == 1 => return Err(error),
                _ => {
                    return Err(Error::Retried {
                        operation: O::NAME,
                        attempts,
                        elapsed: backoff.elapsed(),
                        source: Box::new(error),
                    })
                }
            };
            self.count_retry();
            crate::observe::retry(O::NAME, error.kind());
            tracing::debug!(operation = O::NAME, attempts, error = %error, ?wait, "retrying");
            tokio::time::sleep(wait).await;
        }
    }

    /// Sends `op` once, after its checks: for the calls a scan makes that are never sent
    /// again (a scanner lives in one gateway process; a lost one is replaced, not retried).
    pub(crate) async fn send<O: Operation>(&self, op: &O) -> Result<O::Output> {
        op.check()?;
        self.attempt(op).await
    }

    /// Sends `op` once, counted and timed for the metrics.
    async fn attempt<O: Operation>(&self, op: &O) -> Result<O::Output> {
        if op.timeline() && !self.backend().timeline_reads() {
            return Err(Error::Unsupported {
                operation: format!("{} with Consistency::Timeline", O::NAME),
                backend: self.backend_name(),
                why: "a gateway has no call that reads region replicas: use the native \
                      backend (hbase://), or Consistency::Strong"
                    .into(),
            });
        }
        let started = Instant::now();
        let result = op.send(self.backend()).await;
        let outcome = result.as_ref().map_or_else(Error::kind, |_| "ok");
        crate::observe::call(self.backend_name(), O::NAME, outcome, started.elapsed());
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(message: &str) -> Error {
        Error::Server {
            method: "put",
            message: message.into(),
            can_retry: true,
        }
    }

    #[test]
    fn only_passing_failures_are_sent_again_and_unsent_ones_always() {
        let refused = Error::Connect {
            address: "127.0.0.1:1".into(),
            source: std::io::Error::from(std::io::ErrorKind::ConnectionRefused),
        };
        let broken = Error::Transport {
            method: "increment",
            source: std::io::Error::from(std::io::ErrorKind::ConnectionReset),
        };
        assert!(worth_retrying(&refused, Safety::UnsentOnly, false));
        assert!(worth_retrying(&refused, Safety::Idempotent, false));
        assert!(
            !worth_retrying(&broken, Safety::UnsentOnly, false),
            "may have been applied"
        );
        assert!(worth_retrying(&broken, Safety::Idempotent, false));
        let moving = server("org.apache.hadoop.hbase.NotServingRegionException: r1 is closing");
        assert!(worth_retrying(&moving, Safety::Idempotent, false));
        assert!(!worth_retrying(&moving, Safety::UnsentOnly, false));
        let missing = server("NoSuchColumnFamilyException: nofamily");
        assert!(
            !worth_retrying(&missing, Safety::Idempotent, false),
            "canRetry is no guide"
        );
        // Which calls' gateway failures pass is the operation table's.
        use crate::backend::op::{MutateRow, Operation, RegionLocations};
        let (passes, lasts) = (
            RegionLocations::GATEWAY_FAILURE_PASSES,
            MutateRow::GATEWAY_FAILURE_PASSES,
        );
        assert!(passes && !lasts);
        let internal = Error::Server {
            method: "getAllRegionLocations",
            message: format!("{GATEWAY_INTERNAL}: Internal error processing getAllRegionLocations"),
            can_retry: false,
        };
        assert!(worth_retrying(&internal, Safety::Idempotent, passes));
        assert!(!worth_retrying(&internal, Safety::UnsentOnly, passes));
        let lasting = Error::Server {
            method: "mutateRow",
            message: format!("{GATEWAY_INTERNAL}: Internal error processing mutateRow"),
            can_retry: false,
        };
        assert!(!worth_retrying(&lasting, Safety::Idempotent, lasts));
        let illegal = Error::IllegalArgument {
            message: "bad".into(),
        };
        assert!(!worth_retrying(&illegal, Safety::Idempotent, false));
        // Over HTTP, a busy gateway or a failing proxy: only calls safe to repeat go again (a
        // proxy may have passed the call on before it answered).
        for status in [502, 503, 504] {
            let busy = Error::HttpStatus {
                address: "gw:9095".into(),
                method: "increment",
                status,
                message: "busy".into(),
            };
            assert!(worth_retrying(&busy, Safety::Idempotent, false), "{status}");
            assert!(
                !worth_retrying(&busy, Safety::UnsentOnly, false),
                "{status}"
            );
        }
    }
}
