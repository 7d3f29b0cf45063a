//! Several entity types in one table (the reference guide's "CUSTOMER++" design): each type's
//! row key carries a record-type tag, and one prefix scan reads a customer with all its orders,
//! each row decoded into its own type.

use std::marker::PhantomData;

use futures::stream::{BoxStream, StreamExt, TryStreamExt};

use crate::client::{Client, Table};
use crate::entity::rowkey::KeyPrefix;
use crate::entity::HBaseEntity;
use crate::model::Result;
use crate::model::TableName;
use crate::model::{Column, Row, Scan};

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
    /// listed type.
    fn from_row_of(row: Row, table: &TableName) -> Result<Option<Self>>;

    /// The salt buckets of the shared table's keys (those of the first variant).
    fn salt_buckets() -> Option<u8> {
        None
    }
}

/// `true` when two strings are equal; usable in constants (the derive checks that all variants
/// of a record set name the same table).
pub const fn same_str(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Reads a [`RecordSet`]'s table. Cheap to clone.
pub struct Records<R> {
    table: Table,
    set: PhantomData<fn() -> R>,
}

impl<R> Clone for Records<R> {
    fn clone(&self) -> Self {
        Records {
            table: self.table.clone(),
            set: PhantomData,
        }
    }
}

impl<R> std::fmt::Debug for Records<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Records")
            .field("table", self.table.name())
            .finish()
    }
}

impl Client {
    /// Reads the table shared by the entity types of `R`.
    pub fn records<R: RecordSet>(&self) -> Records<R> {
        Records {
            table: self.table_named(R::table_name()),
            set: PhantomData,
        }
    }
}

impl<R: RecordSet> Records<R> {
    /// The same record set on another table of the same layout.
    pub fn on_table(mut self, table: TableName) -> Self {
        self.table = self.table.client().table_named(table);
        self
    }

    /// Every record whose key starts with `prefix` (for example `OrderKey::prefix_by_customer`),
    /// in key order, each decoded into its type; rows of unlisted types are skipped.
    /// On a salted table, a prefix that does not fix the bucket is scanned in every bucket
    /// and merged in key order.
    pub fn scan_prefix(&self, prefix: KeyPrefix) -> BoxStream<'static, Result<R>> {
        let buckets = R::salt_buckets().filter(|_| prefix.all_buckets);
        self.run(Scan::new().prefix(prefix.bytes), buckets)
    }

    /// Runs `scan` (its columns are replaced by those of the record types); its bounds are
    /// row keys as stored (salt byte included).
    pub fn scan(&self, scan: Scan) -> BoxStream<'static, Result<R>> {
        self.run(scan, None)
    }

    fn run(&self, mut scan: Scan, merge_buckets: Option<u8>) -> BoxStream<'static, Result<R>> {
        // The variants' lists joined: a family one of them reads whole must not also be
        // listed column by column for another (HBase would then read only those columns).
        scan.columns = crate::entity::read::whole_families_win(R::columns());
        scan.max_versions = scan.max_versions.or(R::max_versions());
        let table = self.table.name().clone();
        let rows = match merge_buckets {
            Some(n) => self.table.scan_salted(scan, n),
            None => self.table.scan(scan),
        };
        rows.and_then(move |row| futures::future::ready(R::from_row_of(row, &table)))
            .try_filter_map(|r| futures::future::ready(Ok(r)))
            .boxed()
    }
}

/// The columns a read of entity type `E` asks for, for [`RecordSet::columns`].
pub fn columns_of<E: HBaseEntity>() -> Vec<Column> {
    crate::entity::read::read_columns::<E>(None).unwrap_or_default()
}

/// The versions entity `E`'s reads ask for, for a generated [`RecordSet::max_versions`].
#[doc(hidden)]
pub fn max_versions_of<E: HBaseEntity>() -> Option<i32> {
    crate::entity::read::max_versions::<E>()
}
