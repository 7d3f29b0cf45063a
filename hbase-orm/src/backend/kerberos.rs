//! Kerberos for the backends that speak to secured servers (cargo feature `kerberos`, through
//! the system's GSSAPI). For the gateways ([`super::wire`]):
//! SPNEGO over HTTP (a fresh `Authorization: Negotiate` token per call: HBase's gateway checks
//! each request on its own and refuses a token it has seen), and SASL GSSAPI over TCP.
//!
//! SASL as Thrift's SASL transport carries it (what HBase's gateways speak with
//! `hbase.thrift.security.qop` set): every handshake message is a status byte (START 1, OK 2,
//! BAD 3, ERROR 4, COMPLETE 5), a 4-byte big-endian length and the payload. The client sends
//! START with the mechanism name `GSSAPI`, then the GSSAPI tokens as OK until its context is
//! complete; the gateway then offers its security layers (RFC 4752: a wrapped 4 bytes, the
//! layers it offers as a bit mask, 1 none, 2 integrity, 4 confidentiality, and the largest
//! message it takes); the client answers COMPLETE with the wrapped choice (the layer and its
//! own largest message; no authorization id: HBase refuses one that is not the principal
//! itself), and the gateway says COMPLETE. From then on every message either way is a 4-byte
//! length and the message, wrapped by GSSAPI under integrity (signed) and confidentiality
//! (signed and encrypted).
//!
//! HBase's own RPC (the native backend) runs the same GSSAPI exchange in its own framing:
//! after the preamble (`HBas`, version 0, authentication method 0x51 for Kerberos) the client
//! sends each token as a 4-byte length and the token; the server answers each with a 4-byte
//! status (0 success, else an exception's class and message follow as Hadoop strings), a
//! 4-byte length and its token. The server's last token offers its security layers, as the
//! gateways do (`hbase.rpc.protection`: `authentication` offers none, `integrity` the signed
//! layer, `privacy` the encrypted one; a list offers several); the client takes the strongest
//! it accepts (the URL's `qop`, `auth` by default) and answers with the wrapped choice. Under
//! `auth` the connection header follows and calls go as on a SIMPLE connection. Under
//! integrity or confidentiality every byte either way after that, the connection header
//! first, travels as a 4-byte length and a message wrapped by GSSAPI; unwrapped, the messages
//! make the same stream of frames as an unprotected connection (a message may hold several
//! frames, or part of one).
//!
//! A NameNode (HDFS's RPC, for a secure bulk load's delegation token) runs the same exchange
//! once more in its own framing ([`SaslCarrier`], the exchange [`KerberosTarget::sasl_exchange`]
//! shared by HBase's RPC), taking no security layer.
//!
//! Without the feature the types are here but no value of them can be made: a configuration
//! that asks for Kerberos is refused before a connection is opened (`Config::validate`).

// Built without the feature, only the refusals below use the target, and the handshake's
// constants are used by the tests alone; without the native backend, its exchange is unused,
// without a Thrift gateway the SASL transport's, without HTTP the SPNEGO tokens, and without
// `hdfs` the NameNode's target and layer.
#![cfg_attr(
    not(all(
        feature = "kerberos",
        feature = "native",
        any(feature = "thrift2", feature = "thrift1"),
        feature = "http",
        feature = "hdfs"
    )),
    allow(dead_code)
)]

use crate::model::{Error, KerberosMechanism, KerberosOptions, Qop, Result};

/// The server principal the client authenticates to (a gateway's, a region server's or
/// master's, a NameNode's), and what it accepts.
pub(crate) struct KerberosTarget {
    /// `service@host`, a GSSAPI host-based service name.
    principal: String,
    /// The server's `host:port` (or a description of it), for errors.
    address: String,
    /// The least protection accepted (SASL).
    qop: Qop,
}

impl KerberosTarget {
    /// The target for the server at `address` (`host:port`), whose tokens go by `mechanism`.
    pub(crate) fn new(
        options: &KerberosOptions,
        mechanism: KerberosMechanism,
        address: &str,
    ) -> Self {
        let dialed = address.rsplit_once(':').map_or(address, |(h, _)| h);
        let host = options.host.as_deref().unwrap_or(dialed);
        let host = host.trim_start_matches('[').trim_end_matches(']');
        KerberosTarget {
            principal: format!("{}@{host}", options.service_name(mechanism)),
            address: address.to_string(),
            qop: options.qop,
        }
    }

    /// The target for a service named by the server itself (`service@host`, as a Hadoop
    /// server's SASL offer names its protocol and host) at `address`, accepting any layer.
    pub(crate) fn service(service: &str, host: &str, address: &str) -> Self {
        KerberosTarget {
            principal: format!("{service}@{host}"),
            address: address.to_string(),
            qop: Qop::Auth,
        }
    }

    fn failed(&self, step: &'static str, message: impl std::fmt::Display) -> Error {
        Error::Kerberos {
            address: self.address.clone(),
            step,
            message: message.to_string(),
        }
    }
}

/// Handshake status bytes of Thrift's SASL transport.
const START: u8 = 1;
const OK: u8 = 2;
const BAD: u8 = 3;
const ERROR: u8 = 4;
const COMPLETE: u8 = 5;

/// RFC 4752's security layers.
const LAYER_NONE: u8 = 1;
const LAYER_INTEGRITY: u8 = 2;
const LAYER_CONFIDENTIALITY: u8 = 4;

/// The largest message the client takes under a security layer, as it tells the gateway (the
/// most three bytes hold; replies are bounded by the client's reply limit anyway).
const CLIENT_MAX_MESSAGE: u32 = 0x00FF_FFFF;

/// What an HBase server answers in place of a token's length when it is not secured.
const SWITCH_TO_SIMPLE: i32 = -88;

/// The largest handshake message read (a Kerberos ticket with a large PAC is a few KB).
const MAX_HANDSHAKE_MESSAGE: usize = 1 << 20;

/// The strongest layer among `offered` (a bit mask) that `qop` accepts, if any.
fn choose_layer(offered: u8, qop: Qop) -> Option<u8> {
    let acceptable: &[u8] = match qop {
        Qop::Auth => &[LAYER_CONFIDENTIALITY, LAYER_INTEGRITY, LAYER_NONE],
        Qop::AuthInt => &[LAYER_CONFIDENTIALITY, LAYER_INTEGRITY],
        Qop::AuthConf => &[LAYER_CONFIDENTIALITY],
    };
    acceptable.iter().copied().find(|l| offered & l != 0)
}

/// A `pick` for [`KerberosTarget::sasl_exchange`] that takes no security layer (authentication
/// only): for a protocol whose wrapped messages this client does not speak.
pub(crate) fn layer_none(offered: u8) -> std::result::Result<u8, String> {
    if offered & LAYER_NONE != 0 {
        Ok(LAYER_NONE)
    } else {
        Err("authentication alone (this client wraps no messages of this protocol)".into())
    }
}

/// The names of the layers in a bit mask, for errors.
fn layer_names(mask: u8) -> String {
    let names: Vec<&str> = [
        (LAYER_NONE, "auth"),
        (LAYER_INTEGRITY, "auth-int"),
        (LAYER_CONFIDENTIALITY, "auth-conf"),
    ]
    .iter()
    .filter(|(bit, _)| mask & bit != 0)
    .map(|(_, name)| *name)
    .collect();
    if names.is_empty() {
        "nothing".into()
    } else {
        names.join(", ")
    }
}

/// How a protocol carries the tokens of a SASL exchange (its framing): the client's out,
/// the server's in.
pub(crate) trait SaslCarrier {
    /// Sends the client's next token.
    async fn send(&mut self, token: &[u8]) -> Result<()>;
    /// The server's next token, or its refusal as an error.
    async fn receive(&mut self) -> Result<Vec<u8>>;
}

#[cfg(feature = "kerberos")]
mod gss {
    use base64::Engine as _;
    use libgssapi::context::{ClientCtx, CtxFlags, SecurityContext};
    use libgssapi::name::Name;
    use libgssapi::oid::{GSS_MECH_KRB5, GSS_MECH_SPNEGO, GSS_NT_HOSTBASED_SERVICE};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpStream;

    use super::*;

    impl KerberosTarget {
        /// A fresh SPNEGO token for one HTTP request, as the `Authorization` header's value.
        pub(crate) async fn negotiate(&self) -> Result<String> {
            let principal = self.principal.clone();
            // The first token of a principal asks the KDC for a service ticket: blocking I/O.
            let token = tokio::task::spawn_blocking(move || {
                let name = Name::new(principal.as_bytes(), Some(GSS_NT_HOSTBASED_SERVICE))?;
                // No mutual authentication asked: over HTTPS, TLS has authenticated the gateway.
                let mut ctx = ClientCtx::new(None, name, CtxFlags::empty(), Some(GSS_MECH_SPNEGO));
                ctx.step(None, None).map(|t| t.map(|t| t.to_vec()))
            })
            .await
            .map_err(|e| self.failed("making a SPNEGO token", e))?
            .map_err(|e| self.failed("making a SPNEGO token", e))?
            .ok_or_else(|| self.failed("making a SPNEGO token", "GSSAPI gave no token"))?;
            Ok(format!(
                "Negotiate {}",
                base64::engine::general_purpose::STANDARD.encode(token)
            ))
        }

        /// Runs the SASL GSSAPI handshake on a fresh connection and returns the security
        /// layer every later message goes through.
        pub(crate) async fn sasl_handshake(&self, stream: &mut TcpStream) -> Result<SaslLayer> {
            let (mut ctx, first) = self.start().await?;
            let io = |e: std::io::Error| self.failed("the SASL handshake", e);
            send(stream, START, b"GSSAPI").await.map_err(io)?;
            send(stream, OK, &first).await.map_err(io)?;
            while !ctx.is_complete() {
                let token = self.receive(stream).await?;
                let next = ctx
                    .step(Some(&token), None)
                    .map_err(|e| self.failed("authenticating the gateway", e))?;
                send(stream, OK, next.as_deref().unwrap_or_default())
                    .await
                    .map_err(io)?;
            }
            let offer = self.receive(stream).await?;
            let (layer, choice) = self.answer_offer(&mut ctx, &offer, |offered| {
                choose_layer(offered, self.qop).ok_or_else(|| {
                    format!(
                        "the gateway offers {} but at least {:?} is required",
                        layer_names(offered),
                        self.qop
                    )
                })
            })?;
            send(stream, COMPLETE, &choice).await.map_err(io)?;
            let (status, _) = receive_raw(stream).await.map_err(io)?;
            if status != COMPLETE {
                return Err(self.failed(
                    "the SASL handshake",
                    format!("the gateway ended it with status {status}"),
                ));
            }
            Ok(SaslLayer { ctx, layer })
        }

        /// Runs the SASL GSSAPI exchange of HBase's own RPC on a fresh connection to a region
        /// server or master, after its preamble, and returns the security layer the rest of
        /// the connection goes through; the connection header is the caller's.
        pub(crate) async fn hbase_rpc_sasl(&self, stream: &mut TcpStream) -> Result<SaslLayer> {
            let mut carrier = HBaseRpcCarrier {
                target: self,
                stream,
            };
            self.sasl_exchange(&mut carrier, "its hbase.rpc.protection", |offered| {
                choose_layer(offered, self.qop)
                    .ok_or_else(|| format!("at least {:?} (the URL's qop)", self.qop))
            })
            .await
        }

        /// Runs a SASL GSSAPI exchange whose tokens `carrier` carries (the client speaks
        /// first), and returns the security layer the rest of the connection goes through:
        /// `pick` chooses it from the layers the server offers (a bit mask of RFC 4752's) or
        /// says what it needs instead; `setting` names what sets the server's offer, for the
        /// error.
        pub(crate) async fn sasl_exchange(
            &self,
            carrier: &mut impl SaslCarrier,
            setting: &str,
            pick: impl FnOnce(u8) -> std::result::Result<u8, String>,
        ) -> Result<SaslLayer> {
            let (mut ctx, first) = self.start().await?;
            carrier.send(&first).await?;
            loop {
                let token = carrier.receive().await?;
                if !ctx.is_complete() {
                    let next = ctx
                        .step(Some(&token), None)
                        .map_err(|e| self.failed("authenticating the server", e))?;
                    carrier.send(next.as_deref().unwrap_or_default()).await?;
                    continue;
                }
                // The context is made: this is the server's offer of security layers.
                let (layer, choice) = self.answer_offer(&mut ctx, &token, |offered| {
                    pick(offered).map_err(|needed| {
                        format!(
                            "the server offers {} ({setting}) but {needed} is required",
                            layer_names(offered),
                        )
                    })
                })?;
                carrier.send(&choice).await?;
                return Ok(SaslLayer { ctx, layer });
            }
        }

        /// Answers a server's offer of security layers (RFC 4752: a wrapped 4 bytes, the layers
        /// as a bit mask and the largest message it takes, not enforced: HBase takes a call of
        /// any size in one message, and Thrift's SASL transport cannot split one): `pick`
        /// chooses the layer from the mask or says why none will do; the context must give
        /// what that layer promises. Returns the layer and the wrapped choice to send.
        fn answer_offer(
            &self,
            ctx: &mut ClientCtx,
            offer: &[u8],
            pick: impl FnOnce(u8) -> std::result::Result<u8, String>,
        ) -> Result<(u8, Vec<u8>)> {
            let offer = ctx
                .unwrap(offer)
                .map_err(|e| self.failed("reading the server's security layers", e))?;
            let &[offered, _, _, _] = &offer[..] else {
                return Err(self.failed(
                    "reading the server's security layers",
                    format!("an offer of {} bytes, not 4", offer.len()),
                ));
            };
            let layer =
                pick(offered).map_err(|why| self.failed("choosing a security layer", why))?;
            if layer != LAYER_NONE {
                // What the context really gives must be what the layer promises.
                let granted = ctx
                    .flags()
                    .map_err(|e| self.failed("checking the security context", e))?;
                let mut needed = CtxFlags::GSS_C_INTEG_FLAG
                    | CtxFlags::GSS_C_REPLAY_FLAG
                    | CtxFlags::GSS_C_SEQUENCE_FLAG;
                if layer == LAYER_CONFIDENTIALITY {
                    needed |= CtxFlags::GSS_C_CONF_FLAG;
                }
                if !granted.contains(needed) {
                    return Err(self.failed(
                        "checking the security context",
                        format!("the layer needs {needed:?}, the context gives {granted:?}"),
                    ));
                }
            }
            let max = if layer == LAYER_NONE {
                0
            } else {
                CLIENT_MAX_MESSAGE
            };
            let mut choice = max.to_be_bytes();
            choice[0] = layer;
            let choice = ctx
                .wrap(false, &choice)
                .map_err(|e| self.failed("choosing a security layer", e))?;
            Ok((layer, choice.to_vec()))
        }

        /// Starts a GSSAPI context for SASL (blocking: it may ask the KDC for a ticket) and
        /// returns it with its first token.
        async fn start(&self) -> Result<(ClientCtx, Vec<u8>)> {
            let principal = self.principal.clone();
            let step = "starting the GSSAPI context (are there credentials: kinit, or \
                        KRB5_CLIENT_KTNAME?)";
            tokio::task::spawn_blocking(move || {
                let name = Name::new(principal.as_bytes(), Some(GSS_NT_HOSTBASED_SERVICE))?;
                // Replay and sequence checks too: without them a message wrapped under
                // integrity or confidentiality could be sent again by someone on the path.
                let flags = CtxFlags::GSS_C_MUTUAL_FLAG
                    | CtxFlags::GSS_C_INTEG_FLAG
                    | CtxFlags::GSS_C_CONF_FLAG
                    | CtxFlags::GSS_C_REPLAY_FLAG
                    | CtxFlags::GSS_C_SEQUENCE_FLAG;
                let mut ctx = ClientCtx::new(None, name, flags, Some(GSS_MECH_KRB5));
                let first = ctx
                    .step(None, None)?
                    .map(|t| t.to_vec())
                    .unwrap_or_default();
                Ok::<_, libgssapi::error::Error>((ctx, first))
            })
            .await
            .map_err(|e| self.failed(step, e))?
            .map_err(|e| self.failed(step, e))
        }

        /// One handshake message from the gateway; a BAD or ERROR status is its refusal.
        async fn receive(&self, stream: &mut TcpStream) -> Result<Vec<u8>> {
            let (status, payload) = receive_raw(stream)
                .await
                .map_err(|e| self.failed("the SASL handshake", e))?;
            match status {
                OK | COMPLETE => Ok(payload),
                BAD | ERROR => Err(self.failed(
                    "the SASL handshake",
                    format!(
                        "the gateway refused: {}",
                        String::from_utf8_lossy(&payload)
                            .chars()
                            .take(300)
                            .collect::<String>()
                    ),
                )),
                other => Err(self.failed(
                    "the SASL handshake",
                    format!("status byte {other} is not SASL's: is this a SASL gateway?"),
                )),
            }
        }
    }

    /// HBase's own RPC: each token a 4-byte length and the token; each answer a 4-byte status,
    /// then a token the same way or an exception.
    struct HBaseRpcCarrier<'a> {
        /// The server authenticated to (for errors).
        target: &'a KerberosTarget,
        /// The connection, after HBase's preamble.
        stream: &'a mut TcpStream,
    }

    impl SaslCarrier for HBaseRpcCarrier<'_> {
        async fn send(&mut self, token: &[u8]) -> Result<()> {
            send_token(self.stream, token)
                .await
                .map_err(|e| self.target.failed("the SASL exchange", e))
        }

        /// One SASL answer of an HBase server: its token, or its refusal as an error.
        async fn receive(&mut self) -> Result<Vec<u8>> {
            let (target, stream) = (self.target, &mut *self.stream);
            let io = |e: std::io::Error| target.failed("the SASL exchange", e);
            let status = stream.read_i32().await.map_err(io)?;
            if status != 0 {
                // An exception's class and message, as Hadoop writes strings.
                let class = read_hadoop_string(stream).await.map_err(io)?;
                let message = read_hadoop_string(stream).await.map_err(io)?;
                return Err(target.failed(
                    "the SASL exchange",
                    format!("the server refused: {class}: {message}"),
                ));
            }
            let len = stream.read_i32().await.map_err(io)?;
            if len == SWITCH_TO_SIMPLE {
                return Err(target.failed(
                    "the SASL exchange",
                    "the server asks for SIMPLE authentication: it is not secured, connect \
                     without Kerberos",
                ));
            }
            let len = usize::try_from(len)
                .ok()
                .filter(|&n| n <= MAX_HANDSHAKE_MESSAGE)
                .ok_or_else(|| {
                    target.failed("the SASL exchange", format!("a token of {len} bytes"))
                })?;
            let mut token = vec![0u8; len];
            stream.read_exact(&mut token).await.map_err(io)?;
            Ok(token)
        }
    }

    /// Reads a string as Hadoop writes one (`WritableUtils.writeString`): a variable-length
    /// int (its byte count, -1 for none), then UTF-8.
    async fn read_hadoop_string(stream: &mut TcpStream) -> std::io::Result<String> {
        let first = stream.read_i8().await?;
        let len: i64 = if first >= -112 {
            i64::from(first)
        } else {
            // Hadoop's zero-compressed encoding: the first byte says how many follow and the
            // sign.
            let negative = first < -120;
            let count = if negative {
                -(i32::from(first) + 120)
            } else {
                -(i32::from(first) + 112)
            };
            let mut value: i64 = 0;
            for _ in 0..count {
                value = (value << 8) | i64::from(stream.read_u8().await?);
            }
            if negative {
                !value
            } else {
                value
            }
        };
        let len = usize::try_from(len).unwrap_or(0).min(MAX_HANDSHAKE_MESSAGE);
        let mut bytes = vec![0u8; len];
        stream.read_exact(&mut bytes).await?;
        Ok(String::from_utf8_lossy(&bytes).chars().take(300).collect())
    }

    /// Sends one token of HBase's RPC exchange: its length, then the token.
    async fn send_token(stream: &mut TcpStream, token: &[u8]) -> std::io::Result<()> {
        let mut out = Vec::with_capacity(4 + token.len());
        out.extend_from_slice(&(token.len() as u32).to_be_bytes());
        out.extend_from_slice(token);
        stream.write_all(&out).await
    }

    /// Sends one handshake message.
    async fn send(stream: &mut TcpStream, status: u8, payload: &[u8]) -> std::io::Result<()> {
        let len = u32::try_from(payload.len()).map_err(std::io::Error::other)?;
        let mut message = Vec::with_capacity(5 + payload.len());
        message.push(status);
        message.extend_from_slice(&len.to_be_bytes());
        message.extend_from_slice(payload);
        stream.write_all(&message).await
    }

    /// Reads one handshake message: its status and payload.
    async fn receive_raw(stream: &mut TcpStream) -> std::io::Result<(u8, Vec<u8>)> {
        let mut head = [0u8; 5];
        stream.read_exact(&mut head).await.map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                std::io::Error::new(
                    e.kind(),
                    "the gateway closed the connection: does it speak SASL (is its \
                     hbase.thrift.security.qop set)?",
                )
            } else {
                e
            }
        })?;
        let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
        if len > MAX_HANDSHAKE_MESSAGE {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("a handshake message of {len} bytes: not a SASL gateway?"),
            ));
        }
        let mut payload = vec![0u8; len];
        stream.read_exact(&mut payload).await?;
        Ok((head[0], payload))
    }

    /// The security layer a SASL connection's messages go through.
    pub(crate) struct SaslLayer {
        ctx: ClientCtx,
        layer: u8,
    }

    impl SaslLayer {
        /// Whether messages are wrapped (integrity or confidentiality), not sent as they are.
        pub(crate) fn protects(&self) -> bool {
            self.layer != LAYER_NONE
        }

        /// A message as it goes on the wire (without its length).
        pub(crate) fn wrap(&mut self, message: &[u8]) -> std::io::Result<Vec<u8>> {
            match self.layer {
                LAYER_NONE => Ok(message.to_vec()),
                layer => self
                    .ctx
                    .wrap(layer == LAYER_CONFIDENTIALITY, message)
                    .map(|b| b.to_vec())
                    .map_err(|e| std::io::Error::other(format!("GSSAPI wrap: {e}"))),
            }
        }

        /// A message as it came off the wire (without its length), unwrapped.
        pub(crate) fn unwrap(&mut self, message: &[u8]) -> std::io::Result<Vec<u8>> {
            match self.layer {
                LAYER_NONE => Ok(message.to_vec()),
                _ => self.ctx.unwrap(message).map(|b| b.to_vec()).map_err(|e| {
                    std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        format!("GSSAPI unwrap (a message changed on the way?): {e}"),
                    )
                }),
            }
        }
    }
}

// The gateways' (SASL over TCP) and HBase's own RPC's.
#[cfg(feature = "kerberos")]
#[cfg_attr(
    not(any(feature = "thrift2", feature = "thrift1", feature = "native")),
    allow(unused_imports)
)]
pub(crate) use gss::SaslLayer;

/// Without the feature: no layer can exist (see the module's documentation).
#[cfg(not(feature = "kerberos"))]
pub(crate) enum SaslLayer {}

#[cfg(not(feature = "kerberos"))]
impl SaslLayer {
    pub(crate) fn protects(&self) -> bool {
        match *self {}
    }

    pub(crate) fn wrap(&mut self, _: &[u8]) -> std::io::Result<Vec<u8>> {
        match *self {}
    }

    pub(crate) fn unwrap(&mut self, _: &[u8]) -> std::io::Result<Vec<u8>> {
        match *self {}
    }
}

#[cfg(not(feature = "kerberos"))]
impl KerberosTarget {
    /// Refused: the crate was built without Kerberos.
    pub(crate) async fn negotiate(&self) -> Result<String> {
        Err(self.failed(
            "making a SPNEGO token",
            "built without the feature `kerberos`",
        ))
    }

    /// Refused: the crate was built without Kerberos.
    pub(crate) async fn hbase_rpc_sasl(&self, _: &mut tokio::net::TcpStream) -> Result<SaslLayer> {
        Err(self.failed("the SASL exchange", "built without the feature `kerberos`"))
    }

    /// Refused: the crate was built without Kerberos.
    pub(crate) async fn sasl_exchange(
        &self,
        _: &mut impl SaslCarrier,
        _: &str,
        _: impl FnOnce(u8) -> std::result::Result<u8, String>,
    ) -> Result<SaslLayer> {
        Err(self.failed("the SASL exchange", "built without the feature `kerberos`"))
    }

    /// Refused: the crate was built without Kerberos.
    pub(crate) async fn sasl_handshake(&self, _: &mut tokio::net::TcpStream) -> Result<SaslLayer> {
        Err(self.failed("the SASL handshake", "built without the feature `kerberos`"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_strongest_acceptable_layer_is_chosen() {
        let all = LAYER_NONE | LAYER_INTEGRITY | LAYER_CONFIDENTIALITY;
        assert_eq!(choose_layer(all, Qop::Auth), Some(LAYER_CONFIDENTIALITY));
        assert_eq!(choose_layer(LAYER_NONE, Qop::Auth), Some(LAYER_NONE));
        assert_eq!(
            choose_layer(LAYER_INTEGRITY, Qop::Auth),
            Some(LAYER_INTEGRITY)
        );
        assert_eq!(choose_layer(LAYER_NONE, Qop::AuthInt), None);
        assert_eq!(choose_layer(LAYER_INTEGRITY, Qop::AuthConf), None);
        assert_eq!(layer_names(LAYER_NONE | LAYER_INTEGRITY), "auth, auth-int");
    }

    #[test]
    fn the_principal_is_the_service_at_the_host_dialed_or_named() {
        let options = KerberosOptions::default();
        let t = KerberosTarget::new(&options, KerberosMechanism::Sasl, "gw.example:9090");
        assert_eq!(t.principal, "hbase@gw.example");
        let t = KerberosTarget::new(&options, KerberosMechanism::Spnego, "[::1]:9090");
        assert_eq!(t.principal, "HTTP@::1");
        let named = KerberosOptions {
            host: Some("localhost".into()),
            service: Some("thrift".into()),
            ..options
        };
        let t = KerberosTarget::new(&named, KerberosMechanism::Sasl, "127.0.0.1:9291");
        assert_eq!(t.principal, "thrift@localhost");
    }
}
