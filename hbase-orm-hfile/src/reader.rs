//! A file's cells read back, in the order it holds them: its data blocks from the start, each
//! checked against its checksums and decompressed, the index and bloom blocks between them
//! passed over, up to the first block after the data (the index's root): the trailer and the
//! load-on-open section are not needed to walk the cells, so the file is read once, forwards,
//! from any [`std::io::Read`].

use std::io::Read;

use crate::block::{BlockType, HEADER_LEN};
use crate::cell::{CellType, Key};
use crate::compression::Compression;
use crate::{Error, Result};

/// A cell read back, owned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadCell {
    /// The row key.
    pub row: Vec<u8>,
    /// The column family.
    pub family: Vec<u8>,
    /// The column qualifier.
    pub qualifier: Vec<u8>,
    /// Milliseconds since the epoch.
    pub timestamp: i64,
    /// A value or a delete marker.
    pub kind: CellType,
    /// The value.
    pub value: Vec<u8>,
}

/// Reads the cells of an HFile (version 3, data blocks not encoded: what [`crate::Writer`]
/// writes, and HBase with a family's default `DATA_BLOCK_ENCODING`) from its first byte.
///
/// ```
/// use hbase_orm_hfile::{Cell, Compression, Options, Reader, Writer};
/// let mut writer = Writer::new(Vec::new(), Options::new().compression(Compression::Snappy));
/// writer.append(&Cell::put(b"row1", b"d", b"city", 7, b"Oslo"))?;
/// writer.append(&Cell::put(b"row2", b"d", b"city", 7, b"Lima"))?;
/// let (file, _) = writer.finish()?;
/// let mut reader = Reader::new(&file[..], Compression::Snappy);
/// let first = reader.next_cell()?.expect("a cell");
/// assert_eq!((&first.row[..], &first.value[..]), (&b"row1"[..], &b"Oslo"[..]));
/// assert_eq!(reader.next_cell()?.expect("a cell").value, b"Lima");
/// assert!(reader.next_cell()?.is_none());
/// # Ok::<(), hbase_orm_hfile::Error>(())
/// ```
pub struct Reader<R: Read> {
    input: R,
    compression: Compression,
    /// The offset of the next block.
    offset: u64,
    /// The data block being read, decompressed, and where its next cell starts.
    block: Vec<u8>,
    at: usize,
    /// The block as stored (reused).
    stored: Vec<u8>,
    /// The offset of the data block being read (for errors).
    block_offset: u64,
    /// No data block follows (or one failed).
    done: bool,
}

impl<R: Read> Reader<R> {
    /// A reader of the file `input` holds from its start, whose blocks are stored with
    /// `compression` (the family's `COMPRESSION` the file was written with).
    pub fn new(input: R, compression: Compression) -> Self {
        Reader {
            input,
            compression,
            offset: 0,
            block: Vec::new(),
            at: 0,
            stored: Vec::new(),
            block_offset: 0,
            done: false,
        }
    }

    /// The next cell, or `None` after the last. A block whose checksum does not match, or
    /// whose bytes do not parse, or a file that ends before its index, is [`Error::Corrupt`]
    /// with the block's offset; the reader then reads no further.
    pub fn next_cell(&mut self) -> Result<Option<ReadCell>> {
        let read = self.read_cell();
        if read.is_err() {
            self.done = true;
        }
        read
    }

    fn read_cell(&mut self) -> Result<Option<ReadCell>> {
        while self.at >= self.block.len() {
            if self.done || !self.next_data_block()? {
                self.done = true;
                return Ok(None);
            }
        }
        parse_cell(&self.block, &mut self.at)
            .map(Some)
            .ok_or_else(|| Error::Corrupt {
                offset: self.block_offset,
                reason: "a cell that does not parse".into(),
            })
    }

    /// Reads blocks up to the next data block, decompressed into `block`; `false` at the end
    /// of the data (the first block of the sections after it: an index's root or intermediate
    /// level, a meta block, the file info, the bloom's meta).
    fn next_data_block(&mut self) -> Result<bool> {
        loop {
            let at = self.offset;
            let corrupt = |reason: String| Error::Corrupt { offset: at, reason };
            let mut header = [0u8; HEADER_LEN];
            // A file's data is followed by its index: its end here is a file cut short.
            read_fully(&mut self.input, &mut header, at)?;
            let magic = &header[..8];
            let kind = BlockType::of_magic(magic);
            match kind {
                Some(BlockType::Data | BlockType::LeafIndex | BlockType::BloomChunk) => {}
                Some(_) => return Ok(false),
                None if magic == b"METABLKc" => return Ok(false),
                None if magic == b"DATABLKE" => {
                    return Err(corrupt(
                        "an encoded data block (a DATA_BLOCK_ENCODING other than NONE), which \
                         this reader does not decode"
                            .into(),
                    ))
                }
                None => {
                    return Err(corrupt(format!(
                        "a block of no kind a file's data holds ({:?})",
                        String::from_utf8_lossy(magic)
                    )))
                }
            }
            let int =
                |from: usize| i32::from_be_bytes(header[from..from + 4].try_into().expect("4"));
            let on_disk = int(8);
            let uncompressed = int(12);
            let bytes_per_checksum = int(25);
            let with_header = int(29);
            let sizes_bad = on_disk < 0
                || uncompressed < 0
                || bytes_per_checksum <= 0
                || with_header < HEADER_LEN as i32
                || (with_header as i64) > HEADER_LEN as i64 + on_disk as i64;
            if sizes_bad || header[24] != crate::block::CRC32C {
                return Err(corrupt("a block header that does not parse".into()));
            }
            // Read as it comes, not allocated from the header's word: a damaged size ends
            // in a short read, not a huge allocation.
            let rest = on_disk as usize;
            self.stored.clear();
            self.stored.extend_from_slice(&header);
            (&mut self.input)
                .take(rest as u64)
                .read_to_end(&mut self.stored)?;
            if self.stored.len() != HEADER_LEN + rest {
                return Err(corrupt(
                    "the file ends before its index (it was cut short)".into(),
                ));
            }
            self.offset += (HEADER_LEN + rest) as u64;
            let with_header = with_header as usize;
            let (data, sums) = self.stored.split_at(with_header);
            let per = bytes_per_checksum as usize;
            if sums.len() != 4 * data.len().div_ceil(per) {
                return Err(corrupt("checksums of the wrong size".into()));
            }
            for (chunk, sum) in data.chunks(per).zip(sums.chunks(4)) {
                if crc32c::crc32c(chunk).to_be_bytes() != sum {
                    return Err(corrupt("a block whose checksum does not match".into()));
                }
            }
            if kind != Some(BlockType::Data) {
                continue;
            }
            self.block.clear();
            self.compression
                .decompress(&data[HEADER_LEN..], uncompressed as usize, &mut self.block)
                .map_err(|e| corrupt(format!("a data block that does not decompress: {e}")))?;
            if self.block.len() != uncompressed as usize {
                return Err(corrupt(
                    "a data block of another size than its header's".into(),
                ));
            }
            self.block_offset = at;
            self.at = 0;
            return Ok(true);
        }
    }
}

/// Fills `buffer` from the block at `offset`; the input's end first is [`Error::Corrupt`].
fn read_fully(input: &mut impl Read, buffer: &mut [u8], offset: u64) -> Result<()> {
    input.read_exact(buffer).map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => Error::Corrupt {
            offset,
            reason: "the file ends before its index (it was cut short)".into(),
        },
        _ => Error::Io(e),
    })
}

/// The cell at `*at` of a data block (its lengths, key, value, tags and memstore timestamp),
/// `*at` moved past it; `None` when its bytes do not parse.
fn parse_cell(block: &[u8], at: &mut usize) -> Option<ReadCell> {
    let take = |at: &mut usize, n: usize| -> Option<&[u8]> {
        let bytes = block.get(*at..at.checked_add(n)?)?;
        *at += n;
        Some(bytes)
    };
    let key_len = u32::from_be_bytes(take(at, 4)?.try_into().ok()?) as usize;
    let value_len = u32::from_be_bytes(take(at, 4)?.try_into().ok()?) as usize;
    let key = take(at, key_len)?;
    if key_len < 2 + 1 + 9 || 3 + u16::from_be_bytes([key[0], key[1]]) as usize > key_len - 9 {
        return None;
    }
    let family_at = 2 + u16::from_be_bytes([key[0], key[1]]) as usize;
    if family_at + 1 + key[family_at] as usize > key_len - 9 {
        return None;
    }
    let key = Key::parse(key);
    let value = take(at, value_len)?.to_vec();
    let tags = u16::from_be_bytes(take(at, 2)?.try_into().ok()?) as usize;
    take(at, tags)?;
    // The memstore timestamp: a Hadoop vlong (one byte from -112 to 127, else a length byte
    // and that many bytes).
    let first = *take(at, 1)?.first()? as i8;
    if first < -112 {
        let extra = if first < -120 {
            -(first + 120)
        } else {
            -(first + 112)
        } as usize;
        take(at, extra)?;
    }
    Some(ReadCell {
        row: key.row.to_vec(),
        family: key.family.to_vec(),
        qualifier: key.qualifier.to_vec(),
        timestamp: key.timestamp,
        kind: CellType::of_code(key.code)?,
        value,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Bloom, Cell, Options, Writer};

    fn cells(n: usize) -> Vec<(String, String, String)> {
        (0..n)
            .flat_map(|i| {
                ["amount", "city"].map(|q| {
                    (
                        format!("row-{i:06}"),
                        q.to_string(),
                        format!("{q} of {i} ").repeat(i % 7),
                    )
                })
            })
            .collect()
    }

    fn written(compression: Compression, n: usize) -> Vec<u8> {
        // Small blocks, index chunks and bloom chunks: the data blocks come with leaf index
        // and bloom blocks between them.
        let options = Options::new()
            .compression(compression)
            .bloom(Bloom::Row)
            .block_size(512)
            .index_block_size(256)
            .bloom_chunk_size(128);
        let mut writer = Writer::new(Vec::new(), options);
        for (i, (row, q, v)) in cells(n).iter().enumerate() {
            let cell = Cell::put(row.as_bytes(), b"d", q.as_bytes(), i as i64, v.as_bytes());
            writer.append(&cell).unwrap();
        }
        writer.finish().unwrap().0
    }

    fn read(file: &[u8], compression: Compression) -> Result<Vec<ReadCell>> {
        let mut reader = Reader::new(file, compression);
        let mut out = Vec::new();
        while let Some(cell) = reader.next_cell()? {
            out.push(cell);
        }
        Ok(out)
    }

    /// Every cell written comes back, in order, whatever the codec, across data blocks with
    /// index and bloom blocks between them.
    #[test]
    fn the_cells_written_read_back_in_order() {
        for compression in [Compression::None, Compression::Gz, Compression::Snappy] {
            let file = written(compression, 3_000);
            let back = read(&file, compression).unwrap();
            let given = cells(3_000);
            assert_eq!(back.len(), given.len(), "{compression:?}");
            for (i, (cell, (row, q, v))) in back.iter().zip(&given).enumerate() {
                assert_eq!(cell.row, row.as_bytes());
                assert_eq!(cell.family, b"d");
                assert_eq!(cell.qualifier, q.as_bytes());
                assert_eq!(cell.timestamp, i as i64);
                assert_eq!(cell.kind, CellType::Put);
                assert_eq!(cell.value, v.as_bytes());
            }
        }
        assert!(read(&written(Compression::None, 0), Compression::None)
            .unwrap()
            .is_empty());
    }

    /// A byte changed in a data block fails its checksum, one in the next block's kind makes
    /// it a block of no known kind; a file cut short is an error, not a shorter list of cells.
    #[test]
    fn a_damaged_or_short_file_is_an_error() {
        let mut file = written(Compression::None, 200);
        let cut = &file[..file.len() / 2];
        assert!(read(cut, Compression::None).is_err());
        let second = 33 + u32::from_be_bytes(file[8..12].try_into().unwrap()) as usize;
        let mut kind = file.clone();
        kind[second + 3] ^= 1;
        let error = read(&kind, Compression::None).unwrap_err();
        assert!(matches!(error, Error::Corrupt { offset, .. } if offset == second as u64));
        file[100] ^= 1;
        let error = read(&file, Compression::None).unwrap_err();
        assert!(matches!(error, Error::Corrupt { offset: 0, .. }), "{error}");
    }
}
