//! Stand-ins for the transports left out of the build (cargo features `http` and `tls`), so
//! that the connections and the pool read the same with them or without: their types exist
//! but no value of them can be made, and settings that would need one are refused. The client
//! refuses them first, naming the feature (`ClientBuilder::build`); the refusals here only
//! keep that true of the wire on its own.

/// Thrift over HTTP, left out (cargo feature `http`).
#[cfg(not(feature = "http"))]
pub(crate) mod http {
    use std::sync::Arc;

    use bytes::Bytes;

    use crate::model::{Config, Error, Result, Transport};

    /// No settings can exist: the gateways are reached over TCP.
    pub(crate) enum HttpSettings {}

    impl HttpSettings {
        /// `None` for a gateway over TCP; an error for one over HTTP.
        pub(crate) fn new(config: &Config) -> Result<Option<Arc<HttpSettings>>> {
            match config.transport {
                Transport::Http => Err(Error::Config(
                    "Transport::Http needs hbase-orm built with the cargo feature `http`".into(),
                )),
                _ => Ok(None),
            }
        }
    }

    /// No link can exist (see [`HttpSettings`]).
    pub(crate) enum HttpLink {}

    /// A failed exchange, as the connection reads it.
    pub(crate) struct HttpFailure {
        pub(crate) error: Error,
        pub(crate) nothing_received: bool,
        pub(crate) reusable: bool,
    }

    impl HttpLink {
        pub(crate) async fn open(_: &str, settings: Arc<HttpSettings>) -> Result<HttpLink> {
            match *settings {}
        }

        pub(crate) fn is_open(&self) -> bool {
            match *self {}
        }

        pub(crate) async fn exchange(
            &mut self,
            _: &'static str,
            _: Bytes,
            _: usize,
            _: bool,
        ) -> std::result::Result<Bytes, HttpFailure> {
            match *self {}
        }
    }
}

/// TLS, left out (cargo feature `tls`) from a build with HTTP.
#[cfg(all(feature = "http", not(feature = "tls")))]
pub(crate) mod tls {
    use tokio::net::TcpStream;

    use crate::model::{Error, Result, TlsOptions};

    /// No settings can exist: the gateways are reached over plain HTTP.
    pub(crate) enum TlsSettings {}

    impl TlsSettings {
        /// Refused: TLS is left out.
        pub(crate) fn new(_: &TlsOptions, _: &str) -> Result<TlsSettings> {
            Err(Error::Config(
                "TLS (https) needs hbase-orm built with the cargo feature `tls`".into(),
            ))
        }

        pub(crate) async fn connect(&self, _: &str, _: TcpStream) -> Result<TcpStream> {
            match *self {}
        }
    }

    /// No TLS failure can be among the causes of an error.
    pub(crate) fn failure_in(_: &str, _: &(dyn std::error::Error + 'static)) -> Option<Error> {
        None
    }
}
