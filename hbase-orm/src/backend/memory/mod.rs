//! A store in the process with HBase's semantics, behind [`crate::Client::in_memory`]: for
//! unit tests that should not need a running HBase, and for the project's own fast tests.
//!
//! # What it models (HBase 2.6)
//!
//! - Namespaces (`default` and `hbase` exist from the start; only empty, non-built-in ones
//!   can be deleted), tables with families whose options are filled in with HBase's
//!   defaults as `describe` returns them, enabled and disabled tables, regions from split
//!   keys (host `localhost`, no port, ids increasing; truncating makes new regions, keeping
//!   the splits or not), adding, modifying (unset options back to the defaults), merging and
//!   deleting families (never the last one).
//! - Rows in unsigned byte order; cells versioned by timestamp (a write without one gets the
//!   current time in milliseconds, see *Timestamps* below); per family `max_versions`, `ttl`
//!   with `min_versions`, and the per-put TTL.
//! - Deletes with HBase's delete markers: whole row (one family marker per family of the
//!   table, at the delete's timestamp or now), family and column (every version at or before
//!   now), one version, the newest visible version (a marker at its timestamp, or at now if
//!   there is none). Markers also mask versions written later with an older or equal
//!   timestamp.
//! - Gets and scans with columns (a family alone reads the whole family; a column named after
//!   its family narrows it, as HBase's `Get.addColumn` does), exact timestamp, time range
//!   `[min, max)`, versions (default 1, capped by the family's `max_versions`), filters
//!   (parsed and applied by the `filter` module, which sees every version before the version
//!   limit, with a fresh state in each region as HBase's region servers run them, so a
//!   `PageFilter` or a failed `WhileMatchFilter` ends one region's part of a scan and the scan
//!   goes on in the next region); scans forward and reversed with HBase's
//!   server bounds, limits, pages, `batch_size` splitting of wide rows, and scanner ids
//!   (an unknown id is [`Error::IllegalArgument`] as at the gateway; closing one is a no-op).
//! - Increments (absent = 0, 8-byte big-endian, several columns at once), appends, row
//!   mutations applied in order, check-and-mutate with HBase's reading of the operator
//!   (`given <op> stored`; an absent or empty given value tests for an absent or empty cell,
//!   inverted by `NotEqual`), batches. Every multi-cell operation is atomic: it is checked
//!   whole (families exist, counters are 8 bytes) before anything is written.
//! - Errors of the variants the Thrift2 gateway gives: [`Error::TableNotFound`],
//!   [`Error::NamespaceNotFound`], [`Error::AlreadyExists`], and [`Error::Server`] naming
//!   HBase's exception for a disabled table, a missing family (named in the message), a cell
//!   that is not a counter, a table in the wrong state for an admin call, a family operation
//!   that does not fit, a namespace that is not empty.
//!
//! # Files
//!
//! `store.rs` is the whole [`Store`]: namespaces, tables, the clock, open scanners and the
//! administration calls; `table.rs` one table and its data operations; `row.rs` one row's
//! cells and delete markers; `scan.rs` scanners; `filter/` the filter language; `errors.rs`
//! the errors, shaped like the Thrift2 gateway's.
//!
//! # What it does not model
//!
//! - Durability settings and mutation attributes other than the TTL are accepted and
//!   ignored: nothing is written anywhere, everything is lost with the last clone of the
//!   client.
//! - No MVCC read points: an open scanner reads the rows as they are when it reaches them,
//!   so rows written during a scan may be seen. Scanners never expire (no lease timeout).
//! - No compactions as such: the store behaves as if every write were compacted at once.
//!   Versions beyond `max_versions` and deleted versions are dropped when written over (HBase
//!   may still show an older version after the newest one is deleted, until a major
//!   compaction), and delete markers are kept forever (a major compaction would purge them,
//!   letting a later write with an old timestamp show).
//! - `keep_deleted_cells`, compression, bloom filters, block size and cache, in-memory and
//!   block encoding are stored and described but change nothing; there are no region splits
//!   or merges after creation, no replication, quotas, snapshots, coprocessors or security.
//! - Timestamps: "now" is the wall clock, but each mutation gets a timestamp after the
//!   previous one's, so a put right after a delete is never masked by it for falling in the
//!   same millisecond (HBase may mask it), and two puts in a row keep two versions. Under a
//!   sustained rate above one write per millisecond, timestamps run ahead of the wall clock.
//! - Limits of the real servers (request and cell sizes, row key length beyond the client's
//!   own checks, timeouts) are not enforced; [`PoolCounters`] are all zero.

mod errors;
// `Filter::apply` (no version limit) is the filter module's own simpler entry point; the
// store uses `apply_versions`.
mod filter;
mod row;
mod scan;
mod store;
mod table;
#[cfg(test)]
mod tests;

use std::sync::{Mutex, MutexGuard};

use async_trait::async_trait;

use super::op;
use super::{Backend, PoolCounters};
use crate::model::*;
use scan::Scanner;
use store::{Store, SERVER};
use table::TableState;

/// The in-memory backend: one [`Store`] behind a lock. Clients share it through
/// [`crate::Client`]'s clones.
#[derive(Debug)]
pub(crate) struct Memory {
    /// Everything stored; never held across an `.await` (there is nothing to await).
    store: Mutex<Store>,
}

impl Memory {
    /// A new, empty store with the `default` and `hbase` namespaces.
    pub(crate) fn new() -> Memory {
        Memory {
            store: Mutex::new(Store::new()),
        }
    }

    /// The store, locked (a panic in another call does not poison it for good: every
    /// operation checks before it changes anything).
    fn lock(&self) -> MutexGuard<'_, Store> {
        self.store.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// One get or exists on a locked store.
    fn get_locked(
        store: &Store,
        method: &'static str,
        table: &TableName,
        get: &Get,
    ) -> Result<Option<Row>> {
        store.serving(method, table)?.get(method, get, store.now())
    }

    /// Runs `write` on `table` (which must be enabled) under the lock, at the store's next
    /// write time.
    fn write<T>(
        &self,
        method: &'static str,
        table: &TableName,
        write: impl FnOnce(&mut TableState, i64) -> Result<T>,
    ) -> Result<T> {
        let mut store = self.lock();
        let now = store.stamp();
        write(store.serving_mut(method, table)?, now)
    }
}

impl Default for Memory {
    fn default() -> Self {
        Memory::new()
    }
}

#[async_trait]
impl Backend for Memory {
    /// One copy of each row: a timeline read is answered as a strong one, never stale.
    fn timeline_reads(&self) -> bool {
        true
    }

    fn name(&self) -> &'static str {
        "memory"
    }

    fn address(&self) -> &str {
        "memory"
    }

    fn counters(&self) -> PoolCounters {
        PoolCounters::default()
    }

    async fn get(&self, op: &op::Get<'_>) -> Result<Option<Row>> {
        Self::get_locked(&self.lock(), "get", op.table, op.get)
    }

    async fn get_many(&self, op: &op::GetMany<'_>) -> Result<Vec<Option<Row>>> {
        let op::GetMany { table, gets } = *op;
        let store = self.lock();
        gets.iter()
            .map(|g| Self::get_locked(&store, "getMultiple", table, g))
            .collect()
    }

    async fn exists(&self, op: &op::Exists<'_>) -> Result<bool> {
        Ok(Self::get_locked(&self.lock(), "exists", op.table, op.get)?.is_some())
    }

    async fn exists_many(&self, op: &op::ExistsMany<'_>) -> Result<Vec<bool>> {
        let op::ExistsMany { table, gets } = *op;
        let store = self.lock();
        gets.iter()
            .map(|g| Ok(Self::get_locked(&store, "existsAll", table, g)?.is_some()))
            .collect()
    }

    async fn put(&self, op: &op::Put<'_>) -> Result<()> {
        let put = std::slice::from_ref(op.put);
        self.write("put", op.table, |t, now| t.put_all("put", put, now))
    }

    async fn put_many(&self, op: &op::PutMany<'_>) -> Result<()> {
        let method = "putMultiple";
        self.write(method, op.table, |t, now| t.put_all(method, op.puts, now))
    }

    async fn delete(&self, op: &op::Delete<'_>) -> Result<()> {
        let (method, delete) = ("deleteSingle", std::slice::from_ref(op.delete));
        self.write(method, op.table, |t, now| t.delete_all(method, delete, now))
    }

    async fn delete_many(&self, op: &op::DeleteMany<'_>) -> Result<Vec<usize>> {
        let method = "deleteMultiple";
        self.write(method, op.table, |t, now| {
            t.delete_all(method, op.deletes, now)
        })?;
        Ok(Vec::new())
    }

    async fn mutate_row(&self, op: &op::MutateRow<'_>) -> Result<()> {
        let method = "mutateRow";
        self.write(method, op.table, |t, now| {
            t.mutate(method, op.mutations, now)
        })
    }

    async fn check_and_mutate(&self, op: &op::CheckAndMutate<'_>) -> Result<bool> {
        let method = "checkAndMutate";
        self.write(method, op.table, |t, now| t.check_and_mutate(op.cam, now))
    }

    async fn increment(&self, op: &op::Increment<'_>) -> Result<Option<Row>> {
        let method = "increment";
        self.write(method, op.table, |t, now| t.increment(op.increment, now))
            .map(Some)
    }

    async fn append(&self, op: &op::Append<'_>) -> Result<Option<Row>> {
        let method = "append";
        self.write(method, op.table, |t, now| t.append(op.append, now))
            .map(Some)
    }

    async fn open_scanner(&self, op: &op::OpenScanner<'_>) -> Result<i32> {
        let op::OpenScanner { table, scan } = *op;
        let mut store = self.lock();
        let scanner = Scanner::open(table, store.serving("openScanner", table)?, scan)?;
        let id = store.scanner_id();
        store.scanners.insert(id, scanner);
        Ok(id)
    }

    async fn scanner_rows(&self, op: &op::ScannerRows<'_>) -> Result<ScannerPage> {
        let op::ScannerRows { id, rows, .. } = *op;
        let mut store = self.lock();
        let method = "getScannerRows";
        let Some(mut scanner) = store.scanners.remove(&id) else {
            return Err(Error::IllegalArgument {
                message: format!("Invalid scanner Id {id} (never opened, or closed)"),
            });
        };
        let now = store.now();
        let result = store.serving(method, &scanner.table).and_then(|t| {
            ScannerPage::from_rows(scanner.next_rows(t, usize::try_from(rows).unwrap_or(0), now))
                .map_err(|e| e.error(method))
        });
        store.scanners.insert(id, scanner);
        result
    }

    async fn close_scanner(&self, op: &op::CloseScanner) -> Result<()> {
        self.lock().scanners.remove(&op.id);
        Ok(())
    }

    async fn scanner_is_open(&self, op: &op::ScannerIsOpen) -> Result<bool> {
        Ok(self.lock().scanners.contains_key(&op.id))
    }

    async fn create_namespace(&self, op: &op::CreateNamespace<'_>) -> Result<()> {
        self.lock().create_namespace(op.name)
    }

    async fn namespace_exists(&self, op: &op::NamespaceExists<'_>) -> Result<bool> {
        Ok(self.lock().namespace_exists(op.name))
    }

    async fn list_namespaces(&self, _op: &op::ListNamespaces) -> Result<Vec<String>> {
        Ok(self.lock().list_namespaces())
    }

    async fn delete_namespace(&self, op: &op::DeleteNamespace<'_>) -> Result<()> {
        self.lock().delete_namespace(op.name)
    }

    async fn create_table(&self, op: &op::CreateTable<'_>) -> Result<()> {
        self.lock().create_table(op.table, op.split_keys)
    }

    async fn table_exists(&self, op: &op::TableExists<'_>) -> Result<bool> {
        Ok(self.lock().table_exists(op.table))
    }

    async fn describe(&self, op: &op::Describe<'_>) -> Result<TableDescriptor> {
        Ok(self.lock().table(op.table)?.descriptor.clone())
    }

    async fn list_tables(&self, op: &op::ListTables<'_>) -> Result<Vec<TableName>> {
        self.lock().list_tables(op.namespace)
    }

    async fn enable_table(&self, op: &op::EnableTable<'_>) -> Result<()> {
        self.lock().enable_table(op.table)
    }

    async fn disable_table(&self, op: &op::DisableTable<'_>) -> Result<()> {
        self.lock().disable_table(op.table)
    }

    async fn is_table_enabled(&self, op: &op::IsTableEnabled<'_>) -> Result<bool> {
        Ok(self.lock().table(op.table)?.enabled)
    }

    async fn truncate_table(&self, op: &op::TruncateTable<'_>) -> Result<()> {
        self.lock().truncate_table(op.table, op.preserve_splits)
    }

    async fn delete_table(&self, op: &op::DeleteTable<'_>) -> Result<()> {
        self.lock().delete_table(op.table)
    }

    async fn add_family(&self, op: &op::AddFamily<'_>) -> Result<()> {
        self.lock().add_family(op.table, op.family)
    }

    async fn modify_family(&self, op: &op::ModifyFamily<'_>) -> Result<()> {
        self.lock().modify_family(op.table, op.family)
    }

    async fn merge_family(&self, op: &op::MergeFamily<'_>) -> Result<()> {
        self.lock().merge_family(op.table, op.declared)
    }

    async fn delete_family(&self, op: &op::DeleteFamily<'_>) -> Result<()> {
        self.lock().delete_family(op.table, op.family)
    }

    async fn region_locations(&self, op: &op::RegionLocations<'_>) -> Result<Vec<RegionLocation>> {
        Ok(self.lock().region_locations(op.table))
    }

    async fn split_region(&self, op: &op::SplitRegion<'_>) -> Result<()> {
        self.lock().split_region(op.table, op.split_key)
    }

    async fn move_region(&self, op: &op::MoveRegion<'_>) -> Result<()> {
        // Every region is on the store's one server already.
        self.lock().table(op.table)?;
        match op.to {
            Some(to) if to != SERVER => Err(Error::IllegalArgument {
                message: format!("no region server serves at {to}; the live ones: {SERVER}"),
            }),
            _ => Ok(()),
        }
    }

    async fn region_servers(&self, _op: &op::RegionServers) -> Result<Vec<String>> {
        Ok(vec![SERVER.to_string()])
    }

    async fn balance(&self, _op: &op::Balance) -> Result<bool> {
        Ok(self.lock().balancer_on)
    }

    async fn set_balancer(&self, op: &op::SetBalancer) -> Result<bool> {
        Ok(std::mem::replace(&mut self.lock().balancer_on, op.on))
    }
}
