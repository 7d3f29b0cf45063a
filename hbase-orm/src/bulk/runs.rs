//! Sorted runs: the input cut into chunks under the memory budget, each sorted, the full ones
//! spilled to a file of the load's directory; then merged back into one stream of puts in row
//! order (the puts of one row from several runs merged, the later run's cells winning), read
//! again for the rows of regions that have to be written anew.

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::{Buf, Bytes, BytesMut};

use super::plan::merge_row;
use crate::model::{Put, PutCell, Result};

/// A sorted run.
pub(super) enum Run {
    /// The last chunk, kept in memory.
    Memory(Arc<Vec<Put>>),
    /// A chunk spilled to a file.
    Disk(PathBuf),
}

/// Runs merged at once at most: past this many spilled runs, they are merged into one first
/// (open files and read buffers stay bounded whatever the input's size).
pub(super) const MAX_RUNS: usize = 64;

/// The read buffer of a spilled run (at most [`MAX_RUNS`] of them: 16 MiB).
const READ_BUFFER: usize = 256 << 10;

/// Writes a sorted chunk to `path`: per put its row and cells, lengths first.
pub(super) fn spill(path: &Path, puts: &[Put]) -> Result<()> {
    write_run(path, puts.iter().map(Ok))
}

/// Writes sorted puts to `path`.
fn write_run<P: Deref<Target = Put>>(
    path: &Path,
    puts: impl Iterator<Item = Result<P>>,
) -> Result<()> {
    let file = File::create(path).map_err(|e| super::staging_error(path, e))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let mut record = Vec::new();
    for put in puts {
        let put = put?;
        record.clear();
        put_record(&put, &mut record).map_err(|e| super::staging_error(path, e))?;
        out.write_all(&record)
            .map_err(|e| super::staging_error(path, e))?;
    }
    out.flush().map_err(|e| super::staging_error(path, e))
}

/// A put as a run holds it: its record's length, then its row and cells, lengths first (one
/// read brings a put back whole, and its cells share that one buffer).
fn put_record(put: &Put, out: &mut Vec<u8>) -> std::io::Result<()> {
    let cells: usize = put
        .cells
        .iter()
        .map(|c| 12 + c.family.len() + c.qualifier.len() + c.value.len() + 8)
        .sum();
    let record = 4 + put.row.len() + 4 + cells;
    out.reserve(4 + record);
    out.extend_from_slice(&len32(record)?.to_le_bytes());
    out.extend_from_slice(&len32(put.row.len())?.to_le_bytes());
    out.extend_from_slice(&put.row);
    out.extend_from_slice(&len32(put.cells.len())?.to_le_bytes());
    for cell in &put.cells {
        for part in [&cell.family, &cell.qualifier, &cell.value] {
            out.extend_from_slice(&len32(part.len())?.to_le_bytes());
            out.extend_from_slice(part);
        }
        out.extend_from_slice(&cell.timestamp.unwrap_or_default().to_le_bytes());
    }
    Ok(())
}

/// A length as a run writes it (a put of 4 GiB or more is not one HBase takes).
fn len32(len: usize) -> std::io::Result<u32> {
    u32::try_from(len).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("a put of {len} bytes does not fit a sorted run"),
        )
    })
}

/// Merges spilled `runs` into one run at `path`, and removes them.
pub(super) fn compact(runs: &[Run], path: &Path) -> Result<Run> {
    let mut merge = Merge::new(runs, None)?;
    write_run(path, std::iter::from_fn(|| merge.next_put().transpose()))?;
    for run in runs {
        if let Run::Disk(old) = run {
            std::fs::remove_file(old).map_err(|e| super::staging_error(old, e))?;
        }
    }
    Ok(Run::Disk(path.to_path_buf()))
}

/// A spilled run read back: its file read a block at a time, each put's record a slice of
/// its block.
struct RunReader {
    file: File,
    /// What was read of the file and not yet taken.
    buffer: Bytes,
}

impl RunReader {
    /// The next put, or `None` at the run's end.
    fn next_put(&mut self) -> std::io::Result<Option<Put>> {
        if !self.fill(4)? {
            return Ok(None);
        }
        let len = u32::from_le_bytes(self.buffer[..4].try_into().expect("4 bytes")) as usize;
        if !self.fill(4 + len)? {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "a sorted run ends in the middle of a put",
            ));
        }
        let bytes = self.buffer.slice(4..4 + len);
        self.buffer.advance(4 + len);
        read_put(Record { bytes, at: 0 }).map(Some)
    }

    /// Makes the buffer hold at least `len` bytes; false at the file's end before any byte of
    /// them (before all of them, when some were there).
    fn fill(&mut self, len: usize) -> std::io::Result<bool> {
        if self.buffer.len() >= len {
            return Ok(true);
        }
        let mut block = BytesMut::zeroed(READ_BUFFER.max(len));
        let mut filled = self.buffer.len();
        block[..filled].copy_from_slice(&self.buffer);
        while filled < len {
            match self.file.read(&mut block[filled..])? {
                0 => break,
                read => filled += read,
            }
        }
        block.truncate(filled);
        self.buffer = block.freeze();
        Ok(filled >= len)
    }
}

/// A put of a spilled run from its record.
fn read_put(mut record: Record) -> std::io::Result<Put> {
    let mut put = Put::new(record.part()?.to_vec());
    let count = record.length()?;
    put.cells.reserve(count);
    for _ in 0..count {
        let (family, qualifier, value) = (record.part()?, record.part()?, record.part()?);
        let stamp = record.advance(8)?;
        let stamp = record.bytes[stamp].try_into().expect("8 bytes");
        put.cells.push(PutCell {
            family,
            qualifier,
            value,
            timestamp: Some(i64::from_le_bytes(stamp)),
        });
    }
    Ok(put)
}

/// One put's record read back: its parts are slices of it.
struct Record {
    bytes: Bytes,
    at: usize,
}

impl Record {
    /// Where the next `len` bytes are.
    fn advance(&mut self, len: usize) -> std::io::Result<std::ops::Range<usize>> {
        let end = self.at + len;
        if end > self.bytes.len() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "a put of a sorted run is cut short",
            ));
        }
        Ok(std::mem::replace(&mut self.at, end)..end)
    }

    /// The next `len` bytes.
    fn take(&mut self, len: usize) -> std::io::Result<Bytes> {
        let range = self.advance(len)?;
        Ok(self.bytes.slice(range))
    }

    /// A length (four bytes, little-endian).
    fn length(&mut self) -> std::io::Result<usize> {
        let range = self.advance(4)?;
        let word = self.bytes[range].try_into().expect("4 bytes");
        Ok(u32::from_le_bytes(word) as usize)
    }

    /// A part written after its length.
    fn part(&mut self) -> std::io::Result<Bytes> {
        let len = self.length()?;
        self.take(len)
    }
}

/// A put of a run: shared with the in-memory run, or owned (read from a file, or merged).
pub(super) enum RunPut {
    Shared(Arc<Vec<Put>>, usize),
    Owned(Put),
}

impl Deref for RunPut {
    type Target = Put;
    fn deref(&self) -> &Put {
        match self {
            RunPut::Shared(puts, i) => &puts[*i],
            RunPut::Owned(put) => put,
        }
    }
}

impl RunPut {
    fn into_owned(self) -> Put {
        match self {
            RunPut::Shared(puts, i) => puts[i].clone(),
            RunPut::Owned(put) => put,
        }
    }
}

/// Reads one run from its start.
enum Cursor {
    Memory(Arc<Vec<Put>>, usize),
    Disk(RunReader, PathBuf),
}

impl Cursor {
    fn open(run: &Run) -> Result<Cursor> {
        Ok(match run {
            Run::Memory(puts) => Cursor::Memory(puts.clone(), 0),
            Run::Disk(path) => {
                let file = File::open(path).map_err(|e| super::staging_error(path, e))?;
                let reader = RunReader {
                    file,
                    buffer: Bytes::new(),
                };
                Cursor::Disk(reader, path.clone())
            }
        })
    }

    fn next(&mut self) -> Result<Option<RunPut>> {
        match self {
            Cursor::Memory(puts, at) => {
                let put = (*at < puts.len()).then(|| RunPut::Shared(puts.clone(), *at));
                *at += 1;
                Ok(put)
            }
            Cursor::Disk(input, path) => Ok(input
                .next_put()
                .map_err(|e| super::staging_error(path, e))?
                .map(RunPut::Owned)),
        }
    }
}

/// The puts of all runs in row order, merged, limited to the rows of `ranges` (inclusive
/// first and last rows, in order) when given. The runs are kept in the order of their next
/// puts' rows (of two with the same row, the earlier run first): the next put is the first
/// run's, and a run whose head was taken goes back in its place, found by bisection. No row
/// is copied.
pub(super) struct Merge {
    cursors: Vec<Cursor>,
    /// The next put of each run.
    heads: Vec<Option<RunPut>>,
    /// The runs with a next put, by (its row, the run).
    order: Vec<usize>,
    ranges: Option<Vec<(Vec<u8>, Vec<u8>)>>,
}

impl Merge {
    pub(super) fn new(runs: &[Run], ranges: Option<Vec<(Vec<u8>, Vec<u8>)>>) -> Result<Merge> {
        let mut cursors: Vec<Cursor> = runs.iter().map(Cursor::open).collect::<Result<_>>()?;
        let heads: Vec<Option<RunPut>> = cursors
            .iter_mut()
            .map(Cursor::next)
            .collect::<Result<_>>()?;
        let mut merge = Merge {
            cursors,
            heads,
            order: Vec::with_capacity(runs.len()),
            ranges,
        };
        for i in 0..merge.heads.len() {
            merge.place(i);
        }
        Ok(merge)
    }

    /// Puts run `i` in its place in `order`, if it has a next put.
    fn place(&mut self, i: usize) {
        let Some(head) = &self.heads[i] else { return };
        let heads = &self.heads;
        let at = self.order.partition_point(|&j| {
            let other = &heads[j].as_ref().expect("ordered runs have a head").row;
            (other.as_slice(), j) < (head.row.as_slice(), i)
        });
        self.order.insert(at, i);
    }

    /// Run `i`'s head (taken out of `order`), taken, and the run's next put read in and put
    /// in its place.
    fn take(&mut self, i: usize) -> Result<RunPut> {
        let next = self.cursors[i].next()?;
        let head = std::mem::replace(&mut self.heads[i], next).expect("a head");
        self.place(i);
        Ok(head)
    }

    /// Whether `row` is wanted.
    fn wanted(&mut self, row: &[u8]) -> bool {
        let Some(ranges) = &mut self.ranges else {
            return true;
        };
        // Rows come in order: ranges ending before `row` are done with.
        let done = ranges
            .iter()
            .take_while(|(_, last)| last.as_slice() < row)
            .count();
        ranges.drain(..done);
        ranges
            .first()
            .is_some_and(|(first, _)| first.as_slice() <= row)
    }

    /// The next put in row order, the puts of its row in every run merged into it (an earlier
    /// run's first, so that a later run's cells win).
    pub(super) fn next_put(&mut self) -> Result<Option<RunPut>> {
        while !self.order.is_empty() {
            let first = self.order.remove(0);
            let mut put = self.take(first)?;
            // The runs with the same row come next, earlier runs first.
            while let Some(&j) = self.order.first() {
                if self.heads[j].as_ref().is_none_or(|h| h.row != put.row) {
                    break;
                }
                self.order.remove(0);
                let later = self.take(j)?;
                let mut merged = put.into_owned();
                merge_row(&mut merged, later.into_owned());
                put = RunPut::Owned(merged);
            }
            if self.wanted(&put.row) {
                return Ok(Some(put));
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::super::plan::sort_chunk;
    use super::*;

    fn put(row: &str, value: &str) -> Put {
        Put::new(row).column_at("d", "q", 1, value.as_bytes().to_vec())
    }

    fn rows(merge: &mut Merge) -> Vec<String> {
        let mut out = Vec::new();
        while let Some(put) = merge.next_put().unwrap() {
            let value = String::from_utf8_lossy(&put.cells[0].value).into_owned();
            out.push(format!("{}={value}", String::from_utf8_lossy(&put.row)));
        }
        out
    }

    /// Runs on disk and in memory merge in row order; a row in several runs takes the later
    /// run's cell; ranges keep their rows only.
    #[test]
    fn runs_merge_in_row_order_and_the_later_run_wins() {
        let dir = std::env::temp_dir().join(format!("hbase-orm-runs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let first = sort_chunk(vec![put("c", "c1"), put("a", "a1"), put("e", "e1")], 0);
        let second = sort_chunk(vec![put("b", "b2"), put("c", "c2")], 0);
        let last = sort_chunk(vec![put("d", "d3"), put("a", "a3")], 0);
        let (p1, p2) = (dir.join("1"), dir.join("2"));
        spill(&p1, &first).unwrap();
        spill(&p2, &second).unwrap();
        let runs = [Run::Disk(p1), Run::Disk(p2), Run::Memory(Arc::new(last))];
        let mut all = Merge::new(&runs, None).unwrap();
        assert_eq!(rows(&mut all), ["a=a3", "b=b2", "c=c2", "d=d3", "e=e1"]);
        let ranges = vec![
            (b"b".to_vec(), b"b".to_vec()),
            (b"d".to_vec(), b"z".to_vec()),
        ];
        let mut some = Merge::new(&runs, Some(ranges)).unwrap();
        assert_eq!(rows(&mut some), ["b=b2", "d=d3", "e=e1"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A run longer than its read block, with a put larger than one, reads back whole.
    #[test]
    fn a_run_reads_back_across_its_blocks() {
        let dir = std::env::temp_dir().join(format!("hbase-orm-blocks-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut puts: Vec<Put> = (0..3_000)
            .map(|i| put(&format!("r{i:05}"), &format!("{i:0>200}")))
            .collect();
        puts[1_500] = put("r01500", &"x".repeat(READ_BUFFER + 10));
        let path = dir.join("run");
        spill(&path, &puts).unwrap();
        let back = rows(&mut Merge::new(&[Run::Disk(path)], None).unwrap());
        let given: Vec<String> = puts
            .iter()
            .map(|p| {
                let value = String::from_utf8_lossy(&p.cells[0].value).into_owned();
                format!("{}={value}", String::from_utf8_lossy(&p.row))
            })
            .collect();
        assert_eq!(back, given);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Any number of runs (spilled or the last in memory) merge into every row once, each
        /// with the value of the last run that has it.
        #[test]
        fn many_runs_merge_like_a_map(
            runs in proptest::collection::vec(
                proptest::collection::vec((0u8..60, 0u32..1000), 0..40), 1..12),
        ) {
            let dir = std::env::temp_dir().join(format!(
                "hbase-orm-merge-{}-{:?}", std::process::id(), std::thread::current().id()));
            std::fs::create_dir_all(&dir).unwrap();
            let mut expected = std::collections::BTreeMap::new();
            let mut made = Vec::new();
            for (n, run) in runs.iter().enumerate() {
                let puts: Vec<Put> = run
                    .iter()
                    .map(|(row, value)| {
                        expected.insert(format!("r{row:02}"), format!("{n}-{value}"));
                        put(&format!("r{row:02}"), &format!("{n}-{value}"))
                    })
                    .collect();
                let sorted = sort_chunk(puts, 0);
                if n + 1 == runs.len() {
                    made.push(Run::Memory(Arc::new(sorted)));
                } else {
                    let path = dir.join(format!("run-{n}"));
                    spill(&path, &sorted).unwrap();
                    made.push(Run::Disk(path));
                }
            }
            let merged = rows(&mut Merge::new(&made, None).unwrap());
            let wanted: Vec<String> = expected.iter().map(|(r, v)| format!("{r}={v}")).collect();
            std::fs::remove_dir_all(&dir).unwrap();
            proptest::prop_assert_eq!(merged, wanted);
        }
    }
}
