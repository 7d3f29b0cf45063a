//! Property tests of the row-key codecs (no HBase needed): every part decodes to what was
//! encoded, and for order-preserving parts byte order equals value order.

use hbase_orm::rowkey::{
    FixedText, KeyCodec, KeyReader, KeyWriter, Ordered, ReverseTimestamp, ReversedText, Utf8,
};
use proptest::prelude::*;

fn enc<T, C: KeyCodec<T>>(v: &T) -> Vec<u8> {
    let mut out = Vec::new();
    C::encode(v, &mut out).unwrap();
    out
}

macro_rules! ordered_props {
    ($($name:ident: $t:ty;)*) => {$(
        proptest! {
            #[test]
            fn $name(a: $t, b: $t) {
                let (ea, eb) = (enc::<$t, Ordered>(&a), enc::<$t, Ordered>(&b));
                prop_assert_eq!(<Ordered as KeyCodec<$t>>::decode(&ea).unwrap(), a);
                prop_assert_eq!(ea.cmp(&eb), a.cmp(&b));
            }
        }
    )*};
}

ordered_props! {
    ordered_i8: i8;
    ordered_i16: i16;
    ordered_i32: i32;
    ordered_i64: i64;
    ordered_i128: i128;
    ordered_u16: u16;
    ordered_u32: u32;
    ordered_u64: u64;
}

proptest! {
    #[test]
    fn reverse_timestamps_round_trip_and_sort_newest_first(a in 0..i64::MAX, b in 0..i64::MAX) {
        let (ea, eb) = (enc::<i64, ReverseTimestamp>(&a), enc::<i64, ReverseTimestamp>(&b));
        prop_assert_eq!(<ReverseTimestamp as KeyCodec<i64>>::decode(&ea).unwrap(), a);
        prop_assert_eq!(ea.cmp(&eb), b.cmp(&a));
    }

    #[test]
    fn fixed_text_round_trips_and_keeps_text_order(a in "[a-zA-Z0-9 ]{0,12}", b in "[a-zA-Z0-9 ]{0,12}") {
        let (ea, eb) = (enc::<String, FixedText<12>>(&a), enc::<String, FixedText<12>>(&b));
        prop_assert_eq!(ea.len(), 12);
        prop_assert_eq!(<FixedText<12> as KeyCodec<String>>::decode(&ea).unwrap(), a.clone());
        prop_assert_eq!(ea.cmp(&eb), a.as_bytes().cmp(b.as_bytes()));
    }

    #[test]
    fn reversed_text_round_trips(a in "\\PC{0,20}") {
        let e = enc::<String, ReversedText>(&a);
        prop_assert_eq!(<ReversedText as KeyCodec<String>>::decode(&e).unwrap(), a);
    }

    /// `[text|][i64]` with a delimiter below every text byte sorts like the tuple.
    #[test]
    fn composite_keys_with_a_low_delimiter_sort_like_tuples(
        a in ("[a-z]{0,6}", any::<i64>()),
        b in ("[a-z]{0,6}", any::<i64>()),
    ) {
        let key = |(s, n): &(String, i64)| {
            let mut out = Vec::new();
            let mut w = KeyWriter::new(&mut out, Some(0));
            w.part::<String, Utf8>("s", s, false).unwrap();
            w.part::<i64, Ordered>("n", n, true).unwrap();
            out
        };
        let (ka, kb) = (key(&a), key(&b));
        prop_assert_eq!(ka.cmp(&kb), a.cmp(&b));
        let mut r = KeyReader::new(&ka, Some(0));
        prop_assert_eq!(r.part::<String, Utf8>("s", false).unwrap(), a.0.clone());
        prop_assert_eq!(r.part::<i64, Ordered>("n", true).unwrap(), a.1);
        r.finish().unwrap();
    }
}
