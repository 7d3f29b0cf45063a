//! Table, column family and namespace descriptions, as the project's own types.

use std::fmt;

use crate::error::{Error, Result};

/// A table's full name: namespace and qualifier. `"orders"` is in namespace `default`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TableName {
    /// The namespace (`default` when none is given).
    pub namespace: String,
    /// The table's name inside the namespace.
    pub name: String,
}

impl TableName {
    /// A table in a namespace.
    pub fn new(namespace: impl Into<String>, name: impl Into<String>) -> Self {
        TableName {
            namespace: namespace.into(),
            name: name.into(),
        }
    }

    /// Parses `namespace:table` or `table` (namespace `default`).
    pub fn parse(s: &str) -> Result<TableName> {
        let (ns, name) = s.split_once(':').unwrap_or(("default", s));
        let ok = |part: &str| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b))
        };
        if !ok(ns) || !ok(name) {
            return Err(Error::IllegalArgument {
                message: format!(
                    "{s:?} is not a valid table name: use [namespace:]table with letters, digits, \
                     '_', '-' and '.'"
                ),
            });
        }
        Ok(TableName::new(ns, name))
    }
}

impl fmt::Display for TableName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.namespace == "default" {
            f.write_str(&self.name)
        } else {
            write!(f, "{}:{}", self.namespace, self.name)
        }
    }
}

/// Block compression of a column family's store files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// No compression.
    None,
    /// gzip.
    Gz,
    /// Snappy (needs native libraries on the region servers).
    Snappy,
    /// LZ4.
    Lz4,
    /// Zstandard.
    Zstd,
    /// LZO.
    Lzo,
    /// bzip2.
    Bzip2,
}

/// Bloom filter kind of a column family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BloomFilter {
    /// No bloom filter.
    None,
    /// On row keys (HBase's default).
    Row,
    /// On row key + column.
    RowCol,
    /// On a fixed-length prefix of the row key.
    RowPrefixFixedLength,
}

/// In-block key encoding of a column family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataBlockEncoding {
    /// No encoding.
    None,
    /// Prefix encoding.
    Prefix,
    /// Diff encoding.
    Diff,
    /// Fast diff encoding.
    FastDiff,
    /// Row index.
    RowIndexV1,
}

/// Whether deleted cells stay readable by time-range reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeepDeletedCells {
    /// Deleted cells go at the next major compaction.
    False,
    /// Deleted cells are kept (until TTL or max versions).
    True,
    /// Kept until their TTL.
    Ttl,
}

/// A column family and its options. `None` leaves an option at HBase's default when creating,
/// and is never `None` in a descriptor read back from HBase.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnFamily {
    /// The family name (keep it short: it is stored with every cell).
    pub name: String,
    /// Versions kept per cell.
    pub max_versions: Option<i32>,
    /// Versions kept even past the TTL.
    pub min_versions: Option<i32>,
    /// Seconds a cell lives (`i32::MAX` = forever, HBase's default).
    pub time_to_live: Option<i32>,
    /// Store file compression.
    pub compression: Option<Compression>,
    /// Bloom filter.
    pub bloom_filter: Option<BloomFilter>,
    /// HFile block size in bytes (HBase's default is 65536).
    pub block_size: Option<i32>,
    /// Whether reads fill the block cache.
    pub block_cache: Option<bool>,
    /// Give the family's blocks priority in the block cache.
    pub in_memory: Option<bool>,
    /// Key encoding inside blocks.
    pub data_block_encoding: Option<DataBlockEncoding>,
    /// Whether deleted cells stay readable by time-range reads.
    pub keep_deleted_cells: Option<KeepDeletedCells>,
}

impl ColumnFamily {
    /// A family with every option at HBase's default.
    pub fn new(name: impl Into<String>) -> Self {
        ColumnFamily {
            name: name.into(),
            max_versions: None,
            min_versions: None,
            time_to_live: None,
            compression: None,
            bloom_filter: None,
            block_size: None,
            block_cache: None,
            in_memory: None,
            data_block_encoding: None,
            keep_deleted_cells: None,
        }
    }

    /// Keeps up to `n` versions per cell.
    pub fn max_versions(mut self, n: i32) -> Self {
        self.max_versions = Some(n);
        self
    }

    /// Keeps at least `n` versions even when expired by TTL.
    pub fn min_versions(mut self, n: i32) -> Self {
        self.min_versions = Some(n);
        self
    }

    /// Cells expire after `seconds`.
    pub fn time_to_live(mut self, seconds: i32) -> Self {
        self.time_to_live = Some(seconds);
        self
    }

    /// Compresses store files.
    pub fn compression(mut self, c: Compression) -> Self {
        self.compression = Some(c);
        self
    }

    /// Sets the bloom filter.
    pub fn bloom_filter(mut self, b: BloomFilter) -> Self {
        self.bloom_filter = Some(b);
        self
    }

    /// Sets the HFile block size in bytes.
    pub fn block_size(mut self, bytes: i32) -> Self {
        self.block_size = Some(bytes);
        self
    }

    /// Turns the block cache on or off for this family.
    pub fn block_cache(mut self, on: bool) -> Self {
        self.block_cache = Some(on);
        self
    }

    /// Gives the family priority in the block cache.
    pub fn in_memory(mut self, on: bool) -> Self {
        self.in_memory = Some(on);
        self
    }

    /// Sets the key encoding inside blocks.
    pub fn data_block_encoding(mut self, e: DataBlockEncoding) -> Self {
        self.data_block_encoding = Some(e);
        self
    }

    /// Keeps deleted cells readable by time-range reads.
    pub fn keep_deleted_cells(mut self, k: KeepDeletedCells) -> Self {
        self.keep_deleted_cells = Some(k);
        self
    }
}

/// A table: its name and column families.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableDescriptor {
    /// The table's name.
    pub name: TableName,
    /// Its column families.
    pub families: Vec<ColumnFamily>,
}

impl TableDescriptor {
    /// A table with no families yet.
    pub fn new(name: TableName) -> Self {
        TableDescriptor {
            name,
            families: Vec::new(),
        }
    }

    /// Adds a column family.
    pub fn family(mut self, family: ColumnFamily) -> Self {
        self.families.push(family);
        self
    }

    /// The family called `name`, if the table has it.
    pub fn get_family(&self, name: &str) -> Option<&ColumnFamily> {
        self.families.iter().find(|f| f.name == name)
    }
}

/// Where one region of a table lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionLocation {
    /// First row key of the region (empty for the first region).
    pub start_key: Vec<u8>,
    /// First row key after the region (empty for the last region).
    pub end_key: Vec<u8>,
    /// HBase's region id.
    pub region_id: i64,
    /// Host of the region server.
    pub host: String,
    /// Port of the region server.
    pub port: Option<i32>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_names_parse_and_print_like_hbase() {
        let t = TableName::parse("shop:orders").unwrap();
        assert_eq!((t.namespace.as_str(), t.name.as_str()), ("shop", "orders"));
        assert_eq!(t.to_string(), "shop:orders");
        let t = TableName::parse("orders").unwrap();
        assert_eq!(t.namespace, "default");
        assert_eq!(t.to_string(), "orders");
        assert!(TableName::parse("bad name").is_err());
        assert!(TableName::parse("ns:").is_err());
    }
}
