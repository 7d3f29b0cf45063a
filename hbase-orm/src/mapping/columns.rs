//! What the derive declares about each stored field: [`ColumnDef`] and [`ColumnKind`], and the
//! presence rule read from them. The bottom of the mapping: it names no other part of it
//! but the value types of `scalar.rs`.

use crate::mapping::scalar::{Scalar, ValueType};

/// One stored field: where it lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ColumnDef {
    /// The Rust field name.
    pub field: &'static str,
    /// Column family.
    pub family: &'static str,
    /// Column qualifier.
    pub qualifier: &'static str,
    /// The column also stores a hashed row-key part (`key(md5)`), to read it back.
    pub key_part: bool,
    /// What the field holds.
    pub kind: ColumnKind,
    /// The field is an `Option` (a save deletes the cell of `None`).
    pub optional: bool,
    /// A missing cell reads as a value of the field's own (`#[hbase(default)]`,
    /// `#[hbase(default = "path")]`) instead of failing the read.
    pub has_default: bool,
    /// The logical type of the cell's value ([`Codec::TYPE`](crate::Codec::TYPE) of the
    /// field's codec; for a [`Versions`](crate::Versions) field, of one version; for a wide
    /// map, of its values; [`ValueType::Other`] for flattened groups and children).
    pub value_type: ValueType,
    /// For a wide map, its keys: their type and how a qualifier reads as one; `None` for
    /// every other kind of field.
    pub map_key: Option<MapKey>,
}

/// The keys of a wide map field (`#[hbase(wide)]`), for query engines: their logical type
/// and how a qualifier reads back as one ([`rowkey::scalar_of`](crate::rowkey::scalar_of) of
/// the map's key codec; the derive writes it).
#[derive(Debug, Clone, Copy)]
pub struct MapKey {
    /// The keys' type ([`KeyCodec::TYPE`](crate::rowkey::KeyCodec::TYPE) of the key codec).
    pub value_type: ValueType,
    /// A qualifier read as a key, as the codec's scalar (`None` when the codec gives none);
    /// an error says why the bytes are not a key.
    pub read: fn(&[u8]) -> Result<Option<Scalar<'static>>, String>,
}

impl PartialEq for MapKey {
    fn eq(&self, other: &Self) -> bool {
        self.value_type == other.value_type && std::ptr::fn_addr_eq(self.read, other.read)
    }
}

impl Eq for MapKey {}

impl ColumnDef {
    /// The column to ask HBase for (the whole family for a wide map field).
    pub fn column(&self) -> crate::model::Column {
        crate::model::Column {
            family: self.family.as_bytes().to_vec(),
            qualifier: (!self.kind.reads_family()).then(|| self.qualifier.as_bytes().to_vec()),
        }
    }
}

/// Whether `bytes` are `name`. Compared as arrays of the name's length, which the compiler
/// turns into a few word compares instead of a call: the derived `column_index` matches every
/// cell read this way.
///
/// ```
/// use hbase_orm::entity::is_name;
/// assert!(is_name(b"city", b"city"));
/// assert!(!is_name(b"cit", b"city"));
/// assert!(!is_name(b"town", b"city"));
/// ```
#[inline(always)]
pub fn is_name<const N: usize>(bytes: &[u8], name: &[u8; N]) -> bool {
    <&[u8; N]>::try_from(bytes).is_ok_and(|b| b == name)
}

/// What a stored field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnKind {
    /// One value: the newest version of one cell.
    Value,
    /// A cell's history, up to this many versions (`#[hbase(versions = N)]`, a
    /// [`Versions`](crate::Versions) field).
    Versions(u32),
    /// A map stored as one cell per entry of its own family (`#[hbase(wide)]`).
    Wide,
    /// An 8-byte HBase counter, changed by [`Repository::increment`](crate::Repository::increment)
    /// only (`#[hbase(counter)]`).
    Counter,
    /// The optimistic-concurrency version (`#[hbase(version)]`).
    Version,
    /// A [`ColumnGroup`](crate::ColumnGroup) stored as columns whose qualifiers start with this prefix
    /// (`#[hbase(flatten, prefix = "ship_")]`).
    Flatten(&'static str),
    /// A `Vec` of [`ColumnGroup`](crate::ColumnGroup)s owning its family, qualifiers `<index>:<field>`
    /// (`#[hbase(children)]`).
    Children,
}

impl ColumnKind {
    /// Whether the field is read by asking for its whole family (its qualifiers are not
    /// known in advance).
    pub fn reads_family(self) -> bool {
        matches!(
            self,
            ColumnKind::Wide | ColumnKind::Flatten(_) | ColumnKind::Children
        )
    }

    /// Whether the field takes several cells of the row.
    pub fn takes_many_cells(self) -> bool {
        self.reads_family() || matches!(self, ColumnKind::Versions(_))
    }
}

/// The column every saved row of an entity with these `columns` has: the version column,
/// else the first required plain column; `None` means the marker cell (an empty qualifier in
/// the first family, written by every save of such an entity). A row without it holds no
/// entity (a partial row: a counter incremented, a column written by hand).
///
/// ```
/// use hbase_orm::entity::{presence_of, ColumnDef, ColumnKind, ValueType};
/// let column = |field, optional| ColumnDef {
///     field, family: "d", qualifier: field, key_part: false,
///     kind: ColumnKind::Value, optional, has_default: false, value_type: ValueType::Text,
///     map_key: None,
/// };
/// assert_eq!(presence_of(&[column("note", true), column("city", false)]), Some(1));
/// assert_eq!(presence_of(&[column("note", true)]), None);
/// ```
pub fn presence_of(columns: &[ColumnDef]) -> Option<usize> {
    columns
        .iter()
        .position(|c| c.kind == ColumnKind::Version)
        .or_else(|| {
            columns
                .iter()
                .position(|c| c.kind == ColumnKind::Value && !c.optional)
        })
}
