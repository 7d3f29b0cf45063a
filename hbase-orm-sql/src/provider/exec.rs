//! [`EntityScanExec`]: the physical plan of a scan of an entity table, one partition per region
//! (or sub-range of one), each reading the key spans its input partition holds.

use std::fmt;
use std::sync::Arc;

use datafusion::arrow::array::{Array, BinaryArray};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::error::{DataFusionError, Result as DfResult};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::Expr;
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{
    Boundedness, ChildrenPropertiesMode, EmissionType, ReplaceChildrenOptions,
};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, ExecutionPlanProperties, Partitioning,
    PlanProperties,
};
use futures::stream::{StreamExt, TryStreamExt};
use hbase_orm::entity::KeyTest;
use hbase_orm::HBaseEntity;

use super::EntityTable;
use crate::pushdown::{self, KeySpan};
use crate::scan::batches;
use crate::values::{self, ValueFilter};

/// The scan of an entity table a query runs ([`EntityTable`]'s
/// [`scan`](datafusion::catalog::TableProvider::scan)): what it reads (the columns of
/// `projection`, the rows `filters` leave, at most `limit` of them per partition, in batches
/// of `batch_size` rows) is its own, where it reads is its input's. Its input (see
/// [`span_input`](EntityScanExec::span_input)) has one partition per partition of the scan,
/// whose rows are the key spans that partition reads (`start`, `stop`): a region's share of
/// the query, a sub-range of a region, or every span for a query read in one partition.
///
/// The spans travel as data so that an engine that runs a plan's partitions in separate tasks
/// (on other machines) and hands each task only its own partitions of a plan's leaves hands
/// each task only its own spans.
///
/// ```
/// # #[derive(hbase_orm::HBaseEntity)]
/// # #[hbase(table = "orders", family = "d")]
/// # struct Order { #[hbase(key)] id: u64, total: f64 }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use datafusion::physical_plan::displayable;
/// use datafusion::prelude::SessionContext;
/// use hbase_orm_sql::EntityScanExec;
///
/// let client = hbase_orm::Client::in_memory();
/// # client.admin().ensure::<Order>().await?;
/// let ctx = SessionContext::new();
/// hbase_orm_sql::register::<Order>(&ctx, &client)?;
/// let df = ctx.sql("SELECT total FROM orders WHERE id = 7").await?;
/// let plan = df.create_physical_plan().await?;
/// let shown = displayable(plan.as_ref()).indent(true).to_string();
/// // The key's condition is pushed (and checked again above: a key range may hold more).
/// let scan = "EntityScanExec: table=orders, partitions=1, projection=[id, total], filters=[id = UInt64(7)]";
/// assert!(shown.contains(scan), "{shown}");
///
/// // The scan node itself, found in the plan.
/// let mut node = plan.clone();
/// while !node.is::<EntityScanExec<Order>>() {
///     node = node.children()[0].clone();
/// }
/// let scan = node.downcast_ref::<EntityScanExec<Order>>().unwrap();
/// assert_eq!(scan.projection(), Some(&[0, 1][..]));
/// assert_eq!(scan.filters().len(), 1);
/// # Ok(()) }
/// ```
pub struct EntityScanExec<E: HBaseEntity> {
    table: EntityTable<E>,
    projection: Option<Vec<usize>>,
    filters: Vec<Expr>,
    limit: Option<usize>,
    batch_size: usize,
    spans: Arc<dyn ExecutionPlan>,
    // Derived from the above.
    schema: SchemaRef,
    key_tests: Vec<KeyTest>,
    filter: Option<ValueFilter>,
    properties: Arc<PlanProperties>,
}

impl<E: HBaseEntity> EntityScanExec<E> {
    /// The scan of `table`'s columns `projection` (all with `None`), of the rows that pass
    /// `filters` (conditions the table accepted for pushdown; the key tests and HBase filter
    /// are derived from them again), at most `limit` per partition, `batch_size` rows a
    /// batch, over `spans`: a plan whose partitions' rows are the key spans each partition
    /// reads ([`span_input`](Self::span_input)). Refused: a projection of a column the
    /// table lacks, or `spans` of another schema.
    pub fn try_new(
        table: EntityTable<E>,
        projection: Option<Vec<usize>>,
        filters: Vec<Expr>,
        limit: Option<usize>,
        batch_size: usize,
        spans: Arc<dyn ExecutionPlan>,
    ) -> DfResult<Self> {
        check_spans(&table, &spans)?;
        let schema = match &projection {
            Some(p) => Arc::new(table.entity_schema().arrow().project(p)?),
            None => table.entity_schema().arrow().clone(),
        };
        let key_tests = pushdown::key_tests::<E>(table.entity_schema(), &filters);
        let row_filters = key_tests.iter().filter_map(KeyTest::row_filter);
        let filter = values::combined::<E>(table.entity_schema(), &filters, row_filters);
        let properties = properties(&schema, &spans);
        Ok(EntityScanExec {
            table,
            projection,
            filters,
            limit,
            batch_size: batch_size.max(1),
            spans,
            schema,
            key_tests,
            filter,
            properties,
        })
    }

    /// A plan of one partition per list of `parts`, whose rows are that list's spans: the
    /// input of a scan of them.
    pub fn span_input(parts: &[Vec<KeySpan>]) -> DfResult<Arc<dyn ExecutionPlan>> {
        let schema = span_schema();
        let batches = parts
            .iter()
            .map(|spans| {
                let start = BinaryArray::from_iter_values(spans.iter().map(|s| &s.start));
                let stop = BinaryArray::from_iter_values(spans.iter().map(|s| &s.stop));
                let batch =
                    RecordBatch::try_new(schema.clone(), vec![Arc::new(start), Arc::new(stop)])?;
                Ok(vec![batch])
            })
            .collect::<DfResult<Vec<_>>>()?;
        Ok(MemorySourceConfig::try_new_exec(&batches, schema, None)?)
    }

    /// The table scanned.
    pub fn table(&self) -> &EntityTable<E> {
        &self.table
    }

    /// The table's columns read, by index (all with `None`).
    pub fn projection(&self) -> Option<&[usize]> {
        self.projection.as_deref()
    }

    /// The conditions pushed to the scan.
    pub fn filters(&self) -> &[Expr] {
        &self.filters
    }

    /// At most this many rows per partition.
    pub fn limit(&self) -> Option<usize> {
        self.limit
    }

    /// Rows per batch, at most.
    pub fn batch_size(&self) -> usize {
        self.batch_size
    }

    /// The plan of the key spans each partition reads.
    pub fn spans(&self) -> &Arc<dyn ExecutionPlan> {
        &self.spans
    }

    /// This scan over `spans`, at most `limit` rows a partition: what it reads, and what is
    /// derived from that, as it is.
    fn with_spans(&self, spans: Arc<dyn ExecutionPlan>, limit: Option<usize>) -> DfResult<Self> {
        check_spans(&self.table, &spans)?;
        Ok(EntityScanExec {
            table: self.table.clone(),
            projection: self.projection.clone(),
            filters: self.filters.clone(),
            limit,
            batch_size: self.batch_size,
            properties: properties(&self.schema, &spans),
            spans,
            schema: self.schema.clone(),
            key_tests: self.key_tests.clone(),
            filter: self.filter.clone(),
        })
    }
}

/// Refuses `spans` of another schema than [`span_schema`].
fn check_spans<E: HBaseEntity>(
    table: &EntityTable<E>,
    spans: &Arc<dyn ExecutionPlan>,
) -> DfResult<()> {
    if spans.schema().fields() == span_schema().fields() {
        return Ok(());
    }
    Err(DataFusionError::Plan(format!(
        "the key spans of a scan of {} have columns (start, stop) of binary, not {}",
        table.table_name(),
        spans.schema()
    )))
}

/// A scan's properties: its columns `schema`, a partition per partition of `spans`.
fn properties(schema: &SchemaRef, spans: &Arc<dyn ExecutionPlan>) -> Arc<PlanProperties> {
    let partitions = spans.output_partitioning().partition_count();
    Arc::new(PlanProperties::new(
        EquivalenceProperties::new(schema.clone()),
        Partitioning::UnknownPartitioning(partitions),
        EmissionType::Incremental,
        Boundedness::Bounded,
    ))
}

/// The columns of the plan of a scan's key spans: `start`, `stop` (binary; an empty `stop` is
/// the table's end).
fn span_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("start", DataType::Binary, false),
        Field::new("stop", DataType::Binary, false),
    ]))
}

/// The key spans of `batches` of [`span_schema`].
fn spans_of(batches: &[RecordBatch]) -> DfResult<Vec<KeySpan>> {
    let mut spans = Vec::new();
    for batch in batches {
        let column = |i: usize| {
            batch
                .column(i)
                .as_any()
                .downcast_ref::<BinaryArray>()
                .filter(|a| a.null_count() == 0)
                .ok_or_else(|| {
                    DataFusionError::Internal(format!(
                        "the key spans of a scan are binary and not null, not {}",
                        batch.column(i).data_type()
                    ))
                })
        };
        let (start, stop) = (column(0)?, column(1)?);
        spans.extend(
            start
                .iter()
                .zip(stop.iter())
                .map(|(a, b)| KeySpan::new(a.unwrap_or_default(), b.unwrap_or_default())),
        );
    }
    Ok(spans)
}

impl<E: HBaseEntity> fmt::Debug for EntityScanExec<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EntityScanExec")
            .field("table", &self.table.table_name().to_string())
            .field(
                "partitions",
                &self.properties.partitioning.partition_count(),
            )
            .field("projection", &self.projection)
            .field("limit", &self.limit)
            .finish_non_exhaustive()
    }
}

impl<E: HBaseEntity> DisplayAs for EntityScanExec<E> {
    fn fmt_as(&self, t: DisplayFormatType, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let partitions = self.properties.partitioning.partition_count();
        match t {
            DisplayFormatType::Default | DisplayFormatType::Verbose => {
                write!(
                    f,
                    "EntityScanExec: table={}, partitions={partitions}",
                    self.table.table_name()
                )?;
                let names: Vec<&str> = self
                    .schema
                    .fields()
                    .iter()
                    .map(|c| c.name().as_str())
                    .collect();
                write!(f, ", projection=[{}]", names.join(", "))?;
                if !self.filters.is_empty() {
                    let shown: Vec<String> = self.filters.iter().map(ToString::to_string).collect();
                    write!(f, ", filters=[{}]", shown.join(", "))?;
                }
                if let Some(limit) = self.limit {
                    write!(f, ", fetch={limit}")?;
                }
                Ok(())
            }
            DisplayFormatType::TreeRender => {
                writeln!(f, "table={}", self.table.table_name())?;
                write!(f, "partitions={partitions}")
            }
        }
    }
}

impl<E: HBaseEntity> ExecutionPlan for EntityScanExec<E> {
    fn name(&self) -> &'static str {
        "EntityScanExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.spans]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> DfResult<TreeNodeRecursion>,
    ) -> DfResult<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    /// Its input is read partition by partition, as it is: no repartitioning helps it.
    fn benefits_from_input_partitioning(&self) -> Vec<bool> {
        vec![false]
    }

    fn replace_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
        _options: ReplaceChildrenOptions,
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        // The properties follow the spans' partitions, whatever the options say.
        match <[_; 1]>::try_from(children) {
            Ok([spans]) => Ok(Arc::new(self.with_spans(spans, self.limit)?)),
            Err(children) => Err(DataFusionError::Internal(format!(
                "EntityScanExec has one input (its key spans), given {}",
                children.len()
            ))),
        }
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        let recompute = ReplaceChildrenOptions::new(ChildrenPropertiesMode::Recompute);
        self.replace_children(children, recompute)
    }

    fn fetch(&self) -> Option<usize> {
        self.limit
    }

    fn with_fetch(&self, limit: Option<usize>) -> Option<Arc<dyn ExecutionPlan>> {
        let exec = self.with_spans(self.spans.clone(), limit).ok()?;
        Some(Arc::new(exec))
    }

    fn execute(
        &self,
        partition: usize,
        ctx: Arc<TaskContext>,
    ) -> DfResult<SendableRecordBatchStream> {
        let spans = self.spans.execute(partition, ctx)?;
        let table = self.table.clone();
        let projection = self.projection.clone();
        let key_tests = self.key_tests.clone();
        let filter = self.filter.clone();
        let (batch_size, limit) = (self.batch_size, self.limit);
        let rows = futures::stream::once(async move {
            let spans = spans_of(&spans.try_collect::<Vec<_>>().await?)?;
            let order = table.order(
                projection.as_deref(),
                spans,
                key_tests,
                filter.as_ref(),
                batch_size,
                limit,
            );
            Ok::<_, DataFusionError>(
                batches(order).map_err(|e| DataFusionError::External(Box::new(e))),
            )
        })
        .try_flatten();
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            self.schema.clone(),
            rows.boxed(),
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spans become a partition each list and come back as they went, an empty `stop` (the
    /// table's end) and an empty list included.
    #[tokio::test]
    async fn spans_travel_as_rows() {
        let parts = vec![
            vec![KeySpan::new("a", "c"), KeySpan::new("d", "")],
            vec![],
            vec![KeySpan::point(b"k\0".to_vec())],
        ];
        let plan = EntityScanExec::<Probe>::span_input(&parts).unwrap();
        assert_eq!(plan.output_partitioning().partition_count(), 3);
        let ctx = Arc::new(TaskContext::default());
        for (i, want) in parts.iter().enumerate() {
            let got: Vec<RecordBatch> = plan
                .execute(i, ctx.clone())
                .unwrap()
                .try_collect()
                .await
                .unwrap();
            assert_eq!(&spans_of(&got).unwrap(), want, "partition {i}");
        }
    }

    /// Spans of another shape are refused with the shape named.
    #[test]
    fn spans_of_another_schema_are_refused() {
        let batch = RecordBatch::try_new(
            Arc::new(Schema::new(vec![
                Field::new("start", DataType::Utf8, false),
                Field::new("stop", DataType::Utf8, false),
            ])),
            vec![
                Arc::new(datafusion::arrow::array::StringArray::from(vec!["a"])),
                Arc::new(datafusion::arrow::array::StringArray::from(vec!["b"])),
            ],
        )
        .unwrap();
        let err = spans_of(&[batch]).unwrap_err().to_string();
        assert!(err.contains("binary and not null, not Utf8"), "{err}");
    }

    #[derive(hbase_orm::HBaseEntity)]
    #[hbase(table = "probe", family = "d")]
    struct Probe {
        #[hbase(key)]
        id: u64,
        n: i64,
    }
}
