//! TLS for gateways behind HTTPS: the rustls client settings built once per pool from
//! [`TlsOptions`], the handshake on a fresh TCP connection, and errors that say which step
//! failed (loading the trusted certificates, the handshake, the server's certificate) without
//! echoing anything secret.

use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;
use tokio_rustls::TlsConnector;

use crate::model::{ClientIdentity, Error, Result, TlsOptions, TrustRoots};

/// What every TLS connection of a pool is made with.
pub(crate) struct TlsSettings {
    connector: TlsConnector,
    /// The name certificates must carry, if not the host dialed.
    server_name: Option<ServerName<'static>>,
}

impl TlsSettings {
    /// Reads the trusted certificates (and the client's, if any) and builds the settings for
    /// the gateways at `address` (and its siblings; errors name it).
    pub(crate) fn new(options: &TlsOptions, address: &str) -> Result<TlsSettings> {
        let failed = |step: &'static str, message: String| Error::Tls {
            address: address.to_string(),
            step,
            message,
        };
        let mut roots = rustls::RootCertStore::empty();
        match &options.roots {
            TrustRoots::System => {
                let found = rustls_native_certs::load_native_certs();
                let (added, _) = roots.add_parsable_certificates(found.certs);
                if added == 0 {
                    return Err(failed(
                        "loading the system's trusted certificates",
                        format!(
                            "none found ({} errors); give the CA's PEM file \
                             (TlsOptions::roots, URL option ca_file)",
                            found.errors.len()
                        ),
                    ));
                }
            }
            TrustRoots::PemFile(path) => {
                let step = "loading the trusted certificates";
                let certs = CertificateDer::pem_file_iter(path)
                    .and_then(|certs| certs.collect::<std::result::Result<Vec<_>, _>>())
                    .map_err(|e| failed(step, format!("{}: {e}", path.display())))?;
                let (added, _) = roots.add_parsable_certificates(certs);
                if added == 0 {
                    return Err(failed(
                        step,
                        format!("{} holds no usable certificate", path.display()),
                    ));
                }
            }
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| failed("setting up TLS", e.to_string()))?
            .with_root_certificates(roots);
        let mut config = match &options.client_identity {
            None => builder.with_no_client_auth(),
            Some(identity) => {
                let (chain, key) = client_identity(identity)
                    .map_err(|m| failed("loading the client certificate", m))?;
                builder
                    .with_client_auth_cert(chain, key)
                    .map_err(|e| failed("loading the client certificate", e.to_string()))?
            }
        };
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        let server_name = match &options.server_name {
            None => None,
            Some(name) => Some(ServerName::try_from(name.clone()).map_err(|_| {
                Error::Config(format!(
                    "TlsOptions::server_name {name:?} is not a host name"
                ))
            })?),
        };
        Ok(TlsSettings {
            connector: TlsConnector::from(Arc::new(config)),
            server_name,
        })
    }

    /// Speaks TLS on `tcp`, opened to `address` (`host:port`): the server's certificate must
    /// be signed by a trusted CA and carry the host's name (or [`TlsOptions::server_name`]).
    pub(crate) async fn connect(
        &self,
        address: &str,
        tcp: TcpStream,
    ) -> Result<TlsStream<TcpStream>> {
        let name = match &self.server_name {
            Some(name) => name.clone(),
            None => ServerName::try_from(host_of(address).to_string()).map_err(|_| {
                Error::Config(format!("{address}: the host is not a name TLS can check"))
            })?,
        };
        self.connector
            .connect(name, tcp)
            .await
            .map_err(|e| handshake_error(address, e))
    }
}

/// The host of `host:port` (`[v6]:port` too), without brackets.
fn host_of(address: &str) -> &str {
    let host = address.rsplit_once(':').map_or(address, |(h, _)| h);
    host.trim_start_matches('[').trim_end_matches(']')
}

/// Reads a client certificate chain and its key from their PEM files.
fn client_identity(
    identity: &ClientIdentity,
) -> std::result::Result<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>), String> {
    let path = &identity.certificate_chain;
    let chain = CertificateDer::pem_file_iter(path)
        .and_then(|certs| certs.collect::<std::result::Result<Vec<_>, _>>())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if chain.is_empty() {
        return Err(format!("{} holds no certificate", path.display()));
    }
    let path = &identity.private_key;
    // The key's own bytes never reach a message: only the file's name and the reader's verdict.
    let key = PrivateKeyDer::from_pem_file(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((chain, key))
}

/// A failed handshake, said in terms of what the user can change.
fn handshake_error(address: &str, e: std::io::Error) -> Error {
    let tls = e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>());
    let (step, message) = match tls {
        Some(tls) => describe(address, tls),
        None if e.kind() == std::io::ErrorKind::UnexpectedEof => (
            "the handshake",
            "the server closed the connection during the handshake: is it a TLS port?".to_string(),
        ),
        None => ("the handshake", e.to_string()),
    };
    Error::Tls {
        address: address.to_string(),
        step,
        message,
    }
}

/// The TLS failure somewhere in `e`'s causes (an HTTP exchange's error), as the error to give:
/// with TLS 1.3 a server refuses a client's certificate (or its absence) only after the
/// client's side of the handshake, so the refusal arrives with the first reply.
pub(crate) fn failure_in(address: &str, e: &(dyn std::error::Error + 'static)) -> Option<Error> {
    let mut cause = Some(e);
    while let Some(c) = cause {
        let tls = c.downcast_ref::<rustls::Error>().or_else(|| {
            c.downcast_ref::<std::io::Error>()
                .and_then(|io| io.get_ref())
                .and_then(|inner| inner.downcast_ref::<rustls::Error>())
        });
        if let Some(tls) = tls {
            let (step, message) = describe(address, tls);
            return Some(Error::Tls {
                address: address.to_string(),
                step,
                message,
            });
        }
        cause = c.source();
    }
    None
}

/// What step a TLS failure happened in, and what to change.
fn describe(address: &str, tls: &rustls::Error) -> (&'static str, String) {
    use rustls::AlertDescription as Alert;
    match tls {
        rustls::Error::InvalidCertificate(why) => {
            let message = match why {
                rustls::CertificateError::UnknownIssuer => {
                    "the gateway's certificate is not signed by a trusted CA (give its CA's PEM \
                     file: TlsOptions::roots, URL option ca_file)"
                        .to_string()
                }
                rustls::CertificateError::NotValidForName
                | rustls::CertificateError::NotValidForNameContext { .. } => format!(
                    "the gateway's certificate is not valid for {:?} (connect by a name it \
                     carries, or set TlsOptions::server_name)",
                    host_of(address)
                ),
                rustls::CertificateError::Expired
                | rustls::CertificateError::ExpiredContext { .. } => {
                    "the gateway's certificate has expired".to_string()
                }
                other => format!("the gateway's certificate was refused: {other:?}"),
            };
            ("checking the gateway's certificate", message)
        }
        rustls::Error::AlertReceived(
            Alert::CertificateRequired
            | Alert::BadCertificate
            | Alert::UnknownCA
            | Alert::HandshakeFailure,
        ) => (
            "the handshake",
            format!(
                "the gateway refused the connection ({tls}): it wants a client certificate it \
                 trusts (TlsOptions::client_identity)"
            ),
        ),
        rustls::Error::InvalidMessage(_) | rustls::Error::InappropriateMessage { .. } => (
            "the handshake",
            "the server did not answer in TLS: is it a plain HTTP gateway (thrift2+http://) or \
             a plain TCP one (thrift2://)?"
                .to_string(),
        ),
        other => ("the handshake", other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_found_in_addresses() {
        assert_eq!(host_of("gw.example:9095"), "gw.example");
        assert_eq!(host_of("127.0.0.1:9095"), "127.0.0.1");
        assert_eq!(host_of("[::1]:9095"), "::1");
    }

    #[test]
    fn a_missing_ca_file_says_which_step_failed() {
        let options = TlsOptions {
            roots: TrustRoots::PemFile("/nonexistent/ca.pem".into()),
            ..TlsOptions::default()
        };
        let e = TlsSettings::new(&options, "127.0.0.1:9095").err().unwrap();
        let text = e.to_string();
        assert!(text.contains("loading the trusted certificates"), "{text}");
        assert!(text.contains("/nonexistent/ca.pem"), "{text}");
    }
}
