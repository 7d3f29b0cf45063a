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
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::dml::InsertOp;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::{PartitionStream, StreamingTableExec};
use datafusion::physical_plan::ExecutionPlan;
use futures::stream::{BoxStream, TryStreamExt};
use hbase_orm::entity::{ColumnKind, KeyTest};
use hbase_orm::{BulkLoadOptions, Client, Column, HBaseEntity, Result, Scan, TableName};

use crate::batches::BatchBuilder;
use crate::insert::{self, EntitySink};
use crate::pushdown::{self, KeySpan};
use crate::scan::{batches, ReadCounts, ReadStats, ScanOrder, SMALL_LIMIT};
use crate::schema::{EntitySchema, Source};
use crate::subranges;
use crate::values::{self, ValueFilter};

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
    page_size: Option<i32>,
    one_partition: bool,
    whole_families: bool,
    subranges: bool,
    bulk: Option<BulkLoadOptions>,
    entity: std::marker::PhantomData<fn() -> E>,
}

impl<E: HBaseEntity> Clone for EntityTable<E> {
    fn clone(&self) -> Self {
        EntityTable {
            client: self.client.clone(),
            table: self.table.clone(),
            schema: self.schema.clone(),
            stats: self.stats.clone(),
            page_size: self.page_size,
            one_partition: self.one_partition,
            whole_families: self.whole_families,
            subranges: self.subranges,
            bulk: self.bulk.clone(),
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
            page_size: None,
            one_partition: false,
            whole_families: false,
            subranges: true,
            bulk: None,
            entity: std::marker::PhantomData,
        })
    }

    /// Rows per scanner page (the scan's caching; the client's default without it).
    pub fn page_size(mut self, rows: i32) -> Self {
        self.page_size = Some(rows.max(1));
        self
    }

    /// Asks HBase for whole families instead of the columns a query names: more bytes, less
    /// work on the region servers (each column asked for by name is found with a seek of its
    /// own; a query that tests no stored value has its columns kept by a qualifier filter
    /// instead, cheaper than seeks, dearer than nothing). Worth it for rows of a few short
    /// cells; by default a family is read whole only when most of its declared columns are
    /// asked for (or when it holds a wide map asked for).
    pub fn whole_families(mut self) -> Self {
        self.whole_families = true;
        self
    }

    /// Reads each region in one piece: by default, when a query reads fewer regions than it
    /// has partitions (DataFusion's `target_partitions`, the machine's cores), the regions it
    /// reads whole are cut into sub-ranges read at once, so that a one-region table is not
    /// read by one scanner alone (the cuts are guessed from each region's first and last
    /// rows, two short scans when the query is planned).
    pub fn whole_regions(mut self) -> Self {
        self.subranges = false;
        self
    }

    /// Reads a query's ranges in one partition, region after region, instead of one partition
    /// per region (for comparison, or to keep one scanner open at a time).
    pub fn one_partition(mut self) -> Self {
        self.one_partition = true;
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

    /// Reads the entity's rows from `table` instead (a copy, a test table), as
    /// [`Repository::on_table`](hbase_orm::Repository::on_table) does.
    pub fn on_table(mut self, table: TableName) -> Self {
        self.table = table;
        self
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

    /// The scan of the spans, with the cells the projection and the filter need.
    fn order(
        &self,
        projection: Option<&[usize]>,
        spans: Vec<KeySpan>,
        key_tests: Vec<KeyTest>,
        filter: Option<&ValueFilter>,
        batch_size: usize,
        limit: Option<usize>,
    ) -> ScanOrder<E> {
        let builder = BatchBuilder::<E>::new(&self.schema, projection, self.table.clone());
        let mut scan = Scan::new();
        let picked: Vec<usize> = match projection {
            Some(p) => p.to_vec(),
            None => (0..self.schema.sources().len()).collect(),
        };
        for i in picked {
            if let Source::Cell(c) = self.schema.sources()[i].source {
                let def = &E::COLUMNS[c];
                // A wide map's whole family, else the one column.
                scan.columns.push(def.column());
                if let ColumnKind::Versions(n) = def.kind {
                    let n = i32::try_from(n).unwrap_or(i32::MAX);
                    scan.max_versions = Some(scan.max_versions.unwrap_or(1).max(n));
                }
            }
        }
        // The cell that tells a row holds an entity, and the cells the filter tests (HBase
        // tests only the cells a scan reads).
        let (family, qualifier) = builder.presence_cell();
        let tested = filter.into_iter().flat_map(|f| &f.columns).map(|&c| {
            let def = &E::COLUMNS[c];
            (def.family.as_bytes(), def.qualifier.as_bytes())
        });
        for (family, qualifier) in std::iter::once((family, qualifier)).chain(tested) {
            let read = scan.columns.iter().any(|c| {
                c.family == family && c.qualifier.as_deref().is_none_or(|q| q == qualifier)
            });
            if !read {
                scan = scan.column(family, qualifier);
            }
        }
        scan.columns = whole_families::<E>(std::mem::take(&mut scan.columns), self.whole_families);
        scan.filter = filter.map(|f| f.expression.clone());
        if scan.filter.is_none() {
            qualifiers_by_filter(&mut scan);
        }
        scan.caching = self.page_size;
        ScanOrder {
            table: self.client.table_named(self.table.clone()),
            template: scan,
            spans,
            key_tests,
            builder,
            batch_size,
            limit,
            stats: self.stats.clone(),
        }
    }

    /// The spans cut at the table's regions: one list per region that holds some (one list
    /// for a small `limit`: the regions read one after another until it is reached, where a
    /// partition per region would each read a page).
    async fn per_region(
        &self,
        spans: Vec<KeySpan>,
        limit: Option<usize>,
        partitions: usize,
    ) -> Result<Vec<Vec<KeySpan>>> {
        if self.one_partition || limit.is_some_and(|n| n < SMALL_LIMIT) {
            return Ok(vec![spans]);
        }
        let mut regions = self.client.admin().region_locations(&self.table).await?;
        regions.sort_by(|a, b| a.start_key.cmp(&b.start_key));
        // Regions that do not follow each other exactly (a split seen half done): one
        // partition, so that no row is read twice.
        let follow = regions
            .windows(2)
            .all(|w| !w[0].end_key.is_empty() && w[0].end_key == w[1].start_key);
        if !follow {
            return Ok(vec![spans]);
        }
        // Each region's spans, and whether they are the region's whole range.
        let per_region: Vec<(Vec<KeySpan>, bool)> = regions
            .iter()
            .map(|r| {
                let within: Vec<KeySpan> = spans
                    .iter()
                    .filter_map(|s| s.within(&r.start_key, &r.end_key))
                    .collect();
                let whole = matches!(within.as_slice(), [s] if s.start == r.start_key && s.stop == r.end_key);
                (within, whole)
            })
            .filter(|(s, _)| !s.is_empty())
            .collect();
        if per_region.is_empty() {
            // No region (or no span): one partition that reads what the spans say.
            return Ok(vec![spans]);
        }
        if self.subranges && per_region.len() < partitions {
            return self.cut_regions(per_region, partitions).await;
        }
        Ok(per_region.into_iter().map(|(s, _)| s).collect())
    }

    /// The regions read whole cut into sub-ranges (see `subranges`), so that there are about
    /// `partitions` in all; a region read in part (a key range of a query) stays one.
    async fn cut_regions(
        &self,
        regions: Vec<(Vec<KeySpan>, bool)>,
        partitions: usize,
    ) -> Result<Vec<Vec<KeySpan>>> {
        let pieces = partitions.div_ceil(regions.len());
        let table = self.client.table_named(self.table.clone());
        let mut out = Vec::with_capacity(partitions);
        for (spans, whole) in regions {
            let [span] = spans.as_slice() else {
                out.push(spans);
                continue;
            };
            if !whole {
                out.push(spans);
                continue;
            }
            match subranges::ends(&table, span).await? {
                Some((first, last)) => out.extend(
                    subranges::cut(span, &first, &last, pieces)
                        .into_iter()
                        .map(|piece| vec![piece]),
                ),
                None => out.push(spans),
            }
        }
        Ok(out)
    }
}

/// The columns to ask HBase for: a family whose declared columns are mostly asked for (any
/// family with `all`) is asked for whole. A region server finds each column asked for by name
/// with a seek of its own, so eight named columns of a row cost several times one family
/// (measured: a scan of every column of 200,000 eight-column rows took 3.0 s by name and 0.6 s
/// by family); the cells of other columns that come along are skipped by the batch builder.
fn whole_families<E: HBaseEntity>(columns: Vec<Column>, all: bool) -> Vec<Column> {
    let mut out: Vec<Column> = Vec::with_capacity(columns.len());
    for family in E::FAMILIES {
        let of_family = || columns.iter().filter(|c| c.family == family.as_bytes());
        let asked = of_family().count();
        let declared = E::COLUMNS.iter().filter(|c| c.family == *family).count();
        // A wide map's family is asked for whole already.
        let whole = of_family().any(|c| c.qualifier.is_none());
        if asked > 0 && (whole || all || (asked > 2 && asked * 2 > declared)) {
            out.push(Column {
                family: family.as_bytes().to_vec(),
                qualifier: None,
            });
        } else {
            out.extend(
                columns
                    .iter()
                    .filter(|c| c.family == family.as_bytes())
                    .cloned(),
            );
        }
    }
    // Columns of families the entity does not declare (none today), as they were.
    out.extend(
        columns
            .into_iter()
            .filter(|c| !E::FAMILIES.iter().any(|f| c.family == f.as_bytes())),
    );
    out
}

/// A scan of columns asked for by name, all of them, made a scan of their families with a
/// filter that keeps only those columns' cells. A region server finds each column asked for
/// by name with a seek of its own; a filter's cells it skips one by one, in the block it has
/// read anyway (measured on a one-region table of 200,000 eight-column rows, an aggregate of
/// 3 columns: 355,228 rows/s by name, 585,477 by filter, in two runs of
/// `cargo bench --bench sql` on a fresh HBase). Only for scans without a filter of their own:
/// a value's test must see its cell.
fn qualifiers_by_filter(scan: &mut Scan) {
    if scan.columns.is_empty() || scan.columns.iter().any(|c| c.qualifier.is_none()) {
        return;
    }
    let mut families: Vec<Vec<u8>> = Vec::new();
    let mut tests: Vec<Vec<u8>> = Vec::new();
    for column in std::mem::take(&mut scan.columns) {
        if !families.contains(&column.family) {
            families.push(column.family.clone());
        }
        let mut comparator = b"binary:".to_vec();
        comparator.extend_from_slice(column.qualifier.as_deref().unwrap_or_default());
        let mut test = b"QualifierFilter(=, ".to_vec();
        test.extend_from_slice(&hbase_orm::filter_literal(&comparator));
        test.push(b')');
        tests.push(test);
    }
    scan.columns = families
        .into_iter()
        .map(|family| Column {
            family,
            qualifier: None,
        })
        .collect();
    scan.filter = Some(tests.join(&b" OR "[..]));
}

/// One region's share of a query: the scan it makes each time it runs.
struct RegionPart<E: HBaseEntity> {
    table: EntityTable<E>,
    schema: SchemaRef,
    projection: Option<Vec<usize>>,
    spans: Vec<KeySpan>,
    key_tests: Vec<KeyTest>,
    filter: Option<ValueFilter>,
    batch_size: usize,
    limit: Option<usize>,
}

impl<E: HBaseEntity> fmt::Debug for RegionPart<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RegionPart")
            .field("spans", &self.spans.len())
            .finish_non_exhaustive()
    }
}

impl<E: HBaseEntity> PartitionStream for RegionPart<E> {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let order = self.table.order(
            self.projection.as_deref(),
            self.spans.clone(),
            self.key_tests.clone(),
            self.filter.as_ref(),
            self.batch_size,
            self.limit,
        );
        let stream = batches(order).map_err(|e| DataFusionError::External(Box::new(e)));
        Box::pin(RecordBatchStreamAdapter::new(self.schema.clone(), stream))
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
        let key_tests = pushdown::key_tests::<E>(&self.schema, filters);
        let row_filters = key_tests.iter().filter_map(KeyTest::row_filter);
        let filter = values::combined::<E>(&self.schema, filters, row_filters);
        let partitions = state.config().target_partitions().max(1);
        let per_region = self
            .per_region(spans, limit, partitions)
            .await
            .map_err(|e| DataFusionError::External(Box::new(e)))?;
        let batch_size = state.config().batch_size().max(1);
        let projection = projection.map(Vec::as_slice);
        let schema = match projection {
            Some(p) => Arc::new(self.schema.arrow().project(p)?),
            None => self.schema.arrow().clone(),
        };
        let parts: Vec<Arc<dyn PartitionStream>> = per_region
            .into_iter()
            .map(|spans| {
                Arc::new(RegionPart {
                    table: self.clone(),
                    schema: schema.clone(),
                    projection: projection.map(<[usize]>::to_vec),
                    spans,
                    key_tests: key_tests.clone(),
                    filter: filter.clone(),
                    batch_size,
                    limit,
                }) as Arc<dyn PartitionStream>
            })
            .collect();
        let exec = StreamingTableExec::try_new(schema, parts, None, [], false, limit)?;
        Ok(Arc::new(exec))
    }
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
    crate::insert_plan::add_to(ctx);
    ctx.register_table(name, table.clone())
        .map_err(|e| hbase_orm::Error::IllegalArgument {
            message: format!("registering SQL table {name}: {e}"),
        })?;
    Ok(table)
}

/// Rows per batch for callers of [`EntityTable::batches`] that have no preference
/// (DataFusion's default batch size).
pub const BATCH_ROWS: usize = 8192;

#[cfg(test)]
mod tests {
    use super::*;

    /// Columns by name become their families and a filter of their qualifiers; a scan with a
    /// family asked for whole (a wide map's) stays as it is.
    #[test]
    fn named_columns_are_read_by_a_qualifier_filter() {
        let mut scan = Scan::new()
            .column("d", "a")
            .column("e", "it's")
            .column("d", "");
        qualifiers_by_filter(&mut scan);
        let families: Vec<_> = scan
            .columns
            .iter()
            .map(|c| (c.family.clone(), c.qualifier.clone()))
            .collect();
        assert_eq!(families, [(b"d".to_vec(), None), (b"e".to_vec(), None)]);
        assert_eq!(
            String::from_utf8(scan.filter.unwrap()).unwrap(),
            "QualifierFilter(=, 'binary:a') OR QualifierFilter(=, 'binary:it''s') OR \
             QualifierFilter(=, 'binary:')"
        );
        let mut wide = Scan::new().column("d", "a").family("w");
        let before = wide.columns.clone();
        qualifiers_by_filter(&mut wide);
        assert_eq!(wide.columns, before);
        assert!(wide.filter.is_none());
    }
}
