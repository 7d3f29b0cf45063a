//! [`EntityTable`]: an entity's table as a DataFusion table, its scans cut at the regions.

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::catalog::{Session, TableProvider};
use datafusion::datasource::sink::DataSinkExec;
use datafusion::datasource::TableType;
use datafusion::error::{DataFusionError, Result as DfResult};
use datafusion::logical_expr::dml::InsertOp;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown};
use datafusion::physical_plan::ExecutionPlan;
use futures::stream::BoxStream;
use hbase_orm::{BulkLoadOptions, Client, HBaseEntity, Result, TableName};

use crate::insert::{self, EntitySink};
use crate::pushdown;
use crate::scan::{batches, ReadCounts, ReadStats};
use crate::schema::EntitySchema;
use crate::values;

mod exec;
mod read;
mod regions;

pub use exec::EntityScanExec;

/// The table of entity `E` as DataFusion sees it (a [`TableProvider`]), and the Arrow batches
/// of its rows.
///
/// Its columns are [`EntitySchema::of::<E>`](EntitySchema::of). A query reads:
/// - only the cells of the columns it names (and the cell that tells a row holds an entity);
/// - only the rows of the key ranges its conditions on the leading key parts allow (`=`,
///   `IN`, then a range on the next part whose encoding keeps the values' order or a
///   `LIKE 'prefix%'` on a text part), per salt bucket for a salted key;
/// - single rows with gets, when `=` and `IN` fix every key part;
/// - rows whose keys pass the tests of `=` conditions on later key parts
///   ([`key_tests`](crate::key_tests)), tested by HBase where it can (text after delimited
///   parts), else on each row's key before the row is decoded;
/// - about `LIMIT` rows when nothing is filtered after the scan: a `LIMIT` under 1,000 reads
///   the regions one after another and stops there (a larger one reads at most `LIMIT` rows
///   per region);
/// - one partition per region, which DataFusion reads concurrently (one partition when the
///   regions listed do not follow each other exactly, as during a split).
pub struct EntityTable<E: HBaseEntity> {
    client: Client,
    table: TableName,
    schema: EntitySchema,
    stats: Arc<ReadStats>,
    settings: ReadSettings,
    bulk: Option<BulkLoadOptions>,
    per_partition: bool,
    entity: std::marker::PhantomData<fn() -> E>,
}

impl<E: HBaseEntity> Clone for EntityTable<E> {
    fn clone(&self) -> Self {
        EntityTable {
            client: self.client.clone(),
            table: self.table.clone(),
            schema: self.schema.clone(),
            stats: self.stats.clone(),
            settings: self.settings,
            bulk: self.bulk.clone(),
            per_partition: self.per_partition,
            entity: std::marker::PhantomData,
        }
    }
}

impl<E: HBaseEntity> fmt::Debug for EntityTable<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EntityTable")
            .field("entity", &std::any::type_name::<E>())
            .field("table", &self.table.to_string())
            .finish()
    }
}

impl<E: HBaseEntity> EntityTable<E> {
    /// The entity's declared table, read through `client`. An entity the SQL layer cannot
    /// show yet is refused ([`EntitySchema::of`]).
    pub fn new(client: &Client) -> Result<Self> {
        Ok(EntityTable {
            client: client.clone(),
            table: E::table_name(),
            schema: EntitySchema::of::<E>()?,
            stats: Arc::default(),
            settings: ReadSettings::default(),
            bulk: None,
            per_partition: false,
            entity: std::marker::PhantomData,
        })
    }

    /// Rows per scanner page (the scan's caching; the client's default without it).
    pub fn page_size(mut self, rows: i32) -> Self {
        self.settings.page_size = Some(rows.max(1));
        self
    }

    /// Asks HBase for whole families instead of the columns a query names: more bytes, less
    /// work on the region servers (each column asked for by name is found with a seek of its
    /// own; a query that tests no stored value has its columns kept by a qualifier filter
    /// instead, cheaper than seeks, dearer than nothing). Worth it for rows of a few short
    /// cells; by default a family is read whole only when most of its declared columns are
    /// asked for (or when it holds a wide map asked for).
    pub fn whole_families(mut self) -> Self {
        self.settings.whole_families = true;
        self
    }

    /// Reads each region in one piece: by default, when a query reads fewer regions than it
    /// has partitions (DataFusion's `target_partitions`, the machine's cores), the regions it
    /// reads whole are cut into sub-ranges read at once, so that a one-region table is not
    /// read by one scanner alone (the cuts are guessed from each region's first and last
    /// rows, two short scans when the query is planned).
    pub fn whole_regions(mut self) -> Self {
        self.settings.whole_regions = true;
        self
    }

    /// Reads a query's ranges in one partition, region after region, instead of one partition
    /// per region (for comparison, or to keep one scanner open at a time).
    pub fn one_partition(mut self) -> Self {
        self.settings.one_partition = true;
        self
    }

    /// Makes `INSERT INTO` this table a bulk load ([`Repository::bulk_load_stream`] with
    /// `options`, native backend): the query's rows become entities as they arrive, written
    /// as HFiles with their index rows, sorted under the options' memory budget and handed to
    /// the region servers once the query has ended: the way in for a large file (`INSERT INTO
    /// orders SELECT * FROM 'orders.parquet'`). A load is an import, not a save: nothing is
    /// read first, so a stored row keeps the columns an inserted one leaves out (NULLs of
    /// `Option` fields), and no row is loaded when one fails (the error names it).
    ///
    /// Without it (the default), each row is saved ([`Repository::save_all`], 500 at a
    /// time): a save's semantics, rows written as they come, and any backend.
    ///
    /// [`Repository::bulk_load_stream`]: hbase_orm::Repository::bulk_load_stream
    /// [`Repository::save_all`]: hbase_orm::Repository::save_all
    ///
    /// ```no_run
    /// # #[derive(hbase_orm::HBaseEntity)]
    /// # #[hbase(table = "orders", family = "d")]
    /// # struct Order { #[hbase(key)] id: u64, total: f64 }
    /// # async fn demo(client: hbase_orm::Client) -> Result<(), Box<dyn std::error::Error>> {
    /// use datafusion::prelude::{ParquetReadOptions, SessionContext};
    /// use hbase_orm::BulkLoadOptions;
    /// use hbase_orm_sql::{register_as, EntityTable};
    ///
    /// let ctx = SessionContext::new();
    /// let orders = EntityTable::<Order>::new(&client)?.insert_by_bulk_load(BulkLoadOptions::new());
    /// register_as(&ctx, "orders", orders)?;
    /// ctx.register_parquet("exported", "orders.parquet", ParquetReadOptions::default()).await?;
    /// ctx.sql("INSERT INTO orders SELECT id, total FROM exported").await?.collect().await?;
    /// # Ok(()) }
    /// ```
    pub fn insert_by_bulk_load(mut self, options: BulkLoadOptions) -> Self {
        self.bulk = Some(options);
        self
    }

    /// Makes `INSERT INTO` this table write each partition of the query's rows by itself, all
    /// at once ([`EntityWriteExec`](crate::EntityWriteExec)): each partition's rows saved by a
    /// writer of its own, or, with [`insert_by_bulk_load`](Self::insert_by_bulk_load),
    /// bulk-loaded by a load of its own (a region then takes a file per partition). What a plan run across machines needs
    /// (Ballista runs each partition's writes where its rows are read); in one process, more
    /// writers at once. By default all the rows go to one writer, in the query's order.
    pub fn insert_per_partition(mut self) -> Self {
        self.per_partition = true;
        self
    }

    /// Whether `INSERT INTO` this table writes each partition by itself
    /// ([`insert_per_partition`](Self::insert_per_partition)).
    pub fn inserts_per_partition(&self) -> bool {
        self.per_partition
    }

    /// Reads the entity's rows from `table` instead (a copy, a test table), as
    /// [`Repository::on_table`](hbase_orm::Repository::on_table) does.
    pub fn on_table(mut self, table: TableName) -> Self {
        self.table = table;
        self
    }

    /// How this table reads (what [`page_size`](Self::page_size),
    /// [`whole_families`](Self::whole_families), [`whole_regions`](Self::whole_regions) and
    /// [`one_partition`](Self::one_partition) set).
    ///
    /// ```
    /// # #[derive(hbase_orm::HBaseEntity)]
    /// # #[hbase(table = "orders", family = "d")]
    /// # struct Order { #[hbase(key)] id: u64, total: f64 }
    /// use hbase_orm_sql::{EntityTable, ReadSettings};
    ///
    /// let client = hbase_orm::Client::in_memory();
    /// let orders = EntityTable::<Order>::new(&client)?.page_size(500).whole_regions();
    /// let settings = orders.read_settings();
    /// assert_eq!((settings.page_size, settings.whole_regions), (Some(500), true));
    /// // The same settings on another table of the entity.
    /// let copy = EntityTable::<Order>::new(&client)?.with_read_settings(settings);
    /// assert_eq!(copy.read_settings(), settings);
    /// # Ok::<(), hbase_orm::Error>(())
    /// ```
    pub fn read_settings(&self) -> ReadSettings {
        self.settings
    }

    /// This table reading as `settings` say (see [`read_settings`](Self::read_settings)).
    pub fn with_read_settings(mut self, settings: ReadSettings) -> Self {
        self.settings = ReadSettings {
            page_size: settings.page_size.map(|rows| rows.max(1)),
            ..settings
        };
        self
    }

    /// The client the table is read and written through.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The options of its `INSERT INTO` when it is a bulk load
    /// ([`insert_by_bulk_load`](Self::insert_by_bulk_load)); `None` when rows are saved.
    pub fn bulk_load_options(&self) -> Option<&BulkLoadOptions> {
        self.bulk.as_ref()
    }

    /// The table read.
    pub fn table_name(&self) -> &TableName {
        &self.table
    }

    /// The table's columns.
    pub fn entity_schema(&self) -> &EntitySchema {
        &self.schema
    }

    /// What the scans of this table read from HBase so far (all of them, every query).
    pub fn read_counts(&self) -> ReadCounts {
        self.stats.counts()
    }

    /// The record batches of every entity row of the table, of the columns `projection` picks
    /// (all with `None`), in key order (per salt bucket for a salted key), `batch_size` rows at
    /// most each. No DataFusion needed: the Arrow batches alone.
    pub fn batches(
        &self,
        projection: Option<&[usize]>,
        batch_size: usize,
    ) -> BoxStream<'static, Result<RecordBatch>> {
        let spans = pushdown::spans::<E>(&self.schema, &[]);
        batches(self.order(projection, spans, Vec::new(), None, batch_size, None))
    }
}

#[async_trait]
impl<E: HBaseEntity> TableProvider for EntityTable<E> {
    fn schema(&self) -> SchemaRef {
        self.schema.arrow().clone()
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> DfResult<Vec<TableProviderFilterPushDown>> {
        Ok(filters
            .iter()
            .map(|f| {
                if values::translate::<E>(&self.schema, f).is_some() {
                    // HBase tests it exactly as SQL does.
                    TableProviderFilterPushDown::Exact
                } else if pushdown::is_key_condition(&self.schema, f) {
                    // The rows of the ranges are checked again: a prefix may be wider.
                    TableProviderFilterPushDown::Inexact
                } else {
                    TableProviderFilterPushDown::Unsupported
                }
            })
            .collect())
    }

    /// `INSERT INTO` (and `REPLACE INTO`): each row saved as an entity, its index rows too
    /// (a row with the key of a stored one replaces it, as a save does). Entities with a wide
    /// map, versions, a flattened group, children, a counter or a version field are refused
    /// (`NotImplemented`), and so is `INSERT OVERWRITE`.
    async fn insert_into(
        &self,
        _state: &dyn Session,
        input: Arc<dyn ExecutionPlan>,
        insert_op: InsertOp,
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        if insert_op == InsertOp::Overwrite {
            return Err(DataFusionError::NotImplemented(format!(
                "INSERT OVERWRITE of {}: rows are saved one by one (INSERT INTO, REPLACE INTO)",
                self.table
            )));
        }
        if self.per_partition {
            return insert::write_apart::<E>(
                self.client.clone(),
                self.table.clone(),
                self.bulk.clone(),
                input,
            );
        }
        if let Some(why) = insert::refusal::<E>() {
            return Err(DataFusionError::NotImplemented(why));
        }
        let sink = EntitySink::<E>::new(
            self.client.clone(),
            self.table.clone(),
            self.schema.clone(),
            self.bulk.clone(),
        );
        Ok(Arc::new(DataSinkExec::new(input, Arc::new(sink), None)))
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        let spans = pushdown::spans::<E>(&self.schema, filters);
        let partitions = state.config().target_partitions().max(1);
        let per_region = self
            .per_region(spans, limit, partitions)
            .await
            .map_err(|e| DataFusionError::External(Box::new(e)))?;
        let exec = EntityScanExec::try_new(
            self.clone(),
            projection.cloned(),
            filters.to_vec(),
            limit,
            state.config().batch_size(),
            EntityScanExec::<E>::span_input(&per_region)?,
        )?;
        Ok(Arc::new(exec))
    }
}

/// How an [`EntityTable`] reads, beside its entity, table and client: what its builder
/// methods set ([`EntityTable::read_settings`]), as data (to carry a table to another process,
/// say). The default is a new table's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReadSettings {
    /// Rows per scanner page ([`EntityTable::page_size`]; `None`: the client's default).
    pub page_size: Option<i32>,
    /// Families asked for whole ([`EntityTable::whole_families`]).
    pub whole_families: bool,
    /// Each region read in one piece ([`EntityTable::whole_regions`]).
    pub whole_regions: bool,
    /// A query's ranges read in one partition ([`EntityTable::one_partition`]).
    pub one_partition: bool,
}

/// Registers the table of entity `E` in `ctx` under its table's name (`E::TABLE`, without the
/// namespace), read through `client`; the table is returned for its [read
/// counts](EntityTable::read_counts).
///
/// ```no_run
/// # async fn demo(client: hbase_orm::Client) -> Result<(), Box<dyn std::error::Error>> {
/// use datafusion::prelude::SessionContext;
/// # #[derive(hbase_orm::HBaseEntity)]
/// # #[hbase(table = "orders", family = "d")]
/// # struct Order { #[hbase(key)] id: u64, total: f64 }
/// let ctx = SessionContext::new();
/// hbase_orm_sql::register::<Order>(&ctx, &client)?;
/// let big = ctx.sql("SELECT id, total FROM orders WHERE total > 100").await?.collect().await?;
/// # let _ = big; Ok(()) }
/// ```
pub fn register<E: HBaseEntity>(
    ctx: &datafusion::prelude::SessionContext,
    client: &Client,
) -> Result<Arc<EntityTable<E>>> {
    register_as(ctx, E::TABLE, EntityTable::<E>::new(client)?)
}

/// Registers `table` in `ctx` under `name`.
///
/// It also adds to `ctx`, once, a rule of its analyzer under which a NULL in an `INSERT INTO
/// ... VALUES` where the entity needs a value (a column that is not nullable) reaches the
/// table, whose error names the table, the row and the field; DataFusion's own check, in a
/// context where the table was registered by hand (`ctx.register_table`), names the column of
/// the `VALUES` list instead (`column5`).
pub fn register_as<E: HBaseEntity>(
    ctx: &datafusion::prelude::SessionContext,
    name: &str,
    table: EntityTable<E>,
) -> Result<Arc<EntityTable<E>>> {
    let table = Arc::new(table);
    crate::insert::add_to(ctx);
    ctx.register_table(name, table.clone())
        .map_err(|e| hbase_orm::Error::IllegalArgument {
            message: format!("registering SQL table {name}: {e}"),
        })?;
    Ok(table)
}

/// Rows per batch for callers of [`EntityTable::batches`] that have no preference
/// (DataFusion's default batch size).
pub const BATCH_ROWS: usize = 8192;
