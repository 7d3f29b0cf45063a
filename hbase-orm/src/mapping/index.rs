//! Secondary index tables, `#[hbase(index(name = "by_time", parts = "created, id, city"))]`.
//!
//! An index is a table of its own (in the entity's namespace, family `i`): one row per entity,
//! keyed by the index parts (encoded like row-key parts, so ranges follow value order), whose
//! cell `i:r` holds the entity's row key. HBase has no transactions across rows, so writes go
//! in this order and readers make up for the gaps:
//!
//! 1. a save reads the stored entity first (to know its old index rows);
//! 2. it writes the data row;
//! 3. it puts the new index row, then deletes the old one if the indexed fields changed;
//!    a failure here is [`Error::IndexWrite`](crate::Error::IndexWrite) naming the index,
//!    and the data row is written already;
//! 4. a delete reads the entity, deletes the data row, then its index rows.
//!
//! A reader of the index fetches the data rows and keeps an entity only if its current index
//! key is the index row's key: index rows left behind by a failure or by writes that bypassed
//! the repository (a dangling row) are never returned.
//! [`Repository::rebuild_index`] repairs an index from the data table.
//!
//! This file holds what the derive declares ([`IndexDef`], [`Index`]) and the report of a
//! repair ([`IndexRepair`]); maintaining and reading index tables is the repository's.

use crate::mapping::rowkey::KeyError;
use crate::mapping::{EntityKey, HBaseEntity};
use crate::model::{ColumnFamily, TableDescriptor, TableName};
use crate::model::{Error, Result};
use crate::schema::TableSchema;

/// The family of index tables.
pub const INDEX_FAMILY: &str = "i";
/// The qualifier of the cell holding the entity's row key.
pub const INDEX_QUALIFIER: &str = "r";

/// One secondary index of entity `E`, as the derive lists it in
/// [`HBaseEntity::INDEXES`](crate::HBaseEntity::INDEXES).
pub struct IndexDef<E> {
    /// The index name (`by_time`).
    pub name: &'static str,
    /// The index table, in the entity's namespace.
    pub table: &'static str,
    /// Appends the index key of an entity.
    pub write_key: fn(&E, &mut Vec<u8>) -> std::result::Result<(), KeyError>,
}

impl<E: HBaseEntity> IndexDef<E> {
    /// The index table's full name.
    pub fn table_name(&self) -> TableName {
        TableName::new(E::NAMESPACE, self.table)
    }

    /// What the index table looks like.
    pub fn schema(&self) -> TableSchema {
        TableSchema {
            descriptor: TableDescriptor::new(self.table_name())
                .family(ColumnFamily::new(INDEX_FAMILY)),
            split_keys: Vec::new(),
            declared_by: vec![self.name],
        }
    }

    /// The index key of `value`.
    pub fn key_of(&self, value: &E) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(32);
        (self.write_key)(value, &mut out).map_err(|e| Error::Encode {
            entity: std::any::type_name::<E>(),
            field: e.part,
            reason: format!(
                "index {}: {} (expected {})",
                self.name, e.reason, e.expected
            ),
        })?;
        Ok(out)
    }
}

/// A secondary index, implemented by the marker type the derive writes for each
/// `#[hbase(index(name = "by_time", ...))]` (`OrderByTime` for entity `Order`), with its key
/// type (`OrderByTimeKey`, which has `prefix_by_*` functions like an entity key).
pub trait Index: 'static {
    /// The indexed entity.
    type Entity: HBaseEntity;
    /// The index key: the index parts, in order.
    type Key: EntityKey;
    /// Position of this index in the entity's `INDEXES`.
    const POSITION: usize;

    /// The index's description.
    fn def() -> &'static IndexDef<Self::Entity> {
        &<Self::Entity as HBaseEntity>::INDEXES[Self::POSITION]
    }
}

/// What [`Repository::rebuild_index`](crate::Repository::rebuild_index) did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IndexRepair {
    /// Entities read from the data table (each one's index row written).
    pub indexed: usize,
    /// Index rows removed: their entity is gone or no longer has that index key.
    pub removed: usize,
}
