//! Every operation a client makes of a store, each as a value: the arguments it carries, the
//! name it goes by in errors, retries and traces, what sending it again could do
//! ([`Safety`]), the checks it passes before anything is sent, and the one [`Backend`] method
//! that carries it out; and [`Backend`], the trait every store implements, one method per
//! operation (the two refer to each other, so they share this file).
//!
//! The client's retry loop reads the name and the safety from the value (`Client::run`), so
//! `Table` and `Admin` methods only build the value and hand it on; the table below is the one
//! place where an operation's facts are written down.

// An operation's arguments are read by the backends that carry it out: with some backends
// left out of the build (cargo features), some are read by none.
#![cfg_attr(
    not(all(
        feature = "native",
        feature = "memory",
        feature = "thrift1",
        feature = "thrift2"
    )),
    allow(dead_code)
)]

use async_trait::async_trait;
use futures::future::BoxFuture;

use crate::model::{self, RegionLocation, Result, Row, ScannerPage, TableDescriptor, TableName};

/// What sending an operation again could do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Safety {
    /// Repeating it ends in the same state (reads, puts, deletes of whole rows, families or
    /// columns, family option changes): it is sent again after any failure that may pass.
    Idempotent,
    /// An admin change that, repeated after it was applied, fails cleanly (the namespace or
    /// table exists already, is gone, is disabled already) instead of applying twice: the
    /// client's retries send it again only when it cannot have reached the server, so that a
    /// caller never sees the failure of a repeat for a change that was made. The gateways'
    /// pool still sends it again after a stale pooled connection (see
    /// [`Safety::resend_on_stale_connection`]), where the gateway had closed the socket
    /// before the call arrived.
    FailsCleanly,
    /// Repeating it after it reached the server could apply it twice (increments, appends,
    /// conditional writes, latest-version deletes and row mutations holding one, scanner
    /// calls): sent again only when it cannot have reached the server.
    UnsentOnly,
}

impl Safety {
    /// Whether a call may go out again on a fresh connection when the pooled connection it was
    /// sent on turns out to have been closed by the server (no byte of a reply came back: the
    /// server had dropped the idle socket before the call arrived). Every operation but the
    /// [`UnsentOnly`] ones: for those even that small doubt is too much.
    pub(crate) fn resend_on_stale_connection(self) -> bool {
        self != UnsentOnly
    }
}

/// One operation of a client on a store (see the module documentation).
pub(crate) trait Operation: Sync {
    /// What it returns.
    type Output: Send;
    /// Its name in errors, retries and traces.
    const NAME: &'static str;
    /// What sending it again could do.
    fn safety(&self) -> Safety;
    /// Whether a Thrift gateway's own failure (an `InternalError`, an exception inside the
    /// gateway rather than an answer of HBase's) may pass for this operation, so that an
    /// idempotent one is sent again after it. Lasting for most calls (a gateway fails so on an
    /// empty row mutation, say); passing for a few, set in the table below.
    const GATEWAY_FAILURE_PASSES: bool = false;
    /// Whether it is a read any region replica may answer
    /// ([`Consistency::Timeline`](model::Consistency::Timeline)), which only a backend that
    /// reads replicas ([`Backend::timeline_reads`]) takes.
    fn timeline(&self) -> bool {
        false
    }
    /// Checks made before anything is sent: a request HBase would refuse, or that could not
    /// mean what the caller wants, fails here and nothing is written.
    fn check(&self) -> Result<()> {
        Ok(())
    }
    /// Sends it once.
    fn send<'a>(&'a self, backend: &'a dyn Backend) -> BoxFuture<'a, Result<Self::Output>>;
}

/// Writes one struct per operation and its [`Operation`] impl from a line of the table: the
/// struct and its fields, the output, the name, the safety (`self` is the operation), the
/// check and the [`Backend`] method that carries it out (given the operation itself).
macro_rules! operations {
    ($(
        $(#[$doc:meta])*
        $op:ident { $($field:ident: $ty:ty),* $(,)? } -> $out:ty,
        name $name:literal, safety |$s:ident| $safety:expr,
        $(gateway failure passes $passes:literal,)?
        $(timeline |$t:ident| $timeline:expr,)?
        check |$c:ident| $check:expr,
        send $method:ident;
    )*) => {$(
        $(#[$doc])*
        pub(crate) struct $op<'o> {
            $(pub(crate) $field: $ty,)*
        }

        impl Operation for $op<'_> {
            type Output = $out;
            const NAME: &'static str = $name;
            $(const GATEWAY_FAILURE_PASSES: bool = $passes;)?

            fn safety(&self) -> Safety {
                let $s = self;
                $safety
            }

            $(fn timeline(&self) -> bool {
                let $t = self;
                $timeline
            })?

            fn check(&self) -> Result<()> {
                let $c = self;
                $check
            }

            fn send<'a>(&'a self, backend: &'a dyn Backend) -> BoxFuture<'a, Result<$out>> {
                backend.$method(self)
            }
        }
    )*};
}

/// The same as [`operations!`] for operations that own their few arguments (no lifetime).
macro_rules! owned_operations {
    ($(
        $(#[$doc:meta])*
        $op:ident { $($field:ident: $ty:ty),* $(,)? } -> $out:ty,
        name $name:literal, safety $safety:expr,
        send $method:ident;
    )*) => {$(
        $(#[$doc])*
        pub(crate) struct $op {
            $(pub(crate) $field: $ty,)*
        }

        impl Operation for $op {
            type Output = $out;
            const NAME: &'static str = $name;

            fn safety(&self) -> Safety {
                $safety
            }

            fn send<'a>(&'a self, backend: &'a dyn Backend) -> BoxFuture<'a, Result<$out>> {
                backend.$method(self)
            }
        }
    )*};
}

use Safety::{FailsCleanly, Idempotent, UnsentOnly};

/// No check beyond the types.
fn none() -> Result<()> {
    Ok(())
}

operations! {
    /// One row.
    Get { table: &'o TableName, get: &'o model::Get } -> Option<Row>,
        name "get", safety |_s| Idempotent,
        timeline |t| t.get.consistency == model::Consistency::Timeline,
        check |c| c.get.check(),
        send get;
    /// Several rows, one answer per get.
    GetMany { table: &'o TableName, gets: &'o [model::Get] } -> Vec<Option<Row>>,
        name "get_many", safety |_s| Idempotent,
        timeline |t| t.gets.iter().any(|g| g.consistency == model::Consistency::Timeline),
        check |c| c.gets.iter().try_for_each(model::Get::check),
        send get_many;
    /// Whether a row (or the columns the get names) exists.
    Exists { table: &'o TableName, get: &'o model::Get } -> bool,
        name "exists", safety |_s| Idempotent,
        timeline |t| t.get.consistency == model::Consistency::Timeline,
        check |c| c.get.check(),
        send exists;
    /// [`Exists`] for several gets.
    ExistsMany { table: &'o TableName, gets: &'o [model::Get] } -> Vec<bool>,
        name "exists_many", safety |_s| Idempotent,
        timeline |t| t.gets.iter().any(|g| g.consistency == model::Consistency::Timeline),
        check |c| c.gets.iter().try_for_each(model::Get::check),
        send exists_many;
    /// Cells into one row.
    Put { table: &'o TableName, put: &'o model::Put } -> (),
        name "put", safety |_s| Idempotent,
        check |c| c.put.check(),
        send put;
    /// Several rows in one batch.
    PutMany { table: &'o TableName, puts: &'o [model::Put] } -> (),
        name "put_many", safety |_s| Idempotent,
        check |c| c.puts.iter().try_for_each(model::Put::check),
        send put_many;
    /// A delete of a row or parts of it, atomic.
    Delete { table: &'o TableName, delete: &'o model::Delete } -> (),
        name "delete", safety |s| delete_safety(s.delete),
        check |c| c.delete.check(),
        send delete;
    /// Deletes of one kind each, in one batch; the indexes of those not applied.
    DeleteMany { table: &'o TableName, deletes: &'o [model::Delete] } -> Vec<usize>,
        name "delete_many", safety |s| batch_safety(s.deletes.iter().map(delete_safety)),
        check |c| c.deletes.iter().try_for_each(model::Delete::check),
        send delete_many;
    /// Puts and deletes of one row, atomic (an entity's save). As safe to repeat as its least
    /// safe mutation: puts and deletes of rows, families and columns end the same when
    /// repeated, so a save is sent again like a put.
    MutateRow { table: &'o TableName, mutations: &'o model::RowMutations } -> (),
        name "mutate_row", safety |s| mutations_safety(s.mutations),
        check |c| c.mutations.check(),
        send mutate_row;
    /// Several rows' puts and deletes, each row's applied atomically, in one batch (the saves
    /// of `save_all` whose rows also delete columns). As safe to repeat as its least safe row.
    MutateRows { table: &'o TableName, rows: &'o [model::RowMutations] } -> (),
        name "mutate_rows", safety |s| batch_safety(s.rows.iter().map(mutations_safety)),
        check |c| c.rows.iter().try_for_each(model::RowMutations::check),
        send mutate_rows;
    /// Mutations applied if a check passes; whether it passed.
    CheckAndMutate { table: &'o TableName, cam: &'o model::CheckAndMutate } -> bool,
        name "check_and_mutate", safety |_s| UnsentOnly,
        check |c| c.cam.check(),
        send check_and_mutate;
    /// Additions to counters.
    Increment { table: &'o TableName, increment: &'o model::Increment } -> Option<Row>,
        name "increment", safety |_s| UnsentOnly,
        check |c| c.increment.check(),
        send increment;
    /// Bytes appended to cells.
    Append { table: &'o TableName, append: &'o model::Append } -> Option<Row>,
        name "append", safety |_s| UnsentOnly,
        check |c| c.append.check(),
        send append;
    /// A scanner opened (a second one would leak, so never sent twice).
    OpenScanner { table: &'o TableName, scan: &'o model::Scan } -> i32,
        name "openScanner", safety |_s| UnsentOnly,
        timeline |t| t.scan.consistency == model::Consistency::Timeline,
        check |c| c.scan.check(),
        send open_scanner;
    /// The next page of an open scanner.
    ScannerRows { table: &'o TableName, id: i32, rows: i32 } -> ScannerPage,
        name "getScannerRows", safety |_s| UnsentOnly,
        check |_c| none(),
        send scanner_rows;
    /// A namespace created.
    CreateNamespace { name: &'o str } -> (),
        name "create_namespace", safety |_s| FailsCleanly,
        check |c| TableName::check_namespace(c.name),
        send create_namespace;
    /// Whether a namespace exists.
    NamespaceExists { name: &'o str } -> bool,
        name "namespace_exists", safety |_s| Idempotent,
        check |_c| none(),
        send namespace_exists;
    /// An empty namespace deleted.
    DeleteNamespace { name: &'o str } -> (),
        name "delete_namespace", safety |_s| FailsCleanly,
        check |_c| none(),
        send delete_namespace;
    /// A table created, split at the keys (sorted, distinct).
    CreateTable { table: &'o TableDescriptor, split_keys: &'o [Vec<u8>] } -> (),
        name "create_table", safety |_s| FailsCleanly,
        check |c| check_new_table(c.table, c.split_keys),
        send create_table;
    /// Whether a table exists.
    TableExists { table: &'o TableName } -> bool,
        name "table_exists", safety |_s| Idempotent,
        check |_c| none(),
        send table_exists;
    /// A table's descriptor.
    Describe { table: &'o TableName } -> TableDescriptor,
        name "describe", safety |_s| Idempotent,
        check |_c| none(),
        send describe;
    /// The tables of a namespace, or every user table.
    ListTables { namespace: Option<&'o str> } -> Vec<TableName>,
        name "list_tables", safety |_s| Idempotent,
        check |_c| none(),
        send list_tables;
    /// A table enabled.
    EnableTable { table: &'o TableName } -> (),
        name "enable_table", safety |_s| FailsCleanly,
        check |_c| none(),
        send enable_table;
    /// A table disabled.
    DisableTable { table: &'o TableName } -> (),
        name "disable_table", safety |_s| FailsCleanly,
        check |_c| none(),
        send disable_table;
    /// Whether a table is enabled.
    IsTableEnabled { table: &'o TableName } -> bool,
        name "is_table_enabled", safety |_s| Idempotent,
        check |_c| none(),
        send is_table_enabled;
    /// Every row of a disabled table removed.
    TruncateTable { table: &'o TableName, preserve_splits: bool } -> (),
        name "truncate_table", safety |_s| FailsCleanly,
        check |_c| none(),
        send truncate_table;
    /// A disabled table dropped.
    DeleteTable { table: &'o TableName } -> (),
        name "delete_table", safety |_s| FailsCleanly,
        check |_c| none(),
        send delete_table;
    /// A family added.
    AddFamily { table: &'o TableName, family: &'o model::ColumnFamily } -> (),
        name "add_family", safety |_s| FailsCleanly,
        check |_c| none(),
        send add_family;
    /// A family's options replaced.
    ModifyFamily { table: &'o TableName, family: &'o model::ColumnFamily } -> (),
        name "modify_family", safety |_s| Idempotent,
        check |_c| none(),
        send modify_family;
    /// The options a declaration sets applied to a family, the rest kept.
    MergeFamily { table: &'o TableName, declared: &'o model::ColumnFamily } -> (),
        name "merge_family", safety |_s| Idempotent,
        check |_c| none(),
        send merge_family;
    /// A family dropped with its data.
    DeleteFamily { table: &'o TableName, family: &'o str } -> (),
        name "delete_family", safety |_s| FailsCleanly,
        check |_c| none(),
        send delete_family;
    /// Every region of a table. A gateway fails it so for a moment while a region splits
    /// (seen on the local cluster: `getAllRegionLocations`).
    RegionLocations { table: &'o TableName } -> Vec<model::RegionLocation>,
        name "region_locations", safety |_s| Idempotent,
        gateway failure passes true,
        check |_c| none(),
        send region_locations;
    /// The region holding a key split in two there. Sent once: a repeat would find the key
    /// at a region's start and fail.
    SplitRegion { table: &'o TableName, split_key: &'o [u8] } -> (),
        name "split_region", safety |_s| UnsentOnly,
        check |c| check_split_key(c.table, c.split_key),
        send split_region;
    /// The region holding a key moved to a region server (`host:port`), or to one the master
    /// picks. Sent once: a repeat with no destination would move it again.
    MoveRegion { table: &'o TableName, key: &'o [u8], to: Option<&'o str> } -> (),
        name "move_region", safety |_s| UnsentOnly,
        check |_c| none(),
        send move_region;
    /// A staging directory for a bulk load (its token): a new one each time, so never sent
    /// twice.
    PrepareBulkLoad { table: &'o TableName } -> String,
        name "prepare_bulk_load", safety |_s| UnsentOnly,
        check |_c| none(),
        send prepare_bulk_load;
    /// HFiles (family, path) handed to the region holding `first_row`, with the filesystem's
    /// delegation token when it is secured; whether the region took them.
    /// Sent once: the load's own loop decides what to send again.
    BulkLoadFiles {
        table: &'o TableName,
        first_row: &'o [u8],
        files: &'o [(String, String)],
        token: &'o str,
        fs_token: Option<&'o super::fs_token::FsToken>,
    } -> bool,
        name "bulk_load_hfile", safety |_s| UnsentOnly,
        check |_c| none(),
        send bulk_load_files;
    /// Removes a bulk load's staging directory (again: nothing left to remove).
    CleanupBulkLoad { table: &'o TableName, token: &'o str } -> (),
        name "cleanup_bulk_load", safety |_s| Idempotent,
        check |_c| none(),
        send cleanup_bulk_load;
    /// Actions granted to a user on a scope, added to those it has there (a repeat adds
    /// nothing more).
    Grant { permission: &'o model::Permission } -> (),
        name "grant", safety |_s| Idempotent,
        check |c| c.permission.check(),
        send grant;
    /// Actions taken from a user on a scope (a repeat finds nothing more to take).
    Revoke { permission: &'o model::Permission } -> (),
        name "revoke", safety |_s| Idempotent,
        check |c| c.permission.check(),
        send revoke;
    /// The permissions granted on a scope, a user's alone or everyone's.
    UserPermissions { scope: &'o model::PermissionScope, user: Option<&'o str> }
        -> Vec<model::Permission>,
        name "user_permissions", safety |_s| Idempotent,
        check |_c| none(),
        send user_permissions;
    /// Cell visibility labels added to those the cluster knows (one known already is refused).
    AddLabels { labels: &'o [String] } -> (),
        name "add_labels", safety |_s| FailsCleanly,
        check |c| check_labels(c.labels),
        send add_labels;
    /// Labels given to a user or group (`set`), or taken away.
    SetAuthorizations { user: &'o str, labels: &'o [String], set: bool } -> (),
        name "set_authorizations", safety |_s| Idempotent,
        check |c| check_labels(c.labels),
        send set_authorizations;
    /// The labels a user or group was given.
    Authorizations { user: &'o str } -> Vec<String>,
        name "authorizations", safety |_s| Idempotent,
        check |_c| none(),
        send authorizations;
    /// The labels the cluster knows (matching a regular expression, when given).
    ListLabels { regex: Option<&'o str> } -> Vec<String>,
        name "list_labels", safety |_s| Idempotent,
        check |_c| none(),
        send list_labels;
}

/// Labels HBase could take: at least one, each non-empty.
fn check_labels(labels: &[String]) -> Result<()> {
    if labels.is_empty() || labels.iter().any(|l| l.is_empty()) {
        return Err(model::Error::IllegalArgument {
            message: format!("visibility labels {labels:?}: name at least one, none empty"),
        });
    }
    Ok(())
}

owned_operations! {
    /// Every namespace.
    ListNamespaces {} -> Vec<String>,
        name "list_namespaces", safety Idempotent,
        send list_namespaces;
    /// A scanner released.
    CloseScanner { id: i32 } -> (),
        name "closeScanner", safety Idempotent,
        send close_scanner;
    /// A scanner kept alive while its caller pauses: its lease renewed on the server if half
    /// of it is gone; when to ask again (`None`: nothing to keep).
    KeepScanner { id: i32 } -> Option<std::time::Duration>,
        name "keepScanner", safety Idempotent,
        send keep_scanner;
    /// Whether the store still holds a scanner.
    ScannerIsOpen { id: i32 } -> bool,
        name "scanner_is_open", safety Idempotent,
        send scanner_is_open;
    /// The region servers that serve, as `host:port`.
    RegionServers {} -> Vec<String>,
        name "region_servers", safety Idempotent,
        send region_servers;
    /// One run of the balancer: whether it ran (it does not while it is switched off or
    /// regions are in transition).
    Balance {} -> bool,
        name "balance", safety Idempotent,
        send balance;
    /// The balancer switched on or off; whether it was on. Sent once: a repeat would answer
    /// with the state the first call set.
    SetBalancer { on: bool } -> bool,
        name "set_balancer", safety UnsentOnly,
        send set_balancer;
}

/// An operation about one table, named by the table alone.
pub(crate) trait OnTable: Operation {
    /// The table.
    fn table(&self) -> &TableName;
}

/// `OnTable` for the operations whose only argument is `table`.
macro_rules! on_table {
    ($($op:ident),*) => {$(
        impl OnTable for $op<'_> {
            fn table(&self) -> &TableName {
                self.table
            }
        }
    )*};
}

on_table!(
    TableExists,
    Describe,
    EnableTable,
    DisableTable,
    IsTableEnabled,
    DeleteTable,
    RegionLocations
);

/// Deletes of whole rows, families and columns end the same when repeated; a delete of the
/// latest version would remove one more version each time.
fn delete_safety(delete: &model::Delete) -> Safety {
    let latest = delete
        .targets
        .iter()
        .any(|t| matches!(t, model::DeleteTarget::LatestVersion(..)));
    if latest {
        UnsentOnly
    } else {
        Idempotent
    }
}

/// Row mutations are as safe to send again as their least safe mutation.
fn mutations_safety(mutations: &model::RowMutations) -> Safety {
    batch_safety(mutations.mutations.iter().map(|m| match m {
        model::Mutation::Put(_) => Idempotent,
        model::Mutation::Delete(d) => delete_safety(d),
    }))
}

/// A batch is as safe to send again as its least safe item.
fn batch_safety(items: impl Iterator<Item = Safety>) -> Safety {
    let mut safety = Idempotent;
    for item in items {
        match item {
            UnsentOnly => return UnsentOnly,
            FailsCleanly => safety = FailsCleanly,
            Idempotent => {}
        }
    }
    safety
}

/// A new table needs a valid name, a family, a region replication HBase takes, and no empty
/// split key.
fn check_new_table(table: &TableDescriptor, split_keys: &[Vec<u8>]) -> Result<()> {
    table.name.check()?;
    table.check_region_replication()?;
    if table.families.is_empty() {
        return Err(model::Error::IllegalArgument {
            message: format!("table {} needs at least one column family", table.name),
        });
    }
    if split_keys.iter().any(|k| k.is_empty()) {
        return Err(model::Error::IllegalArgument {
            message: format!("table {}: a split key may not be empty", table.name),
        });
    }
    Ok(())
}

/// A split needs a key inside a region: never the empty key, where the table starts.
fn check_split_key(table: &TableName, key: &[u8]) -> Result<()> {
    if key.is_empty() {
        return Err(model::Error::IllegalArgument {
            message: format!("table {table}: a region cannot be split at the empty key"),
        });
    }
    Ok(())
}

/// The connection counters a backend keeps (all zero for a store without connections).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PoolCounters {
    /// Connections opened since the backend was made.
    pub(crate) opened: u64,
    /// Connections held now.
    pub(crate) open: usize,
    /// Of those, how many are idle.
    pub(crate) idle: usize,
    /// Region scanners a backend lost and reopened after the last row on its own (the native
    /// backend, whose scans cross regions; the client counts its own reopenings apart).
    pub(crate) scans_resumed: u64,
    /// Calls a backend sent again on its own (the native backend, after a region moved or a
    /// server was busy; the client counts its own retries apart).
    pub(crate) resent: u64,
    /// Scanner leases a backend renewed while their callers paused.
    pub(crate) scanners_renewed: u64,
}

/// A store the client can talk to. Every method carries out one logical operation, given as
/// the value the client built (this module): its arguments, and what sending it again could do
/// ([`Operation::safety`]), which a backend reads wherever it sends something again on
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

    /// Whether it takes reads with timeline consistency (the native backend reads region
    /// replicas, the in-memory store has one copy); a gateway has no call for them.
    fn timeline_reads(&self) -> bool {
        false
    }

    /// Where it connects (an address, or a description for stores in the process).
    fn address(&self) -> &str;

    /// Its connection counters.
    fn counters(&self) -> PoolCounters;

    /// One row, `None` if it does not exist or has none of the asked columns.
    async fn get(&self, op: &Get<'_>) -> Result<Option<Row>>;
    /// Several rows, one answer per get, in order.
    async fn get_many(&self, op: &GetMany<'_>) -> Result<Vec<Option<Row>>>;
    /// Whether the get would return a row.
    async fn exists(&self, op: &Exists<'_>) -> Result<bool>;
    /// [`Backend::exists`] for several gets, in order.
    async fn exists_many(&self, op: &ExistsMany<'_>) -> Result<Vec<bool>>;
    /// Writes one row's cells.
    async fn put(&self, op: &Put<'_>) -> Result<()>;
    /// Writes several rows in one batch (all or an error; the client retries row by row).
    async fn put_many(&self, op: &PutMany<'_>) -> Result<()>;
    /// Applies one delete atomically, whatever targets it mixes.
    async fn delete(&self, op: &Delete<'_>) -> Result<()>;
    /// Applies deletes whose targets are each of one kind ([`Delete::is_one_kind`]) in one
    /// batch; returns the indexes of those the store reports as not applied.
    async fn delete_many(&self, op: &DeleteMany<'_>) -> Result<Vec<usize>>;
    /// Applies puts and deletes to one row atomically.
    async fn mutate_row(&self, op: &MutateRow<'_>) -> Result<()>;
    /// Applies each row's puts and deletes atomically, many rows at once (all or an error; the
    /// client then sends the rows one by one). By default one [`Backend::mutate_row`] per row,
    /// all at once, each awaited to its end (a failure does not cut the others' calls short),
    /// then the first error: what a store without a batch of atomic rows can do.
    async fn mutate_rows(&self, op: &MutateRows<'_>) -> Result<()> {
        let table = op.table;
        let rows = op
            .rows
            .iter()
            .map(|mutations| async move { self.mutate_row(&MutateRow { table, mutations }).await });
        futures::future::join_all(rows).await.into_iter().collect()
    }
    /// Applies the mutations if the check passes; whether it passed.
    async fn check_and_mutate(&self, op: &CheckAndMutate<'_>) -> Result<bool>;
    /// Adds to counters; the row with their new values (`None` if the store returned none).
    async fn increment(&self, op: &Increment<'_>) -> Result<Option<Row>>;
    /// Appends to cells; the row with their new values (`None` if the store returned none).
    async fn append(&self, op: &Append<'_>) -> Result<Option<Row>>;

    /// Opens a scanner for `scan` (its `prefix` is `None`; `start`, `stop` and `limit` are the
    /// server's own; `caching` is set).
    async fn open_scanner(&self, op: &OpenScanner<'_>) -> Result<i32>;
    /// Up to `rows` rows of an open scanner, as one page; empty once it is exhausted.
    async fn scanner_rows(&self, op: &ScannerRows<'_>) -> Result<ScannerPage>;
    /// Releases a scanner.
    async fn close_scanner(&self, op: &CloseScanner) -> Result<()>;
    /// Forgets a scanner that was lost (its gateway restarted, its lease expired) without
    /// asking the server: whatever the client kept about it goes. The default keeps nothing.
    fn forget_scanner(&self, _id: i32) {}
    /// Whether the store still holds scanner `id` (a diagnostic for leaks).
    async fn scanner_is_open(&self, op: &ScannerIsOpen) -> Result<bool>;
    /// Keeps scanner `id` alive while its caller pauses (the native backend renews its region
    /// scanner's lease); when to ask again. The default has nothing to keep: a gateway's
    /// scanners live by the gateway's own timeout, which no call renews.
    async fn keep_scanner(&self, _op: &KeepScanner) -> Result<Option<std::time::Duration>> {
        Ok(None)
    }

    /// Creates a namespace.
    async fn create_namespace(&self, op: &CreateNamespace<'_>) -> Result<()>;
    /// Whether the namespace exists.
    async fn namespace_exists(&self, op: &NamespaceExists<'_>) -> Result<bool>;
    /// Every namespace.
    async fn list_namespaces(&self, op: &ListNamespaces) -> Result<Vec<String>>;
    /// Deletes an empty namespace.
    async fn delete_namespace(&self, op: &DeleteNamespace<'_>) -> Result<()>;
    /// Creates a table split at `split_keys` (sorted, distinct, none empty).
    async fn create_table(&self, op: &CreateTable<'_>) -> Result<()>;
    /// Whether the table exists.
    async fn table_exists(&self, op: &TableExists<'_>) -> Result<bool>;
    /// The table's descriptor with every family option filled in.
    async fn describe(&self, op: &Describe<'_>) -> Result<TableDescriptor>;
    /// Tables of a namespace, or every user table.
    async fn list_tables(&self, op: &ListTables<'_>) -> Result<Vec<TableName>>;
    /// Enables a table.
    async fn enable_table(&self, op: &EnableTable<'_>) -> Result<()>;
    /// Disables a table.
    async fn disable_table(&self, op: &DisableTable<'_>) -> Result<()>;
    /// Whether the table is enabled.
    async fn is_table_enabled(&self, op: &IsTableEnabled<'_>) -> Result<bool>;
    /// Removes every row of a disabled table (and enables it again).
    async fn truncate_table(&self, op: &TruncateTable<'_>) -> Result<()>;
    /// Drops a disabled table.
    async fn delete_table(&self, op: &DeleteTable<'_>) -> Result<()>;
    /// Adds a family.
    async fn add_family(&self, op: &AddFamily<'_>) -> Result<()>;
    /// Replaces a family's options (those left `None` go back to HBase's defaults).
    async fn modify_family(&self, op: &ModifyFamily<'_>) -> Result<()>;
    /// Sets the options `declared` gives on an existing family and keeps every other setting
    /// as the store has it, including settings this crate does not model.
    async fn merge_family(&self, op: &MergeFamily<'_>) -> Result<()>;
    /// Drops a family and its data.
    async fn delete_family(&self, op: &DeleteFamily<'_>) -> Result<()>;
    /// Every region of the table, in any order.
    async fn region_locations(&self, op: &RegionLocations<'_>) -> Result<Vec<RegionLocation>>;

    // The calls about the cluster's regions and servers. A backend that has no such calls
    // (the Thrift gateways) keeps these: they answer `Unsupported` and send nothing.

    /// Splits the region holding `split_key` in two at that key, and returns once both halves
    /// serve.
    async fn split_region(&self, _op: &SplitRegion<'_>) -> Result<()> {
        Err(no_call(self.name(), SplitRegion::NAME, "split"))
    }
    /// Moves the region holding `key` to the server `to` (or one the master picks), and
    /// returns once it serves there.
    async fn move_region(&self, _op: &MoveRegion<'_>) -> Result<()> {
        Err(no_call(self.name(), MoveRegion::NAME, "move"))
    }
    /// The region servers that serve (`host:port`), in any order.
    async fn region_servers(&self, _op: &RegionServers) -> Result<Vec<String>> {
        Err(no_call(self.name(), RegionServers::NAME, "server list"))
    }
    /// Runs the balancer once; whether it ran.
    async fn balance(&self, _op: &Balance) -> Result<bool> {
        Err(no_call(self.name(), Balance::NAME, "balancer"))
    }
    /// Switches the balancer on or off; whether it was on.
    async fn set_balancer(&self, _op: &SetBalancer) -> Result<bool> {
        Err(no_call(self.name(), SetBalancer::NAME, "balancer"))
    }
    async fn prepare_bulk_load(&self, _op: &PrepareBulkLoad<'_>) -> Result<String> {
        Err(no_call(self.name(), PrepareBulkLoad::NAME, "bulk load"))
    }
    async fn bulk_load_files(&self, _op: &BulkLoadFiles<'_>) -> Result<bool> {
        Err(no_call(self.name(), BulkLoadFiles::NAME, "bulk load"))
    }
    async fn cleanup_bulk_load(&self, _op: &CleanupBulkLoad<'_>) -> Result<()> {
        Err(no_call(self.name(), CleanupBulkLoad::NAME, "bulk load"))
    }

    // Who may do what: the master's AccessController, which only the native backend reaches
    // (HBase 2's gateways have no such call; the in-memory store has no users).

    /// Grants the permission's actions, added to those the user has on its scope.
    async fn grant(&self, _op: &Grant<'_>) -> Result<()> {
        Err(no_call(self.name(), Grant::NAME, "permission"))
    }
    /// Takes the permission's actions from the user on its scope.
    async fn revoke(&self, _op: &Revoke<'_>) -> Result<()> {
        Err(no_call(self.name(), Revoke::NAME, "permission"))
    }
    /// The permissions granted on a scope (a user's alone with `user`).
    async fn user_permissions(&self, _op: &UserPermissions<'_>) -> Result<Vec<model::Permission>> {
        Err(no_call(self.name(), UserPermissions::NAME, "permission"))
    }
    /// Adds visibility labels (the `hbase:labels` region's endpoint, native only).
    async fn add_labels(&self, _op: &AddLabels<'_>) -> Result<()> {
        Err(no_call(self.name(), AddLabels::NAME, "visibility label"))
    }
    /// Gives a user labels, or takes them away.
    async fn set_authorizations(&self, _op: &SetAuthorizations<'_>) -> Result<()> {
        Err(no_call(
            self.name(),
            SetAuthorizations::NAME,
            "visibility label",
        ))
    }
    /// The labels a user was given.
    async fn authorizations(&self, _op: &Authorizations<'_>) -> Result<Vec<String>> {
        Err(no_call(
            self.name(),
            Authorizations::NAME,
            "visibility label",
        ))
    }
    /// The labels the cluster knows.
    async fn list_labels(&self, _op: &ListLabels<'_>) -> Result<Vec<String>> {
        Err(no_call(self.name(), ListLabels::NAME, "visibility label"))
    }
}

/// The error of `operation` on a backend that has no `what` call for it.
fn no_call(backend: &'static str, operation: &str, what: &str) -> model::Error {
    model::Error::Unsupported {
        operation: operation.to_string(),
        backend,
        why: format!(
            "{backend} has no {what} call; use the native backend (hbase://) or the HBase shell"
        ),
    }
}
