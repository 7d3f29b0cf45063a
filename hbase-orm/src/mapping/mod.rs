//! The mapping: how typed structs are stored as HBase rows. No I/O happens here, and
//! nothing here calls the client: the repository (`crate::repository`) does the reading
//! and writing with what this folder defines.
//!
//! This module holds the contract between `#[derive(HBaseEntity)]` and the library. The
//! derive writes an [`HBaseEntity`] impl that lists the entity's table, families and
//! columns, and says per field which codec to use; building puts and row mutations,
//! decoding rows and the error messages live here as ordinary generic functions.
//!
//! | file | concern |
//! | --- | --- |
//! | `mod.rs` | the [`HBaseEntity`] and [`EntityKey`] contract, [`ColumnDef`], [`KeyPartDef`], secondary indexes as the derive declares them ([`IndexDef`], [`Index`]) |
//! | `columns.rs` | [`ColumnDef`], [`ColumnKind`]: what the derive declares about each stored field |
//! | `cells.rs` | [`CellWriter`], [`CellReader`]: fields to cells and back, row images |
//! | `rows.rs` | the partial-row rule: which rows hold an entity, and decoding them |
//! | `codec.rs` | how field values are stored in cells |
//! | `rowkey/` | how key parts make up row keys |
//! | `keyparts.rs` | [`KeyField`](keyparts::KeyField): typed handles to row-key parts (`Reading::TS`) and the row filters that test one |
//! | `fields.rs` | [`Field`](fields::Field), [`WideField`](fields::WideField): typed handles to stored fields (`Order::CITY`); [`FieldSet`](fields::FieldSet) and [`CounterRef`](fields::CounterRef), what projections and increments take |
//! | `group.rs` | [`ColumnGroup`]: structs flattened into an entity's columns |
//! | `versions.rs` | [`Versions`]: a field holding a cell's history |
//! | `read.rs` | what a read asks for: columns, whole families, versions, [`ReadOptions`] |
//! | `dictionary.rs` | [`DictName`], [`DictionaryId`]: dictionary key parts and their codec |
//! | `records.rs` | [`RecordSet`]: several entity types in one table, as the derive declares them |
//! | `scalar.rs` | [`ValueType`], [`Scalar`]: stored values as a query engine sees them |
//!
//! [`ReadOptions`]: read::ReadOptions
//! [`RecordSet`]: records::RecordSet

mod cells;
pub mod codec;
mod columns;
pub(crate) mod dictionary;
pub(crate) mod fields;
mod group;
pub(crate) mod keyparts;
pub(crate) mod read;
pub mod records;
pub mod rowkey;
pub(crate) mod rows;
mod scalar;
mod versions;

pub use cells::{CellReader, CellWriter, FieldError, FieldResult};
pub use dictionary::{DictName, DictionaryId};
pub use group::{ColumnGroup, GroupReader, GroupWriter};
pub use scalar::{Scalar, ValueType};
pub use versions::{Versioned, Versions};

use crate::model::{ColumnFamily, TableDescriptor, TableName};
use crate::model::{Error, Result};
use crate::model::{Put, Row, RowMutations};
use crate::schema::TableSchema;
#[cfg(feature = "bulk-load")]
pub(crate) use cells::RowBuffers;
pub(crate) use cells::RowImage;
pub use columns::{is_name, presence_of, ColumnDef, ColumnKind, MapKey};
use rowkey::{KeyError, KeyKind, KeyPrefix};

/// One part of an entity's row key, for design checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyPartDef {
    /// The Rust field name.
    pub field: &'static str,
    /// How the part is encoded.
    pub kind: KeyKind,
    /// Its width in bytes, if fixed.
    pub width: Option<usize>,
    /// The logical type of its values ([`KeyCodec::TYPE`](rowkey::KeyCodec::TYPE)).
    pub value_type: ValueType,
    /// Whether the value is read back from the key: false for a one-way part (a hash),
    /// which the entity also stores in a column ([`ColumnDef::key_part`]).
    pub in_key: bool,
}

/// The key type of the stub impl the derive emits after an attribute error (never used: the
/// crate does not compile then).
#[doc(hidden)]
#[derive(Debug, Clone)]
pub enum NoKey {}

impl EntityKey for NoKey {
    fn write_key(&self, _: &mut Vec<u8>) -> std::result::Result<(), KeyError> {
        match *self {}
    }
    fn read_key(_: &[u8]) -> std::result::Result<Self, KeyError> {
        Err(KeyError {
            part: "row key",
            expected: "nothing",
            reason: "this entity failed to derive".into(),
        })
    }
}

/// The key type of an entity: the fields that make up its row key.
pub trait EntityKey: Sized + Clone + Send + Sync + std::fmt::Debug + 'static {
    /// Appends the encoded row key.
    fn write_key(&self, out: &mut Vec<u8>) -> std::result::Result<(), KeyError>;
    /// Decodes a row key.
    fn read_key(key: &[u8]) -> std::result::Result<Self, KeyError>;
    /// The key's dictionary parts (`key(dictionary = "...")`): each dictionary's name and the
    /// part's value.
    fn dictionary_parts(&self) -> Vec<(&'static str, &DictName)> {
        Vec::new()
    }

    /// Hands the value of each key part read back from the key (each [`KeyPartDef`] with
    /// `in_key`), in key order, to `visit`, as its codec's [`Scalar`]
    /// ([`KeyCodec::to_scalar`](rowkey::KeyCodec::to_scalar); `None` when it gives none). The
    /// derive writes it; query engines read key parts as columns with it.
    fn visit_parts(&self, visit: &mut dyn FnMut(Option<Scalar<'_>>)) {
        let _ = visit;
    }

    /// The row-key prefix of the keys whose first `parts.len()` parts hold these values
    /// (all of them: the whole key), or `None` when a value is not one of its part's
    /// ([`KeyCodec::from_scalar`](rowkey::KeyCodec::from_scalar)) or there are no such parts.
    /// The derive writes it; query engines turn conditions on leading key parts into row
    /// ranges with it.
    ///
    /// ```
    /// use hbase_orm::{entity::Scalar, EntityKey, HBaseEntity};
    ///
    /// #[derive(HBaseEntity)]
    /// #[hbase(table = "orders", family = "d", key_delimiter = '\0')]
    /// struct Order {
    ///     #[hbase(key)]
    ///     customer: String,
    ///     #[hbase(key)]
    ///     number: u32,
    ///     total: f64,
    /// }
    ///
    /// let acme = OrderKey::prefix_of(&["acme".into()]).unwrap().unwrap();
    /// assert_eq!(acme.bytes, b"acme\0");
    /// let one = OrderKey::prefix_of(&["acme".into(), Scalar::Int(7)]).unwrap().unwrap();
    /// assert_eq!(one.bytes, b"acme\0\0\0\0\x07");
    /// assert!(OrderKey::prefix_of(&[Scalar::Int(7)]).is_none()); // not text
    /// ```
    fn prefix_of(parts: &[Scalar<'_>]) -> Option<Result<KeyPrefix>> {
        let _ = parts;
        None
    }

    /// The test of keys whose part `part` (an index of [`HBaseEntity::KEY_PARTS`]) equals
    /// `value` ([`KeyField::eq_test`](keyparts::KeyField::eq_test) of that part), or `None`
    /// when `value` is not one of the part's ([`KeyCodec::from_scalar`](rowkey::KeyCodec::from_scalar))
    /// or there is no such part. The derive writes it; query engines turn equalities on key
    /// parts after the leading ones into key filters with it.
    ///
    /// ```
    /// use hbase_orm::{EntityKey, HBaseEntity};
    ///
    /// #[derive(HBaseEntity)]
    /// #[hbase(table = "visits", family = "d", key_delimiter = '/')]
    /// struct Visit {
    ///     #[hbase(key)]
    ///     site: String,
    ///     #[hbase(key)]
    ///     page: String,
    ///     hits: u64,
    /// }
    ///
    /// let home = VisitKey::part_eq_test(1, &"home".into()).unwrap().unwrap();
    /// assert!(home.passes(b"example.org/home"));
    /// assert!(VisitKey::part_eq_test(2, &"home".into()).is_none());
    /// ```
    fn part_eq_test(part: usize, value: &Scalar<'_>) -> Option<Result<keyparts::KeyTest>> {
        let _ = (part, value);
        None
    }

    /// The encoded row key, for raw calls (`Table::get(Get::new(key.row_key()?))`).
    fn row_key(&self) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(32);
        self.write_key(&mut out).map_err(|e| Error::Encode {
            entity: std::any::type_name::<Self>(),
            field: e.part,
            reason: format!("{} (expected {})", e.reason, e.expected),
        })?;
        Ok(out)
    }
}

/// A struct stored as HBase rows. Derive it with `#[derive(HBaseEntity)]`; the provided
/// methods turn values into requests and rows back into values, and
/// [`Client::repository`](crate::Client::repository) gives typed saves, reads and scans.
///
/// ```
/// use hbase_orm::HBaseEntity;
///
/// #[derive(HBaseEntity, Debug, Clone, PartialEq)]
/// #[hbase(namespace = "shop", table = "orders", family = "d", key_delimiter = '|')]
/// struct Order {
///     #[hbase(key)]                 // row key part 1: UTF-8, ended by '|'
///     customer: String,
///     #[hbase(key)]                 // row key part 2: 8 bytes, order-preserving
///     number: i64,
///     #[hbase(rename = "t")]        // stored in column d:t
///     total: f64,
///     note: Option<String>,         // None: no cell (and a save deletes the old one)
///     #[hbase(family = "x", json)]  // column x:lines holds a JSON document
///     lines: Vec<String>,
///     #[hbase(default)]             // a missing cell reads as 0
///     retries: u32,
///     #[hbase(skip)]                // not stored; reads as Default
///     cached: bool,
/// }
///
/// let order = Order {
///     customer: "acme".into(), number: 7, total: 9.5, note: None,
///     lines: vec!["pen".into()], retries: 0, cached: true,
/// };
/// assert_eq!(order.row_key().unwrap(), b"acme|\x80\0\0\0\0\0\0\x07");
/// assert_eq!(OrderKey::prefix_by_customer(&"acme".into()).unwrap().bytes, b"acme|");
/// let put = order.to_put().unwrap();
/// assert_eq!(put.cells.len(), 3); // t, lines, retries; `note` is None
/// ```
///
/// # Attributes
///
/// On the struct, `#[hbase(...)]` with:
///
/// | attribute | meaning |
/// | --- | --- |
/// | `table = "orders"` | the table (required) |
/// | `namespace = "shop"` | its namespace (default `default`) |
/// | `family = "d"` | the column family of fields that name none |
/// | `key_delimiter = '\|'` | the byte that ends variable-length key parts followed by more parts (see [`crate::rowkey`] on how it affects key order) |
/// | `key_separator = '.'` | a byte written between every two key parts, fixed-width ones too (`20150812163500.D010`); excludes `key_delimiter` |
/// | `key_struct = "OrderKey"` | the name of the generated key type (default `<Struct>Key`) |
/// | `salt(buckets = 16)` | a salt byte before the key: a hash of the key parts' bytes modulo 16 (`hash = "customer"`: of the leading parts named; `modulo = "ts"`: an integer part modulo the buckets); scans run per bucket and merge in key order |
/// | `record_type(tag = 2, after = "customer")` | a tag byte in the key (after the named part, else first), for several entity types in one table read with `#[derive(HBaseRecord)]` |
/// | `family_options(d(max_versions = 3, ttl = 86400, compression = "gz"))` | options per family, named as [`ColumnFamily`]'s builder methods (`max_versions`, `min_versions`, `ttl`, `compression`, `bloom_filter`, `block_size`, `block_cache`, `in_memory`, `data_block_encoding`, `keep_deleted_cells`); a wrong name or value fails the build, and so does a family no field is stored in (a typo would leave the real family without its options) unless it is the struct's `family` or `extra_families` names it |
/// | `extra_families = "audit, raw"` | families the table has that no field of the struct is stored in, kept on purpose (one another record type of the table uses, one other tools fill); they are created with the table and may take `family_options` |
/// | `split(salt)`, `split(key = "g", key = "n")`, `split(uniform = 8)` | pre-split regions: one per salt bucket, at the given keys, or evenly over hashed keys |
/// | `table = "tx_{yyyyMMdd}", table_time = "ts"` | one table per day (or `{yyyyMM}`, `{yyyy}`, `{HH}`, ...) chosen by a key part holding milliseconds |
/// | `index(name = "by_city", parts = "city, id", table = "t")` | a secondary index table (repeatable); its parts are row-key parts and plain fields and include every row-key part; a part that is an `Option` field makes the index sparse: an entity whose part is `None` has no index row (and leaves it when the part becomes `None`); see [`Index`] |
/// | `dictionary_table = "names"` | the table of the dictionaries of `key(dictionary = ...)` parts (default `dictionary`, in the entity's namespace) |
/// | `region_replication = 3` | replicas per region, the primary included (1 to 65536; default 1, none): the table is created with read replicas ([`TableDescriptor::region_replication`]); its index and dictionary tables are not |
/// | `crate = "path"` | where `hbase_orm` is, if renamed or re-exported |
///
/// On fields:
///
/// | attribute | meaning |
/// | --- | --- |
/// | `key` | a row-key part, in field order, with the type's default encoding ([`crate::rowkey::KeyPart`]): integers big-endian and order-preserving, `String` UTF-8, `Vec<u8>` raw; never an `Option` or a float |
/// | `key(fixed = N)` | a `String` padded with `0x00` to exactly `N` bytes; longer text is an error |
/// | `key(codec = C)` | a part encoded by `C:` [`crate::rowkey::KeyCodec`]; a generic path goes in quotes, `codec = "Policy<Time>"` (Rust attributes cannot hold `<...>` unquoted) |
/// | `key(reverse_timestamp)` | an `i64` stored as `i64::MAX - ts`: newest first |
/// | `key(reversed)` | a `String` with its characters reversed (spreads sequential ids) |
/// | `key(dictionary = "hosts")` | a [`DictName`] stored as its 4-byte id in dictionary `hosts` (numeric substitution); the repository assigns ids on save and fills in names on reads |
/// | `key(md5)`, `key(md5 = 4)` | the MD5 of the value (or its first N bytes); the value is also stored in a column of the struct's family, to read it back |
/// | `family = "x"` | the field's column family |
/// | `rename = "q"` | the qualifier (default: the field name); keep it short, it is stored in every cell |
/// | `default`, `default = "path"` | a missing cell reads as `Default::default()` or `path()` |
/// | `skip` | not stored; reads as `Default::default()` |
/// | `json` | stored as a JSON document ([`crate::Json`]) |
/// | `codec = C` | stored with `C:` [`crate::Codec`]; without it, the type's [`crate::Value`] |
/// | `versions = 100` | a [`Versions<T>`] field: up to 100 versions of its cell, newest first; each saved version keeps its timestamp; the family keeps at least that many versions |
/// | `wide` | a `BTreeMap<K, V>` owning its family: one cell per entry, the qualifier being the key's row-key encoding (`key_codec = C` for another [`crate::rowkey::KeyCodec`]); a save replaces the map whole, deleting entries it lacks; in an entity whose only family is the map's, the empty key is not available (the row's marker cell uses it) |
/// | `counter` | an `i64` HBase counter (another type fails the build at the field): changed by [`Repository::increment`](crate::Repository::increment) with the field's handle, read alone by [`Repository::counter`](crate::Repository::counter), added to by [`Repository::insert`](crate::Repository::insert), never written by a save |
/// | `flatten, prefix = "ship_"` | a `#[derive(HBaseColumns)]` struct ([`ColumnGroup`]) stored as columns `ship_<field>` of the field's family, recursively; its `None` fields are deleted by a save |
/// | `children` | a `Vec` of [`ColumnGroup`]s owning the field's family, qualifiers `<index>:<field>` (`item:0:sku`); a save replaces the list whole |
/// | `version` | a `u64` (another type fails the build at the field) for optimistic concurrency: a save writes only if the stored version is the value's, and stores the next one; else [`Error::Conflict`] |
///
/// `Option<T>` fields store `T`; `None` writes no cell. Key fields are not stored as columns:
/// they live in the row key. The derive also writes the key type (`OrderKey` above) with one
/// `prefix_by_<parts>` function per proper prefix of the key parts, for prefix scans.
pub trait HBaseEntity: Sized + Send + Sync + 'static {
    /// The generated key type.
    type Key: EntityKey;
    /// The namespace of the table.
    const NAMESPACE: &'static str;
    /// The table's name inside its namespace.
    const TABLE: &'static str;
    /// Every column family the entity uses.
    const FAMILIES: &'static [&'static str];
    /// Every stored field, in declaration order (the `col` indexes of [`CellWriter`] and
    /// [`CellReader`] point into it).
    const COLUMNS: &'static [ColumnDef];

    /// Index in [`Self::COLUMNS`] of `family:qualifier`, if the entity stores that column.
    fn column_index(family: &[u8], qualifier: &[u8]) -> Option<usize>;
    /// The key of this value.
    fn key(&self) -> Self::Key;
    /// Appends this value's encoded row key.
    fn write_row_key(&self, out: &mut Vec<u8>) -> std::result::Result<(), KeyError>;
    /// Hands every stored field to the writer.
    fn write_cells(&self, cells: &mut CellWriter<'_, Self>) -> Result<()>;
    /// Builds a value from its row key and the cells read.
    fn read_cells(key: &[u8], cells: &mut CellReader<'_, Self>) -> Result<Self>;

    /// The number of salt buckets when the row key starts with a salt byte
    /// (`#[hbase(salt(buckets = N))]`).
    const SALT_BUCKETS: Option<u8> = None;

    /// The record-type tag in the row key (`#[hbase(record_type(tag = T))]`), for tables that
    /// hold several entity types.
    const RECORD_TAG: Option<u8> = None;

    /// The parts of the row key, in order (for design checks).
    const KEY_PARTS: &'static [KeyPartDef] = &[];

    /// The byte that ends variable-length key parts, if any.
    const KEY_DELIMITER: Option<u8> = None;

    /// The column families with their declared options (`#[hbase(family_options(d(...)))]`).
    fn family_descriptors() -> Vec<ColumnFamily> {
        Self::FAMILIES
            .iter()
            .map(|f| ColumnFamily::new(*f))
            .collect()
    }

    /// The split keys to create the table with (`#[hbase(split(...))]`; by default one region
    /// per salt bucket for a salted entity, else none).
    fn split_keys() -> Vec<Vec<u8>> {
        Self::SALT_BUCKETS
            .map(rowkey::salt_split_keys)
            .unwrap_or_default()
    }

    /// How many replicas each region of the table has, the primary included
    /// (`#[hbase(region_replication = 3)]`; 1, no read replicas, by default): the
    /// [`TableDescriptor::region_replication`] the table is created with.
    const REGION_REPLICATION: u32 = 1;

    /// Whether the table name is a template rendered per key (`table = "tx_{yyyyMMdd}"`).
    const TABLE_IS_TEMPLATE: bool = false;

    /// The table that holds the entity with this key: the declared table, or for a table
    /// template (`table = "tx_{yyyyMMdd}"`) the one rendered from the key.
    fn table_for_key(key: &Self::Key) -> TableName {
        let _ = key;
        Self::table_name()
    }

    /// What this entity declares about its table.
    fn schema() -> TableSchema {
        Self::schema_for(Self::table_name())
    }

    /// What this entity declares about a table of its layout named `table`: the data table
    /// alone. The tables that go with it (its index tables, named after `table`, and its
    /// dictionary table) are [`HBaseEntity::related_schemas_for`]; `Admin::ensure_on` makes
    /// both.
    fn schema_for(table: TableName) -> TableSchema {
        TableSchema {
            descriptor: TableDescriptor {
                name: table,
                families: Self::family_descriptors(),
                region_replication: Self::REGION_REPLICATION,
            },
            split_keys: Self::split_keys(),
            declared_by: vec![short_type_name::<Self>()],
        }
    }

    /// The table of the dictionaries of `key(dictionary = "...")` parts, in the entity's
    /// namespace (`#[hbase(dictionary_table = "...")]`, default `dictionary`).
    const DICTIONARY_TABLE: &'static str = "dictionary";

    /// The value's dictionary key parts: each dictionary's name and the part's value.
    fn dictionary_parts(&self) -> Vec<(&'static str, &DictName)> {
        Vec::new()
    }

    /// Whether the row key has dictionary parts.
    fn has_dictionary_parts() -> bool {
        Self::KEY_PARTS
            .iter()
            .any(|p| p.kind == KeyKind::Dictionary)
    }

    /// The entity's secondary indexes (`#[hbase(index(...))]`).
    const INDEXES: &'static [IndexDef<Self>] = &[];

    /// The tables of the entity's secondary indexes, as declared.
    fn index_schemas() -> Vec<TableSchema> {
        Self::INDEXES.iter().map(IndexDef::schema).collect()
    }

    /// The tables besides its own that the entity uses, which `Admin::ensure` creates too:
    /// its index tables and, with dictionary key parts, its dictionary table.
    fn related_schemas() -> Vec<TableSchema> {
        Self::related_schemas_for(&Self::table_name())
    }

    /// The tables that go with the entity's rows when they are stored in `table` (a copy of
    /// the declared table, a test table: `Repository::on_table`): its index tables, named as
    /// [`IndexDef::table_on`] says, and its dictionary table, which stays the declared one
    /// (a dictionary maps names to ids whatever table holds the rows).
    fn related_schemas_for(table: &TableName) -> Vec<TableSchema> {
        let mut out: Vec<TableSchema> = Self::INDEXES.iter().map(|d| d.schema_on(table)).collect();
        if Self::has_dictionary_parts() {
            out.push(dictionary::lookup_table_schema(TableName::new(
                Self::NAMESPACE,
                Self::DICTIONARY_TABLE,
            )));
        }
        out
    }

    /// The value of the `#[hbase(version)]` field, if the entity has one.
    fn version(&self) -> Option<u64> {
        None
    }

    /// Sets the `#[hbase(version)]` field (nothing without one).
    fn set_version(&mut self, version: u64) {
        let _ = version;
    }

    /// Whether a row key of this table belongs to this entity type (always true without a
    /// record-type tag).
    fn is_record(key: &[u8]) -> bool {
        let _ = key;
        true
    }

    /// The table's full name.
    fn table_name() -> TableName {
        TableName::new(Self::NAMESPACE, Self::TABLE)
    }

    /// The encoded row key.
    fn row_key(&self) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(32);
        self.write_row_key(&mut out)
            .map_err(encode_key_error::<Self>)?;
        Ok(out)
    }

    /// A put of every field that has a value (`None` fields write no cell; counters are not
    /// written, a version field writes its value + 1).
    fn to_put(&self) -> Result<Put> {
        row_image(self, false).map(|image| image.put)
    }

    /// The whole row image: a put of the fields that have values and deletes of the columns
    /// whose fields are `None`, so a save never leaves an old value readable. (Entries a wide
    /// map no longer holds are deleted by [`Repository::save`](crate::Repository::save), which
    /// reads them first.)
    fn to_mutations(&self) -> Result<RowMutations> {
        let image = row_image(self, false)?;
        let delete = image.clearing(Self::COLUMNS);
        let mut mutations = RowMutations::new(image.put.row.clone());
        if !image.put.cells.is_empty() {
            mutations = mutations.put(image.put);
        }
        if let Some(delete) = delete {
            mutations = mutations.delete(delete);
        }
        Ok(mutations)
    }

    /// Decodes a row read from the entity's declared table.
    ///
    /// Gets and index reads decode through this method; scans do not: they decode each row in
    /// the page it arrived in, through [`read_cells`](Self::read_cells) as this default does.
    /// A type that decodes differently implements `read_cells`, not this.
    fn from_row(row: Row) -> Result<Self> {
        decode_row(row, None)
    }

    /// Decodes a row read from `table` (named in decode errors); scans do not call it either
    /// (see [`from_row`](Self::from_row)).
    fn from_row_of(row: Row, table: &TableName) -> Result<Self> {
        decode_row(row, Some(table))
    }
}

/// The row image of `value`. Counters are written only with `counters` (a first write: an
/// insert); a save never overwrites them.
pub(crate) fn row_image<E: HBaseEntity>(value: &E, counters: bool) -> Result<RowImage> {
    cells::write_image::<E>(
        value.row_key()?,
        E::COLUMNS,
        E::FAMILIES,
        counters,
        |cells| value.write_cells(cells),
    )
}

#[cfg(feature = "bulk-load")]
/// [`row_image`]'s cells written into `buffers`, kept from one value to the next (see
/// [`RowBuffers`]).
pub(crate) fn row_into<E: HBaseEntity>(
    value: &E,
    buffers: &mut RowBuffers,
    counters: bool,
) -> Result<()> {
    cells::write_row::<E>(
        buffers,
        E::COLUMNS,
        E::FAMILIES,
        counters,
        |row| value.write_row_key(row).map_err(encode_key_error::<E>),
        |cells| value.write_cells(cells),
    )
}

/// Decodes `row` into `E`; `table` is named in decode errors (else the declared one).
fn decode_row<E: HBaseEntity>(row: Row, table: Option<&TableName>) -> Result<E> {
    decode_cells(
        &row.key,
        row.cells.iter().map(crate::model::CellRef::from),
        table,
    )
}

/// Decodes the row `key` with `cells` (newest version first, as HBase sends them).
pub(crate) fn decode_cells<'a, E: HBaseEntity>(
    key: &'a [u8],
    cells: impl Iterator<Item = crate::model::CellRef<'a>>,
    table: Option<&'a TableName>,
) -> Result<E> {
    let columns = cells::Columns {
        defs: E::COLUMNS,
        index: E::column_index,
        declared_table: E::table_name,
    };
    cells::read_row(key, cells, table, columns, E::read_cells)
}

/// The type's name without its module path.
fn short_type_name<T>() -> &'static str {
    let full = std::any::type_name::<T>();
    full.rsplit("::").next().unwrap_or(full)
}

fn encode_key_error<E: ?Sized>(e: KeyError) -> Error {
    Error::Encode {
        entity: std::any::type_name::<E>(),
        field: e.part,
        reason: format!("{} (expected {})", e.reason, e.expected),
    }
}

/// Encodes a key of `E` (for gets and deletes by key).
pub fn encode_key<E: HBaseEntity>(key: &E::Key) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(32);
    key.write_key(&mut out).map_err(encode_key_error::<E>)?;
    Ok(out)
}

/// Turns a [`KeyError`] from a generated `prefix_by_*` function into a [`KeyPrefix`] result.
pub fn key_prefix<E: ?Sized>(
    all_buckets: bool,
    write: impl FnOnce(&mut Vec<u8>) -> std::result::Result<(), KeyError>,
) -> Result<KeyPrefix> {
    let mut out = Vec::with_capacity(32);
    write(&mut out).map_err(encode_key_error::<E>)?;
    Ok(KeyPrefix {
        bytes: out,
        all_buckets,
    })
}

// Secondary indexes, `#[hbase(index(name = "by_time", parts = "created, id, city"))]`, as the
// derive declares them (maintaining and reading index tables is the repository's, see
// `repository/index.rs` for the order of writes that keeps readers right).

/// The family of index tables.
pub const INDEX_FAMILY: &str = "i";
/// The qualifier of the cell holding the entity's row key.
pub const INDEX_QUALIFIER: &str = "r";

/// One secondary index of entity `E`, as the derive lists it in
/// [`HBaseEntity::INDEXES`](crate::HBaseEntity::INDEXES).
pub struct IndexDef<E> {
    /// The index name (`by_time`).
    pub name: &'static str,
    /// The index table, in the entity's namespace.
    pub table: &'static str,
    /// Appends the index key of an entity; `false` (nothing written) when the entity has no
    /// index row: a part that is an `Option` field is `None` (a sparse index).
    pub write_key: fn(&E, &mut Vec<u8>) -> std::result::Result<bool, KeyError>,
}

impl<E: HBaseEntity> IndexDef<E> {
    /// The index table's full name, as declared (for the entity's declared table).
    pub fn table_name(&self) -> TableName {
        TableName::new(E::NAMESPACE, self.table)
    }

    /// The index table that goes with the entity's rows stored in `data`.
    ///
    /// An index row points at a row of one data table, so an entity moved to another table
    /// (`Repository::on_table`: a copy, a test table) takes its indexes along:
    ///
    /// - on the entity's declared table, the declared index table ([`IndexDef::table_name`]:
    ///   `table = "..."` of `index(...)`, else `{table}_{index name}`);
    /// - on any other table `namespace:name`, the table `namespace:{name}_{index name}`, in
    ///   the data table's namespace, whatever the declaration names.
    ///
    /// ```
    /// use hbase_orm::{HBaseEntity, TableName};
    ///
    /// #[derive(HBaseEntity)]
    /// #[hbase(namespace = "chat", table = "members", family = "d",
    ///         index(name = "by_user", parts = "user, conversation"))]
    /// struct Member {
    ///     #[hbase(key)]
    ///     conversation: u64,
    ///     #[hbase(key)]
    ///     user: u64,
    /// }
    ///
    /// let by_user = &Member::INDEXES[0];
    /// assert_eq!(by_user.table_on(&Member::table_name()).to_string(), "chat:members_by_user");
    /// let moved = TableName::new("chat_run1", "members");
    /// assert_eq!(by_user.table_on(&moved).to_string(), "chat_run1:members_by_user");
    /// ```
    pub fn table_on(&self, data: &TableName) -> TableName {
        // Compared with the declared names as they are: no table name is built per write.
        if data.namespace == E::NAMESPACE && data.name == E::TABLE {
            self.table_name()
        } else {
            TableName::new(&data.namespace, format!("{}_{}", data.name, self.name))
        }
    }

    /// What the index table looks like, as declared.
    pub fn schema(&self) -> TableSchema {
        self.schema_on(&E::table_name())
    }

    /// What the index table that goes with the rows in `data` looks like (named by
    /// [`IndexDef::table_on`]).
    pub fn schema_on(&self, data: &TableName) -> TableSchema {
        TableSchema {
            descriptor: TableDescriptor::new(self.table_on(data))
                .family(ColumnFamily::new(INDEX_FAMILY)),
            split_keys: Vec::new(),
            declared_by: vec![self.name],
        }
    }

    /// The index key of `value`; `None` when it has no index row (a part that is an `Option`
    /// field is `None`).
    pub fn key_of(&self, value: &E) -> Result<Option<Vec<u8>>> {
        let mut out = Vec::with_capacity(32);
        let indexed = (self.write_key)(value, &mut out).map_err(|e| Error::Encode {
            entity: std::any::type_name::<E>(),
            field: e.part,
            reason: format!(
                "index {}: {} (expected {})",
                self.name, e.reason, e.expected
            ),
        })?;
        Ok(indexed.then_some(out))
    }
}

/// A secondary index, implemented by the marker type the derive writes for each
/// `#[hbase(index(name = "by_time", ...))]` (`OrderByTime` for entity `Order`), with its key
/// type (`OrderByTimeKey`, which has `prefix_by_*` functions like an entity key).
pub trait Index: 'static {
    /// The indexed entity.
    type Entity: HBaseEntity;
    /// The index key: the index parts, in order.
    type Key: EntityKey;
    /// Position of this index in the entity's `INDEXES`.
    const POSITION: usize;

    /// The index's description.
    fn def() -> &'static IndexDef<Self::Entity> {
        &<Self::Entity as HBaseEntity>::INDEXES[Self::POSITION]
    }
}

/// What [`Repository::rebuild_index`](crate::Repository::rebuild_index) did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IndexRepair {
    /// Entities read from the data table (each one's index row written).
    pub indexed: usize,
    /// Index rows removed: their entity is gone or no longer has that index key.
    pub removed: usize,
}

impl<K: EntityKey> codec::Codec<K> for codec::KeyRef {
    fn expected() -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Owned(format!("a row key of {}", std::any::type_name::<K>()))
    }

    fn encode(value: &K, out: &mut Vec<u8>) -> std::result::Result<(), String> {
        value.write_key(out).map_err(|e| e.to_string())
    }

    fn decode(bytes: &[u8]) -> std::result::Result<K, String> {
        K::read_key(bytes).map_err(|e| e.to_string())
    }
}
