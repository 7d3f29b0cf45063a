//! [`EntityRegistry`]: the entities and clients a process knows, by the names plans carry.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use datafusion::catalog::TableProvider;
use datafusion::error::{DataFusionError, Result as DfResult};
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::ExecutionPlan;
use hbase_orm::{BulkLoadOptions, BulkLoadSettings, Client, HBaseEntity, TableName};
use hbase_orm_sql::{EntityScanExec, EntitySchema, EntityTable, EntityWriteExec, ReadSettings};

/// The entities and HBase clients one process knows, each under a name: what a plan that
/// crosses processes names instead of Rust types and connections.
///
/// Entities are Rust types, compiled into each program: a client, a scheduler and every
/// executor each build a registry of the same entities (the same names, the same
/// declarations) and a client of their own under the same name (each connects with its own
/// settings and credentials; nothing secret travels). A plan that names an entity or client a
/// process lacks, or an entity declared otherwise there, fails with an error naming it, the
/// process and what the process has.
///
/// ```
/// # #[derive(hbase_orm::HBaseEntity)]
/// # #[hbase(table = "orders", family = "d")]
/// # struct Order { #[hbase(key)] id: u64, total: f64 }
/// # #[derive(hbase_orm::HBaseEntity)]
/// # #[hbase(table = "customers", family = "d")]
/// # struct Customer { #[hbase(key)] id: u64, name: String }
/// use hbase_orm_ballista::EntityRegistry;
///
/// let client = hbase_orm::Client::in_memory();
/// let registry = EntityRegistry::new("executor 1")
///     .add::<Order>()
///     .add::<Customer>()
///     .client(hbase_orm_ballista::DEFAULT_CLIENT, client);
/// assert_eq!(registry.entities(), ["Order", "Customer"]);
/// ```
pub struct EntityRegistry {
    process: String,
    kinds: Vec<Arc<dyn Kind>>,
    clients: Vec<(String, Client)>,
    scans: AtomicU64,
    scan_partitions: AtomicU64,
    writes: AtomicU64,
}

/// The scans a process's physical codec has put together ([`EntityRegistry::scans_decoded`]):
/// in an executor, one per task that reads a share of a table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScansDecoded {
    /// Scans decoded.
    pub scans: u64,
    /// Their partitions (regions or sub-ranges), all told.
    pub partitions: u64,
    /// Writes of an `INSERT` decoded: in an executor, one per task that writes a partition of
    /// the query's rows.
    pub writes: u64,
}

/// The name of the client a registry's [`client`](EntityRegistry::client) usually registers:
/// a process that talks to one HBase cluster names its client so.
pub const DEFAULT_CLIENT: &str = "default";

impl EntityRegistry {
    /// An empty registry of the process `process`: how errors name it (`"executor 2 at
    /// 10.0.0.7:50051"`, say).
    pub fn new(process: impl Into<String>) -> Self {
        EntityRegistry {
            process: process.into(),
            kinds: Vec::new(),
            clients: Vec::new(),
            scans: AtomicU64::new(0),
            scan_partitions: AtomicU64::new(0),
            writes: AtomicU64::new(0),
        }
    }

    /// Adds entity `E` under the name of its type (`Order` for `shop::Order`).
    ///
    /// # Panics
    ///
    /// When the registry has an entity of that name already (two types named alike in two
    /// modules): give one another name with [`add_as`](Self::add_as).
    pub fn add<E: HBaseEntity>(self) -> Self {
        let full = std::any::type_name::<E>();
        let name = full.rsplit("::").next().unwrap_or(full);
        self.add_as::<E>(name)
    }

    /// Adds entity `E` under `name`.
    ///
    /// # Panics
    ///
    /// When the registry has an entity of that name already, or when `E` is an entity the SQL
    /// layer cannot show ([`EntitySchema::of`]).
    pub fn add_as<E: HBaseEntity>(mut self, name: &str) -> Self {
        if self.kinds.iter().any(|k| k.name() == name) {
            panic!(
                "EntityRegistry of {}: two entities named `{name}` (the second is {}); \
                 name one with add_as",
                self.process,
                std::any::type_name::<E>()
            );
        }
        let schema = EntitySchema::of::<E>().unwrap_or_else(|e| {
            panic!(
                "EntityRegistry of {}: entity `{name}` ({}) cannot be a SQL table: {e}",
                self.process,
                std::any::type_name::<E>()
            )
        });
        self.kinds.push(Arc::new(Typed::<E> {
            name: name.to_string(),
            fingerprint: fingerprint::<E>(&schema),
            entity: std::marker::PhantomData,
        }));
        self
    }

    /// Adds `client` under `name` ([`DEFAULT_CLIENT`] for a process's one cluster). A table
    /// read through it travels under that name; the process that decodes the plan reads it
    /// through its client of that name. A second client of one name replaces the first.
    pub fn client(mut self, name: &str, client: Client) -> Self {
        self.clients.retain(|(n, _)| n != name);
        self.clients.push((name.to_string(), client));
        self
    }

    /// The names of the entities, in the order added.
    pub fn entities(&self) -> Vec<&str> {
        self.kinds.iter().map(|k| k.name()).collect()
    }

    /// The names of the clients, in the order added.
    pub fn clients(&self) -> Vec<&str> {
        self.clients.iter().map(|(n, _)| n.as_str()).collect()
    }

    /// How errors name this process.
    pub fn process(&self) -> &str {
        &self.process
    }

    /// The scans this registry's physical codec has decoded so far, and their partitions: in
    /// an executor whose tasks each run one partition of a stage, one scan of one partition
    /// per region it was given to read.
    ///
    /// ```
    /// let registry = hbase_orm_ballista::EntityRegistry::new("executor 1");
    /// assert_eq!(registry.scans_decoded(), hbase_orm_ballista::ScansDecoded::default());
    /// ```
    pub fn scans_decoded(&self) -> ScansDecoded {
        ScansDecoded {
            scans: self.scans.load(Ordering::Relaxed),
            partitions: self.scan_partitions.load(Ordering::Relaxed),
            writes: self.writes.load(Ordering::Relaxed),
        }
    }

    /// Counts the writes of an `INSERT` decoded.
    pub(crate) fn count_write(&self) {
        self.writes.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a scan of `partitions` decoded.
    pub(crate) fn count_scan(&self, partitions: usize) {
        self.scans.fetch_add(1, Ordering::Relaxed);
        self.scan_partitions
            .fetch_add(partitions as u64, Ordering::Relaxed);
    }

    /// The entity of `name`, or an error naming it, this process and what it knows.
    pub(crate) fn kind(&self, name: &str, fingerprint: u64) -> DfResult<&dyn Kind> {
        let Some(kind) = self.kinds.iter().find(|k| k.name() == name) else {
            return Err(DataFusionError::Plan(format!(
                "{} does not know entity `{name}`: it knows {}; build it with \
                 EntityRegistry::add::<{name}>()",
                self.process,
                listed(&self.entities())
            )));
        };
        if kind.fingerprint() != fingerprint {
            return Err(DataFusionError::Plan(format!(
                "{} knows entity `{name}` declared otherwise than the process that planned the \
                 query (other columns, types or families): build both with one declaration",
                self.process
            )));
        }
        Ok(kind.as_ref())
    }

    /// The registered entity whose table `provider` is, if any.
    pub(crate) fn table_of(&self, provider: &dyn TableProvider) -> Option<(&dyn Kind, TableParts)> {
        self.kinds
            .iter()
            .find_map(|k| k.table_of(provider).map(|parts| (k.as_ref(), parts)))
    }

    /// The registered entity whose `INSERT` writes `plan` is, if any.
    pub(crate) fn write_of(&self, plan: &dyn ExecutionPlan) -> Option<(&dyn Kind, TableParts)> {
        self.kinds
            .iter()
            .find_map(|k| k.write_of(plan).map(|parts| (k.as_ref(), parts)))
    }

    /// The registered entity whose scan `plan` is, if any.
    pub(crate) fn scan_of(&self, plan: &dyn ExecutionPlan) -> Option<(&dyn Kind, ScanParts)> {
        self.kinds
            .iter()
            .find_map(|k| k.scan_of(plan).map(|parts| (k.as_ref(), parts)))
    }

    /// The name `client` is registered under, or an error naming the table and this process.
    pub(crate) fn client_name(&self, client: &Client, table: &TableName) -> DfResult<&str> {
        self.clients
            .iter()
            .find(|(_, c)| c.is_same(client))
            .map(|(n, _)| n.as_str())
            .ok_or_else(|| {
                DataFusionError::Plan(format!(
                    "the client table {table} is read through is not in the registry of {}: \
                     add it with EntityRegistry::client (it has {})",
                    self.process,
                    listed(&self.clients())
                ))
            })
    }

    /// The client of `name`, or an error naming it and this process.
    pub(crate) fn client_named(&self, name: &str) -> DfResult<&Client> {
        self.clients
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, c)| c)
            .ok_or_else(|| {
                DataFusionError::Plan(format!(
                    "{} has no HBase client named `{name}` (it has {}): add one with \
                     EntityRegistry::client(\"{name}\", client)",
                    self.process,
                    listed(&self.clients())
                ))
            })
    }
}

impl fmt::Debug for EntityRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EntityRegistry")
            .field("process", &self.process)
            .field("entities", &self.entities())
            .field("clients", &self.clients())
            .finish()
    }
}

/// `a, b and c`, or `none`.
fn listed(names: &[&str]) -> String {
    match names {
        [] => "none".to_string(),
        [one] => format!("`{one}`"),
        [rest @ .., last] => {
            let rest: Vec<String> = rest.iter().map(|n| format!("`{n}`")).collect();
            format!("{} and `{last}`", rest.join(", "))
        }
    }
}

/// What an entity table is beside its entity: its client, table and settings.
pub(crate) struct TableParts {
    pub client: Client,
    pub table: TableName,
    pub settings: ReadSettings,
    /// Its `INSERT`'s bulk load, if it is one.
    pub bulk: Option<BulkLoadSettings>,
}

/// What a scan of an entity table is beside its input.
pub(crate) struct ScanParts {
    pub table: TableParts,
    pub projection: Option<Vec<usize>>,
    pub filters: Vec<Expr>,
    pub limit: Option<usize>,
    pub batch_size: usize,
}

/// One entity, its type erased: what the codecs ask of it.
pub(crate) trait Kind: Send + Sync {
    /// Its name in the registry.
    fn name(&self) -> &str;
    /// Its declaration, hashed.
    fn fingerprint(&self) -> u64;
    /// `provider` as this entity's table.
    fn table_of(&self, provider: &dyn TableProvider) -> Option<TableParts>;
    /// `plan` as a scan of this entity's table.
    fn scan_of(&self, plan: &dyn ExecutionPlan) -> Option<ScanParts>;
    /// `plan` as the writes of an `INSERT` into this entity's table.
    fn write_of(&self, plan: &dyn ExecutionPlan) -> Option<TableParts>;
    /// This entity's table.
    fn table(&self, parts: TableParts) -> DfResult<Arc<dyn TableProvider>>;
    /// The writes of an `INSERT` into this entity's table of `input`'s rows, each partition
    /// apart.
    fn write(
        &self,
        parts: TableParts,
        input: Arc<dyn ExecutionPlan>,
    ) -> DfResult<Arc<dyn ExecutionPlan>>;
    /// A scan of this entity's table over `spans`.
    fn scan(
        &self,
        parts: ScanParts,
        spans: Arc<dyn ExecutionPlan>,
    ) -> DfResult<Arc<dyn ExecutionPlan>>;
}

struct Typed<E> {
    name: String,
    fingerprint: u64,
    entity: std::marker::PhantomData<fn() -> E>,
}

impl<E: HBaseEntity> Typed<E> {
    fn entity_table(&self, parts: TableParts) -> DfResult<EntityTable<E>> {
        let external = |e: hbase_orm::Error| DataFusionError::External(Box::new(e));
        // A table a process decodes is part of a plan run across machines: its `INSERT`
        // writes each partition in the task that reads it.
        let entity = EntityTable::<E>::new(&parts.client)
            .map_err(external)?
            .on_table(parts.table)
            .with_read_settings(parts.settings)
            .insert_per_partition();
        Ok(match bulk_options(parts.bulk)? {
            Some(options) => entity.insert_by_bulk_load(options),
            None => entity,
        })
    }
}

/// The options of a bulk load that `settings` describe, if any.
fn bulk_options(settings: Option<BulkLoadSettings>) -> DfResult<Option<BulkLoadOptions>> {
    settings
        .map(BulkLoadOptions::from_settings)
        .transpose()
        .map_err(|e| DataFusionError::External(Box::new(e)))
}

fn parts_of<E: HBaseEntity>(table: &EntityTable<E>) -> TableParts {
    TableParts {
        client: table.client().clone(),
        table: table.table_name().clone(),
        settings: table.read_settings(),
        bulk: table.bulk_load_options().map(BulkLoadOptions::settings),
    }
}

impl<E: HBaseEntity> Kind for Typed<E> {
    fn name(&self) -> &str {
        &self.name
    }

    fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    fn table_of(&self, provider: &dyn TableProvider) -> Option<TableParts> {
        provider.downcast_ref::<EntityTable<E>>().map(parts_of)
    }

    fn scan_of(&self, plan: &dyn ExecutionPlan) -> Option<ScanParts> {
        let scan = plan.downcast_ref::<EntityScanExec<E>>()?;
        Some(ScanParts {
            table: parts_of(scan.table()),
            projection: scan.projection().map(<[usize]>::to_vec),
            filters: scan.filters().to_vec(),
            limit: scan.limit(),
            batch_size: scan.batch_size(),
        })
    }

    fn write_of(&self, plan: &dyn ExecutionPlan) -> Option<TableParts> {
        let write = plan.downcast_ref::<EntityWriteExec<E>>()?;
        Some(TableParts {
            client: write.client().clone(),
            table: write.table_name().clone(),
            settings: ReadSettings::default(),
            bulk: write.bulk_load_options().map(BulkLoadOptions::settings),
        })
    }

    fn table(&self, parts: TableParts) -> DfResult<Arc<dyn TableProvider>> {
        Ok(Arc::new(self.entity_table(parts)?))
    }

    fn write(
        &self,
        parts: TableParts,
        input: Arc<dyn ExecutionPlan>,
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        let bulk = bulk_options(parts.bulk)?;
        let write = EntityWriteExec::<E>::try_new(parts.client, parts.table, bulk, input)?;
        Ok(Arc::new(write))
    }

    fn scan(
        &self,
        parts: ScanParts,
        spans: Arc<dyn ExecutionPlan>,
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        let table = self.entity_table(parts.table)?;
        let scan = EntityScanExec::try_new(
            table,
            parts.projection,
            parts.filters,
            parts.limit,
            parts.batch_size,
            spans,
        )?;
        Ok(Arc::new(scan))
    }
}

/// Entity `E`'s declaration as SQL sees it, hashed: its columns' names, Arrow types and
/// nullability, and the HBase family and qualifier of each stored column. FNV-1a (64 bits),
/// the same in every build, unlike std's hasher, whose output may change between Rust
/// releases.
fn fingerprint<E: HBaseEntity>(schema: &EntitySchema) -> u64 {
    let mut text = String::new();
    for field in schema.arrow().fields() {
        text.push_str(&format!(
            "{}:{}:{};",
            field.name(),
            field.data_type(),
            field.is_nullable()
        ));
    }
    for column in E::COLUMNS {
        text.push_str(&format!("{}:{};", column.family, column.qualifier));
    }
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(hbase_orm::HBaseEntity)]
    #[hbase(table = "orders", family = "d")]
    struct Order {
        #[hbase(key)]
        id: u64,
        total: f64,
    }

    mod other {
        /// `Order` declared otherwise: a column more.
        #[derive(hbase_orm::HBaseEntity)]
        #[hbase(table = "orders", family = "d")]
        pub struct Order {
            #[hbase(key)]
            id: u64,
            total: f64,
            note: Option<String>,
        }
    }

    /// An unknown entity, another declaration, an unknown client: each error names what it
    /// looked for, the process and what the process has.
    #[test]
    fn errors_name_the_entity_the_process_and_what_it_knows() {
        let registry = EntityRegistry::new("executor 7 at 10.0.0.7:50051")
            .add::<Order>()
            .client(DEFAULT_CLIENT, Client::in_memory());
        let err = registry.kind("Customer", 0).err().unwrap().to_string();
        assert!(
            err.contains("executor 7 at 10.0.0.7:50051 does not know entity `Customer`: it knows `Order`; build it with EntityRegistry::add::<Customer>()"),
            "{err}"
        );
        let theirs = EntityRegistry::new("client").add::<other::Order>();
        let fingerprint = theirs.kinds[0].fingerprint();
        let err = registry
            .kind("Order", fingerprint)
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.contains("knows entity `Order` declared otherwise"),
            "{err}"
        );
        assert!(registry
            .kind("Order", registry.kinds[0].fingerprint())
            .is_ok());
        let err = registry.client_named("archive").err().unwrap().to_string();
        assert!(
            err.contains("executor 7 at 10.0.0.7:50051 has no HBase client named `archive` (it has `default`)"),
            "{err}"
        );
        let stranger = Client::in_memory();
        let err = registry
            .client_name(&stranger, &TableName::new("shop", "orders"))
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.contains(
                "the client table shop:orders is read through is not in the registry of executor 7"
            ),
            "{err}"
        );
    }

    /// Two entities of one name are refused, saying which.
    #[test]
    #[should_panic(expected = "two entities named `Order`")]
    fn two_entities_of_one_name_are_refused() {
        let _ = EntityRegistry::new("client")
            .add::<Order>()
            .add::<other::Order>();
    }

    #[test]
    fn lists_read_as_prose() {
        assert_eq!(listed(&[]), "none");
        assert_eq!(listed(&["a"]), "`a`");
        assert_eq!(listed(&["a", "b", "c"]), "`a`, `b` and `c`");
    }
}
