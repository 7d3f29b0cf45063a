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

use crate::model::{RegionLocation, Result, Row, ScannerPage, TableDescriptor, TableName};

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

/// A store the client can talk to. Every method carries out one logical operation, given as
/// the value the client built ([`op`]): its arguments, and what sending it again could do
/// ([`op::Operation::safety`]), which a backend reads wherever it sends something again on
/// its own (the gateways' pool after a stale connection). A backend may need several wire
/// calls for one operation (and says so where it matters).
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
    async fn get(&self, op: &op::Get<'_>) -> Result<Option<Row>>;
    /// Several rows, one answer per get, in order.
    async fn get_many(&self, op: &op::GetMany<'_>) -> Result<Vec<Option<Row>>>;
    /// Whether the get would return a row.
    async fn exists(&self, op: &op::Exists<'_>) -> Result<bool>;
    /// [`Backend::exists`] for several gets, in order.
    async fn exists_many(&self, op: &op::ExistsMany<'_>) -> Result<Vec<bool>>;
    /// Writes one row's cells.
    async fn put(&self, op: &op::Put<'_>) -> Result<()>;
    /// Writes several rows in one batch (all or an error; the client retries row by row).
    async fn put_many(&self, op: &op::PutMany<'_>) -> Result<()>;
    /// Applies one delete atomically, whatever targets it mixes.
    async fn delete(&self, op: &op::Delete<'_>) -> Result<()>;
    /// Applies deletes whose targets are each of one kind ([`Delete::is_one_kind`]) in one
    /// batch; returns the indexes of those the store reports as not applied.
    async fn delete_many(&self, op: &op::DeleteMany<'_>) -> Result<Vec<usize>>;
    /// Applies puts and deletes to one row atomically.
    async fn mutate_row(&self, op: &op::MutateRow<'_>) -> Result<()>;
    /// Applies the mutations if the check passes; whether it passed.
    async fn check_and_mutate(&self, op: &op::CheckAndMutate<'_>) -> Result<bool>;
    /// Adds to counters; the row with their new values (`None` if the store returned none).
    async fn increment(&self, op: &op::Increment<'_>) -> Result<Option<Row>>;
    /// Appends to cells; the row with their new values (`None` if the store returned none).
    async fn append(&self, op: &op::Append<'_>) -> Result<Option<Row>>;

    /// Opens a scanner for `scan` (its `prefix` is `None`; `start`, `stop` and `limit` are the
    /// server's own; `caching` is set).
    async fn open_scanner(&self, op: &op::OpenScanner<'_>) -> Result<i32>;
    /// Up to `rows` rows of an open scanner, as one page; empty once it is exhausted.
    async fn scanner_rows(&self, op: &op::ScannerRows<'_>) -> Result<ScannerPage>;
    /// Releases a scanner.
    async fn close_scanner(&self, op: &op::CloseScanner) -> Result<()>;
    /// Forgets a scanner that was lost (its gateway restarted, its lease expired) without
    /// asking the server: whatever the client kept about it goes. The default keeps nothing.
    fn forget_scanner(&self, _id: i32) {}
    /// Whether the store still holds scanner `id` (a diagnostic for leaks).
    async fn scanner_is_open(&self, op: &op::ScannerIsOpen) -> Result<bool>;

    /// Creates a namespace.
    async fn create_namespace(&self, op: &op::CreateNamespace<'_>) -> Result<()>;
    /// Whether the namespace exists.
    async fn namespace_exists(&self, op: &op::NamespaceExists<'_>) -> Result<bool>;
    /// Every namespace.
    async fn list_namespaces(&self, op: &op::ListNamespaces) -> Result<Vec<String>>;
    /// Deletes an empty namespace.
    async fn delete_namespace(&self, op: &op::DeleteNamespace<'_>) -> Result<()>;
    /// Creates a table split at `split_keys` (sorted, distinct, none empty).
    async fn create_table(&self, op: &op::CreateTable<'_>) -> Result<()>;
    /// Whether the table exists.
    async fn table_exists(&self, op: &op::TableExists<'_>) -> Result<bool>;
    /// The table's descriptor with every family option filled in.
    async fn describe(&self, op: &op::Describe<'_>) -> Result<TableDescriptor>;
    /// Tables of a namespace, or every user table.
    async fn list_tables(&self, op: &op::ListTables<'_>) -> Result<Vec<TableName>>;
    /// Enables a table.
    async fn enable_table(&self, op: &op::EnableTable<'_>) -> Result<()>;
    /// Disables a table.
    async fn disable_table(&self, op: &op::DisableTable<'_>) -> Result<()>;
    /// Whether the table is enabled.
    async fn is_table_enabled(&self, op: &op::IsTableEnabled<'_>) -> Result<bool>;
    /// Removes every row of a disabled table (and enables it again).
    async fn truncate_table(&self, op: &op::TruncateTable<'_>) -> Result<()>;
    /// Drops a disabled table.
    async fn delete_table(&self, op: &op::DeleteTable<'_>) -> Result<()>;
    /// Adds a family.
    async fn add_family(&self, op: &op::AddFamily<'_>) -> Result<()>;
    /// Replaces a family's options (those left `None` go back to HBase's defaults).
    async fn modify_family(&self, op: &op::ModifyFamily<'_>) -> Result<()>;
    /// Sets the options `declared` gives on an existing family and keeps every other setting
    /// as the store has it, including settings this crate does not model.
    async fn merge_family(&self, op: &op::MergeFamily<'_>) -> Result<()>;
    /// Drops a family and its data.
    async fn delete_family(&self, op: &op::DeleteFamily<'_>) -> Result<()>;
    /// Every region of the table, in any order.
    async fn region_locations(&self, op: &op::RegionLocations<'_>) -> Result<Vec<RegionLocation>>;
}
