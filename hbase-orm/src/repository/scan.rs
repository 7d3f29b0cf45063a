//! `EntityScan<T>`: typed scans of one entity type, streamed or read a page at a time.

use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use futures::stream::{BoxStream, StreamExt, TryStreamExt};

use crate::client::plan::{KeyRange, Salt, ScanPlan};
use crate::client::{RowStream, Table};
use crate::mapping::fields::FieldSet;
use crate::mapping::read::{max_versions, presence_rule, read_columns, ReadOptions};
use crate::mapping::rowkey::KeyPrefix;
use crate::mapping::rows::{decode_scanned_entity, Presence};
use crate::mapping::EntityKey;
use crate::mapping::{encode_key, HBaseEntity};
use crate::model::{Column, Scan};
use crate::model::{Error, Result, ScannedRow};
use crate::repository::decoding::Decoding;
use crate::repository::dictionary::{fill_names, resolve_parts};
use crate::repository::filter_expr::Filters;

/// A typed scan being built; see [`Repository::scan`]. Finish it with [`EntityScan::stream`]
/// or [`EntityScan::page`].
///
/// # Filters
///
/// [`where_eq`](EntityScan::where_eq), [`where_ne`](EntityScan::where_ne),
/// [`where_range`](EntityScan::where_range), [`where_ge`](EntityScan::where_ge) (and `gt`,
/// `le`, `lt`) and [`where_prefix`](EntityScan::where_prefix) keep the entities whose stored
/// field compares with a value encoded by the field's own codec, on the server; a raw
/// filter-language expression goes with [`filter`](EntityScan::filter). Several calls AND
/// together, and they apply to every bucket of a salted entity. Rows without the field (an
/// `Option` field that is `None`) are dropped by every comparison, `where_ne` included. A
/// projection ([`fields`](EntityScan::fields)) also reads the fields the filters test, since
/// HBase can only test a column the scan reads. An encode error is returned by
/// [`stream`](EntityScan::stream) or [`page`](EntityScan::page).
///
/// Comparisons are on the stored bytes, newest version only. Equality always works; ranges
/// follow numeric order only for encodings that sort like numbers (unsigned integers, signed
/// ones that are never negative: [`Native`](crate::Native) signed integers are big-endian
/// two's complement and floats IEEE 754 bits, so negative values sort after positive ones),
/// and text is compared byte by byte.
///
/// Row-key parts have typed handles too (`Reading::TS`, a [`KeyField`](crate::entity::KeyField)):
/// [`where_key_eq`](EntityScan::where_key_eq) and
/// [`where_key_between`](EntityScan::where_key_between) keep the entities whose key holds a
/// value of that part, a later part included ("every device's readings between t1 and t2"
/// with the key `[device][reverse ts]`). The client tests each row's key, exactly, before
/// decoding it. HBase runs the test too, as a `RowFilter(=, 'regexstring:...')`, only for
/// the equality of a text part behind a salt byte, a tag and delimited parts: its filter
/// language reads keys as UTF-8 text, where other bytes (a binary integer, a reverse
/// timestamp) cannot be matched exactly, so for those the rows are sent and dropped here.
///
/// ```no_run
/// # use hbase_orm::{HBaseEntity, Client};
/// # #[derive(HBaseEntity)]
/// # #[hbase(table = "orders", family = "d")]
/// # struct Order { #[hbase(key)] id: u64, city: String, total: u64 }
/// # async fn demo(client: Client) -> hbase_orm::Result<()> {
/// use futures::TryStreamExt;
///
/// let orders = client.repository::<Order>();
/// let found: Vec<Order> = orders
///     .scan()
///     .where_eq(Order::CITY, &"Paris".to_string())
///     .where_range(Order::TOTAL, &100, &500)
///     .limit(20)
///     .stream()
///     .try_collect()
///     .await?;
/// # Ok(()) }
/// ```
///
/// [`Repository::scan`]: crate::repository::repo::Repository::scan
pub struct EntityScan<T: HBaseEntity> {
    table: Table,
    /// Direction, limit, page size; the bounds are filled in by [`EntityScan::stream`].
    scan: Scan,
    prefix: Option<KeyPrefix>,
    from: Option<T::Key>,
    until: Option<T::Key>,
    after: Option<T::Key>,
    fields: Option<Vec<Column>>,
    /// How the projection in `fields` treats the presence cell (see `presence_rule`).
    presence: Presence,
    /// Server-side filters, ANDed (see `filters.rs`).
    filters: Filters,
    error: Option<Error>,
    /// Set when a row from a secondary region replica decodes ([`EntityScan::page`]'s).
    stale_seen: Option<Arc<AtomicBool>>,
    entity: PhantomData<fn() -> T>,
}

/// Limits below this many entities set the scan's page size to the limit (unless the caller
/// set one), so that a small limit reads a small page.
const SMALL_LIMIT: usize = 256;

/// Writes `reversed` and `limit`, the options every typed scan builder (this one and
/// `IndexScan`) keeps in its `scan: Scan` field, each with its own doc line.
macro_rules! direction_and_limit {
    (reversed: $reversed:literal, limit: $limit:literal,) => {
        #[doc = $reversed]
        pub fn reversed(mut self) -> Self {
            self.scan.reversed = true;
            self
        }

        #[doc = $limit]
        pub fn limit(mut self, n: usize) -> Self {
            self.scan.limit = Some(n);
            self
        }
    };
}
pub(super) use direction_and_limit;

/// One page of a paged scan.
#[derive(Debug, Clone)]
pub struct Page<T: HBaseEntity> {
    /// The entities, in scan order.
    pub items: Vec<T>,
    /// The key to pass to [`EntityScan::after`] for the next page; `None` when this page was
    /// the last (no entity follows it).
    pub next: Option<T::Key>,
    /// Whether a secondary region replica sent some of the entities (a scan with
    /// [`Consistency::Timeline`](crate::Consistency::Timeline)): they may miss recent writes.
    pub stale: bool,
}

impl<T: HBaseEntity> Page<T> {
    /// Whether a secondary region replica sent some of the entities.
    pub fn is_stale(&self) -> bool {
        self.stale
    }
}

impl<T: HBaseEntity> EntityScan<T> {
    /// A scan of all of `table`, or one that fails with `error` when run.
    pub(super) fn new(table: Table, error: Option<Error>) -> Self {
        EntityScan {
            table,
            scan: Scan::new(),
            prefix: None,
            from: None,
            until: None,
            after: None,
            fields: None,
            presence: Presence::Required,
            filters: Filters::default(),
            error,
            stale_seen: None,
            entity: PhantomData,
        }
    }

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

    direction_and_limit! {
        reversed: "Largest key first.",
        limit: "At most `n` entities.",
    }

    /// Reads up to `regions` of the table's regions at once, one page ahead each, rows still
    /// in key order: see [`Scan::parallel`]. A salted entity's scan already reads all its
    /// buckets at once and ignores this.
    pub fn parallel(mut self, regions: usize) -> Self {
        self.scan.parallel = Some(regions);
        self
    }

    /// Rows fetched per round trip.
    pub fn page_size(mut self, rows: i32) -> Self {
        self.scan.caching = Some(rows);
        self
    }

    /// Reads with these options: a time range, fewer versions of versioned fields, a
    /// [`Consistency`](crate::Consistency) (`Timeline`: a secondary region replica may
    /// answer; [`Page::stale`] says whether one did).
    pub fn read_options(mut self, options: &ReadOptions) -> Self {
        let scan = &mut self.scan;
        options.apply(
            &mut scan.time_range,
            &mut scan.max_versions,
            &mut scan.consistency,
        );
        self
    }

    /// Reads only the named fields (the others must be `Option` or have a default).
    pub fn fields(mut self, fields: impl FieldSet<T>) -> Self {
        let fields = &fields.field_names()[..];
        self.presence = presence_rule::<T>(Some(fields), false);
        match read_columns::<T>(Some(fields)) {
            Ok(c) => self.fields = Some(c),
            Err(e) => {
                self.error.get_or_insert(e);
            }
        }
        self
    }

    /// Applies `add` to the scan's filters; its error is kept for [`EntityScan::stream`].
    pub(super) fn with_filters(mut self, add: impl FnOnce(&mut Filters) -> Result<()>) -> Self {
        if let Err(e) = add(&mut self.filters) {
            self.error.get_or_insert(e);
        }
        self
    }

    /// Runs the scan: a stream of decoded entities. The first decode error ends the stream.
    ///
    /// On a salted entity, a scan whose prefix does not fix the bucket runs once per bucket
    /// and merges the results in key order ([`Table::scan_salted`]); rows of other record
    /// types in a shared table are skipped.
    pub fn stream(self) -> BoxStream<'static, Result<T>> {
        if !T::has_dictionary_parts() {
            return self.rows_to_entities();
        }
        // Dictionary key parts: the bounds' names become ids first, and the entities read get
        // their names.
        let client = self.table.client().clone();
        let table = self.table.name().clone();
        let (bounds_client, fill_client) = (client.clone(), client);
        futures::stream::once(async move {
            self.resolve_bounds(&bounds_client).await?;
            Ok::<_, Error>(self.rows_to_entities())
        })
        .try_flatten()
        .and_then(move |e| {
            let (client, table) = (fill_client.clone(), table.clone());
            async move { fill_names(&client, &table, &e).await.map(|()| e) }
        })
        .boxed()
    }

    /// Gives the dictionary parts of the scan's bounds their ids (a bound naming a name
    /// without one is an error: no row has it).
    async fn resolve_bounds(&self, client: &crate::client::Client) -> Result<()> {
        if !T::has_dictionary_parts() {
            return Ok(());
        }
        for key in [&self.from, &self.until, &self.after].into_iter().flatten() {
            if !resolve_parts::<T>(client, key.dictionary_parts(), false).await? {
                return Err(Error::IllegalArgument {
                    message: format!(
                        "scan bound {key:?}: a dictionary name of it has no id, so no row has \
                         it; choose bounds from names that were saved"
                    ),
                });
            }
        }
        Ok(())
    }

    /// Counts the entities the scan would return without reading them: HBase sends each
    /// row's key and its presence cell only, with the value stripped (`KeyOnlyFilter`) when
    /// the scan has no filters of its own (a filtered count also reads the columns the
    /// filters compare, on the server). Bounds, prefixes, key tests, salt buckets, record
    /// types and the limit apply as they do to [`stream`](EntityScan::stream); a row without
    /// the entity's presence cell holds no entity and is not counted. Nothing is decoded,
    /// so a row whose cells would fail to decode is counted.
    ///
    /// ```no_run
    /// # use hbase_orm::{HBaseEntity, Client};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "orders", family = "d")]
    /// # struct Order { #[hbase(key)] id: u64, city: String, total: u64 }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// let orders = client.repository::<Order>();
    /// let all = orders.scan().count().await?;
    /// let in_paris = orders.scan().where_eq(Order::CITY, &"Paris".to_string()).count().await?;
    /// # Ok(()) }
    /// ```
    pub async fn count(mut self) -> Result<u64> {
        self.resolve_bounds(self.table.client()).await?;
        let (family, qualifier) = crate::mapping::rows::presence_cell::<T>();
        self.fields = Some(vec![Column {
            family: family.as_bytes().to_vec(),
            qualifier: Some(qualifier.as_bytes().to_vec()),
        }]);
        if self.filters.expression().is_none() {
            self.filters.raw(b"KeyOnlyFilter()".to_vec());
        }
        let (rows, limit) = self.plan()?;
        if limit == Some(0) {
            return Ok(0);
        }
        let key_tests = self.filters.key_tests();
        let mut rows = rows.into_scanned();
        let mut counted = 0u64;
        while let Some(row) = rows.try_next().await? {
            let key = row.key();
            if T::is_record(key) && key_tests.iter().all(|t| t.passes(key)) {
                counted += 1;
                if limit.is_some_and(|n| counted >= n as u64) {
                    break;
                }
            }
        }
        Ok(counted)
    }

    /// The stream of decoded entities, once the bounds encode.
    fn rows_to_entities(mut self) -> BoxStream<'static, Result<T>> {
        match self.plan() {
            Ok((rows, limit)) => {
                let table = self.table.name().clone();
                let presence = if self.scan.time_range.is_some() {
                    Presence::Unchecked
                } else {
                    self.presence
                };
                // Each row decodes from the page it arrived in: no `Row` is made of it. A
                // partial row (no presence cell) holds no entity and is skipped.
                // Rows of other record types, and keys a key test drops, before any decoding.
                let key_tests = self.filters.key_tests();
                let stale_seen = self.stale_seen.take();
                let decode = move |row: &ScannedRow| {
                    let key = row.key();
                    if !(T::is_record(key) && key_tests.iter().all(|t| t.passes(key))) {
                        return None;
                    }
                    if let Some(seen) = stale_seen.as_ref().filter(|_| row.is_stale()) {
                        seen.store(true, Ordering::Relaxed);
                    }
                    decode_scanned_entity::<T>(row, &table, presence).transpose()
                };
                Decoding::new(rows.into_scanned(), limit, decode).boxed()
            }
            Err(e) => futures::stream::once(async move { Err(e) }).boxed(),
        }
    }

    /// Turns the builder into a row stream, and the limit still to apply to decoded
    /// entities (for record types sharing a table the server's limit would count the other
    /// types' rows too).
    fn plan(&mut self) -> Result<(RowStream, Option<usize>)> {
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
        let mut range = KeyRange::new(from, until);
        let every_bucket = salted.map_or(Salt::Unsalted, Salt::Buckets);
        let salt = match (&self.prefix, salted) {
            // A prefix that fixes the bucket: one bucket, the rest of the prefix within it.
            (Some(p), Some(_)) if !p.all_buckets => match p.bytes.split_first() {
                Some((bucket, rest)) => {
                    range = range.with_prefix(rest);
                    Salt::Bucket(*bucket)
                }
                None => every_bucket,
            },
            (Some(p), _) => {
                range = range.with_prefix(&p.bytes);
                every_bucket
            }
            (None, _) => every_bucket,
        };
        if let Some(after) = after {
            range.past(&after, self.scan.reversed);
        }
        let mut scan = self.scan.clone();
        scan.max_versions = scan.max_versions.or(max_versions::<T>());
        scan.columns = match &self.fields {
            Some(f) => {
                let mut columns = f.clone();
                self.filters.read_tested(&mut columns);
                columns
            }
            None => read_columns::<T>(None)?,
        };
        scan.filter = self.filters.expression();
        // Rows of other record types and partial rows are skipped here, so the server must
        // not count them: the limit applies to the entities, on this side. A page no longer
        // than a small limit keeps it from reading a whole default page.
        let limit = scan.limit.take();
        if let (Some(n), None) = (limit, scan.caching) {
            if n < SMALL_LIMIT {
                scan.caching = Some(n.max(1) as i32);
            }
        }
        let rows = self.table.scan_planned(scan, ScanPlan { range, salt });
        Ok((rows, limit))
    }

    /// Reads one page of `size` entities; pass [`Page::next`] to [`EntityScan::after`] on a
    /// scan with the same settings for the next page. [`Page::next`] is `None` exactly when
    /// no entity follows the page: the scan reads one entity past the page to know, so a
    /// last page that is full (a table of 20 entities read 10 at a time) says it is the last.
    pub async fn page(mut self, size: usize) -> Result<Page<T>> {
        if size == 0 {
            return Ok(Page {
                items: Vec::new(),
                next: None,
                stale: false,
            });
        }
        self.scan.limit = Some(size.saturating_add(1));
        let stale = Arc::new(AtomicBool::new(false));
        self.stale_seen = Some(stale.clone());
        let mut items: Vec<T> = self.stream().try_collect().await?;
        let next = if items.len() > size {
            items.truncate(size);
            items.last().map(T::key)
        } else {
            None
        };
        let stale = stale.load(Ordering::Relaxed);
        Ok(Page { items, next, stale })
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
            .field("filters", &self.filters)
            .field("scan", &self.scan)
            .finish()
    }
}
