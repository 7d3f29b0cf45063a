//! The one error type of the crate.

use std::time::Duration;

use super::keys::RowKeys;

/// Everything that can go wrong talking to HBase, as variants a caller can act on.
///
/// Match on the variant to decide what to do: [`Error::Connect`] and [`Error::Timeout`] are
/// worth a retry later, [`Error::TableNotFound`] asks for the table to be created,
/// [`Error::IllegalArgument`] is a bug in the request. New variants may be added, so keep a
/// wildcard arm.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No TCP connection to the gateway (or, for the native backend, to ZooKeeper or a server
    /// of the cluster) could be opened.
    #[error("cannot connect to HBase at {address}: {source}")]
    Connect {
        /// The `host:port` that was dialed.
        address: String,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },

    /// An operation did not finish in time; the connection it used is discarded.
    #[error("{operation} timed out after {after:?}")]
    Timeout {
        /// What was being done: `connect`, `pool wait` or a Thrift method name.
        operation: &'static str,
        /// The limit that was exceeded.
        after: Duration,
    },

    /// HBase reported an I/O error (`TIOError`); `message` is HBase's own text.
    #[error("HBase error in {method}: {message}")]
    Server {
        /// The Thrift method that failed.
        method: &'static str,
        /// HBase's message, usually naming the Java exception.
        message: String,
        /// Whether HBase says retrying may succeed.
        can_retry: bool,
    },

    /// HBase rejected an argument (`TIllegalArgument`, or a request the client refuses to
    /// send, such as an empty row key). Also returned for a scanner that expired on the server.
    #[error("illegal argument: {message}")]
    IllegalArgument {
        /// What was wrong.
        message: String,
    },

    /// The table does not exist. Its message says what creates it: `Admin::ensure::<T>()`
    /// makes the tables an entity declares, `Admin::ensure_on::<T>(table)` those of an entity
    /// stored in another table (`Repository::on_table`), `Admin::create_table` any table.
    #[error(
        "table {table} not found: create it first (Admin::ensure::<T>() makes the tables entity \
         T declares, Admin::ensure_on::<T>(table) those of T stored in another table, \
         Admin::create_table any table)"
    )]
    TableNotFound {
        /// The table's full name, `namespace:table`.
        table: String,
    },

    /// The namespace does not exist.
    #[error(
        "namespace {namespace} not found: create it first (Admin::ensure::<T>() creates an \
         entity's namespace with its tables, Admin::create_namespace any namespace)"
    )]
    NamespaceNotFound {
        /// The namespace's name.
        namespace: String,
    },

    /// A table or namespace to be created exists already.
    #[error("already exists: {what}")]
    AlreadyExists {
        /// HBase's description of what exists (it names the table or namespace).
        what: String,
    },

    /// The gateway at the address speaks the other Thrift service than the client was asked
    /// to: connect with the URL the message gives (`thrift1://` or `thrift2://`).
    #[error(
        "the gateway at {address} is a Thrift{found} server, not Thrift{expected}; \
         connect with \"thrift{found}://{address}\""
    )]
    WrongGateway {
        /// The address that answered.
        address: String,
        /// The server type it reported (1 for the Thrift1 gateway, 2 for Thrift2).
        found: i32,
        /// The server type the client expected.
        expected: i32,
    },

    /// A call kept failing for reasons that may pass (the gateway unreachable, a broken
    /// connection) until the retry deadline ([`crate::Config::retry_deadline`]).
    #[error("{operation} failed {attempts} times in {elapsed:?}; the last time: {source}")]
    Retried {
        /// The call.
        operation: &'static str,
        /// How many times it was sent (or tried to be).
        attempts: u32,
        /// From the first attempt to giving up.
        elapsed: Duration,
        /// The last attempt's error.
        source: Box<Error>,
    },

    /// The backend cannot do this operation (the Thrift1 gateway has no namespaces, say):
    /// nothing was sent or changed.
    #[error("{operation} is not supported by the {backend} backend: {why}")]
    Unsupported {
        /// What was asked.
        operation: String,
        /// The backend (`thrift1`, `thrift2`, `memory`).
        backend: &'static str,
        /// Why, and what to use instead where there is something.
        why: String,
    },

    /// TLS with a gateway behind HTTPS failed; `step` says where (loading the trusted
    /// certificates, the handshake, checking the gateway's certificate). Nothing secret is in
    /// the message.
    #[error("TLS with the gateway at {address} failed while {step}: {message}")]
    Tls {
        /// The gateway's `host:port`.
        address: String,
        /// What was being done.
        step: &'static str,
        /// Why, and what to change.
        message: String,
    },

    /// Kerberos authentication failed before any call was made: no credentials (no ticket in
    /// the cache, no client keytab), a server principal the KDC does not know, a SASL
    /// handshake the gateway or HBase server refused, or a protection ([`crate::Qop`]) it does
    /// not offer. `step` says which.
    #[error("Kerberos authentication to the server at {address} failed while {step}: {message}")]
    Kerberos {
        /// The `host:port` of the gateway, region server or master (or the NameNode a secure
        /// bulk load asks for a delegation token).
        address: String,
        /// What was being done.
        step: &'static str,
        /// Why (the GSSAPI library's words, or the server's).
        message: String,
    },

    /// A server wants credentials it did not get or did not accept: a gateway behind HTTP
    /// (HTTP 401), or a secured HBase server reached by the native backend without Kerberos.
    /// `challenge` is what it asks for (a gateway's `WWW-Authenticate`, e.g. `Negotiate` for
    /// Kerberos, `Basic realm=...`).
    #[error(
        "the server at {address} refused {method} without valid credentials{}: {message}",
        challenge.as_deref().map(|c| format!(" (it asks for {c})")).unwrap_or_default()
    )]
    Unauthenticated {
        /// The server's `host:port`.
        address: String,
        /// The Thrift method refused (`the connection` when a native connection was refused).
        method: &'static str,
        /// What the server asks for: a gateway's `WWW-Authenticate` header, if any.
        challenge: Option<String>,
        /// The server's own words (an excerpt of its answer).
        message: String,
    },

    /// HBase refused the call for permission (`AccessDeniedException`): its `AccessController`
    /// found that the user lacks the action on the scope (the cluster, a namespace, a table, a
    /// family or a column), or its `VisibilityController` that the user may not manage labels
    /// or authorizations. Never retried: grant the permission
    /// ([`Admin::grant`](crate::Admin::grant)) or call as a user who has it. `denial` is what
    /// HBase named; a batch whose rows were denied says so in [`Error::PartialBatch`], its
    /// `source` this variant.
    ///
    /// ```
    /// # fn demo(e: hbase_orm::Error) {
    /// match e {
    ///     hbase_orm::Error::AccessDenied { denial, .. } => {
    ///         eprintln!("{:?} may not {:?} on {:?}", denial.user, denial.action, denial.scope)
    ///     }
    ///     other => eprintln!("{other}"),
    /// }
    /// # }
    /// ```
    #[error("HBase denied {method} for permission {denial}")]
    AccessDenied {
        /// The call refused.
        method: &'static str,
        /// What HBase named: the user, the action, the scope, its words.
        denial: Box<super::denial::Denial>,
    },

    /// A gateway behind HTTP knows who is calling but does not let them (HTTP 403; or a
    /// `doAs` user the gateway's proxy-user rules do not allow, which HBase's gateway answers
    /// with a 500 naming the refusal).
    #[error("the gateway at {address} forbade {method} (HTTP {status}): {message}")]
    Forbidden {
        /// The gateway's `host:port`.
        address: String,
        /// The status it answered with.
        status: u16,
        /// The Thrift method refused.
        method: &'static str,
        /// The gateway's own words (an excerpt of its answer).
        message: String,
    },

    /// A gateway behind HTTP answered with another status than 200 (and not 401 or 403): a
    /// server error (5xx), a wrong path (404), a proxy in front of it that failed (502-504).
    #[error("the gateway at {address} answered {method} with HTTP {status}: {message}")]
    HttpStatus {
        /// The gateway's `host:port`.
        address: String,
        /// The Thrift method in flight.
        method: &'static str,
        /// The status code.
        status: u16,
        /// The gateway's own words (an excerpt of its answer).
        message: String,
    },

    /// The connection broke mid-call (reset, closed by the server).
    #[error("connection to the gateway failed during {method}: {source}")]
    Transport {
        /// The Thrift method in flight.
        method: &'static str,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },

    /// The gateway sent bytes that are not a valid reply (wrong transport or protocol chosen,
    /// a reply too large, or an application exception such as an unknown method).
    #[error("protocol error in {method}: {message}")]
    Protocol {
        /// The Thrift method in flight.
        method: &'static str,
        /// What did not fit.
        message: String,
    },

    /// Part of a batch failed; the rows listed were not written or deleted.
    #[error("{operation}: {} of {total} rows failed ({failed_rows}): {source}", failed_rows.len())]
    PartialBatch {
        /// The batch operation.
        operation: &'static str,
        /// How many rows the batch had.
        total: usize,
        /// Keys of the rows that were not applied (all of them; `Debug` and `Display` print
        /// the first few as HBase prints keys, then how many more).
        failed_rows: RowKeys,
        /// The first error seen.
        #[source]
        source: Box<Error>,
    },

    /// A bulk load that did not finish. A region takes all of its files or none: the rows of
    /// the ranges in `loaded` are in the table; `not_loaded` are the ranges the load was
    /// writing when it stopped, whose rows outside `loaded` were not loaded (or, for a region
    /// whose call failed on the way, may not have been: loading them again is harmless, the
    /// same cells with the same timestamps).
    #[error(
        "bulk load into {table}: {} row ranges loaded, {} left: {source}",
        loaded.len(),
        not_loaded.len()
    )]
    BulkLoad {
        /// The table loaded into.
        table: String,
        /// First and last row of each region's share that was loaded.
        loaded: Vec<(Vec<u8>, Vec<u8>)>,
        /// First and last row of each range the load was writing when it stopped.
        not_loaded: Vec<(Vec<u8>, Vec<u8>)>,
        /// Why the load stopped.
        #[source]
        source: Box<Error>,
    },

    /// A bulk load could not write, read or remove its files where they are staged: the
    /// local staging directory (`BulkLoadOptions::staging_dir`) or, for a
    /// cluster that keeps its files in HDFS, the load's directory there. Nothing of the load
    /// it stopped was handed to the region servers after it.
    #[error("bulk load staging at {location} failed: {message}")]
    Staging {
        /// The file or directory (a local path, or an `hdfs://` URL).
        location: String,
        /// What failed, and what to change.
        message: String,
    },

    /// A stored cell or row key does not decode into the entity's field.
    #[error("cannot decode {table} row {row}, {column}: expected {expected}; {reason}")]
    Decode {
        /// The table read.
        table: String,
        /// The row key, printable (see [`crate::printable_key`]).
        row: String,
        /// The column (`family:qualifier`) or row-key part concerned.
        column: String,
        /// What the bytes should have been.
        expected: String,
        /// What was wrong with them.
        reason: String,
    },

    /// A field value cannot be encoded (a text too long for its fixed width, a key part that
    /// contains the key delimiter, a value serde cannot serialize).
    #[error("cannot encode {entity}.{field}: {reason}")]
    Encode {
        /// The entity type.
        entity: &'static str,
        /// The field (or key part).
        field: &'static str,
        /// What was wrong.
        reason: String,
    },

    /// A conditional write found the row other than expected, and wrote nothing: an
    /// [`insert`](crate::Repository::insert) of a key that exists, or a save or delete with a
    /// `#[hbase(version)]` field whose stored version changed since the value was read.
    /// Re-read the row and decide again.
    #[error("conflict on {table} row {row}: {reason}")]
    Conflict {
        /// The table written.
        table: String,
        /// The row key, printable (see [`crate::printable_key`]).
        row: String,
        /// What was found.
        reason: String,
    },

    /// Maintaining one of an entity's secondary index rows failed. A save puts the new index
    /// rows before the data row: when one of those puts fails, the data row was not written
    /// (the stored entity, if any, is as it was, and its index still finds it). When deleting
    /// an old index row fails (after a save or a delete of the data row), the data row was
    /// written (or deleted) and the old index row stays behind until the index is rebuilt
    /// (`Repository::rebuild_index`). Either way no saved entity is missing from its index,
    /// and readers of the index never return an entity through a row left behind.
    #[error("index {index} ({table}), row {row}: {source}")]
    IndexWrite {
        /// The index name.
        index: &'static str,
        /// The index table.
        table: String,
        /// The index row key, printable.
        row: String,
        /// What failed.
        #[source]
        source: Box<Error>,
    },

    /// The client configuration or a URL is invalid.
    #[error("invalid configuration: {0}")]
    Config(String),
}

/// Collects the failures of a batch sent in parts, into one [`Error::PartialBatch`].
#[derive(Debug)]
pub(crate) struct BatchFailures {
    operation: &'static str,
    total: usize,
    failed_rows: Vec<Vec<u8>>,
    first: Option<Error>,
}

impl BatchFailures {
    /// A batch of `total` rows.
    pub(crate) fn new(operation: &'static str, total: usize) -> Self {
        BatchFailures {
            operation,
            total,
            failed_rows: Vec::new(),
            first: None,
        }
    }

    /// Records that `rows` failed with `error`; a nested partial batch contributes its own
    /// failed rows.
    pub(crate) fn record(&mut self, rows: Vec<Vec<u8>>, error: Error) {
        match error {
            Error::PartialBatch {
                failed_rows,
                source,
                ..
            } => {
                self.failed_rows.extend(failed_rows.into_vec());
                self.first.get_or_insert(*source);
            }
            other => {
                self.failed_rows.extend(rows);
                self.first.get_or_insert(other);
            }
        }
    }

    /// `Ok` if nothing failed, else the partial-batch error.
    pub(crate) fn finish(self) -> Result<()> {
        match self.first {
            None => Ok(()),
            Some(source) => Err(Error::PartialBatch {
                operation: self.operation,
                total: self.total,
                failed_rows: RowKeys(self.failed_rows),
                source: Box::new(source),
            }),
        }
    }
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Classifies a `TIOError` by the Java exception HBase names in its message.
    // The remote backends' (gateways and native).
    #[cfg_attr(
        not(any(feature = "thrift2", feature = "thrift1", feature = "native")),
        allow(dead_code)
    )]
    pub(crate) fn from_server(method: &'static str, message: String, can_retry: bool) -> Error {
        // The name after the exception's class, skipping the class repeated when a gateway
        // wraps the exception in itself ("...NotFoundException: ...NotFoundException: name").
        let after = |marker: &str| -> Option<String> {
            let mut from = 0;
            while let Some(i) = message[from..].find(marker) {
                let start = from + i + marker.len();
                let rest = message[start..].trim_start_matches([':', ' ']);
                let name: String = rest.chars().take_while(|c| !c.is_whitespace()).collect();
                if !name.is_empty() && !name.contains("Exception") {
                    return Some(name);
                }
                from = start;
            }
            None
        };
        if let Some(denial) = super::denial::denial(&message) {
            return Error::AccessDenied {
                method,
                denial: Box::new(denial),
            };
        }
        if let Some(table) = after("TableNotFoundException") {
            return Error::TableNotFound { table };
        }
        if let Some(namespace) = after("NamespaceNotFoundException") {
            return Error::NamespaceNotFound { namespace };
        }
        for marker in ["TableExistsException", "NamespaceExistException"] {
            if let Some(i) = message.find(marker) {
                let what = message[i + marker.len()..].trim_start_matches([':', ' ']);
                let what = what.lines().next().unwrap_or_default().trim().to_string();
                return Error::AlreadyExists { what };
            }
        }
        Error::Server {
            method,
            message,
            can_retry,
        }
    }

    /// The variant's name in snake case (`connect`, `timeout`, `server`, ...): the `outcome`
    /// and `cause` labels of the client's metrics (see [`crate::observe`]).
    ///
    /// ```
    /// let e = hbase_orm::Error::Config("bad".into());
    /// assert_eq!(e.kind(), "config");
    /// ```
    pub fn kind(&self) -> &'static str {
        match self {
            Error::Connect { .. } => "connect",
            Error::Timeout { .. } => "timeout",
            Error::Server { .. } => "server",
            Error::IllegalArgument { .. } => "illegal_argument",
            Error::TableNotFound { .. } => "table_not_found",
            Error::NamespaceNotFound { .. } => "namespace_not_found",
            Error::AlreadyExists { .. } => "already_exists",
            Error::WrongGateway { .. } => "wrong_gateway",
            Error::Retried { .. } => "retried",
            Error::Unsupported { .. } => "unsupported",
            Error::Tls { .. } => "tls",
            Error::Kerberos { .. } => "kerberos",
            Error::Unauthenticated { .. } => "unauthenticated",
            Error::Forbidden { .. } => "forbidden",
            Error::AccessDenied { .. } => "access_denied",
            Error::HttpStatus { .. } => "http_status",
            Error::Transport { .. } => "transport",
            Error::Protocol { .. } => "protocol",
            Error::PartialBatch { .. } => "partial_batch",
            Error::BulkLoad { .. } => "bulk_load",
            Error::Staging { .. } => "staging",
            Error::Decode { .. } => "decode",
            Error::Encode { .. } => "encode",
            Error::Conflict { .. } => "conflict",
            Error::IndexWrite { .. } => "index_write",
            Error::Config(_) => "config",
        }
    }

    /// Whether the error means the request never reached HBase or may be retried safely.
    pub fn is_retryable(&self) -> bool {
        match self {
            Error::Connect { .. } | Error::Timeout { .. } => true,
            Error::Server { can_retry, .. } => *can_retry,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_hbase_exceptions_by_message() {
        let e = Error::from_server(
            "get",
            "org.apache.hadoop.hbase.TableNotFoundException: ns:orders\n\tat ...".into(),
            false,
        );
        assert!(matches!(e, Error::TableNotFound { ref table } if table == "ns:orders"));
        // The Thrift1 gateway repeats the class before the name.
        let e = Error::from_server(
            "createTable",
            "org.apache.hadoop.hbase.NamespaceNotFoundException: \
             org.apache.hadoop.hbase.NamespaceNotFoundException: shop\n\tat ..."
                .into(),
            false,
        );
        assert!(matches!(e, Error::NamespaceNotFound { ref namespace } if namespace == "shop"));
        let e = Error::from_server(
            "createNamespace",
            "org.apache.hadoop.hbase.NamespaceExistException: Namespace shop already exists".into(),
            false,
        );
        assert!(
            matches!(e, Error::AlreadyExists { ref what } if what == "Namespace shop already exists")
        );
        let e = Error::from_server("put", "something else".into(), true);
        assert!(matches!(
            e,
            Error::Server {
                can_retry: true,
                ..
            }
        ));
        assert!(e.is_retryable());
        // A refusal for permission, never retried (HBase marks it so; checked all the same).
        let e = Error::from_server(
            "put",
            "org.apache.hadoop.hbase.security.AccessDeniedException: Insufficient permissions \
             (user=alice@EXAMPLE.COM, scope=default:t, family=d, params=[table=default:t,family=d],\
             action=WRITE)\n\tat ..."
                .into(),
            true,
        );
        assert!(!e.is_retryable());
        assert_eq!(e.kind(), "access_denied");
        assert!(matches!(
            &e,
            Error::AccessDenied { denial, .. } if denial.action == Some(crate::model::Action::Write)
        ));
        assert_eq!(
            e.to_string(),
            "HBase denied put for permission (user alice@EXAMPLE.COM, action WRITE, on \
             default:t, family d): Insufficient permissions (user=alice@EXAMPLE.COM, \
             scope=default:t, family=d, params=[table=default:t,family=d],action=WRITE)"
        );
    }

    /// A batch of 72 failed rows prints its keys as HBase prints them, a few of them, and how
    /// many more: not 72 arrays of numbers.
    #[test]
    fn a_partial_batch_prints_a_few_keys_as_hbase_prints_them() {
        let mut failures = BatchFailures::new("save_all", 100);
        let keys: Vec<Vec<u8>> = (0..72u8).map(|i| vec![b'o', b'-', 0, i]).collect();
        failures.record(
            keys.clone(),
            Error::Protocol {
                method: "Multi",
                message: "broken".into(),
            },
        );
        let err = failures.finish().unwrap_err();
        let debug = format!("{err:?}");
        assert!(
            debug.contains(r#"failed_rows: ["o-\x00\x00", "o-\x00\x01""#),
            "{debug}"
        );
        assert!(debug.contains(", ...and 64 more]"), "{debug}");
        assert!(debug.len() < 400, "{} characters: {debug}", debug.len());
        let text = err.to_string();
        assert!(
            text.starts_with(r"save_all: 72 of 100 rows failed (o-\x00\x00, o-\x00\x01, o-\x00\x02, ...and 69 more): "),
            "{text}"
        );
        let Error::PartialBatch { failed_rows, .. } = err else {
            unreachable!()
        };
        assert_eq!(failed_rows, keys, "every key is kept");
    }
}
