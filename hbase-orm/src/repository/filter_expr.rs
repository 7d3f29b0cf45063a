//! The filter-language text of a scan's filters: raw expressions,
//! `SingleColumnValueFilter`s and row-key patterns (`RowFilter`), ANDed, each in parentheses so that a raw expression using `OR`
//! keeps its meaning, and the columns the comparisons test (a scan must read them).

use crate::mapping::keyparts::KeyTest;
use crate::model::{single_column_value_filter, Column, CompareOp};

/// The filters of one scan (ANDed), and the columns the typed ones test.
#[derive(Clone, Default)]
pub(crate) struct Filters {
    parts: Vec<Vec<u8>>,
    tested: Vec<Column>,
    /// Tests of key parts, applied on the client to every row's key (some also sent).
    keys: Vec<KeyTest>,
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
    pub(crate) fn compare(&mut self, family: &str, qualifier: &str, op: Comparison, value: &[u8]) {
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

    /// Adds a test of a key part: applied to every row's key on the client, and sent as
    /// `RowFilter(=, 'regexstring:<pattern>')` when HBase runs it exactly (see
    /// `mapping/keyparts.rs`).
    pub(crate) fn key_test(&mut self, test: KeyTest) {
        self.parts.extend(test.row_filter());
        self.keys.push(test);
    }

    /// The key tests, for the client to apply.
    pub(crate) fn key_tests(&self) -> Vec<KeyTest> {
        self.keys.clone()
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
pub(crate) enum Comparison {
    /// A [`CompareOp`], read as *stored OP given*.
    Op(CompareOp),
    /// The stored value starts with the given bytes.
    Prefix,
}

/// `SingleColumnValueFilter('family', 'qualifier', OP, 'binary:<value>', true, true)`, the
/// value quoted as any bytes.
fn single_column_value(family: &str, qualifier: &str, op: Comparison, value: &[u8]) -> Vec<u8> {
    // HBase reads the operator as "stored OP given", the order the names say.
    let (op, comparator): (CompareOp, &[u8]) = match op {
        Comparison::Op(op) => (op, b"binary:"),
        Comparison::Prefix => (CompareOp::Equal, b"binaryprefix:"),
    };
    single_column_value_filter(
        family.as_bytes(),
        qualifier.as_bytes(),
        op,
        &[comparator, value].concat(),
        true,
    )
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
