//! Queries over an entity table run by Ballista: a scheduler and an executor in this process
//! (Ballista's standalone mode), talking gRPC and Arrow Flight over local ports, the plans
//! crossing between them through the registry's codecs as they would between machines. Every
//! answer equals the one DataFusion gives in one process over the same table (a scan read
//! twice, or a region left out, would change the counts and sums). On the in-memory store and
//! on the local HBase through its own RPC (`native::` fails when it is not up:
//! `hbase-local/hbase.sh up`). An `INSERT` through it writes each partition of its query in the
//! task that reads it.

use std::sync::Arc;

use ballista::prelude::SessionContextExt;
use datafusion::prelude::SessionContext;
use hbase_orm::Client;
use hbase_orm_ballista::{session_state, EntityRegistry, DEFAULT_CLIENT};
use hbase_orm_sql::{register_as, EntityTable};

mod common;

use common::{answer, entity, local_context, orders_table, sorted_rows, Order, QUERIES};

/// The registry of this test's Ballista scheduler and executor (Ballista's standalone mode, in
/// this process), and a context whose queries they run.
async fn standalone(client: &Client) -> (Arc<EntityRegistry>, SessionContext) {
    let registry = Arc::new(
        EntityRegistry::new("this test's scheduler and executor")
            .add::<Order>()
            .client(DEFAULT_CLIENT, client.clone()),
    );
    let ballista = SessionContext::standalone_with_state(session_state(&registry))
        .await
        .unwrap();
    (registry, ballista)
}

/// Every query of the shared set answers through Ballista as in one process; the scan's plan
/// in Ballista is the entity scan, one partition per region.
async fn queries_answer_as_in_one_process(client: Client) {
    let (table, _) = orders_table(&client, "ballista_standalone", 600).await;
    let entity = || entity(&client, &table.name);
    let local = local_context(&client, &table.name);

    let (registry, ballista) = standalone(&client).await;
    register_as(&ballista, "orders", entity()).unwrap();

    for sql in QUERIES {
        let want = answer(&local, sql).await;
        assert!(!want.is_empty(), "{sql}: no rows to compare");
        let df = ballista.sql(sql).await.unwrap();
        let plan = df.clone().create_physical_plan().await.unwrap();
        assert_eq!(
            plan.name(),
            "DistributedQueryExec",
            "{sql}: not sent to the scheduler"
        );
        let got = sorted_rows(&df.collect().await.unwrap());
        assert_eq!(got, want, "{sql}: through Ballista");
    }
    // A query of the whole table: one task per partition, each decoding a scan of its own
    // partition only. By default a table of fewer regions than the session's partitions has
    // its regions cut into sub-ranges (3 regions, 16 partitions: 6 sub-ranges each); with
    // whole_regions, one task per region.
    let sql = "SELECT count(*), sum(total) FROM orders";
    let want = answer(&local, sql).await;
    let per_region = ballista.state().config().target_partitions().div_ceil(3) as u64;
    let whole = EntityTable::<Order>::new(&client)
        .unwrap()
        .on_table(table.name.clone())
        .whole_regions();
    register_as(&ballista, "whole", whole).unwrap();
    for (table, tasks) in [("orders", 3 * per_region), ("whole", 3)] {
        let before = registry.scans_decoded();
        let sql = sql.replace("orders", table);
        let got = answer(&ballista, &sql).await;
        assert_eq!(got, want, "{sql}");
        let after = registry.scans_decoded();
        assert_eq!(
            (
                after.scans - before.scans,
                after.partitions - before.partitions
            ),
            (tasks, tasks),
            "{sql}: scans decoded, and their partitions: {before:?} -> {after:?}"
        );
    }
}

/// `INSERT INTO` an entity table from another through Ballista: the scheduler plans the writes
/// of each partition of the query apart, each task writes the rows it reads (as many write
/// tasks as scan partitions, each decoding writes of its own), the statement counts them all,
/// and the copy reads back equal. With `bulk`, the copy is registered for bulk loads: each task
/// bulk-loads its rows (native backend; the in-memory store refuses, named).
async fn inserts_write_each_partition_in_its_task(client: Client, bulk: bool) {
    let (table, orders) = orders_table(&client, "ballista_insert_from", 600).await;
    let (_, copy) =
        hbase_orm_suite::fresh_split_repository::<Order>(&client, "ballista_insert_to", &[]).await;
    let (registry, ballista) = standalone(&client).await;
    register_as(&ballista, "orders", entity(&client, &table.name)).unwrap();
    let mut target = entity(&client, &copy.name);
    if bulk {
        target = target.insert_by_bulk_load(hbase_orm::BulkLoadOptions::new());
    }
    register_as(&ballista, "copy", target).unwrap();

    let before = registry.scans_decoded();
    let insert = "INSERT INTO copy SELECT * FROM orders";
    if bulk && client.config().gateway != hbase_orm::Gateway::NativeRpc {
        let df = ballista.sql(insert).await.unwrap();
        let err = df.collect().await.unwrap_err().to_string();
        assert!(err.contains("bulk_load_stream"), "{err}");
        return;
    }
    let got = answer(&ballista, insert).await;
    assert_eq!(got, [[orders.len().to_string()]]);
    let after = registry.scans_decoded();
    let tasks = ballista.state().config().target_partitions().div_ceil(3) as u64 * 3;
    assert_eq!(
        (after.scans - before.scans, after.writes - before.writes),
        (tasks, tasks),
        "scans and writes decoded: {before:?} -> {after:?}"
    );

    let local = local_context(&client, &copy.name);
    let everything = "SELECT * FROM orders";
    assert_eq!(
        answer(&local, everything).await,
        answer(&local_context(&client, &table.name), everything).await,
        "the copy reads back as the table it was copied from"
    );
}

macro_rules! on_backend {
    ($module:ident, $client:expr) => {
        mod $module {
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn queries_answer_as_in_one_process() {
                crate::queries_answer_as_in_one_process($client).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn inserts_write_each_partition_in_its_task() {
                crate::inserts_write_each_partition_in_its_task($client, false).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn inserts_bulk_load_each_partition_in_its_task() {
                crate::inserts_write_each_partition_in_its_task($client, true).await;
            }
        }
    };
}

on_backend!(memory, hbase_orm_suite::Target::Memory.client().await);
on_backend!(native, hbase_orm_suite::Target::Native.client().await);
