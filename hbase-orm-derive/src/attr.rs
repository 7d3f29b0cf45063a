//! The `#[hbase(...)]` attributes, as darling reads them.

use darling::util::{Flag, Override, SpannedValue};
use darling::{FromDeriveInput, FromField, FromMeta};
use quote::ToTokens;

/// Attributes on the struct.
#[derive(Debug, FromDeriveInput)]
#[darling(attributes(hbase), supports(struct_named))]
pub struct Entity {
    pub ident: syn::Ident,
    pub vis: syn::Visibility,
    pub generics: syn::Generics,
    pub data: darling::ast::Data<(), Field>,
    /// Table name inside the namespace. Required; optional here so that [`crate::valid`] can
    /// report it missing at the struct rather than at the derive.
    #[darling(default)]
    pub table: Option<SpannedValue<String>>,
    /// Namespace; `default` when absent.
    #[darling(default)]
    pub namespace: Option<SpannedValue<String>>,
    /// Column family of fields that name none.
    #[darling(default)]
    pub family: Option<SpannedValue<String>>,
    /// Byte that ends variable-length key parts followed by more parts.
    #[darling(default)]
    pub key_delimiter: Option<SpannedValue<char>>,
    /// Byte written between every two key parts, fixed-width ones too.
    #[darling(default)]
    pub key_separator: Option<SpannedValue<char>>,
    /// Name of the generated key struct; `<Entity>Key` when absent.
    #[darling(default)]
    pub key_struct: Option<syn::Ident>,
    /// Salt bucket prefix: `salt(buckets = 16)`, `salt(buckets = 16, hash = "customer")`,
    /// `salt(buckets = 8, modulo = "ts")`.
    #[darling(default)]
    pub salt: Option<SpannedValue<SaltOptions>>,
    /// Record-type tag: `record_type(tag = 2, after = "customer")`.
    #[darling(default)]
    pub record_type: Option<SpannedValue<RecordTypeOptions>>,
    /// Options per column family: `family_options(d(max_versions = 3, ttl = 86400,
    /// compression = "gz"), s(in_memory = true))`.
    #[darling(default)]
    pub family_options: FamilyOptionsList,
    /// Families of the table that no field of the struct is stored in, kept on purpose
    /// (one another record type of the table uses, one other tools fill), comma-separated:
    /// `extra_families = "audit"`. `family_options` may name only these and the fields'.
    /// The literal itself, so that a message can point at one name in it.
    #[darling(default)]
    pub extra_families: Option<syn::LitStr>,
    /// Pre-split regions: `split(salt)`, `split(key = "g", key = "n")`, `split(uniform = 16)`.
    #[darling(default)]
    pub split: Option<SpannedValue<SplitOptions>>,
    /// The key part (milliseconds since the epoch) that fills a table template such as
    /// `table = "tx_{yyyyMMdd}"`.
    #[darling(default)]
    pub table_time: Option<SpannedValue<String>>,
    /// The table of the dictionaries of `key(dictionary = "...")` parts (default
    /// `dictionary`), in the entity's namespace.
    #[darling(default)]
    pub dictionary_table: Option<SpannedValue<String>>,
    /// Replicas per region, the primary included: `region_replication = 3`. The value as
    /// written, checked in [`crate::valid`].
    #[darling(default)]
    pub region_replication: Option<RawValue>,
    /// Secondary index tables: `index(name = "by_time", parts = "created, id")`, repeatable.
    #[darling(multiple, rename = "index")]
    pub indexes: Vec<SpannedValue<IndexOptions>>,
    /// Path of the `hbase_orm` crate, for re-exports.
    #[darling(default, rename = "crate")]
    pub krate: Option<syn::Path>,
}

/// The value of `name = value` as written, any expression: [`crate::valid`] says what is
/// wrong with it (zero, a negative number, a string) at the value, where darling's parsing
/// into a number would say less.
#[derive(Debug, Clone)]
pub struct RawValue(pub syn::Expr);

impl FromMeta for RawValue {
    fn from_meta(item: &syn::Meta) -> darling::Result<Self> {
        match item {
            syn::Meta::NameValue(nv) => Ok(RawValue(nv.value.clone())),
            other => Err(darling::Error::custom(format!(
                "expected `{} = value`",
                other.path().to_token_stream()
            ))
            .with_span(other)),
        }
    }
}

/// Options of `index(...)`.
#[derive(Debug, Clone, FromMeta)]
pub struct IndexOptions {
    /// The index name, a Rust-style identifier (`by_time`).
    pub name: SpannedValue<String>,
    /// The fields whose values make the index key, in order, comma-separated. The literal
    /// itself, so that a message can point at one part in it.
    pub parts: syn::LitStr,
    /// The index table (default `<table>_<name>`), in the entity's namespace.
    #[darling(default)]
    pub table: Option<SpannedValue<String>>,
}

/// `#[derive(HBaseRecord)]`: an enum whose variants each hold one entity.
#[derive(Debug, FromDeriveInput)]
#[darling(attributes(hbase), supports(enum_any))]
pub struct Record {
    pub ident: syn::Ident,
    pub generics: syn::Generics,
    pub data: darling::ast::Data<syn::Variant, ()>,
    /// Path of the `hbase_orm` crate, for re-exports.
    #[darling(default, rename = "crate")]
    pub krate: Option<syn::Path>,
}

/// Attributes on a field.
#[derive(Debug, FromField)]
#[darling(attributes(hbase))]
pub struct Field {
    pub ident: Option<syn::Ident>,
    pub ty: syn::Type,
    /// A row-key part: `key`, or `key(fixed = N)`, `key(codec = C)`.
    #[darling(default)]
    pub key: Option<SpannedValue<Override<KeyOptions>>>,
    /// Column family (overrides the struct's).
    #[darling(default)]
    pub family: Option<SpannedValue<String>>,
    /// Column qualifier; the field name when absent.
    #[darling(default)]
    pub rename: Option<SpannedValue<String>>,
    /// Not stored; filled with `Default::default()` when read.
    #[darling(default)]
    pub skip: Flag,
    /// Missing cell reads as `Default::default()`, or as `path()` with `default = "path"`.
    #[darling(default)]
    pub default: Option<SpannedValue<Override<syn::Path>>>,
    /// A codec type implementing `hbase_orm::Codec<T>`.
    #[darling(default)]
    pub codec: Option<syn::Path>,
    /// Store as JSON (`hbase_orm::Json`).
    #[darling(default)]
    pub json: Flag,
    /// A `Versions<T>` field reading up to N versions of its cell.
    #[darling(default)]
    pub versions: Option<SpannedValue<u32>>,
    /// A `BTreeMap<K, V>` stored as one cell per entry of its own family.
    #[darling(default)]
    pub wide: Flag,
    /// The `KeyCodec` of a wide map's keys (default: the key type's row-key encoding).
    #[darling(default)]
    pub key_codec: Option<syn::Path>,
    /// An `i64` HBase counter.
    #[darling(default)]
    pub counter: Flag,
    /// The `u64` optimistic-concurrency version.
    #[darling(default)]
    pub version: Flag,
    /// A `ColumnGroup` stored as prefixed columns of the row.
    #[darling(default)]
    pub flatten: Flag,
    /// The qualifier prefix of a `flatten` group.
    #[darling(default)]
    pub prefix: Option<SpannedValue<String>>,
    /// A `Vec` of `ColumnGroup`s owning a family, qualifiers `<index>:<field>`.
    #[darling(default)]
    pub children: Flag,
}

/// `#[derive(HBaseColumns)]`: a struct stored as a group of columns.
#[derive(Debug, FromDeriveInput)]
#[darling(attributes(hbase), supports(struct_named))]
pub struct Group {
    pub ident: syn::Ident,
    pub generics: syn::Generics,
    pub data: darling::ast::Data<(), Field>,
    /// Path of the `hbase_orm` crate, for re-exports.
    #[darling(default, rename = "crate")]
    pub krate: Option<syn::Path>,
}

/// Options of `key(...)`.
#[derive(Debug, Default, Clone, FromMeta)]
pub struct KeyOptions {
    /// Fixed-width text padded to this many bytes.
    #[darling(default)]
    pub fixed: Option<SpannedValue<usize>>,
    /// A codec type implementing `hbase_orm::rowkey::KeyCodec<T>`.
    #[darling(default)]
    pub codec: Option<syn::Path>,
    /// Newest first: `i64::MAX - ts`.
    #[darling(default)]
    pub reverse_timestamp: Flag,
    /// Text with its characters reversed.
    #[darling(default)]
    pub reversed: Flag,
    /// MD5 of the value (16 bytes, or the first N with `md5 = N`); the value is also stored
    /// in a column.
    #[darling(default)]
    pub md5: Option<SpannedValue<Override<usize>>>,
    /// A `DictName` stored as its id in this dictionary (numeric substitution).
    #[darling(default)]
    pub dictionary: Option<SpannedValue<String>>,
}

/// Options of `salt(...)`.
#[derive(Debug, Clone, FromMeta)]
pub struct SaltOptions {
    /// Number of buckets, 1 to 255.
    pub buckets: SpannedValue<u8>,
    /// Leading key parts whose bytes feed the hash, comma-separated (default: all parts).
    /// The literal itself, so that a message can point at one part in it.
    #[darling(default)]
    pub hash: Option<syn::LitStr>,
    /// An integer key part whose value modulo `buckets` is the bucket.
    #[darling(default)]
    pub modulo: Option<SpannedValue<String>>,
}

/// Options of `record_type(...)`.
#[derive(Debug, Clone, FromMeta)]
pub struct RecordTypeOptions {
    /// The tag byte.
    pub tag: SpannedValue<u8>,
    /// The key part the tag follows (default: the tag comes first, after any salt).
    #[darling(default)]
    pub after: Option<SpannedValue<String>>,
}

/// `family_options(d(...), s(...))`: each family's options, under its name.
#[derive(Debug, Clone, Default)]
pub struct FamilyOptionsList(pub Vec<(syn::Ident, Vec<(syn::Ident, syn::Lit)>)>);

impl FromMeta for FamilyOptionsList {
    fn from_list(items: &[darling::ast::NestedMeta]) -> darling::Result<Self> {
        let mut errors = darling::Error::accumulator();
        let mut out = Vec::new();
        for item in items {
            match item {
                darling::ast::NestedMeta::Meta(syn::Meta::List(list)) => {
                    match list.path.get_ident() {
                        Some(family) => {
                            let options = errors.handle(family_options(list));
                            out.extend(options.map(|o| (family.clone(), o)));
                        }
                        None => errors.push(
                            darling::Error::custom("expected a family name, e.g. `d(...)`")
                                .with_span(&list.path),
                        ),
                    }
                }
                other => errors.push(
                    darling::Error::custom(
                        "expected `family(option = value, ...)`, e.g. `d(max_versions = 3)`",
                    )
                    .with_span(other),
                ),
            }
        }
        errors.finish_with(FamilyOptionsList(out))
    }
}

/// The `option = literal` pairs of one family. Which options exist and what they take is the
/// library's `ColumnFamily` builder's business: the generated code calls it, so a wrong value
/// is a compile error at the option. An unknown name never reaches here: `known` checks the
/// names against its copy of the builder's list (which its test holds to the builder's).
fn family_options(list: &syn::MetaList) -> darling::Result<Vec<(syn::Ident, syn::Lit)>> {
    let mut errors = darling::Error::accumulator();
    let mut out = Vec::new();
    for item in darling::ast::NestedMeta::parse_meta_list(list.tokens.clone())? {
        let pair = match &item {
            darling::ast::NestedMeta::Meta(syn::Meta::NameValue(nv)) => {
                match (nv.path.get_ident(), &nv.value) {
                    (Some(name), syn::Expr::Lit(lit)) => Some((name.clone(), lit.lit.clone())),
                    _ => None,
                }
            }
            _ => None,
        };
        match pair {
            Some(pair) => out.push(pair),
            None => errors.push(
                darling::Error::custom("expected `option = value`, e.g. `max_versions = 3`")
                    .with_span(&item),
            ),
        }
    }
    errors.finish_with(out)
}

/// Options of `split(...)`.
#[derive(Debug, Clone, FromMeta)]
pub struct SplitOptions {
    /// One region per salt bucket.
    #[darling(default)]
    pub salt: Flag,
    /// Explicit split keys (UTF-8 text).
    #[darling(multiple, rename = "key")]
    pub keys: Vec<String>,
    /// `N` regions evenly over hashed (uniformly distributed) keys.
    #[darling(default)]
    pub uniform: Option<u16>,
}
