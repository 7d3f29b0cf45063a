//! HBase's filter language, parsed into a syntax tree that holds what the text says and
//! nothing else (no evaluation state, no compiled patterns).
//!
//! The text is the one a user gives a get or scan (`Get::filter`, `Scan::filter`; HBase
//! reference guide, "Thrift API and Filter Language"): filter calls such as
//! `ValueFilter(>=, 'binary:5')`, quoted literals with `''` for a quote, comparators
//! `binary:`, `binaryprefix:`, `regexstring:` and `substring:`, compare operators `<`, `<=`,
//! `=`, `!=`, `>=`, `>`, booleans (any case), integers, and the operators `SKIP` and `WHILE`
//! (tightest), `AND`, then `OR`, with parentheses.
//!
//! Two backends read it: the in-memory store builds its evaluator from the tree
//! (`backend/memory/filter`), and the native backend turns it into HBase's `Filter` protobuf
//! messages (`backend/native/filters`). The Thrift gateways send the text as it is and
//! HBase's `ParseFilter` parses it on the server; the tree has the shape `ParseFilter` gives
//! its filters: a run of one operator at one level is one list (`a OR b OR c` is one `OR` of
//! three, `a AND b OR c` an `OR` of an `AND` and `c`), a parenthesized list stays a list of
//! its own, and a lone operand is not wrapped.
//!
//! Parsed ([`Call`]): `PrefixFilter`, `ColumnPrefixFilter`, `MultipleColumnPrefixFilter`,
//! `ColumnRangeFilter`, `ColumnPaginationFilter` (limit and integer offset),
//! `ColumnCountGetFilter`, `SingleColumnValueFilter`, `SingleColumnValueExcludeFilter`,
//! `KeyOnlyFilter`, `FirstKeyOnlyFilter`, `PageFilter`, `ValueFilter`, `QualifierFilter`,
//! `FamilyFilter`, `RowFilter`, `InclusiveStopFilter`, `TimestampsFilter`,
//! `DependentColumnFilter`. Named but not parsed ([`Call::Unparsed`], each backend says why it
//! refuses them): `FirstKeyValueMatchingQualifiersFilter`, `ColumnValueFilter`,
//! `FuzzyRowFilter`, `MultiRowRangeFilter`, `RandomRowFilter`, `WhileMatchFilter`,
//! `SkipFilter`. Any other name, malformed text, and arguments that do not fit their filter
//! are [`Error::IllegalArgument`](crate::model::Error::IllegalArgument) naming the byte where
//! the problem is.

mod lex;
mod parse;
mod tree;

pub(crate) use tree::{Call, Comparator, ComparatorKind, Expr, Op};

use crate::model::Result;

/// Parses filter-language `text` into its syntax tree; malformed text, an unknown filter or
/// arguments that do not fit are
/// [`Error::IllegalArgument`](crate::model::Error::IllegalArgument).
pub(crate) fn parse(text: &[u8]) -> Result<Expr> {
    parse::parse(text)
}
