//! How the client reaches a gateway that is not an open TCP port: Thrift over HTTP with its
//! headers, credentials and impersonation ([`HttpOptions`]), TLS ([`TlsOptions`]), and the
//! [`Secret`] that keeps passwords and header values out of every message.

use std::fmt;
use std::path::PathBuf;

/// A value that must never be shown: a password, a token, a header's value. Its `Debug`
/// prints `***`; only [`Secret::expose`] gives the value, for the one place that sends it.
///
/// ```
/// use hbase_orm::Secret;
/// let s = Secret::new("TopSecret42");
/// assert_eq!(format!("{s:?}"), "***");
/// assert_eq!(s.expose(), "TopSecret42");
/// ```
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }

    /// The value itself, for sending it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Secret {
        Secret::new(value)
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Secret {
        Secret::new(value)
    }
}

/// A user name and password for a gateway behind HTTP, and how they are sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Credentials {
    /// The user name.
    pub user: String,
    /// The password (never shown).
    pub password: Secret,
    /// How they travel with each call.
    pub send_as: CredentialsAs,
}

/// How [`Credentials`] travel with each HTTP call.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum CredentialsAs {
    /// `Authorization: Basic base64(user:password)` (RFC 7617): what a proxy in front of the
    /// gateway usually checks.
    #[default]
    Basic,
    /// Two headers of the given names carry the user and the password as they are (some
    /// cloud providers' HBase takes Thrift over HTTP this way).
    Headers {
        /// The header that carries the user name.
        user: String,
        /// The header that carries the password.
        password: String,
    },
}

/// Settings of Thrift over HTTP ([`crate::Transport::Http`], cargo feature `http`): HBase's
/// gateways started with `hbase.regionserver.thrift.http=true` take each call as the body of a
/// POST.
///
/// ```
/// use hbase_orm::{Config, Secret};
/// let c = Config::from_url("thrift2+http://app:s3cret@gw.example:9090/?do_as=alice").unwrap();
/// assert_eq!(c.http.do_as.as_deref(), Some("alice"));
/// let credentials = c.http.credentials.as_ref().unwrap();
/// assert_eq!((credentials.user.as_str(), credentials.password.expose()), ("app", "s3cret"));
/// // Debug output never shows the password.
/// assert!(!format!("{c:?}").contains("s3cret"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpOptions {
    /// The path calls are posted to (`/`: the gateway serves Thrift on every path).
    pub path: String,
    /// Headers sent with every call, e.g. a proxy's token; their values are never shown.
    pub headers: Vec<(String, Secret)>,
    /// A user and password to send with every call.
    pub credentials: Option<Credentials>,
    /// The user the gateway should act for (header `doAs`); the gateway needs
    /// `hbase.thrift.support.proxyuser=true` and Hadoop's proxy-user rules must let its own
    /// user impersonate this one.
    pub do_as: Option<String>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            path: "/".into(),
            headers: Vec::new(),
            credentials: None,
            do_as: None,
        }
    }
}

impl HttpOptions {
    /// Whether anything but the path is set (these settings mean nothing without HTTP).
    pub(crate) fn is_set(&self) -> bool {
        !self.headers.is_empty()
            || self.credentials.is_some()
            || self.do_as.is_some()
            || self.path != "/"
    }
}

/// Which certificates authorities a TLS connection trusts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum TrustRoots {
    /// The operating system's trusted roots (what a browser on the machine trusts).
    #[default]
    System,
    /// The certificates in a PEM file (e.g. a company's CA, or a gateway's self-signed
    /// certificate): only those are trusted.
    PemFile(PathBuf),
}

/// A client certificate and its private key, for a TLS server that asks for one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientIdentity {
    /// PEM file with the client's certificate first, then any intermediates.
    pub certificate_chain: PathBuf,
    /// PEM file with the certificate's private key (PKCS#8, PKCS#1 or SEC1).
    pub private_key: PathBuf,
}

/// TLS settings (cargo feature `tls`): who is trusted, which name the server's certificate must
/// carry, and an optional client certificate. The server's certificate is always verified:
/// there is no setting that turns verification off, and a TLS client never falls back to plain
/// text.
///
/// ```
/// use hbase_orm::{Config, TrustRoots};
/// let c = Config::from_url("thrift2+https://127.0.0.1:9095/?ca_file=/etc/hbase/ca.pem").unwrap();
/// let tls = c.tls.unwrap();
/// assert_eq!(tls.roots, TrustRoots::PemFile("/etc/hbase/ca.pem".into()));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TlsOptions {
    /// The certificate authorities trusted.
    pub roots: TrustRoots,
    /// The name the server's certificate must carry, when it is not the host of the address
    /// dialed (a gateway reached by IP address whose certificate names its host, say).
    pub server_name: Option<String>,
    /// A client certificate, for a server that asks for one.
    pub client_identity: Option<ClientIdentity>,
}

/// The protection a SASL GSSAPI connection must have at least (HBase's
/// `hbase.thrift.security.qop` on a gateway, `hbase.rpc.protection` on the region servers and
/// masters: `authentication`, `integrity`, `privacy`); the client takes the strongest the
/// server offers and refuses a server that offers only weaker ones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Qop {
    /// Authentication only (`auth`): calls travel in clear after the handshake.
    #[default]
    Auth,
    /// Every call signed (`auth-int`): tampering is detected, the bytes are readable.
    AuthInt,
    /// Every call signed and encrypted (`auth-conf`).
    AuthConf,
}

/// Kerberos authentication to a secured gateway or, for the native backend, to HBase's region
/// servers and master (cargo feature `kerberos`): SPNEGO (`Authorization: Negotiate`, a fresh
/// token per call) over HTTP(S), SASL GSSAPI over a buffered TCP connection or in HBase's own
/// RPC (under every `hbase.rpc.protection`). Credentials
/// are the user's own, as every Kerberos client finds them: the ticket cache (`kinit`;
/// `KRB5CCNAME`), or a client keytab (`KRB5_CLIENT_KTNAME`), with `KRB5_CONFIG` naming the
/// realm's settings.
///
/// In a URL: `thrift2://gw.example:9090/?auth=kerberos&qop=auth-conf` (SASL, principal
/// `hbase/gw.example`), `thrift2+https://gw.example:9090/?auth=kerberos` (SPNEGO, principal
/// `HTTP/gw.example`).
///
/// ```
/// use hbase_orm::{KerberosMechanism, KerberosOptions, Qop};
/// let k = KerberosOptions { qop: Qop::AuthConf, ..KerberosOptions::default() };
/// assert_eq!(k.service_name(KerberosMechanism::Sasl), "hbase");
/// assert_eq!(k.service_name(KerberosMechanism::Spnego), "HTTP");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KerberosOptions {
    /// The gateway's service name: the first part of its principal (`hbase` for SASL over
    /// TCP, `HTTP` for SPNEGO when unset).
    pub service: Option<String>,
    /// The host part of the gateway's principal, when it is not the host of the address
    /// dialed (a gateway reached by IP address, whose principal names its host).
    pub host: Option<String>,
    /// The least protection accepted over SASL (TCP); HTTPS protects calls itself.
    pub qop: Qop,
}

impl KerberosOptions {
    /// The service name, the first part of the server's principal, for `mechanism`:
    /// [`KerberosOptions::service`] or its default (`HTTP` for SPNEGO, `hbase` for SASL).
    pub fn service_name(&self, mechanism: KerberosMechanism) -> &str {
        match (&self.service, mechanism) {
            (Some(s), _) => s,
            (None, KerberosMechanism::Spnego) => "HTTP",
            (None, KerberosMechanism::Sasl) => "hbase",
        }
    }
}

/// How Kerberos tokens reach a server, which decides the default service name of its principal
/// ([`KerberosOptions::service_name`]).
///
/// ```
/// use hbase_orm::{KerberosMechanism, KerberosOptions};
/// let k = KerberosOptions { service: Some("thrift".into()), ..KerberosOptions::default() };
/// assert_eq!(k.service_name(KerberosMechanism::Spnego), "thrift");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KerberosMechanism {
    /// SASL GSSAPI: a gateway over buffered TCP, or HBase's own RPC (service `hbase`).
    Sasl,
    /// SPNEGO (`Authorization: Negotiate`): a gateway over HTTP or HTTPS (service `HTTP`).
    Spnego,
}
