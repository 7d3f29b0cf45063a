//! HBase's filter language applied to rows held in memory.
//!
//! The text is parsed by [`filter_language`], which describes the language; [`build`] turns
//! its syntax tree into the evaluator's tree ([`Node`], in [`eval`]), which holds the
//! filters' counters and compiled patterns.
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
//! modelled: the `long:`/`bitwise` comparators (not in the filter language), and Java's regex
//! dialect for `regexstring:` (Rust's `regex` on the bytes read as UTF-8 text, each invalid
//! sequence as U+FFFD, as HBase's `RegexStringComparator` reads them with its default
//! charset; `find` semantics and `.` matching newlines as there; lookarounds and
//! backreferences are refused).

mod build;
mod eval;
#[cfg(test)]
mod tests;

use crate::backend::filter_language::{self, Op};
use crate::model::{Cell, Error, Result};
use eval::*;

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
        let expr = filter_language::parse(text)?;
        Ok(Filter {
            root: build::node(text, &expr)?,
        })
    }

    /// Applies the filter to one row: its key and its cells after column selection, time
    /// range and version limits, in HBase's order (family, qualifier ascending, newest first).
    ///
    /// HBase filters a column's versions *before* it counts them against the version limit;
    /// cells cut by the limit beforehand are never seen, so give
    /// [`Filter::apply_versions`] every version in the time range where older versions
    /// exist.
    #[cfg(test)]
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

/// Filters HBase's filter language knows but this module does not model, and why.
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

/// The [`Error::Unsupported`] refusing the filter `name`, which this store does not model.
fn not_modelled(name: &str) -> Error {
    let why = NOT_MODELLED
        .iter()
        .find(|(n, _)| *n == name)
        .map_or("it is not modelled by the in-memory store", |(_, why)| why);
    Error::Unsupported {
        operation: format!("filter {name}"),
        backend: "memory",
        why: why.to_string(),
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
        let include = code.includes();
        skip = match code {
            Code::Include | Code::Skip => None,
            Code::IncludeAndNextCol | Code::NextCol => Some(SkipTo::NextColumn(
                cell.family.to_vec(),
                cell.qualifier.to_vec(),
            )),
            Code::IncludeAndNextRow | Code::NextRow => {
                Some(SkipTo::NextFamily(cell.family.to_vec()))
            }
            Code::Seek(ref hint) => Some(SkipTo::Qualifier(cell.family.to_vec(), hint.clone())),
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
