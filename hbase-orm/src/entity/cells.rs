//! The cells of one entity value: [`CellWriter`] collects them for a put, [`CellReader`]
//! hands a row's cells to generated decoding, and [`row_image`] and [`decode_row`] drive the
//! two for [`HBaseEntity`]'s provided methods.

use std::marker::PhantomData;

use crate::entity::codec::Codec;
use crate::entity::rowkey::KeyError;
use crate::entity::HBaseEntity;
use crate::error::{Error, Result};
use crate::model::{printable_key, Put, PutCell, Row};
use crate::schema::TableName;

/// The cells of `value`'s fields that have values, and the indexes of the columns whose
/// fields are `None`.
///
/// A value with no cell to write (only key fields, or every field `None`) gets an empty
/// marker cell `family:` (empty qualifier) in its first family, so the row exists and reads
/// back; decoding ignores it.
pub(super) fn row_image<E: HBaseEntity>(value: &E) -> Result<(Put, Vec<usize>)> {
    let mut put = Put::new(value.row_key()?);
    put.cells.reserve(E::COLUMNS.len());
    let mut absent = Vec::new();
    value.write_cells(&mut CellWriter {
        put: &mut put,
        absent: &mut absent,
        entity: PhantomData,
    })?;
    if put.cells.is_empty() {
        if let Some(family) = E::FAMILIES.first() {
            put.push(*family, Vec::new(), Vec::new(), None);
        }
    }
    Ok((put, absent))
}

/// The table named in decode errors: the one read, or the entity's declared one. Built only
/// when an error is reported.
fn table_text<E: HBaseEntity>(table: Option<&TableName>) -> String {
    match table {
        Some(t) => t.to_string(),
        None => E::table_name().to_string(),
    }
}

pub(super) fn decode_row<E: HBaseEntity>(row: Row, table: Option<&TableName>) -> Result<E> {
    let Row { key, cells } = row;
    let mut slots: Vec<Option<Vec<u8>>> = vec![None; E::COLUMNS.len()];
    for cell in cells {
        if let Some(i) = E::column_index(&cell.family, &cell.qualifier) {
            // Cells come newest version first: keep the first one.
            if slots[i].is_none() {
                slots[i] = Some(cell.value);
            }
        }
    }
    E::read_cells(
        &key,
        &mut CellReader {
            table,
            row: &key,
            slots,
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

/// Collects the cells of one entity value; used by generated [`HBaseEntity::write_cells`].
pub struct CellWriter<'a, E> {
    put: &'a mut Put,
    absent: &'a mut Vec<usize>,
    entity: PhantomData<E>,
}

impl<E: HBaseEntity> CellWriter<'_, E> {
    /// Writes field `col` (an index into `E::COLUMNS`) with codec `C`.
    pub fn value<T, C: Codec<T>>(&mut self, col: usize, value: &T) -> FieldResult<()> {
        let def = &E::COLUMNS[col];
        let mut bytes = Vec::new();
        C::encode(value, &mut bytes).map_err(|reason| {
            FieldError::from(Error::Encode {
                entity: std::any::type_name::<E>(),
                field: def.field,
                reason,
            })
        })?;
        self.put.cells.push(PutCell {
            family: def.family.as_bytes().to_vec(),
            qualifier: def.qualifier.as_bytes().to_vec(),
            value: bytes,
            timestamp: None,
        });
        Ok(())
    }

    /// Writes an optional field: `None` writes no cell and, in a row image, deletes the column.
    pub fn optional<T, C: Codec<T>>(&mut self, col: usize, value: &Option<T>) -> FieldResult<()> {
        match value {
            Some(v) => self.value::<T, C>(col, v),
            None => {
                self.absent.push(col);
                Ok(())
            }
        }
    }
}

/// The cells of one row, sorted into the entity's columns; used by generated
/// [`HBaseEntity::read_cells`].
pub struct CellReader<'a, E> {
    table: Option<&'a TableName>,
    row: &'a [u8],
    slots: Vec<Option<Vec<u8>>>,
    entity: PhantomData<E>,
}

impl<E: HBaseEntity> CellReader<'_, E> {
    /// The decode error for a row key that does not fit the entity's key.
    pub fn key_error(&self, e: KeyError) -> Error {
        Error::Decode {
            table: table_text::<E>(self.table),
            row: printable_key(self.row),
            column: format!("row key part `{}`", e.part),
            expected: e.expected.to_string(),
            reason: e.reason,
        }
    }

    fn decode<T, C: Codec<T>>(&self, col: usize, bytes: Vec<u8>) -> FieldResult<T> {
        C::decode(bytes).map_err(|reason| self.error::<T, C>(col, reason))
    }

    #[cold]
    fn error<T, C: Codec<T>>(&self, col: usize, reason: String) -> FieldError {
        let def = &E::COLUMNS[col];
        FieldError::from(Error::Decode {
            table: table_text::<E>(self.table),
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
                "the cell is missing (never written, deleted, or not selected by a projection); \
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
}
