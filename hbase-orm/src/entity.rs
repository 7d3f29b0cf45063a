//! The entity layer: typed structs stored as HBase rows.
//!
//! `#[derive(HBaseEntity)]` writes an [`HBaseEntity`] impl that lists an entity's table,
//! families and columns and says per field which codec stores it; a [`Repository`] reads and
//! writes such entities. This module gathers, under the path users and generated code name,
//! two layers of the crate:
//!
//! - the mapping (no I/O): the [`HBaseEntity`] and [`EntityKey`] contract, [`ColumnDef`],
//!   [`KeyPartDef`], [`CellWriter`] and [`CellReader`], typed field handles ([`Field`],
//!   [`WideField`], [`KeyField`] for key parts) and what takes them ([`FieldSet`],
//!   [`CounterRef`]), [`ColumnGroup`], [`Versions`], secondary indexes as declared
//!   ([`IndexDef`], [`Index`]), and the modules [`codec`], [`rowkey`] and [`records`];
//! - from the repository (async, through the client): [`IndexScan`], and in [`records`] the
//!   [`Records`](records::Records) reader. [`Repository`], [`EntityScan`](crate::EntityScan),
//!   [`WideMap`](crate::WideMap) and [`Dictionary`](crate::Dictionary) are at the crate root.
//!
//! [`codec`], [`rowkey`] and [`records`] are also at the crate root (`hbase_orm::codec`, ...),
//! where users name them.
//!
//! [`Repository`]: crate::Repository

pub use crate::mapping::fields::{CounterRef, Field, FieldSet, WideField};
pub use crate::mapping::keyparts::{KeyField, KeySlot, KeyTest};
pub use crate::mapping::rows::presence_cell;
#[doc(inline)]
pub use crate::mapping::{codec, rowkey};
pub use crate::mapping::{
    encode_key, is_name, key_prefix, CellReader, CellWriter, ColumnDef, ColumnGroup, ColumnKind,
    DictionaryId, EntityKey, FieldError, FieldResult, GroupReader, GroupWriter, HBaseEntity, Index,
    IndexDef, IndexRepair, KeyPartDef, MapKey, NoKey, Versioned, Versions,
};
pub use crate::mapping::{presence_of, Scalar, ValueType};
pub use crate::repository::index::IndexScan;

/// Several entity types in one table (the reference guide's "CUSTOMER++" design): each type's
/// row key carries a record-type tag, and one prefix scan reads a customer with all its orders,
/// each row decoded into its own type.
///
/// [`RecordSet`](crate::RecordSet) is what `#[derive(HBaseRecord)]` implements; [`Records`](crate::Records) reads such a table
/// (`client.records::<R>()`).
pub mod records {
    pub use crate::mapping::records::*;
    pub use crate::repository::records::Records;
}
