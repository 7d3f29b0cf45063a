//! Column families and their options. The options are listed once, in
//! [`for_each_family_option!`]: the struct, its builder, merging, the comparison with a live
//! table, the derive's attribute values and the wire conversion are all generated from that
//! list, so a new option is one line there (plus its wire type's conversion if the type is
//! new) and its name in the derive's list of family options (`known.rs` in `hbase-orm-derive`,
//! whose unit test fails while the two lists differ).

use std::fmt;

use super::error::{Error, Result};

/// Calls `$m!` with the list of column-family options: per option its doc, the name of its
/// builder method and of `family_options(f(NAME = ...))` in the derive, its field, its type,
/// and the field of HBase's Thrift2 `TColumnFamilyDescriptor` that carries it.
macro_rules! for_each_family_option {
    ($m:ident) => {
        $m! {
            /// Versions kept per cell.
            max_versions: max_versions: i32 => max_versions;
            /// Versions kept even when expired by TTL.
            min_versions: min_versions: i32 => min_versions;
            /// Seconds a cell lives (`i32::MAX` = forever, HBase's default).
            ttl: time_to_live: i32 => time_to_live;
            /// Store file compression.
            compression: compression: Compression => compression_type;
            /// Bloom filter.
            bloom_filter: bloom_filter: BloomFilter => bloomn_filter_type;
            /// HFile block size in bytes (HBase's default is 65536).
            block_size: block_size: i32 => block_size;
            /// Whether reads fill the block cache.
            block_cache: block_cache: bool => block_cache_enabled;
            /// Give the family's blocks priority in the block cache.
            in_memory: in_memory: bool => in_memory;
            /// Key encoding inside blocks.
            data_block_encoding: data_block_encoding: DataBlockEncoding => data_block_encoding;
            /// Whether deleted cells stay readable by time-range reads.
            keep_deleted_cells: keep_deleted_cells: KeepDeletedCells => keep_deleted_cells;
        }
    };
}
pub(crate) use for_each_family_option;

/// `a == b` ignoring ASCII case, usable in constants.
const fn same_text(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if !a[i].eq_ignore_ascii_case(&b[i]) {
            return false;
        }
        i += 1;
    }
    true
}

/// An option whose values HBase names: the enum, its names, and the constant parser the
/// derive's `family_options(f(NAME = "text"))` calls, which fails the build on an unknown
/// name.
macro_rules! named_option {
    ($(#[$doc:meta])* $name:ident, $option:ident, $what:literal {
        $($(#[$vdoc:meta])* $variant:ident = $text:literal,)*
    }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $name {
            $($(#[$vdoc])* $variant,)*
        }

        impl $name {
            /// Every value, with the name HBase gives it.
            pub const ALL: &'static [($name, &'static str)] = &[$(($name::$variant, $text),)*];

            /// The value HBase calls `name` (any case).
            pub const fn from_name(name: &str) -> Option<$name> {
                $(if same_text(name, $text) {
                    return Some($name::$variant);
                })*
                None
            }

            /// The name HBase gives this value.
            pub const fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }
        }

        impl family_option {
            #[doc = concat!("The ", $what, " named `name`, for the derive (fails the build on an unknown name).")]
            pub const fn $option(name: &str) -> $name {
                match $name::from_name(name) {
                    Some(v) => v,
                    None => panic!(concat!(
                        "unknown ", $what, " in family_options; expected one of:",
                        $(" ", $text,)*
                    )),
                }
            }
        }
    };
}

/// The parsers of the derive's text-valued family options; not for direct use.
#[doc(hidden)]
#[allow(non_camel_case_types)]
pub struct family_option;

named_option! {
    /// Block compression of a column family's store files.
    Compression, compression, "compression" {
        /// No compression.
        None = "NONE",
        /// gzip.
        Gz = "GZ",
        /// Snappy (needs native libraries on the region servers).
        Snappy = "SNAPPY",
        /// LZ4.
        Lz4 = "LZ4",
        /// Zstandard.
        Zstd = "ZSTD",
        /// LZO.
        Lzo = "LZO",
        /// bzip2.
        Bzip2 = "BZIP2",
    }
}

named_option! {
    /// Bloom filter kind of a column family.
    BloomFilter, bloom_filter, "bloom filter" {
        /// No bloom filter.
        None = "NONE",
        /// On row keys (HBase's default).
        Row = "ROW",
        /// On row key + column.
        RowCol = "ROWCOL",
        /// On a fixed-length prefix of the row key.
        RowPrefixFixedLength = "ROWPREFIX_FIXED_LENGTH",
    }
}

named_option! {
    /// In-block key encoding of a column family.
    DataBlockEncoding, data_block_encoding, "data block encoding" {
        /// No encoding.
        None = "NONE",
        /// Prefix encoding.
        Prefix = "PREFIX",
        /// Diff encoding.
        Diff = "DIFF",
        /// Fast diff encoding.
        FastDiff = "FAST_DIFF",
        /// Row index.
        RowIndexV1 = "ROW_INDEX_V1",
    }
}

named_option! {
    /// Whether deleted cells stay readable by time-range reads.
    KeepDeletedCells, keep_deleted_cells, "keep_deleted_cells setting" {
        /// Deleted cells go at the next major compaction.
        False = "FALSE",
        /// Deleted cells are kept (until TTL or max versions).
        True = "TRUE",
        /// Kept until their TTL.
        Ttl = "TTL",
    }
}

/// Folds `b` into `a`; two different values are an error naming both declarers.
fn merge_option<T: PartialEq + Copy + fmt::Debug>(
    a: &mut Option<T>,
    b: Option<T>,
    what: &str,
    family: &str,
    by: (&str, &str),
) -> Result<()> {
    match (*a, b) {
        (Some(x), Some(y)) if x != y => Err(Error::IllegalArgument {
            message: format!(
                "conflicting {what} for family {family}: {} declares {x:?}, {} declares {y:?}",
                by.0, by.1
            ),
        }),
        (None, Some(y)) => {
            *a = Some(y);
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Records `what` in `out` if `declared` is set and differs from `actual`.
fn check<T: PartialEq + fmt::Debug>(
    out: &mut Vec<(&'static str, String, String)>,
    what: &'static str,
    declared: &Option<T>,
    actual: &Option<T>,
) {
    if let Some(d) = declared {
        if actual.as_ref() != Some(d) {
            let a = actual
                .as_ref()
                .map(|a| format!("{a:?}"))
                .unwrap_or_else(|| "unset".into());
            out.push((what, a, format!("{d:?}")));
        }
    }
}

macro_rules! column_family {
    ($($(#[$doc:meta])* $builder:ident: $field:ident: $ty:ty => $wire:ident;)*) => {
        /// A column family and its options. `None` leaves an option at HBase's default when
        /// creating, and is never `None` in a descriptor read back from HBase.
        ///
        /// ```
        /// use hbase_orm::{ColumnFamily, Compression};
        ///
        /// let d = ColumnFamily::new("d").max_versions(3).ttl(86_400).compression(Compression::Gz);
        /// assert_eq!(d.time_to_live, Some(86_400));
        /// ```
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct ColumnFamily {
            /// The family name (keep it short: it is stored with every cell).
            pub name: String,
            $($(#[$doc])* pub $field: Option<$ty>,)*
        }

        impl ColumnFamily {
            /// A family with every option at HBase's default.
            pub fn new(name: impl Into<String>) -> Self {
                ColumnFamily {
                    name: name.into(),
                    $($field: None,)*
                }
            }

            $(
                #[doc = concat!("Sets `", stringify!($field), "`:")]
                $(#[$doc])*
                pub fn $builder(mut self, value: $ty) -> Self {
                    self.$field = Some(value);
                    self
                }
            )*

            /// Folds `other`'s declared options into this family's; conflicting values are an
            /// error naming both declarers.
            pub(crate) fn merge(&mut self, other: &ColumnFamily, by: (&str, &str)) -> Result<()> {
                let f = self.name.clone();
                $(merge_option(&mut self.$field, other.$field, stringify!($builder), &f, by)?;)*
                Ok(())
            }

            /// The options declared here that differ from `actual` (read back from HBase), as
            /// `(option, actual, declared)` texts.
            pub fn differences(&self, actual: &ColumnFamily) -> Vec<(&'static str, String, String)> {
                let mut out = Vec::new();
                $(check(&mut out, stringify!($builder), &self.$field, &actual.$field);)*
                out
            }
        }
    };
}
for_each_family_option!(column_family);

impl ColumnFamily {
    /// This family with every option it leaves unset at HBase's default, as `describe`
    /// shows a family created without it: one version, none kept past the TTL, no TTL, no
    /// compression, a row bloom filter, 64 KiB blocks, block cache on, not in memory, no data
    /// block encoding, deleted cells not kept.
    ///
    /// ```
    /// let d = hbase_orm::ColumnFamily::new("d").max_versions(3).with_hbase_defaults();
    /// assert_eq!((d.max_versions, d.time_to_live, d.block_size), (Some(3), Some(i32::MAX), Some(65_536)));
    /// ```
    pub fn with_hbase_defaults(&self) -> ColumnFamily {
        ColumnFamily {
            name: self.name.clone(),
            max_versions: self.max_versions.or(Some(1)),
            min_versions: self.min_versions.or(Some(0)),
            time_to_live: self.time_to_live.or(Some(i32::MAX)),
            compression: self.compression.or(Some(Compression::None)),
            bloom_filter: self.bloom_filter.or(Some(BloomFilter::Row)),
            block_size: self.block_size.or(Some(65_536)),
            block_cache: self.block_cache.or(Some(true)),
            in_memory: self.in_memory.or(Some(false)),
            data_block_encoding: self.data_block_encoding.or(Some(DataBlockEncoding::None)),
            keep_deleted_cells: self.keep_deleted_cells.or(Some(KeepDeletedCells::False)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_in_any_case() {
        for (v, name) in Compression::ALL {
            assert_eq!(Compression::from_name(name), Some(*v));
            assert_eq!(Compression::from_name(&name.to_lowercase()), Some(*v));
            assert_eq!(v.name(), *name);
        }
        assert_eq!(Compression::from_name("gzip"), None);
        assert_eq!(
            family_option::keep_deleted_cells("ttl"),
            KeepDeletedCells::Ttl
        );
    }

    #[test]
    fn differences_name_the_option_as_declared() {
        let declared = ColumnFamily::new("d").ttl(60).in_memory(true);
        let actual = ColumnFamily::new("d").ttl(60).in_memory(false);
        assert_eq!(
            declared.differences(&actual),
            vec![("in_memory", "false".to_string(), "true".to_string())]
        );
    }
}
