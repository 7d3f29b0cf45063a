//! [`EntityWriteExec`]: an `INSERT INTO` an entity table whose query's partitions are each
//! written by themselves, at once, and [`write_apart`], the plan that adds up what they wrote.

use std::fmt;
use std::sync::Arc;

use datafusion::arrow::array::UInt64Array;
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::datasource::sink::DataSink;
use datafusion::error::{DataFusionError, Result as DfResult};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::functions_aggregate::sum::sum_udaf;
use datafusion::physical_expr::aggregate::AggregateExprBuilder;
use datafusion::physical_expr::expressions::col;
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::aggregates::{AggregateExec, AggregateMode, PhysicalGroupBy};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, ExecutionPlanProperties, Partitioning,
    PlanProperties,
};
use futures::StreamExt;
use hbase_orm::{BulkLoadOptions, Client, HBaseEntity, TableName};

use super::{refusal, EntitySink};
use crate::schema::EntitySchema;

/// The rows an `INSERT` wrote: DataFusion's `count` column.
fn count_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![Field::new(
        "count",
        DataType::UInt64,
        false,
    )]))
}

/// An `INSERT INTO` an entity table that writes each partition of the query's rows by itself,
/// all at once: each row saved as an entity, or each partition's rows bulk-loaded by a load of
/// their own (their HFiles cut at the regions and handed to each region, as any bulk load
/// does; a region then takes a file per partition). Each of its partitions answers one row,
/// `count`, the rows that partition wrote; the table's plan adds them up (an aggregate above it:
/// the statement's one `count`).
///
/// An engine that runs a plan's partitions in tasks on other machines (Ballista) runs each
/// partition's writes where its rows are read. An entity table makes this plan for its
/// `INSERT` when it is told to ([`EntityTable::insert_per_partition`]); otherwise all the
/// rows go to one writer.
///
/// [`EntityTable::insert_per_partition`]: crate::EntityTable::insert_per_partition
///
/// ```
/// # #[derive(hbase_orm::HBaseEntity)]
/// # #[hbase(table = "orders", family = "d")]
/// # struct Order { #[hbase(key)] id: u64, total: f64 }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use datafusion::physical_plan::displayable;
/// use datafusion::prelude::SessionContext;
/// use hbase_orm_sql::{register_as, EntityTable};
///
/// let client = hbase_orm::Client::in_memory();
/// # client.admin().ensure::<Order>().await?;
/// let ctx = SessionContext::new();
/// register_as(&ctx, "orders", EntityTable::<Order>::new(&client)?.insert_per_partition())?;
/// let df = ctx.sql("INSERT INTO orders VALUES (1, 2.5), (2, 4.0)").await?;
/// let plan = displayable(df.clone().create_physical_plan().await?.as_ref()).indent(true).to_string();
/// assert!(plan.contains("EntityWriteExec: table=orders, saves"), "{plan}");
/// df.collect().await?;
/// let saved = client.repository::<Order>().get(&OrderKey { id: 2 }).await?;
/// assert_eq!(saved.map(|o| o.total), Some(4.0));
/// # Ok(()) }
/// ```
pub struct EntityWriteExec<E: HBaseEntity> {
    client: Client,
    table: TableName,
    schema: EntitySchema,
    bulk: Option<BulkLoadOptions>,
    input: Arc<dyn ExecutionPlan>,
    properties: Arc<PlanProperties>,
    entity: std::marker::PhantomData<fn() -> E>,
}

impl<E: HBaseEntity> EntityWriteExec<E> {
    /// Writes each partition of `input` (the query's rows, in the entity table's columns) into
    /// `table` through `client`: saved, or bulk-loaded with `bulk`. An entity the SQL layer
    /// does not write is refused, as an `INSERT INTO` its table is.
    pub fn try_new(
        client: Client,
        table: TableName,
        bulk: Option<BulkLoadOptions>,
        input: Arc<dyn ExecutionPlan>,
    ) -> DfResult<Self> {
        if let Some(why) = refusal::<E>() {
            return Err(DataFusionError::NotImplemented(why));
        }
        let schema = EntitySchema::of::<E>().map_err(|e| DataFusionError::External(e.into()))?;
        Ok(Self::build(client, table, schema, bulk, input))
    }

    /// The writes of `input`'s rows, the entity's columns given.
    fn build(
        client: Client,
        table: TableName,
        schema: EntitySchema,
        bulk: Option<BulkLoadOptions>,
        input: Arc<dyn ExecutionPlan>,
    ) -> Self {
        EntityWriteExec {
            client,
            table,
            schema,
            bulk,
            properties: properties(&input),
            input,
            entity: std::marker::PhantomData,
        }
    }

    /// The client it writes through.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The table it writes into.
    pub fn table_name(&self) -> &TableName {
        &self.table
    }

    /// The options of each partition's bulk load; `None` when rows are saved.
    pub fn bulk_load_options(&self) -> Option<&BulkLoadOptions> {
        self.bulk.as_ref()
    }

    /// The query's rows.
    pub fn input(&self) -> &Arc<dyn ExecutionPlan> {
        &self.input
    }
}

/// The writes' properties: a partition (of one `count` row) per partition of `input`.
fn properties(input: &Arc<dyn ExecutionPlan>) -> Arc<PlanProperties> {
    Arc::new(PlanProperties::new(
        EquivalenceProperties::new(count_schema()),
        Partitioning::UnknownPartitioning(input.output_partitioning().partition_count()),
        EmissionType::Final,
        Boundedness::Bounded,
    ))
}

/// The plan of an `INSERT INTO` `table` that writes each partition of `input` apart
/// ([`EntityWriteExec`]), under the sum of the rows each wrote: the statement's one `count`.
pub(crate) fn write_apart<E: HBaseEntity>(
    client: Client,
    table: TableName,
    bulk: Option<BulkLoadOptions>,
    input: Arc<dyn ExecutionPlan>,
) -> DfResult<Arc<dyn ExecutionPlan>> {
    let writes: Arc<dyn ExecutionPlan> =
        Arc::new(EntityWriteExec::<E>::try_new(client, table, bulk, input)?);
    let counts = writes.schema();
    let sum = AggregateExprBuilder::new(sum_udaf(), vec![col("count", &counts)?])
        .schema(counts.clone())
        .alias("count")
        .build()?;
    Ok(Arc::new(AggregateExec::try_new(
        AggregateMode::Single,
        PhysicalGroupBy::default(),
        vec![Arc::new(sum)],
        vec![None],
        writes,
        counts,
    )?))
}

impl<E: HBaseEntity> fmt::Debug for EntityWriteExec<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EntityWriteExec")
            .field("entity", &std::any::type_name::<E>())
            .field("table", &self.table.to_string())
            .field("bulk", &self.bulk.is_some())
            .finish_non_exhaustive()
    }
}

impl<E: HBaseEntity> DisplayAs for EntityWriteExec<E> {
    fn fmt_as(&self, _: DisplayFormatType, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let how = if self.bulk.is_some() {
            "a bulk load per partition"
        } else {
            "saves"
        };
        write!(
            f,
            "EntityWriteExec: table={}, {how}, partitions={}",
            self.table,
            self.properties.partitioning.partition_count()
        )
    }
}

impl<E: HBaseEntity> ExecutionPlan for EntityWriteExec<E> {
    fn name(&self) -> &'static str {
        "EntityWriteExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> DfResult<TreeNodeRecursion>,
    ) -> DfResult<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    /// Each partition of its input is written as it comes: more partitions would mean more
    /// writers (and, bulk-loading, more files per region), not a better write.
    fn benefits_from_input_partitioning(&self) -> Vec<bool> {
        vec![false]
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        match <[_; 1]>::try_from(children) {
            // The same writes of another input: the entity's columns are not derived again.
            Ok([input]) => Ok(Arc::new(EntityWriteExec::<E>::build(
                self.client.clone(),
                self.table.clone(),
                self.schema.clone(),
                self.bulk.clone(),
                input,
            ))),
            Err(children) => Err(DataFusionError::Internal(format!(
                "EntityWriteExec has one input (the query's rows), given {}",
                children.len()
            ))),
        }
    }

    fn execute(
        &self,
        partition: usize,
        ctx: Arc<TaskContext>,
    ) -> DfResult<SendableRecordBatchStream> {
        let rows = self.input.execute(partition, ctx.clone())?;
        let sink = EntitySink::<E>::new(
            self.client.clone(),
            self.table.clone(),
            self.schema.clone(),
            self.bulk.clone(),
        )
        .for_partition(partition);
        let schema = count_schema();
        let out = schema.clone();
        let written = futures::stream::once(async move {
            let n = sink.write_all(rows, &ctx).await?;
            Ok(RecordBatch::try_new(
                out,
                vec![Arc::new(UInt64Array::from(vec![n]))],
            )?)
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            schema,
            written.boxed(),
        )))
    }
}
