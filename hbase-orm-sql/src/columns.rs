//! The Arrow builders of one column: [`Builder`] of one value per row (a key part's scalar, a
//! cell's bytes decoded by their [`ValueType`]), and [`Column`], a value, a list of a cell's
//! versions or a wide map's entries per row.

use std::sync::Arc;

use datafusion::arrow::array::{
    ArrayRef, BinaryBuilder, BooleanBuilder, Float32Builder, Float64Builder, Int16Builder,
    Int32Builder, Int64Builder, Int8Builder, ListArray, MapArray, StringBuilder, StructArray,
    TimestampMillisecondBuilder, UInt16Builder, UInt32Builder, UInt64Builder, UInt8Builder,
};
use datafusion::arrow::buffer::{OffsetBuffer, ScalarBuffer};
use datafusion::arrow::datatypes::{DataType, Field};
use hbase_orm::entity::{Scalar, ValueType};
use hbase_orm::Value;

use crate::schema::{map_entries, versions_item};

/// One column being built.
pub(crate) enum Builder {
    Bool(BooleanBuilder),
    Int8(Int8Builder),
    Int16(Int16Builder),
    Int32(Int32Builder),
    Int64(Int64Builder),
    UInt8(UInt8Builder),
    UInt16(UInt16Builder),
    UInt32(UInt32Builder),
    UInt64(UInt64Builder),
    Float32(Float32Builder),
    Float64(Float64Builder),
    Text(StringBuilder),
    Bytes(BinaryBuilder),
}

impl Builder {
    pub(crate) fn new(value_type: ValueType) -> Self {
        match value_type {
            ValueType::Bool => Builder::Bool(BooleanBuilder::new()),
            ValueType::Int8 => Builder::Int8(Int8Builder::new()),
            ValueType::Int16 => Builder::Int16(Int16Builder::new()),
            ValueType::Int32 => Builder::Int32(Int32Builder::new()),
            ValueType::Int64 => Builder::Int64(Int64Builder::new()),
            ValueType::UInt8 => Builder::UInt8(UInt8Builder::new()),
            ValueType::UInt16 => Builder::UInt16(UInt16Builder::new()),
            ValueType::UInt32 => Builder::UInt32(UInt32Builder::new()),
            ValueType::UInt64 => Builder::UInt64(UInt64Builder::new()),
            ValueType::Float32 => Builder::Float32(Float32Builder::new()),
            ValueType::Float64 => Builder::Float64(Float64Builder::new()),
            ValueType::Text | ValueType::Json => Builder::Text(StringBuilder::new()),
            _ => Builder::Bytes(BinaryBuilder::new()),
        }
    }

    /// Appends a cell's value, decoded as the column's type.
    pub(crate) fn push_cell(&mut self, bytes: &[u8]) -> std::result::Result<(), String> {
        match self {
            // The core's own decoders of the built-in types (the same bytes entities read).
            Builder::Bool(b) => b.append_value(bool::decode(bytes)?),
            Builder::Int8(b) => b.append_value(i8::decode(bytes)?),
            Builder::Int16(b) => b.append_value(i16::decode(bytes)?),
            Builder::Int32(b) => b.append_value(i32::decode(bytes)?),
            Builder::Int64(b) => b.append_value(i64::decode(bytes)?),
            Builder::UInt8(b) => b.append_value(u8::decode(bytes)?),
            Builder::UInt16(b) => b.append_value(u16::decode(bytes)?),
            Builder::UInt32(b) => b.append_value(u32::decode(bytes)?),
            Builder::UInt64(b) => b.append_value(u64::decode(bytes)?),
            Builder::Float32(b) => b.append_value(f32::decode(bytes)?),
            Builder::Float64(b) => b.append_value(f64::decode(bytes)?),
            Builder::Text(b) => b.append_value(
                std::str::from_utf8(bytes).map_err(|e| format!("invalid UTF-8: {e}"))?,
            ),
            Builder::Bytes(b) => b.append_value(bytes),
        }
        Ok(())
    }

    /// Appends a key part's value.
    pub(crate) fn push_scalar(
        &mut self,
        value: Option<Scalar<'_>>,
    ) -> std::result::Result<(), String> {
        let Some(value) = value else {
            return Err("its codec gives no value".into());
        };
        let int = |v: &Scalar<'_>| v.as_integer().ok_or_else(|| format!("{v:?} is no integer"));
        let wrong = |v: &Scalar<'_>| format!("{v:?} is not of the part's type");
        match self {
            Builder::Bool(b) => match value {
                Scalar::Bool(v) => b.append_value(v),
                v => return Err(wrong(&v)),
            },
            Builder::Int8(b) => b.append_value(int(&value)?.try_into().map_err(|_| wrong(&value))?),
            Builder::Int16(b) => {
                b.append_value(int(&value)?.try_into().map_err(|_| wrong(&value))?)
            }
            Builder::Int32(b) => {
                b.append_value(int(&value)?.try_into().map_err(|_| wrong(&value))?)
            }
            Builder::Int64(b) => {
                b.append_value(int(&value)?.try_into().map_err(|_| wrong(&value))?)
            }
            Builder::UInt8(b) => {
                b.append_value(int(&value)?.try_into().map_err(|_| wrong(&value))?)
            }
            Builder::UInt16(b) => {
                b.append_value(int(&value)?.try_into().map_err(|_| wrong(&value))?)
            }
            Builder::UInt32(b) => {
                b.append_value(int(&value)?.try_into().map_err(|_| wrong(&value))?)
            }
            Builder::UInt64(b) => {
                b.append_value(int(&value)?.try_into().map_err(|_| wrong(&value))?)
            }
            Builder::Float32(b) => match value {
                Scalar::Float(v) => b.append_value(v as f32),
                v => return Err(wrong(&v)),
            },
            Builder::Float64(b) => match value {
                Scalar::Float(v) => b.append_value(v),
                v => return Err(wrong(&v)),
            },
            Builder::Text(b) => match value {
                Scalar::Text(v) => b.append_value(v),
                v => return Err(wrong(&v)),
            },
            Builder::Bytes(b) => match value {
                Scalar::Bytes(v) => b.append_value(v),
                Scalar::Text(v) => b.append_value(v.as_bytes()),
                v => return Err(wrong(&v)),
            },
        }
        Ok(())
    }

    pub(crate) fn push_null(&mut self) {
        match self {
            Builder::Bool(b) => b.append_null(),
            Builder::Int8(b) => b.append_null(),
            Builder::Int16(b) => b.append_null(),
            Builder::Int32(b) => b.append_null(),
            Builder::Int64(b) => b.append_null(),
            Builder::UInt8(b) => b.append_null(),
            Builder::UInt16(b) => b.append_null(),
            Builder::UInt32(b) => b.append_null(),
            Builder::UInt64(b) => b.append_null(),
            Builder::Float32(b) => b.append_null(),
            Builder::Float64(b) => b.append_null(),
            Builder::Text(b) => b.append_null(),
            Builder::Bytes(b) => b.append_null(),
        }
    }

    pub(crate) fn finish(&mut self) -> ArrayRef {
        match self {
            Builder::Bool(b) => Arc::new(b.finish()),
            Builder::Int8(b) => Arc::new(b.finish()),
            Builder::Int16(b) => Arc::new(b.finish()),
            Builder::Int32(b) => Arc::new(b.finish()),
            Builder::Int64(b) => Arc::new(b.finish()),
            Builder::UInt8(b) => Arc::new(b.finish()),
            Builder::UInt16(b) => Arc::new(b.finish()),
            Builder::UInt32(b) => Arc::new(b.finish()),
            Builder::UInt64(b) => Arc::new(b.finish()),
            Builder::Float32(b) => Arc::new(b.finish()),
            Builder::Float64(b) => Arc::new(b.finish()),
            Builder::Text(b) => Arc::new(b.finish()),
            Builder::Bytes(b) => Arc::new(b.finish()),
        }
    }
}

/// The items of a list or map column (a struct of `item`'s fields over `columns`) and the
/// rows' ends in them; `offsets` starts again for the next batch.
fn entries(
    item: &Field,
    columns: Vec<ArrayRef>,
    offsets: &mut Vec<i32>,
) -> std::result::Result<(StructArray, OffsetBuffer<i32>), String> {
    let DataType::Struct(fields) = item.data_type().clone() else {
        unreachable!("list items and map entries are structs (schema.rs)");
    };
    let items = StructArray::try_new(fields, columns, None).map_err(|e| e.to_string())?;
    let ends = std::mem::replace(offsets, vec![0]);
    Ok((items, OffsetBuffer::new(ScalarBuffer::from(ends))))
}

/// What is wrong with a map's entry: its key (the qualifier) or its value.
pub(crate) enum EntryError {
    Key(String),
    Value(String),
}

/// A wide map's key read from a qualifier ([`hbase_orm::entity::MapKey::read`]).
pub(crate) type ReadKey = fn(&[u8]) -> std::result::Result<Option<Scalar<'static>>, String>;

/// One column being built: a value per row, a list of the versions of a cell per row, or a
/// wide map's entries per row.
pub(crate) enum Column {
    One(Builder),
    Versions {
        /// At most this many versions per row (the field's `versions = N`).
        limit: usize,
        /// This row's versions so far.
        taken: usize,
        timestamps: TimestampMillisecondBuilder,
        values: Builder,
        offsets: Vec<i32>,
    },
    Map {
        read: ReadKey,
        /// This row's entries so far.
        taken: usize,
        /// The qualifier of this row's last entry (older versions of it are skipped).
        last: Vec<u8>,
        keys: Builder,
        values: Builder,
        offsets: Vec<i32>,
    },
}

impl Column {
    pub(crate) fn finish(&mut self) -> std::result::Result<ArrayRef, String> {
        match self {
            Column::One(b) => Ok(b.finish()),
            Column::Versions {
                timestamps,
                values,
                offsets,
                ..
            } => {
                let values = values.finish();
                let item = versions_item(values.data_type().clone());
                let (versions, ends) =
                    entries(&item, vec![Arc::new(timestamps.finish()), values], offsets)?;
                let list = ListArray::try_new(Arc::new(item), ends, Arc::new(versions), None)
                    .map_err(|e| e.to_string())?;
                Ok(Arc::new(list))
            }
            Column::Map {
                keys,
                values,
                offsets,
                ..
            } => {
                let (keys, values) = (keys.finish(), values.finish());
                let item = map_entries(keys.data_type().clone(), values.data_type().clone());
                let (pairs, ends) = entries(&item, vec![keys, values], offsets)?;
                let map = MapArray::try_new(Arc::new(item), ends, pairs, None, false)
                    .map_err(|e| e.to_string())?;
                Ok(Arc::new(map))
            }
        }
    }

    /// Adds an entry of a map from a cell: `Ok(false)` for an older version of the entry
    /// before it.
    pub(crate) fn push_entry(
        &mut self,
        qualifier: &[u8],
        value: &[u8],
    ) -> std::result::Result<bool, EntryError> {
        let Column::Map {
            read,
            taken,
            last,
            keys,
            values,
            ..
        } = self
        else {
            unreachable!("entries go to maps");
        };
        if *taken > 0 && last.as_slice() == qualifier {
            return Ok(false);
        }
        let key = read(qualifier).map_err(|e| EntryError::Key(format!("not a key: {e}")))?;
        keys.push_scalar(key).map_err(EntryError::Key)?;
        values.push_cell(value).map_err(EntryError::Value)?;
        last.clear();
        last.extend_from_slice(qualifier);
        *taken += 1;
        Ok(true)
    }

    /// Ends a row of a list or map column.
    pub(crate) fn end_row(&mut self) {
        let (taken, offsets) = match self {
            Column::One(_) => return,
            Column::Versions { taken, offsets, .. } | Column::Map { taken, offsets, .. } => {
                (taken, offsets)
            }
        };
        let end = offsets.last().copied().unwrap_or(0) + *taken as i32;
        offsets.push(end);
        *taken = 0;
    }
}
