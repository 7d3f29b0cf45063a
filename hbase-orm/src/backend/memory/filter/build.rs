//! The evaluator's starting state, built from the parsed expression: every filter's counters
//! at zero, its comparators ready to compare (patterns compiled, substrings lower-cased).

use super::*;
use crate::backend::filter_language::{self as language, Call, ComparatorKind, Expr};

/// The expression tree for `expr`, parsed from `text` (for messages); a filter this store
/// does not model is [`Error::Unsupported`], a pattern Rust's `regex` cannot compile
/// [`Error::IllegalArgument`].
pub(super) fn node(text: &[u8], expr: &Expr) -> Result<Node> {
    let nodes = |children: &[Expr]| {
        children
            .iter()
            .map(|c| node(text, c))
            .collect::<Result<Vec<_>>>()
    };
    Ok(match expr {
        Expr::Call(call) => Node::Leaf(leaf(text, call)?),
        Expr::And(children) => Node::And {
            included: vec![false; children.len()],
            children: nodes(children)?,
        },
        Expr::Or(children) => Node::Or {
            included: vec![false; children.len()],
            previous: vec![None; children.len()],
            children: nodes(children)?,
        },
        Expr::Skip(inner) => Node::Skip {
            inner: Box::new(node(text, inner)?),
            failed: false,
        },
        Expr::While(inner) => Node::While {
            inner: Box::new(node(text, inner)?),
            done: false,
        },
    })
}

/// One filter with its counters at zero.
fn leaf(text: &[u8], call: &Call) -> Result<Leaf> {
    let name = call.name();
    let ready = |c: &language::Comparator| comparator(text, name, c);
    Ok(match call {
        Call::Prefix(p) => Leaf::Prefix(p.clone()),
        Call::ColumnPrefix(p) => Leaf::ColumnPrefix(p.clone()),
        Call::MultipleColumnPrefix(prefixes) => {
            let mut prefixes = prefixes.clone();
            prefixes.sort();
            prefixes.dedup();
            Leaf::MultipleColumnPrefix(prefixes)
        }
        Call::ColumnRange {
            min,
            min_inclusive,
            max,
            max_inclusive,
        } => Leaf::ColumnRange {
            min: min.clone(),
            min_inclusive: *min_inclusive,
            max: max.clone(),
            max_inclusive: *max_inclusive,
        },
        Call::ColumnPagination { limit, offset } => Leaf::ColumnPagination {
            limit: *limit,
            offset: *offset,
            count: 0,
        },
        Call::SingleColumnValue {
            family,
            qualifier,
            op,
            comparator,
            filter_if_missing,
            latest_version_only,
            exclude,
        } => Leaf::SingleColumnValue {
            family: family.clone(),
            qualifier: qualifier.clone(),
            op: *op,
            comparator: ready(comparator)?,
            filter_if_missing: *filter_if_missing,
            latest_version_only: *latest_version_only,
            exclude: *exclude,
            found: false,
            matched: false,
        },
        Call::KeyOnly(length_as_value) => Leaf::KeyOnly(*length_as_value),
        Call::FirstKeyOnly => Leaf::FirstKeyOnly { seen: false },
        Call::Page(size) => Leaf::Page {
            size: *size as i64,
            accepted: 0,
        },
        Call::Value(op, c) => Leaf::Value(*op, ready(c)?),
        Call::Qualifier(op, c) => Leaf::Qualifier(*op, ready(c)?),
        Call::Family(op, c) => Leaf::Family(*op, ready(c)?),
        Call::Row(op, c) => Leaf::Row {
            op: *op,
            comparator: ready(c)?,
            out: false,
        },
        Call::InclusiveStop(stop) => Leaf::InclusiveStop {
            stop: stop.clone(),
            done: false,
        },
        Call::Timestamps(list) => {
            let mut list: Vec<i64> = list.iter().map(|&t| t as i64).collect();
            list.sort_unstable();
            list.dedup();
            Leaf::Timestamps(list)
        }
        Call::ColumnCountGet(_) | Call::DependentColumn { .. } | Call::Unparsed(_) => {
            return Err(not_modelled(name))
        }
    })
}

/// The comparator `c` of the filter `filter`, ready to compare.
fn comparator(text: &[u8], filter: &str, c: &language::Comparator) -> Result<Comparator> {
    Ok(match c.kind {
        ComparatorKind::Binary => Comparator::Binary(c.value.clone()),
        ComparatorKind::BinaryPrefix => Comparator::BinaryPrefix(c.value.clone()),
        ComparatorKind::Substring => Comparator::Substring(c.value.to_ascii_lowercase()),
        ComparatorKind::RegexString => {
            let pattern = String::from_utf8(c.value.clone())
                .map_err(|_| c.error(text, filter, "the regular expression is not UTF-8"))?;
            let re = regex::RegexBuilder::new(&pattern)
                .dot_matches_new_line(true)
                .build()
                .map_err(|e| c.error(text, filter, &format!("bad regular expression: {e}")))?;
            Comparator::Regex(re)
        }
    })
}
