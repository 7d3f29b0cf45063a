//! Several entity types in one table (the reference guide's "CUSTOMER++" design): each type's
//! row key carries a record-type tag, and one prefix scan reads a customer with all its orders,
//! each row decoded into its own type.

//!
//! This file holds the contract the derive implements ([`RecordSet`]) and the helpers its
//! generated code calls; reading such a table is the repository's `Records`.

use crate::mapping::HBaseEntity;
use crate::model::Result;
use crate::model::TableName;
use crate::model::{Column, Row};

/// An enum of entity types that share one table, each told apart by its record-type tag.
/// Derive it with `#[derive(HBaseRecord)]` on an enum whose variants each hold one entity:
///
/// ```
/// use hbase_orm::{HBaseEntity, HBaseRecord};
///
/// #[derive(HBaseEntity, Debug)]
/// #[hbase(table = "crm", family = "d", record_type(tag = 1, after = "id"))]
/// struct Customer { #[hbase(key)] id: u64, name: String }
///
/// #[derive(HBaseEntity, Debug)]
/// #[hbase(table = "crm", family = "d", record_type(tag = 2, after = "customer"))]
/// struct Order { #[hbase(key)] customer: u64, #[hbase(key)] number: u32, total: i64 }
///
/// #[derive(HBaseRecord, Debug)]
/// enum CustomerRecord { Customer(Customer), Order(Order) }
/// ```
pub trait RecordSet: Sized + Send + 'static {
    /// The shared table (that of the first variant).
    fn table_name() -> TableName;
    /// The columns of every variant, for the scan to ask for.
    fn columns() -> Vec<Column>;
    /// The versions the scan asks for: the most any variant's `versions = N` field reads.
    fn max_versions() -> Option<i32> {
        None
    }
    /// Decodes a row into the variant whose record type it holds; `None` for a row of no
    /// listed type, or a partial row of one (holding no presence cell of that type, see
    /// [partial rows](crate::Repository#partial-rows)).
    fn from_row_of(row: Row, table: &TableName) -> Result<Option<Self>>;

    /// [`from_row_of`](Self::from_row_of) for a row read with a time range, which may hide
    /// a type's presence cell like any cell written outside it: a row of a listed type is
    /// decoded as the range leaves it.
    #[doc(hidden)]
    fn from_ranged_row_of(row: Row, table: &TableName) -> Result<Option<Self>> {
        Self::from_row_of(row, table)
    }

    /// The salt buckets of the shared table's keys (those of the first variant).
    fn salt_buckets() -> Option<u8> {
        None
    }
}

pub use crate::model::same_str;

/// Decodes `row` as entity `E` for a generated [`RecordSet::from_row_of`]: `None` for a partial
/// row, as the entity's own reads see it, unless it was read with a time range (`ranged`),
/// which may hide the presence cell.
#[doc(hidden)]
pub fn decode_record<E: HBaseEntity>(
    row: &Row,
    table: &TableName,
    ranged: bool,
) -> Result<Option<E>> {
    use crate::mapping::rows::{decode_entity, Presence};
    let presence = if ranged {
        Presence::Unchecked
    } else {
        Presence::Required
    };
    decode_entity::<E>(row, table, presence)
}

/// The columns a read of entity type `E` asks for, for [`RecordSet::columns`].
pub fn columns_of<E: HBaseEntity>() -> Vec<Column> {
    crate::mapping::read::read_columns::<E>(None).unwrap_or_default()
}

/// The versions entity `E`'s reads ask for, for a generated [`RecordSet::max_versions`].
#[doc(hidden)]
pub fn max_versions_of<E: HBaseEntity>() -> Option<i32> {
    crate::mapping::read::max_versions::<E>()
}
