//! Reads: [`Get`] one row, [`Scan`] a range of rows, the [`Column`]s and [`TimeRange`] they
//! select, and [`filter_literal`] and [`single_column_value_filter`] to write the filter
//! language they take.

use crate::model::mutations::CompareOp;

/// The builder methods [`Get`] and [`Scan`] share: which columns, versions and filter to read.
macro_rules! read_options {
    () => {
        /// Reads a whole family.
        pub fn family(mut self, family: impl Into<Vec<u8>>) -> Self {
            self.columns.push(Column {
                family: family.into(),
                qualifier: None,
            });
            self
        }

        /// Reads one column.
        pub fn column(mut self, family: impl Into<Vec<u8>>, qualifier: impl Into<Vec<u8>>) -> Self {
            self.columns.push(Column {
                family: family.into(),
                qualifier: Some(qualifier.into()),
            });
            self
        }

        /// Reads versions with `min <= timestamp < max`.
        pub fn time_range(mut self, min: i64, max: i64) -> Self {
            self.time_range = Some(TimeRange { min, max });
            self
        }

        optional_setters! {
            /// Reads up to `max_versions` versions per column.
            max_versions: i32;
        }

        /// Applies a server-side filter (HBase filter language). The filter is bytes: quoted
        /// arguments may hold any bytes (a `'` doubled), see [`filter_literal`].
        pub fn filter(mut self, filter: impl Into<Vec<u8>>) -> Self {
            self.filter = Some(filter.into());
            self
        }

        /// Reads with this [`Consistency`] (`Timeline`: any region replica may answer).
        pub fn consistency(mut self, consistency: Consistency) -> Self {
            self.consistency = consistency;
            self
        }

        /// Reads with these cell visibility labels (on a cluster with HBase's
        /// `VisibilityController`): a cell written with a visibility expression is read only
        /// when these labels satisfy it, and only those of them the user was given
        /// (`Admin::set_authorizations`) count. Without them (or with an empty list), HBase
        /// reads with all of the user's; a superuser reads every cell. The in-memory store
        /// has no labels and refuses them.
        pub fn authorizations<L: Into<String>>(
            mut self,
            labels: impl IntoIterator<Item = L>,
        ) -> Self {
            self.authorizations = Some(labels.into_iter().map(Into::into).collect());
            self
        }
    };
}

/// Which columns a [`Get`] or [`Scan`] reads: a whole family or one column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    /// Column family.
    pub family: Vec<u8>,
    /// Qualifier; `None` selects the whole family.
    pub qualifier: Option<Vec<u8>>,
}

/// How current a read must be: HBase's read consistency, which matters for a table with
/// region replicas (`#[hbase(region_replication = 3)]`, [`TableDescriptor::region_replication`](crate::TableDescriptor::region_replication)).
///
/// ```
/// use hbase_orm::{Consistency, Get};
/// let get = Get::new("cust-42").consistency(Consistency::Timeline);
/// assert_eq!(get.consistency, Consistency::Timeline);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Consistency {
    /// Only the region's primary replica answers: every write acknowledged before is seen.
    #[default]
    Strong,
    /// The primary is asked first and, when it has not answered within
    /// [`Config::primary_call_timeout`](crate::Config::primary_call_timeout) (10 ms) or has
    /// failed, every secondary replica too; the first answer wins. A secondary's answer may
    /// miss recent writes and says so ([`Row::is_stale`](crate::Row::is_stale)). A scan stays
    /// on the replica that opened its scanner in a region. Native backend only: a gateway
    /// refuses it ([`Error::Unsupported`](crate::Error::Unsupported)) before sending anything;
    /// the in-memory backend has one copy and answers as `Strong`.
    Timeline,
}

/// A half-open range of version timestamps, `[min, max)`, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeRange {
    /// Smallest timestamp included.
    pub min: i64,
    /// First timestamp excluded.
    pub max: i64,
}

/// Reads one row.
///
/// ```
/// use hbase_orm::Get;
/// let get = Get::new("cust-42").column("d", "name").max_versions(3);
/// assert_eq!(get.max_versions, Some(3));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Get {
    /// The row key.
    pub row: Vec<u8>,
    /// Columns to read; empty reads every column.
    pub columns: Vec<Column>,
    /// Read only versions in this range.
    pub time_range: Option<TimeRange>,
    /// Read only the version with exactly this timestamp.
    pub timestamp: Option<i64>,
    /// How many versions per column (HBase's default is 1).
    pub max_versions: Option<i32>,
    /// A filter in HBase's filter language, e.g. `"ValueFilter(=, 'binary:x')"`.
    pub filter: Option<Vec<u8>>,
    /// Strong (the primary replica only, the default) or timeline (any replica).
    pub consistency: Consistency,
    /// The cell visibility labels to read with (see [`Get::authorizations`]).
    pub authorizations: Option<Vec<String>>,
}

impl Get {
    /// A get of every column of `row`.
    pub fn new(row: impl Into<Vec<u8>>) -> Self {
        Get {
            row: row.into(),
            ..Get::default()
        }
    }

    read_options!();

    optional_setters! {
        /// Reads only the version with this timestamp.
        timestamp: i64;
    }
}

/// Reads a range of rows; see [`crate::Table::scan`].
///
/// Bounds are always given in ascending key order, `[start, stop)`, also for reversed scans:
/// the client turns them into HBase's reversed bounds itself.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scan {
    /// First row key included.
    pub start: Option<Vec<u8>>,
    /// First row key excluded.
    pub stop: Option<Vec<u8>>,
    /// Only rows whose key starts with these bytes (combined with start/stop).
    pub prefix: Option<Vec<u8>>,
    /// Columns to read; empty reads every column.
    pub columns: Vec<Column>,
    /// Read only versions in this range.
    pub time_range: Option<TimeRange>,
    /// Versions per column.
    pub max_versions: Option<i32>,
    /// A filter in HBase's filter language.
    pub filter: Option<Vec<u8>>,
    /// Rows fetched per round trip (and the region server's caching). Default 256.
    pub caching: Option<i32>,
    /// At most this many cells per returned row part (for very wide rows).
    pub batch_size: Option<i32>,
    /// At most about this many bytes per reply from a region server (native backend only; a
    /// gateway's replies follow its own settings). Rows still come whole.
    pub max_result_size: Option<u64>,
    /// Stop after this many rows.
    pub limit: Option<usize>,
    /// Newest (largest) key first.
    pub reversed: bool,
    /// Read up to this many of the table's regions at once (see [`Scan::parallel`]).
    pub parallel: Option<usize>,
    /// With `parallel`: rows in the order they arrive instead of key order.
    pub unordered: bool,
    /// Strong (the primary replicas only, the default) or timeline (any replica).
    pub consistency: Consistency,
    /// The cell visibility labels to read with (see [`Scan::authorizations`]).
    pub authorizations: Option<Vec<String>>,
}

impl Scan {
    /// A scan of the whole table.
    pub fn new() -> Self {
        Scan::default()
    }

    /// Starts at `key` (included).
    pub fn start(mut self, key: impl Into<Vec<u8>>) -> Self {
        self.start = Some(key.into());
        self
    }

    /// Stops before `key` (excluded).
    pub fn stop(mut self, key: impl Into<Vec<u8>>) -> Self {
        self.stop = Some(key.into());
        self
    }

    /// Only rows whose key starts with `prefix`.
    pub fn prefix(mut self, prefix: impl Into<Vec<u8>>) -> Self {
        self.prefix = Some(prefix.into());
        self
    }

    read_options!();

    optional_setters! {
        /// Rows per round trip.
        caching: i32;
        /// Cells per returned row part.
        batch_size: i32;
        /// Bytes per reply from a region server, about (the native backend's region servers
        /// stop a reply once it holds this much, between cells of a row if need be; the rows
        /// still come whole). Default 2 MiB. A gateway's replies follow its own settings.
        max_result_size: u64;
        /// At most `limit` rows.
        limit: usize;
    }

    /// Largest key first.
    pub fn reversed(mut self) -> Self {
        self.reversed = true;
        self
    }

    /// Splits the scan at the table's region boundaries and reads up to `regions` of them at
    /// once, each one page ahead of the caller; rows still come in key order (descending if
    /// reversed), and the limit applies to the whole scan. For a table whose regions live on
    /// several region servers this reads at the cluster's speed. A scan of a salted table
    /// ([`crate::Table::scan_salted`]) already reads every bucket at once and ignores this.
    ///
    /// ```no_run
    /// # async fn demo(events: hbase_orm::Table) -> hbase_orm::Result<()> {
    /// use futures::TryStreamExt;
    /// let all: Vec<_> = events.scan(hbase_orm::Scan::new().parallel(4)).try_collect().await?;
    /// # Ok(()) }
    /// ```
    pub fn parallel(mut self, regions: usize) -> Self {
        self.parallel = Some(regions);
        self
    }

    /// [`Scan::parallel`], with rows in the order they arrive from the regions, for work
    /// that does not need key order (counting, aggregating).
    pub fn parallel_unordered(mut self, regions: usize) -> Self {
        self.parallel = Some(regions);
        self.unordered = true;
        self
    }
}

/// `SingleColumnValueFilter('family', 'qualifier', OP, '<comparator>', filter_if_missing,
/// true)` in HBase's filter language: rows whose newest `family:qualifier` cell compares as
/// *stored OP given* with the comparator (`binary:<bytes>`, `binaryprefix:<bytes>`, ...); rows
/// without the cell are dropped with `filter_if_missing`, kept without it. Names and comparator
/// are quoted with [`filter_literal`], so any bytes fit.
///
/// ```
/// use hbase_orm::{single_column_value_filter, CompareOp};
/// let f = single_column_value_filter(b"d", b"city", CompareOp::Equal, b"binary:Paris", true);
/// assert_eq!(f, b"SingleColumnValueFilter('d', 'city', =, 'binary:Paris', true, true)");
/// ```
pub fn single_column_value_filter(
    family: &[u8],
    qualifier: &[u8],
    op: CompareOp,
    comparator: &[u8],
    filter_if_missing: bool,
) -> Vec<u8> {
    let op = match op {
        CompareOp::Less => "<",
        CompareOp::LessOrEqual => "<=",
        CompareOp::Equal => "=",
        CompareOp::NotEqual => "!=",
        CompareOp::GreaterOrEqual => ">=",
        CompareOp::Greater => ">",
    };
    let mut out = b"SingleColumnValueFilter(".to_vec();
    out.extend(filter_literal(family));
    out.extend_from_slice(b", ");
    out.extend(filter_literal(qualifier));
    out.extend_from_slice(format!(", {op}, ").as_bytes());
    out.extend(filter_literal(comparator));
    out.extend_from_slice(format!(", {filter_if_missing}, true)").as_bytes());
    out
}

/// `bytes` as a quoted argument of the HBase filter language: in single quotes, each `'`
/// doubled. Any other byte stands for itself, so binary qualifiers and values fit.
///
/// ```
/// assert_eq!(hbase_orm::filter_literal(b"it's"), b"'it''s'");
/// ```
pub fn filter_literal(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + 2);
    out.push(b'\'');
    for &b in bytes {
        out.push(b);
        if b == b'\'' {
            out.push(b'\'');
        }
    }
    out.push(b'\'');
    out
}
