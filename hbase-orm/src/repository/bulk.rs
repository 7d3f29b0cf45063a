//! Entities bulk-loaded: each value's cells as a save writes them, and its index rows, fed to
//! one load per table (`bulk::Feed`), the index tables loaded first.

use std::borrow::Borrow;

use futures::{Stream, StreamExt};

use crate::bulk::{tell_read, BulkLoadOptions, BulkLoadReport, Feed, Progress, WHOLE};
use crate::client::Table;
use crate::mapping::{row_into, HBaseEntity, RowBuffers, INDEX_FAMILY, INDEX_QUALIFIER};
use crate::model::{CellRef, Result};
use crate::repository::repo::Repository;

impl<T: HBaseEntity> Repository<T> {
    /// Loads `values` as HFiles handed to the region servers (as [`Table::bulk_load`], native
    /// backend): the fastest way to import many entities. Each value is written as a save
    /// writes its cells (counters with their values, as [`Repository::insert`] writes them),
    /// into the table of its key, and its index rows into the index tables, so that index
    /// queries find the loaded entities. Dictionary key parts get their ids first, as a save
    /// gives them.
    ///
    /// A load is an import, not a save: nothing is read first, so a row already stored keeps
    /// what the value leaves out (columns of `None` fields, wide entries, the index rows of its
    /// old field values), and a version field is written without the optimistic check. The
    /// index tables are loaded before the data tables, one after the other, so that a load
    /// that fails never leaves a loaded entity its index cannot find (index rows whose entity
    /// is not loaded are never returned by index reads); a failure stops at the table it
    /// happened in (the tables before it are loaded; within it, [`crate::Error::BulkLoad`]
    /// says what was). A gateway (or the in-memory store) refuses the load before any value
    /// is read ([`crate::Error::Unsupported`]); the dictionary ids of new key parts are
    /// written as the values are read, before the first table is loaded. The values are
    /// sorted in memory, as compact records of their cells (not as puts).
    ///
    /// ```no_run
    /// # use hbase_orm::{BulkLoadOptions, Client, HBaseEntity};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "orders", family = "d")]
    /// # struct Order { #[hbase(key)] id: u64, total: f64 }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// let orders: Vec<Order> = (0..1_000_000).map(|id| Order { id, total: 9.5 }).collect();
    /// let report = client
    ///     .repository::<Order>()
    ///     .bulk_load(&orders, &BulkLoadOptions::new())
    ///     .await?;
    /// println!("{} cells in {} files", report.cells, report.files);
    /// # Ok(()) }
    /// ```
    pub async fn bulk_load(
        &self,
        values: &[T],
        options: &BulkLoadOptions,
    ) -> Result<BulkLoadReport> {
        let values = futures::stream::iter(values.iter().map(Ok));
        self.load_values("bulk_load", values, options, WHOLE).await
    }

    /// [`Repository::bulk_load`] of a stream of values of any length: each value is written
    /// as its data row and index rows when it arrives (and dropped), and each table's rows are
    /// sorted in chunks spilled to the staging directory, so that the load holds about
    /// [`BulkLoadOptions::memory_budget`] whatever the input's size (shared by the tables it
    /// writes: a table per index, and the data table, or one per period a template table's
    /// values fall in, each holding its share). The tables are loaded once the stream has
    /// ended: the index tables first, then the data tables. An error of the stream ends the
    /// load before any file is handed over.
    ///
    /// [`BulkLoadOptions::on_progress`] is told every 65,536 values read
    /// ([`BulkLoadReport::read`]), then as the regions take their files, the figures of every
    /// table loaded so far added up (`read` stays the values read).
    ///
    /// ```no_run
    /// # use hbase_orm::{BulkLoadOptions, Client, HBaseEntity};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "orders", family = "d")]
    /// # struct Order { #[hbase(key)] id: u64, total: f64 }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// // Ten million orders made as they are loaded, never all in memory.
    /// let orders = futures::stream::iter((0..10_000_000).map(|id| Ok(Order { id, total: 9.5 })));
    /// let options = BulkLoadOptions::new()
    ///     .memory_budget(256 << 20)
    ///     .on_progress(|so_far| eprint!("\r{} read, {} loaded", so_far.read, so_far.rows));
    /// let report = client.repository::<Order>().bulk_load_stream(orders, &options).await?;
    /// assert_eq!(report.read, 10_000_000);
    /// # Ok(()) }
    /// ```
    pub async fn bulk_load_stream(
        &self,
        values: impl Stream<Item = Result<T>> + Send,
        options: &BulkLoadOptions,
    ) -> Result<BulkLoadReport> {
        let budget = options.budget();
        self.load_values("bulk_load_stream", values, options, budget)
            .await
    }

    /// The load of `bulk_load` and `bulk_load_stream` (`call`), the tables' inputs sorted
    /// under `budget` bytes in all ([`WHOLE`]: in memory).
    async fn load_values<V: Borrow<T>>(
        &self,
        call: &'static str,
        values: impl Stream<Item = Result<V>> + Send,
        options: &BulkLoadOptions,
        budget: usize,
    ) -> Result<BulkLoadReport> {
        // A share of the budget per table: the index tables', the data table's (each period's
        // of a template table).
        let share = if budget == WHOLE {
            WHOLE
        } else {
            (budget / (T::INDEXES.len() + 1)).max(1)
        };
        let mut feeds = Feeds::<T> {
            index: Vec::new(),
            data: Vec::new(),
            call,
            options,
            share,
            entity: std::marker::PhantomData,
        };
        let result = self.feed(&mut feeds, values, options.progress()).await;
        let read = match result {
            Ok(read) => read,
            Err(e) => {
                feeds.abandon().await;
                return Err(e);
            }
        };
        feeds.finish(read, options.progress()).await
    }

    /// Feeds each value's rows to the loads of the tables it writes (started as they are
    /// first needed); the values read.
    async fn feed<V: Borrow<T>>(
        &self,
        feeds: &mut Feeds<'_, T>,
        values: impl Stream<Item = Result<V>> + Send,
        progress: Option<&Progress<'_>>,
    ) -> Result<u64> {
        for def in T::INDEXES {
            feeds.index.push(feeds.start(&self.index_table(def)).await?);
        }
        if !self.routed() {
            feeds.data.push(feeds.start(self.table()).await?);
        }
        futures::pin_mut!(values);
        let mut read = 0;
        // Each value's row is written into the same buffers, and copied from there.
        let mut buffers = RowBuffers::default();
        while let Some(value) = values.next().await {
            let value = value?;
            let value = value.borrow();
            self.name_parts(value).await?;
            row_into(value, &mut buffers, true)?;
            for (def, feed) in T::INDEXES.iter().zip(&mut feeds.index) {
                if let Some(key) = def.key_of(value)? {
                    let entry = CellRef {
                        family: INDEX_FAMILY.as_bytes(),
                        qualifier: INDEX_QUALIFIER.as_bytes(),
                        value: buffers.row(),
                        timestamp: i64::MAX,
                    };
                    feed.push_row(&key, std::iter::once(entry)).await?;
                }
            }
            let data = if self.routed() {
                let table = self.table_for(&value.key());
                match feeds.data.iter().position(|f| f.table() == table.name()) {
                    Some(i) => i,
                    None => {
                        feeds.data.push(feeds.start(&table).await?);
                        feeds.data.len() - 1
                    }
                }
            } else {
                0
            };
            feeds.data[data]
                .push_row(buffers.row(), buffers.cells())
                .await?;
            read += 1;
            tell_read(progress, read);
        }
        Ok(read)
    }
}

/// The loads an entity load feeds: one per index table, one per data table.
struct Feeds<'o, T> {
    index: Vec<Feed>,
    data: Vec<Feed>,
    call: &'static str,
    options: &'o BulkLoadOptions,
    share: usize,
    entity: std::marker::PhantomData<fn() -> T>,
}

impl<T: HBaseEntity> Feeds<'_, T> {
    async fn start(&self, table: &Table) -> Result<Feed> {
        Feed::start(table, self.call, self.options, self.share).await
    }

    /// Loads the tables, the index tables first (see `index.rs` for why), one after the
    /// other; a failure stops at the table it happened in, the ones after it abandoned.
    async fn finish(self, read: u64, progress: Option<&Progress<'_>>) -> Result<BulkLoadReport> {
        let mut report = BulkLoadReport::default();
        let mut feeds = self.index.into_iter().chain(self.data);
        while let Some(feed) = feeds.next() {
            let before = report.clone();
            // The callback sees the tables loaded so far added up, and the values read.
            let each = |so_far: &BulkLoadReport| {
                if let Some(progress) = progress {
                    let mut all = before.clone();
                    all.add(so_far);
                    all.read = read;
                    progress(&all);
                }
            };
            match feed.finish(Some(&each)).await {
                Ok(loaded) => report.add(&loaded),
                Err(e) => {
                    for feed in feeds {
                        feed.abandon().await;
                    }
                    return Err(e);
                }
            }
        }
        report.read = read;
        Ok(report)
    }

    /// Gives up every load.
    async fn abandon(self) {
        for feed in self.index.into_iter().chain(self.data) {
            feed.abandon().await;
        }
    }
}
