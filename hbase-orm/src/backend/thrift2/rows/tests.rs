//! The lean row reader ([`rows`](super)) against the generated one ([`decode`] with the
//! shape's conversion, which is what the client used before).
//!
//! Replies are written with the generated writer in both protocols, with unknown fields of
//! every type slipped in at the start and end of each struct: both readers must return the
//! same rows, or the same error. Mutated and cut replies must never make the lean reader panic,
//! and whenever either reader accepts one the probe lets through, both must, with the same
//! rows, except in the cases where the two rightly differ, each shown by a test of its own:
//!
//! - a known field (or the elements of a known list) of another wire type than the IDL's: the
//!   generated reader reads it as the IDL's type anyway, the lean one refuses the reply;
//! - a message that is a call or one-way message, not a reply: the generated reader reads it as
//!   a reply, the lean one refuses it;
//! - an unknown `string`/`binary` field that is not UTF-8: the `thrift` crate's `skip` checks
//!   it and fails, the lean reader skips it as Thrift's rules say.

use std::fmt::Debug;
use std::panic::{catch_unwind, AssertUnwindSafe};

use bytes::Bytes;
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use thrift::protocol::{
    TFieldIdentifier, TListIdentifier, TMapIdentifier, TMessageIdentifier, TMessageType,
    TOutputProtocol, TSetIdentifier, TStructIdentifier, TType,
};
use thrift::{ApplicationError, ApplicationErrorKind};

use crate::backend::thrift2::convert;
use crate::backend::thrift2::generated::thbase::*;
use crate::backend::thrift2::rpc::{decode, Rpc};
use crate::backend::wire::probe::{message_len, Probe, Prober};
use crate::backend::wire::{self, Feed, WireProtocol};
use crate::model::{Error, Row, ScannerPage};

/// The sequence number of every call here.
const SEQ: i32 = 41;

/// Both protocols.
const PROTOCOLS: [WireProtocol; 2] = [WireProtocol::Binary, WireProtocol::Compact];

/// The value of an unknown field, of any Thrift type.
#[derive(Clone, Debug)]
enum Extra {
    /// A bool.
    Bool(bool),
    /// A byte.
    Byte(i8),
    /// An `i16`.
    I16(i16),
    /// An `i32`.
    I32(i32),
    /// An `i64`.
    I64(i64),
    /// A double.
    Double(f64),
    /// A binary (UTF-8 or not).
    Binary(Vec<u8>),
    /// A struct of fields with these ids.
    Struct(Vec<(i16, Extra)>),
    /// A list (or, if the flag is set, a set) of elements of one type.
    List(bool, TType, Vec<Extra>),
    /// A map with keys of one type and values of another.
    Map(TType, TType, Vec<(Extra, Extra)>),
}

impl Extra {
    /// The value's Thrift type.
    fn ttype(&self) -> TType {
        match self {
            Extra::Bool(_) => TType::Bool,
            Extra::Byte(_) => TType::I08,
            Extra::I16(_) => TType::I16,
            Extra::I32(_) => TType::I32,
            Extra::I64(_) => TType::I64,
            Extra::Double(_) => TType::Double,
            Extra::Binary(_) => TType::String,
            Extra::Struct(_) => TType::Struct,
            Extra::List(false, ..) => TType::List,
            Extra::List(true, ..) => TType::Set,
            Extra::Map(..) => TType::Map,
        }
    }

    /// Whether it holds a binary that is not UTF-8 (which the generated reader cannot skip).
    fn has_non_utf8(&self) -> bool {
        match self {
            Extra::Binary(b) => std::str::from_utf8(b).is_err(),
            Extra::Struct(fields) => fields.iter().any(|(_, e)| e.has_non_utf8()),
            Extra::List(_, _, items) => items.iter().any(Extra::has_non_utf8),
            Extra::Map(_, _, pairs) => pairs
                .iter()
                .any(|(k, v)| k.has_non_utf8() || v.has_non_utf8()),
            _ => false,
        }
    }

    /// Writes the value.
    fn write(&self, o: &mut dyn TOutputProtocol) -> thrift::Result<()> {
        match self {
            Extra::Bool(b) => o.write_bool(*b),
            Extra::Byte(b) => o.write_i8(*b),
            Extra::I16(i) => o.write_i16(*i),
            Extra::I32(i) => o.write_i32(*i),
            Extra::I64(i) => o.write_i64(*i),
            Extra::Double(d) => o.write_double(*d),
            Extra::Binary(b) => o.write_bytes(b),
            Extra::Struct(fields) => {
                o.write_struct_begin(&TStructIdentifier::new("Extra"))?;
                write_fields(o, fields)?;
                o.write_field_stop()?;
                o.write_struct_end()
            }
            Extra::List(set, ty, items) => {
                let n = items.len() as i32;
                if *set {
                    o.write_set_begin(&TSetIdentifier::new(*ty, n))?;
                } else {
                    o.write_list_begin(&TListIdentifier::new(*ty, n))?;
                }
                for item in items {
                    item.write(o)?;
                }
                if *set {
                    o.write_set_end()
                } else {
                    o.write_list_end()
                }
            }
            Extra::Map(key, value, pairs) => {
                o.write_map_begin(&TMapIdentifier::new(*key, *value, pairs.len() as i32))?;
                for (k, v) in pairs {
                    k.write(o)?;
                    v.write(o)?;
                }
                o.write_map_end()
            }
        }
    }
}

/// Writes `fields` as fields of the struct being written.
fn write_fields(o: &mut dyn TOutputProtocol, fields: &[(i16, Extra)]) -> thrift::Result<()> {
    for (id, value) in fields {
        o.write_field_begin(&TFieldIdentifier::new("extra", value.ttype(), *id))?;
        value.write(o)?;
        o.write_field_end()?;
    }
    Ok(())
}

/// A binary: text or any bytes.
fn bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        "[a-z]{0,6}".prop_map(String::into_bytes),
        vec(any::<u8>(), 0..max),
    ]
}

/// An unknown field's value, nesting up to three levels.
fn extra() -> impl Strategy<Value = Extra> {
    let leaf = prop_oneof![
        any::<bool>().prop_map(Extra::Bool),
        any::<i8>().prop_map(Extra::Byte),
        any::<i16>().prop_map(Extra::I16),
        any::<i32>().prop_map(Extra::I32),
        any::<i64>().prop_map(Extra::I64),
        any::<f64>().prop_map(Extra::Double),
        bytes(8).prop_map(Extra::Binary),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            vec((-20i16..20, inner.clone()), 0..4).prop_map(Extra::Struct),
            (any::<bool>(), vec(inner.clone(), 0..4)).prop_map(|(set, items)| {
                let ty = items.first().map_or(TType::I32, Extra::ttype);
                let items = items.into_iter().filter(|e| e.ttype() == ty).collect();
                Extra::List(set, ty, items)
            }),
            vec((inner.clone(), inner), 0..3).prop_map(|pairs| {
                let (key, value) = pairs
                    .first()
                    .map_or((TType::I32, TType::String), |(k, v)| (k.ttype(), v.ttype()));
                let pairs = pairs
                    .into_iter()
                    .filter(|(k, v)| k.ttype() == key && v.ttype() == value)
                    .collect();
                Extra::Map(key, value, pairs)
            }),
        ]
    })
}

/// Groups of unknown fields, with ids no struct of a reply knows.
fn extra_groups() -> impl Strategy<Value = Vec<Vec<(i16, Extra)>>> {
    let id = prop_oneof![7i16..300, -300i16..0];
    vec(vec((id, extra()), 0..3), 0..4)
}

/// Writes through `inner`, adding unknown fields at the start and at the end of every struct:
/// the next group each time, round and round.
struct Inject<'a> {
    /// The writer.
    inner: &'a mut dyn TOutputProtocol,
    /// The groups of unknown fields.
    groups: &'a [Vec<(i16, Extra)>],
    /// How many groups were written.
    next: usize,
}

impl Inject<'_> {
    /// Writes the next group.
    fn extras(&mut self) -> thrift::Result<()> {
        let groups = self.groups;
        if groups.is_empty() {
            return Ok(());
        }
        let group = &groups[self.next % groups.len()];
        self.next += 1;
        write_fields(self.inner, group)
    }
}

impl TOutputProtocol for Inject<'_> {
    fn write_message_begin(&mut self, identifier: &TMessageIdentifier) -> thrift::Result<()> {
        self.inner.write_message_begin(identifier)
    }
    fn write_message_end(&mut self) -> thrift::Result<()> {
        self.inner.write_message_end()
    }
    fn write_struct_begin(&mut self, identifier: &TStructIdentifier) -> thrift::Result<()> {
        self.inner.write_struct_begin(identifier)?;
        self.extras()
    }
    fn write_struct_end(&mut self) -> thrift::Result<()> {
        self.inner.write_struct_end()
    }
    fn write_field_begin(&mut self, identifier: &TFieldIdentifier) -> thrift::Result<()> {
        self.inner.write_field_begin(identifier)
    }
    fn write_field_end(&mut self) -> thrift::Result<()> {
        self.inner.write_field_end()
    }
    fn write_field_stop(&mut self) -> thrift::Result<()> {
        self.extras()?;
        self.inner.write_field_stop()
    }
    fn write_bool(&mut self, b: bool) -> thrift::Result<()> {
        self.inner.write_bool(b)
    }
    fn write_bytes(&mut self, b: &[u8]) -> thrift::Result<()> {
        self.inner.write_bytes(b)
    }
    fn write_i8(&mut self, i: i8) -> thrift::Result<()> {
        self.inner.write_i8(i)
    }
    fn write_i16(&mut self, i: i16) -> thrift::Result<()> {
        self.inner.write_i16(i)
    }
    fn write_i32(&mut self, i: i32) -> thrift::Result<()> {
        self.inner.write_i32(i)
    }
    fn write_i64(&mut self, i: i64) -> thrift::Result<()> {
        self.inner.write_i64(i)
    }
    fn write_double(&mut self, d: f64) -> thrift::Result<()> {
        self.inner.write_double(d)
    }
    fn write_string(&mut self, s: &str) -> thrift::Result<()> {
        self.inner.write_string(s)
    }
    fn write_list_begin(&mut self, identifier: &TListIdentifier) -> thrift::Result<()> {
        self.inner.write_list_begin(identifier)
    }
    fn write_list_end(&mut self) -> thrift::Result<()> {
        self.inner.write_list_end()
    }
    fn write_set_begin(&mut self, identifier: &TSetIdentifier) -> thrift::Result<()> {
        self.inner.write_set_begin(identifier)
    }
    fn write_set_end(&mut self) -> thrift::Result<()> {
        self.inner.write_set_end()
    }
    fn write_map_begin(&mut self, identifier: &TMapIdentifier) -> thrift::Result<()> {
        self.inner.write_map_begin(identifier)
    }
    fn write_map_end(&mut self) -> thrift::Result<()> {
        self.inner.write_map_end()
    }
    fn flush(&mut self) -> thrift::Result<()> {
        self.inner.flush()
    }
    fn write_byte(&mut self, b: u8) -> thrift::Result<()> {
        self.inner.write_byte(b)
    }
}

/// A cell as HBase sends it, optional fields present or not.
fn column_value() -> impl Strategy<Value = TColumnValue> {
    (
        bytes(3),
        bytes(6),
        vec(any::<u8>(), 0..20),
        option::of(any::<i64>()),
        option::of(bytes(4)),
        option::of(any::<i8>()),
    )
        .prop_map(
            |(family, qualifier, value, timestamp, tags, type_)| TColumnValue {
                family,
                qualifier,
                value,
                timestamp,
                tags,
                type_,
            },
        )
}

/// A result: a row key (none, empty or not), cells, stale and partial flags.
fn tresult() -> impl Strategy<Value = TResult> {
    (
        option::of(vec(any::<u8>(), 0..6)),
        vec(column_value(), 0..5),
        option::of(any::<bool>()),
        option::of(any::<bool>()),
    )
        .prop_map(|(row, column_values, stale, partial)| TResult {
            row,
            column_values,
            stale,
            partial,
        })
}

/// How the call went.
#[derive(Clone, Debug)]
enum Outcome {
    /// The rows came back.
    Rows,
    /// HBase failed the call with `TIOError` (after the rows, if the flag is set).
    Io(TIOError, bool),
    /// HBase rejected an argument (`TIllegalArgument`): only `getScannerRows` declares it,
    /// other methods send a result struct with nothing in it.
    Ia(TIllegalArgument),
    /// A result struct with nothing in it.
    NoResult,
    /// The gateway answered with an application exception.
    Failed(String),
}

impl Outcome {
    /// The success value to write, if the outcome has one.
    fn success<T>(&self, value: impl FnOnce() -> T) -> Option<T> {
        matches!(self, Outcome::Rows | Outcome::Io(_, true)).then(value)
    }

    /// The `TIOError` to write, if any.
    fn io(&self) -> Option<TIOError> {
        match self {
            Outcome::Io(io, _) => Some(io.clone()),
            _ => None,
        }
    }

    /// The `TIllegalArgument` to write, if any.
    fn ia(&self) -> Option<TIllegalArgument> {
        match self {
            Outcome::Ia(ia) => Some(ia.clone()),
            _ => None,
        }
    }
}

/// Any outcome, mostly rows.
fn outcome() -> impl Strategy<Value = Outcome> {
    let message = option::of(prop_oneof![
        "[ -~]{0,20}",
        Just("org.apache.hadoop.hbase.TableNotFoundException: ns:t".to_string()),
    ]);
    prop_oneof![
        6 => Just(Outcome::Rows),
        1 => (message.clone(), option::of(any::<bool>()), any::<bool>()).prop_map(
            |(message, can_retry, with_rows)| {
                Outcome::Io(TIOError { message, can_retry }, with_rows)
            }
        ),
        1 => message.prop_map(|message| Outcome::Ia(TIllegalArgument { message })),
        1 => Just(Outcome::NoResult),
        1 => "[a-z ]{0,20}".prop_map(Outcome::Failed),
    ]
}

/// A method that returns rows: how its result struct is written, and what it returns.
trait Case: Rpc<Reply: PartialEq + Debug> + Sized {
    /// Writes the result struct of `outcome`, with `results` as the success value (the first
    /// only, for a method returning one).
    fn write_result(
        results: &[TResult],
        outcome: &Outcome,
        o: &mut dyn TOutputProtocol,
    ) -> thrift::Result<()>;
    /// What a call returning `results` returns.
    fn expected(results: &[TResult]) -> Self::Reply;
}

/// The methods returning one `TResult`.
macro_rules! one_row_cases {
    ($($args:ident / $result:ident),*) => {$(
        impl Case for $args {
            fn write_result(
                results: &[TResult],
                outcome: &Outcome,
                o: &mut dyn TOutputProtocol,
            ) -> thrift::Result<()> {
                $result {
                    result_value: outcome.success(|| results[0].clone()),
                    io: outcome.io(),
                }
                .write_to_out_protocol(o)
            }
            fn expected(results: &[TResult]) -> Option<Row> {
                convert::row(results[0].clone())
            }
        }
    )*};
}

one_row_cases!(
    THBaseServiceGetArgs / THBaseServiceGetResult,
    THBaseServiceIncrementArgs / THBaseServiceIncrementResult,
    THBaseServiceAppendArgs / THBaseServiceAppendResult
);

impl Case for THBaseServiceGetMultipleArgs {
    fn write_result(
        results: &[TResult],
        outcome: &Outcome,
        o: &mut dyn TOutputProtocol,
    ) -> thrift::Result<()> {
        THBaseServiceGetMultipleResult {
            result_value: outcome.success(|| results.to_vec()),
            io: outcome.io(),
        }
        .write_to_out_protocol(o)
    }
    fn expected(results: &[TResult]) -> Vec<Option<Row>> {
        results.iter().cloned().map(convert::row).collect()
    }
}

impl Case for THBaseServiceGetScannerRowsArgs {
    fn write_result(
        results: &[TResult],
        outcome: &Outcome,
        o: &mut dyn TOutputProtocol,
    ) -> thrift::Result<()> {
        THBaseServiceGetScannerRowsResult {
            result_value: outcome.success(|| results.to_vec()),
            io: outcome.io(),
            ia: outcome.ia(),
        }
        .write_to_out_protocol(o)
    }
    fn expected(results: &[TResult]) -> ScannerPage {
        ScannerPage::from_rows(results.iter().cloned().filter_map(convert::row).collect()).unwrap()
    }
}

/// Writes a whole message in `protocol`: header (`kind`, `method`, [`SEQ`]) and `body`.
fn message(
    protocol: WireProtocol,
    method: &str,
    kind: TMessageType,
    body: impl FnOnce(&mut dyn TOutputProtocol) -> thrift::Result<()>,
) -> Vec<u8> {
    let mut out = Vec::new();
    let mut o = wire::output(protocol, &mut out);
    o.write_message_begin(&TMessageIdentifier::new(method, kind, SEQ))
        .unwrap();
    body(&mut *o).unwrap();
    o.write_message_end().unwrap();
    o.flush().unwrap();
    drop(o);
    out
}

/// The reply to a call of `C` that went as `outcome`, with the unknown fields of `groups`.
fn reply<C: Case>(
    protocol: WireProtocol,
    results: &[TResult],
    outcome: &Outcome,
    groups: &[Vec<(i16, Extra)>],
) -> Vec<u8> {
    let kind = match outcome {
        Outcome::Failed(_) => TMessageType::Exception,
        _ => TMessageType::Reply,
    };
    message(protocol, C::METHOD, kind, |o| {
        let mut o = Inject {
            inner: o,
            groups,
            next: 0,
        };
        match outcome {
            Outcome::Failed(why) => thrift::Error::write_application_error_to_out_protocol(
                &ApplicationError::new(ApplicationErrorKind::InternalError, why.clone()),
                &mut o,
            ),
            _ => C::write_result(results, outcome, &mut o),
        }
    })
}

/// Whether the generated reader fails on `bytes` because it checks that a skipped binary is
/// UTF-8 (the `thrift` crate's error names the cause; [`decode`] keeps only its kind).
fn generated_fails_on_utf8<C: Case>(protocol: WireProtocol, bytes: &[u8]) -> bool {
    let raw = wire::read_reply(
        &mut *wire::input(protocol, bytes),
        C::METHOD,
        SEQ,
        C::read_reply,
    );
    matches!(raw, Err(thrift::Error::Protocol(e)) if e.message.contains("utf-8"))
}

/// Whether the lean reader refused the reply for what it checks and the generated one does
/// not: a known field of another wire type, or a message that is not a reply.
fn refused_as_stricter(e: &Error) -> bool {
    matches!(e, Error::Protocol { message, .. }
        if message.contains("has the wrong wire type") || message.contains("not a reply"))
}

/// Reads a reply written by the generated writer both ways and compares.
fn check_written<C: Case>(
    protocol: WireProtocol,
    results: &[TResult],
    outcome: &Outcome,
    groups: &[Vec<(i16, Extra)>],
) {
    let bytes = reply::<C>(protocol, results, outcome, groups);
    assert_eq!(message_len(protocol, &bytes), Probe::Complete(bytes.len()));
    let lean = C::decode_reply(protocol, SEQ, &Bytes::copy_from_slice(&bytes));
    let generated = decode::<C>(protocol, SEQ, &bytes);
    if !matches!(outcome, Outcome::Rows) {
        assert!(lean.is_err(), "{lean:?}");
        assert_eq!(format!("{lean:?}"), format!("{generated:?}"));
        return;
    }
    let expected = C::expected(results);
    assert_eq!(lean.as_ref().ok(), Some(&expected), "{lean:?}");
    match generated {
        Ok(rows) => assert_eq!(rows, expected),
        Err(e) => {
            let non_utf8 = groups.iter().flatten().any(|(_, e)| e.has_non_utf8());
            assert!(
                non_utf8 && generated_fails_on_utf8::<C>(protocol, &bytes),
                "{e}"
            );
        }
    }
}

/// Reads damaged bytes the lean way and, if the probe would let them through, the generated
/// way too, and compares.
///
/// The generated reader can panic on bytes the probe passes, and the lean one hands it
/// exceptions: it adds compact field-id deltas unchecked (an overflow after an id near
/// `i16::MAX`, in a debug build), and reads a field of an exception struct as the IDL's type
/// whatever its wire type (a negative length then, where the probe saw an integer). So the
/// lean reader may panic only where the generated one does too.
fn check_damaged<C: Case>(protocol: WireProtocol, bytes: &[u8]) {
    let lean = catch_unwind(AssertUnwindSafe(|| {
        C::decode_reply(protocol, SEQ, &Bytes::copy_from_slice(bytes))
    }));
    let generated = (message_len(protocol, bytes) == Probe::Complete(bytes.len()))
        .then(|| catch_unwind(AssertUnwindSafe(|| decode::<C>(protocol, SEQ, bytes))));
    let Ok(lean) = lean else {
        assert!(
            matches!(generated, Some(Err(_))),
            "the lean reader panicked where the generated one did not"
        );
        return;
    };
    let Some(Ok(generated)) = generated else {
        return;
    };
    match (&lean, &generated) {
        (Ok(l), Ok(g)) => assert_eq!(l, g),
        (Ok(_), Err(g)) => assert!(
            generated_fails_on_utf8::<C>(protocol, bytes),
            "only the generated reader failed: {g}"
        ),
        (Err(l), Ok(_)) => assert!(refused_as_stricter(l), "only the lean reader failed: {l}"),
        (Err(l), Err(g)) => {
            let both_malformed = matches!((l, g), (Error::Protocol { .. }, Error::Protocol { .. }));
            assert!(
                both_malformed || refused_as_stricter(l) || format!("{l:?}") == format!("{g:?}"),
                "lean: {l:?}, generated: {g:?}"
            );
        }
    }
}

/// Runs `check` for the method numbered `method` (0 to 4).
fn for_method(method: usize, check: &mut impl Checker) {
    match method {
        0 => check.run::<THBaseServiceGetArgs>(),
        1 => check.run::<THBaseServiceGetMultipleArgs>(),
        2 => check.run::<THBaseServiceGetScannerRowsArgs>(),
        3 => check.run::<THBaseServiceIncrementArgs>(),
        _ => check.run::<THBaseServiceAppendArgs>(),
    }
}

/// Something to run for one method.
trait Checker {
    /// Runs it for method `C`.
    fn run<C: Case>(&mut self);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Replies written by the generated writer, unknown fields and all, read the same both
    /// ways: the same rows, or the same error.
    #[test]
    fn written_replies_read_the_same(
        method in 0usize..5,
        compact in any::<bool>(),
        results in vec(tresult(), 1..4),
        outcome in outcome(),
        groups in extra_groups(),
    ) {
        let protocol = if compact { WireProtocol::Compact } else { WireProtocol::Binary };
        /// The reply's protocol, rows, outcome and unknown fields.
        struct Written<'a>(WireProtocol, &'a [TResult], &'a Outcome, &'a [Vec<(i16, Extra)>]);
        impl Checker for Written<'_> {
            fn run<C: Case>(&mut self) {
                check_written::<C>(self.0, self.1, self.2, self.3);
            }
        }
        for_method(method, &mut Written(protocol, &results, &outcome, &groups));
    }

    /// Replies with bytes changed and cut off never make the lean reader panic (see
    /// [`check_damaged`]) and read the same both ways but where the readers rightly differ.
    #[test]
    fn damaged_replies_never_panic_and_read_the_same(
        method in 0usize..5,
        compact in any::<bool>(),
        results in vec(tresult(), 1..3),
        outcome in outcome(),
        groups in extra_groups(),
        edits in vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
        cut in any::<prop::sample::Index>(),
    ) {
        let protocol = if compact { WireProtocol::Compact } else { WireProtocol::Binary };
        /// The reply's protocol, rows, outcome and unknown fields; the edits; where to cut.
        struct Damaged<'a>(
            WireProtocol,
            &'a [TResult],
            &'a Outcome,
            &'a [Vec<(i16, Extra)>],
            &'a [(prop::sample::Index, u8)],
            prop::sample::Index,
        );
        impl Checker for Damaged<'_> {
            fn run<C: Case>(&mut self) {
                let protocol = self.0;
                let mut bytes = reply::<C>(protocol, self.1, self.2, self.3);
                check_damaged::<C>(protocol, &bytes[..self.5.index(bytes.len())]);
                for (at, b) in self.4 {
                    let i = at.index(bytes.len());
                    bytes[i] = *b;
                }
                check_damaged::<C>(protocol, &bytes);
                check_damaged::<C>(protocol, &bytes[..self.5.index(bytes.len() + 1)]);
            }
        }
        for_method(method, &mut Damaged(protocol, &results, &outcome, &groups, &edits, cut));
    }

    /// Any bytes at all: the same as damaged replies.
    #[test]
    fn random_bytes_never_panic(
        method in 0usize..5,
        compact in any::<bool>(),
        bytes in vec(any::<u8>(), 0..128),
    ) {
        let protocol = if compact { WireProtocol::Compact } else { WireProtocol::Binary };
        /// The protocol and the bytes.
        struct Random<'a>(WireProtocol, &'a [u8]);
        impl Checker for Random<'_> {
            fn run<C: Case>(&mut self) {
                check_damaged::<C>(self.0, self.1);
            }
        }
        for_method(method, &mut Random(protocol, &bytes));
    }
}

/// Reads `bytes` (a `getScannerRows` reply, perhaps damaged, cut, or with more bytes after it)
/// as an unframed connection does: the arriving reader gets the prefixes ending at `cuts` and
/// then all of it, until it is done or gives up. Its answers must be the probe's (under
/// `limit`) and the whole-reply reader's: waiting for more only where the probe would too, on
/// the same prefix; done where the probe finds the end, with the same rows. Returns what it
/// said last.
fn check_arriving(protocol: WireProtocol, bytes: &[u8], limit: usize, cuts: &[usize]) -> Feed {
    let mut reader = THBaseServiceGetScannerRowsArgs::reader(protocol, SEQ, limit)
        .expect("getScannerRows has an arriving reader");
    let mut ends: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    ends.sort_unstable();
    ends.push(bytes.len());
    let mut said = Feed::More;
    // The probe resumes from one prefix to the next, as on a connection.
    let mut prober = Prober::new(protocol, limit);
    for end in ends {
        said = reader.feed(&bytes[..end]);
        if said != Feed::More {
            break;
        }
        let probed = prober.feed(&bytes[..end]);
        assert_eq!(
            probed,
            Probe::Incomplete,
            "waiting for more after {end} bytes"
        );
    }
    let probed = Prober::new(protocol, limit).feed(bytes);
    match said {
        Feed::More => assert_eq!(probed, Probe::Incomplete, "waiting for bytes past the end"),
        Feed::Done(n) => {
            assert_eq!(probed, Probe::Complete(n), "done where the probe is not");
            let reply = Bytes::copy_from_slice(&bytes[..n]);
            let whole =
                THBaseServiceGetScannerRowsArgs::decode_reply(protocol, SEQ, &reply).unwrap();
            assert_eq!(reader.finish(&reply).unwrap(), whole);
        }
        // The probe and the whole-reply reader take it from here, as without the reader.
        Feed::GiveUp => {}
    }
    said
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Scanner pages arriving in pieces, whole, damaged or cut, with and without unknown
    /// fields, under a small limit or none: the arriving reader agrees with the probe and the
    /// whole-reply reader (see [`check_arriving`]).
    #[test]
    fn arriving_pages_read_as_probed_whole_pages_do(
        compact in any::<bool>(),
        results in vec(tresult(), 0..4),
        outcome in outcome(),
        groups in prop_oneof![Just(Vec::new()), extra_groups()],
        edits in vec((any::<prop::sample::Index>(), any::<u8>()), 0..3),
        cuts in vec(any::<usize>(), 0..6),
        limit in prop_oneof![Just(usize::MAX), 16usize..4096],
        trailing in vec(any::<u8>(), 0..3),
    ) {
        let protocol = if compact { WireProtocol::Compact } else { WireProtocol::Binary };
        let mut bytes =
            reply::<THBaseServiceGetScannerRowsArgs>(protocol, &results, &outcome, &groups);
        for (at, b) in &edits {
            let i = at.index(bytes.len());
            bytes[i] = *b;
        }
        bytes.extend(trailing);
        check_arriving(protocol, &bytes, limit, &cuts);
    }
}

/// A row `key` of `cells` copies of the cell `d:q` = `v` at version 7.
fn plain_row(key: &[u8], cells: usize) -> TResult {
    let cell = TColumnValue::new(
        b"d".to_vec(),
        b"q".to_vec(),
        b"v".to_vec(),
        Some(7),
        None,
        None,
    );
    TResult {
        row: Some(key.to_vec()),
        column_values: vec![cell; cells],
        stale: None,
        partial: None,
    }
}

#[test]
fn a_well_formed_page_is_read_as_it_arrives_byte_by_byte() {
    for protocol in PROTOCOLS {
        let results = vec![plain_row(b"k1", 1); 3];
        let bytes =
            reply::<THBaseServiceGetScannerRowsArgs>(protocol, &results, &Outcome::Rows, &[]);
        let every_byte: Vec<usize> = (0..bytes.len()).collect();
        let said = check_arriving(protocol, &bytes, usize::MAX, &every_byte);
        assert_eq!(said, Feed::Done(bytes.len()), "{protocol:?}");
        // Under a limit one byte short, it is the probe's to refuse.
        let said = check_arriving(protocol, &bytes, bytes.len() - 1, &[]);
        assert_eq!(said, Feed::GiveUp, "{protocol:?}");
    }
}

#[test]
fn a_long_row_arriving_in_small_pieces_goes_to_the_probe() {
    // One row of 3,000 cells, about 100 KB, in pieces of 16 bytes: read from its start at
    // each piece, it would cost time quadratic in its length.
    let row = plain_row;
    let page = |results: &[TResult]| {
        reply::<THBaseServiceGetScannerRowsArgs>(WireProtocol::Binary, results, &Outcome::Rows, &[])
    };
    let wide = page(&[row(b"wide", 3000)]);
    let pieces: Vec<usize> = (0..wide.len()).step_by(16).collect();
    let said = check_arriving(WireProtocol::Binary, &wide, usize::MAX, &pieces);
    assert_eq!(said, Feed::GiveUp);
    // The same cells as 3,000 rows of one: only the row cut at each piece is read again.
    let narrow = page(&vec![row(b"narrow", 1); 3000]);
    let pieces: Vec<usize> = (0..narrow.len()).step_by(16).collect();
    let said = check_arriving(WireProtocol::Binary, &narrow, usize::MAX, &pieces);
    assert_eq!(said, Feed::Done(narrow.len()));
}

/// A fake unframed binary gateway: for each call it reads (to the end the probe finds), it
/// sends the next of `replies`, with the call's sequence number, in pieces of 7 bytes.
async fn dribbling_gateway(replies: Vec<Vec<u8>>) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        socket.set_nodelay(true).unwrap();
        for mut reply in replies {
            let mut call = Vec::new();
            while !matches!(message_len(WireProtocol::Binary, &call), Probe::Complete(_)) {
                let mut chunk = [0u8; 1024];
                let n = socket.read(&mut chunk).await.unwrap();
                assert!(n > 0, "the client hung up mid-call");
                call.extend_from_slice(&chunk[..n]);
            }
            // Header: version and kind, name length, name, sequence number; the reply's name
            // is the call's, so its sequence number sits at the same place.
            let name_len = i32::from_be_bytes(call[4..8].try_into().unwrap()) as usize;
            let seq_at = 8 + name_len;
            reply[seq_at..seq_at + 4].copy_from_slice(&call[seq_at..seq_at + 4]);
            for piece in reply.chunks(7) {
                socket.write_all(piece).await.unwrap();
                tokio::time::sleep(std::time::Duration::from_millis(1)).await;
            }
        }
    });
    address
}

#[tokio::test]
async fn a_connection_reads_pages_as_they_arrive_and_errors_as_before() {
    use crate::backend::wire::connection::{Connection, WireConfig};
    use crate::backend::wire::WireTransport;
    let results = vec![plain_row(b"k", 1); 20];
    let page = |outcome: &Outcome| {
        reply::<THBaseServiceGetScannerRowsArgs>(WireProtocol::Binary, &results, outcome, &[])
    };
    let io = Outcome::Io(
        TIOError {
            message: Some("org.apache.hadoop.hbase.UnknownScannerException: 9".into()),
            can_retry: None,
        },
        false,
    );
    let mut trailing = page(&Outcome::Rows);
    trailing.push(0);
    let address = dribbling_gateway(vec![page(&Outcome::Rows), page(&io), trailing]).await;
    let config = WireConfig {
        transport: WireTransport::Buffered,
        protocol: WireProtocol::Binary,
        max_reply_bytes: 1 << 20,
        http: None,
        kerberos: None,
    };
    let mut connection = Connection::open(&address, config).await.unwrap();
    let call = THBaseServiceGetScannerRowsArgs {
        scanner_id: 1,
        num_rows: 20,
    };
    let expected = THBaseServiceGetScannerRowsArgs::expected(&results);

    // A page, read as it came, seven bytes at a time.
    let first = connection.call(&call).await.map_err(|f| f.error).unwrap();
    assert_eq!(first, expected);
    assert!(connection.is_reusable());

    // An exception: the reader gives it to the probe and the generated reader, which classify it.
    let failed = connection.call(&call).await.map(|_| ()).unwrap_err().error;
    assert!(
        failed.to_string().contains("UnknownScannerException"),
        "{failed}"
    );
    assert!(
        connection.is_reusable(),
        "a declared exception leaves it in step"
    );

    // A page with a byte after it: read, and the connection is out of step.
    let last = connection.call(&call).await.map_err(|f| f.error).unwrap();
    assert_eq!(last, expected);
    assert!(!connection.is_reusable());
}

/// A `get` reply whose `TResult` fields `write_fields` writes (then a stop).
fn get_reply(
    protocol: WireProtocol,
    kind: TMessageType,
    write_fields: impl FnOnce(&mut dyn TOutputProtocol) -> thrift::Result<()>,
) -> Vec<u8> {
    message(protocol, "get", kind, |o| {
        o.write_struct_begin(&TStructIdentifier::new("THBaseServiceGetResult"))?;
        o.write_field_begin(&TFieldIdentifier::new("success", TType::Struct, 0))?;
        o.write_struct_begin(&TStructIdentifier::new("TResult"))?;
        write_fields(o)?;
        o.write_field_stop()?;
        o.write_struct_end()?;
        o.write_field_end()?;
        o.write_field_stop()?;
        o.write_struct_end()
    })
}

/// Writes field `id` of type `ty` with `value` (whatever `ty` says).
fn field(
    o: &mut dyn TOutputProtocol,
    id: i16,
    ty: TType,
    value: impl FnOnce(&mut dyn TOutputProtocol) -> thrift::Result<()>,
) -> thrift::Result<()> {
    o.write_field_begin(&TFieldIdentifier::new("f", ty, id))?;
    value(o)?;
    o.write_field_end()
}

/// An empty list of cells, as `TResult.columnValues`.
fn no_cells(o: &mut dyn TOutputProtocol) -> thrift::Result<()> {
    field(o, 2, TType::List, |o| {
        o.write_list_begin(&TListIdentifier::new(TType::Struct, 0))?;
        o.write_list_end()
    })
}

/// The row with key `key` and no cells.
fn bare_row(key: &[u8]) -> Option<Row> {
    Some(Row::empty(key.to_vec()))
}

/// The generated reader reads `bytes` (a `get` reply) as `generated`; the lean one refuses it.
fn generated_reads_what_lean_refuses(protocol: WireProtocol, bytes: &[u8], generated: Option<Row>) {
    assert_eq!(
        decode::<THBaseServiceGetArgs>(protocol, SEQ, bytes).unwrap(),
        generated
    );
    let lean = THBaseServiceGetArgs::decode_reply(protocol, SEQ, &Bytes::copy_from_slice(bytes))
        .unwrap_err();
    assert!(refused_as_stricter(&lean), "{lean}");
}

/// The generated reader reads a known field by its IDL type whatever its wire type: a row key
/// sent as an `i32` field with a binary's bytes is a key to it. The lean reader refuses it.
#[test]
fn a_known_field_of_another_wire_type_is_refused() {
    for protocol in PROTOCOLS {
        let bytes = get_reply(protocol, TMessageType::Reply, |o| {
            field(o, 1, TType::I32, |o| o.write_bytes(b"abc"))?;
            no_cells(o)
        });
        generated_reads_what_lean_refuses(protocol, &bytes, bare_row(b"abc"));
    }
}

/// The same for the element type of the list of cells.
#[test]
fn a_list_of_cells_of_another_element_type_is_refused() {
    for protocol in PROTOCOLS {
        let bytes = get_reply(protocol, TMessageType::Reply, |o| {
            field(o, 1, TType::String, |o| o.write_bytes(b"k"))?;
            field(o, 2, TType::List, |o| {
                o.write_list_begin(&TListIdentifier::new(TType::I64, 0))?;
                o.write_list_end()
            })
        });
        generated_reads_what_lean_refuses(protocol, &bytes, bare_row(b"k"));
    }
}

/// The generated reader takes a call message answering a call for a reply; the lean reader
/// refuses it.
#[test]
fn a_message_that_is_not_a_reply_is_refused() {
    for protocol in PROTOCOLS {
        for kind in [TMessageType::Call, TMessageType::OneWay] {
            let bytes = get_reply(protocol, kind, |o| {
                field(o, 1, TType::String, |o| o.write_bytes(b"k"))?;
                no_cells(o)
            });
            generated_reads_what_lean_refuses(protocol, &bytes, bare_row(b"k"));
        }
    }
}

/// The `thrift` crate's `skip` reads a skipped binary as a string and fails if it is not
/// UTF-8; Thrift skips bytes unseen, and so does the lean reader.
#[test]
fn an_unknown_binary_that_is_not_utf8_is_skipped() {
    for protocol in PROTOCOLS {
        let bytes = get_reply(protocol, TMessageType::Reply, |o| {
            field(o, 9, TType::String, |o| o.write_bytes(&[0xFF, 0xFE]))?;
            field(o, 1, TType::String, |o| o.write_bytes(b"k"))?;
            no_cells(o)
        });
        assert!(decode::<THBaseServiceGetArgs>(protocol, SEQ, &bytes).is_err());
        assert!(generated_fails_on_utf8::<THBaseServiceGetArgs>(
            protocol, &bytes
        ));
        let lean =
            THBaseServiceGetArgs::decode_reply(protocol, SEQ, &Bytes::copy_from_slice(&bytes))
                .unwrap();
        assert_eq!(lean, bare_row(b"k"));
    }
}

/// An unknown field may nest 64 levels, itself included, as the `thrift` crate allows.
#[test]
fn unknown_fields_nest_as_deep_as_the_thrift_crate_skips() {
    for protocol in PROTOCOLS {
        for (levels, ok) in [(64, true), (65, false)] {
            let bytes = get_reply(protocol, TMessageType::Reply, |o| {
                field(o, 9, TType::List, |o| {
                    for level in 1..=levels {
                        let inner = if level == levels { 0 } else { 1 };
                        o.write_list_begin(&TListIdentifier::new(TType::List, inner))?;
                    }
                    Ok(())
                })?;
                field(o, 1, TType::String, |o| o.write_bytes(b"k"))?;
                no_cells(o)
            });
            let generated = decode::<THBaseServiceGetArgs>(protocol, SEQ, &bytes);
            let lean =
                THBaseServiceGetArgs::decode_reply(protocol, SEQ, &Bytes::copy_from_slice(&bytes));
            assert_eq!(generated.is_ok(), ok, "{generated:?}");
            assert_eq!(lean.is_ok(), ok, "{lean:?}");
        }
    }
}

/// Every cut of a reply is an error; a count larger than the bytes left allocates nothing
/// for it.
#[test]
fn cut_replies_and_oversized_counts_fail() {
    let results = vec![TResult {
        row: Some(b"row".to_vec()),
        column_values: vec![TColumnValue {
            family: b"d".to_vec(),
            qualifier: b"q".to_vec(),
            value: b"value".to_vec(),
            timestamp: Some(7),
            tags: None,
            type_: None,
        }],
        stale: None,
        partial: None,
    }];
    for protocol in PROTOCOLS {
        let bytes =
            reply::<THBaseServiceGetScannerRowsArgs>(protocol, &results, &Outcome::Rows, &[]);
        for end in 0..bytes.len() {
            let cut = THBaseServiceGetScannerRowsArgs::decode_reply(
                protocol,
                SEQ,
                &Bytes::copy_from_slice(&bytes[..end]),
            );
            assert!(cut.is_err(), "{end}: {cut:?}");
        }
        let huge = get_reply(protocol, TMessageType::Reply, |o| {
            field(o, 2, TType::List, |o| {
                o.write_list_begin(&TListIdentifier::new(TType::Struct, i32::MAX))
            })
        });
        let lean =
            THBaseServiceGetArgs::decode_reply(protocol, SEQ, &Bytes::copy_from_slice(&huge));
        assert!(lean.is_err(), "{lean:?}");
    }
}

/// The same sequence number and method are required of a reply, an exception's included.
#[test]
fn a_reply_to_another_call_is_refused() {
    for protocol in PROTOCOLS {
        let bytes = get_reply(protocol, TMessageType::Reply, no_cells);
        assert!(THBaseServiceGetArgs::decode_reply(
            protocol,
            SEQ + 1,
            &Bytes::copy_from_slice(&bytes)
        )
        .is_err());
        assert!(THBaseServiceIncrementArgs::decode_reply(
            protocol,
            SEQ,
            &Bytes::copy_from_slice(&bytes)
        )
        .is_err());
        assert_eq!(
            THBaseServiceGetArgs::decode_reply(protocol, SEQ, &Bytes::copy_from_slice(&bytes))
                .unwrap(),
            None
        );
    }
}
