//! Translation between the crate's types and the generated Thrift types.
//!
//! Requests are borrowed (the client keeps them to resend or report them); replies are
//! consumed into [`Row`]s without copying their bytes.

use super::generated::thbase::*;
use crate::backend::wire;
use crate::model::*;

pub(crate) fn durability(d: Durability) -> TDurability {
    match d {
        Durability::UseDefault => TDurability::USE_DEFAULT,
        Durability::SkipWal => TDurability::SKIP_WAL,
        Durability::AsyncWal => TDurability::ASYNC_WAL,
        Durability::SyncWal => TDurability::SYNC_WAL,
        Durability::FsyncWal => TDurability::FSYNC_WAL,
    }
}

fn columns(cols: &[Column]) -> Option<Vec<TColumn>> {
    (!cols.is_empty()).then(|| {
        cols.iter()
            .map(|c| TColumn {
                family: c.family.clone(),
                qualifier: c.qualifier.clone(),
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

pub(crate) fn put(p: &Put) -> TPut {
    TPut {
        row: p.row.clone(),
        column_values: p
            .cells
            .iter()
            .map(|c| TColumnValue {
                family: c.family.to_vec(),
                qualifier: c.qualifier.to_vec(),
                value: c.value.to_vec(),
                timestamp: c.timestamp,
                tags: None,
                type_: None,
            })
            .collect(),
        timestamp: p.timestamp,
        attributes: wire::put_attributes(p),
        durability: p.durability.map(durability),
    }
}

pub(crate) fn get(g: &Get) -> TGet {
    TGet {
        row: g.row.clone(),
        columns: columns(&g.columns),
        timestamp: g.timestamp,
        time_range: g.time_range.map(time_range),
        max_versions: g.max_versions,
        filter_string: g.filter.clone(),
        attributes: wire::read_attributes(&g.authorizations),
        cache_blocks: None,
        existence_only: None,
    }
}

/// A delete becomes one `TDelete` per kind of target: HBase's `TDelete` carries a single
/// delete type for all its columns.
pub(crate) fn delete(d: &Delete) -> Vec<TDelete> {
    let base = |kind: Option<TDeleteType>, cols: Option<Vec<TColumn>>| TDelete {
        row: d.row.clone(),
        columns: cols,
        timestamp: d.timestamp,
        delete_type: kind,
        attributes: wire::delete_attributes(d),
        durability: d.durability.map(durability),
    };
    if d.targets.is_empty() {
        return vec![base(None, None)];
    }
    let col = |family: Vec<u8>, qualifier: Option<Vec<u8>>, timestamp: Option<i64>| TColumn {
        family,
        qualifier,
        timestamp,
    };
    // In the order of `TargetKind`'s discriminants.
    let kinds = [
        TDeleteType::DELETE_FAMILY,
        TDeleteType::DELETE_COLUMNS,
        TDeleteType::DELETE_COLUMN,
    ];
    let mut groups: [Vec<TColumn>; 3] = Default::default();
    for t in &d.targets {
        groups[t.kind() as usize].push(match t.clone() {
            DeleteTarget::Family(f) => col(f, None, None),
            DeleteTarget::Column(f, q) | DeleteTarget::LatestVersion(f, q) => col(f, Some(q), None),
            DeleteTarget::Version(f, q, ts) => col(f, Some(q), Some(ts)),
        });
    }
    kinds
        .into_iter()
        .zip(groups)
        .filter(|(_, cols)| !cols.is_empty())
        .map(|(kind, cols)| {
            let mut td = base(Some(kind), Some(cols));
            td.timestamp = None;
            td
        })
        .collect()
}

pub(crate) fn increment(i: &Increment) -> TIncrement {
    TIncrement {
        row: i.row.clone(),
        columns: i
            .columns
            .iter()
            .map(|(family, qualifier, amount)| TColumnIncrement {
                family: family.clone(),
                qualifier: qualifier.clone(),
                amount: Some(*amount),
            })
            .collect(),
        attributes: None,
        durability: i.durability.map(durability),
        return_results: Some(true),
    }
}

pub(crate) fn append(a: &Append) -> TAppend {
    TAppend {
        row: a.row.clone(),
        columns: a
            .columns
            .iter()
            .map(|(family, qualifier, value)| TColumnValue {
                family: family.clone(),
                qualifier: qualifier.clone(),
                value: value.clone(),
                timestamp: None,
                tags: None,
                type_: None,
            })
            .collect(),
        attributes: None,
        durability: a.durability.map(durability),
        return_results: Some(true),
    }
}

pub(crate) fn row_mutations(m: &RowMutations) -> TRowMutations {
    let mut out = Vec::with_capacity(m.mutations.len());
    for mutation in &m.mutations {
        match mutation {
            Mutation::Put(p) => out.push(TMutation::Put(put(p))),
            Mutation::Delete(d) => out.extend(delete(d).into_iter().map(TMutation::DeleteSingle)),
        }
    }
    TRowMutations {
        row: m.row.clone(),
        mutations: out,
    }
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

/// The Thrift scan of a server-shaped scan (bounds, limit and caching already HBase's own).
pub(crate) fn scan(s: &Scan) -> TScan {
    TScan {
        start_row: s.start.clone(),
        stop_row: s.stop.clone(),
        columns: columns(&s.columns),
        caching: s.caching,
        max_versions: s.max_versions,
        time_range: s.time_range.map(time_range),
        filter_string: s.filter.clone(),
        batch_size: s.batch_size,
        attributes: wire::read_attributes(&s.authorizations),
        reversed: s.reversed.then_some(true),
        cache_blocks: None,
        limit: s.limit.map(|n| i32::try_from(n).unwrap_or(i32::MAX)),
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
                family: c.family.into(),
                qualifier: c.qualifier.into(),
                value: c.value.into(),
                timestamp: c.timestamp.unwrap_or_default(),
            })
            .collect(),
        stale: false,
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
    t.full_name().into_bytes()
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

/// A family option's value as the gateway carries it.
trait WireOption: Sized {
    type Wire;
    fn to_wire(self) -> Self::Wire;
    fn from_wire(w: Self::Wire) -> Result<Self>;
}

macro_rules! plain_wire_option {
    ($($ty:ty),*) => {$(
        impl WireOption for $ty {
            type Wire = $ty;
            fn to_wire(self) -> $ty {
                self
            }
            fn from_wire(w: $ty) -> Result<$ty> {
                Ok(w)
            }
        }
    )*};
}
plain_wire_option!(i32, bool);

/// An option enum and the Thrift enum of the same values (the Thrift constants carry HBase's
/// names).
macro_rules! enum_wire_option {
    ($ty:ident, $wire:ident, $what:literal { $($variant:ident = $constant:ident,)* }) => {
        impl WireOption for $ty {
            type Wire = $wire;
            fn to_wire(self) -> $wire {
                match self {
                    $($ty::$variant => $wire::$constant,)*
                }
            }
            fn from_wire(w: $wire) -> Result<$ty> {
                match w {
                    $($wire::$constant => Ok($ty::$variant),)*
                    other => Err(Error::Protocol {
                        method: "getTableDescriptor",
                        message: format!(concat!("unknown ", $what, " {}"), other.0),
                    }),
                }
            }
        }
    };
}
enum_wire_option!(Compression, TCompressionAlgorithm, "compression" {
    None = NONE, Gz = GZ, Snappy = SNAPPY, Lz4 = LZ4, Zstd = ZSTD, Lzo = LZO, Bzip2 = BZIP2,
});
enum_wire_option!(BloomFilter, TBloomFilterType, "bloom filter type" {
    None = NONE, Row = ROW, RowCol = ROWCOL, RowPrefixFixedLength = ROWPREFIX_FIXED_LENGTH,
});
enum_wire_option!(DataBlockEncoding, TDataBlockEncoding, "data block encoding" {
    None = NONE, Prefix = PREFIX, Diff = DIFF, FastDiff = FAST_DIFF, RowIndexV1 = ROW_INDEX_V1,
});
enum_wire_option!(KeepDeletedCells, TKeepDeletedCells, "keep-deleted-cells setting" {
    False = FALSE, True = TRUE, Ttl = TTL,
});

/// A family descriptor with nothing but its name set.
fn bare_family(name: Vec<u8>) -> TColumnFamilyDescriptor {
    TColumnFamilyDescriptor {
        name,
        attributes: None,
        configuration: None,
        block_size: None,
        bloomn_filter_type: None,
        compression_type: None,
        dfs_replication: None,
        data_block_encoding: None,
        keep_deleted_cells: None,
        max_versions: None,
        min_versions: None,
        scope: None,
        time_to_live: None,
        block_cache_enabled: None,
        cache_blooms_on_write: None,
        cache_data_on_write: None,
        cache_indexes_on_write: None,
        compress_tags: None,
        evict_blocks_on_close: None,
        in_memory: None,
    }
}

macro_rules! family_conversions {
    ($($(#[$doc:meta])* $builder:ident: $field:ident: $ty:ty => $wire:ident;)*) => {
        pub(crate) fn family(f: &ColumnFamily) -> TColumnFamilyDescriptor {
            let mut d = bare_family(f.name.clone().into_bytes());
            $(d.$wire = f.$field.map(WireOption::to_wire);)*
            d
        }

        /// Replaces the options `declared` sets in a family descriptor read from the gateway
        /// and keeps everything else it carries.
        pub(crate) fn overlay_family(raw: &mut TColumnFamilyDescriptor, declared: &ColumnFamily) {
            $(if let Some(v) = declared.$field {
                raw.$wire = Some(v.to_wire());
            })*
        }

        pub(crate) fn family_from(f: TColumnFamilyDescriptor) -> Result<ColumnFamily> {
            let mut family = ColumnFamily::new(utf8(f.name, "a family name")?);
            $(family.$field = f.$wire.map(<$ty as WireOption>::from_wire).transpose()?;)*
            Ok(family)
        }
    };
}
for_each_family_option!(family_conversions);

/// A table to create: its name, families and, for a region replication other than 1, the
/// table attribute `REGION_REPLICATION` = `"3"` (the gateway sets each attribute on HBase's
/// `TableDescriptorBuilder` as it comes).
pub(crate) fn table_descriptor(d: &TableDescriptor) -> TTableDescriptor {
    TTableDescriptor {
        table_name: table_name(&d.name),
        columns: Some(d.families.iter().map(family).collect()),
        attributes: d.region_replication_attribute().map(|(key, value)| {
            std::collections::BTreeMap::from([(key.as_bytes().to_vec(), value.into_bytes())])
        }),
        durability: None,
    }
}

/// A table as `getTableDescriptor` returns it; its region replication is the table attribute
/// `REGION_REPLICATION` (the gateway passes on every attribute HBase has), 1 when absent.
pub(crate) fn table_descriptor_from(d: TTableDescriptor) -> Result<TableDescriptor> {
    let replication = d
        .attributes
        .as_ref()
        .and_then(|a| a.get(REGION_REPLICATION_KEY.as_bytes()));
    Ok(TableDescriptor {
        region_replication: TableDescriptor::region_replication_from(
            replication.map(Vec::as_slice),
            "getTableDescriptor",
        )?,
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    /// `ns:t` with family `d` and `replicas` per region.
    fn replicated(replicas: u32) -> TableDescriptor {
        TableDescriptor::new(TableName::new("ns", "t"))
            .family(ColumnFamily::new("d"))
            .region_replication(replicas)
    }

    /// The gateway's descriptor of `ns:t` with these table attributes.
    fn described(attributes: &[(&str, &str)]) -> TTableDescriptor {
        TTableDescriptor {
            attributes: Some(
                attributes
                    .iter()
                    .map(|(k, v)| (k.as_bytes().to_vec(), v.as_bytes().to_vec()))
                    .collect(),
            ),
            durability: Some(TDurability::USE_DEFAULT),
            ..table_descriptor(&replicated(1))
        }
    }

    #[test]
    fn a_region_replication_is_sent_as_the_table_attribute_hbase_writes() {
        let sent = table_descriptor(&replicated(3));
        assert_eq!(
            sent.attributes,
            Some(BTreeMap::from([(
                b"REGION_REPLICATION".to_vec(),
                b"3".to_vec()
            )]))
        );
        assert_eq!(table_descriptor(&replicated(1)).attributes, None);
        assert_eq!(table_descriptor_from(sent).unwrap(), replicated(3));
    }

    #[test]
    fn a_region_replication_is_read_from_the_described_attributes() {
        let replication =
            |attributes: &[(&str, &str)]| table_descriptor_from(described(attributes));
        let read = |attributes: &[(&str, &str)]| replication(attributes).unwrap();
        assert_eq!(read(&[("DURABILITY", "USE_DEFAULT")]).region_replication, 1);
        assert_eq!(read(&[("REGION_REPLICATION", "")]).region_replication, 1);
        let two = read(&[("DURABILITY", "ASYNC_WAL"), ("REGION_REPLICATION", "2")]);
        assert_eq!(two, replicated(2));
        let none = TTableDescriptor {
            attributes: None,
            ..described(&[])
        };
        assert_eq!(table_descriptor_from(none).unwrap().region_replication, 1);
        for bad in ["0", "-3", "2.0", "65537"] {
            let err = replication(&[("REGION_REPLICATION", bad)]).unwrap_err();
            assert!(
                matches!(
                    err,
                    Error::Protocol {
                        method: "getTableDescriptor",
                        ..
                    }
                ),
                "{bad:?}: {err}"
            );
        }
    }
}
