//! Row-key parts: encodings, order, widths and prefixes.

use super::*;

#[test]
fn a_separator_goes_between_every_two_parts_and_reads_back() {
    let mut out = Vec::new();
    let mut w = KeyWriter::separated(&mut out, b'.');
    w.part::<u16, Ordered>("a", &7, false).unwrap();
    w.part::<String, Utf8>("b", &"x".to_string(), false)
        .unwrap();
    w.part::<u8, Ordered>("c", &1, true).unwrap();
    assert_eq!(out, b"\0\x07.x.\x01");
    let mut r = KeyReader::separated(&out, b'.');
    assert_eq!(r.part::<u16, Ordered>("a", false).unwrap(), 7);
    assert_eq!(r.part::<String, Utf8>("b", false).unwrap(), "x");
    assert_eq!(r.part::<u8, Ordered>("c", true).unwrap(), 1);
    let bad = b"\0\x07-x.\x01";
    let err = KeyReader::separated(bad, b'.')
        .part::<u16, Ordered>("a", false)
        .unwrap_err();
    assert!(err.reason.contains("no separator"), "{err:?}");
}

fn enc<T, C: KeyCodec<T>>(v: &T) -> Vec<u8> {
    let mut out = Vec::new();
    C::encode(v, &mut out).unwrap();
    out
}

#[test]
fn ordered_integers_sort_like_numbers() {
    let values = [i64::MIN, -300, -1, 0, 1, 255, 256, i64::MAX];
    let encoded: Vec<_> = values.iter().map(enc::<i64, Ordered>).collect();
    assert!(encoded.windows(2).all(|w| w[0] < w[1]));
    for (v, e) in values.iter().zip(&encoded) {
        assert_eq!(<Ordered as KeyCodec<i64>>::decode(e).unwrap(), *v);
    }
    assert_eq!(enc::<i32, Ordered>(&0), vec![0x80, 0, 0, 0]);
    assert_eq!(enc::<u16, Ordered>(&258), vec![1, 2]);
}

#[test]
fn fixed_text_pads_and_refuses_to_truncate() {
    assert_eq!(enc::<String, FixedText<5>>(&"ab".into()), b"ab\0\0\0");
    let mut out = Vec::new();
    let e = <FixedText<3> as KeyCodec<String>>::encode(&"abcd".into(), &mut out).unwrap_err();
    assert!(e.contains("longer than the fixed width 3"), "{e}");
    assert_eq!(
        <FixedText<5> as KeyCodec<String>>::decode(b"ab\0\0\0").unwrap(),
        "ab"
    );
    assert!(<FixedText<5> as KeyCodec<String>>::decode(b"ab\0x\0").is_err());
    assert!(<FixedText<5> as KeyCodec<String>>::decode(b"ab").is_err());
}

#[test]
fn reverse_timestamps_sort_newest_first() {
    let old = enc::<i64, ReverseTimestamp>(&1_000);
    let new = enc::<i64, ReverseTimestamp>(&2_000);
    assert!(new < old);
    assert_eq!(
        <ReverseTimestamp as KeyCodec<i64>>::decode(&new).unwrap(),
        2_000
    );
    let mut out = Vec::new();
    assert!(<ReverseTimestamp as KeyCodec<i64>>::encode(&-1, &mut out).is_err());
}

#[test]
fn md5_parts_match_the_digest_of_javas_bytes() {
    // MD5 of Bytes.toBytes(42L) (8 bytes, big-endian).
    let full = enc::<i64, Md5>(&42);
    assert_eq!(full.len(), 16);
    assert_eq!(full, md5(&42i64.to_be_bytes()));
    assert_eq!(enc::<String, Md5<4>>(&"abc".into()), md5(b"abc")[..4]);
    // RFC 1321 test vector.
    assert_eq!(md5_hex_prefix(b"abc"), "90015098");
    assert!(<Md5 as KeyCodec<i64>>::decode(&full).is_err());
}

#[test]
fn salt_helpers_are_stable_and_in_range() {
    assert_eq!(hash_bucket(b"", 16), (0x811C_9DC5u32 % 16) as u8);
    assert_eq!(hash_bucket(b"customer-1", 1), 0);
    assert!((0..1000).all(|i: u32| hash_bucket(&i.to_be_bytes(), 7) < 7));
    assert_eq!(modulo_bucket(-1, 4), 3);
    assert_eq!(salt_split_keys(4), vec![vec![1], vec![2], vec![3]]);
    assert_eq!(
        uniform_split_keys(4),
        vec![vec![0x40, 0], vec![0x80, 0], vec![0xC0, 0]]
    );
    assert!(uniform_split_keys(1).is_empty());
}

#[test]
fn reversed_text_round_trips() {
    assert_eq!(enc::<String, ReversedText>(&"10002".into()), b"20001");
    assert_eq!(
        <ReversedText as KeyCodec<String>>::decode("éa".as_bytes()).unwrap(),
        "aé"
    );
}

#[test]
fn delimited_parts_round_trip_and_reject_the_delimiter() {
    let mut key = Vec::new();
    let mut w = KeyWriter::new(&mut key, Some(b'|'));
    let e = w
        .part::<String, Utf8>("name", &"a|b".into(), false)
        .unwrap_err();
    assert!(e.reason.contains("delimiter"), "{e}");
    let mut key = Vec::new();
    let mut w = KeyWriter::new(&mut key, Some(b'|'));
    w.part::<String, Utf8>("a", &"x".into(), false).unwrap();
    w.part::<Vec<u8>, Raw>("b", &vec![1, 2], false).unwrap();
    w.part::<String, Utf8>("c", &"tail|ok".into(), true)
        .unwrap();
    assert_eq!(key, b"x|\x01\x02|tail|ok");
    let mut r = KeyReader::new(&key, Some(b'|'));
    assert_eq!(r.part::<String, Utf8>("a", false).unwrap(), "x");
    assert_eq!(r.part::<Vec<u8>, Raw>("b", false).unwrap(), vec![1, 2]);
    assert_eq!(r.part::<String, Utf8>("c", true).unwrap(), "tail|ok");
    r.finish().unwrap();

    let mut r = KeyReader::new(b"\x00\x00\x00\x01extra", None);
    r.part::<u32, Ordered>("n", false).unwrap();
    assert!(r.finish().is_err());
    let mut r = KeyReader::new(b"\x00\x01", None);
    assert!(r.part::<u32, Ordered>("n", true).is_err());
}
