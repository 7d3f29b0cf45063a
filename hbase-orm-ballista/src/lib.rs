//! [`hbase_orm`] entity tables across machines: the pieces Apache DataFusion Ballista needs to
//! ship a query over [`hbase_orm_sql`]'s tables from a client to its scheduler and executors.
//!
//! Ballista sends plans between processes as protobuf; a node DataFusion does not know
//! travels through an extension codec. This crate has the two that entity tables need, and
//! the registry they resolve names with:
//!
//! - [`EntityRegistry`]: the entities (Rust types, compiled into every process) and HBase
//!   clients (each process its own connection) a process knows, by name;
//! - [`EntityLogicalCodec`]: an [`EntityTable`](hbase_orm_sql::EntityTable) in a logical plan
//!   (a query's table scan, with the projection and filters DataFusion pushed into it, or an
//!   `INSERT`'s target, with its bulk load's settings): what a client sends a scheduler. A
//!   table it decodes inserts per partition
//!   ([`insert_per_partition`](hbase_orm_sql::EntityTable::insert_per_partition));
//! - [`EntityPhysicalCodec`]: an [`EntityScanExec`](hbase_orm_sql::EntityScanExec) in a
//!   physical plan (table, projection, pushed filters, limit; its key spans as its input, so a
//!   task given some of a scan's partitions reads only their spans) and an
//!   [`EntityWriteExec`](hbase_orm_sql::EntityWriteExec) (an `INSERT`'s writes, each task
//!   saving or bulk-loading the rows of its own partition): what a scheduler sends its
//!   executors.
//!
//! Both wrap another codec (DataFusion's default here, Ballista's in a Ballista process) for
//! every other node. [`session_config`] and [`session_state`] give a Ballista session with
//! the registry's codecs wrapping Ballista's, each task reading one partition of a scan (a
//! region); [`remote`], a context whose queries run on a Ballista scheduler.
//!
//! ```
//! # #[derive(hbase_orm::HBaseEntity)]
//! # #[hbase(table = "orders", family = "d")]
//! # struct Order { #[hbase(key)] id: u64, total: f64 }
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! use datafusion::prelude::SessionContext;
//! use datafusion_proto::bytes::{physical_plan_from_bytes_with_extension_codec, physical_plan_to_bytes_with_extension_codec};
//! use hbase_orm_ballista::{EntityPhysicalCodec, EntityRegistry, DEFAULT_CLIENT};
//!
//! // The process that plans (a scheduler, say) and one that runs (an executor): each its own
//! // registry of the same entity, each its own client.
//! let planner_client = hbase_orm::Client::in_memory();
//! # planner_client.admin().ensure::<Order>().await?;
//! let planner = Arc::new(EntityRegistry::new("scheduler").add::<Order>().client(DEFAULT_CLIENT, planner_client.clone()));
//! let runner_client = hbase_orm::Client::in_memory();
//! # runner_client.admin().ensure::<Order>().await?;
//! let runner = Arc::new(EntityRegistry::new("executor 1").add::<Order>().client(DEFAULT_CLIENT, runner_client));
//!
//! let ctx = SessionContext::new();
//! hbase_orm_sql::register::<Order>(&ctx, &planner_client)?;
//! let plan = ctx.sql("SELECT id, total FROM orders WHERE id = 7").await?.create_physical_plan().await?;
//!
//! let bytes = physical_plan_to_bytes_with_extension_codec(plan, &EntityPhysicalCodec::new(planner))?;
//! let there = SessionContext::new();
//! let plan = physical_plan_from_bytes_with_extension_codec(&bytes, &there.task_ctx(), &EntityPhysicalCodec::new(runner))?;
//! // It runs in the executor, reading through the executor's client.
//! let rows = datafusion::physical_plan::collect(plan, there.task_ctx()).await?;
//! assert_eq!(rows.iter().map(|b| b.num_rows()).sum::<usize>(), 0);
//! # Ok(()) }
//! ```
//!
//! [`run_scheduler`] and [`run_executor`] (feature `node`, on by default) run Ballista's
//! scheduler and executor with a registry's codecs: what a program linking one's entities runs.
//!
//! An `INSERT INTO` an entity table through a Ballista session (`INSERT INTO orders SELECT *
//! FROM 'orders.csv'`) is written by the tasks that read the query's rows, each its own
//! partition: saved, or, for a table registered with
//! [`insert_by_bulk_load`](hbase_orm_sql::EntityTable::insert_by_bulk_load), bulk-loaded by
//! each task (its options' settings travel; their progress callback stays where the table was
//! registered; the files go where the region servers read them: a staging directory they
//! share, or HDFS with hbase-orm's feature `hdfs`).
#![warn(missing_docs)]

mod codec;
#[cfg(feature = "node")]
mod node;
mod proto;
mod registry;
mod session;

pub use codec::{EntityLogicalCodec, EntityPhysicalCodec};
#[cfg(feature = "node")]
pub use node::{run_executor, run_scheduler, ExecutorOptions, SchedulerOptions};
pub use registry::{EntityRegistry, ScansDecoded, DEFAULT_CLIENT};
pub use session::{remote, session_config, session_state};

/// DataFusion's protobuf plans, as this crate builds against them.
pub use datafusion_proto;
