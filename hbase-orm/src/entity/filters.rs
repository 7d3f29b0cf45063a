//! Server-side filters of entity scans: raw filter-language expressions, and typed comparisons
//! of a stored field with a value encoded by the field's own codec.
//!
//! Every typed comparison is one
//! `SingleColumnValueFilter('fam', 'qual', OP, 'binary:<bytes>', true, true)` (or
//! `'binaryprefix:<bytes>'`): rows without the column are dropped (`filterIfMissing`), and
//! only the newest version of the cell is tested. HBase reads `OP` as *stored OP given*
//! (`>=` keeps rows whose stored value is at least the given one), unlike a check-and-mutate,
//! which reads it the other way round; `tests/entity_filters.rs` pins this down against a
//! real HBase. All filters of a scan are ANDed, each in parentheses so that a raw expression
//! using `OR` keeps its meaning.

use crate::entity::codec::Codec;
use crate::entity::scan::EntityScan;
use crate::entity::{Field, HBaseEntity};
use crate::error::Result;
use crate::model::{filter_literal, Column, CompareOp};

/// The filters of one scan (ANDed), and the columns the typed ones test.
#[derive(Clone, Default)]
pub(crate) struct Filters {
    parts: Vec<Vec<u8>>,
    tested: Vec<Column>,
}

impl std::fmt::Debug for Filters {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.parts.iter().map(|p| String::from_utf8_lossy(p)))
            .finish()
    }
}

impl Filters {
    /// Adds a raw filter-language expression; a blank one adds nothing.
    pub(crate) fn raw(&mut self, expression: Vec<u8>) {
        if !expression.iter().all(u8::is_ascii_whitespace) {
            self.parts.push(expression);
        }
    }

    /// Adds a comparison of the newest value of `family:qualifier` with `value`.
    fn compare(&mut self, family: &str, qualifier: &str, op: Comparison, value: &[u8]) {
        self.parts
            .push(single_column_value(family, qualifier, op, value));
        let column = Column {
            family: family.as_bytes().to_vec(),
            qualifier: Some(qualifier.as_bytes().to_vec()),
        };
        if !self.tested.contains(&column) {
            self.tested.push(column);
        }
    }

    /// All filters ANDed (each in parentheses when there are several); `None` without any.
    pub(crate) fn expression(&self) -> Option<Vec<u8>> {
        match self.parts.as_slice() {
            [] => None,
            [one] => Some(one.clone()),
            parts => {
                let mut out = Vec::new();
                for (i, part) in parts.iter().enumerate() {
                    if i > 0 {
                        out.extend_from_slice(b" AND ");
                    }
                    out.push(b'(');
                    out.extend_from_slice(part);
                    out.push(b')');
                }
                Some(out)
            }
        }
    }

    /// Adds the tested columns that `columns` does not already read: a
    /// `SingleColumnValueFilter` sees only the columns the scan asks for, and would take a
    /// column left out for a missing one (and drop every row).
    pub(crate) fn read_tested(&self, columns: &mut Vec<Column>) {
        for t in &self.tested {
            let covered = columns.iter().any(|c| {
                c.family == t.family && (c.qualifier.is_none() || c.qualifier == t.qualifier)
            });
            if !covered {
                columns.push(t.clone());
            }
        }
    }
}

/// How a stored value must compare with the given one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Comparison {
    /// A [`CompareOp`], read as *stored OP given*.
    Op(CompareOp),
    /// The stored value starts with the given bytes.
    Prefix,
}

/// `SingleColumnValueFilter('family', 'qualifier', OP, 'binary:<value>', true, true)`, the
/// value quoted as any bytes.
fn single_column_value(family: &str, qualifier: &str, op: Comparison, value: &[u8]) -> Vec<u8> {
    let (op, comparator): (&str, &[u8]) = match op {
        // HBase reads the operator as "stored OP given", the order the names say.
        Comparison::Op(op) => (
            match op {
                CompareOp::Less => "<",
                CompareOp::LessOrEqual => "<=",
                CompareOp::Equal => "=",
                CompareOp::NotEqual => "!=",
                CompareOp::GreaterOrEqual => ">=",
                CompareOp::Greater => ">",
            },
            b"binary:",
        ),
        Comparison::Prefix => ("=", b"binaryprefix:"),
    };
    let mut out = b"SingleColumnValueFilter(".to_vec();
    out.extend(filter_literal(family.as_bytes()));
    out.extend_from_slice(b", ");
    out.extend(filter_literal(qualifier.as_bytes()));
    out.extend_from_slice(b", ");
    out.extend_from_slice(op.as_bytes());
    out.extend_from_slice(b", ");
    out.extend(filter_literal(&[comparator, value].concat()));
    out.extend_from_slice(b", true, true)");
    out
}

/// Server-side filters. Values are encoded with the field's codec and compared with the
/// stored bytes; see [the notes on filters](EntityScan#filters).
impl<T: HBaseEntity> EntityScan<T> {
    /// Only rows that pass `expression`, in HBase's filter language, ANDed with the scan's
    /// other filters. The expression is bytes: quote binary arguments with
    /// [`filter_literal`](crate::filter_literal). A blank expression adds nothing.
    ///
    /// ```no_run
    /// # use hbase_orm::{HBaseEntity, Client};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "orders", family = "d")]
    /// # struct Order { #[hbase(key)] id: u64, city: String }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// use futures::TryStreamExt;
    ///
    /// let orders = client.repository::<Order>();
    /// let mut expression = b"ValueFilter(=, ".to_vec();
    /// expression.extend(hbase_orm::filter_literal(b"binary:Paris"));
    /// expression.push(b')');
    /// let in_paris: Vec<Order> = orders.scan().filter(expression).stream().try_collect().await?;
    /// # Ok(()) }
    /// ```
    pub fn filter(self, expression: impl Into<Vec<u8>>) -> Self {
        self.with_filters(|f| {
            f.raw(expression.into());
            Ok(())
        })
    }

    /// Only entities whose `field` equals `value`: its stored bytes are those of the encoded
    /// `value`. Rows without the field (an `Option` field that is `None`) are dropped.
    ///
    /// ```no_run
    /// # use hbase_orm::{HBaseEntity, Client};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "orders", family = "d")]
    /// # struct Order { #[hbase(key)] id: u64, city: String }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// use futures::TryStreamExt;
    ///
    /// let orders = client.repository::<Order>();
    /// let scan = orders.scan().where_eq(Order::CITY, &"Paris".to_string());
    /// let in_paris: Vec<Order> = scan.stream().try_collect().await?;
    /// # Ok(()) }
    /// ```
    pub fn where_eq<V, C: Codec<V>>(self, field: Field<T, V, C>, value: &V) -> Self {
        self.compare(field, CompareOp::Equal, value)
    }

    /// Only entities whose `field` is stored and differs from `value`. Rows without the field
    /// are dropped too, not kept.
    ///
    /// ```no_run
    /// # use hbase_orm::{HBaseEntity, Client};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "orders", family = "d")]
    /// # struct Order { #[hbase(key)] id: u64, city: String }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// let orders = client.repository::<Order>();
    /// let first = orders.scan().where_ne(Order::CITY, &"Paris".to_string()).page(20).await?;
    /// # Ok(()) }
    /// ```
    pub fn where_ne<V, C: Codec<V>>(self, field: Field<T, V, C>, value: &V) -> Self {
        self.compare(field, CompareOp::NotEqual, value)
    }

    /// Only entities whose `field` lies in `[lo, hi)`: `lo <= stored < hi`, comparing the
    /// stored bytes (two filters ANDed).
    ///
    /// The order is that of the encoded bytes, which is numeric order only for encodings that
    /// sort like numbers: unsigned integers, and signed ones as long as no value is negative
    /// ([`Native`](crate::Native) signed integers are big-endian two's complement, so `-1`
    /// sorts after every positive value; floats are IEEE 754 bits, so negative ones sort after
    /// positive ones and in reverse). Text is compared byte by byte (UTF-8, case-sensitive).
    ///
    /// ```no_run
    /// # use hbase_orm::{HBaseEntity, Client};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "orders", family = "d")]
    /// # struct Order { #[hbase(key)] id: u64, total: u64 }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// use futures::TryStreamExt;
    ///
    /// let orders = client.repository::<Order>();
    /// let scan = orders.scan().where_range(Order::TOTAL, &100, &500);
    /// let mid_sized: Vec<Order> = scan.stream().try_collect().await?;
    /// # Ok(()) }
    /// ```
    pub fn where_range<V, C: Codec<V>>(self, field: Field<T, V, C>, lo: &V, hi: &V) -> Self {
        self.where_ge(field, lo).where_lt(field, hi)
    }

    /// Only entities whose stored `field` is at least `value` (`stored >= value`, bytewise:
    /// see [`EntityScan::where_range`] for which encodings sort like numbers).
    ///
    /// ```no_run
    /// # use hbase_orm::{HBaseEntity, Client};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "orders", family = "d")]
    /// # struct Order { #[hbase(key)] id: u64, total: u64 }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// let orders = client.repository::<Order>();
    /// let big = orders.scan().where_ge(Order::TOTAL, &1_000).page(50).await?;
    /// # Ok(()) }
    /// ```
    pub fn where_ge<V, C: Codec<V>>(self, field: Field<T, V, C>, value: &V) -> Self {
        self.compare(field, CompareOp::GreaterOrEqual, value)
    }

    /// Only entities whose stored `field` is greater than `value` (`stored > value`,
    /// bytewise: see [`EntityScan::where_range`] for which encodings sort like numbers).
    ///
    /// ```no_run
    /// # use hbase_orm::{HBaseEntity, Client};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "orders", family = "d")]
    /// # struct Order { #[hbase(key)] id: u64, total: u64 }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// let orders = client.repository::<Order>();
    /// let paid = orders.scan().where_gt(Order::TOTAL, &0).page(50).await?;
    /// # Ok(()) }
    /// ```
    pub fn where_gt<V, C: Codec<V>>(self, field: Field<T, V, C>, value: &V) -> Self {
        self.compare(field, CompareOp::Greater, value)
    }

    /// Only entities whose stored `field` is at most `value` (`stored <= value`, bytewise:
    /// see [`EntityScan::where_range`] for which encodings sort like numbers).
    ///
    /// ```no_run
    /// # use hbase_orm::{HBaseEntity, Client};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "orders", family = "d")]
    /// # struct Order { #[hbase(key)] id: u64, total: u64 }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// let orders = client.repository::<Order>();
    /// let small = orders.scan().where_le(Order::TOTAL, &10).page(50).await?;
    /// # Ok(()) }
    /// ```
    pub fn where_le<V, C: Codec<V>>(self, field: Field<T, V, C>, value: &V) -> Self {
        self.compare(field, CompareOp::LessOrEqual, value)
    }

    /// Only entities whose stored `field` is less than `value` (`stored < value`, bytewise:
    /// see [`EntityScan::where_range`] for which encodings sort like numbers).
    ///
    /// ```no_run
    /// # use hbase_orm::{HBaseEntity, Client};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "orders", family = "d")]
    /// # struct Order { #[hbase(key)] id: u64, total: u64 }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// let orders = client.repository::<Order>();
    /// let small = orders.scan().where_lt(Order::TOTAL, &10).page(50).await?;
    /// # Ok(()) }
    /// ```
    pub fn where_lt<V, C: Codec<V>>(self, field: Field<T, V, C>, value: &V) -> Self {
        self.compare(field, CompareOp::Less, value)
    }

    /// Only entities whose stored `field` starts with the bytes `prefix` (`binaryprefix:`).
    ///
    /// The prefix is compared with the stored bytes as given, not encoded with the field's
    /// codec: for a `String` or `Vec<u8>` field with the native codec (UTF-8 text, raw bytes)
    /// that is the text or byte prefix; for other encodings (JSON, numbers) pass the bytes
    /// the stored values begin with.
    ///
    /// ```no_run
    /// # use hbase_orm::{HBaseEntity, Client};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "orders", family = "d")]
    /// # struct Order { #[hbase(key)] id: u64, name: String }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// let orders = client.repository::<Order>();
    /// let named_al = orders.scan().where_prefix(Order::NAME, "al").page(50).await?;
    /// # Ok(()) }
    /// ```
    pub fn where_prefix<V, C: Codec<V>>(
        self,
        field: Field<T, V, C>,
        prefix: impl AsRef<[u8]>,
    ) -> Self {
        let def = field.def();
        self.with_filters(|f| {
            f.compare(
                def.family,
                def.qualifier,
                Comparison::Prefix,
                prefix.as_ref(),
            );
            Ok(())
        })
    }

    /// Adds `stored OP value`, or keeps the encode error for `stream`/`page`.
    fn compare<V, C: Codec<V>>(self, field: Field<T, V, C>, op: CompareOp, value: &V) -> Self {
        self.with_filters(|f| -> Result<()> {
            let bytes = field.encode(value)?;
            let def = field.def();
            f.compare(def.family, def.qualifier, Comparison::Op(op), &bytes);
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(bytes: Option<Vec<u8>>) -> String {
        String::from_utf8(bytes.expect("a filter")).unwrap()
    }

    #[test]
    fn comparisons_name_the_column_the_operator_and_the_quoted_value() {
        let cases = [
            (CompareOp::Equal, "="),
            (CompareOp::NotEqual, "!="),
            (CompareOp::Less, "<"),
            (CompareOp::LessOrEqual, "<="),
            (CompareOp::Greater, ">"),
            (CompareOp::GreaterOrEqual, ">="),
        ];
        for (op, symbol) in cases {
            let mut f = Filters::default();
            f.compare("d", "city", Comparison::Op(op), b"Paris");
            assert_eq!(
                text(f.expression()),
                format!(
                    "SingleColumnValueFilter('d', 'city', {symbol}, 'binary:Paris', true, true)"
                )
            );
        }
    }

    #[test]
    fn prefixes_use_the_binaryprefix_comparator() {
        let mut f = Filters::default();
        f.compare("d", "n", Comparison::Prefix, b"al");
        assert_eq!(
            text(f.expression()),
            "SingleColumnValueFilter('d', 'n', =, 'binaryprefix:al', true, true)"
        );
    }

    #[test]
    fn quotes_in_values_and_names_are_doubled() {
        let mut f = Filters::default();
        f.compare("d", "it's", Comparison::Op(CompareOp::Equal), b"O'Hare");
        assert_eq!(
            text(f.expression()),
            "SingleColumnValueFilter('d', 'it''s', =, 'binary:O''Hare', true, true)"
        );
    }

    #[test]
    fn binary_values_go_as_bytes() {
        let mut f = Filters::default();
        let value = [0x00, 0xFF, b'\'', 0x80, b')'];
        f.compare("d", "code", Comparison::Op(CompareOp::Equal), &value);
        let mut expected = b"SingleColumnValueFilter('d', 'code', =, 'binary:".to_vec();
        expected.extend_from_slice(&[0x00, 0xFF, b'\'', b'\'', 0x80, b')']);
        expected.extend_from_slice(b"', true, true)");
        assert_eq!(f.expression().unwrap(), expected);
    }

    #[test]
    fn several_filters_are_anded_in_parentheses() {
        let mut f = Filters::default();
        assert_eq!(f.expression(), None);
        f.raw(b"KeyOnlyFilter() OR FirstKeyOnlyFilter()".to_vec());
        f.compare("d", "t", Comparison::Op(CompareOp::GreaterOrEqual), &[0, 5]);
        f.compare("d", "t", Comparison::Op(CompareOp::Less), &[0, 9]);
        assert_eq!(
            f.expression().unwrap(),
            b"(KeyOnlyFilter() OR FirstKeyOnlyFilter()) \
              AND (SingleColumnValueFilter('d', 't', >=, 'binary:\x00\x05', true, true)) \
              AND (SingleColumnValueFilter('d', 't', <, 'binary:\x00\x09', true, true))"
                .to_vec()
        );
    }

    #[test]
    fn blank_raw_expressions_add_nothing() {
        let mut f = Filters::default();
        f.raw(Vec::new());
        f.raw(b"  ".to_vec());
        assert_eq!(f.expression(), None);
        f.raw(b"PageFilter(3)".to_vec());
        assert_eq!(text(f.expression()), "PageFilter(3)");
    }

    #[test]
    fn tested_columns_are_read_unless_already_covered() {
        let mut f = Filters::default();
        f.compare("d", "a", Comparison::Op(CompareOp::Equal), b"1");
        f.compare("d", "a", Comparison::Op(CompareOp::NotEqual), b"2");
        f.compare("w", "b", Comparison::Prefix, b"x");
        f.compare("d", "c", Comparison::Prefix, b"x");
        let column = |fam: &str, q: Option<&str>| Column {
            family: fam.as_bytes().to_vec(),
            qualifier: q.map(|q| q.as_bytes().to_vec()),
        };
        let mut columns = vec![column("d", Some("c")), column("w", None)];
        f.read_tested(&mut columns);
        assert_eq!(
            columns,
            vec![
                column("d", Some("c")),
                column("w", None),
                column("d", Some("a"))
            ]
        );
    }
}
