//! Plans over entity tables taken apart into bytes by one process's codecs and put together by
//! another's (a client's or scheduler's registry and client, an executor's registry and a
//! client of its own), as Ballista ships them: the answers equal the ones the plan gives where
//! it was made, a task handed some of a scan's partitions reads only their rows, and what a
//! process lacks is named. On the in-memory store and on the local HBase through its own RPC
//! (`native::` fails when it is not up: `hbase-local/hbase.sh up`).

use std::sync::Arc;

use datafusion::common::tree_node::{TreeNode, TreeNodeRecursion};
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::datasource::source::DataSourceExec;
use datafusion::datasource::source_as_provider;
use datafusion::logical_expr::LogicalPlan;
use datafusion::physical_plan::execution_plan::{ChildrenPropertiesMode, ReplaceChildrenOptions};
use datafusion::physical_plan::{collect, displayable, ExecutionPlan, ExecutionPlanProperties};
use datafusion::prelude::SessionContext;
use datafusion_proto::bytes::{
    logical_plan_from_bytes_with_extension_codec, logical_plan_to_bytes_with_extension_codec,
    physical_plan_from_bytes_with_extension_codec, physical_plan_to_bytes_with_extension_codec,
};
use hbase_orm::{BulkLoadOptions, Client};
use hbase_orm_ballista::{EntityLogicalCodec, EntityPhysicalCodec, EntityRegistry, DEFAULT_CLIENT};
use hbase_orm_sql::{register_as, EntityScanExec, EntityTable};
use hbase_orm_suite::TestTable;

mod common;

use common::{local_context, orders_table, sorted_rows, Customer, Order, QUERIES};

/// The two processes of a trip and a table of orders in three regions.
struct Scene {
    /// The process that plans: its context has the table registered.
    ctx: SessionContext,
    planner: Arc<EntityRegistry>,
    /// The process that runs the plan, with a client of its own.
    runner: Arc<EntityRegistry>,
    data: Vec<Order>,
    _table: TestTable,
}

impl Scene {
    /// `plan` written by the planner's physical codec and read by the runner's, in `there`.
    fn physical_trip(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        there: &SessionContext,
    ) -> Arc<dyn ExecutionPlan> {
        let codec = EntityPhysicalCodec::new(self.planner.clone());
        let bytes = physical_plan_to_bytes_with_extension_codec(plan, &codec).unwrap();
        let codec = EntityPhysicalCodec::new(self.runner.clone());
        physical_plan_from_bytes_with_extension_codec(&bytes, &there.task_ctx(), &codec).unwrap()
    }
}

async fn scene(planner_client: Client, runner_client: Client, label: &str) -> Scene {
    let (table, data) = orders_table(&planner_client, label, 600).await;
    let ctx = local_context(&planner_client, &table.name);
    let registry = |process: &str, client: Client| {
        Arc::new(
            EntityRegistry::new(process)
                .add::<Customer>()
                .add::<Order>()
                .client(DEFAULT_CLIENT, client),
        )
    };
    Scene {
        ctx,
        planner: registry("scheduler", planner_client),
        runner: registry("executor 1", runner_client),
        data,
        _table: table,
    }
}

/// The line of the scan in a plan's display.
fn scan_line(plan: &Arc<dyn ExecutionPlan>) -> String {
    let shown = displayable(plan.as_ref()).indent(true).to_string();
    shown
        .lines()
        .find(|l| l.contains("EntityScanExec"))
        .unwrap_or_else(|| panic!("no scan in {shown}"))
        .trim()
        .to_string()
}

/// The scan node of a plan (its first, going down the first inputs).
fn scan_of(plan: &Arc<dyn ExecutionPlan>) -> Arc<dyn ExecutionPlan> {
    let mut node = plan.clone();
    while !node.is::<EntityScanExec<Order>>() {
        node = node.children()[0].clone();
    }
    node
}

/// Every query answers alike where it was planned and after its physical plan (what a
/// scheduler sends an executor) or its logical plan (what a client sends a scheduler) went
/// through the codecs into the other process; the scan reads the same after the trip.
async fn queries_answer_alike_after_the_trip(planner: Client, runner: Client) {
    let s = scene(planner, runner, "ballista_trip").await;
    let there = SessionContext::new();
    for sql in QUERIES {
        let df = s.ctx.sql(sql).await.unwrap();
        let want = sorted_rows(&df.clone().collect().await.unwrap());
        assert!(!want.is_empty(), "{sql}: no rows to compare");

        let plan = df.clone().create_physical_plan().await.unwrap();
        let tripped = s.physical_trip(plan.clone(), &there);
        assert_eq!(scan_line(&tripped), scan_line(&plan), "{sql}");
        let got = sorted_rows(&collect(tripped, there.task_ctx()).await.unwrap());
        assert_eq!(got, want, "{sql}: the physical plan after the trip");

        let logical = df.logical_plan().clone();
        let bytes = logical_plan_to_bytes_with_extension_codec(
            &logical,
            &EntityLogicalCodec::new(s.planner.clone()),
        )
        .unwrap();
        let tripped = logical_plan_from_bytes_with_extension_codec(
            &bytes,
            &there.task_ctx(),
            &EntityLogicalCodec::new(s.runner.clone()),
        )
        .unwrap();
        let planned = there.state().create_physical_plan(&tripped).await.unwrap();
        assert_eq!(
            scan_line(&planned),
            scan_line(&plan),
            "{sql}: planned after the trip"
        );
        let got = sorted_rows(&collect(planned, there.task_ctx()).await.unwrap());
        assert_eq!(got, want, "{sql}: the logical plan after the trip");
    }
}

/// A task handed one partition of a scan's input (as Ballista hands a task only its partitions
/// of a plan's leaves) reads that region's rows and no other.
async fn a_task_given_one_partition_reads_only_its_spans(planner: Client, runner: Client) {
    let s = scene(planner, runner, "ballista_task").await;
    let df = s
        .ctx
        .sql("SELECT customer, number FROM orders")
        .await
        .unwrap();
    let plan = df.create_physical_plan().await.unwrap();
    let scan = scan_of(&plan);
    let spans = scan.children()[0].clone();
    let memory = spans
        .downcast_ref::<DataSourceExec>()
        .and_then(|d| d.data_source().downcast_ref::<MemorySourceConfig>())
        .expect("the scan's spans are a memory source");
    assert_eq!(memory.partitions().len(), 3, "one partition per region");
    let second =
        MemorySourceConfig::try_new_exec(&memory.partitions()[1..2], spans.schema(), None).unwrap();
    let recompute = ReplaceChildrenOptions::new(ChildrenPropertiesMode::Recompute);
    let task = scan.replace_children(vec![second], recompute).unwrap();
    assert_eq!(task.output_partitioning().partition_count(), 1);

    let there = SessionContext::new();
    let tripped = s.physical_trip(task, &there);
    let got = sorted_rows(&collect(tripped, there.task_ctx()).await.unwrap());
    let mut want: Vec<Vec<String>> = s
        .data
        .iter()
        .filter(|o| ("customer-04".."customer-08").contains(&o.customer.as_str()))
        .map(|o| vec![o.customer.clone(), o.number.to_string()])
        .collect();
    want.sort();
    assert_eq!(want.len(), 200);
    assert_eq!(got, want);
}

/// A process without the entity, or without a client of the plan's name, says so, naming
/// itself, the entity or client and what it has.
async fn what_a_process_lacks_is_named(planner: Client, runner: Client) {
    let s = scene(planner.clone(), runner.clone(), "ballista_lacks").await;
    let df = s
        .ctx
        .sql("SELECT number FROM orders WHERE customer = 'customer-01'")
        .await
        .unwrap();
    let plan = df.clone().create_physical_plan().await.unwrap();
    let bytes = physical_plan_to_bytes_with_extension_codec(
        plan,
        &EntityPhysicalCodec::new(s.planner.clone()),
    )
    .unwrap();
    let there = SessionContext::new();
    let decode = |registry: EntityRegistry| {
        physical_plan_from_bytes_with_extension_codec(
            &bytes,
            &there.task_ctx(),
            &EntityPhysicalCodec::new(Arc::new(registry)),
        )
        .unwrap_err()
        .to_string()
    };
    let err = decode(
        EntityRegistry::new("executor 2 at 10.0.0.7:50051")
            .add::<Customer>()
            .client(DEFAULT_CLIENT, runner.clone()),
    );
    assert!(
        err.contains("executor 2 at 10.0.0.7:50051 does not know entity `Order`: it knows `Customer`; build it with EntityRegistry::add::<Order>()"),
        "{err}"
    );
    let err = decode(
        EntityRegistry::new("executor 3")
            .add::<Order>()
            .client("archive", runner.clone()),
    );
    assert!(
        err.contains("executor 3 has no HBase client named `default` (it has `archive`)"),
        "{err}"
    );
    let logical = df.logical_plan().clone();
    let err = logical_plan_from_bytes_with_extension_codec(
        &logical_plan_to_bytes_with_extension_codec(
            &logical,
            &EntityLogicalCodec::new(s.planner.clone()),
        )
        .unwrap(),
        &there.task_ctx(),
        &EntityLogicalCodec::new(Arc::new(EntityRegistry::new("scheduler 2"))),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("scheduler 2 does not know entity `Order`: it knows none"),
        "{err}"
    );

    // A client the planner's registry does not have.
    let stranger = EntityTable::<Order>::new(&Client::in_memory()).unwrap();
    let err = encoding_error(&s.planner, stranger).await;
    assert!(
        err.contains("is not in the registry of scheduler: add it with EntityRegistry::client (it has `default`)"),
        "{err}"
    );
}

/// A table whose `INSERT` is a bulk load travels with its load's settings (its progress
/// callback stays), and a table decoded in another process inserts per partition.
async fn bulk_load_settings_travel(planner: Client, runner: Client) {
    let s = scene(planner.clone(), runner.clone(), "ballista_bulk_settings").await;
    let options = BulkLoadOptions::new()
        .staging_dir("/data/bulk staging")
        .memory_budget(3 << 20)
        .attempts(4)
        .on_progress(|_| {});
    let bulk = EntityTable::<Order>::new(&planner)
        .unwrap()
        .insert_by_bulk_load(options.clone());
    let ctx = SessionContext::new();
    register_as(&ctx, "orders", bulk).unwrap();
    let df = ctx.sql("SELECT number FROM orders").await.unwrap();
    let there = SessionContext::new();
    let decoded = logical_plan_from_bytes_with_extension_codec(
        &logical_plan_to_bytes_with_extension_codec(
            df.logical_plan(),
            &EntityLogicalCodec::new(s.planner.clone()),
        )
        .unwrap(),
        &there.task_ctx(),
        &EntityLogicalCodec::new(s.runner.clone()),
    )
    .unwrap();
    let mut tables = Vec::new();
    decoded
        .apply(|node| {
            if let LogicalPlan::TableScan(scan) = node {
                tables.push(source_as_provider(&scan.source).unwrap());
            }
            Ok(TreeNodeRecursion::Continue)
        })
        .unwrap();
    let [table] = &tables[..] else {
        panic!("one table scanned, found {}", tables.len());
    };
    let table = table.downcast_ref::<EntityTable<Order>>().unwrap();
    assert_eq!(
        table.bulk_load_options().map(BulkLoadOptions::settings),
        Some(options.settings())
    );
    assert!(table.inserts_per_partition());
}

/// The error of writing a scan of `table` with `registry`'s logical codec.
async fn encoding_error(registry: &Arc<EntityRegistry>, table: EntityTable<Order>) -> String {
    let ctx = SessionContext::new();
    register_as(&ctx, "orders", table).unwrap();
    let df = ctx.sql("SELECT number FROM orders").await.unwrap();
    let codec = EntityLogicalCodec::new(registry.clone());
    logical_plan_to_bytes_with_extension_codec(df.logical_plan(), &codec)
        .unwrap_err()
        .to_string()
}

macro_rules! on_backend {
    ($module:ident, $clients:expr) => {
        mod $module {
            use hbase_orm::Client;

            /// The planner's client and the runner's.
            async fn clients() -> (Client, Client) {
                $clients
            }

            #[tokio::test]
            async fn queries_answer_alike_after_the_trip() {
                let (planner, runner) = clients().await;
                crate::queries_answer_alike_after_the_trip(planner, runner).await;
            }

            #[tokio::test]
            async fn a_task_given_one_partition_reads_only_its_spans() {
                let (planner, runner) = clients().await;
                crate::a_task_given_one_partition_reads_only_its_spans(planner, runner).await;
            }

            #[tokio::test]
            async fn bulk_load_settings_travel() {
                let (planner, runner) = clients().await;
                crate::bulk_load_settings_travel(planner, runner).await;
            }

            #[tokio::test]
            async fn what_a_process_lacks_is_named() {
                let (planner, runner) = clients().await;
                crate::what_a_process_lacks_is_named(planner, runner).await;
            }
        }
    };
}

// The in-memory store: one store, so both processes' registries name the one client.
on_backend!(memory, {
    let client = hbase_orm_suite::Target::Memory.client().await;
    (client.clone(), client)
});
// HBase through its own RPC: two clients, two pools of connections.
on_backend!(native, {
    (
        hbase_orm_suite::Target::Native.client().await,
        hbase_orm_suite::Target::Native.client().await,
    )
});
