//! Secondary index tables, `#[hbase(index(name = "by_time", parts = "created, id, city"))]`.
//!
//! An index is a table of its own (in the entity's namespace, family `i`; a repository moved
//! to another table with `Repository::on_table` uses index tables named after that table, see
//! [`IndexDef::table_on`](crate::mapping::IndexDef::table_on)): one row per entity,
//! keyed by the index parts (encoded like row-key parts, so ranges follow value order), whose
//! cell `i:r` holds the entity's row key. HBase has no transactions across rows, so writes go
//! in an order that never leaves a data row its index cannot find, and readers make up for
//! the rows left over:
//!
//! 1. a save reads the stored entity first (to know its old index rows);
//! 2. it puts the new index rows: a failure here is
//!    [`Error::IndexWrite`](crate::Error::IndexWrite) naming the index, and the data row is
//!    not written (the rows put before it point at a row that does not hold their key: they
//!    are dangling, below);
//! 3. it writes the data row (an insert or a version check that loses leaves the index rows
//!    of step 2 dangling);
//! 4. it deletes the old index rows whose key changed: a failure here is
//!    [`Error::IndexWrite`](crate::Error::IndexWrite) too, the data row is written and its
//!    new index rows with it, the old rows are dangling;
//! 5. a delete reads the entity, deletes the data row, then its index rows (a failure leaves
//!    them dangling).
//!
//! A reader of the index fetches the data rows and keeps an entity only if its current index
//! key is the index row's key: index rows left behind by a failure or by writes that bypassed
//! the repository (a dangling row) are never returned.
//! [`Repository::rebuild_index`] repairs an index from the data table, removing dangling rows.
//! A bulk load writes the index tables before the data tables, for the same reason.
//!
//! `impl Repository` is split by concern over `repo.rs` (reads, saves and deletes),
//! `writes.rs` (inserts, optimistic versions, counters), `wide.rs` (wide maps) and this file
//! (index maintenance and queries): each file holds the methods of one feature with the
//! private helpers only they use.

use std::marker::PhantomData;

use futures::stream::{self, BoxStream, StreamExt, TryStreamExt};

use crate::client::Table;
use crate::mapping::rowkey::KeyPrefix;
use crate::mapping::rows::{decode_entity, Presence};
use crate::mapping::{
    EntityKey, HBaseEntity, Index, IndexDef, IndexRepair, INDEX_FAMILY, INDEX_QUALIFIER,
};
use crate::model::{printable_key, Delete, Get, Put, Scan};
use crate::model::{Error, Result};
use crate::repository::repo::Repository;
use crate::repository::scan::direction_and_limit;

fn index_error<E: HBaseEntity>(
    def: &IndexDef<E>,
    table: &Table,
    row: &[u8],
    source: Error,
) -> Error {
    Error::IndexWrite {
        index: def.name,
        table: table.name().to_string(),
        row: printable_key(row),
        source: Box::new(source),
    }
}

impl<T: HBaseEntity> Repository<T> {
    /// The index table that goes with this repository's table ([`IndexDef::table_on`]: the
    /// declared one on the declared table, one named after the table on any other).
    pub(super) fn index_table(&self, def: &IndexDef<T>) -> Table {
        let data = self.table();
        data.renamed(def.table_on(data.name()))
    }

    /// The stored entity with `value`'s key, when `T` has indexes (their old rows must go).
    pub(super) async fn before_indexed_write(&self, key: &T::Key) -> Result<Option<T>> {
        if T::INDEXES.is_empty() {
            return Ok(None);
        }
        self.get(key).await
    }

    /// Puts `value`'s index rows, before its data row is written (see the module's order of
    /// writes).
    pub(super) async fn put_index_rows(&self, value: &T) -> Result<()> {
        if T::INDEXES.is_empty() {
            return Ok(());
        }
        let row = value.row_key()?;
        for def in T::INDEXES {
            let Some(key) = def.key_of(value)? else {
                continue;
            };
            let table = self.index_table(def);
            let put = Put::new(key.clone()).column(INDEX_FAMILY, INDEX_QUALIFIER, row.clone());
            table
                .put(put)
                .await
                .map_err(|e| index_error(def, &table, &key, e))?;
        }
        Ok(())
    }

    /// Deletes the index rows of `old` whose key `value` no longer has, once `value`'s data
    /// row is written.
    pub(super) async fn delete_stale_index_rows(&self, value: &T, old: Option<&T>) -> Result<()> {
        let Some(old) = old else {
            return Ok(());
        };
        for def in T::INDEXES {
            let Some(old_key) = def.key_of(old)? else {
                continue;
            };
            if def.key_of(value)?.as_ref() != Some(&old_key) {
                self.delete_index_row(def, old_key).await?;
            }
        }
        Ok(())
    }

    /// Deletes the row `key` of index `def`.
    async fn delete_index_row(&self, def: &IndexDef<T>, key: Vec<u8>) -> Result<()> {
        let table = self.index_table(def);
        table
            .delete(Delete::new(key.clone()))
            .await
            .map_err(|e| index_error(def, &table, &key, e))
    }

    /// Removes the index rows of an entity that was deleted.
    pub(super) async fn delete_index_rows(&self, old: &T) -> Result<()> {
        for def in T::INDEXES {
            if let Some(key) = def.key_of(old)? {
                self.delete_index_row(def, key).await?;
            }
        }
        Ok(())
    }

    /// A scan of entities through index `I`: narrow it by a prefix or range of index keys.
    ///
    /// ```no_run
    /// # use futures::TryStreamExt;
    /// # use hbase_orm::{Client, HBaseEntity};
    /// #[derive(HBaseEntity, Debug)]
    /// #[hbase(table = "orders", family = "d", key_delimiter = '\0',
    ///         index(name = "by_city", parts = "city, created, id"))]
    /// struct Order {
    ///     #[hbase(key)]
    ///     id: u64,
    ///     created: i64,
    ///     city: String,
    /// }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// let orders = client.repository::<Order>();
    /// let in_paris: Vec<Order> = orders
    ///     .index::<OrderByCity>()
    ///     .prefix(OrderByCityKey::prefix_by_city(&"Paris".to_string())?)
    ///     .stream()
    ///     .try_collect()
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub fn index<I: Index<Entity = T>>(&self) -> IndexScan<T, I> {
        IndexScan {
            repo: self.clone(),
            scan: Scan::new(),
            prefix: None,
            from: None,
            until: None,
            error: None,
            index: PhantomData,
        }
    }

    /// Repairs index `I` from the data table: writes the index row of every entity, then
    /// removes index rows whose entity is gone or has another index key now.
    pub async fn rebuild_index<I: Index<Entity = T>>(&self) -> Result<IndexRepair> {
        let def = I::def();
        let table = self.index_table(def);
        let mut repair = IndexRepair::default();
        let mut entities = self.scan().stream();
        let mut puts = Vec::new();
        while let Some(entity) = entities.try_next().await? {
            let Some(key) = def.key_of(&entity)? else {
                continue;
            };
            puts.push(Put::new(key).column(INDEX_FAMILY, INDEX_QUALIFIER, entity.row_key()?));
            repair.indexed += 1;
            if puts.len() == 500 {
                table.put_many(std::mem::take(&mut puts)).await?;
            }
        }
        if !puts.is_empty() {
            table.put_many(puts).await?;
        }
        let mut rows = table.scan(Scan::new().column(INDEX_FAMILY, INDEX_QUALIFIER));
        while let Some(row) = rows.try_next().await? {
            let Some(data_key) = row.value(INDEX_FAMILY, INDEX_QUALIFIER) else {
                continue;
            };
            let current = self
                .table()
                .get(Get::new(data_key.to_vec()))
                .await?
                .map(|r| decode_entity::<T>(&r, self.table().name(), Presence::Required));
            let keep = match current {
                Some(Ok(Some(entity))) => {
                    def.key_of(&entity).ok().flatten().as_deref() == Some(row.key.as_slice())
                }
                // A row that does not decode as `T` (another record type sharing the index
                // table, a row written by other code) is not this index's to judge: keep it.
                Some(Err(_)) => true,
                // No row, or a partial row: no entity holds this index key.
                Some(Ok(None)) | None => false,
            };
            if !keep {
                table.delete(Delete::new(row.key.clone())).await?;
                repair.removed += 1;
            }
        }
        Ok(repair)
    }
}

/// A scan of entities through a secondary index; see [`Repository::index`].
pub struct IndexScan<T: HBaseEntity, I> {
    repo: Repository<T>,
    scan: Scan,
    prefix: Option<KeyPrefix>,
    from: Option<Vec<u8>>,
    until: Option<Vec<u8>>,
    /// A bound that could not be encoded, reported by `stream`.
    error: Option<Error>,
    index: PhantomData<fn() -> I>,
}

impl<T: HBaseEntity, I: Index<Entity = T>> IndexScan<T, I> {
    /// Only index keys starting with this prefix (from a generated `prefix_by_*` of the index
    /// key type).
    pub fn prefix(mut self, prefix: KeyPrefix) -> Self {
        self.prefix = Some(prefix);
        self
    }

    /// Index keys from `start` (included) to `stop` (excluded).
    pub fn range(self, start: &I::Key, stop: &I::Key) -> Self {
        self.from(start).until(stop)
    }

    /// Index keys from `start` (included).
    pub fn from(mut self, start: &I::Key) -> Self {
        match start.row_key() {
            Ok(k) => self.from = Some(k),
            Err(e) => self.error = self.error.or(Some(e)),
        }
        self
    }

    /// Index keys before `stop` (excluded).
    pub fn until(mut self, stop: &I::Key) -> Self {
        match stop.row_key() {
            Ok(k) => self.until = Some(k),
            Err(e) => self.error = self.error.or(Some(e)),
        }
        self
    }

    direction_and_limit! {
        reversed: "Largest index key first.",
        limit: "At most `n` index rows (dangling ones, dropped, count too).",
    }

    /// The entities, in index order. Each batch of index rows is resolved with one
    /// `get_many` of the data rows; an entity whose current index key is not the index row's
    /// (a dangling row) is skipped.
    pub fn stream(self) -> BoxStream<'static, Result<T>> {
        if let Some(e) = self.error {
            return stream::once(async move { Err(e) }).boxed();
        }
        let def = I::def();
        let table = self.repo.index_table(def);
        let mut scan = self.scan;
        scan.prefix = self.prefix.map(|p| p.bytes);
        scan.start = self.from;
        scan.stop = self.until;
        scan.columns = vec![crate::model::Column {
            family: INDEX_FAMILY.as_bytes().to_vec(),
            qualifier: Some(INDEX_QUALIFIER.as_bytes().to_vec()),
        }];
        let batch = scan.caching.unwrap_or(256).clamp(1, 1000) as usize;
        let repo = self.repo;
        table
            .scan(scan)
            .try_chunks(batch)
            .map_err(|e| e.1)
            .and_then(move |rows| {
                let repo = repo.clone();
                async move { resolve(&repo, def, rows).await }
            })
            .map_ok(|entities| stream::iter(entities.into_iter().map(Ok)))
            .try_flatten()
            .boxed()
    }
}

/// The entities the index rows point at, in index order, without dangling ones.
async fn resolve<T: HBaseEntity>(
    repo: &Repository<T>,
    def: &'static IndexDef<T>,
    rows: Vec<crate::model::Row>,
) -> Result<Vec<T>> {
    let gets: Vec<Get> = rows
        .iter()
        .filter_map(|r| r.value(INDEX_FAMILY, INDEX_QUALIFIER))
        .map(|k| repo.read_request(k.to_vec()))
        .collect::<Result<_>>()?;
    let index_keys: Vec<&[u8]> = rows
        .iter()
        .filter(|r| r.value(INDEX_FAMILY, INDEX_QUALIFIER).is_some())
        .map(|r| r.key.as_slice())
        .collect();
    let data = repo.table().get_many(gets).await?;
    let mut out = Vec::with_capacity(data.len());
    for (row, index_key) in data.into_iter().zip(index_keys) {
        let Some(row) = row else { continue };
        let Some(entity) = decode_entity::<T>(&row, repo.table().name(), Presence::Required)?
        else {
            continue;
        };
        let entity = repo.finish_read(entity).await?;
        if def.key_of(&entity)?.as_deref() == Some(index_key) {
            out.push(entity);
        }
    }
    Ok(out)
}
