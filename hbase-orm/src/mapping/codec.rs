//! How field values become cell bytes and back.
//!
//! [`Value`] is implemented for the built-in types with the encodings Java's `Bytes.toBytes`
//! uses, so Java and Python clients read the same cells: integers and floats big-endian,
//! `bool` as one byte (`0xFF` / `0x00`), `String` as UTF-8, `Vec<u8>` as is. Implement
//! [`Value`] for your own types, or write a [`Codec`] and name it on the field with
//! `#[hbase(codec = MyCodec)]`. [`Json`] stores any serde type as a JSON document
//! (`#[hbase(json)]`).

use std::borrow::Cow;

use crate::mapping::scalar::{Plain, Scalar, ValueType};

/// A type that can be stored in one HBase cell.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be stored in an HBase cell",
    label = "no cell encoding for `{Self}`",
    note = "implement `hbase_orm::Value` for it, store it as JSON with `#[hbase(json)]`, or name a codec with `#[hbase(codec = MyCodec)]`"
)]
pub trait Value: Sized {
    /// What the bytes must look like, for decode errors (e.g. `"i64 (8 bytes, big-endian)"`).
    const EXPECTED: &'static str;

    /// The logical type of the stored bytes, for query engines (`hbase-orm-sql`):
    /// [`ValueType::Other`] (bytes only this impl reads) unless the type says otherwise.
    const TYPE: ValueType = ValueType::Other;

    /// Appends the encoded value to `out`.
    fn encode(&self, out: &mut Vec<u8>);

    /// Decodes stored bytes (borrowed from the cell read); the error says what is wrong with
    /// them.
    fn decode(bytes: &[u8]) -> Result<Self, String>;
}

/// Turns values of `T` into cell bytes and back. Field attribute `#[hbase(codec = C)]` picks
/// `C`; fields without one use [`Native`] (the type's [`Value`] impl).
pub trait Codec<T> {
    /// The logical type of the stored bytes, for query engines (`hbase-orm-sql`):
    /// [`ValueType::Other`] (bytes only this codec reads) unless the codec says otherwise.
    const TYPE: ValueType = ValueType::Other;

    /// What the bytes must look like, for decode errors.
    fn expected() -> Cow<'static, str>;
    /// Appends the encoded value to `out`.
    fn encode(value: &T, out: &mut Vec<u8>) -> Result<(), String>;
    /// Decodes stored bytes (borrowed from the cell read).
    fn decode(bytes: &[u8]) -> Result<T, String>;
}

/// The codec of a type's own [`Value`] encoding.
#[derive(Debug, Clone, Copy)]
pub struct Native;

impl<T: Value> Codec<T> for Native {
    const TYPE: ValueType = T::TYPE;

    fn expected() -> Cow<'static, str> {
        Cow::Borrowed(T::EXPECTED)
    }

    fn encode(value: &T, out: &mut Vec<u8>) -> Result<(), String> {
        value.encode(out);
        Ok(())
    }

    fn decode(bytes: &[u8]) -> Result<T, String> {
        T::decode(bytes)
    }
}

/// The codec of `#[hbase(counter)]` fields: HBase's counter cell, an 8-byte big-endian `i64`
/// (what an increment writes), as [`Native`] encodes an `i64`. The derive gives counter fields
/// handles of type `Field<E, i64, Counter>`, so calls that take only a counter
/// ([`Repository::increment`](crate::Repository::increment),
/// [`Repository::counter`](crate::Repository::counter)) do not compile with another field.
#[derive(Debug, Clone, Copy)]
pub struct Counter;

impl Codec<i64> for Counter {
    const TYPE: ValueType = ValueType::Int64;

    fn expected() -> Cow<'static, str> {
        Cow::Borrowed("an 8-byte counter")
    }

    fn encode(value: &i64, out: &mut Vec<u8>) -> Result<(), String> {
        <Native as Codec<i64>>::encode(value, out)
    }

    fn decode(bytes: &[u8]) -> Result<i64, String> {
        <Native as Codec<i64>>::decode(bytes)
    }
}

/// Stores any serde type as a JSON document (the "object BLOB" column design).
#[derive(Debug, Clone, Copy)]
pub struct Json;

impl<T: serde::Serialize + serde::de::DeserializeOwned> Codec<T> for Json {
    const TYPE: ValueType = ValueType::Json;

    fn expected() -> Cow<'static, str> {
        Cow::Owned(format!("JSON of {}", std::any::type_name::<T>()))
    }

    fn encode(value: &T, out: &mut Vec<u8>) -> Result<(), String> {
        serde_json::to_writer(out, value).map_err(|e| e.to_string())
    }

    fn decode(bytes: &[u8]) -> Result<T, String> {
        serde_json::from_slice(bytes).map_err(|e| e.to_string())
    }
}

/// Stores an entity key (the generated `XKey` type) as that key's row-key bytes: a column
/// pointing at another row (a parent, a reference), which reads in the HBase shell exactly
/// like the row key it names.
///
/// ```
/// use hbase_orm::{HBaseEntity, KeyRef};
///
/// #[derive(HBaseEntity)]
/// #[hbase(table = "departments", family = "d")]
/// struct Department {
///     #[hbase(key)]
///     id: u32,
///     #[hbase(codec = KeyRef)]
///     parent: Option<DepartmentKey>,
/// }
///
/// let d = Department { id: 2, parent: Some(DepartmentKey { id: 1 }) };
/// assert_eq!(d.to_put().unwrap().cells[0].value[..], [0, 0, 0, 1]);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct KeyRef;

macro_rules! big_endian {
    ($($t:ty => $ty:ident, $expected:literal),* $(,)?) => {$(
        impl Value for $t {
            const EXPECTED: &'static str = $expected;
            const TYPE: ValueType = ValueType::$ty;

            #[inline]
            fn encode(&self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_be_bytes());
            }

            #[inline]
            fn decode(bytes: &[u8]) -> Result<Self, String> {
                let array = bytes.try_into().map_err(|_| {
                    format!("{} bytes, expected {}", bytes.len(), std::mem::size_of::<$t>())
                })?;
                Ok(<$t>::from_be_bytes(array))
            }
        }
    )*};
}

big_endian! {
    i8 => Int8, "i8 (1 byte)",
    i16 => Int16, "i16 (2 bytes, big-endian)",
    i32 => Int32, "i32 (4 bytes, big-endian)",
    i64 => Int64, "i64 (8 bytes, big-endian)",
    i128 => Other, "i128 (16 bytes, big-endian)",
    u8 => UInt8, "u8 (1 byte)",
    u16 => UInt16, "u16 (2 bytes, big-endian)",
    u32 => UInt32, "u32 (4 bytes, big-endian)",
    u64 => UInt64, "u64 (8 bytes, big-endian)",
    u128 => Other, "u128 (16 bytes, big-endian)",
    f32 => Float32, "f32 (4 bytes, IEEE 754 big-endian)",
    f64 => Float64, "f64 (8 bytes, IEEE 754 big-endian)",
}

impl Value for bool {
    const EXPECTED: &'static str = "bool (1 byte)";
    const TYPE: ValueType = ValueType::Bool;

    #[inline]
    fn encode(&self, out: &mut Vec<u8>) {
        // Java's Bytes.toBytes(boolean): -1 for true, 0 for false.
        out.push(if *self { 0xFF } else { 0 });
    }

    #[inline]
    fn decode(bytes: &[u8]) -> Result<Self, String> {
        match bytes {
            [b] => Ok(*b != 0),
            _ => Err(format!("{} bytes, expected 1", bytes.len())),
        }
    }
}

impl Value for String {
    const EXPECTED: &'static str = "UTF-8 text";
    const TYPE: ValueType = ValueType::Text;

    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(self.as_bytes());
    }

    fn decode(bytes: &[u8]) -> Result<Self, String> {
        std::str::from_utf8(bytes)
            .map(str::to_owned)
            .map_err(|e| format!("invalid UTF-8: {e}"))
    }
}

impl Value for Vec<u8> {
    const EXPECTED: &'static str = "bytes";
    const TYPE: ValueType = ValueType::Bytes;

    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(self);
    }

    fn decode(bytes: &[u8]) -> Result<Self, String> {
        Ok(bytes.to_vec())
    }
}

/// The bytes the library's own codec for values of `value_type` stores for `scalar`, if the
/// scalar is such a value: a boolean for `Bool`, an integer in range for an integer type, a
/// float for a float type, text for `Text` and `Json` (the document's text, not checked
/// here), bytes for `Bytes` and `Other`. How a query engine writes a value it holds as a
/// scalar (`INSERT INTO` in `hbase-orm-sql`).
///
/// ```
/// use hbase_orm::codec::encode_scalar;
/// use hbase_orm::entity::{Scalar, ValueType};
///
/// assert_eq!(encode_scalar(ValueType::UInt16, &Scalar::Int(7)), Some(vec![0, 7]));
/// assert_eq!(encode_scalar(ValueType::Bool, &Scalar::Bool(true)), Some(vec![0xFF]));
/// assert_eq!(encode_scalar(ValueType::UInt8, &Scalar::Int(-1)), None); // out of range
/// assert_eq!(encode_scalar(ValueType::Text, &Scalar::Int(1)), None);
/// ```
pub fn encode_scalar(value_type: ValueType, scalar: &Scalar<'_>) -> Option<Vec<u8>> {
    fn bytes<V: Value>(value: V) -> Vec<u8> {
        let mut out = Vec::new();
        value.encode(&mut out);
        out
    }
    Some(match (value_type, scalar) {
        (ValueType::Bool, Scalar::Bool(b)) => bytes(*b),
        (ValueType::Int8, _) => bytes(i8::of_scalar(scalar)?),
        (ValueType::Int16, _) => bytes(i16::of_scalar(scalar)?),
        (ValueType::Int32, _) => bytes(i32::of_scalar(scalar)?),
        (ValueType::Int64, _) => bytes(i64::of_scalar(scalar)?),
        (ValueType::UInt8, _) => bytes(u8::of_scalar(scalar)?),
        (ValueType::UInt16, _) => bytes(u16::of_scalar(scalar)?),
        (ValueType::UInt32, _) => bytes(u32::of_scalar(scalar)?),
        (ValueType::UInt64, _) => bytes(u64::of_scalar(scalar)?),
        // The value as the query engine holds it, in the column's width.
        (ValueType::Float32, Scalar::Float(v)) => bytes(*v as f32),
        (ValueType::Float64, Scalar::Float(v)) => bytes(*v),
        (ValueType::Text | ValueType::Json, Scalar::Text(t)) => t.as_bytes().to_vec(),
        (ValueType::Bytes | ValueType::Other, Scalar::Bytes(b)) => b.to_vec(),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round<T: Value + PartialEq + std::fmt::Debug>(v: T) -> Vec<u8> {
        let mut out = Vec::new();
        v.encode(&mut out);
        assert_eq!(T::decode(&out).unwrap(), v);
        out
    }

    #[test]
    fn numbers_match_javas_bytes_to_bytes() {
        assert_eq!(round(1i64), vec![0, 0, 0, 0, 0, 0, 0, 1]);
        assert_eq!(round(-1i32), vec![0xFF; 4]);
        assert_eq!(round(258u16), vec![1, 2]);
        assert_eq!(round(1.5f64), 1.5f64.to_bits().to_be_bytes().to_vec());
        assert_eq!(round(true), vec![0xFF]);
        assert_eq!(round(false), vec![0]);
        assert_eq!(round("héllo".to_string()), "héllo".as_bytes());
        assert_eq!(round(vec![0u8, 255]), vec![0, 255]);
    }

    #[test]
    fn bad_bytes_are_errors_not_panics() {
        assert_eq!(i64::decode(&[1, 2, 3]).unwrap_err(), "3 bytes, expected 8");
        assert!(bool::decode(&[]).is_err());
        assert!(String::decode(&[0xFF, 0xFE]).unwrap_err().contains("UTF-8"));
        let e = <Json as Codec<Vec<u32>>>::decode(b"[1,").unwrap_err();
        assert!(e.contains("EOF"), "{e}");
        let mut out = Vec::new();
        <Json as Codec<Vec<u32>>>::encode(&vec![1, 2], &mut out).unwrap();
        assert_eq!(out, b"[1,2]");
    }
}
