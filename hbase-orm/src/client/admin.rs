//! Namespace and table administration. `Client::admin`, which makes an [`Admin`], sits here
//! beside it (see `handle.rs` for where the rest of `impl Client` is).

use super::handle::Client;
use crate::backend::op;
use crate::model::{ColumnFamily, RegionLocation, Result, TableDescriptor, TableName};

impl Client {
    /// A handle for namespace and table administration.
    pub fn admin(&self) -> Admin {
        Admin::new(self.clone())
    }
}

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
    pub(super) client: Client,
}

impl Admin {
    fn new(client: Client) -> Self {
        Admin { client }
    }

    /// Creates a namespace; [`Error::AlreadyExists`](crate::Error::AlreadyExists) if it exists.
    pub async fn create_namespace(&self, name: &str) -> Result<()> {
        self.client.run(&op::CreateNamespace { name }).await
    }

    /// Whether the namespace exists.
    pub async fn namespace_exists(&self, name: &str) -> Result<bool> {
        self.client.run(&op::NamespaceExists { name }).await
    }

    /// Names of all namespaces.
    pub async fn list_namespaces(&self) -> Result<Vec<String>> {
        self.client.run(&op::ListNamespaces {}).await
    }

    /// Deletes an empty namespace; HBase refuses while it still has tables.
    pub async fn delete_namespace(&self, name: &str) -> Result<()> {
        self.client.run(&op::DeleteNamespace { name }).await
    }

    /// Creates a table, pre-split at `split_keys` (empty: one region). The namespace must exist.
    pub async fn create_table(
        &self,
        table: &TableDescriptor,
        split_keys: &[Vec<u8>],
    ) -> Result<()> {
        let mut splits = split_keys.to_vec();
        splits.sort();
        splits.dedup();
        let split_keys = &splits[..];
        self.client
            .run(&op::CreateTable { table, split_keys })
            .await
    }

    /// Whether the table exists.
    pub async fn table_exists(&self, table: &TableName) -> Result<bool> {
        self.client.run(&op::TableExists { table }).await
    }

    /// The table's descriptor as HBase has it, every family option filled in.
    pub async fn describe(&self, table: &TableName) -> Result<TableDescriptor> {
        self.client.run(&op::Describe { table }).await
    }

    /// Tables of one namespace, or every user table when `namespace` is `None`.
    pub async fn list_tables(&self, namespace: Option<&str>) -> Result<Vec<TableName>> {
        self.client.run(&op::ListTables { namespace }).await
    }

    /// Enables a disabled table.
    pub async fn enable_table(&self, table: &TableName) -> Result<()> {
        self.client.run(&op::EnableTable { table }).await
    }

    /// Disables a table (it stops serving reads and writes).
    pub async fn disable_table(&self, table: &TableName) -> Result<()> {
        self.client.run(&op::DisableTable { table }).await
    }

    /// Whether the table is enabled.
    pub async fn is_table_enabled(&self, table: &TableName) -> Result<bool> {
        self.client.run(&op::IsTableEnabled { table }).await
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
        let truncate = op::TruncateTable {
            table,
            preserve_splits,
        };
        match self.client.run(&truncate).await {
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
        if self.is_table_enabled(table).await? {
            self.disable_table(table).await?;
        }
        self.client.run(&op::DeleteTable { table }).await
    }

    /// Adds a column family to an existing table.
    pub async fn add_family(&self, table: &TableName, family: &ColumnFamily) -> Result<()> {
        self.client.run(&op::AddFamily { table, family }).await
    }

    /// Changes the options of an existing column family (options left `None` are reset to
    /// HBase's defaults by the gateway, so pass the full family; [`Admin::merge_family`]
    /// changes only the options it is given).
    pub async fn modify_family(&self, table: &TableName, family: &ColumnFamily) -> Result<()> {
        self.client.run(&op::ModifyFamily { table, family }).await
    }

    /// Applies the options `declared` sets to an existing family, leaving every other setting
    /// of the family as HBase has it, including settings this crate does not model
    /// (replication scope, configuration, MOB and cache-on-write attributes).
    pub async fn merge_family(&self, table: &TableName, declared: &ColumnFamily) -> Result<()> {
        self.client.run(&op::MergeFamily { table, declared }).await
    }

    /// Drops a column family and all its data.
    pub async fn delete_family(&self, table: &TableName, family: &str) -> Result<()> {
        self.client.run(&op::DeleteFamily { table, family }).await
    }

    /// Every region of the table with its key range and server, in key order.
    pub async fn region_locations(&self, table: &TableName) -> Result<Vec<RegionLocation>> {
        let mut regions = self.client.run(&op::RegionLocations { table }).await?;
        regions.sort_by(|a, b| a.start_key.cmp(&b.start_key));
        Ok(regions)
    }

    /// Splits the region of `table` that holds `split_key` in two at that key, and returns
    /// once both halves serve: rows from `split_key` on move to the new region. HBase refuses
    /// a key that already starts a region. The native backend and the in-memory store do this;
    /// the Thrift gateways have no call for it ([`Error::Unsupported`](crate::Error::Unsupported)).
    ///
    /// ```no_run
    /// # async fn demo(client: hbase_orm::Client) -> hbase_orm::Result<()> {
    /// use hbase_orm::TableName;
    /// let orders = TableName::new("shop", "orders");
    /// client.admin().split_region(&orders, b"m").await?;
    /// assert!(client.admin().region_locations(&orders).await?.len() >= 2);
    /// # Ok(()) }
    /// ```
    pub async fn split_region(&self, table: &TableName, split_key: &[u8]) -> Result<()> {
        self.client.run(&op::SplitRegion { table, split_key }).await
    }

    /// The region servers serving now, as `host:port`, sorted (the in-memory store's one
    /// server is `localhost`). The native backend and the in-memory store answer; the Thrift
    /// gateways have no call for it ([`Error::Unsupported`](crate::Error::Unsupported)).
    ///
    /// ```no_run
    /// # async fn demo(client: hbase_orm::Client) -> hbase_orm::Result<()> {
    /// for server in client.admin().region_servers().await? {
    ///     println!("{server}");
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn region_servers(&self) -> Result<Vec<String>> {
        self.client.run(&op::RegionServers {}).await
    }

    /// Moves the region of `table` holding `key` to the region server `to` (`host:port`, one
    /// of [`Admin::region_servers`]), or with `None` to one the master picks, and returns once
    /// it serves there. Clients find it at its new place by themselves (a call to the old
    /// place is refused and looked up again). A server that is not live is refused before
    /// anything moves. A region that does not open at `to` fails the call with
    /// [`Error::Server`](crate::Error::Server) as soon as `hbase:meta` shows it (the region
    /// failed to open, or the master opened it on another server), or after two minutes with
    /// the region's last state and server. The native backend and the in-memory store (one
    /// server: nothing moves); the Thrift gateways have no call for it.
    ///
    /// ```no_run
    /// # async fn demo(client: hbase_orm::Client) -> hbase_orm::Result<()> {
    /// use hbase_orm::TableName;
    /// let orders = TableName::new("shop", "orders");
    /// let servers = client.admin().region_servers().await?;
    /// client.admin().move_region(&orders, b"m", Some(&servers[0])).await?;
    /// # Ok(()) }
    /// ```
    pub async fn move_region(&self, table: &TableName, key: &[u8], to: Option<&str>) -> Result<()> {
        self.client.run(&op::MoveRegion { table, key, to }).await
    }

    /// Runs the balancer once: it moves regions so that every region server holds about as
    /// many. Returns whether it ran (it does not while switched off, or while regions are
    /// moving); the moves it starts may still be under way when it returns. The native
    /// backend and the in-memory store; the Thrift gateways have no call for it.
    ///
    /// ```no_run
    /// # async fn demo(client: hbase_orm::Client) -> hbase_orm::Result<()> {
    /// let ran = client.admin().balance().await?;
    /// # Ok(()) }
    /// ```
    pub async fn balance(&self) -> Result<bool> {
        self.client.run(&op::Balance {}).await
    }

    /// Switches the balancer on or off (while on, the master also runs it by itself every
    /// five minutes by default); returns whether it was on. Tests that move regions by hand
    /// switch it off first, so that it does not move them back.
    ///
    /// ```no_run
    /// # async fn demo(client: hbase_orm::Client) -> hbase_orm::Result<()> {
    /// let was_on = client.admin().set_balancer(false).await?;
    /// // ... move regions ...
    /// client.admin().set_balancer(was_on).await?;
    /// # Ok(()) }
    /// ```
    pub async fn set_balancer(&self, on: bool) -> Result<bool> {
        self.client.run(&op::SetBalancer { on }).await
    }
}
