//! What a validated entity is: plain data, no tokens. [`crate::valid`] builds it from the
//! parsed attributes, [`crate::expand`] writes it out as code.

/// A validated entity.
pub struct Entity {
    pub ident: syn::Ident,
    pub vis: syn::Visibility,
    /// Where `hbase_orm` is (`crate = "..."`, default `::hbase_orm`).
    pub krate: syn::Path,
    pub namespace: String,
    /// The table name, or a template such as `tx_{yyyyMMdd}`.
    pub table: String,
    pub key_struct: syn::Ident,
    /// What its key is called in messages: `row key`, or `index `by_city`'s key`.
    pub key_kind: String,
    pub delimiter: Option<u8>,
    /// The delimiter separates every two parts (`key_separator`), not only after
    /// variable-length ones.
    pub separate_all: bool,
    pub keys: Vec<KeyPart>,
    pub columns: Vec<Column>,
    /// Fields that are not stored.
    pub skipped: Vec<syn::Ident>,
    /// Every family, in first-use order.
    pub families: Vec<String>,
    pub salt: Option<Salt>,
    pub tag: Option<Tag>,
    /// Declared options, per family.
    pub family_options: Vec<FamilyOptions>,
    pub split: Option<Split>,
    /// The key part that renders a table template.
    pub table_time: Option<usize>,
    /// Secondary index tables.
    pub indexes: Vec<Index>,
    /// The table of the dictionaries of dictionary key parts, if declared.
    pub dictionary_table: Option<String>,
    /// Replicas per region, the primary included, if declared.
    pub region_replication: Option<u32>,
}

/// A secondary index: its marker type, key type, table and parts.
pub struct Index {
    pub name: String,
    /// The marker type (`OrderByTime`).
    pub marker: syn::Ident,
    /// The key type (`OrderByTimeKey`).
    pub key_struct: syn::Ident,
    pub table: String,
    /// The parts, as key parts of the index key (never `stored`); each names a field of the
    /// entity (a row-key part or a plain column; for an `Option` field, the part has its
    /// inner type).
    pub parts: Vec<KeyPart>,
    /// The parts that are `Option` fields: an entity with one of them `None` has no index row
    /// (a sparse index).
    pub optional: Vec<syn::Ident>,
}

impl Entity {
    /// Whether key part `i` is the last thing in the row key (nothing, not even the tag,
    /// follows it).
    pub fn is_last(&self, i: usize) -> bool {
        let n = self.keys.len();
        i + 1 == n && self.tag.as_ref().map(|t| t.before) != Some(n)
    }
}

/// One row-key field.
#[derive(Clone)]
pub struct KeyPart {
    pub ident: syn::Ident,
    pub ty: syn::Type,
    pub encoding: KeyEncoding,
    /// For a one-way (hashed) part: the index of the column that also stores the value.
    pub stored: Option<usize>,
}

/// How a key part is encoded.
#[derive(Clone)]
pub enum KeyEncoding {
    /// The type's own `KeyPart` codec.
    Default,
    /// Text padded to this many bytes.
    Fixed(usize),
    /// A user's `KeyCodec`.
    Custom(syn::Path),
    /// `i64::MAX - ts`.
    ReverseTimestamp,
    /// Text with its characters reversed.
    Reversed,
    /// The first N bytes of the MD5 digest.
    Md5(usize),
    /// A `DictName` as its id in this dictionary.
    Dictionary(String),
}

/// Where the salt bucket comes from.
pub enum SaltSource {
    /// The hash of the first `n` key parts' bytes.
    Hash(usize),
    /// The value of key part `i` modulo the bucket count.
    Modulo(usize),
}

/// A salted row key: `[bucket][key]`.
pub struct Salt {
    pub buckets: u8,
    pub source: SaltSource,
}

impl Salt {
    /// Whether a prefix of the first `n` key parts determines the bucket.
    pub fn known_after(&self, n: usize) -> bool {
        match self.source {
            SaltSource::Hash(k) => n >= k,
            SaltSource::Modulo(i) => n > i,
        }
    }
}

/// A record-type tag byte, written before key part `before` (`keys.len()`: after the last).
pub struct Tag {
    pub tag: u8,
    pub before: usize,
}

/// How a column field reads a missing cell.
pub enum Missing {
    /// Error.
    Required,
    /// The field is `Option<T>`: `None`.
    Optional,
    /// `Default::default()` or the given function.
    Default(Option<syn::Path>),
}

/// How a stored field's value is encoded.
pub enum ValueEncoding {
    /// The type's own `Value` encoding.
    Native,
    /// A JSON document.
    Json,
    /// A user's `Codec`.
    Custom(syn::Path),
}

/// What a stored field holds.
// A handful of these exist per entity, at compile time: their size does not matter.
#[allow(clippy::large_enum_variant)]
pub enum ColumnKind {
    /// One value.
    Value,
    /// A `Versions<T>` field: up to N versions (`ty` is `T`).
    Versions(u32),
    /// A `BTreeMap<K, V>` owning its family (`ty` is `V`).
    Wide {
        key_ty: syn::Type,
        key_codec: Option<syn::Path>,
    },
    /// An `i64` counter.
    Counter,
    /// The `u64` version.
    Version,
    /// A `ColumnGroup` stored as columns with this qualifier prefix (`ty` is the group).
    Flatten(String),
    /// A `Vec` of `ColumnGroup`s owning the family (`ty` is the group).
    Children,
}

/// A validated `#[derive(HBaseColumns)]` struct.
pub struct Group {
    pub ident: syn::Ident,
    pub krate: syn::Path,
    pub fields: Vec<GroupField>,
}

/// One field of a column group.
pub struct GroupField {
    pub ident: syn::Ident,
    /// The stored type (`T` of an `Option<T>`; the group type of a nested group).
    pub ty: syn::Type,
    pub what: GroupFieldKind,
}

/// How a column group stores a field.
pub enum GroupFieldKind {
    /// A column named `qualifier` (after the group's prefix).
    Value {
        qualifier: String,
        missing: Missing,
        encoding: ValueEncoding,
    },
    /// A nested group under this extra prefix.
    Flatten(String),
    /// Not stored.
    Skip,
}

/// One stored field.
pub struct Column {
    pub ident: syn::Ident,
    /// The stored type (`T` of an `Option<T>` or `Versions<T>` field, `V` of a wide map).
    pub ty: syn::Type,
    pub kind: ColumnKind,
    pub missing: Missing,
    pub family: String,
    pub qualifier: String,
    pub encoding: ValueEncoding,
}

/// The declared options of one family, each an option name with its literal value, in
/// declaration order. The library's `ColumnFamily` builder checks names and types.
pub struct FamilyOptions {
    pub family: String,
    pub options: Vec<(syn::Ident, syn::Lit)>,
}

/// Pre-split regions.
pub enum Split {
    /// One region per salt bucket.
    Salt(u8),
    /// `n` regions over uniformly distributed keys.
    Uniform(u16),
    /// Explicit split keys (UTF-8 text).
    Keys(Vec<String>),
}

/// A validated `#[derive(HBaseRecord)]` enum.
pub struct RecordSet {
    pub ident: syn::Ident,
    pub krate: syn::Path,
    /// Each variant with the entity type it holds.
    pub variants: Vec<(syn::Ident, syn::Type)>,
}
