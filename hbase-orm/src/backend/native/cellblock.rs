//! Cells in a reply's cell block, in HBase's `KeyValueCodec` encoding, read in place.
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

/// The cells of a block, in order.
pub(crate) struct Cells<'a> {
    rest: &'a [u8],
}

impl<'a> Cells<'a> {
    /// The cells of `block`.
    pub(crate) fn new(block: &'a [u8]) -> Cells<'a> {
        Cells { rest: block }
    }

    /// Takes `n` bytes off the front, or names what was cut short.
    fn split(&mut self, n: usize, what: &str) -> Result<&'a [u8], BadFrame> {
        if n > self.rest.len() {
            return Err(BadFrame(format!(
                "a cell's {what} needs {n} bytes, the cell block has {} left",
                self.rest.len()
            )));
        }
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        Ok(head)
    }

    fn u32(&mut self, what: &str) -> Result<usize, BadFrame> {
        let b = self.split(4, what)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize)
    }

    /// The next cell.
    fn cell(&mut self) -> Result<RawCell<'a>, BadFrame> {
        let total = self.u32("length")?;
        let mut kv = Cells {
            rest: self.split(total, "KeyValue")?,
        };
        let key_len = kv.u32("key length")?;
        let value_len = kv.u32("value length")?;
        if kv.rest.len() != key_len.saturating_add(value_len) {
            return Err(BadFrame(format!(
                "a cell of {total} bytes declares a key of {key_len} and a value of {value_len}"
            )));
        }
        let mut key = Cells {
            rest: kv.split(key_len, "key")?,
        };
        let value = kv.split(value_len, "value")?;
        let row_len = {
            let b = key.split(2, "row length")?;
            u16::from_be_bytes([b[0], b[1]]) as usize
        };
        let row = key.split(row_len, "row")?;
        let family_len = key.split(1, "family length")?[0] as usize;
        let family = key.split(family_len, "family")?;
        let qualifier_len =
            key.rest.len().checked_sub(9).ok_or_else(|| {
                BadFrame("a cell's key ends before its timestamp and type".into())
            })?;
        let qualifier = key.split(qualifier_len, "qualifier")?;
        let ts = key.split(8, "timestamp")?;
        let timestamp = i64::from_be_bytes(ts.try_into().expect("8 bytes taken"));
        Ok(RawCell {
            row,
            family,
            qualifier,
            timestamp,
            value,
        })
    }
}

impl<'a> Iterator for Cells<'a> {
    type Item = Result<RawCell<'a>, BadFrame>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let cell = self.cell();
        if cell.is_err() {
            self.rest = &[];
        }
        Some(cell)
    }
}

/// The results of a scan reply as one page over the block: `counts[i]` cells each, a result
/// without cells left out.
pub(crate) fn page(block: Bytes, counts: &[u32]) -> Result<ScannerPage, BadFrame> {
    let total: usize = counts.iter().map(|&c| c as usize).sum();
    let mut page = ScannerPageBuilder::new(counts.len(), total.min(block.len() / 20));
    let mut cells = Cells::new(&block);
    let out_of_page = |_| BadFrame("the rows of a reply hold over 4 GiB".into());
    for &count in counts {
        let mut key = None;
        for _ in 0..count {
            let cell = cells.next().ok_or_else(|| {
                BadFrame("the cell block holds fewer cells than the results count".into())
            })??;
            key.get_or_insert(cell.row);
            page.cell(
                &block,
                cell.family,
                cell.qualifier,
                cell.value,
                cell.timestamp,
            )
            .map_err(out_of_page)?;
        }
        page.end_row(&block, key).map_err(out_of_page)?;
    }
    page.finish(block.clone()).map_err(out_of_page)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A cell as `KeyValueCodec` writes it.
    pub(crate) fn encode(
        out: &mut Vec<u8>,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        ts: i64,
        value: &[u8],
    ) {
        let key_len = 2 + row.len() + 1 + family.len() + qualifier.len() + 9;
        out.extend_from_slice(&((8 + key_len + value.len()) as u32).to_be_bytes());
        out.extend_from_slice(&(key_len as u32).to_be_bytes());
        out.extend_from_slice(&(value.len() as u32).to_be_bytes());
        out.extend_from_slice(&(row.len() as u16).to_be_bytes());
        out.extend_from_slice(row);
        out.push(family.len() as u8);
        out.extend_from_slice(family);
        out.extend_from_slice(qualifier);
        out.extend_from_slice(&ts.to_be_bytes());
        out.push(4);
        out.extend_from_slice(value);
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
