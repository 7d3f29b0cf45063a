//! A pool of gateway connections: checkout with a timeout, one call per connection at a time,
//! sockets the gateway closed replaced, and an idempotent call resent once on a fresh socket
//! when a pooled one turns out dead.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use deadpool::managed::{self, Metrics, PoolError, RecycleError, RecycleResult};
use tracing::Instrument;

use super::connection::{Connection, WireConfig};
use super::WireCall;
use crate::backend::PoolCounters;
use crate::model::{Config, Error, Result};

/// How a backend checks that a fresh connection reaches the gateway it speaks (both Thrift
/// services answer `getThriftServerType`).
pub(crate) trait Handshake: Send + Sync + 'static {
    /// Fails with [`Error::WrongGateway`] (or a transport error) if `conn` is not usable.
    fn check(&self, conn: &mut Connection) -> impl Future<Output = Result<()>> + Send;
}

/// Connections to one gateway.
pub(crate) struct WirePool<H: Handshake> {
    pool: managed::Pool<Manager<H>>,
    config: Config,
}

impl<H: Handshake> WirePool<H> {
    /// Builds the pool and opens one connection, so that a wrong address or gateway fails here
    /// rather than at the first call.
    pub(crate) async fn connect(config: Config, handshake: H) -> Result<Self> {
        let manager = Manager {
            opened: Arc::default(),
            wire: WireConfig {
                transport: config.transport,
                protocol: config.protocol,
                max_reply_bytes: config.max_reply_bytes,
            },
            config: config.clone(),
            handshake,
        };
        let pool = managed::Pool::builder(manager)
            .max_size(config.pool_size)
            .build()
            .map_err(|e| Error::Config(e.to_string()))?;
        let pool = WirePool { pool, config };
        drop(pool.checkout().await?);
        Ok(pool)
    }

    /// The settings the pool was built with.
    pub(crate) fn config(&self) -> &Config {
        &self.config
    }

    /// Its connection counters.
    pub(crate) fn counters(&self) -> PoolCounters {
        let status = self.pool.status();
        PoolCounters {
            opened: self.pool.manager().opened.load(Ordering::Relaxed),
            open: status.size,
            idle: status.available,
        }
    }

    /// Waits for a pooled connection (opening one if the pool has room).
    async fn checkout(&self) -> Result<managed::Object<Manager<H>>> {
        let limit = self.config.pool_timeout;
        match tokio::time::timeout(limit, self.pool.get()).await {
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
    /// a fresh connection when it is idempotent.
    pub(crate) async fn call<C: WireCall>(&self, call: &C) -> Result<C::Reply> {
        let method = call.method();
        let span = tracing::debug_span!("hbase.call", method);
        async {
            let limit = self.config.request_timeout;
            let mut attempt = 0;
            loop {
                attempt += 1;
                let mut conn = self.checkout().await?;
                match tokio::time::timeout(limit, conn.call(call)).await {
                    Ok(Ok(reply)) => return Ok(reply),
                    Ok(Err(failure)) if failure.stale && call.idempotent() && attempt < 3 => {
                        tracing::debug!(error = %failure.error, "stale pooled connection; retrying");
                        let _ = managed::Object::take(conn);
                    }
                    Ok(Err(failure)) => return Err(failure.error),
                    // The connection still has the call in flight: the pool discards it.
                    Err(_) => {
                        return Err(Error::Timeout {
                            operation: method,
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

/// Opens and vets pooled connections.
struct Manager<H> {
    config: Config,
    wire: WireConfig,
    opened: Arc<AtomicU64>,
    handshake: H,
}

impl<H: Handshake> managed::Manager for Manager<H> {
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
        tokio::time::timeout(limit, self.handshake.check(&mut conn))
            .await
            .map_err(|_| timed_out())??;
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
