//! Each filter's message, decoded back and checked field by field.

use super::*;

/// `to_proto` of `text`, which must translate.
fn proto_of(text: impl AsRef<[u8]>) -> proto::Filter {
    let text = text.as_ref();
    to_proto(text).unwrap_or_else(|e| panic!("{}: {e}", String::from_utf8_lossy(text)))
}

/// The message of `filter`, whose class must be `class` (simple name).
fn decode<M: Message + Default>(filter: &proto::Filter, class: &str) -> M {
    assert_eq!(
        filter.name,
        format!("org.apache.hadoop.hbase.filter.{class}")
    );
    let bytes = filter
        .serialized_filter
        .as_ref()
        .expect("serialized filter");
    M::decode(bytes.as_ref()).unwrap_or_else(|e| panic!("{class}: {e}"))
}

/// The single filter `text` translates to, of class `class`.
fn only<M: Message + Default>(text: impl AsRef<[u8]>, class: &str) -> M {
    decode(&proto_of(text), class)
}

/// A comparator's simple class name and message bytes.
fn comparator_parts(c: &proto::Comparator) -> (&str, &[u8]) {
    let class = c
        .name
        .strip_prefix("org.apache.hadoop.hbase.filter.")
        .unwrap_or_else(|| panic!("comparator {}", c.name));
    let bytes = c
        .serialized_comparator
        .as_ref()
        .expect("serialized comparator");
    (class, bytes.as_ref())
}

/// The value of a `BinaryComparator`.
fn binary(c: &proto::Comparator) -> Vec<u8> {
    let (class, bytes) = comparator_parts(c);
    assert_eq!(class, "BinaryComparator");
    let m = proto::BinaryComparator::decode(bytes).unwrap();
    m.comparable.value.expect("value").to_vec()
}

/// The operator and binary value of a compare filter part.
fn compared(f: &proto::CompareFilter) -> (i32, Vec<u8>) {
    (
        f.compare_op,
        binary(f.comparator.as_ref().expect("comparator")),
    )
}

/// The `FilterList` operator and operands of `filter`.
fn list(filter: &proto::Filter) -> (proto::filter_list::Operator, Vec<proto::Filter>) {
    let l: proto::FilterList = decode(filter, "FilterList");
    (l.operator(), l.filters)
}

/// The prefix of a `PrefixFilter`.
fn prefix_of(filter: &proto::Filter) -> Vec<u8> {
    let p: proto::PrefixFilter = decode(filter, "PrefixFilter");
    p.prefix.expect("prefix").to_vec()
}

#[test]
fn row_and_column_prefix_filters() {
    assert_eq!(prefix_of(&proto_of("PrefixFilter('a''b')")), b"a'b");
    let c: proto::ColumnPrefixFilter = only("ColumnPrefixFilter('\x00q')", "ColumnPrefixFilter");
    assert_eq!(c.prefix.as_ref(), b"\x00q");
    // Sorted and without repeats, as HBase's TreeSet holds them.
    let m: proto::MultipleColumnPrefixFilter = only(
        "MultipleColumnPrefixFilter('ya', 'b', 'y', 'b')",
        "MultipleColumnPrefixFilter",
    );
    let prefixes: Vec<&[u8]> = m.sorted_prefixes.iter().map(|p| p.as_ref()).collect();
    assert_eq!(prefixes, [&b"b"[..], b"y", b"ya"]);
}

#[test]
fn column_range_filter_leaves_an_empty_bound_out() {
    let r: proto::ColumnRangeFilter = only(
        "ColumnRangeFilter('b', true, 'd', FALSE)",
        "ColumnRangeFilter",
    );
    assert_eq!(r.min_column.as_deref(), Some(&b"b"[..]));
    assert_eq!(r.min_column_inclusive, Some(true));
    assert_eq!(r.max_column.as_deref(), Some(&b"d"[..]));
    assert_eq!(r.max_column_inclusive, Some(false));
    let r: proto::ColumnRangeFilter = only(
        "ColumnRangeFilter('', false, '', true)",
        "ColumnRangeFilter",
    );
    assert_eq!((r.min_column, r.max_column), (None, None));
    assert_eq!(
        (r.min_column_inclusive, r.max_column_inclusive),
        (Some(false), Some(true))
    );
}

#[test]
fn counting_filters() {
    let p: proto::ColumnPaginationFilter =
        only("ColumnPaginationFilter(2, 5)", "ColumnPaginationFilter");
    assert_eq!((p.limit, p.offset, p.column_offset), (2, Some(5), None));
    let c: proto::ColumnCountGetFilter = only("ColumnCountGetFilter(7)", "ColumnCountGetFilter");
    assert_eq!(c.limit, 7);
    let p: proto::PageFilter = only("PageFilter(4000000000)", "PageFilter");
    assert_eq!(p.page_size, 4_000_000_000);
    // HBase reads these as a Java int.
    for text in [
        "ColumnPaginationFilter(2147483648, 0)",
        "ColumnPaginationFilter(1, 2147483648)",
        "ColumnCountGetFilter(2147483648)",
    ] {
        match to_proto(text.as_bytes()) {
            Err(Error::IllegalArgument { message }) => {
                assert!(message.contains("2147483647"), "{text}: {message}")
            }
            other => panic!("{text}: {other:?}"),
        }
    }
    let p: proto::ColumnPaginationFilter = only(
        "ColumnPaginationFilter(2147483647, 0)",
        "ColumnPaginationFilter",
    );
    assert_eq!(p.limit, i32::MAX);
}

#[test]
fn single_column_value_filters_and_their_defaults() {
    // Four arguments: filterIfMissing false and latestVersionOnly true, as HBase's defaults.
    let s: proto::SingleColumnValueFilter = only(
        b"SingleColumnValueFilter('d', 'it''s', >=, 'binary:\x00\xff')",
        "SingleColumnValueFilter",
    );
    assert_eq!(s.column_family.as_deref(), Some(&b"d"[..]));
    assert_eq!(s.column_qualifier.as_deref(), Some(&b"it's"[..]));
    assert_eq!(s.compare_op, proto::CompareType::GreaterOrEqual as i32);
    assert_eq!(binary(&s.comparator), b"\x00\xff");
    assert_eq!(
        (s.filter_if_missing, s.latest_version_only),
        (Some(false), Some(true))
    );
    let s: proto::SingleColumnValueFilter = only(
        "SingleColumnValueFilter('d', 'x', !=, 'binary:5', true, false)",
        "SingleColumnValueFilter",
    );
    assert_eq!(s.compare_op, proto::CompareType::NotEqual as i32);
    assert_eq!(
        (s.filter_if_missing, s.latest_version_only),
        (Some(true), Some(false))
    );
    // The exclude variant wraps the same message.
    let e: proto::SingleColumnValueExcludeFilter = only(
        "SingleColumnValueExcludeFilter('d', 'x', <, 'binary:5', true, true)",
        "SingleColumnValueExcludeFilter",
    );
    let s = e.single_column_value_filter;
    assert_eq!(s.column_qualifier.as_deref(), Some(&b"x"[..]));
    assert_eq!(s.compare_op, proto::CompareType::Less as i32);
    assert_eq!(binary(&s.comparator), b"5");
    assert_eq!(
        (s.filter_if_missing, s.latest_version_only),
        (Some(true), Some(true))
    );
}

#[test]
fn key_and_row_filters() {
    let k: proto::KeyOnlyFilter = only("KeyOnlyFilter()", "KeyOnlyFilter");
    assert!(!k.len_as_val);
    let k: proto::KeyOnlyFilter = only("KeyOnlyFilter(true)", "KeyOnlyFilter");
    assert!(k.len_as_val);
    let f = proto_of("FirstKeyOnlyFilter()");
    let _: proto::FirstKeyOnlyFilter = decode(&f, "FirstKeyOnlyFilter");
    assert_eq!(f.serialized_filter.as_deref(), Some(&b""[..]));
    let s: proto::InclusiveStopFilter = only("InclusiveStopFilter('r9')", "InclusiveStopFilter");
    assert_eq!(s.stop_row_key.as_deref(), Some(&b"r9"[..]));
    // Sorted and without repeats; HBase sends can_hint false for the language's filter.
    let t: proto::TimestampsFilter = only("TimestampsFilter(30, 10, 20, 10)", "TimestampsFilter");
    assert_eq!(t.timestamps, [10, 20, 30]);
    assert_eq!(t.can_hint, Some(false));
    let t: proto::TimestampsFilter = only("TimestampsFilter()", "TimestampsFilter");
    assert!(t.timestamps.is_empty());
}

#[test]
fn compare_filters_carry_their_operator_and_comparator() {
    let v: proto::ValueFilter = only("ValueFilter(<, 'binary:5')", "ValueFilter");
    assert_eq!(compared(&v.compare_filter), (0, b"5".to_vec()));
    let q: proto::QualifierFilter = only("QualifierFilter(<=, 'binary:q')", "QualifierFilter");
    assert_eq!(compared(&q.compare_filter), (1, b"q".to_vec()));
    let f: proto::FamilyFilter = only("FamilyFilter(=, 'binary:d')", "FamilyFilter");
    assert_eq!(compared(&f.compare_filter), (2, b"d".to_vec()));
    let r: proto::RowFilter = only("RowFilter(!=, 'binary:')", "RowFilter");
    assert_eq!(compared(&r.compare_filter), (3, Vec::new()));
    let r: proto::RowFilter = only("RowFilter(>=, 'binary:a:b')", "RowFilter");
    assert_eq!(compared(&r.compare_filter), (4, b"a:b".to_vec()));
    let r: proto::RowFilter = only("RowFilter(>, 'binary:z')", "RowFilter");
    assert_eq!(compared(&r.compare_filter), (5, b"z".to_vec()));
}

#[test]
fn comparators_are_serialized_as_hbase_does() {
    let comparator_of = |text: &str| {
        let v: proto::ValueFilter = only(text, "ValueFilter");
        v.compare_filter.comparator.expect("comparator")
    };
    let c = comparator_of("ValueFilter(=, 'binaryprefix:ab')");
    let (class, bytes) = comparator_parts(&c);
    assert_eq!(class, "BinaryPrefixComparator");
    let p = proto::BinaryPrefixComparator::decode(bytes).unwrap();
    assert_eq!(p.comparable.value.as_deref(), Some(&b"ab"[..]));

    let c = comparator_of("ValueFilter(!=, 'regexstring:^a.*(?=b)')");
    let (class, bytes) = comparator_parts(&c);
    assert_eq!(class, "RegexStringComparator");
    let r = proto::RegexStringComparator::decode(bytes).unwrap();
    // Java's regex dialect is the server's business: a lookahead goes through.
    assert_eq!(r.pattern, "^a.*(?=b)");
    assert_eq!(r.pattern_flags, 32, "Pattern.DOTALL");
    assert_eq!(r.charset, "UTF-8");
    assert_eq!(r.engine.as_deref(), Some("JAVA"));

    let c = comparator_of("ValueFilter(=, 'substring:AbÄ')");
    let (class, bytes) = comparator_parts(&c);
    assert_eq!(class, "SubstringComparator");
    let s = proto::SubstringComparator::decode(bytes).unwrap();
    assert_eq!(s.substr, "abä");
}

#[test]
fn dependent_column_filter_in_its_three_forms() {
    let d: proto::DependentColumnFilter =
        only("DependentColumnFilter('d', 'x')", "DependentColumnFilter");
    assert_eq!(d.column_family.as_deref(), Some(&b"d"[..]));
    assert_eq!(d.column_qualifier.as_deref(), Some(&b"x"[..]));
    assert_eq!(d.drop_dependent_column, Some(false));
    assert_eq!(d.compare_filter.compare_op, proto::CompareType::NoOp as i32);
    assert_eq!(d.compare_filter.compare_op, 6);
    assert!(d.compare_filter.comparator.is_none());
    let d: proto::DependentColumnFilter = only(
        "DependentColumnFilter('d', 'x', true)",
        "DependentColumnFilter",
    );
    assert_eq!(d.drop_dependent_column, Some(true));
    assert_eq!(d.compare_filter.compare_op, 6);
    let d: proto::DependentColumnFilter = only(
        "DependentColumnFilter('d', 'x', false, >, 'binary:7')",
        "DependentColumnFilter",
    );
    assert_eq!(d.drop_dependent_column, Some(false));
    assert_eq!(compared(&d.compare_filter), (5, b"7".to_vec()));
}

#[test]
fn and_binds_tighter_than_or_and_a_run_is_one_list() {
    use proto::filter_list::Operator::{MustPassAll, MustPassOne};
    // `A AND B OR C`: an OR of (an AND of A and B) and C.
    let top = proto_of("PrefixFilter('a') AND PrefixFilter('b') OR PrefixFilter('c')");
    let (op, operands) = list(&top);
    assert_eq!((op, operands.len()), (MustPassOne, 2));
    let (inner_op, inner) = list(&operands[0]);
    assert_eq!(inner_op, MustPassAll);
    let inner: Vec<Vec<u8>> = inner.iter().map(prefix_of).collect();
    assert_eq!(inner, [b"a".to_vec(), b"b".to_vec()]);
    assert_eq!(prefix_of(&operands[1]), b"c");
    // `A OR B AND C`: C goes with B.
    let (op, operands) = list(&proto_of(
        "PrefixFilter('a') OR PrefixFilter('b') AND PrefixFilter('c')",
    ));
    assert_eq!(op, MustPassOne);
    assert_eq!(prefix_of(&operands[0]), b"a");
    assert_eq!(list(&operands[1]).0, MustPassAll);
    // A run of one operator is one list, as ParseFilter pops it...
    let (op, operands) = list(&proto_of(
        "PrefixFilter('a') OR PrefixFilter('b') OR PrefixFilter('c')",
    ));
    assert_eq!(op, MustPassOne);
    let flat: Vec<Vec<u8>> = operands.iter().map(prefix_of).collect();
    assert_eq!(flat, [b"a".to_vec(), b"b".to_vec(), b"c".to_vec()]);
    // ...while parentheses keep a list of their own.
    let (_, operands) = list(&proto_of(
        "(PrefixFilter('a') AND PrefixFilter('b')) AND PrefixFilter('c')",
    ));
    assert_eq!(operands.len(), 2);
    assert_eq!(list(&operands[0]).1.len(), 2);
    // A lone filter in parentheses is not wrapped in a list.
    assert_eq!(prefix_of(&proto_of("((PrefixFilter('a')))")), b"a");
}

#[test]
fn skip_and_while_wrap_the_filter_they_apply_to() {
    let (_, operands) = list(&proto_of(
        "SKIP ValueFilter(=, 'binary:x') AND WHILE RowFilter(<, 'binary:m')",
    ));
    let skip: proto::SkipFilter = decode(&operands[0], "SkipFilter");
    let v: proto::ValueFilter = decode(&skip.filter, "ValueFilter");
    assert_eq!(compared(&v.compare_filter), (2, b"x".to_vec()));
    let whole: proto::WhileMatchFilter = decode(&operands[1], "WhileMatchFilter");
    let r: proto::RowFilter = decode(&whole.filter, "RowFilter");
    assert_eq!(compared(&r.compare_filter), (0, b"m".to_vec()));
    // Around a parenthesized list, and nested.
    let skip: proto::SkipFilter = only(
        "SKIP (PrefixFilter('a') OR PrefixFilter('b'))",
        "SkipFilter",
    );
    assert_eq!(list(&skip.filter).1.len(), 2);
    let outer: proto::WhileMatchFilter = only("WHILE SKIP PrefixFilter('a')", "WhileMatchFilter");
    let inner: proto::SkipFilter = decode(&outer.filter, "SkipFilter");
    assert_eq!(prefix_of(&inner.filter), b"a");
}

#[test]
fn filters_without_a_translation_are_unsupported_and_named() {
    for (text, name) in [
        (
            "PrefixFilter('a') AND FuzzyRowFilter('x', 1)",
            "FuzzyRowFilter",
        ),
        (
            "ColumnValueFilter('d', 'x', =, 'binary:1')",
            "ColumnValueFilter",
        ),
        ("SKIP WhileMatchFilter(PrefixFilter)", "WhileMatchFilter"),
        ("MultiRowRangeFilter()", "MultiRowRangeFilter"),
    ] {
        match to_proto(text.as_bytes()) {
            Err(Error::Unsupported {
                operation,
                backend,
                why,
            }) => {
                assert_eq!(operation, format!("filter {name}"), "{text}");
                assert_eq!(backend, "native");
                assert!(!why.is_empty());
            }
            other => panic!("{text}: {other:?}"),
        }
    }
}

#[test]
fn malformed_text_is_an_illegal_argument() {
    for text in [
        "",
        "NoSuchFilter()",
        "ValueFilter(>, 'substring:a')",
        "PrefixFilter('a') AND",
    ] {
        assert!(
            matches!(
                to_proto(text.as_bytes()),
                Err(Error::IllegalArgument { .. })
            ),
            "{text}"
        );
    }
}
