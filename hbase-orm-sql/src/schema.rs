//! An entity's Arrow schema: one column per key part read back from the row key, then one per
//! stored field of one value, typed by the codecs' [`ValueType`]s.

use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, Field, Fields, Schema, SchemaRef, TimeUnit};
use hbase_orm::entity::{ColumnDef, ColumnKind, ValueType};
use hbase_orm::rowkey::KeyKind;
use hbase_orm::{Error, HBaseEntity, Result};

/// Where a column's values come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// The `n`th key part read back from the row key (counting only those).
    Key(usize),
    /// The stored field at this index of [`HBaseEntity::COLUMNS`].
    Cell(usize),
}

/// One column of the table.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ColumnSource {
    pub(crate) source: Source,
    pub(crate) value_type: ValueType,
}

/// The key of the Arrow schema's metadata that names the entity a table holds (its Rust type
/// name): what tells an entity table from others in a plan.
pub const ENTITY_METADATA: &str = "hbase_orm.entity";

/// Whether the column of one-value field `def` can be NULL (see [`EntitySchema::of`]).
pub(crate) fn nullable(def: &ColumnDef) -> bool {
    def.kind == ColumnKind::Value && (def.optional || def.has_default)
}

/// An entity's columns, as Arrow sees them and as they are read.
#[derive(Debug, Clone)]
pub struct EntitySchema {
    arrow: SchemaRef,
    columns: Vec<ColumnSource>,
}

impl EntitySchema {
    /// The schema of entity `E`: its key parts, then its stored fields that hold one value
    /// (plain fields, counters, the version field), its `Versions` fields as lists of
    /// `{timestamp, value}`, newest first (empty when the row has none), and its wide maps as
    /// Arrow maps of `{key, value}` in qualifier order (empty when the row has none).
    /// Flattened groups and children are not columns yet.
    ///
    /// A column is nullable only where the entity can lack a value: an `Option` field, and a
    /// field with `#[hbase(default)]` (a row without its cell is NULL: the default is the
    /// entity's own, which SQL does not know). Key parts, lists and maps are never NULL; a
    /// counter or a version without its cell reads as 0, as the entity reads it; a row
    /// without the cell of any other field fails the query with [`Error::Decode`] naming the
    /// table, the row and the column, as reading the entity does.
    ///
    /// An entity whose key has a hashed part (`key(md5)`) or a dictionary part
    /// (`key(dictionary = ...)`), or whose table is a template (`table = "tx_{yyyyMMdd}"`), is
    /// refused with [`Error::Unsupported`].
    ///
    /// ```
    /// use hbase_orm::HBaseEntity;
    /// use hbase_orm_sql::EntitySchema;
    ///
    /// #[derive(HBaseEntity)]
    /// #[hbase(table = "orders", family = "d", key_delimiter = '\0')]
    /// struct Order {
    ///     #[hbase(key)]
    ///     customer: String,
    ///     #[hbase(key)]
    ///     number: u32,
    ///     total: f64,
    ///     note: Option<String>,
    /// }
    ///
    /// let schema = EntitySchema::of::<Order>().unwrap();
    /// let names: Vec<_> = schema.arrow().fields().iter().map(|f| f.name().clone()).collect();
    /// assert_eq!(names, ["customer", "number", "total", "note"]);
    /// ```
    pub fn of<E: HBaseEntity>() -> Result<Self> {
        let refuse = |why: &str| Error::Unsupported {
            operation: format!("a SQL table of {}", std::any::type_name::<E>()),
            backend: "sql",
            why: why.to_string(),
        };
        if E::TABLE_IS_TEMPLATE {
            return Err(refuse(
                "its table name is a template (one table per period), which the SQL layer \
                 does not read yet",
            ));
        }
        if let Some(part) = E::KEY_PARTS.iter().find(|p| !p.in_key) {
            return Err(refuse(&format!(
                "key part `{}` is one-way (hashed) and cannot be read from the row key",
                part.field
            )));
        }
        if let Some(part) = E::KEY_PARTS.iter().find(|p| p.kind == KeyKind::Dictionary) {
            return Err(refuse(&format!(
                "key part `{}` is stored as a dictionary id, whose name the SQL layer does \
                 not look up yet",
                part.field
            )));
        }
        let mut fields = Vec::new();
        let mut columns = Vec::new();
        for (n, part) in E::KEY_PARTS.iter().enumerate() {
            fields.push(Field::new(part.field, arrow_type(part.value_type), false));
            columns.push(ColumnSource {
                source: Source::Key(n),
                value_type: part.value_type,
            });
        }
        for (i, def) in E::COLUMNS.iter().enumerate() {
            let field = match def.kind {
                ColumnKind::Value | ColumnKind::Counter | ColumnKind::Version => {
                    Field::new(def.field, arrow_type(def.value_type), nullable(def))
                }
                ColumnKind::Versions(_) => Field::new(
                    def.field,
                    DataType::List(Arc::new(versions_item(arrow_type(def.value_type)))),
                    false,
                ),
                ColumnKind::Wide => match def.map_key {
                    Some(key) => Field::new(
                        def.field,
                        DataType::Map(
                            Arc::new(map_entries(
                                arrow_type(key.value_type),
                                arrow_type(def.value_type),
                            )),
                            false,
                        ),
                        false,
                    ),
                    // A hand-written definition that does not say how keys read.
                    None => continue,
                },
                _ => continue,
            };
            fields.push(field);
            columns.push(ColumnSource {
                source: Source::Cell(i),
                value_type: def.value_type,
            });
        }
        let marker = [(
            ENTITY_METADATA.to_string(),
            std::any::type_name::<E>().to_string(),
        )];
        Ok(EntitySchema {
            arrow: Arc::new(Schema::new(fields).with_metadata(marker.into())),
            columns,
        })
    }

    /// The Arrow schema of every column.
    pub fn arrow(&self) -> &SchemaRef {
        &self.arrow
    }

    /// Where each column comes from, in schema order.
    pub(crate) fn sources(&self) -> &[ColumnSource] {
        &self.columns
    }

    /// How many key parts are columns.
    pub(crate) fn key_parts(&self) -> usize {
        self.columns
            .iter()
            .filter(|c| matches!(c.source, Source::Key(_)))
            .count()
    }

    /// The index of the column that holds key part `n` (counting the parts read from the
    /// key), if any.
    pub(crate) fn key_column(&self, n: usize) -> Option<usize> {
        self.columns.iter().position(|c| c.source == Source::Key(n))
    }
}

/// The item of a `Versions` field's list: a struct of the version's `timestamp` (milliseconds
/// since the epoch) and its `value` of type `value`.
pub fn versions_item(value: DataType) -> Field {
    let fields = Fields::from(vec![
        Field::new(
            "timestamp",
            DataType::Timestamp(TimeUnit::Millisecond, None),
            false,
        ),
        Field::new("value", value, false),
    ]);
    Field::new_list_field(DataType::Struct(fields), false)
}

/// The entries of a wide map field's Arrow map: structs of a `key` (the qualifier read by the
/// map's key codec) and a `value` (the cell's newest value), in qualifier order.
pub fn map_entries(key: DataType, value: DataType) -> Field {
    let fields = Fields::from(vec![
        Field::new("key", key, false),
        Field::new("value", value, false),
    ]);
    Field::new("entries", DataType::Struct(fields), false)
}

/// The Arrow type of values stored as `value_type`: JSON documents as their text, bytes only a
/// codec reads as binary.
pub fn arrow_type(value_type: ValueType) -> DataType {
    match value_type {
        ValueType::Bool => DataType::Boolean,
        ValueType::Int8 => DataType::Int8,
        ValueType::Int16 => DataType::Int16,
        ValueType::Int32 => DataType::Int32,
        ValueType::Int64 => DataType::Int64,
        ValueType::UInt8 => DataType::UInt8,
        ValueType::UInt16 => DataType::UInt16,
        ValueType::UInt32 => DataType::UInt32,
        ValueType::UInt64 => DataType::UInt64,
        ValueType::Float32 => DataType::Float32,
        ValueType::Float64 => DataType::Float64,
        ValueType::Text | ValueType::Json => DataType::Utf8,
        _ => DataType::Binary,
    }
}
