//! The repository's writes that need more than one blind put: the row image of a save (with
//! the stale entries of wide maps deleted), creates that must not overwrite, optimistic
//! concurrency on a version field, and counters.
//!
//! Rules, as the entity documentation states them:
//! - `save` replaces the row image: fields with values are written, `None` fields deleted, a
//!   wide map's entries that the value lacks deleted (read first: HBase has no "delete the
//!   family but keep what this same mutation puts"), counters never written.
//! - With a `#[hbase(version)]` field, `save` writes only if the stored version is the
//!   value's (no row at all when the value's version is 0) and stores version + 1; otherwise
//!   [`Error::Conflict`].
//! - With `#[hbase(index(...))]`, every write also maintains the index rows (see `index.rs`
//!   for the order of writes).
//! - `insert` writes only if the row does not exist (checked on the entity's presence column);
//!   otherwise [`Error::Conflict`]. Its counter values are then added by one increment, so
//!   counts an `increment` made before the insert stay.
//!
//! `impl Repository` is split by concern over `repo.rs` (reads, saves and deletes),
//! `writes.rs` (inserts, optimistic versions, counters), `wide.rs` (wide maps) and `index.rs`
//! (index maintenance and queries): each file holds the methods of one feature with the
//! private helpers only they use.

use futures::future::BoxFuture;

use crate::client::Table;
use crate::mapping::codec::Counter;
use crate::mapping::fields::{CounterRef, Field};
use crate::mapping::rows::presence_cell;
use crate::mapping::{
    encode_key, row_image, ColumnDef, ColumnKind, EntityKey, HBaseEntity, RowImage,
};
use crate::model::{
    printable_key, CheckAndMutate, CompareOp, Delete, Get, Increment, Mutation, RowMutations,
};
use crate::model::{BatchFailures, Error, Result};
use crate::repository::repo::Repository;

impl<T: HBaseEntity> Repository<T> {
    /// Writes the whole row image of `value` atomically: the cells of its fields, deletes of
    /// the columns whose `Option` fields are `None`, and deletes of the entries a wide map no
    /// longer holds. Counters are left alone (see [`Repository::increment`]). With a
    /// `#[hbase(version)]` field the write happens only if the stored version is the value's,
    /// and stores the next version; a lost race is [`Error::Conflict`].
    pub async fn save(&self, value: &T) -> Result<()> {
        self.save_with(value, Stamp::default()).await
    }

    /// [`Repository::save`] with every cell written at timestamp `ts` (milliseconds) instead
    /// of the server's clock; versions of a `versions = N` field keep their own. Deletes of
    /// `None` fields still remove every version.
    pub async fn save_at(&self, value: &T, ts: i64) -> Result<()> {
        let stamp = Stamp {
            ts: Some(ts),
            ..Stamp::default()
        };
        self.save_with(value, stamp).await
    }

    /// [`Repository::save`] with a per-cell TTL: the cells written expire `ttl` after they
    /// were written (the family's own TTL still applies if shorter). Index rows do not expire.
    pub async fn save_with_ttl(&self, value: &T, ttl: std::time::Duration) -> Result<()> {
        let stamp = Stamp {
            ttl: Some(ttl),
            ..Stamp::default()
        };
        self.save_with(value, stamp).await
    }

    async fn save_with(&self, value: &T, stamp: Stamp) -> Result<()> {
        self.name_parts(value).await?;
        let old = self.before_indexed_write(&value.key()).await?;
        self.put_index_rows(value).await?;
        self.write_data(value, stamp).await?;
        self.delete_stale_index_rows(value, old.as_ref()).await
    }

    /// The data row of a save.
    async fn write_data(&self, value: &T, stamp: Stamp) -> Result<()> {
        let table = self.table_for(&value.key());
        let image = row_image(value, false)?;
        let version = image.version;
        let mut mutations = image_mutations::<T>(&table, image).await?;
        stamp.apply(&mut mutations);
        let Some((col, current)) = version else {
            return table.mutate_row(mutations).await;
        };
        let def = &T::COLUMNS[col];
        let check = if current == 0 {
            CheckAndMutate::if_absent(mutations.row.clone(), def.family, def.qualifier)
        } else {
            CheckAndMutate::if_value(
                mutations.row.clone(),
                def.family,
                def.qualifier,
                CompareOp::Equal,
                current.to_be_bytes(),
            )
        };
        let row = mutations.row.clone();
        let passed = table
            .check_and_mutate(CheckAndMutate { mutations, ..check })
            .await?;
        if passed {
            Ok(())
        } else {
            Err(conflict(
                &table,
                &row,
                format!(
                    "the stored {} is not {current} (another writer saved or deleted the row \
                 first); re-read and retry",
                    def.field
                ),
            ))
        }
    }

    /// Saves `value` and, on success, sets its version field to the stored version, so the
    /// same value can be changed and saved again. Without a version field it is `save`.
    pub async fn update(&self, value: &mut T) -> Result<()> {
        self.save(value).await?;
        if let Some(v) = value.version() {
            value.set_version(v + 1);
        }
        Ok(())
    }

    /// Reads the entity of `key`, changes it with `change` and saves it under the check of its
    /// `#[hbase(version)]` field; when another writer saved or deleted it first (the save's
    /// [`Error::Conflict`]), reads it again and repeats, `attempts` times at most in all.
    ///
    /// Returns the value saved (its version field the stored version), or `None` when no
    /// entity has this key (nothing is written then). After `attempts` lost races the last
    /// [`Error::Conflict`] is returned, saying how many attempts were made. `change` runs once
    /// per attempt, each time on the value just read: compute only from its argument, and
    /// leave the key and the version field alone (a change to either is refused).
    /// Entities without a version field are refused ([`Error::IllegalArgument`]): their saves
    /// cannot tell that another writer came first.
    ///
    /// ```no_run
    /// # use hbase_orm::{Client, HBaseEntity};
    /// #[derive(HBaseEntity)]
    /// #[hbase(table = "read_markers", family = "d")]
    /// struct ReadMarker {
    ///     #[hbase(key)]
    ///     user: u64,
    ///     last_read: i64,
    ///     #[hbase(version)]
    ///     version: u64,
    /// }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// let markers = client.repository::<ReadMarker>();
    /// // Moves the marker forward, never back, however many devices race to set it.
    /// let saved = markers
    ///     .modify(&ReadMarkerKey { user: 7 }, 5, |m| m.last_read = m.last_read.max(1_042))
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub async fn modify<F>(&self, key: &T::Key, attempts: usize, mut change: F) -> Result<Option<T>>
    where
        F: FnMut(&mut T),
    {
        if !T::COLUMNS.iter().any(|c| c.kind == ColumnKind::Version) {
            return Err(Error::IllegalArgument {
                message: format!(
                    "modify needs a #[hbase(version)] field on {}: without one a save cannot \
                     tell that another writer came first (use get and save, or add the field)",
                    std::any::type_name::<T>()
                ),
            });
        }
        let attempts = attempts.max(1);
        let mut attempt = 0;
        loop {
            attempt += 1;
            let Some(mut value) = self.get(key).await? else {
                return Ok(None);
            };
            let version = value.version();
            change(&mut value);
            if value.version() != version || value.row_key()? != encode_key::<T>(key)? {
                return Err(Error::IllegalArgument {
                    message: format!(
                        "the change given to modify changed {}'s key or version field: it may \
                         change the other fields only (nothing was written)",
                        std::any::type_name::<T>()
                    ),
                });
            }
            match self.update(&mut value).await {
                Ok(()) => return Ok(Some(value)),
                Err(Error::Conflict { table, row, reason }) if attempt >= attempts => {
                    return Err(Error::Conflict {
                        table,
                        row,
                        reason: format!(
                            "{reason} (gave up after {attempt} attempt{})",
                            if attempt == 1 { "" } else { "s" }
                        ),
                    })
                }
                Err(Error::Conflict { .. }) => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// Creates the entity only if its row holds none yet; [`Error::Conflict`] if it does
    /// (nothing is written then). An insert only puts cells, it never deletes one: into a
    /// [partial row](Repository#partial-rows) (counters counted before, wide-map entries
    /// written one by one) it adds the value's cells, its counter numbers are added to the
    /// stored counts, and the wide map keeps the entries the value does not have.
    pub async fn insert(&self, value: &T) -> Result<()> {
        self.name_parts(value).await?;
        let table = self.table_for(&value.key());
        // Counters are added by an increment once the row is created, so that counts an
        // `increment` made before (a row holding only counters holds no entity) stay.
        let mut image = row_image(value, true)?;
        let counters = take_counters::<T>(&mut image);
        let (family, qualifier) = presence_cell::<T>();
        let row = image.put.row.clone();
        let mut mutations = RowMutations::new(row.clone());
        if !image.put.cells.is_empty() {
            mutations = mutations.put(image.put);
        }
        let check = CheckAndMutate::if_absent(row.clone(), family, qualifier);
        // The index rows first: an insert that fails or loses leaves them dangling, never a
        // row its index cannot find (see `index.rs`).
        self.put_index_rows(value).await?;
        if table
            .check_and_mutate(CheckAndMutate { mutations, ..check })
            .await?
        {
            if !counters.columns.is_empty() {
                table.increment(counters).await?;
            }
            Ok(())
        } else {
            Err(conflict(
                &table,
                &row,
                "a row with this key exists already".into(),
            ))
        }
    }

    /// Deletes the row only if its stored version is `version`; [`Error::Conflict`] otherwise.
    /// Needs a `#[hbase(version)]` field.
    pub async fn delete_if_version(&self, key: &T::Key, version: u64) -> Result<()> {
        let def = version_column::<T>()?;
        if !self.key_known(key).await? {
            return Err(Error::Conflict {
                table: self.table().name().to_string(),
                row: format!("{key:?}"),
                reason: "no such row (a dictionary name of its key has no id)".into(),
            });
        }
        let old = self.before_indexed_write(key).await?;
        let table = self.table_for(key);
        let row = encode_key::<T>(key)?;
        let check = CheckAndMutate::if_value(
            row.clone(),
            def.family,
            def.qualifier,
            CompareOp::Equal,
            version.to_be_bytes(),
        )
        .then_delete(Delete::new(row.clone()));
        if table.check_and_mutate(check).await? {
            match old {
                Some(old) => self.delete_index_rows(&old).await,
                None => Ok(()),
            }
        } else {
            Err(conflict(
                &table,
                &row,
                format!(
                    "the stored {} is not {version}; nothing was deleted",
                    def.field
                ),
            ))
        }
    }

    /// Adds `by` to the `#[hbase(counter)]` field `field` atomically and returns its new value
    /// (a counter never written counts from 0). Concurrent increments all count.
    ///
    /// `field` is the counter's typed handle (`Device::MESSAGES`: another field's handle does
    /// not compile) or, as a fallback, its name (`"messages"`, checked when the call runs).
    ///
    /// An increment is not idempotent: if the call fails after reaching the server, it may or
    /// may not have been applied, and it is not re-sent.
    ///
    /// A counter that goes down (unread messages read, seats given back) is an increment by
    /// a negative `by`: it is as atomic as one going up, and concurrent ones all count. HBase
    /// has no floor: two readers that each take the last seat leave -1. A count that must not
    /// go below zero is a plain field under a `#[hbase(version)]` field, changed with
    /// [`Repository::modify`] (`|s| s.seats = s.seats.saturating_sub(1)`), which repeats on
    /// a lost race instead of counting twice.
    ///
    /// ```no_run
    /// # use hbase_orm::{Client, HBaseEntity};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "devices", family = "d")]
    /// # struct Device { #[hbase(key)] id: u64, label: String, #[hbase(counter)] messages: i64 }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// let devices = client.repository::<Device>();
    /// let key = DeviceKey { id: 7 };
    /// assert_eq!(devices.increment(&key, Device::MESSAGES, 1).await?, 1);
    /// # Ok(()) }
    /// ```
    pub fn increment<'a>(
        &'a self,
        key: &'a T::Key,
        field: impl CounterRef<T>,
        by: i64,
    ) -> BoxFuture<'a, Result<i64>> {
        // The handle is read here and the future is one type for every kind of handle: a
        // wrong handle is then one compile error at the argument.
        let field = field.counter_name();
        let def = T::COLUMNS
            .iter()
            .find(|c| c.field == field && c.kind == ColumnKind::Counter)
            .ok_or_else(|| Error::IllegalArgument {
                message: format!(
                    "{} has no #[hbase(counter)] field `{field}` (counters: {})",
                    std::any::type_name::<T>(),
                    names_of::<T>(ColumnKind::Counter)
                ),
            });
        Box::pin(self.add_to_counter(key, def, by))
    }

    async fn add_to_counter(
        &self,
        key: &T::Key,
        def: Result<&'static ColumnDef>,
        by: i64,
    ) -> Result<i64> {
        let def = def?;
        if T::has_dictionary_parts() {
            self.resolve_parts(key.dictionary_parts(), true).await?;
        }
        self.table_for(key)
            .increment_column(encode_key::<T>(key)?, def.family, def.qualifier, by)
            .await
    }

    /// The value of the `#[hbase(counter)]` field `field` in the row of `key`, whether or not
    /// that row holds an entity (a count made before the entity was saved reads here too, see
    /// [partial rows](Repository#partial-rows)); `None` if the counter was never written.
    ///
    /// ```no_run
    /// # use hbase_orm::{Client, HBaseEntity};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "devices", family = "d")]
    /// # struct Device { #[hbase(key)] id: u64, label: String, #[hbase(counter)] messages: i64 }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// let devices = client.repository::<Device>();
    /// let key = DeviceKey { id: 7 };
    /// devices.increment(&key, Device::MESSAGES, 1).await?; // before the device is registered
    /// assert_eq!(devices.counter(&key, Device::MESSAGES).await?, Some(1));
    /// assert!(devices.get(&key).await?.is_none()); // a counter alone is no device
    /// # Ok(()) }
    /// ```
    pub async fn counter(
        &self,
        key: &T::Key,
        field: Field<T, i64, Counter>,
    ) -> Result<Option<i64>> {
        let def = field.def();
        if def.kind != ColumnKind::Counter {
            return Err(Error::IllegalArgument {
                message: format!(
                    "{}::{} is not a #[hbase(counter)] field (counters: {})",
                    std::any::type_name::<T>(),
                    def.field,
                    names_of::<T>(ColumnKind::Counter)
                ),
            });
        }
        if !self.key_known(key).await? {
            return Ok(None);
        }
        let row = encode_key::<T>(key)?;
        let get = Get::new(row.clone()).column(def.family, def.qualifier);
        let Some(found) = self.table_for(key).get(get).await? else {
            return Ok(None);
        };
        let Some(bytes) = found.value(def.family, def.qualifier) else {
            return Ok(None);
        };
        let array: [u8; 8] = bytes.try_into().map_err(|_| Error::Decode {
            table: self.table_for(key).name().to_string(),
            row: printable_key(&row),
            column: format!("{}:{}", def.family, def.qualifier),
            expected: "an 8-byte counter".into(),
            reason: format!("{} bytes", bytes.len()),
        })?;
        Ok(Some(i64::from_be_bytes(array)))
    }

    /// Gives every dictionary key part of `value` its id, assigning new ones.
    pub(super) async fn name_parts(&self, value: &T) -> Result<()> {
        if T::has_dictionary_parts() {
            self.resolve_parts(value.dictionary_parts(), true).await?;
        }
        Ok(())
    }

    /// `save_all` for entities whose saves each need a read or a check.
    pub(super) async fn save_each(&self, values: &[T]) -> Result<()> {
        let mut failures = BatchFailures::new("save_all", values.len());
        for chunk in values.chunks(self.save_chunk()) {
            let results = futures::future::join_all(chunk.iter().map(|v| self.save(v))).await;
            for (v, result) in chunk.iter().zip(results) {
                if let Err(e) = result {
                    failures.record(vec![v.row_key().unwrap_or_default()], e);
                }
            }
        }
        failures.finish()
    }
}

/// Moves the counter cells out of a row image into one increment of the counters that are
/// not 0.
fn take_counters<T: HBaseEntity>(image: &mut RowImage) -> Increment {
    let mut increment = Increment::new(image.put.row.clone());
    image.put.cells.retain(|cell| {
        let counter = T::COLUMNS.iter().any(|c| {
            c.kind == ColumnKind::Counter
                && c.family.as_bytes() == &cell.family[..]
                && c.qualifier.as_bytes() == &cell.qualifier[..]
        });
        if counter {
            let by = i64::from_be_bytes(cell.value[..].try_into().unwrap_or([0; 8]));
            if by != 0 {
                increment
                    .columns
                    .push((cell.family.to_vec(), cell.qualifier.to_vec(), by));
            }
        }
        !counter
    });
    increment
}

/// The row mutations of a save: the put, deletes of `None` columns, and deletes of the wide
/// map entries stored but not in the value (read first, qualifiers only).
async fn image_mutations<T: HBaseEntity>(table: &Table, image: RowImage) -> Result<RowMutations> {
    let mut delete = image
        .clearing(T::COLUMNS)
        .unwrap_or_else(|| Delete::new(image.put.row.clone()));
    let RowImage { put, wide, .. } = image;
    let row = put.row.clone();
    if !wide.is_empty() {
        let mut get = Get::new(row.clone()).filter("KeyOnlyFilter()");
        for &i in &wide {
            get = get.family(T::COLUMNS[i].family);
        }
        if let Some(stored) = table.get(get).await? {
            let kept: std::collections::HashSet<(&[u8], &[u8])> = put
                .cells
                .iter()
                .map(|p| (&p.family[..], &p.qualifier[..]))
                .collect();
            for cell in stored.cells {
                if !kept.contains(&(cell.family.as_ref(), cell.qualifier.as_ref())) {
                    delete = delete.column(cell.family, cell.qualifier);
                }
            }
        }
    }
    let mut mutations = RowMutations::new(row);
    if !put.cells.is_empty() {
        mutations = mutations.put(put);
    }
    if !delete.targets.is_empty() {
        mutations = mutations.delete(delete);
    }
    Ok(mutations)
}

/// How a save stamps its cells: a timestamp for those without their own, a TTL.
#[derive(Clone, Copy, Debug, Default)]
struct Stamp {
    ts: Option<i64>,
    ttl: Option<std::time::Duration>,
}

impl Stamp {
    fn apply(self, mutations: &mut RowMutations) {
        for m in &mut mutations.mutations {
            if let Mutation::Put(p) = m {
                if let Some(ts) = self.ts {
                    for c in &mut p.cells {
                        c.timestamp.get_or_insert(ts);
                    }
                }
                p.ttl = self.ttl.or(p.ttl);
            }
        }
    }
}

fn conflict(table: &Table, row: &[u8], reason: String) -> Error {
    Error::Conflict {
        table: table.name().to_string(),
        row: printable_key(row),
        reason,
    }
}

fn version_column<T: HBaseEntity>() -> Result<&'static crate::mapping::ColumnDef> {
    T::COLUMNS
        .iter()
        .find(|c| c.kind == ColumnKind::Version)
        .ok_or_else(|| Error::IllegalArgument {
            message: format!(
                "{} has no #[hbase(version)] field",
                std::any::type_name::<T>()
            ),
        })
}

fn names_of<T: HBaseEntity>(kind: ColumnKind) -> String {
    let names: Vec<_> = T::COLUMNS
        .iter()
        .filter(|c| c.kind == kind)
        .map(|c| c.field)
        .collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}
