//! Every operation a client makes of a store, each as a value: the arguments it carries, the
//! name it goes by in errors, retries and traces, what sending it again could do
//! ([`Safety`]), the checks it passes before anything is sent, and the one [`Backend`] method
//! that carries it out.
//!
//! The client's retry loop reads the name and the safety from the value (`Client::run`), so
//! `Table` and `Admin` methods only build the value and hand it on; the table below is the one
//! place where an operation's facts are written down.

use futures::future::BoxFuture;

use super::Backend;
use crate::model::{self, Result, Row, ScannerPage, TableDescriptor, TableName};

/// What sending an operation again could do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Safety {
    /// Repeating it ends in the same state (reads, puts, deletes of whole rows, families or
    /// columns, family option changes): it is sent again after any failure that may pass.
    Idempotent,
    /// An admin change that, repeated after it was applied, fails cleanly (the namespace or
    /// table exists already, is gone, is disabled already) instead of applying twice: sent
    /// again only when it cannot have reached the server, so that a caller never sees the
    /// failure of a repeat for a change that was made.
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

            fn safety(&self) -> Safety {
                let $s = self;
                $safety
            }

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

use Safety::{FailsCleanly, Idempotent, UnsentOnly};

/// No check beyond the types.
fn none() -> Result<()> {
    Ok(())
}

operations! {
    /// One row.
    Get { table: &'o TableName, get: &'o model::Get } -> Option<Row>,
        name "get", safety |_s| Idempotent,
        check |c| c.get.check(),
        send get;
    /// Several rows, one answer per get.
    GetMany { table: &'o TableName, gets: &'o [model::Get] } -> Vec<Option<Row>>,
        name "get_many", safety |_s| Idempotent,
        check |c| c.gets.iter().try_for_each(model::Get::check),
        send get_many;
    /// Whether a row (or the columns the get names) exists.
    Exists { table: &'o TableName, get: &'o model::Get } -> bool,
        name "exists", safety |_s| Idempotent,
        check |c| c.get.check(),
        send exists;
    /// [`Exists`] for several gets.
    ExistsMany { table: &'o TableName, gets: &'o [model::Get] } -> Vec<bool>,
        name "exists_many", safety |_s| Idempotent,
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
        check |c| TableName::new(c.name, "t").check(),
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
    /// Every region of a table.
    RegionLocations { table: &'o TableName } -> Vec<model::RegionLocation>,
        name "region_locations", safety |_s| Idempotent,
        check |_c| none(),
        send region_locations;
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

// The operations that borrow nothing, written out (the table's structs all borrow their
// arguments).

/// Every namespace.
pub(crate) struct ListNamespaces;

impl Operation for ListNamespaces {
    type Output = Vec<String>;
    const NAME: &'static str = "list_namespaces";

    fn safety(&self) -> Safety {
        Idempotent
    }

    fn send<'a>(&'a self, backend: &'a dyn Backend) -> BoxFuture<'a, Result<Vec<String>>> {
        backend.list_namespaces(self)
    }
}

/// A scanner released.
pub(crate) struct CloseScanner {
    pub(crate) id: i32,
}

impl Operation for CloseScanner {
    type Output = ();
    const NAME: &'static str = "closeScanner";

    fn safety(&self) -> Safety {
        Idempotent
    }

    fn send<'a>(&'a self, backend: &'a dyn Backend) -> BoxFuture<'a, Result<()>> {
        backend.close_scanner(self)
    }
}

/// Whether the store still holds a scanner.
pub(crate) struct ScannerIsOpen {
    pub(crate) id: i32,
}

impl Operation for ScannerIsOpen {
    type Output = bool;
    const NAME: &'static str = "scanner_is_open";

    fn safety(&self) -> Safety {
        Idempotent
    }

    fn send<'a>(&'a self, backend: &'a dyn Backend) -> BoxFuture<'a, Result<bool>> {
        backend.scanner_is_open(self)
    }
}

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

/// A new table needs a valid name, a family, and no empty split key.
fn check_new_table(table: &TableDescriptor, split_keys: &[Vec<u8>]) -> Result<()> {
    table.name.check()?;
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
