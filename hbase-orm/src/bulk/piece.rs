//! Pieces of a file's bytes handed over whole, and the pool they come back to: a destination
//! may keep a piece as long as it needs (an HDFS file keeps what it sent until the DataNodes
//! acknowledge it) and, dropped, the piece's buffer goes back to its pool to be filled again
//! (a fresh buffer costs its pages' faults each time it is first written).

use std::sync::{Arc, Mutex};

/// Bytes of a piece, at most, before it is handed over (a block may make one a little longer).
pub(super) const PIECE: usize = 1 << 20;

/// Buffers kept for reuse, at most.
const SPARE: usize = 32;

/// Buffers of pieces dropped, kept for the next ones.
#[derive(Default)]
pub(super) struct Pool {
    spare: Mutex<Vec<Vec<u8>>>,
}

impl Pool {
    /// An empty buffer for a piece: one used before when there is one.
    pub(super) fn buffer(&self) -> Vec<u8> {
        let spare = self.spare.lock().ok().and_then(|mut s| s.pop());
        spare.unwrap_or_else(|| Vec::with_capacity(PIECE + (64 << 10)))
    }

    /// How many buffers are kept.
    #[cfg(test)]
    pub(super) fn kept(&self) -> usize {
        self.spare.lock().map(|s| s.len()).unwrap_or(0)
    }

    /// Keeps `buffer` for a next piece (not one that grew for a large block, nor more than
    /// [`SPARE`]).
    fn keep(&self, mut buffer: Vec<u8>) {
        if buffer.capacity() <= 2 * PIECE {
            buffer.clear();
            if let Ok(mut spare) = self.spare.lock() {
                if spare.len() < SPARE {
                    spare.push(buffer);
                }
            }
        }
    }
}

/// A file's bytes handed over whole; dropped, its buffer goes back to its pool.
pub(super) struct Piece {
    bytes: Vec<u8>,
    pool: Arc<Pool>,
}

impl Piece {
    /// `bytes`, whose buffer goes back to `pool` when the piece is dropped.
    pub(super) fn new(bytes: Vec<u8>, pool: Arc<Pool>) -> Piece {
        Piece { bytes, pool }
    }

    /// Its length in bytes.
    pub(super) fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Its buffer's capacity (a piece handed over as it was filled keeps the capacity it was
    /// made with).
    #[cfg(test)]
    pub(super) fn capacity(&self) -> usize {
        self.bytes.capacity()
    }
}

impl AsRef<[u8]> for Piece {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

impl Drop for Piece {
    fn drop(&mut self) {
        self.pool.keep(std::mem::take(&mut self.bytes));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A piece dropped gives its buffer back, emptied, and the next buffer is that one; a
    /// buffer grown past twice a piece is not kept, nor more than `SPARE` buffers.
    #[test]
    fn a_dropped_piece_is_filled_again() {
        let pool = Arc::new(Pool::default());
        let mut buffer = pool.buffer();
        buffer.extend_from_slice(b"abc");
        let at = buffer.as_ptr();
        let piece = Piece::new(buffer, pool.clone());
        assert_eq!(piece.as_ref(), b"abc");
        assert_eq!(piece.len(), 3);
        drop(piece);
        assert_eq!(pool.kept(), 1);
        let again = pool.buffer();
        assert_eq!((again.as_ptr(), again.len(), pool.kept()), (at, 0, 0));

        drop(Piece::new(vec![0; 2 * PIECE + 1], pool.clone()));
        assert_eq!(pool.kept(), 0);
        for _ in 0..SPARE + 3 {
            drop(Piece::new(Vec::with_capacity(16), pool.clone()));
        }
        assert_eq!(pool.kept(), SPARE);
    }
}
