//! Conditions on key parts turned into row ranges: `=` and `IN` on the leading parts become
//! key prefixes (through [`EntityKey::prefix_of`]), then `<`, `<=`, `>`, `>=` or `BETWEEN` on
//! the next part a range within them, when that part's encoding keeps the values' order. The
//! ranges always hold every row the conditions keep (more where a prefix is wider than the
//! condition): DataFusion checks the conditions again on the rows read (`Inexact`). A
//! `LIKE 'abc%'` on the next text part instead of a range narrows them to the keys whose part
//! starts with `abc`. When `=` and `IN` fix every key part, the spans are single rows, read
//! with gets.

use datafusion::common::ScalarValue;
use datafusion::logical_expr::utils::split_conjunction;
use datafusion::logical_expr::{Between, BinaryExpr, Expr, Like, Operator};
use hbase_orm::entity::{EntityKey, KeyPartDef, KeyTest, Scalar};
use hbase_orm::rowkey::{KeyKind, KeyPrefix};
use hbase_orm::{prefix_end, HBaseEntity};

use crate::schema::EntitySchema;

/// At most this many key prefixes come from `IN` lists; more and the part is not used.
const MAX_PREFIXES: usize = 1024;

/// A range of row keys: `start` included, `stop` excluded (empty: to the table's end).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeySpan {
    /// The first key of the range.
    pub start: Vec<u8>,
    /// The key after the range, empty for the table's end.
    pub stop: Vec<u8>,
}

impl KeySpan {
    /// The keys from `start` (included) to `stop` (excluded; empty: to the table's end).
    ///
    /// ```
    /// let span = hbase_orm_sql::KeySpan::new("a", "c");
    /// assert_eq!((span.start.as_slice(), span.stop.as_slice()), (&b"a"[..], &b"c"[..]));
    /// ```
    pub fn new(start: impl Into<Vec<u8>>, stop: impl Into<Vec<u8>>) -> Self {
        KeySpan {
            start: start.into(),
            stop: stop.into(),
        }
    }

    /// Every key.
    pub fn all() -> Self {
        KeySpan {
            start: Vec::new(),
            stop: Vec::new(),
        }
    }

    /// The one row `key`: from the key to the next one there can be (`key` + a zero byte).
    pub fn point(key: Vec<u8>) -> Self {
        let mut stop = Vec::with_capacity(key.len() + 1);
        stop.extend_from_slice(&key);
        stop.push(0);
        KeySpan { start: key, stop }
    }

    /// The key of the one row this span holds, if it holds at most one ([`KeySpan::point`]).
    pub fn as_point(&self) -> Option<&[u8]> {
        (self.stop.len() == self.start.len() + 1
            && self.stop.last() == Some(&0)
            && self.stop.starts_with(&self.start))
        .then_some(self.start.as_slice())
    }

    fn is_empty(&self) -> bool {
        !self.stop.is_empty() && self.start >= self.stop
    }

    /// The part of this span inside `[start, stop)` (`stop` empty: unbounded), if any.
    pub(crate) fn within(&self, start: &[u8], stop: &[u8]) -> Option<KeySpan> {
        let lo = self.start.as_slice().max(start).to_vec();
        let hi = match (self.stop.is_empty(), stop.is_empty()) {
            (true, _) => stop.to_vec(),
            (false, true) => self.stop.clone(),
            (false, false) => self.stop.as_slice().min(stop).to_vec(),
        };
        let span = KeySpan {
            start: lo,
            stop: hi,
        };
        (!span.is_empty()).then_some(span)
    }
}

/// What the conditions say of one key part.
#[derive(Debug, Default, Clone)]
struct PartConditions {
    /// The part is one of these values (`=`, `IN`); an empty list after `IN ()`.
    values: Option<Vec<Scalar<'static>>>,
    lower: Option<Scalar<'static>>,
    upper: Option<Scalar<'static>>,
    /// The part's text starts with this (`LIKE 'abc%'`).
    starts: Option<String>,
}

/// A constant of a condition, as a key part's scalar.
pub(crate) fn scalar(value: &ScalarValue) -> Option<Scalar<'static>> {
    Some(match value {
        ScalarValue::Boolean(Some(v)) => Scalar::Bool(*v),
        ScalarValue::Int8(Some(v)) => Scalar::Int((*v).into()),
        ScalarValue::Int16(Some(v)) => Scalar::Int((*v).into()),
        ScalarValue::Int32(Some(v)) => Scalar::Int((*v).into()),
        ScalarValue::Int64(Some(v)) => Scalar::Int(*v),
        ScalarValue::UInt8(Some(v)) => Scalar::UInt((*v).into()),
        ScalarValue::UInt16(Some(v)) => Scalar::UInt((*v).into()),
        ScalarValue::UInt32(Some(v)) => Scalar::UInt((*v).into()),
        ScalarValue::UInt64(Some(v)) => Scalar::UInt(*v),
        ScalarValue::Utf8(Some(v))
        | ScalarValue::LargeUtf8(Some(v))
        | ScalarValue::Utf8View(Some(v)) => Scalar::Text(v.clone().into()),
        ScalarValue::Binary(Some(v))
        | ScalarValue::LargeBinary(Some(v))
        | ScalarValue::BinaryView(Some(v)) => Scalar::Bytes(v.clone().into()),
        _ => return None,
    })
}

fn literal(expr: &Expr) -> Option<Scalar<'static>> {
    match expr {
        Expr::Literal(value, _) => scalar(value),
        _ => None,
    }
}

/// The key part (counting the parts read from the key) a column expression names.
fn key_part(schema: &EntitySchema, expr: &Expr) -> Option<usize> {
    let Expr::Column(column) = expr else {
        return None;
    };
    let index = schema.arrow().index_of(&column.name).ok()?;
    (0..schema.key_parts()).find(|&n| schema.key_column(n) == Some(index))
}

/// Whether `expr` is a condition on a key part that [`spans`] can use.
pub(crate) fn is_key_condition(schema: &EntitySchema, expr: &Expr) -> bool {
    let mut parts = vec![PartConditions::default(); schema.key_parts()];
    split_conjunction(expr)
        .into_iter()
        .all(|e| note(schema, e, &mut parts))
}

/// Records what one condition says of a key part; `false` if it is not such a condition.
fn note(schema: &EntitySchema, expr: &Expr, parts: &mut [PartConditions]) -> bool {
    match expr {
        Expr::BinaryExpr(BinaryExpr { left, op, right }) => {
            let (part, op, value) = match (key_part(schema, left), key_part(schema, right)) {
                (Some(p), None) => (p, *op, literal(right)),
                (None, Some(p)) => match op.swap() {
                    Some(op) => (p, op, literal(left)),
                    None => return false,
                },
                _ => return false,
            };
            let Some(value) = value else {
                return false;
            };
            let c = &mut parts[part];
            match op {
                Operator::Eq => c.values = Some(vec![value]),
                Operator::Gt | Operator::GtEq => c.lower = Some(value),
                Operator::Lt | Operator::LtEq => c.upper = Some(value),
                _ => return false,
            }
            true
        }
        Expr::InList(list) if !list.negated => {
            let Some(part) = key_part(schema, &list.expr) else {
                return false;
            };
            let values: Option<Vec<_>> = list.list.iter().map(literal).collect();
            match values {
                Some(values) => {
                    parts[part].values = Some(values);
                    true
                }
                None => false,
            }
        }
        Expr::Like(Like {
            negated: false,
            expr,
            pattern,
            escape_char: None,
            case_insensitive: false,
        }) => {
            let (Some(part), Some(Scalar::Text(pattern))) =
                (key_part(schema, expr), literal(pattern))
            else {
                return false;
            };
            match like_prefix(&pattern) {
                Some(prefix) => {
                    parts[part].starts = Some(prefix);
                    true
                }
                None => false,
            }
        }
        Expr::Between(Between {
            expr,
            negated: false,
            low,
            high,
        }) => {
            let Some(part) = key_part(schema, expr) else {
                return false;
            };
            let (Some(lo), Some(hi)) = (literal(low), literal(high)) else {
                return false;
            };
            parts[part].lower = Some(lo);
            parts[part].upper = Some(hi);
            true
        }
        _ => false,
    }
}

/// The text every value matching a `LIKE` pattern starts with: the characters before its
/// first wildcard (`%`, `_`), if there are some and none is escaped (`\`).
fn like_prefix(pattern: &str) -> Option<String> {
    let end = pattern.find(['%', '_', '\\'])?;
    let prefix = &pattern[..end];
    (!prefix.is_empty() && !pattern[end..].starts_with('\\')).then(|| prefix.to_string())
}

/// Whether a range of values of this part is a range of its encoded bytes (in the same or,
/// for reverse timestamps, the reverse order).
fn keeps_order(part: &KeyPartDef) -> bool {
    part.width.is_some()
        && matches!(
            part.kind,
            KeyKind::Ordered | KeyKind::FixedText | KeyKind::ReverseTimestamp
        )
}

/// The span of the keys that start with `prefix`.
fn prefix_span(prefix: &[u8]) -> KeySpan {
    KeySpan {
        start: prefix.to_vec(),
        stop: prefix_end(prefix).unwrap_or_default(),
    }
}

/// The prefix of these leading part values, if the key type can make it.
fn prefix<E: HBaseEntity>(values: &[Scalar<'_>]) -> Option<KeyPrefix> {
    E::Key::prefix_of(values)?.ok()
}

/// What `filters` (ANDed) say of each key part.
fn conditions(schema: &EntitySchema, filters: &[Expr]) -> Vec<PartConditions> {
    let mut parts = vec![PartConditions::default(); schema.key_parts()];
    for filter in filters {
        for e in split_conjunction(filter) {
            note(schema, e, &mut parts);
        }
    }
    parts
}

/// How many leading key parts `=` and `IN` fix for the spans: as long as each has values and
/// their combinations stay within [`MAX_PREFIXES`].
fn fixed_parts(parts: &[PartConditions]) -> usize {
    let mut combinations = 1usize;
    parts
        .iter()
        .take_while(|c| match &c.values {
            Some(values) => {
                combinations = combinations.saturating_mul(values.len().max(1));
                combinations <= MAX_PREFIXES
            }
            None => false,
        })
        .count()
}

/// The tests of row keys for the `=` conditions on key parts after the leading ones that
/// `=` and `IN` fix (those make the spans): "every device's readings at one time" on a
/// `[device][time]` key. HBase runs a test too where it can ([`KeyTest::row_filter`]: text
/// after delimited parts); the client tests every row's key before it decodes the row. A
/// value the part cannot hold makes no test (DataFusion finds no row then).
pub fn key_tests<E: HBaseEntity>(schema: &EntitySchema, filters: &[Expr]) -> Vec<KeyTest> {
    let parts = conditions(schema, filters);
    let leading = fixed_parts(&parts);
    parts
        .iter()
        .enumerate()
        .skip(leading)
        .filter_map(|(n, c)| match c.values.as_deref() {
            Some([value]) => E::Key::part_eq_test(n, value)?.ok(),
            _ => None,
        })
        .collect()
}

/// The spans of row keys (salted, as stored) that hold every row of `E` the `filters` keep:
/// every key when they say nothing of the leading key parts, single rows
/// ([`KeySpan::point`]) when they fix every part.
pub fn spans<E: HBaseEntity>(schema: &EntitySchema, filters: &[Expr]) -> Vec<KeySpan> {
    let parts = conditions(schema, filters);
    // The leading parts' values, each combination a prefix.
    let mut prefixes: Vec<Vec<Scalar<'static>>> = vec![Vec::new()];
    let mut range = None;
    let mut starts = None;
    let fixed = fixed_parts(&parts);
    for (n, c) in parts.iter().enumerate() {
        if let Some(values) = c.values.as_ref().filter(|_| n < fixed) {
            prefixes = prefixes
                .iter()
                .flat_map(|p| {
                    values.iter().map(move |v| {
                        let mut p = p.clone();
                        p.push(v.clone());
                        p
                    })
                })
                .collect();
            continue;
        }
        if (c.lower.is_some() || c.upper.is_some()) && keeps_order(&E::KEY_PARTS[n]) {
            range = Some((n, c));
        } else if let Some(text) = &c.starts {
            starts = (E::KEY_PARTS[n].kind == KeyKind::Variable).then_some(text);
        }
        break;
    }
    // Every part fixed: each prefix is a whole key.
    let whole = range.is_none()
        && starts.is_none()
        && prefixes.iter().all(|v| v.len() == E::KEY_PARTS.len());
    let mut out = Vec::new();
    for values in &prefixes {
        let base = if values.is_empty() {
            None
        } else {
            match prefix::<E>(values) {
                Some(p) => Some(p),
                // A value the part cannot hold or encode (a number out of its range, text
                // with the delimiter): no row has it.
                None => continue,
            }
        };
        // A prefix that fixes the salt bucket keeps its salted bytes; otherwise every bucket
        // is read, with bytes of the key without its salt byte (a bound that fixes the bucket
        // gives up its salt byte: the same range lies in every bucket).
        let bucket_fixed = base.as_ref().is_some_and(|p| !p.all_buckets);
        let bytes = |p: &KeyPrefix| -> Vec<u8> {
            match E::SALT_BUCKETS {
                Some(_) if !bucket_fixed && !p.all_buckets => p.bytes[1..].to_vec(),
                _ => p.bytes.clone(),
            }
        };
        let mut span = match &base {
            // A whole key with its salt byte: the one row.
            Some(p) if whole && !p.all_buckets => KeySpan::point(p.bytes.clone()),
            Some(p) => prefix_span(&bytes(p)),
            None => KeySpan::all(),
        };
        if let Some(text) = starts {
            // The keys whose next part starts with the text: its encoding is the text's bytes
            // (checked: the prefix of the whole text value holds them right after the base).
            let mut with = values.clone();
            with.push(Scalar::Text(text.clone().into()));
            if let Some(full) = prefix::<E>(&with) {
                let (full, at) = (bytes(&full), span.start.len());
                if full.len() >= at + text.len()
                    && full[..at] == span.start[..]
                    && full[at..].starts_with(text.as_bytes())
                {
                    span = prefix_span(&full[..at + text.len()]);
                }
            }
        }
        if let Some((n, c)) = range {
            let bound = |v: &Option<Scalar<'static>>| {
                let v = v.as_ref()?;
                let mut with = values.clone();
                with.push(v.clone());
                prefix::<E>(&with)
            };
            let (mut lo, mut hi) = (bound(&c.lower), bound(&c.upper));
            if E::KEY_PARTS[n].kind == KeyKind::ReverseTimestamp {
                std::mem::swap(&mut lo, &mut hi);
            }
            if let Some(lo) = &lo {
                span.start = bytes(lo);
            }
            if let Some(hi) = &hi {
                span.stop = prefix_end(&bytes(hi)).unwrap_or_default();
            }
        }
        let all_buckets = !bucket_fixed;
        if !span.is_empty() {
            out.push((span, all_buckets));
        }
    }
    salted::<E>(out)
}

/// The spans as stored: an unsalted span once per salt bucket of a salted entity; sorted and
/// merged where they overlap, so no row is read twice.
fn salted<E: HBaseEntity>(spans: Vec<(KeySpan, bool)>) -> Vec<KeySpan> {
    let mut out = Vec::new();
    for (span, all_buckets) in spans {
        match E::SALT_BUCKETS.filter(|_| all_buckets) {
            Some(buckets) => {
                for b in 0..buckets {
                    let with = |key: &[u8]| [&[b][..], key].concat();
                    let stop = if span.stop.is_empty() {
                        // The end of the bucket: the next bucket's first key.
                        prefix_end(&[b]).unwrap_or_default()
                    } else {
                        with(&span.stop)
                    };
                    out.push(KeySpan {
                        start: with(&span.start),
                        stop,
                    });
                }
            }
            None => out.push(span),
        }
    }
    merge(out)
}

/// Sorts spans and merges those that overlap or touch.
fn merge(mut spans: Vec<KeySpan>) -> Vec<KeySpan> {
    spans.sort_by(|a, b| a.start.cmp(&b.start));
    let mut out: Vec<KeySpan> = Vec::with_capacity(spans.len());
    for span in spans {
        match out.last_mut() {
            Some(last) if last.stop.is_empty() || span.start <= last.stop => {
                if !last.stop.is_empty() && (span.stop.is_empty() || span.stop > last.stop) {
                    last.stop = span.stop;
                }
            }
            _ => out.push(span),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(start: &[u8], stop: &[u8]) -> KeySpan {
        KeySpan::new(start, stop)
    }

    #[test]
    fn overlapping_spans_merge_and_the_table_end_absorbs() {
        let merged = merge(vec![span(b"c", b"d"), span(b"a", b"b"), span(b"a", b"bb")]);
        assert_eq!(merged, vec![span(b"a", b"bb"), span(b"c", b"d")]);
        let merged = merge(vec![span(b"a", b""), span(b"c", b"d")]);
        assert_eq!(merged, vec![span(b"a", b"")]);
    }

    #[test]
    fn a_like_pattern_gives_the_text_before_its_first_wildcard() {
        assert_eq!(like_prefix("abc%"), Some("abc".into()));
        assert_eq!(like_prefix("ab_d%"), Some("ab".into()));
        assert_eq!(like_prefix("a%b%"), Some("a".into()));
        assert_eq!(like_prefix("%abc"), None);
        assert_eq!(like_prefix("abc"), None);
        assert_eq!(like_prefix("ab\\%c%"), None);
    }

    #[test]
    fn a_point_is_one_key() {
        let p = KeySpan::point(b"ab".to_vec());
        assert_eq!(p, span(b"ab", b"ab\0"));
        assert_eq!(p.as_point(), Some(&b"ab"[..]));
        assert_eq!(span(b"ab", b"ab\x01").as_point(), None);
        assert_eq!(span(b"ab", b"ac").as_point(), None);
        assert_eq!(KeySpan::all().as_point(), None);
        // A region boundary inside the point's span leaves it whole or empty.
        assert_eq!(p.within(b"", b"ab"), None);
        assert_eq!(p.within(b"ab", b"").as_ref(), Some(&p));
    }

    #[test]
    fn a_span_is_cut_to_a_region() {
        let s = span(b"b", b"f");
        assert_eq!(s.within(b"", b"c"), Some(span(b"b", b"c")));
        assert_eq!(s.within(b"d", b""), Some(span(b"d", b"f")));
        assert_eq!(s.within(b"f", b""), None);
        assert_eq!(KeySpan::all().within(b"k", b"m"), Some(span(b"k", b"m")));
    }
}
