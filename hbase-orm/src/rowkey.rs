//! Row-key building blocks: how one part of a composite row key is encoded.
//!
//! A row key is a sequence of parts, each encoded by a [`KeyCodec`]. Fixed-width parts are
//! simply concatenated; a variable-length part that is followed by another part is ended by the
//! entity's delimiter byte, so that keys still sort by their first part and a prefix of the
//! leading parts selects exactly the rows that share them. [`KeyWriter`] and [`KeyReader`] do
//! that composition for the derive and for hand-written keys alike.
//!
//! ```
//! use hbase_orm::rowkey::{KeyWriter, KeyReader, Ordered, Utf8};
//! let mut key = Vec::new();
//! let mut w = KeyWriter::new(&mut key, Some(b'|'));
//! w.part::<String, Utf8>("customer", &"acme".to_string(), false).unwrap();
//! w.part::<u32, Ordered>("order", &7, true).unwrap();
//! assert_eq!(key, b"acme|\x00\x00\x00\x07");
//!
//! let mut r = KeyReader::new(&key, Some(b'|'));
//! assert_eq!(r.part::<String, Utf8>("customer", false).unwrap(), "acme");
//! assert_eq!(r.part::<u32, Ordered>("order", true).unwrap(), 7);
//! r.finish().unwrap();
//! ```

use std::fmt;

/// Encodes one row-key part of type `T`.
pub trait KeyCodec<T> {
    /// The encoded width in bytes when it is always the same, `None` for variable length.
    const WIDTH: Option<usize>;
    /// What the bytes must look like, for errors.
    const EXPECTED: &'static str;
    /// Appends the encoded part.
    fn encode(value: &T, out: &mut Vec<u8>) -> Result<(), String>;
    /// Decodes a part from exactly its bytes.
    fn decode(bytes: &[u8]) -> Result<T, String>;
}

/// The default key encoding of a type, used by `#[hbase(key)]` without options.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no default row-key encoding",
    label = "cannot be a row-key part as is",
    note = "pick a codec with `#[hbase(key(codec = MyCodec))]` (a type implementing `hbase_orm::rowkey::KeyCodec`)"
)]
pub trait KeyPart: Sized {
    /// The codec used for this type.
    type Codec: KeyCodec<Self>;
}

/// A part encoding error, or a row key that does not decode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyError {
    /// The key part (field name) concerned, or `"row key"` for the key as a whole.
    pub part: &'static str,
    /// What the part must look like.
    pub expected: &'static str,
    /// What was wrong.
    pub reason: String,
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "key part `{}` ({}): {}",
            self.part, self.expected, self.reason
        )
    }
}

impl std::error::Error for KeyError {}

/// Order-preserving integers: big-endian, with the sign bit flipped for signed types, so that
/// byte order equals numeric order (`-1` sorts before `0`). The default for integer key parts.
#[derive(Debug, Clone, Copy)]
pub struct Ordered;

macro_rules! ordered_ints {
    ($($t:ty => $u:ty, $flip:expr, $expected:literal;)*) => {$(
        impl KeyCodec<$t> for Ordered {
            const WIDTH: Option<usize> = Some(std::mem::size_of::<$t>());
            const EXPECTED: &'static str = $expected;

            fn encode(value: &$t, out: &mut Vec<u8>) -> Result<(), String> {
                out.extend_from_slice(&((*value as $u) ^ $flip).to_be_bytes());
                Ok(())
            }

            fn decode(bytes: &[u8]) -> Result<$t, String> {
                let array = bytes.try_into().map_err(|_| {
                    format!("{} bytes, expected {}", bytes.len(), std::mem::size_of::<$t>())
                })?;
                Ok((<$u>::from_be_bytes(array) ^ $flip) as $t)
            }
        }

        impl KeyPart for $t {
            type Codec = Ordered;
        }
    )*};
}

ordered_ints! {
    u8 => u8, 0, "u8 (1 byte)";
    u16 => u16, 0, "u16 (2 bytes, big-endian)";
    u32 => u32, 0, "u32 (4 bytes, big-endian)";
    u64 => u64, 0, "u64 (8 bytes, big-endian)";
    u128 => u128, 0, "u128 (16 bytes, big-endian)";
    i8 => u8, 1 << 7, "i8 (1 byte, sign bit flipped)";
    i16 => u16, 1 << 15, "i16 (2 bytes, big-endian, sign bit flipped)";
    i32 => u32, 1 << 31, "i32 (4 bytes, big-endian, sign bit flipped)";
    i64 => u64, 1 << 63, "i64 (8 bytes, big-endian, sign bit flipped)";
    i128 => u128, 1 << 127, "i128 (16 bytes, big-endian, sign bit flipped)";
}

/// UTF-8 text of any length. The default for `String` key parts.
#[derive(Debug, Clone, Copy)]
pub struct Utf8;

impl KeyCodec<String> for Utf8 {
    const WIDTH: Option<usize> = None;
    const EXPECTED: &'static str = "UTF-8 text";

    fn encode(value: &String, out: &mut Vec<u8>) -> Result<(), String> {
        out.extend_from_slice(value.as_bytes());
        Ok(())
    }

    fn decode(bytes: &[u8]) -> Result<String, String> {
        std::str::from_utf8(bytes)
            .map(str::to_owned)
            .map_err(|e| format!("invalid UTF-8: {e}"))
    }
}

impl KeyPart for String {
    type Codec = Utf8;
}

/// Bytes as they are, any length. The default for `Vec<u8>` key parts.
#[derive(Debug, Clone, Copy)]
pub struct Raw;

impl KeyCodec<Vec<u8>> for Raw {
    const WIDTH: Option<usize> = None;
    const EXPECTED: &'static str = "bytes";

    fn encode(value: &Vec<u8>, out: &mut Vec<u8>) -> Result<(), String> {
        out.extend_from_slice(value);
        Ok(())
    }

    fn decode(bytes: &[u8]) -> Result<Vec<u8>, String> {
        Ok(bytes.to_vec())
    }
}

impl KeyPart for Vec<u8> {
    type Codec = Raw;
}

/// UTF-8 text padded with `0x00` bytes to exactly `N` bytes (`#[hbase(key(fixed = N))]`).
///
/// Text longer than `N` bytes is an error, never truncated. Padding sorts before every other
/// byte, so fixed-width text keeps the order of the unpadded text. The text itself may not
/// contain `0x00` bytes (they could not be told from padding).
#[derive(Debug, Clone, Copy)]
pub struct FixedText<const N: usize>;

impl<const N: usize> KeyCodec<String> for FixedText<N> {
    const WIDTH: Option<usize> = Some(N);
    const EXPECTED: &'static str = "UTF-8 text padded with 0x00 to a fixed width";

    fn encode(value: &String, out: &mut Vec<u8>) -> Result<(), String> {
        let bytes = value.as_bytes();
        if bytes.len() > N {
            return Err(format!(
                "{:?} is {} bytes, longer than the fixed width {N}",
                value,
                bytes.len()
            ));
        }
        if bytes.contains(&0) {
            return Err("text with a 0x00 byte cannot be padded unambiguously".into());
        }
        out.extend_from_slice(bytes);
        out.resize(out.len() + N - bytes.len(), 0);
        Ok(())
    }

    fn decode(bytes: &[u8]) -> Result<String, String> {
        if bytes.len() != N {
            return Err(format!("{} bytes, expected {N}", bytes.len()));
        }
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(N);
        if bytes[end..].iter().any(|&b| b != 0) {
            return Err("non-zero bytes after the padding".into());
        }
        Utf8::decode(&bytes[..end])
    }
}

/// Writes the parts of a composite row key in order.
#[derive(Debug)]
pub struct KeyWriter<'a> {
    out: &'a mut Vec<u8>,
    delimiter: Option<u8>,
}

impl<'a> KeyWriter<'a> {
    /// Appends to `out`; `delimiter` ends variable-length parts that are not last.
    pub fn new(out: &'a mut Vec<u8>, delimiter: Option<u8>) -> Self {
        KeyWriter { out, delimiter }
    }

    /// Appends one part. `last` says whether more parts follow (a variable-length part that is
    /// not last gets the delimiter after it, and may not contain the delimiter itself).
    pub fn part<T, C: KeyCodec<T>>(
        &mut self,
        name: &'static str,
        value: &T,
        last: bool,
    ) -> Result<(), KeyError> {
        let err = |reason: String| KeyError {
            part: name,
            expected: C::EXPECTED,
            reason,
        };
        let start = self.out.len();
        C::encode(value, self.out).map_err(err)?;
        let written = self.out.len() - start;
        match C::WIDTH {
            Some(width) if written != width => Err(err(format!(
                "the codec wrote {written} bytes for a fixed width of {width}"
            ))),
            Some(_) => Ok(()),
            None if last => Ok(()),
            None => {
                let Some(d) = self.delimiter else {
                    return Err(err(
                        "a variable-length part that is not last needs the entity's \
                                    key delimiter"
                            .into(),
                    ));
                };
                if self.out[start..].contains(&d) {
                    return Err(err(format!(
                        "contains the key delimiter byte 0x{d:02X}, which would split the key"
                    )));
                }
                self.out.push(d);
                Ok(())
            }
        }
    }
}

/// Reads the parts of a composite row key in order.
#[derive(Debug)]
pub struct KeyReader<'a> {
    rest: &'a [u8],
    delimiter: Option<u8>,
}

impl<'a> KeyReader<'a> {
    /// Reads `key`, whose variable-length parts (but the last) end with `delimiter`.
    pub fn new(key: &'a [u8], delimiter: Option<u8>) -> Self {
        KeyReader {
            rest: key,
            delimiter,
        }
    }

    /// Reads the next part.
    pub fn part<T, C: KeyCodec<T>>(
        &mut self,
        name: &'static str,
        last: bool,
    ) -> Result<T, KeyError> {
        let err = |reason: String| KeyError {
            part: name,
            expected: C::EXPECTED,
            reason,
        };
        let bytes = match (C::WIDTH, last, self.delimiter) {
            (Some(width), _, _) => {
                if self.rest.len() < width {
                    return Err(err(format!(
                        "the key has {} bytes left, the part needs {width}",
                        self.rest.len()
                    )));
                }
                let (part, rest) = self.rest.split_at(width);
                self.rest = rest;
                part
            }
            (None, true, _) => std::mem::take(&mut self.rest),
            (None, false, Some(d)) => {
                let end = self
                    .rest
                    .iter()
                    .position(|&b| b == d)
                    .ok_or_else(|| err(format!("no delimiter 0x{d:02X} after the part")))?;
                let part = &self.rest[..end];
                self.rest = &self.rest[end + 1..];
                part
            }
            (None, false, None) => {
                return Err(err(
                    "a variable-length part that is not last needs a delimiter".into(),
                ))
            }
        };
        C::decode(bytes).map_err(err)
    }

    /// Checks that the whole key was read.
    pub fn finish(self) -> Result<(), KeyError> {
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(KeyError {
                part: "row key",
                expected: "no bytes after the last part",
                reason: format!("{} bytes left over", self.rest.len()),
            })
        }
    }
}

/// The encoded leading parts of a row key, for prefix scans (see the generated `prefix_by_*`
/// functions of an entity's key type).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KeyPrefix(pub Vec<u8>);

#[cfg(test)]
mod tests {
    use super::*;

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
}
