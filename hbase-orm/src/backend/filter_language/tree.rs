//! The syntax tree: what a filter text says, as plain data.

use crate::model::{CompareOp, Error};

/// A compare operator as written (`<`, `<=`, `=`, `!=`, `>=`, `>`). A filter keeps what
/// satisfies *stored OP given* (the reverse of [`CompareOp`]'s reading in a check-and-mutate,
/// which is *given OP stored*).
pub(crate) type Op = CompareOp;

/// A parsed expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Expr {
    /// One filter call.
    Call(Call),
    /// `a AND b AND ...`: a run of `AND`s at one level, two operands or more (HBase's
    /// `FilterList` with `MUST_PASS_ALL`).
    And(Vec<Expr>),
    /// `a OR b OR ...`: a run of `OR`s at one level, two operands or more (`MUST_PASS_ONE`).
    Or(Vec<Expr>),
    /// `SKIP f` (HBase's `SkipFilter`).
    Skip(Box<Expr>),
    /// `WHILE f` (HBase's `WhileMatchFilter`).
    While(Box<Expr>),
}

/// One filter call, its arguments checked and typed as HBase's `ParseFilter` reads them.
/// Integers are not negative and fit an `i64`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Call {
    /// `PrefixFilter('p')`.
    Prefix(Vec<u8>),
    /// `ColumnPrefixFilter('p')`.
    ColumnPrefix(Vec<u8>),
    /// `MultipleColumnPrefixFilter('p', ...)`: at least one prefix, in the order written.
    MultipleColumnPrefix(Vec<Vec<u8>>),
    /// `ColumnRangeFilter('min', minInclusive, 'max', maxInclusive)`; an empty bound (`''`)
    /// is no bound, as in HBase.
    ColumnRange {
        /// Lower qualifier bound.
        min: Option<Vec<u8>>,
        /// Whether `min` itself is in.
        min_inclusive: bool,
        /// Upper qualifier bound.
        max: Option<Vec<u8>>,
        /// Whether `max` itself is in.
        max_inclusive: bool,
    },
    /// `ColumnPaginationFilter(limit, offset)`.
    ColumnPagination {
        /// Columns returned.
        limit: u64,
        /// Columns passed over first.
        offset: u64,
    },
    /// `ColumnCountGetFilter(limit)`.
    ColumnCountGet(u64),
    /// `SingleColumnValueFilter('f', 'q', op, 'comparator'[, filterIfMissing,
    /// latestVersionOnly])`, or `SingleColumnValueExcludeFilter` with the same arguments.
    SingleColumnValue {
        /// Tested column's family.
        family: Vec<u8>,
        /// Tested column's qualifier.
        qualifier: Vec<u8>,
        /// Operator.
        op: Op,
        /// Comparator.
        comparator: Comparator,
        /// A row without the column is dropped (`false` when not written, as in HBase).
        filter_if_missing: bool,
        /// Only the newest version is tested (`true` when not written, as in HBase).
        latest_version_only: bool,
        /// `SingleColumnValueExcludeFilter`: the tested column is left out of kept rows.
        exclude: bool,
    },
    /// `KeyOnlyFilter([lenAsValue])` (`false` when not written).
    KeyOnly(bool),
    /// `FirstKeyOnlyFilter()`.
    FirstKeyOnly,
    /// `PageFilter(size)`.
    Page(u64),
    /// `ValueFilter(op, 'comparator')`.
    Value(Op, Comparator),
    /// `QualifierFilter(op, 'comparator')`.
    Qualifier(Op, Comparator),
    /// `FamilyFilter(op, 'comparator')`.
    Family(Op, Comparator),
    /// `RowFilter(op, 'comparator')`.
    Row(Op, Comparator),
    /// `InclusiveStopFilter('k')`.
    InclusiveStop(Vec<u8>),
    /// `TimestampsFilter(t, ...)`: in the order written, possibly none.
    Timestamps(Vec<u64>),
    /// `DependentColumnFilter('f', 'q'[, dropDependentColumn[, op, 'comparator']])`.
    DependentColumn {
        /// The reference column's family.
        family: Vec<u8>,
        /// The reference column's qualifier.
        qualifier: Vec<u8>,
        /// The reference column is left out of the result (`false` when not written).
        drop_dependent_column: bool,
        /// The test on the reference column's values, when written (HBase's `NO_OP` and no
        /// comparator otherwise).
        value_test: Option<(Op, Comparator)>,
    },
    /// A filter the language registers (or that HBase has under that name) that this module
    /// does not parse: its arguments are only checked to be well formed. A backend says why
    /// it cannot run it.
    Unparsed(&'static str),
}

impl Call {
    /// The filter's name as written, which is HBase's class name without the package.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Call::Prefix(_) => "PrefixFilter",
            Call::ColumnPrefix(_) => "ColumnPrefixFilter",
            Call::MultipleColumnPrefix(_) => "MultipleColumnPrefixFilter",
            Call::ColumnRange { .. } => "ColumnRangeFilter",
            Call::ColumnPagination { .. } => "ColumnPaginationFilter",
            Call::ColumnCountGet(_) => "ColumnCountGetFilter",
            Call::SingleColumnValue { exclude: false, .. } => "SingleColumnValueFilter",
            Call::SingleColumnValue { exclude: true, .. } => "SingleColumnValueExcludeFilter",
            Call::KeyOnly(_) => "KeyOnlyFilter",
            Call::FirstKeyOnly => "FirstKeyOnlyFilter",
            Call::Page(_) => "PageFilter",
            Call::Value(..) => "ValueFilter",
            Call::Qualifier(..) => "QualifierFilter",
            Call::Family(..) => "FamilyFilter",
            Call::Row(..) => "RowFilter",
            Call::InclusiveStop(_) => "InclusiveStopFilter",
            Call::Timestamps(_) => "TimestampsFilter",
            Call::DependentColumn { .. } => "DependentColumnFilter",
            Call::Unparsed(name) => name,
        }
    }
}

/// A `'type:value'` comparator argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Comparator {
    /// The type before the first colon.
    pub(crate) kind: ComparatorKind,
    /// The bytes after it, as written (a `substring:` value is not yet lower-cased, a
    /// `regexstring:` one not yet checked to be a pattern).
    pub(crate) value: Vec<u8>,
    /// The byte offset of the quoted argument in the text.
    pub(crate) at: usize,
    /// Which argument of its filter it is, counting from 1.
    pub(crate) argument: usize,
}

impl Comparator {
    /// An [`Error::IllegalArgument`] about this comparator of the filter `filter` in `text`,
    /// worded as the parser words its own (for what a backend checks later, such as whether
    /// the pattern compiles).
    #[cfg_attr(not(feature = "memory"), allow(dead_code))] // the in-memory store's
    pub(crate) fn error(&self, text: &[u8], filter: &str, why: &str) -> Error {
        super::lex::argument_error(text, self.at, self.argument, filter, why)
    }
}

/// The comparator types of the language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ComparatorKind {
    /// `binary:` — the whole bytes, lexicographically (HBase's `BinaryComparator`).
    Binary,
    /// `binaryprefix:` — the stored bytes cut to the given length (`BinaryPrefixComparator`).
    BinaryPrefix,
    /// `regexstring:` — a regular expression found in the stored bytes read as text
    /// (`RegexStringComparator`); only with `=` or `!=`, except in `DependentColumnFilter`,
    /// where HBase does not check.
    RegexString,
    /// `substring:` — the given text found in the stored text, ignoring case
    /// (`SubstringComparator`); operators as for `regexstring:`.
    Substring,
}
