//! What a query engine sees of stored values: [`ValueType`], the logical type of a column or
//! key part as its codec stores it, and [`Scalar`], one key part's value. A SQL layer (the
//! `hbase-orm-sql` crate) builds its table schemas from the first and reads key parts and
//! turns predicates into row ranges with the second; nothing here does I/O.

use std::borrow::Cow;

/// The logical type of the values of a column or key part, as their codec stores them: what a
/// query engine can read straight from the cell bytes.
///
/// Built-in types declare theirs ([`Value::TYPE`](crate::Value::TYPE),
/// [`Codec::TYPE`](crate::Codec::TYPE), [`KeyCodec::TYPE`](crate::rowkey::KeyCodec::TYPE));
/// a user's type or codec says [`ValueType::Other`] unless it declares one.
///
/// ```
/// use hbase_orm::entity::ValueType;
/// use hbase_orm::{Codec, Json, Native, Value};
///
/// assert_eq!(<i64 as Value>::TYPE, ValueType::Int64);
/// assert_eq!(<Native as Codec<String>>::TYPE, ValueType::Text);
/// assert_eq!(<Json as Codec<Vec<u32>>>::TYPE, ValueType::Json);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ValueType {
    /// One byte, `0x00` false, anything else true (Java's `Bytes.toBytes(boolean)`).
    Bool,
    /// A 1-byte signed integer.
    Int8,
    /// A 2-byte signed integer.
    Int16,
    /// A 4-byte signed integer.
    Int32,
    /// An 8-byte signed integer.
    Int64,
    /// A 1-byte unsigned integer.
    UInt8,
    /// A 2-byte unsigned integer.
    UInt16,
    /// A 4-byte unsigned integer.
    UInt32,
    /// An 8-byte unsigned integer.
    UInt64,
    /// A 4-byte IEEE 754 float.
    Float32,
    /// An 8-byte IEEE 754 float.
    Float64,
    /// UTF-8 text.
    Text,
    /// Bytes as they are.
    Bytes,
    /// A JSON document ([`Json`](crate::Json)), as its text.
    Json,
    /// Bytes only the codec can read (a user's codec, a 16-byte integer, a hash).
    Other,
}

impl ValueType {
    /// The width of the stored value in bytes, for fixed-width types.
    ///
    /// ```
    /// use hbase_orm::entity::ValueType;
    /// assert_eq!(ValueType::Int32.width(), Some(4));
    /// assert_eq!(ValueType::Text.width(), None);
    /// ```
    pub fn width(self) -> Option<usize> {
        match self {
            ValueType::Bool | ValueType::Int8 | ValueType::UInt8 => Some(1),
            ValueType::Int16 | ValueType::UInt16 => Some(2),
            ValueType::Int32 | ValueType::UInt32 | ValueType::Float32 => Some(4),
            ValueType::Int64 | ValueType::UInt64 | ValueType::Float64 => Some(8),
            ValueType::Text | ValueType::Bytes | ValueType::Json | ValueType::Other => None,
        }
    }
}

/// One value of a key part, as a query engine hands it over and reads it back: the typed key
/// parts of [`EntityKey::visit_parts`](crate::EntityKey::visit_parts) and
/// [`EntityKey::prefix_of`](crate::EntityKey::prefix_of).
///
/// ```
/// use hbase_orm::entity::Scalar;
/// assert_eq!(Scalar::from("acme"), Scalar::Text("acme".into()));
/// assert_eq!(Scalar::from(7u32), Scalar::UInt(7));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Scalar<'a> {
    /// A boolean.
    Bool(bool),
    /// A signed integer.
    Int(i64),
    /// An unsigned integer.
    UInt(u64),
    /// A float.
    Float(f64),
    /// Text.
    Text(Cow<'a, str>),
    /// Bytes.
    Bytes(Cow<'a, [u8]>),
}

impl Scalar<'_> {
    /// The value as an `i128`, for integers.
    pub fn as_integer(&self) -> Option<i128> {
        match *self {
            Scalar::Int(v) => Some(i128::from(v)),
            Scalar::UInt(v) => Some(i128::from(v)),
            _ => None,
        }
    }

    /// A copy that borrows nothing.
    pub fn into_owned(self) -> Scalar<'static> {
        match self {
            Scalar::Bool(b) => Scalar::Bool(b),
            Scalar::Int(v) => Scalar::Int(v),
            Scalar::UInt(v) => Scalar::UInt(v),
            Scalar::Float(v) => Scalar::Float(v),
            Scalar::Text(t) => Scalar::Text(Cow::Owned(t.into_owned())),
            Scalar::Bytes(b) => Scalar::Bytes(Cow::Owned(b.into_owned())),
        }
    }
}

impl<'a> From<&'a str> for Scalar<'a> {
    fn from(text: &'a str) -> Self {
        Scalar::Text(Cow::Borrowed(text))
    }
}

impl From<String> for Scalar<'_> {
    fn from(text: String) -> Self {
        Scalar::Text(Cow::Owned(text))
    }
}

macro_rules! from_ints {
    ($variant:ident: $($t:ty),*) => {$(
        impl From<$t> for Scalar<'_> {
            fn from(v: $t) -> Self {
                Scalar::$variant(v.into())
            }
        }
    )*};
}

from_ints!(Int: i8, i16, i32, i64);
from_ints!(UInt: u8, u16, u32, u64);

/// The built-in types a key part can hold as a [`Scalar`]: what the library's key codecs
/// give and take.
pub(crate) trait Plain: Sized {
    /// The type's logical type.
    const TYPE: ValueType;
    /// The value as a scalar.
    fn scalar(&self) -> Scalar<'_>;
    /// The value of a scalar, if it is of this type (an integer in range for integers).
    fn of_scalar(scalar: &Scalar<'_>) -> Option<Self>;
}

macro_rules! plain_ints {
    ($($t:ty => $variant:ident, $ty:ident;)*) => {$(
        impl Plain for $t {
            const TYPE: ValueType = ValueType::$ty;

            fn scalar(&self) -> Scalar<'_> {
                Scalar::$variant((*self).into())
            }

            fn of_scalar(scalar: &Scalar<'_>) -> Option<Self> {
                scalar.as_integer().and_then(|v| <$t>::try_from(v).ok())
            }
        }
    )*};
}

plain_ints! {
    i8 => Int, Int8;
    i16 => Int, Int16;
    i32 => Int, Int32;
    i64 => Int, Int64;
    u8 => UInt, UInt8;
    u16 => UInt, UInt16;
    u32 => UInt, UInt32;
    u64 => UInt, UInt64;
}

impl Plain for String {
    const TYPE: ValueType = ValueType::Text;

    fn scalar(&self) -> Scalar<'_> {
        Scalar::Text(Cow::Borrowed(self))
    }

    fn of_scalar(scalar: &Scalar<'_>) -> Option<Self> {
        match scalar {
            Scalar::Text(t) => Some(t.to_string()),
            _ => None,
        }
    }
}

impl Plain for Vec<u8> {
    const TYPE: ValueType = ValueType::Bytes;

    fn scalar(&self) -> Scalar<'_> {
        Scalar::Bytes(Cow::Borrowed(self))
    }

    fn of_scalar(scalar: &Scalar<'_>) -> Option<Self> {
        match scalar {
            Scalar::Bytes(b) => Some(b.to_vec()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_convert_only_in_range() {
        assert_eq!(u8::of_scalar(&Scalar::Int(255)), Some(255));
        assert_eq!(u8::of_scalar(&Scalar::Int(256)), None);
        assert_eq!(u32::of_scalar(&Scalar::Int(-1)), None);
        assert_eq!(i64::of_scalar(&Scalar::UInt(u64::MAX)), None);
        assert_eq!(i16::of_scalar(&Scalar::UInt(7)), Some(7));
        assert_eq!(i64::of_scalar(&Scalar::Text("7".into())), None);
        assert_eq!(String::of_scalar(&Scalar::Int(7)), None);
        assert_eq!(42i32.scalar(), Scalar::Int(42));
        assert_eq!(42u16.scalar(), Scalar::UInt(42));
    }
}
