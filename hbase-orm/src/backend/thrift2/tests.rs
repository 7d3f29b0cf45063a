//! Every reply type the client reads from the Thrift2 gateway (each method in `rpc.rs`), read
//! as the client reads it (`Rpc::decode_reply`: the row reader for the methods that return
//! rows, the generated reader through the checked protocol reader for the others), valid and
//! then mutated at random or swept byte by byte: decoding must return a reply or an error,
//! never panic, and must never make a single allocation larger than the reply limit.

use std::collections::BTreeMap;

use thrift::protocol::TMessageType;
use thrift::{ApplicationError, ApplicationErrorKind};

use super::generated::thbase::*;
use super::rpc::Rpc;
use crate::backend::wire::checked::with_reply_limit;
use crate::backend::wire::probe::{Probe, Prober, ELEMENT_WEIGHT};
use crate::backend::wire::testing::counting::measure;
use crate::backend::wire::testing::fuzz::{
    self, check, check_bound, message, Bound, Verdict, PROTOCOLS,
};
use crate::backend::wire::WireProtocol;
use crate::model::Result;

/// The sequence number of every call and reply here.
const SEQ: i32 = 1;

/// The methods `rpc.rs` lists in `row_rpcs!`: their replies are read by the lean row reader.
fn row_methods() -> Vec<&'static str> {
    let source = include_str!("rpc.rs");
    let block = source
        .split_once("row_rpcs! {")
        .and_then(|(_, rest)| rest.split_once('}'))
        .map_or("", |(block, _)| block);
    methods_in(block)
}

/// The method names in a list of `rpcs!` entries: each `= "name" ->`.
fn methods_in(entries: &'static str) -> Vec<&'static str> {
    entries
        .split("= \"")
        .skip(1)
        .filter_map(|rest| rest.split_once("\" ->").map(|(name, _)| name))
        .collect()
}

/// Where the reader of `method`'s replies must stay within the limit: the lean row reader
/// relies on the probe for it.
fn bound(method: &str) -> Bound {
    if row_methods().contains(&method) {
        Bound::Probed
    } else {
        Bound::Always
    }
}

/// Reads a reply to an `R` call as the client does: the lean row reader for the methods that
/// return rows, the generated reader (through the checked protocol reader) for the others.
fn read<R: Rpc>(protocol: WireProtocol, seq: i32, bytes: &bytes::Bytes) -> Result<R::Reply> {
    R::decode_reply(protocol, seq, bytes)
}

/// One reply type: its method and how to write valid replies to it and read them.
struct Case {
    /// The method name on the wire.
    method: &'static str,
    /// Where its reader must stay within the reply limit.
    bound: Bound,
    /// Valid replies: success first, then an application exception, then each declared
    /// exception.
    replies: fn(WireProtocol) -> Vec<Vec<u8>>,
    /// Reads a reply as the client does.
    decode: fn(WireProtocol, &bytes::Bytes) -> Result<()>,
}

/// A reply message to `method` whose result struct `write` writes.
fn reply(
    protocol: WireProtocol,
    method: &str,
    write: impl FnOnce(&mut dyn thrift::protocol::TOutputProtocol) -> thrift::Result<()>,
) -> Vec<u8> {
    message(protocol, method, TMessageType::Reply, SEQ, write)
}

/// The gateway's answer when the call itself failed (an application exception).
fn application_exception(protocol: WireProtocol, method: &str) -> Vec<u8> {
    let e = ApplicationError::new(ApplicationErrorKind::InternalError, "boom");
    message(protocol, method, TMessageType::Exception, SEQ, |o| {
        thrift::Error::write_application_error_to_out_protocol(&e, o)
    })
}

/// A case for `Rpc` type `$args` with result struct `$result`: its successful result (`$ok`,
/// the struct's fields) and its declared exceptions (`errors`, each the struct's fields with
/// one exception set).
macro_rules! case {
    ($args:ident, $result:ident { $($ok:tt)* } $(, errors: [$({ $($err:tt)* }),*])?) => {
        Case {
            method: <$args as Rpc>::METHOD,
            bound: bound(<$args as Rpc>::METHOD),
            replies: |protocol| {
                let method = <$args as Rpc>::METHOD;
                #[allow(unused_mut)]
                let mut out = vec![
                    reply(protocol, method, |o| $result { $($ok)* }.write_to_out_protocol(o)),
                    application_exception(protocol, method),
                ];
                $($(out.push(reply(protocol, method, |o| {
                    $result { $($err)* }.write_to_out_protocol(o)
                }));)*)?
                out
            },
            decode: |protocol, bytes| read::<$args>(protocol, SEQ, bytes).map(drop),
        }
    };
}

/// An HBase exception as the gateway reports it.
fn io_error() -> TIOError {
    TIOError {
        message: Some("org.apache.hadoop.hbase.TableNotFoundException: ns:t".into()),
        can_retry: Some(false),
    }
}

/// A rejected argument.
fn illegal() -> TIllegalArgument {
    TIllegalArgument {
        message: Some("bad argument".into()),
    }
}

/// A cell with every field set.
fn cell(q: u8) -> TColumnValue {
    TColumnValue {
        family: b"d".to_vec(),
        qualifier: vec![b'q', q],
        value: vec![7; 5],
        timestamp: Some(1_700_000_000_000),
        tags: Some(b"t".to_vec()),
        type_: Some(4),
    }
}

/// A row of two cells with every field set.
fn row(i: usize) -> TResult {
    TResult {
        row: Some(format!("row-{i}").into_bytes()),
        column_values: vec![cell(0), cell(1)],
        stale: Some(false),
        partial: Some(false),
    }
}

/// Some attributes.
fn attributes() -> BTreeMap<Vec<u8>, Vec<u8>> {
    BTreeMap::from([(b"_ttl".to_vec(), 5i64.to_be_bytes().to_vec())])
}

/// A delete of two columns with every field set.
fn delete() -> TDelete {
    TDelete {
        row: b"r".to_vec(),
        columns: Some(vec![
            TColumn {
                family: b"d".to_vec(),
                qualifier: Some(b"q".to_vec()),
                timestamp: Some(3),
            },
            TColumn {
                family: b"e".to_vec(),
                qualifier: None,
                timestamp: None,
            },
        ]),
        timestamp: Some(9),
        delete_type: Some(TDeleteType(1)),
        attributes: Some(attributes()),
        durability: Some(TDurability(3)),
    }
}

/// A region location with every field set.
fn location(i: u8) -> THRegionLocation {
    THRegionLocation {
        server_name: TServerName {
            host_name: "rs1.example".into(),
            port: Some(16020),
            start_code: Some(1),
        },
        region_info: THRegionInfo {
            region_id: i64::from(i),
            table_name: b"ns:t".to_vec(),
            start_key: Some(vec![i]),
            end_key: Some(vec![i + 1]),
            offline: Some(false),
            split: Some(false),
            replica_id: Some(0),
        },
    }
}

/// A table name.
fn table_name(q: &str) -> TTableName {
    TTableName {
        ns: Some(b"ns".to_vec()),
        qualifier: q.as_bytes().to_vec(),
    }
}

/// A table descriptor with two families, every field set.
fn table_descriptor() -> TTableDescriptor {
    let family = |name: &[u8]| TColumnFamilyDescriptor {
        name: name.to_vec(),
        attributes: Some(attributes()),
        configuration: Some(BTreeMap::from([("k".into(), "v".into())])),
        block_size: Some(65_536),
        bloomn_filter_type: Some(TBloomFilterType(1)),
        compression_type: Some(TCompressionAlgorithm(2)),
        dfs_replication: Some(3),
        data_block_encoding: Some(TDataBlockEncoding(0)),
        keep_deleted_cells: Some(TKeepDeletedCells(0)),
        max_versions: Some(3),
        min_versions: Some(0),
        scope: Some(0),
        time_to_live: Some(86_400),
        block_cache_enabled: Some(true),
        cache_blooms_on_write: Some(false),
        cache_data_on_write: Some(false),
        cache_indexes_on_write: Some(false),
        compress_tags: Some(true),
        evict_blocks_on_close: Some(false),
        in_memory: Some(false),
    };
    TTableDescriptor {
        table_name: table_name("t"),
        columns: Some(vec![family(b"d"), family(b"e")]),
        attributes: Some(attributes()),
        durability: Some(TDurability(1)),
    }
}

/// Every method in `rpc.rs`, each with its replies.
fn cases() -> Vec<Case> {
    vec![
        case!(THBaseServiceExistsArgs, THBaseServiceExistsResult { result_value: Some(true), io: None }, errors: [{ result_value: None, io: Some(io_error()) }]),
        case!(THBaseServiceExistsAllArgs, THBaseServiceExistsAllResult { result_value: Some(vec![true, false, true]), io: None }, errors: [{ result_value: None, io: Some(io_error()) }]),
        case!(THBaseServiceGetArgs, THBaseServiceGetResult { result_value: Some(row(0)), io: None }, errors: [{ result_value: None, io: Some(io_error()) }]),
        case!(THBaseServiceGetMultipleArgs, THBaseServiceGetMultipleResult { result_value: Some(vec![row(0), row(1)]), io: None }, errors: [{ result_value: None, io: Some(io_error()) }]),
        case!(THBaseServicePutArgs, THBaseServicePutResult { io: None }, errors: [{ io: Some(io_error()) }]),
        case!(THBaseServicePutMultipleArgs, THBaseServicePutMultipleResult { io: None }, errors: [{ io: Some(io_error()) }]),
        case!(THBaseServiceDeleteSingleArgs, THBaseServiceDeleteSingleResult { io: None }, errors: [{ io: Some(io_error()) }]),
        case!(THBaseServiceDeleteMultipleArgs, THBaseServiceDeleteMultipleResult { result_value: Some(vec![delete()]), io: None }, errors: [{ result_value: None, io: Some(io_error()) }]),
        case!(THBaseServiceIncrementArgs, THBaseServiceIncrementResult { result_value: Some(row(0)), io: None }, errors: [{ result_value: None, io: Some(io_error()) }]),
        case!(THBaseServiceAppendArgs, THBaseServiceAppendResult { result_value: Some(row(0)), io: None }, errors: [{ result_value: None, io: Some(io_error()) }]),
        case!(THBaseServiceOpenScannerArgs, THBaseServiceOpenScannerResult { result_value: Some(42), io: None }, errors: [{ result_value: None, io: Some(io_error()) }]),
        case!(THBaseServiceGetScannerRowsArgs, THBaseServiceGetScannerRowsResult { result_value: Some(vec![row(0), row(1), row(2)]), io: None, ia: None }, errors: [{ result_value: None, io: Some(io_error()), ia: None }, { result_value: None, io: None, ia: Some(illegal()) }]),
        case!(THBaseServiceCloseScannerArgs, THBaseServiceCloseScannerResult { io: None, ia: None }, errors: [{ io: Some(io_error()), ia: None }, { io: None, ia: Some(illegal()) }]),
        case!(THBaseServiceMutateRowArgs, THBaseServiceMutateRowResult { io: None }, errors: [{ io: Some(io_error()) }]),
        case!(THBaseServiceGetAllRegionLocationsArgs, THBaseServiceGetAllRegionLocationsResult { result_value: Some(vec![location(0), location(1)]), io: None }, errors: [{ result_value: None, io: Some(io_error()) }]),
        case!(THBaseServiceCheckAndMutateArgs, THBaseServiceCheckAndMutateResult { result_value: Some(false), io: None }, errors: [{ result_value: None, io: Some(io_error()) }]),
        case!(THBaseServiceGetTableDescriptorArgs, THBaseServiceGetTableDescriptorResult { result_value: Some(table_descriptor()), io: None }, errors: [{ result_value: None, io: Some(io_error()) }]),
        case!(THBaseServiceTableExistsArgs, THBaseServiceTableExistsResult { result_value: Some(true), io: None }, errors: [{ result_value: None, io: Some(io_error()) }]),
        case!(THBaseServiceGetTableNamesByPatternArgs, THBaseServiceGetTableNamesByPatternResult { result_value: Some(vec![table_name("a"), table_name("b")]), io: None }, errors: [{ result_value: None, io: Some(io_error()) }]),
        case!(THBaseServiceGetTableNamesByNamespaceArgs, THBaseServiceGetTableNamesByNamespaceResult { result_value: Some(vec![table_name("a")]), io: None }, errors: [{ result_value: None, io: Some(io_error()) }]),
        case!(THBaseServiceCreateTableArgs, THBaseServiceCreateTableResult { io: None }, errors: [{ io: Some(io_error()) }]),
        case!(THBaseServiceDeleteTableArgs, THBaseServiceDeleteTableResult { io: None }, errors: [{ io: Some(io_error()) }]),
        case!(THBaseServiceTruncateTableArgs, THBaseServiceTruncateTableResult { io: None }, errors: [{ io: Some(io_error()) }]),
        case!(THBaseServiceEnableTableArgs, THBaseServiceEnableTableResult { io: None }, errors: [{ io: Some(io_error()) }]),
        case!(THBaseServiceDisableTableArgs, THBaseServiceDisableTableResult { io: None }, errors: [{ io: Some(io_error()) }]),
        case!(THBaseServiceIsTableEnabledArgs, THBaseServiceIsTableEnabledResult { result_value: Some(true), io: None }, errors: [{ result_value: None, io: Some(io_error()) }]),
        case!(THBaseServiceAddColumnFamilyArgs, THBaseServiceAddColumnFamilyResult { io: None }, errors: [{ io: Some(io_error()) }]),
        case!(THBaseServiceDeleteColumnFamilyArgs, THBaseServiceDeleteColumnFamilyResult { io: None }, errors: [{ io: Some(io_error()) }]),
        case!(THBaseServiceModifyColumnFamilyArgs, THBaseServiceModifyColumnFamilyResult { io: None }, errors: [{ io: Some(io_error()) }]),
        case!(THBaseServiceCreateNamespaceArgs, THBaseServiceCreateNamespaceResult { io: None }, errors: [{ io: Some(io_error()) }]),
        case!(THBaseServiceDeleteNamespaceArgs, THBaseServiceDeleteNamespaceResult { io: None }, errors: [{ io: Some(io_error()) }]),
        case!(THBaseServiceGetNamespaceDescriptorArgs, THBaseServiceGetNamespaceDescriptorResult { result_value: Some(TNamespaceDescriptor { name: "ns".into(), configuration: Some(BTreeMap::from([("k".into(), "v".into())])) }), io: None }, errors: [{ result_value: None, io: Some(io_error()) }]),
        case!(THBaseServiceListNamespacesArgs, THBaseServiceListNamespacesResult { result_value: Some(vec!["default".into(), "hbase".into(), "ns".into()]), io: None }, errors: [{ result_value: None, io: Some(io_error()) }]),
        case!(
            THBaseServiceGetThriftServerTypeArgs,
            THBaseServiceGetThriftServerTypeResult {
                result_value: Some(TThriftServerType::TWO)
            }
        ),
    ]
}

#[test]
fn every_method_the_client_calls_is_covered() {
    // The method names in `rpcs!` and `row_rpcs!`.
    let listed = methods_in(include_str!("rpc.rs"));
    assert!(listed.len() >= 30, "{listed:?}");
    assert!(
        row_methods().contains(&"getScannerRows"),
        "{:?}",
        row_methods()
    );
    let covered: Vec<&str> = cases().iter().map(|c| c.method).collect();
    for method in &listed {
        assert!(covered.contains(method), "{method} has no fuzz case");
    }
    assert_eq!(listed.len(), covered.len(), "{covered:?}");
}

fuzz::reply_fuzz_suite!(|case: &Case| case.bound);

#[test]
fn the_largest_list_element_is_within_the_weight() {
    use std::mem::size_of;
    // Every element type of a list in the generated code (replies and calls alike).
    let sizes = [
        size_of::<bool>(),
        size_of::<String>(),
        size_of::<Vec<u8>>(),
        size_of::<TResult>(),
        size_of::<TColumnValue>(),
        size_of::<TColumn>(),
        size_of::<TDelete>(),
        size_of::<THRegionLocation>(),
        size_of::<TTableName>(),
        size_of::<TColumnFamilyDescriptor>(),
        size_of::<TGet>(),
        size_of::<TPut>(),
        size_of::<TMutation>(),
        size_of::<TColumnIncrement>(),
    ];
    for size in sizes {
        assert!(size <= ELEMENT_WEIGHT, "{sizes:?}");
    }
}

/// Hostile replies built to make the decoders reserve as much as they can, and legitimate
/// big ones: what they allocate.
mod reservations {
    use super::*;
    use thrift::protocol::{
        TFieldIdentifier, TListIdentifier, TOutputProtocol, TSerializable, TStructIdentifier, TType,
    };

    /// The limit of these tests.
    const LIMIT: usize = 1 << 20;

    /// Decodes a `getScannerRows` reply under `limit` as the client does (the lean row reader).
    fn scanner_rows(protocol: WireProtocol, bytes: &[u8], limit: usize) -> Verdict {
        check_bound(protocol, bytes, limit, Bound::Probed, |b| {
            read::<THBaseServiceGetScannerRowsArgs>(protocol, SEQ, b).map(drop)
        })
    }

    /// Decodes a `getScannerRows` reply under `limit` with the generated reader, which reads
    /// through the checked protocol reader (the row reader's fallback).
    fn scanner_rows_generated(protocol: WireProtocol, bytes: &[u8], limit: usize) -> Verdict {
        check(protocol, bytes, limit, |b| {
            super::super::rpc::decode::<THBaseServiceGetScannerRowsArgs>(protocol, SEQ, b).map(drop)
        })
    }

    /// A `method` reply whose result struct has field 0 of type `ty`, written by `value`.
    fn success(
        protocol: WireProtocol,
        method: &str,
        ty: TType,
        value: impl FnOnce(&mut dyn TOutputProtocol) -> thrift::Result<()>,
    ) -> Vec<u8> {
        reply(protocol, method, |o| {
            o.write_struct_begin(&TStructIdentifier::new("result"))?;
            o.write_field_begin(&TFieldIdentifier::new("success", ty, 0))?;
            value(o)?;
            o.write_field_end()?;
            o.write_field_stop()?;
            o.write_struct_end()
        })
    }

    /// Writes a list of `n` empty structs (each just its stop byte).
    fn empty_structs(o: &mut dyn TOutputProtocol, n: usize) -> thrift::Result<()> {
        o.write_list_begin(&TListIdentifier::new(TType::Struct, n as i32))?;
        for _ in 0..n {
            o.write_struct_begin(&TStructIdentifier::new("s"))?;
            o.write_field_stop()?;
            o.write_struct_end()?;
        }
        o.write_list_end()
    }

    /// A `getScannerRows` reply of `n` empty rows: their list header, then `n` stop bytes.
    fn empty_rows(protocol: WireProtocol, n: usize) -> Vec<u8> {
        let mut bytes = success(protocol, "getScannerRows", TType::List, |o| {
            o.write_list_begin(&TListIdentifier::new(TType::Struct, n as i32))
        });
        let end = bytes.pop().unwrap(); // the result struct's stop byte
        bytes.resize(bytes.len() + n, 0);
        bytes.push(end);
        bytes
    }

    #[test]
    fn a_list_of_as_many_rows_as_the_bytes_allow_is_refused() {
        for protocol in PROTOCOLS {
            // One-byte rows, as many as fit in the limit. Before the reservation rule the probe
            // passed this; the row reader then reserved 5,592,048 bytes (it bounds a list by
            // the bytes left only), the generated reader 56 bytes a row (58,716,672 bytes).
            let n = LIMIT - 64;
            let bytes = empty_rows(protocol, n);
            assert!(bytes.len() <= LIMIT);
            let verdict = scanner_rows(protocol, &bytes, LIMIT);
            verdict.assert_long_list(n, LIMIT);
            // The generated reader refuses it too, on its own.
            let generated = scanner_rows_generated(protocol, &bytes, LIMIT);
            assert!(!generated.decoded);
            assert!(generated.usage.peak < 4096, "{generated:?}");
        }
    }

    #[test]
    fn the_longest_list_the_limit_allows_reserves_within_it() {
        // The biggest element type, `TColumnFamilyDescriptor` (176 bytes), in a table
        // descriptor with as many (empty, so invalid) families as the limit allows.
        let most = LIMIT / ELEMENT_WEIGHT;
        for protocol in PROTOCOLS {
            for (n, accepted) in [(most, true), (most + 1, false)] {
                let bytes = success(protocol, "getTableDescriptor", TType::Struct, |o| {
                    o.write_struct_begin(&TStructIdentifier::new("TTableDescriptor"))?;
                    o.write_field_begin(&TFieldIdentifier::new("tableName", TType::Struct, 1))?;
                    table_name("t").write_to_out_protocol(o)?;
                    o.write_field_end()?;
                    o.write_field_begin(&TFieldIdentifier::new("columns", TType::List, 2))?;
                    empty_structs(o, n)?;
                    o.write_field_end()?;
                    o.write_field_stop()?;
                    o.write_struct_end()
                });
                let verdict = check(protocol, &bytes, LIMIT, |b| {
                    read::<THBaseServiceGetTableDescriptorArgs>(protocol, SEQ, b).map(drop)
                });
                assert_eq!(verdict.probe == Probe::Complete(bytes.len()), accepted);
                // Reserved (when accepted), then refused at the first family (no name).
                assert!(!verdict.decoded);
                let reserved = n * std::mem::size_of::<TColumnFamilyDescriptor>();
                if accepted {
                    assert!(verdict.usage.largest >= reserved, "{verdict:?}");
                } else {
                    assert!(verdict.usage.largest < 4096, "{verdict:?}");
                }
                assert!(verdict.usage.peak <= LIMIT, "{verdict:?}");
            }
        }
    }

    #[test]
    fn a_binary_read_as_a_list_is_refused() {
        // The success field declared a 65,536-byte binary (binary protocol). The decoder reads
        // a list there whatever the wire says: element type 0 (the length's first byte), count
        // 0x010000FF (its other three and the first content byte). The probe walked a binary:
        // before the checked reader, decoding reserved 16,777,471 rows (939,538,376 bytes).
        let bytes = success(WireProtocol::Binary, "getScannerRows", TType::String, |o| {
            let mut value = vec![0u8; 0x1_0000];
            value[0] = 0xFF;
            o.write_bytes(&value)
        });
        let verdict = scanner_rows(WireProtocol::Binary, &bytes, LIMIT);
        verdict.assert_refused_cheaply(bytes.len());
    }

    #[test]
    fn a_table_descriptor_with_one_field_id_changed_is_refused() {
        // The table descriptor's attributes (field 3, a map of binaries) renumbered 2, the
        // id of its families (a list): the decoder reads the map header as a list header,
        // element type 11 and count 0x0B000000. Before the checked reader that reserved
        // 184,549,376 families (32,480,690,176 bytes) and the process aborted.
        let valid = reply(WireProtocol::Binary, "getTableDescriptor", |o| {
            THBaseServiceGetTableDescriptorResult {
                result_value: Some(table_descriptor()),
                io: None,
            }
            .write_to_out_protocol(o)
        });
        let attributes = [0x0D, 0x00, 0x03, 0x0B, 0x0B];
        let at = valid
            .windows(attributes.len())
            .rposition(|w| w == attributes)
            .expect("the descriptor's attributes");
        let mut bytes = valid.clone();
        bytes[at + 2] = 0x02;
        let verdict = check(WireProtocol::Binary, &bytes, 2048, |b| {
            read::<THBaseServiceGetTableDescriptorArgs>(WireProtocol::Binary, SEQ, b).map(drop)
        });
        assert_eq!(verdict.probe, Probe::Complete(bytes.len()));
        assert!(!verdict.decoded);
    }

    #[test]
    fn a_compact_field_id_past_i16_max_is_an_error_not_a_panic() {
        // An unknown field 32767 (explicit id, an i8), then a field with id delta 1: the
        // thrift reader would add 32767 + 1 (a panic in debug builds).
        let mut bytes = message(
            WireProtocol::Compact,
            "getThriftServerType",
            TMessageType::Reply,
            SEQ,
            |_| Ok(()),
        );
        bytes.extend_from_slice(&[0x03, 0xFE, 0xFF, 0x03, 0x00, 0x15, 0x02, 0x00]);
        let verdict = check(WireProtocol::Compact, &bytes, 2048, |b| {
            read::<THBaseServiceGetThriftServerTypeArgs>(WireProtocol::Compact, SEQ, b).map(drop)
        });
        assert_eq!(verdict.probe, Probe::Complete(bytes.len()));
        assert!(!verdict.decoded);
    }

    /// A row of 100 cells, as a scan of a wide table returns it.
    fn wide_row() -> TResult {
        TResult {
            row: Some(b"user#0000000042".to_vec()),
            column_values: (0..100u8)
                .map(|q| TColumnValue {
                    family: b"d".to_vec(),
                    qualifier: vec![b'q', q],
                    value: vec![q; 4],
                    timestamp: Some(1_700_000_000_000),
                    tags: None,
                    type_: None,
                })
                .collect(),
            stale: Some(false),
            partial: Some(false),
        }
    }

    /// A `getScannerRows` reply of `rows` copies of `row` (written once and repeated: a
    /// struct's encoding does not depend on where it is).
    fn page(protocol: WireProtocol, row: &TResult, rows: usize) -> Vec<u8> {
        let mut one = Vec::new();
        row.write_to_out_protocol(&mut *crate::backend::wire::output(protocol, &mut one))
            .unwrap();
        let mut bytes = success(protocol, "getScannerRows", TType::List, |o| {
            o.write_list_begin(&TListIdentifier::new(TType::Struct, rows as i32))
        });
        let end = bytes.pop().unwrap(); // the result struct's stop byte
        bytes.reserve(one.len() * rows + 1);
        for _ in 0..rows {
            bytes.extend_from_slice(&one);
        }
        bytes.push(end);
        bytes
    }

    #[test]
    fn a_scan_page_of_10_000_rows_of_100_cells_passes_under_the_default_limit() {
        let limit = crate::model::Config::default().max_reply_bytes;
        let protocol = WireProtocol::Compact;
        let row = wide_row();
        let bytes = page(protocol, &row, 10_000);
        assert_eq!(
            Prober::new(protocol, limit).feed(&bytes),
            Probe::Complete(bytes.len())
        );
        // The checked protocol reader (the generated reader's path) accepts its lists too.
        let mut i = with_reply_limit(limit, || crate::backend::wire::input(protocol, &bytes));
        i.read_message_begin().unwrap();
        i.read_struct_begin().unwrap();
        i.read_field_begin().unwrap();
        assert_eq!(i.read_list_begin().unwrap().size, 10_000);
        assert_eq!(TResult::read_from_in_protocol(&mut *i).unwrap(), row);

        // The client reads it whole (the row reader), reserving far less than the limit.
        let reply = bytes::Bytes::copy_from_slice(&bytes);
        let (rows, usage) = measure(|| {
            with_reply_limit(limit, || {
                read::<THBaseServiceGetScannerRowsArgs>(protocol, SEQ, &reply)
            })
        });
        let rows = rows.unwrap().into_rows();
        assert_eq!(rows.len(), 10_000);
        assert!(rows
            .iter()
            .all(|r| r.key == b"user#0000000042" && r.cells.len() == 100));
        assert!(usage.largest <= limit, "{usage:?}");
        eprintln!(
            "a page of 10,000 rows of 100 cells is {} bytes; decoding it allocated at most {} \
             bytes at once, and held {} at the peak",
            bytes.len(),
            usage.largest,
            usage.peak
        );
    }
}
