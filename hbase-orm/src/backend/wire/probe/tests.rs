use super::*;
use proptest::prelude::*;
use thrift::protocol::{
    TBinaryOutputProtocol, TCompactOutputProtocol, TFieldIdentifier, TListIdentifier,
    TMessageIdentifier, TMessageType, TOutputProtocol, TStructIdentifier, TType,
};

/// Both protocols.
const PROTOCOLS: [WireProtocol; 2] = [WireProtocol::Binary, WireProtocol::Compact];

/// Writes a reply message whose result struct `body` writes, in `protocol`.
fn message(
    protocol: WireProtocol,
    body: impl Fn(&mut dyn TOutputProtocol) -> thrift::Result<()>,
) -> Vec<u8> {
    let mut out = Vec::new();
    let write = |p: &mut dyn TOutputProtocol| -> thrift::Result<()> {
        p.write_message_begin(&TMessageIdentifier::new("get", TMessageType::Reply, 7))?;
        p.write_struct_begin(&TStructIdentifier::new("TResult"))?;
        body(p)?;
        p.write_field_stop()?;
        p.write_struct_end()?;
        p.write_message_end()?;
        p.flush()
    };
    match protocol {
        WireProtocol::Binary => write(&mut TBinaryOutputProtocol::new(&mut out, true)),
        WireProtocol::Compact => write(&mut TCompactOutputProtocol::new(&mut out)),
    }
    .unwrap();
    out
}

/// A field identifier.
fn field(name: &'static str, ty: TType, id: i16) -> TFieldIdentifier {
    TFieldIdentifier::new(name, ty, id)
}

/// A reply shaped like a row: a binary field, a list of three structs (binary, binary,
/// 300 bytes, a negative i64), two booleans.
fn sample_message(protocol: WireProtocol) -> Vec<u8> {
    message(protocol, |p| {
        p.write_field_begin(&field("row", TType::String, 1))?;
        p.write_bytes(b"row-1")?;
        p.write_field_end()?;
        p.write_field_begin(&field("columnValues", TType::List, 2))?;
        p.write_list_begin(&TListIdentifier::new(TType::Struct, 3))?;
        for i in 0..3u8 {
            p.write_struct_begin(&TStructIdentifier::new("TColumnValue"))?;
            p.write_field_begin(&field("family", TType::String, 1))?;
            p.write_bytes(b"f")?;
            p.write_field_end()?;
            p.write_field_begin(&field("qualifier", TType::String, 2))?;
            p.write_bytes(&[b'q', i])?;
            p.write_field_end()?;
            p.write_field_begin(&field("value", TType::String, 3))?;
            p.write_bytes(&[i; 300])?;
            p.write_field_end()?;
            p.write_field_begin(&field("timestamp", TType::I64, 4))?;
            p.write_i64(-5)?;
            p.write_field_end()?;
            p.write_field_stop()?;
            p.write_struct_end()?;
        }
        p.write_list_end()?;
        p.write_field_end()?;
        for (id, b) in [(3, true), (4, false)] {
            p.write_field_begin(&field("flag", TType::Bool, id))?;
            p.write_bool(b)?;
            p.write_field_end()?;
        }
        Ok(())
    })
}

/// A reply holding one list of `n` small strings, then a list of bools and a map of
/// i32 to double (the other container shapes).
fn long_list_message(protocol: WireProtocol, n: usize) -> Vec<u8> {
    message(protocol, |p| {
        p.write_field_begin(&field("values", TType::List, 1))?;
        p.write_list_begin(&TListIdentifier::new(TType::String, n as i32))?;
        for i in 0..n {
            p.write_bytes(&[i as u8])?;
        }
        p.write_list_end()?;
        p.write_field_end()?;
        p.write_field_begin(&field("flags", TType::List, 200))?;
        p.write_list_begin(&TListIdentifier::new(TType::Bool, 20))?;
        for i in 0..20 {
            p.write_bool(i % 3 == 0)?;
        }
        p.write_list_end()?;
        p.write_field_end()?;
        p.write_field_begin(&field("prices", TType::Map, 201))?;
        p.write_map_begin(&thrift::protocol::TMapIdentifier::new(
            TType::I32,
            TType::Double,
            3,
        ))?;
        for i in 0..3 {
            p.write_i32(-i)?;
            p.write_double(f64::from(i) / 3.0)?;
        }
        p.write_map_end()?;
        p.write_field_end()
    })
}

/// Feeds `buf` to a new prober in growing prefixes ending at each of `cuts` (ascending),
/// then whole; returns the last outcome and the prober.
fn feed_in_chunks(
    protocol: WireProtocol,
    max_len: usize,
    buf: &[u8],
    cuts: &[usize],
) -> (Probe, Prober) {
    let mut prober = Prober::new(protocol, max_len);
    for &cut in cuts {
        prober.feed(&buf[..cut.min(buf.len())]);
    }
    let outcome = prober.feed(buf);
    (outcome, prober)
}

/// Ascending cut points from chunk sizes, each 1 + a size (so every chunk is non-empty).
fn cuts_from_sizes(sizes: &[usize]) -> Vec<usize> {
    sizes
        .iter()
        .scan(0, |at, size| {
            *at += 1 + size;
            Some(*at)
        })
        .collect()
}

#[test]
fn finds_the_exact_end_of_a_message_in_both_protocols() {
    for protocol in PROTOCOLS {
        let msg = sample_message(protocol);
        assert_eq!(message_len(protocol, &msg), Probe::Complete(msg.len()));
        for cut in 0..msg.len() {
            assert_eq!(
                message_len(protocol, &msg[..cut]),
                Probe::Incomplete,
                "{protocol:?} cut at {cut}"
            );
        }
        let mut two = msg.clone();
        two.extend_from_slice(&msg);
        assert_eq!(message_len(protocol, &two), Probe::Complete(msg.len()));
    }
}

#[test]
fn rejects_garbage_instead_of_waiting_forever() {
    assert!(matches!(
        message_len(WireProtocol::Binary, b"HTTP/1.1 400 Bad Request\r\n"),
        Probe::Malformed(Fault::Bad(_))
    ));
    assert!(matches!(
        message_len(WireProtocol::Compact, &[0x80, 0x01, 0, 0]),
        Probe::Malformed(Fault::Bad(_))
    ));
    // A struct nested deeper than the limit.
    let mut deep = vec![0x80, 0x01, 0x00, 0x02, 0, 0, 0, 0, 0, 0, 0, 1];
    for _ in 0..100 {
        deep.extend_from_slice(&[12, 0, 1]);
    }
    assert!(matches!(
        message_len(WireProtocol::Binary, &deep),
        Probe::Malformed(Fault::Bad("nesting too deep"))
    ));
}

#[test]
fn rejects_negative_lengths_and_unknown_types() {
    // Binary: a string field of length -1, then a field of type 99.
    let head = [0x80, 0x01, 0x00, 0x02, 0, 0, 0, 0, 0, 0, 0, 1];
    let mut negative = head.to_vec();
    negative.extend_from_slice(&[11, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF]);
    assert_eq!(
        message_len(WireProtocol::Binary, &negative),
        Probe::Malformed(Fault::Bad("negative length"))
    );
    let mut unknown = head.to_vec();
    unknown.extend_from_slice(&[99, 0, 1]);
    assert_eq!(
        message_len(WireProtocol::Binary, &unknown),
        Probe::Malformed(Fault::Bad("unknown binary-protocol type"))
    );
    // Compact: a field of type 14, and an unsupported version.
    assert_eq!(
        message_len(WireProtocol::Compact, &[0x82, 0x21, 1, 0, 0x1E]),
        Probe::Malformed(Fault::Bad("unknown compact-protocol type"))
    );
    assert_eq!(
        message_len(WireProtocol::Compact, &[0x82, 0x22]),
        Probe::Malformed(Fault::Bad("unsupported compact-protocol version"))
    );
}

#[test]
fn every_two_way_split_gives_the_one_shot_answer() {
    for protocol in PROTOCOLS {
        for msg in [sample_message(protocol), long_list_message(protocol, 40)] {
            let whole = Probe::Complete(msg.len());
            assert_eq!(message_len(protocol, &msg), whole);
            // The tightest limit: the message's length, or its lists' reservations.
            let limit = msg.len().max(40 * ELEMENT_WEIGHT);
            for cut in 0..=msg.len() {
                let mut prober = Prober::new(protocol, limit);
                let first = prober.feed(&msg[..cut]);
                if cut < msg.len() {
                    assert_eq!(first, Probe::Incomplete, "{protocol:?} cut at {cut}");
                }
                assert_eq!(prober.feed(&msg), whole, "{protocol:?} cut at {cut}");
            }
        }
    }
}

#[test]
fn byte_by_byte_feeding_finds_the_end() {
    for protocol in PROTOCOLS {
        let msg = long_list_message(protocol, 300);
        let cuts: Vec<usize> = (0..msg.len()).collect();
        let (outcome, _) = feed_in_chunks(protocol, usize::MAX, &msg, &cuts);
        assert_eq!(outcome, Probe::Complete(msg.len()));
    }
}

#[test]
fn probing_work_is_linear_in_the_message_size() {
    for protocol in PROTOCOLS {
        let msg = long_list_message(protocol, 10_000);
        let mut one_shot = Prober::new(protocol, usize::MAX);
        assert_eq!(one_shot.feed(&msg), Probe::Complete(msg.len()));
        let tokens = one_shot.steps();
        assert!(tokens > 10_000, "{tokens}");

        // In 100 chunks: barely more than one shot.
        let cuts: Vec<usize> = (1..100).map(|i| msg.len() * i / 100).collect();
        let (outcome, chunked) = feed_in_chunks(protocol, usize::MAX, &msg, &cuts);
        assert_eq!(outcome, Probe::Complete(msg.len()));
        assert!(
            chunked.steps() < 3 * tokens,
            "{protocol:?}: {}",
            chunked.steps()
        );

        // One byte at a time: at most one failed attempt per feed on top of the tokens.
        let cuts: Vec<usize> = (0..msg.len()).collect();
        let (outcome, bytewise) = feed_in_chunks(protocol, usize::MAX, &msg, &cuts);
        assert_eq!(outcome, Probe::Complete(msg.len()));
        let feeds = cuts.len() as u64 + 1;
        assert!(
            bytewise.steps() <= tokens + feeds,
            "{protocol:?}: {} steps for {tokens} tokens and {feeds} feeds",
            bytewise.steps()
        );
    }
}

#[test]
fn a_finished_prober_keeps_its_answer() {
    for protocol in PROTOCOLS {
        let msg = sample_message(protocol);
        let mut prober = Prober::new(protocol, usize::MAX);
        assert_eq!(prober.feed(&msg), Probe::Complete(msg.len()));
        let steps = prober.steps();
        let mut longer = msg.clone();
        longer.extend_from_slice(&msg);
        assert_eq!(prober.feed(&longer), Probe::Complete(msg.len()));
        assert_eq!(prober.steps(), steps);
    }
}

#[test]
fn a_message_of_exactly_the_limit_is_accepted_and_one_byte_more_is_not() {
    for protocol in PROTOCOLS {
        let msg = sample_message(protocol);
        let mut prober = Prober::new(protocol, msg.len());
        assert_eq!(prober.feed(&msg), Probe::Complete(msg.len()));
        let mut prober = Prober::new(protocol, msg.len() - 1);
        match prober.feed(&msg) {
            Probe::Malformed(fault) => assert!(fault.is_limit(), "{fault}"),
            other => panic!("{protocol:?}: {other:?}"),
        }
    }
}

#[test]
fn a_string_declared_past_the_limit_fails_before_its_bytes_come() {
    // Binary: a string field declaring 1,000,000 bytes; only its header has arrived.
    let mut binary = vec![0x80, 0x01, 0x00, 0x02, 0, 0, 0, 0, 0, 0, 0, 1];
    binary.extend_from_slice(&[11, 0, 1]);
    binary.extend_from_slice(&1_000_000i32.to_be_bytes());
    // Compact: a binary field (delta 1, type 8) declaring 1,000,000 bytes (varint).
    let mut compact = vec![0x82, 0x21, 1, 0, 0x18];
    compact.extend_from_slice(&[0xC0, 0x84, 0x3D]);
    for (protocol, buf) in [
        (WireProtocol::Binary, binary),
        (WireProtocol::Compact, compact),
    ] {
        assert_eq!(message_len(protocol, &buf), Probe::Incomplete);
        let fault = Fault::LongString {
            declared: 1_000_000,
            limit: 65_536,
        };
        assert_eq!(
            Prober::new(protocol, 65_536).feed(&buf),
            Probe::Malformed(fault),
            "{protocol:?}"
        );
        let text = fault.to_string();
        assert!(text.contains("1000000") && text.contains("65536"), "{text}");
    }
}

#[test]
fn a_container_with_more_elements_than_fit_fails_at_once() {
    // Binary: a list of 20,000 i64 (at least 160,000 bytes) under a 100,000-byte limit.
    let mut binary = vec![0x80, 0x01, 0x00, 0x02, 0, 0, 0, 0, 0, 0, 0, 1];
    binary.extend_from_slice(&[15, 0, 1, 10]);
    binary.extend_from_slice(&20_000i32.to_be_bytes());
    assert_eq!(
        Prober::new(WireProtocol::Binary, 100_000).feed(&binary),
        Probe::Malformed(Fault::ManyElements {
            declared: 20_000,
            limit: 100_000
        })
    );
    // ... which would fit under 200,000 bytes, but reserving 20,000 elements would not.
    assert_eq!(
        Prober::new(WireProtocol::Binary, 200_000).feed(&binary),
        Probe::Malformed(Fault::LongList {
            declared: 20_000,
            limit: 200_000
        })
    );
    // Under a limit that also fits the reservation, it waits for them.
    assert_eq!(
        Prober::new(WireProtocol::Binary, 20_000 * ELEMENT_WEIGHT).feed(&binary),
        Probe::Incomplete
    );
    // Compact: a list (delta 1, type 9) of 1,000 bools (one byte each) under 500 bytes,
    // and a map (delta 1, type 11) of 300 byte-to-byte entries under 500 bytes.
    let list = [0x82, 0x21, 1, 0, 0x19, 0xF1, 0xE8, 0x07];
    assert_eq!(
        Prober::new(WireProtocol::Compact, 500).feed(&list),
        Probe::Malformed(Fault::ManyElements {
            declared: 1_000,
            limit: 500
        })
    );
    let map = [0x82, 0x21, 1, 0, 0x1B, 0xAC, 0x02, 0x33];
    assert_eq!(
        Prober::new(WireProtocol::Compact, 500).feed(&map),
        Probe::Malformed(Fault::ManyElements {
            declared: 300,
            limit: 500
        })
    );
    let text = Fault::ManyElements {
        declared: 300,
        limit: 500,
    }
    .to_string();
    assert!(text.contains("300") && text.contains("500"), "{text}");
}

/// A message whose result struct has one field of type `ty` (the protocol's own code)
/// whose container header declares `n` elements of type 3 (a byte, in both protocols).
fn container_header(protocol: WireProtocol, ty: u8, n: usize) -> Vec<u8> {
    let mut m = match protocol {
        WireProtocol::Binary => vec![0x80, 0x01, 0x00, 0x02, 0, 0, 0, 0, 0, 0, 0, 1, ty, 0, 1],
        WireProtocol::Compact => vec![0x82, 0x21, 1, 0, 0x10 | ty],
    };
    let n32 = i32::try_from(n).unwrap();
    match (protocol, ty) {
        (WireProtocol::Binary, 13) => {
            m.extend_from_slice(&[3, 3]);
            m.extend_from_slice(&n32.to_be_bytes());
        }
        (WireProtocol::Binary, _) => {
            m.push(3);
            m.extend_from_slice(&n32.to_be_bytes());
        }
        (WireProtocol::Compact, 11) => {
            push_varint(&mut m, n as u64);
            m.push(0x33);
        }
        (WireProtocol::Compact, _) => {
            m.push(0xF3);
            push_varint(&mut m, n as u64);
        }
    }
    m
}

/// Appends `n` as an unsigned varint.
fn push_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

#[test]
fn a_list_or_set_reserving_past_the_limit_fails_whatever_its_element_type() {
    let limit = 1 << 20;
    let most = limit / ELEMENT_WEIGHT;
    // Lists and sets of one-byte elements: `most` of them fit in the limit, and so does
    // their reservation; one more does not, although its bytes would fit.
    for (protocol, list, set) in [
        (WireProtocol::Binary, 15, 14),
        (WireProtocol::Compact, 9, 10),
    ] {
        for ty in [list, set] {
            let at_most = container_header(protocol, ty, most);
            assert_eq!(
                Prober::new(protocol, limit).feed(&at_most),
                Probe::Incomplete,
                "{protocol:?} {ty}"
            );
            let one_more = container_header(protocol, ty, most + 1);
            let fault = Fault::LongList {
                declared: most + 1,
                limit,
            };
            assert_eq!(
                Prober::new(protocol, limit).feed(&one_more),
                Probe::Malformed(fault),
                "{protocol:?} {ty}"
            );
            assert!(fault.is_limit());
            let text = fault.to_string();
            assert!(text.contains(&(most + 1).to_string()), "{text}");
        }
    }
    // A map reserves nothing: only its entries' bytes count.
    for (protocol, map) in [(WireProtocol::Binary, 13), (WireProtocol::Compact, 11)] {
        let many = container_header(protocol, map, limit / 4);
        assert_eq!(Prober::new(protocol, limit).feed(&many), Probe::Incomplete);
    }
}

#[test]
fn a_compact_length_past_i32_is_malformed_even_without_a_limit() {
    // A binary field (delta 1, type 8) declaring 2^31 bytes, and a list (delta 1, type 9) of
    // 2^31 bytes: Thrift would read either length as a negative `i32`.
    let mut string = vec![0x82, 0x21, 1, 0, 0x18];
    push_varint(&mut string, 1 << 31);
    let list = container_header(WireProtocol::Compact, 9, 0);
    let mut list = list[..list.len() - 1].to_vec();
    push_varint(&mut list, 1 << 31);
    for bytes in [string, list] {
        assert_eq!(
            message_len(WireProtocol::Compact, &bytes),
            Probe::Malformed(Fault::Bad("length over 2^31 - 1"))
        );
    }
    // 2^31 - 1 is a length (the message is merely cut short).
    let mut string = vec![0x82, 0x21, 1, 0, 0x18];
    push_varint(&mut string, (1 << 31) - 1);
    assert_eq!(
        message_len(WireProtocol::Compact, &string),
        Probe::Incomplete
    );
}

/// A message to probe: a sample of `protocol` with random bytes overwritten, cut or
/// extended, or random bytes after a valid header.
fn hostile(protocol: WireProtocol, seed: &HostileSeed) -> Vec<u8> {
    let mut bytes = match seed.shape % 3 {
        0 => sample_message(protocol),
        1 => long_list_message(protocol, 5),
        _ => {
            // A header and an empty result struct without its stop byte: `tail` is fields.
            let mut empty = message(protocol, |_| Ok(()));
            empty.pop();
            empty
        }
    };
    for (at, b) in &seed.edits {
        let i = at.index(bytes.len());
        bytes[i] = *b;
    }
    bytes.extend_from_slice(&seed.tail);
    let keep = seed.cut.index(bytes.len() + 1);
    bytes.truncate(keep);
    bytes
}

/// Random choices for [`hostile`].
#[derive(Debug, Clone)]
struct HostileSeed {
    /// Which message to start from.
    shape: u8,
    /// Bytes overwritten: where, and with what.
    edits: Vec<(prop::sample::Index, u8)>,
    /// Random bytes appended.
    tail: Vec<u8>,
    /// Where the result is cut.
    cut: prop::sample::Index,
}

/// Strategy for [`HostileSeed`].
fn hostile_seed() -> impl Strategy<Value = HostileSeed> {
    (
        any::<u8>(),
        prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..6),
        prop::collection::vec(any::<u8>(), 0..64),
        any::<prop::sample::Index>(),
    )
        .prop_map(|(shape, edits, tail, cut)| HostileSeed {
            shape,
            edits,
            tail,
            cut,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Random chunkings of valid messages find the same end as one shot.
    #[test]
    fn random_chunkings_find_the_one_shot_end(
        compact in any::<bool>(),
        list_len in 0usize..50,
        sizes in prop::collection::vec(0usize..64, 0..40),
    ) {
        let protocol = if compact { WireProtocol::Compact } else { WireProtocol::Binary };
        for msg in [sample_message(protocol), long_list_message(protocol, list_len)] {
            // The tightest limit: the message's length, or its longest list's reservation
            // (the bools: 20).
            let limit = msg.len().max(list_len.max(20) * ELEMENT_WEIGHT);
            let (outcome, _) =
                feed_in_chunks(protocol, limit, &msg, &cuts_from_sizes(&sizes));
            prop_assert_eq!(outcome, Probe::Complete(msg.len()));
        }
    }

    /// For hostile bytes, any limit and any chunking, the resumable probe answers exactly
    /// what one shot does.
    #[test]
    fn resumable_probe_matches_one_shot(
        compact in any::<bool>(),
        seed in hostile_seed(),
        max_len in prop_oneof![Just(usize::MAX), 0usize..1200],
        sizes in prop::collection::vec(0usize..32, 0..60),
    ) {
        let protocol = if compact { WireProtocol::Compact } else { WireProtocol::Binary };
        let bytes = hostile(protocol, &seed);
        let one_shot = Prober::new(protocol, max_len).feed(&bytes);
        let (chunked, _) = feed_in_chunks(protocol, max_len, &bytes, &cuts_from_sizes(&sizes));
        prop_assert_eq!(&chunked, &one_shot);
        if max_len == usize::MAX {
            prop_assert_eq!(message_len(protocol, &bytes), one_shot);
        }
    }

    /// Random bytes: the resumable probe answers what one shot does.
    #[test]
    fn random_bytes_probe_the_same_in_chunks(
        compact in any::<bool>(),
        bytes in prop::collection::vec(any::<u8>(), 0..256),
        sizes in prop::collection::vec(0usize..16, 0..40),
    ) {
        let protocol = if compact { WireProtocol::Compact } else { WireProtocol::Binary };
        let one_shot = message_len(protocol, &bytes);
        let (chunked, _) = feed_in_chunks(protocol, usize::MAX, &bytes, &cuts_from_sizes(&sizes));
        prop_assert_eq!(chunked, one_shot);
    }
}
