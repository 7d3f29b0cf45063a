//! Maps the project's types to and from `hbase-thrift`'s (Thrift1) ones, refusing with
//! [`Error::Unsupported`] whatever Thrift1 cannot express.

use std::cmp::Reverse;

use hbase_thrift::hbase::{
    ColumnDescriptor, Mutation as TMutation, TCell, TRegionInfo, TRowResult, TScan,
};

use super::call::Attributes;
use crate::backend::wire;
use crate::model::{
    BloomFilter, Cell, Column, ColumnFamily, Compression, Delete, DeleteTarget, Durability, Error,
    Put, RegionLocation, Result, Row, Scan, TableName, TimeRange,
};

/// HBase's `LATEST_TIMESTAMP`: "now" on the server, and the upper bound of an open time range.
pub(crate) const LATEST: i64 = i64::MAX;

/// The backend's name in errors.
pub(crate) const BACKEND: &str = "thrift1";

/// An [`Error::Unsupported`] for `operation`.
pub(crate) fn unsupported(operation: &str, why: impl Into<String>) -> Error {
    Error::Unsupported {
        operation: operation.to_string(),
        backend: BACKEND,
        why: why.into(),
    }
}

/// `namespace:table`, as the Thrift1 gateway parses table names.
pub(crate) fn table_text(t: &TableName) -> Vec<u8> {
    t.full_name().into_bytes()
}

/// A name from `getTableNames`: `ns:table`, or `table` in namespace `default`.
pub(crate) fn table_name_from(text: Vec<u8>) -> Result<TableName> {
    let text = String::from_utf8(text).map_err(|e| Error::Protocol {
        method: "getTableNames",
        message: format!("table name is not UTF-8: {e}"),
    })?;
    let (ns, name) = text.split_once(':').unwrap_or(("default", &text));
    Ok(TableName::new(ns, name))
}

/// `family:qualifier`, Thrift1's name of one column.
pub(crate) fn column_text(family: &[u8], qualifier: &[u8]) -> Vec<u8> {
    let mut text = Vec::with_capacity(family.len() + 1 + qualifier.len());
    text.extend_from_slice(family);
    text.push(b':');
    text.extend_from_slice(qualifier);
    text
}

/// A requested column: `family` for a whole family, `family:qualifier` for one column.
pub(crate) fn read_column(c: &Column) -> Vec<u8> {
    match &c.qualifier {
        Some(q) => column_text(&c.family, q),
        None => c.family.clone(),
    }
}

/// Splits `family:qualifier` at the first `:` (families cannot contain one).
fn split_column(text: &[u8]) -> (Vec<u8>, Vec<u8>) {
    match text.iter().position(|&b| b == b':') {
        Some(i) => (text[..i].to_vec(), text[i + 1..].to_vec()),
        None => (text.to_vec(), Vec::new()),
    }
}

/// One returned cell.
fn cell(column: &[u8], c: TCell) -> Cell {
    let (family, qualifier) = split_column(column);
    Cell {
        family: family.into(),
        qualifier: qualifier.into(),
        value: c.value.unwrap_or_default().into(),
        timestamp: c.timestamp.unwrap_or_default(),
    }
}

/// A returned row with its cells in HBase's order (family, qualifier, newest first): the
/// `columns` map is keyed by `family:qualifier` text, which does not sort like the pair.
/// `None` if it has no cells.
pub(crate) fn row(r: TRowResult) -> Option<Row> {
    let mut cells: Vec<Cell> = match (r.sorted_columns, r.columns) {
        (Some(sorted), _) if !sorted.is_empty() => sorted
            .into_iter()
            .map(|c| {
                cell(
                    &c.column_name.unwrap_or_default(),
                    c.cell.unwrap_or_default(),
                )
            })
            .collect(),
        (_, columns) => columns
            .unwrap_or_default()
            .into_iter()
            .map(|(name, c)| cell(&name, c))
            .collect(),
    };
    if cells.is_empty() {
        return None;
    }
    cells.sort_by(|a, b| {
        (&a.family, &a.qualifier, Reverse(a.timestamp)).cmp(&(
            &b.family,
            &b.qualifier,
            Reverse(b.timestamp),
        ))
    });
    Some(Row {
        key: r.row.unwrap_or_default(),
        cells,
        stale: false,
    })
}

/// Thrift1's `writeToWAL` for a durability: `true` is `SYNC_WAL` on the server, `false`
/// `SKIP_WAL`; nothing else can be said.
pub(crate) fn write_to_wal(operation: &str, d: Option<Durability>) -> Result<bool> {
    match d {
        None | Some(Durability::UseDefault) | Some(Durability::SyncWal) => Ok(true),
        Some(Durability::SkipWal) => Ok(false),
        Some(other) => Err(unsupported(
            operation,
            format!(
                "durability {other:?}: Thrift1 mutations only carry writeToWAL \
                 (SYNC_WAL or SKIP_WAL)"
            ),
        )),
    }
}

/// Refuses a durability an operation without a `writeToWAL` flag cannot carry.
pub(crate) fn default_durability_only(operation: &str, d: Option<Durability>) -> Result<()> {
    match d {
        None | Some(Durability::UseDefault) => Ok(()),
        Some(other) => Err(unsupported(
            operation,
            format!("durability {other:?}: the Thrift1 call has no durability setting"),
        )),
    }
}

/// The attributes of a put: its TTL and its cells' visibility expression (see
/// [`wire::put_attributes`]).
pub(crate) fn put_attributes(put: &Put) -> Result<Attributes> {
    Ok(wire::put_attributes(put).unwrap_or_default())
}

/// The attributes of a delete: the visibility of the cells it removes (see
/// [`wire::delete_attributes`]).
pub(crate) fn delete_attributes(delete: &Delete) -> Attributes {
    wire::delete_attributes(delete).unwrap_or_default()
}

/// The attributes of a get or scan: its visibility labels (see [`wire::read_attributes`]).
pub(crate) fn read_attributes(labels: &Option<Vec<String>>) -> Attributes {
    wire::read_attributes(labels).unwrap_or_default()
}

/// The one timestamp every cell of `put` is written at ([`LATEST`] for "now"): Thrift1 puts
/// carry a single timestamp per call, so a put mixing timestamps is refused rather than split
/// into several non-atomic writes.
pub(crate) fn put_timestamp(put: &Put) -> Result<i64> {
    let mut stamps = put.cells.iter().map(|c| c.timestamp.or(put.timestamp));
    let first = stamps.next().flatten();
    if stamps.any(|t| t != first) {
        return Err(unsupported(
            "put",
            "cells with different timestamps: a Thrift1 mutateRowTs has one timestamp, and \
             splitting the put into one call per timestamp would not be atomic; write one \
             put per timestamp",
        ));
    }
    Ok(first.unwrap_or(LATEST))
}

/// The cell mutations of a put.
pub(crate) fn put_mutations(put: &Put) -> Result<Vec<TMutation>> {
    let wal = write_to_wal("put", put.durability)?;
    Ok(put
        .cells
        .iter()
        .map(|c| {
            TMutation::new(
                false,
                column_text(&c.family, &c.qualifier),
                c.value.to_vec(),
                wal,
            )
        })
        .collect())
}

/// The delete mutations of a delete with targets: a family (`f`) or a column (`f:q`), every
/// version at or before the call's timestamp. Single-version deletes are refused.
pub(crate) fn delete_mutations(delete: &Delete) -> Result<Vec<TMutation>> {
    let wal = write_to_wal("delete", delete.durability)?;
    if delete.timestamp.is_some() {
        return Err(unsupported(
            "delete",
            "a timestamp on a delete of families or columns: HBase's own Delete applies it \
             only to whole-row deletes, and Thrift1 would apply it to every target",
        ));
    }
    delete
        .targets
        .iter()
        .map(|t| match t {
            DeleteTarget::Family(f) => Ok(TMutation::new(true, f.clone(), None, wal)),
            DeleteTarget::Column(f, q) => Ok(TMutation::new(true, column_text(f, q), None, wal)),
            DeleteTarget::LatestVersion(..) | DeleteTarget::Version(..) => Err(unsupported(
                "delete",
                "deleting a single version: Thrift1 deletes every version of a column \
                 (at or before a timestamp); use the thrift2 gateway",
            )),
        })
        .collect()
}

/// The upper bound (exclusive) of a read's time range, as Thrift1's `timestamp` argument
/// (the gateway reads `[0, timestamp)`); a range with `min > 0` cannot be expressed.
pub(crate) fn read_timestamp(operation: &str, range: Option<TimeRange>) -> Result<i64> {
    match range {
        None => Ok(LATEST),
        Some(r) if r.min <= 0 => Ok(r.max),
        Some(r) => Err(unsupported(
            operation,
            format!(
                "time range [{}, {}): Thrift1 reads only ranges starting at 0 \
                 (its timestamp argument is an exclusive upper bound)",
                r.min, r.max
            ),
        )),
    }
}

/// Refuses more than one version per column (Thrift1 reads rows one version deep).
pub(crate) fn one_version(operation: &str, max_versions: Option<i32>) -> Result<()> {
    match max_versions {
        Some(n) if n > 1 => Err(unsupported(
            operation,
            format!(
                "max_versions {n}: Thrift1 row reads and scans return only the newest version \
                 of each column; use the thrift2 gateway"
            ),
        )),
        _ => Ok(()),
    }
}

/// The `TScan` of a scan (bounds already the server's own), with columns sorted by the
/// gateway.
pub(crate) fn scan(s: &Scan) -> Result<TScan> {
    one_version("scan", s.max_versions)?;
    let timestamp = read_timestamp("scan", s.time_range)?;
    Ok(TScan {
        start_row: s.start.clone(),
        stop_row: s.stop.clone(),
        timestamp: (timestamp != LATEST).then_some(timestamp),
        columns: Some(s.columns.iter().map(read_column).collect()),
        caching: s.caching,
        filter_string: s.filter.clone(),
        batch_size: s.batch_size,
        sort_columns: Some(true),
        reversed: Some(s.reversed),
        cache_blocks: None,
    })
}

/// Refuses a family option Thrift1's `ColumnDescriptor` has no field for.
fn no_field<T: std::fmt::Debug>(family: &str, option: &str, value: &Option<T>) -> Result<()> {
    match value {
        None => Ok(()),
        Some(v) => Err(unsupported(
            "create_table",
            format!(
                "family {family}: option {option} = {v:?} has no field in Thrift1's \
                 ColumnDescriptor; create the table through the thrift2 gateway"
            ),
        )),
    }
}

/// A family as Thrift1's `ColumnDescriptor`. Every field is filled in: the gateway uses the
/// IDL's defaults for missing ones (3 versions, no block cache, no bloom filter), which are
/// not HBase's, so an option left `None` gets HBase's own default here.
pub(crate) fn column_descriptor(f: &ColumnFamily) -> Result<ColumnDescriptor> {
    no_field(&f.name, "min_versions", &f.min_versions)?;
    no_field(&f.name, "block_size", &f.block_size)?;
    no_field(&f.name, "data_block_encoding", &f.data_block_encoding)?;
    no_field(&f.name, "keep_deleted_cells", &f.keep_deleted_cells)?;
    let f = f.with_hbase_defaults();
    Ok(ColumnDescriptor {
        name: Some(f.name.clone().into_bytes()),
        max_versions: f.max_versions,
        compression: f.compression.map(|c| c.name().to_string()),
        in_memory: f.in_memory,
        bloom_filter_type: f.bloom_filter.map(|b| b.name().to_string()),
        bloom_filter_vector_size: None,
        bloom_filter_nb_hashes: None,
        block_cache_enabled: f.block_cache,
        time_to_live: f.time_to_live,
    })
}

/// A family read back with `getColumnDescriptors` (its name ends in `:`); the options Thrift1
/// does not return stay `None`.
pub(crate) fn family_from(d: ColumnDescriptor) -> Result<ColumnFamily> {
    let bad = |what: &str, v: &str| Error::Protocol {
        method: "getColumnDescriptors",
        message: format!("unknown {what} {v:?}"),
    };
    let name = String::from_utf8(d.name.unwrap_or_default()).map_err(|e| Error::Protocol {
        method: "getColumnDescriptors",
        message: format!("family name is not UTF-8: {e}"),
    })?;
    let mut family = ColumnFamily::new(name.trim_end_matches(':'));
    family.max_versions = d.max_versions;
    family.time_to_live = d.time_to_live;
    family.in_memory = d.in_memory;
    family.block_cache = d.block_cache_enabled;
    if let Some(c) = d.compression {
        family.compression =
            Some(Compression::from_name(&c).ok_or_else(|| bad("compression", &c))?);
    }
    if let Some(b) = d.bloom_filter_type {
        family.bloom_filter =
            Some(BloomFilter::from_name(&b).ok_or_else(|| bad("bloom filter", &b))?);
    }
    Ok(family)
}

/// A region from `getTableRegions`.
pub(crate) fn region_location(r: TRegionInfo) -> RegionLocation {
    RegionLocation {
        start_key: r.start_key.unwrap_or_default(),
        end_key: r.end_key.unwrap_or_default(),
        region_id: r.id.unwrap_or_default(),
        host: String::from_utf8_lossy(&r.server_name.unwrap_or_default()).into_owned(),
        port: r.port,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[test]
    fn cells_come_back_in_family_then_qualifier_order() {
        // As text, "a:b" < "a\x00:x" is false and "ab:c" < "a:z" is false; as pairs they are
        // (a, b) < (a\x00, x) and (a, z) < (ab, c).
        let columns = BTreeMap::from([
            (b"ab:c".to_vec(), TCell::new(b"1".to_vec(), 1)),
            (b"a:z".to_vec(), TCell::new(b"2".to_vec(), 1)),
            (b"a:b:c".to_vec(), TCell::new(b"3".to_vec(), 1)),
        ]);
        let r = row(TRowResult::new(b"k".to_vec(), columns, None)).unwrap();
        let names: Vec<_> = r
            .cells
            .iter()
            .map(|c| (c.family.to_vec(), c.qualifier.to_vec()))
            .collect();
        assert_eq!(
            names,
            vec![
                (b"a".to_vec(), b"b:c".to_vec()),
                (b"a".to_vec(), b"z".to_vec()),
                (b"ab".to_vec(), b"c".to_vec()),
            ]
        );
    }

    #[test]
    fn a_put_mixing_timestamps_is_refused() {
        let put = Put::new("r")
            .column_at("f", "a", 1, "x")
            .column("f", "b", "y");
        assert!(matches!(
            put_timestamp(&put),
            Err(Error::Unsupported { .. })
        ));
        let put = Put::new("r")
            .column_at("f", "a", 5, "x")
            .column("f", "b", "y")
            .timestamp(5);
        assert_eq!(put_timestamp(&put).unwrap(), 5);
        assert_eq!(
            put_timestamp(&Put::new("r").column("f", "a", "x")).unwrap(),
            LATEST
        );
    }
}
