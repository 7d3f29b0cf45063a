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
