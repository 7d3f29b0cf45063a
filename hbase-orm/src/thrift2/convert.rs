//! Translation between the crate's types and the generated Thrift types.
//!
//! Requests are consumed (their byte vectors move into the Thrift structs without copying);
//! replies are consumed likewise into [`Row`]s.

use super::generated::thbase::*;
use crate::error::{Error, Result};
use crate::model::*;
use crate::schema::*;

pub(crate) fn durability(d: Durability) -> TDurability {
    match d {
        Durability::UseDefault => TDurability::USE_DEFAULT,
        Durability::SkipWal => TDurability::SKIP_WAL,
        Durability::AsyncWal => TDurability::ASYNC_WAL,
        Durability::SyncWal => TDurability::SYNC_WAL,
        Durability::FsyncWal => TDurability::FSYNC_WAL,
    }
}

fn columns(cols: Vec<Column>) -> Option<Vec<TColumn>> {
    (!cols.is_empty()).then(|| {
        cols.into_iter()
            .map(|c| TColumn {
                family: c.family,
                qualifier: c.qualifier,
                timestamp: None,
            })
            .collect()
    })
}

fn time_range(t: TimeRange) -> TTimeRange {
    TTimeRange {
        min_stamp: t.min,
        max_stamp: t.max,
    }
}

fn require_row(row: &[u8], what: &str) -> Result<()> {
    if row.is_empty() {
        return Err(Error::IllegalArgument {
            message: format!("{what} needs a non-empty row key"),
        });
    }
    Ok(())
}

pub(crate) fn put(p: Put) -> Result<TPut> {
    require_row(&p.row, "a put")?;
    if p.cells.is_empty() {
        return Err(Error::IllegalArgument {
            message: format!("the put of row {} has no cells", printable_key(&p.row)),
        });
    }
    Ok(TPut {
        row: p.row,
        column_values: p
            .cells
            .into_iter()
            .map(|c| TColumnValue {
                family: c.family,
                qualifier: c.qualifier,
                value: c.value,
                timestamp: c.timestamp,
                tags: None,
                type_: None,
            })
            .collect(),
        timestamp: p.timestamp,
        attributes: None,
        durability: p.durability.map(durability),
    })
}

pub(crate) fn get(g: Get) -> Result<TGet> {
    require_row(&g.row, "a get")?;
    Ok(TGet {
        row: g.row,
        columns: columns(g.columns),
        timestamp: g.timestamp,
        time_range: g.time_range.map(time_range),
        max_versions: g.max_versions,
        filter_string: g.filter.map(String::into_bytes),
        attributes: None,
        cache_blocks: None,
        existence_only: None,
    })
}

/// A delete becomes one `TDelete` per kind of target: HBase's `TDelete` carries a single
/// delete type for all its columns.
pub(crate) fn delete(d: Delete) -> Result<Vec<TDelete>> {
    require_row(&d.row, "a delete")?;
    let base = |kind: Option<TDeleteType>, cols: Option<Vec<TColumn>>| TDelete {
        row: d.row.clone(),
        columns: cols,
        timestamp: d.timestamp,
        delete_type: kind,
        attributes: None,
        durability: d.durability.map(durability),
    };
    if d.targets.is_empty() {
        return Ok(vec![base(None, None)]);
    }
    let col = |family: Vec<u8>, qualifier: Option<Vec<u8>>, timestamp: Option<i64>| TColumn {
        family,
        qualifier,
        timestamp,
    };
    let kinds = [
        TDeleteType::DELETE_FAMILY,
        TDeleteType::DELETE_COLUMNS,
        TDeleteType::DELETE_COLUMN,
    ];
    let mut groups: [Vec<TColumn>; 3] = Default::default();
    for t in d.targets.iter().cloned() {
        match t {
            DeleteTarget::Family(f) => groups[0].push(col(f, None, None)),
            DeleteTarget::Column(f, q) => groups[1].push(col(f, Some(q), None)),
            DeleteTarget::LatestVersion(f, q) => groups[2].push(col(f, Some(q), None)),
            DeleteTarget::Version(f, q, ts) => groups[2].push(col(f, Some(q), Some(ts))),
        }
    }
    Ok(kinds
        .into_iter()
        .zip(groups)
        .filter(|(_, cols)| !cols.is_empty())
        .map(|(kind, cols)| {
            let mut td = base(Some(kind), Some(cols));
            td.timestamp = None;
            td
        })
        .collect())
}

pub(crate) fn increment(i: Increment) -> Result<TIncrement> {
    require_row(&i.row, "an increment")?;
    Ok(TIncrement {
        row: i.row,
        columns: i
            .columns
            .into_iter()
            .map(|(family, qualifier, amount)| TColumnIncrement {
                family,
                qualifier,
                amount: Some(amount),
            })
            .collect(),
        attributes: None,
        durability: i.durability.map(durability),
        return_results: Some(true),
    })
}

pub(crate) fn append(a: Append) -> Result<TAppend> {
    require_row(&a.row, "an append")?;
    Ok(TAppend {
        row: a.row,
        columns: a
            .columns
            .into_iter()
            .map(|(family, qualifier, value)| TColumnValue {
                family,
                qualifier,
                value,
                timestamp: None,
                tags: None,
                type_: None,
            })
            .collect(),
        attributes: None,
        durability: a.durability.map(durability),
        return_results: Some(true),
    })
}

pub(crate) fn row_mutations(m: RowMutations) -> Result<TRowMutations> {
    require_row(&m.row, "row mutations")?;
    let mut out = Vec::with_capacity(m.mutations.len());
    for mutation in m.mutations {
        let row = match &mutation {
            Mutation::Put(p) => &p.row,
            Mutation::Delete(d) => &d.row,
        };
        if *row != m.row {
            return Err(Error::IllegalArgument {
                message: format!(
                    "row mutations for {} contain a mutation of row {}",
                    printable_key(&m.row),
                    printable_key(row)
                ),
            });
        }
        match mutation {
            Mutation::Put(p) => out.push(TMutation::Put(put(p)?)),
            Mutation::Delete(d) => out.extend(delete(d)?.into_iter().map(TMutation::DeleteSingle)),
        }
    }
    Ok(TRowMutations {
        row: m.row,
        mutations: out,
    })
}

pub(crate) fn compare_op(op: CompareOp) -> TCompareOp {
    match op {
        CompareOp::Less => TCompareOp::LESS,
        CompareOp::LessOrEqual => TCompareOp::LESS_OR_EQUAL,
        CompareOp::Equal => TCompareOp::EQUAL,
        CompareOp::NotEqual => TCompareOp::NOT_EQUAL,
        CompareOp::GreaterOrEqual => TCompareOp::GREATER_OR_EQUAL,
        CompareOp::Greater => TCompareOp::GREATER,
    }
}

/// The Thrift scan for the server-side bounds the scan module computed.
pub(crate) fn scan(
    s: &Scan,
    start_row: Option<Vec<u8>>,
    stop_row: Option<Vec<u8>>,
    limit: Option<i32>,
) -> TScan {
    TScan {
        start_row,
        stop_row,
        columns: columns(s.columns.clone()),
        caching: s.caching,
        max_versions: s.max_versions,
        time_range: s.time_range.map(time_range),
        filter_string: s.filter.clone().map(String::into_bytes),
        batch_size: s.batch_size,
        attributes: None,
        reversed: s.reversed.then_some(true),
        cache_blocks: None,
        limit,
    }
}

/// A result into a row; `None` for the empty result HBase sends for a missing row.
pub(crate) fn row(r: TResult) -> Option<Row> {
    let key = r.row.filter(|k| !k.is_empty())?;
    Some(Row {
        key,
        cells: r
            .column_values
            .into_iter()
            .map(|c| Cell {
                family: c.family,
                qualifier: c.qualifier,
                value: c.value,
                timestamp: c.timestamp.unwrap_or_default(),
            })
            .collect(),
    })
}

pub(crate) fn table_name(t: &TableName) -> TTableName {
    TTableName {
        ns: Some(t.namespace.clone().into_bytes()),
        qualifier: t.name.clone().into_bytes(),
    }
}

/// The table name as the data methods take it (`ns:table` bytes).
pub(crate) fn table_bytes(t: &TableName) -> Vec<u8> {
    format!("{}:{}", t.namespace, t.name).into_bytes()
}

fn utf8(bytes: Vec<u8>, what: &str) -> Result<String> {
    String::from_utf8(bytes).map_err(|e| Error::Protocol {
        method: "getTableDescriptor",
        message: format!("{what} is not UTF-8: {e}"),
    })
}

pub(crate) fn table_name_from(t: TTableName) -> Result<TableName> {
    let ns = match t.ns {
        Some(ns) if !ns.is_empty() => utf8(ns, "a namespace name")?,
        _ => "default".to_string(),
    };
    Ok(TableName::new(ns, utf8(t.qualifier, "a table name")?))
}

pub(crate) fn family(f: &ColumnFamily) -> TColumnFamilyDescriptor {
    TColumnFamilyDescriptor {
        name: f.name.clone().into_bytes(),
        attributes: None,
        configuration: None,
        block_size: f.block_size,
        bloomn_filter_type: f.bloom_filter.map(|b| match b {
            BloomFilter::None => TBloomFilterType::NONE,
            BloomFilter::Row => TBloomFilterType::ROW,
            BloomFilter::RowCol => TBloomFilterType::ROWCOL,
            BloomFilter::RowPrefixFixedLength => TBloomFilterType::ROWPREFIX_FIXED_LENGTH,
        }),
        compression_type: f.compression.map(|c| match c {
            Compression::Lzo => TCompressionAlgorithm::LZO,
            Compression::Gz => TCompressionAlgorithm::GZ,
            Compression::None => TCompressionAlgorithm::NONE,
            Compression::Snappy => TCompressionAlgorithm::SNAPPY,
            Compression::Lz4 => TCompressionAlgorithm::LZ4,
            Compression::Bzip2 => TCompressionAlgorithm::BZIP2,
            Compression::Zstd => TCompressionAlgorithm::ZSTD,
        }),
        dfs_replication: None,
        data_block_encoding: f.data_block_encoding.map(|e| match e {
            DataBlockEncoding::None => TDataBlockEncoding::NONE,
            DataBlockEncoding::Prefix => TDataBlockEncoding::PREFIX,
            DataBlockEncoding::Diff => TDataBlockEncoding::DIFF,
            DataBlockEncoding::FastDiff => TDataBlockEncoding::FAST_DIFF,
            DataBlockEncoding::RowIndexV1 => TDataBlockEncoding::ROW_INDEX_V1,
        }),
        keep_deleted_cells: f.keep_deleted_cells.map(|k| match k {
            KeepDeletedCells::False => TKeepDeletedCells::FALSE,
            KeepDeletedCells::True => TKeepDeletedCells::TRUE,
            KeepDeletedCells::Ttl => TKeepDeletedCells::TTL,
        }),
        max_versions: f.max_versions,
        min_versions: f.min_versions,
        scope: None,
        time_to_live: f.time_to_live,
        block_cache_enabled: f.block_cache,
        cache_blooms_on_write: None,
        cache_data_on_write: None,
        cache_indexes_on_write: None,
        compress_tags: None,
        evict_blocks_on_close: None,
        in_memory: f.in_memory,
    }
}

/// Replaces the options `declared` sets in a family descriptor read from the gateway and
/// keeps everything else it carries.
pub(crate) fn overlay_family(raw: &mut TColumnFamilyDescriptor, declared: &ColumnFamily) {
    let d = family(declared);
    raw.block_size = d.block_size.or(raw.block_size);
    raw.bloomn_filter_type = d.bloomn_filter_type.or(raw.bloomn_filter_type);
    raw.compression_type = d.compression_type.or(raw.compression_type);
    raw.data_block_encoding = d.data_block_encoding.or(raw.data_block_encoding);
    raw.keep_deleted_cells = d.keep_deleted_cells.or(raw.keep_deleted_cells);
    raw.max_versions = d.max_versions.or(raw.max_versions);
    raw.min_versions = d.min_versions.or(raw.min_versions);
    raw.time_to_live = d.time_to_live.or(raw.time_to_live);
    raw.block_cache_enabled = d.block_cache_enabled.or(raw.block_cache_enabled);
    raw.in_memory = d.in_memory.or(raw.in_memory);
}

/// An enum value HBase sent that this client does not know.
fn unknown(what: &str, value: i32) -> Error {
    Error::Protocol {
        method: "getTableDescriptor",
        message: format!("unknown {what} {value}"),
    }
}

pub(crate) fn family_from(f: TColumnFamilyDescriptor) -> Result<ColumnFamily> {
    Ok(ColumnFamily {
        name: utf8(f.name, "a family name")?,
        max_versions: f.max_versions,
        min_versions: f.min_versions,
        time_to_live: f.time_to_live,
        compression: f
            .compression_type
            .map(|c| match c {
                TCompressionAlgorithm::LZO => Ok(Compression::Lzo),
                TCompressionAlgorithm::GZ => Ok(Compression::Gz),
                TCompressionAlgorithm::NONE => Ok(Compression::None),
                TCompressionAlgorithm::SNAPPY => Ok(Compression::Snappy),
                TCompressionAlgorithm::LZ4 => Ok(Compression::Lz4),
                TCompressionAlgorithm::BZIP2 => Ok(Compression::Bzip2),
                TCompressionAlgorithm::ZSTD => Ok(Compression::Zstd),
                other => Err(unknown("compression", other.0)),
            })
            .transpose()?,
        bloom_filter: f
            .bloomn_filter_type
            .map(|b| match b {
                TBloomFilterType::NONE => Ok(BloomFilter::None),
                TBloomFilterType::ROW => Ok(BloomFilter::Row),
                TBloomFilterType::ROWCOL => Ok(BloomFilter::RowCol),
                TBloomFilterType::ROWPREFIX_FIXED_LENGTH => Ok(BloomFilter::RowPrefixFixedLength),
                other => Err(unknown("bloom filter type", other.0)),
            })
            .transpose()?,
        block_size: f.block_size,
        block_cache: f.block_cache_enabled,
        in_memory: f.in_memory,
        data_block_encoding: f
            .data_block_encoding
            .map(|e| match e {
                TDataBlockEncoding::NONE => Ok(DataBlockEncoding::None),
                TDataBlockEncoding::PREFIX => Ok(DataBlockEncoding::Prefix),
                TDataBlockEncoding::DIFF => Ok(DataBlockEncoding::Diff),
                TDataBlockEncoding::FAST_DIFF => Ok(DataBlockEncoding::FastDiff),
                TDataBlockEncoding::ROW_INDEX_V1 => Ok(DataBlockEncoding::RowIndexV1),
                other => Err(unknown("data block encoding", other.0)),
            })
            .transpose()?,
        keep_deleted_cells: f
            .keep_deleted_cells
            .map(|k| match k {
                TKeepDeletedCells::FALSE => Ok(KeepDeletedCells::False),
                TKeepDeletedCells::TRUE => Ok(KeepDeletedCells::True),
                TKeepDeletedCells::TTL => Ok(KeepDeletedCells::Ttl),
                other => Err(unknown("keep-deleted-cells setting", other.0)),
            })
            .transpose()?,
    })
}

pub(crate) fn table_descriptor(d: &TableDescriptor) -> TTableDescriptor {
    TTableDescriptor {
        table_name: table_name(&d.name),
        columns: Some(d.families.iter().map(family).collect()),
        attributes: None,
        durability: None,
    }
}

pub(crate) fn table_descriptor_from(d: TTableDescriptor) -> Result<TableDescriptor> {
    Ok(TableDescriptor {
        name: table_name_from(d.table_name)?,
        families: d
            .columns
            .unwrap_or_default()
            .into_iter()
            .map(family_from)
            .collect::<Result<_>>()?,
    })
}

pub(crate) fn region_location(l: THRegionLocation) -> RegionLocation {
    RegionLocation {
        start_key: l.region_info.start_key.unwrap_or_default(),
        end_key: l.region_info.end_key.unwrap_or_default(),
        region_id: l.region_info.region_id,
        host: l.server_name.host_name,
        port: l.server_name.port,
    }
}
