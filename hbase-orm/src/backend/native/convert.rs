//! The model's reads and writes as HBase's protobuf messages, and results back as rows.

use bytes::Bytes;
use prost::Message;

use super::cellblock;
use super::frame::BadFrame;
use super::proto;
use super::proto::mutation_proto::{self, column_value::QualifierValue, ColumnValue, MutationType};
use crate::backend::visibility;
use crate::model::{self, Cell, Result, Row};

/// A filter given as text, in protobuf.
pub(crate) type FilterFn<'a> = &'a dyn Fn(&[u8]) -> Result<proto::Filter>;

fn bytes(v: &[u8]) -> Bytes {
    Bytes::copy_from_slice(v)
}

/// The columns a read names, one entry per family.
fn columns(columns: &[model::Column]) -> Vec<proto::Column> {
    let mut out: Vec<proto::Column> = Vec::new();
    for c in columns {
        let at = match out.iter().position(|p| p.family[..] == c.family[..]) {
            Some(i) => i,
            None => {
                out.push(proto::Column {
                    family: bytes(&c.family),
                    qualifier: Vec::new(),
                });
                out.len() - 1
            }
        };
        match &c.qualifier {
            Some(q) => out[at].qualifier.push(bytes(q)),
            // A whole family: no qualifier list (a family named twice, once whole, reads whole).
            None => out[at].qualifier.clear(),
        }
    }
    // A family named whole after some of its columns reads whole.
    for c in columns.iter().filter(|c| c.qualifier.is_none()) {
        if let Some(p) = out.iter_mut().find(|p| p.family[..] == c.family[..]) {
            p.qualifier.clear();
        }
    }
    out
}

fn time_range(range: Option<model::TimeRange>, timestamp: Option<i64>) -> Option<proto::TimeRange> {
    match (timestamp, range) {
        (Some(ts), _) => Some(proto::TimeRange {
            from: Some(ts as u64),
            to: Some(ts as u64 + 1),
        }),
        (None, Some(r)) => Some(proto::TimeRange {
            from: Some(r.min as u64),
            to: Some(r.max as u64),
        }),
        (None, None) => None,
    }
}

/// A get, `existence_only` when only whether it finds a row matters.
pub(crate) fn get(get: &model::Get, existence_only: bool, filter: FilterFn) -> Result<proto::Get> {
    Ok(proto::Get {
        row: bytes(&get.row),
        column: columns(&get.columns),
        filter: get.filter.as_deref().map(filter).transpose()?,
        time_range: time_range(get.time_range, get.timestamp),
        max_versions: get.max_versions.map(|v| v.max(1) as u32),
        existence_only: existence_only.then_some(true),
        consistency: consistency(get.consistency),
        attribute: authorizations(&get.authorizations),
        ..Default::default()
    })
}

/// A read's visibility labels as HBase's `VISIBILITY` attribute (none without labels).
fn authorizations(labels: &Option<Vec<String>>) -> Vec<proto::NameBytesPair> {
    labels
        .iter()
        .map(|labels| proto::NameBytesPair {
            name: visibility::ATTRIBUTE.into(),
            value: Some(visibility::authorizations(labels).into()),
        })
        .collect()
}

/// A read's consistency as HBase's messages say it (strong, the default, left out).
fn consistency(c: model::Consistency) -> Option<i32> {
    match c {
        model::Consistency::Strong => None,
        model::Consistency::Timeline => Some(proto::Consistency::Timeline as i32),
    }
}

/// A scan over `[start, stop)` of the server's own bounds (reversed: from `start` down).
pub(crate) fn scan(scan: &model::Scan, filter: FilterFn) -> Result<proto::Scan> {
    Ok(proto::Scan {
        column: columns(&scan.columns),
        start_row: scan.start.as_deref().map(bytes),
        stop_row: scan.stop.as_deref().map(bytes),
        filter: scan.filter.as_deref().map(filter).transpose()?,
        time_range: time_range(scan.time_range, None),
        max_versions: scan.max_versions.map(|v| v.max(1) as u32),
        batch_size: scan.batch_size.filter(|&b| b > 0).map(|b| b as u32),
        caching: scan.caching.filter(|&c| c > 0).map(|c| c as u32),
        reversed: scan.reversed.then_some(true),
        max_result_size: Some(scan.max_result_size.unwrap_or(MAX_RESULT_SIZE).max(1)),
        consistency: consistency(scan.consistency),
        attribute: authorizations(&scan.authorizations),
        ..Default::default()
    })
}

/// What one scan reply may carry at most, in bytes (HBase's client default).
pub(crate) const MAX_RESULT_SIZE: u64 = 2 * 1024 * 1024;

fn durability(d: Option<model::Durability>) -> Option<i32> {
    use mutation_proto::Durability as D;
    d.map(|d| {
        (match d {
            model::Durability::UseDefault => D::UseDefault,
            model::Durability::SkipWal => D::SkipWal,
            model::Durability::AsyncWal => D::AsyncWal,
            model::Durability::SyncWal => D::SyncWal,
            model::Durability::FsyncWal => D::FsyncWal,
        }) as i32
    })
}

/// Adds `value` to the column values of `family`.
fn push_value(values: &mut Vec<ColumnValue>, family: &[u8], value: QualifierValue) {
    match values.iter_mut().find(|c| c.family[..] == *family) {
        Some(c) => c.qualifier_value.push(value),
        None => values.push(ColumnValue {
            family: bytes(family),
            qualifier_value: vec![value],
        }),
    }
}

fn mutation(row: &[u8], kind: MutationType) -> proto::MutationProto {
    proto::MutationProto {
        row: Some(bytes(row)),
        mutate_type: Some(kind as i32),
        ..Default::default()
    }
}

/// The timestamp HBase reads as "now": the server writes its own time in its place.
const LATEST_TIMESTAMP: i64 = i64::MAX;

/// A put, its cells written at the end of the call's cell `block` (as HBase's own client
/// sends them): the message carries the row, how many cells of the block are its own, and
/// the put's options. No protobuf message per cell, no copy of a cell's parts.
pub(crate) fn put(put: &model::Put, block: &mut Vec<u8>) -> proto::MutationProto {
    let mut m = mutation(&put.row, MutationType::Put);
    for cell in &put.cells {
        let cell = cellblock::RawCell {
            row: &put.row,
            family: &cell.family,
            qualifier: &cell.qualifier,
            timestamp: cell.timestamp.or(put.timestamp).unwrap_or(LATEST_TIMESTAMP),
            value: &cell.value,
        };
        cellblock::write(block, &cell, cellblock::PUT);
    }
    m.associated_cell_count = Some(put.cells.len() as i32);
    m.timestamp = put.timestamp.map(|t| t as u64);
    m.durability = durability(put.durability);
    if let Some(ttl) = put.ttl {
        // HBase reads a put's TTL from the `_ttl` attribute, in milliseconds.
        m.attribute.push(proto::NameBytesPair {
            name: "_ttl".into(),
            value: Some(Bytes::copy_from_slice(
                &(ttl.as_millis().min(i64::MAX as u128) as i64).to_be_bytes(),
            )),
        });
    }
    m.attribute.extend(cell_visibility(&put.visibility));
    m
}

/// A delete.
pub(crate) fn delete(delete: &model::Delete) -> proto::MutationProto {
    use proto::mutation_proto::DeleteType as D;
    let mut m = mutation(&delete.row, MutationType::Delete);
    for target in &delete.targets {
        let (family, qualifier, kind, timestamp) = match target {
            model::DeleteTarget::Family(f) => (f, None, D::DeleteFamily, None),
            model::DeleteTarget::Column(f, q) => (f, Some(q), D::DeleteMultipleVersions, None),
            model::DeleteTarget::LatestVersion(f, q) => (f, Some(q), D::DeleteOneVersion, None),
            model::DeleteTarget::Version(f, q, t) => {
                (f, Some(q), D::DeleteOneVersion, Some(*t as u64))
            }
        };
        let value = QualifierValue {
            qualifier: qualifier.map(|q| bytes(q)),
            timestamp,
            delete_type: Some(kind as i32),
            ..Default::default()
        };
        push_value(&mut m.column_value, family, value);
    }
    // The timestamp is a whole-row delete's (`Delete::timestamp`): on a mutation with targets
    // HBase would read it as theirs too (a latest-version delete would become one at exactly
    // that time), so it goes only on a delete without targets, as the Thrift2 backend sends it.
    if delete.targets.is_empty() {
        m.timestamp = delete.timestamp.map(|t| t as u64);
    }
    m.durability = durability(delete.durability);
    m.attribute.extend(cell_visibility(&delete.visibility));
    m
}

/// A mutation's visibility expression as HBase's `VISIBILITY` attribute (none without one).
fn cell_visibility(expression: &Option<String>) -> Option<proto::NameBytesPair> {
    expression.as_ref().map(|e| proto::NameBytesPair {
        name: visibility::ATTRIBUTE.into(),
        value: Some(visibility::cell_visibility(e).into()),
    })
}

/// An increment (each amount as HBase's 8-byte big-endian long) or an append.
pub(crate) fn increment(increment: &model::Increment) -> proto::MutationProto {
    let mut m = mutation(&increment.row, MutationType::Increment);
    for (family, qualifier, by) in &increment.columns {
        let value = QualifierValue {
            qualifier: Some(bytes(qualifier)),
            value: Some(Bytes::copy_from_slice(&by.to_be_bytes())),
            ..Default::default()
        };
        push_value(&mut m.column_value, family, value);
    }
    m.durability = durability(increment.durability);
    m
}

/// An append.
pub(crate) fn append(append: &model::Append) -> proto::MutationProto {
    let mut m = mutation(&append.row, MutationType::Append);
    for (family, qualifier, tail) in &append.columns {
        let value = QualifierValue {
            qualifier: Some(bytes(qualifier)),
            value: Some(bytes(tail)),
            ..Default::default()
        };
        push_value(&mut m.column_value, family, value);
    }
    m.durability = durability(append.durability);
    m
}

/// One mutation of a row's mutations (a put's cells into `block`).
pub(crate) fn row_mutation(
    mutation: &model::Mutation,
    block: &mut Vec<u8>,
) -> proto::MutationProto {
    match mutation {
        model::Mutation::Put(p) => put(p, block),
        model::Mutation::Delete(d) => delete(d),
    }
}

/// A comparator named by its Java class, its message encoded.
pub(crate) fn comparator(class: &str, message: &impl Message) -> proto::Comparator {
    proto::Comparator {
        name: format!("org.apache.hadoop.hbase.filter.{class}"),
        serialized_comparator: Some(Bytes::from(message.encode_to_vec())),
    }
}

/// HBase's compare type for `op`.
pub(crate) fn compare_type(op: model::CompareOp) -> proto::CompareType {
    use model::CompareOp as O;
    use proto::CompareType as C;
    match op {
        O::Less => C::Less,
        O::LessOrEqual => C::LessOrEqual,
        O::Equal => C::Equal,
        O::NotEqual => C::NotEqual,
        O::GreaterOrEqual => C::GreaterOrEqual,
        O::Greater => C::Greater,
    }
}

/// The check of a check-and-mutate (an absent cell is checked with `NullComparator`).
pub(crate) fn condition(cam: &model::CheckAndMutate) -> proto::Condition {
    let comparator = match &cam.value {
        Some(v) => comparator(
            "BinaryComparator",
            &proto::BinaryComparator {
                comparable: proto::ByteArrayComparable {
                    value: Some(bytes(v)),
                },
            },
        ),
        None => comparator("NullComparator", &proto::NullComparator {}),
    };
    proto::Condition {
        row: bytes(&cam.row),
        family: Some(bytes(&cam.family)),
        qualifier: Some(bytes(&cam.qualifier)),
        compare_type: Some(compare_type(cam.op) as i32),
        comparator: Some(comparator),
        ..Default::default()
    }
}

/// Reads the results of a reply in order: each either lists its cells in protobuf or counts
/// the next cells of the cell block. A result without cells is `None`.
pub(crate) struct Results<'a> {
    block: &'a Bytes,
    cells: cellblock::Cells<'a>,
}

impl<'a> Results<'a> {
    /// The results of a reply whose cell block is `block`.
    pub(crate) fn new(block: &'a Bytes) -> Results<'a> {
        Results {
            block,
            cells: cellblock::Cells::new(block),
        }
    }

    /// The row of the next result.
    pub(crate) fn row(&mut self, result: &proto::Result) -> Result<Option<Row>, BadFrame> {
        let mut row: Option<Row> = None;
        for cell in &result.cell {
            let key = cell.row.clone().unwrap_or_default();
            let row = row.get_or_insert_with(|| Row::empty(key.to_vec()));
            row.cells.push(Cell {
                family: cell.family.clone().unwrap_or_default(),
                qualifier: cell.qualifier.clone().unwrap_or_default(),
                value: cell.value.clone().unwrap_or_default(),
                timestamp: cell.timestamp.unwrap_or_default() as i64,
            });
        }
        for _ in 0..result.associated_cell_count.unwrap_or(0).max(0) {
            let cell = self.cells.next().ok_or_else(|| {
                BadFrame("a result counts more cells than the cell block holds".into())
            })??;
            let row = row.get_or_insert_with(|| Row::empty(cell.row.to_vec()));
            row.cells.push(Cell {
                family: self.block.slice_ref(cell.family),
                qualifier: self.block.slice_ref(cell.qualifier),
                value: self.block.slice_ref(cell.value),
                timestamp: cell.timestamp,
            });
        }
        if let Some(row) = &mut row {
            row.stale = result.stale == Some(true);
        }
        Ok(row)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A result for fuzzing: a few protobuf cells (perhaps without a row key), and a count of
    /// cell-block cells that may be anything.
    pub(crate) fn arb_result() -> impl proptest::strategy::Strategy<Value = proto::Result> {
        use proptest::prelude::*;
        let cell = (any::<Option<u8>>(), any::<u64>()).prop_map(|(row, ts)| proto::Cell {
            row: row.map(|r| Bytes::from(format!("p{r}"))),
            family: Some(Bytes::from_static(b"d")),
            qualifier: Some(Bytes::from_static(b"q")),
            timestamp: Some(ts),
            value: Some(Bytes::from_static(b"v")),
            ..Default::default()
        });
        let count = prop_oneof![
            Just(None),
            (0i32..4).prop_map(Some),
            any::<i32>().prop_map(Some)
        ];
        (proptest::collection::vec(cell, 0..3), count).prop_map(|(cell, associated_cell_count)| {
            proto::Result {
                cell,
                associated_cell_count,
                ..Default::default()
            }
        })
    }

    fn no_filter(_: &[u8]) -> Result<proto::Filter> {
        unreachable!("no filter in these requests")
    }

    #[test]
    fn reads_name_each_family_once_and_whole_families_win() {
        let get = model::Get::new("r")
            .column("d", "a")
            .column("d", "b")
            .family("e")
            .column("e", "x")
            .time_range(5, 9);
        let g = super::get(&get, false, &no_filter).unwrap();
        assert_eq!(g.column.len(), 2);
        assert_eq!(g.column[0].qualifier.len(), 2);
        assert!(g.column[1].qualifier.is_empty(), "family e is read whole");
        assert_eq!(g.time_range.unwrap().to, Some(9));
        let exact = super::get(&model::Get::new("r").timestamp(7), true, &no_filter).unwrap();
        let range = exact.time_range.unwrap();
        assert_eq!((range.from, range.to), (Some(7), Some(8)));
        assert_eq!(exact.existence_only, Some(true));
    }

    #[test]
    fn deletes_carry_one_type_per_target() {
        use proto::mutation_proto::DeleteType as D;
        let d = model::Delete::new("r")
            .family("f")
            .column("d", "a")
            .latest_version("d", "b")
            .version("d", "c", 42);
        let m = delete(&d);
        let kinds: Vec<(Option<i32>, Option<u64>)> = m
            .column_value
            .iter()
            .flat_map(|c| {
                c.qualifier_value
                    .iter()
                    .map(|q| (q.delete_type, q.timestamp))
            })
            .collect();
        assert_eq!(
            kinds,
            vec![
                (Some(D::DeleteFamily as i32), None),
                (Some(D::DeleteMultipleVersions as i32), None),
                (Some(D::DeleteOneVersion as i32), None),
                (Some(D::DeleteOneVersion as i32), Some(42)),
            ]
        );
    }

    #[test]
    fn results_read_protobuf_cells_and_cell_block_cells() {
        let mut block = Vec::new();
        cellblock::tests::encode(&mut block, b"r", b"d", b"q", 3, b"v");
        let block = Bytes::from(block);
        let mut results = Results::new(&block);
        let counted = proto::Result {
            associated_cell_count: Some(1),
            ..Default::default()
        };
        let row = results.row(&counted).unwrap().unwrap();
        assert_eq!(row.value("d", "q"), Some(&b"v"[..]));
        assert!(results.row(&counted).is_err(), "the block is used up");
        let listed = proto::Result {
            cell: vec![proto::Cell {
                row: Some(Bytes::from_static(b"p")),
                family: Some(Bytes::from_static(b"d")),
                qualifier: Some(Bytes::from_static(b"x")),
                value: Some(Bytes::from_static(b"w")),
                timestamp: Some(1),
                ..Default::default()
            }],
            ..Default::default()
        };
        assert_eq!(results.row(&listed).unwrap().unwrap().key, b"p");
        assert!(results.row(&proto::Result::default()).unwrap().is_none());
    }
}
