//! The repository: typed reads, writes and scans of entities, done with the client.
//!
//! Everything here is async and goes through [`crate::client`]'s `Table` and `Admin`; what a
//! row looks like (keys, cells, codecs, indexes as declared) is the mapping's
//! (`crate::mapping`), which this folder uses and which never calls back.
//!
//! | file | concern |
//! | --- | --- |
//! | `mod.rs` | the client's entry points: [`Client::repository`], [`Client::records`], [`Client::dictionary`] |
//! | `repo.rs` | [`Repository`], [`EntityRead`]: typed gets, saves, batch saves and deletes |
//! | `writes.rs` | saves with wide maps, inserts, optimistic versions, counters |
//! | `wide.rs` | [`WideMap`], [`WideSlice`]: a wide map's entries one by one, counted, and paged by qualifier range |
//! | `versions.rs` | [`CellVersions`]: a field's cell version by version (write one, read the newest or a time range, delete one) |
//! | `bulk.rs` | entities bulk-loaded with their index rows (feature `bulk-load`) |
//! | `index.rs` | [`IndexScan`]: index tables kept up to date by writes, and queried |
//! | `scan.rs` | [`EntityScan`], [`Page`]: typed scans and paging |
//! | `decoding.rs` | an entity scan's rows decoded into entities, one step per row |
//! | `filters.rs` | server-side scan filters: typed comparisons, raw expressions |
//! | `filter_expr.rs` | the filter-language text of a scan's filters |
//! | `records.rs` | [`Records`]: several entity types read from one table |
//! | `dictionary.rs` | [`Dictionary`]: long names replaced by compact ids |
//! | `ensure.rs` | `Admin::ensure::<T>()`, `ensure_for`, `ensure_all`, `ensure_schema` |
//!
//! [`Repository`]: repo::Repository
//! [`EntityRead`]: repo::EntityRead
//! [`WideMap`]: wide::WideMap
//! [`WideSlice`]: wide::WideSlice
//! [`CellVersions`]: versions::CellVersions
//! [`IndexScan`]: index::IndexScan
//! [`EntityScan`]: scan::EntityScan
//! [`Page`]: scan::Page
//! [`Records`]: records::Records
//! [`Dictionary`]: dictionary::Dictionary

#[cfg(feature = "bulk-load")]
mod bulk;
mod decoding;
pub(crate) mod dictionary;
mod ensure;
mod filter_expr;
mod filters;
pub(crate) mod index;
pub(crate) mod records;
pub(crate) mod repo;
pub(crate) mod scan;
pub(crate) mod versions;
pub(crate) mod wide;
mod writes;

use crate::client::Client;
use crate::mapping::records::RecordSet;
use crate::mapping::HBaseEntity;
use crate::model::TableName;
use dictionary::Dictionary;
use records::Records;
use repo::Repository;

/// The entry points of the layers above the client. With `client/mod.rs` this is the second
/// and last file holding `impl Client`.
impl Client {
    /// A repository for entity `T` on its declared table.
    pub fn repository<T: HBaseEntity>(&self) -> Repository<T> {
        Repository::new(self.table_named(T::table_name()))
    }

    /// Reads the table shared by the entity types of `R`.
    pub fn records<R: RecordSet>(&self) -> Records<R> {
        Records::new(self.table_named(R::table_name()))
    }

    /// The dictionary `name` stored in `table`, shared by this client and its clones (one
    /// cache), as dictionary key parts use it.
    pub fn dictionary(&self, table: TableName, name: &str) -> Dictionary {
        let key = format!("{table}\0{name}");
        self.shared(&key, || Dictionary::new(self, table, name))
    }
}
