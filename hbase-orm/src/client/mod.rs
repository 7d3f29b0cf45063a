//! The async client: a pool of gateway connections, and handles for data and admin calls.

mod admin;
mod scan;
mod table;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use deadpool::managed::{self, Metrics, Pool, PoolError, RecycleError, RecycleResult};
use tracing::Instrument;

pub use admin::Admin;
pub use scan::RowStream;
pub use table::Table;

use crate::config::{Config, Protocol, Transport};
use crate::error::{Error, Result};
use crate::schema::TableName;
use crate::thrift2::connection::{Connection, WireConfig};
use crate::thrift2::generated::thbase::{
    THBaseServiceGetScannerRowsArgs, THBaseServiceGetThriftServerTypeArgs, TThriftServerType,
};
use crate::thrift2::rpc::Rpc;

/// Builds a [`Client`]; every setting has a default (see [`Config`]).
///
/// ```no_run
/// # async fn demo() -> hbase_orm::Result<()> {
/// use std::time::Duration;
/// let client = hbase_orm::Client::builder()
///     .address("127.0.0.1:9090")
///     .pool_size(16)
///     .request_timeout(Duration::from_secs(10))
///     .build()
///     .await?;
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, Default)]
pub struct ClientBuilder {
    config: Config,
}

impl ClientBuilder {
    /// `host:port` of the Thrift2 gateway (default `127.0.0.1:9090`).
    pub fn address(mut self, address: impl Into<String>) -> Self {
        self.config.address = address.into();
        self
    }

    /// Connections kept at most, and so calls in flight at once (default 8).
    pub fn pool_size(mut self, n: usize) -> Self {
        self.config.pool_size = n;
        self
    }

    /// Limit for opening a connection (default 5 s).
    pub fn connect_timeout(mut self, d: Duration) -> Self {
        self.config.connect_timeout = d;
        self
    }

    /// Limit for one call (default 60 s).
    pub fn request_timeout(mut self, d: Duration) -> Self {
        self.config.request_timeout = d;
        self
    }

    /// Limit for waiting for a free connection (default 30 s).
    pub fn pool_timeout(mut self, d: Duration) -> Self {
        self.config.pool_timeout = d;
        self
    }

    /// Idle connections older than this are replaced (default 45 s, below the gateway's 60 s).
    pub fn max_idle(mut self, d: Duration) -> Self {
        self.config.max_idle = d;
        self
    }

    /// Message delimiting; must match the gateway (default [`Transport::Buffered`]).
    pub fn transport(mut self, t: Transport) -> Self {
        self.config.transport = t;
        self
    }

    /// Value encoding; must match the gateway (default [`Protocol::Binary`]).
    pub fn protocol(mut self, p: Protocol) -> Self {
        self.config.protocol = p;
        self
    }

    /// Largest reply accepted in bytes (default 256 MiB).
    pub fn max_reply_bytes(mut self, n: usize) -> Self {
        self.config.max_reply_bytes = n;
        self
    }

    /// Replaces every setting with `config`.
    pub fn config(mut self, config: Config) -> Self {
        self.config = config;
        self
    }

    /// Connects: opens one connection and checks that the gateway is a Thrift2 gateway, so a
    /// wrong address or gateway fails here rather than at the first call.
    pub async fn build(self) -> Result<Client> {
        self.config.validate()?;
        let manager = Manager {
            opened: Arc::default(),
            wire: WireConfig {
                transport: self.config.transport,
                protocol: self.config.protocol,
                max_reply_bytes: self.config.max_reply_bytes,
            },
            config: self.config.clone(),
        };
        let pool = Pool::builder(manager)
            .max_size(self.config.pool_size)
            .build()
            .map_err(|e| Error::Config(e.to_string()))?;
        let client = Client {
            inner: Arc::new(Inner {
                pool,
                config: self.config,
                shared: Default::default(),
            }),
        };
        drop(client.checkout().await?);
        Ok(client)
    }
}

/// Per-client state of the layers above, by type and key (see [`Client::shared`]).
type SharedState =
    std::collections::HashMap<(std::any::TypeId, String), Box<dyn std::any::Any + Send + Sync>>;

/// A handle to one HBase Thrift2 gateway. Cheap to clone; clones share the connection pool.
///
/// ```no_run
/// # async fn demo() -> hbase_orm::Result<()> {
/// use hbase_orm::{Client, Get, Put};
/// let client = Client::connect("thrift2://127.0.0.1:9090").await?;
/// let users = client.table("users")?;
/// users.put(Put::new("u1").column("d", "name", "Ada")).await?;
/// let row = users.get(Get::new("u1")).await?.expect("just written");
/// assert_eq!(row.value("d", "name"), Some(&b"Ada"[..]));
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    pool: Pool<Manager>,
    config: Config,
    /// State the layers above keep per client (the dictionaries' caches, say), by type and key.
    shared: std::sync::Mutex<SharedState>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("address", &self.inner.config.address)
            .field("status", &self.inner.pool.status())
            .finish()
    }
}

impl Client {
    /// The value of type `T` kept under `key` for this client and its clones, made by `make`
    /// the first time: how the layers above share per-client state without the client knowing
    /// their types.
    pub(crate) fn shared<T: Clone + Send + Sync + 'static>(
        &self,
        key: &str,
        make: impl FnOnce() -> T,
    ) -> T {
        let mut all = self.inner.shared.lock().unwrap_or_else(|p| p.into_inner());
        let slot = all
            .entry((std::any::TypeId::of::<T>(), key.to_string()))
            .or_insert_with(|| Box::new(make()));
        slot.downcast_ref::<T>()
            .expect("the slot's type is part of its key")
            .clone()
    }

    /// A builder with default settings.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// Connects with settings from a URL (see [`Config::from_url`]).
    pub async fn connect(url: &str) -> Result<Client> {
        ClientBuilder::default()
            .config(Config::from_url(url)?)
            .build()
            .await
    }

    /// The settings this client was built with.
    pub fn config(&self) -> &Config {
        &self.inner.config
    }

    /// A handle for data calls on `table` (`"namespace:table"` or `"table"`).
    pub fn table(&self, table: &str) -> Result<Table> {
        Ok(self.table_named(TableName::parse(table)?))
    }

    /// A handle for data calls on an already parsed table name.
    pub fn table_named(&self, table: TableName) -> Table {
        Table::new(self.clone(), table)
    }

    /// A handle for namespace and table administration.
    pub fn admin(&self) -> Admin {
        Admin::new(self.clone())
    }

    /// Whether the gateway still holds the scanner `id` (see [`RowStream::scanner_id`]): a
    /// diagnostic for leaked scanners. Reads no rows.
    pub async fn scanner_is_open(&self, id: i32) -> Result<bool> {
        let args = THBaseServiceGetScannerRowsArgs {
            scanner_id: id,
            num_rows: 0,
        };
        match self.call(&args).await {
            Ok(_) => Ok(true),
            Err(Error::IllegalArgument { .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Counters of the connection pool, for monitoring and diagnostics.
    pub fn stats(&self) -> ClientStats {
        let status = self.inner.pool.status();
        ClientStats {
            connections_opened: self.inner.pool.manager().opened.load(Ordering::Relaxed),
            connections_open: status.size,
            connections_idle: status.available,
        }
    }

    /// Waits for a pooled connection (opening one if the pool has room).
    async fn checkout(&self) -> Result<managed::Object<Manager>> {
        let limit = self.inner.config.pool_timeout;
        match tokio::time::timeout(limit, self.inner.pool.get()).await {
            Err(_) => Err(Error::Timeout {
                operation: "pool wait",
                after: limit,
            }),
            Ok(Ok(conn)) => Ok(conn),
            Ok(Err(PoolError::Backend(e))) => Err(e),
            Ok(Err(e)) => Err(Error::Config(format!("connection pool: {e}"))),
        }
    }

    /// Makes one call on a pooled connection, within the request timeout.
    ///
    /// A call that fails because an idle pooled socket turned out to be closed is sent again on
    /// a fresh connection when the method is idempotent.
    pub(crate) async fn call<R: Rpc>(&self, args: &R) -> Result<R::Reply> {
        let span = tracing::debug_span!("hbase.call", method = R::METHOD);
        async {
            let limit = self.inner.config.request_timeout;
            let mut attempt = 0;
            loop {
                attempt += 1;
                let mut conn = self.checkout().await?;
                match tokio::time::timeout(limit, conn.call(args)).await {
                    Ok(Ok(reply)) => return Ok(reply),
                    Ok(Err(failure)) if failure.stale && R::IDEMPOTENT && attempt < 3 => {
                        tracing::debug!(error = %failure.error, "stale pooled connection; retrying");
                        let _ = managed::Object::take(conn);
                    }
                    Ok(Err(failure)) => return Err(failure.error),
                    // The connection still has the call in flight: the pool discards it.
                    Err(_) => {
                        return Err(Error::Timeout {
                            operation: R::METHOD,
                            after: limit,
                        })
                    }
                }
            }
        }
        .instrument(span)
        .await
    }
}

/// What [`Client::stats`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientStats {
    /// Connections opened since the client was built (replacements of closed ones included).
    pub connections_opened: u64,
    /// Connections in the pool now.
    pub connections_open: usize,
    /// Of those, how many are idle.
    pub connections_idle: usize,
}

/// Opens and vets pooled connections.
struct Manager {
    config: Config,
    wire: WireConfig,
    opened: Arc<AtomicU64>,
}

impl managed::Manager for Manager {
    type Type = Connection;
    type Error = Error;

    async fn create(&self) -> Result<Connection> {
        let address = &self.config.address;
        let limit = self.config.connect_timeout;
        let timed_out = || Error::Timeout {
            operation: "connect",
            after: limit,
        };
        let mut conn = tokio::time::timeout(limit, Connection::open(address, self.wire))
            .await
            .map_err(|_| timed_out())?
            .map_err(|source| Error::Connect {
                address: address.clone(),
                source,
            })?;
        let kind = tokio::time::timeout(limit, conn.call(&THBaseServiceGetThriftServerTypeArgs {}))
            .await
            .map_err(|_| timed_out())?
            .map_err(|f| f.error)?;
        if kind != TThriftServerType::TWO {
            return Err(Error::WrongGateway {
                address: address.clone(),
                found: kind.0,
            });
        }
        self.opened.fetch_add(1, Ordering::Relaxed);
        Ok(conn)
    }

    async fn recycle(&self, conn: &mut Connection, _: &Metrics) -> RecycleResult<Error> {
        if conn.last_used().elapsed() > self.config.max_idle {
            return Err(RecycleError::message("idle too long"));
        }
        if !conn.is_reusable() {
            return Err(RecycleError::message("closed or out of step"));
        }
        Ok(())
    }
}
