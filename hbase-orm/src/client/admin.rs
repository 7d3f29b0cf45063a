//! Namespace and table administration.

use super::Client;
use crate::error::{Error, Result};
use crate::schema::{
    ColumnFamily, EnsureReport, OptionChange, RegionLocation, TableDescriptor, TableName,
    TableSchema,
};
use crate::thrift2::convert;
use crate::thrift2::generated::thbase::*;

/// Creates, inspects and removes namespaces and tables. Cheap to clone.
///
/// ```no_run
/// # async fn demo(client: hbase_orm::Client) -> hbase_orm::Result<()> {
/// use hbase_orm::{ColumnFamily, TableDescriptor, TableName};
/// let admin = client.admin();
/// admin.create_namespace("shop").await?;
/// let orders = TableDescriptor::new(TableName::new("shop", "orders"))
///     .family(ColumnFamily::new("d").max_versions(3));
/// admin.create_table(&orders, &[b"m".to_vec()]).await?; // two regions: [..m) and [m..)
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct Admin {
    client: Client,
}

impl Admin {
    pub(super) fn new(client: Client) -> Self {
        Admin { client }
    }

    /// Creates a namespace; [`Error::AlreadyExists`] if it exists.
    pub async fn create_namespace(&self, name: &str) -> Result<()> {
        TableName::new(name, "t").check()?;
        let args = THBaseServiceCreateNamespaceArgs {
            namespace_desc: TNamespaceDescriptor {
                name: name.to_string(),
                configuration: None,
            },
        };
        self.client.call(&args).await
    }

    /// Whether the namespace exists.
    pub async fn namespace_exists(&self, name: &str) -> Result<bool> {
        let args = THBaseServiceGetNamespaceDescriptorArgs {
            name: name.to_string(),
        };
        match self.client.call(&args).await {
            Ok(_) => Ok(true),
            Err(Error::NamespaceNotFound { .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Names of all namespaces.
    pub async fn list_namespaces(&self) -> Result<Vec<String>> {
        self.client.call(&THBaseServiceListNamespacesArgs {}).await
    }

    /// Deletes an empty namespace; HBase refuses while it still has tables.
    pub async fn delete_namespace(&self, name: &str) -> Result<()> {
        let args = THBaseServiceDeleteNamespaceArgs {
            name: name.to_string(),
        };
        self.client.call(&args).await
    }

    /// Creates a table, pre-split at `split_keys` (empty: one region). The namespace must exist.
    pub async fn create_table(
        &self,
        table: &TableDescriptor,
        split_keys: &[Vec<u8>],
    ) -> Result<()> {
        table.name.check()?;
        if table.families.is_empty() {
            return Err(Error::IllegalArgument {
                message: format!("table {} needs at least one column family", table.name),
            });
        }
        let mut splits = split_keys.to_vec();
        splits.sort();
        splits.dedup();
        if splits.iter().any(|k| k.is_empty()) {
            return Err(Error::IllegalArgument {
                message: format!("table {}: a split key may not be empty", table.name),
            });
        }
        let args = THBaseServiceCreateTableArgs {
            desc: convert::table_descriptor(table),
            split_keys: splits,
        };
        self.client.call(&args).await
    }

    /// Whether the table exists.
    pub async fn table_exists(&self, table: &TableName) -> Result<bool> {
        let args = THBaseServiceTableExistsArgs {
            table_name: convert::table_name(table),
        };
        self.call_on(table, &args).await
    }

    /// The table's descriptor as HBase has it, every family option filled in.
    pub async fn describe(&self, table: &TableName) -> Result<TableDescriptor> {
        let args = THBaseServiceGetTableDescriptorArgs {
            table: convert::table_name(table),
        };
        convert::table_descriptor_from(self.call_on(table, &args).await?)
    }

    /// Tables of one namespace, or every user table when `namespace` is `None`.
    pub async fn list_tables(&self, namespace: Option<&str>) -> Result<Vec<TableName>> {
        let names = match namespace {
            Some(ns) => {
                let args = THBaseServiceGetTableNamesByNamespaceArgs {
                    name: ns.to_string(),
                };
                self.client.call(&args).await?
            }
            None => {
                let args = THBaseServiceGetTableNamesByPatternArgs {
                    regex: ".*".to_string(),
                    include_sys_tables: false,
                };
                self.client.call(&args).await?
            }
        };
        names.into_iter().map(convert::table_name_from).collect()
    }

    /// Enables a disabled table.
    pub async fn enable_table(&self, table: &TableName) -> Result<()> {
        let args = THBaseServiceEnableTableArgs {
            table_name: convert::table_name(table),
        };
        self.call_on(table, &args).await
    }

    /// Disables a table (it stops serving reads and writes).
    pub async fn disable_table(&self, table: &TableName) -> Result<()> {
        let args = THBaseServiceDisableTableArgs {
            table_name: convert::table_name(table),
        };
        self.call_on(table, &args).await
    }

    /// Whether the table is enabled.
    pub async fn is_table_enabled(&self, table: &TableName) -> Result<bool> {
        let args = THBaseServiceIsTableEnabledArgs {
            table_name: convert::table_name(table),
        };
        self.call_on(table, &args).await
    }

    /// Removes every row, keeping the table (and its region boundaries when
    /// `preserve_splits`). Disables the table first if needed, as HBase requires; the table
    /// is enabled again afterwards.
    pub async fn truncate_table(&self, table: &TableName, preserve_splits: bool) -> Result<()> {
        self.ensure_disabled(table).await?;
        let args = THBaseServiceTruncateTableArgs {
            table_name: convert::table_name(table),
            preserve_splits,
        };
        self.call_on(table, &args).await
    }

    /// Drops the table and all its data, disabling it first if needed.
    pub async fn delete_table(&self, table: &TableName) -> Result<()> {
        self.ensure_disabled(table).await?;
        let args = THBaseServiceDeleteTableArgs {
            table_name: convert::table_name(table),
        };
        self.call_on(table, &args).await
    }

    /// One call about `table` (a bare table-name error becomes [`Error::TableNotFound`]).
    async fn call_on<R: crate::thrift2::rpc::Rpc>(
        &self,
        table: &TableName,
        args: &R,
    ) -> Result<R::Reply> {
        self.client
            .call(args)
            .await
            .map_err(|e| table.recognise_missing(e))
    }

    async fn ensure_disabled(&self, table: &TableName) -> Result<()> {
        if self.is_table_enabled(table).await? {
            self.disable_table(table).await?;
        }
        Ok(())
    }

    /// Adds a column family to an existing table.
    pub async fn add_family(&self, table: &TableName, family: &ColumnFamily) -> Result<()> {
        let args = THBaseServiceAddColumnFamilyArgs {
            table_name: convert::table_name(table),
            column: convert::family(family),
        };
        self.call_on(table, &args).await
    }

    /// Changes the options of an existing column family (options left `None` are reset to
    /// HBase's defaults by the gateway, so pass the full family).
    pub async fn modify_family(&self, table: &TableName, family: &ColumnFamily) -> Result<()> {
        let args = THBaseServiceModifyColumnFamilyArgs {
            table_name: convert::table_name(table),
            column: convert::family(family),
        };
        self.call_on(table, &args).await
    }

    /// Applies the options `declared` sets to an existing family, leaving every other setting
    /// of the family as HBase has it, including settings this crate does not model
    /// (replication scope, configuration, MOB and cache-on-write attributes): the family's
    /// descriptor is read as the gateway sends it and only the declared options are replaced.
    /// (`modifyColumnFamily` resets whatever it is not given.)
    async fn modify_family_keeping_the_rest(
        &self,
        table: &TableName,
        declared: &ColumnFamily,
    ) -> Result<()> {
        let args = THBaseServiceGetTableDescriptorArgs {
            table: convert::table_name(table),
        };
        let raw = self.call_on(table, &args).await?;
        let mut family = raw
            .columns
            .into_iter()
            .flatten()
            .find(|f| f.name == declared.name.as_bytes())
            .ok_or_else(|| Error::IllegalArgument {
                message: format!("table {table} has no family {}", declared.name),
            })?;
        convert::overlay_family(&mut family, declared);
        let args = THBaseServiceModifyColumnFamilyArgs {
            table_name: convert::table_name(table),
            column: family,
        };
        self.call_on(table, &args).await
    }

    /// Drops a column family and all its data.
    pub async fn delete_family(&self, table: &TableName, family: &str) -> Result<()> {
        let args = THBaseServiceDeleteColumnFamilyArgs {
            table_name: convert::table_name(table),
            column: family.as_bytes().to_vec(),
        };
        self.call_on(table, &args).await
    }

    /// Every region of the table with its key range and server, in key order.
    pub async fn region_locations(&self, table: &TableName) -> Result<Vec<RegionLocation>> {
        let args = THBaseServiceGetAllRegionLocationsArgs {
            table: convert::table_bytes(table),
        };
        let mut regions: Vec<RegionLocation> = self
            .call_on(table, &args)
            .await?
            .into_iter()
            .map(convert::region_location)
            .collect();
        regions.sort_by(|a, b| a.start_key.cmp(&b.start_key));
        Ok(regions)
    }

    /// Ensures several schemas at once: schemas of one table (record types sharing it) are
    /// merged first, and conflicting declarations are an error naming both entity types
    /// before anything is changed.
    pub async fn ensure_all(&self, schemas: Vec<TableSchema>) -> Result<Vec<EnsureReport>> {
        let mut reports = Vec::new();
        for schema in TableSchema::merge_all(schemas)? {
            reports.push(self.ensure_schema(&schema).await?);
        }
        Ok(reports)
    }

    /// Makes HBase match `schema` without losing anything: creates the namespace and the
    /// table (with its split keys) if absent; on an existing table adds missing families and
    /// brings declared family options in line. Families HBase has but the schema does not are
    /// reported, never dropped; region boundaries of an existing table are compared, never
    /// changed. Running it twice changes nothing the second time.
    ///
    /// Dropping data takes the explicit calls [`Admin::delete_family`] and
    /// [`Admin::delete_table`].
    pub async fn ensure_schema(&self, schema: &TableSchema) -> Result<EnsureReport> {
        let name = &schema.descriptor.name;
        let mut report = EnsureReport {
            table: Some(name.clone()),
            ..EnsureReport::default()
        };
        if !self.namespace_exists(&name.namespace).await? {
            match self.create_namespace(&name.namespace).await {
                Ok(()) => report.created_namespace = true,
                Err(Error::AlreadyExists { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        if !self.table_exists(name).await? {
            match self
                .create_table(&schema.descriptor, &schema.split_keys)
                .await
            {
                Ok(()) => {
                    report.created_table = true;
                    return Ok(report);
                }
                // Created meanwhile by someone else: compare with it below.
                Err(Error::AlreadyExists { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        let actual = self.describe(name).await?;
        for declared in &schema.descriptor.families {
            match actual.get_family(&declared.name) {
                None => {
                    self.add_family(name, declared).await?;
                    report.added_families.push(declared.name.clone());
                }
                Some(current) => {
                    let differences = declared.differences(current);
                    if !differences.is_empty() {
                        self.modify_family_keeping_the_rest(name, declared).await?;
                        report.changed_options.extend(differences.into_iter().map(
                            |(option, from, to)| OptionChange {
                                family: declared.name.clone(),
                                option,
                                from,
                                to,
                            },
                        ));
                    }
                }
            }
        }
        report.undeclared_families = actual
            .families
            .iter()
            .filter(|f| schema.descriptor.get_family(&f.name).is_none())
            .map(|f| f.name.clone())
            .collect();
        if !schema.split_keys.is_empty() {
            let mut declared = schema.split_keys.clone();
            declared.sort();
            declared.dedup();
            let regions = self.region_locations(name).await?;
            let boundaries: Vec<Vec<u8>> =
                regions.into_iter().skip(1).map(|r| r.start_key).collect();
            report.split_keys_differ = boundaries != declared;
        }
        Ok(report)
    }
}
