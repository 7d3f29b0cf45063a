//! Tables, families and namespaces as the master's admin calls carry them: the model's
//! [`TableDescriptor`] and [`ColumnFamily`] to and from HBase's `TableSchema` and
//! `ColumnFamilySchema` messages. Pure conversions, no I/O.
//!
//! A family's options travel as `attributes`, pairs of bytes keyed and spelled as HBase's
//! `ColumnFamilyDescriptorBuilder` writes them: `VERSIONS` = `"3"`, `TTL` = seconds
//! (`"2147483647"`, `Integer.MAX_VALUE`, is FOREVER), `BLOCKCACHE` = `"true"`, `COMPRESSION` =
//! `"GZ"` and so on. Going out, only the options the model sets are written and the master
//! fills in its defaults for the rest. Coming back, HBase sends every attribute with its
//! defaults filled in, and a family decodes to exactly what the Thrift2 backend's `describe`
//! reports for the same table: each option read as the Java getter reads it (an absent or empty
//! attribute is HBase's default, names in any case, a boolean true only for `"true"` in any
//! case), and a name HBase knows but the model does not (`BROTLI`, say) read as the Thrift2
//! gateway reports it (`NONE`).
//!
//! The options are the model's list, [`for_each_family_option!`]: a new option there fails the
//! build here until [`ATTRIBUTE_KEYS`] names its key (and, for a new value type, it has an
//! [`AttributeValue`]).

use prost::bytes::Bytes;

use super::proto;
use crate::model::{
    for_each_family_option, BloomFilter, ColumnFamily, Compression, DataBlockEncoding, Error,
    KeepDeletedCells, Result, TableDescriptor, TableName, REGION_REPLICATION_KEY,
};

#[cfg(test)]
mod tests;

/// The master call whose reply the decoding functions read, named in their errors: described
/// tables, and the families `merge_family` starts from, come from `GetTableDescriptors`.
const METHOD: &str = "GetTableDescriptors";

/// The namespace of a table name that comes without one (as the Thrift2 backend reads it).
const DEFAULT_NAMESPACE: &str = "default";

/// Each family option's field in the model and its attribute key in HBase's
/// `ColumnFamilyDescriptorBuilder` (`VERSIONS` is `HConstants.VERSIONS`).
const ATTRIBUTE_KEYS: &[(&str, &str)] = &[
    ("max_versions", "VERSIONS"),
    ("min_versions", "MIN_VERSIONS"),
    ("time_to_live", "TTL"),
    ("compression", "COMPRESSION"),
    ("bloom_filter", "BLOOMFILTER"),
    ("block_size", "BLOCKSIZE"),
    ("block_cache", "BLOCKCACHE"),
    ("in_memory", "IN_MEMORY"),
    ("data_block_encoding", "DATA_BLOCK_ENCODING"),
    ("keep_deleted_cells", "KEEP_DELETED_CELLS"),
];

/// The attribute key of the model's option `field`; evaluated at compile time, so an option
/// missing from [`ATTRIBUTE_KEYS`] fails the build.
const fn attribute_key(field: &str) -> &'static str {
    let mut i = 0;
    while i < ATTRIBUTE_KEYS.len() {
        if crate::model::same_str(ATTRIBUTE_KEYS[i].0, field) {
            return ATTRIBUTE_KEYS[i].1;
        }
        i += 1;
    }
    panic!("a family option has no HBase attribute key in native::schema::ATTRIBUTE_KEYS")
}

/// A family option's value as HBase's family attributes spell it.
trait AttributeValue: Sized {
    /// The text `ColumnFamilyDescriptorBuilder`'s setter writes.
    fn to_text(self) -> String;
    /// The value of the attribute `key` as the getter reads `text`, or what was expected.
    fn from_text(key: &str, text: &str) -> std::result::Result<Self, &'static str>;
}

impl AttributeValue for i32 {
    fn to_text(self) -> String {
        self.to_string()
    }

    /// `Integer.parseInt`; for `TTL` also `FOREVER`, the shell's name of `Integer.MAX_VALUE`
    /// (HBase itself stores the number).
    fn from_text(key: &str, text: &str) -> std::result::Result<i32, &'static str> {
        if key == "TTL" && text.eq_ignore_ascii_case("FOREVER") {
            return Ok(i32::MAX);
        }
        text.parse().map_err(|_| "a 32-bit integer")
    }
}

impl AttributeValue for bool {
    fn to_text(self) -> String {
        self.to_string()
    }

    /// `Boolean.valueOf`: `true` in any case, anything else is `false`.
    fn from_text(_key: &str, text: &str) -> std::result::Result<bool, &'static str> {
        Ok(text.eq_ignore_ascii_case("true"))
    }
}

/// An option whose values HBase names. `others` are the names HBase's enum has and the
/// model's does not: the Thrift2 gateway reports each as `fallback`, and so does this.
macro_rules! named_attribute {
    ($ty:ident, $what:literal, others [$($other:literal),*] => $fallback:expr) => {
        impl AttributeValue for $ty {
            fn to_text(self) -> String {
                self.name().to_string()
            }

            fn from_text(_key: &str, text: &str) -> std::result::Result<$ty, &'static str> {
                if let Some(v) = $ty::from_name(text) {
                    return Ok(v);
                }
                let others: &[&str] = &[$($other),*];
                if others.iter().any(|o| o.eq_ignore_ascii_case(text)) {
                    return Ok($fallback);
                }
                Err($what)
            }
        }
    };
}
named_attribute!(Compression, "a compression algorithm",
    others ["LZMA", "BROTLI"] => Compression::None);
named_attribute!(BloomFilter, "a bloom filter type",
    others ["ROWPREFIX_DELIMITED"] => BloomFilter::Row);
named_attribute!(DataBlockEncoding, "a data block encoding",
    others ["PREFIX_TREE"] => DataBlockEncoding::None);
named_attribute!(KeepDeletedCells, "a keep-deleted-cells setting",
    others [] => KeepDeletedCells::False);

/// A `BytesBytesPair` of texts.
fn pair(key: &str, value: &str) -> proto::BytesBytesPair {
    proto::BytesBytesPair {
        first: Bytes::copy_from_slice(key.as_bytes()),
        second: Bytes::copy_from_slice(value.as_bytes()),
    }
}

/// The value of the attribute `key` in a family's or a table's `attributes` as HBase reads the
/// list into its map: the last pair with the key wins, and an empty value removes the key
/// (HBase's `setValue`).
fn attribute<'a>(attributes: &'a [proto::BytesBytesPair], key: &str) -> Option<&'a [u8]> {
    let mut found = None;
    for a in attributes.iter().filter(|a| a.first == key.as_bytes()) {
        found = Some(&a.second[..]).filter(|v| !v.is_empty());
    }
    found
}

/// `bytes` as UTF-8, or a protocol error naming `what` they were.
fn utf8(bytes: &[u8], what: &str) -> Result<String> {
    String::from_utf8(bytes.to_vec()).map_err(|e| Error::Protocol {
        method: METHOD,
        message: format!("{what} is not UTF-8: {e}"),
    })
}

macro_rules! family_conversions {
    ($($(#[$doc:meta])* $builder:ident: $field:ident: $ty:ty => $wire:ident;)*) => {
        /// The attributes of the options `f` sets, as `(key, value)` texts.
        fn declared_attributes(f: &ColumnFamily) -> Vec<(&'static str, String)> {
            let mut out = Vec::new();
            $(if let Some(v) = f.$field {
                out.push((const { attribute_key(stringify!($field)) }, v.to_text()));
            })*
            out
        }

        /// The model's options read from `schema`'s attributes, `None` where the attribute is
        /// absent.
        fn read_options(schema: &proto::ColumnFamilySchema, family: &mut ColumnFamily) -> Result<()> {
            $(
                let key = const { attribute_key(stringify!($field)) };
                if let Some(raw) = attribute(&schema.attributes, key) {
                    // HBase's Bytes.toString: invalid UTF-8 becomes replacement characters,
                    // which no number or name parses from.
                    let text = String::from_utf8_lossy(raw);
                    let value = <$ty as AttributeValue>::from_text(key, &text).map_err(|what| {
                        Error::Protocol {
                            method: METHOD,
                            message: format!(
                                "family {}: attribute {key} = {text:?} is not {what}",
                                family.name
                            ),
                        }
                    })?;
                    family.$field = Some(value);
                }
            )*
            Ok(())
        }
    };
}
for_each_family_option!(family_conversions);

/// A table name as HBase's messages carry it: namespace and qualifier as UTF-8 bytes.
pub(crate) fn table_name(t: &TableName) -> proto::TableName {
    proto::TableName {
        namespace: Bytes::copy_from_slice(t.namespace.as_bytes()),
        qualifier: Bytes::copy_from_slice(t.name.as_bytes()),
    }
}

/// A table name from HBase (an empty namespace is `default`); a part that is not UTF-8 is an
/// [`Error::Protocol`] naming `GetTableDescriptors`.
pub(crate) fn model_table_name(t: &proto::TableName) -> Result<TableName> {
    let namespace = match &t.namespace[..] {
        [] => DEFAULT_NAMESPACE.to_string(),
        ns => utf8(ns, "a namespace name")?,
    };
    Ok(TableName::new(
        namespace,
        utf8(&t.qualifier, "a table name")?,
    ))
}

/// A family to create or replace (`AddColumn`, `ModifyColumn`, `CreateTable`): its name and an
/// attribute per option it sets, keyed and spelled as HBase's `ColumnFamilyDescriptorBuilder`
/// writes them; the master gives the options left `None` their defaults. No configuration.
pub(crate) fn family_schema(f: &ColumnFamily) -> proto::ColumnFamilySchema {
    proto::ColumnFamilySchema {
        name: Bytes::copy_from_slice(f.name.as_bytes()),
        attributes: declared_attributes(f)
            .iter()
            .map(|(key, value)| pair(key, value))
            .collect(),
        configuration: Vec::new(),
    }
}

/// A family as HBase describes it, every option filled in: an attribute read as HBase's getter
/// reads it, an absent one at HBase's default ([`ColumnFamily::with_hbase_defaults`]), so the
/// result equals the Thrift2 backend's `describe`. A name that is not UTF-8, or a value HBase
/// itself could not read (`VERSIONS` = `"three"`, an unknown compression), is an
/// [`Error::Protocol`].
pub(crate) fn family_from_schema(schema: &proto::ColumnFamilySchema) -> Result<ColumnFamily> {
    let mut family = ColumnFamily::new(utf8(&schema.name, "a family name")?);
    read_options(schema, &mut family)?;
    Ok(family.with_hbase_defaults())
}

/// A table to create: its name, families (see [`family_schema`]) and, for a region
/// replication other than 1, the table attribute `REGION_REPLICATION` = `"3"` as HBase's
/// `TableDescriptorBuilder` writes it; no other attribute, no configuration.
pub(crate) fn table_schema(d: &TableDescriptor) -> proto::TableSchema {
    proto::TableSchema {
        table_name: Some(table_name(&d.name)),
        attributes: d
            .region_replication_attribute()
            .iter()
            .map(|(key, value)| pair(key, value))
            .collect(),
        column_families: d.families.iter().map(family_schema).collect(),
        configuration: Vec::new(),
    }
}

/// A table as `GetTableDescriptors` describes it: its name, its families in HBase's order, each
/// with every option filled in (see [`family_from_schema`]), and its region replication (the
/// table attribute `REGION_REPLICATION`, 1 when absent). A schema without a table name, or
/// with a replication HBase could not have, is an [`Error::Protocol`].
pub(crate) fn descriptor_from_schema(schema: &proto::TableSchema) -> Result<TableDescriptor> {
    let name = schema.table_name.as_ref().ok_or_else(|| Error::Protocol {
        method: METHOD,
        message: "a table schema without its table name".to_string(),
    })?;
    Ok(TableDescriptor {
        name: model_table_name(name)?,
        families: schema
            .column_families
            .iter()
            .map(family_from_schema)
            .collect::<Result<_>>()?,
        region_replication: TableDescriptor::region_replication_from(
            attribute(&schema.attributes, REGION_REPLICATION_KEY),
            METHOD,
        )?,
    })
}

/// The family to send with `ModifyColumn` for the Backend's `merge_family`: `existing` (as
/// `GetTableDescriptors` returned it) with the options `declared` sets written over it, and
/// every other attribute and configuration entry as the server had it, including settings
/// this crate does not model (replication scope, MOB, encryption, cache-on-write...).
/// `ModifyColumn` replaces the whole family, so nothing may be left out. The name is
/// `existing`'s; the caller picks the family by `declared`'s name.
pub(crate) fn merge_family(
    existing: &proto::ColumnFamilySchema,
    declared: &ColumnFamily,
) -> proto::ColumnFamilySchema {
    let mut merged = existing.clone();
    for (key, value) in declared_attributes(declared) {
        merged.attributes.retain(|a| a.first != key.as_bytes());
        merged.attributes.push(pair(key, &value));
    }
    merged
}

/// A namespace to create (`CreateNamespace`): its name, no configuration.
pub(crate) fn namespace_descriptor(name: &str) -> proto::NamespaceDescriptor {
    proto::NamespaceDescriptor {
        name: Bytes::copy_from_slice(name.as_bytes()),
        configuration: Vec::new(),
    }
}
