//! [`Records`]: reads a table shared by several entity types (a [`RecordSet`]), each row
//! decoded into its own type.

use std::marker::PhantomData;

use futures::stream::{BoxStream, StreamExt, TryStreamExt};

use crate::client::Table;
use crate::mapping::read::whole_families_win;
use crate::mapping::records::RecordSet;
use crate::mapping::rowkey::KeyPrefix;
use crate::model::Result;
use crate::model::Scan;
use crate::model::TableName;

/// Reads a [`RecordSet`]'s table. Cheap to clone.
pub struct Records<R> {
    table: Table,
    set: PhantomData<fn() -> R>,
}

impl<R> Clone for Records<R> {
    fn clone(&self) -> Self {
        Records::new(self.table.clone())
    }
}

impl<R> std::fmt::Debug for Records<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Records")
            .field("table", self.table.name())
            .finish()
    }
}

impl<R> Records<R> {
    /// The record set `R` on `table` (see `Client::records`).
    pub(super) fn new(table: Table) -> Self {
        Records {
            table,
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
        scan.columns = whole_families_win(R::columns());
        scan.max_versions = scan.max_versions.or(R::max_versions());
        let table = self.table.name().clone();
        // A time range may hide a type's presence cell: rows are then decoded as it leaves them.
        let decode = match scan.time_range {
            Some(_) => R::from_ranged_row_of,
            None => R::from_row_of,
        };
        let rows = match merge_buckets {
            Some(n) => self.table.scan_salted(scan, n),
            None => self.table.scan(scan),
        };
        rows.and_then(move |row| futures::future::ready(decode(row, &table)))
            .try_filter_map(|r| futures::future::ready(Ok(r)))
            .boxed()
    }
}
