//! Filter-language text as HBase's `Filter` protobuf messages, built as HBase's own
//! `ParseFilter` builds its filters and serialized as their `toByteArray` does.
//!
//! A `Filter` message is the filter's class name (`org.apache.hadoop.hbase.filter.` and the
//! name written in the text) and its own message, encoded; a comparator is wrapped the same
//! way in a `Comparator` message. `AND` and `OR` are `FilterList`s (`MUST_PASS_ALL`,
//! `MUST_PASS_ONE`) of the shape `ParseFilter` gives them (see [`filter_language`]), `SKIP`
//! a `SkipFilter` and `WHILE` a `WhileMatchFilter` around the filter they apply to.
//!
//! What each filter's constructor does to its arguments is done here, so that the bytes are
//! the ones HBase would send: `MultipleColumnPrefixFilter`'s prefixes and
//! `TimestampsFilter`'s timestamps sorted and without repeats (HBase keeps them in a
//! `TreeSet`; it refuses repeated prefixes outright, here they are dropped as the in-memory
//! store drops them), `substring:` lower-cased, `regexstring:` with Java's `DOTALL` flag.
//! Integers HBase reads as an `int` (`ColumnPaginationFilter`, `ColumnCountGetFilter`) above
//! `i32::MAX` are [`Error::IllegalArgument`], as `ParseFilter` refuses them.

#[cfg(test)]
mod tests;

use super::proto;
use crate::backend::filter_language::{self, Call, Comparator, ComparatorKind, Expr, Op};
use crate::model::{Error, Result};
use prost::Message;

/// The Java package of HBase's filters and comparators.
const PACKAGE: &str = "org.apache.hadoop.hbase.filter";

/// Java's `Pattern.DOTALL`, which HBase's `RegexStringComparator(String)` compiles with.
const JAVA_DOTALL: i32 = 0x20;

/// Parses filter-language `text` and builds the `Filter` message HBase's `ParseFilter` would
/// build from it. Malformed text is [`Error::IllegalArgument`]; a filter the language names
/// but that has no translation is [`Error::Unsupported`] naming it.
pub(crate) fn to_proto(text: &[u8]) -> Result<proto::Filter> {
    filter(&filter_language::parse(text)?)
}

/// The message for one expression.
fn filter(expr: &Expr) -> Result<proto::Filter> {
    Ok(match expr {
        Expr::Call(call) => filter_call(call)?,
        Expr::And(operands) => filter_list(operands, proto::filter_list::Operator::MustPassAll)?,
        Expr::Or(operands) => filter_list(operands, proto::filter_list::Operator::MustPassOne)?,
        Expr::Skip(inner) => wrap(
            "SkipFilter",
            &proto::SkipFilter {
                filter: filter(inner)?,
            },
        ),
        Expr::While(inner) => wrap(
            "WhileMatchFilter",
            &proto::WhileMatchFilter {
                filter: filter(inner)?,
            },
        ),
    })
}

/// A `FilterList` of `operands`, in the order written.
fn filter_list(operands: &[Expr], operator: proto::filter_list::Operator) -> Result<proto::Filter> {
    let list = proto::FilterList {
        operator: operator as i32,
        filters: operands.iter().map(filter).collect::<Result<_>>()?,
    };
    Ok(wrap("FilterList", &list))
}

/// The message for one filter call.
fn filter_call(call: &Call) -> Result<proto::Filter> {
    let name = call.name();
    Ok(match call {
        Call::Prefix(prefix) => wrap(
            name,
            &proto::PrefixFilter {
                prefix: Some(bytes(prefix)),
            },
        ),
        Call::ColumnPrefix(prefix) => wrap(
            name,
            &proto::ColumnPrefixFilter {
                prefix: bytes(prefix),
            },
        ),
        Call::MultipleColumnPrefix(prefixes) => {
            let mut sorted: Vec<&Vec<u8>> = prefixes.iter().collect();
            sorted.sort();
            sorted.dedup();
            wrap(
                name,
                &proto::MultipleColumnPrefixFilter {
                    sorted_prefixes: sorted.into_iter().map(|p| bytes(p)).collect(),
                },
            )
        }
        Call::ColumnRange {
            min,
            min_inclusive,
            max,
            max_inclusive,
        } => wrap(
            name,
            &proto::ColumnRangeFilter {
                min_column: min.as_deref().map(bytes),
                min_column_inclusive: Some(*min_inclusive),
                max_column: max.as_deref().map(bytes),
                max_column_inclusive: Some(*max_inclusive),
            },
        ),
        Call::ColumnPagination { limit, offset } => wrap(
            name,
            &proto::ColumnPaginationFilter {
                limit: java_int(name, "limit", *limit)?,
                offset: Some(java_int(name, "offset", *offset)?),
                column_offset: None,
            },
        ),
        Call::ColumnCountGet(limit) => wrap(
            name,
            &proto::ColumnCountGetFilter {
                limit: java_int(name, "limit", *limit)?,
            },
        ),
        Call::SingleColumnValue {
            family,
            qualifier,
            op,
            comparator: c,
            filter_if_missing,
            latest_version_only,
            exclude,
        } => {
            let single = proto::SingleColumnValueFilter {
                column_family: Some(bytes(family)),
                column_qualifier: Some(bytes(qualifier)),
                compare_op: compare_type(*op) as i32,
                comparator: comparator(c),
                filter_if_missing: Some(*filter_if_missing),
                latest_version_only: Some(*latest_version_only),
            };
            if *exclude {
                wrap(
                    name,
                    &proto::SingleColumnValueExcludeFilter {
                        single_column_value_filter: single,
                    },
                )
            } else {
                wrap(name, &single)
            }
        }
        Call::KeyOnly(length_as_value) => wrap(
            name,
            &proto::KeyOnlyFilter {
                len_as_val: *length_as_value,
            },
        ),
        Call::FirstKeyOnly => wrap(name, &proto::FirstKeyOnlyFilter {}),
        Call::Page(size) => wrap(
            name,
            &proto::PageFilter {
                page_size: java_long(*size),
            },
        ),
        Call::Value(op, c) => wrap(
            name,
            &proto::ValueFilter {
                compare_filter: compare_filter(*op, c),
            },
        ),
        Call::Qualifier(op, c) => wrap(
            name,
            &proto::QualifierFilter {
                compare_filter: compare_filter(*op, c),
            },
        ),
        Call::Family(op, c) => wrap(
            name,
            &proto::FamilyFilter {
                compare_filter: compare_filter(*op, c),
            },
        ),
        Call::Row(op, c) => wrap(
            name,
            &proto::RowFilter {
                compare_filter: compare_filter(*op, c),
            },
        ),
        Call::InclusiveStop(stop) => wrap(
            name,
            &proto::InclusiveStopFilter {
                stop_row_key: Some(bytes(stop)),
            },
        ),
        Call::Timestamps(list) => {
            let mut timestamps: Vec<i64> = list.iter().map(|&t| java_long(t)).collect();
            timestamps.sort_unstable();
            timestamps.dedup();
            wrap(
                name,
                &proto::TimestampsFilter {
                    timestamps,
                    can_hint: Some(false),
                },
            )
        }
        Call::DependentColumn {
            family,
            qualifier,
            drop_dependent_column,
            value_test,
        } => {
            // Without a test HBase passes NO_OP and no comparator to its `CompareFilter`.
            let compare_filter = match value_test {
                Some((op, c)) => compare_filter(*op, c),
                None => proto::CompareFilter {
                    compare_op: proto::CompareType::NoOp as i32,
                    comparator: None,
                },
            };
            wrap(
                name,
                &proto::DependentColumnFilter {
                    compare_filter,
                    column_family: Some(bytes(family)),
                    column_qualifier: Some(bytes(qualifier)),
                    drop_dependent_column: Some(*drop_dependent_column),
                },
            )
        }
        Call::Unparsed(name) => return Err(untranslated(name)),
    })
}

/// The [`Error::Unsupported`] for a filter the language names but this backend does not send.
fn untranslated(name: &str) -> Error {
    let why = match name {
        "ColumnValueFilter" => {
            "the native backend does not translate it (its message is not in \
             hbase_subset.proto)"
        }
        "FirstKeyValueMatchingQualifiersFilter" => {
            "it is deprecated in HBase and the native backend does not translate it"
        }
        "WhileMatchFilter" => "write `WHILE f` instead",
        "SkipFilter" => "write `SKIP f` instead",
        _ => {
            "HBase's filter language does not register it (its ParseFilter answers \"not \
             supported\") and the native backend does not translate it"
        }
    };
    Error::Unsupported {
        operation: format!("filter {name}"),
        backend: "native",
        why: why.to_string(),
    }
}

/// The `Filter` message for the filter class `class` (its simple name) with `message` as its
/// serialized form, as HBase's `ProtobufUtil.toFilter` builds it.
fn wrap(class: &str, message: &impl Message) -> proto::Filter {
    proto::Filter {
        name: format!("{PACKAGE}.{class}"),
        serialized_filter: Some(message.encode_to_vec().into()),
    }
}

/// A `CompareFilter` part: the operator and the comparator.
fn compare_filter(op: Op, c: &Comparator) -> proto::CompareFilter {
    proto::CompareFilter {
        compare_op: compare_type(op) as i32,
        comparator: Some(comparator(c)),
    }
}

/// The `Comparator` message for `c`, as HBase's `ParseFilter.createComparator` makes the
/// comparator and `ProtobufUtil.toComparator` wraps it.
fn comparator(c: &Comparator) -> proto::Comparator {
    let comparable = || proto::ByteArrayComparable {
        value: Some(bytes(&c.value)),
    };
    let (class, serialized) = match c.kind {
        ComparatorKind::Binary => (
            "BinaryComparator",
            proto::BinaryComparator {
                comparable: comparable(),
            }
            .encode_to_vec(),
        ),
        ComparatorKind::BinaryPrefix => (
            "BinaryPrefixComparator",
            proto::BinaryPrefixComparator {
                comparable: comparable(),
            }
            .encode_to_vec(),
        ),
        // HBase reads the bytes as UTF-8 (`new String(value, UTF_8)`, each malformed
        // sequence a U+FFFD) and compiles the pattern with DOTALL, matching text decoded as
        // UTF-8 by the Java engine.
        ComparatorKind::RegexString => (
            "RegexStringComparator",
            proto::RegexStringComparator {
                pattern: String::from_utf8_lossy(&c.value).into_owned(),
                pattern_flags: JAVA_DOTALL,
                charset: "UTF-8".to_string(),
                engine: Some("JAVA".to_string()),
            }
            .encode_to_vec(),
        ),
        // The constructor lower-cases the text (`toLowerCase(Locale.ROOT)`) and serializes
        // that.
        ComparatorKind::Substring => (
            "SubstringComparator",
            proto::SubstringComparator {
                substr: String::from_utf8_lossy(&c.value).to_lowercase(),
            }
            .encode_to_vec(),
        ),
    };
    proto::Comparator {
        name: format!("{PACKAGE}.{class}"),
        serialized_comparator: Some(serialized.into()),
    }
}

/// HBase's `CompareType` for an operator.
fn compare_type(op: Op) -> proto::CompareType {
    match op {
        Op::Less => proto::CompareType::Less,
        Op::LessOrEqual => proto::CompareType::LessOrEqual,
        Op::Equal => proto::CompareType::Equal,
        Op::NotEqual => proto::CompareType::NotEqual,
        Op::GreaterOrEqual => proto::CompareType::GreaterOrEqual,
        Op::Greater => proto::CompareType::Greater,
    }
}

/// Bytes for a message field.
fn bytes(b: &[u8]) -> prost::bytes::Bytes {
    prost::bytes::Bytes::copy_from_slice(b)
}

/// An integer argument HBase reads as a Java `int`; above `i32::MAX` it refuses it.
fn java_int(filter: &str, what: &str, n: u64) -> Result<i32> {
    i32::try_from(n).map_err(|_| Error::IllegalArgument {
        message: format!(
            "filter {filter}: the {what} {n} is above {}, the largest HBase takes there (a \
             Java int)",
            i32::MAX
        ),
    })
}

/// An integer argument HBase reads as a Java `long`; the parser keeps integers within it.
fn java_long(n: u64) -> i64 {
    i64::try_from(n).expect("the filter language's integers fit an i64")
}
