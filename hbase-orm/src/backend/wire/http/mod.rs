//! Thrift over HTTP: a gateway started with `hbase.regionserver.thrift.http=true` takes each
//! call as the body of a POST and answers with the reply as the body of a 200. One
//! [`HttpLink`] is one keep-alive HTTP/1.1 connection (hyper's client connection, on a socket
//! of our own, TLS or not), pooled like a TCP connection and carrying one call at a time.
//!
//! What is sent with every call is fixed when the pool is built ([`HttpSettings`]): the path,
//! `Content-Type: application/x-thrift`, the user's headers, credentials and `doAs`. Replies
//! are read up to the configured limit (a `Content-Length` over it is refused before its body
//! is read); any status but 200 becomes a typed error ([`Error::Unauthenticated`],
//! [`Error::Forbidden`], [`Error::HttpStatus`]) with an excerpt of what the gateway said.

use std::sync::Arc;

use base64::Engine as _;
use bytes::{Bytes, BytesMut};
use http::header::{HeaderMap, HeaderName, HeaderValue};
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;

use super::tls::TlsSettings;
use crate::backend::kerberos::KerberosTarget;
use crate::model::{
    Config, CredentialsAs, Error, KerberosMechanism, KerberosOptions, Result, Transport,
};

/// The most of a refusal's body kept for its error message.
const EXCERPT_BYTES: usize = 4096;

/// The longest excerpt of a refusal shown in an error.
const EXCERPT_CHARS: usize = 300;

/// What every HTTP call of a pool carries, built once from the [`Config`].
pub(crate) struct HttpSettings {
    /// Where calls are posted (checked once, here).
    path: http::Uri,
    headers: HeaderMap,
    tls: Option<TlsSettings>,
    /// SPNEGO: a fresh `Authorization: Negotiate` token with every call.
    kerberos: Option<KerberosOptions>,
}

impl HttpSettings {
    /// The settings for `config`'s gateways, or `None` if they are not reached over HTTP.
    pub(crate) fn new(config: &Config) -> Result<Option<Arc<HttpSettings>>> {
        if config.transport != Transport::Http {
            return Ok(None);
        }
        let http = &config.http;
        let mut headers = HeaderMap::new();
        headers.insert(
            http::header::CONTENT_TYPE,
            HeaderValue::from_static("application/x-thrift"),
        );
        // Text besides Thrift: HBase's gateway (Jetty) answers a failure in the best type the
        // client accepts, with no body at all if that is only Thrift.
        headers.insert(
            http::header::ACCEPT,
            HeaderValue::from_static("application/x-thrift, text/plain;q=0.5"),
        );
        for (name, value) in &http.headers {
            headers.append(header_name(name)?, secret_value(name, value.expose())?);
        }
        if let Some(c) = &http.credentials {
            match &c.send_as {
                CredentialsAs::Basic => {
                    let token = base64::engine::general_purpose::STANDARD.encode(format!(
                        "{}:{}",
                        c.user,
                        c.password.expose()
                    ));
                    headers.insert(
                        http::header::AUTHORIZATION,
                        secret_value("Authorization", &format!("Basic {token}"))?,
                    );
                }
                CredentialsAs::Headers { user, password } => {
                    headers.insert(header_name(user)?, secret_value(user, &c.user)?);
                    headers.insert(
                        header_name(password)?,
                        secret_value(password, c.password.expose())?,
                    );
                }
            }
        }
        if let Some(user) = &http.do_as {
            headers.insert(
                HeaderName::from_static("doas"),
                HeaderValue::from_str(user).map_err(|_| {
                    Error::Config(format!("doAs user {user:?} cannot be sent in a header"))
                })?,
            );
        }
        let tls = match &config.tls {
            Some(options) => Some(TlsSettings::new(options, &config.address)?),
            None => None,
        };
        let path = http::Uri::try_from(http.path.as_str())
            .map_err(|e| Error::Config(format!("HTTP path {:?}: {e}", http.path)))?;
        Ok(Some(Arc::new(HttpSettings {
            path,
            headers,
            tls,
            kerberos: config.kerberos.clone(),
        })))
    }
}

/// Headers the client sets itself: a user's copy would break the framing of calls or send
/// them elsewhere.
const RESERVED_HEADERS: [HeaderName; 6] = [
    http::header::HOST,
    http::header::CONTENT_LENGTH,
    http::header::TRANSFER_ENCODING,
    http::header::CONNECTION,
    http::header::CONTENT_TYPE,
    http::header::UPGRADE,
];

/// A header name given by the user (an extra header, or one that carries credentials),
/// checked: valid, and not one of the client's own.
fn header_name(name: &str) -> Result<HeaderName> {
    let checked = HeaderName::from_bytes(name.as_bytes())
        .map_err(|_| Error::Config(format!("{name:?} is not a valid HTTP header name")))?;
    if RESERVED_HEADERS.contains(&checked) {
        return Err(Error::Config(format!(
            "header {name:?} is the client's own to set (it frames or routes each call)"
        )));
    }
    Ok(checked)
}

/// A header value that may be secret: marked sensitive (hyper keeps it out of its own
/// logs), and an error about it names the header, never the value.
fn secret_value(name: &str, value: &str) -> Result<HeaderValue> {
    let mut v = HeaderValue::from_str(value).map_err(|_| {
        Error::Config(format!(
            "the value of header {name:?} holds characters a header cannot carry"
        ))
    })?;
    v.set_sensitive(true);
    Ok(v)
}

/// A failed exchange: the error, and whether the gateway may have seen nothing of the call
/// (a kept-alive connection it had closed).
pub(crate) struct HttpFailure {
    pub(crate) error: Error,
    pub(crate) nothing_received: bool,
    /// The connection can carry further calls (a complete refusal was read).
    pub(crate) reusable: bool,
}

/// One keep-alive HTTP/1.1 connection to a gateway.
pub(crate) struct HttpLink {
    sender: SendRequest<Full<Bytes>>,
    address: String,
    /// The `Host` header of every call.
    host: HeaderValue,
    settings: Arc<HttpSettings>,
    /// The gateway's principal, when calls carry SPNEGO tokens.
    negotiate: Option<KerberosTarget>,
}

impl HttpLink {
    /// Opens a connection to `address` (TLS first, if the settings say so); no call is made.
    pub(crate) async fn open(address: &str, settings: Arc<HttpSettings>) -> Result<HttpLink> {
        let tcp = super::connect_tcp(address).await?;
        let sender = match &settings.tls {
            Some(tls) => handshake(address, tls.connect(address, tcp).await?).await?,
            None => handshake(address, tcp).await?,
        };
        let negotiate = settings
            .kerberos
            .as_ref()
            .map(|k| KerberosTarget::new(k, KerberosMechanism::Spnego, address));
        let host = HeaderValue::from_str(address)
            .map_err(|_| Error::Config(format!("{address:?} cannot be a Host header")))?;
        Ok(HttpLink {
            sender,
            host,
            address: address.to_string(),
            settings,
            negotiate,
        })
    }

    /// Whether the connection is still open (hyper noticed no close from the gateway).
    pub(crate) fn is_open(&self) -> bool {
        !self.sender.is_closed()
    }

    /// Posts one call's message and reads the reply's body, at most `max` bytes of it.
    /// `fresh` says the connection carried no call before (a failure then is no stale socket
    /// but most likely a gateway that does not speak HTTP).
    pub(crate) async fn exchange(
        &mut self,
        method: &'static str,
        body: Bytes,
        max: usize,
        fresh: bool,
    ) -> std::result::Result<Bytes, HttpFailure> {
        let broken = |error, nothing_received| HttpFailure {
            error,
            nothing_received,
            reusable: false,
        };
        let mut request = http::Request::new(Full::new(body));
        *request.method_mut() = http::Method::POST;
        *request.uri_mut() = self.settings.path.clone();
        *request.headers_mut() = self.settings.headers.clone();
        request
            .headers_mut()
            .insert(http::header::HOST, self.host.clone());
        // A failure here is the client's own: nothing went out and the connection is fine.
        let local = |error| HttpFailure {
            error,
            nothing_received: false,
            reusable: true,
        };
        if let Some(target) = &self.negotiate {
            let token = target.negotiate().await.map_err(local)?;
            let value = secret_value("Authorization", &token).map_err(local)?;
            request
                .headers_mut()
                .insert(http::header::AUTHORIZATION, value);
        }
        if let Err(e) = self.sender.ready().await {
            return Err(broken(self.hyper_error(method, &e, fresh), true));
        }
        let response = match self.sender.send_request(request).await {
            Ok(r) => r,
            Err(e) => {
                // Not "incomplete message": hyper says so too when part of the answer came,
                // and then the gateway has carried the call out.
                let nothing = e.is_canceled() || e.is_closed();
                return Err(broken(self.hyper_error(method, &e, fresh), nothing));
            }
        };
        let (parts, mut body) = response.into_parts();
        let declared = parts
            .headers
            .get(http::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        let ok = parts.status == http::StatusCode::OK;
        let limit = if ok { max } else { EXCERPT_BYTES };
        if ok && declared.is_some_and(|n| n > max as u64) {
            let message = format!(
                "reply of {} bytes exceeds the limit of {max} bytes \
                 (ClientBuilder::max_reply_bytes)",
                declared.unwrap_or_default()
            );
            return Err(broken(Error::Protocol { method, message }, false));
        }
        let mut read =
            // Room grows as the body comes: a declared length alone reserves at most a chunk.
            BytesMut::with_capacity(declared.map_or(8192, |n| n.min(limit.min(64 * 1024) as u64) as usize));
        let mut complete = true;
        while let Some(frame) = body.frame().await {
            let frame = match frame {
                Ok(f) => f,
                Err(e) if ok => return Err(broken(self.hyper_error(method, &e, false), false)),
                // A refusal cut short: what came is enough for its message.
                Err(_) => {
                    complete = false;
                    break;
                }
            };
            let Ok(data) = frame.into_data() else {
                continue;
            };
            if read.len() + data.len() > limit {
                if ok {
                    let message = format!(
                        "reply exceeds the limit of {max} bytes (ClientBuilder::max_reply_bytes)"
                    );
                    return Err(broken(Error::Protocol { method, message }, false));
                }
                read.extend_from_slice(&data[..limit - read.len()]);
                complete = false;
                break;
            }
            read.extend_from_slice(&data);
        }
        if ok {
            return Ok(read.freeze());
        }
        let error = refusal(
            &self.address,
            method,
            parts.status.as_u16(),
            &parts.headers,
            &read,
        );
        Err(HttpFailure {
            error,
            nothing_received: false,
            reusable: complete,
        })
    }

    /// A hyper error said in terms of what the user may have got wrong.
    fn hyper_error(&self, method: &'static str, e: &hyper::Error, fresh: bool) -> Error {
        if let Some(tls) = super::tls::failure_in(&self.address, e) {
            return tls;
        }
        let hint = if e.is_parse() {
            "; the answer is not HTTP: is the gateway's port a plain TCP one (thrift2://) or \
             a TLS one (thrift2+https://)?"
        } else if fresh && !e.is_timeout() {
            "; the gateway closed the connection without an HTTP answer: is it a plain TCP \
             Thrift gateway (thrift2://) or a TLS one (thrift2+https://)?"
        } else {
            ""
        };
        let source = std::io::Error::other(format!("HTTP to {}: {e}{hint}", self.address));
        Error::Transport { method, source }
    }
}

/// Starts HTTP/1.1 on an open socket; hyper's connection task runs until the link is dropped.
async fn handshake<S>(address: &str, io: S) -> Result<SendRequest<Full<Bytes>>>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (sender, connection) = hyper::client::conn::http1::Builder::new()
        .handshake(TokioIo::new(io))
        .await
        .map_err(|e| Error::Connect {
            address: address.to_string(),
            source: std::io::Error::other(e),
        })?;
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            tracing::debug!(error = %e, "HTTP connection to the gateway ended");
        }
    });
    Ok(sender)
}

/// The error for a status other than 200.
fn refusal(
    address: &str,
    method: &'static str,
    status: u16,
    headers: &HeaderMap,
    body: &[u8],
) -> Error {
    let message = excerpt(body);
    let address = address.to_string();
    match status {
        401 => Error::Unauthenticated {
            address,
            method,
            challenge: {
                let offered: Vec<&str> = headers
                    .get_all(http::header::WWW_AUTHENTICATE)
                    .iter()
                    .filter_map(|v| v.to_str().ok())
                    .collect();
                (!offered.is_empty()).then(|| offered.join(", "))
            },
            message,
        },
        403 => Error::Forbidden {
            address,
            status,
            method,
            message,
        },
        // HBase's gateway refuses a doAs it may not honour with a server error that names the
        // refusal: the caller can act on it as on a 403.
        500 if IMPERSONATION_REFUSED.iter().any(|m| message.contains(m)) => Error::Forbidden {
            address,
            status,
            method,
            message,
        },
        _ => Error::HttpStatus {
            address,
            method,
            status,
            message,
        },
    }
}

/// What HBase's gateway says (with status 500) when it will not act for a `doAs` user.
const IMPERSONATION_REFUSED: &[&str] = &[
    "AuthorizationException",
    "Support for proxyuser is not configured",
];

/// What a gateway's refusal says, short: the text of an HTML error page without its tags
/// (Jetty's pages repeat the message in the title and the body: the title is enough),
/// whitespace collapsed, at most [`EXCERPT_CHARS`] characters.
fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let lower = text.to_ascii_lowercase();
    // Jetty's plain-text error page names the cause on a line of its own.
    let message_line = text.lines().find_map(|l| l.trim().strip_prefix("MESSAGE:"));
    let titled = match (lower.find("<title>"), lower.find("</title>")) {
        _ if message_line.is_some() => message_line.unwrap_or_default(),
        (Some(a), Some(b)) if a + 7 <= b => &text[a + 7..b],
        _ => &text,
    };
    let mut plain = String::new();
    let mut in_tag = false;
    for c in titled.chars() {
        match c {
            '<' => in_tag = true,
            '>' => {
                in_tag = false;
                plain.push(' ');
            }
            _ if !in_tag => plain.push(if c.is_control() { ' ' } else { c }),
            _ => {}
        }
    }
    let words: Vec<&str> = plain.split_whitespace().collect();
    let mut shown: String = words.join(" ").chars().take(EXCERPT_CHARS).collect();
    if shown.is_empty() {
        shown = "(no message)".into();
    } else if words.join(" ").chars().count() > EXCERPT_CHARS {
        shown.push_str(" ...");
    }
    shown
}

#[cfg(test)]
mod tests;
