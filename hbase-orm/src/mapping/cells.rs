//! The cells of one entity value: [`CellWriter`] collects them for a put ([`write_image`]),
//! [`CellReader`] hands a row's cells to generated decoding ([`read_row`]). Both know an
//! entity by its declared columns only, so this file sits below the `HBaseEntity` contract
//! whose provided methods drive them (`row_image` and `decode_row` in `mod.rs`).

use std::collections::BTreeMap;
use std::marker::PhantomData;

use bytes::Bytes;

use crate::mapping::codec::{Codec, Native};
use crate::mapping::columns::{presence_of, ColumnDef, ColumnKind};
use crate::mapping::group::{ColumnGroup, GroupReader, GroupWriter};
use crate::mapping::rowkey::{KeyCodec, KeyError};
use crate::mapping::versions::Versions;
use crate::model::TableName;
use crate::model::{printable_key, CellRef, Delete, Put, PutCell};
use crate::model::{Error, Result};

/// What a save of one value writes: the put of its cells, and what the repository needs
/// to finish the row image.
pub(crate) struct RowImage {
    /// The cells of the fields that have values.
    pub put: Put,
    /// The columns whose `Option` fields are `None` (deleted by a save).
    pub absent: Vec<usize>,
    /// The wide (map) columns: a save also deletes the stored entries the map lacks.
    pub wide: Vec<usize>,
    /// The version field's column and the value's version (the put holds version + 1).
    pub version: Option<(usize, u64)>,
    /// Cells of flattened groups whose `None` fields a save deletes: column and qualifier.
    pub absent_cells: Vec<(usize, Vec<u8>)>,
}

impl RowImage {
    /// The delete of what a save clears: the columns of `None` fields, in groups too; `None`
    /// when it clears nothing (most rows: no delete is made for them).
    pub(crate) fn clearing(&self, columns: &[ColumnDef]) -> Option<Delete> {
        if self.absent.is_empty() && self.absent_cells.is_empty() {
            return None;
        }
        let delete = self
            .absent
            .iter()
            .fold(Delete::new(self.put.row.clone()), |d, &i| {
                let c = &columns[i];
                d.column(c.family, c.qualifier)
            });
        let delete = self
            .absent_cells
            .iter()
            .fold(delete, |d, (i, q)| d.column(columns[*i].family, q.clone()));
        Some(delete)
    }
}

/// The row image of one value: its cells collected by `write` (the generated
/// `write_cells`). Counters are written only with `counters` (a first write: an insert).
///
/// A value with no cell to write (only key fields, or every field `None`), or whose presence
/// column is the marker (see [`presence_of`]), gets an empty marker cell `family:` (empty
/// qualifier) in its first family, so the row exists and reads back; decoding ignores it.
pub(crate) fn write_image<E>(
    row: Vec<u8>,
    columns: &'static [ColumnDef],
    families: &[&str],
    counters: bool,
    write: impl FnOnce(&mut CellWriter<'_, E>) -> Result<()>,
) -> Result<RowImage> {
    let mut image = RowImage {
        put: Put::new(row),
        absent: Vec::new(),
        wide: Vec::new(),
        version: None,
        absent_cells: Vec::new(),
    };
    image.put.cells.reserve(columns.len());
    let mut values = Values {
        bytes: Vec::with_capacity(16 * columns.len()),
        ends: Vec::with_capacity(columns.len()),
    };
    write_cells(&mut image, &mut values, columns, families, counters, write)?;
    values.finish(&mut image.put.cells);
    Ok(image)
}

/// Writes a value's cells into `image` and `values` (emptied first but for the row key),
/// the marker cell last where the row needs one (see [`write_image`]).
fn write_cells<E>(
    image: &mut RowImage,
    values: &mut Values,
    columns: &'static [ColumnDef],
    families: &[&str],
    counters: bool,
    write: impl FnOnce(&mut CellWriter<'_, E>) -> Result<()>,
) -> Result<()> {
    image.put.cells.clear();
    image.absent.clear();
    image.wide.clear();
    image.version = None;
    image.absent_cells.clear();
    values.bytes.clear();
    values.ends.clear();
    let mut writer = CellWriter {
        image,
        counters,
        columns,
        values,
        entity: PhantomData,
    };
    write(&mut writer)?;
    if image.put.cells.is_empty() || presence_of(columns).is_none() {
        if let Some(family) = families.first() {
            image.put.push(*family, Vec::new(), Vec::new(), None);
        }
    }
    Ok(())
}

#[cfg(feature = "bulk-load")]
/// A value's row written into buffers kept from one value to the next ([`write_row`]), for
/// writers that copy its cells at once (a bulk load's sorted records): once they have grown,
/// no allocation per value.
pub(crate) struct RowBuffers {
    image: RowImage,
    values: Values,
}

#[cfg(feature = "bulk-load")]
impl Default for RowBuffers {
    fn default() -> Self {
        RowBuffers {
            image: RowImage {
                put: Put::new(Vec::new()),
                absent: Vec::new(),
                wide: Vec::new(),
                version: None,
                absent_cells: Vec::new(),
            },
            values: Values::default(),
        }
    }
}

#[cfg(feature = "bulk-load")]
impl RowBuffers {
    /// The row key written.
    pub(crate) fn row(&self) -> &[u8] {
        &self.image.put.row
    }

    /// The cells written, in the order written: family, qualifier, value and timestamp
    /// (`None`: the write's).
    pub(crate) fn cells(&self) -> impl Iterator<Item = CellRef<'_>> + Clone + '_ {
        let mut ends = self.values.ends.iter().peekable();
        let mut start = 0;
        self.image
            .put
            .cells
            .iter()
            .enumerate()
            .map(move |(i, cell)| {
                let value = match ends.next_if(|(at, _)| *at == i) {
                    Some(&(_, end)) => {
                        let value = &self.values.bytes[start..end];
                        start = end;
                        value
                    }
                    None => &cell.value[..],
                };
                CellRef {
                    family: &cell.family,
                    qualifier: &cell.qualifier,
                    value,
                    timestamp: cell.timestamp.unwrap_or(i64::MAX),
                }
            })
    }
}

#[cfg(feature = "bulk-load")]
/// Writes a value's row into `buffers` (see [`RowBuffers`]): its key by `key`, its cells by
/// `write` (the generated `write_cells`), as [`write_image`] writes them.
pub(crate) fn write_row<E>(
    buffers: &mut RowBuffers,
    columns: &'static [ColumnDef],
    families: &[&str],
    counters: bool,
    key: impl FnOnce(&mut Vec<u8>) -> Result<()>,
    write: impl FnOnce(&mut CellWriter<'_, E>) -> Result<()>,
) -> Result<()> {
    let RowBuffers { image, values } = buffers;
    image.put.row.clear();
    key(&mut image.put.row)?;
    write_cells(image, values, columns, families, counters, write)
}

/// What decoding needs of an entity's declaration: its columns, the lookup of a cell's
/// column, and its declared table (named in errors when the table read is not known).
pub(crate) struct Columns {
    pub(crate) defs: &'static [ColumnDef],
    pub(crate) index: fn(&[u8], &[u8]) -> Option<usize>,
    pub(crate) declared_table: fn() -> TableName,
}

/// Columns whose cells a decode sorts on the stack; an entity with more takes a vector.
const INLINE_COLUMNS: usize = 32;

/// Sorts `cells` (newest version first, as HBase sends them) into `columns` and hands them to
/// `read` (the generated `read_cells`).
pub(crate) fn read_row<'a, E>(
    key: &'a [u8],
    cells: impl Iterator<Item = CellRef<'a>>,
    table: Option<&'a TableName>,
    columns: Columns,
    read: impl FnOnce(&[u8], &mut CellReader<'_, E>) -> Result<E>,
) -> Result<E> {
    let n = columns.defs.len();
    let mut inline = [None; INLINE_COLUMNS];
    let mut heap = Vec::new();
    let slots: &mut [Option<&[u8]>] = if n <= INLINE_COLUMNS {
        &mut inline[..n]
    } else {
        heap.resize(n, None);
        &mut heap
    };
    let mut many = Vec::new();
    for cell in cells {
        if let Some(i) = (columns.index)(cell.family, cell.qualifier) {
            match columns.defs[i].kind {
                k if k.takes_many_cells() => many.push((i, cell)),
                // Cells come newest version first: keep the first one.
                _ if slots[i].is_none() => slots[i] = Some(cell.value),
                _ => {}
            }
        }
    }
    read(
        key,
        &mut CellReader {
            table,
            row: key,
            slots,
            many,
            columns,
            entity: PhantomData,
        },
    )
}

/// An error from one field on its way out of generated code: boxed so that the per-field
/// results of the hot decode and encode paths stay two words wide. `?` turns it into
/// [`Error`].
#[derive(Debug)]
pub struct FieldError(Box<Error>);

impl From<FieldError> for Error {
    fn from(e: FieldError) -> Error {
        *e.0
    }
}

impl From<Error> for FieldError {
    fn from(e: Error) -> FieldError {
        FieldError(Box::new(e))
    }
}

/// The result of one field's encoding or decoding.
pub type FieldResult<T> = std::result::Result<T, FieldError>;

/// Collects the cells of one entity value; used by generated
/// [`HBaseEntity::write_cells`](crate::HBaseEntity::write_cells).
pub struct CellWriter<'a, E> {
    image: &'a mut RowImage,
    counters: bool,
    columns: &'static [ColumnDef],
    /// The encoded values of the row, one after the other: one buffer per row instead of
    /// one per cell, cut into the cells' values when the row is done ([`Values::finish`]).
    values: &'a mut Values,
    entity: PhantomData<E>,
}

/// A row's encoded values and where each cell's lies.
#[derive(Default)]
struct Values {
    bytes: Vec<u8>,
    /// Per cell given its value here: its index in the put, and its value's end in `bytes`
    /// (it starts where the one before ends).
    ends: Vec<(usize, usize)>,
}

impl Values {
    /// Gives each cell its value: a slice of one shared buffer.
    fn finish(self, cells: &mut [PutCell]) {
        let bytes = Bytes::from(self.bytes);
        let mut start = 0;
        for (cell, end) in self.ends {
            cells[cell].value = bytes.slice(start..end);
            start = end;
        }
    }
}

impl<E> CellWriter<'_, E> {
    #[cold]
    fn error(&self, col: usize, reason: String) -> FieldError {
        FieldError::from(Error::Encode {
            entity: std::any::type_name::<E>(),
            field: self.columns[col].field,
            reason,
        })
    }

    /// A cell of column `col`'s family (its declared name, shared: no copy per cell). Inlined
    /// into its callers: as a call, its `Bytes` passed through the stack were read back as
    /// wide loads that stalled on the narrow stores that wrote them (mapping the bench's
    /// orders to puts: 0.38 µs a row as a call, 0.34 to 0.36 inlined).
    #[inline(always)]
    fn push(&mut self, col: usize, qualifier: Bytes, value: Bytes, timestamp: Option<i64>) {
        self.image.put.cells.push(PutCell {
            family: Bytes::from_static(self.columns[col].family.as_bytes()),
            qualifier,
            value,
            timestamp,
        });
    }

    /// A cell of column `col` whose value `C` encodes into the row's buffer.
    fn push_encoded<T, C: Codec<T>>(
        &mut self,
        col: usize,
        qualifier: Bytes,
        value: &T,
        timestamp: Option<i64>,
    ) -> FieldResult<()> {
        let start = self.values.bytes.len();
        if let Err(reason) = C::encode(value, &mut self.values.bytes) {
            self.values.bytes.truncate(start);
            return Err(self.error(col, reason));
        }
        let end = self.values.bytes.len();
        self.values.ends.push((self.image.put.cells.len(), end));
        self.push(col, qualifier, Bytes::new(), timestamp);
        Ok(())
    }

    /// Column `col`'s declared qualifier, shared.
    #[inline(always)]
    fn qualifier(&self, col: usize) -> Bytes {
        Bytes::from_static(self.columns[col].qualifier.as_bytes())
    }

    /// Writes field `col` (an index into `self.columns`) with codec `C`.
    pub fn value<T, C: Codec<T>>(&mut self, col: usize, value: &T) -> FieldResult<()> {
        self.push_encoded::<T, C>(col, self.qualifier(col), value, None)
    }

    /// Writes an optional field: `None` writes no cell and, in a row image, deletes the column.
    pub fn optional<T, C: Codec<T>>(&mut self, col: usize, value: &Option<T>) -> FieldResult<()> {
        match value {
            Some(v) => self.value::<T, C>(col, v),
            None => {
                self.image.absent.push(col);
                Ok(())
            }
        }
    }

    /// Writes every version of a `versions = N` field with its own timestamp.
    pub fn versions<T, C: Codec<T>>(&mut self, col: usize, value: &Versions<T>) -> FieldResult<()> {
        for v in value {
            self.push_encoded::<T, C>(col, self.qualifier(col), &v.value, Some(v.timestamp))?;
        }
        Ok(())
    }

    /// Writes a `wide` map: one cell per entry, the qualifier being the key encoded with `KC`.
    pub fn wide<K, KC: KeyCodec<K>, V, VC: Codec<V>>(
        &mut self,
        col: usize,
        map: &BTreeMap<K, V>,
    ) -> FieldResult<()> {
        self.image.wide.push(col);
        for (k, v) in map {
            let mut qualifier = Vec::new();
            KC::encode(k, &mut qualifier).map_err(|reason| self.error(col, reason))?;
            self.push_encoded::<V, VC>(col, qualifier.into(), v, None)?;
        }
        Ok(())
    }

    /// A flattened group: its cells under the field's prefix; its `None` fields are deleted
    /// by a save.
    pub fn flatten<G: ColumnGroup>(&mut self, col: usize, value: &G) -> FieldResult<()> {
        let def = &self.columns[col];
        let prefix = match def.kind {
            ColumnKind::Flatten(p) => p,
            _ => "",
        };
        let mut group = GroupWriter {
            entity: std::any::type_name::<E>(),
            ..GroupWriter::default()
        };
        value.write_group(prefix, &mut group)?;
        for (q, v) in group.cells {
            self.push(col, q.into(), v.into(), None);
        }
        self.image
            .absent_cells
            .extend(group.absent.into_iter().map(|q| (col, q)));
        Ok(())
    }

    /// A `children` list: each child's cells under `<index>:`; the family is replaced whole.
    pub fn children<G: ColumnGroup>(&mut self, col: usize, items: &[G]) -> FieldResult<()> {
        self.image.wide.push(col);
        let mut group = GroupWriter {
            entity: std::any::type_name::<E>(),
            ..GroupWriter::default()
        };
        for (i, item) in items.iter().enumerate() {
            item.write_group(&format!("{i}:"), &mut group)?;
        }
        for (q, v) in group.cells {
            self.push(col, q.into(), v.into(), None);
        }
        Ok(())
    }

    /// A `counter` field: written (as HBase's 8-byte counter) only when the row is created;
    /// afterwards only [`Repository::increment`](crate::Repository::increment) changes it.
    pub fn counter(&mut self, col: usize, value: &i64) -> FieldResult<()> {
        if self.counters {
            self.value::<i64, Native>(col, value)?;
        }
        Ok(())
    }

    /// The `version` field: the row image stores `value + 1`, the version after this write.
    pub fn version(&mut self, col: usize, value: &u64) -> FieldResult<()> {
        self.image.version = Some((col, *value));
        let next = value
            .checked_add(1)
            .ok_or_else(|| self.error(col, "the version is at u64::MAX".into()))?;
        self.value::<u64, Native>(col, &next)
    }
}

/// The cells of one row, sorted into the entity's columns; used by generated
/// [`HBaseEntity::read_cells`](crate::HBaseEntity::read_cells).
pub struct CellReader<'a, E> {
    table: Option<&'a TableName>,
    row: &'a [u8],
    /// The newest value of each column, if the row has it.
    slots: &'a mut [Option<&'a [u8]>],
    /// The cells of versioned and wide columns, in row order (newest version first).
    many: Vec<(usize, CellRef<'a>)>,
    columns: Columns,
    entity: PhantomData<E>,
}

impl<'a, E> CellReader<'a, E> {
    /// The table named in decode errors: the one read, or the entity's declared one. Built
    /// only when an error is reported.
    fn table_text(&self) -> String {
        match self.table {
            Some(t) => t.to_string(),
            None => (self.columns.declared_table)().to_string(),
        }
    }

    /// The decode error for a row key that does not fit the entity's key.
    pub fn key_error(&self, e: KeyError) -> Error {
        Error::Decode {
            table: self.table_text(),
            row: printable_key(self.row),
            column: format!("row key part `{}`", e.part),
            expected: e.expected.to_string(),
            reason: e.reason,
        }
    }

    fn decode<T, C: Codec<T>>(&self, col: usize, bytes: &[u8]) -> FieldResult<T> {
        C::decode(bytes).map_err(|reason| self.error::<T, C>(col, reason))
    }

    #[cold]
    fn error<T, C: Codec<T>>(&self, col: usize, reason: String) -> FieldError {
        let def = &self.columns.defs[col];
        FieldError::from(Error::Decode {
            table: self.table_text(),
            row: printable_key(self.row),
            column: format!("{}:{} (field `{}`)", def.family, def.qualifier, def.field),
            expected: C::expected().into_owned(),
            reason,
        })
    }

    /// A field that must be present.
    pub fn required<T, C: Codec<T>>(&mut self, col: usize) -> FieldResult<T> {
        match self.slots[col].take() {
            Some(bytes) => self.decode::<T, C>(col, bytes),
            None => Err(self.error::<T, C>(
                col,
                "the cell is missing (never written, deleted, not selected by a projection, or \
                 written outside the read's time range); \
                 make the field an Option or give it #[hbase(default)]"
                    .into(),
            )),
        }
    }

    /// An `Option` field: a missing cell is `None`.
    pub fn optional<T, C: Codec<T>>(&mut self, col: usize) -> FieldResult<Option<T>> {
        match self.slots[col].take() {
            Some(bytes) => self.decode::<T, C>(col, bytes).map(Some),
            None => Ok(None),
        }
    }

    /// A field with a default: a missing cell is `default()`.
    pub fn or_else<T, C: Codec<T>>(
        &mut self,
        col: usize,
        default: impl FnOnce() -> T,
    ) -> FieldResult<T> {
        match self.slots[col].take() {
            Some(bytes) => self.decode::<T, C>(col, bytes),
            None => Ok(default()),
        }
    }

    /// A `versions = N` field: every version read, newest first.
    pub fn versions<T, C: Codec<T>>(&mut self, col: usize) -> FieldResult<Versions<T>> {
        let mut out = Versions::new();
        for (_, cell) in self.take_many(col) {
            let ts = cell.timestamp;
            out.push(ts, self.decode::<T, C>(col, cell.value)?);
        }
        Ok(out)
    }

    /// A `wide` map field: one entry per cell of its family.
    pub fn wide<K: Ord, KC: KeyCodec<K>, V, VC: Codec<V>>(
        &mut self,
        col: usize,
    ) -> FieldResult<BTreeMap<K, V>> {
        let cells = self.take_many(col);
        let mut entries = Vec::with_capacity(cells.len());
        let mut previous: Option<&[u8]> = None;
        for (_, cell) in cells {
            // A wide family read with several versions: cells of one qualifier come together,
            // newest first; keep the first.
            if previous == Some(cell.qualifier) {
                continue;
            }
            let key = KC::decode(cell.qualifier).map_err(|reason| {
                self.error_at(col, cell.qualifier, KC::EXPECTED.to_string(), reason)
            })?;
            entries.push((key, self.decode::<V, VC>(col, cell.value)?));
            previous = Some(cell.qualifier);
        }
        // Qualifiers arrive sorted; with an order-preserving key codec the keys are too, and
        // the map is built in one pass.
        Ok(entries.into_iter().collect())
    }

    /// The `table_time` key part of an entity read from a per-period table: a codec that
    /// stores only the time within the period ([`KeyCodec::PERIOD`]) gets the period's start,
    /// read from the table's name, added back. Other codecs keep the value.
    pub fn in_period<T, C: KeyCodec<T>>(&self, value: T, template: &str) -> FieldResult<T>
    where
        T: Copy + Into<i64> + TryFrom<i64>,
    {
        if C::PERIOD.is_none() {
            return Ok(value);
        }
        let table = self.table_text();
        let name = table.rsplit(':').next().unwrap_or(&table);
        let period = C::PERIOD.unwrap_or(1).max(1);
        let start = crate::schema::table_template_start(template, name).ok_or_else(|| {
            self.error_at(
                0,
                self.row,
                format!("a table named like {template}"),
                format!("the table {table} does not fit the template; its period is unknown"),
            )
        })?;
        // The codec's period (a day) starts at or before the table's (a day, or an hour).
        let start = start - start.rem_euclid(period);
        T::try_from(value.into() + start)
            .map_err(|_| self.error_at(0, self.row, "a time".into(), "out of range".into()))
    }

    /// A `counter` field: a missing cell is 0.
    pub fn counter(&mut self, col: usize) -> FieldResult<i64> {
        self.or_else::<i64, Native>(col, || 0)
    }

    /// The `version` field: a missing cell is 0 (never saved with a version).
    pub fn version(&mut self, col: usize) -> FieldResult<u64> {
        self.or_else::<u64, Native>(col, || 0)
    }

    fn group_reader(&mut self, col: usize) -> GroupReader<'_> {
        let cells = self
            .take_many(col)
            .into_iter()
            .map(|(_, c)| (c.qualifier, c.value))
            .collect();
        let def = &self.columns.defs[col];
        GroupReader::new(
            cells,
            self.table_text().into(),
            self.row,
            def.family,
            def.field,
        )
    }

    /// A flattened group.
    pub fn flatten<G: ColumnGroup>(&mut self, col: usize) -> FieldResult<G> {
        let prefix = match self.columns.defs[col].kind {
            ColumnKind::Flatten(p) => p,
            _ => "",
        };
        Ok(G::read_group(prefix, &mut self.group_reader(col))?)
    }

    /// A `children` list, in index order.
    pub fn children<G: ColumnGroup>(&mut self, col: usize) -> FieldResult<Vec<G>> {
        let mut reader = self.group_reader(col);
        let mut out = Vec::new();
        for i in reader.child_indexes()? {
            out.push(G::read_group(&format!("{i}:"), &mut reader)?);
        }
        Ok(out)
    }

    fn take_many(&mut self, col: usize) -> Vec<(usize, CellRef<'a>)> {
        // Usually one field takes all of them: hand the vector over whole.
        if self.many.iter().all(|(c, _)| *c == col) {
            return std::mem::take(&mut self.many);
        }
        let (mine, rest) = std::mem::take(&mut self.many)
            .into_iter()
            .partition(|(c, _)| *c == col);
        self.many = rest;
        mine
    }

    #[cold]
    fn error_at(
        &self,
        col: usize,
        qualifier: &[u8],
        expected: String,
        reason: String,
    ) -> FieldError {
        let def = &self.columns.defs[col];
        FieldError::from(Error::Decode {
            table: self.table_text(),
            row: printable_key(self.row),
            column: format!(
                "{}:{} (key of map field `{}`)",
                def.family,
                printable_key(qualifier),
                def.field
            ),
            expected,
            reason,
        })
    }
}
