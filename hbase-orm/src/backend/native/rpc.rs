//! The native client's core: finding a row's region and server, sending a call there, and
//! reading what went wrong.
//!
//! A call to a region is sent again, after the region is looked up anew, when the server says
//! the region is not (or no longer, or not yet) there: such a call was refused before anything
//! was applied, so this holds for every operation. A busy server is given a pause first. Any
//! other failure goes up to the client's retry loop, which knows whether the operation may be
//! sent again; a broken connection first drops what the cache held about its server.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;

use super::buffers::Buffers;
use super::connection::{self, CallError, Connections, Identity};
use super::frame::{Param, Reply, Service};
use super::proto;
use super::regions::{self, MetaRow, Region, RegionCache};
use super::registry::{self, Registry};
use crate::model::{Config, Error, Result, Row, ScannerPage, TableName};

/// Exceptions that say the region is not served where the call went: look it up again.
pub(crate) const MOVED: &[&str] = &[
    "NotServingRegionException",
    "RegionMovedException",
    "RegionOpeningException",
    "ServerNotRunningYetException",
    "RegionServerStoppedException",
];

/// Exceptions that say the server refused the call for now: wait, then send it again.
pub(crate) const BUSY: &[&str] = &[
    "CallQueueTooBigException",
    "RegionTooBusyException",
    "RetryImmediatelyException",
    "ServerTooBusyException",
    "PleaseHoldException",
];

/// Exceptions of a master that is not (or not yet) the active one.
const NOT_ACTIVE_MASTER: &[&str] = &[
    "PleaseHoldException",
    "ServerNotRunningYetException",
    "MasterNotRunningException",
];

/// What a failed call's exception asks of the client.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Remedy {
    /// Look the region up again and resend.
    Relocate,
    /// Wait, then resend.
    Wait,
    /// Give the error to the caller.
    Fail,
}

/// What to do about `exception`.
pub(crate) fn remedy(exception: &proto::ExceptionResponse) -> Remedy {
    let class = exception
        .exception_class_name
        .as_deref()
        .unwrap_or_default();
    if MOVED.iter().any(|m| class.ends_with(m)) {
        Remedy::Relocate
    } else if BUSY.iter().any(|m| class.ends_with(m)) {
        Remedy::Wait
    } else {
        Remedy::Fail
    }
}

/// The crate's error for a server's exception in `method`.
pub(crate) fn server_error(method: &'static str, exception: proto::ExceptionResponse) -> Error {
    let class = exception.exception_class_name.unwrap_or_default();
    let message = match exception.stack_trace {
        Some(trace) if trace.starts_with(&class) => trace,
        Some(trace) => format!("{class}: {trace}"),
        None => class,
    };
    Error::from_server(method, message, !exception.do_not_retry.unwrap_or(false))
}

/// The native client's shared state.
pub(crate) struct Core {
    /// The settings the client was built with.
    pub(crate) config: Config,
    /// Where the cluster publishes its meta region and master.
    pub(crate) registry: Registry,
    /// The open connections, one per server and service.
    pub(crate) connections: Connections,
    /// Where the regions were found last.
    pub(crate) regions: RegionCache,
    /// Where the meta region was found last.
    meta: Mutex<Option<String>>,
    /// Where the active master was found last.
    master: Mutex<Option<String>>,
    /// Held while the registry is asked for the meta region or the master.
    lookups: tokio::sync::Mutex<()>,
    /// This client's nonce group, and the last nonce given out: HBase applies an increment or
    /// append sent again with the same pair only once.
    pub(crate) nonce_group: u64,
    nonce: AtomicU64,
    /// Region scanners lost and reopened after the last row returned.
    pub(crate) scans_resumed: AtomicU64,
    /// Calls (or a batch's actions, one per round) sent again because a region moved or a
    /// server was busy.
    pub(crate) resent: AtomicU64,
    /// Region scanner leases renewed while their callers paused.
    pub(crate) scanners_renewed: AtomicU64,
    /// Spare buffers for the cell blocks of batches.
    pub(crate) buffers: Buffers,
}

/// The user a client without Kerberos says it is, as HBase's Java client and HDFS clients do:
/// `HADOOP_USER_NAME`, else the system's name of the user this process runs as. The region
/// servers act as this user on the filesystem (a bulk load's staging directory is its own),
/// so it must be the user that wrote the files; `$USER` is only the fallback after those, and
/// `hbase-orm` the last.
fn simple_user() -> String {
    std::env::var("HADOOP_USER_NAME")
        .ok()
        .filter(|u| !u.is_empty())
        .or_else(|| whoami::username().ok().filter(|u| !u.is_empty()))
        .or_else(|| std::env::var("USER").ok().filter(|u| !u.is_empty()))
        .unwrap_or_else(|| "hbase-orm".into())
}

/// How long calls to a region keep being sent again while it moves.
pub(crate) const RELOCATE_FOR: Duration = Duration::from_secs(60);

impl Core {
    /// The state of a client of the cluster `registry` tells of.
    pub(crate) fn new(config: Config, registry: Registry) -> Core {
        let identity = match &config.kerberos {
            Some(options) => Identity::Kerberos(options.clone()),
            None => Identity::Simple(simple_user()),
        };
        let connections =
            Connections::new(identity, config.connect_timeout, config.max_reply_bytes);
        let seed = std::collections::hash_map::RandomState::new();
        let nonce_group = std::hash::BuildHasher::hash_one(&seed, std::process::id());
        Core {
            config,
            registry,
            connections,
            regions: RegionCache::default(),
            meta: Mutex::new(None),
            master: Mutex::new(None),
            lookups: tokio::sync::Mutex::new(()),
            nonce_group,
            nonce: AtomicU64::new(nonce_group.rotate_left(17)),
            scans_resumed: AtomicU64::new(0),
            scanners_renewed: AtomicU64::new(0),
            resent: AtomicU64::new(0),
            buffers: Buffers::default(),
        }
    }

    /// How long a timeline read waits for a region's primary replica before it asks the
    /// secondaries too.
    pub(crate) fn primary_call_timeout(&self) -> Duration {
        self.config.primary_call_timeout
    }

    /// A fresh nonce.
    pub(crate) fn nonce(&self) -> u64 {
        self.nonce.fetch_add(1, Ordering::Relaxed)
    }

    /// One call on the connection to `address`.
    pub(crate) async fn call_at(
        &self,
        address: &str,
        service: Service,
        method: &'static str,
        param: &impl prost::Message,
    ) -> Result<Reply, CallError> {
        self.call_with_cells(address, service, method, param, &[])
            .await
    }

    /// [`call_at`](Self::call_at) with the cell block `cells` after the message (the cells of
    /// the request's mutations).
    pub(crate) async fn call_with_cells(
        &self,
        address: &str,
        service: Service,
        method: &'static str,
        param: &impl Param,
        cells: &[u8],
    ) -> Result<Reply, CallError> {
        let connection = self.connections.get(address, service).await?;
        let result = connection
            .call(method, param, cells, self.config.request_timeout)
            .await;
        if let Err(CallError::Broken(_)) = &result {
            self.connections.drop_server(address);
        }
        result
    }

    /// The crate's error for a call that failed without the server's word on it.
    pub(crate) fn call_error(&self, method: &'static str, address: &str, e: CallError) -> Error {
        match e {
            CallError::Connect(source) => Error::Connect {
                address: address.to_string(),
                source,
            },
            CallError::Broken(why) => Error::Transport {
                method,
                source: std::io::Error::new(std::io::ErrorKind::ConnectionAborted, why),
            },
            CallError::Timeout(after) => Error::Timeout {
                operation: method,
                after,
            },
            CallError::Remote(exception) => server_error(method, exception),
            CallError::Auth(e) => e,
            CallError::TooLarge(bytes) => Error::IllegalArgument {
                message: format!(
                    "a {method} request of {bytes} bytes is larger than one call can carry \
                     (2 GiB; HBase's own limit, hbase.ipc.max.request.size, is 256 MiB by \
                     default): send fewer or smaller rows per call"
                ),
            },
            CallError::ReplyTooLarge(bytes, limit) => Error::IllegalArgument {
                message: format!(
                    "the reply to a {method} call is {bytes} bytes, over this client's limit of \
                     {limit} (Config::max_reply_bytes, URL max_reply_bytes): read fewer rows or \
                     columns per call (a smaller page, batch or column list), or raise the limit"
                ),
            },
        }
    }

    /// Sends `make(region)` to the region of `table` at `at`, looking the region up again
    /// while it moves. Returns the region it reached with the reply.
    pub(crate) async fn region_call<M: prost::Message>(
        &self,
        table: &TableName,
        at: RegionAt<'_>,
        method: &'static str,
        make: impl Fn(&Region) -> M,
    ) -> Result<(Arc<Region>, Reply)> {
        self.region_call_with_cells(table, at, method, &[], make)
            .await
    }

    /// [`region_call`](Self::region_call) with the cell block `cells` after each message.
    pub(crate) async fn region_call_with_cells<M: prost::Message>(
        &self,
        table: &TableName,
        at: RegionAt<'_>,
        method: &'static str,
        cells: &[u8],
        make: impl Fn(&Region) -> M,
    ) -> Result<(Arc<Region>, Reply)> {
        let started = Instant::now();
        let mut pause = Duration::from_millis(20);
        let mut moved = 0;
        loop {
            let region = self.locate(table, at).await?;
            let result = self
                .call_with_cells(
                    &region.server,
                    Service::Client,
                    method,
                    &make(&region),
                    cells,
                )
                .await;
            if result.is_err() && is_meta(table) {
                // A read of meta itself: its server is asked of the registry again.
                *lock(&self.meta) = None;
            }
            let why = match result {
                Ok(reply) => return Ok((region, reply)),
                Err(CallError::Remote(exception)) => match remedy(&exception) {
                    Remedy::Relocate => {
                        self.regions.forget(table, &region);
                        moved += 1;
                        // A region of a disabled table is served nowhere: say so, once meta
                        // has been asked again and the region still was not there.
                        if moved == 2 && !self.is_table_enabled(table).await? {
                            return Err(Error::Server {
                                method,
                                message: format!(
                                    "org.apache.hadoop.hbase.TableNotEnabledException: {table} is disabled"
                                ),
                                can_retry: false,
                            });
                        }
                        server_error(method, exception)
                    }
                    Remedy::Wait => server_error(method, exception),
                    Remedy::Fail => return Err(server_error(method, exception)),
                },
                Err(e) => {
                    // The server may be gone: its regions are looked up again next time.
                    if !e.is_size() {
                        self.regions.forget_server(&region.server);
                    }
                    return Err(self.call_error(method, &region.server, e));
                }
            };
            if started.elapsed() + pause > RELOCATE_FOR {
                return Err(why);
            }
            tracing::debug!(method, error = %why, "region moved or busy; sending again");
            self.resent.fetch_add(1, Ordering::Relaxed);
            crate::observe::retry(method, "region_moved");
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(Duration::from_secs(1));
        }
    }

    /// The region of `table` at `at`, from the cache or from meta.
    pub(crate) async fn locate(&self, table: &TableName, at: RegionAt<'_>) -> Result<Arc<Region>> {
        if is_meta(table) {
            return self.meta_region().await;
        }
        let cached = match at {
            RegionAt::Holding(row) => self.regions.find(table, row),
            RegionAt::Before(start) => self.regions.find_before(table, start),
        };
        if let Some(region) = cached {
            return Ok(region);
        }
        let search = match at {
            RegionAt::Holding(row) => regions::search_key_holding(table, row),
            RegionAt::Before(start) => regions::search_key_before(table, start),
        };
        let started = Instant::now();
        loop {
            let rows = self.scan_meta(search.clone(), true, 1).await?;
            let why = match rows.first() {
                None => return Err(table_not_found(table)),
                Some(row) => match regions::read_meta_row(table, row).map_err(meta_error)? {
                    MetaRow::OtherTable => return Err(table_not_found(table)),
                    MetaRow::Online(region) => {
                        let region = Arc::new(region);
                        self.regions.insert(table, region.clone());
                        return Ok(region);
                    }
                    MetaRow::NotReady(why) => why,
                },
            };
            if started.elapsed() > RELOCATE_FOR {
                return Err(Error::Server {
                    method: "locate region",
                    message: why,
                    can_retry: true,
                });
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The last region of `table` (the one that ends the table), waiting while it is not
    /// assigned to a server (a table just created, a region being moved).
    pub(crate) async fn last_region(&self, table: &TableName) -> Result<Arc<Region>> {
        let started = Instant::now();
        loop {
            let all = self.all_regions(table).await?;
            match all.last() {
                Some(last) if last.end.is_empty() => return Ok(last.clone()),
                _ if started.elapsed() > RELOCATE_FOR => {
                    return Err(Error::Server {
                        method: "locate region",
                        message: format!("the last region of {table} is not assigned to a server"),
                        can_retry: true,
                    })
                }
                _ => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
    }

    /// The meta region itself (`hbase:meta` has one region, which the registry finds), so
    /// that meta reads as a table.
    async fn meta_region(&self) -> Result<Arc<Region>> {
        Ok(Arc::new(Region {
            name: Bytes::from_static(regions::META_REGION),
            start: Vec::new(),
            end: Vec::new(),
            id: 1,
            server: self.meta_server().await?,
            replicas: Vec::new(),
        }))
    }

    /// Every region of `table` in key order, read from meta (and cached).
    pub(crate) async fn all_regions(&self, table: &TableName) -> Result<Vec<Arc<Region>>> {
        if is_meta(table) {
            return Ok(vec![self.meta_region().await?]);
        }
        let mut out = Vec::new();
        let mut from = regions::first_key_of(table);
        loop {
            let rows = self.scan_meta(from.clone(), false, 256).await?;
            let full = rows.len() == 256;
            for row in &rows {
                match regions::read_meta_row(table, row).map_err(meta_error)? {
                    MetaRow::OtherTable => return finish_all(table, out),
                    MetaRow::Online(region) => {
                        let region = Arc::new(region);
                        self.regions.insert(table, region.clone());
                        out.push(region);
                    }
                    MetaRow::NotReady(_) => {}
                }
            }
            match rows.last() {
                Some(last) if full => {
                    from = last.key.clone();
                    from.push(0);
                }
                _ => return finish_all(table, out),
            }
        }
    }

    /// The meta row of the region of `table` holding `row` as meta has it now (not the
    /// cache), whatever its state.
    pub(crate) async fn meta_row_holding(
        &self,
        table: &TableName,
        row: &[u8],
    ) -> Result<Option<Row>> {
        let rows = self
            .scan_meta(regions::search_key_holding(table, row), true, 1)
            .await?;
        Ok(rows.into_iter().next())
    }

    /// Up to `rows` rows of `hbase:meta`'s `info` family from `start` (reversed: down from it).
    async fn scan_meta(&self, start: Vec<u8>, reversed: bool, rows: u32) -> Result<Vec<Row>> {
        const METHOD: &str = "Scan";
        let request = proto::ScanRequest {
            region: Some(regions::specifier(Bytes::from_static(regions::META_REGION))),
            scan: Some(proto::Scan {
                column: vec![proto::Column {
                    family: Bytes::from_static(b"info"),
                    qualifier: Vec::new(),
                }],
                start_row: Some(Bytes::from(start)),
                reversed: reversed.then_some(true),
                caching: Some(rows),
                ..Default::default()
            }),
            number_of_rows: Some(rows),
            close_scanner: Some(true),
            ..Default::default()
        };
        let started = Instant::now();
        loop {
            let meta = self.meta_server().await?;
            let why = match self.call_at(&meta, Service::Client, METHOD, &request).await {
                Ok(reply) => {
                    let response: proto::ScanResponse =
                        connection::decode(&reply).map_err(|m| protocol(METHOD, m))?;
                    return scan_page(&response, &reply.cell_block)
                        .map(ScannerPage::into_rows)
                        .map_err(|m| protocol(METHOD, m));
                }
                Err(CallError::Remote(e)) if remedy(&e) == Remedy::Fail => {
                    return Err(server_error(METHOD, e))
                }
                // Not let in: asking again will not change that.
                Err(CallError::Auth(e)) => return Err(e),
                Err(e) => self.call_error(METHOD, &meta, e),
            };
            // The meta region moved, or its server is gone: ask the registry again.
            *lock(&self.meta) = None;
            if started.elapsed() > RELOCATE_FOR {
                return Err(why);
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// The meta region's server, from the registry the first time and after it moved.
    pub(crate) async fn meta_server(&self) -> Result<String> {
        self.remembered(&self.meta, || async {
            match &self.registry {
                Registry::ZooKeeper(zk) => zk.meta_server().await,
                Registry::Masters(masters) => {
                    let request = proto::GetMetaRegionLocationsRequest {};
                    let answer = self.ask_masters(masters, "GetMetaRegionLocations", &request);
                    answer.await.and_then(|a| registry::meta_of(&a))
                }
            }
        })
        .await
    }

    /// The active master's address, from the registry the first time and after it changed.
    async fn master_address(&self) -> Result<String> {
        self.remembered(&self.master, || async {
            match &self.registry {
                Registry::ZooKeeper(zk) => zk.master().await,
                Registry::Masters(masters) => {
                    let request = proto::GetActiveMasterRequest {};
                    let answer = self.ask_masters(masters, "GetActiveMaster", &request);
                    answer.await.and_then(|a| registry::master_of(&a))
                }
            }
        })
        .await
    }

    /// The address `slot` remembers, or the one `lookup` finds in the registry (remembered
    /// then). One lookup at a time: the callers that found `slot` empty together wait for the
    /// first one's answer instead of each asking the registry.
    async fn remembered<F, Fut>(&self, slot: &Mutex<Option<String>>, lookup: F) -> Result<String>
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = std::result::Result<String, String>>,
    {
        if let Some(address) = lock(slot).clone() {
            return Ok(address);
        }
        let _one = self.lookups.lock().await;
        if let Some(address) = lock(slot).clone() {
            return Ok(address);
        }
        let address = lookup()
            .await
            .map_err(|why| registry_error(&self.registry.addresses(), why))?;
        *lock(slot) = Some(address.clone());
        Ok(address)
    }

    /// Asks the masters in turn, until one answers, through their registry service.
    async fn ask_masters<M: prost::Message + Default>(
        &self,
        masters: &[String],
        method: &'static str,
        request: &impl prost::Message,
    ) -> Result<M, String> {
        let mut why = Vec::new();
        for master in masters {
            let answer = self
                .call_at(master, Service::Registry, method, request)
                .await
                .map_err(|e| self.call_error(method, master, e).to_string())
                .and_then(|reply| connection::decode(&reply));
            match answer {
                Ok(answer) => return Ok(answer),
                Err(e) => why.push(format!("{master}: {e}")),
            }
        }
        Err(format!("no master answered {method}: {}", why.join("; ")))
    }

    /// Calls `method` on the active master.
    pub(crate) async fn master_call(
        &self,
        method: &'static str,
        param: &impl prost::Message,
    ) -> Result<Reply> {
        let address = self.master_address().await?;
        match self.call_at(&address, Service::Master, method, param).await {
            Ok(reply) => Ok(reply),
            Err(e) => {
                let not_active = match &e {
                    CallError::Remote(ex) => {
                        let class = ex.exception_class_name.as_deref().unwrap_or_default();
                        NOT_ACTIVE_MASTER.iter().any(|m| class.ends_with(m))
                    }
                    _ => true,
                };
                if not_active {
                    // Another master may have taken over: ask the registry next time.
                    *lock(&self.master) = None;
                }
                Err(self.call_error(method, &address, e))
            }
        }
    }
}

/// Where a region lies relative to a key.
#[derive(Clone, Copy, Debug)]
pub(crate) enum RegionAt<'a> {
    /// The region holding this row.
    Holding(&'a [u8]),
    /// The region ending where another starts (this key, not empty).
    Before(&'a [u8]),
}

/// Whether `table` is `hbase:meta`, whose one region the registry finds.
fn is_meta(table: &TableName) -> bool {
    table.namespace == "hbase" && table.name == "meta"
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn finish_all(table: &TableName, out: Vec<Arc<Region>>) -> Result<Vec<Arc<Region>>> {
    if out.is_empty() {
        return Err(table_not_found(table));
    }
    Ok(out)
}

fn table_not_found(table: &TableName) -> Error {
    Error::TableNotFound {
        table: table.to_string(),
    }
}

/// A protocol error in `method`.
pub(crate) fn protocol(method: &'static str, message: String) -> Error {
    Error::Protocol { method, message }
}

fn meta_error(message: String) -> Error {
    protocol("locate region", message)
}

/// A lookup in the registry (at `addresses`) that failed: nothing was sent to a region.
fn registry_error(addresses: &str, message: String) -> Error {
    Error::Connect {
        address: addresses.to_string(),
        source: std::io::Error::new(std::io::ErrorKind::NotConnected, message),
    }
}

/// The rows of a scan reply as one page: cells counted per result in the cell block are read
/// in place (reserving no more than the block can hold, whatever the counts say); results
/// listing their cells in protobuf are copied into one.
pub(crate) fn scan_page(
    response: &proto::ScanResponse,
    block: &Bytes,
) -> Result<ScannerPage, String> {
    let page = if response.results.is_empty() {
        super::cellblock::page(block.clone(), &response.cells_per_result).map_err(|e| e.0)?
    } else {
        let mut results = super::convert::Results::new(block);
        let mut rows = Vec::new();
        for r in &response.results {
            rows.extend(results.row(r).map_err(|e| e.0)?);
        }
        ScannerPage::from_rows(rows)
            .map_err(|_| "the rows of a reply hold over 4 GiB".to_string())?
    };
    // A secondary region replica's answer to a timeline scan.
    Ok(page.stale(response.stale == Some(true)))
}
