//! A put as a spilled run holds it (its record): the record's length, then the row and the
//! cells, each part after its length, each cell's timestamp last. A run is written through a
//! buffer and read back a block at a time; each record is a slice of its block, checked whole
//! when read, and the files are written from it with no copy and no allocation per cell.

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::ops::Range;
use std::path::Path;

use bytes::{Buf, Bytes};

use crate::model::{CellRef, Put, PutCell, Result};

/// The read block of a spilled run.
pub(super) const READ_BUFFER: usize = 256 << 10;

/// The cells of a sorted put (every cell has a timestamp then) or of a record.
pub(super) enum Cells<'a> {
    Put(std::slice::Iter<'a, PutCell>),
    Record(&'a [u8], Parts),
}

impl<'a> Cells<'a> {
    pub(super) fn of_put(put: &'a Put) -> Cells<'a> {
        Cells::Put(put.cells.iter())
    }
}

impl<'a> Iterator for Cells<'a> {
    type Item = CellRef<'a>;

    fn next(&mut self) -> Option<CellRef<'a>> {
        match self {
            Cells::Put(cells) => cells.next().map(|c| CellRef {
                family: &c.family,
                qualifier: &c.qualifier,
                value: &c.value,
                timestamp: c
                    .timestamp
                    .expect("sorted puts give every cell a timestamp"),
            }),
            Cells::Record(bytes, parts) => {
                let cell = parts.cell(bytes)?.expect("a record is checked when read");
                let at = |range: Range<usize>| &bytes[range];
                Some(CellRef {
                    family: at(cell.family),
                    qualifier: at(cell.qualifier),
                    value: at(cell.value),
                    timestamp: cell.timestamp,
                })
            }
        }
    }
}

/// Appends `put`'s record (its length first) to `out`.
pub(super) fn write_record(put: &Put, out: &mut Vec<u8>) -> std::io::Result<()> {
    let cells = put.cells.iter().map(|c| CellRef {
        family: &c.family,
        qualifier: &c.qualifier,
        value: &c.value,
        timestamp: c.timestamp.unwrap_or_default(),
    });
    write_row_record(&put.row, cells, out)
}

/// Appends the record (its length first) of `row` and its `cells` to `out`.
pub(super) fn write_row_record<'c>(
    row: &[u8],
    cells: impl Iterator<Item = CellRef<'c>>,
    out: &mut Vec<u8>,
) -> std::io::Result<()> {
    // The lengths of the record and of its cells are written once they are.
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&len32(row.len())?.to_le_bytes());
    out.extend_from_slice(row);
    let count_at = out.len();
    out.extend_from_slice(&[0; 4]);
    let mut count = 0u32;
    for cell in cells {
        for part in [cell.family, cell.qualifier, cell.value] {
            out.extend_from_slice(&len32(part.len())?.to_le_bytes());
            out.extend_from_slice(part);
        }
        out.extend_from_slice(&cell.timestamp.to_le_bytes());
        count += 1;
    }
    out[count_at..count_at + 4].copy_from_slice(&count.to_le_bytes());
    let record = len32(out.len() - start - 4)?;
    out[start..start + 4].copy_from_slice(&record.to_le_bytes());
    Ok(())
}

/// A length as a record holds it (a put of 4 GiB or more is not one HBase takes).
fn len32(len: usize) -> std::io::Result<u32> {
    u32::try_from(len).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("a put of {len} bytes does not fit a sorted run"),
        )
    })
}

/// A put read back from a spilled run, checked whole.
#[derive(Debug, Clone)]
pub(super) struct Record {
    /// The record, without its length.
    bytes: Bytes,
    /// Where its row is.
    row: Range<usize>,
    /// Where its cells start, and how many there are.
    cells: Parts,
}

impl Record {
    /// The record `bytes`, or an error when its parts do not fit it.
    pub(super) fn parse(bytes: Bytes) -> std::io::Result<Record> {
        let cut_short = || {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "a put of a sorted run is cut short",
            )
        };
        let mut parts = Parts { at: 0, cells: 0 };
        let row = parts.part(&bytes).ok_or_else(cut_short)?;
        parts.cells = parts
            .word::<4>(&bytes)
            .map(u32::from_le_bytes)
            .ok_or_else(cut_short)?;
        let cells = parts.clone();
        let mut check = parts;
        while let Some(cell) = check.cell(&bytes) {
            cell.ok_or_else(cut_short)?;
        }
        if check.at != bytes.len() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "a put of a sorted run has bytes after its cells",
            ));
        }
        Ok(Record { bytes, row, cells })
    }

    pub(super) fn row(&self) -> &[u8] {
        &self.bytes[self.row.clone()]
    }

    pub(super) fn cells(&self) -> Cells<'_> {
        Cells::Record(&self.bytes, self.cells.clone())
    }

    /// The put, its parts slices of the record.
    pub(super) fn to_put(&self) -> Put {
        let mut put = Put::new(self.row());
        let mut parts = self.cells.clone();
        put.cells.reserve(parts.cells as usize);
        while let Some(cell) = parts.cell(&self.bytes) {
            let cell = cell.expect("a record is checked when read");
            put.cells.push(PutCell {
                family: self.bytes.slice(cell.family),
                qualifier: self.bytes.slice(cell.qualifier),
                value: self.bytes.slice(cell.value),
                timestamp: Some(cell.timestamp),
            });
        }
        put
    }

    /// Appends the record (its length first) to `out`.
    pub(super) fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&(self.bytes.len() as u32).to_le_bytes());
        out.extend_from_slice(&self.bytes);
    }
}

/// A walk over a record's parts: where it is, and the cells left.
#[derive(Debug, Clone)]
pub(super) struct Parts {
    at: usize,
    cells: u32,
}

/// Where a cell's parts are in its record.
struct CellAt {
    family: Range<usize>,
    qualifier: Range<usize>,
    value: Range<usize>,
    timestamp: i64,
}

impl Parts {
    /// The next `N` bytes.
    fn word<const N: usize>(&mut self, bytes: &[u8]) -> Option<[u8; N]> {
        let word = bytes
            .get(self.at..self.at.checked_add(N)?)?
            .try_into()
            .ok()?;
        self.at += N;
        Some(word)
    }

    /// Where the next part (after its length) is.
    fn part(&mut self, bytes: &[u8]) -> Option<Range<usize>> {
        let len = u32::from_le_bytes(self.word::<4>(bytes)?) as usize;
        let (start, end) = (self.at, self.at.checked_add(len)?);
        (end <= bytes.len()).then(|| {
            self.at = end;
            start..end
        })
    }

    /// The next cell (`None` past the last; `Some(None)` when it does not fit the record).
    fn cell(&mut self, bytes: &[u8]) -> Option<Option<CellAt>> {
        if self.cells == 0 {
            return None;
        }
        self.cells -= 1;
        let mut next = || -> Option<CellAt> {
            Some(CellAt {
                family: self.part(bytes)?,
                qualifier: self.part(bytes)?,
                value: self.part(bytes)?,
                timestamp: i64::from_le_bytes(self.word::<8>(bytes)?),
            })
        };
        Some(next())
    }
}

/// A run being written: its file, and the record being made.
pub(super) struct RunWriter<'a> {
    path: &'a Path,
    out: BufWriter<File>,
    record: Vec<u8>,
}

impl<'a> RunWriter<'a> {
    pub(super) fn create(path: &'a Path) -> Result<RunWriter<'a>> {
        let file = File::create(path).map_err(|e| super::staging_error(path, e))?;
        Ok(RunWriter {
            path,
            out: BufWriter::with_capacity(1 << 20, file),
            record: Vec::new(),
        })
    }

    /// Writes `put`'s record.
    pub(super) fn put(&mut self, put: &Put) -> Result<()> {
        write_record(put, &mut self.record).map_err(|e| super::staging_error(self.path, e))?;
        self.write()
    }

    /// Writes a record read back.
    pub(super) fn record(&mut self, record: &Record) -> Result<()> {
        record.write(&mut self.record);
        self.write()
    }

    /// Writes the record made, and clears it.
    fn write(&mut self) -> Result<()> {
        let written = self.out.write_all(&self.record);
        self.record.clear();
        written.map_err(|e| super::staging_error(self.path, e))
    }

    /// Writes a record made elsewhere (its length first).
    pub(super) fn write_bytes(&mut self, record: &[u8]) -> Result<()> {
        self.out
            .write_all(record)
            .map_err(|e| super::staging_error(self.path, e))
    }

    pub(super) fn finish(mut self) -> Result<()> {
        self.out
            .flush()
            .map_err(|e| super::staging_error(self.path, e))
    }
}

/// A spilled run read back: its file read a block at a time, each put's record a slice of
/// its block.
pub(super) struct RunReader {
    file: File,
    /// What was read of the file and not yet taken.
    buffer: Bytes,
    /// The bytes of the file not read yet.
    unread: u64,
}

impl RunReader {
    pub(super) fn new(file: File) -> std::io::Result<RunReader> {
        let unread = file.metadata()?.len();
        Ok(RunReader {
            file,
            buffer: Bytes::new(),
            unread,
        })
    }

    /// The next put, or `None` at the run's end.
    pub(super) fn next_record(&mut self) -> std::io::Result<Option<Record>> {
        if !self.fill(4)? {
            return Ok(None);
        }
        let len = u32::from_le_bytes(self.buffer[..4].try_into().expect("4 bytes")) as u64;
        // A length past the file's end is not read (nor its buffer allocated).
        let whole = 4 + len;
        if whole > self.buffer.len() as u64 + self.unread || !self.fill(whole as usize)? {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "a sorted run ends in the middle of a put",
            ));
        }
        let len = len as usize;
        let bytes = self.buffer.slice(4..4 + len);
        self.buffer.advance(4 + len);
        Record::parse(bytes).map(Some)
    }

    /// Makes the buffer hold at least `len` bytes; false at the file's end before all of them.
    fn fill(&mut self, len: usize) -> std::io::Result<bool> {
        if self.buffer.len() >= len {
            return Ok(true);
        }
        // A new block (the records handed out hold the last one), read into without zeroing
        // it first: up to its size, or the file's end.
        let size = READ_BUFFER.max(len);
        let mut block = Vec::with_capacity(size);
        block.extend_from_slice(&self.buffer);
        let room = (size - block.len()) as u64;
        let read = (&mut self.file).take(room).read_to_end(&mut block)?;
        self.unread = self.unread.saturating_sub(read as u64);
        let filled = block.len();
        self.buffer = Bytes::from(block);
        Ok(filled >= len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reader(bytes: Vec<u8>, name: &str) -> RunReader {
        let path =
            std::env::temp_dir().join(format!("hbase-orm-record-{}-{name}", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        let file = File::open(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        RunReader::new(file).unwrap()
    }

    /// A record reads back as its put, through its cells and whole; one whose parts do not fit
    /// it, or cut off by the file's end, is an error.
    #[test]
    fn a_record_is_its_put_and_a_damaged_one_an_error() {
        let put =
            Put::new("row-1")
                .column_at("d", "a", 7, "one")
                .column_at("d", "b", 5, vec![0u8; 3]);
        let mut bytes = Vec::new();
        write_record(&put, &mut bytes).unwrap();
        let mut run = reader(bytes.clone(), "whole");
        let record = run.next_record().unwrap().unwrap();
        assert_eq!(record.row(), b"row-1");
        let cells: Vec<_> = record
            .cells()
            .map(|c| {
                (
                    c.family.to_vec(),
                    c.qualifier.to_vec(),
                    c.value.to_vec(),
                    c.timestamp,
                )
            })
            .collect();
        assert_eq!(
            cells,
            [
                (b"d".to_vec(), b"a".to_vec(), b"one".to_vec(), 7),
                (b"d".to_vec(), b"b".to_vec(), vec![0; 3], 5)
            ]
        );
        assert_eq!(record.to_put(), put);
        assert!(run.next_record().unwrap().is_none());

        // The last cell's value claims a byte more: its timestamp no longer fits the record.
        let mut longer = bytes.clone();
        let value_len = bytes.len() - 8 - 3 - 4;
        longer[value_len] += 1;
        let error = reader(longer, "part").next_record().unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::InvalidData);
        // One cell fewer counted than written: bytes left after the cells.
        let mut fewer = bytes.clone();
        let count_at = 4 + 4 + 5;
        fewer[count_at] -= 1;
        let error = reader(fewer, "count").next_record().unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::InvalidData);
        // A length past the file's end: an error, nothing of that size allocated.
        let mut huge = bytes.clone();
        huge[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        let error = reader(huge, "huge").next_record().unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::UnexpectedEof);
        bytes.pop();
        let error = reader(bytes, "cut").next_record().unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::UnexpectedEof);
    }
}
