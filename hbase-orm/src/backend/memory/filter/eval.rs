//! The evaluator: HBase's return codes, comparators, and the expression tree answering per
//! cell and per row.

use super::*;

// ---------------------------------------------------------------------------------------------
// Return codes, comparators, operators
// ---------------------------------------------------------------------------------------------

/// HBase's `Filter.ReturnCode`, with the seek hint carried along.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Code {
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
    pub(super) fn includes(&self) -> bool {
        matches!(
            self,
            Code::Include | Code::IncludeAndNextCol | Code::IncludeAndNextRow
        )
    }

    /// HBase's order of how far a code moves on (`INCLUDE < SKIP < INCLUDE_AND_NEXT_COL <
    /// NEXT_COL < INCLUDE_AND_SEEK_NEXT_ROW < NEXT_ROW < SEEK_NEXT_USING_HINT`).
    pub(super) fn step(&self) -> u8 {
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
pub(super) fn merge_and(a: Code, b: Code) -> Code {
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
pub(super) fn merge_or(a: Code, b: Code) -> Code {
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
pub(super) enum Comparator {
    /// `binary:` — the whole bytes, lexicographically.
    Binary(Vec<u8>),
    /// `binaryprefix:` — the stored bytes cut to the given length.
    BinaryPrefix(Vec<u8>),
    /// `regexstring:` — equal when the pattern is found anywhere (Java's `find()`, not a
    /// whole match; HBase compiles with DOTALL, so `.` matches newlines here too) in the
    /// bytes read as UTF-8 text, each invalid sequence as U+FFFD, as HBase's
    /// `RegexStringComparator` reads them with its default charset.
    Regex(regex::Regex),
    /// `substring:` — equal when the stored text contains the given one, ignoring case
    /// (HBase lower-cases both); held lower-cased.
    Substring(Vec<u8>),
}

impl Comparator {
    /// Whether `stored` satisfies *stored OP given*. As in HBase, the comparator yields
    /// `given.compareTo(stored)` (0 or 1 for the matching comparators) and the operator reads
    /// that result the other way round.
    pub(super) fn keeps(&self, op: Op, stored: &[u8]) -> bool {
        use std::cmp::Ordering;
        let given_vs_stored = match self {
            Comparator::Binary(given) => given.as_slice().cmp(stored),
            Comparator::BinaryPrefix(given) => given
                .as_slice()
                .cmp(&stored[..stored.len().min(given.len())]),
            Comparator::Regex(re) => {
                if re.is_match(&String::from_utf8_lossy(stored)) {
                    Ordering::Equal
                } else {
                    Ordering::Greater
                }
            }
            Comparator::Substring(needle) => {
                let found = needle.is_empty()
                    || stored
                        .windows(needle.len())
                        .any(|w| w.eq_ignore_ascii_case(needle));
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
pub(super) enum Node {
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
pub(super) type Previous = (Code, Vec<u8>, Vec<u8>);

/// One filter with its arguments and counters.
#[derive(Clone, Debug)]
pub(super) enum Leaf {
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
    pub(super) fn reset(&mut self) {
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
    pub(super) fn all_remaining(&self) -> bool {
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
    pub(super) fn row_key(&mut self, row: &[u8], reversed: bool) -> bool {
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
    pub(super) fn cell(&mut self, cell: &Cell) -> Code {
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
                            Some((other.clone(), cell.family.to_vec(), cell.qualifier.to_vec()))
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
    pub(super) fn transform(&self, cell: Cell) -> Cell {
        match self {
            Node::Leaf(Leaf::KeyOnly(length_as_value)) => {
                let value = if *length_as_value {
                    (cell.value.len() as u32).to_be_bytes().to_vec().into()
                } else {
                    bytes::Bytes::new()
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
    pub(super) fn row_cells(&self, cells: &mut Vec<Cell>) {
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
    pub(super) fn row(&mut self) -> bool {
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
pub(super) fn still_passing(previous: &Previous, cell: &Cell) -> Option<Code> {
    let (code, family, qualifier) = previous;
    match code {
        Code::Seek(hint) => {
            let below = (cell.family.as_ref(), cell.qualifier.as_ref())
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
    pub(super) fn cell(&mut self, cell: &Cell) -> Code {
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
                    .filter(|p| p.as_slice() <= q.as_ref())
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
                let q = cell.qualifier.as_ref();
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
pub(super) fn keep_or(keep: bool, otherwise: Code) -> Code {
    if keep {
        Code::Include
    } else {
        otherwise
    }
}
