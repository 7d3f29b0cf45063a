//! Namespace and table administration.

use super::retry::Safety;
use super::Client;
use crate::backend::Backend;
use crate::model::{ColumnFamily, Error, RegionLocation, Result, TableDescriptor, TableName};

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

    fn backend(&self) -> &dyn Backend {
        self.client.backend()
    }

    /// Creates a namespace; [`Error::AlreadyExists`] if it exists.
    pub async fn create_namespace(&self, name: &str) -> Result<()> {
        TableName::new(name, "t").check()?;
        self.client
            .retrying("create_namespace", Safety::UnsentOnly, || {
                self.backend().create_namespace(name)
            })
            .await
    }

    /// Whether the namespace exists.
    pub async fn namespace_exists(&self, name: &str) -> Result<bool> {
        self.client
            .retrying("namespace_exists", Safety::Idempotent, || {
                self.backend().namespace_exists(name)
            })
            .await
    }

    /// Names of all namespaces.
    pub async fn list_namespaces(&self) -> Result<Vec<String>> {
        self.client
            .retrying("list_namespaces", Safety::Idempotent, || {
                self.backend().list_namespaces()
            })
            .await
    }

    /// Deletes an empty namespace; HBase refuses while it still has tables.
    pub async fn delete_namespace(&self, name: &str) -> Result<()> {
        self.client
            .retrying("delete_namespace", Safety::UnsentOnly, || {
                self.backend().delete_namespace(name)
            })
            .await
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
        self.client
            .retrying("create_table", Safety::UnsentOnly, || {
                self.backend().create_table(table, &splits)
            })
            .await
    }

    /// Whether the table exists.
    pub async fn table_exists(&self, table: &TableName) -> Result<bool> {
        self.client
            .retrying("table_exists", Safety::Idempotent, || {
                self.backend().table_exists(table)
            })
            .await
    }

    /// The table's descriptor as HBase has it, every family option filled in.
    pub async fn describe(&self, table: &TableName) -> Result<TableDescriptor> {
        self.client
            .retrying("describe", Safety::Idempotent, || {
                self.backend().describe(table)
            })
            .await
    }

    /// Tables of one namespace, or every user table when `namespace` is `None`.
    pub async fn list_tables(&self, namespace: Option<&str>) -> Result<Vec<TableName>> {
        self.client
            .retrying("list_tables", Safety::Idempotent, || {
                self.backend().list_tables(namespace)
            })
            .await
    }

    /// Enables a disabled table.
    pub async fn enable_table(&self, table: &TableName) -> Result<()> {
        self.client
            .retrying("enable_table", Safety::UnsentOnly, || {
                self.backend().enable_table(table)
            })
            .await
    }

    /// Disables a table (it stops serving reads and writes).
    pub async fn disable_table(&self, table: &TableName) -> Result<()> {
        self.client
            .retrying("disable_table", Safety::UnsentOnly, || {
                self.backend().disable_table(table)
            })
            .await
    }

    /// Whether the table is enabled.
    pub async fn is_table_enabled(&self, table: &TableName) -> Result<bool> {
        self.client
            .retrying("is_table_enabled", Safety::Idempotent, || {
                self.backend().is_table_enabled(table)
            })
            .await
    }

    /// Removes every row, keeping the table (and its region boundaries when
    /// `preserve_splits`). Disables the table first if needed, as HBase requires; the table
    /// is enabled again afterwards.
    ///
    /// If the truncate fails (a backend that cannot truncate, say), a table this call
    /// disabled is enabled again before the error is returned.
    pub async fn truncate_table(&self, table: &TableName, preserve_splits: bool) -> Result<()> {
        let was_enabled = self.is_table_enabled(table).await?;
        if was_enabled {
            self.disable_table(table).await?;
        }
        match self
            .client
            .retrying("truncate_table", Safety::UnsentOnly, || {
                self.backend().truncate_table(table, preserve_splits)
            })
            .await
        {
            Err(e) if was_enabled => {
                if let Err(again) = self.enable_table(table).await {
                    tracing::warn!(%table, error = %again, "re-enabling after a failed truncate");
                }
                Err(e)
            }
            done => done,
        }
    }

    /// Drops the table and all its data, disabling it first if needed.
    pub async fn delete_table(&self, table: &TableName) -> Result<()> {
        self.ensure_disabled(table).await?;
        self.client
            .retrying("delete_table", Safety::UnsentOnly, || {
                self.backend().delete_table(table)
            })
            .await
    }

    async fn ensure_disabled(&self, table: &TableName) -> Result<()> {
        if self.is_table_enabled(table).await? {
            self.disable_table(table).await?;
        }
        Ok(())
    }

    /// Adds a column family to an existing table.
    pub async fn add_family(&self, table: &TableName, family: &ColumnFamily) -> Result<()> {
        self.client
            .retrying("add_family", Safety::UnsentOnly, || {
                self.backend().add_family(table, family)
            })
            .await
    }

    /// Changes the options of an existing column family (options left `None` are reset to
    /// HBase's defaults by the gateway, so pass the full family; [`Admin::merge_family`]
    /// changes only the options it is given).
    pub async fn modify_family(&self, table: &TableName, family: &ColumnFamily) -> Result<()> {
        self.client
            .retrying("modify_family", Safety::Idempotent, || {
                self.backend().modify_family(table, family)
            })
            .await
    }

    /// Applies the options `declared` sets to an existing family, leaving every other setting
    /// of the family as HBase has it, including settings this crate does not model
    /// (replication scope, configuration, MOB and cache-on-write attributes).
    pub async fn merge_family(&self, table: &TableName, declared: &ColumnFamily) -> Result<()> {
        self.client
            .retrying("merge_family", Safety::Idempotent, || {
                self.backend().merge_family(table, declared)
            })
            .await
    }

    /// Drops a column family and all its data.
    pub async fn delete_family(&self, table: &TableName, family: &str) -> Result<()> {
        self.client
            .retrying("delete_family", Safety::UnsentOnly, || {
                self.backend().delete_family(table, family)
            })
            .await
    }

    /// Every region of the table with its key range and server, in key order.
    pub async fn region_locations(&self, table: &TableName) -> Result<Vec<RegionLocation>> {
        let mut regions = self
            .client
            .retrying("region_locations", Safety::Idempotent, || {
                self.backend().region_locations(table)
            })
            .await?;
        regions.sort_by(|a, b| a.start_key.cmp(&b.start_key));
        Ok(regions)
    }
}
