//! Spare buffers for the cell blocks of requests. A batch's cells take hundreds of KiB; a
//! buffer kept from an earlier call is written into memory already in use, instead of memory
//! the system must map and zero again for every call (which cost more than the encoding).

use std::ops::{Deref, DerefMut};
use std::sync::Mutex;

/// Buffers kept at most (as many calls as usually run at once on a small machine).
const KEEP: usize = 4;

/// A buffer larger than this goes back to the system (one huge batch keeps nothing after it;
/// a batch of 1,000 rows of a few KiB each fits).
const KEEP_UP_TO: usize = 4 << 20;

/// The spare buffers of a client.
#[derive(Default)]
pub(crate) struct Buffers {
    spare: Mutex<Vec<Vec<u8>>>,
}

impl Buffers {
    fn spare(&self) -> std::sync::MutexGuard<'_, Vec<Vec<u8>>> {
        self.spare.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// An empty buffer, a spare one if there is one; it comes back when dropped.
    pub(crate) fn take(&self) -> Buffer<'_> {
        let bytes = self.spare().pop().unwrap_or_default();
        Buffer { pool: self, bytes }
    }
}

/// A buffer taken from [`Buffers`], given back (emptied) when dropped.
pub(crate) struct Buffer<'a> {
    pool: &'a Buffers,
    bytes: Vec<u8>,
}

impl Deref for Buffer<'_> {
    type Target = Vec<u8>;

    fn deref(&self) -> &Vec<u8> {
        &self.bytes
    }
}

impl DerefMut for Buffer<'_> {
    fn deref_mut(&mut self) -> &mut Vec<u8> {
        &mut self.bytes
    }
}

impl Drop for Buffer<'_> {
    fn drop(&mut self) {
        let mut bytes = std::mem::take(&mut self.bytes);
        if bytes.capacity() == 0 || bytes.capacity() > KEEP_UP_TO {
            return;
        }
        bytes.clear();
        let mut spare = self.pool.spare();
        if spare.len() < KEEP {
            spare.push(bytes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_come_back_empty_and_only_so_many_are_kept() {
        let pool = Buffers::default();
        {
            let mut b = pool.take();
            b.extend_from_slice(&[1; 1000]);
        }
        let b = pool.take();
        assert!(b.is_empty(), "a buffer comes back empty");
        assert!(b.capacity() >= 1000, "and keeps its memory");
        drop(b);
        let many: Vec<_> = (0..KEEP + 3)
            .map(|_| {
                let mut b = pool.take();
                b.push(1);
                b
            })
            .collect();
        drop(many);
        assert_eq!(pool.spare().len(), KEEP);
        {
            let mut huge = pool.take();
            huge.reserve(KEEP_UP_TO + 1);
        }
        assert!(pool.spare().iter().all(|b| b.capacity() <= KEEP_UP_TO));
    }
}
