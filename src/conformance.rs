//! The conformance suite's frame: one test body, run on every backend.
//!
//! A test file wraps its tests in [`conformance!`](crate::conformance!); each test becomes five
//! tests, `thrift2_buffered::NAME`, `thrift2_framed::NAME`, `thrift1::NAME`, `native::NAME`
//! and `memory::NAME`, each given a client of that backend. A difference between backends is a
//! failing test; what a backend cannot do is asserted with [`unsupported_on`]. The `memory::`
//! tests need no HBase: `cargo test memory::` runs them alone.

use hbase_orm::{Client, Config, Error, Gateway, Protocol, Transport};

use crate::{connect_with, framed_gateway_address, thrift1_gateway_address};

/// What a conformance test runs against: a backend and, for a gateway, how the client speaks
/// to it (not to be confused with the `Backend` trait inside the library that each store
/// implements).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The Thrift2 gateway with buffered transport and binary protocol.
    Thrift2Buffered,
    /// The Thrift2 gateway with framed transport and compact protocol.
    Thrift2Framed,
    /// The Thrift1 gateway.
    Thrift1,
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

/// Which of the suite's backends `client` is: `thrift2_buffered`, `thrift2_framed`,
/// `thrift1`, `native` or `memory` (the names of the suite's modules).
pub fn label(client: &Client) -> &'static str {
    match (client.backend_name(), client.config().transport) {
        ("thrift2", Transport::Framed) => "thrift2_framed",
        ("thrift2", _) => "thrift2_buffered",
        (other, _) => other,
    }
}

/// What `result` must be: [`Error::Unsupported`] on the backends named in `backends` (by
/// [`label`]: `thrift2_buffered`, `thrift2_framed`, `thrift1`, `native`, `memory`), and a success on the
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
    if backends.contains(&backend) {
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

        /// The suite on the Thrift1 gateway.
        mod thrift1 {
            $(#[tokio::test]
            async fn $name() {
                super::$name($crate::Target::Thrift1.client().await).await
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
