use std::collections::BTreeMap;

use proptest::prelude::*;
use prost::Message;

use super::*;
// Some tests compare with how the Thrift2 backend reads the gateway's descriptors.
#[cfg(feature = "thrift2")]
use crate::backend::thrift2::convert as thrift2;
#[cfg(feature = "thrift2")]
use crate::backend::thrift2::generated::thbase::{
    TBloomFilterType, TColumnFamilyDescriptor, TCompressionAlgorithm, TDataBlockEncoding,
    TKeepDeletedCells,
};

/// A family schema with these attributes, in this order.
fn schema(name: &str, attributes: &[(&str, &str)]) -> proto::ColumnFamilySchema {
    proto::ColumnFamilySchema {
        name: Bytes::copy_from_slice(name.as_bytes()),
        attributes: attributes.iter().map(|(k, v)| pair(k, v)).collect(),
        configuration: Vec::new(),
    }
}

/// A schema's attributes as texts, in order.
fn texts(s: &proto::ColumnFamilySchema) -> Vec<(String, String)> {
    s.attributes
        .iter()
        .map(|a| {
            (
                String::from_utf8(a.first.to_vec()).unwrap(),
                String::from_utf8(a.second.to_vec()).unwrap(),
            )
        })
        .collect()
}

/// The attributes of a default family as HBase 2.6 describes it
/// (`ColumnFamilyDescriptorBuilder`'s DEFAULT_VALUES).
const HBASE_DEFAULTS: &[(&str, &str)] = &[
    ("BLOOMFILTER", "ROW"),
    ("REPLICATION_SCOPE", "0"),
    ("VERSIONS", "1"),
    ("MIN_VERSIONS", "0"),
    ("COMPRESSION", "NONE"),
    ("TTL", "2147483647"),
    ("BLOCKSIZE", "65536"),
    ("IN_MEMORY", "false"),
    ("BLOCKCACHE", "true"),
    ("KEEP_DELETED_CELLS", "FALSE"),
    ("DATA_BLOCK_ENCODING", "NONE"),
];

/// The Thrift2 gateway's descriptor of a family (`ThriftUtilities.columnFamilyDescriptorFromHBase`
/// fills every typed field from HBase's getters), with the model's options given.
#[allow(clippy::too_many_arguments)]
#[cfg(feature = "thrift2")]
fn gateway_family(
    name: &str,
    max_versions: i32,
    min_versions: i32,
    ttl: i32,
    compression: TCompressionAlgorithm,
    bloom: TBloomFilterType,
    block_size: i32,
    block_cache: bool,
    in_memory: bool,
    encoding: TDataBlockEncoding,
    keep_deleted: TKeepDeletedCells,
) -> TColumnFamilyDescriptor {
    TColumnFamilyDescriptor {
        name: name.as_bytes().to_vec(),
        attributes: Some(BTreeMap::new()),
        configuration: Some(BTreeMap::new()),
        block_size: Some(block_size),
        bloomn_filter_type: Some(bloom),
        compression_type: Some(compression),
        dfs_replication: Some(0),
        data_block_encoding: Some(encoding),
        keep_deleted_cells: Some(keep_deleted),
        max_versions: Some(max_versions),
        min_versions: Some(min_versions),
        scope: Some(0),
        time_to_live: Some(ttl),
        block_cache_enabled: Some(block_cache),
        cache_blooms_on_write: Some(false),
        cache_data_on_write: Some(false),
        cache_indexes_on_write: Some(false),
        compress_tags: Some(true),
        evict_blocks_on_close: Some(false),
        in_memory: Some(in_memory),
    }
}

/// The Thrift2 gateway's descriptor of a family with HBase's defaults.
#[cfg(feature = "thrift2")]
fn default_gateway_family(name: &str) -> TColumnFamilyDescriptor {
    gateway_family(
        name,
        1,
        0,
        i32::MAX,
        TCompressionAlgorithm::NONE,
        TBloomFilterType::ROW,
        65_536,
        true,
        false,
        TDataBlockEncoding::NONE,
        TKeepDeletedCells::FALSE,
    )
}

fn every_option() -> ColumnFamily {
    ColumnFamily::new("d")
        .max_versions(5)
        .min_versions(2)
        .ttl(86_400)
        .compression(Compression::Gz)
        .bloom_filter(BloomFilter::RowCol)
        .block_size(16_384)
        .block_cache(false)
        .in_memory(true)
        .data_block_encoding(DataBlockEncoding::FastDiff)
        .keep_deleted_cells(KeepDeletedCells::Ttl)
}

#[test]
fn table_names_round_trip() {
    let t = TableName::new("shop", "orders");
    let p = table_name(&t);
    assert_eq!(&p.namespace[..], b"shop");
    assert_eq!(&p.qualifier[..], b"orders");
    assert_eq!(model_table_name(&p).unwrap(), t);

    let bare = proto::TableName {
        namespace: Bytes::new(),
        qualifier: Bytes::from_static(b"orders"),
    };
    assert_eq!(
        model_table_name(&bare).unwrap(),
        TableName::new("default", "orders")
    );

    let bad = proto::TableName {
        namespace: Bytes::from_static(b"shop"),
        qualifier: Bytes::from_static(b"\xff"),
    };
    assert!(matches!(
        model_table_name(&bad),
        Err(Error::Protocol { method: "GetTableDescriptors", ref message })
            if message.contains("table name is not UTF-8")
    ));
}

#[test]
fn every_option_is_written_as_hbase_spells_it_and_reads_back() {
    let f = every_option();
    let s = family_schema(&f);
    assert_eq!(&s.name[..], b"d");
    assert!(s.configuration.is_empty());
    let expected = [
        ("VERSIONS", "5"),
        ("MIN_VERSIONS", "2"),
        ("TTL", "86400"),
        ("COMPRESSION", "GZ"),
        ("BLOOMFILTER", "ROWCOL"),
        ("BLOCKSIZE", "16384"),
        ("BLOCKCACHE", "false"),
        ("IN_MEMORY", "true"),
        ("DATA_BLOCK_ENCODING", "FAST_DIFF"),
        ("KEEP_DELETED_CELLS", "TTL"),
    ];
    let expected: Vec<_> = expected
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    assert_eq!(texts(&s), expected);
    assert_eq!(family_from_schema(&s).unwrap(), f);
}

#[test]
fn forever_is_written_as_the_number_hbase_stores() {
    let s = family_schema(&ColumnFamily::new("d").ttl(i32::MAX));
    assert_eq!(
        texts(&s),
        vec![("TTL".to_string(), "2147483647".to_string())]
    );
}

#[test]
fn a_family_without_options_sends_only_its_name_and_reads_back_with_defaults() {
    let f = ColumnFamily::new("d");
    let s = family_schema(&f);
    assert_eq!(&s.name[..], b"d");
    assert!(s.attributes.is_empty());
    assert!(s.configuration.is_empty());
    assert_eq!(family_from_schema(&s).unwrap(), f.with_hbase_defaults());
}

#[test]
#[cfg(feature = "thrift2")]
fn a_default_family_as_hbase_describes_it_reads_as_thrift2_reports_it() {
    let s = schema("d", HBASE_DEFAULTS);
    let native = family_from_schema(&s).unwrap();
    let via_thrift2 = thrift2::family_from(default_gateway_family("d")).unwrap();
    assert_eq!(native, via_thrift2);
    assert_eq!(native, ColumnFamily::new("d").with_hbase_defaults());
}

#[test]
#[cfg(feature = "thrift2")]
fn a_tuned_family_reads_as_thrift2_reports_it() {
    // Values as other clients may have stored them: lower-case names, `TRUE` in capitals.
    let s = schema(
        "e",
        &[
            ("BLOOMFILTER", "rowprefix_fixed_length"),
            ("REPLICATION_SCOPE", "1"),
            ("VERSIONS", "3"),
            ("MIN_VERSIONS", "1"),
            ("COMPRESSION", "zstd"),
            ("TTL", "604800"),
            ("BLOCKSIZE", "131072"),
            ("IN_MEMORY", "TRUE"),
            ("BLOCKCACHE", "false"),
            ("KEEP_DELETED_CELLS", "true"),
            ("DATA_BLOCK_ENCODING", "ROW_INDEX_V1"),
            ("METADATA_KEY", "kept"),
        ],
    );
    let via_thrift2 = thrift2::family_from(gateway_family(
        "e",
        3,
        1,
        604_800,
        TCompressionAlgorithm::ZSTD,
        TBloomFilterType::ROWPREFIX_FIXED_LENGTH,
        131_072,
        false,
        true,
        TDataBlockEncoding::ROW_INDEX_V1,
        TKeepDeletedCells::TRUE,
    ))
    .unwrap();
    assert_eq!(family_from_schema(&s).unwrap(), via_thrift2);
}

#[test]
fn names_hbase_has_and_the_model_lacks_read_as_the_thrift2_gateway_maps_them() {
    let s = schema(
        "d",
        &[
            ("COMPRESSION", "BROTLI"),
            ("BLOOMFILTER", "ROWPREFIX_DELIMITED"),
            ("DATA_BLOCK_ENCODING", "PREFIX_TREE"),
        ],
    );
    let f = family_from_schema(&s).unwrap();
    assert_eq!(f.compression, Some(Compression::None));
    assert_eq!(f.bloom_filter, Some(BloomFilter::Row));
    assert_eq!(f.data_block_encoding, Some(DataBlockEncoding::None));
    assert_eq!(
        family_from_schema(&schema("d", &[("COMPRESSION", "lzma")]))
            .unwrap()
            .compression,
        Some(Compression::None)
    );
}

#[test]
fn values_are_read_as_hbase_getters_read_them() {
    // The last of repeated keys wins; an empty value is no value (HBase's setValue removes it).
    let s = schema(
        "d",
        &[
            ("VERSIONS", "2"),
            ("VERSIONS", "4"),
            ("TTL", "60"),
            ("TTL", ""),
            ("BLOCKCACHE", "yes"),
            ("IN_MEMORY", "True"),
        ],
    );
    let f = family_from_schema(&s).unwrap();
    assert_eq!(f.max_versions, Some(4));
    assert_eq!(f.time_to_live, Some(i32::MAX));
    // Boolean.valueOf: only "true", in any case, is true.
    assert_eq!(f.block_cache, Some(false));
    assert_eq!(f.in_memory, Some(true));
    // The shell's FOREVER, should a store hold the word.
    let f = family_from_schema(&schema("d", &[("TTL", "FOREVER")])).unwrap();
    assert_eq!(f.time_to_live, Some(i32::MAX));
}

#[test]
fn values_hbase_could_not_read_are_protocol_errors() {
    for (key, value) in [
        ("VERSIONS", "three"),
        ("BLOCKSIZE", "64KB"),
        ("TTL", "1 DAY"),
        ("MIN_VERSIONS", "99999999999"),
        ("COMPRESSION", "GZIP"),
        ("BLOOMFILTER", "COLUMN"),
        ("DATA_BLOCK_ENCODING", "COPY_KEY"),
        ("KEEP_DELETED_CELLS", "MAYBE"),
    ] {
        let err = family_from_schema(&schema("d", &[(key, value)])).unwrap_err();
        match err {
            Error::Protocol { method, message } => {
                assert_eq!(method, "GetTableDescriptors");
                assert!(
                    message.contains(key) && message.contains(value),
                    "{message}"
                );
            }
            other => panic!("{key} = {value}: {other:?}"),
        }
    }
    let bad_name = proto::ColumnFamilySchema {
        name: Bytes::from_static(b"\xc3"),
        attributes: Vec::new(),
        configuration: Vec::new(),
    };
    assert!(matches!(
        family_from_schema(&bad_name),
        Err(Error::Protocol { ref message, .. }) if message.contains("family name")
    ));
}

#[test]
fn merge_sets_the_declared_options_and_keeps_everything_else() {
    let mut existing = schema("d", HBASE_DEFAULTS);
    existing.attributes.push(pair("IS_MOB", "true"));
    existing.attributes.push(pair("MOB_THRESHOLD", "102400"));
    existing.configuration.push(proto::NameStringPair {
        name: "hbase.hstore.blockingStoreFiles".into(),
        value: "20".into(),
    });
    let existing = {
        let mut e = existing;
        // A tuned scope the crate does not model.
        e.attributes
            .retain(|a| a.first != "REPLICATION_SCOPE".as_bytes());
        e.attributes.push(pair("REPLICATION_SCOPE", "1"));
        e
    };
    let declared = ColumnFamily::new("d")
        .max_versions(7)
        .compression(Compression::Snappy);
    let merged = merge_family(&existing, &declared);

    assert_eq!(merged.name, existing.name);
    assert_eq!(merged.configuration, existing.configuration);
    let merged_texts: BTreeMap<_, _> = texts(&merged).into_iter().collect();
    assert_eq!(merged_texts.len(), merged.attributes.len(), "no key twice");
    let mut expected: BTreeMap<_, _> = texts(&existing).into_iter().collect();
    expected.insert("VERSIONS".into(), "7".into());
    expected.insert("COMPRESSION".into(), "SNAPPY".into());
    assert_eq!(merged_texts, expected);
    assert_eq!(merged_texts["IS_MOB"], "true");
    assert_eq!(merged_texts["REPLICATION_SCOPE"], "1");

    let read = family_from_schema(&merged).unwrap();
    assert_eq!(read.max_versions, Some(7));
    assert_eq!(read.compression, Some(Compression::Snappy));
    assert_eq!(read.bloom_filter, Some(BloomFilter::Row));
}

#[test]
fn merge_adds_an_option_the_existing_schema_lacks_and_declaring_nothing_changes_nothing() {
    let existing = schema("d", &[("VERSIONS", "3"), ("CUSTOM", "x")]);
    assert_eq!(merge_family(&existing, &ColumnFamily::new("d")), existing);
    let merged = merge_family(&existing, &ColumnFamily::new("d").ttl(3_600));
    assert_eq!(
        texts(&merged),
        vec![
            ("VERSIONS".to_string(), "3".to_string()),
            ("CUSTOM".to_string(), "x".to_string()),
            ("TTL".to_string(), "3600".to_string()),
        ]
    );
}

#[test]
fn tables_round_trip_through_the_wire_encoding() {
    let d = TableDescriptor::new(TableName::new("shop", "orders"))
        .family(every_option())
        .family(ColumnFamily::new("m").max_versions(2));
    let s = table_schema(&d);
    assert!(s.attributes.is_empty() && s.configuration.is_empty());
    assert_eq!(s.column_families.len(), 2);
    let decoded = proto::TableSchema::decode(&s.encode_to_vec()[..]).unwrap();
    assert_eq!(decoded, s);
    let back = descriptor_from_schema(&decoded).unwrap();
    assert_eq!(back.name, d.name);
    let expected: Vec<_> = d.families.iter().map(|f| f.with_hbase_defaults()).collect();
    assert_eq!(back.families, expected);
    assert_eq!(back.region_replication, 1);

    let nameless = proto::TableSchema {
        table_name: None,
        ..s
    };
    assert!(matches!(
        descriptor_from_schema(&nameless),
        Err(Error::Protocol { .. })
    ));
}

#[test]
fn a_described_table_reads_as_thrift2_reports_it() {
    let s = proto::TableSchema {
        table_name: Some(table_name(&TableName::new("default", "t"))),
        attributes: vec![pair("DURABILITY", "USE_DEFAULT")],
        column_families: vec![schema("d", HBASE_DEFAULTS)],
        configuration: Vec::new(),
    };
    let d = descriptor_from_schema(&s).unwrap();
    assert_eq!(
        d,
        TableDescriptor::new(TableName::new("default", "t"))
            .family(ColumnFamily::new("d").with_hbase_defaults())
    );
}

/// A table schema named `default:t` with one default family and these table attributes.
fn table_with(attributes: &[(&str, &str)]) -> proto::TableSchema {
    proto::TableSchema {
        table_name: Some(table_name(&TableName::new("default", "t"))),
        attributes: attributes.iter().map(|(k, v)| pair(k, v)).collect(),
        column_families: vec![schema("d", HBASE_DEFAULTS)],
        configuration: Vec::new(),
    }
}

#[test]
fn a_region_replication_is_sent_as_the_table_attribute_hbase_writes_and_read_back() {
    let d = TableDescriptor::new(TableName::new("shop", "orders"))
        .family(ColumnFamily::new("d"))
        .region_replication(3);
    let s = table_schema(&d);
    let sent: Vec<_> = s
        .attributes
        .iter()
        .map(|a| (&a.first[..], &a.second[..]))
        .collect();
    assert_eq!(sent, [(&b"REGION_REPLICATION"[..], &b"3"[..])]);
    let decoded = proto::TableSchema::decode(&s.encode_to_vec()[..]).unwrap();
    let back = descriptor_from_schema(&decoded).unwrap();
    assert_eq!(back.region_replication, 3);
    assert_eq!(
        back,
        TableDescriptor {
            families: vec![ColumnFamily::new("d").with_hbase_defaults()],
            ..d
        }
    );
    let widest = d_with_replication(TableDescriptor::MAX_REGION_REPLICATION);
    assert_eq!(&table_schema(&widest).attributes[0].second[..], b"65536");
}

/// `default:t` with family `d` and `replicas` per region.
fn d_with_replication(replicas: u32) -> TableDescriptor {
    TableDescriptor::new(TableName::new("default", "t"))
        .family(ColumnFamily::new("d"))
        .region_replication(replicas)
}

#[test]
fn a_region_replication_is_read_as_hbase_reads_it() {
    let replication = |attributes: &[(&str, &str)]| {
        descriptor_from_schema(&table_with(attributes)).map(|d| d.region_replication)
    };
    let read = |attributes: &[(&str, &str)]| replication(attributes).unwrap();
    assert_eq!(read(&[("DURABILITY", "USE_DEFAULT")]), 1, "absent");
    assert_eq!(read(&[("REGION_REPLICATION", "")]), 1, "empty: removed");
    assert_eq!(read(&[("REGION_REPLICATION", "2")]), 2);
    assert_eq!(read(&[("REGION_REPLICATION", "+02")]), 2, "Integer.valueOf");
    assert_eq!(
        read(&[("REGION_REPLICATION", "2"), ("REGION_REPLICATION", "5")]),
        5,
        "the last pair wins"
    );
    assert_eq!(
        read(&[("region_replication", "4")]),
        1,
        "keys are case-sensitive"
    );
    for bad in ["0", "-1", "two", "65537", "2 "] {
        let err = replication(&[("REGION_REPLICATION", bad)]).unwrap_err();
        assert!(
            matches!(err, Error::Protocol { method: METHOD, ref message }
                if message.contains("REGION_REPLICATION")),
            "{bad:?}: {err}"
        );
    }
}

/// The Thrift2 gateway passes HBase's table attributes on as they are: both backends read the
/// same replication from them.
#[cfg(feature = "thrift2")]
#[test]
fn a_region_replication_reads_as_thrift2_reports_it() {
    use crate::backend::thrift2::generated::thbase::{TTableDescriptor, TTableName};
    for value in ["2", "", "7"] {
        let attributes = [("REGION_REPLICATION", value), ("DURABILITY", "USE_DEFAULT")];
        let native = descriptor_from_schema(&table_with(&attributes)).unwrap();
        let gateway = TTableDescriptor {
            table_name: TTableName {
                ns: Some(b"default".to_vec()),
                qualifier: b"t".to_vec(),
            },
            columns: Some(vec![default_gateway_family("d")]),
            attributes: Some(
                attributes
                    .iter()
                    .map(|(k, v)| (k.as_bytes().to_vec(), v.as_bytes().to_vec()))
                    .collect(),
            ),
            durability: None,
        };
        assert_eq!(
            thrift2::table_descriptor_from(gateway).unwrap(),
            native,
            "{value:?}"
        );
    }
}

#[test]
fn namespaces_carry_only_their_name() {
    let n = namespace_descriptor("shop");
    assert_eq!(&n.name[..], b"shop");
    assert!(n.configuration.is_empty());
}

fn any_family() -> impl Strategy<Value = ColumnFamily> {
    let pick = |all: usize| proptest::option::of(0..all);
    (
        (
            proptest::option::of(1..100i32),
            proptest::option::of(0..10i32),
            proptest::option::of(1..=i32::MAX),
            pick(Compression::ALL.len()),
            pick(BloomFilter::ALL.len()),
        ),
        (
            proptest::option::of(1024..1_048_576i32),
            proptest::option::of(any::<bool>()),
            proptest::option::of(any::<bool>()),
            pick(DataBlockEncoding::ALL.len()),
            pick(KeepDeletedCells::ALL.len()),
        ),
    )
        .prop_map(|((v, mv, ttl, c, b), (bs, bc, im, e, k))| ColumnFamily {
            name: "f".to_string(),
            max_versions: v,
            min_versions: mv,
            time_to_live: ttl,
            compression: c.map(|i| Compression::ALL[i].0),
            bloom_filter: b.map(|i| BloomFilter::ALL[i].0),
            block_size: bs,
            block_cache: bc,
            in_memory: im,
            data_block_encoding: e.map(|i| DataBlockEncoding::ALL[i].0),
            keep_deleted_cells: k.map(|i| KeepDeletedCells::ALL[i].0),
        })
}

proptest! {
    #[test]
    fn any_family_reads_back_as_declared_with_defaults_for_the_rest(f in any_family()) {
        let s = family_schema(&f);
        prop_assert_eq!(s.attributes.len(), declared_attributes(&f).len());
        prop_assert_eq!(family_from_schema(&s).unwrap(), f.with_hbase_defaults());
        // Merging a family over what HBase describes reads back as the family over defaults.
        let merged = merge_family(&schema("f", HBASE_DEFAULTS), &f);
        prop_assert_eq!(family_from_schema(&merged).unwrap(), f.with_hbase_defaults());
    }
}
