//! Scanner ids across gateway processes: a scanner lives in the gateway process that opened it,
//! and each process numbers its scanners from 1, so after a restart an old id may name another
//! caller's scanner. The client hands out ids of its own and remembers, for each, the gateway,
//! the gateway's id, and how many times that gateway had been found unreachable
//! ([`Outages`]) when the scanner opened. A scanner whose gateway has been unreachable since
//! is lost: its calls fail as for an unknown id without being sent (a stream then resumes),
//! and closing it sends nothing, so it cannot close a scanner of the new process.
//!
//! A restart that no call noticed (no connection attempt failed while the gateway was down) is
//! not seen here; the stale id then reaches the new process, which answers "unknown scanner"
//! unless it has handed out that id again.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::model::{Error, Result};

/// Per gateway, how many times a connection to it could not be opened (shared by the pool,
/// which counts, and the scanner ids, which compare).
#[derive(Clone, Debug)]
pub(crate) struct Outages(Arc<[AtomicU64]>);

impl Outages {
    /// Counters for `gateways` gateways, all zero.
    pub(crate) fn new(gateways: usize) -> Self {
        Outages((0..gateways).map(|_| AtomicU64::new(0)).collect())
    }

    /// Counts a failed connection attempt to gateway `gateway`.
    pub(crate) fn count(&self, gateway: usize) {
        self.0[gateway].fetch_add(1, Ordering::Relaxed);
    }

    /// Failed connection attempts to gateway `gateway` so far.
    pub(crate) fn of(&self, gateway: usize) -> u64 {
        self.0[gateway].load(Ordering::Relaxed)
    }
}

/// Where one scanner lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Home {
    gateway: usize,
    id: i32,
    /// [`Outages::of`] its gateway when it opened.
    outages: u64,
}

/// The client's scanner ids and where each scanner lives.
pub(crate) struct ScannerIds {
    outages: Outages,
    next: AtomicI32,
    open: Mutex<HashMap<i32, Home>>,
}

impl ScannerIds {
    /// Ids for scanners on the gateways whose failed connections `outages` counts.
    pub(crate) fn new(outages: Outages) -> Self {
        ScannerIds {
            outages,
            next: AtomicI32::new(1),
            open: Mutex::default(),
        }
    }

    fn open(&self) -> std::sync::MutexGuard<'_, HashMap<i32, Home>> {
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// What to pass to [`ScannerIds::register`]: taken before the scanner is opened, so that
    /// an outage counted while the open call was under way makes the scanner lost rather than
    /// current.
    pub(crate) fn before_open(&self) -> Vec<u64> {
        (0..self.outages.0.len())
            .map(|g| self.outages.of(g))
            .collect()
    }

    /// The client's id for scanner `id` of gateway `gateway`, just opened; `before` is
    /// [`ScannerIds::before_open`] taken before the open call.
    pub(crate) fn register(&self, gateway: usize, id: i32, before: &[u64]) -> i32 {
        let ours = self.next.fetch_add(1, Ordering::Relaxed);
        // A gateway the snapshot lacks cannot be: such a scanner counts as lost.
        let outages = before.get(gateway).copied().unwrap_or(u64::MAX);
        self.open().insert(
            ours,
            Home {
                gateway,
                id,
                outages,
            },
        );
        ours
    }

    /// The gateway and the gateway's id of the client's scanner `id`. An id this client never
    /// handed out (or forgot), or a scanner whose gateway has been unreachable since it opened
    /// (forgotten here), is the error the gateway gives for an unknown id.
    pub(crate) fn find(&self, id: i32) -> Result<(usize, i32)> {
        let mut open = self.open();
        let home = open
            .get(&id)
            .copied()
            .ok_or_else(|| Error::IllegalArgument {
                message: format!("invalid scanner id {id}"),
            })?;
        if self.outages.of(home.gateway) != home.outages {
            open.remove(&id);
            return Err(Error::IllegalArgument {
                message: format!(
                    "invalid scanner id {id}: its gateway could not be reached since the \
                     scanner opened (it may have restarted)"
                ),
            });
        }
        Ok((home.gateway, home.id))
    }

    /// Forgets scanner `id` (closed).
    pub(crate) fn forget(&self, id: i32) {
        self.open().remove(&id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scanners_get_ids_of_their_own_across_gateways() {
        let several = ScannerIds::new(Outages::new(2));
        let before = several.before_open();
        let (a, b) = (
            several.register(0, 1, &before),
            several.register(1, 1, &before),
        );
        assert_ne!(a, b, "both gateways' scanner 1");
        assert_eq!(several.find(a).unwrap(), (0, 1));
        assert_eq!(several.find(b).unwrap(), (1, 1));
        several.forget(a);
        assert!(matches!(
            several.find(a),
            Err(Error::IllegalArgument { .. })
        ));
    }

    #[test]
    fn a_scanner_whose_gateway_was_unreachable_since_it_opened_is_lost() {
        let outages = Outages::new(2);
        let ids = ScannerIds::new(outages.clone());
        let before = ids.before_open();
        let (a, b) = (ids.register(0, 5, &before), ids.register(1, 5, &before));
        outages.count(0);
        assert!(matches!(ids.find(a), Err(Error::IllegalArgument { .. })));
        assert!(
            matches!(ids.find(a), Err(Error::IllegalArgument { .. })),
            "and stays lost"
        );
        assert_eq!(ids.find(b).unwrap(), (1, 5), "the other gateway's scanner");
        let c = ids.register(0, 5, &ids.before_open());
        assert_eq!(ids.find(c).unwrap(), (0, 5), "a scanner opened since");

        // An outage counted while the open call was under way: the scanner may belong to the
        // process that went away.
        let before = ids.before_open();
        outages.count(1);
        let d = ids.register(1, 7, &before);
        assert!(matches!(ids.find(d), Err(Error::IllegalArgument { .. })));
    }
}
