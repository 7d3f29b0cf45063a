//! `Repository<T>`: typed saves, reads, deletes and scans of one entity type.

use std::marker::PhantomData;

use futures::stream::{BoxStream, StreamExt, TryStreamExt};

use crate::client::{Client, Table};
use crate::entity::{encode_key, HBaseEntity};
use crate::error::{BatchFailures, Error, Result};
use crate::model::{Column, Delete, Get, Mutation, Put, Scan};
use crate::rowkey::KeyPrefix;

/// Rows per `put_many` call of [`Repository::save_all`] unless changed.
const DEFAULT_SAVE_CHUNK: usize = 500;

/// Typed access to the table of entity `T`. Cheap to clone.
///
/// Every read asks HBase only for `T`'s columns (or fewer, with a projection), and decodes
/// rows into `T`; decode errors name the table, row, column and expected type.
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

impl Client {
    /// A repository for entity `T` on its declared table.
    pub fn repository<T: HBaseEntity>(&self) -> Repository<T> {
        Repository {
            table: self.table_named(T::table_name()),
            pinned: false,
            save_chunk: DEFAULT_SAVE_CHUNK,
            entity: PhantomData,
        }
    }
}

/// The columns of `T` a read asks for: all of them, or the named fields only (plus the
/// columns of hashed key parts, read back from there), and always the row's marker cell
/// (`family:` with an empty qualifier, written when a value has no other cell), so that a row
/// holding only its key still reads back.
pub(crate) fn read_columns<T: HBaseEntity>(fields: Option<&[&str]>) -> Result<Vec<Column>> {
    let column = crate::entity::ColumnDef::column;
    let mut columns: Vec<Column> = match fields {
        None => T::COLUMNS.iter().map(column).collect(),
        Some(names) => {
            let mut picked: Vec<Column> = T::COLUMNS
                .iter()
                .filter(|c| c.key_part && !names.contains(&c.field))
                .map(column)
                .collect();
            for name in names {
                let def = T::COLUMNS
                    .iter()
                    .find(|c| c.field == *name)
                    .ok_or_else(|| Error::IllegalArgument {
                        message: format!(
                            "{} has no stored field `{name}` (stored fields: {})",
                            std::any::type_name::<T>(),
                            T::COLUMNS
                                .iter()
                                .map(|c| c.field)
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    })?;
                picked.push(column(def));
            }
            picked
        }
    };
    if let Some(family) = T::FAMILIES.first() {
        columns.push(Column {
            family: family.as_bytes().to_vec(),
            qualifier: Some(Vec::new()),
        });
    }
    Ok(columns)
}

impl<T: HBaseEntity> Repository<T> {
    /// The same repository on another table with the same layout (a copy of the declared
    /// table, a per-day table, a test table).
    pub fn on_table(mut self, table: crate::schema::TableName) -> Self {
        self.table = self.table.client().table_named(table);
        self.pinned = true;
        self
    }

    /// For an entity with a table template (`table = "tx_{yyyyMMdd}"`): the repository of
    /// the table that holds `key` (scans read one such table).
    pub fn for_key(&self, key: &T::Key) -> Self {
        self.clone().on_table(T::table_for_key(key))
    }

    /// The table a call about `key` goes to.
    fn table_for(&self, key: &T::Key) -> Table {
        if T::TABLE_IS_TEMPLATE && !self.pinned {
            self.table.client().table_named(T::table_for_key(key))
        } else {
            self.table.clone()
        }
    }

    /// Whether calls are routed per key to templated tables.
    fn routed(&self) -> bool {
        T::TABLE_IS_TEMPLATE && !self.pinned
    }

    /// The underlying table handle, for raw calls.
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// Sets how many rows one `put_many` call of [`Repository::save_all`] carries.
    pub fn with_save_chunk(mut self, rows: usize) -> Self {
        self.save_chunk = rows.max(1);
        self
    }

    /// Writes the whole row image of `value` atomically: the cells of its fields, and deletes
    /// of the columns whose `Option` fields are `None`.
    pub async fn save(&self, value: &T) -> Result<()> {
        self.table_for(&value.key())
            .mutate_row(value.to_mutations()?)
            .await
    }

    /// Saves many values in chunks. Rows without `None` fields go by `put_many`; rows that
    /// must also delete columns go one atomic row mutation each. Rows that fail (or cannot be
    /// encoded: their key is then listed as empty if it cannot be encoded either) are listed
    /// in [`Error::PartialBatch`]; all others were written.
    pub async fn save_all(&self, values: &[T]) -> Result<()> {
        if self.routed() {
            return self.save_all_routed(values).await;
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
            if !puts.is_empty() {
                let keys: Vec<_> = puts.iter().map(|p| p.row.clone()).collect();
                if let Err(e) = self.table.put_many(puts).await {
                    failures.record(keys, e);
                }
            }
            let results = futures::future::join_all(images.into_iter().map(|m| {
                let row = m.row.clone();
                async move { (row, self.table.mutate_row(m).await) }
            }))
            .await;
            for (row, result) in results {
                if let Err(e) = result {
                    failures.record(vec![row], e);
                }
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
        Ok(get)
    }

    /// Reads the entity with this key; `None` if no such row.
    pub async fn get(&self, key: &T::Key) -> Result<Option<T>> {
        self.read(key, Self::get_request(key, None)?).await
    }

    /// Reads only the named fields (the others must be `Option` or have a default, and come
    /// back as `None` or their default). HBase sends only those columns.
    pub async fn get_fields(&self, key: &T::Key, fields: &[&str]) -> Result<Option<T>> {
        self.read(key, Self::get_request(key, Some(fields))?).await
    }

    async fn read(&self, key: &T::Key, get: Get) -> Result<Option<T>> {
        let table = self.table_for(key);
        table
            .get(get)
            .await?
            .map(|row| T::from_row_of(row, table.name()))
            .transpose()
    }

    /// Reads many entities in one call, in the order of `keys`.
    pub async fn get_many(&self, keys: &[T::Key]) -> Result<Vec<Option<T>>> {
        if self.routed() {
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
            .map(|row| {
                row.map(|r| T::from_row_of(r, self.table.name()))
                    .transpose()
            })
            .collect()
    }

    /// Whether an entity with this key exists.
    pub async fn exists(&self, key: &T::Key) -> Result<bool> {
        self.table_for(key)
            .exists(Self::get_request(key, None)?)
            .await
    }

    /// Deletes the entity's row.
    pub async fn delete(&self, key: &T::Key) -> Result<()> {
        self.table_for(key)
            .delete(Delete::new(encode_key::<T>(key)?))
            .await
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
        EntityScan {
            table: self.table.clone(),
            scan: Scan::new(),
            prefix: None,
            from: None,
            until: None,
            after: None,
            fields: None,
            error,
            entity: PhantomData,
        }
    }
}

/// A typed scan being built; see [`Repository::scan`]. Finish it with [`EntityScan::stream`]
/// or [`EntityScan::page`].
pub struct EntityScan<T: HBaseEntity> {
    table: Table,
    /// Direction, limit, page size; the bounds are filled in by [`EntityScan::stream`].
    scan: Scan,
    prefix: Option<KeyPrefix>,
    from: Option<T::Key>,
    until: Option<T::Key>,
    after: Option<T::Key>,
    fields: Option<Vec<Column>>,
    error: Option<Error>,
    entity: PhantomData<fn() -> T>,
}

/// One page of a paged scan.
#[derive(Debug, Clone)]
pub struct Page<T: HBaseEntity> {
    /// The entities, in scan order.
    pub items: Vec<T>,
    /// The key to pass to [`EntityScan::after`] for the next page; `None` when this page was
    /// the last.
    pub next: Option<T::Key>,
}

impl<T: HBaseEntity> EntityScan<T> {
    /// Only entities whose key starts with this prefix (from a generated `prefix_by_*`).
    pub fn prefix(mut self, prefix: KeyPrefix) -> Self {
        self.prefix = Some(prefix);
        self
    }

    /// Keys from `start` (included) to `stop` (excluded).
    pub fn range(mut self, start: &T::Key, stop: &T::Key) -> Self {
        self.from = Some(start.clone());
        self.until = Some(stop.clone());
        self
    }

    /// Keys from `start` (included).
    pub fn from(mut self, start: &T::Key) -> Self {
        self.from = Some(start.clone());
        self
    }

    /// Keys before `stop` (excluded).
    pub fn until(mut self, stop: &T::Key) -> Self {
        self.until = Some(stop.clone());
        self
    }

    /// Resumes after `key` (the last one seen), in the scan's direction: the next page.
    pub fn after(mut self, key: &T::Key) -> Self {
        self.after = Some(key.clone());
        self
    }

    /// Largest key first.
    pub fn reversed(mut self) -> Self {
        self.scan.reversed = true;
        self
    }

    /// At most `n` entities.
    pub fn limit(mut self, n: usize) -> Self {
        self.scan.limit = Some(n);
        self
    }

    /// Rows fetched per round trip.
    pub fn page_size(mut self, rows: i32) -> Self {
        self.scan.caching = Some(rows);
        self
    }

    /// Reads only the named fields (the others must be `Option` or have a default).
    pub fn fields(mut self, fields: &[&str]) -> Self {
        match read_columns::<T>(Some(fields)) {
            Ok(c) => self.fields = Some(c),
            Err(e) => {
                self.error.get_or_insert(e);
            }
        }
        self
    }

    /// Runs the scan: a stream of decoded entities. The first decode error ends the stream.
    ///
    /// On a salted entity, a scan whose prefix does not fix the bucket runs once per bucket
    /// and merges the results in key order ([`Table::scan_salted`]); rows of other record
    /// types in a shared table are skipped.
    pub fn stream(mut self) -> BoxStream<'static, Result<T>> {
        match self.plan() {
            Ok((rows, limit)) => {
                let table = self.table.name().clone();
                let entities = rows
                    .try_filter(|row| futures::future::ready(T::is_record(&row.key)))
                    .map(move |row| row.and_then(|r| T::from_row_of(r, &table)));
                let mut failed = false;
                let entities = entities.take_while(move |r| {
                    let go = !failed;
                    failed |= r.is_err();
                    futures::future::ready(go)
                });
                match limit {
                    Some(n) => entities.take(n).boxed(),
                    None => entities.boxed(),
                }
            }
            Err(e) => futures::stream::once(async move { Err(e) }).boxed(),
        }
    }

    /// Turns the builder into a row stream, and the limit still to apply to decoded
    /// entities (for record types sharing a table the server's limit would count the other
    /// types' rows too).
    fn plan(&mut self) -> Result<(crate::RowStream, Option<usize>)> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let salted = T::SALT_BUCKETS;
        // Work in the key space the bounds are compared in: without the salt byte for a
        // salted entity, so keys of different buckets compare by what they encode.
        let strip = |k: Vec<u8>| match salted {
            Some(_) => k.get(1..).unwrap_or_default().to_vec(),
            None => k,
        };
        let key = |k: &Option<T::Key>| -> Result<Option<Vec<u8>>> {
            k.as_ref()
                .map(|k| encode_key::<T>(k).map(strip))
                .transpose()
        };
        let (from, until, after) = (key(&self.from)?, key(&self.until)?, key(&self.after)?);
        let (bucket, prefix) = match (&self.prefix, salted) {
            (Some(p), Some(_)) if !p.all_buckets => {
                (p.bytes.first().copied(), Some(p.bytes[1..].to_vec()))
            }
            (Some(p), _) => (None, Some(p.bytes.clone())),
            (None, _) => (None, None),
        };
        let mut scan = self.scan.clone();
        scan.start = from;
        scan.stop = until;
        if let Some(after) = after {
            if scan.reversed {
                if scan.stop.as_ref().is_none_or(|s| after < *s) {
                    scan.stop = Some(after);
                }
            } else {
                let mut next = after;
                next.push(0); // the smallest key after the one seen
                if scan.start.as_ref().is_none_or(|s| next > *s) {
                    scan.start = Some(next);
                }
            }
        }
        scan.prefix = prefix;
        scan.columns = match &self.fields {
            Some(f) => f.clone(),
            None => read_columns::<T>(None)?,
        };
        let limit = if T::RECORD_TAG.is_some() {
            scan.limit.take()
        } else {
            None
        };
        let rows = match (salted, bucket) {
            // One bucket: put the salt byte back in front of every bound.
            (Some(_), Some(b)) => {
                let salt = |k: Option<Vec<u8>>| k.map(|k| [vec![b], k].concat());
                scan.start = salt(scan.start.take());
                scan.stop = salt(scan.stop.take());
                scan.prefix = salt(scan.prefix.take());
                self.table.scan(scan)
            }
            (Some(buckets), None) => self.table.scan_salted(scan, buckets),
            (None, _) => self.table.scan(scan),
        };
        Ok((rows, limit))
    }

    /// Reads one page of `size` entities; pass [`Page::next`] to [`EntityScan::after`] on a
    /// scan with the same settings for the next page.
    pub async fn page(mut self, size: usize) -> Result<Page<T>> {
        self.scan.limit = Some(size);
        let items: Vec<T> = self.stream().try_collect().await?;
        let next = (items.len() == size && size > 0)
            .then(|| items.last().map(T::key))
            .flatten();
        Ok(Page { items, next })
    }
}

impl<T: HBaseEntity> std::fmt::Debug for EntityScan<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EntityScan")
            .field("table", &self.table.name())
            .field("prefix", &self.prefix)
            .field("from", &self.from)
            .field("until", &self.until)
            .field("after", &self.after)
            .field("scan", &self.scan)
            .finish()
    }
}
