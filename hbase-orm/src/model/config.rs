//! Connection settings: transport, protocol, pool size and timeouts.

use std::time::Duration;

use super::access::{
    Credentials, CredentialsAs, HttpOptions, KerberosOptions, Qop, Secret, TlsOptions, TrustRoots,
};
use super::error::{Error, Result};

/// How Thrift messages are delimited on the socket. Must match the gateway's setting.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Transport {
    /// No delimiting (the gateway's default).
    #[default]
    Buffered,
    /// Each message prefixed by its 4-byte length (gateway started with `-f`, or with
    /// `-hsha`, `-nonblocking`, `-threadedselector`).
    Framed,
    /// Each call the body of an HTTP POST and each reply the body of its answer (gateway
    /// started with `hbase.regionserver.thrift.http=true`; binary protocol only). URL
    /// `thrift2+http://` or, over TLS, `thrift2+https://`; see [`Config::http`] and
    /// [`Config::tls`]. Cargo feature `http` (`tls` for HTTPS).
    Http,
}

/// How Thrift values are encoded. Must match the gateway's setting.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Protocol {
    /// TBinaryProtocol (the gateway's default).
    #[default]
    Binary,
    /// TCompactProtocol (gateway started with `-c`).
    Compact,
}

/// Which Thrift service the gateway at the address serves. HBase starts them as
/// `hbase thrift2` and `hbase thrift`; both answer `getThriftServerType`, so connecting to the
/// other one fails with [`Error::WrongGateway`] naming the URL to use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Gateway {
    /// `THBaseService` (`org.apache.hadoop.hbase.thrift2.ThriftServer`), URL `thrift2://`.
    #[default]
    Thrift2,
    /// The older `Hbase` service (`org.apache.hadoop.hbase.thrift.ThriftServer`, what
    /// HappyBase speaks), URL `thrift1://`. It cannot do everything: see the README's table of
    /// backends.
    Thrift1,
    /// No gateway: HBase's own RPC, straight to the region servers and the master, URL
    /// `hbase://` with the cluster's ZooKeeper quorum, or `hbase+rpc://` with its masters
    /// (see the README's table of backends and [`Registry`]).
    NativeRpc,
    /// No HBase at all: a new, empty in-memory store of this process with HBase's semantics
    /// (cargo feature `memory`), URL `memory://`; the same as [`crate::Client::in_memory`].
    /// Each client built with it has a store of its own (its clones share it).
    Memory,
}

/// Where a [`Gateway::NativeRpc`] client finds the meta region and the active master.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Registry {
    /// The cluster's ZooKeeper quorum is in [`Config::address`] and [`Config::addresses`],
    /// its parent znode in [`Config::znode_parent`]. URL `hbase://zk1:2181,zk2:2181`.
    #[default]
    ZooKeeper,
    /// The masters' RPC addresses are in [`Config::address`] and [`Config::addresses`]
    /// (`host:16000` by default), asked in turn through their registry service
    /// (`ClientMetaService`, HBase 2.3 and later): no ZooKeeper needed. URL
    /// `hbase+rpc://master1:16000,master2:16000`.
    Masters,
}

/// Everything a [`crate::Client`] is built from. Made by [`crate::ClientBuilder`] or parsed
/// from a URL with [`Config::from_url`].
///
/// A [`Gateway::NativeRpc`] client reads the addresses (the ZooKeeper quorum),
/// [`Config::znode_parent`], the timeouts but `pool_timeout` and `max_idle`,
/// [`Config::max_reply_bytes`] and the retry settings; it keeps one connection per server, so
/// `pool_size`, `transport` and `protocol` (the gateways' settings) do not apply to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// `host:port` of the gateway (of a ZooKeeper server of the cluster, for
    /// [`Gateway::NativeRpc`]).
    pub address: String,
    /// Further gateways of the same HBase (`host:port`, same service, transport and protocol):
    /// calls go round all of them, and one that cannot be reached is set aside for a while.
    /// For [`Gateway::NativeRpc`], the rest of the ZooKeeper quorum.
    pub addresses: Vec<String>,
    /// The cluster's parent znode in ZooKeeper (HBase's `zookeeper.znode.parent`, `/hbase` by
    /// default): where a [`Gateway::NativeRpc`] client finds the meta region and the master.
    pub znode_parent: String,
    /// The service the gateway serves.
    pub gateway: Gateway,
    /// Where a [`Gateway::NativeRpc`] client finds the meta region and the master.
    pub registry: Registry,
    /// Connections kept open at most; also the number of calls in flight at once.
    pub pool_size: usize,
    /// Limit for opening a TCP connection and checking the gateway type.
    pub connect_timeout: Duration,
    /// Limit for one call, from sending the request to the end of the reply.
    pub request_timeout: Duration,
    /// Limit for waiting for a free pooled connection.
    pub pool_timeout: Duration,
    /// Connections idle for longer are closed instead of reused (the gateway closes idle
    /// sockets after `hbase.thrift.server.socket.read.timeout`, 60 s by default).
    pub max_idle: Duration,
    /// Message delimiting.
    pub transport: Transport,
    /// Value encoding.
    pub protocol: Protocol,
    /// Largest reply accepted, in bytes. It also bounds what decoding a reply may reserve:
    /// a list in a reply may declare at most `max_reply_bytes / 192` elements (192 bytes is
    /// the most one element of any reply type takes once decoded), so a page of 10,000 rows
    /// needs at least about 2 MB here (the default, 256 MiB, allows 1.39 million). Rows are
    /// read in place with 32-bit offsets, so a reply carrying rows past its first 4 GiB fails
    /// with a protocol error whatever this says. On the native backend a reply over the limit
    /// fails its own call with [`Error::IllegalArgument`](crate::Error::IllegalArgument) (it
    /// is read past and dropped), and the other calls on its connection go on.
    pub max_reply_bytes: usize,
    /// How long a call may keep being sent again while the gateway is unreachable or the
    /// connection breaks (see the client's retry rules); zero sends every call once.
    pub retry_deadline: Duration,
    /// The first wait between two attempts; later waits double, up to 2 s.
    pub retry_backoff: Duration,
    /// How long a read with [`Consistency::Timeline`](crate::Consistency::Timeline) waits for
    /// the region's primary replica before it asks the secondaries too (native backend; HBase's
    /// `hbase.client.primaryCallTimeout.get`, 10 ms). A primary that fails sooner sends them
    /// the read at once.
    pub primary_call_timeout: Duration,
    /// Headers, credentials and impersonation for [`Transport::Http`] (unused otherwise:
    /// setting them for another transport is an error).
    pub http: HttpOptions,
    /// TLS, for [`Transport::Http`] (HBase's gateways offer TLS over HTTP only); `None` is
    /// plain text.
    pub tls: Option<TlsOptions>,
    /// Kerberos authentication to a secured gateway (cargo feature `kerberos`); `None`
    /// authenticates as nobody (an open gateway).
    pub kerberos: Option<KerberosOptions>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            address: "127.0.0.1:9090".into(),
            addresses: Vec::new(),
            znode_parent: "/hbase".into(),
            gateway: Gateway::Thrift2,
            registry: Registry::ZooKeeper,
            pool_size: 8,
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(60),
            pool_timeout: Duration::from_secs(30),
            max_idle: Duration::from_secs(45),
            transport: Transport::Buffered,
            protocol: Protocol::Binary,
            max_reply_bytes: 256 * 1024 * 1024,
            retry_deadline: Duration::from_secs(30),
            retry_backoff: Duration::from_millis(50),
            primary_call_timeout: Duration::from_millis(10),
            http: HttpOptions::default(),
            tls: None,
            kerberos: None,
        }
    }
}

impl Config {
    /// Parses `thrift2://host:port?transport=framed&protocol=compact&pool_size=16&timeout_ms=5000`
    /// (or `thrift1://host:port?...` for a Thrift1 gateway, `hbase://zk1:2181,zk2:2181` for
    /// HBase's own RPC with no gateway, naming the cluster's ZooKeeper quorum,
    /// `hbase+rpc://master1:16000,master2:16000`, naming its masters, or `memory://` for a new
    /// in-memory store, [`Gateway::Memory`]). Several gateways of one HBase are listed with
    /// commas: `thrift2://gw1:9090,gw2:9090`. The crate's front page has every form and option
    /// in one table.
    ///
    /// A gateway serving Thrift over HTTP is `thrift2+http://host:port/path` (or
    /// `thrift1+http://`), over HTTPS `thrift2+https://host:port` ([`Transport::Http`]);
    /// `user:password@` before the host sends credentials with every call (HTTP basic unless
    /// the builder says otherwise, see [`crate::ClientBuilder::credentials_in_headers`]; a `@`
    /// or `:` in them is written `%40`, `%3A`).
    ///
    /// Query keys (all optional): `transport` (`buffered`|`framed`), `protocol`
    /// (`binary`|`compact`), `pool_size`, `connect_timeout_ms`, `timeout_ms` (request timeout),
    /// `pool_timeout_ms`, `max_idle_ms`, `max_reply_bytes`, `retry_deadline_ms`,
    /// `retry_backoff_ms`; for `hbase://`, `znode` (the parent znode, `/hbase` by default);
    /// for `hbase://` and `hbase+rpc://`, `primary_call_timeout_ms` (see
    /// [`Config::primary_call_timeout`]);
    /// over HTTP, `do_as` (see [`HttpOptions::do_as`]); over HTTPS, `ca_file` (a PEM file of
    /// the CAs to trust instead of the system's) and `server_name` (see
    /// [`TlsOptions::server_name`]); with the cargo feature `kerberos`, `auth=kerberos`
    /// (SPNEGO over HTTP(S), SASL GSSAPI over TCP and for `hbase://`; see
    /// [`KerberosOptions`]) with `kerberos_service`, `kerberos_host` and, over TCP, `qop`
    /// (`auth`|`auth-int`|`auth-conf`, the least protection accepted).
    ///
    /// An error about a URL shows it with the password as `***`.
    ///
    /// ```
    /// use hbase_orm::{Config, Transport, Protocol};
    /// let c = Config::from_url("thrift2://10.0.0.5:9091?transport=framed&protocol=compact").unwrap();
    /// assert_eq!(c.address, "10.0.0.5:9091");
    /// assert_eq!((c.transport, c.protocol), (Transport::Framed, Protocol::Compact));
    /// ```
    pub fn from_url(given_url: &str) -> Result<Config> {
        // Messages show the URL with any password in it hidden.
        let shown = redact(given_url);
        let url = shown.as_str();
        let given = |message: &str| Error::Config(format!("{url:?}: {message}"));
        let (scheme, rest) = given_url.split_once("://").unwrap_or(("", ""));
        if scheme == "memory" {
            return match rest {
                "" | "/" => Ok(Config::memory()),
                _ => Err(given(
                    "memory:// takes no host, path or options (each client built from it has \
                     a new, empty store)",
                )),
            };
        }
        let (gateway, transport, tls) = match scheme {
            "thrift2" => (Gateway::Thrift2, None, false),
            "thrift1" => (Gateway::Thrift1, None, false),
            "thrift2+http" => (Gateway::Thrift2, Some(Transport::Http), false),
            "thrift1+http" => (Gateway::Thrift1, Some(Transport::Http), false),
            "thrift2+https" => (Gateway::Thrift2, Some(Transport::Http), true),
            "thrift1+https" => (Gateway::Thrift1, Some(Transport::Http), true),
            "hbase" | "hbase+rpc" => (Gateway::NativeRpc, None, false),
            _ => return Err(given(&format!("the URL must start with {SCHEMES}"))),
        };
        let registry = match scheme {
            "hbase+rpc" => Registry::Masters,
            _ => Registry::ZooKeeper,
        };
        let (before_query, query) = rest.split_once('?').unwrap_or((rest, ""));
        let (authority, path) = match before_query.find('/') {
            Some(slash) => before_query.split_at(slash),
            None => (before_query, ""),
        };
        let (user_info, address) = match authority.rfind('@') {
            Some(at) => (Some(&authority[..at]), &authority[at + 1..]),
            None => (None, authority),
        };
        let credentials = match user_info {
            None => None,
            Some(_) if transport.is_none() => {
                return Err(given(
                    "credentials in the URL (user:password@) are sent over HTTP only: use \
                     thrift2+http:// or thrift2+https:// for a gateway behind HTTP (plain TCP \
                     gateways take none, and the native backend authenticates as SIMPLE)",
                ))
            }
            Some(info) => {
                let (user, password) = info.split_once(':').unwrap_or((info, ""));
                Some(Credentials {
                    user: percent_decode(user).map_err(|m| given(&m))?,
                    password: Secret::new(percent_decode(password).map_err(|m| given(&m))?),
                    send_as: CredentialsAs::Basic,
                })
            }
        };
        // A '@' anywhere before the query's first '=' ends user information (the rule
        // `redact` hides by): one after the host is an unescaped '/', '?' or '#' in a password,
        // whose pieces would otherwise show in the messages below.
        let query_head = query.split('=').next().unwrap_or_default();
        if path.contains('@') || query_head.contains('@') {
            return Err(given(
                "a '@' after the host: a '/', '?' or '#' in a user or password must be written \
                 %2F, %3F, %23",
            ));
        }
        check_addresses(scheme, address).map_err(|m| given(&m))?;
        if transport.is_none() && !path.trim_matches('/').is_empty() {
            return Err(given("a path after host:port is meaningful over HTTP only"));
        }
        let mut hosts = address.split(',').map(str::to_string);
        let mut config = Config {
            address: hosts.next().unwrap_or_default(),
            addresses: hosts.collect(),
            gateway,
            registry,
            ..Config::default()
        };
        if let Some(t) = transport {
            config.transport = t;
            config.http.credentials = credentials;
            if !path.is_empty() {
                config.http.path = path.to_string();
            }
        }
        if tls {
            config.tls = Some(TlsOptions::default());
        }
        // Kerberos first: its options may come before `auth=kerberos` in the query.
        let pairs: Vec<&str> = query.split('&').filter(|p| !p.is_empty()).collect();
        let mut ordered: Vec<&str> = pairs
            .iter()
            .copied()
            .filter(|p| p.starts_with("auth="))
            .collect();
        ordered.extend(pairs.iter().copied().filter(|p| !p.starts_with("auth=")));
        for pair in ordered {
            let (key, value) = pair
                .split_once('=')
                .ok_or_else(|| Error::Config(format!("{url:?}: {pair:?} is not key=value")))?;
            let decoded = percent_decode(value).map_err(|m| given(&m))?;
            let value = decoded.as_str();
            let number = || {
                value.parse::<u64>().map_err(|_| {
                    Error::Config(format!(
                        "{url:?}: {key} must be a whole number, got {value:?}"
                    ))
                })
            };
            let ms = |v: u64| Duration::from_millis(v);
            match key {
                "transport" if transport.is_none() => {
                    config.transport = either(
                        url,
                        key,
                        value,
                        [
                            ("buffered", Transport::Buffered),
                            ("framed", Transport::Framed),
                        ],
                    )?
                }
                "protocol" => {
                    config.protocol = either(
                        url,
                        key,
                        value,
                        [("binary", Protocol::Binary), ("compact", Protocol::Compact)],
                    )?
                }
                "pool_size" => config.pool_size = number()? as usize,
                "connect_timeout_ms" => config.connect_timeout = ms(number()?),
                "timeout_ms" => config.request_timeout = ms(number()?),
                "pool_timeout_ms" => config.pool_timeout = ms(number()?),
                "max_idle_ms" => config.max_idle = ms(number()?),
                "max_reply_bytes" => config.max_reply_bytes = number()? as usize,
                "retry_deadline_ms" => config.retry_deadline = ms(number()?),
                "retry_backoff_ms" => config.retry_backoff = ms(number()?),
                "primary_call_timeout_ms" if gateway == Gateway::NativeRpc => {
                    config.primary_call_timeout = ms(number()?)
                }
                "znode" if registry == Registry::ZooKeeper && gateway == Gateway::NativeRpc => {
                    config.znode_parent = value.to_string()
                }
                "do_as" if transport.is_some() => config.http.do_as = Some(value.to_string()),
                "ca_file" if tls => {
                    if let Some(t) = config.tls.as_mut() {
                        t.roots = TrustRoots::PemFile(value.into())
                    }
                }
                "auth" => match value {
                    "kerberos" => {
                        config.kerberos.get_or_insert_with(KerberosOptions::default);
                    }
                    _ => return Err(given("auth must be kerberos")),
                },
                "kerberos_service" | "kerberos_host" | "qop" if config.kerberos.is_some() => {
                    let k = config.kerberos.get_or_insert_with(KerberosOptions::default);
                    match key {
                        "kerberos_service" => k.service = Some(value.to_string()),
                        "kerberos_host" => k.host = Some(value.to_string()),
                        _ => {
                            k.qop = match value {
                                "auth" => Qop::Auth,
                                "auth-int" => Qop::AuthInt,
                                "auth-conf" => Qop::AuthConf,
                                _ => return Err(given("qop must be auth, auth-int or auth-conf")),
                            }
                        }
                    }
                }
                "server_name" if tls => {
                    if let Some(t) = config.tls.as_mut() {
                        t.server_name = Some(value.to_string())
                    }
                }
                _ => return Err(given(&unknown_option(key, scheme, tls))),
            }
        }
        config.validate()?;
        Ok(config)
    }

    /// The client settings in the environment variable `HBASE_ORM_URL` (a URL for
    /// [`Config::from_url`]: `thrift2://127.0.0.1:9090`, `hbase://zk1:2181`, `memory://`),
    /// or the default settings (the Thrift2 gateway at `127.0.0.1:9090`) when it is not set
    /// or empty.
    /// What [`crate::Client::from_env`] connects with. Which HBase it chose, and whether from
    /// the variable or by default, is logged (`tracing`, level INFO, target
    /// `hbase_orm::config`).
    ///
    /// A program that must never fall back to a local HBase (a job pointed at production, a
    /// test that must not write into whatever listens on `127.0.0.1:9090`) uses
    /// [`Config::from_env_required`] instead.
    ///
    /// ```
    /// use hbase_orm::{Config, Gateway};
    /// std::env::set_var("HBASE_ORM_URL", "memory://");
    /// assert_eq!(Config::from_env().unwrap().gateway, Gateway::Memory);
    /// ```
    pub fn from_env() -> Result<Config> {
        match Self::env_url()? {
            Some(url) => Self::from_env_url(&url),
            None => {
                let config = Config::default();
                tracing::info!(
                    target: "hbase_orm::config",
                    address = %config.address,
                    "{URL_VARIABLE} is not set: connecting to the default Thrift2 gateway"
                );
                Ok(config)
            }
        }
    }

    /// [`Config::from_env`], but an unset or empty `HBASE_ORM_URL` is an error
    /// ([`Error::Config`](crate::Error::Config), saying what to set) instead of the default
    /// gateway at `127.0.0.1:9090`: a forgotten variable never writes into whatever HBase
    /// listens there. What [`crate::Client::from_env_required`] connects with.
    ///
    /// ```
    /// use hbase_orm::{Config, Gateway};
    /// std::env::remove_var("HBASE_ORM_URL");
    /// let message = Config::from_env_required().unwrap_err().to_string();
    /// assert!(message.contains("HBASE_ORM_URL is not set"), "{message}");
    /// std::env::set_var("HBASE_ORM_URL", "memory://");
    /// assert_eq!(Config::from_env_required().unwrap().gateway, Gateway::Memory);
    /// ```
    pub fn from_env_required() -> Result<Config> {
        match Self::env_url()? {
            Some(url) => Self::from_env_url(&url),
            None => Err(Error::Config(format!(
                "{URL_VARIABLE} is not set (or empty), and this program requires it: set it to \
                 the HBase to use, e.g. {URL_VARIABLE}=hbase://zk1:2181 (HBase's own RPC \
                 through ZooKeeper), thrift2://gateway:9090 (a Thrift2 gateway) or memory:// \
                 (an in-memory store)"
            ))),
        }
    }

    /// The variable's URL; `None` when it is not set or empty.
    fn env_url() -> Result<Option<String>> {
        match std::env::var(URL_VARIABLE) {
            Ok(url) if url.trim().is_empty() => Ok(None),
            Ok(url) => Ok(Some(url)),
            Err(std::env::VarError::NotPresent) => Ok(None),
            Err(std::env::VarError::NotUnicode(_)) => {
                Err(Error::Config(format!("{URL_VARIABLE} is not valid UTF-8")))
            }
        }
    }

    /// The settings of the variable's URL, logged (addresses and backend only: a URL's
    /// options may hold secrets).
    fn from_env_url(url: &str) -> Result<Config> {
        let config = Config::from_url(url)
            .map_err(|e| Error::Config(format!("{URL_VARIABLE}: {}", config_message(e))))?;
        tracing::info!(
            target: "hbase_orm::config",
            gateway = ?config.gateway,
            address = %config.address,
            addresses = ?config.addresses,
            "connecting as {URL_VARIABLE} says"
        );
        Ok(config)
    }

    /// The settings of an in-memory store ([`Gateway::Memory`], URL `memory://`).
    pub(crate) fn memory() -> Config {
        Config {
            address: "memory".into(),
            gateway: Gateway::Memory,
            ..Config::default()
        }
    }

    /// Every gateway address: [`Config::address`], then [`Config::addresses`].
    // The remote backends' (gateways and native).
    #[cfg_attr(
        not(any(feature = "thrift2", feature = "thrift1", feature = "native")),
        allow(dead_code)
    )]
    pub(crate) fn all_addresses(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.address.as_str()).chain(self.addresses.iter().map(String::as_str))
    }

    pub(crate) fn validate(&self) -> Result<()> {
        if self.pool_size == 0 {
            return Err(Error::Config("pool_size must be at least 1".into()));
        }
        if self.max_reply_bytes < 1024 {
            return Err(Error::Config(
                "max_reply_bytes must be at least 1024".into(),
            ));
        }
        let http = self.transport == Transport::Http;
        if self.gateway == Gateway::Memory
            && (http || self.tls.is_some() || self.kerberos.is_some() || self.http.is_set())
        {
            return Err(Error::Config(
                "the in-memory store (memory://) takes no HTTP, TLS or Kerberos settings".into(),
            ));
        }
        if self.gateway == Gateway::NativeRpc && (http || self.tls.is_some()) {
            return Err(Error::Config(
                "HTTP and TLS are settings of the Thrift gateways: the native backend speaks \
                 HBase's RPC over TCP"
                    .into(),
            ));
        }
        if !http && self.tls.is_some() {
            return Err(Error::Config(
                "TLS is offered by HBase's gateways over HTTP only: use Transport::Http \
                 (thrift2+https://)"
                    .into(),
            ));
        }
        if !http && self.http.is_set() {
            return Err(Error::Config(
                "HTTP headers, credentials, doAs and path need Transport::Http \
                 (thrift2+http:// or thrift2+https://)"
                    .into(),
            ));
        }
        if self.kerberos.is_some() && self.http.credentials.is_some() {
            return Err(Error::Config(
                "Kerberos and a user and password both: a call carries one Authorization, \
                 choose one"
                    .into(),
            ));
        }
        if let Some(k) = &self.kerberos {
            if !cfg!(feature = "kerberos") {
                return Err(Error::Config(
                    "Kerberos needs hbase-orm built with the cargo feature `kerberos` (which \
                     needs the system's Kerberos libraries, libkrb5-dev, to build)"
                        .into(),
                ));
            }
            if self.transport == Transport::Framed {
                return Err(Error::Config(
                    "Kerberos over TCP is SASL, which HBase's gateways speak over the buffered \
                     transport only"
                        .into(),
                ));
            }
            if http && k.qop != Qop::Auth {
                return Err(Error::Config(
                    "qop is a setting of SASL over TCP: over HTTPS, TLS protects the calls".into(),
                ));
            }
        }
        if http && self.protocol == Protocol::Compact {
            return Err(Error::Config(
                "HBase's gateways speak the binary protocol over HTTP".into(),
            ));
        }
        if !self.http.path.starts_with('/') {
            return Err(Error::Config(format!(
                "the HTTP path must start with /, got {:?}",
                self.http.path
            )));
        }
        Ok(())
    }
}

/// The environment variable [`Config::from_env`] reads.
const URL_VARIABLE: &str = "HBASE_ORM_URL";

/// Every URL scheme [`Config::from_url`] knows, for messages.
const SCHEMES: &str = "thrift2://, thrift1://, thrift2+http://, thrift2+https://, \
                       thrift1+http://, thrift1+https://, hbase://, hbase+rpc:// or memory://";

/// The text of a configuration error (without its `invalid configuration:` prefix).
fn config_message(e: Error) -> String {
    match e {
        Error::Config(m) => m,
        other => other.to_string(),
    }
}

/// Checks the comma-separated `host:port` list of a URL; the message names the address that
/// is wrong and what is wrong with it.
fn check_addresses(scheme: &str, addresses: &str) -> std::result::Result<(), String> {
    let example = match scheme {
        "hbase" => "hbase://zk1:2181,zk2:2181",
        "hbase+rpc" => "hbase+rpc://master1:16000",
        s if s.ends_with("+https") => "thrift2+https://gateway:9095",
        s if s.ends_with("+http") => "thrift2+http://gateway:9094",
        _ => "thrift2://gateway:9090",
    };
    if addresses.is_empty() {
        return Err(format!("no host:port after {scheme}:// (e.g. {example})"));
    }
    for address in addresses.split(',') {
        let Some((host, port)) = address.rsplit_once(':') else {
            return Err(format!(
                "{address:?} has no port: write host:port (e.g. {example})"
            ));
        };
        if host.is_empty() {
            return Err(format!("{address:?} has no host (e.g. {example})"));
        }
        if port.parse::<u16>().is_err() {
            return Err(format!(
                "the port of {address:?} is {port:?}, not a number from 0 to 65535 (e.g. \
                 {example})"
            ));
        }
    }
    Ok(())
}

/// The message for an option `key` that [`Config::from_url`] does not take in a URL of
/// `scheme`: the nearest known option when there is one, and every option the URL takes.
fn unknown_option(key: &str, scheme: &str, tls: bool) -> String {
    let http = scheme.ends_with("+http") || scheme.ends_with("+https");
    let mut known = vec![
        "pool_size",
        "connect_timeout_ms",
        "timeout_ms",
        "pool_timeout_ms",
        "max_idle_ms",
        "max_reply_bytes",
        "retry_deadline_ms",
        "retry_backoff_ms",
        "protocol",
        "auth",
        "kerberos_service",
        "kerberos_host",
        "qop",
    ];
    if !http {
        known.push("transport");
    }
    if scheme == "hbase" {
        known.push("znode");
    }
    if scheme.starts_with("hbase") {
        known.push("primary_call_timeout_ms");
    }
    if http {
        known.push("do_as");
    }
    if tls {
        known.extend(["ca_file", "server_name"]);
    }
    let why = match key {
        "do_as" => " is an option of thrift2+http(s):// and thrift1+http(s):// URLs".to_string(),
        "ca_file" | "server_name" => " is an option of https URLs".to_string(),
        "znode" => " is an option of hbase:// URLs (the ZooKeeper registry)".to_string(),
        "primary_call_timeout_ms" => {
            " is an option of hbase:// and hbase+rpc:// URLs (region replicas)".to_string()
        }
        "transport" if http => " does not apply: an HTTP URL's transport is HTTP".to_string(),
        "kerberos_service" | "kerberos_host" | "qop" => " needs auth=kerberos".to_string(),
        _ => {
            let nearest = known
                .iter()
                .map(|k| (super::text::edit_distance(key, k), *k))
                .filter(|(d, k)| *d <= 2.max(k.len() / 3))
                .min();
            match nearest {
                Some((_, k)) => format!(" is not an option (did you mean {k:?}?)"),
                None => " is not an option".to_string(),
            }
        }
    };
    format!("{key:?}{why}; a {scheme}:// URL takes {}", known.join(", "))
}

/// `url` with the password of its user information (`scheme://user:password@host`) replaced
/// by `***`, for messages: what the caller gave may hold a secret. Cautious: everything from
/// the scheme to the last `@` before the query's first `=` counts as user information (a
/// password may hold an unescaped `/` or `?`), and a user name that holds one is hidden too.
fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let end = rest.find('=').unwrap_or(rest.len());
    let Some(at) = rest[..end].rfind('@') else {
        return url.to_string();
    };
    let info = &rest[..at];
    let shown = match info.split_once(':') {
        Some((user, _)) if !user.contains(['/', '?', '#']) => format!("{user}:***"),
        Some(_) => "***".to_string(),
        None if info.contains(['/', '?', '#']) => "***".to_string(),
        None => info.to_string(),
    };
    format!("{scheme}://{shown}{}", &rest[at..])
}

/// `text` with its `%XX` escapes decoded (user and password in a URL).
fn percent_decode(text: &str) -> std::result::Result<String, String> {
    let mut out = Vec::with_capacity(text.len());
    let mut bytes = text.bytes();
    while let Some(b) = bytes.next() {
        if b != b'%' {
            out.push(b);
            continue;
        }
        let hex = [bytes.next(), bytes.next()];
        let value = match hex {
            [Some(h), Some(l)] => std::str::from_utf8(&[h, l])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok()),
            _ => None,
        };
        out.push(value.ok_or("a % in the user or password must start an escape such as %40")?);
    }
    String::from_utf8(out).map_err(|_| "the user or password is not UTF-8 once decoded".into())
}

/// The value of `key` in a URL: one of two words, or an error naming both.
fn either<T>(url: &str, key: &str, value: &str, [(a, x), (b, y)]: [(&str, T); 2]) -> Result<T> {
    match value {
        v if v == a => Ok(x),
        v if v == b => Ok(y),
        _ => Err(Error::Config(format!("{url:?}: {key} must be {a} or {b}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_options_are_parsed_and_bad_ones_named() {
        let c = Config::from_url("thrift2://h:1?pool_size=3&timeout_ms=250").unwrap();
        assert_eq!(c.pool_size, 3);
        assert_eq!(c.request_timeout, Duration::from_millis(250));
        assert_eq!(c.transport, Transport::Buffered);
        let e = Config::from_url("thrift2://h:1?colour=red").unwrap_err();
        assert!(e.to_string().contains("colour"), "{e}");
        assert!(Config::from_url("http://h:1").is_err());
        let c = Config::from_url("thrift1://h:9092").unwrap();
        assert_eq!(
            (c.gateway, c.address.as_str()),
            (Gateway::Thrift1, "h:9092")
        );
        let c = Config::from_url("thrift2://a:1,b:2,c:3?pool_size=2").unwrap();
        assert_eq!(c.address, "a:1");
        assert_eq!(c.addresses, vec!["b:2".to_string(), "c:3".to_string()]);
        assert!(Config::from_url("thrift2://a:1,b?pool_size=2").is_err());
        assert!(Config::from_url("thrift2://h:1?pool_size=0").is_err());
        assert!(Config::from_url("thrift2://h:1?pool_size=x").is_err());
        let c = Config::from_url("hbase://zk1:2181,zk2:2181?znode=/hbase-unsecure").unwrap();
        assert_eq!(c.gateway, Gateway::NativeRpc);
        assert_eq!((c.address.as_str(), c.addresses.len()), ("zk1:2181", 1));
        assert_eq!(c.znode_parent, "/hbase-unsecure");
        assert!(Config::from_url("thrift2://h:1?znode=/x").is_err());
        assert_eq!(c.registry, Registry::ZooKeeper);
        let c = Config::from_url("hbase+rpc://m1:16000,m2:16000?timeout_ms=900").unwrap();
        assert_eq!(
            (c.gateway, c.registry),
            (Gateway::NativeRpc, Registry::Masters)
        );
        assert_eq!((c.address.as_str(), c.addresses.len()), ("m1:16000", 1));
        let e = Config::from_url("hbase+rpc://m1:16000?znode=/x").unwrap_err();
        assert!(e.to_string().contains("znode"), "{e}");
    }

    #[test]
    fn http_urls_carry_credentials_paths_and_options() {
        let c = Config::from_url(
            "thrift1+https://app%40corp:p%3Ass%2Fw@gw.example:8443/thrift?do_as=al%20ice&\
             ca_file=%2Fetc%2Fmy%20ca.pem&server_name=gw.internal",
        )
        .unwrap();
        assert_eq!(
            (c.gateway, c.transport),
            (Gateway::Thrift1, Transport::Http)
        );
        assert_eq!(c.address, "gw.example:8443");
        assert_eq!(c.http.path, "/thrift");
        let credentials = c.http.credentials.clone().unwrap();
        assert_eq!(credentials.user, "app@corp");
        assert_eq!(credentials.password.expose(), "p:ss/w");
        assert_eq!(c.http.do_as.as_deref(), Some("al ice"));
        let tls = c.tls.unwrap();
        assert_eq!(tls.roots, TrustRoots::PemFile("/etc/my ca.pem".into()));
        assert_eq!(tls.server_name.as_deref(), Some("gw.internal"));
        // Options of HTTPS or of HTTP refused where they mean nothing.
        for url in [
            "thrift2+http://gw:9090/?ca_file=/x.pem",
            "thrift2://gw:9090/?do_as=alice",
            "thrift2://gw:9090/thrift",
            "thrift2+http://gw:9090/?transport=framed",
            "thrift2+https://gw:notaport/",
            "thrift2+http://gw:9090/?protocol=compact",
        ] {
            assert!(Config::from_url(url).is_err(), "{url}");
        }
        // A doAs naming a Kerberos principal keeps its '@'.
        let c = Config::from_url("thrift2+http://gw:9090/?do_as=alice@EXAMPLE.COM").unwrap();
        assert_eq!(c.http.do_as.as_deref(), Some("alice@EXAMPLE.COM"));
    }

    #[test]
    fn a_bad_url_is_told_what_is_wrong_and_what_would_do() {
        let message = |url: &str| Config::from_url(url).unwrap_err().to_string();
        let m = message("hbase://127.0.0.1:notaport");
        assert!(
            m.contains(r#"the port of "127.0.0.1:notaport" is "notaport""#),
            "{m}"
        );
        assert!(m.contains("hbase://zk1:2181"), "{m}");
        let m = message("thrift2://gw");
        assert!(m.contains(r#""gw" has no port"#), "{m}");
        let m = message("thrift2://");
        assert!(m.contains("no host:port after thrift2://"), "{m}");
        let m = message("hbas://zk:2181");
        for scheme in [
            "thrift2://",
            "thrift1://",
            "thrift2+http://",
            "thrift2+https://",
            "thrift1+http://",
            "thrift1+https://",
            "hbase://",
            "hbase+rpc://",
            "memory://",
        ] {
            assert!(m.contains(scheme), "{scheme} missing from {m}");
        }
        let m = message("thrift2://h:1?pool_sise=4");
        assert!(m.contains(r#"did you mean "pool_size"?"#), "{m}");
        assert!(m.contains("takes pool_size, connect_timeout_ms"), "{m}");
        let m = message("thrift2://h:1?do_as=alice");
        assert!(
            m.contains("do_as\" is an option of thrift2+http(s)://"),
            "{m}"
        );
        let m = message("hbase://zk:2181?qop=auth-conf");
        assert!(m.contains("needs auth=kerberos"), "{m}");
        assert!(m.contains("znode"), "an hbase:// URL lists znode: {m}");
    }

    #[test]
    fn memory_urls_name_the_in_memory_store() {
        let c = Config::from_url("memory://").unwrap();
        assert_eq!((c.gateway, c.address.as_str()), (Gateway::Memory, "memory"));
        assert_eq!(
            Config::from_url("memory:///").unwrap().gateway,
            Gateway::Memory
        );
        let m = Config::from_url("memory://shop?pool_size=2")
            .unwrap_err()
            .to_string();
        assert!(m.contains("memory:// takes no host"), "{m}");
        let http = Config {
            transport: Transport::Http,
            ..Config::from_url("memory://").unwrap()
        };
        let m = http.validate().unwrap_err().to_string();
        assert!(m.contains("takes no HTTP, TLS or Kerberos settings"), "{m}");
    }

    #[test]
    fn a_password_in_a_url_never_shows_in_an_error() {
        for url in [
            "thrift2://scott:TopSecret42@127.0.0.1:9194/",
            "thrift2://scott:TopSecret42@127.0.0.1:9194/?colour=red",
            "thrift1://scott:TopSecret42@h:1?pool_size=x",
            "http://scott:TopSecret42@h:1",
            "hbase://scott:TopSecret42@zk:2181",
        ] {
            let e = Config::from_url(url).unwrap_err();
            for shown in [e.to_string(), format!("{e:?}")] {
                assert!(!shown.contains("TopSecret42"), "{shown}");
                assert!(shown.contains("scott:***@"), "{shown}");
            }
        }
        // A '/' or '?' left unescaped in a password: refused, and the password hidden still.
        for url in [
            "thrift2+http://app:Xq7/TopSecret42@gw:9090/",
            "thrift2+http://app:Xq7?TopSecret42@gw:9090/",
            "thrift2+http://app:1234?TopSecret42@gw:9090/",
            "thrift2://app:Xq7/TopSecret42@gw:9090/",
            "thrift2+http://app/TopSecret42:x@gw:9090/",
        ] {
            let e = Config::from_url(url).unwrap_err();
            for shown in [e.to_string(), format!("{e:?}")] {
                assert!(!shown.contains("TopSecret42"), "{shown}");
                assert!(!shown.contains("Xq7") && !shown.contains("1234"), "{shown}");
            }
        }
        assert_eq!(redact("thrift2://h:1?x=a@b"), "thrift2://h:1?x=a@b");
        assert_eq!(redact("thrift2://bob@h:1"), "thrift2://bob@h:1");
        assert_eq!(redact("no scheme:pw@h"), "no scheme:pw@h");
    }
}
