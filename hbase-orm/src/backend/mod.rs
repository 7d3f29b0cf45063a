//! The wire boundary: what the client asks of a store, in the project's own types.
//!
//! [`Backend`] is the one trait every store implements: Thrift2 ([`thrift2`]) is the first.
//! Requests arrive checked (see `model::check`) and in the protocol-neutral model; a backend
//! turns them into its wire's types, makes the calls, and turns replies and failures back
//! into [`Row`]s and [`Error`]s. Nothing above this module knows a wire type.
//!
//! [`wire`] is the machinery both Thrift gateways share: one socket per call in flight,
//! framed or buffered, binary or compact, a pool with timeouts and replies bounded in size.

pub(crate) mod memory;
pub(crate) mod op;
pub(crate) mod thrift1;
pub(crate) mod thrift2;
pub(crate) mod wire;

use async_trait::async_trait;

use crate::model::{
    Append, CheckAndMutate, ColumnFamily, Delete, Get, Increment, Put, RegionLocation, Result, Row,
    RowMutations, Scan, ScannerPage, TableDescriptor, TableName,
};

/// The connection counters a backend keeps (all zero for a store without connections).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PoolCounters {
    /// Connections opened since the backend was made.
    pub(crate) opened: u64,
    /// Connections held now.
    pub(crate) open: usize,
    /// Of those, how many are idle.
    pub(crate) idle: usize,
}

/// A store the client can talk to. Every method is one logical operation; a backend may need
/// several wire calls for one (and says so where it matters).
///
/// Scans are driven by the client: it opens a scanner with the server-side bounds already
/// worked out (`prefix` folded into `start`/`stop`, which are HBase's own, also for reversed
/// scans), pulls pages and closes it.
#[async_trait]
pub(crate) trait Backend: Send + Sync + 'static {
    /// A short name for errors and logs: `thrift2`, `thrift1`, `memory`.
    fn name(&self) -> &'static str;

    /// Where it connects (an address, or a description for stores in the process).
    fn address(&self) -> &str;

    /// Its connection counters.
    fn counters(&self) -> PoolCounters;

    /// One row, `None` if it does not exist or has none of the asked columns.
    async fn get(&self, table: &TableName, get: &Get) -> Result<Option<Row>>;
    /// Several rows, one answer per get, in order.
    async fn get_many(&self, table: &TableName, gets: &[Get]) -> Result<Vec<Option<Row>>>;
    /// Whether the get would return a row.
    async fn exists(&self, table: &TableName, get: &Get) -> Result<bool>;
    /// [`Backend::exists`] for several gets, in order.
    async fn exists_many(&self, table: &TableName, gets: &[Get]) -> Result<Vec<bool>>;
    /// Writes one row's cells.
    async fn put(&self, table: &TableName, put: &Put) -> Result<()>;
    /// Writes several rows in one batch (all or an error; the client retries row by row).
    async fn put_many(&self, table: &TableName, puts: &[Put]) -> Result<()>;
    /// Applies one delete atomically, whatever targets it mixes.
    async fn delete(&self, table: &TableName, delete: &Delete) -> Result<()>;
    /// Applies deletes whose targets are each of one kind ([`Delete::is_one_kind`]) in one
    /// batch; returns the indexes of those the store reports as not applied.
    async fn delete_many(&self, table: &TableName, deletes: &[Delete]) -> Result<Vec<usize>>;
    /// Applies puts and deletes to one row atomically.
    async fn mutate_row(&self, table: &TableName, mutations: &RowMutations) -> Result<()>;
    /// Applies the mutations if the check passes; whether it passed.
    async fn check_and_mutate(&self, table: &TableName, cam: &CheckAndMutate) -> Result<bool>;
    /// Adds to counters; the row with their new values (`None` if the store returned none).
    async fn increment(&self, table: &TableName, increment: &Increment) -> Result<Option<Row>>;
    /// Appends to cells; the row with their new values (`None` if the store returned none).
    async fn append(&self, table: &TableName, append: &Append) -> Result<Option<Row>>;

    /// Opens a scanner for `scan` (its `prefix` is `None`; `start`, `stop` and `limit` are the
    /// server's own; `caching` is set).
    async fn open_scanner(&self, table: &TableName, scan: &Scan) -> Result<i32>;
    /// Up to `rows` rows of an open scanner, as one page; empty once it is exhausted.
    async fn scanner_rows(&self, table: &TableName, id: i32, rows: i32) -> Result<ScannerPage>;
    /// Releases a scanner.
    async fn close_scanner(&self, id: i32) -> Result<()>;
    /// Forgets a scanner that was lost (its gateway restarted, its lease expired) without
    /// asking the server: whatever the client kept about it goes. The default keeps nothing.
    fn forget_scanner(&self, _id: i32) {}
    /// Whether the store still holds scanner `id` (a diagnostic for leaks).
    async fn scanner_is_open(&self, id: i32) -> Result<bool>;

    /// Creates a namespace.
    async fn create_namespace(&self, name: &str) -> Result<()>;
    /// Whether the namespace exists.
    async fn namespace_exists(&self, name: &str) -> Result<bool>;
    /// Every namespace.
    async fn list_namespaces(&self) -> Result<Vec<String>>;
    /// Deletes an empty namespace.
    async fn delete_namespace(&self, name: &str) -> Result<()>;
    /// Creates a table split at `split_keys` (sorted, distinct, none empty).
    async fn create_table(&self, table: &TableDescriptor, split_keys: &[Vec<u8>]) -> Result<()>;
    /// Whether the table exists.
    async fn table_exists(&self, table: &TableName) -> Result<bool>;
    /// The table's descriptor with every family option filled in.
    async fn describe(&self, table: &TableName) -> Result<TableDescriptor>;
    /// Tables of a namespace, or every user table.
    async fn list_tables(&self, namespace: Option<&str>) -> Result<Vec<TableName>>;
    /// Enables a table.
    async fn enable_table(&self, table: &TableName) -> Result<()>;
    /// Disables a table.
    async fn disable_table(&self, table: &TableName) -> Result<()>;
    /// Whether the table is enabled.
    async fn is_table_enabled(&self, table: &TableName) -> Result<bool>;
    /// Removes every row of a disabled table (and enables it again).
    async fn truncate_table(&self, table: &TableName, preserve_splits: bool) -> Result<()>;
    /// Drops a disabled table.
    async fn delete_table(&self, table: &TableName) -> Result<()>;
    /// Adds a family.
    async fn add_family(&self, table: &TableName, family: &ColumnFamily) -> Result<()>;
    /// Replaces a family's options (those left `None` go back to HBase's defaults).
    async fn modify_family(&self, table: &TableName, family: &ColumnFamily) -> Result<()>;
    /// Sets the options `declared` gives on an existing family and keeps every other setting
    /// as the store has it, including settings this crate does not model.
    async fn merge_family(&self, table: &TableName, declared: &ColumnFamily) -> Result<()>;
    /// Drops a family and its data.
    async fn delete_family(&self, table: &TableName, family: &str) -> Result<()>;
    /// Every region of the table, in any order.
    async fn region_locations(&self, table: &TableName) -> Result<Vec<RegionLocation>>;
}
