//! Typed handles to an entity's stored fields. The derive writes one associated constant per
//! stored field, named after it in upper case (`Order::CITY`, `Person::ROLES`), so calls that
//! name a field (typed filters, wide-map access) are checked by the compiler and encode
//! values with the field's own codec.

use std::marker::PhantomData;

use crate::mapping::codec::Codec;
use crate::mapping::rowkey::KeyCodec;
use crate::mapping::{ColumnDef, HBaseEntity};
use crate::model::{Error, Result};

/// The marker of the types a handle stands for.
type Types<X> = PhantomData<fn() -> X>;

/// A stored field of entity `E` holding values of type `T`, encoded with codec `C` (for an
/// `Option<T>` or [`Versions<T>`](crate::Versions) field, `T` is the inner type).
pub struct Field<E, T, C> {
    col: usize,
    types: Types<(E, T, C)>,
}

impl<E, T, C> Clone for Field<E, T, C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E, T, C> Copy for Field<E, T, C> {}

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

impl<E, K, V, KC, VC> Clone for WideField<E, K, V, KC, VC> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E, K, V, KC, VC> Copy for WideField<E, K, V, KC, VC> {}

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
