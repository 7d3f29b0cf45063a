//! Typed handles to an entity's stored fields. The derive writes one associated constant per
//! stored field, named after it in upper case (`Order::CITY`, `Person::ROLES`), so calls that
//! name a field (typed filters, wide-map access) are checked by the compiler and encode
//! values with the field's own codec.

use std::marker::PhantomData;

use crate::mapping::codec::{Codec, Counter};
use crate::mapping::rowkey::KeyCodec;
use crate::mapping::{ColumnDef, HBaseEntity};
use crate::model::{Error, Result};

/// The marker of the types a handle stands for.
pub(crate) type Types<X> = PhantomData<fn() -> X>;

/// `Clone` and `Copy` for a handle type (a derive would ask its type parameters to be `Clone`).
macro_rules! copy_handle {
    ($handle:ident<$($p:ident),+>) => {
        impl<$($p),+> Clone for $handle<$($p),+> {
            fn clone(&self) -> Self {
                *self
            }
        }

        impl<$($p),+> Copy for $handle<$($p),+> {}
    };
}
pub(crate) use copy_handle;

/// A stored field of entity `E` holding values of type `T`, encoded with codec `C` (for an
/// `Option<T>` or [`Versions<T>`](crate::Versions) field, `T` is the inner type).
pub struct Field<E, T, C> {
    col: usize,
    types: Types<(E, T, C)>,
}

copy_handle!(Field<E, T, C>);

impl<E, T, C> std::fmt::Debug for Field<E, T, C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Field").field("col", &self.col).finish()
    }
}

impl<E, T, C> Field<E, T, C> {
    /// The handle of column `col` of `E::COLUMNS`; written by the derive.
    #[doc(hidden)]
    pub const fn new(col: usize) -> Self {
        Field {
            col,
            types: PhantomData,
        }
    }

    /// The field's index in `E::COLUMNS`.
    pub fn index(&self) -> usize {
        self.col
    }
}

impl<E: HBaseEntity, T, C: Codec<T>> Field<E, T, C> {
    /// Where the field is stored.
    pub fn def(&self) -> &'static ColumnDef {
        &E::COLUMNS[self.col]
    }

    /// `value` as the field stores it.
    pub fn encode(&self, value: &T) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        C::encode(value, &mut out).map_err(|reason| Error::Encode {
            entity: std::any::type_name::<E>(),
            field: self.def().field,
            reason,
        })?;
        Ok(out)
    }
}

/// A `wide` map field of entity `E`: keys `K` encoded as qualifiers with `KC`, values `V`
/// encoded with `VC`.
pub struct WideField<E, K, V, KC, VC> {
    col: usize,
    types: Types<(E, K, V, KC, VC)>,
}

copy_handle!(WideField<E, K, V, KC, VC>);

impl<E, K, V, KC, VC> std::fmt::Debug for WideField<E, K, V, KC, VC> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WideField").field("col", &self.col).finish()
    }
}

impl<E, K, V, KC, VC> WideField<E, K, V, KC, VC> {
    /// The handle of column `col` of `E::COLUMNS`; written by the derive.
    #[doc(hidden)]
    pub const fn new(col: usize) -> Self {
        WideField {
            col,
            types: PhantomData,
        }
    }

    /// The field's index in `E::COLUMNS`.
    pub fn index(&self) -> usize {
        self.col
    }
}

impl<E: HBaseEntity, K, V, KC: KeyCodec<K>, VC: Codec<V>> WideField<E, K, V, KC, VC> {
    /// Where the map is stored (its family).
    pub fn def(&self) -> &'static ColumnDef {
        &E::COLUMNS[self.col]
    }

    fn encode_error(&self, reason: String) -> Error {
        Error::Encode {
            entity: std::any::type_name::<E>(),
            field: self.def().field,
            reason,
        }
    }

    /// The qualifier of the entry with key `key`.
    pub fn qualifier(&self, key: &K) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        KC::encode(key, &mut out).map_err(|r| self.encode_error(r))?;
        Ok(out)
    }

    /// `value` as the map stores it.
    pub fn encode_value(&self, value: &V) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        VC::encode(value, &mut out).map_err(|r| self.encode_error(r))?;
        Ok(out)
    }
}

/// The fields a projection reads ([`Repository::get_fields`](crate::Repository::get_fields),
/// [`EntityScan::fields`](crate::EntityScan::fields)): a typed handle (`Device::LABEL`), a
/// tuple of handles (`(Device::LABEL, Device::MESSAGES)`, up to 12), or, as a fallback, the
/// fields' names as strings (`&["label", "messages"]`), whose typos are found only when the
/// call runs.
///
/// ```
/// # use hbase_orm::{entity::FieldSet, HBaseEntity};
/// # #[derive(HBaseEntity)]
/// # #[hbase(table = "devices", family = "d")]
/// # struct Device { #[hbase(key)] id: u64, label: String, #[hbase(counter)] messages: i64 }
/// fn names<S: FieldSet<Device>>(fields: S) -> Vec<String> {
///     fields.field_names().into_iter().map(String::from).collect()
/// }
/// assert_eq!(names((Device::LABEL, Device::MESSAGES)), ["label", "messages"]);
/// assert_eq!(names(&["label"]), ["label"]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not name fields of `{E}`",
    label = "not a field handle of `{E}`, a tuple of them, or field names",
    note = "a projection takes a typed handle (`Entity::FIELD`), a tuple of handles, or the fields' names as strings"
)]
pub trait FieldSet<E> {
    /// The names of the fields, as the struct declares them.
    fn field_names(&self) -> Vec<&str>;
}

impl<E: HBaseEntity, T, C: Codec<T>> FieldSet<E> for Field<E, T, C> {
    fn field_names(&self) -> Vec<&str> {
        vec![self.def().field]
    }
}

impl<E: HBaseEntity, K, V, KC: KeyCodec<K>, VC: Codec<V>> FieldSet<E>
    for WideField<E, K, V, KC, VC>
{
    fn field_names(&self) -> Vec<&str> {
        vec![self.def().field]
    }
}

impl<E> FieldSet<E> for [&str] {
    fn field_names(&self) -> Vec<&str> {
        self.to_vec()
    }
}

impl<E, const N: usize> FieldSet<E> for [&str; N] {
    fn field_names(&self) -> Vec<&str> {
        self.to_vec()
    }
}

impl<E> FieldSet<E> for Vec<&str> {
    fn field_names(&self) -> Vec<&str> {
        self.clone()
    }
}

impl<E, S: FieldSet<E> + ?Sized> FieldSet<E> for &S {
    fn field_names(&self) -> Vec<&str> {
        (**self).field_names()
    }
}

/// `FieldSet` for tuples of field sets: their names in order.
macro_rules! tuple_field_sets {
    ($(($($part:ident),+))*) => {$(
        #[allow(non_snake_case)]
        impl<E, $($part: FieldSet<E>),+> FieldSet<E> for ($($part,)+) {
            fn field_names(&self) -> Vec<&str> {
                let ($($part,)+) = self;
                let mut names = Vec::new();
                $(names.extend($part.field_names());)+
                names
            }
        }
    )*};
}

tuple_field_sets! {
    (A)
    (A, B)
    (A, B, C)
    (A, B, C, D)
    (A, B, C, D, F)
    (A, B, C, D, F, G)
    (A, B, C, D, F, G, H)
    (A, B, C, D, F, G, H, I)
    (A, B, C, D, F, G, H, I, J)
    (A, B, C, D, F, G, H, I, J, K)
    (A, B, C, D, F, G, H, I, J, K, L)
    (A, B, C, D, F, G, H, I, J, K, L, M)
}

/// The counter [`Repository::increment`](crate::Repository::increment) adds to: its typed
/// handle (`Device::MESSAGES`; only a `#[hbase(counter)]` field has a handle of type
/// `Field<E, i64, Counter>`, so a misspelled or non-counter field does not compile), or, as a
/// fallback, its name as a string, checked when the call runs.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a counter of `{E}`",
    label = "not the handle of a #[hbase(counter)] field",
    note = "an increment takes the handle of a `#[hbase(counter)]` field (`Entity::FIELD`, of type `Field<{E}, i64, Counter>`) or the counter's name as a string"
)]
pub trait CounterRef<E> {
    /// The counter field's name, as the struct declares it.
    fn counter_name(&self) -> &str;
}

impl<E: HBaseEntity> CounterRef<E> for Field<E, i64, Counter> {
    fn counter_name(&self) -> &str {
        self.def().field
    }
}

impl<E> CounterRef<E> for &str {
    fn counter_name(&self) -> &str {
        self
    }
}
