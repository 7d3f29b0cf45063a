//! Conditions on stored values sent to HBase as filters, where HBase can test them exactly: a
//! comparison of a cell with a constant becomes `SingleColumnValueFilter` on the cell's bytes
//! when the bytes compare as the values do (UTF-8 text, bytes and unsigned integers for every
//! comparison; signed integers for `=` and `<>` only: their big-endian bytes put negative values
//! after positive ones); `IS NULL` and `IS NOT NULL` on any stored column of one value; `AND`, `OR` and
//! `NOT` of those. Floats and booleans stay with DataFusion (several byte patterns stand for
//! one value). A row without the cell never passes a comparison, as SQL's NULL does not.

use datafusion::common::ScalarValue;
use datafusion::logical_expr::{BinaryExpr, Expr, Operator};
use hbase_orm::entity::{ColumnDef, ColumnKind, ValueType};
use hbase_orm::{single_column_value_filter, CompareOp, HBaseEntity};

use crate::schema::{EntitySchema, Source};

/// A condition as HBase's filter language, and the stored fields it tests (the scan must read
/// their cells for the filter to see them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ValueFilter {
    pub(crate) expression: Vec<u8>,
    pub(crate) columns: Vec<usize>,
}

/// The stored field (index in `E::COLUMNS`) and value type a column expression names.
fn stored<E: HBaseEntity>(schema: &EntitySchema, expr: &Expr) -> Option<(usize, ValueType)> {
    let Expr::Column(column) = expr else {
        return None;
    };
    let index = schema.arrow().index_of(&column.name).ok()?;
    let source = schema.sources()[index];
    match source.source {
        // One value per row: a `Versions` list is never NULL, nor compared as a whole.
        Source::Cell(c) if one_value(E::COLUMNS[c].kind) => Some((c, source.value_type)),
        _ => None,
    }
}

fn one_value(kind: ColumnKind) -> bool {
    matches!(
        kind,
        ColumnKind::Value | ColumnKind::Counter | ColumnKind::Version
    )
}

/// The bytes a cell of `value_type` holding `value` has, if the constant is such a value.
fn encoded(value_type: ValueType, value: &ScalarValue) -> Option<Vec<u8>> {
    let int = |v: &ScalarValue| -> Option<i128> {
        Some(match v {
            ScalarValue::Int8(Some(x)) => (*x).into(),
            ScalarValue::Int16(Some(x)) => (*x).into(),
            ScalarValue::Int32(Some(x)) => (*x).into(),
            ScalarValue::Int64(Some(x)) => (*x).into(),
            ScalarValue::UInt8(Some(x)) => (*x).into(),
            ScalarValue::UInt16(Some(x)) => (*x).into(),
            ScalarValue::UInt32(Some(x)) => (*x).into(),
            ScalarValue::UInt64(Some(x)) => (*x).into(),
            _ => return None,
        })
    };
    macro_rules! be {
        ($t:ty) => {
            <$t>::try_from(int(value)?).ok()?.to_be_bytes().to_vec()
        };
    }
    Some(match value_type {
        ValueType::Int8 => be!(i8),
        ValueType::Int16 => be!(i16),
        ValueType::Int32 => be!(i32),
        ValueType::Int64 => be!(i64),
        ValueType::UInt8 => be!(u8),
        ValueType::UInt16 => be!(u16),
        ValueType::UInt32 => be!(u32),
        ValueType::UInt64 => be!(u64),
        ValueType::Text => match value {
            ScalarValue::Utf8(Some(v))
            | ScalarValue::LargeUtf8(Some(v))
            | ScalarValue::Utf8View(Some(v)) => v.as_bytes().to_vec(),
            _ => return None,
        },
        ValueType::Bytes => match value {
            ScalarValue::Binary(Some(v))
            | ScalarValue::LargeBinary(Some(v))
            | ScalarValue::BinaryView(Some(v)) => v.clone(),
            _ => return None,
        },
        _ => return None,
    })
}

/// Whether the bytes of `value_type` order as its values do.
fn bytes_keep_order(value_type: ValueType) -> bool {
    matches!(
        value_type,
        ValueType::Text
            | ValueType::Bytes
            | ValueType::UInt8
            | ValueType::UInt16
            | ValueType::UInt32
            | ValueType::UInt64
    )
}

/// The comparison of `op` (*stored OP given*), and of its negation.
fn operator(op: Operator) -> Option<(CompareOp, CompareOp)> {
    Some(match op {
        Operator::Eq => (CompareOp::Equal, CompareOp::NotEqual),
        Operator::NotEq => (CompareOp::NotEqual, CompareOp::Equal),
        Operator::Lt => (CompareOp::Less, CompareOp::GreaterOrEqual),
        Operator::LtEq => (CompareOp::LessOrEqual, CompareOp::Greater),
        Operator::Gt => (CompareOp::Greater, CompareOp::LessOrEqual),
        Operator::GtEq => (CompareOp::GreaterOrEqual, CompareOp::Less),
        _ => return None,
    })
}

/// The filter of `def`'s newest cell compared by `op` with the bytes `value`.
fn single_column(def: &ColumnDef, op: CompareOp, value: &[u8], filter_if_missing: bool) -> Vec<u8> {
    single_column_value_filter(
        def.family.as_bytes(),
        def.qualifier.as_bytes(),
        op,
        &[&b"binary:"[..], value].concat(),
        filter_if_missing,
    )
}

/// The filter that tests `expr` exactly as SQL does (negated with `negate`), if HBase can.
fn translate_as<E: HBaseEntity>(
    schema: &EntitySchema,
    expr: &Expr,
    negate: bool,
) -> Option<ValueFilter> {
    match expr {
        Expr::BinaryExpr(BinaryExpr { left, op, right })
            if matches!(op, Operator::And | Operator::Or) =>
        {
            let (a, b) = (
                translate_as::<E>(schema, left, negate)?,
                translate_as::<E>(schema, right, negate)?,
            );
            // De Morgan: NOT (a AND b) = NOT a OR NOT b (NULLs agree under SQL's logic).
            let joiner = match (op, negate) {
                (Operator::And, false) | (Operator::Or, true) => " AND ",
                _ => " OR ",
            };
            let mut expression = b"(".to_vec();
            expression.extend(a.expression);
            expression.extend_from_slice(b")");
            expression.extend_from_slice(joiner.as_bytes());
            expression.extend_from_slice(b"(");
            expression.extend(b.expression);
            expression.extend_from_slice(b")");
            let mut columns = a.columns;
            columns.extend(b.columns);
            Some(ValueFilter {
                expression,
                columns,
            })
        }
        Expr::BinaryExpr(BinaryExpr { left, op, right }) => {
            let (col, op, value) = match (&**left, &**right) {
                (l, Expr::Literal(v, _)) => (stored::<E>(schema, l)?, *op, v),
                (Expr::Literal(v, _), r) => (stored::<E>(schema, r)?, op.swap()?, v),
                _ => return None,
            };
            let (column, value_type) = col;
            let ordered = !matches!(op, Operator::Eq | Operator::NotEq);
            if ordered && !bytes_keep_order(value_type) {
                return None;
            }
            let bytes = encoded(value_type, value)?;
            let (op, negated) = operator(op)?;
            let def = &E::COLUMNS[column];
            Some(ValueFilter {
                expression: single_column(def, if negate { negated } else { op }, &bytes, true),
                columns: vec![column],
            })
        }
        Expr::IsNotNull(inner) | Expr::IsNull(inner) => {
            let (column, _) = stored::<E>(schema, inner)?;
            let def = &E::COLUMNS[column];
            let null = matches!(expr, Expr::IsNull(_)) != negate;
            // Every value is at least the empty one: `>= ''` tests presence; `< ''` never
            // holds, so with rows without the cell let through it keeps only those.
            let expression = if null {
                single_column(def, CompareOp::Less, b"", false)
            } else {
                single_column(def, CompareOp::GreaterOrEqual, b"", true)
            };
            Some(ValueFilter {
                expression,
                columns: vec![column],
            })
        }
        // `NOT p` holds where `p` is false: the negated filter (a missing cell still fails).
        Expr::Not(inner) => translate_as::<E>(schema, inner, !negate),
        _ => None,
    }
}

/// The filter that tests `expr` exactly as SQL does, if HBase can.
pub(crate) fn translate<E: HBaseEntity>(schema: &EntitySchema, expr: &Expr) -> Option<ValueFilter> {
    translate_as::<E>(schema, expr, false)
}

/// The filters of `exprs` that HBase tests, and the filters `rows` of row keys, ANDed into
/// one.
pub(crate) fn combined<E: HBaseEntity>(
    schema: &EntitySchema,
    exprs: &[Expr],
    rows: impl IntoIterator<Item = Vec<u8>>,
) -> Option<ValueFilter> {
    let filters: Vec<ValueFilter> = exprs
        .iter()
        .filter_map(|e| translate::<E>(schema, e))
        .chain(rows.into_iter().map(|expression| ValueFilter {
            expression,
            columns: Vec::new(),
        }))
        .collect();
    if filters.is_empty() {
        return None;
    }
    let mut expression = Vec::new();
    let mut columns = Vec::new();
    for (i, f) in filters.into_iter().enumerate() {
        if i > 0 {
            expression.extend_from_slice(b" AND ");
        }
        expression.push(b'(');
        expression.extend(f.expression);
        expression.push(b')');
        columns.extend(f.columns);
    }
    columns.sort_unstable();
    columns.dedup();
    Some(ValueFilter {
        expression,
        columns,
    })
}
