//! Scanner ids across several gateways: a scanner lives in the gateway process that opened it,
//! and each process numbers its scanners from 1. With one gateway the client uses the
//! gateway's ids as they are; with several it hands out its own and remembers, for each, the
//! gateway and the gateway's id.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Mutex;

use crate::model::{Error, Result};

/// The client's scanner ids and where each scanner lives.
pub(crate) struct ScannerIds {
    /// Whether there are several gateways (with one, ids are the gateway's own).
    several: bool,
    next: AtomicI32,
    open: Mutex<HashMap<i32, (usize, i32)>>,
}

impl ScannerIds {
    /// Ids for a pool of `gateways` gateways.
    pub(crate) fn new(gateways: usize) -> Self {
        ScannerIds {
            several: gateways > 1,
            next: AtomicI32::new(1),
            open: Mutex::default(),
        }
    }

    /// The client's id for scanner `id` of gateway `gateway`.
    pub(crate) fn register(&self, gateway: usize, id: i32) -> i32 {
        if !self.several {
            return id;
        }
        let ours = self.next.fetch_add(1, Ordering::Relaxed);
        self.open
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(ours, (gateway, id));
        ours
    }

    /// The gateway and the gateway's id of the client's scanner `id`; an id this client never
    /// handed out (or forgot) is the error the gateway gives for an unknown id.
    pub(crate) fn find(&self, id: i32) -> Result<(usize, i32)> {
        if !self.several {
            return Ok((0, id));
        }
        self.open
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&id)
            .copied()
            .ok_or_else(|| Error::IllegalArgument {
                message: format!("invalid scanner id {id}"),
            })
    }

    /// Forgets scanner `id` (closed).
    pub(crate) fn forget(&self, id: i32) {
        if self.several {
            self.open
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_gateway_keeps_its_ids_and_several_get_ids_of_their_own() {
        let one = ScannerIds::new(1);
        assert_eq!(one.register(0, 7), 7);
        assert_eq!(one.find(7).unwrap(), (0, 7));
        let several = ScannerIds::new(2);
        let (a, b) = (several.register(0, 1), several.register(1, 1));
        assert_ne!(a, b, "both gateways' scanner 1");
        assert_eq!(several.find(a).unwrap(), (0, 1));
        assert_eq!(several.find(b).unwrap(), (1, 1));
        several.forget(a);
        assert!(matches!(
            several.find(a),
            Err(Error::IllegalArgument { .. })
        ));
    }
}
