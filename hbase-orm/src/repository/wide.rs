//! Per-entry access to a `wide` map field: [`WideMap`] reads and writes single entries
//! without rewriting the row, counts entries, and [`WideSlice`] reads a range of entries a
//! page at a time, for rows with millions of them.
//!
//! Everything here reads only the map's family, with server-side filters joined by `AND`
//! (HBase filter language):
//!
//! - `ColumnRangeFilter` for the bounds: it seeks to the first qualifier in range, so a page
//!   near the end of a huge row costs what a page near its start does. An empty bound means
//!   "none" to HBase, so a lower bound after the empty qualifier is sent as `'\x00'`
//!   inclusive, and a range ending before the empty qualifier is not sent at all (it is
//!   empty).
//! - `ColumnPrefixFilter` for a qualifier prefix (it seeks too).
//! - `ColumnPaginationFilter(limit, 0)` last, so it counts only the entries the other
//!   filters let through.
//! - `KeyOnlyFilter()` for [`WideMap::count`], which needs qualifiers only.
//!
//! `impl Repository` is split by concern over `repo.rs` (reads, saves and deletes),
//! `writes.rs` (inserts, optimistic versions, counters), `wide.rs` (wide maps) and `index.rs`
//! (index maintenance and queries): each file holds the methods of one feature with the
//! private helpers only they use.

use std::borrow::Borrow;

use crate::client::Table;
use crate::mapping::codec::Codec;
use crate::mapping::fields::WideField;
use crate::mapping::rowkey::KeyCodec;
use crate::mapping::{encode_key, HBaseEntity};
use crate::model::{filter_literal, printable_key, Cell, Delete, Get, Put};
use crate::model::{Error, Result};
use crate::repository::repo::Repository;

/// Entries per round trip of [`WideMap::count`] (qualifiers only: a few tens of bytes each).
const COUNT_PAGE: usize = 10_000;

/// Entries per round trip of a [`WideSlice::fetch`] that wants more than this (values
/// included).
const FETCH_PAGE: usize = 1_000;

impl<T: HBaseEntity> Repository<T> {
    /// Per-entry access to the `wide` map field `field` of this repository's entities
    /// (`Person::ROLES`): single entries read, written and removed without touching the rest of
    /// the row, counts, and paged slices.
    ///
    /// ```no_run
    /// # use std::collections::BTreeMap;
    /// # use hbase_orm::{Client, HBaseEntity};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "people", family = "d")]
    /// # struct Person { #[hbase(key)] id: u64, name: String,
    /// #     #[hbase(family = "r", wide)] roles: BTreeMap<u32, String> }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// let people = client.repository::<Person>();
    /// let roles = people.wide(Person::ROLES);
    /// roles.put(&PersonKey { id: 1 }, &100, &"monitor".into()).await?;
    /// # Ok(()) }
    /// ```
    pub fn wide<K, V, KC, VC>(&self, field: WideField<T, K, V, KC, VC>) -> WideMap<T, K, V, KC, VC>
    where
        KC: KeyCodec<K>,
        VC: Codec<V>,
    {
        WideMap {
            repo: self.clone(),
            field,
        }
    }
}

/// The `wide` map field of entity `E` (keys `K` stored as qualifiers with `KC`, values `V`
/// with `VC`), entry by entry; from [`Repository::wide`]. Cheap to clone.
///
/// Writes here change single cells: they neither read nor rewrite the entity's other fields
/// or entries. A put on a row that does not exist yet creates a row holding only that entry
/// (which [`Repository::get`] then reads only if every other field may be missing).
///
/// ```no_run
/// # use std::collections::BTreeMap;
/// # use hbase_orm::{Client, HBaseEntity};
/// # #[derive(HBaseEntity)]
/// # #[hbase(table = "people", family = "d")]
/// # struct Person { #[hbase(key)] id: u64, name: String,
/// #     #[hbase(family = "r", wide)] roles: BTreeMap<u32, String> }
/// # async fn demo(client: Client) -> hbase_orm::Result<()> {
/// let roles = client.repository::<Person>().wide(Person::ROLES);
/// let ada = PersonKey { id: 1 };
/// roles.put(&ada, &100, &"monitor".into()).await?;
/// assert_eq!(roles.get(&ada, &100).await?.as_deref(), Some("monitor"));
/// roles.remove(&ada, &100).await?;
/// let page = roles.slice(&ada).from(&100).limit(30).fetch().await?;
/// # Ok(()) }
/// ```
pub struct WideMap<E, K, V, KC, VC> {
    repo: Repository<E>,
    field: WideField<E, K, V, KC, VC>,
}

impl<E, K, V, KC, VC> Clone for WideMap<E, K, V, KC, VC> {
    fn clone(&self) -> Self {
        WideMap {
            repo: self.repo.clone(),
            field: self.field,
        }
    }
}

impl<E, K, V, KC, VC> std::fmt::Debug for WideMap<E, K, V, KC, VC> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WideMap")
            .field("repository", &self.repo)
            .field("field", &self.field)
            .finish()
    }
}

impl<E: HBaseEntity, K, V, KC: KeyCodec<K>, VC: Codec<V>> WideMap<E, K, V, KC, VC> {
    /// The field this map is.
    ///
    /// ```no_run
    /// # use std::collections::BTreeMap;
    /// # use hbase_orm::{Client, HBaseEntity};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "people", family = "d")]
    /// # struct Person { #[hbase(key)] id: u64,
    /// #     #[hbase(family = "r", wide)] roles: BTreeMap<u32, String> }
    /// # fn demo(client: Client) {
    /// let roles = client.repository::<Person>().wide(Person::ROLES);
    /// assert_eq!(roles.field().def().family, "r");
    /// # }
    /// ```
    pub fn field(&self) -> WideField<E, K, V, KC, VC> {
        self.field
    }

    fn family(&self) -> &'static str {
        self.field.def().family
    }

    /// The table and encoded row key of the entity with key `key`.
    fn locate(&self, key: &E::Key) -> Result<(Table, Vec<u8>)> {
        Ok((self.repo.table_for(key), encode_key::<E>(key)?))
    }

    /// Writes one entry (one cell); the other entries and fields are left as they are.
    ///
    /// ```no_run
    /// # use std::collections::BTreeMap;
    /// # use hbase_orm::{Client, HBaseEntity};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "people", family = "d")]
    /// # struct Person { #[hbase(key)] id: u64,
    /// #     #[hbase(family = "r", wide)] roles: BTreeMap<u32, String> }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// let roles = client.repository::<Person>().wide(Person::ROLES);
    /// roles.put(&PersonKey { id: 1 }, &100, &"monitor".into()).await?;
    /// # Ok(()) }
    /// ```
    pub async fn put(&self, key: &E::Key, k: &K, v: &V) -> Result<()> {
        self.put_all(key, [(k, v)]).await
    }

    /// Writes several entries in one put: atomic for the row (readers see all of them or
    /// none). Other entries and fields are left as they are. Nothing is sent for no entries;
    /// keep one call below the gateway's frame limit (a few thousand small entries is fine).
    ///
    /// Takes anything that iterates over key/value pairs, owned or borrowed: a
    /// `&BTreeMap<K, V>`, a `Vec<(K, V)>`, an array of `(&K, &V)`.
    ///
    /// ```no_run
    /// # use std::collections::BTreeMap;
    /// # use hbase_orm::{Client, HBaseEntity};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "people", family = "d")]
    /// # struct Person { #[hbase(key)] id: u64,
    /// #     #[hbase(family = "r", wide)] roles: BTreeMap<u32, String> }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// let roles = client.repository::<Person>().wide(Person::ROLES);
    /// let more = BTreeMap::from([(200, "admin".to_string()), (300, "dev".to_string())]);
    /// roles.put_all(&PersonKey { id: 1 }, &more).await?;
    /// # Ok(()) }
    /// ```
    pub async fn put_all<I, KR, VR>(&self, key: &E::Key, entries: I) -> Result<()>
    where
        I: IntoIterator<Item = (KR, VR)>,
        KR: Borrow<K>,
        VR: Borrow<V>,
    {
        let (table, row) = self.locate(key)?;
        let family = self.family();
        let mut put = Put::new(row);
        for (k, v) in entries {
            let qualifier = self.field.qualifier(k.borrow())?;
            let value = self.field.encode_value(v.borrow())?;
            put.push(family, qualifier, value, None);
        }
        if put.cells.is_empty() {
            return Ok(());
        }
        table.put(put).await
    }

    /// Deletes one entry (every version of its cell); the others are left as they are. An
    /// absent entry is not an error.
    ///
    /// ```no_run
    /// # use std::collections::BTreeMap;
    /// # use hbase_orm::{Client, HBaseEntity};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "people", family = "d")]
    /// # struct Person { #[hbase(key)] id: u64,
    /// #     #[hbase(family = "r", wide)] roles: BTreeMap<u32, String> }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// let roles = client.repository::<Person>().wide(Person::ROLES);
    /// roles.remove(&PersonKey { id: 1 }, &100).await?;
    /// # Ok(()) }
    /// ```
    pub async fn remove(&self, key: &E::Key, k: &K) -> Result<()> {
        let (table, row) = self.locate(key)?;
        let qualifier = self.field.qualifier(k)?;
        table
            .delete(Delete::new(row).column(self.family(), qualifier))
            .await
    }

    /// Reads one entry's value; `None` if the map (or the row) has no such entry.
    ///
    /// ```no_run
    /// # use std::collections::BTreeMap;
    /// # use hbase_orm::{Client, HBaseEntity};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "people", family = "d")]
    /// # struct Person { #[hbase(key)] id: u64,
    /// #     #[hbase(family = "r", wide)] roles: BTreeMap<u32, String> }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// let roles = client.repository::<Person>().wide(Person::ROLES);
    /// let role: Option<String> = roles.get(&PersonKey { id: 1 }, &100).await?;
    /// # Ok(()) }
    /// ```
    pub async fn get(&self, key: &E::Key, k: &K) -> Result<Option<V>> {
        let (table, row) = self.locate(key)?;
        let qualifier = self.field.qualifier(k)?;
        let get = Get::new(row.clone()).column(self.family(), qualifier.clone());
        let Some(found) = table.get(get).await? else {
            return Ok(None);
        };
        let Some(cell) = found.cells.into_iter().find(|c| c.qualifier == qualifier) else {
            return Ok(None);
        };
        self.decode_value(&table, &row, cell).map(Some)
    }

    /// The number of entries of the map: qualifiers only (`KeyOnlyFilter`), read in pages of
    /// 10,000 so a row of millions of entries never comes back as one reply. The pages are
    /// separate reads: entries written or removed during the count may or may not be counted.
    ///
    /// ```no_run
    /// # use std::collections::BTreeMap;
    /// # use hbase_orm::{Client, HBaseEntity};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "people", family = "d")]
    /// # struct Person { #[hbase(key)] id: u64,
    /// #     #[hbase(family = "r", wide)] roles: BTreeMap<u32, String> }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// let roles = client.repository::<Person>().wide(Person::ROLES);
    /// let n: usize = roles.count(&PersonKey { id: 1 }).await?;
    /// # Ok(()) }
    /// ```
    pub async fn count(&self, key: &E::Key) -> Result<usize> {
        let (table, row) = self.locate(key)?;
        let mut bounds = Bounds::default();
        let mut total = 0;
        loop {
            let cells = self
                .read_page(&table, &row, &bounds, None, COUNT_PAGE, true)
                .await?;
            total += cells.len();
            match cells.last() {
                Some(last) if cells.len() == COUNT_PAGE => {
                    bounds.min = Some((last.qualifier.to_vec(), false));
                }
                _ => return Ok(total),
            }
        }
    }

    /// A range of entries of the entity with key `key`, in key (qualifier) order: narrow it
    /// with [`WideSlice::from`], [`WideSlice::until`], [`WideSlice::after`],
    /// [`WideSlice::prefix_bytes`] and [`WideSlice::limit`], read it with
    /// [`WideSlice::fetch`].
    ///
    /// ```no_run
    /// # use std::collections::BTreeMap;
    /// # use hbase_orm::{Client, HBaseEntity};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "people", family = "d")]
    /// # struct Person { #[hbase(key)] id: u64,
    /// #     #[hbase(family = "r", wide)] roles: BTreeMap<u32, String> }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// let roles = client.repository::<Person>().wide(Person::ROLES);
    /// let key = PersonKey { id: 1 };
    /// let mut page = roles.slice(&key).limit(30).fetch().await?;
    /// loop {
    ///     for (id, role) in &page.entries {
    ///         println!("{id}: {role}");
    ///     }
    ///     let Some(last) = page.next else { break };
    ///     page = roles.slice(&key).after(&last).limit(30).fetch().await?;
    /// }
    /// # Ok(()) }
    /// ```
    pub fn slice(&self, key: &E::Key) -> WideSlice<E, K, V, KC, VC> {
        let (table, row, error) = match self.locate(key) {
            Ok((table, row)) => (table, row, None),
            Err(e) => (self.repo.table_for(key), Vec::new(), Some(e)),
        };
        WideSlice {
            map: self.clone(),
            table,
            row,
            bounds: Bounds::default(),
            prefix: None,
            limit: None,
            error,
        }
    }

    /// Reads up to `limit` cells of the map's family within `bounds` (and `prefix`), in
    /// qualifier order, newest version only.
    async fn read_page(
        &self,
        table: &Table,
        row: &[u8],
        bounds: &Bounds,
        prefix: Option<&[u8]>,
        limit: usize,
        keys_only: bool,
    ) -> Result<Vec<Cell>> {
        // When the map's family also holds the row's marker cell (the entity has no other
        // family), the empty qualifier is the marker, not an entry: start after it.
        let mut bounds = bounds.clone();
        if bounds.min.is_none() && E::FAMILIES.first() == Some(&self.family()) {
            bounds.min = Some((vec![0], true));
        }
        let Some(range) = bounds.filter() else {
            return Ok(Vec::new());
        };
        let mut filters: Vec<Vec<u8>> = Vec::with_capacity(4);
        if keys_only {
            filters.push(b"KeyOnlyFilter()".to_vec());
        }
        if let Some(p) = prefix.filter(|p| !p.is_empty()) {
            filters.push([&b"ColumnPrefixFilter("[..], &filter_literal(p), b")"].concat());
        }
        filters.extend(range);
        // Last: it counts only the cells every filter before it let through.
        let limit = i32::try_from(limit).unwrap_or(i32::MAX);
        filters.push(format!("ColumnPaginationFilter({limit}, 0)").into_bytes());
        let get = Get::new(row.to_vec())
            .family(self.family())
            .filter(filters.join(&b" AND "[..]));
        Ok(table.get(get).await?.map(|r| r.cells).unwrap_or_default())
    }

    fn decode_entry(&self, table: &Table, row: &[u8], cell: Cell) -> Result<(K, V)> {
        let key = KC::decode(&cell.qualifier).map_err(|reason| {
            self.decode_error(
                table,
                row,
                &cell.qualifier,
                "key",
                KC::EXPECTED.into(),
                reason,
            )
        })?;
        Ok((key, self.decode_value(table, row, cell)?))
    }

    fn decode_value(&self, table: &Table, row: &[u8], cell: Cell) -> Result<V> {
        let Cell {
            qualifier, value, ..
        } = cell;
        VC::decode(&value).map_err(|reason| {
            let expected = VC::expected().into_owned();
            self.decode_error(table, row, &qualifier, "value", expected, reason)
        })
    }

    #[cold]
    fn decode_error(
        &self,
        table: &Table,
        row: &[u8],
        qualifier: &[u8],
        what: &str,
        expected: String,
        reason: String,
    ) -> Error {
        let def = self.field.def();
        Error::Decode {
            table: table.name().to_string(),
            row: printable_key(row),
            column: format!(
                "{}:{} ({what} of map field `{}`)",
                def.family,
                printable_key(qualifier),
                def.field
            ),
            expected,
            reason,
        }
    }
}

/// Qualifier bounds: `(qualifier, inclusive)` each, `None` for no bound.
#[derive(Clone, Debug, Default)]
struct Bounds {
    min: Option<(Vec<u8>, bool)>,
    max: Option<(Vec<u8>, bool)>,
}

impl Bounds {
    /// Raises the lower bound to `q` if that is tighter (an exclusive bound is tighter than an
    /// inclusive one at the same qualifier).
    fn raise_min(&mut self, q: Vec<u8>, inclusive: bool) {
        let tighter = match &self.min {
            None => true,
            Some((m, inc)) => q > *m || (q == *m && *inc && !inclusive),
        };
        if tighter {
            self.min = Some((q, inclusive));
        }
    }

    /// Lowers the upper bound to `q` if that is tighter.
    fn lower_max(&mut self, q: Vec<u8>, inclusive: bool) {
        let tighter = match &self.max {
            None => true,
            Some((m, inc)) => q < *m || (q == *m && *inc && !inclusive),
        };
        if tighter {
            self.max = Some((q, inclusive));
        }
    }

    /// The `ColumnRangeFilter` of these bounds: `Some(None)` when there are none, `None`
    /// when no qualifier can be in range.
    ///
    /// HBase reads an empty bound as "no bound": an empty exclusive lower bound becomes
    /// `'\x00'` inclusive (the smallest non-empty qualifier), and an upper bound excluding
    /// the empty qualifier leaves nothing in range.
    fn filter(&self) -> Option<Option<Vec<u8>>> {
        let min = match &self.min {
            Some((q, false)) if q.is_empty() => Some((vec![0u8], true)),
            Some((q, inc)) if !q.is_empty() => Some((q.clone(), *inc)),
            _ => None, // no bound, or `>= ''`: every qualifier
        };
        let max = match &self.max {
            Some((q, false)) if q.is_empty() => return None,
            Some((q, inc)) => Some((q.clone(), *inc)),
            None => None,
        };
        if let (Some((lo, lo_inc)), Some((hi, hi_inc))) = (&min, &max) {
            if lo > hi || (lo == hi && !(*lo_inc && *hi_inc)) {
                return None;
            }
        }
        if min.is_none() && max.is_none() {
            return Some(None);
        }
        let side = |b: &Option<(Vec<u8>, bool)>| match b {
            Some((q, inc)) => (filter_literal(q), *inc),
            // Only for an unbounded side: `''` is "no bound" to ColumnRangeFilter.
            None => (b"''".to_vec(), false),
        };
        let (lo, lo_inc) = side(&min);
        let (hi, hi_inc) = side(&max);
        Some(Some(
            [
                &b"ColumnRangeFilter("[..],
                &lo,
                format!(", {lo_inc}, ").as_bytes(),
                &hi,
                format!(", {hi_inc})").as_bytes(),
            ]
            .concat(),
        ))
    }
}

/// A range of a wide map's entries being built; from [`WideMap::slice`]. Bounds compare
/// encoded keys (qualifiers), which for the order-preserving key codecs is the keys' own
/// order. Read it with [`WideSlice::fetch`].
///
/// ```no_run
/// # use std::collections::BTreeMap;
/// # use hbase_orm::{Client, HBaseEntity};
/// # #[derive(HBaseEntity)]
/// # #[hbase(table = "people", family = "d")]
/// # struct Person { #[hbase(key)] id: u64,
/// #     #[hbase(family = "r", wide)] roles: BTreeMap<u32, String> }
/// # async fn demo(client: Client) -> hbase_orm::Result<()> {
/// let roles = client.repository::<Person>().wide(Person::ROLES);
/// let page = roles.slice(&PersonKey { id: 1 }).from(&100).until(&500).limit(30).fetch().await?;
/// # Ok(()) }
/// ```
pub struct WideSlice<E, K, V, KC, VC> {
    map: WideMap<E, K, V, KC, VC>,
    table: Table,
    row: Vec<u8>,
    bounds: Bounds,
    prefix: Option<Vec<u8>>,
    limit: Option<usize>,
    /// The first encoding error of the key or a bound, reported by `fetch`.
    error: Option<Error>,
}

impl<E, K, V, KC, VC> std::fmt::Debug for WideSlice<E, K, V, KC, VC> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WideSlice")
            .field("map", &self.map)
            .field("row", &printable_key(&self.row))
            .field("bounds", &self.bounds)
            .field("prefix", &self.prefix.as_deref().map(printable_key))
            .field("limit", &self.limit)
            .finish()
    }
}

/// One page of a wide map's entries; from [`WideSlice::fetch`].
///
/// ```no_run
/// # use std::collections::BTreeMap;
/// # use hbase_orm::{Client, HBaseEntity, WidePage};
/// # #[derive(HBaseEntity)]
/// # #[hbase(table = "people", family = "d")]
/// # struct Person { #[hbase(key)] id: u64,
/// #     #[hbase(family = "r", wide)] roles: BTreeMap<u32, String> }
/// # async fn demo(client: Client) -> hbase_orm::Result<()> {
/// let roles = client.repository::<Person>().wide(Person::ROLES);
/// let page: WidePage<u32, String> = roles.slice(&PersonKey { id: 1 }).limit(30).fetch().await?;
/// if let Some(last) = page.next {
///     let more = roles.slice(&PersonKey { id: 1 }).after(&last).limit(30).fetch().await?;
/// }
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WidePage<K, V> {
    /// The entries, in key (qualifier) order.
    pub entries: Vec<(K, V)>,
    /// The last key of a full page, to pass to [`WideSlice::after`] for the next one; `None`
    /// when fewer entries than the limit came back (or without a limit).
    pub next: Option<K>,
}

impl<E: HBaseEntity, K, V, KC: KeyCodec<K>, VC: Codec<V>> WideSlice<E, K, V, KC, VC> {
    fn encode(&mut self, k: &K) -> Option<Vec<u8>> {
        match self.map.field.qualifier(k) {
            Ok(q) => Some(q),
            Err(e) => {
                self.error.get_or_insert(e);
                None
            }
        }
    }

    /// Entries from key `k` on (included).
    ///
    /// ```no_run
    /// # use std::collections::BTreeMap;
    /// # use hbase_orm::{Client, HBaseEntity};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "people", family = "d")]
    /// # struct Person { #[hbase(key)] id: u64,
    /// #     #[hbase(family = "r", wide)] roles: BTreeMap<u32, String> }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// # let roles = client.repository::<Person>().wide(Person::ROLES);
    /// let page = roles.slice(&PersonKey { id: 1 }).from(&100).fetch().await?;
    /// assert!(page.entries.iter().all(|(k, _)| *k >= 100));
    /// # Ok(()) }
    /// ```
    pub fn from(mut self, k: &K) -> Self {
        if let Some(q) = self.encode(k) {
            self.bounds.raise_min(q, true);
        }
        self
    }

    /// Entries before key `k` (excluded).
    ///
    /// ```no_run
    /// # use std::collections::BTreeMap;
    /// # use hbase_orm::{Client, HBaseEntity};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "people", family = "d")]
    /// # struct Person { #[hbase(key)] id: u64,
    /// #     #[hbase(family = "r", wide)] roles: BTreeMap<u32, String> }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// # let roles = client.repository::<Person>().wide(Person::ROLES);
    /// let page = roles.slice(&PersonKey { id: 1 }).until(&500).fetch().await?;
    /// assert!(page.entries.iter().all(|(k, _)| *k < 500));
    /// # Ok(()) }
    /// ```
    pub fn until(mut self, k: &K) -> Self {
        if let Some(q) = self.encode(k) {
            self.bounds.lower_max(q, false);
        }
        self
    }

    /// Entries after key `k` (excluded): pass [`WidePage::next`] here for the next page.
    /// With [`WideSlice::from`] too, the tighter bound applies.
    ///
    /// ```no_run
    /// # use std::collections::BTreeMap;
    /// # use hbase_orm::{Client, HBaseEntity};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "people", family = "d")]
    /// # struct Person { #[hbase(key)] id: u64,
    /// #     #[hbase(family = "r", wide)] roles: BTreeMap<u32, String> }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// # let roles = client.repository::<Person>().wide(Person::ROLES);
    /// let first = roles.slice(&PersonKey { id: 1 }).limit(30).fetch().await?;
    /// if let Some(last) = &first.next {
    ///     let second = roles.slice(&PersonKey { id: 1 }).after(last).limit(30).fetch().await?;
    /// }
    /// # Ok(()) }
    /// ```
    pub fn after(mut self, k: &K) -> Self {
        if let Some(q) = self.encode(k) {
            self.bounds.raise_min(q, false);
        }
        self
    }

    /// Only entries whose encoded key (qualifier) starts with `prefix`: for `String` keys the
    /// text's UTF-8 bytes, for integer keys the leading big-endian bytes of their
    /// order-preserving encoding. An empty prefix selects every entry.
    ///
    /// Fails with [`Error::IllegalArgument`] when the key codec has a fixed width shorter
    /// than the prefix: no key could match, so it is a mistake.
    ///
    /// ```no_run
    /// # use std::collections::BTreeMap;
    /// # use hbase_orm::{Client, HBaseEntity};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "tags", family = "d")]
    /// # struct Tagged { #[hbase(key)] id: u64,
    /// #     #[hbase(family = "t", wide)] tags: BTreeMap<String, u32> }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// let tags = client.repository::<Tagged>().wide(Tagged::TAGS);
    /// let page = tags.slice(&TaggedKey { id: 1 }).prefix_bytes("adm")?.limit(30).fetch().await?;
    /// assert!(page.entries.iter().all(|(k, _)| k.starts_with("adm")));
    /// # Ok(()) }
    /// ```
    pub fn prefix_bytes(mut self, prefix: impl Into<Vec<u8>>) -> Result<Self> {
        let prefix = prefix.into();
        if let Some(width) = KC::WIDTH.filter(|w| prefix.len() > *w) {
            let def = self.map.field.def();
            return Err(Error::IllegalArgument {
                message: format!(
                    "a prefix of {} bytes ({}) can match no key of map field `{}` of {}: its \
                     keys are {width} bytes wide ({})",
                    prefix.len(),
                    printable_key(&prefix),
                    def.field,
                    std::any::type_name::<E>(),
                    KC::EXPECTED
                ),
            });
        }
        self.prefix = Some(prefix);
        Ok(self)
    }

    /// At most `n` entries; a full page's last key comes back as [`WidePage::next`]. Without
    /// a limit, [`WideSlice::fetch`] reads every entry in range (1,000 per round trip).
    ///
    /// ```no_run
    /// # use std::collections::BTreeMap;
    /// # use hbase_orm::{Client, HBaseEntity};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "people", family = "d")]
    /// # struct Person { #[hbase(key)] id: u64,
    /// #     #[hbase(family = "r", wide)] roles: BTreeMap<u32, String> }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// # let roles = client.repository::<Person>().wide(Person::ROLES);
    /// let page = roles.slice(&PersonKey { id: 1 }).limit(30).fetch().await?;
    /// assert!(page.entries.len() <= 30);
    /// # Ok(()) }
    /// ```
    pub fn limit(mut self, n: usize) -> Self {
        self.limit = Some(n);
        self
    }

    /// Reads the entries, in key order: one round trip per 1,000 entries, each starting
    /// where the previous one ended (HBase seeks there; it does not re-read the entries
    /// before). Keys or values that do not decode are [`Error::Decode`] naming the table,
    /// row, column and expected type.
    ///
    /// ```no_run
    /// # use std::collections::BTreeMap;
    /// # use hbase_orm::{Client, HBaseEntity};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "people", family = "d")]
    /// # struct Person { #[hbase(key)] id: u64,
    /// #     #[hbase(family = "r", wide)] roles: BTreeMap<u32, String> }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// # let roles = client.repository::<Person>().wide(Person::ROLES);
    /// let page = roles.slice(&PersonKey { id: 1 }).from(&100).limit(30).fetch().await?;
    /// for (id, role) in &page.entries {
    ///     println!("{id}: {role}");
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn fetch(self) -> Result<WidePage<K, V>> {
        let WideSlice {
            map,
            table,
            row,
            mut bounds,
            prefix,
            limit,
            error,
        } = self;
        if let Some(e) = error {
            return Err(e);
        }
        let mut entries = Vec::new();
        let mut last: Option<Vec<u8>> = None;
        loop {
            let want = match limit {
                Some(n) => n - entries.len(),
                None => FETCH_PAGE,
            };
            if want == 0 {
                break;
            }
            let page = want.min(FETCH_PAGE);
            let cells = map
                .read_page(&table, &row, &bounds, prefix.as_deref(), page, false)
                .await?;
            let got = cells.len();
            entries.reserve(got);
            for cell in cells {
                last = Some(cell.qualifier.to_vec());
                entries.push(map.decode_entry(&table, &row, cell)?);
            }
            match &last {
                Some(q) if got == page => bounds.raise_min(q.clone(), false),
                _ => break,
            }
        }
        let next = match (limit, last) {
            (Some(n), Some(q)) if n > 0 && entries.len() == n => {
                // Decoded once already with its entry: it decodes again.
                Some(KC::decode(&q).map_err(|reason| {
                    map.decode_error(&table, &row, &q, "key", KC::EXPECTED.into(), reason)
                })?)
            }
            _ => None,
        };
        Ok(WidePage { entries, next })
    }
}

#[cfg(test)]
mod tests {
    use super::Bounds;

    fn filter(min: Option<(&[u8], bool)>, max: Option<(&[u8], bool)>) -> Option<Option<String>> {
        let b = Bounds {
            min: min.map(|(q, i)| (q.to_vec(), i)),
            max: max.map(|(q, i)| (q.to_vec(), i)),
        };
        b.filter()
            .map(|f| f.map(|f| String::from_utf8_lossy(&f).into_owned()))
    }

    #[test]
    fn range_filter_of_bounds() {
        assert_eq!(filter(None, None), Some(None));
        assert_eq!(
            filter(Some((b"a", true)), None).unwrap().unwrap(),
            "ColumnRangeFilter('a', true, '', false)"
        );
        assert_eq!(
            filter(None, Some((b"it's", false))).unwrap().unwrap(),
            "ColumnRangeFilter('', false, 'it''s', false)"
        );
        assert_eq!(
            filter(Some((b"a", false)), Some((b"b", false)))
                .unwrap()
                .unwrap(),
            "ColumnRangeFilter('a', false, 'b', false)"
        );
    }

    #[test]
    fn empty_bounds_are_not_sent_as_empty_literals() {
        // `>= ''` is every qualifier; `> ''` starts at the smallest non-empty one.
        assert_eq!(filter(Some((b"", true)), None), Some(None));
        assert_eq!(
            filter(Some((b"", false)), None).unwrap().unwrap(),
            "ColumnRangeFilter('\0', true, '', false)"
        );
        // `< ''` holds nothing: HBase would read '' as no upper bound.
        assert_eq!(filter(None, Some((b"", false))), None);
    }

    #[test]
    fn empty_ranges_send_nothing() {
        assert_eq!(filter(Some((b"b", true)), Some((b"a", false))), None);
        assert_eq!(filter(Some((b"a", true)), Some((b"a", false))), None);
        assert_eq!(filter(Some((b"a", false)), Some((b"a", true))), None);
    }

    #[test]
    fn the_tighter_bound_wins() {
        let mut b = Bounds::default();
        b.raise_min(b"b".to_vec(), true);
        b.raise_min(b"a".to_vec(), false);
        assert_eq!(b.min, Some((b"b".to_vec(), true)));
        b.raise_min(b"b".to_vec(), false);
        assert_eq!(b.min, Some((b"b".to_vec(), false)));
        b.raise_min(b"b".to_vec(), true);
        assert_eq!(b.min, Some((b"b".to_vec(), false)));
        b.lower_max(b"x".to_vec(), false);
        b.lower_max(b"y".to_vec(), false);
        assert_eq!(b.max, Some((b"x".to_vec(), false)));
    }
}
