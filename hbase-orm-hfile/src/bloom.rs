//! The ROW bloom filter of a family that declares one: each new row's bits set in a chunk of
//! 128 KiB; a full chunk (or the last) folded to the size its keys need and written among the
//! data blocks; their index in a meta block the reader loads with the file.

use std::collections::VecDeque;
use std::io::Write;

use crate::block::{BlockType, BlockWriter, Placed};
use crate::index::Entries;
use crate::Result;

/// The false-positive rate HBase sizes chunks for (`io.storefile.bloom.error.rate`, a Java
/// float).
const ERROR_RATE: f32 = 0.01;

/// How many times a chunk may be halved when folded (`io.storefile.bloom.max.fold`).
const MAX_FOLD: u32 = 7;

/// The hash the filter's bits come from, as the meta block names it (Murmur).
const MURMUR: i32 = 1;

/// The bloom meta block's version.
const META_VERSION: i32 = 3;

/// HBase's 32-bit Murmur hash (MurmurHash2), including Java's sign extension of the last one
/// to three bytes.
pub(crate) fn murmur(data: &[u8], seed: i32) -> i32 {
    const M: u32 = 0x5bd1_e995;
    let mut h = (seed as u32) ^ (data.len() as u32);
    let mut words = data.chunks_exact(4);
    for w in &mut words {
        let mut k = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        k = k.wrapping_mul(M);
        k ^= k >> 24;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M) ^ k;
    }
    let tail = words.remainder();
    let sext = |b: u8| b as i8 as i32 as u32;
    if tail.len() >= 3 {
        h ^= sext(tail[2]) << 16;
    }
    if tail.len() >= 2 {
        h ^= sext(tail[1]) << 8;
    }
    if !tail.is_empty() {
        h ^= sext(tail[0]);
        h = h.wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^= h >> 15;
    h as i32
}

/// The size of every chunk and what it holds, computed as HBase computes them from the chunk
/// size and the error rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shape {
    pub bytes: usize,
    pub max_keys: u64,
    pub hashes: u32,
}

impl Shape {
    /// The shape of chunks of about `bytes` bytes (rounded up to a multiple of 128, so that a
    /// chunk can be halved seven times).
    pub(crate) fn for_bytes(bytes: usize) -> Shape {
        let fold = 1usize << MAX_FOLD;
        let bytes = bytes.max(1).div_ceil(fold) * fold;
        let bits = (bytes * 8) as f64;
        let error = ERROR_RATE as f64;
        let ln2 = std::f64::consts::LN_2;
        let ideal_keys = (bits * (ln2 * ln2 / -error.ln())) as u64;
        let hashes = (ln2 * ((bytes as u64 * 8) / ideal_keys.max(1)) as f64).ceil() as u32;
        let max_keys =
            (-bits / hashes as f64 * (1.0 - (error.ln() / hashes as f64).exp()).ln()) as u64;
        Shape {
            bytes,
            max_keys,
            hashes,
        }
    }
}

/// One chunk's bits.
struct Chunk {
    first_row: Vec<u8>,
    bits: Vec<u8>,
    keys: u64,
    max_keys: u64,
}

impl Chunk {
    /// Halves the chunk while it has room for twice its keys, OR-ing the halves together.
    fn fold(&mut self) {
        let mut size = self.bits.len();
        let mut max_keys = self.max_keys;
        while size.is_multiple_of(2) && max_keys > 2 * self.keys {
            size /= 2;
            max_keys /= 2;
        }
        if size == self.bits.len() {
            return;
        }
        let (head, rest) = self.bits.split_at_mut(size);
        for piece in rest.chunks_exact(size) {
            for (a, b) in head.iter_mut().zip(piece) {
                *a |= b;
            }
        }
        self.bits.truncate(size);
        self.max_keys = max_keys;
    }
}

/// The ROW bloom of one file.
pub(crate) struct BloomWriter {
    shape: Shape,
    chunk: Option<Chunk>,
    /// Chunks folded and waiting for the next data block boundary.
    ready: VecDeque<Chunk>,
    index: Entries,
    last_row: Vec<u8>,
    keys: u64,
    total_bytes: u64,
    total_max_keys: u64,
}

impl BloomWriter {
    pub(crate) fn new(shape: Shape) -> Self {
        BloomWriter {
            shape,
            chunk: None,
            ready: VecDeque::new(),
            index: Entries::default(),
            last_row: Vec::new(),
            keys: 0,
            total_bytes: 0,
            total_max_keys: 0,
        }
    }

    /// Adds a row: once per row, in the order of the file.
    #[cfg(test)]
    pub(crate) fn add_row(&mut self, row: &[u8]) {
        if self.keys > 0 && row == self.last_row.as_slice() {
            return;
        }
        self.add_new_row(row);
    }

    /// Adds a row the caller knows is not the last one added (a row after it in the file).
    pub(crate) fn add_new_row(&mut self, row: &[u8]) {
        self.close_chunk(false);
        let shape = self.shape;
        let chunk = self.chunk.get_or_insert_with(|| Chunk {
            first_row: row.to_vec(),
            bits: vec![0; shape.bytes],
            keys: 0,
            max_keys: shape.max_keys,
        });
        let bits = (shape.bytes * 8) as i64;
        let h1 = murmur(row, 0);
        let h2 = murmur(row, h1);
        for i in 0..shape.hashes as i32 {
            let at = ((h1.wrapping_add(i.wrapping_mul(h2)) as i64) % bits).unsigned_abs() as usize;
            chunk.bits[at >> 3] |= 1 << (at & 7);
        }
        chunk.keys += 1;
        self.keys += 1;
        self.last_row.clear();
        self.last_row.extend_from_slice(row);
    }

    /// Moves the chunk to the ready ones if it is full (or whatever it holds when `closing`).
    fn close_chunk(&mut self, closing: bool) {
        let full = match &self.chunk {
            Some(c) => closing || c.keys >= c.max_keys,
            None => false,
        };
        if full {
            let mut chunk = self.chunk.take().expect("checked");
            chunk.fold();
            self.total_bytes += chunk.bits.len() as u64;
            self.total_max_keys += chunk.max_keys;
            self.ready.push_back(chunk);
        }
    }

    /// Writes the chunks that are ready (at a data block boundary; all of them when closing).
    pub(crate) fn write_ready<W: Write>(
        &mut self,
        blocks: &mut BlockWriter<W>,
        closing: bool,
    ) -> Result<Vec<Placed>> {
        self.close_chunk(closing);
        let mut written = Vec::new();
        while let Some(chunk) = self.ready.pop_front() {
            let placed = blocks.write(BlockType::BloomChunk, &chunk.bits)?;
            self.index
                .push(chunk.first_row, (placed.offset, placed.on_disk), 0);
            written.push(placed);
        }
        Ok(written)
    }

    /// The last row added (the file info's `LAST_BLOOM_KEY`), if any.
    pub(crate) fn last_row(&self) -> Option<&[u8]> {
        (self.keys > 0).then_some(self.last_row.as_slice())
    }

    /// The meta block's body: the filter's parameters and the index of its chunks; `None`
    /// without a key (no meta block is written then).
    pub(crate) fn meta(&self) -> Option<Vec<u8>> {
        if self.keys == 0 {
            return None;
        }
        let mut out = Vec::new();
        out.extend_from_slice(&META_VERSION.to_be_bytes());
        out.extend_from_slice(&self.total_bytes.to_be_bytes());
        out.extend_from_slice(&(self.shape.hashes as i32).to_be_bytes());
        out.extend_from_slice(&MURMUR.to_be_bytes());
        out.extend_from_slice(&self.keys.to_be_bytes());
        out.extend_from_slice(&self.total_max_keys.to_be_bytes());
        out.extend_from_slice(&(self.index.len() as i32).to_be_bytes());
        // No comparator (a ROW bloom's keys are plain rows): an empty name.
        out.push(0);
        self.index.write_root(&mut out);
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values of HBase's own `MurmurHash`.
    #[test]
    fn murmur_is_hbase_s() {
        assert_eq!(murmur(b"", 0), 0);
        assert_eq!(murmur(b"abc", 0), 324_500_635);
        assert_eq!(murmur(&[0xff, 0x80, 0x01], 0), 1_397_589_984);
        assert_eq!(murmur(b"row00000000", 0), 1_224_561_894);
        assert_eq!(murmur(b"row1", 0), 155_469_074);
        assert_eq!(murmur(b"row1", 155_469_074), -1_581_353_726);
    }

    /// HBase's default chunk: 128 KiB, 7 hashes, 109,306 keys.
    #[test]
    fn the_default_chunk_is_hbase_s() {
        assert_eq!(
            Shape::for_bytes(128 * 1024),
            Shape {
                bytes: 131_072,
                max_keys: 109_306,
                hashes: 7
            }
        );
    }

    /// A chunk of one row folds to 2 bytes with the bits HBase sets for `row1`.
    #[test]
    fn a_chunk_of_one_row_folds_to_two_bytes() {
        let mut bloom = BloomWriter::new(Shape::for_bytes(128 * 1024));
        bloom.add_row(b"row1");
        bloom.add_row(b"row1");
        let mut blocks = BlockWriter::new(Vec::new(), crate::Compression::None);
        let written = bloom.write_ready(&mut blocks, true).unwrap();
        assert_eq!(written.len(), 1);
        let out = blocks.finish().unwrap();
        assert_eq!(&out[33..35], &[0x44, 0x11]);
        assert_eq!(bloom.keys, 1);
        assert_eq!(bloom.total_max_keys, 1);
    }
}
