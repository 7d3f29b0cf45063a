//! The writer: cells in, data blocks cut at the block size, the inline index and bloom blocks
//! among them, then the load-on-open blocks and the trailer.

use std::io::Write;

use crate::block::{BlockType, BlockWriter, Placed, HEADER_LEN};
use crate::bloom::{BloomWriter, Shape};
use crate::cell::{compare_bytes, index_key, Cell, CellType, Key, RowCell};
use crate::fill::Fill;
use crate::index::IndexWriter;
use crate::trailer::{FileInfo, Trailer, TRAILER_LEN};
use crate::{Compression, Error, Result};

/// A family's bloom filter (`BLOOMFILTER`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Bloom {
    /// No bloom filter.
    #[default]
    None,
    /// A bloom filter of rows (HBase's default for a family).
    Row,
}

impl Bloom {
    /// The bloom a family's `BLOOMFILTER` names (`NONE`, `ROW`; any case). `ROWCOL` and the
    /// prefix blooms are [`Error::UnsupportedBloom`].
    ///
    /// ```
    /// use hbase_orm_hfile::Bloom;
    /// assert_eq!(Bloom::from_name("ROW").unwrap(), Bloom::Row);
    /// ```
    pub fn from_name(name: &str) -> Result<Self> {
        match name.to_ascii_uppercase().as_str() {
            "NONE" | "" => Ok(Bloom::None),
            "ROW" => Ok(Bloom::Row),
            _ => Err(Error::UnsupportedBloom(name.to_string())),
        }
    }
}

/// How a file is written: what its family declares, and the times it records.
///
/// ```
/// use hbase_orm_hfile::{Bloom, Compression, Options};
/// let options = Options::new()
///     .compression(Compression::Gz)
///     .bloom(Bloom::Row)
///     .block_size(64 * 1024);
/// ```
#[derive(Debug, Clone)]
pub struct Options {
    compression: Compression,
    bloom: Bloom,
    block_size: usize,
    index_chunk: usize,
    bloom_chunk: usize,
    created_ms: i64,
    bulk_load_ms: i64,
    source: Option<String>,
}

/// HBase's default sizes: data blocks of 64 KiB, index blocks of 128 KiB, bloom chunks of
/// 128 KiB.
const DEFAULT_BLOCK: usize = 64 * 1024;
const DEFAULT_INDEX_CHUNK: usize = 128 * 1024;
const DEFAULT_BLOOM_CHUNK: usize = 128 * 1024;
/// The fewest entries of an intermediate index block (`hfile.index.block.min.entries`).
const MIN_INDEX_ENTRIES: usize = 16;

impl Default for Options {
    fn default() -> Self {
        Options::new()
    }
}

impl Options {
    /// No compression, no bloom, HBase's default block sizes; created now.
    pub fn new() -> Self {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        Options {
            compression: Compression::None,
            bloom: Bloom::None,
            block_size: DEFAULT_BLOCK,
            index_chunk: DEFAULT_INDEX_CHUNK,
            bloom_chunk: DEFAULT_BLOOM_CHUNK,
            created_ms: now,
            bulk_load_ms: now,
            source: None,
        }
    }

    /// The codec of every block (the family's `COMPRESSION`).
    pub fn compression(mut self, compression: Compression) -> Self {
        self.compression = compression;
        self
    }

    /// The bloom filter (the family's `BLOOMFILTER`).
    pub fn bloom(mut self, bloom: Bloom) -> Self {
        self.bloom = bloom;
        self
    }

    /// The size at which a data block is cut, before compression (the family's `BLOCKSIZE`).
    pub fn block_size(mut self, bytes: usize) -> Self {
        self.block_size = bytes.max(1);
        self
    }

    /// The size at which an index block is cut (HBase's `hfile.index.block.max.size`); small
    /// values make deep indexes.
    pub fn index_block_size(mut self, bytes: usize) -> Self {
        self.index_chunk = bytes.max(1);
        self
    }

    /// The size of a bloom chunk before folding (HBase's `io.storefile.bloom.block.size`;
    /// rounded up to a multiple of 128).
    pub fn bloom_chunk_size(mut self, bytes: usize) -> Self {
        self.bloom_chunk = bytes;
        self
    }

    /// When the file was made and when it was written for loading, in milliseconds since the
    /// epoch (`hfile.CREATE_TIME_TS` and `BULKLOAD_TIMESTAMP`; both now by default).
    pub fn times(mut self, created_ms: i64, bulk_load_ms: i64) -> Self {
        self.created_ms = created_ms;
        self.bulk_load_ms = bulk_load_ms;
        self
    }

    /// A name for what wrote the file, recorded as `BULKLOAD_SOURCE_TASK`.
    pub fn source(mut self, name: impl Into<String>) -> Self {
        self.source = Some(name.into());
        self
    }
}

/// What a finished file holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Cells written.
    pub cells: u64,
    /// The first and last rows (`None` for a file without cells).
    pub rows: Option<(Vec<u8>, Vec<u8>)>,
    /// The file's size in bytes.
    pub bytes: u64,
    /// Data blocks written.
    pub data_blocks: u64,
    /// Levels of the block index.
    pub index_levels: u32,
}

/// Figures kept over the cells for the file info.
struct Stats {
    cells: u64,
    key_bytes: u64,
    value_bytes: u64,
    /// The largest cell's size and key.
    biggest: (u64, Vec<u8>),
    min_ts: i64,
    max_ts: i64,
    earliest_put: i64,
    family_deletes: u64,
    first_row: Vec<u8>,
}

/// Writes one HFile (version 3) of one column family's cells, given in the order HBase keeps
/// them ([`Cell::compare_key`]).
///
/// ```
/// use hbase_orm_hfile::{Cell, Options, Writer};
/// let mut writer = Writer::new(Vec::new(), Options::new());
/// writer.append(&Cell::put(b"row1", b"d", b"city", 1_700_000_000_000, b"Oslo"))?;
/// writer.append(&Cell::put(b"row2", b"d", b"city", 1_700_000_000_000, b"Bergen"))?;
/// let (bytes, summary) = writer.finish()?;
/// assert_eq!(summary.cells, 2);
/// assert_eq!(summary.bytes as usize, bytes.len());
/// # Ok::<(), hbase_orm_hfile::Error>(())
/// ```
pub struct Writer<W: Write> {
    blocks: BlockWriter<W>,
    options: Options,
    index: IndexWriter,
    bloom: Option<BloomWriter>,
    /// The data block being filled: its cells as stored.
    block: Fill,
    /// Its first cell's key (empty: no block is open).
    block_first: Vec<u8>,
    /// The last cell's key, when it is not in the open block (see `last_at`).
    last: Vec<u8>,
    /// Where the last cell's key is in the open block (it is copied to `last` when the block
    /// is written).
    last_at: Option<std::ops::Range<usize>>,
    /// The key of the last cell of the block before the open one.
    previous_block_last: Vec<u8>,
    family: Option<Vec<u8>>,
    stats: Stats,
    data_blocks: Option<(u64, u64)>,
    data_block_count: u64,
    /// HBase's `total_uncompressed_bytes`: headers and bodies of every block but the data
    /// index's root and intermediate blocks.
    uncompressed: u64,
}

impl<W: Write> Writer<W> {
    /// A writer into `out` (a file, a buffer; it is written block by block, never sought).
    pub fn new(out: W, options: Options) -> Self {
        let bloom = match options.bloom {
            Bloom::Row => Some(BloomWriter::new(Shape::for_bytes(options.bloom_chunk))),
            Bloom::None => None,
        };
        Writer {
            blocks: BlockWriter::new(out, options.compression),
            index: IndexWriter::new(options.index_chunk, MIN_INDEX_ENTRIES),
            bloom,
            options,
            block: Fill::default(),
            block_first: Vec::new(),
            last: Vec::new(),
            last_at: None,
            previous_block_last: Vec::new(),
            family: None,
            stats: Stats {
                cells: 0,
                key_bytes: 0,
                value_bytes: 0,
                biggest: (0, Vec::new()),
                min_ts: i64::MAX,
                max_ts: -1,
                earliest_put: i64::MAX,
                family_deletes: 0,
                first_row: Vec::new(),
            },
            data_blocks: None,
            data_block_count: 0,
            uncompressed: 0,
        }
    }

    /// Appends a cell. It must not sort before the cell before it, and must have the family of
    /// the file's first cell; a cell that breaks either rule, or whose row or family is too
    /// long for a key, is an error and is not written (the file stays writable). After an
    /// [`Error::Io`] or [`Error::TooLarge`] the file is broken: drop the writer.
    pub fn append(&mut self, cell: &Cell<'_>) -> Result<()> {
        let (same_key, new_row) = self.check(cell)?;
        self.place(cell, same_key, new_row)
    }

    /// Appends the cells of one row, in the order HBase keeps them, after the rows before it:
    /// what [`Writer::append`] of each would do, with the row compared once with the last
    /// row and each cell after the first only with the cell before it in the row (a row of
    /// many cells is checked for the cost of one). A cell that breaks a rule is an error, as
    /// in [`Writer::append`]; the cells before it are written, it and those after it not.
    ///
    /// ```
    /// use hbase_orm_hfile::{Options, RowCell, Writer};
    /// let mut writer = Writer::new(Vec::new(), Options::new());
    /// writer.append_row(b"row1", [
    ///     RowCell::put(b"d", b"city", 1_700_000_000_000, b"Oslo"),
    ///     RowCell::put(b"d", b"name", 1_700_000_000_000, b"Ada"),
    /// ])?;
    /// let (_, summary) = writer.finish()?;
    /// assert_eq!(summary.cells, 2);
    /// # Ok::<(), hbase_orm_hfile::Error>(())
    /// ```
    pub fn append_row<'c>(
        &mut self,
        row: &[u8],
        cells: impl IntoIterator<Item = RowCell<'c>>,
    ) -> Result<()> {
        let mut previous: Option<RowCell<'c>> = None;
        for cell in cells {
            let full = cell.in_row(row);
            let (same_key, new_row) = match &previous {
                None => self.check(&full)?,
                Some(previous) => {
                    // The family the cell before had (the same bytes where it lies) passed.
                    if !std::ptr::eq(previous.family, cell.family) {
                        self.check_family(&full)?;
                    }
                    match cell.previous_against(previous) {
                        std::cmp::Ordering::Greater => {
                            return Err(Error::OutOfOrder {
                                previous: describe(&previous.in_row(row).key()),
                                cell: describe(&full.key()),
                            })
                        }
                        order => (order.is_eq(), false),
                    }
                }
            };
            self.place(&full, same_key, new_row)?;
            previous = Some(cell);
        }
        Ok(())
    }

    /// Writes a checked cell (`same_key`: its key is the last cell's; `new_row`: its row is
    /// new) into the open block, cutting the block first when it is full.
    fn place(&mut self, cell: &Cell<'_>, same_key: bool, new_row: bool) -> Result<()> {
        if new_row {
            if let Some(bloom) = &mut self.bloom {
                bloom.add_new_row(cell.row);
            }
        }
        let key = cell.key();
        let key_len = key.len();
        if !same_key && !self.block_first.is_empty() && self.block.len() >= self.options.block_size
        {
            self.finish_block()?;
            self.write_inline(false)?;
        }
        // The cell's bytes: its lengths, key, value, tags' length and memstore timestamp.
        let key_at = self.block.len() + 8;
        let mut out = self.block.next(8 + key_len + cell.value.len() + 3);
        out.put((key_len as u32).to_be_bytes());
        out.put((cell.value.len() as u32).to_be_bytes());
        key.put(&mut out);
        out.slice(cell.value);
        // No tags (their length, 0), and a memstore timestamp of 0 (Hadoop's vlong of 0: one
        // byte, 0).
        out.put([0, 0, 0]);
        debug_assert!(out.is_full());
        self.last_at = Some(key_at..key_at + key_len);
        if self.block_first.is_empty() {
            self.block_first
                .extend_from_slice(&self.block.as_slice()[key_at..key_at + key_len]);
        }
        self.count(cell, key_len);
        Ok(())
    }

    /// The last cell's key (empty before the first).
    fn last_key(&self) -> &[u8] {
        match &self.last_at {
            Some(at) => &self.block.as_slice()[at.clone()],
            None => &self.last,
        }
    }

    /// Refuses a cell the file cannot take; whether its key is the last cell's, and whether
    /// its row is new (the first cell, or a row after the last cell's).
    fn check(&mut self, cell: &Cell<'_>) -> Result<(bool, bool)> {
        if cell.row.is_empty() || cell.row.len() > i16::MAX as usize {
            return Err(Error::BadCell {
                reason: format!("a row key of {} bytes (1 to 32767)", cell.row.len()),
            });
        }
        if cell.family.len() > u8::MAX as usize {
            return Err(Error::BadCell {
                reason: format!("a family name of {} bytes (at most 255)", cell.family.len()),
            });
        }
        self.check_family(cell)?;
        if self.stats.cells == 0 {
            return Ok((false, true));
        }
        let last = Key::parse(self.last_key());
        // The row first: most cells of a row after the first are told apart by it alone
        // (the family is the file's).
        let order = match compare_bytes(last.row, cell.row) {
            std::cmp::Ordering::Less => return Ok((false, true)),
            std::cmp::Ordering::Equal => compare_bytes(last.qualifier, cell.qualifier)
                .then_with(|| cell.timestamp.cmp(&last.timestamp))
                .then_with(|| cell.kind.code().cmp(&last.code)),
            std::cmp::Ordering::Greater => std::cmp::Ordering::Greater,
        };
        match order {
            std::cmp::Ordering::Greater => Err(Error::OutOfOrder {
                previous: describe(&last),
                cell: describe(&cell.key()),
            }),
            order => Ok((order.is_eq(), false)),
        }
    }

    /// Refuses a cell of another family than the file's first cell's.
    fn check_family(&mut self, cell: &Cell<'_>) -> Result<()> {
        match &self.family {
            Some(family) if family.as_slice() != cell.family => Err(Error::MixedFamilies {
                file: String::from_utf8_lossy(family).into_owned(),
                cell: String::from_utf8_lossy(cell.family).into_owned(),
            }),
            Some(_) => Ok(()),
            None => {
                self.family = Some(cell.family.to_vec());
                Ok(())
            }
        }
    }

    fn count(&mut self, cell: &Cell<'_>, key_len: usize) {
        let stats = &mut self.stats;
        if stats.cells == 0 {
            stats.first_row = cell.row.to_vec();
        }
        stats.cells += 1;
        stats.key_bytes += key_len as u64;
        stats.value_bytes += cell.value.len() as u64;
        let size = (8 + key_len + cell.value.len() + 4) as u64;
        if size > stats.biggest.0 {
            let key = match &self.last_at {
                Some(at) => self.block.as_slice()[at.clone()].to_vec(),
                None => self.last.clone(),
            };
            self.stats.biggest = (size, key);
        }
        let stats = &mut self.stats;
        stats.max_ts = stats.max_ts.max(cell.timestamp);
        // A column or family delete covers everything before it: HBase counts it from 0.
        let earliest = match cell.kind {
            CellType::DeleteColumn | CellType::DeleteFamily => 0,
            _ => cell.timestamp,
        };
        stats.min_ts = stats.min_ts.min(earliest);
        if cell.kind == CellType::Put {
            stats.earliest_put = stats.earliest_put.min(cell.timestamp);
        }
        if cell.kind.deletes_family() {
            stats.family_deletes += 1;
        }
    }

    /// Writes the open data block and records it in the index.
    fn finish_block(&mut self) -> Result<()> {
        if self.block_first.is_empty() {
            return Ok(());
        }
        let placed = self.blocks.write(BlockType::Data, self.block.as_slice())?;
        self.count_block(&placed);
        let first = self.data_blocks.map_or(placed.offset, |(first, _)| first);
        self.data_blocks = Some((first, placed.offset));
        self.data_block_count += 1;
        let mut key = Vec::new();
        if self.previous_block_last.is_empty() {
            key.extend_from_slice(&self.block_first);
        } else {
            index_key(
                &Key::parse(&self.previous_block_last),
                &Key::parse(&self.block_first),
                &mut key,
            );
        }
        self.index.add(key, placed);
        if let Some(at) = self.last_at.take() {
            self.last.clear();
            self.last.extend_from_slice(&self.block.as_slice()[at]);
        }
        self.previous_block_last.clear();
        self.previous_block_last.extend_from_slice(&self.last);
        self.block.clear();
        self.block_first.clear();
        Ok(())
    }

    fn count_block(&mut self, placed: &Placed) {
        self.uncompressed += (HEADER_LEN as u32 + placed.uncompressed) as u64;
    }

    /// The index and bloom blocks due at a data block boundary (all that are left when
    /// `closing`).
    fn write_inline(&mut self, closing: bool) -> Result<()> {
        if let Some(leaf) = self.index.write_leaf_if_due(&mut self.blocks, closing)? {
            self.count_block(&leaf);
        }
        if let Some(bloom) = &mut self.bloom {
            for chunk in bloom.write_ready(&mut self.blocks, closing)? {
                self.uncompressed += (HEADER_LEN as u32 + chunk.uncompressed) as u64;
            }
        }
        Ok(())
    }

    /// Writes the rest of the file: the last data block, the index, the file info, the bloom's
    /// meta block and the trailer. Gives back the sink and what the file holds.
    pub fn finish(mut self) -> Result<(W, Summary)> {
        self.finish_block()?;
        self.write_inline(true)?;
        let index = std::mem::replace(&mut self.index, IndexWriter::new(1, 1));
        let written = index.finish(&mut self.blocks)?;
        let meta_index = self.blocks.write(BlockType::RootIndex, &[])?;
        self.count_block(&meta_index);
        let file_info = self.file_info().body();
        let file_info = self.blocks.write(BlockType::FileInfo, &file_info)?;
        self.count_block(&file_info);
        if let Some(meta) = self.bloom.as_ref().and_then(BloomWriter::meta) {
            let placed = self.blocks.write(BlockType::GeneralBloomMeta, &meta)?;
            self.count_block(&placed);
        }
        let trailer = Trailer {
            file_info_offset: file_info.offset,
            load_on_open_offset: written.root.offset,
            uncompressed_index_size: written.uncompressed_size,
            total_uncompressed_bytes: self.uncompressed + TRAILER_LEN as u64,
            data_index_count: written.root_entries as u32,
            entry_count: self.stats.cells,
            index_levels: written.levels,
            data_blocks: self.data_blocks,
            compression: self.options.compression.ordinal(),
        };
        self.blocks.write_raw(&trailer.bytes())?;
        let bytes = self.blocks.position();
        let rows = (self.stats.cells > 0).then(|| {
            let last = Key::parse(&self.last).row.to_vec();
            (std::mem::take(&mut self.stats.first_row), last)
        });
        let summary = Summary {
            cells: self.stats.cells,
            rows,
            bytes,
            data_blocks: self.data_block_count,
            index_levels: written.levels,
        };
        Ok((self.blocks.finish()?, summary))
    }

    /// The file info HBase's bulk-load writer records.
    fn file_info(&self) -> FileInfo {
        let stats = &self.stats;
        let mut info = FileInfo::default();
        if let Some(row) = self.bloom.as_ref().and_then(BloomWriter::last_row) {
            info.set("BLOOM_FILTER_TYPE", "ROW");
            info.set("LAST_BLOOM_KEY", row);
        }
        if let Some(source) = &self.options.source {
            info.set("BULKLOAD_SOURCE_TASK", source.as_bytes());
        }
        info.set(
            "BULKLOAD_TIMESTAMP",
            self.options.bulk_load_ms.to_be_bytes(),
        );
        info.set("DELETE_FAMILY_COUNT", stats.family_deletes.to_be_bytes());
        info.set("EARLIEST_PUT_TS", stats.earliest_put.to_be_bytes());
        info.set("EXCLUDE_FROM_MINOR_COMPACTION", [0]);
        info.set("HISTORICAL", [0]);
        // Cells carry a memstore timestamp (every one 0).
        info.set("KEY_VALUE_VERSION", 1i32.to_be_bytes());
        info.set("MAX_MEMSTORE_TS_KEY", 0i64.to_be_bytes());
        info.set("MAJOR_COMPACTION_KEY", [0xff]);
        let mut range = stats.min_ts.to_be_bytes().to_vec();
        range.extend_from_slice(&stats.max_ts.to_be_bytes());
        info.set("TIMERANGE", range);
        let average = |sum: u64| (sum.checked_div(stats.cells).unwrap_or(0) as i32).to_be_bytes();
        info.set("hfile.AVG_KEY_LEN", average(stats.key_bytes));
        info.set("hfile.AVG_VALUE_LEN", average(stats.value_bytes));
        info.set(
            "hfile.CREATE_TIME_TS",
            self.options.created_ms.to_be_bytes(),
        );
        if stats.cells > 0 {
            info.set("hfile.KEY_OF_BIGGEST_CELL", stats.biggest.1.clone());
            info.set("hfile.LEN_OF_BIGGEST_CELL", stats.biggest.0.to_be_bytes());
            info.set("hfile.LASTKEY", self.last.clone());
        }
        // Cells carry a tags length (every one 0).
        info.set("hfile.MAX_TAGS_LEN", 0i32.to_be_bytes());
        info.set("hfile.TAGS_COMPRESSED", [0]);
        info
    }
}

/// A key for an error message.
fn describe(key: &Key<'_>) -> String {
    format!(
        "{}/{}:{}/{}/{}",
        String::from_utf8_lossy(key.row).escape_debug(),
        String::from_utf8_lossy(key.family).escape_debug(),
        String::from_utf8_lossy(key.qualifier).escape_debug(),
        key.timestamp,
        key.code
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put<'a>(row: &'a [u8], family: &'a [u8], ts: i64) -> Cell<'a> {
        Cell::put(row, family, b"q", ts, b"v")
    }

    /// Rows appended whole make the same file as their cells appended one by one, blocks,
    /// index and bloom included; a row's cell out of order or of another family is refused
    /// after the ones before it are written.
    #[test]
    fn rows_appended_whole_make_the_file_their_cells_make() {
        let options = || Options::new().block_size(256).bloom(Bloom::Row).times(1, 2);
        let qualifiers: [&[u8]; 4] = [b"a", b"b", b"b", b"city"];
        let rows: Vec<Vec<u8>> = (0..200)
            .map(|i| format!("row-{i:05}").into_bytes())
            .collect();
        let mut by_cell = Writer::new(Vec::new(), options());
        let mut by_row = Writer::new(Vec::new(), options());
        for row in &rows {
            let cells: Vec<RowCell> = qualifiers
                .iter()
                .enumerate()
                .map(|(k, q)| RowCell::put(b"d", q, 10 - k as i64, row))
                .collect();
            for cell in &cells {
                by_cell.append(&cell.in_row(row)).unwrap();
            }
            by_row.append_row(row, cells).unwrap();
        }
        let (one, one_summary) = by_cell.finish().unwrap();
        let (other, other_summary) = by_row.finish().unwrap();
        assert_eq!(one_summary.cells, 800);
        assert_eq!(one_summary.data_blocks, other_summary.data_blocks);
        assert!(one == other, "the same bytes");

        let mut writer = Writer::new(Vec::new(), Options::new());
        let out_of_order = writer.append_row(
            b"r",
            [
                RowCell::put(b"d", b"b", 1, b"1"),
                RowCell::put(b"d", b"a", 1, b"2"),
                RowCell::put(b"d", b"c", 1, b"3"),
            ],
        );
        assert!(
            matches!(out_of_order, Err(Error::OutOfOrder { .. })),
            "{out_of_order:?}"
        );
        let other_family = writer.append_row(
            b"s",
            [
                RowCell::put(b"d", b"a", 1, b"1"),
                RowCell::put(b"e", b"b", 1, b""),
            ],
        );
        assert!(
            matches!(other_family, Err(Error::MixedFamilies { .. })),
            "{other_family:?}"
        );
        // An earlier row is refused at its first cell.
        assert!(matches!(
            writer.append_row(b"a", [RowCell::put(b"d", b"a", 1, b"1")]),
            Err(Error::OutOfOrder { .. })
        ));
        let (_, summary) = writer.finish().unwrap();
        assert_eq!(summary.cells, 2, "r:b and s:a written");
    }

    /// A cell out of order or of another family is refused, named, and the writer goes on.
    #[test]
    fn a_refused_cell_leaves_the_file_writable() {
        let mut writer = Writer::new(Vec::new(), Options::new());
        writer.append(&put(b"b", b"d", 5)).unwrap();
        let err = writer.append(&put(b"a", b"d", 5)).unwrap_err();
        assert!(
            matches!(&err, Error::OutOfOrder { previous, cell } if previous == "b/d:q/5/4" && cell == "a/d:q/5/4"),
            "{err}"
        );
        // An older version of the same column comes after the newer one; a newer one cannot.
        writer.append(&put(b"b", b"d", 4)).unwrap();
        assert!(writer.append(&put(b"b", b"d", 9)).is_err());
        // In the same row, a qualifier before the last one's cannot come either.
        let before = writer
            .append(&Cell::put(b"b", b"d", b"a", 1, b"v"))
            .unwrap_err();
        assert!(matches!(before, Error::OutOfOrder { .. }), "{before}");
        let err = writer.append(&put(b"c", b"e", 5)).unwrap_err();
        assert!(matches!(err, Error::MixedFamilies { .. }), "{err}");
        assert!(writer.append(&put(b"", b"d", 5)).is_err());
        writer.append(&put(b"c", b"d", 5)).unwrap();
        let (_, summary) = writer.finish().unwrap();
        assert_eq!(summary.cells, 3);
        assert_eq!(summary.rows, Some((b"b".to_vec(), b"c".to_vec())));
    }

    /// An index whose root grows past the index block size at the last data block, with no
    /// leaf block written yet, stays one level: intermediate blocks only ever sit above
    /// leaves (HBase's reader expects leaves one level above the data).
    #[test]
    fn intermediate_blocks_only_sit_above_leaves() {
        let has = |file: &[u8], magic: &[u8]| file.windows(8).any(|w| w == magic);
        for index_block_size in (200..1200).step_by(7) {
            let mut writer = Writer::new(
                Vec::new(),
                Options::new()
                    .block_size(1)
                    .index_block_size(index_block_size),
            );
            // Short rows, then two long ones that share a long prefix: the last index key is
            // long.
            let mut rows: Vec<Vec<u8>> =
                (0..17).map(|i| format!("aa{i:02}").into_bytes()).collect();
            rows.push([b"ab".to_vec(), vec![b'x'; 100], b"0".to_vec()].concat());
            rows.push([b"ab".to_vec(), vec![b'x'; 100], b"1".to_vec()].concat());
            for row in &rows {
                writer.append(&put(row, b"d", 1)).unwrap();
            }
            let (file, summary) = writer.finish().unwrap();
            let (leaves, intermediate) = (has(&file, b"IDXLEAF2"), has(&file, b"IDXINTE2"));
            assert!(
                leaves || !intermediate,
                "index block size {index_block_size}: intermediate blocks without leaves"
            );
            assert_eq!(summary.index_levels > 1, leaves, "{index_block_size}");
        }
    }

    /// Blocks are cut once they reach the block size, never between two cells of one key.
    #[test]
    fn blocks_are_cut_at_the_block_size() {
        let mut writer = Writer::new(Vec::new(), Options::new().block_size(100));
        for i in 0..100u32 {
            let row = format!("row{i:04}");
            // 4 + 4 + (7 + 1 + 1 + 12) + 1 + 2 + 1 = 33 bytes a cell: a block every 4 cells.
            writer
                .append(&Cell::put(row.as_bytes(), b"d", b"q", 1, b"v"))
                .unwrap();
        }
        let (_, summary) = writer.finish().unwrap();
        assert_eq!(summary.data_blocks, 25);
        assert_eq!(summary.index_levels, 1);
    }

    /// A file without cells is still a file: an empty index, and a trailer that says so.
    #[test]
    fn an_empty_file_has_a_trailer() {
        let (file, summary) = Writer::new(Vec::new(), Options::new()).finish().unwrap();
        assert_eq!(summary.cells, 0);
        assert_eq!(summary.rows, None);
        assert_eq!(&file[file.len() - 4096..file.len() - 4088], b"TRABLK\"$");
    }

    #[test]
    fn families_name_what_the_writer_speaks() {
        assert_eq!(Bloom::from_name("none").unwrap(), Bloom::None);
        assert!(matches!(
            Bloom::from_name("ROWCOL"),
            Err(Error::UnsupportedBloom(_))
        ));
        assert!(matches!(
            Compression::from_name("ZSTD"),
            Err(Error::UnsupportedCompression(_))
        ));
    }
}
