//! HBase's filter language, parsed and applied to rows held in memory.
//!
//! The text is the one a user gives a scan or get (HBase reference guide, "Thrift API and
//! Filter Language"): filter calls such as `ValueFilter(>=, 'binary:5')`, quoted literals with
//! `''` for a quote, comparators `binary:`, `binaryprefix:`, `regexstring:` and `substring:`,
//! compare operators `<`, `<=`, `=`, `!=`, `>=`, `>`, booleans (any case), integers, and the
//! operators `SKIP` and `WHILE` (tightest), `AND`, then `OR`, with parentheses.
//!
//! The evaluator follows HBase 2.6's region server rather than a set-algebra reading of the
//! text: every filter answers per cell with one of HBase's return codes (include, skip, next
//! column, next row of the family, seek to a qualifier), lists merge those codes as HBase's
//! `FilterList` does, and a row goes through `filterRowKey`, the cells, `filterRowCells`,
//! `filterRow` and `filterAllRemaining` in HBase's order. Behaviour checked against a real
//! HBase 2.6.1 (the tests at the bottom hold what it returned), including its surprises:
//!
//! - comparisons read *stored OP given*: `ValueFilter(>, 'binary:5')` keeps values above `5`;
//! - filters see every version in the time range, and the version limit is applied to the
//!   cells they let through (`ValueFilter(=, 'binary:1')` with one version returns an old
//!   version whose value is `1`): see [`Filter::apply_versions`];
//! - `AND` stops asking its filters about a cell at the first one that does not include it,
//!   so `QualifierFilter(=, 'binary:y') AND SingleColumnValueFilter('d', 'x', ...)` never
//!   shows `d:x` to the second filter, which then takes the column for missing;
//! - `MultipleColumnPrefixFilter('y', 'ya')` drops qualifier `yy` (HBase only tries the
//!   largest prefix not above the qualifier);
//! - a `WHILE` that fails part-way through a row returns the cells of that row before the
//!   failing one, then ends the scan.
//!
//! Modelled: `PrefixFilter`, `ColumnPrefixFilter`, `MultipleColumnPrefixFilter`,
//! `ColumnRangeFilter`, `ColumnPaginationFilter` (limit and integer offset),
//! `SingleColumnValueFilter`, `SingleColumnValueExcludeFilter`, `KeyOnlyFilter`,
//! `FirstKeyOnlyFilter`, `PageFilter`, `ValueFilter`, `QualifierFilter`, `FamilyFilter`,
//! `RowFilter`, `InclusiveStopFilter`, `TimestampsFilter`, `SKIP`, `WHILE`, `AND`, `OR`.
//!
//! Not modelled (parsing them is [`Error::Unsupported`]): `ColumnCountGetFilter` (HBase
//! 2.6.1 was seen counting a second family's column twice), `DependentColumnFilter`,
//! `FirstKeyValueMatchingQualifiersFilter`, `ColumnValueFilter`, `FuzzyRowFilter`,
//! `MultiRowRangeFilter`, `RandomRowFilter` and any other filter HBase registers. Also not
//! modelled: the `long:`/`bitwise` comparators (not in the filter language), and the exact
//! character set of `regexstring:` (Rust's `regex` on bytes, not Java's regex on ISO-8859-1
//! text; both use `find` semantics and `.` matching newlines).

use crate::model::{Cell, CompareOp, Error, Result};

/// A compare operator; a filter keeps what satisfies *stored OP given* (the reverse of
/// [`CompareOp`]'s reading in a check-and-mutate, which is *given OP stored*).
type Op = CompareOp;

/// A parsed filter-language expression.
#[derive(Clone, Debug)]
pub(crate) struct Filter {
    /// The expression tree in its initial state; each scan works on its own copy.
    root: Node,
}

/// What a scan remembers between rows (`PageFilter`'s count, a failed `WHILE`).
#[derive(Clone, Debug, Default)]
pub(crate) struct FilterState {
    /// The scan's copy of the expression tree, with the filters' counters; made on first use.
    tree: Option<Node>,
    /// The scan runs from the largest key down (only `InclusiveStopFilter` cares).
    reversed: bool,
    /// The scan has ended: every later row is [`RowVerdict::Stop`].
    done: bool,
}

impl FilterState {
    /// The state for a reversed scan (largest key first), where `InclusiveStopFilter` stops
    /// once the keys fall below its key. [`FilterState::default`] is for forward scans.
    pub(crate) fn for_reversed_scan() -> FilterState {
        FilterState {
            reversed: true,
            ..FilterState::default()
        }
    }
}

/// What becomes of one row.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum RowVerdict {
    /// The row is returned with these cells (never empty).
    Keep(Vec<Cell>),
    /// The row is left out; the scan goes on.
    Skip,
    /// The row is left out and the scan ends here (a `WHILE` failed, a page is full).
    Stop,
}

impl Filter {
    /// Parses `text`; a filter this store does not model is [`Error::Unsupported`] naming it,
    /// malformed text is [`Error::IllegalArgument`].
    pub(crate) fn parse(text: &[u8]) -> Result<Filter> {
        let tokens = lex(text)?;
        let mut parser = Parser {
            text,
            tokens,
            pos: 0,
        };
        if parser.tokens.is_empty() {
            return Err(parser.error_at(0, "the filter is empty"));
        }
        let root = parser.or_expr()?;
        if let Some(t) = parser.tokens.get(parser.pos) {
            let at = t.at;
            return Err(parser.error_at(
                at,
                &format!("expected AND, OR or the end, found {}", t.kind.describe()),
            ));
        }
        Ok(Filter { root })
    }

    /// Applies the filter to one row: its key and its cells after column selection, time
    /// range and version limits, in HBase's order (family, qualifier ascending, newest first).
    ///
    /// HBase filters a column's versions *before* it counts them against the version limit;
    /// cells cut by the limit beforehand are never seen, so give
    /// [`Filter::apply_versions`] every version in the time range where older versions
    /// exist.
    pub(crate) fn apply(
        &self,
        state: &mut FilterState,
        row: &[u8],
        cells: Vec<Cell>,
    ) -> RowVerdict {
        self.apply_versions(state, row, cells, usize::MAX)
    }

    /// Applies the filter to one row as HBase does: `cells` are the row's cells after column
    /// selection and time range but *before* the version limit, in HBase's order; the filter
    /// sees them all and at most `max_versions` of the cells it lets through are kept per
    /// column (the newest ones).
    pub(crate) fn apply_versions(
        &self,
        state: &mut FilterState,
        row: &[u8],
        cells: Vec<Cell>,
        max_versions: usize,
    ) -> RowVerdict {
        if state.done {
            return RowVerdict::Stop;
        }
        let reversed = state.reversed;
        let tree = state.tree.get_or_insert_with(|| self.root.clone());
        let verdict = run_row(tree, reversed, row, cells, max_versions);
        if verdict == RowVerdict::Stop {
            state.done = true;
        }
        verdict
    }
}

/// One row through HBase's steps: reset, `filterAllRemaining`, `filterRowKey`, each cell
/// (with the skips its return code asks for), `filterRowCells`, `filterRow`.
fn run_row(
    tree: &mut Node,
    reversed: bool,
    row: &[u8],
    cells: Vec<Cell>,
    max_versions: usize,
) -> RowVerdict {
    tree.reset();
    if tree.all_remaining() {
        return RowVerdict::Stop;
    }
    let left_out = |tree: &Node| {
        if tree.all_remaining() {
            RowVerdict::Stop
        } else {
            RowVerdict::Skip
        }
    };
    if tree.row_key(row, reversed) {
        return left_out(tree);
    }
    let mut kept: Vec<Cell> = Vec::new();
    // Versions kept of the current column.
    let mut versions = 0usize;
    let mut skip: Option<SkipTo> = None;
    for cell in cells {
        if let Some(s) = &skip {
            if s.covers(&cell) {
                continue;
            }
        }
        // HBase's matcher ends the scan at the next cell once everything remaining is out.
        if tree.all_remaining() {
            break;
        }
        let code = tree.cell(&cell);
        let include = matches!(
            code,
            Code::Include | Code::IncludeAndNextCol | Code::IncludeAndNextRow
        );
        skip = match code {
            Code::Include | Code::Skip => None,
            Code::IncludeAndNextCol | Code::NextCol => Some(SkipTo::NextColumn(
                cell.family.clone(),
                cell.qualifier.clone(),
            )),
            Code::IncludeAndNextRow | Code::NextRow => {
                Some(SkipTo::NextFamily(cell.family.clone()))
            }
            Code::Seek(ref hint) => Some(SkipTo::Qualifier(cell.family.clone(), hint.clone())),
        };
        if include {
            let same_column = kept
                .last()
                .is_some_and(|k| k.family == cell.family && k.qualifier == cell.qualifier);
            versions = if same_column { versions + 1 } else { 1 };
            if versions <= max_versions {
                kept.push(tree.transform(cell));
            }
        }
    }
    tree.row_cells(&mut kept);
    if kept.is_empty() || tree.row() {
        return left_out(tree);
    }
    RowVerdict::Keep(kept)
}

/// Cells a return code asks the scan to pass over.
enum SkipTo {
    /// The rest of this column's versions.
    NextColumn(Vec<u8>, Vec<u8>),
    /// The rest of this family in the row (HBase's "next row" ends one family's store).
    NextFamily(Vec<u8>),
    /// Cells of this family whose qualifier sorts below the hint.
    Qualifier(Vec<u8>, Vec<u8>),
}

impl SkipTo {
    /// Whether `cell` is passed over.
    fn covers(&self, cell: &Cell) -> bool {
        match self {
            SkipTo::NextColumn(f, q) => cell.family == *f && cell.qualifier == *q,
            SkipTo::NextFamily(f) => cell.family == *f,
            SkipTo::Qualifier(f, q) => cell.family == *f && cell.qualifier < *q,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Return codes, comparators, operators
// ---------------------------------------------------------------------------------------------

/// HBase's `Filter.ReturnCode`, with the seek hint carried along.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Code {
    /// Keep the cell.
    Include,
    /// Keep the cell, pass over the column's other versions.
    IncludeAndNextCol,
    /// Keep the cell, pass over the rest of the family in this row.
    IncludeAndNextRow,
    /// Leave the cell out.
    Skip,
    /// Leave the cell and the column's other versions out.
    NextCol,
    /// Leave out the rest of the family in this row.
    NextRow,
    /// Leave out the cells of this family whose qualifier is below this one.
    Seek(Vec<u8>),
}

impl Code {
    /// Whether the cell is kept.
    fn includes(&self) -> bool {
        matches!(
            self,
            Code::Include | Code::IncludeAndNextCol | Code::IncludeAndNextRow
        )
    }

    /// HBase's order of how far a code moves on (`INCLUDE < SKIP < INCLUDE_AND_NEXT_COL <
    /// NEXT_COL < INCLUDE_AND_SEEK_NEXT_ROW < NEXT_ROW < SEEK_NEXT_USING_HINT`).
    fn step(&self) -> u8 {
        match self {
            Code::Include => 0,
            Code::Skip => 1,
            Code::IncludeAndNextCol => 2,
            Code::NextCol => 3,
            Code::IncludeAndNextRow => 4,
            Code::NextRow => 5,
            Code::Seek(_) => 6,
        }
    }
}

/// `FilterListWithAND`'s merge: the larger step, and "include" only if both include.
fn merge_and(a: Code, b: Code) -> Code {
    if matches!(a, Code::Seek(_)) {
        return a;
    }
    if matches!(b, Code::Seek(_)) {
        return b;
    }
    let include = a.includes() && b.includes();
    // The distance moved is the larger one; whether the cell stays needs both.
    let far = a.step().max(b.step());
    match (far, include) {
        (0, _) => Code::Include,
        (1, _) => Code::Skip,
        (2, true) => Code::IncludeAndNextCol,
        (2, false) | (3, _) => Code::NextCol,
        (4, true) => Code::IncludeAndNextRow,
        _ => Code::NextRow,
    }
}

/// `FilterListWithOR`'s merge: the smaller step, "include" if either includes; a seek
/// merged with anything but a seek is a plain skip.
fn merge_or(a: Code, b: Code) -> Code {
    use Code::*;
    match (a, b) {
        (Seek(x), Seek(y)) => Seek(x.min(y)),
        (Include, _) | (_, Include) => Include,
        (Seek(_), o) | (o, Seek(_)) => {
            if o.includes() {
                Include
            } else {
                Skip
            }
        }
        (Skip, o) | (o, Skip) => {
            if o.includes() {
                Include
            } else {
                Skip
            }
        }
        (IncludeAndNextCol, _) | (_, IncludeAndNextCol) => IncludeAndNextCol,
        (NextCol, IncludeAndNextRow) | (IncludeAndNextRow, NextCol) => IncludeAndNextCol,
        (NextCol, _) | (_, NextCol) => NextCol,
        (IncludeAndNextRow, _) | (_, IncludeAndNextRow) => IncludeAndNextRow,
        (NextRow, NextRow) => NextRow,
    }
}

/// What a cell's (or row's) bytes are compared with.
#[derive(Clone, Debug)]
enum Comparator {
    /// `binary:` — the whole bytes, lexicographically.
    Binary(Vec<u8>),
    /// `binaryprefix:` — the stored bytes cut to the given length.
    BinaryPrefix(Vec<u8>),
    /// `regexstring:` — equal when the pattern is found anywhere (Java's `find()`, not a
    /// whole match; HBase compiles with DOTALL, so `.` matches newlines here too).
    Regex(regex::bytes::Regex),
    /// `substring:` — equal when the stored text contains the given one, ignoring case
    /// (HBase lower-cases both); held lower-cased.
    Substring(Vec<u8>),
}

impl Comparator {
    /// Whether `stored` satisfies *stored OP given*. As in HBase, the comparator yields
    /// `given.compareTo(stored)` (0 or 1 for the matching comparators) and the operator reads
    /// that result the other way round.
    fn keeps(&self, op: Op, stored: &[u8]) -> bool {
        use std::cmp::Ordering;
        let given_vs_stored = match self {
            Comparator::Binary(given) => given.as_slice().cmp(stored),
            Comparator::BinaryPrefix(given) => given
                .as_slice()
                .cmp(&stored[..stored.len().min(given.len())]),
            Comparator::Regex(re) => {
                if re.is_match(stored) {
                    Ordering::Equal
                } else {
                    Ordering::Greater
                }
            }
            Comparator::Substring(needle) => {
                let hay = stored.to_ascii_lowercase();
                let found = needle.is_empty() || hay.windows(needle.len()).any(|w| w == needle);
                if found {
                    Ordering::Equal
                } else {
                    Ordering::Greater
                }
            }
        };
        match op {
            Op::Less => given_vs_stored == Ordering::Greater,
            Op::LessOrEqual => given_vs_stored != Ordering::Less,
            Op::Equal => given_vs_stored == Ordering::Equal,
            Op::NotEqual => given_vs_stored != Ordering::Equal,
            Op::GreaterOrEqual => given_vs_stored != Ordering::Greater,
            Op::Greater => given_vs_stored == Ordering::Less,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The expression tree and its per-scan state
// ---------------------------------------------------------------------------------------------

/// A node of the expression, holding its filters' per-row and per-scan counters.
#[derive(Clone, Debug)]
enum Node {
    /// One filter call.
    Leaf(Leaf),
    /// `a AND b AND ...`; `included[i]`: child `i` included the current cell.
    And {
        /// The operands, in order.
        children: Vec<Node>,
        /// Which children included the current cell (their transforms apply).
        included: Vec<bool>,
    },
    /// `a OR b OR ...`.
    Or {
        /// The operands, in order.
        children: Vec<Node>,
        /// Which children included the current cell (their transforms apply).
        included: Vec<bool>,
        /// Each child's last code and the cell it was for: a child that asked to pass over
        /// a column, family or qualifiers is not asked again about those cells.
        previous: Vec<Option<Previous>>,
    },
    /// `SKIP f`: the row is dropped if `f` does not include one of its cells.
    Skip {
        /// The filter every cell must pass.
        inner: Box<Node>,
        /// A cell of the current row failed.
        failed: bool,
    },
    /// `WHILE f`: the scan ends at the first row, key or cell that `f` rejects.
    While {
        /// The filter that must keep passing.
        inner: Box<Node>,
        /// `f` has failed: nothing more passes.
        done: bool,
    },
}

/// An `OR` child's last code with the family and qualifier of the cell it was for.
type Previous = (Code, Vec<u8>, Vec<u8>);

/// One filter with its arguments and counters.
#[derive(Clone, Debug)]
enum Leaf {
    /// `PrefixFilter('p')`: rows whose key starts with `p`.
    Prefix(Vec<u8>),
    /// `ColumnPrefixFilter('p')`: cells whose qualifier starts with `p`.
    ColumnPrefix(Vec<u8>),
    /// `MultipleColumnPrefixFilter('p', ...)`: prefixes sorted and deduplicated.
    MultipleColumnPrefix(Vec<Vec<u8>>),
    /// `ColumnRangeFilter(min, minInclusive, max, maxInclusive)`; `None` is unbounded.
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
    /// `ColumnPaginationFilter(limit, offset)`: columns `offset..offset + limit` of a row,
    /// newest version only.
    ColumnPagination {
        /// Columns returned.
        limit: u64,
        /// Columns passed over first.
        offset: u64,
        /// Columns seen in the current row.
        count: u64,
    },
    /// `SingleColumnValueFilter` / `SingleColumnValueExcludeFilter`.
    SingleColumnValue {
        /// Tested column's family.
        family: Vec<u8>,
        /// Tested column's qualifier.
        qualifier: Vec<u8>,
        /// Operator.
        op: Op,
        /// Comparator.
        comparator: Comparator,
        /// A row without the column is dropped.
        filter_if_missing: bool,
        /// Only the newest version is tested (else any version may match).
        latest_version_only: bool,
        /// The `Exclude` variant: the tested column is removed from kept rows.
        exclude: bool,
        /// The current row has the column.
        found: bool,
        /// A version of it matched.
        matched: bool,
    },
    /// `KeyOnlyFilter([lenAsValue])`: values emptied, or replaced by their 4-byte length.
    KeyOnly(bool),
    /// `FirstKeyOnlyFilter()`: the row's first cell.
    FirstKeyOnly {
        /// The current row's first cell has gone by.
        seen: bool,
    },
    /// `PageFilter(n)`: at most `n` rows reach the end of filtering.
    Page {
        /// Rows allowed.
        size: i64,
        /// Rows counted so far.
        accepted: i64,
    },
    /// `ValueFilter(op, comparator)`.
    Value(Op, Comparator),
    /// `QualifierFilter(op, comparator)`.
    Qualifier(Op, Comparator),
    /// `FamilyFilter(op, comparator)`.
    Family(Op, Comparator),
    /// `RowFilter(op, comparator)`; `out`: the current row's key failed.
    Row {
        /// Operator.
        op: Op,
        /// Comparator.
        comparator: Comparator,
        /// The current row's key failed.
        out: bool,
    },
    /// `InclusiveStopFilter('k')`: rows up to and including `k`, then the scan ends.
    InclusiveStop {
        /// The last key.
        stop: Vec<u8>,
        /// A key past `stop` was seen.
        done: bool,
    },
    /// `TimestampsFilter(t, ...)`: versions with these timestamps (sorted).
    Timestamps(Vec<i64>),
}

impl Node {
    /// HBase's `reset()`, at the start of each row.
    fn reset(&mut self) {
        match self {
            Node::Leaf(leaf) => match leaf {
                Leaf::ColumnPagination { count, .. } => *count = 0,
                Leaf::SingleColumnValue { found, matched, .. } => {
                    *found = false;
                    *matched = false;
                }
                Leaf::FirstKeyOnly { seen } => *seen = false,
                Leaf::Row { out, .. } => *out = false,
                _ => {}
            },
            Node::And { children, included } => {
                children.iter_mut().for_each(Node::reset);
                included.iter_mut().for_each(|i| *i = false);
            }
            Node::Or {
                children,
                included,
                previous,
            } => {
                children.iter_mut().for_each(Node::reset);
                included.iter_mut().for_each(|i| *i = false);
                previous.iter_mut().for_each(|p| *p = None);
            }
            Node::Skip { inner, failed } => {
                inner.reset();
                *failed = false;
            }
            Node::While { inner, .. } => inner.reset(),
        }
    }

    /// HBase's `filterAllRemaining()`: nothing more can pass, the scan ends.
    fn all_remaining(&self) -> bool {
        match self {
            Node::Leaf(Leaf::Page { size, accepted }) => accepted >= size,
            Node::Leaf(Leaf::InclusiveStop { done, .. }) => *done,
            Node::Leaf(_) => false,
            Node::And { children, .. } => children.iter().any(Node::all_remaining),
            Node::Or { children, .. } => children.iter().all(Node::all_remaining),
            // HBase's SkipFilter does not pass this on.
            Node::Skip { .. } => false,
            Node::While { inner, done } => *done || inner.all_remaining(),
        }
    }

    /// HBase's `filterRowKey()`: true drops the row before its cells are looked at.
    fn row_key(&mut self, row: &[u8], reversed: bool) -> bool {
        match self {
            Node::Leaf(Leaf::Prefix(p)) => !row.starts_with(p),
            Node::Leaf(Leaf::Row {
                op,
                comparator,
                out,
            }) => {
                *out = !comparator.keeps(*op, row);
                *out
            }
            Node::Leaf(Leaf::InclusiveStop { stop, done }) => {
                *done = if reversed {
                    row < stop.as_slice()
                } else {
                    row > stop.as_slice()
                };
                *done
            }
            Node::Leaf(_) => false,
            Node::And { children, .. } => {
                // Every child sees the key (some note the row change), no short cut.
                let mut out = false;
                for c in children.iter_mut() {
                    if c.all_remaining() || c.row_key(row, reversed) {
                        out = true;
                    }
                }
                out
            }
            Node::Or { children, .. } => {
                let mut out = true;
                for c in children.iter_mut() {
                    if !c.all_remaining() && !c.row_key(row, reversed) {
                        out = false;
                    }
                }
                out
            }
            // HBase's SkipFilter ignores the key: `SKIP RowFilter(...)` passes every row.
            Node::Skip { .. } => false,
            Node::While { inner, done } => {
                let out = inner.row_key(row, reversed);
                *done |= out;
                out
            }
        }
    }

    /// HBase's `filterCell()`.
    fn cell(&mut self, cell: &Cell) -> Code {
        match self {
            Node::Leaf(leaf) => leaf.cell(cell),
            Node::And { children, included } => {
                let mut rc = Code::Include;
                for (i, c) in children.iter_mut().enumerate() {
                    included[i] = false;
                    if c.all_remaining() {
                        return Code::NextRow;
                    }
                    let local = c.cell(cell);
                    included[i] = local.includes();
                    rc = merge_and(rc, local);
                    // Observed in HBase 2.6: later filters are not asked about a cell an
                    // earlier one has not included.
                    if !rc.includes() {
                        return rc;
                    }
                }
                rc
            }
            Node::Or {
                children,
                included,
                previous,
            } => {
                let mut rc: Option<Code> = None;
                for (i, c) in children.iter_mut().enumerate() {
                    included[i] = false;
                    if c.all_remaining() {
                        continue;
                    }
                    let local = match previous[i].as_ref().and_then(|p| still_passing(p, cell)) {
                        Some(code) => code,
                        None => c.cell(cell),
                    };
                    previous[i] = match local {
                        Code::Include | Code::Skip => None,
                        ref other => {
                            Some((other.clone(), cell.family.clone(), cell.qualifier.clone()))
                        }
                    };
                    included[i] = local.includes();
                    rc = Some(match rc {
                        None => local,
                        Some(prev) => merge_or(prev, local),
                    });
                }
                rc.unwrap_or(Code::Skip)
            }
            Node::Skip { inner, failed } => {
                let rc = inner.cell(cell);
                *failed |= rc != Code::Include;
                rc
            }
            Node::While { inner, done } => {
                let rc = inner.cell(cell);
                *done |= rc != Code::Include;
                rc
            }
        }
    }

    /// HBase's `transformCell()`, for a cell this node included.
    fn transform(&self, cell: Cell) -> Cell {
        match self {
            Node::Leaf(Leaf::KeyOnly(length_as_value)) => {
                let value = if *length_as_value {
                    (cell.value.len() as u32).to_be_bytes().to_vec()
                } else {
                    Vec::new()
                };
                Cell { value, ..cell }
            }
            Node::Leaf(_) => cell,
            Node::And { children, included }
            | Node::Or {
                children, included, ..
            } => children
                .iter()
                .zip(included)
                .filter(|(_, inc)| **inc)
                .fold(cell, |c, (child, _)| child.transform(c)),
            Node::Skip { inner, .. } | Node::While { inner, .. } => inner.transform(cell),
        }
    }

    /// HBase's `filterRowCells()`: edits the kept cells of a row.
    fn row_cells(&self, cells: &mut Vec<Cell>) {
        match self {
            Node::Leaf(Leaf::SingleColumnValue {
                family,
                qualifier,
                exclude: true,
                ..
            }) => cells.retain(|c| c.family != *family || c.qualifier != *qualifier),
            Node::And { children, .. } | Node::Or { children, .. } => {
                children.iter().for_each(|c| c.row_cells(cells))
            }
            _ => {}
        }
    }

    /// HBase's `filterRow()`, asked only of a row with cells left: true drops it.
    fn row(&mut self) -> bool {
        match self {
            Node::Leaf(Leaf::Row { out, .. }) => *out,
            Node::Leaf(Leaf::Prefix(_)) => false,
            Node::Leaf(Leaf::SingleColumnValue {
                filter_if_missing,
                found,
                matched,
                ..
            }) => {
                if *found {
                    !*matched
                } else {
                    *filter_if_missing
                }
            }
            Node::Leaf(Leaf::Page { size, accepted }) => {
                *accepted += 1;
                *accepted > *size
            }
            Node::Leaf(_) => false,
            // Both stop at the first answer that decides, as HBase's lists do: in
            // `PageFilter(n) AND f` the page counts rows `f` then drops, not in `f AND ...`.
            Node::And { children, .. } => children.iter_mut().any(Node::row),
            Node::Or { children, .. } => children.iter_mut().all(Node::row),
            Node::Skip { failed, .. } => *failed,
            Node::While { inner, done } => {
                let out = inner.row();
                *done |= out;
                out
            }
        }
    }
}

/// `FilterListWithOR`'s shortcut: a child that asked to pass over a column, the family or
/// qualifiers below a hint is answered for cells still inside that without being asked.
fn still_passing(previous: &Previous, cell: &Cell) -> Option<Code> {
    let (code, family, qualifier) = previous;
    match code {
        Code::Seek(hint) => {
            let below = (cell.family.as_slice(), cell.qualifier.as_slice())
                < (family.as_slice(), hint.as_slice());
            below.then(|| code.clone())
        }
        Code::NextCol | Code::IncludeAndNextCol => {
            (cell.family == *family && cell.qualifier == *qualifier).then_some(Code::NextCol)
        }
        Code::NextRow | Code::IncludeAndNextRow => {
            (cell.family == *family).then_some(Code::NextRow)
        }
        Code::Include | Code::Skip => None,
    }
}

impl Leaf {
    /// The filter's `filterCell()`.
    fn cell(&mut self, cell: &Cell) -> Code {
        match self {
            Leaf::Prefix(_) | Leaf::Page { .. } | Leaf::KeyOnly(_) | Leaf::InclusiveStop { .. } => {
                Code::Include
            }
            Leaf::Row { out, .. } => {
                if *out {
                    Code::NextRow
                } else {
                    Code::Include
                }
            }
            Leaf::ColumnPrefix(prefix) => {
                let q = &cell.qualifier;
                let head = &q[..q.len().min(prefix.len())];
                match head.cmp(prefix.as_slice()) {
                    std::cmp::Ordering::Less => Code::Seek(prefix.clone()),
                    std::cmp::Ordering::Equal if q.len() >= prefix.len() => Code::Include,
                    // A qualifier shorter than the prefix and equal to its start sorts before.
                    std::cmp::Ordering::Equal => Code::Seek(prefix.clone()),
                    std::cmp::Ordering::Greater => Code::NextRow,
                }
            }
            Leaf::MultipleColumnPrefix(prefixes) => {
                let q = &cell.qualifier;
                // HBase tries only the largest prefix not above the qualifier.
                let not_above = prefixes
                    .iter()
                    .filter(|p| p.as_slice() <= q.as_slice())
                    .count();
                if not_above == 0 {
                    return Code::Seek(prefixes[0].clone());
                }
                let largest = &prefixes[not_above - 1];
                if q.starts_with(largest) {
                    Code::Include
                } else if not_above == prefixes.len() {
                    Code::NextRow
                } else {
                    Code::Seek(prefixes[not_above].clone())
                }
            }
            Leaf::ColumnRange {
                min,
                min_inclusive,
                max,
                max_inclusive,
            } => {
                let q = cell.qualifier.as_slice();
                if let Some(min) = min {
                    match q.cmp(min.as_slice()) {
                        std::cmp::Ordering::Less => return Code::Seek(min.clone()),
                        std::cmp::Ordering::Equal if !*min_inclusive => return Code::NextCol,
                        _ => {}
                    }
                }
                match max {
                    None => Code::Include,
                    Some(max) if q < max.as_slice() || (*max_inclusive && q == max.as_slice()) => {
                        Code::Include
                    }
                    Some(_) => Code::NextRow,
                }
            }
            Leaf::ColumnPagination {
                limit,
                offset,
                count,
            } => {
                if *count >= *offset + *limit {
                    return Code::NextRow;
                }
                let code = if *count < *offset {
                    Code::NextCol
                } else {
                    Code::IncludeAndNextCol
                };
                *count += 1;
                code
            }
            Leaf::SingleColumnValue {
                family,
                qualifier,
                op,
                comparator,
                latest_version_only,
                found,
                matched,
                ..
            } => {
                if *matched {
                    return Code::Include;
                }
                if *latest_version_only && *found {
                    return Code::NextRow;
                }
                if cell.family != *family || cell.qualifier != *qualifier {
                    return Code::Include;
                }
                *found = true;
                if !comparator.keeps(*op, &cell.value) {
                    return if *latest_version_only {
                        Code::NextRow
                    } else {
                        Code::Include
                    };
                }
                *matched = true;
                Code::Include
            }
            Leaf::FirstKeyOnly { seen } => {
                if *seen {
                    Code::NextRow
                } else {
                    *seen = true;
                    Code::Include
                }
            }
            Leaf::Value(op, cmp) => keep_or(cmp.keeps(*op, &cell.value), Code::Skip),
            Leaf::Qualifier(op, cmp) => keep_or(cmp.keeps(*op, &cell.qualifier), Code::Skip),
            Leaf::Family(op, cmp) => keep_or(cmp.keeps(*op, &cell.family), Code::NextRow),
            Leaf::Timestamps(list) => {
                if list.binary_search(&cell.timestamp).is_ok() {
                    Code::Include
                } else if list.first().is_some_and(|min| cell.timestamp < *min) {
                    // Versions run newest first: none of the older ones can be listed.
                    Code::NextCol
                } else {
                    Code::Skip
                }
            }
        }
    }
}

/// `Include` if `keep`, else `otherwise`.
fn keep_or(keep: bool, otherwise: Code) -> Code {
    if keep {
        Code::Include
    } else {
        otherwise
    }
}

// ---------------------------------------------------------------------------------------------
// Tokenizer
// ---------------------------------------------------------------------------------------------

/// A token and the byte offset it starts at.
#[derive(Clone, Debug)]
struct Token {
    /// What it is.
    kind: Tok,
    /// Byte offset in the text.
    at: usize,
}

/// The kinds of token.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    /// `(`
    Open,
    /// `)`
    Close,
    /// `,`
    Comma,
    /// A quoted literal, its `''` turned into `'`.
    Quoted(Vec<u8>),
    /// Any other run of bytes up to white space, a parenthesis, a comma or a quote: a filter
    /// name, a keyword, an operator, a number, a boolean.
    Word(Vec<u8>),
}

impl Tok {
    /// The token for an error message.
    fn describe(&self) -> String {
        match self {
            Tok::Open => "'('".into(),
            Tok::Close => "')'".into(),
            Tok::Comma => "','".into(),
            Tok::Quoted(b) => format!("the quoted literal {:?}", String::from_utf8_lossy(b)),
            Tok::Word(w) => format!("{:?}", String::from_utf8_lossy(w)),
        }
    }
}

/// Splits the text into tokens.
fn lex(text: &[u8]) -> Result<Vec<Token>> {
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let at = i;
        let kind = match text[i] {
            b if b.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            b'(' => {
                i += 1;
                Tok::Open
            }
            b')' => {
                i += 1;
                Tok::Close
            }
            b',' => {
                i += 1;
                Tok::Comma
            }
            b'\'' => {
                let mut bytes = Vec::new();
                i += 1;
                loop {
                    match text.get(i) {
                        None => return Err(malformed(text, at, "this quote is never closed")),
                        Some(b'\'') if text.get(i + 1) == Some(&b'\'') => {
                            bytes.push(b'\'');
                            i += 2;
                        }
                        Some(b'\'') => {
                            i += 1;
                            break;
                        }
                        Some(&b) => {
                            bytes.push(b);
                            i += 1;
                        }
                    }
                }
                Tok::Quoted(bytes)
            }
            _ => {
                while i < text.len()
                    && !text[i].is_ascii_whitespace()
                    && !matches!(text[i], b'(' | b')' | b',' | b'\'')
                {
                    i += 1;
                }
                Tok::Word(text[at..i].to_vec())
            }
        };
        tokens.push(Token { kind, at });
    }
    Ok(tokens)
}

/// An [`Error::IllegalArgument`] for `text`, pointing at byte `at`.
fn malformed(text: &[u8], at: usize, why: &str) -> Error {
    Error::IllegalArgument {
        message: format!(
            "malformed filter {:?} at byte {at}: {why}",
            String::from_utf8_lossy(text)
        ),
    }
}

// ---------------------------------------------------------------------------------------------
// Parser
// ---------------------------------------------------------------------------------------------

/// Recursive descent over the tokens: `or := and (OR and)*`, `and := unary (AND unary)*`,
/// `unary := SKIP unary | WHILE unary | '(' or ')' | Name '(' args ')'`.
struct Parser<'a> {
    /// The whole text, for messages.
    text: &'a [u8],
    /// The tokens.
    tokens: Vec<Token>,
    /// The next token.
    pos: usize,
}

/// One argument of a filter call and where it starts.
struct Arg {
    /// The token.
    kind: Tok,
    /// Byte offset.
    at: usize,
}

impl Parser<'_> {
    /// An error at byte `at`.
    fn error_at(&self, at: usize, why: &str) -> Error {
        malformed(self.text, at, why)
    }

    /// The offset of the next token, or the end of the text.
    fn here(&self) -> usize {
        self.tokens.get(self.pos).map_or(self.text.len(), |t| t.at)
    }

    /// Whether the next token is the keyword `kw` (keywords are upper case, as in HBase).
    fn at_keyword(&self, kw: &str) -> bool {
        matches!(self.tokens.get(self.pos), Some(Token { kind: Tok::Word(w), .. }) if w == kw.as_bytes())
    }

    /// `and (OR and)*`, flattened into one list as HBase does.
    fn or_expr(&mut self) -> Result<Node> {
        let mut children = vec![self.and_expr()?];
        while self.at_keyword("OR") {
            self.pos += 1;
            children.push(self.and_expr()?);
        }
        Ok(list(children, false))
    }

    /// `unary (AND unary)*`.
    fn and_expr(&mut self) -> Result<Node> {
        let mut children = vec![self.unary()?];
        while self.at_keyword("AND") {
            self.pos += 1;
            children.push(self.unary()?);
        }
        Ok(list(children, true))
    }

    /// `SKIP unary | WHILE unary | '(' or ')' | call`.
    fn unary(&mut self) -> Result<Node> {
        let at = self.here();
        let Some(token) = self.tokens.get(self.pos).cloned() else {
            return Err(self.error_at(at, "a filter is missing at the end"));
        };
        match token.kind {
            Tok::Word(w) if w == b"SKIP" || w == b"WHILE" => {
                self.pos += 1;
                let inner = Box::new(self.unary()?);
                Ok(if w == b"SKIP" {
                    Node::Skip {
                        inner,
                        failed: false,
                    }
                } else {
                    Node::While { inner, done: false }
                })
            }
            Tok::Open => {
                self.pos += 1;
                let inner = self.or_expr()?;
                match self.tokens.get(self.pos) {
                    Some(Token {
                        kind: Tok::Close, ..
                    }) => {
                        self.pos += 1;
                        Ok(inner)
                    }
                    Some(t) => Err(self.error_at(
                        t.at,
                        &format!("expected ')', AND or OR, found {}", t.kind.describe()),
                    )),
                    None => Err(self.error_at(at, "this '(' is never closed")),
                }
            }
            Tok::Word(name) if name == b"AND" || name == b"OR" => Err(self.error_at(
                at,
                &format!(
                    "{} needs a filter before it",
                    String::from_utf8_lossy(&name)
                ),
            )),
            Tok::Word(name) => {
                self.pos += 1;
                let args = self.arguments(&name, at)?;
                let leaf = build(self, &name, at, args)?;
                Ok(Node::Leaf(leaf))
            }
            other => Err(self.error_at(
                at,
                &format!("expected a filter, found {}", other.describe()),
            )),
        }
    }

    /// `'(' [arg (',' arg)*] ')'` after a filter name.
    fn arguments(&mut self, name: &[u8], name_at: usize) -> Result<Vec<Arg>> {
        let shown = String::from_utf8_lossy(name).into_owned();
        match self.tokens.get(self.pos) {
            Some(Token {
                kind: Tok::Open, ..
            }) => self.pos += 1,
            _ => {
                return Err(self.error_at(
                    name_at,
                    &format!("{shown} must be followed by its arguments in parentheses"),
                ))
            }
        }
        let mut args = Vec::new();
        if let Some(Token {
            kind: Tok::Close, ..
        }) = self.tokens.get(self.pos)
        {
            self.pos += 1;
            return Ok(args);
        }
        loop {
            let Some(t) = self.tokens.get(self.pos).cloned() else {
                return Err(self.error_at(
                    name_at,
                    &format!("the arguments of {shown} are never closed with ')'"),
                ));
            };
            match t.kind {
                Tok::Quoted(_) | Tok::Word(_) => args.push(Arg {
                    kind: t.kind,
                    at: t.at,
                }),
                other => {
                    return Err(self.error_at(
                        t.at,
                        &format!(
                            "expected an argument of {shown}, found {}",
                            other.describe()
                        ),
                    ))
                }
            }
            self.pos += 1;
            match self.tokens.get(self.pos).map(|t| (&t.kind, t.at)) {
                Some((Tok::Comma, _)) => self.pos += 1,
                Some((Tok::Close, _)) => {
                    self.pos += 1;
                    return Ok(args);
                }
                Some((other, at)) => {
                    return Err(self.error_at(
                        at,
                        &format!(
                            "expected ',' or ')' in the arguments of {shown}, found {}",
                            other.describe()
                        ),
                    ))
                }
                None => {
                    return Err(self.error_at(
                        name_at,
                        &format!("the arguments of {shown} are never closed with ')'"),
                    ))
                }
            }
        }
    }
}

/// A list node of `children`, or the only child itself.
fn list(mut children: Vec<Node>, and: bool) -> Node {
    if children.len() == 1 {
        return children.pop().expect("one child");
    }
    let included = vec![false; children.len()];
    if and {
        Node::And { children, included }
    } else {
        Node::Or {
            previous: vec![None; children.len()],
            children,
            included,
        }
    }
}

/// Filters HBase's filter language knows but this module does not model.
const NOT_MODELLED: &[(&str, &str)] = &[
    (
        "ColumnCountGetFilter",
        "HBase 2.6 was seen counting a second family's column twice in scans; use \
         ColumnPaginationFilter(n, 0)",
    ),
    (
        "DependentColumnFilter",
        "it is not modelled by the in-memory store",
    ),
    (
        "FirstKeyValueMatchingQualifiersFilter",
        "it is deprecated in HBase and not modelled by the in-memory store",
    ),
    (
        "ColumnValueFilter",
        "it is not modelled by the in-memory store",
    ),
    (
        "FuzzyRowFilter",
        "it is not modelled by the in-memory store",
    ),
    (
        "MultiRowRangeFilter",
        "it is not modelled by the in-memory store",
    ),
    (
        "RandomRowFilter",
        "it is not modelled by the in-memory store",
    ),
    ("WhileMatchFilter", "write `WHILE f` instead"),
    ("SkipFilter", "write `SKIP f` instead"),
];

/// Filter names that are modelled.
const MODELLED: &[&str] = &[
    "PrefixFilter",
    "ColumnPrefixFilter",
    "MultipleColumnPrefixFilter",
    "ColumnRangeFilter",
    "ColumnPaginationFilter",
    "SingleColumnValueFilter",
    "SingleColumnValueExcludeFilter",
    "KeyOnlyFilter",
    "FirstKeyOnlyFilter",
    "PageFilter",
    "ValueFilter",
    "QualifierFilter",
    "FamilyFilter",
    "RowFilter",
    "InclusiveStopFilter",
    "TimestampsFilter",
];

/// Builds the filter `name` from its arguments, checking their number and kinds.
fn build(p: &Parser<'_>, name: &[u8], at: usize, args: Vec<Arg>) -> Result<Leaf> {
    let shown = String::from_utf8_lossy(name).into_owned();
    if let Some((_, why)) = NOT_MODELLED.iter().find(|(n, _)| n.as_bytes() == name) {
        return Err(Error::Unsupported {
            operation: format!("filter {shown}"),
            backend: "memory",
            why: (*why).to_string(),
        });
    }
    if !MODELLED.iter().any(|n| n.as_bytes() == name) {
        let hint = MODELLED
            .iter()
            .find(|n| n.eq_ignore_ascii_case(&shown))
            .map(|n| format!(" (filter names are case-sensitive: {n})"))
            .unwrap_or_default();
        return Err(p.error_at(at, &format!("unknown filter {shown:?}{hint}")));
    }
    let a = Args {
        p,
        name: &shown,
        at,
        args,
    };
    Ok(match name {
        b"PrefixFilter" => {
            a.count(&[1])?;
            Leaf::Prefix(a.bytes(0)?)
        }
        b"ColumnPrefixFilter" => {
            a.count(&[1])?;
            Leaf::ColumnPrefix(a.bytes(0)?)
        }
        b"MultipleColumnPrefixFilter" => {
            if a.args.is_empty() {
                return Err(p.error_at(at, "MultipleColumnPrefixFilter needs at least one prefix"));
            }
            let mut prefixes = (0..a.args.len())
                .map(|i| a.bytes(i))
                .collect::<Result<Vec<_>>>()?;
            prefixes.sort();
            prefixes.dedup();
            Leaf::MultipleColumnPrefix(prefixes)
        }
        b"ColumnRangeFilter" => {
            a.count(&[4])?;
            let bound = |b: Vec<u8>| (!b.is_empty()).then_some(b);
            Leaf::ColumnRange {
                min: bound(a.bytes(0)?),
                min_inclusive: a.boolean(1)?,
                max: bound(a.bytes(2)?),
                max_inclusive: a.boolean(3)?,
            }
        }
        b"ColumnPaginationFilter" => {
            a.count(&[2])?;
            Leaf::ColumnPagination {
                limit: a.non_negative(0, "limit")?,
                offset: a.non_negative(1, "offset")?,
                count: 0,
            }
        }
        b"SingleColumnValueFilter" | b"SingleColumnValueExcludeFilter" => {
            a.count(&[4, 6])?;
            let (filter_if_missing, latest_version_only) = if a.args.len() == 6 {
                (a.boolean(4)?, a.boolean(5)?)
            } else {
                (false, true)
            };
            let (op, comparator) = a.op_and_comparator(2)?;
            Leaf::SingleColumnValue {
                family: a.bytes(0)?,
                qualifier: a.bytes(1)?,
                op,
                comparator,
                filter_if_missing,
                latest_version_only,
                exclude: name == b"SingleColumnValueExcludeFilter",
                found: false,
                matched: false,
            }
        }
        b"KeyOnlyFilter" => {
            a.count(&[0, 1])?;
            Leaf::KeyOnly(if a.args.is_empty() {
                false
            } else {
                a.boolean(0)?
            })
        }
        b"FirstKeyOnlyFilter" => {
            a.count(&[0])?;
            Leaf::FirstKeyOnly { seen: false }
        }
        b"PageFilter" => {
            a.count(&[1])?;
            Leaf::Page {
                size: a.non_negative(0, "page size")? as i64,
                accepted: 0,
            }
        }
        b"ValueFilter" | b"QualifierFilter" | b"FamilyFilter" | b"RowFilter" => {
            a.count(&[2])?;
            let (op, comparator) = a.op_and_comparator(0)?;
            match name {
                b"ValueFilter" => Leaf::Value(op, comparator),
                b"QualifierFilter" => Leaf::Qualifier(op, comparator),
                b"FamilyFilter" => Leaf::Family(op, comparator),
                _ => Leaf::Row {
                    op,
                    comparator,
                    out: false,
                },
            }
        }
        b"InclusiveStopFilter" => {
            a.count(&[1])?;
            Leaf::InclusiveStop {
                stop: a.bytes(0)?,
                done: false,
            }
        }
        b"TimestampsFilter" => {
            let mut list = (0..a.args.len())
                .map(|i| a.non_negative(i, "timestamp").map(|t| t as i64))
                .collect::<Result<Vec<_>>>()?;
            list.sort_unstable();
            list.dedup();
            Leaf::Timestamps(list)
        }
        _ => unreachable!("every modelled name is built above"),
    })
}

/// The arguments of one filter call, with typed accessors that explain a mismatch.
struct Args<'a, 'p> {
    /// For error messages.
    p: &'a Parser<'p>,
    /// The filter's name.
    name: &'a str,
    /// Where the call starts.
    at: usize,
    /// The arguments.
    args: Vec<Arg>,
}

impl Args<'_, '_> {
    /// An error about argument `i`.
    fn bad(&self, i: usize, why: &str) -> Error {
        self.p.error_at(
            self.args[i].at,
            &format!("argument {} of {}: {why}", i + 1, self.name),
        )
    }

    /// Requires one of the argument counts `allowed`.
    fn count(&self, allowed: &[usize]) -> Result<()> {
        if allowed.contains(&self.args.len()) {
            return Ok(());
        }
        let want = allowed
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join(" or ");
        Err(self.p.error_at(
            self.at,
            &format!(
                "{} takes {want} arguments, not {}",
                self.name,
                self.args.len()
            ),
        ))
    }

    /// Argument `i` as a quoted literal.
    fn bytes(&self, i: usize) -> Result<Vec<u8>> {
        match &self.args[i].kind {
            Tok::Quoted(b) => Ok(b.clone()),
            other => Err(self.bad(
                i,
                &format!("expected a quoted literal, found {}", other.describe()),
            )),
        }
    }

    /// Argument `i` as a bare word.
    fn word(&self, i: usize, what: &str) -> Result<String> {
        match &self.args[i].kind {
            Tok::Word(w) => Ok(String::from_utf8_lossy(w).into_owned()),
            other => Err(self.bad(i, &format!("expected {what}, found {}", other.describe()))),
        }
    }

    /// Argument `i` as `true` or `false` (any case, as HBase accepts).
    fn boolean(&self, i: usize) -> Result<bool> {
        let w = self.word(i, "true or false")?;
        match w.to_ascii_lowercase().as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(self.bad(i, &format!("expected true or false, found {w:?}"))),
        }
    }

    /// Argument `i` as an integer that is not negative.
    fn non_negative(&self, i: usize, what: &str) -> Result<u64> {
        let w = self.word(i, &format!("a {what} (an integer)"))?;
        match w.parse::<i64>() {
            Ok(n) if n >= 0 => Ok(n as u64),
            Ok(n) => Err(self.bad(i, &format!("the {what} must not be negative, found {n}"))),
            Err(_) => Err(self.bad(i, &format!("expected a {what} (an integer), found {w:?}"))),
        }
    }

    /// Arguments `i` and `i + 1` as an operator and a `type:value` comparator.
    fn op_and_comparator(&self, i: usize) -> Result<(Op, Comparator)> {
        let w = self.word(i, "a compare operator (<, <=, =, !=, >=, >)")?;
        let op = match w.as_str() {
            "<" => Op::Less,
            "<=" => Op::LessOrEqual,
            "=" => Op::Equal,
            "!=" => Op::NotEqual,
            ">=" => Op::GreaterOrEqual,
            ">" => Op::Greater,
            _ => {
                return Err(self.bad(
                    i,
                    &format!("expected a compare operator (<, <=, =, !=, >=, >), found {w:?}"),
                ))
            }
        };
        let j = i + 1;
        let text = self.bytes(j)?;
        let Some(colon) = text.iter().position(|&b| b == b':') else {
            return Err(self.bad(
                j,
                "a comparator is 'binary:...', 'binaryprefix:...', 'regexstring:...' or \
                 'substring:...'",
            ));
        };
        let (kind, value) = (&text[..colon], text[colon + 1..].to_vec());
        let comparator = match kind {
            b"binary" => Comparator::Binary(value),
            b"binaryprefix" => Comparator::BinaryPrefix(value),
            b"regexstring" | b"substring" => {
                if !matches!(op, Op::Equal | Op::NotEqual) {
                    return Err(
                        self.bad(i, "regexstring and substring comparators only take = or !=")
                    );
                }
                if kind == b"substring" {
                    Comparator::Substring(value.to_ascii_lowercase())
                } else {
                    let pattern = String::from_utf8(value)
                        .map_err(|_| self.bad(j, "the regular expression is not UTF-8"))?;
                    let re = regex::bytes::RegexBuilder::new(&pattern)
                        .dot_matches_new_line(true)
                        .build()
                        .map_err(|e| self.bad(j, &format!("bad regular expression: {e}")))?;
                    Comparator::Regex(re)
                }
            }
            other => {
                return Err(self.bad(
                    j,
                    &format!(
                        "unknown comparator {:?} (binary, binaryprefix, regexstring, substring)",
                        String::from_utf8_lossy(other)
                    ),
                ))
            }
        };
        Ok((op, comparator))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rows the HBase experiments wrote (families `d`, up to 3 versions, and `m`), each
    /// with every version, in HBase's order.
    fn rows() -> Vec<(&'static str, Vec<Cell>)> {
        let c = |f: &str, q: &str, ts: i64, v: &str| Cell {
            family: f.into(),
            qualifier: q.into(),
            value: v.into(),
            timestamp: ts,
        };
        vec![
            (
                "a1",
                vec![
                    c("d", "x", 200, "7"),
                    c("d", "x", 100, "1"),
                    c("d", "y", 100, "5"),
                    c("m", "z", 100, "abc"),
                ],
            ),
            ("a2", vec![c("d", "x", 100, "5"), c("d", "yy", 100, "9")]),
            ("b1", vec![c("d", "y", 100, "3"), c("m", "z", 100, "xyz")]),
            ("b2", vec![c("d", "x", 100, "50"), c("d", "z", 100, "it's")]),
            (
                "c1",
                vec![
                    c("d", "a", 100, "0"),
                    c("d", "x", 100, "9"),
                    c("m", "z", 100, "5"),
                ],
            ),
        ]
    }

    /// Bytes as the experiment printed them: printable ASCII as is, others as `\xNN`.
    fn shown(bytes: &[u8]) -> String {
        bytes
            .iter()
            .map(|&b| {
                if b.is_ascii_graphic() && b != b'\\' && b != b'"' {
                    (b as char).to_string()
                } else {
                    format!("\\x{b:02x}")
                }
            })
            .collect()
    }

    /// Scans [`rows`] with `expression` and `versions` per column, in key order (or reversed),
    /// and prints the result as the experiment did: `key[fam:qual@ts=value ...] ...`.
    fn scan(expression: &str, versions: usize, reversed: bool) -> String {
        let filter =
            Filter::parse(expression.as_bytes()).unwrap_or_else(|e| panic!("{expression}: {e}"));
        let mut state = if reversed {
            FilterState::for_reversed_scan()
        } else {
            FilterState::default()
        };
        let mut rows = rows();
        if reversed {
            rows.reverse();
        }
        let mut out = Vec::new();
        for (key, cells) in rows {
            match filter.apply_versions(&mut state, key.as_bytes(), cells, versions) {
                RowVerdict::Keep(cells) => {
                    assert!(!cells.is_empty());
                    let cells: Vec<String> = cells
                        .iter()
                        .map(|c| {
                            format!(
                                "{}:{}@{}={}",
                                shown(&c.family),
                                shown(&c.qualifier),
                                c.timestamp,
                                shown(&c.value)
                            )
                        })
                        .collect();
                    out.push(format!("{key}[{}]", cells.join(" ")));
                }
                RowVerdict::Skip => {}
                RowVerdict::Stop => break,
            }
        }
        out.join(" ")
    }

    /// `(versions, expression, what HBase 2.6.1 returned)`: each line was run against a real
    /// HBase through the Thrift2 gateway (a scan with that many versions, `r`: reversed) on
    /// the rows of [`rows`], and its answer recorded here.
    const SEEN_IN_HBASE: &[(&str, &str, &str)] = &[
        (
            "3",
            r#"KeyOnlyFilter() AND ColumnPrefixFilter('zzz')"#,
            r#""#,
        ),
        (
            "1",
            r#"ValueFilter(>, 'binary:5')"#,
            r#"a1[d:x@200=7 m:z@100=abc] a2[d:yy@100=9] b1[m:z@100=xyz] b2[d:x@100=50 d:z@100=it's] c1[d:x@100=9]"#,
        ),
        (
            "1",
            r#"ValueFilter(<, 'binary:5')"#,
            r#"a1[d:x@100=1] b1[d:y@100=3] c1[d:a@100=0]"#,
        ),
        (
            "1",
            r#"ValueFilter(=, 'binary:5')"#,
            r#"a1[d:y@100=5] a2[d:x@100=5] c1[m:z@100=5]"#,
        ),
        (
            "1",
            r#"ValueFilter(!=, 'binary:5')"#,
            r#"a1[d:x@200=7 m:z@100=abc] a2[d:yy@100=9] b1[d:y@100=3 m:z@100=xyz] b2[d:x@100=50 d:z@100=it's] c1[d:a@100=0 d:x@100=9]"#,
        ),
        (
            "1",
            r#"ValueFilter(<=, 'binary:5')"#,
            r#"a1[d:x@100=1 d:y@100=5] a2[d:x@100=5] b1[d:y@100=3] c1[d:a@100=0 m:z@100=5]"#,
        ),
        (
            "1",
            r#"ValueFilter(>=, 'binary:5')"#,
            r#"a1[d:x@200=7 d:y@100=5 m:z@100=abc] a2[d:x@100=5 d:yy@100=9] b1[m:z@100=xyz] b2[d:x@100=50 d:z@100=it's] c1[d:x@100=9 m:z@100=5]"#,
        ),
        ("1", r#"ValueFilter(=, 'binary:1')"#, r#"a1[d:x@100=1]"#),
        ("3", r#"ValueFilter(=, 'binary:1')"#, r#"a1[d:x@100=1]"#),
        (
            "1",
            r#"ValueFilter(=, 'binaryprefix:5')"#,
            r#"a1[d:y@100=5] a2[d:x@100=5] b2[d:x@100=50] c1[m:z@100=5]"#,
        ),
        (
            "1",
            r#"ValueFilter(>, 'binaryprefix:5')"#,
            r#"a1[d:x@200=7 m:z@100=abc] a2[d:yy@100=9] b1[m:z@100=xyz] b2[d:z@100=it's] c1[d:x@100=9]"#,
        ),
        (
            "1",
            r#"ValueFilter(<, 'binaryprefix:5')"#,
            r#"a1[d:x@100=1] b1[d:y@100=3] c1[d:a@100=0]"#,
        ),
        (
            "1",
            r#"ValueFilter(=, 'regexstring:^[0-9]$')"#,
            r#"a1[d:x@200=7 d:y@100=5] a2[d:x@100=5 d:yy@100=9] b1[d:y@100=3] c1[d:a@100=0 d:x@100=9 m:z@100=5]"#,
        ),
        (
            "1",
            r#"ValueFilter(=, 'regexstring:b')"#,
            r#"a1[m:z@100=abc]"#,
        ),
        (
            "1",
            r#"ValueFilter(!=, 'regexstring:[a-z]')"#,
            r#"a1[d:x@200=7 d:y@100=5] a2[d:x@100=5 d:yy@100=9] b1[d:y@100=3] b2[d:x@100=50] c1[d:a@100=0 d:x@100=9 m:z@100=5]"#,
        ),
        (
            "1",
            r#"ValueFilter(=, 'substring:BC')"#,
            r#"a1[m:z@100=abc]"#,
        ),
        (
            "1",
            r#"ValueFilter(=, 'substring:''')"#,
            r#"b2[d:z@100=it's]"#,
        ),
        (
            "1",
            r#"QualifierFilter(>, 'binary:x')"#,
            r#"a1[d:y@100=5 m:z@100=abc] a2[d:yy@100=9] b1[d:y@100=3 m:z@100=xyz] b2[d:z@100=it's] c1[m:z@100=5]"#,
        ),
        (
            "1",
            r#"QualifierFilter(=, 'binaryprefix:y')"#,
            r#"a1[d:y@100=5] a2[d:yy@100=9] b1[d:y@100=3]"#,
        ),
        (
            "1",
            r#"FamilyFilter(=, 'binary:m')"#,
            r#"a1[m:z@100=abc] b1[m:z@100=xyz] c1[m:z@100=5]"#,
        ),
        (
            "1",
            r#"FamilyFilter(<, 'binary:m')"#,
            r#"a1[d:x@200=7 d:y@100=5] a2[d:x@100=5 d:yy@100=9] b1[d:y@100=3] b2[d:x@100=50 d:z@100=it's] c1[d:a@100=0 d:x@100=9]"#,
        ),
        (
            "1",
            r#"RowFilter(>=, 'binary:b1')"#,
            r#"b1[d:y@100=3 m:z@100=xyz] b2[d:x@100=50 d:z@100=it's] c1[d:a@100=0 d:x@100=9 m:z@100=5]"#,
        ),
        (
            "1",
            r#"RowFilter(=, 'regexstring:1$')"#,
            r#"a1[d:x@200=7 d:y@100=5 m:z@100=abc] b1[d:y@100=3 m:z@100=xyz] c1[d:a@100=0 d:x@100=9 m:z@100=5]"#,
        ),
        (
            "1",
            r#"PrefixFilter('a')"#,
            r#"a1[d:x@200=7 d:y@100=5 m:z@100=abc] a2[d:x@100=5 d:yy@100=9]"#,
        ),
        (
            "1",
            r#"PrefixFilter('b2')"#,
            r#"b2[d:x@100=50 d:z@100=it's]"#,
        ),
        (
            "1",
            r#"ColumnPrefixFilter('y')"#,
            r#"a1[d:y@100=5] a2[d:yy@100=9] b1[d:y@100=3]"#,
        ),
        (
            "1",
            r#"MultipleColumnPrefixFilter('a', 'y', 'z')"#,
            r#"a1[d:y@100=5 m:z@100=abc] a2[d:yy@100=9] b1[d:y@100=3 m:z@100=xyz] b2[d:z@100=it's] c1[d:a@100=0 m:z@100=5]"#,
        ),
        (
            "1",
            r#"MultipleColumnPrefixFilter('y', 'ya')"#,
            r#"a1[d:y@100=5] b1[d:y@100=3]"#,
        ),
        (
            "1",
            r#"ColumnRangeFilter('x', true, 'z', false)"#,
            r#"a1[d:x@200=7 d:y@100=5] a2[d:x@100=5 d:yy@100=9] b1[d:y@100=3] b2[d:x@100=50] c1[d:x@100=9]"#,
        ),
        (
            "1",
            r#"ColumnRangeFilter('x', false, '', false)"#,
            r#"a1[d:y@100=5 m:z@100=abc] a2[d:yy@100=9] b1[d:y@100=3 m:z@100=xyz] b2[d:z@100=it's] c1[m:z@100=5]"#,
        ),
        (
            "1",
            r#"ColumnRangeFilter('', false, 'y', true)"#,
            r#"a1[d:x@200=7 d:y@100=5] a2[d:x@100=5] b1[d:y@100=3] b2[d:x@100=50] c1[d:a@100=0 d:x@100=9]"#,
        ),
        (
            "3",
            r#"ColumnPaginationFilter(2, 0)"#,
            r#"a1[d:x@200=7 d:y@100=5] a2[d:x@100=5 d:yy@100=9] b1[d:y@100=3 m:z@100=xyz] b2[d:x@100=50 d:z@100=it's] c1[d:a@100=0 d:x@100=9]"#,
        ),
        (
            "3",
            r#"ColumnPaginationFilter(1, 1)"#,
            r#"a1[d:y@100=5] a2[d:yy@100=9] b1[m:z@100=xyz] b2[d:z@100=it's] c1[d:x@100=9]"#,
        ),
        (
            "1",
            r#"ColumnPaginationFilter(2, 1)"#,
            r#"a1[d:y@100=5 m:z@100=abc] a2[d:yy@100=9] b1[m:z@100=xyz] b2[d:z@100=it's] c1[d:x@100=9 m:z@100=5]"#,
        ),
        (
            "1",
            r#"SingleColumnValueFilter('d', 'x', =, 'binary:7')"#,
            r#"a1[d:x@200=7 d:y@100=5 m:z@100=abc] b1[d:y@100=3 m:z@100=xyz]"#,
        ),
        (
            "1",
            r#"SingleColumnValueFilter('d', 'x', >=, 'binary:5', true, true)"#,
            r#"a1[d:x@200=7 d:y@100=5 m:z@100=abc] a2[d:x@100=5 d:yy@100=9] b2[d:x@100=50 d:z@100=it's] c1[d:a@100=0 d:x@100=9 m:z@100=5]"#,
        ),
        (
            "3",
            r#"SingleColumnValueFilter('d', 'x', =, 'binary:1', false, false)"#,
            r#"a1[d:x@200=7 d:x@100=1 d:y@100=5 m:z@100=abc] b1[d:y@100=3 m:z@100=xyz]"#,
        ),
        (
            "3",
            r#"SingleColumnValueFilter('d', 'x', =, 'binary:1', false, true)"#,
            r#"b1[d:y@100=3 m:z@100=xyz]"#,
        ),
        (
            "1",
            r#"SingleColumnValueFilter('d', 'x', <, 'binary:5')"#,
            r#"b1[d:y@100=3 m:z@100=xyz]"#,
        ),
        (
            "1",
            r#"SingleColumnValueExcludeFilter('d', 'x', =, 'binary:7')"#,
            r#"a1[d:y@100=5 m:z@100=abc] b1[d:y@100=3 m:z@100=xyz]"#,
        ),
        (
            "3",
            r#"SingleColumnValueExcludeFilter('d', 'x', =, 'binary:5', true, true)"#,
            r#"a2[d:yy@100=9]"#,
        ),
        (
            "3",
            r#"KeyOnlyFilter()"#,
            r#"a1[d:x@200= d:x@100= d:y@100= m:z@100=] a2[d:x@100= d:yy@100=] b1[d:y@100= m:z@100=] b2[d:x@100= d:z@100=] c1[d:a@100= d:x@100= m:z@100=]"#,
        ),
        (
            "1",
            r#"KeyOnlyFilter(true)"#,
            r#"a1[d:x@200=\x00\x00\x00\x01 d:y@100=\x00\x00\x00\x01 m:z@100=\x00\x00\x00\x03] a2[d:x@100=\x00\x00\x00\x01 d:yy@100=\x00\x00\x00\x01] b1[d:y@100=\x00\x00\x00\x01 m:z@100=\x00\x00\x00\x03] b2[d:x@100=\x00\x00\x00\x02 d:z@100=\x00\x00\x00\x04] c1[d:a@100=\x00\x00\x00\x01 d:x@100=\x00\x00\x00\x01 m:z@100=\x00\x00\x00\x01]"#,
        ),
        (
            "3",
            r#"FirstKeyOnlyFilter()"#,
            r#"a1[d:x@200=7] a2[d:x@100=5] b1[d:y@100=3] b2[d:x@100=50] c1[d:a@100=0]"#,
        ),
        (
            "1",
            r#"PageFilter(2)"#,
            r#"a1[d:x@200=7 d:y@100=5 m:z@100=abc] a2[d:x@100=5 d:yy@100=9]"#,
        ),
        (
            "1",
            r#"PageFilter(2) AND SingleColumnValueFilter('d', 'x', >=, 'binary:5', true, true)"#,
            r#"a1[d:x@200=7 d:y@100=5 m:z@100=abc] a2[d:x@100=5 d:yy@100=9]"#,
        ),
        (
            "1",
            r#"SingleColumnValueFilter('d', 'x', >=, 'binary:5', true, true) AND PageFilter(2)"#,
            r#"a1[d:x@200=7 d:y@100=5 m:z@100=abc] a2[d:x@100=5 d:yy@100=9]"#,
        ),
        (
            "1",
            r#"InclusiveStopFilter('b1')"#,
            r#"a1[d:x@200=7 d:y@100=5 m:z@100=abc] a2[d:x@100=5 d:yy@100=9] b1[d:y@100=3 m:z@100=xyz]"#,
        ),
        (
            "1",
            r#"TimestampsFilter(100)"#,
            r#"a1[d:x@100=1 d:y@100=5 m:z@100=abc] a2[d:x@100=5 d:yy@100=9] b1[d:y@100=3 m:z@100=xyz] b2[d:x@100=50 d:z@100=it's] c1[d:a@100=0 d:x@100=9 m:z@100=5]"#,
        ),
        (
            "3",
            r#"TimestampsFilter(100)"#,
            r#"a1[d:x@100=1 d:y@100=5 m:z@100=abc] a2[d:x@100=5 d:yy@100=9] b1[d:y@100=3 m:z@100=xyz] b2[d:x@100=50 d:z@100=it's] c1[d:a@100=0 d:x@100=9 m:z@100=5]"#,
        ),
        (
            "3",
            r#"TimestampsFilter(200, 100)"#,
            r#"a1[d:x@200=7 d:x@100=1 d:y@100=5 m:z@100=abc] a2[d:x@100=5 d:yy@100=9] b1[d:y@100=3 m:z@100=xyz] b2[d:x@100=50 d:z@100=it's] c1[d:a@100=0 d:x@100=9 m:z@100=5]"#,
        ),
        (
            "1",
            r#"SKIP ValueFilter(!=, 'binary:5')"#,
            r#"b1[d:y@100=3 m:z@100=xyz] b2[d:x@100=50 d:z@100=it's]"#,
        ),
        (
            "1",
            r#"WHILE RowFilter(<, 'binary:b2')"#,
            r#"a1[d:x@200=7 d:y@100=5 m:z@100=abc] a2[d:x@100=5 d:yy@100=9] b1[d:y@100=3 m:z@100=xyz]"#,
        ),
        (
            "1",
            r#"WHILE ValueFilter(<, 'binary:9')"#,
            r#"a1[d:x@200=7 d:y@100=5]"#,
        ),
        (
            "1",
            r#"QualifierFilter(=, 'binary:x') AND ValueFilter(>, 'binary:4')"#,
            r#"a1[d:x@200=7] a2[d:x@100=5] b2[d:x@100=50] c1[d:x@100=9]"#,
        ),
        (
            "1",
            r#"QualifierFilter(=, 'binary:y') OR ValueFilter(=, 'binary:9')"#,
            r#"a1[d:y@100=5] a2[d:yy@100=9] b1[d:y@100=3] c1[d:x@100=9]"#,
        ),
        (
            "1",
            r#"ValueFilter(=, 'binary:5') OR ValueFilter(=, 'binary:9') AND QualifierFilter(=, 'binary:x')"#,
            r#"a1[d:y@100=5] a2[d:x@100=5] c1[d:x@100=9 m:z@100=5]"#,
        ),
        (
            "1",
            r#"(ValueFilter(=, 'binary:5') OR ValueFilter(=, 'binary:9')) AND QualifierFilter(=, 'binary:x')"#,
            r#"a2[d:x@100=5] c1[d:x@100=9]"#,
        ),
        (
            "1",
            r#"SKIP ValueFilter(!=, 'binary:0') OR QualifierFilter(=, 'binary:z')"#,
            r#"a1[d:x@200=7 d:y@100=5 m:z@100=abc] a2[d:x@100=5 d:yy@100=9] b1[d:y@100=3 m:z@100=xyz] b2[d:x@100=50 d:z@100=it's] c1[d:x@100=9 m:z@100=5]"#,
        ),
        (
            "3",
            r#"(KeyOnlyFilter() OR FirstKeyOnlyFilter()) AND (SingleColumnValueFilter('d', 'x', >=, 'binary:5', true, true))"#,
            r#"a1[d:x@200= d:x@100= d:y@100= m:z@100=] a2[d:x@100= d:yy@100=] b2[d:x@100= d:z@100=] c1[d:a@100= d:x@100= m:z@100=]"#,
        ),
        (
            "1",
            r#"QualifierFilter(=, 'binary:y') AND SingleColumnValueFilter('d', 'x', =, 'binary:7', true, true)"#,
            r#""#,
        ),
        (
            "1",
            r#"ColumnPrefixFilter('y') AND SingleColumnValueFilter('d', 'x', =, 'binary:7', true, true)"#,
            r#""#,
        ),
        (
            "1",
            r#"KeyOnlyFilter() AND ColumnPrefixFilter('y') AND ColumnRangeFilter('a', true, '', false) AND ColumnPaginationFilter(1, 0)"#,
            r#"a1[d:y@100=] a2[d:yy@100=] b1[d:y@100=]"#,
        ),
        (
            "1",
            r#"FirstKeyOnlyFilter() AND ValueFilter(=, 'binary:5')"#,
            r#"a2[d:x@100=5]"#,
        ),
        (
            "1",
            r#"ValueFilter(=, 'binary:5') AND FirstKeyOnlyFilter()"#,
            r#"a1[d:y@100=5] a2[d:x@100=5] c1[m:z@100=5]"#,
        ),
        (
            "1",
            r#"PageFilter(1) OR ValueFilter(=, 'binary:9')"#,
            r#"a1[d:x@200=7 d:y@100=5 m:z@100=abc] a2[d:yy@100=9] c1[d:x@100=9]"#,
        ),
        (
            "1",
            r#"KeyOnlyFilter(TRUE)"#,
            r#"a1[d:x@200=\x00\x00\x00\x01 d:y@100=\x00\x00\x00\x01 m:z@100=\x00\x00\x00\x03] a2[d:x@100=\x00\x00\x00\x01 d:yy@100=\x00\x00\x00\x01] b1[d:y@100=\x00\x00\x00\x01 m:z@100=\x00\x00\x00\x03] b2[d:x@100=\x00\x00\x00\x02 d:z@100=\x00\x00\x00\x04] c1[d:a@100=\x00\x00\x00\x01 d:x@100=\x00\x00\x00\x01 m:z@100=\x00\x00\x00\x01]"#,
        ),
        (
            "1",
            r#"ColumnRangeFilter('', false, '', false)"#,
            r#"a1[d:x@200=7 d:y@100=5 m:z@100=abc] a2[d:x@100=5 d:yy@100=9] b1[d:y@100=3 m:z@100=xyz] b2[d:x@100=50 d:z@100=it's] c1[d:a@100=0 d:x@100=9 m:z@100=5]"#,
        ),
        (
            "1",
            r#"PageFilter(2) AND SingleColumnValueFilter('d', 'x', >, 'binary:6', true, true)"#,
            r#"a1[d:x@200=7 d:y@100=5 m:z@100=abc]"#,
        ),
        (
            "1",
            r#"SingleColumnValueFilter('d', 'x', >, 'binary:6', true, true) AND PageFilter(2)"#,
            r#"a1[d:x@200=7 d:y@100=5 m:z@100=abc] c1[d:a@100=0 d:x@100=9 m:z@100=5]"#,
        ),
        (
            "1",
            r#"SingleColumnValueFilter('d', 'x', =, 'binary:1', false, false)"#,
            r#"a1[d:x@200=7 d:y@100=5 m:z@100=abc] b1[d:y@100=3 m:z@100=xyz]"#,
        ),
        (
            "r1",
            r#"InclusiveStopFilter('b1')"#,
            r#"c1[d:a@100=0 d:x@100=9 m:z@100=5] b2[d:x@100=50 d:z@100=it's] b1[d:y@100=3 m:z@100=xyz]"#,
        ),
        (
            "r1",
            r#"PrefixFilter('a')"#,
            r#"a2[d:x@100=5 d:yy@100=9] a1[d:x@200=7 d:y@100=5 m:z@100=abc]"#,
        ),
        (
            "1",
            r#"ColumnPrefixFilter('y') OR ColumnPrefixFilter('z')"#,
            r#"a1[d:y@100=5 m:z@100=abc] a2[d:yy@100=9] b1[d:y@100=3 m:z@100=xyz] b2[d:z@100=it's] c1[m:z@100=5]"#,
        ),
        (
            "1",
            r#"ColumnPrefixFilter('y') OR ValueFilter(=, 'binary:9')"#,
            r#"a1[d:y@100=5] a2[d:yy@100=9] b1[d:y@100=3] c1[d:x@100=9]"#,
        ),
        (
            "1",
            r#"KeyOnlyFilter() OR ValueFilter(=, 'binary:9')"#,
            r#"a1[d:x@200= d:y@100= m:z@100=] a2[d:x@100= d:yy@100=] b1[d:y@100= m:z@100=] b2[d:x@100= d:z@100=] c1[d:a@100= d:x@100= m:z@100=]"#,
        ),
        (
            "1",
            r#"SKIP RowFilter(=, 'binary:a1')"#,
            r#"a1[d:x@200=7 d:y@100=5 m:z@100=abc] a2[d:x@100=5 d:yy@100=9] b1[d:y@100=3 m:z@100=xyz] b2[d:x@100=50 d:z@100=it's] c1[d:a@100=0 d:x@100=9 m:z@100=5]"#,
        ),
        (
            "1",
            r#"WHILE SingleColumnValueFilter('d', 'x', !=, 'binary:50', false, true)"#,
            r#"a1[d:x@200=7 d:y@100=5 m:z@100=abc] a2[d:x@100=5 d:yy@100=9] b1[d:y@100=3 m:z@100=xyz]"#,
        ),
        (
            "1",
            r#"ColumnPaginationFilter(1, 0) AND QualifierFilter(>, 'binary:x')"#,
            r#"b1[d:y@100=3]"#,
        ),
        (
            "1",
            r#"QualifierFilter(>, 'binary:x') AND ColumnPaginationFilter(1, 0)"#,
            r#"a1[d:y@100=5] a2[d:yy@100=9] b1[d:y@100=3] b2[d:z@100=it's] c1[m:z@100=5]"#,
        ),
        (
            "1",
            r#"FamilyFilter(=, 'binary:m') OR QualifierFilter(=, 'binary:y')"#,
            r#"a1[d:y@100=5 m:z@100=abc] b1[d:y@100=3 m:z@100=xyz] c1[m:z@100=5]"#,
        ),
        (
            "1",
            r#"SingleColumnValueFilter('d', 'x', =, 'binary:7', true, true) OR SingleColumnValueFilter('d', 'y', =, 'binary:3', true, true)"#,
            r#"a1[d:x@200=7 d:y@100=5 m:z@100=abc] b1[d:y@100=3 m:z@100=xyz]"#,
        ),
        ("1", r#"PageFilter(0)"#, r#""#),
        ("3", r#"TimestampsFilter(50)"#, r#""#),
        (
            "1",
            r#"SKIP FamilyFilter(=, 'binary:d')"#,
            r#"a2[d:x@100=5 d:yy@100=9] b2[d:x@100=50 d:z@100=it's]"#,
        ),
    ];

    #[test]
    fn filter_results_match_what_hbase_returned() {
        let mut wrong = Vec::new();
        for (versions, expression, expected) in SEEN_IN_HBASE {
            let reversed = versions.starts_with('r');
            let n: usize = versions.trim_start_matches('r').parse().unwrap();
            let got = scan(expression, n, reversed);
            if got != *expected {
                wrong.push(format!(
                    "{versions}|{expression}\n  hbase: {expected}\n  here:  {got}"
                ));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    /// The message of a parse error, which must be `IllegalArgument`.
    fn illegal(text: &[u8]) -> String {
        match Filter::parse(text) {
            Err(Error::IllegalArgument { message }) => message,
            other => panic!(
                "{:?}: expected IllegalArgument, got {other:?}",
                String::from_utf8_lossy(text)
            ),
        }
    }

    #[test]
    fn malformed_expressions_say_what_is_wrong() {
        // The gateway answers every one of these with a bare "Internal error processing
        // openScanner"; here each names the problem.
        let cases: &[(&str, &str)] = &[
            ("", "the filter is empty"),
            ("FooFilter()", "unknown filter \"FooFilter\""),
            ("valuefilter(=, 'binary:5')", "case-sensitive: ValueFilter"),
            ("ValueFilter(=)", "ValueFilter takes 2 arguments, not 1"),
            (
                "ValueFilter(=, 'binary:5') AND",
                "a filter is missing at the end",
            ),
            ("ValueFilter(~, 'binary:5')", "expected a compare operator"),
            ("ValueFilter(>, 'regexstring:a')", "only take = or !="),
            ("ValueFilter(=, 'regexstring:(')", "bad regular expression"),
            ("PageFilter('x')", "expected a page size (an integer)"),
            (
                "ValueFilter(=, 'nocomp:5')",
                "unknown comparator \"nocomp\"",
            ),
            ("ValueFilter(=, 'binary5')", "a comparator is 'binary:...'"),
            (
                "KeyOnlyFilter() KeyOnlyFilter()",
                "expected AND, OR or the end",
            ),
            ("PrefixFilter(a)", "expected a quoted literal"),
            (
                "ValueFilter(=, 'binary:5') and KeyOnlyFilter()",
                "expected AND, OR or the end",
            ),
            ("ColumnPaginationFilter(-1, 0)", "must not be negative"),
            ("KeyOnlyFilter(maybe)", "expected true or false"),
            ("PrefixFilter('a", "this quote is never closed"),
            ("(PrefixFilter('a')", "this '(' is never closed"),
            (
                "PrefixFilter('a'))",
                "expected AND, OR or the end, found ')'",
            ),
            ("PrefixFilter", "must be followed by its arguments"),
            ("AND PrefixFilter('a')", "AND needs a filter before it"),
            ("PrefixFilter('a' 'b')", "expected ',' or ')'"),
        ];
        for (text, part) in cases {
            let message = illegal(text.as_bytes());
            assert!(message.contains(part), "{text}: {message}");
        }
    }

    #[test]
    fn filters_not_modelled_are_unsupported_not_ignored() {
        for name in [
            "ColumnCountGetFilter(2)",
            "DependentColumnFilter('d', 'x')",
            "FuzzyRowFilter()",
        ] {
            match Filter::parse(format!("PrefixFilter('a') AND {name}").as_bytes()) {
                Err(Error::Unsupported {
                    operation, backend, ..
                }) => {
                    assert!(
                        name.starts_with(&operation["filter ".len()..]),
                        "{operation}"
                    );
                    assert_eq!(backend, "memory");
                }
                other => panic!("{name}: {other:?}"),
            }
        }
    }

    #[test]
    fn the_library_s_own_expressions_parse_and_apply() {
        // As entity/filter_expr.rs writes them: quotes doubled, any bytes inside quotes.
        let mut scvf = b"(KeyOnlyFilter() OR FirstKeyOnlyFilter()) AND \
            (SingleColumnValueFilter('d', 'it''s', >=, 'binary:\x00\xff''\"', true, true)) AND \
            (SingleColumnValueFilter('d', 'n', =, 'binaryprefix:al', true, true))"
            .to_vec();
        let f = Filter::parse(&scvf).unwrap();
        let cell = |q: &str, v: &[u8]| Cell {
            family: b"d".to_vec(),
            qualifier: q.into(),
            value: v.to_vec(),
            timestamp: 1,
        };
        let cells = vec![cell("it's", b"\x00\xff'\"!"), cell("n", b"alice")];
        let kept = f.apply(&mut FilterState::default(), b"r", cells.clone());
        let blank = |c: &Cell| Cell {
            value: Vec::new(),
            ..c.clone()
        };
        assert_eq!(kept, RowVerdict::Keep(cells.iter().map(blank).collect()));
        let other = vec![cell("it's", b"\x00\xff'\"!"), cell("n", b"bob")];
        assert_eq!(
            f.apply(&mut FilterState::default(), b"r", other),
            RowVerdict::Skip
        );
        // A stray ')' inside a quoted literal is only a byte.
        scvf = b"ValueFilter(=, 'binary:a)b')".to_vec();
        let f = Filter::parse(&scvf).unwrap();
        let v = vec![cell("q", b"a)b")];
        assert_eq!(
            f.apply(&mut FilterState::default(), b"r", v.clone()),
            RowVerdict::Keep(v)
        );
        // As entity/wide.rs writes them.
        let wide = b"KeyOnlyFilter() AND ColumnPrefixFilter('k') AND \
            ColumnRangeFilter('\x00', true, '', false) AND ColumnPaginationFilter(2, 0)";
        let f = Filter::parse(wide).unwrap();
        let cells = vec![
            cell("", b"marker"),
            cell("k1", b"1"),
            cell("k2", b"2"),
            cell("k3", b"3"),
        ];
        assert_eq!(
            f.apply(&mut FilterState::default(), b"r", cells),
            RowVerdict::Keep(vec![blank(&cell("k1", b"1")), blank(&cell("k2", b"2"))])
        );
    }

    #[test]
    fn and_binds_tighter_than_or_and_skip_tighter_than_and() {
        let Node::Or { children, .. } = Filter::parse(
            b"PrefixFilter('a') OR SKIP ValueFilter(=, 'binary:x') AND WHILE PrefixFilter('b')",
        )
        .unwrap()
        .root
        else {
            panic!("OR at the top");
        };
        assert!(matches!(children[0], Node::Leaf(Leaf::Prefix(_))));
        let Node::And { children, .. } = &children[1] else {
            panic!("AND below OR");
        };
        assert!(matches!(children[0], Node::Skip { .. }));
        assert!(matches!(children[1], Node::While { .. }));
    }

    #[test]
    fn a_stopped_scan_stays_stopped_and_a_full_page_stops_it() {
        let f = Filter::parse(b"PageFilter(1)").unwrap();
        let mut state = FilterState::default();
        let cells = || {
            vec![Cell {
                family: b"d".to_vec(),
                qualifier: b"q".to_vec(),
                value: b"v".to_vec(),
                timestamp: 1,
            }]
        };
        assert_eq!(
            f.apply(&mut state, b"a", cells()),
            RowVerdict::Keep(cells())
        );
        assert_eq!(f.apply(&mut state, b"b", cells()), RowVerdict::Stop);
        assert_eq!(f.apply(&mut state, b"c", cells()), RowVerdict::Stop);
        // A fresh state is a fresh scan.
        assert_eq!(
            f.apply(&mut FilterState::default(), b"b", cells()),
            RowVerdict::Keep(cells())
        );
    }

    #[test]
    fn the_version_limit_counts_only_cells_the_filter_let_through() {
        // HBase: `ValueFilter(=, 'binary:1')` with one version returns a1's older version.
        let f = Filter::parse(b"ValueFilter(=, 'binary:1')").unwrap();
        let (_, a1) = rows().remove(0);
        let RowVerdict::Keep(kept) = f.apply_versions(&mut FilterState::default(), b"a1", a1, 1)
        else {
            panic!("a1 kept");
        };
        assert_eq!(kept.len(), 1);
        assert_eq!(
            (kept[0].timestamp, kept[0].value.as_slice()),
            (100, &b"1"[..])
        );
        // Without a filter the limit keeps the newest version of each column.
        let f = Filter::parse(b"KeyOnlyFilter(false)").unwrap();
        let (_, a1) = rows().remove(0);
        let RowVerdict::Keep(kept) = f.apply_versions(&mut FilterState::default(), b"a1", a1, 1)
        else {
            panic!("a1 kept");
        };
        let stamps: Vec<i64> = kept.iter().map(|c| c.timestamp).collect();
        assert_eq!(stamps, vec![200, 100, 100]);
    }
}
