//! The extension codecs: an entity table in logical plans, its scan in physical plans, every
//! other node handed to the codec they wrap.

use std::path::PathBuf;
use std::sync::Arc;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::TableProvider;
use datafusion::common::TableReference;
use datafusion::datasource::file_format::FileFormatFactory;
use datafusion::error::{DataFusionError, Result as DfResult};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{
    AggregateUDF, Extension, HigherOrderUDF, LogicalPlan, ScalarUDF, WindowUDF,
};
use datafusion::physical_expr_common::physical_expr::proto_decode::PhysicalExprDecodeCtx;
use datafusion::physical_expr_common::physical_expr::proto_encode::PhysicalExprEncodeCtx;
use datafusion::physical_plan::{ExecutionPlan, PhysicalExpr};
use datafusion_proto::logical_plan::from_proto::parse_exprs;
use datafusion_proto::logical_plan::to_proto::serialize_exprs;
use datafusion_proto::logical_plan::{DefaultLogicalExtensionCodec, LogicalExtensionCodec};
use datafusion_proto::physical_plan::{
    DefaultPhysicalExtensionCodec, PhysicalExtensionCodec, PhysicalProtoConverterExtension,
};
use hbase_orm::{BulkLoadOptions, BulkLoadSettings, TableName};
use prost::Message;

use crate::proto::{self, envelope::Node, Envelope};
use crate::registry::{EntityRegistry, Kind, ScanParts, TableParts};

/// The codec of logical plans for the entity tables of a registry: a table scan of an
/// [`EntityTable`](hbase_orm_sql::EntityTable) (the query's pushed projection and filters
/// travel in DataFusion's own scan node) and an `INSERT`'s target become the entity's and
/// client's names, the table's name and its [`ReadSettings`](hbase_orm_sql::ReadSettings);
/// every other node, function and file format is the wrapped codec's (DataFusion's default,
/// or Ballista's). What a client and a scheduler need.
///
/// A table whose `INSERT` is a bulk load travels with its load's settings
/// ([`BulkLoadSettings`](hbase_orm::BulkLoadSettings)); its progress callback stays where the
/// table was registered.
#[derive(Debug)]
pub struct EntityLogicalCodec {
    registry: Arc<EntityRegistry>,
    inner: Arc<dyn LogicalExtensionCodec>,
}

/// The codec of physical plans for the entity tables of a registry: an
/// [`EntityScanExec`](hbase_orm_sql::EntityScanExec) becomes its table (as in
/// [`EntityLogicalCodec`]), projection, pushed filters, limit and batch size, its key spans
/// travelling as its input; every other node is the wrapped codec's. What a scheduler and the
/// executors need.
#[derive(Debug)]
pub struct EntityPhysicalCodec {
    registry: Arc<EntityRegistry>,
    inner: Arc<dyn PhysicalExtensionCodec>,
}

impl EntityLogicalCodec {
    /// The codec of `registry`'s entity tables, wrapping DataFusion's default codec.
    pub fn new(registry: Arc<EntityRegistry>) -> Self {
        Self::wrapping(registry, Arc::new(DefaultLogicalExtensionCodec {}))
    }

    /// The codec of `registry`'s entity tables, wrapping `inner` (Ballista's, say) for every
    /// other node.
    pub fn wrapping(registry: Arc<EntityRegistry>, inner: Arc<dyn LogicalExtensionCodec>) -> Self {
        EntityLogicalCodec { registry, inner }
    }
}

impl EntityPhysicalCodec {
    /// The codec of `registry`'s entity scans, wrapping DataFusion's default codec.
    pub fn new(registry: Arc<EntityRegistry>) -> Self {
        Self::wrapping(registry, Arc::new(DefaultPhysicalExtensionCodec {}))
    }

    /// The codec of `registry`'s entity scans, wrapping `inner` (Ballista's, say) for every
    /// other node.
    pub fn wrapping(registry: Arc<EntityRegistry>, inner: Arc<dyn PhysicalExtensionCodec>) -> Self {
        EntityPhysicalCodec { registry, inner }
    }
}

/// Writes `node` in an envelope to `buf`.
fn write(node: Node, buf: &mut Vec<u8>) -> DfResult<()> {
    Envelope { node: Some(node) }
        .encode(buf)
        .map_err(|e| DataFusionError::Internal(format!("writing an hbase-orm plan node: {e}")))
}

/// The node in the envelope of `buf`.
fn read(buf: &[u8], process: &str) -> DfResult<Node> {
    Envelope::decode(buf)
        .ok()
        .and_then(|e| e.node)
        .ok_or_else(|| {
            DataFusionError::Plan(format!(
                "{process} received a plan node that is not an hbase-orm codec's ({} bytes): \
                 are the client, scheduler and executors built with the same codecs?",
                buf.len()
            ))
        })
}

/// Runs the wrapped codec's encoder and puts what it wrote in an envelope.
fn wrap(buf: &mut Vec<u8>, encode: impl FnOnce(&mut Vec<u8>) -> DfResult<()>) -> DfResult<()> {
    let mut inner = Vec::new();
    encode(&mut inner)?;
    write(Node::Inner(inner), buf)
}

impl EntityRegistry {
    /// The message of entity table `parts` of `kind`.
    fn table_node(&self, kind: &dyn Kind, parts: &TableParts) -> DfResult<proto::EntityTableNode> {
        let bulk = parts
            .bulk
            .as_ref()
            .map(|bulk| bulk_message(&parts.table, bulk))
            .transpose()?;
        let settings = parts.settings;
        Ok(proto::EntityTableNode {
            entity: Some(proto::EntityRef {
                entity: kind.name().to_string(),
                fingerprint: kind.fingerprint(),
                table: parts.table.to_string(),
                client: self.client_name(&parts.client, &parts.table)?.to_string(),
            }),
            settings: Some(proto::ReadSettings {
                page_size: settings.page_size,
                whole_families: settings.whole_families,
                whole_regions: settings.whole_regions,
                one_partition: settings.one_partition,
            }),
            bulk,
        })
    }

    /// The entity, client, table and settings of `node`.
    fn table_parts(&self, node: proto::EntityTableNode) -> DfResult<(&dyn Kind, TableParts)> {
        let (Some(entity), Some(settings)) = (node.entity, node.settings) else {
            return Err(DataFusionError::Plan(format!(
                "{} received an entity table without its entity or settings",
                self.process()
            )));
        };
        let kind = self.kind(&entity.entity, entity.fingerprint)?;
        let client = self.client_named(&entity.client)?.clone();
        let table = TableName::parse(&entity.table)
            .map_err(|e| DataFusionError::Plan(format!("{}: {e}", self.process())))?;
        let mut read = hbase_orm_sql::ReadSettings::default();
        read.page_size = settings.page_size;
        read.whole_families = settings.whole_families;
        read.whole_regions = settings.whole_regions;
        read.one_partition = settings.one_partition;
        let bulk = node.bulk.map(bulk_settings);
        Ok((
            kind,
            TableParts {
                client,
                table,
                settings: read,
                bulk,
            },
        ))
    }
}

/// The message of the bulk load `bulk` into `table`.
fn bulk_message(table: &TableName, bulk: &BulkLoadSettings) -> DfResult<proto::BulkLoad> {
    let staging_dir = match &bulk.staging_dir {
        None => None,
        Some(dir) => Some(dir.to_str().map(str::to_string).ok_or_else(|| {
            DataFusionError::Plan(format!(
                "the bulk load into {table}: its staging directory {} is no UTF-8 text, \
                 which cannot travel to another process",
                dir.display()
            ))
        })?),
    };
    Ok(proto::BulkLoad {
        staging_dir,
        hdfs_dir: bulk.hdfs_dir.clone(),
        attempts: bulk.attempts as u64,
        memory_budget: bulk.memory_budget as u64,
    })
}

/// The settings of the bulk load of `message`.
fn bulk_settings(message: proto::BulkLoad) -> BulkLoadSettings {
    let mut bulk = BulkLoadOptions::new().settings();
    bulk.staging_dir = message.staging_dir.map(PathBuf::from);
    bulk.hdfs_dir = message.hdfs_dir;
    bulk.attempts = usize::try_from(message.attempts).unwrap_or(usize::MAX);
    bulk.memory_budget = usize::try_from(message.memory_budget).unwrap_or(usize::MAX);
    bulk
}

/// The methods of both codec traits for functions, the same in each: the wrapped codec's.
macro_rules! delegate_functions {
    () => {
        fn try_decode_udf(&self, name: &str, buf: &[u8]) -> DfResult<Arc<ScalarUDF>> {
            self.inner.try_decode_udf(name, buf)
        }

        fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> DfResult<()> {
            self.inner.try_encode_udf(node, buf)
        }

        fn try_decode_higher_order_function(
            &self,
            name: &str,
            buf: &[u8],
        ) -> DfResult<Arc<HigherOrderUDF>> {
            self.inner.try_decode_higher_order_function(name, buf)
        }

        fn try_encode_higher_order_function(
            &self,
            node: &HigherOrderUDF,
            buf: &mut Vec<u8>,
        ) -> DfResult<()> {
            self.inner.try_encode_higher_order_function(node, buf)
        }

        fn try_decode_udaf(&self, name: &str, buf: &[u8]) -> DfResult<Arc<AggregateUDF>> {
            self.inner.try_decode_udaf(name, buf)
        }

        fn try_encode_udaf(&self, node: &AggregateUDF, buf: &mut Vec<u8>) -> DfResult<()> {
            self.inner.try_encode_udaf(node, buf)
        }

        fn try_decode_udwf(&self, name: &str, buf: &[u8]) -> DfResult<Arc<WindowUDF>> {
            self.inner.try_decode_udwf(name, buf)
        }

        fn try_encode_udwf(&self, node: &WindowUDF, buf: &mut Vec<u8>) -> DfResult<()> {
            self.inner.try_encode_udwf(node, buf)
        }
    };
}

impl LogicalExtensionCodec for EntityLogicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[LogicalPlan],
        ctx: &TaskContext,
    ) -> DfResult<Extension> {
        match read(buf, self.registry.process())? {
            Node::Inner(inner) => self.inner.try_decode(&inner, inputs, ctx),
            _ => Err(DataFusionError::Plan(format!(
                "{} received an entity table or scan where a logical plan node belongs",
                self.registry.process()
            ))),
        }
    }

    fn try_encode(&self, node: &Extension, buf: &mut Vec<u8>) -> DfResult<()> {
        wrap(buf, |inner| self.inner.try_encode(node, inner))
    }

    fn try_decode_table_provider(
        &self,
        buf: &[u8],
        table_ref: &TableReference,
        schema: SchemaRef,
        ctx: &TaskContext,
    ) -> DfResult<Arc<dyn TableProvider>> {
        match read(buf, self.registry.process())? {
            Node::Table(node) => {
                let (kind, parts) = self.registry.table_parts(node)?;
                kind.table(parts)
            }
            Node::Inner(inner) => self
                .inner
                .try_decode_table_provider(&inner, table_ref, schema, ctx),
            Node::Scan(_) | Node::Write(_) => Err(DataFusionError::Plan(format!(
                "{} received a physical plan node where table {table_ref} belongs",
                self.registry.process()
            ))),
        }
    }

    fn try_encode_table_provider(
        &self,
        table_ref: &TableReference,
        node: Arc<dyn TableProvider>,
        buf: &mut Vec<u8>,
    ) -> DfResult<()> {
        match self.registry.table_of(node.as_ref()) {
            Some((kind, parts)) => write(Node::Table(self.registry.table_node(kind, &parts)?), buf),
            None => wrap(buf, |inner| {
                self.inner.try_encode_table_provider(table_ref, node, inner)
            }),
        }
    }

    fn try_decode_file_format(
        &self,
        buf: &[u8],
        ctx: &TaskContext,
    ) -> DfResult<Arc<dyn FileFormatFactory>> {
        self.inner.try_decode_file_format(buf, ctx)
    }

    fn try_encode_file_format(
        &self,
        buf: &mut Vec<u8>,
        node: Arc<dyn FileFormatFactory>,
    ) -> DfResult<()> {
        self.inner.try_encode_file_format(buf, node)
    }

    delegate_functions!();
}

impl PhysicalExtensionCodec for EntityPhysicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        let process = self.registry.process();
        match read(buf, process)? {
            Node::Inner(inner) => self.inner.try_decode(&inner, inputs, ctx, proto_converter),
            Node::Scan(scan) => {
                let [spans] = inputs else {
                    return Err(DataFusionError::Plan(format!(
                        "{process} received an entity scan with {} inputs, not one (its key spans)",
                        inputs.len()
                    )));
                };
                let Some(table) = scan.table else {
                    return Err(DataFusionError::Plan(format!(
                        "{process} received an entity scan without its table"
                    )));
                };
                let (kind, table) = self.registry.table_parts(table)?;
                let filters = parse_exprs(&scan.filters, ctx, &DefaultLogicalExtensionCodec {})?;
                let projection = (!scan.all_columns)
                    .then(|| scan.projection.iter().map(|&i| i as usize).collect());
                let parts = ScanParts {
                    table,
                    projection,
                    filters,
                    limit: scan.limit.map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
                    batch_size: usize::try_from(scan.batch_size).unwrap_or(usize::MAX),
                };
                let scan = kind.scan(parts, spans.clone())?;
                self.registry
                    .count_scan(scan.properties().partitioning.partition_count());
                Ok(scan)
            }
            Node::Write(write) => {
                let [input] = inputs else {
                    return Err(DataFusionError::Plan(format!(
                        "{process} received the writes of an INSERT with {} inputs, not one \
                         (the query's rows)",
                        inputs.len()
                    )));
                };
                let Some(table) = write.table else {
                    return Err(DataFusionError::Plan(format!(
                        "{process} received the writes of an INSERT without their table"
                    )));
                };
                let (kind, table) = self.registry.table_parts(table)?;
                let write = kind.write(table, input.clone())?;
                self.registry.count_write();
                Ok(write)
            }
            Node::Table(_) => Err(DataFusionError::Plan(format!(
                "{process} received an entity table where a physical plan node belongs"
            ))),
        }
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> DfResult<()> {
        if let Some((kind, table)) = self.registry.write_of(node.as_ref()) {
            let table = Some(self.registry.table_node(kind, &table)?);
            return write(Node::Write(proto::EntityWriteNode { table }), buf);
        }
        let Some((kind, scan)) = self.registry.scan_of(node.as_ref()) else {
            return wrap(buf, |inner| {
                self.inner.try_encode(node, inner, proto_converter)
            });
        };
        let table = self.registry.table_node(kind, &scan.table)?;
        let filters = serialize_exprs(&scan.filters, &DefaultLogicalExtensionCodec {})?;
        let projection = scan.projection.as_deref().unwrap_or_default();
        let node = proto::EntityScanNode {
            table: Some(table),
            projection: projection
                .iter()
                .map(|&i| u32::try_from(i).unwrap_or(u32::MAX))
                .collect(),
            all_columns: scan.projection.is_none(),
            filters,
            limit: scan.limit.map(|n| n as u64),
            batch_size: scan.batch_size as u64,
        };
        write(Node::Scan(node), buf)
    }

    delegate_functions!();

    fn try_decode_expr(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn PhysicalExpr>],
        ctx: &PhysicalExprDecodeCtx<'_>,
    ) -> DfResult<Arc<dyn PhysicalExpr>> {
        self.inner.try_decode_expr(buf, inputs, ctx)
    }

    fn try_encode_expr(
        &self,
        node: &Arc<dyn PhysicalExpr>,
        buf: &mut Vec<u8>,
        ctx: &PhysicalExprEncodeCtx<'_>,
    ) -> DfResult<()> {
        self.inner.try_encode_expr(node, buf, ctx)
    }
}
