//! Every reply type the client reads from the Thrift1 gateway (each `Hbase` method `mod.rs`
//! calls), read through [`Call::decode`] as the backend reads it: valid, then mutated at random
//! or swept byte by byte. Whatever the connection's checks let through must decode or fail,
//! never panic, and decoding must never make a single allocation larger than the reply limit.

use std::collections::BTreeMap;

use hbase_thrift::hbase::{
    AlreadyExists, ColumnDescriptor, IOError, IllegalArgument, TCell, TColumn, TRegionInfo,
    TRowResult, TScan,
};
use thrift::protocol::{
    TFieldIdentifier, TListIdentifier, TMapIdentifier, TMessageType, TOutputProtocol,
    TStructIdentifier, TType,
};
use thrift::{ApplicationError, ApplicationErrorKind};

use super::call::{Attributes, Call, Client};
use crate::backend::wire::probe::{Probe, Prober, ELEMENT_WEIGHT};
use crate::backend::wire::testing::fuzz::{self, check, message, Bound, PROTOCOLS};
use crate::backend::wire::{WireCall, WireProtocol};
use crate::model::Result;

/// The sequence number the throw-away clients of [`Call`] expect (see `call.rs`).
const SEQ: i32 = 1;

/// One reply type: the client method that reads it, and valid replies to it.
struct Case {
    /// The `THbaseSyncClient` method `mod.rs` calls.
    client: &'static str,
    /// The method name on the wire.
    method: &'static str,
    /// Valid replies: success first, then an application exception, then each declared
    /// exception.
    replies: fn(WireProtocol) -> Vec<Vec<u8>>,
    /// Reads a reply as the backend does: the client method, run by [`Call::decode`].
    decode: fn(WireProtocol, &bytes::Bytes) -> Result<()>,
}

/// Writes a field's value.
type Value<'a> = &'a dyn Fn(&mut dyn TOutputProtocol) -> thrift::Result<()>;

/// A result struct holding field `id` of type `ty`, or nothing (a void success).
fn result(protocol: WireProtocol, method: &str, field: Option<(i16, TType, Value<'_>)>) -> Vec<u8> {
    message(protocol, method, TMessageType::Reply, SEQ, |o| {
        o.write_struct_begin(&TStructIdentifier::new("result"))?;
        if let Some((id, ty, value)) = field {
            o.write_field_begin(&TFieldIdentifier::new("f", ty, id))?;
            value(o)?;
            o.write_field_end()?;
        }
        o.write_field_stop()?;
        o.write_struct_end()
    })
}

/// The replies of a method: its success (`success`, or a void one), an application exception,
/// and each of the declared exceptions in `errors` (1 `IOError`, 2 `IllegalArgument`, 3
/// `AlreadyExists`, the ids the IDL gives them).
fn replies(
    protocol: WireProtocol,
    method: &str,
    success: Option<(TType, Value<'_>)>,
    errors: &[i16],
) -> Vec<Vec<u8>> {
    let mut out = vec![result(protocol, method, success.map(|(ty, v)| (0, ty, v)))];
    let e = ApplicationError::new(ApplicationErrorKind::InternalError, "boom");
    out.push(message(
        protocol,
        method,
        TMessageType::Exception,
        SEQ,
        |o| thrift::Error::write_application_error_to_out_protocol(&e, o),
    ));
    for &id in errors {
        let write: Value<'_> = &|o| match id {
            1 => IOError::new(
                "org.apache.hadoop.hbase.TableNotFoundException: ns:t".to_string(),
                false,
            )
            .write_to_out_protocol(o),
            2 => IllegalArgument::new("bad argument".to_string()).write_to_out_protocol(o),
            _ => AlreadyExists::new("ns:t".to_string()).write_to_out_protocol(o),
        };
        out.push(result(protocol, method, Some((id, TType::Struct, write))));
    }
    out
}

/// A cell.
fn cell(v: u8) -> TCell {
    TCell::new(vec![v; 4], 1_700_000_000_000)
}

/// A row of two columns, with its sorted columns too.
fn row(i: u8) -> TRowResult {
    TRowResult::new(
        vec![b'r', i],
        BTreeMap::from([(b"d:a".to_vec(), cell(1)), (b"d:b".to_vec(), cell(2))]),
        vec![TColumn::new(b"d:a".to_vec(), cell(1))],
    )
}

/// A struct of `hbase-thrift` (its generated types write themselves with an inherent method,
/// not through a trait).
trait Writable {
    /// Writes the struct.
    fn write(&self, o: &mut dyn TOutputProtocol) -> thrift::Result<()>;
}

/// Implements [`Writable`] for generated structs.
macro_rules! writable {
    ($($t:ty),*) => {$(
        impl Writable for $t {
            fn write(&self, o: &mut dyn TOutputProtocol) -> thrift::Result<()> {
                self.write_to_out_protocol(o)
            }
        }
    )*};
}

writable!(TRowResult, TCell, TRegionInfo);

/// Writes a list of `items`.
fn list<T: Writable>(o: &mut dyn TOutputProtocol, items: &[T]) -> thrift::Result<()> {
    o.write_list_begin(&TListIdentifier::new(TType::Struct, items.len() as i32))?;
    for item in items {
        item.write(o)?;
    }
    o.write_list_end()
}

/// Writes three rows.
fn rows(o: &mut dyn TOutputProtocol) -> thrift::Result<()> {
    list(o, &[row(0), row(1), row(2)])
}

/// Writes a region list.
fn regions(o: &mut dyn TOutputProtocol) -> thrift::Result<()> {
    let region = |i: u8| TRegionInfo {
        start_key: Some(vec![i]),
        end_key: Some(vec![i + 1]),
        id: Some(i64::from(i)),
        name: Some(b"ns:t,,1.abc.".to_vec()),
        version: Some(1),
        server_name: Some(b"rs1.example".to_vec()),
        port: Some(16020),
    };
    list(o, &[region(0), region(1)])
}

/// Writes a family map.
fn families(o: &mut dyn TOutputProtocol) -> thrift::Result<()> {
    let family = |name: &[u8]| ColumnDescriptor {
        name: Some(name.to_vec()),
        max_versions: Some(3),
        compression: Some("NONE".into()),
        in_memory: Some(false),
        bloom_filter_type: Some("ROW".into()),
        bloom_filter_vector_size: Some(0),
        bloom_filter_nb_hashes: Some(0),
        block_cache_enabled: Some(true),
        time_to_live: Some(86_400),
    };
    o.write_map_begin(&TMapIdentifier::new(TType::String, TType::Struct, 2))?;
    for name in [&b"d:"[..], b"e:"] {
        o.write_bytes(name)?;
        family(name).write_to_out_protocol(o)?;
    }
    o.write_map_end()
}

/// Writes table names.
fn names(o: &mut dyn TOutputProtocol) -> thrift::Result<()> {
    o.write_list_begin(&TListIdentifier::new(TType::String, 2))?;
    o.write_bytes(b"ns:a")?;
    o.write_bytes(b"b")?;
    o.write_list_end()
}

/// A case: client method `$client` called with `$args` (as `mod.rs` calls it), wire name
/// `$method`, success `$success` (a type and a writer, or `None`), declared exceptions `$errors`.
macro_rules! case {
    ($client:ident ($($arg:expr),*) = $method:literal, $success:expr, $errors:expr) => {
        Case {
            client: stringify!($client),
            method: $method,
            replies: |protocol| replies(protocol, $method, $success, $errors),
            decode: |protocol, bytes| {
                Call::new($method, |c: &mut Client<'_>| c.$client($($arg),*))
                    .decode(protocol, SEQ, bytes)
                    .map(drop)
            },
        }
    };
}

/// Writes an `i32`, `i64` or `bool` success.
fn int(o: &mut dyn TOutputProtocol) -> thrift::Result<()> {
    o.write_i32(42)
}

/// See [`int`].
fn long(o: &mut dyn TOutputProtocol) -> thrift::Result<()> {
    o.write_i64(-7)
}

/// See [`int`].
fn yes(o: &mut dyn TOutputProtocol) -> thrift::Result<()> {
    o.write_bool(true)
}

/// The table every call names.
fn t() -> Vec<u8> {
    b"ns:t".to_vec()
}

/// Every client method `mod.rs` calls, each with its replies.
fn cases() -> Vec<Case> {
    vec![
        case!(
            get_thrift_server_type() = "getThriftServerType",
            Some((TType::I32, &int)),
            &[]
        ),
        case!(
            get_row_with_columns_ts(
                t(),
                b"r".to_vec(),
                vec![b"d".to_vec()],
                i64::MAX,
                Attributes::new()
            ) = "getRowWithColumnsTs",
            Some((TType::List, &rows)),
            &[1]
        ),
        case!(
            get_rows_with_columns_ts(
                t(),
                vec![b"r".to_vec()],
                vec![b"d".to_vec()],
                i64::MAX,
                Attributes::new()
            ) = "getRowsWithColumnsTs",
            Some((TType::List, &rows)),
            &[1]
        ),
        case!(
            scanner_open_with_scan(t(), TScan::default(), Attributes::new()) =
                "scannerOpenWithScan",
            Some((TType::I32, &int)),
            &[1]
        ),
        case!(
            scanner_get_list(3, 100) = "scannerGetList",
            Some((TType::List, &rows)),
            &[1, 2]
        ),
        case!(scanner_close(3) = "scannerClose", None, &[1, 2]),
        case!(
            mutate_rows_ts(t(), Vec::new(), 5, Attributes::new()) = "mutateRowsTs",
            None,
            &[1, 2]
        ),
        case!(
            mutate_row_ts(t(), b"r".to_vec(), Vec::new(), 5, Attributes::new()) = "mutateRowTs",
            None,
            &[1, 2]
        ),
        case!(
            atomic_increment(t(), b"r".to_vec(), b"d:c".to_vec(), 1) = "atomicIncrement",
            Some((TType::I64, &long)),
            &[1, 2]
        ),
        case!(
            delete_all_row_ts(t(), b"r".to_vec(), 5, Attributes::new()) = "deleteAllRowTs",
            None,
            &[1]
        ),
        case!(
            check_and_put(
                t(),
                b"r".to_vec(),
                b"d:q".to_vec(),
                b"v".to_vec(),
                hbase_thrift::hbase::Mutation::default(),
                Attributes::new()
            ) = "checkAndPut",
            Some((TType::Bool, &yes)),
            &[1, 2]
        ),
        case!(
            append(hbase_thrift::hbase::TAppend::default()) = "append",
            Some((TType::List, &|o| list(o, &[cell(1), cell(2)]))),
            &[1]
        ),
        case!(
            create_table(t(), Vec::new()) = "createTable",
            None,
            &[1, 2, 3]
        ),
        case!(
            get_column_descriptors(t()) = "getColumnDescriptors",
            Some((TType::Map, &families)),
            &[1]
        ),
        case!(
            get_table_names() = "getTableNames",
            Some((TType::List, &names)),
            &[1]
        ),
        case!(enable_table(t()) = "enableTable", None, &[1]),
        case!(disable_table(t()) = "disableTable", None, &[1]),
        case!(
            is_table_enabled(t()) = "isTableEnabled",
            Some((TType::Bool, &yes)),
            &[1]
        ),
        case!(delete_table(t()) = "deleteTable", None, &[1]),
        case!(
            get_table_regions(t()) = "getTableRegions",
            Some((TType::List, &regions)),
            &[1]
        ),
    ]
}

/// The client methods called in `source`: each `c.name(`.
fn client_methods(source: &str) -> Vec<&str> {
    let mut found: Vec<&str> = source
        .match_indices("c.")
        .filter(|(at, _)| {
            !source[..*at]
                .chars()
                .next_back()
                .is_some_and(|ch| ch.is_alphanumeric() || ch == '_')
        })
        .filter_map(|(at, _)| {
            let rest = &source[at + 2..];
            let end = rest.find(|ch: char| !(ch.is_alphanumeric() || ch == '_'))?;
            rest[end..].starts_with('(').then(|| &rest[..end])
        })
        .collect();
    found.sort_unstable();
    found.dedup();
    found
}

#[test]
fn every_method_the_backend_calls_is_covered() {
    let called = client_methods(include_str!("mod.rs"));
    assert!(called.len() >= 19, "{called:?}");
    let mut covered: Vec<&str> = cases().iter().map(|c| c.client).collect();
    covered.sort_unstable();
    assert_eq!(called, covered);
}

#[test]
fn the_largest_list_element_is_within_the_weight() {
    use std::mem::size_of;
    // Every element type of a list the generated decoders reserve.
    let sizes = [
        size_of::<TRowResult>(),
        size_of::<TCell>(),
        size_of::<TColumn>(),
        size_of::<TRegionInfo>(),
        size_of::<ColumnDescriptor>(),
        size_of::<Vec<u8>>(),
        size_of::<hbase_thrift::hbase::Mutation>(),
        size_of::<hbase_thrift::hbase::BatchMutation>(),
        size_of::<hbase_thrift::hbase::TIncrement>(),
    ];
    for size in sizes {
        assert!(size <= ELEMENT_WEIGHT, "{sizes:?}");
    }
}

fuzz::reply_fuzz_suite!(|_: &Case| Bound::Always);

/// Hostile replies built to make the decoders reserve as much as they can, and a legitimate
/// big one: what they allocate.
mod reservations {
    use super::*;
    use crate::backend::wire::checked::with_reply_limit;
    use crate::backend::wire::testing::counting::measure;

    /// The limit of these tests.
    const LIMIT: usize = 1 << 20;

    /// A `method` reply whose success field (0) has wire type `ty` and the bytes `value`.
    fn success(protocol: WireProtocol, method: &str, ty: TType, value: &[u8]) -> Vec<u8> {
        let mut bytes = result(protocol, method, Some((0, ty, &|_| Ok(()))));
        // The result struct's stop byte goes after the value.
        let end = bytes.pop().unwrap();
        bytes.extend_from_slice(value);
        bytes.push(end);
        bytes
    }

    /// The header of a list of `n` structs.
    fn list_header(protocol: WireProtocol, n: usize) -> Vec<u8> {
        let mut out = Vec::new();
        let mut o = crate::backend::wire::output(protocol, &mut out);
        o.write_list_begin(&TListIdentifier::new(TType::Struct, n as i32))
            .unwrap();
        drop(o);
        out
    }

    /// A list of `n` empty structs (each just its stop byte).
    fn empty_structs(protocol: WireProtocol, n: usize) -> Vec<u8> {
        let mut out = list_header(protocol, n);
        out.resize(out.len() + n, 0);
        out
    }

    /// Decodes a reply to `scannerGetList` under `limit`.
    fn scanner_rows(protocol: WireProtocol, bytes: &[u8], limit: usize) -> fuzz::Verdict {
        let call = Call::new("scannerGetList", |c: &mut Client<'_>| {
            c.scanner_get_list(3, 100)
        });
        check(protocol, bytes, limit, |b| {
            call.decode(protocol, SEQ, b).map(drop)
        })
    }

    #[test]
    fn a_list_of_as_many_rows_as_the_bytes_allow_is_refused() {
        for protocol in PROTOCOLS {
            // Before the reservation rule, the probe passed this and decoding reserved 80
            // bytes a row (83,880,960 bytes).
            let n = LIMIT - 64;
            let bytes = success(
                protocol,
                "scannerGetList",
                TType::List,
                &empty_structs(protocol, n),
            );
            assert!(bytes.len() <= LIMIT);
            let verdict = scanner_rows(protocol, &bytes, LIMIT);
            verdict.assert_long_list(n, LIMIT);
            assert!(!verdict.decoded);
            assert!(verdict.usage.peak < 4096, "{verdict:?}");
        }
    }

    #[test]
    fn the_longest_list_the_limit_allows_decodes_within_it() {
        // The biggest element type, `TRegionInfo` (every field optional: an empty struct is a
        // region), as many as the limit allows, then one more.
        let most = LIMIT / ELEMENT_WEIGHT;
        let call = Call::new("getTableRegions", |c: &mut Client<'_>| {
            c.get_table_regions(t())
        });
        for protocol in PROTOCOLS {
            for (n, accepted) in [(most, true), (most + 1, false)] {
                let bytes = success(
                    protocol,
                    "getTableRegions",
                    TType::List,
                    &empty_structs(protocol, n),
                );
                let verdict = check(protocol, &bytes, LIMIT, |b| {
                    call.decode(protocol, SEQ, b)
                        .map(|regions| assert_eq!(regions.len(), n))
                });
                assert_eq!(verdict.probe == Probe::Complete(bytes.len()), accepted);
                assert_eq!(verdict.decoded, accepted);
                if accepted {
                    let reserved = n * std::mem::size_of::<TRegionInfo>();
                    assert!(verdict.usage.largest >= reserved, "{verdict:?}");
                }
                assert!(verdict.usage.peak <= LIMIT, "{verdict:?}");
            }
        }
    }

    #[test]
    fn a_map_read_as_a_list_is_refused() {
        // The success field declared an empty map of binaries to structs (binary protocol):
        // the decoder reads a list there whatever the wire says, element type 11 and count
        // 0x0C000000. Before the checked reader that reserved 201,326,592 rows (16 GB).
        let map = [0x0B, 0x0C, 0, 0, 0, 0];
        let bytes = success(WireProtocol::Binary, "scannerGetList", TType::Map, &map);
        let verdict = scanner_rows(WireProtocol::Binary, &bytes, LIMIT);
        verdict.assert_refused_cheaply(bytes.len());
    }

    #[test]
    fn a_page_of_1000_rows_of_100_columns_decodes_under_the_default_limit() {
        let limit = crate::model::Config::default().max_reply_bytes;
        let protocol = WireProtocol::Compact;
        let columns: BTreeMap<Vec<u8>, TCell> = (0..100u8)
            .map(|q| {
                (
                    vec![b'd', b':', b'q', q],
                    TCell::new(vec![q; 4], 1_700_000_000_000),
                )
            })
            .collect();
        let row = TRowResult::new(b"user#0000000042".to_vec(), columns, None);
        let mut one = Vec::new();
        row.write_to_out_protocol(&mut *crate::backend::wire::output(protocol, &mut one))
            .unwrap();
        let mut rows = list_header(protocol, 1_000);
        for _ in 0..1_000 {
            rows.extend_from_slice(&one);
        }
        let bytes = success(protocol, "scannerGetList", TType::List, &rows);
        assert_eq!(
            Prober::new(protocol, limit).feed(&bytes),
            Probe::Complete(bytes.len())
        );
        let call = Call::new("scannerGetList", |c: &mut Client<'_>| {
            c.scanner_get_list(3, 1_000)
        });
        let (decoded, usage) = measure(|| {
            with_reply_limit(limit, || {
                call.decode(protocol, SEQ, &bytes::Bytes::copy_from_slice(&bytes))
            })
        });
        let decoded = decoded.unwrap();
        assert_eq!(decoded.len(), 1_000);
        assert!(decoded.iter().all(|r| r == &row));
        assert!(usage.largest <= limit, "{usage:?}");
        eprintln!(
            "Thrift1: a page of 1,000 rows of 100 columns is {} bytes; decoding it allocated \
             at most {} bytes at once, and held {} at the peak",
            bytes.len(),
            usage.largest,
            usage.peak
        );
    }
}
