//! The conformance suite's frame: one test body, run on every backend.
//!
//! A test file wraps its tests in [`conformance!`](crate::conformance!); each test becomes nine
//! tests, `thrift2_buffered::NAME`, `thrift2_framed::NAME`, `thrift2_http::NAME`,
//! `thrift2_https::NAME`, `thrift1::NAME`, `thrift1_http::NAME`, `thrift1_https::NAME`,
//! `native::NAME` and `memory::NAME`, each given a client of that backend. A difference between
//! backends is a failing test; what a backend cannot do is asserted with [`unsupported_on`].
//! The `memory::` tests need no HBase: `cargo test memory::` runs them alone.

use hbase_orm::{Client, Config, Error, Gateway, Protocol, Transport};

use crate::{connect_with, framed_gateway_address, http_gateway_url, thrift1_gateway_address};

/// What a conformance test runs against: a backend and, for a gateway, how the client speaks
/// to it (not to be confused with the `Backend` trait inside the library that each store
/// implements).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The Thrift2 gateway with buffered transport and binary protocol.
    Thrift2Buffered,
    /// The Thrift2 gateway with framed transport and compact protocol.
    Thrift2Framed,
    /// The Thrift2 gateway serving Thrift over HTTP.
    Thrift2Http,
    /// The Thrift2 gateway serving Thrift over HTTPS (its certificate checked against the
    /// launcher's CA).
    Thrift2Https,
    /// The Thrift1 gateway.
    Thrift1,
    /// The Thrift1 gateway serving Thrift over HTTP.
    Thrift1Http,
    /// The Thrift1 gateway serving Thrift over HTTPS.
    Thrift1Https,
    /// The in-memory store.
    Memory,
    /// HBase's own RPC, no gateway.
    Native,
}

impl Target {
    /// A client of this target (panics with instructions when HBase is not running).
    pub async fn client(self) -> Client {
        let config = |address, gateway, transport, protocol| Config {
            address,
            gateway,
            transport,
            protocol,
            ..Config::default()
        };
        match self {
            Target::Thrift2Buffered => crate::client().await,
            Target::Thrift2Framed => {
                connect_with(config(
                    framed_gateway_address(),
                    Gateway::Thrift2,
                    Transport::Framed,
                    Protocol::Compact,
                ))
                .await
            }
            Target::Thrift1 => {
                connect_with(config(
                    thrift1_gateway_address(),
                    Gateway::Thrift1,
                    Transport::Buffered,
                    Protocol::Binary,
                ))
                .await
            }
            Target::Thrift2Http => connect_with(http_config("thrift2", false)).await,
            Target::Thrift2Https => connect_with(http_config("thrift2", true)).await,
            Target::Thrift1Http => connect_with(http_config("thrift1", false)).await,
            Target::Thrift1Https => connect_with(http_config("thrift1", true)).await,
            Target::Memory => Client::in_memory(),
            Target::Native => {
                let mut config =
                    Config::from_url(&crate::native_url()).expect("a valid hbase:// URL");
                config.retry_deadline = std::time::Duration::from_secs(30);
                connect_with(config).await
            }
        }
    }
}

/// The settings of the launcher's HTTP (`tls` false) or HTTPS gateway of `service`
/// (`thrift2` or `thrift1`).
fn http_config(service: &str, tls: bool) -> Config {
    let url = http_gateway_url(service, tls);
    Config::from_url(&url).unwrap_or_else(|e| panic!("{url}: {e}"))
}

/// Which of the suite's backends `client` is: `thrift2_buffered`, `thrift2_framed`,
/// `thrift2_http`, `thrift2_https`, `thrift1`, `thrift1_http`, `thrift1_https`, `native` or
/// `memory` (the names of the suite's modules).
pub fn label(client: &Client) -> &'static str {
    let config = client.config();
    match (
        client.backend_name(),
        config.transport,
        config.tls.is_some(),
    ) {
        ("thrift2", Transport::Framed, _) => "thrift2_framed",
        ("thrift2", Transport::Http, false) => "thrift2_http",
        ("thrift2", Transport::Http, true) => "thrift2_https",
        ("thrift2", _, _) => "thrift2_buffered",
        ("thrift1", Transport::Http, false) => "thrift1_http",
        ("thrift1", Transport::Http, true) => "thrift1_https",
        (other, _, _) => other,
    }
}

/// Whether `label` is one of `backends`: named itself, or, for a gateway over HTTP(S), by
/// its service (`thrift1` covers `thrift1_http` and `thrift1_https`: the service decides what
/// a gateway can do, not how calls reach it).
fn named(backends: &[&str], label: &str) -> bool {
    backends.iter().any(|b| {
        *b == label
            || label
                .strip_prefix(b)
                .is_some_and(|rest| rest == "_http" || rest == "_https")
    })
}

/// What `result` must be: [`Error::Unsupported`] on the backends named in `backends` (by
/// [`label`]: `thrift2_buffered`, `thrift2_framed`, `thrift1`, `native`, `memory`, ...; a
/// service's name covers its gateways over HTTP(S), see [`label`]), and a success on the
/// others, which is returned.
///
/// ```no_run
/// # async fn demo(client: hbase_orm::Client) {
/// use hbase_orm_suite::unsupported_on;
/// let admin = client.admin();
/// if let Some(names) = unsupported_on(&client, &["thrift1"], admin.list_namespaces().await) {
///     assert!(names.contains(&"default".to_string()));
/// }
/// # }
/// ```
#[track_caller]
pub fn unsupported_on<T>(
    client: &Client,
    backends: &[&str],
    result: hbase_orm::Result<T>,
) -> Option<T> {
    let backend = label(client);
    if named(backends, backend) {
        match result {
            Err(Error::Unsupported { .. }) => None,
            Err(e) => panic!("{backend}: expected an Unsupported error, got: {e}"),
            Ok(_) => panic!("{backend}: expected an Unsupported error, got a success"),
        }
    } else {
        match result {
            Ok(v) => Some(v),
            Err(e) => panic!("{backend}: {e}"),
        }
    }
}

/// Turns `async fn NAME(client: Client) { ... }` items into one test per backend (see the
/// module documentation).
#[macro_export]
macro_rules! conformance {
    ($($(#[$meta:meta])* async fn $name:ident($client:ident: Client) $body:block)*) => {
        $($(#[$meta])* async fn $name($client: ::hbase_orm::Client) $body)*

        /// The suite on the Thrift2 gateway, buffered transport and binary protocol.
        mod thrift2_buffered {
            $(#[tokio::test]
            async fn $name() {
                super::$name($crate::Target::Thrift2Buffered.client().await).await
            })*
        }

        /// The suite on the Thrift2 gateway, framed transport and compact protocol.
        mod thrift2_framed {
            $(#[tokio::test]
            async fn $name() {
                super::$name($crate::Target::Thrift2Framed.client().await).await
            })*
        }

        /// The suite on the Thrift2 gateway over HTTP.
        mod thrift2_http {
            $(#[tokio::test]
            async fn $name() {
                super::$name($crate::Target::Thrift2Http.client().await).await
            })*
        }

        /// The suite on the Thrift2 gateway over HTTPS.
        mod thrift2_https {
            $(#[tokio::test]
            async fn $name() {
                super::$name($crate::Target::Thrift2Https.client().await).await
            })*
        }

        /// The suite on the Thrift1 gateway.
        mod thrift1 {
            $(#[tokio::test]
            async fn $name() {
                super::$name($crate::Target::Thrift1.client().await).await
            })*
        }

        /// The suite on the Thrift1 gateway over HTTP.
        mod thrift1_http {
            $(#[tokio::test]
            async fn $name() {
                super::$name($crate::Target::Thrift1Http.client().await).await
            })*
        }

        /// The suite on the Thrift1 gateway over HTTPS.
        mod thrift1_https {
            $(#[tokio::test]
            async fn $name() {
                super::$name($crate::Target::Thrift1Https.client().await).await
            })*
        }

        /// The suite on HBase's own RPC, no gateway.
        mod native {
            $(#[tokio::test]
            async fn $name() {
                super::$name($crate::Target::Native.client().await).await
            })*
        }

        /// The suite on the in-memory store (no HBase needed).
        mod memory {
            $(#[tokio::test]
            async fn $name() {
                super::$name($crate::Target::Memory.client().await).await
            })*
        }
    };
}
