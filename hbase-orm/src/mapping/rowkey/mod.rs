//! Row-key building blocks: how one part of a composite row key is encoded.
//!
//! A row key is a sequence of parts, each encoded by a [`KeyCodec`]. Fixed-width parts are
//! simply concatenated; a variable-length part that is followed by another part is ended by the
//! entity's delimiter byte, so that a prefix of the leading parts (delimiter included) selects
//! exactly the rows that share them: `acme|` never matches `acme-2|...`. [`KeyWriter`] and
//! [`KeyReader`] do that composition for the derive and for hand-written keys alike.
//!
//! HBase orders rows by their key bytes. Keys sort by their parts, part after part, only if the
//! delimiter sorts below every byte a part can contain: with `'|'` (0x7C), `acme|...` sorts
//! after `acme-2|...` because `'-'` is 0x2D. Choose `'\0'` as the delimiter when range scans
//! must follow the parts' order, or fixed-width parts, which need no delimiter.
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

use crate::mapping::scalar::{Plain, Scalar, ValueType};

/// Encodes one row-key part of type `T`.
pub trait KeyCodec<T> {
    /// The encoded width in bytes when it is always the same, `None` for variable length.
    const WIDTH: Option<usize>;
    /// What the bytes must look like, for errors.
    const EXPECTED: &'static str;
    /// What kind of encoding this is, for design checks.
    const KIND: KeyKind = KeyKind::Custom;
    /// Whether [`KeyCodec::decode`] can recover the value (false for hashes: an entity then
    /// also stores the value in a column and reads it from there).
    const REVERSIBLE: bool = true;
    /// For a time part that stores only the time within a period (of this many
    /// milliseconds, e.g. a day) because the table name holds the period
    /// (`table = "tx_{yyyyMMdd}", table_time = "ts"`): entities read from such a table get
    /// the period's start added back. `None` for codecs that store the whole value.
    const PERIOD: Option<i64> = None;
    /// The logical type of the part's values, for query engines (`hbase-orm-sql`). By default
    /// [`ValueType::Other`], which goes with the default [`KeyCodec::to_scalar`] (the encoded
    /// bytes); a codec that names another type must also give scalars of it
    /// ([`KeyCodec::to_scalar`], and [`KeyCodec::from_scalar`] for conditions on the part).
    const TYPE: ValueType = ValueType::Other;
    /// Appends the encoded part.
    fn encode(value: &T, out: &mut Vec<u8>) -> Result<(), String>;
    /// Decodes a part from exactly its bytes.
    fn decode(bytes: &[u8]) -> Result<T, String>;

    /// The value as a query engine reads it, of [`KeyCodec::TYPE`]: by default the encoded
    /// part's bytes (`None` if it does not encode).
    fn to_scalar(value: &T) -> Option<Scalar<'_>> {
        let mut out = Vec::new();
        Self::encode(value, &mut out).ok()?;
        Some(Scalar::Bytes(out.into()))
    }

    /// The value a query engine's constant stands for, if it is one of this codec's values:
    /// what turns a SQL condition on the part into a row range. By default none (the engine
    /// then filters the rows it reads).
    fn from_scalar(scalar: &Scalar<'_>) -> Option<T> {
        let _ = scalar;
        None
    }
}

/// Bytes encoded with `KC` read back as its scalar ([`KeyCodec::decode`], then
/// [`KeyCodec::to_scalar`]): how a query engine reads a wide map's qualifiers as keys
/// ([`MapKey`](crate::entity::MapKey)). `None` when the codec gives no scalar; an error says
/// why the bytes do not decode.
///
/// ```
/// use hbase_orm::entity::Scalar;
/// use hbase_orm::rowkey::{scalar_of, Ordered};
///
/// let bytes = 7u32.to_be_bytes();
/// assert_eq!(scalar_of::<u32, Ordered>(&bytes), Ok(Some(Scalar::UInt(7))));
/// assert!(scalar_of::<u32, Ordered>(b"x").is_err());
/// ```
pub fn scalar_of<T, KC: KeyCodec<T>>(bytes: &[u8]) -> Result<Option<Scalar<'static>>, String> {
    let value = KC::decode(bytes)?;
    Ok(KC::to_scalar(&value).map(Scalar::into_owned))
}

/// The scalar conversions of a codec over a built-in type.
macro_rules! plain_scalars {
    ($t:ty) => {
        const TYPE: ValueType = <$t as Plain>::TYPE;

        fn to_scalar(value: &$t) -> Option<Scalar<'_>> {
            Some(value.scalar())
        }

        fn from_scalar(scalar: &Scalar<'_>) -> Option<$t> {
            <$t as Plain>::of_scalar(scalar)
        }
    };
}

/// The kind of a key part's encoding, as design checks see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    /// Order-preserving integer.
    Ordered,
    /// Text or bytes of any length.
    Variable,
    /// Text padded to a fixed width.
    FixedText,
    /// `i64::MAX - ts`.
    ReverseTimestamp,
    /// Reversed text.
    ReversedText,
    /// A hash of the value.
    Hash,
    /// A name replaced by its dictionary id (4 bytes).
    Dictionary,
    /// A user codec.
    Custom,
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
    ($($t:ty => $u:ty, $flip:expr, $expected:literal $(, $scalars:ident)?;)*) => {$(
        impl KeyCodec<$t> for Ordered {
            const WIDTH: Option<usize> = Some(std::mem::size_of::<$t>());
            const EXPECTED: &'static str = $expected;
            const KIND: KeyKind = KeyKind::Ordered;
            $($scalars!($t);)?

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
    u8 => u8, 0, "u8 (1 byte)", plain_scalars;
    u16 => u16, 0, "u16 (2 bytes, big-endian)", plain_scalars;
    u32 => u32, 0, "u32 (4 bytes, big-endian)", plain_scalars;
    u64 => u64, 0, "u64 (8 bytes, big-endian)", plain_scalars;
    u128 => u128, 0, "u128 (16 bytes, big-endian)";
    i8 => u8, 1 << 7, "i8 (1 byte, sign bit flipped)", plain_scalars;
    i16 => u16, 1 << 15, "i16 (2 bytes, big-endian, sign bit flipped)", plain_scalars;
    i32 => u32, 1 << 31, "i32 (4 bytes, big-endian, sign bit flipped)", plain_scalars;
    i64 => u64, 1 << 63, "i64 (8 bytes, big-endian, sign bit flipped)", plain_scalars;
    i128 => u128, 1 << 127, "i128 (16 bytes, big-endian, sign bit flipped)";
}

/// UTF-8 text of any length. The default for `String` key parts.
#[derive(Debug, Clone, Copy)]
pub struct Utf8;

impl KeyCodec<String> for Utf8 {
    const WIDTH: Option<usize> = None;
    const EXPECTED: &'static str = "UTF-8 text";
    const KIND: KeyKind = KeyKind::Variable;
    plain_scalars!(String);

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
    const KIND: KeyKind = KeyKind::Variable;
    plain_scalars!(Vec<u8>);

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
    const KIND: KeyKind = KeyKind::FixedText;
    plain_scalars!(String);

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

/// Newest first: a timestamp `ts` (milliseconds, `>= 0`) stored as `i64::MAX - ts`, 8 bytes
/// big-endian (`#[hbase(key(reverse_timestamp))]`), the reference guide's reverse timestamp:
/// the newest row of a prefix is its first row.
#[derive(Debug, Clone, Copy)]
pub struct ReverseTimestamp;

impl KeyCodec<i64> for ReverseTimestamp {
    const WIDTH: Option<usize> = Some(8);
    const EXPECTED: &'static str = "reverse timestamp (i64::MAX - ts, 8 bytes, big-endian)";
    const KIND: KeyKind = KeyKind::ReverseTimestamp;
    plain_scalars!(i64);

    fn encode(value: &i64, out: &mut Vec<u8>) -> Result<(), String> {
        if *value < 0 {
            return Err(format!("negative timestamp {value}"));
        }
        out.extend_from_slice(&(i64::MAX - value).to_be_bytes());
        Ok(())
    }

    fn decode(bytes: &[u8]) -> Result<i64, String> {
        let stored = i64::from_be_bytes(
            bytes
                .try_into()
                .map_err(|_| format!("{} bytes, expected 8", bytes.len()))?,
        );
        if stored < 0 {
            return Err("stored value is negative, not i64::MAX - ts".into());
        }
        Ok(i64::MAX - stored)
    }
}

/// Text stored with its characters in reverse order (`#[hbase(key(reversed))]`): sequential
/// ids such as `10001`, `10002` then differ in their first byte and spread over regions.
#[derive(Debug, Clone, Copy)]
pub struct ReversedText;

impl KeyCodec<String> for ReversedText {
    const WIDTH: Option<usize> = None;
    const EXPECTED: &'static str = "UTF-8 text, reversed";
    const KIND: KeyKind = KeyKind::ReversedText;
    plain_scalars!(String);

    fn encode(value: &String, out: &mut Vec<u8>) -> Result<(), String> {
        let mut buf = [0u8; 4];
        for c in value.chars().rev() {
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
        Ok(())
    }

    fn decode(bytes: &[u8]) -> Result<String, String> {
        Utf8::decode(bytes).map(|s| s.chars().rev().collect())
    }
}

/// The first `N` bytes (1 to 16) of the MD5 of the value's cell encoding ([`crate::Value`],
/// Java's `Bytes.toBytes`), the reference guide's `[MD5 of customer number]`: fixed length and
/// evenly spread (`#[hbase(key(md5))]`, `#[hbase(key(md5 = 4))]`). One-way: entities also store
/// the value in a column to read it back.
#[derive(Debug, Clone, Copy)]
pub struct Md5<const N: usize = 16>;

impl<T: crate::mapping::codec::Value, const N: usize> KeyCodec<T> for Md5<N> {
    const WIDTH: Option<usize> = Some(N);
    const EXPECTED: &'static str = "MD5 digest (prefix) of the value";
    const KIND: KeyKind = KeyKind::Hash;
    const REVERSIBLE: bool = false;

    fn encode(value: &T, out: &mut Vec<u8>) -> Result<(), String> {
        if N == 0 || N > 16 {
            return Err(format!("an MD5 part keeps 1 to 16 bytes, not {N}"));
        }
        let mut bytes = Vec::new();
        value.encode(&mut bytes);
        out.extend_from_slice(&md5(&bytes)[..N]);
        Ok(())
    }

    fn decode(_: &[u8]) -> Result<T, String> {
        Err("an MD5 part cannot be decoded; the value is read from its column".into())
    }
}

/// The MD5 digest of `bytes`.
pub fn md5(bytes: &[u8]) -> [u8; 16] {
    use md5::Digest;
    md5::Md5::digest(bytes).into()
}

/// Hex text of an MD5 digest's first 4 bytes (`"00000000"` to `"ffffffff"`), as HBase's
/// `RegionSplitter.HexStringSplit` splits tables.
pub fn md5_hex_prefix(bytes: &[u8]) -> String {
    md5(bytes)[..4].iter().map(|b| format!("{b:02x}")).collect()
}

/// The salt bucket of a row: a stable 32-bit FNV-1a hash of `bytes` (the encoded key parts
/// chosen to feed the salt) modulo `buckets`. Stable across versions and platforms.
pub fn hash_bucket(bytes: &[u8], buckets: u8) -> u8 {
    let mut h: u32 = 0x811C_9DC5;
    for &b in bytes {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    (h % u32::from(buckets.max(1))) as u8
}

/// The time-bucket variant, `[timestamp mod N][timestamp]...`: `value mod buckets`
/// (never negative).
pub fn modulo_bucket(value: i128, buckets: u8) -> u8 {
    value.rem_euclid(i128::from(buckets.max(1))) as u8
}

/// Split keys that give a salted table one region per bucket: `[1]`, `[2]`, ... `[N-1]`.
pub fn salt_split_keys(buckets: u8) -> Vec<Vec<u8>> {
    (1..buckets).map(|b| vec![b]).collect()
}

/// `n - 1` split keys spreading `n` regions evenly over keys that start with a uniformly
/// distributed byte string (MD5 or other hashed parts): the first two bytes step evenly.
pub fn uniform_split_keys(n: u16) -> Vec<Vec<u8>> {
    (1..u32::from(n.max(1)))
        .map(|i| {
            let v = (i * 0x1_0000 / u32::from(n)) as u16;
            v.to_be_bytes().to_vec()
        })
        .collect()
}

/// Writes the parts of a composite row key in order.
#[derive(Debug)]
pub struct KeyWriter<'a> {
    out: &'a mut Vec<u8>,
    delimiter: Option<u8>,
    /// The delimiter follows every part but the last, fixed-width ones too.
    separate_all: bool,
}

impl<'a> KeyWriter<'a> {
    /// Appends to `out`; `delimiter` ends variable-length parts that are not last.
    pub fn new(out: &'a mut Vec<u8>, delimiter: Option<u8>) -> Self {
        KeyWriter {
            out,
            delimiter,
            separate_all: false,
        }
    }

    /// Appends to `out` with `separator` between every two parts, whatever their widths
    /// (`#[hbase(key_separator = '.')]`: keys such as `20150812163500.D010`).
    pub fn separated(out: &'a mut Vec<u8>, separator: u8) -> Self {
        KeyWriter {
            out,
            delimiter: Some(separator),
            separate_all: true,
        }
    }

    /// Appends one raw byte (a record-type tag).
    pub fn byte(&mut self, b: u8) {
        self.out.push(b);
    }

    /// How many bytes the output holds now (where the next part starts).
    pub fn position(&self) -> usize {
        self.out.len()
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
            Some(_) if self.separate_all && !last => {
                self.out.extend(self.delimiter);
                Ok(())
            }
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
    /// The delimiter follows every part but the last, fixed-width ones too.
    separate_all: bool,
}

impl<'a> KeyReader<'a> {
    /// Reads `key`, whose variable-length parts (but the last) end with `delimiter`.
    pub fn new(key: &'a [u8], delimiter: Option<u8>) -> Self {
        KeyReader {
            rest: key,
            delimiter,
            separate_all: false,
        }
    }

    /// Reads `key`, whose parts are separated by `separator` (see [`KeyWriter::separated`]).
    pub fn separated(key: &'a [u8], separator: u8) -> Self {
        KeyReader {
            rest: key,
            delimiter: Some(separator),
            separate_all: true,
        }
    }

    /// Reads the next part.
    pub fn part<T, C: KeyCodec<T>>(
        &mut self,
        name: &'static str,
        last: bool,
    ) -> Result<T, KeyError> {
        let bytes = self.next_slice::<T, C>(name, last)?;
        C::decode(bytes).map_err(|reason| KeyError {
            part: name,
            expected: C::EXPECTED,
            reason,
        })
    }

    /// The bytes of the next part: its fixed width, up to the delimiter, or (last) the rest.
    fn next_slice<T, C: KeyCodec<T>>(
        &mut self,
        name: &'static str,
        last: bool,
    ) -> Result<&'a [u8], KeyError> {
        let err = |reason: String| KeyError {
            part: name,
            expected: C::EXPECTED,
            reason,
        };
        let (len, skip) = match (C::WIDTH, last, self.delimiter) {
            (Some(width), _, _) if self.rest.len() < width => {
                return Err(err(format!(
                    "the key has {} bytes left, the part needs {width}",
                    self.rest.len()
                )))
            }
            (Some(width), false, Some(d)) if self.separate_all => {
                if self.rest.get(width) != Some(&d) {
                    return Err(err(format!("no separator 0x{d:02X} after the part")));
                }
                (width, width + 1)
            }
            (Some(width), _, _) => (width, width),
            (None, true, _) => (self.rest.len(), self.rest.len()),
            (None, false, Some(d)) => {
                let end = self
                    .rest
                    .iter()
                    .position(|&b| b == d)
                    .ok_or_else(|| err(format!("no delimiter 0x{d:02X} after the part")))?;
                (end, end + 1)
            }
            (None, false, None) => {
                return Err(err(
                    "a variable-length part that is not last needs a delimiter".into(),
                ))
            }
        };
        let part = &self.rest[..len];
        self.rest = &self.rest[skip..];
        Ok(part)
    }

    /// Reads one raw byte (a salt bucket or a record-type tag).
    pub fn byte(&mut self, name: &'static str) -> Result<u8, KeyError> {
        let (&b, rest) = self.rest.split_first().ok_or(KeyError {
            part: name,
            expected: "one byte",
            reason: "the key ended".into(),
        })?;
        self.rest = rest;
        Ok(b)
    }

    /// Reads a record-type tag byte and checks it.
    pub fn expect_tag(&mut self, tag: u8) -> Result<(), KeyError> {
        let found = self.byte("record type")?;
        if found == tag {
            Ok(())
        } else {
            Err(KeyError {
                part: "record type",
                expected: "the entity's record-type tag",
                reason: format!("the row holds record type {found}, not {tag}"),
            })
        }
    }

    /// Steps over the next part without decoding it (a hash, or a part before a tag).
    pub fn skip<T, C: KeyCodec<T>>(
        &mut self,
        name: &'static str,
        last: bool,
    ) -> Result<(), KeyError> {
        self.next_slice::<T, C>(name, last).map(drop)
    }

    /// The bytes not read yet.
    pub fn rest(&self) -> &'a [u8] {
        self.rest
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
///
/// For a salted entity whose salt is computed from parts the prefix does not include, the
/// bytes are the unsalted prefix and `all_buckets` is set: the scan then runs once per bucket
/// and merges the results in key order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KeyPrefix {
    /// The prefix bytes (with the salt byte in front when the salt is known).
    pub bytes: Vec<u8>,
    /// The prefix is of the unsalted key; every bucket must be scanned.
    pub all_buckets: bool,
}

/// A time (`i64` milliseconds since the epoch) stored as milliseconds within its UTC day,
/// 4 bytes: for the `table_time` part of one-table-per-day entities, whose table name holds
/// the day. Entities read from a day's table get the day added back; a key decoded on its
/// own (`EntityKey::read_key`) holds the time of day.
#[derive(Debug, Clone, Copy)]
pub struct MillisOfDay;

impl KeyCodec<i64> for MillisOfDay {
    const WIDTH: Option<usize> = Some(4);
    const EXPECTED: &'static str = "milliseconds of the day (4 bytes, big-endian)";
    const PERIOD: Option<i64> = Some(86_400_000);

    fn encode(value: &i64, out: &mut Vec<u8>) -> Result<(), String> {
        let of_day = value.rem_euclid(86_400_000) as u32;
        out.extend_from_slice(&of_day.to_be_bytes());
        Ok(())
    }

    fn decode(bytes: &[u8]) -> Result<i64, String> {
        let array: [u8; 4] = bytes
            .try_into()
            .map_err(|_| format!("{} bytes, expected 4", bytes.len()))?;
        Ok(i64::from(u32::from_be_bytes(array)))
    }
}

/// A time (`i64` milliseconds since the epoch) stored as the minute of its UTC day, 2 bytes
/// (the seconds are dropped): for per-minute statistics in one table per day. Read back from
/// a day's table it is the start of that minute.
#[derive(Debug, Clone, Copy)]
pub struct MinuteOfDay;

impl KeyCodec<i64> for MinuteOfDay {
    const WIDTH: Option<usize> = Some(2);
    const EXPECTED: &'static str = "minute of the day (2 bytes, big-endian)";
    const PERIOD: Option<i64> = Some(86_400_000);

    fn encode(value: &i64, out: &mut Vec<u8>) -> Result<(), String> {
        let minute = (value.rem_euclid(86_400_000) / 60_000) as u16;
        out.extend_from_slice(&minute.to_be_bytes());
        Ok(())
    }

    fn decode(bytes: &[u8]) -> Result<i64, String> {
        let array: [u8; 2] = bytes
            .try_into()
            .map_err(|_| format!("{} bytes, expected 2", bytes.len()))?;
        Ok(i64::from(u16::from_be_bytes(array)) * 60_000)
    }
}

#[cfg(test)]
mod tests;
