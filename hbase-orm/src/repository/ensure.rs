//! Bringing HBase in line with what entities declare, without losing anything:
//! `Admin::ensure::<T>()`, `ensure_for`, `ensure_all` and `ensure_schema`. They live above the
//! client (whose `Admin` knows tables, not entities or schemas); with `client/admin.rs` this
//! is the second and last file holding `impl Admin`.

use crate::client::Admin;
use crate::mapping::HBaseEntity;
use crate::model::{Error, Result, TableName};
use crate::schema::{EnsureReport, OptionChange, TableSchema};

impl Admin {
    /// Creates or updates the table entity `T` declares (see [`Admin::ensure_schema`]).
    pub async fn ensure<T: HBaseEntity>(&self) -> Result<EnsureReport> {
        if T::TABLE_IS_TEMPLATE {
            return Err(Error::IllegalArgument {
                message: format!(
                    "{} is stored in one table per {}: ensure the table of a key with \
                     admin.ensure_for::<T>(&key)",
                    std::any::type_name::<T>(),
                    T::TABLE
                ),
            });
        }
        self.ensure_with(&T::schema(), T::related_schemas()).await
    }

    /// [`Admin::ensure`] for the table a templated entity (one table per day, say) uses for
    /// `key`, and the tables that go with it (its dictionary table).
    pub async fn ensure_for<T: HBaseEntity>(&self, key: &T::Key) -> Result<EnsureReport> {
        self.ensure_on::<T>(T::table_for_key(key)).await
    }

    /// [`Admin::ensure`] for entity `T` stored in `table` instead of its declared table (what
    /// `Repository::on_table(table)` reads and writes): the table with `T`'s families, and
    /// the tables that go with it ([`HBaseEntity::related_schemas_for`]: index tables named
    /// after `table`, the dictionary table).
    ///
    /// ```no_run
    /// # use hbase_orm::{Client, HBaseEntity, TableName};
    /// #[derive(HBaseEntity)]
    /// #[hbase(namespace = "chat", table = "members", family = "d",
    ///         index(name = "by_user", parts = "user, conversation"))]
    /// struct Member {
    ///     #[hbase(key)]
    ///     conversation: u64,
    ///     #[hbase(key)]
    ///     user: u64,
    /// }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// let table = TableName::new("chat_run1", "members");
    /// // creates chat_run1:members and chat_run1:members_by_user
    /// client.admin().ensure_on::<Member>(table.clone()).await?;
    /// let members = client.repository::<Member>().on_table(table);
    /// # Ok(()) }
    /// ```
    pub async fn ensure_on<T: HBaseEntity>(&self, table: TableName) -> Result<EnsureReport> {
        let related = T::related_schemas_for(&table);
        self.ensure_with(&T::schema_for(table), related).await
    }

    /// Ensures a data table's schema, then those of the tables that go with it, reported
    /// under it.
    async fn ensure_with(
        &self,
        schema: &TableSchema,
        related: Vec<TableSchema>,
    ) -> Result<EnsureReport> {
        let mut report = self.ensure_schema(schema).await?;
        for schema in related {
            report
                .related_tables
                .push(self.ensure_schema(&schema).await?);
        }
        Ok(report)
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
                        self.merge_family(name, declared).await?;
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
