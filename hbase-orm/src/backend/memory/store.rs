//! The whole store: namespaces, tables and their regions, the clock, open scanners; and the
//! administration calls on them.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::errors;
use super::scan::Scanner;
use super::table::{Method, Region, TableState};
use crate::model::for_each_family_option;
use crate::model::*;

/// Defines `ColumnFamily::fill_from`, which sets every option left unset from another
/// family, over the list of options.
macro_rules! keep_unset_options {
    ($($(#[$doc:meta])* $builder:ident: $field:ident: $ty:ty => $wire:ident;)*) => {
        impl ColumnFamily {
            /// Sets every option left unset here to `other`'s value.
            fn fill_from(&mut self, other: &ColumnFamily) {
                $(self.$field = self.$field.or(other.$field);)*
            }
        }
    };
}
for_each_family_option!(keep_unset_options);

/// Namespaces every HBase has.
const BUILT_IN_NAMESPACES: [&str; 2] = ["default", "hbase"];

/// Everything the store holds, behind the backend's one lock.
#[derive(Debug)]
pub(super) struct Store {
    /// Namespace names.
    namespaces: BTreeSet<String>,
    /// Tables by name.
    tables: BTreeMap<TableName, TableState>,
    /// Open scanners by id.
    pub(super) scanners: HashMap<i32, Scanner>,
    /// The id the next scanner gets.
    next_scanner: i32,
    /// The id the next region gets.
    next_region: i64,
    /// The last timestamp handed to a mutation.
    last_stamp: i64,
    /// Whether the balancer is switched on (it has nothing to do: the store is one server).
    pub(super) balancer_on: bool,
}

/// The store's one region server, as [`crate::Admin::region_servers`] names it (every
/// region's location has it for host).
pub(super) const SERVER: &str = "localhost";

/// The wall clock in milliseconds since the epoch.
fn wall_clock() -> i64 {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    i64::try_from(since.as_millis()).unwrap_or(i64::MAX)
}

impl Store {
    /// An empty store with HBase's built-in namespaces.
    pub(super) fn new() -> Store {
        Store {
            namespaces: BUILT_IN_NAMESPACES.iter().map(|s| s.to_string()).collect(),
            tables: BTreeMap::new(),
            scanners: HashMap::new(),
            next_scanner: 1,
            next_region: wall_clock(),
            last_stamp: 0,
            balancer_on: true,
        }
    }

    /// The current time for reads (TTLs): the wall clock, never behind a stamp handed out.
    pub(super) fn now(&self) -> i64 {
        wall_clock().max(self.last_stamp)
    }

    /// A timestamp for a mutation: the wall clock, but always after the previous stamp, so
    /// that a write made after a delete is never masked by it for falling in the same
    /// millisecond.
    pub(super) fn stamp(&mut self) -> i64 {
        self.last_stamp = wall_clock().max(self.last_stamp.saturating_add(1));
        self.last_stamp
    }

    /// A new scanner id.
    pub(super) fn scanner_id(&mut self) -> i32 {
        let id = self.next_scanner;
        self.next_scanner = self.next_scanner.checked_add(1).unwrap_or(1);
        id
    }

    /// The table, whatever its state.
    pub(super) fn table(&self, name: &TableName) -> Result<&TableState> {
        self.tables
            .get(name)
            .ok_or_else(|| errors::table_not_found(name))
    }

    /// The table, whatever its state, to change it.
    fn table_mut(&mut self, name: &TableName) -> Result<&mut TableState> {
        self.tables
            .get_mut(name)
            .ok_or_else(|| errors::table_not_found(name))
    }

    /// The table for a data call: it must exist and be enabled.
    pub(super) fn serving(&self, method: Method, name: &TableName) -> Result<&TableState> {
        let table = self.table(name)?;
        if !table.enabled {
            return Err(errors::table_disabled(method, name));
        }
        Ok(table)
    }

    /// [`Store::serving`], to write.
    pub(super) fn serving_mut(
        &mut self,
        method: Method,
        name: &TableName,
    ) -> Result<&mut TableState> {
        let table = self.table_mut(name)?;
        if !table.enabled {
            return Err(errors::table_disabled(method, name));
        }
        Ok(table)
    }

    /// The table for an admin call that needs it disabled.
    fn disabled_mut(&mut self, method: Method, name: &TableName) -> Result<&mut TableState> {
        let table = self.table_mut(name)?;
        if table.enabled {
            return Err(errors::table_not_disabled(method, name));
        }
        Ok(table)
    }

    /// Regions with new ids, split at `split_keys`.
    fn regions(&mut self, split_keys: &[Vec<u8>]) -> Vec<Region> {
        std::iter::once(Vec::new())
            .chain(split_keys.iter().cloned())
            .map(|start| {
                self.next_region += 1;
                Region {
                    start,
                    id: self.next_region,
                }
            })
            .collect()
    }

    /// Creates a namespace.
    pub(super) fn create_namespace(&mut self, name: &str) -> Result<()> {
        if !self.namespaces.insert(name.to_string()) {
            return Err(Error::AlreadyExists {
                what: format!("Namespace {name} already exists"),
            });
        }
        Ok(())
    }

    /// Whether the namespace exists.
    pub(super) fn namespace_exists(&self, name: &str) -> bool {
        self.namespaces.contains(name)
    }

    /// Every namespace, sorted.
    pub(super) fn list_namespaces(&self) -> Vec<String> {
        self.namespaces.iter().cloned().collect()
    }

    /// Deletes an empty namespace other than the built-in ones.
    pub(super) fn delete_namespace(&mut self, name: &str) -> Result<()> {
        let method = "deleteNamespace";
        if !self.namespaces.contains(name) {
            return Err(errors::namespace_not_found(name));
        }
        if BUILT_IN_NAMESPACES.contains(&name) {
            return Err(errors::server(
                method,
                "constraint.ConstraintException",
                format!("Reserved namespace {name} cannot be removed."),
            ));
        }
        let tables = self.tables.keys().filter(|t| t.namespace == name).count();
        if tables > 0 {
            return Err(errors::server(
                method,
                "constraint.ConstraintException",
                format!(
                    "Only empty namespaces can be removed. Namespace {name} has {tables} tables"
                ),
            ));
        }
        self.namespaces.remove(name);
        Ok(())
    }

    /// Creates a table with its families' options filled in as HBase fills them.
    pub(super) fn create_table(
        &mut self,
        table: &TableDescriptor,
        split_keys: &[Vec<u8>],
    ) -> Result<()> {
        if !self.namespaces.contains(&table.name.namespace) {
            return Err(errors::namespace_not_found(&table.name.namespace));
        }
        if self.tables.contains_key(&table.name) {
            return Err(Error::AlreadyExists {
                what: table.name.full_name(),
            });
        }
        let mut names = BTreeSet::new();
        if let Some(dup) = table.families.iter().find(|f| !names.insert(&f.name)) {
            return Err(Error::IllegalArgument {
                message: format!(
                    "table {}: family {} is declared twice",
                    table.name, dup.name
                ),
            });
        }
        let descriptor = TableDescriptor {
            name: table.name.clone(),
            families: table
                .families
                .iter()
                .map(ColumnFamily::with_hbase_defaults)
                .collect(),
            region_replication: table.region_replication,
        };
        let regions = self.regions(split_keys);
        self.tables
            .insert(table.name.clone(), TableState::new(descriptor, regions));
        Ok(())
    }

    /// Whether the table exists.
    pub(super) fn table_exists(&self, name: &TableName) -> bool {
        self.tables.contains_key(name)
    }

    /// Tables of a namespace, or every table outside the `hbase` namespace.
    pub(super) fn list_tables(&self, namespace: Option<&str>) -> Result<Vec<TableName>> {
        if let Some(ns) = namespace {
            if !self.namespaces.contains(ns) {
                return Err(errors::namespace_not_found(ns));
            }
        }
        let wanted = |t: &&TableName| match namespace {
            Some(ns) => t.namespace == ns,
            None => t.namespace != "hbase",
        };
        Ok(self.tables.keys().filter(wanted).cloned().collect())
    }

    /// Enables a disabled table.
    pub(super) fn enable_table(&mut self, name: &TableName) -> Result<()> {
        let table = self.table_mut(name)?;
        if table.enabled {
            return Err(errors::server(
                "enableTable",
                "TableNotDisabledException",
                format!("tableName={}, state=ENABLED", name.full_name()),
            ));
        }
        table.enabled = true;
        Ok(())
    }

    /// Disables an enabled table.
    pub(super) fn disable_table(&mut self, name: &TableName) -> Result<()> {
        let table = self.table_mut(name)?;
        if !table.enabled {
            return Err(errors::table_not_enabled("disableTable", name));
        }
        table.enabled = false;
        Ok(())
    }

    /// Empties a disabled table (new regions, split as before or not) and enables it.
    pub(super) fn truncate_table(&mut self, name: &TableName, preserve_splits: bool) -> Result<()> {
        let table = self.disabled_mut("truncateTable", name)?;
        let splits: Vec<Vec<u8>> = if preserve_splits {
            table
                .regions
                .iter()
                .skip(1)
                .map(|r| r.start.clone())
                .collect()
        } else {
            Vec::new()
        };
        let regions = self.regions(&splits);
        let table = self.table_mut(name)?;
        table.clear();
        table.regions = regions;
        table.enabled = true;
        Ok(())
    }

    /// Drops a disabled table; its open scanners fail from now on.
    pub(super) fn delete_table(&mut self, name: &TableName) -> Result<()> {
        self.disabled_mut("deleteTable", name)?;
        self.tables.remove(name);
        Ok(())
    }

    /// Adds a family to a table.
    pub(super) fn add_family(&mut self, name: &TableName, family: &ColumnFamily) -> Result<()> {
        let table = self.table_mut(name)?;
        if table.descriptor.get_family(&family.name).is_some() {
            return Err(errors::invalid_family(
                "addColumnFamily",
                format!(
                    "Column family '{}' in table '{}' already exists so cannot be added",
                    family.name,
                    name.full_name()
                ),
            ));
        }
        table.descriptor.families.push(family.with_hbase_defaults());
        Ok(())
    }

    /// The family `family` of a table, to change it.
    fn family_mut(
        &mut self,
        method: Method,
        name: &TableName,
        family: &str,
        doing: &str,
    ) -> Result<&mut ColumnFamily> {
        let table = self.table_mut(name)?;
        table
            .descriptor
            .families
            .iter_mut()
            .find(|f| f.name == family)
            .ok_or_else(|| {
                errors::invalid_family(
                    method,
                    format!("Family '{family}' does not exist, so it cannot be {doing}"),
                )
            })
    }

    /// Replaces a family's options (those unset go back to the defaults); keeps its data.
    pub(super) fn modify_family(&mut self, name: &TableName, family: &ColumnFamily) -> Result<()> {
        let slot = self.family_mut("modifyColumnFamily", name, &family.name, "modified")?;
        *slot = family.with_hbase_defaults();
        Ok(())
    }

    /// Sets the options `declared` gives and keeps the others.
    pub(super) fn merge_family(&mut self, name: &TableName, declared: &ColumnFamily) -> Result<()> {
        self.table(name)?;
        let slot = self
            .family_mut("modifyColumnFamily", name, &declared.name, "modified")
            .map_err(|_| Error::IllegalArgument {
                message: format!("table {name} has no family {}", declared.name),
            })?;
        let mut merged = declared.clone();
        merged.fill_from(slot);
        *slot = merged;
        Ok(())
    }

    /// Drops a family and its data; a table keeps at least one family.
    pub(super) fn delete_family(&mut self, name: &TableName, family: &str) -> Result<()> {
        let method = "deleteColumnFamily";
        self.family_mut(method, name, family, "deleted")?;
        let table = self.table_mut(name)?;
        if table.descriptor.families.len() == 1 {
            return Err(errors::invalid_family(
                method,
                format!("Family '{family}' is the only column family in the table, so it cannot be deleted"),
            ));
        }
        table.descriptor.families.retain(|f| f.name != family);
        table.drop_family_data(family);
        Ok(())
    }

    /// Splits the region holding `key` at it; a key that starts a region already is refused,
    /// as HBase refuses it.
    pub(super) fn split_region(&mut self, name: &TableName, key: &[u8]) -> Result<()> {
        self.next_region += 1;
        let id = self.next_region;
        let table = self.table_mut(name)?;
        let at = table.regions.partition_point(|r| r.start[..] <= *key);
        if table.regions[at - 1].start[..] == *key {
            return Err(errors::split_at_region_start(name, key));
        }
        let region = Region {
            start: key.to_vec(),
            id,
        };
        table.regions.insert(at, region);
        Ok(())
    }

    /// Every region of a table (none for a missing table, as the gateway answers).
    pub(super) fn region_locations(&self, name: &TableName) -> Vec<RegionLocation> {
        let Some(table) = self.tables.get(name) else {
            return Vec::new();
        };
        let ends = table.regions.iter().skip(1).map(|r| r.start.clone());
        table
            .regions
            .iter()
            .zip(ends.chain(std::iter::once(Vec::new())))
            .map(|(region, end)| RegionLocation {
                start_key: region.start.clone(),
                end_key: end,
                region_id: region.id,
                host: SERVER.into(),
                port: None,
            })
            .collect()
    }
}
