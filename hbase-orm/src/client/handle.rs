//! [`Client`], its builder and its statistics: the handle every call goes through.
//!
//! `impl Client` is spread by what each part needs: this file (building, settings, shared
//! state, counters), `retry.rs` (running an operation under the retry rules), `table.rs` and
//! `admin.rs` (the handles it makes, kept beside them so that this file, which they need,
//! needs nothing of theirs) and, above the client, `repository/mod.rs` (the typed layers'
//! entry points).

use std::sync::Arc;
use std::time::Duration;

#[cfg(feature = "native")]
use crate::backend::native::NativeRpc;
#[cfg(feature = "thrift1")]
use crate::backend::thrift1::Thrift1;
#[cfg(feature = "thrift2")]
use crate::backend::thrift2::Thrift2;
use crate::backend::Backend;
use crate::model::{
    Config, Credentials, CredentialsAs, Error, Gateway, Protocol, Result, Secret, TlsOptions,
    Transport, TrustRoots,
};

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
    /// How credentials travel, if [`ClientBuilder::credentials_in_headers`] said.
    credentials_as: Option<CredentialsAs>,
}

impl ClientBuilder {
    /// `host:port` of the gateway (default `127.0.0.1:9090`).
    pub fn address(mut self, address: impl Into<String>) -> Self {
        self.config.address = address.into();
        self
    }

    /// Further gateways of the same HBase, besides [`ClientBuilder::address`]: calls go round
    /// all of them, a gateway that cannot be reached is set aside for a while, and a scan
    /// stays on the gateway that holds its scanner.
    pub fn addresses<I, S>(mut self, more: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.config.addresses = more.into_iter().map(Into::into).collect();
        self
    }

    /// The service the gateway serves (default [`Gateway::Thrift2`]; a `thrift1://` URL sets
    /// [`Gateway::Thrift1`]).
    pub fn gateway(mut self, g: Gateway) -> Self {
        self.config.gateway = g;
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

    /// How long calls keep being sent again while the gateway is unreachable (default 30 s,
    /// enough to hide a gateway restart; zero disables retries). See [`Config::retry_deadline`].
    pub fn retry_deadline(mut self, d: Duration) -> Self {
        self.config.retry_deadline = d;
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

    /// How long a timeline read waits for the primary replica before it asks the secondaries
    /// too (default 10 ms). See [`Config::primary_call_timeout`].
    pub fn primary_call_timeout(mut self, d: Duration) -> Self {
        self.config.primary_call_timeout = d;
        self
    }

    /// Replaces every setting with `config`.
    pub fn config(mut self, config: Config) -> Self {
        self.config = config;
        self
    }

    /// Sends the header `name: value` with every call over HTTP (a proxy's token, a cloud
    /// provider's key); its value never shows in `Debug` output or errors.
    pub fn http_header(mut self, name: impl Into<String>, value: impl Into<Secret>) -> Self {
        self.config.http.headers.push((name.into(), value.into()));
        self
    }

    /// Sends `user` and `password` with every call over HTTP, as HTTP basic credentials
    /// unless [`ClientBuilder::credentials_in_headers`] says otherwise (a
    /// `thrift2+http://user:password@host` URL sets the same).
    pub fn credentials(mut self, user: impl Into<String>, password: impl Into<Secret>) -> Self {
        self.config.http.credentials = Some(Credentials {
            user: user.into(),
            password: password.into(),
            send_as: CredentialsAs::Basic,
        });
        self
    }

    /// Sends the credentials as two headers of these names, the user's and the password's,
    /// instead of HTTP basic (as some cloud providers' gateways want them).
    ///
    /// ```
    /// # async fn demo() -> hbase_orm::Result<()> {
    /// let client = hbase_orm::Client::builder()
    ///     .config(hbase_orm::Config::from_url("thrift2+https://hb.example.com:443/")?)
    ///     .credentials("app", "s3cret")
    ///     .credentials_in_headers("X-HBase-User", "X-HBase-Password");
    /// # Ok(()) }
    /// ```
    pub fn credentials_in_headers(
        mut self,
        user_header: impl Into<String>,
        password_header: impl Into<String>,
    ) -> Self {
        self.credentials_as = Some(CredentialsAs::Headers {
            user: user_header.into(),
            password: password_header.into(),
        });
        self
    }

    /// Asks an HTTP gateway to act for `user` (header `doAs`; the gateway needs
    /// `hbase.thrift.support.proxyuser=true`, and Hadoop's proxy-user rules decide whether its
    /// own user may act for this one).
    pub fn do_as(mut self, user: impl Into<String>) -> Self {
        self.config.http.do_as = Some(user.into());
        self
    }

    /// Speaks TLS with these settings (HTTPS: it also sets [`Transport::Http`]).
    pub fn tls(mut self, tls: TlsOptions) -> Self {
        self.config.transport = Transport::Http;
        self.config.tls = Some(tls);
        self
    }

    /// Speaks TLS trusting only the certificates in this PEM file (HTTPS: it also sets
    /// [`Transport::Http`]); other TLS settings stay as they were.
    pub fn ca_file(mut self, path: impl Into<std::path::PathBuf>) -> Self {
        self.config.transport = Transport::Http;
        self.config
            .tls
            .get_or_insert_with(TlsOptions::default)
            .roots = TrustRoots::PemFile(path.into());
        self
    }

    /// Connects: opens one connection and checks that the gateway serves the service the
    /// settings name ([`Config::gateway`]), so a wrong address or gateway fails here rather
    /// than at the first call.
    #[cfg_attr(
        not(any(
            feature = "thrift2",
            feature = "thrift1",
            feature = "native",
            feature = "memory"
        )),
        allow(unreachable_code, unused_variables) // with no backend built in, all are refused
    )]
    pub async fn build(mut self) -> Result<Client> {
        if let Some(send_as) = self.credentials_as.take() {
            match self.config.http.credentials.as_mut() {
                Some(c) => c.send_as = send_as,
                None => {
                    return Err(Error::Config(
                        "credentials_in_headers needs credentials: call credentials(user, \
                         password) or put them in the URL"
                            .into(),
                    ))
                }
            }
        }
        self.config.validate()?;
        if let Some(error) = without(&self.config) {
            return Err(error);
        }
        let backend: Box<dyn Backend> = match self.config.gateway {
            #[cfg(feature = "thrift2")]
            Gateway::Thrift2 => Box::new(Thrift2::connect(self.config.clone()).await?),
            #[cfg(feature = "thrift1")]
            Gateway::Thrift1 => Box::new(Thrift1::connect(self.config.clone()).await?),
            #[cfg(feature = "native")]
            Gateway::NativeRpc => Box::new(NativeRpc::connect(self.config.clone()).await?),
            #[cfg(feature = "memory")]
            Gateway::Memory => Box::new(crate::backend::memory::Memory::new()),
            #[allow(unreachable_patterns)] // with every backend built in
            other => unreachable!("{other:?} is left out of this build: refused above"),
        };
        Ok(Client::over(backend, self.config))
    }
}

/// The error for settings that need a backend or a transport left out of this build, naming
/// every cargo feature to turn on; `None` if the build has all they need.
fn without(config: &Config) -> Option<Error> {
    let gateway = match config.gateway {
        Gateway::Thrift2 => ("thrift2", cfg!(feature = "thrift2")),
        Gateway::Thrift1 => ("thrift1", cfg!(feature = "thrift1")),
        Gateway::NativeRpc => ("native", cfg!(feature = "native")),
        Gateway::Memory => ("memory", cfg!(feature = "memory")),
    };
    // TLS is only ever over HTTP (see `Config::validate`), and `tls` brings `http`.
    let (over, transport) = match (config.transport, &config.tls) {
        (Transport::Http, Some(_)) => (" over HTTPS", Some(("tls", cfg!(feature = "tls")))),
        (Transport::Http, None) => (" over HTTP", Some(("http", cfg!(feature = "http")))),
        _ => ("", None),
    };
    let missing: Vec<String> = std::iter::once(gateway)
        .chain(transport)
        .filter(|(_, built)| !built)
        .map(|(feature, _)| format!("`{feature}`"))
        .collect();
    let features = match missing.as_slice() {
        [] => return None,
        [one] => format!("feature {one}"),
        more => format!("features {}", more.join(" and ")),
    };
    Some(Error::Config(format!(
        "{:?}{over} needs hbase-orm built with the cargo {features} (on by default)",
        config.gateway
    )))
}

/// Per-client state of the layers above, by type and key (see [`Client::shared`]).
type SharedState =
    std::collections::HashMap<(std::any::TypeId, String), Box<dyn std::any::Any + Send + Sync>>;

/// A handle to HBase through one backend: its Thrift2 or Thrift1 gateways, or the in-memory
/// store. Cheap to clone; clones share the connection pools (or the store).
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
    backend: Box<dyn Backend>,
    config: Config,
    /// Scanners opened and not closed yet (see [`ClientStats::scanners_open`]).
    scanners_open: std::sync::atomic::AtomicUsize,
    /// Calls sent again (see [`ClientStats::retries`]).
    retries: std::sync::atomic::AtomicU64,
    /// Scans that reopened after losing their scanner (see [`ClientStats::scans_resumed`]).
    scans_resumed: std::sync::atomic::AtomicU64,
    /// State the layers above keep per client (the dictionaries' caches, say), by type and key.
    shared: std::sync::Mutex<SharedState>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("backend", &self.inner.backend.name())
            .field("address", &self.inner.backend.address())
            .finish()
    }
}

impl Client {
    fn over(backend: Box<dyn Backend>, config: Config) -> Client {
        Client {
            inner: Arc::new(Inner {
                backend,
                config,
                scanners_open: Default::default(),
                retries: Default::default(),
                scans_resumed: Default::default(),
                shared: Default::default(),
            }),
        }
    }

    /// Counts a scanner opened (`+1`) or closed (`-1`) for [`ClientStats::scanners_open`].
    pub(crate) fn count_scanner(&self, opened: bool) {
        use std::sync::atomic::Ordering::Relaxed;
        crate::observe::scanner(self.backend_name(), opened);
        if opened {
            self.inner.scanners_open.fetch_add(1, Relaxed);
        } else {
            self.inner.scanners_open.fetch_sub(1, Relaxed);
        }
    }

    /// Counts a call sent again for [`ClientStats::retries`].
    pub(crate) fn count_retry(&self) {
        self.inner
            .retries
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// Counts a scan that reopened after losing its scanner for [`ClientStats::scans_resumed`].
    pub(crate) fn count_resume(&self) {
        crate::observe::scan_resumed(self.backend_name());
        self.inner
            .scans_resumed
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// The backend every call goes through.
    pub(crate) fn backend(&self) -> &dyn Backend {
        &*self.inner.backend
    }

    /// Which backend this client uses: `"thrift2"`, `"thrift1"`, `"native"` or `"memory"`.
    pub fn backend_name(&self) -> &'static str {
        self.inner.backend.name()
    }

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

    /// Connects with the settings in the environment variable `HBASE_ORM_URL` (see
    /// [`Config::from_env`]), or to the Thrift2 gateway at `127.0.0.1:9090` when it is not
    /// set: one program runs against a local HBase, a cluster or the in-memory store as its
    /// environment says.
    ///
    /// ```no_run
    /// # async fn demo() -> hbase_orm::Result<()> {
    /// // HBASE_ORM_URL=hbase://zk1:2181,zk2:2181   HBase's own RPC, through ZooKeeper
    /// // HBASE_ORM_URL=thrift2://gateway:9090      a Thrift2 gateway
    /// // HBASE_ORM_URL=memory://                   a new in-memory store (feature `memory`)
    /// let client = hbase_orm::Client::from_env().await?;
    /// # Ok(()) }
    /// ```
    ///
    /// When the variable is not set this connects to `127.0.0.1:9090`, whatever HBase listens
    /// there (the choice is logged at level INFO, see [`Config::from_env`]); a program that
    /// must not fall back uses [`Client::from_env_required`].
    pub async fn from_env() -> Result<Client> {
        ClientBuilder::default()
            .config(Config::from_env()?)
            .build()
            .await
    }

    /// [`Client::from_env`] for a program that must not fall back to a local HBase: an unset
    /// or empty `HBASE_ORM_URL` is [`Error::Config`](crate::Error::Config) saying what to set
    /// (see [`Config::from_env_required`]), and nothing is connected to.
    ///
    /// ```no_run
    /// # async fn demo() -> hbase_orm::Result<()> {
    /// // A nightly job: without HBASE_ORM_URL it stops here instead of writing into
    /// // whatever HBase listens on 127.0.0.1:9090.
    /// let client = hbase_orm::Client::from_env_required().await?;
    /// # Ok(()) }
    /// ```
    pub async fn from_env_required() -> Result<Client> {
        ClientBuilder::default()
            .config(Config::from_env_required()?)
            .build()
            .await
    }

    /// A client of a new, empty store in this process with HBase's semantics (see the
    /// `memory` backend's documentation for what it does not model): for unit tests that
    /// should not need a running HBase. Each call makes a separate store; clones share it.
    ///
    /// ```
    /// # #[tokio::main] async fn main() -> hbase_orm::Result<()> {
    /// use hbase_orm::{Client, ColumnFamily, Get, Put, TableDescriptor, TableName};
    ///
    /// let client = Client::in_memory();
    /// let name = TableName::new("default", "users");
    /// let users = TableDescriptor::new(name.clone()).family(ColumnFamily::new("d"));
    /// client.admin().create_table(&users, &[]).await?;
    ///
    /// let table = client.table_named(name);
    /// table.put(Put::new("u1").column("d", "name", "Ada")).await?;
    /// let row = table.get(Get::new("u1")).await?.expect("just written");
    /// assert_eq!(row.value("d", "name"), Some(&b"Ada"[..]));
    /// # Ok(()) }
    /// ```
    #[cfg(feature = "memory")]
    pub fn in_memory() -> Client {
        Client::over(
            Box::new(crate::backend::memory::Memory::new()),
            Config::memory(),
        )
    }

    /// The settings this client was built with.
    pub fn config(&self) -> &Config {
        &self.inner.config
    }

    /// Whether `other` is this client: a clone of it (clones share one pool of connections),
    /// not another client built with the same settings.
    ///
    /// ```
    /// let a = hbase_orm::Client::in_memory();
    /// assert!(a.is_same(&a.clone()));
    /// assert!(!a.is_same(&hbase_orm::Client::in_memory()));
    /// ```
    pub fn is_same(&self, other: &Client) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// Whether the gateway still holds the scanner `id` (see [`RowStream::scanner_id`](crate::RowStream::scanner_id)): a
    /// diagnostic for leaked scanners. Reads no rows.
    pub async fn scanner_is_open(&self, id: i32) -> Result<bool> {
        self.send(&crate::backend::op::ScannerIsOpen { id }).await
    }

    /// Counters of the connection pool, for monitoring and diagnostics.
    pub fn stats(&self) -> ClientStats {
        let c = self.inner.backend.counters();
        ClientStats {
            connections_opened: c.opened,
            connections_open: c.open,
            connections_idle: c.idle,
            retries: c.resent
                + self
                    .inner
                    .retries
                    .load(std::sync::atomic::Ordering::Relaxed),
            scanners_open: self
                .inner
                .scanners_open
                .load(std::sync::atomic::Ordering::Relaxed),
            scans_resumed: c.scans_resumed
                + self
                    .inner
                    .scans_resumed
                    .load(std::sync::atomic::Ordering::Relaxed),
            scanners_renewed: c.scanners_renewed,
        }
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
    /// Calls sent again after a failure that could pass (see [`Config::retry_deadline`]), and
    /// the native backend's calls sent again after a region moved or a server was busy (a
    /// batch's actions count once per round).
    pub retries: u64,
    /// Server-side scanners this client opened and has not closed yet (a scan stream closes
    /// its scanner when it ends, fails or is dropped; a dropped one closes it in the
    /// background, so this reaches zero shortly after).
    pub scanners_open: usize,
    /// Times a scan stream lost its server-side scanner (the gateway restarted, the scanner
    /// expired while the caller paused, the region it read moved or split) and reopened after
    /// the last row it returned.
    pub scans_resumed: u64,
    /// Times a scan stream kept its server-side scanner alive while the caller paused (the
    /// native backend renews a region scanner's lease once half of it is gone while a page
    /// waits for the caller), so that no reopen was needed.
    pub scanners_renewed: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one test of this crate's unit tests that sets `HBASE_ORM_URL` (the variable is the
    /// process's: no other unit test reads it).
    #[tokio::test]
    #[cfg(feature = "memory")]
    async fn from_env_connects_to_the_store_the_variable_names() {
        std::env::set_var("HBASE_ORM_URL", "memory://");
        let client = Client::from_env().await.unwrap();
        assert_eq!(client.backend_name(), "memory");
        assert_eq!(client.config().gateway, Gateway::Memory);
        std::env::set_var("HBASE_ORM_URL", "hbase://zk:notaport");
        let message = Client::from_env().await.err().unwrap().to_string();
        assert!(message.contains("HBASE_ORM_URL: "), "{message}");
        assert!(message.contains("\"notaport\""), "{message}");
        std::env::set_var("HBASE_ORM_URL", "");
        assert_eq!(
            Config::from_env().unwrap(),
            Config::default(),
            "set but empty"
        );
        std::env::remove_var("HBASE_ORM_URL");
        assert_eq!(Config::from_env().unwrap(), Config::default());
        // Required: no fallback to the default gateway, and nothing connected to.
        let Err(Error::Config(message)) = Client::from_env_required().await else {
            panic!("an unset HBASE_ORM_URL was accepted");
        };
        assert!(message.contains("HBASE_ORM_URL is not set"), "{message}");
        std::env::set_var("HBASE_ORM_URL", " ");
        assert!(Config::from_env_required().is_err(), "set but empty");
        std::env::set_var("HBASE_ORM_URL", "memory://");
        let client = Client::from_env_required().await.unwrap();
        assert_eq!(client.backend_name(), "memory");
        std::env::remove_var("HBASE_ORM_URL");
    }

    #[tokio::test]
    #[cfg(feature = "memory")]
    async fn an_invalid_namespace_is_named_as_given() {
        let client = Client::in_memory();
        let message = client
            .admin()
            .create_namespace("chat-run1")
            .await
            .unwrap_err()
            .to_string();
        assert!(
            message.contains(r#""chat-run1" is not a valid namespace name"#),
            "{message}"
        );
        assert!(message.contains(r#"(e.g. "chat_run1")"#), "{message}");
        assert!(!message.contains("TableName"), "no Debug output: {message}");
    }

    #[test]
    fn settings_for_parts_left_out_are_refused_naming_their_features() {
        for (url, needed) in [
            (
                "thrift2://h:1",
                &[("thrift2", cfg!(feature = "thrift2"))][..],
            ),
            ("thrift1://h:1", &[("thrift1", cfg!(feature = "thrift1"))]),
            ("hbase://zk:2181", &[("native", cfg!(feature = "native"))]),
            ("memory://", &[("memory", cfg!(feature = "memory"))]),
            (
                "thrift2+http://h:1/",
                &[
                    ("thrift2", cfg!(feature = "thrift2")),
                    ("http", cfg!(feature = "http")),
                ],
            ),
            (
                "thrift1+https://h:1/",
                &[
                    ("thrift1", cfg!(feature = "thrift1")),
                    ("tls", cfg!(feature = "tls")),
                ],
            ),
        ] {
            let config = Config::from_url(url).unwrap();
            let missing: Vec<&str> = needed.iter().filter(|n| !n.1).map(|n| n.0).collect();
            match without(&config) {
                None => assert!(missing.is_empty(), "{url}: {missing:?} left out"),
                Some(Error::Config(message)) => {
                    assert!(!missing.is_empty(), "{url}: {message}");
                    for feature in missing {
                        assert!(message.contains(&format!("`{feature}`")), "{message}");
                    }
                }
                Some(other) => panic!("{url}: {other:?}"),
            }
        }
    }
}
