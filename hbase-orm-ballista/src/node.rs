//! Ballista's scheduler and executor, run with a registry's codecs: the two processes a user's
//! own binary (linking their entities) starts.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use ballista_core::serde::{BallistaLogicalExtensionCodec, BallistaPhysicalExtensionCodec};
use ballista_executor::executor_process::{start_executor_process, ExecutorProcessConfig};
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::{SchedulerConfig, TaskDistributionPolicy};
use ballista_scheduler::scheduler_process::start_server;
use datafusion::error::{DataFusionError, Result as DfResult};

use crate::codec::{EntityLogicalCodec, EntityPhysicalCodec};
use crate::registry::EntityRegistry;

/// `registry`'s codecs wrapping Ballista's.
fn codecs(registry: &Arc<EntityRegistry>) -> (Arc<EntityLogicalCodec>, Arc<EntityPhysicalCodec>) {
    (
        Arc::new(EntityLogicalCodec::wrapping(
            registry.clone(),
            Arc::new(BallistaLogicalExtensionCodec::default()),
        )),
        Arc::new(EntityPhysicalCodec::wrapping(
            registry.clone(),
            Arc::new(BallistaPhysicalExtensionCodec::default()),
        )),
    )
}

/// Ballista's error as DataFusion's, saying which process failed.
fn failed(what: &str, e: impl std::fmt::Display) -> DataFusionError {
    DataFusionError::Execution(format!("{what}: {e}"))
}

/// How a scheduler runs ([`run_scheduler`]).
///
/// ```
/// let mut options = hbase_orm_ballista::SchedulerOptions::default();
/// assert_eq!(options.bind.to_string(), "127.0.0.1:50050");
/// options.executor_timeout = std::time::Duration::from_secs(5);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SchedulerOptions {
    /// The address it listens on (gRPC for clients and executors; default 127.0.0.1:50050),
    /// and names itself by: an address the others reach it at, not `0.0.0.0`.
    pub bind: SocketAddr,
    /// An executor silent this long is taken for lost and its tasks run again elsewhere
    /// (default 180 s, Ballista's).
    pub executor_timeout: Duration,
}

impl Default for SchedulerOptions {
    fn default() -> Self {
        SchedulerOptions {
            bind: SocketAddr::from(([127, 0, 0, 1], 50050)),
            executor_timeout: Duration::from_secs(180),
        }
    }
}

/// Runs a Ballista scheduler that plans queries over `registry`'s entity tables, until the
/// process is stopped: it decodes each client's plan with the registry (the tables read
/// through the registry's clients: the scheduler cuts each scan at the regions, so it needs
/// HBase too), and sends each task's plan to an executor with the registry's physical codec.
/// Tasks go round the executors in turn (Ballista's round-robin distribution), so that a
/// scan's regions are read by all of them.
///
/// A program of one's own, linking one's entities, runs as a scheduler or as an executor:
///
/// ```no_run
/// # #[derive(hbase_orm::HBaseEntity)]
/// # #[hbase(table = "orders", family = "d")]
/// # struct Order { #[hbase(key)] id: u64, total: f64 }
/// use std::sync::Arc;
/// use hbase_orm_ballista::{run_executor, run_scheduler, EntityRegistry, ExecutorOptions, SchedulerOptions, DEFAULT_CLIENT};
///
/// #[tokio::main]
/// async fn main() -> Result<(), Box<dyn std::error::Error>> {
///     let client = hbase_orm::Client::from_env_required().await?;
///     let role = std::env::args().nth(1).unwrap_or_default();
///     let registry = Arc::new(EntityRegistry::new(role.clone()).add::<Order>().client(DEFAULT_CLIENT, client));
///     if role == "scheduler" {
///         run_scheduler(registry, SchedulerOptions::default()).await?;
///     } else {
///         let mut options = ExecutorOptions::default();
///         options.flight_port = 50061;
///         options.grpc_port = 50062;
///         run_executor(registry, options).await?;
///     }
///     Ok(())
/// }
/// ```
pub async fn run_scheduler(
    registry: Arc<EntityRegistry>,
    options: SchedulerOptions,
) -> DfResult<()> {
    let (logical, physical) = codecs(&registry);
    let timeout = options.executor_timeout.as_secs().max(1);
    let config = SchedulerConfig {
        bind_host: options.bind.ip().to_string(),
        bind_port: options.bind.port(),
        external_host: options.bind.ip().to_string(),
        task_distribution: TaskDistributionPolicy::RoundRobin,
        executor_timeout_seconds: timeout,
        expire_dead_executor_interval_seconds: 1,
        no_executors_grace_period_seconds: timeout,
        override_logical_codec: Some(logical),
        override_physical_codec: Some(physical),
        ..SchedulerConfig::default()
    };
    let cluster = BallistaCluster::new_from_config(&config)
        .await
        .map_err(|e| failed("starting the scheduler's state", e))?;
    start_server(cluster, options.bind, Arc::new(config))
        .await
        .map_err(|e| failed(&format!("the scheduler at {}", options.bind), e))
}

/// How an executor runs ([`run_executor`]). Two executors on one machine need ports of their
/// own.
///
/// ```
/// let mut options = hbase_orm_ballista::ExecutorOptions::default();
/// assert_eq!((options.flight_port, options.grpc_port), (50051, 50052));
/// options.scheduler = "10.0.0.2:50050".parse().unwrap();
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ExecutorOptions {
    /// The host it listens on and tells the scheduler, which hands it to the executors and
    /// clients that fetch its results: an address they reach it at, not `0.0.0.0` (default
    /// 127.0.0.1).
    pub host: String,
    /// Its Arrow Flight port, which other executors and clients fetch results from (default
    /// 50051).
    pub flight_port: u16,
    /// Its gRPC port, which the scheduler sends tasks to (default 50052).
    pub grpc_port: u16,
    /// The scheduler's address (default 127.0.0.1:50050).
    pub scheduler: SocketAddr,
    /// Tasks run at once (default: the machine's cores).
    pub task_slots: usize,
    /// Where it keeps shuffle files (default: a directory of its own under the system's
    /// temporary directory).
    pub work_dir: Option<String>,
    /// How often it tells the scheduler it is alive (default 60 s, Ballista's).
    pub heartbeat: Duration,
}

impl Default for ExecutorOptions {
    fn default() -> Self {
        ExecutorOptions {
            host: "127.0.0.1".to_string(),
            flight_port: 50051,
            grpc_port: 50052,
            scheduler: SocketAddr::from(([127, 0, 0, 1], 50050)),
            task_slots: std::thread::available_parallelism().map_or(1, |n| n.get()),
            work_dir: None,
            heartbeat: Duration::from_secs(60),
        }
    }
}

/// Runs a Ballista executor that runs tasks over `registry`'s entity tables (each task's
/// scan reads its own regions through the registry's client of the plan's name), until the
/// process is stopped or the scheduler stops it.
pub async fn run_executor(registry: Arc<EntityRegistry>, options: ExecutorOptions) -> DfResult<()> {
    let (logical, physical) = codecs(&registry);
    let config = ExecutorProcessConfig {
        bind_host: options.host.clone(),
        external_host: Some(options.host.clone()),
        port: options.flight_port,
        grpc_port: options.grpc_port,
        scheduler_host: options.scheduler.ip().to_string(),
        scheduler_port: options.scheduler.port(),
        vcores: options.task_slots.max(1),
        work_dir: options.work_dir.clone(),
        executor_heartbeat_interval_seconds: options.heartbeat.as_secs().max(1),
        override_logical_codec: Some(logical),
        override_physical_codec: Some(physical),
        ..ExecutorProcessConfig::default()
    };
    start_executor_process(Arc::new(config)).await.map_err(|e| {
        failed(
            &format!("the executor at {}:{}", options.host, options.flight_port),
            e,
        )
    })
}
