//! Tables and where their regions live, as the project's own types.

use std::fmt;

use super::error::{Error, Result};
use super::family::ColumnFamily;

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
        let table = TableName::new(ns, name);
        table.check().map(|()| table)
    }

    /// Whether HBase accepts this name: a namespace of letters, digits and `_`, a table of
    /// letters, digits, `_`, `-` and `.` not starting with `.` or `-`.
    ///
    /// ```
    /// use hbase_orm::TableName;
    /// assert!(TableName::new("shop", "orders_2026.v1").check().is_ok());
    /// assert!(TableName::new("default", "bad name!").check().is_err());
    /// ```
    pub fn check(&self) -> Result<()> {
        TableName::check_namespace(&self.namespace)?;
        let name_ok = !self.name.is_empty()
            && !self.name.starts_with(['.', '-'])
            && self
                .name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b));
        if name_ok {
            return Ok(());
        }
        Err(Error::IllegalArgument {
            message: format!(
                "{:?} (of table {self}) is not a valid table name: a table name uses letters, \
                 digits, '_', '-' and '.', and does not start with '.' or '-'",
                self.name
            ),
        })
    }

    /// Whether HBase accepts `namespace` as a namespace name: letters, digits and `_`.
    pub(crate) fn check_namespace(namespace: &str) -> Result<()> {
        let ok = !namespace.is_empty()
            && namespace
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if ok {
            return Ok(());
        }
        Err(Error::IllegalArgument {
            message: format!(
                "{namespace:?} is not a valid namespace name: a namespace uses letters, digits \
                 and '_' only{}",
                if namespace.contains('-') {
                    format!(" (e.g. {:?})", namespace.replace('-', "_"))
                } else {
                    String::new()
                }
            ),
        })
    }
}

impl TableName {
    /// `e` with the gateway's way of reporting this table missing (a message that is just the
    /// table's name, HBase's `TableNotFoundException` text without its class) turned into
    /// [`Error::TableNotFound`].
    #[cfg_attr(not(any(feature = "thrift2", feature = "thrift1")), allow(dead_code))] // the gateways'
    pub(crate) fn recognise_missing(&self, e: Error) -> Error {
        match e {
            Error::Server { ref message, .. } => {
                let m = message.trim();
                let full = self.full_name();
                if m == full || m == self.to_string() {
                    Error::TableNotFound { table: full }
                } else {
                    e
                }
            }
            other => other,
        }
    }
}

impl TableName {
    /// `namespace:table`, always with the namespace: the form the gateways take and HBase's
    /// messages use.
    pub(crate) fn full_name(&self) -> String {
        format!("{}:{}", self.namespace, self.name)
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

/// HBase's table attribute of the region replication (`TableDescriptorBuilder`'s
/// `REGION_REPLICATION`).
#[cfg_attr(not(any(feature = "thrift2", feature = "native")), allow(dead_code))] // theirs
pub(crate) const REGION_REPLICATION_KEY: &str = "REGION_REPLICATION";

/// A table: its name, column families and region replication.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableDescriptor {
    /// The table's name.
    pub name: TableName,
    /// Its column families.
    pub families: Vec<ColumnFamily>,
    /// How many replicas each region has, the primary included: 1 (HBase's default) is no
    /// read replicas, 3 is a primary and two read-only secondaries on other servers (the
    /// shell's `REGION_REPLICATION`). 1 to [`TableDescriptor::MAX_REGION_REPLICATION`].
    pub region_replication: u32,
}

impl TableDescriptor {
    /// The most replicas a region can have: HBase numbers a region's replicas 0 to `0xFFFF`.
    pub const MAX_REGION_REPLICATION: u32 = 0x1_0000;

    /// A table with no families yet and no region replicas (replication 1).
    pub fn new(name: TableName) -> Self {
        TableDescriptor {
            name,
            families: Vec::new(),
            region_replication: 1,
        }
    }

    /// Sets how many replicas each region has, the primary included (1, the default, is none;
    /// 1 to [`TableDescriptor::MAX_REGION_REPLICATION`], else creating the table is an
    /// [`Error::IllegalArgument`]). The secondaries serve timeline-consistent reads from other
    /// region servers. The Thrift1 gateway cannot create such a table
    /// ([`Error::Unsupported`]).
    ///
    /// ```
    /// use hbase_orm::{ColumnFamily, TableDescriptor, TableName};
    /// let orders = TableDescriptor::new(TableName::new("shop", "orders"))
    ///     .family(ColumnFamily::new("d"))
    ///     .region_replication(3); // a primary and two secondaries per region
    /// assert_eq!(orders.region_replication, 3);
    /// ```
    pub fn region_replication(mut self, replicas: u32) -> Self {
        self.region_replication = replicas;
        self
    }

    /// The table attribute that carries the region replication to HBase, as
    /// `TableDescriptorBuilder.setRegionReplication` writes it: [`REGION_REPLICATION_KEY`] and
    /// the number in decimal (`"3"`). None for 1, HBase's default, as for a table built
    /// without the setter.
    #[cfg_attr(not(any(feature = "thrift2", feature = "native")), allow(dead_code))] // theirs
    pub(crate) fn region_replication_attribute(&self) -> Option<(&'static str, String)> {
        (self.region_replication != 1)
            .then(|| (REGION_REPLICATION_KEY, self.region_replication.to_string()))
    }

    /// The region replication from the value of its table attribute as HBase's getter reads
    /// it (`Integer.valueOf` of the text; absent or empty is 1). A value that is no number of
    /// replicas HBase allows is an [`Error::Protocol`] naming `method`, the call it came with.
    #[cfg_attr(not(any(feature = "thrift2", feature = "native")), allow(dead_code))] // theirs
    pub(crate) fn region_replication_from(
        value: Option<&[u8]>,
        method: &'static str,
    ) -> Result<u32> {
        let Some(raw) = value.filter(|v| !v.is_empty()) else {
            return Ok(1);
        };
        let text = String::from_utf8_lossy(raw);
        text.parse::<u32>()
            .ok()
            .filter(|n| (1..=Self::MAX_REGION_REPLICATION).contains(n))
            .ok_or_else(|| Error::Protocol {
                method,
                message: format!(
                    "table attribute {REGION_REPLICATION_KEY} = {text:?} is not a number of \
                     replicas (1 to {})",
                    Self::MAX_REGION_REPLICATION
                ),
            })
    }

    /// [`Error::IllegalArgument`] unless the region replication is 1 to
    /// [`TableDescriptor::MAX_REGION_REPLICATION`] (HBase's master refuses 0).
    pub(crate) fn check_region_replication(&self) -> Result<()> {
        if (1..=Self::MAX_REGION_REPLICATION).contains(&self.region_replication) {
            return Ok(());
        }
        Err(Error::IllegalArgument {
            message: format!(
                "table {}: region replication {} is not 1 to {} (replicas per region, the \
                 primary included)",
                self.name,
                self.region_replication,
                Self::MAX_REGION_REPLICATION
            ),
        })
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
