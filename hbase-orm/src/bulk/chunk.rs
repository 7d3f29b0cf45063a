//! A chunk of a stream's input held as records (the spilled runs' format) in one buffer: each
//! put is written as its record when it arrives and dropped on the thread that made it, so a
//! chunk is one allocation, sorted by an index of its records, and written to its run with
//! no encoding left to do.

use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;

use super::plan::{finish_put, merge_row};
use super::record::{write_record, Record};
use super::runs::RunWriter;
use crate::model::{Put, Result};

/// Records, in one buffer, and where each starts (at its length).
pub(super) struct RecordChunk {
    bytes: Vec<u8>,
    starts: Vec<usize>,
}

/// The row of the record starting at `start` of `bytes` (its length, then its row's).
fn row_at(bytes: &[u8], start: usize) -> &[u8] {
    let len = u32::from_le_bytes(bytes[start + 4..start + 8].try_into().expect("4 bytes"));
    &bytes[start + 8..start + 8 + len as usize]
}

/// The record starting at `start` of `bytes`, its length first.
fn record_at(bytes: &[u8], start: usize) -> &[u8] {
    let len = u32::from_le_bytes(bytes[start..start + 4].try_into().expect("4 bytes"));
    &bytes[start..start + 4 + len as usize]
}

impl RecordChunk {
    /// An empty chunk with room for `bytes` of records.
    pub(super) fn with_capacity(bytes: usize) -> RecordChunk {
        RecordChunk {
            bytes: Vec::with_capacity(bytes),
            starts: Vec::new(),
        }
    }

    /// The chunk emptied, its buffers kept for the next one.
    pub(super) fn emptied(mut self) -> RecordChunk {
        self.bytes.clear();
        self.starts.clear();
        self
    }

    /// Adds `put`, its cells given their timestamps (`now` for those without) and put in
    /// HBase's order.
    pub(super) fn push(&mut self, mut put: Put, now: i64) -> std::io::Result<()> {
        finish_put(&mut put, now);
        let start = self.bytes.len();
        write_record(&put, &mut self.bytes)?;
        self.starts.push(start);
        Ok(())
    }

    /// The bytes it holds.
    pub(super) fn held(&self) -> usize {
        self.bytes.len() + self.starts.len() * std::mem::size_of::<usize>()
    }

    /// Sorts the records by row (stable: of two with the same row, the one given first stays
    /// first), the records of one row merged into one (the later cell of two with the same
    /// key kept), appended to the buffer.
    pub(super) fn sort(&mut self) -> std::io::Result<()> {
        let bytes = &self.bytes;
        self.starts
            .sort_by(|&a, &b| row_at(bytes, a).cmp(row_at(bytes, b)));
        let same = |w: &[usize]| row_at(&self.bytes, w[0]) == row_at(&self.bytes, w[1]);
        if !self.starts.windows(2).any(same) {
            return Ok(());
        }
        let mut starts = Vec::with_capacity(self.starts.len());
        let mut at = 0;
        while at < self.starts.len() {
            let row = row_at(&self.bytes, self.starts[at]);
            let end = at
                + self.starts[at..]
                    .iter()
                    .take_while(|&&s| row_at(&self.bytes, s) == row)
                    .count();
            if end - at == 1 {
                starts.push(self.starts[at]);
            } else {
                let mut puts = self.starts[at..end]
                    .iter()
                    .map(|&s| self.put_at(s))
                    .collect::<std::io::Result<Vec<Put>>>()?
                    .into_iter();
                let mut merged = puts.next().expect("two puts or more");
                puts.for_each(|later| merge_row(&mut merged, later));
                starts.push(self.bytes.len());
                write_record(&merged, &mut self.bytes)?;
            }
            at = end;
        }
        self.starts = starts;
        Ok(())
    }

    /// The put of the record starting at `start`.
    fn put_at(&self, start: usize) -> std::io::Result<Put> {
        let record = record_at(&self.bytes, start);
        Ok(Record::parse(Bytes::copy_from_slice(&record[4..]))?.to_put())
    }

    /// Writes the sorted records to a run at `path`.
    pub(super) fn spill(&self, path: &Path) -> Result<()> {
        let mut run = RunWriter::create(path)?;
        for &start in &self.starts {
            run.write_bytes(record_at(&self.bytes, start))?;
        }
        run.finish()
    }

    /// The sorted records, kept in memory as a run.
    pub(super) fn into_sorted(self) -> SortedRecords {
        SortedRecords {
            bytes: Bytes::from(self.bytes),
            starts: Arc::new(self.starts),
        }
    }
}

/// A sorted chunk kept in memory: its records, in row order.
#[derive(Clone)]
pub(super) struct SortedRecords {
    bytes: Bytes,
    starts: Arc<Vec<usize>>,
}

impl SortedRecords {
    /// Its `i`th record, `None` past the last.
    pub(super) fn get(&self, i: usize) -> Option<std::io::Result<Record>> {
        let start = *self.starts.get(i)?;
        let len = record_at(&self.bytes, start).len();
        Some(Record::parse(self.bytes.slice(start + 4..start + len)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(row: &str, cells: &[(&str, &str, Option<i64>, &str)]) -> Put {
        cells
            .iter()
            .fold(Put::new(row), |p, (f, q, ts, v)| match ts {
                Some(ts) => p.column_at(*f, *q, *ts, v.as_bytes().to_vec()),
                None => p.column(*f, *q, v.as_bytes().to_vec()),
            })
    }

    /// The chunk's puts, as read from its sorted records.
    fn puts(chunk: RecordChunk) -> Vec<Put> {
        let sorted = chunk.into_sorted();
        (0..)
            .map_while(|i| sorted.get(i))
            .map(|r| r.unwrap().to_put())
            .collect()
    }

    /// Sorted as a chunk of puts is: rows in order, the puts of one row merged, the later
    /// cell of two with the same key kept, cells without a timestamp given `now`.
    #[test]
    fn records_sort_as_the_puts_do() {
        let given = vec![
            put("b", &[("d", "q", Some(5), "old"), ("a", "x", None, "1")]),
            put("a", &[("d", "q", Some(5), "a5"), ("d", "q", Some(9), "a9")]),
            put("c", &[("d", "q", None, "c")]),
            put("b", &[("d", "q", Some(5), "new")]),
            put("b", &[("d", "r", Some(5), "r")]),
        ];
        let mut chunk = RecordChunk::with_capacity(16);
        for p in given.clone() {
            chunk.push(p, 100).unwrap();
        }
        assert!(chunk.held() > 0);
        chunk.sort().unwrap();
        assert_eq!(puts(chunk), super::super::plan::sort_chunk(given, 100));

        let mut emptied = RecordChunk::with_capacity(0);
        emptied.push(put("z", &[("d", "q", None, "z")]), 1).unwrap();
        let emptied = emptied.emptied();
        assert_eq!(emptied.held(), 0);
        assert!(puts(emptied).is_empty());
    }
}
