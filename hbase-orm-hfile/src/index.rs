//! The data block index: one entry per data block, in leaf blocks written among the data
//! blocks once they fill a chunk, under intermediate blocks when the root would be too large,
//! under one root block that the reader loads when it opens the file.

use std::io::Write;

use crate::block::{BlockType, BlockWriter, Placed};
use crate::wire::{vlong_len, write_vlong};
use crate::Result;

/// Index entries of one level, in order.
#[derive(Default)]
pub(crate) struct Entries {
    keys: Vec<Vec<u8>>,
    places: Vec<(u64, u32)>,
    /// Per entry, the data blocks counted up to and including it (leaf level only).
    counts: Vec<u64>,
    /// The sum over entries of their keys' lengths.
    key_bytes: usize,
    /// The sum over entries of the lengths of their keys' length prefixes (root format).
    prefix_bytes: usize,
}

impl Entries {
    pub(crate) fn push(&mut self, key: Vec<u8>, place: (u64, u32), count: u64) {
        self.key_bytes += key.len();
        self.prefix_bytes += vlong_len(key.len() as i64);
        self.keys.push(key);
        self.places.push(place);
        self.counts.push(count);
    }

    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }

    fn clear(&mut self) {
        *self = Entries::default();
    }

    /// Their size as a leaf or intermediate block's body: a count, the entries' offsets, the
    /// entries.
    fn non_root_size(&self) -> usize {
        4 + 4 * (self.len() + 1) + 12 * self.len() + self.key_bytes
    }

    /// Their size as a root block's body (without mid-key data).
    pub(crate) fn root_size(&self) -> usize {
        12 * self.len() + self.prefix_bytes + self.key_bytes
    }

    /// Appends them in root format: per entry its block's offset and size, and its key with
    /// its length.
    pub(crate) fn write_root(&self, out: &mut Vec<u8>) {
        for (key, (offset, size)) in self.keys.iter().zip(&self.places) {
            out.extend_from_slice(&offset.to_be_bytes());
            out.extend_from_slice(&size.to_be_bytes());
            write_vlong(out, key.len() as i64);
            out.extend_from_slice(key);
        }
    }

    /// Appends them in the format of leaf and intermediate blocks: their count, where each
    /// starts, then the entries (keys without their length: the next entry's start gives it).
    fn write_non_root(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&(self.len() as u32).to_be_bytes());
        let mut at = 0u32;
        for key in &self.keys {
            out.extend_from_slice(&at.to_be_bytes());
            at += 12 + key.len() as u32;
        }
        out.extend_from_slice(&at.to_be_bytes());
        for (key, (offset, size)) in self.keys.iter().zip(&self.places) {
            out.extend_from_slice(&offset.to_be_bytes());
            out.extend_from_slice(&size.to_be_bytes());
            out.extend_from_slice(key);
        }
    }
}

/// What the trailer says of the index.
pub(crate) struct Written {
    pub root: Placed,
    pub root_entries: usize,
    pub levels: u32,
    /// The bodies of every index block but the root's, and the root's, summed.
    pub uncompressed_size: u64,
}

/// Builds the data block index as data blocks are written.
pub(crate) struct IndexWriter {
    /// The most bytes an index block's entries take before it is written.
    max_chunk: usize,
    /// The fewest entries an intermediate block takes.
    min_entries: usize,
    /// The entries of the leaf block being filled.
    leaf: Entries,
    /// One entry per leaf block written.
    leaves: Entries,
    data_blocks: u64,
    uncompressed_size: u64,
    body: Vec<u8>,
}

impl IndexWriter {
    pub(crate) fn new(max_chunk: usize, min_entries: usize) -> Self {
        IndexWriter {
            max_chunk,
            min_entries,
            leaf: Entries::default(),
            leaves: Entries::default(),
            data_blocks: 0,
            uncompressed_size: 0,
            body: Vec::new(),
        }
    }

    /// Records a data block whose index key is `key`.
    pub(crate) fn add(&mut self, key: Vec<u8>, block: Placed) {
        self.data_blocks += 1;
        self.leaf
            .push(key, (block.offset, block.on_disk), self.data_blocks);
    }

    /// Writes the leaf block being filled if it is full, or at the end of the data if the
    /// index already has leaves (else its entries become the root).
    pub(crate) fn write_leaf_if_due<W: Write>(
        &mut self,
        blocks: &mut BlockWriter<W>,
        closing: bool,
    ) -> Result<Option<Placed>> {
        let due = if closing {
            self.leaves.len() > 0 && self.leaf.len() > 0
        } else {
            self.leaf.non_root_size() >= self.max_chunk
        };
        if !due {
            return Ok(None);
        }
        self.body.clear();
        self.leaf.write_non_root(&mut self.body);
        let placed = blocks.write(BlockType::LeafIndex, &self.body)?;
        self.uncompressed_size += self.body.len() as u64;
        let first = std::mem::take(&mut self.leaf.keys[0]);
        self.leaves
            .push(first, (placed.offset, placed.on_disk), self.data_blocks);
        self.leaf.clear();
        Ok(Some(placed))
    }

    /// Writes the intermediate levels the root needs, then the root block; after every data
    /// and leaf block.
    pub(crate) fn finish<W: Write>(mut self, blocks: &mut BlockWriter<W>) -> Result<Written> {
        let mut levels = 1;
        let mut mid_key = Vec::new();
        let mut level = if self.leaves.len() == 0 {
            std::mem::take(&mut self.leaf)
        } else {
            levels = 2;
            self.mid_key(&mut mid_key);
            std::mem::take(&mut self.leaves)
        };
        // Intermediate levels go between the root and the leaves: an index without leaves (its
        // entries point at data blocks) stays one level, however large (as HBase writes it).
        while levels > 1
            && level.root_size() > self.max_chunk
            && level.len() > self.min_entries
            && levels < 16
        {
            level = self.intermediate_level(blocks, level)?;
            levels += 1;
        }
        self.body.clear();
        level.write_root(&mut self.body);
        self.body.extend_from_slice(&mid_key);
        let root = blocks.write(BlockType::RootIndex, &self.body)?;
        self.uncompressed_size += self.body.len() as u64;
        Ok(Written {
            root,
            root_entries: level.len(),
            levels,
            uncompressed_size: self.uncompressed_size,
        })
    }

    /// Writes `level` as intermediate blocks; their entries.
    fn intermediate_level<W: Write>(
        &mut self,
        blocks: &mut BlockWriter<W>,
        level: Entries,
    ) -> Result<Entries> {
        let mut parent = Entries::default();
        let mut chunk = Entries::default();
        let Entries { keys, places, .. } = level;
        let n = keys.len();
        for (i, (key, place)) in keys.into_iter().zip(places).enumerate() {
            chunk.push(key, place, 0);
            let full = i >= self.min_entries && chunk.root_size() >= self.max_chunk;
            if full || i + 1 == n {
                self.body.clear();
                chunk.write_non_root(&mut self.body);
                let placed = blocks.write(BlockType::IntermediateIndex, &self.body)?;
                self.uncompressed_size += self.body.len() as u64;
                let first = std::mem::take(&mut chunk.keys[0]);
                parent.push(first, (placed.offset, placed.on_disk), 0);
                chunk.clear();
            }
        }
        Ok(parent)
    }

    /// The root's 16 bytes of mid-key data: the leaf block that holds the middle data block's
    /// entry, and the entry's place in it.
    fn mid_key(&self, out: &mut Vec<u8>) {
        let counts = &self.leaves.counts;
        let middle = (self.data_blocks - 1) / 2;
        let leaf = match counts.binary_search(&middle) {
            Ok(k) => k + 1,
            Err(k) => k,
        };
        let before = if leaf > 0 { counts[leaf - 1] } else { 0 };
        let (offset, size) = self.leaves.places[leaf];
        out.extend_from_slice(&offset.to_be_bytes());
        out.extend_from_slice(&size.to_be_bytes());
        out.extend_from_slice(&((middle - before) as u32).to_be_bytes());
    }
}
