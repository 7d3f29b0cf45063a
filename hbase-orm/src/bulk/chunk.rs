//! A chunk of a stream's input held as records (the spilled runs' format) in one buffer: each
//! put is written as its record when it arrives and dropped on the thread that made it, so a
//! chunk is one allocation, sorted by an index of its records, and written to its run with
//! no encoding left to do.

use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;
use hbase_orm_hfile::compare_bytes;

use super::plan::{finish_put, merge_rows};
use super::record::{row_of, write_record, write_row_record, Record, RunWriter};
use crate::model::CellRef;
use crate::model::{Put, Result};

/// Records, in one buffer, and where each starts (at its length).
pub(super) struct RecordChunk {
    bytes: Vec<u8>,
    /// The records made by [`RecordChunk::sort`] of the records of one row, numbered in
    /// `starts` after `bytes` (so that `bytes` never grows past what was pushed).
    merged: Vec<u8>,
    starts: Vec<usize>,
}

/// The record at the start of `bytes`, its length first.
fn record_of(bytes: &[u8]) -> &[u8] {
    let len = u32::from_le_bytes(bytes[..4].try_into().expect("4 bytes"));
    &bytes[..4 + len as usize]
}

/// The buffer holding the record numbered `start` (`bytes`, or after them `merged`), and
/// where in it the record starts.
fn locate<'a, B: AsRef<[u8]>>(bytes: &'a B, merged: &'a B, start: usize) -> (&'a B, usize) {
    match start.checked_sub(bytes.as_ref().len()) {
        None => (bytes, start),
        Some(at) => (merged, at),
    }
}

/// The put of the record at the start of `bytes`.
fn put_of(bytes: &[u8]) -> std::io::Result<Put> {
    let record = record_of(bytes);
    Ok(Record::parse(Bytes::copy_from_slice(&record[4..]))?.to_put())
}

/// `cells` (of one row) with their timestamps given (see [`stamp`]), telling `ordered` as they
/// are read whether they come in HBase's order, each key once: family, qualifier, then the
/// newer timestamp first. Checked while another pass reads them, not in a pass of its own:
/// `ordered` starts `true`, is only ever set `false`, and tells the whole row once every cell
/// has been read.
pub(super) fn stamped_in_order<'c: 'f, 'f>(
    cells: impl Iterator<Item = CellRef<'c>> + 'f,
    now: i64,
    ordered: &'f mut bool,
) -> impl Iterator<Item = CellRef<'c>> + 'f {
    let mut previous: Option<CellRef<'c>> = None;
    cells.map(move |c| stamp(c, now)).inspect(move |cell| {
        if let Some(p) = previous {
            *ordered &= cell_order(&p, cell).is_lt();
        }
        previous = Some(*cell);
    })
}

/// `cell` with its timestamp given: `now` for HBase's "latest" (`i64::MAX`).
pub(super) fn stamp(cell: CellRef<'_>, now: i64) -> CellRef<'_> {
    CellRef {
        timestamp: if cell.timestamp == i64::MAX {
            now
        } else {
            cell.timestamp
        },
        ..cell
    }
}

/// How two cells of one row sort.
#[inline]
fn cell_order(a: &CellRef<'_>, b: &CellRef<'_>) -> std::cmp::Ordering {
    // An entity's cells share their family's name: compared by address first.
    let same_family = std::ptr::eq(a.family, b.family);
    if same_family {
        std::cmp::Ordering::Equal
    } else {
        compare_bytes(a.family, b.family)
    }
    .then_with(|| compare_bytes(a.qualifier, b.qualifier))
    .then_with(|| b.timestamp.cmp(&a.timestamp))
}

impl RecordChunk {
    /// An empty chunk with room for `bytes` of records.
    pub(super) fn with_capacity(bytes: usize) -> RecordChunk {
        RecordChunk {
            bytes: Vec::with_capacity(bytes),
            merged: Vec::new(),
            starts: Vec::new(),
        }
    }

    /// The chunk emptied, its buffer kept for the next one.
    pub(super) fn emptied(mut self) -> RecordChunk {
        self.bytes.clear();
        self.merged = Vec::new();
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

    /// Adds the row of `cells` already in HBase's order, each key once (the cells of one
    /// entity value), written as its record straight from where they lie; their timestamps
    /// given as [`RecordChunk::push`] gives them (`now` for HBase's "latest"). `false`, and
    /// nothing added, when they are not in that order: push them as a put then.
    pub(super) fn push_row<'c>(
        &mut self,
        row: &[u8],
        cells: impl Iterator<Item = CellRef<'c>>,
        now: i64,
    ) -> std::io::Result<bool> {
        // Written as they are checked: a row out of order is taken back out.
        let mut ordered = true;
        let start = self.bytes.len();
        let written = write_row_record(
            row,
            stamped_in_order(cells, now, &mut ordered),
            &mut self.bytes,
        );
        if written.is_err() || !ordered {
            self.bytes.truncate(start);
            return written.map(|()| false);
        }
        self.starts.push(start);
        Ok(true)
    }

    /// The bytes it holds.
    pub(super) fn held(&self) -> usize {
        self.bytes.len() + self.starts.len() * std::mem::size_of::<usize>()
    }

    /// The record starting at `start`.
    fn record(&self, start: usize) -> &[u8] {
        let (buffer, at) = locate(&self.bytes, &self.merged, start);
        record_of(&buffer[at..])
    }

    /// Sorts the records by row (stable: of two with the same row, the one given first stays
    /// first), the records of one row merged into one (the later cell of two with the same
    /// key kept), made apart from the records pushed.
    pub(super) fn sort(&mut self) -> std::io::Result<()> {
        let bytes = &self.bytes;
        let row = |start: &usize| row_of(&bytes[*start..]);
        self.starts.sort_by(|a, b| row(a).cmp(row(b)));
        if !self.starts.windows(2).any(|w| row(&w[0]) == row(&w[1])) {
            return Ok(());
        }
        let mut starts = Vec::with_capacity(self.starts.len());
        for group in self.starts.chunk_by(|a, b| row(a) == row(b)) {
            if let [start] = group {
                starts.push(*start);
                continue;
            }
            let mut puts = group
                .iter()
                .map(|&start| put_of(&bytes[start..]))
                .collect::<std::io::Result<Vec<Put>>>()?
                .into_iter();
            let mut merged = puts.next().expect("a group holds a put");
            merge_rows(&mut merged, puts);
            starts.push(bytes.len() + self.merged.len());
            write_record(&merged, &mut self.merged)?;
        }
        self.starts = starts;
        Ok(())
    }

    /// Writes the sorted records to a run at `path`.
    pub(super) fn spill(&self, path: &Path) -> Result<()> {
        let mut run = RunWriter::create(path)?;
        for &start in &self.starts {
            run.write_bytes(self.record(start))?;
        }
        run.finish()
    }

    /// The sorted records, kept in memory as a run.
    pub(super) fn into_sorted(self) -> SortedRecords {
        SortedRecords {
            bytes: Bytes::from(self.bytes),
            merged: Bytes::from(self.merged),
            starts: Arc::new(self.starts),
        }
    }
}

/// A sorted chunk kept in memory: its records, in row order.
#[derive(Clone)]
pub(super) struct SortedRecords {
    bytes: Bytes,
    merged: Bytes,
    starts: Arc<Vec<usize>>,
}

impl SortedRecords {
    /// Its `i`th record, `None` past the last.
    pub(super) fn get(&self, i: usize) -> Option<std::io::Result<Record>> {
        let (buffer, at) = locate(&self.bytes, &self.merged, *self.starts.get(i)?);
        let len = record_of(&buffer[at..]).len();
        Some(Record::parse(buffer.slice(at + 4..at + len)))
    }
}

#[cfg(test)]
mod tests {
    use super::super::plan::tests::put;
    use super::*;

    /// The chunk's puts, as read from its sorted records.
    fn puts(chunk: RecordChunk) -> Vec<Put> {
        let sorted = chunk.into_sorted();
        (0..)
            .map_while(|i| sorted.get(i))
            .map(|r| r.unwrap().to_put())
            .collect()
    }

    /// Sorted as a chunk of puts is: rows in order, the puts of one row merged, the later
    /// cell of two with the same key kept (in one put or two), cells without a timestamp
    /// given `now`.
    #[test]
    fn records_sort_as_the_puts_do() {
        let given = vec![
            put("k", &[("d", "v", Some(3), "k3"), ("c", "w", None, "kw")]),
            put("e", &[("d", "v", Some(3), "e3"), ("d", "v", Some(8), "e8")]),
            put(
                "c",
                &[
                    ("d", "q", None, "c"),
                    ("a", "z", Some(1), "z"),
                    ("d", "q", None, "c2"),
                ],
            ),
            put("k", &[("d", "v", Some(3), "newer")]),
            put("k", &[("d", "x", Some(3), "x")]),
        ];
        let mut chunk = RecordChunk::with_capacity(16);
        for p in given.clone() {
            chunk.push(p, 100).unwrap();
        }
        assert!(chunk.held() > 0);
        chunk.sort().unwrap();
        assert_eq!(puts(chunk), super::super::plan::sort_chunk(given, 100));

        // Many puts of two rows, merged apart from the buffer pushed to (which the merge
        // never grows).
        let many: Vec<Put> = (0..3_000)
            .map(|i| {
                put(
                    if i % 3 == 0 { "m" } else { "n" },
                    &[("d", &format!("q{}", i % 7), None, &i.to_string())],
                )
            })
            .collect();
        let mut chunk = RecordChunk::with_capacity(1 << 20);
        for p in many.clone() {
            chunk.push(p, 7).unwrap();
        }
        let pushed = (chunk.bytes.len(), chunk.bytes.capacity());
        chunk.sort().unwrap();
        assert_eq!((chunk.bytes.len(), chunk.bytes.capacity()), pushed);
        assert!(!chunk.merged.is_empty());
        assert_eq!(puts(chunk), super::super::plan::sort_chunk(many, 7));

        // A row pushed from its cells where they lie reads back as its put; cells out of
        // order (or a key twice) are refused, nothing added.
        let cell = |q: &'static str, ts: i64, v: &'static str| CellRef {
            family: b"d",
            qualifier: q.as_bytes(),
            value: v.as_bytes(),
            timestamp: ts,
        };
        let mut rows = RecordChunk::with_capacity(64);
        let ordered = [
            cell("a", i64::MAX, "1"),
            cell("b", 9, "new"),
            cell("b", 3, "old"),
        ];
        assert!(rows.push_row(b"r2", ordered.iter().copied(), 50).unwrap());
        for unordered in [
            [cell("b", 1, "x"), cell("a", 1, "y"), cell("c", 1, "z")],
            [cell("a", 3, "x"), cell("a", 9, "y"), cell("c", 1, "z")],
            [cell("a", 3, "x"), cell("a", 3, "y"), cell("c", 1, "z")],
        ] {
            let held = rows.held();
            assert!(!rows.push_row(b"r1", unordered.iter().copied(), 50).unwrap());
            assert_eq!(rows.held(), held);
        }
        rows.push(put("r1", &[("d", "q", Some(4), "v")]), 50)
            .unwrap();
        rows.sort().unwrap();
        let want = vec![
            put("r1", &[("d", "q", Some(4), "v")]),
            put(
                "r2",
                &[
                    ("d", "a", Some(50), "1"),
                    ("d", "b", Some(9), "new"),
                    ("d", "b", Some(3), "old"),
                ],
            ),
        ];
        assert_eq!(puts(rows), want);

        let mut emptied = RecordChunk::with_capacity(0);
        emptied.push(put("z", &[("d", "q", None, "z")]), 1).unwrap();
        let emptied = emptied.emptied();
        assert_eq!(emptied.held(), 0);
        assert!(puts(emptied).is_empty());
    }
}
