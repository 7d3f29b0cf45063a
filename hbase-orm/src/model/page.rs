//! A scanner page ([`ScannerPage`]): the rows of one scanner reply kept in the buffer it
//! arrived in: every key and cell is an offset into that one buffer, so reading a page makes
//! no handle or allocation per cell.
//!
//! A scan hands out [`ScannedRow`]s, each a shared handle on its page and an index into it.
//! Entities decode straight from a row's borrowed cells ([`ScannedRow::cells`]); a raw scan
//! turns each into a [`Row`] whose cells share the page's buffer ([`ScannedRow::into_row`]).

use std::sync::Arc;

use bytes::{Bytes, BytesMut};

use super::error::Error;
use super::rows::{Cell, Row};

/// Where a key or a cell's part lies in the page's buffer.
#[derive(Clone, Copy, Debug)]
struct Span {
    start: u32,
    len: u32,
}

impl Span {
    fn range(self) -> std::ops::Range<usize> {
        let start = self.start as usize;
        start..start + self.len as usize
    }
}

/// A cell of the page.
#[derive(Clone, Copy, Debug)]
struct CellAt {
    family: Span,
    qualifier: Span,
    value: Span,
    timestamp: i64,
}

/// A row of the page: its key and where its cells end in the page's cell list (they start
/// where the previous row's end).
#[derive(Clone, Copy, Debug)]
struct RowAt {
    key: Span,
    cells_end: u32,
}

/// The rows of one scanner page, in the order the gateway sent them.
#[derive(Default)]
pub(crate) struct ScannerPage {
    buf: Bytes,
    rows: Vec<RowAt>,
    cells: Vec<CellAt>,
    /// Whether a secondary region replica sent it ([`Row::stale`]).
    stale: bool,
}

/// A cell borrowed from a scanner page ([`ScannedRow::cells`]) or a [`Row`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellRef<'a> {
    /// Column family.
    pub family: &'a [u8],
    /// Column qualifier.
    pub qualifier: &'a [u8],
    /// The stored bytes.
    pub value: &'a [u8],
    /// Version timestamp in milliseconds since the epoch.
    pub timestamp: i64,
}

impl<'a> From<&'a Cell> for CellRef<'a> {
    fn from(cell: &'a Cell) -> CellRef<'a> {
        CellRef {
            family: &cell.family,
            qualifier: &cell.qualifier,
            value: &cell.value,
            timestamp: cell.timestamp,
        }
    }
}

/// Builds a [`ScannerPage`] from the parts a reader found in a reply's bytes (its `base`: the reply so
/// far, which may move between reads as it grows), and then the reply's buffer.
#[derive(Default)]
#[cfg_attr(not(any(feature = "thrift2", feature = "native")), allow(dead_code))] // their scanners'
pub(crate) struct ScannerPageBuilder {
    rows: Vec<RowAt>,
    cells: Vec<CellAt>,
    /// How far into the reply the parts given reach.
    end: usize,
}

/// A part given to a [`ScannerPageBuilder`] that is not in its buffer, or lies past 4 GiB in it; or a
/// buffer given to [`ScannerPageBuilder::finish`] shorter than the parts reach.
#[derive(Debug)]
// Every backend's: unused in a build with none.
#[cfg_attr(
    not(any(
        feature = "thrift2",
        feature = "thrift1",
        feature = "native",
        feature = "memory"
    )),
    allow(dead_code)
)]
pub(crate) struct OutOfPage;

#[cfg_attr(not(any(feature = "thrift2", feature = "thrift1")), allow(dead_code))] // the gateways'
impl OutOfPage {
    /// The error of a reply to `method` whose rows a page cannot hold.
    pub(crate) fn error(self, method: &'static str) -> Error {
        Error::Protocol {
            method,
            message: "the rows of the reply hold over 4 GiB, more than one page can".into(),
        }
    }
}

#[cfg_attr(not(any(feature = "thrift2", feature = "native")), allow(dead_code))] // their scanners'
impl ScannerPageBuilder {
    /// A builder with room for `rows` rows of `cells` cells in all.
    pub(crate) fn new(rows: usize, cells: usize) -> ScannerPageBuilder {
        ScannerPageBuilder {
            rows: Vec::with_capacity(rows),
            cells: Vec::with_capacity(cells),
            end: 0,
        }
    }

    /// Where `part`, a slice of `base`, lies in it.
    #[cfg_attr(not(feature = "thrift2"), allow(dead_code))] // the Thrift2 reader's
    fn span(&mut self, base: &[u8], part: &[u8]) -> Result<Span, OutOfPage> {
        let start = (part.as_ptr() as usize)
            .checked_sub(base.as_ptr() as usize)
            .ok_or(OutOfPage)?;
        let end = start.checked_add(part.len()).ok_or(OutOfPage)?;
        if end > base.len() {
            return Err(OutOfPage);
        }
        self.end = self.end.max(end);
        Ok(Span {
            start: u32::try_from(start).map_err(|_| OutOfPage)?,
            len: u32::try_from(part.len()).map_err(|_| OutOfPage)?,
        })
    }

    /// Cells given since the last row was ended.
    fn open_cells(&self) -> usize {
        self.cells.len() - self.rows.last().map_or(0, |r| r.cells_end as usize)
    }

    /// Drops the cells given since the last row was ended (a row whose cell list came twice
    /// keeps the last, as Thrift's readers do).
    pub(crate) fn restart_row(&mut self) {
        let kept = self.cells.len() - self.open_cells();
        self.cells.truncate(kept);
    }

    /// Room for `n` more cells.
    #[cfg_attr(not(feature = "thrift2"), allow(dead_code))] // the Thrift2 scanner's
    pub(crate) fn reserve_cells(&mut self, n: usize) {
        self.cells.reserve(n);
    }

    /// Adds a cell to the row being read; its parts are slices of `base`.
    #[cfg_attr(not(feature = "thrift2"), allow(dead_code))] // the Thrift2 reader's
    pub(crate) fn cell(
        &mut self,
        base: &[u8],
        family: &[u8],
        qualifier: &[u8],
        value: &[u8],
        timestamp: i64,
    ) -> Result<(), OutOfPage> {
        let cell = CellAt {
            family: self.span(base, family)?,
            qualifier: self.span(base, qualifier)?,
            value: self.span(base, value)?,
            timestamp,
        };
        self.cells.push(cell);
        Ok(())
    }

    /// Adds a cell to the row being read, its parts given by place, (start, length), in the
    /// buffer [`finish`](Self::finish) takes (which checks that they lie in it): for a reader
    /// that finds them there itself.
    #[cfg_attr(not(feature = "native"), allow(dead_code))] // the native scanner's
    pub(crate) fn cell_at(
        &mut self,
        family: (u32, u32),
        qualifier: (u32, u32),
        value: (u32, u32),
        timestamp: i64,
    ) {
        let span = |(start, len): (u32, u32)| Span { start, len };
        for (start, len) in [family, qualifier, value] {
            self.end = self.end.max(start as usize + len as usize);
        }
        self.cells.push(CellAt {
            family: span(family),
            qualifier: span(qualifier),
            value: span(value),
            timestamp,
        });
    }

    /// [`end_row`](Self::end_row) with the key given by place, as in
    /// [`cell_at`](Self::cell_at).
    #[cfg_attr(not(feature = "native"), allow(dead_code))] // the native scanner's
    pub(crate) fn end_row_at(&mut self, key: Option<(u32, u32)>) -> Result<(), OutOfPage> {
        match key {
            Some((start, len)) => {
                self.end = self.end.max(start as usize + len as usize);
                self.rows.push(RowAt {
                    key: Span { start, len },
                    cells_end: u32::try_from(self.cells.len()).map_err(|_| OutOfPage)?,
                });
            }
            None => self.restart_row(),
        }
        Ok(())
    }

    /// Ends the row being read: with `key` it is a row of the page, without one its cells are
    /// dropped.
    #[cfg_attr(not(feature = "thrift2"), allow(dead_code))] // the Thrift2 reader's
    pub(crate) fn end_row(&mut self, base: &[u8], key: Option<&[u8]>) -> Result<(), OutOfPage> {
        match key {
            Some(key) => {
                let row = RowAt {
                    key: self.span(base, key)?,
                    cells_end: u32::try_from(self.cells.len()).map_err(|_| OutOfPage)?,
                };
                self.rows.push(row);
            }
            None => self.restart_row(),
        }
        Ok(())
    }

    /// The page of the rows ended so far, over `buf`: the reply whose bytes the parts were
    /// slices of (fails if they reach past its end).
    pub(crate) fn finish(mut self, buf: Bytes) -> Result<ScannerPage, OutOfPage> {
        self.restart_row();
        if self.end > buf.len() {
            return Err(OutOfPage);
        }
        Ok(ScannerPage {
            buf,
            rows: self.rows,
            cells: self.cells,
            stale: false,
        })
    }
}

impl ScannerPage {
    /// A page holding `rows`, their bytes copied into one buffer (for backends whose replies
    /// are not read in place); fails if they hold over 4 GiB.
    // Every backend's: unused in a build with none.
    #[cfg_attr(
        not(any(
            feature = "thrift2",
            feature = "thrift1",
            feature = "native",
            feature = "memory"
        )),
        allow(dead_code)
    )]
    pub(crate) fn from_rows(rows: Vec<Row>) -> Result<ScannerPage, OutOfPage> {
        let cells: usize = rows.iter().map(|r| r.cells.len()).sum();
        let size: usize = rows
            .iter()
            .flat_map(|r| {
                let cells = r.cells.iter();
                cells.map(|c| c.family.len() + c.qualifier.len() + c.value.len())
            })
            .sum::<usize>()
            + rows.iter().map(|r| r.key.len()).sum::<usize>();
        let mut bytes = BytesMut::with_capacity(size);
        let mut at = |part: &[u8]| {
            let span = Span {
                start: u32::try_from(bytes.len()).map_err(|_| OutOfPage)?,
                len: u32::try_from(part.len()).map_err(|_| OutOfPage)?,
            };
            bytes.extend_from_slice(part);
            Ok::<_, OutOfPage>(span)
        };
        let mut page = ScannerPage {
            buf: Bytes::new(),
            rows: Vec::with_capacity(rows.len()),
            cells: Vec::with_capacity(cells),
            stale: rows.iter().any(|r| r.stale),
        };
        for row in &rows {
            for c in &row.cells {
                let cell = CellAt {
                    family: at(&c.family)?,
                    qualifier: at(&c.qualifier)?,
                    value: at(&c.value)?,
                    timestamp: c.timestamp,
                };
                page.cells.push(cell);
            }
            let key = at(&row.key)?;
            let cells_end = u32::try_from(page.cells.len()).map_err(|_| OutOfPage)?;
            page.rows.push(RowAt { key, cells_end });
        }
        page.buf = bytes.freeze();
        Ok(page)
    }

    /// Number of rows.
    pub(crate) fn len(&self) -> usize {
        self.rows.len()
    }

    /// The page, marked as sent by a secondary region replica (or not).
    #[cfg_attr(not(feature = "native"), allow(dead_code))] // the native scanner's
    pub(crate) fn stale(mut self, stale: bool) -> ScannerPage {
        self.stale = stale;
        self
    }

    /// Whether a secondary region replica sent the page: its rows may miss recent writes.
    pub(crate) fn is_stale(&self) -> bool {
        self.stale
    }

    /// Whether the page has no row.
    pub(crate) fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The key of the last row, if the page has one.
    #[cfg_attr(not(feature = "native"), allow(dead_code))] // the native scanner's
    pub(crate) fn last_key(&self) -> Option<&[u8]> {
        self.len().checked_sub(1).map(|i| self.key(i))
    }

    /// Keeps the first `n` rows.
    #[cfg_attr(not(feature = "native"), allow(dead_code))] // the native scanner's
    pub(crate) fn truncate(&mut self, n: usize) {
        if n < self.rows.len() {
            self.rows.truncate(n);
            let cells = self.rows.last().map_or(0, |r| r.cells_end as usize);
            self.cells.truncate(cells);
        }
    }

    /// Takes the last row out, as a [`Row`] sharing the page's buffer.
    #[cfg_attr(not(feature = "native"), allow(dead_code))] // the native scanner's
    pub(crate) fn pop_row(&mut self) -> Option<Row> {
        let last = self.len().checked_sub(1)?;
        let row = self.row(last);
        self.truncate(last);
        Some(row)
    }

    /// The key of the first row, if the page has one.
    #[cfg_attr(not(feature = "native"), allow(dead_code))] // the native scanner's
    pub(crate) fn first_key(&self) -> Option<&[u8]> {
        (!self.is_empty()).then(|| self.key(0))
    }

    /// Takes the first row out, as a [`Row`] sharing the page's buffer (the others' places
    /// move down; nothing is copied).
    #[cfg_attr(not(feature = "native"), allow(dead_code))] // the native scanner's
    pub(crate) fn pop_first_row(&mut self) -> Option<Row> {
        if self.is_empty() {
            return None;
        }
        let row = self.row(0);
        let cells = self.rows.remove(0).cells_end;
        self.cells.drain(..cells as usize);
        for r in &mut self.rows {
            r.cells_end -= cells;
        }
        Some(row)
    }

    /// The rows, as [`Row`]s sharing the page's buffer.
    #[cfg_attr(not(any(feature = "thrift2", feature = "native")), allow(dead_code))] // their scanners'
    pub(crate) fn into_rows(self) -> Vec<Row> {
        (0..self.len()).map(|i| self.row(i)).collect()
    }

    /// The key of row `i`.
    fn key(&self, i: usize) -> &[u8] {
        &self.buf[self.rows[i].key.range()]
    }

    /// The cells of row `i`, in the page.
    fn cells_at(&self, i: usize) -> &[CellAt] {
        let start = match i {
            0 => 0,
            _ => self.rows[i - 1].cells_end as usize,
        };
        &self.cells[start..self.rows[i].cells_end as usize]
    }

    /// The cells of row `i`, borrowed.
    fn cells(&self, i: usize) -> impl Iterator<Item = CellRef<'_>> {
        let buf = &self.buf;
        self.cells_at(i).iter().map(move |c| CellRef {
            family: &buf[c.family.range()],
            qualifier: &buf[c.qualifier.range()],
            value: &buf[c.value.range()],
            timestamp: c.timestamp,
        })
    }

    /// Row `i` as a [`Row`] sharing the page's buffer.
    fn row(&self, i: usize) -> Row {
        let part = |span: Span| self.buf.slice(span.range());
        Row {
            key: self.key(i).to_vec(),
            cells: self
                .cells_at(i)
                .iter()
                .map(|c| Cell {
                    family: part(c.family),
                    qualifier: part(c.qualifier),
                    value: part(c.value),
                    timestamp: c.timestamp,
                })
                .collect(),
            stale: self.stale,
        }
    }
}

/// A page shows its rows: keys and cells, not where they lie.
impl std::fmt::Debug for ScannerPage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries((0..self.len()).map(|i| (self.key(i), self.cells(i).collect::<Vec<_>>())))
            .finish()
    }
}

/// Pages are equal when they hold the same rows, wherever those lie in their buffers.
impl PartialEq for ScannerPage {
    fn eq(&self, other: &ScannerPage) -> bool {
        self.len() == other.len()
            && (0..self.len())
                .all(|i| self.key(i) == other.key(i) && self.cells(i).eq(other.cells(i)))
    }
}

/// One row of a scan as it arrived, in the page of rows it came in
/// ([`RowStream::into_scanned`](crate::RowStream::into_scanned)): its key and cells are read
/// where they lie, without a [`Row`] made of them. The page's memory is kept while one of its
/// rows is.
#[derive(Clone)]
pub struct ScannedRow {
    page: Arc<ScannerPage>,
    index: usize,
}

/// A row shows its key and cells, not the rest of its page.
impl std::fmt::Debug for ScannedRow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScannedRow")
            .field("key", &self.key())
            .field("cells", &self.cells().collect::<Vec<_>>())
            .finish()
    }
}

impl ScannedRow {
    /// Row `index` of `page`.
    pub(crate) fn new(page: Arc<ScannerPage>, index: usize) -> ScannedRow {
        debug_assert!(index < page.len());
        ScannedRow { page, index }
    }

    /// The row key.
    pub fn key(&self) -> &[u8] {
        self.page.key(self.index)
    }

    /// The cells, borrowed from the page, in HBase's order (family, qualifier, newest version
    /// first).
    pub fn cells(&self) -> impl Iterator<Item = CellRef<'_>> {
        self.page.cells(self.index)
    }

    /// Whether a secondary region replica sent it ([`Row::stale`]).
    pub fn is_stale(&self) -> bool {
        self.page.is_stale()
    }

    /// The row as a [`Row`] whose cells share the page's buffer.
    pub fn into_row(self) -> Row {
        self.page.row(self.index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(family: &str, qualifier: &str, value: &str, timestamp: i64) -> Cell {
        Cell {
            family: Bytes::copy_from_slice(family.as_bytes()),
            qualifier: Bytes::copy_from_slice(qualifier.as_bytes()),
            value: Bytes::copy_from_slice(value.as_bytes()),
            timestamp,
        }
    }

    fn sample() -> Vec<Row> {
        vec![
            Row {
                key: b"a".to_vec(),
                cells: vec![cell("d", "x", "1", 5), cell("d", "y", "", 6)],
                stale: false,
            },
            Row::empty(b"b".to_vec()),
            Row {
                key: b"c".to_vec(),
                cells: vec![cell("e", "", "three", -1)],
                stale: false,
            },
        ]
    }

    #[test]
    fn rows_packed_into_a_page_come_back_the_same() {
        let page = Arc::new(ScannerPage::from_rows(sample()).unwrap());
        assert_eq!(page.len(), 3);
        let scanned: Vec<ScannedRow> = (0..3).map(|i| ScannedRow::new(page.clone(), i)).collect();
        for (s, row) in scanned.iter().zip(sample()) {
            assert_eq!(s.key(), &row.key[..]);
            let cells: Vec<CellRef> = s.cells().collect();
            let want: Vec<CellRef> = row.cells.iter().map(CellRef::from).collect();
            assert_eq!(cells, want);
        }
        let rows: Vec<Row> = scanned.into_iter().map(ScannedRow::into_row).collect();
        assert_eq!(rows, sample());
        assert_eq!(
            ScannerPage::from_rows(sample()).unwrap().into_rows(),
            sample()
        );
    }

    #[test]
    fn a_row_without_a_key_drops_its_cells_and_foreign_slices_are_refused() {
        let buf = Bytes::from_static(b"kfqv");
        let b = &buf[..];
        let mut page = ScannerPageBuilder::new(2, 2);
        page.cell(b, &b[1..2], &b[2..3], &b[3..4], 1).unwrap();
        page.end_row(b, None).unwrap();
        page.cell(b, &b[1..2], &b[2..3], &b[3..], 2).unwrap();
        page.end_row(b, Some(&b[..1])).unwrap();
        // A cell of a row never ended is not in the page.
        page.cell(b, &b[1..2], &b[2..3], &b[3..], 3).unwrap();
        assert!(page.cell(b, b"elsewhere", &b[2..3], &b[3..], 4).is_err());
        // Parts found in a longer reply do not fit a shorter buffer.
        let short = Bytes::from_static(b"kf");
        let mut longer = ScannerPageBuilder::new(1, 1);
        longer.cell(b, &b[1..2], &b[2..3], &b[3..], 5).unwrap();
        longer.end_row(b, Some(&b[..1])).unwrap();
        assert!(longer.finish(short).is_err());
        let rows = page.finish(buf.clone()).unwrap().into_rows();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].key, b"k");
        assert_eq!(rows[0].cells.len(), 1);
        assert_eq!(rows[0].cells[0].timestamp, 2);
        assert!(ScannerPage::default().is_empty());
    }
}
