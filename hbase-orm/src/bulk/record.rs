//! A put as a spilled run holds it (its record): the record's length (4 bytes), then the row
//! and its cells to the record's end, each part after its length as a varint. A cell starts
//! with a byte of flags saying whether its family and its timestamp are given or are the
//! cell's before it (an entity's cells share both): an order of the benches (eight columns) is
//! a record of about 230 bytes, against about 371 with every part's length and every cell's
//! family and timestamp written whole. A run is written through a buffer and read back a block
//! at a time; each record is a slice of its block, checked whole when read, and the files are
//! written from it with no copy and no allocation per cell.

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

/// The flag of a cell whose family is written (else it is the cell's before it).
const NEW_FAMILY: u8 = 1;
/// The flag of a cell whose timestamp is written (else it is the cell's before it).
const NEW_TIMESTAMP: u8 = 2;

/// Appends `n` as a varint (7 bits a byte, the lowest first).
fn put_varint(out: &mut Vec<u8>, mut n: u32) {
    while n >= 0x80 {
        out.push(n as u8 | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// Appends `part` after its length.
fn put_part(out: &mut Vec<u8>, part: &[u8]) -> std::io::Result<()> {
    put_varint(out, len32(part.len())?);
    out.extend_from_slice(part);
    Ok(())
}

/// Appends the record (its length first) of `row` and its `cells` to `out`.
pub(super) fn write_row_record<'c>(
    row: &[u8],
    cells: impl Iterator<Item = CellRef<'c>>,
    out: &mut Vec<u8>,
) -> std::io::Result<()> {
    // The record's length is written once it is known; its cells run to its end.
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    put_part(out, row)?;
    let mut previous: Option<(&[u8], i64)> = None;
    for cell in cells {
        let (same_family, same_timestamp) = match previous {
            // An entity's cells share their family's name: compared by address first.
            Some((family, timestamp)) => (
                std::ptr::eq(family, cell.family) || family == cell.family,
                timestamp == cell.timestamp,
            ),
            None => (false, false),
        };
        let flags = if same_family { 0 } else { NEW_FAMILY }
            | if same_timestamp { 0 } else { NEW_TIMESTAMP };
        out.push(flags);
        if !same_family {
            put_part(out, cell.family)?;
        }
        put_part(out, cell.qualifier)?;
        put_part(out, cell.value)?;
        if !same_timestamp {
            out.extend_from_slice(&cell.timestamp.to_le_bytes());
        }
        previous = Some((cell.family, cell.timestamp));
    }
    let record = len32(out.len() - start - 4)?;
    out[start..start + 4].copy_from_slice(&record.to_le_bytes());
    Ok(())
}

/// The row of a record made here (its length first), for sorting a chunk of them.
pub(super) fn row_of(record: &[u8]) -> &[u8] {
    let mut parts = Parts {
        at: 4,
        previous: None,
    };
    let row = parts.part(record).expect("a record made here has its row");
    &record[row]
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
        let mut parts = Parts::default();
        let row = parts.part(&bytes).ok_or_else(cut_short)?;
        let cells = parts.clone();
        let mut check = parts;
        while let Some(cell) = check.cell(&bytes) {
            cell.ok_or_else(cut_short)?;
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

/// A walk over a record's parts: where it is, and the family and timestamp of the cell before
/// (which a cell without its own has; `None` before the first cell).
#[derive(Debug, Clone, Default)]
pub(super) struct Parts {
    at: usize,
    previous: Option<(Range<usize>, i64)>,
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

    /// The next varint (of at most 5 bytes, 32 bits).
    fn varint(&mut self, bytes: &[u8]) -> Option<u32> {
        let mut n = 0u32;
        for shift in (0..35).step_by(7) {
            let byte = *bytes.get(self.at)?;
            self.at += 1;
            n |= u32::from(byte & 0x7f).checked_shl(shift)?;
            if byte < 0x80 {
                return Some(n);
            }
        }
        None
    }

    /// Where the next part (after its length) is.
    fn part(&mut self, bytes: &[u8]) -> Option<Range<usize>> {
        let len = self.varint(bytes)? as usize;
        let (start, end) = (self.at, self.at.checked_add(len)?);
        (end <= bytes.len()).then(|| {
            self.at = end;
            start..end
        })
    }

    /// The next cell (`None` at the record's end; `Some(None)` when it does not fit the
    /// record, or the first cell leaves out its family or timestamp).
    fn cell(&mut self, bytes: &[u8]) -> Option<Option<CellAt>> {
        if self.at >= bytes.len() {
            return None;
        }
        let mut next = || -> Option<CellAt> {
            let [flags] = self.word::<1>(bytes)?;
            let previous = self.previous.take();
            let family = match (flags & NEW_FAMILY != 0, &previous) {
                (true, _) => self.part(bytes)?,
                (false, Some((family, _))) => family.clone(),
                (false, None) => return None,
            };
            let qualifier = self.part(bytes)?;
            let value = self.part(bytes)?;
            let timestamp = match (flags & NEW_TIMESTAMP != 0, previous) {
                (true, _) => i64::from_le_bytes(self.word::<8>(bytes)?),
                (false, Some((_, timestamp))) => timestamp,
                (false, None) => return None,
            };
            self.previous = Some((family.clone(), timestamp));
            Some(CellAt {
                family,
                qualifier,
                value,
                timestamp,
            })
        };
        let cell = next();
        if cell.is_none() {
            // A damaged cell ends the walk.
            self.at = bytes.len();
        }
        Some(cell)
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

        // The record as laid out: its length, the row, the first cell with its family and
        // timestamp, the second with its timestamp only (the family is the first's).
        let mut laid_out = 38u32.to_le_bytes().to_vec();
        laid_out.extend_from_slice(b"\x05row-1\x03\x01d\x01a\x03one");
        laid_out.extend_from_slice(&7i64.to_le_bytes());
        laid_out.extend_from_slice(b"\x02\x01b\x03\0\0\0");
        laid_out.extend_from_slice(&5i64.to_le_bytes());
        assert_eq!(bytes, laid_out);

        // The last cell's value claims a byte more: its timestamp no longer fits the record.
        let mut longer = bytes.clone();
        longer[30] += 1;
        let error = reader(longer, "part").next_record().unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::InvalidData);
        // The first cell leaves out its family (there is none before it to take).
        let mut no_family = bytes.clone();
        no_family[10] = NEW_TIMESTAMP;
        let error = reader(no_family, "family").next_record().unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::InvalidData);
        // A byte after the cells: a cell cut short.
        let mut after = bytes.clone();
        after[..4].copy_from_slice(&39u32.to_le_bytes());
        after.push(0);
        let error = reader(after, "after").next_record().unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::InvalidData);
        // A length of more than five varint bytes.
        let mut endless = 10u32.to_le_bytes().to_vec();
        endless.extend_from_slice(&[0xff; 10]);
        let error = reader(endless, "varint").next_record().unwrap_err();
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
