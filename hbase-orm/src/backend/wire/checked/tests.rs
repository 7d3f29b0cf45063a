use super::*;
use crate::backend::wire::testing::counting::measure;

/// A reader of `bytes` under `limit`.
fn reader(protocol: WireProtocol, bytes: &[u8], limit: usize) -> CheckedInput<'_> {
    with_reply_limit(limit, || CheckedInput::new(protocol, bytes))
}

/// The kind of a refusal, or `None` for anything else.
fn kind<T: std::fmt::Debug>(r: thrift::Result<T>) -> Option<ProtocolErrorKind> {
    match r {
        Err(thrift::Error::Protocol(e)) => Some(e.kind),
        other => panic!("not a protocol error: {other:?}"),
    }
}

#[test]
fn a_string_must_fit_in_what_remains_before_it_is_allocated() {
    // Binary: -1, then 1,000,000 with three bytes behind it, then 3 with three.
    let mut r = reader(WireProtocol::Binary, &[0xFF, 0xFF, 0xFF, 0xFF], usize::MAX);
    let (out, usage) = measure(|| r.read_bytes());
    assert_eq!(kind(out), Some(ProtocolErrorKind::NegativeSize));
    assert!(usage.largest < 1000, "{usage:?}");
    let mut long = 1_000_000i32.to_be_bytes().to_vec();
    long.extend_from_slice(b"abc");
    let mut r = reader(WireProtocol::Binary, &long, usize::MAX);
    let (out, usage) = measure(|| r.read_string());
    assert_eq!(kind(out), Some(ProtocolErrorKind::SizeLimit));
    assert!(usage.largest < 1000, "{usage:?}");
    let mut r = reader(WireProtocol::Binary, &[0, 0, 0, 3, b'a', b'b', b'c'], 0);
    assert_eq!(r.read_string().unwrap(), "abc");
    // Compact: 1,000,000 as a varint with one byte behind it; a 5-byte varint whose bits
    // past the 32nd are dropped (as the thrift reader drops them) reads as 2.
    let mut r = reader(WireProtocol::Compact, &[0xC0, 0x84, 0x3D, b'a'], usize::MAX);
    assert_eq!(kind(r.read_bytes()), Some(ProtocolErrorKind::SizeLimit));
    let mut r = reader(
        WireProtocol::Compact,
        &[0x82, 0x80, 0x80, 0x80, 0x10, b'a', b'b'],
        usize::MAX,
    );
    assert_eq!(r.read_bytes().unwrap(), b"ab");
    // A length cut short is the thrift reader's own end-of-input error.
    let mut r = reader(WireProtocol::Binary, &[0, 0], usize::MAX);
    assert!(matches!(r.read_bytes(), Err(thrift::Error::Transport(_))));
}

#[test]
fn a_container_count_must_be_backed_by_bytes_and_lists_by_the_limit() {
    // Binary list of structs (12): 5 elements with 5 bytes behind them, then with 4.
    let list = |n: i32, behind: usize| {
        let mut b = vec![12];
        b.extend_from_slice(&n.to_be_bytes());
        b.resize(5 + behind, 0);
        b
    };
    let bytes = list(5, 5);
    assert_eq!(
        reader(WireProtocol::Binary, &bytes, usize::MAX)
            .read_list_begin()
            .unwrap()
            .size,
        5
    );
    let bytes = list(5, 4);
    assert_eq!(
        kind(reader(WireProtocol::Binary, &bytes, usize::MAX).read_list_begin()),
        Some(ProtocolErrorKind::SizeLimit)
    );
    let bytes = list(-1, 4);
    assert_eq!(
        kind(reader(WireProtocol::Binary, &bytes, usize::MAX).read_set_begin()),
        Some(ProtocolErrorKind::NegativeSize)
    );
    // Reservations: 5 elements need 5 × ELEMENT_WEIGHT bytes of limit, a map none.
    let bytes = list(5, 5);
    let limit = 5 * ELEMENT_WEIGHT;
    assert!(reader(WireProtocol::Binary, &bytes, limit)
        .read_list_begin()
        .is_ok());
    assert_eq!(
        kind(reader(WireProtocol::Binary, &bytes, limit - 1).read_list_begin()),
        Some(ProtocolErrorKind::SizeLimit)
    );
    assert_eq!(
        kind(reader(WireProtocol::Binary, &bytes, limit - 1).read_set_begin()),
        Some(ProtocolErrorKind::SizeLimit)
    );
    let mut map = vec![11, 11];
    map.extend_from_slice(&5i32.to_be_bytes());
    map.resize(6 + 10, 0);
    assert!(reader(WireProtocol::Binary, &map, 1)
        .read_map_begin()
        .is_ok());
    // Compact: a list header with a count past i32::MAX, which the thrift reader makes
    // negative, and a map of 3 entries with 2 bytes behind.
    let bytes = [0xFC, 0x80, 0x80, 0x80, 0x80, 0x08];
    assert_eq!(
        kind(reader(WireProtocol::Compact, &bytes, usize::MAX).read_list_begin()),
        Some(ProtocolErrorKind::NegativeSize)
    );
    assert_eq!(
        kind(reader(WireProtocol::Compact, &[3, 0x88, 1, 2], usize::MAX).read_map_begin()),
        Some(ProtocolErrorKind::SizeLimit)
    );
}

#[test]
fn a_compact_field_id_delta_past_i16_max_is_refused() {
    // A struct: field 32767 (explicit id, type i8 = 3, zigzag varint 0xFE 0xFF 0x03) with
    // value 0, then a field with delta 1: the thrift reader would add 32767 + 1.
    let bytes = [0x03, 0xFE, 0xFF, 0x03, 0x00, 0x13, 0x00, 0x00];
    let mut r = reader(WireProtocol::Compact, &bytes, usize::MAX);
    r.read_struct_begin().unwrap();
    let first = r.read_field_begin().unwrap();
    assert_eq!(first.id, Some(i16::MAX));
    r.read_i8().unwrap();
    assert_eq!(
        kind(r.read_field_begin()),
        Some(ProtocolErrorKind::InvalidData)
    );
    // Ids go back to the enclosing struct's when a nested one ends: a nested struct
    // (field 1, type 12) with field 15, then field 2 (delta 1) outside.
    let nested = [0x1C, 0xF3, 0x00, 0x00, 0x13, 0x00, 0x00];
    let mut r = reader(WireProtocol::Compact, &nested, usize::MAX);
    r.read_struct_begin().unwrap();
    assert_eq!(r.read_field_begin().unwrap().id, Some(1));
    r.read_struct_begin().unwrap();
    assert_eq!(r.read_field_begin().unwrap().id, Some(15));
    r.read_i8().unwrap();
    r.read_field_begin().unwrap(); // stop
    r.read_struct_end().unwrap();
    assert_eq!(r.read_field_begin().unwrap().id, Some(2));
}

#[test]
fn a_message_name_must_fit_before_it_is_allocated() {
    // Binary: a strict header whose name declares -2 bytes, then 100 bytes.
    let mut binary = vec![0x80, 0x01, 0x00, 0x02];
    binary.extend_from_slice(&(-2i32).to_be_bytes());
    let mut r = reader(WireProtocol::Binary, &binary, usize::MAX);
    assert_eq!(
        kind(r.read_message_begin()),
        Some(ProtocolErrorKind::NegativeSize)
    );
    let mut binary = vec![0x80, 0x01, 0x00, 0x02];
    binary.extend_from_slice(&100i32.to_be_bytes());
    let mut r = reader(WireProtocol::Binary, &binary, usize::MAX);
    assert_eq!(
        kind(r.read_message_begin()),
        Some(ProtocolErrorKind::SizeLimit)
    );
    // Compact: sequence id 300 (two bytes), a name of 2^31 bytes.
    let compact = [0x82, 0x41, 0xAC, 0x02, 0x80, 0x80, 0x80, 0x80, 0x08];
    let mut r = reader(WireProtocol::Compact, &compact, usize::MAX);
    let (out, usage) = measure(|| r.read_message_begin());
    assert_eq!(kind(out), Some(ProtocolErrorKind::SizeLimit));
    assert!(usage.largest < 1000, "{usage:?}");
    // A whole compact header reads, and resets the field ids.
    let ok = [0x82, 0x41, 0xAC, 0x02, 0x03, b'g', b'e', b't'];
    let ident = reader(WireProtocol::Compact, &ok, usize::MAX)
        .read_message_begin()
        .unwrap();
    assert_eq!((ident.name.as_str(), ident.sequence_number), ("get", 300));
}

#[test]
fn the_limit_is_set_for_the_closure_only_and_restored_after_a_panic() {
    assert_eq!(REPLY_LIMIT.with(Cell::get), usize::MAX);
    with_reply_limit(10, || {
        assert_eq!(reader(WireProtocol::Binary, &[], 5).limit, 5);
        assert_eq!(CheckedInput::new(WireProtocol::Binary, &[]).limit, 10);
    });
    let _ = std::panic::catch_unwind(|| with_reply_limit(7, || panic!("boom")));
    assert_eq!(REPLY_LIMIT.with(Cell::get), usize::MAX);
}
