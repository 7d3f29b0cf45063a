//! Protocol-neutral requests and results: what the client sends and what HBase answers.
//!
//! These types know nothing of Thrift; the wire module translates them. Row keys, families,
//! qualifiers and values are raw bytes (`Vec<u8>`), as HBase stores them. Builders take
//! anything that converts into bytes (`&str`, `String`, `&[u8]`, `Vec<u8>`, byte arrays).

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

        /// Reads up to `n` versions per column.
        pub fn max_versions(mut self, n: i32) -> Self {
            self.max_versions = Some(n);
            self
        }

        /// Applies a server-side filter (HBase filter language). The filter is bytes: quoted
        /// arguments may hold any bytes (a `'` doubled), see [`filter_literal`].
        pub fn filter(mut self, filter: impl Into<Vec<u8>>) -> Self {
            self.filter = Some(filter.into());
            self
        }
    };
}

/// One stored value: a cell at `family:qualifier` with its version timestamp (milliseconds).
///
/// Its bytes are [`Bytes`](bytes::Bytes): the cells read from a Thrift2 gateway share the
/// buffer the reply arrived in instead of a copy each, the cells of a scan page from another
/// backend share one buffer of that page, and a clone shares them too. They read as `&[u8]`
/// (`&cell.value[..]`, `cell.value.as_ref()`), compare with byte slices and vectors, and convert
/// from a `Vec<u8>` without a copy (`Bytes::from(vec)`). A cell keeps the buffer it came in
/// alive (all of a scan page's bytes; a small reply, such as a get's, is its own buffer): to
/// keep a few small values of many pages for long, copy them (`cell.value.to_vec()`).
///
/// ```
/// use hbase_orm::{Bytes, Cell};
/// let cell = Cell {
///     family: Bytes::from_static(b"d"),
///     qualifier: Bytes::from_static(b"city"),
///     value: Bytes::from(b"Oslo".to_vec()),
///     timestamp: 1,
/// };
/// assert_eq!(cell.value, b"Oslo"[..]);
/// assert_eq!(std::str::from_utf8(&cell.value).unwrap(), "Oslo");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    /// Column family.
    pub family: bytes::Bytes,
    /// Column qualifier.
    pub qualifier: bytes::Bytes,
    /// The stored bytes.
    pub value: bytes::Bytes,
    /// Version timestamp in milliseconds since the epoch.
    pub timestamp: i64,
}

/// A row as HBase returns it: its key and its cells, sorted by family, qualifier and then
/// newest version first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Row {
    /// The row key.
    pub key: Vec<u8>,
    /// The cells read, in HBase's order.
    pub cells: Vec<Cell>,
}

impl Row {
    /// A row with its key and no cells.
    pub fn empty(key: Vec<u8>) -> Row {
        Row {
            key,
            cells: Vec::new(),
        }
    }

    /// The newest value of `family:qualifier`, if the row has that column.
    pub fn value(&self, family: impl AsRef<[u8]>, qualifier: impl AsRef<[u8]>) -> Option<&[u8]> {
        self.versions(family, qualifier)
            .next()
            .map(|c| c.value.as_ref())
    }

    /// Every version read of `family:qualifier`, newest first.
    pub fn versions(
        &self,
        family: impl AsRef<[u8]>,
        qualifier: impl AsRef<[u8]>,
    ) -> impl Iterator<Item = &Cell> {
        self.cells.iter().filter(move |c| {
            c.family.as_ref() == family.as_ref() && c.qualifier.as_ref() == qualifier.as_ref()
        })
    }

    /// The newest value of a counter column (an 8-byte big-endian integer, as
    /// [`Increment`] writes it). `None` if the column is absent or not 8 bytes long.
    pub fn counter(&self, family: impl AsRef<[u8]>, qualifier: impl AsRef<[u8]>) -> Option<i64> {
        let v: [u8; 8] = self.value(family, qualifier)?.try_into().ok()?;
        Some(i64::from_be_bytes(v))
    }

    /// True when the row has no cells (HBase returns such a row for a missing key).
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }
}

/// Which columns a [`Get`] or [`Scan`] reads: a whole family or one column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    /// Column family.
    pub family: Vec<u8>,
    /// Qualifier; `None` selects the whole family.
    pub qualifier: Option<Vec<u8>>,
}

/// A half-open range of version timestamps, `[min, max)`, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeRange {
    /// Smallest timestamp included.
    pub min: i64,
    /// First timestamp excluded.
    pub max: i64,
}

/// How a mutation is written to the write-ahead log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Durability {
    /// The table's default.
    UseDefault,
    /// Skip the WAL: fastest, lost if the region server dies before a flush.
    SkipWal,
    /// Write the WAL asynchronously.
    AsyncWal,
    /// Write the WAL synchronously (HBase's usual default).
    SyncWal,
    /// Write and fsync the WAL.
    FsyncWal,
}

/// One cell to write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PutCell {
    /// Column family.
    pub family: Vec<u8>,
    /// Column qualifier.
    pub qualifier: Vec<u8>,
    /// Value to store.
    pub value: Vec<u8>,
    /// Explicit version timestamp; `None` lets HBase use the put's timestamp or the server time.
    pub timestamp: Option<i64>,
}

/// Writes cells into one row.
///
/// ```
/// use hbase_orm::Put;
/// let put = Put::new("cust-42").column("d", "name", "Ada").column("d", "city", "London");
/// assert_eq!(put.cells.len(), 2);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Put {
    /// The row key.
    pub row: Vec<u8>,
    /// The cells to write.
    pub cells: Vec<PutCell>,
    /// Timestamp for cells that carry none.
    pub timestamp: Option<i64>,
    /// WAL behaviour.
    pub durability: Option<Durability>,
    /// How long the cells live, from their timestamp (a per-cell TTL; the family's own TTL
    /// still applies if shorter). Needs HFile format 3, HBase 2's default.
    pub ttl: Option<std::time::Duration>,
}

impl Put {
    /// A put for `row` with no cells yet.
    pub fn new(row: impl Into<Vec<u8>>) -> Self {
        Put {
            row: row.into(),
            cells: Vec::new(),
            timestamp: None,
            durability: None,
            ttl: None,
        }
    }

    /// Makes the cells expire `ttl` after their timestamp (a per-cell TTL).
    pub fn ttl(mut self, ttl: std::time::Duration) -> Self {
        self.ttl = Some(ttl);
        self
    }

    /// Adds a cell.
    pub fn column(
        mut self,
        family: impl Into<Vec<u8>>,
        qualifier: impl Into<Vec<u8>>,
        value: impl Into<Vec<u8>>,
    ) -> Self {
        self.push(family, qualifier, value, None);
        self
    }

    /// Adds a cell with an explicit version timestamp.
    pub fn column_at(
        mut self,
        family: impl Into<Vec<u8>>,
        qualifier: impl Into<Vec<u8>>,
        timestamp: i64,
        value: impl Into<Vec<u8>>,
    ) -> Self {
        self.push(family, qualifier, value, Some(timestamp));
        self
    }

    /// Adds a cell in place (for loops that build a put).
    pub fn push(
        &mut self,
        family: impl Into<Vec<u8>>,
        qualifier: impl Into<Vec<u8>>,
        value: impl Into<Vec<u8>>,
        timestamp: Option<i64>,
    ) {
        self.cells.push(PutCell {
            family: family.into(),
            qualifier: qualifier.into(),
            value: value.into(),
            timestamp,
        });
    }

    /// Sets the timestamp of every cell that has none.
    pub fn timestamp(mut self, timestamp: i64) -> Self {
        self.timestamp = Some(timestamp);
        self
    }

    /// Sets the WAL behaviour.
    pub fn durability(mut self, durability: Durability) -> Self {
        self.durability = Some(durability);
        self
    }
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

    /// Reads only the version with this timestamp.
    pub fn timestamp(mut self, timestamp: i64) -> Self {
        self.timestamp = Some(timestamp);
        self
    }
}

/// What a [`Delete`] removes inside its row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeleteTarget {
    /// Every version of every column of a family.
    Family(Vec<u8>),
    /// Every version of one column.
    Column(Vec<u8>, Vec<u8>),
    /// The newest version of one column.
    LatestVersion(Vec<u8>, Vec<u8>),
    /// The version of one column with exactly this timestamp.
    Version(Vec<u8>, Vec<u8>, i64),
}

/// The kinds of [`DeleteTarget`] HBase tells apart (its Thrift2 `TDelete` carries one kind for
/// all its columns).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TargetKind {
    /// Whole families.
    Family = 0,
    /// Every version of columns.
    Columns = 1,
    /// One version of columns (a given one or the newest).
    Version = 2,
}

impl DeleteTarget {
    /// Which kind of target this is.
    pub(crate) fn kind(&self) -> TargetKind {
        match self {
            DeleteTarget::Family(_) => TargetKind::Family,
            DeleteTarget::Column(..) => TargetKind::Columns,
            DeleteTarget::LatestVersion(..) | DeleteTarget::Version(..) => TargetKind::Version,
        }
    }
}

/// Deletes a whole row, or some families, columns or versions of it.
///
/// A delete with no targets removes the whole row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delete {
    /// The row key.
    pub row: Vec<u8>,
    /// What to remove; empty removes the whole row.
    pub targets: Vec<DeleteTarget>,
    /// For a whole-row delete: remove only versions at or before this timestamp.
    pub timestamp: Option<i64>,
    /// WAL behaviour.
    pub durability: Option<Durability>,
}

impl Delete {
    /// Deletes the whole row (add targets to narrow it).
    pub fn new(row: impl Into<Vec<u8>>) -> Self {
        Delete {
            row: row.into(),
            targets: Vec::new(),
            timestamp: None,
            durability: None,
        }
    }

    /// Deletes every column of `family`.
    pub fn family(mut self, family: impl Into<Vec<u8>>) -> Self {
        self.targets.push(DeleteTarget::Family(family.into()));
        self
    }

    /// Deletes every version of `family:qualifier`.
    pub fn column(mut self, family: impl Into<Vec<u8>>, qualifier: impl Into<Vec<u8>>) -> Self {
        self.targets
            .push(DeleteTarget::Column(family.into(), qualifier.into()));
        self
    }

    /// Deletes the newest version of `family:qualifier`.
    pub fn latest_version(
        mut self,
        family: impl Into<Vec<u8>>,
        qualifier: impl Into<Vec<u8>>,
    ) -> Self {
        self.targets
            .push(DeleteTarget::LatestVersion(family.into(), qualifier.into()));
        self
    }

    /// Deletes the version of `family:qualifier` written at `timestamp`.
    pub fn version(
        mut self,
        family: impl Into<Vec<u8>>,
        qualifier: impl Into<Vec<u8>>,
        timestamp: i64,
    ) -> Self {
        self.targets.push(DeleteTarget::Version(
            family.into(),
            qualifier.into(),
            timestamp,
        ));
        self
    }

    /// For a whole-row delete: only versions at or before `timestamp`.
    pub fn timestamp(mut self, timestamp: i64) -> Self {
        self.timestamp = Some(timestamp);
        self
    }

    /// Sets the WAL behaviour.
    pub fn durability(mut self, durability: Durability) -> Self {
        self.durability = Some(durability);
        self
    }
}

/// Atomically adds to counter columns (8-byte big-endian integers) of one row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Increment {
    /// The row key.
    pub row: Vec<u8>,
    /// `(family, qualifier, amount)` for each counter.
    pub columns: Vec<(Vec<u8>, Vec<u8>, i64)>,
    /// WAL behaviour.
    pub durability: Option<Durability>,
}

impl Increment {
    /// An increment of `row` with no counters yet.
    pub fn new(row: impl Into<Vec<u8>>) -> Self {
        Increment {
            row: row.into(),
            columns: Vec::new(),
            durability: None,
        }
    }

    /// Adds `amount` (may be negative) to `family:qualifier`.
    pub fn column(
        mut self,
        family: impl Into<Vec<u8>>,
        qualifier: impl Into<Vec<u8>>,
        amount: i64,
    ) -> Self {
        self.columns.push((family.into(), qualifier.into(), amount));
        self
    }
}

/// Atomically appends bytes to the values of columns of one row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Append {
    /// The row key.
    pub row: Vec<u8>,
    /// `(family, qualifier, bytes to append)`.
    pub columns: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)>,
    /// WAL behaviour.
    pub durability: Option<Durability>,
}

impl Append {
    /// An append to `row` with no columns yet.
    pub fn new(row: impl Into<Vec<u8>>) -> Self {
        Append {
            row: row.into(),
            columns: Vec::new(),
            durability: None,
        }
    }

    /// Appends `value` to `family:qualifier` (creating the cell if absent).
    pub fn column(
        mut self,
        family: impl Into<Vec<u8>>,
        qualifier: impl Into<Vec<u8>>,
        value: impl Into<Vec<u8>>,
    ) -> Self {
        self.columns
            .push((family.into(), qualifier.into(), value.into()));
        self
    }
}

/// One step of a [`RowMutations`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mutation {
    /// Write cells.
    Put(Put),
    /// Remove cells.
    Delete(Delete),
}

/// Puts and deletes on one row, applied atomically and in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowMutations {
    /// The row key; every mutation must be for this row.
    pub row: Vec<u8>,
    /// The mutations, in order.
    pub mutations: Vec<Mutation>,
}

impl RowMutations {
    /// No mutations yet on `row`.
    pub fn new(row: impl Into<Vec<u8>>) -> Self {
        RowMutations {
            row: row.into(),
            mutations: Vec::new(),
        }
    }

    /// Adds a put (its row must be this row).
    pub fn put(mut self, put: Put) -> Self {
        self.mutations.push(Mutation::Put(put));
        self
    }

    /// Adds a delete (its row must be this row).
    pub fn delete(mut self, delete: Delete) -> Self {
        self.mutations.push(Mutation::Delete(delete));
        self
    }
}

/// Comparison for [`CheckAndMutate`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareOp {
    /// `<`
    Less,
    /// `<=`
    LessOrEqual,
    /// `==`
    Equal,
    /// `!=`
    NotEqual,
    /// `>=`
    GreaterOrEqual,
    /// `>`
    Greater,
}

/// Applies row mutations only if a cell passes a check, atomically.
///
/// HBase compares bytes lexicographically and reads the operator with the given value on the
/// left: `if_value(.., CompareOp::Less, "3")` passes when the stored value is `"5"` (`3 < 5`).
/// The integration tests pin this reading down.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckAndMutate {
    /// The row to check and mutate.
    pub row: Vec<u8>,
    /// Family of the checked cell.
    pub family: Vec<u8>,
    /// Qualifier of the checked cell.
    pub qualifier: Vec<u8>,
    /// The comparison.
    pub op: CompareOp,
    /// The value to compare with; `None` checks that the cell is absent.
    pub value: Option<Vec<u8>>,
    /// What to do when the check passes.
    pub mutations: RowMutations,
}

impl CheckAndMutate {
    /// Passes when `family:qualifier` has no value.
    pub fn if_absent(
        row: impl Into<Vec<u8>>,
        family: impl Into<Vec<u8>>,
        qualifier: impl Into<Vec<u8>>,
    ) -> Self {
        let row = row.into();
        CheckAndMutate {
            mutations: RowMutations::new(row.clone()),
            row,
            family: family.into(),
            qualifier: qualifier.into(),
            op: CompareOp::Equal,
            value: None,
        }
    }

    /// Passes when `value <op> stored value` holds, byte-wise (HBase's reading of the operator:
    /// `CompareOp::Less` with value `b"3"` passes when the stored value is `b"5"`).
    pub fn if_value(
        row: impl Into<Vec<u8>>,
        family: impl Into<Vec<u8>>,
        qualifier: impl Into<Vec<u8>>,
        op: CompareOp,
        value: impl Into<Vec<u8>>,
    ) -> Self {
        let mut c = Self::if_absent(row, family, qualifier);
        c.op = op;
        c.value = Some(value.into());
        c
    }

    /// Adds a put to apply when the check passes.
    pub fn then_put(mut self, put: Put) -> Self {
        self.mutations.mutations.push(Mutation::Put(put));
        self
    }

    /// Adds a delete to apply when the check passes.
    pub fn then_delete(mut self, delete: Delete) -> Self {
        self.mutations.mutations.push(Mutation::Delete(delete));
        self
    }
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
    /// Stop after this many rows.
    pub limit: Option<usize>,
    /// Newest (largest) key first.
    pub reversed: bool,
    /// Read up to this many of the table's regions at once (see [`Scan::parallel`]).
    pub parallel: Option<usize>,
    /// With `parallel`: rows in the order they arrive instead of key order.
    pub unordered: bool,
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

    /// Rows per round trip.
    pub fn caching(mut self, rows: i32) -> Self {
        self.caching = Some(rows);
        self
    }

    /// Cells per returned row part.
    pub fn batch_size(mut self, cells: i32) -> Self {
        self.batch_size = Some(cells);
        self
    }

    /// At most `n` rows.
    pub fn limit(mut self, n: usize) -> Self {
        self.limit = Some(n);
        self
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

/// The smallest key greater than every key that starts with `prefix`, or `None` when no such key
/// exists (the prefix is empty or all `0xFF`).
pub fn prefix_end(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last != 0xFF {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}

/// A row key as readable text: printable ASCII as is, every other byte as `\xNN` (the form
/// HBase's `Bytes.toStringBinary` uses), so keys in messages can be pasted into the HBase shell.
///
/// ```
/// assert_eq!(hbase_orm::printable_key(b"cust\x00\x2a"), "cust\\x00*");
/// ```
pub fn printable_key(key: &[u8]) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(key.len());
    for &b in key {
        if (0x20..0x7F).contains(&b) && b != b'\\' {
            out.push(b as char);
        } else {
            let _ = write!(out, "\\x{b:02X}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printable_key_escapes_binary_bytes() {
        assert_eq!(printable_key(b"a-1"), "a-1");
        assert_eq!(printable_key(&[0, 0xFF, b'\\']), "\\x00\\xFF\\x5C");
    }

    #[test]
    fn prefix_end_increments_the_last_byte_that_can_grow() {
        assert_eq!(prefix_end(b"ab"), Some(b"ac".to_vec()));
        assert_eq!(prefix_end(&[1, 0xFF]), Some(vec![2]));
        assert_eq!(prefix_end(&[0xFF, 0xFF]), None);
        assert_eq!(prefix_end(b""), None);
    }

    #[test]
    fn row_reads_newest_version_and_counters() {
        let cell = |q: &str, v: &[u8], ts| Cell {
            family: bytes::Bytes::from_static(b"f"),
            qualifier: bytes::Bytes::copy_from_slice(q.as_bytes()),
            value: bytes::Bytes::copy_from_slice(v),
            timestamp: ts,
        };
        let row = Row {
            key: b"r".to_vec(),
            cells: vec![
                cell("a", b"new", 2),
                cell("a", b"old", 1),
                cell("n", &7i64.to_be_bytes(), 1),
            ],
        };
        assert_eq!(row.value("f", "a"), Some(&b"new"[..]));
        assert_eq!(row.versions("f", "a").count(), 2);
        assert_eq!(row.counter("f", "n"), Some(7));
        assert_eq!(row.counter("f", "a"), None);
        assert_eq!(row.value("f", "zz"), None);
    }
}
