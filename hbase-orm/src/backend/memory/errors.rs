//! The errors the store gives, of the variants (and with messages like those) the Thrift2
//! gateway of HBase 2.6 gives for the same mistakes.

use crate::model::{Error, TableName};

/// The table does not exist.
pub(super) fn table_not_found(table: &TableName) -> Error {
    Error::TableNotFound {
        table: table.full_name(),
    }
}

/// The namespace does not exist.
pub(super) fn namespace_not_found(namespace: &str) -> Error {
    Error::NamespaceNotFound {
        namespace: namespace.to_string(),
    }
}

/// An error HBase reports as a `TIOError` naming its Java exception.
pub(super) fn server(method: &'static str, exception: &str, message: String) -> Error {
    Error::Server {
        method,
        message: format!("org.apache.hadoop.hbase.{exception}: {message}"),
        can_retry: false,
    }
}

/// A data call on a disabled table.
pub(super) fn table_disabled(method: &'static str, table: &TableName) -> Error {
    server(
        method,
        "TableNotEnabledException",
        format!("{} is disabled.", table.full_name()),
    )
}

/// An admin call that needs a disabled table got an enabled one.
pub(super) fn table_not_disabled(method: &'static str, table: &TableName) -> Error {
    server(method, "TableNotDisabledException", table.full_name())
}

/// Enabling a table that is enabled.
pub(super) fn table_not_enabled(method: &'static str, table: &TableName) -> Error {
    server(method, "TableNotEnabledException", table.full_name())
}

/// A mutation or read names a family the table does not have.
pub(super) fn no_such_family(method: &'static str, table: &TableName, family: &[u8]) -> Error {
    server(
        method,
        "regionserver.NoSuchColumnFamilyException",
        format!(
            "Column family {} does not exist in table {}",
            String::from_utf8_lossy(family),
            table.full_name()
        ),
    )
}

/// A family operation that does not fit the table's families.
pub(super) fn invalid_family(method: &'static str, message: String) -> Error {
    server(method, "InvalidFamilyOperationException", message)
}

/// An increment of a cell that does not hold an 8-byte counter.
pub(super) fn not_a_counter(
    table: &TableName,
    row: &[u8],
    family: &[u8],
    qualifier: &[u8],
    width: usize,
) -> Error {
    server(
        "increment",
        "DoNotRetryIOException",
        format!(
            "Field is not a long, it's {width} bytes wide (table {}, row {}, column {}:{})",
            table.full_name(),
            crate::model::printable_key(row),
            String::from_utf8_lossy(family),
            String::from_utf8_lossy(qualifier)
        ),
    )
}

/// A split at a key that already starts a region.
pub(super) fn split_at_region_start(table: &TableName, key: &[u8]) -> Error {
    server(
        "split_region",
        "DoNotRetryIOException",
        format!(
            "{}: split row {} is equal to the start key of its region",
            table.full_name(),
            crate::model::printable_key(key)
        ),
    )
}

/// A put with a visibility expression, or a read with authorizations: the store keeps no
/// labels, and does not pretend to (every reader would see every cell).
pub(super) fn no_labels(method: &'static str) -> Error {
    Error::Unsupported {
        operation: method.to_string(),
        backend: "memory",
        why: "the in-memory store keeps no cell visibility labels (a put's visibility, a \
              read's authorizations): use an HBase with its VisibilityController"
            .into(),
    }
}
