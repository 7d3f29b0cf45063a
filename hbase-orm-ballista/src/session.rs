//! Ballista sessions whose plans carry a registry's entity tables.

use std::sync::Arc;

use ballista::prelude::{SessionConfigExt, SessionContextExt};
use ballista_core::config::BALLISTA_SCHEDULER_MAX_PARTITIONS_PER_TASK;
use ballista_core::serde::{BallistaLogicalExtensionCodec, BallistaPhysicalExtensionCodec};
use datafusion::error::Result as DfResult;
use datafusion::execution::{SessionState, SessionStateBuilder};
use datafusion::prelude::{SessionConfig, SessionContext};

use crate::codec::{EntityLogicalCodec, EntityPhysicalCodec};
use crate::registry::EntityRegistry;

/// A Ballista session's configuration whose plans carry `registry`'s entity tables: its
/// codecs are the registry's, wrapping Ballista's own, and each task of a stage runs one
/// partition of it (`ballista.scheduler.max_partitions_per_task` 1), so that a scan's
/// regions (or sub-ranges) are read by as many tasks, spread over the executors.
///
/// ```
/// use std::sync::Arc;
/// use hbase_orm_ballista::{session_config, EntityRegistry};
///
/// let config = session_config(&Arc::new(EntityRegistry::new("client")));
/// let options = config.options().entries();
/// let cap = options.iter().find(|e| e.key == "ballista.scheduler.max_partitions_per_task");
/// assert_eq!(cap.and_then(|e| e.value.as_deref()), Some("1"));
/// ```
pub fn session_config(registry: &Arc<EntityRegistry>) -> SessionConfig {
    let logical = EntityLogicalCodec::wrapping(
        registry.clone(),
        Arc::new(BallistaLogicalExtensionCodec::default()),
    );
    let physical = EntityPhysicalCodec::wrapping(
        registry.clone(),
        Arc::new(BallistaPhysicalExtensionCodec::default()),
    );
    SessionConfig::new_with_ballista()
        .with_ballista_logical_extension_codec(Arc::new(logical))
        .with_ballista_physical_extension_codec(Arc::new(physical))
        .set_usize(BALLISTA_SCHEDULER_MAX_PARTITIONS_PER_TASK, 1)
}

/// A session state of [`session_config`] with DataFusion's default features (functions,
/// planners, optimizer rules): what a client, a scheduler and an executor each build from the
/// same registry.
///
/// ```
/// use std::sync::Arc;
/// use hbase_orm_ballista::{session_state, EntityRegistry};
///
/// let state = session_state(&Arc::new(EntityRegistry::new("client")));
/// // Ballista's own partitions per stage: a table of fewer regions is read in sub-ranges.
/// assert_eq!(state.config().target_partitions(), 16);
/// ```
pub fn session_state(registry: &Arc<EntityRegistry>) -> SessionState {
    SessionStateBuilder::new()
        .with_config(session_config(registry))
        .with_default_features()
        .build()
}

/// A context whose queries run on the Ballista scheduler at `url` (`df://host:port`) and its
/// executors, plans of `registry`'s entity tables included. Register the tables in it as in
/// one process ([`hbase_orm_sql::register`]), through a client the registry has.
///
/// ```no_run
/// # #[derive(hbase_orm::HBaseEntity)]
/// # #[hbase(table = "orders", family = "d")]
/// # struct Order { #[hbase(key)] id: u64, total: f64 }
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use std::sync::Arc;
/// use hbase_orm_ballista::{EntityRegistry, DEFAULT_CLIENT};
///
/// let client = hbase_orm::Client::from_env_required().await?;
/// let registry = Arc::new(
///     EntityRegistry::new("client").add::<Order>().client(DEFAULT_CLIENT, client.clone()),
/// );
/// let ctx = hbase_orm_ballista::remote("df://127.0.0.1:50050", &registry).await?;
/// hbase_orm_sql::register::<Order>(&ctx, &client)?;
/// ctx.sql("SELECT count(*), sum(total) FROM orders").await?.show().await?;
/// # Ok(()) }
/// ```
pub async fn remote(url: &str, registry: &Arc<EntityRegistry>) -> DfResult<SessionContext> {
    SessionContext::remote_with_state(url, session_state(registry)).await
}
