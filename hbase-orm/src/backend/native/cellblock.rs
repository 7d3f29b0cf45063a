//! Cells in a call's cell block, in HBase's `KeyValueCodec` encoding: a reply's read in
//! place, a request's written straight from the cells it sends.
//!
//! Each cell is a 4-byte big-endian length of the rest, then a KeyValue: the key's length
//! (4 bytes), the value's length (4 bytes), the key (a 2-byte row length and the row, a 1-byte
//! family length and the family, the qualifier, an 8-byte timestamp, a 1-byte type), the
//! value. A reply says how many cells of the block belong to each of its results.

use bytes::Bytes;

use super::frame::BadFrame;
use crate::model::{ScannerPage, ScannerPageBuilder};

/// One cell of a block, borrowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RawCell<'a> {
    /// The row key.
    pub(crate) row: &'a [u8],
    /// The column family.
    pub(crate) family: &'a [u8],
    /// The qualifier.
    pub(crate) qualifier: &'a [u8],
    /// The version's timestamp, in milliseconds.
    pub(crate) timestamp: i64,
    /// The stored bytes.
    pub(crate) value: &'a [u8],
}

/// Where a cell's parts lie in its block: (start, length) pairs, checked to lie in it.
#[derive(Clone, Copy, Debug)]
struct CellSpans {
    row: (usize, usize),
    family: (usize, usize),
    qualifier: (usize, usize),
    timestamp: i64,
    value: (usize, usize),
}

impl CellSpans {
    fn cell<'a>(&self, block: &'a [u8]) -> RawCell<'a> {
        let part = |(start, len): (usize, usize)| &block[start..start + len];
        RawCell {
            row: part(self.row),
            family: part(self.family),
            qualifier: part(self.qualifier),
            timestamp: self.timestamp,
            value: part(self.value),
        }
    }
}

/// The cells of a block, in order.
pub(crate) struct Cells<'a> {
    block: &'a [u8],
    /// Where the next cell starts.
    at: usize,
}

impl<'a> Cells<'a> {
    /// The cells of `block`.
    pub(crate) fn new(block: &'a [u8]) -> Cells<'a> {
        Cells { block, at: 0 }
    }

    /// Where the next cell's parts lie. One bounds check per part, no copy; the error's text
    /// is made only on a bad block.
    fn spans(&mut self) -> Result<CellSpans, BadFrame> {
        let at = self.at;
        let rest = &self.block[at..];
        let Some(total) = rest.get(..4).map(be32) else {
            return Err(short("length", 4, rest.len()));
        };
        let Some(kv) = rest.get(4..).and_then(|r| r.get(..total)) else {
            return Err(short("KeyValue", total, rest.len() - 4));
        };
        self.at = at + 4 + total;
        if kv.len() < 8 {
            return Err(short("key and value lengths", 8, kv.len()));
        }
        let (key_len, value_len) = (be32(&kv[..4]), be32(&kv[4..8]));
        if kv.len() - 8 != key_len.saturating_add(value_len) {
            return Err(lying(total, key_len, value_len));
        }
        let key = &kv[8..8 + key_len];
        // The key: the row's 2-byte length and the row, the family's 1-byte length and the
        // family, the qualifier, the 8-byte timestamp, the 1-byte type.
        let row_end = key
            .get(..2)
            .map(|b| 2 + u16::from_be_bytes([b[0], b[1]]) as usize);
        let Some(row_end) = row_end.filter(|&end| end + 10 <= key.len()) else {
            return Err(BadFrame(format!(
                "a cell's key of {} bytes is too short for its row, family length, timestamp \
                 and type",
                key.len()
            )));
        };
        let family_end = row_end + 1 + key[row_end] as usize;
        let Some(time_at) = key.len().checked_sub(9).filter(|&at| at >= family_end) else {
            return Err(BadFrame(
                "a cell's key ends before its family, timestamp and type".into(),
            ));
        };
        let timestamp = i64::from_be_bytes(
            key[time_at..time_at + 8]
                .try_into()
                .expect("8 bytes checked"),
        );
        let key_at = at + 12;
        Ok(CellSpans {
            row: (key_at + 2, row_end - 2),
            family: (key_at + row_end + 1, family_end - row_end - 1),
            qualifier: (key_at + family_end, time_at - family_end),
            timestamp,
            value: (key_at + key_len, value_len),
        })
    }

    /// The next cell's spans, or `None` at the end of the block; after an error, the end.
    fn next_spans(&mut self) -> Option<Result<CellSpans, BadFrame>> {
        if self.at >= self.block.len() {
            return None;
        }
        let spans = self.spans();
        if spans.is_err() {
            self.at = self.block.len();
        }
        Some(spans)
    }
}

/// A 4-byte big-endian length.
fn be32(b: &[u8]) -> usize {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize
}

/// A cell's part cut short.
#[cold]
fn short(what: &str, needs: usize, left: usize) -> BadFrame {
    BadFrame(format!(
        "a cell's {what} needs {needs} bytes, the cell block has {left} left"
    ))
}

/// A cell whose lengths do not add up.
#[cold]
fn lying(total: usize, key: usize, value: usize) -> BadFrame {
    BadFrame(format!(
        "a cell of {total} bytes declares a key of {key} and a value of {value}"
    ))
}

impl<'a> Iterator for Cells<'a> {
    type Item = Result<RawCell<'a>, BadFrame>;

    fn next(&mut self) -> Option<Self::Item> {
        let block = self.block;
        self.next_spans()
            .map(|spans| spans.map(|spans| spans.cell(block)))
    }
}

/// The KeyValue type of a put's cell.
pub(crate) const PUT: u8 = 4;

/// The bytes of a cell's key: the row's length (2) and the row, the family's length (1) and
/// the family, the qualifier, the timestamp (8), the type (1).
fn key_len(cell: &RawCell<'_>) -> usize {
    2 + cell.row.len() + 1 + cell.family.len() + cell.qualifier.len() + 9
}

/// Writes `cell` of KeyValue type `kind` at the end of `out`. The row must fit HBase's 2-byte
/// length and the family its 1-byte length, and the cell 2 GiB: the requests' checks refuse
/// longer ones before a backend sees them (`model::check`), and a call larger than a frame is
/// refused before it is sent (`connection`).
pub(crate) fn write(out: &mut Vec<u8>, cell: &RawCell<'_>, kind: u8) {
    let key_len = key_len(cell);
    debug_assert!(cell.row.len() <= i16::MAX as usize && cell.family.len() <= i8::MAX as usize);
    let total = 8 + key_len + cell.value.len();
    out.reserve(4 + total);
    out.extend_from_slice(&(total as u32).to_be_bytes());
    out.extend_from_slice(&(key_len as u32).to_be_bytes());
    out.extend_from_slice(&(cell.value.len() as u32).to_be_bytes());
    out.extend_from_slice(&(cell.row.len() as u16).to_be_bytes());
    out.extend_from_slice(cell.row);
    out.push(cell.family.len() as u8);
    out.extend_from_slice(cell.family);
    out.extend_from_slice(cell.qualifier);
    out.extend_from_slice(&cell.timestamp.to_be_bytes());
    out.push(kind);
    out.extend_from_slice(cell.value);
}

/// The results of a scan reply as one page over the block: `counts[i]` cells each, a result
/// without cells left out. The page takes the cells' places in the block as the reader finds
/// them: no part is made a slice to be turned back into a place.
pub(crate) fn page(block: Bytes, counts: &[u32]) -> Result<ScannerPage, BadFrame> {
    fn out_of_page<E>(_: E) -> BadFrame {
        BadFrame("the rows of a reply hold over 4 GiB".into())
    }
    // Every place in the block then fits the page's 32 bits.
    u32::try_from(block.len()).map_err(out_of_page)?;
    let place = |(start, len): (usize, usize)| (start as u32, len as u32);
    let total: usize = counts.iter().map(|&c| c as usize).sum();
    let mut page = ScannerPageBuilder::new(counts.len(), total.min(block.len() / 20));
    let mut cells = Cells::new(&block);
    for &count in counts {
        let mut key = None;
        for _ in 0..count {
            let cell = cells.next_spans().ok_or_else(|| {
                BadFrame("the cell block holds fewer cells than the results count".into())
            })??;
            key.get_or_insert(cell.row);
            page.cell_at(
                place(cell.family),
                place(cell.qualifier),
                place(cell.value),
                cell.timestamp,
            );
        }
        page.end_row_at(key.map(place)).map_err(out_of_page)?;
    }
    page.finish(block).map_err(out_of_page)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A put's cell as `KeyValueCodec` writes it.
    pub(crate) fn encode(
        out: &mut Vec<u8>,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        timestamp: i64,
        value: &[u8],
    ) {
        let cell = RawCell {
            row,
            family,
            qualifier,
            timestamp,
            value,
        };
        write(out, &cell, PUT);
    }

    /// A cell block for fuzzing: random bytes, or up to six valid cells (two per row), then
    /// perhaps one byte changed and perhaps cut short.
    pub(crate) fn arb_block() -> impl proptest::strategy::Strategy<Value = Bytes> {
        use proptest::prelude::*;
        let damage = (any::<Option<(usize, u8)>>(), any::<Option<usize>>());
        let random = proptest::collection::vec(any::<u8>(), 0..64);
        (0usize..7, damage, random, any::<bool>()).prop_map(|(n, (change, cut), random, raw)| {
            if raw {
                return Bytes::from(random);
            }
            let mut b = Vec::new();
            for i in 0..n {
                let row = format!("r{}", i / 2);
                let qualifier = format!("q{i}");
                encode(
                    &mut b,
                    row.as_bytes(),
                    b"d",
                    qualifier.as_bytes(),
                    i as i64,
                    b"v",
                );
            }
            if let (Some((at, byte)), false) = (change, b.is_empty()) {
                let at = at % b.len();
                b[at] = byte;
            }
            if let Some(cut) = cut {
                b.truncate(cut % (b.len() + 1));
            }
            Bytes::from(b)
        })
    }

    fn sample() -> Bytes {
        let mut block = Vec::new();
        encode(&mut block, b"r1", b"d", b"a", 5, b"one");
        encode(&mut block, b"r1", b"d", b"", 4, b"");
        encode(&mut block, b"r2", b"e", b"q", -1, b"two");
        Bytes::from(block)
    }

    /// A put's cell as HBase lays a KeyValue out, byte for byte, and read back.
    #[test]
    fn a_written_cell_is_a_key_value_byte_for_byte() {
        let mut out = Vec::new();
        encode(&mut out, b"r", b"d", b"q", 1, b"v");
        let mut expected = vec![
            0, 0, 0, 24, 0, 0, 0, 15, 0, 0, 0, 1, 0, 1, b'r', 1, b'd', b'q',
        ];
        expected.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 1, 4, b'v']);
        assert_eq!(out, expected);
        let latest = RawCell {
            row: b"row",
            family: b"fam",
            qualifier: b"",
            timestamp: i64::MAX,
            value: b"",
        };
        write(&mut out, &latest, PUT);
        let cells: Vec<RawCell> = Cells::new(&out).collect::<Result<_, _>>().unwrap();
        assert_eq!(cells.len(), 2);
        assert_eq!(cells[1], latest);
    }

    #[test]
    fn cells_are_read_in_place_and_grouped_by_result() {
        let block = sample();
        let rows = page(block.clone(), &[2, 0, 1]).unwrap().into_rows();
        assert_eq!(rows.len(), 2, "a result without cells is no row");
        let first = &rows[0];
        assert_eq!(first.key, b"r1");
        assert_eq!(first.value("d", "a"), Some(&b"one"[..]));
        assert_eq!(first.cells[1].qualifier, b""[..]);
        assert_eq!(first.cells[1].timestamp, 4);
        assert_eq!(rows[1].key, b"r2");
        assert_eq!(rows[1].cells[0].timestamp, -1);
    }

    #[test]
    fn a_short_or_lying_block_is_an_error() {
        let block = sample();
        assert!(
            page(block.clone(), &[4]).is_err(),
            "more cells asked than held"
        );
        for cut in [1, 5, 13, 20, block.len() - 1] {
            assert!(page(block.slice(..cut), &[3]).is_err(), "cut at {cut}");
        }
        // A key length that leaves no room for the timestamp and type.
        let mut lying = Vec::new();
        encode(&mut lying, b"r", b"d", b"q", 1, b"v");
        lying[4..8].copy_from_slice(&3u32.to_be_bytes());
        assert!(page(Bytes::from(lying), &[1]).is_err());
    }

    /// Every cut and every single-byte change of a valid block, and random blocks with random
    /// counts, read to a page or an error: never a panic, never more rows or cells than the
    /// block can hold.
    #[test]
    fn damaged_and_random_blocks_never_panic() {
        let block = sample();
        let check = |block: Bytes, counts: &[u32]| {
            if let Ok(page) = page(block.clone(), counts) {
                let rows = page.into_rows();
                let cells: usize = rows.iter().map(|r| r.cells.len()).sum();
                // A cell takes at least 4 + 8 + 2 + 1 + 9 bytes.
                assert!(
                    cells * 24 <= block.len(),
                    "{cells} cells from {} bytes",
                    block.len()
                );
            }
        };
        for cut in 0..block.len() {
            check(block.slice(..cut), &[2, 1]);
        }
        for at in 0..block.len() {
            for byte in [0u8, 1, 0x7f, 0x80, 0xff] {
                let mut changed = block.to_vec();
                changed[at] = byte;
                check(Bytes::from(changed), &[2, 1]);
            }
        }
        proptest::proptest!(|(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..200),
                              counts in proptest::collection::vec(proptest::num::u32::ANY, 0..8))| {
            check(Bytes::from(bytes), &counts);
        });
    }
}
