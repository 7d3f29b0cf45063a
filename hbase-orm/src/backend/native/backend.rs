//! [`NativeRpc`]: the [`Backend`] trait over HBase's own RPC.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;

use super::connection;
use super::convert::{self, Results};
use super::proto;
use super::regions::Region;
use super::registry::{Registry, ZooKeeper};
use super::replicas;
use super::rpc::{self, Core, RegionAt};
use super::scanner::Scanner;
use super::schema;
use crate::backend::op::*;
use crate::backend::{Backend, PoolCounters};
use crate::model::{
    self, Config, Consistency, Error, RegionLocation, Result, Row, ScannerPage, TableDescriptor,
    TableName,
};

/// A client of one HBase cluster over its own RPC (see the module documentation).
pub(crate) struct NativeRpc {
    /// Shared with the tasks that close the scanners a timeline scan's losing replicas
    /// opened.
    core: Arc<Core>,
    scanners: Mutex<HashMap<i32, Arc<tokio::sync::Mutex<Scanner>>>>,
    next_scanner: AtomicI32,
    /// The registry's addresses (the ZooKeeper quorum, or the masters), as errors name them.
    address: String,
}

impl NativeRpc {
    /// Connects to the cluster whose ZooKeeper quorum (or masters) `config` names, and checks
    /// that it finds the meta region there.
    pub(crate) async fn connect(config: Config) -> Result<NativeRpc> {
        let addresses = config.all_addresses().map(str::to_string);
        let registry = match config.registry {
            crate::model::Registry::ZooKeeper => Registry::ZooKeeper(ZooKeeper {
                quorum: addresses.collect::<Vec<_>>().join(","),
                parent: config.znode_parent.clone(),
                timeout: config.connect_timeout,
            }),
            crate::model::Registry::Masters => Registry::Masters(addresses.collect()),
        };
        let address = registry.addresses();
        let core = Arc::new(Core::new(config, registry));
        // Finds the meta region now, so a wrong address fails here rather than at a call.
        core.meta_server().await?;
        Ok(NativeRpc {
            core,
            address,
            scanners: Mutex::new(HashMap::new()),
            next_scanner: AtomicI32::new(1),
        })
    }

    fn scanner(&self, id: i32) -> Result<Arc<tokio::sync::Mutex<Scanner>>> {
        let scanners = self.scanners.lock().unwrap_or_else(|p| p.into_inner());
        scanners
            .get(&id)
            .cloned()
            .ok_or_else(|| Error::IllegalArgument {
                message: format!("scanner {id} is not open (it ended, was closed or expired)"),
            })
    }

    /// One get.
    async fn get_one(
        &self,
        table: &TableName,
        get: &model::Get,
        existence_only: bool,
    ) -> Result<(Option<Row>, bool)> {
        const METHOD: &str = "Get";
        let g = convert::get(get, existence_only, &filter)?;
        let request = |region: &Region| proto::GetRequest {
            region: region.specifier(),
            get: g.clone(),
        };
        let reply = match get.consistency {
            Consistency::Strong => {
                let at = RegionAt::Holding(&get.row);
                self.core.region_call(table, at, METHOD, request).await?.1
            }
            Consistency::Timeline => {
                let core = &self.core;
                let primary = core.locate(table, RegionAt::Holding(&get.row)).await?;
                let ask = |replica: Arc<Region>| {
                    let primary = &primary;
                    let request = request(&replica);
                    async move {
                        replicas::call_replica(core, table, primary, &replica, METHOD, &request)
                            .await
                    }
                };
                let delay = core.primary_call_timeout();
                // The gets still under way when one answered are dropped: a get leaves nothing
                // behind on a server.
                let (_, reply, _others) = replicas::first_answer(delay, &primary, ask).await?;
                reply
            }
        };
        let response: proto::GetResponse =
            connection::decode(&reply).map_err(|m| rpc::protocol(METHOD, m))?;
        let result = response.result.unwrap_or_default();
        let row = Results::new(&reply.cell_block)
            .row(&result)
            .map_err(|e| rpc::protocol(METHOD, e.0))?;
        let exists = result.exists.unwrap_or(row.is_some());
        Ok((row, exists))
    }

    /// One mutation (its cells, if it counts any, in `cells`; with a nonce if `nonce`); the
    /// row the reply carries (an increment's or an append's new values).
    async fn mutate(
        &self,
        table: &TableName,
        mutation: proto::MutationProto,
        cells: &[u8],
        nonce: bool,
    ) -> Result<Option<Row>> {
        const METHOD: &str = "Mutate";
        let row = mutation.row.clone().unwrap_or_default();
        let mut mutation = mutation;
        let nonce_group = nonce.then(|| {
            mutation.nonce = Some(self.core.nonce());
            self.core.nonce_group
        });
        let (_, reply) = self
            .core
            .region_call_with_cells(table, RegionAt::Holding(&row), METHOD, cells, |region| {
                proto::MutateRequest {
                    region: region.specifier(),
                    mutation: mutation.clone(),
                    condition: None,
                    nonce_group,
                }
            })
            .await?;
        let response: proto::MutateResponse =
            connection::decode(&reply).map_err(|m| rpc::protocol(METHOD, m))?;
        match &response.result {
            Some(result) => Results::new(&reply.cell_block)
                .row(result)
                .map_err(|e| rpc::protocol(METHOD, e.0)),
            None => Ok(None),
        }
    }

    /// Mutations of one row, atomic, applied if `condition` (when given) passes; whether they
    /// were applied.
    async fn mutate_atomic(
        &self,
        table: &TableName,
        row: &[u8],
        mutations: &[model::Mutation],
        condition: Option<proto::Condition>,
    ) -> Result<bool> {
        const METHOD: &str = "Multi";
        let mut cells = Vec::new();
        let actions: Vec<proto::Action> = mutations
            .iter()
            .enumerate()
            .map(|(i, m)| proto::Action {
                index: Some(i as u32),
                mutation: Some(convert::row_mutation(m, &mut cells)),
                ..Default::default()
            })
            .collect();
        // A region that is not where the cache says answers inside the reply (the call itself
        // succeeds): the region is looked up again and the mutations sent again, a few times.
        let mut moved = 0;
        let (response, result) = loop {
            let (region, reply) = self
                .core
                .region_call_with_cells(table, RegionAt::Holding(row), METHOD, &cells, |region| {
                    proto::MultiRequest {
                        region_action: vec![proto::RegionAction {
                            region: region.specifier(),
                            atomic: Some(true),
                            action: actions.clone(),
                            condition: condition.clone(),
                        }],
                        ..Default::default()
                    }
                })
                .await?;
            let mut response: proto::MultiResponse =
                connection::decode(&reply).map_err(|m| rpc::protocol(METHOD, m))?;
            let result = std::mem::take(&mut response.region_action_result)
                .into_iter()
                .next()
                .unwrap_or_default();
            let refused = result
                .exception
                .as_ref()
                .is_some_and(|e| rpc::MOVED.iter().any(|m| e.name.ends_with(m)));
            if !refused || moved == MAX_MOVES {
                break (response, result);
            }
            moved += 1;
            self.core.resent.fetch_add(1, Ordering::Relaxed);
            crate::observe::retry(METHOD, "region_moved");
            self.core.regions.forget(table, &region);
            tokio::time::sleep(std::time::Duration::from_millis(50 * moved)).await;
        };
        let failed = result.exception.iter();
        let actions = result
            .result_or_exception
            .iter()
            .filter_map(|r| r.exception.as_ref());
        if let Some(e) = failed.chain(actions).next() {
            // The exception's class, and its message as the value's bytes.
            let message = String::from_utf8_lossy(e.value.as_deref().unwrap_or_default());
            return Err(Error::from_server(
                METHOD,
                format!("{}: {message}", e.name),
                false,
            ));
        }
        // HBase 2.4+ says it per region action; older servers in the reply.
        #[allow(deprecated)]
        let processed = result.processed.or(response.processed);
        Ok(processed.unwrap_or(true))
    }
}

/// How many times atomic row mutations follow a region that moved before giving up.
const MAX_MOVES: u64 = 20;

/// A filter's text in protobuf.
fn filter(text: &[u8]) -> Result<proto::Filter> {
    super::filters::to_proto(text)
}

#[async_trait]
impl Backend for NativeRpc {
    fn timeline_reads(&self) -> bool {
        true
    }

    fn name(&self) -> &'static str {
        "native"
    }

    fn address(&self) -> &str {
        &self.address
    }

    fn counters(&self) -> PoolCounters {
        let core = &self.core;
        PoolCounters {
            opened: core.connections.opened.load(Ordering::Relaxed),
            open: core.connections.count(),
            idle: 0,
            scans_resumed: core.scans_resumed.load(Ordering::Relaxed),
            resent: core.resent.load(Ordering::Relaxed),
            scanners_renewed: core.scanners_renewed.load(Ordering::Relaxed),
        }
    }

    async fn get(&self, op: &Get<'_>) -> Result<Option<Row>> {
        Ok(self.get_one(op.table, op.get, false).await?.0)
    }

    async fn get_many(&self, op: &GetMany<'_>) -> Result<Vec<Option<Row>>> {
        if op
            .gets
            .iter()
            .any(|g| g.consistency == Consistency::Timeline)
        {
            // Each get to its own region's replicas (a batch goes to the primaries alone).
            let gets = op.gets.iter().map(|g| self.get_one(op.table, g, false));
            let rows = futures::future::try_join_all(gets).await?;
            return Ok(rows.into_iter().map(|(row, _)| row).collect());
        }
        let gets = op
            .gets
            .iter()
            .map(|g| convert::get(g, false, &filter))
            .collect::<Result<Vec<_>>>()?;
        let rows: Vec<&[u8]> = op.gets.iter().map(|g| &g.row[..]).collect();
        let answers = self
            .core
            .multi(op.table, &rows, |i, _| proto::Action {
                get: Some(gets[i].clone()),
                ..Default::default()
            })
            .await?;
        answers.into_iter().map(|a| a.map_err(|e| *e)).collect()
    }

    async fn exists(&self, op: &Exists<'_>) -> Result<bool> {
        Ok(self.get_one(op.table, op.get, true).await?.1)
    }

    async fn exists_many(&self, op: &ExistsMany<'_>) -> Result<Vec<bool>> {
        let gets = op.gets.iter().map(|g| self.get_one(op.table, g, true));
        let found = futures::future::try_join_all(gets).await?;
        Ok(found.into_iter().map(|(_, exists)| exists).collect())
    }

    async fn put(&self, op: &Put<'_>) -> Result<()> {
        let mut cells = Vec::new();
        let put = convert::put(op.put, &mut cells);
        self.mutate(op.table, put, &cells, false).await?;
        Ok(())
    }

    async fn put_many(&self, op: &PutMany<'_>) -> Result<()> {
        let rows: Vec<&[u8]> = op.puts.iter().map(|p| &p.row[..]).collect();
        let answers = self
            .core
            .multi(op.table, &rows, |i, cells| proto::Action {
                mutation: Some(convert::put(&op.puts[i], cells)),
                ..Default::default()
            })
            .await?;
        answers
            .into_iter()
            .try_for_each(|a| a.map(drop).map_err(|e| *e))
    }

    async fn delete(&self, op: &Delete<'_>) -> Result<()> {
        self.mutate(op.table, convert::delete(op.delete), &[], false)
            .await?;
        Ok(())
    }

    async fn delete_many(&self, op: &DeleteMany<'_>) -> Result<Vec<usize>> {
        let rows: Vec<&[u8]> = op.deletes.iter().map(|d| &d.row[..]).collect();
        let answers = self
            .core
            .multi(op.table, &rows, |i, _| proto::Action {
                mutation: Some(convert::delete(&op.deletes[i])),
                ..Default::default()
            })
            .await?;
        answers
            .into_iter()
            .try_for_each(|a| a.map(drop).map_err(|e| *e))?;
        Ok(Vec::new())
    }

    async fn mutate_row(&self, op: &MutateRow<'_>) -> Result<()> {
        let m = op.mutations;
        self.mutate_atomic(op.table, &m.row, &m.mutations, None)
            .await?;
        Ok(())
    }

    async fn mutate_rows(&self, op: &MutateRows<'_>) -> Result<()> {
        let rows: Vec<&[u8]> = op.rows.iter().map(|r| &r.row[..]).collect();
        // A row of one mutation goes as a plain action (a put or a delete of one row is
        // atomic as it is); a row of several, in an atomic region action of its own.
        let atomic = |i: usize| op.rows[i].mutations.len() > 1;
        let actions = |i: usize, cells: &mut Vec<u8>, out: &mut Vec<proto::Action>| {
            out.extend(op.rows[i].mutations.iter().map(|m| proto::Action {
                mutation: Some(convert::row_mutation(m, cells)),
                ..Default::default()
            }));
        };
        let answers = self.core.batch(op.table, &rows, atomic, actions).await?;
        answers
            .into_iter()
            .try_for_each(|a| a.map(drop).map_err(|e| *e))
    }

    async fn check_and_mutate(&self, op: &CheckAndMutate<'_>) -> Result<bool> {
        let cam = op.cam;
        let condition = convert::condition(cam);
        self.mutate_atomic(
            op.table,
            &cam.row,
            &cam.mutations.mutations,
            Some(condition),
        )
        .await
    }

    async fn increment(&self, op: &Increment<'_>) -> Result<Option<Row>> {
        self.mutate(op.table, convert::increment(op.increment), &[], true)
            .await
    }

    async fn append(&self, op: &Append<'_>) -> Result<Option<Row>> {
        self.mutate(op.table, convert::append(op.append), &[], true)
            .await
    }

    async fn open_scanner(&self, op: &OpenScanner<'_>) -> Result<i32> {
        let template = convert::scan(op.scan, &filter)?;
        let scanner = Scanner::new(op.table.clone(), template, op.scan.limit);
        // Finds the first region now, so a missing table fails here, not at the first page.
        scanner.first_region(&self.core).await?;
        let id = self.next_scanner.fetch_add(1, Ordering::Relaxed);
        let mut scanners = self.scanners.lock().unwrap_or_else(|p| p.into_inner());
        scanners.insert(id, Arc::new(tokio::sync::Mutex::new(scanner)));
        Ok(id)
    }

    async fn scanner_rows(&self, op: &ScannerRows<'_>) -> Result<ScannerPage> {
        let scanner = self.scanner(op.id)?;
        let mut scanner = scanner.lock().await;
        scanner.rows(&self.core, op.rows).await
    }

    async fn close_scanner(&self, op: &CloseScanner) -> Result<()> {
        let scanner = {
            let mut scanners = self.scanners.lock().unwrap_or_else(|p| p.into_inner());
            scanners.remove(&op.id)
        };
        if let Some(scanner) = scanner {
            scanner.lock().await.finish(&self.core).await;
        }
        Ok(())
    }

    fn forget_scanner(&self, id: i32) {
        let mut scanners = self.scanners.lock().unwrap_or_else(|p| p.into_inner());
        scanners.remove(&id);
    }

    async fn keep_scanner(&self, op: &KeepScanner) -> Result<Option<std::time::Duration>> {
        let scanner = {
            let scanners = self.scanners.lock().unwrap_or_else(|p| p.into_inner());
            scanners.get(&op.id).cloned()
        };
        match scanner {
            Some(s) => Ok(s.lock().await.keep(&self.core).await),
            None => Ok(None),
        }
    }

    async fn scanner_is_open(&self, op: &ScannerIsOpen) -> Result<bool> {
        let scanner = {
            let scanners = self.scanners.lock().unwrap_or_else(|p| p.into_inner());
            scanners.get(&op.id).cloned()
        };
        Ok(match scanner {
            Some(s) => s.lock().await.is_open(),
            None => false,
        })
    }

    async fn create_namespace(&self, op: &CreateNamespace<'_>) -> Result<()> {
        self.core.create_namespace(op.name).await
    }

    async fn namespace_exists(&self, op: &NamespaceExists<'_>) -> Result<bool> {
        self.core.namespace_exists(op.name).await
    }

    async fn list_namespaces(&self, _op: &ListNamespaces) -> Result<Vec<String>> {
        self.core.list_namespaces().await
    }

    async fn delete_namespace(&self, op: &DeleteNamespace<'_>) -> Result<()> {
        self.core.delete_namespace(op.name).await
    }

    async fn create_table(&self, op: &CreateTable<'_>) -> Result<()> {
        self.core.create_table(op.table, op.split_keys).await
    }

    async fn table_exists(&self, op: &TableExists<'_>) -> Result<bool> {
        self.core.table_exists(op.table).await
    }

    async fn describe(&self, op: &Describe<'_>) -> Result<TableDescriptor> {
        self.core.describe(op.table).await
    }

    async fn list_tables(&self, op: &ListTables<'_>) -> Result<Vec<TableName>> {
        self.core.list_tables(op.namespace).await
    }

    async fn enable_table(&self, op: &EnableTable<'_>) -> Result<()> {
        self.core.set_enabled(op.table, true).await
    }

    async fn disable_table(&self, op: &DisableTable<'_>) -> Result<()> {
        self.core.set_enabled(op.table, false).await
    }

    async fn is_table_enabled(&self, op: &IsTableEnabled<'_>) -> Result<bool> {
        self.core.is_table_enabled(op.table).await
    }

    async fn truncate_table(&self, op: &TruncateTable<'_>) -> Result<()> {
        self.core.truncate_table(op.table, op.preserve_splits).await
    }

    async fn delete_table(&self, op: &DeleteTable<'_>) -> Result<()> {
        self.core.delete_table(op.table).await
    }

    async fn add_family(&self, op: &AddFamily<'_>) -> Result<()> {
        self.core
            .put_family(op.table, schema::family_schema(op.family), false)
            .await
    }

    async fn modify_family(&self, op: &ModifyFamily<'_>) -> Result<()> {
        self.core
            .put_family(op.table, schema::family_schema(op.family), true)
            .await
    }

    async fn merge_family(&self, op: &MergeFamily<'_>) -> Result<()> {
        self.core.merge_family(op.table, op.declared).await
    }

    async fn delete_family(&self, op: &DeleteFamily<'_>) -> Result<()> {
        self.core.delete_family(op.table, op.family).await
    }

    async fn region_locations(&self, op: &RegionLocations<'_>) -> Result<Vec<RegionLocation>> {
        let regions = self.core.all_regions(op.table).await?;
        Ok(regions
            .iter()
            .map(|r| {
                let (host, port) = match r.server.rsplit_once(':') {
                    Some((h, p)) => (h.to_string(), p.parse().ok()),
                    None => (r.server.clone(), None),
                };
                RegionLocation {
                    start_key: r.start.clone(),
                    end_key: r.end.clone(),
                    region_id: r.id,
                    host,
                    port,
                }
            })
            .collect())
    }

    async fn split_region(&self, op: &SplitRegion<'_>) -> Result<()> {
        self.core.split_region(op.table, op.split_key).await
    }

    async fn move_region(&self, op: &MoveRegion<'_>) -> Result<()> {
        self.core.move_region(op.table, op.key, op.to).await
    }

    async fn region_servers(&self, _op: &RegionServers) -> Result<Vec<String>> {
        self.core.region_servers().await
    }

    async fn balance(&self, _op: &Balance) -> Result<bool> {
        self.core.balance().await
    }

    async fn set_balancer(&self, op: &SetBalancer) -> Result<bool> {
        self.core.set_balancer(op.on).await
    }

    async fn prepare_bulk_load(&self, op: &PrepareBulkLoad<'_>) -> Result<String> {
        self.core.prepare_bulk_load(op.table).await
    }

    async fn bulk_load_files(&self, op: &BulkLoadFiles<'_>) -> Result<bool> {
        self.core
            .bulk_load_files(op.table, op.first_row, op.files, op.token, op.fs_token)
            .await
    }

    async fn cleanup_bulk_load(&self, op: &CleanupBulkLoad<'_>) -> Result<()> {
        self.core.cleanup_bulk_load(op.table, op.token).await
    }

    async fn grant(&self, op: &Grant<'_>) -> Result<()> {
        self.core.grant(op.permission).await
    }

    async fn revoke(&self, op: &Revoke<'_>) -> Result<()> {
        self.core.revoke(op.permission).await
    }

    async fn user_permissions(&self, op: &UserPermissions<'_>) -> Result<Vec<model::Permission>> {
        self.core.user_permissions(op.scope, op.user).await
    }

    async fn add_labels(&self, op: &AddLabels<'_>) -> Result<()> {
        self.core.add_labels(op.labels).await
    }

    async fn set_authorizations(&self, op: &SetAuthorizations<'_>) -> Result<()> {
        self.core
            .set_authorizations(op.user, op.labels, op.set)
            .await
    }

    async fn authorizations(&self, op: &Authorizations<'_>) -> Result<Vec<String>> {
        self.core.authorizations_of(op.user).await
    }

    async fn list_labels(&self, op: &ListLabels<'_>) -> Result<Vec<String>> {
        self.core.list_labels(op.regex).await
    }
}
