//! Writes: [`Put`], [`Delete`], [`Increment`], [`Append`], several of them on one row as
//! [`RowMutations`], and [`CheckAndMutate`] to apply them only if a cell passes a check.

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
    /// Column family (a declared family's name is shared, not copied, by every cell).
    pub family: bytes::Bytes,
    /// Column qualifier (a declared column's name is shared, not copied, by every cell).
    pub qualifier: bytes::Bytes,
    /// Value to store (an entity's values share one buffer per row).
    pub value: bytes::Bytes,
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
    /// The cells' visibility expression (see [`Put::visibility`]).
    pub visibility: Option<String>,
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
            visibility: None,
        }
    }

    optional_setters! {
        /// Makes the cells expire `ttl` after their timestamp (a per-cell TTL).
        ttl: std::time::Duration;
    }

    /// Labels the cells with a visibility expression (on a cluster with HBase's
    /// `VisibilityController`): labels joined by `&` (and), `|` (or), `!` (not) and
    /// parentheses, e.g. `secret|(pii&eu)`. Only readers whose authorizations satisfy it see
    /// the cells ([`Get::authorizations`](crate::Get::authorizations)); HBase refuses labels
    /// it was not given (`Admin::add_labels`). The in-memory store has no labels and refuses
    /// it.
    ///
    /// ```
    /// use hbase_orm::Put;
    /// let put = Put::new("p-1").column("d", "diagnosis", "flu").visibility("medical&!trainee");
    /// assert_eq!(put.visibility.as_deref(), Some("medical&!trainee"));
    /// ```
    pub fn visibility(mut self, expression: impl Into<String>) -> Self {
        self.visibility = Some(expression.into());
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
            family: bytes::Bytes::from(family.into()),
            qualifier: bytes::Bytes::from(qualifier.into()),
            value: bytes::Bytes::from(value.into()),
            timestamp,
        });
    }

    optional_setters! {
        /// Sets the timestamp of every cell that has none.
        timestamp: i64;
        /// Sets the WAL behaviour.
        durability: Durability;
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
    /// The visibility expression of the cells it removes (see [`Delete::visibility`]).
    pub visibility: Option<String>,
}

impl Delete {
    /// Deletes the whole row (add targets to narrow it).
    pub fn new(row: impl Into<Vec<u8>>) -> Self {
        Delete {
            row: row.into(),
            targets: Vec::new(),
            timestamp: None,
            durability: None,
            visibility: None,
        }
    }

    /// Removes only the cells written with this visibility expression (on a cluster with
    /// HBase's `VisibilityController`, a delete without one removes only unlabeled cells):
    /// give it the expression the cells were put with
    /// ([`Put::visibility`](crate::Put::visibility)). A [`Table`](crate::Table) handle with a
    /// visibility gives it to its deletes. The in-memory store refuses it.
    pub fn visibility(mut self, expression: impl Into<String>) -> Self {
        self.visibility = Some(expression.into());
        self
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

    optional_setters! {
        /// For a whole-row delete: only versions at or before `timestamp`.
        timestamp: i64;
        /// Sets the WAL behaviour.
        durability: Durability;
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
