//! Per-version access to a field's cell: [`CellVersions`] writes one version (now or at a
//! timestamp), reads the newest versions or those in a time range, and deletes one version or
//! all of them, for one key, without reading or rewriting the rest of the row: what
//! [`WideMap`](crate::WideMap) is to a wide map, for a `#[hbase(versions = N)]` field.
//!
//! How many versions HBase keeps is the family's `max_versions` (the derive sets it to at
//! least the `versions = N` a field reads); a version past it is dropped by HBase, at the
//! latest at the next compaction.

use crate::client::Table;
use crate::mapping::codec::Codec;
use crate::mapping::fields::Field;
use crate::mapping::{encode_key, ColumnKind, EntityKey, HBaseEntity, Versions};
use crate::model::{printable_key, Delete, Error, Get, Put, Result, Row};
use crate::repository::repo::Repository;

impl<T: HBaseEntity> Repository<T> {
    /// Version by version access to the cell of field `field` (`Device::SCORES`, a
    /// `#[hbase(versions = N)]` field, or a plain field whose family keeps versions).
    ///
    /// ```no_run
    /// # use hbase_orm::{Client, HBaseEntity, Versions};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "devices", family = "d")]
    /// # struct Device { #[hbase(key)] id: u64, #[hbase(versions = 10)] scores: Versions<f64> }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// let scores = client.repository::<Device>().versions(Device::SCORES);
    /// let key = DeviceKey { id: 7 };
    /// scores.put_at(&key, 1_700_000_000_000, &0.93).await?; // one firmware's score
    /// scores.put(&key, &0.97).await?; // another, at the server's time
    /// let newest = scores.latest(&key, 1).await?;
    /// assert_eq!(newest.newest().map(|v| v.value), Some(0.97));
    /// # Ok(()) }
    /// ```
    pub fn versions<V, C: Codec<V>>(&self, field: Field<T, V, C>) -> CellVersions<T, V, C> {
        CellVersions {
            repo: self.clone(),
            field,
        }
    }
}

/// The versions of one field's cell, for a key at a time; from [`Repository::versions`].
/// Cheap to clone.
///
/// Writes here change one version of one cell: they neither read nor rewrite the entity's
/// other fields or versions. A version written into a row that holds no entity yet leaves a
/// row that [`Repository::get`] does not read as an entity (see
/// [partial rows](Repository#partial-rows)) until the entity is saved.
pub struct CellVersions<E, V, C> {
    repo: Repository<E>,
    field: Field<E, V, C>,
}

impl<E, V, C> Clone for CellVersions<E, V, C> {
    fn clone(&self) -> Self {
        CellVersions {
            repo: self.repo.clone(),
            field: self.field,
        }
    }
}

impl<E, V, C> std::fmt::Debug for CellVersions<E, V, C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CellVersions")
            .field("repository", &self.repo)
            .field("field", &self.field)
            .finish()
    }
}

impl<E: HBaseEntity, V, C: Codec<V>> CellVersions<E, V, C> {
    /// The field these are the versions of.
    pub fn field(&self) -> Field<E, V, C> {
        self.field
    }

    /// Refuses a field whose cell does not hold versions of a value (a counter, a version
    /// number, a map, a group).
    fn check_field(&self) -> Result<()> {
        let def = self.field.def();
        if !matches!(def.kind, ColumnKind::Value | ColumnKind::Versions(_)) {
            return Err(Error::IllegalArgument {
                message: format!(
                    "{}::{} is a {:?} field: per-version access is for plain and \
                     `versions = N` fields",
                    std::any::type_name::<E>(),
                    def.field,
                    def.kind
                ),
            });
        }
        Ok(())
    }

    /// The table and encoded row key of `key` (its dictionary names already have ids).
    fn locate(&self, key: &E::Key) -> Result<(Table, Vec<u8>)> {
        Ok((self.repo.table_for(key), encode_key::<E>(key)?))
    }

    /// The table and row of `key` for a read or a delete; `None` when a dictionary name of
    /// the key has no id (no row has it).
    async fn existing(&self, key: &E::Key) -> Result<Option<(Table, Vec<u8>)>> {
        self.check_field()?;
        if !self.repo.key_known(key).await? {
            return Ok(None);
        }
        self.locate(key).map(Some)
    }

    /// Writes `value` as a new version at the server's time (the newest).
    ///
    /// Like every put, it is sent again after a connection breaks, and a repeat stamped with
    /// the server's time adds a second version of the same value (pushing out the oldest
    /// one kept when the family is full): use [`put_at`](Self::put_at) where each version
    /// must be written exactly once.
    pub async fn put(&self, key: &E::Key, value: &V) -> Result<()> {
        self.write(key, value, None).await
    }

    /// Writes `value` as the version at `timestamp` (milliseconds since the epoch); an
    /// existing version at that timestamp is replaced.
    pub async fn put_at(&self, key: &E::Key, timestamp: i64, value: &V) -> Result<()> {
        self.write(key, value, Some(timestamp)).await
    }

    async fn write(&self, key: &E::Key, value: &V, timestamp: Option<i64>) -> Result<()> {
        self.check_field()?;
        // Names of dictionary parts get their ids first (assigned if new), as a save does.
        if E::has_dictionary_parts() {
            self.repo
                .resolve_parts(key.dictionary_parts(), true)
                .await?;
        }
        let (table, row) = self.locate(key)?;
        let def = self.field.def();
        let mut put = Put::new(row);
        put.push(
            def.family,
            def.qualifier,
            self.field.encode(value)?,
            timestamp,
        );
        table.put(put).await
    }

    /// The newest `n` versions, newest first (fewer when fewer are kept); empty when the
    /// cell has none, or for `n = 0`.
    pub async fn latest(&self, key: &E::Key, n: u32) -> Result<Versions<V>> {
        if n == 0 {
            self.check_field()?;
            return Ok(Versions::new());
        }
        let versions = i32::try_from(n).unwrap_or(i32::MAX);
        self.read(key, |get| get.max_versions(versions)).await
    }

    /// Every kept version with `from <= timestamp < until`, newest first; empty when
    /// `until <= from`.
    pub async fn in_range(&self, key: &E::Key, from: i64, until: i64) -> Result<Versions<V>> {
        if until <= from {
            self.check_field()?;
            return Ok(Versions::new());
        }
        self.read(key, |get| {
            get.time_range(from, until).max_versions(i32::MAX)
        })
        .await
    }

    async fn read(&self, key: &E::Key, shape: impl FnOnce(Get) -> Get) -> Result<Versions<V>> {
        let Some((table, row)) = self.existing(key).await? else {
            return Ok(Versions::new());
        };
        let def = self.field.def();
        let get = shape(Get::new(row.clone()).column(def.family, def.qualifier));
        match table.get(get).await? {
            Some(found) => self.decode(&table, &found),
            None => Ok(Versions::new()),
        }
    }

    /// The versions of the field's cell in `row`, newest first.
    fn decode(&self, table: &Table, row: &Row) -> Result<Versions<V>> {
        let def = self.field.def();
        let ours = |c: &&crate::model::Cell| {
            c.family == def.family.as_bytes() && c.qualifier == def.qualifier.as_bytes()
        };
        // `Versions::push` keeps them newest first, whatever order they come in.
        let mut versions = Versions::new();
        for cell in row.cells.iter().filter(ours) {
            let value = C::decode(&cell.value).map_err(|reason| Error::Decode {
                table: table.name().to_string(),
                row: printable_key(&row.key),
                column: format!(
                    "{}:{} (version {} of field `{}`)",
                    def.family, def.qualifier, cell.timestamp, def.field
                ),
                expected: C::expected().into_owned(),
                reason,
            })?;
            versions.push(cell.timestamp, value);
        }
        Ok(versions)
    }

    /// Deletes the version at exactly `timestamp`; the others stay.
    pub async fn delete_at(&self, key: &E::Key, timestamp: i64) -> Result<()> {
        let Some((table, row)) = self.existing(key).await? else {
            return Ok(());
        };
        let def = self.field.def();
        table
            .delete(Delete::new(row).version(def.family, def.qualifier, timestamp))
            .await
    }

    /// Deletes every version of the cell (the field reads as missing afterwards).
    pub async fn delete_all(&self, key: &E::Key) -> Result<()> {
        let Some((table, row)) = self.existing(key).await? else {
            return Ok(());
        };
        let def = self.field.def();
        table
            .delete(Delete::new(row).column(def.family, def.qualifier))
            .await
    }
}
