//! `Repository<T>`: typed saves, reads, deletes and scans of one entity type (the scan
//! builder, [`EntityScan`], is in `scan.rs`).
//!
//! `impl Repository` is split by concern over `repo.rs` (reads, saves and deletes),
//! `writes.rs` (inserts, optimistic versions, counters), `wide.rs` (wide maps) and `index.rs`
//! (index maintenance and queries): each file holds the methods of one feature with the
//! private helpers only they use.

use std::marker::PhantomData;

use crate::client::Table;
use crate::mapping::fields::FieldSet;
use crate::mapping::read::{max_versions, presence_rule, read_columns, ReadOptions};
use crate::mapping::rows::{decode_entity, presence_cell, Presence};
use crate::mapping::DictName;
use crate::mapping::{encode_key, ColumnKind, EntityKey, HBaseEntity};
use crate::model::TableName;
use crate::model::{BatchFailures, Error, Result};
use crate::model::{Delete, Get, Mutation, Put};
use crate::repository::dictionary::{self, Dictionary};
use crate::repository::scan::EntityScan;

/// An entity read with what HBase said of the read ([`Repository::get_read`]).
#[derive(Clone, Debug, PartialEq)]
pub struct EntityRead<T> {
    /// The entity.
    pub entity: T,
    /// Whether a secondary region replica answered: the entity may miss recent writes.
    pub stale: bool,
}

impl<T> EntityRead<T> {
    /// Whether a secondary region replica answered (only a read with
    /// [`Consistency::Timeline`](crate::Consistency::Timeline) can be).
    pub fn is_stale(&self) -> bool {
        self.stale
    }
}

/// Rows per `put_many` call of [`Repository::save_all`] unless changed.
const DEFAULT_SAVE_CHUNK: usize = 500;

/// Typed access to the table of entity `T`. Cheap to clone.
///
/// Every read asks HBase only for `T`'s columns (or fewer, with a projection), and decodes
/// rows into `T`; decode errors name the table, row, column and expected type.
///
/// # Partial rows
///
/// A row can hold cells of `T`'s families without holding a `T`: a counter counted with
/// [`increment`](Repository::increment) before the entity was saved, wide-map entries
/// written one by one with [`wide`](Repository::wide), cells a family's TTL left behind.
/// What makes a row hold an entity is its *presence cell*: the `#[hbase(version)]` column if
/// `T` has one, else its first stored field that is neither an `Option`, a counter, a wide
/// map nor versioned, else the empty marker cell `family:` that every save of such an entity
/// writes. Every operation follows that one rule:
///
/// - [`exists`](Repository::exists) is `false`, [`get`](Repository::get),
///   [`get_many`](Repository::get_many) and the projections give `None`, scans and index
///   reads skip the row (a scan's `limit` counts entities, not rows);
/// - [`insert`](Repository::insert) creates the entity in it and removes nothing: the
///   counters keep their counts (the value's counter numbers are added) and the wide map
///   keeps the entries the value does not have;
/// - [`save`](Repository::save) writes the whole row image, as on any row: a wide map is
///   replaced whole (that is what a save of a map means), counters are left alone;
/// - [`delete`](Repository::delete) removes the whole row, partial or not.
///
/// A read with a time range ([`ReadOptions::time_range`]) is the one exception: the range
/// hides the presence cell like any cell written outside it, so such a read decodes whatever
/// the range holds.
///
/// What a partial row holds stays readable without the entity: the map through
/// [`wide`](Repository::wide), a counter through [`increment`](Repository::increment) by 0.
pub struct Repository<T> {
    table: Table,
    /// Set by [`Repository::on_table`]: every call goes to `table`, templates included.
    pinned: bool,
    save_chunk: usize,
    entity: PhantomData<fn() -> T>,
}

impl<T> Clone for Repository<T> {
    fn clone(&self) -> Self {
        Repository {
            table: self.table.clone(),
            pinned: self.pinned,
            save_chunk: self.save_chunk,
            entity: PhantomData,
        }
    }
}

impl<T> std::fmt::Debug for Repository<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Repository")
            .field("table", &self.table.name())
            .finish()
    }
}

/// Whether saves of `T` go one row at a time: a wide map or children list needs its stale
/// entries read, a
/// version field its own check, an index the entity's old index keys.
fn needs_own_save<T: HBaseEntity>() -> bool {
    !T::INDEXES.is_empty()
        || T::has_dictionary_parts()
        || T::COLUMNS.iter().any(|c| {
            matches!(
                c.kind,
                ColumnKind::Wide | ColumnKind::Children | ColumnKind::Version
            )
        })
}

impl<T: HBaseEntity> Repository<T> {
    /// A repository of `T` on `table` (see `Client::repository`).
    pub(super) fn new(table: Table) -> Self {
        Repository {
            table,
            pinned: false,
            save_chunk: DEFAULT_SAVE_CHUNK,
            entity: PhantomData,
        }
    }

    /// The same repository on another table with the same layout (a copy of the declared
    /// table, a per-day table, a test table).
    ///
    /// The entity's index tables come along: on a table other than the declared one, index
    /// `by_user` lives in `{namespace}:{table}_by_user` of the new table's namespace (see
    /// [`IndexDef::table_on`](crate::mapping::IndexDef::table_on)), so the declared index
    /// tables never see rows of another table. The dictionary table of dictionary key parts
    /// stays the declared one. `Admin::ensure_on::<T>(table)` creates the table and the
    /// tables that go with it.
    pub fn on_table(mut self, table: TableName) -> Self {
        self.table = self.table.renamed(table);
        self.pinned = true;
        self
    }

    /// For an entity with a table template (`table = "tx_{yyyyMMdd}"`): the repository of
    /// the table that holds `key` (scans read one such table).
    pub fn for_key(&self, key: &T::Key) -> Self {
        self.clone().on_table(T::table_for_key(key))
    }

    /// For an entity with a table template: the repository of the table that holds the
    /// time `millis` (the day's table for `tx_{yyyyMMdd}`), to scan one period.
    pub fn for_time(&self, millis: i64) -> Self {
        let table = crate::schema::render_table_template(T::TABLE, millis);
        self.clone().on_table(TableName::new(T::NAMESPACE, table))
    }

    /// The table a call about `key` goes to.
    pub(super) fn table_for(&self, key: &T::Key) -> Table {
        if T::TABLE_IS_TEMPLATE && !self.pinned {
            self.table.renamed(T::table_for_key(key))
        } else {
            self.table.clone()
        }
    }

    /// Whether calls are routed per key to templated tables.
    pub(super) fn routed(&self) -> bool {
        T::TABLE_IS_TEMPLATE && !self.pinned
    }

    /// This repository with a retry deadline of its own for its gets, saves and deletes (scans
    /// keep the client's): see [`Table::retry_deadline`].
    pub fn retry_deadline(mut self, deadline: std::time::Duration) -> Self {
        self.table = self.table.retry_deadline(deadline);
        self
    }

    /// The underlying table handle, for raw calls.
    pub fn table(&self) -> &Table {
        &self.table
    }

    pub(super) fn save_chunk(&self) -> usize {
        self.save_chunk
    }

    /// This repository with a cell visibility expression on the rows it writes (on a cluster
    /// with HBase's `VisibilityController`): its saves, inserts and updates, and the index
    /// rows that point at them, so that a reader without the labels finds the entity neither
    /// by key nor by index; its deletes (of entities, of `None` fields, of stale index rows)
    /// carry the expression too, since HBase deletes only the cells of the delete's own
    /// expression. Counters are incremented unlabeled (an increment carries no visibility
    /// here), and so are the rows of a dictionary key part's table; a bulk load of a
    /// labeling repository is refused (bulk-loaded files carry no labels). See [`Put::visibility`](crate::Put::visibility) for the expressions.
    ///
    /// What a reader sees follows the read's [presence rule](Repository#partial-rows): a
    /// reader whose authorizations satisfy no label of the row reads no entity (`None`; a
    /// superuser reads every cell); one
    /// who sees some of its cells reads them, and a field whose cell it does not see is
    /// `None` (an `Option`), its default, or a decode error naming the column (a required
    /// field), as for a row written without that cell.
    ///
    /// ```no_run
    /// # use hbase_orm::{Client, HBaseEntity};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "patients", family = "d")]
    /// # struct Patient { #[hbase(key)] id: u64, diagnosis: String }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// let medical = client.repository::<Patient>().with_visibility("medical");
    /// medical.save(&Patient { id: 1, diagnosis: "flu".into() }).await?;
    /// let doctors = client.repository::<Patient>().with_authorizations(["medical"]);
    /// assert!(doctors.get(&PatientKey { id: 1 }).await?.is_some());
    /// # Ok(()) }
    /// ```
    pub fn with_visibility(mut self, expression: impl Into<String>) -> Self {
        self.table = self.table.visibility(expression);
        self
    }

    /// This repository reading with these cell visibility labels (gets, scans, index lookups;
    /// see [`Get::authorizations`](crate::Get::authorizations) and
    /// [`Repository::with_visibility`]).
    pub fn with_authorizations<L: Into<String>>(
        mut self,
        labels: impl IntoIterator<Item = L>,
    ) -> Self {
        self.table = self.table.authorizations(labels);
        self
    }

    /// Sets how many rows one `put_many` call of [`Repository::save_all`] carries.
    pub fn with_save_chunk(mut self, rows: usize) -> Self {
        self.save_chunk = rows.max(1);
        self
    }

    /// Saves many values in chunks. Rows without `None` fields go by `put_many`; rows that
    /// must also delete columns go by [`Table::mutate_rows`], each row atomic (on the native
    /// backend one call per region server for the chunk, as the puts; a gateway has no batch
    /// of atomic rows and takes them one call each, as many at once as its pool holds). Rows
    /// that fail (or cannot be encoded: their key is then listed as empty if it cannot be
    /// encoded either) are listed in [`Error::PartialBatch`]; all others were written.
    ///
    /// Entities with a wide map or a version field are saved one [`Repository::save`] each
    /// (concurrently within a chunk), since each needs a read or a check of its own.
    pub async fn save_all(&self, values: &[T]) -> Result<()> {
        if self.routed() {
            return self.save_all_routed(values).await;
        }
        if needs_own_save::<T>() {
            return self.save_each(values).await;
        }
        let mut failures = BatchFailures::new("save_all", values.len());
        for chunk in values.chunks(self.save_chunk) {
            let mut puts: Vec<Put> = Vec::with_capacity(chunk.len());
            let mut images = Vec::new();
            for value in chunk {
                let mut image = match value.to_mutations() {
                    Ok(image) => image,
                    Err(e) => {
                        // A value that cannot be encoded is reported; the others still go.
                        failures.record(vec![value.row_key().unwrap_or_default()], e);
                        continue;
                    }
                };
                match image.mutations.as_mut_slice() {
                    [Mutation::Put(put)] => puts.push(std::mem::replace(put, Put::new(Vec::new()))),
                    _ => images.push(image),
                }
            }
            if let Err(e) = self.table.put_slice(&puts).await {
                failures.record(puts.into_iter().map(|p| p.row).collect(), e);
            }
            if let Err(e) = self.table.mutate_rows(&images).await {
                failures.record(images.into_iter().map(|m| m.row).collect(), e);
            }
        }
        failures.finish()
    }

    /// `save_all` for a table template: each value saved in the table of its key.
    async fn save_all_routed(&self, values: &[T]) -> Result<()> {
        let mut failures = BatchFailures::new("save_all", values.len());
        for v in values {
            let repo = self.clone().on_table(T::table_for_key(&v.key()));
            if let Err(e) = repo.save(v).await {
                failures.record(vec![v.row_key().unwrap_or_default()], e);
            }
        }
        failures.finish()
    }

    fn get_request(key: &T::Key, fields: Option<&[&str]>) -> Result<Get> {
        let mut get = Get::new(encode_key::<T>(key)?);
        get.columns = read_columns::<T>(fields)?;
        get.max_versions = max_versions::<T>();
        Ok(get)
    }

    /// The get of a whole entity by its encoded row key.
    pub(super) fn read_request(&self, row: Vec<u8>) -> Result<Get> {
        let mut get = Get::new(row);
        get.columns = read_columns::<T>(None)?;
        get.max_versions = max_versions::<T>();
        Ok(get)
    }

    /// Reads the entity with this key with [`ReadOptions`]: a time range, or fewer versions
    /// of its `versions = N` fields.
    ///
    /// ```no_run
    /// # use hbase_orm::{HBaseEntity, Client, ReadOptions, Versions};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "inbox", family = "d")]
    /// # struct Inbox { #[hbase(key)] user: u64, #[hbase(versions = 100)] posts: Versions<u64> }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// let inbox = client.repository::<Inbox>();
    /// let last_hour = ReadOptions::new().time_range(1_700_000_000_000, 1_700_003_600_000);
    /// let recent = inbox.get_with(&InboxKey { user: 7 }, &last_hour).await?;
    /// # Ok(()) }
    /// ```
    pub async fn get_with(&self, key: &T::Key, options: &ReadOptions) -> Result<Option<T>> {
        Ok(self
            .read(key, None, Some(options))
            .await?
            .map(|read| read.entity))
    }

    /// [`get_with`](Repository::get_with), and what HBase said of the read: whether a
    /// secondary region replica answered (with
    /// [`ReadOptions::consistency`]`(`[`Consistency::Timeline`](crate::Consistency::Timeline)`)`
    /// on a table with region replicas), so that the entity may miss recent writes.
    ///
    /// ```no_run
    /// # use hbase_orm::{HBaseEntity, Client, Consistency, ReadOptions};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "profiles", family = "d", region_replication = 3)]
    /// # struct Profile { #[hbase(key)] user: u64, name: String }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// let profiles = client.repository::<Profile>();
    /// let any_replica = ReadOptions::new().consistency(Consistency::Timeline);
    /// if let Some(read) = profiles.get_read(&ProfileKey { user: 7 }, &any_replica).await? {
    ///     println!("{} (stale: {})", read.entity.name, read.is_stale());
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn get_read(
        &self,
        key: &T::Key,
        options: &ReadOptions,
    ) -> Result<Option<EntityRead<T>>> {
        self.read(key, None, Some(options)).await
    }

    /// Reads the entity with this key; `None` if no such row.
    pub async fn get(&self, key: &T::Key) -> Result<Option<T>> {
        Ok(self.read(key, None, None).await?.map(|read| read.entity))
    }

    /// Reads only the fields named (the others must be `Option` or have a default, and come
    /// back as `None` or their default). HBase sends only those columns. `fields` are typed
    /// handles, one or a tuple (`(Device::LABEL, Device::MESSAGES)`), or as a fallback their
    /// names (`&["label", "messages"]`, checked when the call runs): see [`FieldSet`].
    pub async fn get_fields(&self, key: &T::Key, fields: impl FieldSet<T>) -> Result<Option<T>> {
        let read = self.read(key, Some(&fields.field_names()), None).await?;
        Ok(read.map(|read| read.entity))
    }

    /// Whether `key` can name a stored row: its dictionary parts' names all have ids (found
    /// in the dictionary; never assigned by a read).
    pub(super) async fn key_known(&self, key: &T::Key) -> Result<bool> {
        if !T::has_dictionary_parts() {
            return Ok(true);
        }
        self.resolve_parts(key.dictionary_parts(), false).await
    }

    /// Completes an entity read: the names of its dictionary key parts.
    pub(super) async fn finish_read(&self, value: T) -> Result<T> {
        if T::has_dictionary_parts() {
            self.fill_names(&value).await?;
        }
        Ok(value)
    }

    async fn read(
        &self,
        key: &T::Key,
        fields: Option<&[&str]>,
        options: Option<&ReadOptions>,
    ) -> Result<Option<EntityRead<T>>> {
        if !self.key_known(key).await? {
            return Ok(None);
        }
        let mut get = Self::get_request(key, fields)?;
        if let Some(options) = options {
            options.apply(
                &mut get.time_range,
                &mut get.max_versions,
                &mut get.consistency,
            );
        }
        let presence = presence_rule::<T>(fields, get.time_range.is_some());
        let table = self.table_for(key);
        let Some(row) = table.get(get).await? else {
            return Ok(None);
        };
        match decode_entity::<T>(&row, table.name(), presence)? {
            Some(value) => Ok(Some(EntityRead {
                entity: self.finish_read(value).await?,
                stale: row.is_stale(),
            })),
            None => Ok(None),
        }
    }

    /// Reads many entities in one call, in the order of `keys`.
    pub async fn get_many(&self, keys: &[T::Key]) -> Result<Vec<Option<T>>> {
        if self.routed() || T::has_dictionary_parts() {
            return futures::future::join_all(keys.iter().map(|k| self.get(k)))
                .await
                .into_iter()
                .collect();
        }
        let gets = keys
            .iter()
            .map(|k| Self::get_request(k, None))
            .collect::<Result<_>>()?;
        self.table
            .get_many(gets)
            .await?
            .into_iter()
            .map(|row| match row {
                Some(r) => decode_entity::<T>(&r, self.table.name(), Presence::Required),
                None => Ok(None),
            })
            .collect()
    }

    /// Whether an entity with this key exists: whether its row holds the entity's presence
    /// cell (see [the rule for partial rows](Repository#partial-rows)). Reads that one cell.
    pub async fn exists(&self, key: &T::Key) -> Result<bool> {
        if !self.key_known(key).await? {
            return Ok(false);
        }
        let (family, qualifier) = presence_cell::<T>();
        self.table_for(key)
            .exists(Get::new(encode_key::<T>(key)?).column(family, qualifier))
            .await
    }

    /// Deletes the entity's row (and, for an entity with indexes, its index rows, after
    /// reading the entity to know them).
    pub async fn delete(&self, key: &T::Key) -> Result<()> {
        if !self.key_known(key).await? {
            return Ok(());
        }
        let old = self.before_indexed_write(key).await?;
        self.table_for(key)
            .delete(Delete::new(encode_key::<T>(key)?))
            .await?;
        match old {
            Some(old) => self.delete_index_rows(&old).await,
            None => Ok(()),
        }
    }

    /// A typed scan over the entity's table; narrow it with the builder's methods.
    pub fn scan(&self) -> EntityScan<T> {
        let error = self.routed().then(|| Error::IllegalArgument {
            message: format!(
                "{} is stored in one table per {}: scan the table of a key with \
                 repository.for_key(&key).scan()",
                std::any::type_name::<T>(),
                T::TABLE
            ),
        });
        EntityScan::new(self.table.clone(), error)
    }
}

impl<T: HBaseEntity> Repository<T> {
    /// The dictionary `name` of `T`'s dictionary key parts (in `T`'s dictionary table), to
    /// resolve names for `prefix_by_*` functions:
    /// `repo.dictionary("log_types").resolve(&event, false).await?`.
    pub fn dictionary(&self, name: &str) -> Dictionary {
        self.table()
            .client()
            .dictionary(TableName::new(T::NAMESPACE, T::DICTIONARY_TABLE), name)
    }

    /// Completes every part's id (assigning new ids with `create`) or name; `Ok(false)` if
    /// one cannot be completed (no row holds it).
    pub(crate) async fn resolve_parts(
        &self,
        parts: Vec<(&'static str, &DictName)>,
        create: bool,
    ) -> Result<bool> {
        dictionary::resolve_parts::<T>(self.table().client(), parts, create).await
    }

    /// Fills in the names of an entity read (its key holds ids).
    pub(crate) async fn fill_names(&self, value: &T) -> Result<()> {
        dictionary::fill_names(self.table().client(), self.table().name(), value).await
    }
}
