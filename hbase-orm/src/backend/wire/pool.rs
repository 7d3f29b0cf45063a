//! Pools of gateway connections, one per gateway: checkout with a timeout, one call per
//! connection at a time, sockets the gateway closed replaced, a call resent once on a fresh
//! socket when a pooled one turns out dead and its operation allows it, and gateways that cannot be reached set
//! aside for a while.

use std::future::Future;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use deadpool::managed::{self, Metrics, PoolError, RecycleError, RecycleResult};
use tracing::Instrument;

use super::connection::{Connection, WireConfig};
use super::http::HttpSettings;
use super::scanners::{Outages, ScannerIds};
use super::WireCall;
use crate::backend::op::Safety;
use crate::backend::PoolCounters;
use crate::model::{Config, Error, Result};

/// How a backend asks a fresh connection which gateway it reached: both Thrift services
/// answer `getThriftServerType`, each in its own IDL. The pool compares the answer with
/// [`Handshake::EXPECTED`] and refuses the wrong gateway ([`Error::WrongGateway`]).
pub(crate) trait Handshake: Clone + Send + Sync + 'static {
    /// The server type the gateway must report (`ONE` = 1, `TWO` = 2).
    const EXPECTED: i32;
    /// Asks `conn`'s gateway its server type.
    fn server_type(&self, conn: &mut Connection) -> impl Future<Output = Result<i32>> + Send;
}

/// Fails with [`Error::WrongGateway`] if `conn`, opened to `address`, reached a gateway of
/// another service than `handshake`'s.
async fn check_gateway<H: Handshake>(
    handshake: &H,
    conn: &mut Connection,
    address: &str,
) -> Result<()> {
    let found = handshake
        .server_type(conn)
        .await
        .map_err(|e| not_a_gateway(e, address))?;
    if found != H::EXPECTED {
        return Err(Error::WrongGateway {
            address: address.to_string(),
            found,
            expected: H::EXPECTED,
        });
    }
    Ok(())
}

/// The handshake's error when the server hung up on the first call (what ZooKeeper, a region
/// server or any other non-Thrift port does with a Thrift call's bytes): says that `address`
/// may not be a Thrift gateway, and what the other URLs are for. Other errors as they are.
fn not_a_gateway(e: Error, address: &str) -> Error {
    match e {
        Error::Transport { method, source }
            if matches!(
                source.kind(),
                std::io::ErrorKind::UnexpectedEof | std::io::ErrorKind::ConnectionReset
            ) =>
        {
            Error::Transport {
                method,
                source: std::io::Error::new(
                    source.kind(),
                    format!(
                        "{source} at the first call on {address}: is it a Thrift gateway? \
                         ZooKeeper's port (2181) and HBase's RPC ports (16000, 16020) are not: \
                         for HBase's own RPC through ZooKeeper use hbase://host:2181; a \
                         gateway started with -f (framed) or -c (compact) needs \
                         transport=framed or protocol=compact in the URL"
                    ),
                ),
            }
        }
        e => e,
    }
}

/// How long a gateway that refused connections is left out before it is tried again.
const SET_ASIDE: Duration = Duration::from_secs(10);

/// Connections to one or several gateways of the same HBase ([`Config::address`] and
/// [`Config::addresses`]). Calls go round the gateways; one that cannot be reached is set
/// aside for a while and the call goes to the next (it was never sent, so this is safe for
/// every call). Scanners live in one gateway process: their calls go to the gateway that
/// opened them ([`WirePool::call_at`]).
pub(crate) struct WirePool<H: Handshake> {
    members: Vec<Member<H>>,
    next: AtomicUsize,
    config: Config,
    outages: Outages,
}

/// One gateway: its pool and when it may be tried again.
struct Member<H: Handshake> {
    pool: managed::Pool<Manager<H>>,
    down_until: Mutex<Option<Instant>>,
}

impl<H: Handshake> WirePool<H> {
    /// [`WirePool::connect`], with the table of scanner ids a gateway backend keeps beside its
    /// pool (it learns of gateway outages from the pool).
    pub(crate) async fn connect_with_scanners(
        config: Config,
        handshake: H,
    ) -> Result<(Self, ScannerIds)> {
        let pool = Self::connect(config, handshake).await?;
        let scanners = ScannerIds::new(pool.outages());
        Ok((pool, scanners))
    }

    /// Builds a pool per gateway and opens one connection to each, so that a wrong address or
    /// gateway fails here rather than at the first call. With several gateways, those that
    /// cannot be reached now are set aside; it fails only if none can be.
    pub(crate) async fn connect(config: Config, handshake: H) -> Result<Self> {
        let wire = WireConfig {
            transport: config.transport,
            protocol: config.protocol,
            max_reply_bytes: config.max_reply_bytes,
            http: HttpSettings::new(&config)?,
            kerberos: match config.transport {
                crate::model::Transport::Http => None,
                _ => config.kerberos.clone(),
            },
        };
        let mut members = Vec::new();
        let addresses: Vec<String> = config.all_addresses().map(str::to_string).collect();
        let outages = Outages::new(addresses.len());
        for (gateway, address) in addresses.into_iter().enumerate() {
            let manager = Manager {
                address,
                gateway,
                outages: outages.clone(),
                opened: Arc::default(),
                wire: wire.clone(),
                config: config.clone(),
                handshake: handshake.clone(),
            };
            let pool = managed::Pool::builder(manager)
                .max_size(config.pool_size)
                .build()
                .map_err(|e| Error::Config(e.to_string()))?;
            members.push(Member {
                pool,
                down_until: Mutex::new(None),
            });
        }
        let pool = WirePool {
            members,
            next: AtomicUsize::new(0),
            config,
            outages,
        };
        let mut first_error = None;
        for (i, member) in pool.members.iter().enumerate() {
            match pool.checkout(i).await {
                Ok(conn) => drop(conn),
                Err(e) => {
                    pool.set_aside(member);
                    first_error.get_or_insert(e);
                }
            }
        }
        match first_error {
            Some(e) if pool.members.len() == 1 || pool.members.iter().all(|m| pool.is_down(m)) => {
                Err(e)
            }
            _ => Ok(pool),
        }
    }

    /// The settings the pool was built with.
    pub(crate) fn config(&self) -> &Config {
        &self.config
    }

    /// How many times each gateway could not be reached (for [`ScannerIds`]).
    pub(crate) fn outages(&self) -> Outages {
        self.outages.clone()
    }

    /// Its connection counters, summed over the gateways.
    pub(crate) fn counters(&self) -> PoolCounters {
        let mut c = PoolCounters::default();
        for m in &self.members {
            let status = m.pool.status();
            c.opened += m.pool.manager().opened.load(Ordering::Relaxed);
            c.open += status.size;
            c.idle += status.available;
        }
        c
    }

    fn set_aside(&self, member: &Member<H>) {
        *member.down_until.lock().unwrap_or_else(|p| p.into_inner()) =
            Some(Instant::now() + SET_ASIDE);
    }

    fn is_down(&self, member: &Member<H>) -> bool {
        member
            .down_until
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some_and(|t| Instant::now() < t)
    }

    /// Makes one call on some gateway: the next in turn that is not set aside (all of them in
    /// turn if every one is). Returns which gateway answered.
    pub(crate) async fn call_any<C: WireCall>(
        &self,
        safety: Safety,
        call: &C,
    ) -> Result<(usize, C::Reply)> {
        let n = self.members.len();
        let first = self.next.fetch_add(1, Ordering::Relaxed) % n;
        let order: Vec<usize> = (0..n).map(|k| (first + k) % n).collect();
        let up: Vec<usize> = order
            .iter()
            .copied()
            .filter(|&i| !self.is_down(&self.members[i]))
            .collect();
        let tries = if up.is_empty() { order } else { up };
        let mut last = None;
        for i in tries {
            match self.call_at(i, safety, call).await {
                Err(e) if unreachable(&e) && n > 1 => {
                    tracing::debug!(gateway = i, error = %e, "gateway set aside");
                    self.set_aside(&self.members[i]);
                    last = Some(e);
                }
                done => return done.map(|reply| (i, reply)),
            }
        }
        Err(last.unwrap_or_else(|| Error::Config("no gateway to call".into())))
    }

    /// Makes one call on some gateway (see [`WirePool::call_any`]).
    pub(crate) async fn call<C: WireCall>(&self, safety: Safety, call: &C) -> Result<C::Reply> {
        self.call_any(safety, call).await.map(|(_, reply)| reply)
    }

    /// Waits for a pooled connection to gateway `i` (opening one if its pool has room).
    async fn checkout(&self, i: usize) -> Result<managed::Object<Manager<H>>> {
        let limit = self.config.pool_timeout;
        let started = Instant::now();
        let got = tokio::time::timeout(limit, self.members[i].pool.get()).await;
        let status = self.members[i].pool.status();
        crate::observe::pool_wait(started.elapsed(), status.size, status.available);
        match got {
            Err(_) => Err(Error::Timeout {
                operation: "pool wait",
                after: limit,
            }),
            Ok(Ok(conn)) => Ok(conn),
            Ok(Err(PoolError::Backend(e))) => Err(e),
            Ok(Err(e)) => Err(Error::Config(format!("connection pool: {e}"))),
        }
    }

    /// Makes one call on a pooled connection to gateway `i`, within the request timeout.
    ///
    /// A call that fails because an idle pooled socket turned out to be closed is sent again on
    /// a fresh connection when the operation it belongs to allows it
    /// ([`Safety::resend_on_stale_connection`]).
    pub(crate) async fn call_at<C: WireCall>(
        &self,
        i: usize,
        safety: Safety,
        call: &C,
    ) -> Result<C::Reply> {
        let method = call.method();
        let span = tracing::debug_span!("hbase.call", method, gateway = i);
        async {
            let limit = self.config.request_timeout;
            let mut attempt = 0;
            loop {
                attempt += 1;
                let mut conn = self.checkout(i).await?;
                match tokio::time::timeout(limit, conn.call(call)).await {
                    Ok(Ok(reply)) => return Ok(reply),
                    Ok(Err(failure)) if failure.stale && safety.resend_on_stale_connection() && attempt < 3 => {
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

/// Whether `e` says the gateway could not be reached at all (the call was never sent).
fn unreachable(e: &Error) -> bool {
    matches!(
        e,
        Error::Connect { .. }
            | Error::Timeout {
                operation: "connect",
                ..
            }
    )
}

/// Opens and vets pooled connections to one gateway.
struct Manager<H> {
    address: String,
    /// Its index among the pool's gateways.
    gateway: usize,
    /// Counts connections that could not be opened, per gateway.
    outages: Outages,
    config: Config,
    wire: WireConfig,
    opened: Arc<AtomicU64>,
    handshake: H,
}

impl<H: Handshake> managed::Manager for Manager<H> {
    type Type = Connection;
    type Error = Error;

    async fn create(&self) -> Result<Connection> {
        let address = &self.address;
        let limit = self.config.connect_timeout;
        let timed_out = || Error::Timeout {
            operation: "connect",
            after: limit,
        };
        let opened = tokio::time::timeout(limit, Connection::open(address, self.wire.clone()))
            .await
            .map_err(|_| timed_out())
            .and_then(|r| r);
        // A refused or failed connect says the gateway process is gone; a connect that only
        // timed out may be a slow gateway, whose scanners are still there.
        if matches!(opened, Err(Error::Connect { .. })) {
            self.outages.count(self.gateway);
        }
        let mut conn = opened?;
        tokio::time::timeout(limit, check_gateway(&self.handshake, &mut conn, address))
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
