//! A delegation token from a secured HDFS, for a load's files to be moved as the loading user.
//!
//! On a cluster whose filesystem is secured (Hadoop's `hadoop.security.authentication=kerberos`)
//! a region server moves a bulk load's files only as the user who loads them, and for that it
//! needs a delegation token of that user's for the filesystem, handed with the files; without
//! one it cannot act as that user in HDFS and the load fails. HBase's Java client asks the
//! NameNode for one; the HDFS client this crate writes the files with cannot, so this module
//! does, over Hadoop's own RPC, on a connection of its own, when the client configuration
//! says the HDFS is secured ([`super::config`]; otherwise no NameNode is dialed):
//!
//! - the preamble `hrpc`, version 9, service class 0, and SASL (-33) as the authentication;
//! - SASL's negotiation as Hadoop frames it (each message an `RpcSaslProto` behind a request
//!   header of call id -33): the client's `NEGOTIATE`; the NameNode's answer is `SUCCESS` when
//!   it is not secured, or the mechanisms it takes: SIMPLE among them when it is not secured
//!   either (then no token is asked for), else `KERBEROS`/`GSSAPI`; the client authenticates
//!   to the principal of the configuration's `dfs.namenode.kerberos.principal` (`_HOST` the
//!   host dialed), or, without one, to the one the NameNode names in its offer; its
//!   `INITIATE` with the first GSSAPI token, then `RESPONSE`s to the NameNode's `CHALLENGE`s
//!   until it says `SUCCESS`. The security layer is none (Hadoop's
//!   `hadoop.rpc.protection=authentication`); a NameNode that demands integrity or privacy is
//!   refused with an error saying so;
//! - the connection context (call id -3) naming the protocol `ClientProtocol`, then the calls
//!   `getDelegationToken` (the renewer `hbase`, the service that would renew it) and, when the
//!   load ends, `cancelDelegationToken`, each as a request header, a method header and the
//!   request, every part length-delimited, the whole behind a 4-byte length; the reply a
//!   response header (an error's class and message when it failed) and the response.
//!
//! The token's service is what Hadoop's clients look it up by: the NameNode's `ip:port` (its
//! addresses tried IPv4 first), or `ha-hdfs:<nameservice>` for a nameservice of several
//! NameNodes, tried in turn (a standby refuses the call).

use std::time::Duration;

use prost::Message;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::config::{host_of, principal_at, HadoopConf, NameNodes};
use crate::backend::fs_token::FsToken;
use crate::backend::kerberos::{self, KerberosTarget, SaslCarrier};
use crate::model::{Error, Result};

/// How long connecting and each exchange with the NameNode may take.
const TIMEOUT: Duration = Duration::from_secs(30);

/// The largest message read from the NameNode (a token is a few hundred bytes).
const MAX_MESSAGE: usize = 1 << 20;

/// Who may renew the token: the region servers' user, by HBase's convention.
const RENEWER: &str = "hbase";

/// The protocol the calls belong to.
const PROTOCOL: &str = "org.apache.hadoop.hdfs.protocol.ClientProtocol";

/// Hadoop's call ids for the SASL messages and the connection context.
const SASL_CALL: i32 = -33;
const CONTEXT_CALL: i32 = -3;

/// `RpcKindProto.RPC_PROTOCOL_BUFFER`; `RpcResponseHeaderProto.status` SUCCESS.
const RPC_PROTOCOL_BUFFER: i32 = 2;
const STATUS_SUCCESS: i32 = 0;

/// `RpcSaslProto.SaslState` (those this client sends or expects).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum SaslState {
    Success = 0,
    Negotiate = 1,
    Initiate = 2,
    Challenge = 3,
    Response = 4,
}

/// Hadoop's `RpcRequestHeaderProto` (RpcHeader.proto).
#[derive(Clone, PartialEq, Message)]
struct RpcRequestHeader {
    /// The serialization (protobuf).
    #[prost(int32, optional, tag = "1")]
    rpc_kind: Option<i32>,
    /// `RPC_FINAL_PACKET`.
    #[prost(int32, optional, tag = "2")]
    rpc_op: Option<i32>,
    /// The call's id: the SASL and context messages' negative ones, then 0, 1, ...
    #[prost(sint32, required, tag = "3")]
    call_id: i32,
    /// The client's 16 bytes (none on the SASL and context messages).
    #[prost(bytes = "vec", required, tag = "4")]
    client_id: Vec<u8>,
    /// -1: not a retry.
    #[prost(sint32, optional, tag = "5")]
    retry_count: Option<i32>,
}

/// Hadoop's `RpcResponseHeaderProto`.
#[derive(Clone, PartialEq, Message)]
struct RpcResponseHeader {
    /// The id of the call answered (a negative one as its two's complement).
    #[prost(uint32, required, tag = "1")]
    call_id: u32,
    /// SUCCESS 0, ERROR 1, FATAL 2.
    #[prost(int32, required, tag = "2")]
    status: i32,
    /// The refusal's Java class.
    #[prost(string, optional, tag = "4")]
    exception_class_name: Option<String>,
    /// Its message (and stack).
    #[prost(string, optional, tag = "5")]
    error_msg: Option<String>,
}

/// Hadoop's `RpcSaslProto`.
#[derive(Clone, PartialEq, Message)]
struct RpcSasl {
    /// The step ([`SaslState`]).
    #[prost(int32, required, tag = "2")]
    state: i32,
    /// The mechanism's token.
    #[prost(bytes = "vec", optional, tag = "3")]
    token: Option<Vec<u8>>,
    /// The mechanisms offered (the server's `NEGOTIATE`) or chosen (`INITIATE`).
    #[prost(message, repeated, tag = "4")]
    auths: Vec<SaslAuth>,
}

/// `RpcSaslProto.SaslAuth`: a mechanism a server takes.
#[derive(Clone, PartialEq, Message)]
struct SaslAuth {
    /// Hadoop's name of the method (`KERBEROS`, `TOKEN`, `SIMPLE`).
    #[prost(string, required, tag = "1")]
    method: String,
    /// SASL's name of the mechanism (`GSSAPI`, `DIGEST-MD5`).
    #[prost(string, required, tag = "2")]
    mechanism: String,
    /// The server principal's service (`hdfs`).
    #[prost(string, optional, tag = "3")]
    protocol: Option<String>,
    /// The server principal's host.
    #[prost(string, optional, tag = "4")]
    server_id: Option<String>,
}

/// Hadoop's `IpcConnectionContextProto` (no user: the SASL exchange established it).
#[derive(Clone, PartialEq, Message)]
struct ConnectionContext {
    /// The protocol the connection's calls belong to.
    #[prost(string, optional, tag = "3")]
    protocol: Option<String>,
}

/// `RequestHeaderProto` (ProtobufRpcEngine): the method called.
#[derive(Clone, PartialEq, Message)]
struct RequestHeader {
    /// The method called.
    #[prost(string, required, tag = "1")]
    method_name: String,
    /// The protocol it belongs to.
    #[prost(string, required, tag = "2")]
    declaring_class_protocol_name: String,
    /// The protocol's version (1).
    #[prost(uint64, required, tag = "3")]
    client_protocol_version: u64,
}

/// `TokenProto` (Security.proto).
#[derive(Clone, PartialEq, Message)]
struct TokenProto {
    /// The token's identifier.
    #[prost(bytes = "vec", required, tag = "1")]
    identifier: Vec<u8>,
    /// Its secret.
    #[prost(bytes = "vec", required, tag = "2")]
    password: Vec<u8>,
    /// Its kind (`HDFS_DELEGATION_TOKEN`).
    #[prost(string, required, tag = "3")]
    kind: String,
    /// The filesystem it is for.
    #[prost(string, required, tag = "4")]
    service: String,
}

/// `GetDelegationTokenRequestProto`: who may renew the token.
#[derive(Clone, PartialEq, Message)]
struct GetDelegationTokenRequest {
    /// Who may renew the token.
    #[prost(string, required, tag = "1")]
    renewer: String,
}

/// `GetDelegationTokenResponseProto`: the token, when the NameNode issues them.
#[derive(Clone, PartialEq, Message)]
struct GetDelegationTokenResponse {
    /// The token, when the NameNode issues them.
    #[prost(message, optional, tag = "1")]
    token: Option<TokenProto>,
}

/// `CancelDelegationTokenRequestProto`: the token to cancel.
#[derive(Clone, PartialEq, Message)]
struct CancelDelegationTokenRequest {
    /// The token to cancel.
    #[prost(message, required, tag = "1")]
    token: TokenProto,
}

/// `CancelDelegationTokenResponseProto`: nothing.
#[derive(Clone, PartialEq, Message)]
struct CancelDelegationTokenResponse {}

/// Where a secured filesystem's delegation tokens come from: its NameNodes (those of its
/// nameservice, tried in turn: a standby refuses), their principal, and the service tokens
/// are looked up by.
#[derive(Debug)]
pub(super) struct TokenSource {
    /// `hdfs://authority`, for errors.
    filesystem: String,
    namenodes: NameNodes,
    /// The NameNodes' principal as the configuration gives it (service and host, `_HOST` for
    /// each NameNode's own), else the one a NameNode names in its offer.
    principal: Option<(String, String)>,
}

impl TokenSource {
    /// The source of the HDFS `filesystem` (`hdfs://authority`), or `None` when the
    /// configuration does not say it is secured with Kerberos (then no token is needed, and
    /// no NameNode is dialed for one).
    pub(super) fn of(filesystem: &str, conf: &HadoopConf) -> Option<TokenSource> {
        if !conf.kerberos() {
            return None;
        }
        let authority = filesystem
            .split_once("://")
            .map_or(filesystem, |(_, rest)| rest)
            .split('/')
            .next()
            .unwrap_or_default();
        Some(TokenSource {
            filesystem: filesystem.to_string(),
            namenodes: conf.namenodes(authority),
            principal: conf.namenode_principal(),
        })
    }

    /// A delegation token of the current Kerberos user, from the first NameNode that gives
    /// one; `None` when the NameNode is not secured after all.
    pub(super) async fn fetch(&self) -> Result<Option<FsToken>> {
        let request = GetDelegationTokenRequest {
            renewer: RENEWER.into(),
        };
        let mut refusals = Vec::new();
        for address in &self.namenodes.addresses {
            let mut rpc = match self.connect(address).await {
                Ok(Some(rpc)) => rpc,
                Ok(None) => return Ok(None),
                Err(e) => {
                    refusals.push(e.to_string());
                    continue;
                }
            };
            let reply: GetDelegationTokenResponse =
                match rpc.call("getDelegationToken", &request).await {
                    Ok(reply) => reply,
                    Err(e) => {
                        refusals.push(e.to_string());
                        continue;
                    }
                };
            let token = reply.token.ok_or_else(|| {
                rpc.failed(
                    "asking for a delegation token",
                    "the NameNode gave none (is its delegation token secret manager running?)",
                )
            })?;
            return Ok(Some(FsToken {
                identifier: token.identifier,
                password: token.password,
                kind: token.kind,
                service: rpc.service.clone(),
            }));
        }
        Err(Error::Staging {
            location: self.filesystem.clone(),
            message: format!(
                "no NameNode gave a delegation token: {}",
                refusals.join("; ")
            ),
        })
    }

    /// Cancels `token`, the load being over (at the first NameNode that takes the call).
    pub(super) async fn cancel(&self, token: &FsToken) -> Result<()> {
        let request = CancelDelegationTokenRequest {
            token: TokenProto {
                identifier: token.identifier.clone(),
                password: token.password.clone(),
                kind: token.kind.clone(),
                service: token.service.clone(),
            },
        };
        let mut last = None;
        for address in &self.namenodes.addresses {
            let outcome = match self.connect(address).await {
                Ok(Some(mut rpc)) => rpc
                    .call::<CancelDelegationTokenResponse>("cancelDelegationToken", &request)
                    .await
                    .map(drop),
                Ok(None) => return Ok(()),
                Err(e) => Err(e),
            };
            match outcome {
                Ok(()) => return Ok(()),
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| Error::Staging {
            location: self.filesystem.clone(),
            message: "no NameNode to cancel the delegation token at".into(),
        }))
    }

    /// Connects and authenticates to the NameNode at `address` (`host:port`; its addresses
    /// tried in turn, IPv4 first as Java's clients prefer); `None` when it is not secured (it
    /// answers SASL's negotiation with success, or takes SIMPLE).
    async fn connect(&self, address: &str) -> Result<Option<NameNode>> {
        let staging = |message: String| Error::Staging {
            location: self.filesystem.clone(),
            message: format!("the NameNode {address}: {message}"),
        };
        let mut resolved: Vec<std::net::SocketAddr> =
            tokio::time::timeout(TIMEOUT, tokio::net::lookup_host(address))
                .await
                .map_err(|_| staging(format!("resolving it took over {TIMEOUT:?}")))?
                .map_err(|e| staging(format!("resolving it: {e}")))?
                .collect();
        resolved.sort_by_key(|a| !a.is_ipv4());
        let mut failures = Vec::new();
        let mut connected = None;
        for at in resolved {
            match tokio::time::timeout(TIMEOUT, TcpStream::connect(at)).await {
                Ok(Ok(stream)) => {
                    connected = Some((stream, at));
                    break;
                }
                Ok(Err(e)) => failures.push(format!("{at}: {e}")),
                Err(_) => failures.push(format!("{at}: timed out")),
            }
        }
        let Some((stream, at)) = connected else {
            return Err(staging(format!(
                "could not connect ({})",
                if failures.is_empty() {
                    "no address".to_string()
                } else {
                    failures.join(", ")
                }
            )));
        };
        let _ = stream.set_nodelay(true);
        let mut rpc = NameNode {
            stream,
            filesystem: self.filesystem.clone(),
            address: address.to_string(),
            service: self
                .namenodes
                .service
                .clone()
                .unwrap_or_else(|| hadoop_service(at)),
            client_id: client_id(),
            next_call: 0,
        };
        let dialed = host_of(address);
        let principal = self.principal.as_ref().map(|p| principal_at(p, dialed));
        let authenticated = tokio::time::timeout(TIMEOUT, rpc.authenticate(principal, dialed))
            .await
            .map_err(|_| rpc.failed("authenticating", format!("no answer in {TIMEOUT:?}")))??;
        Ok(authenticated.then_some(rpc))
    }
}

/// An authenticated connection to a NameNode.
struct NameNode {
    stream: TcpStream,
    /// `hdfs://authority`, for errors.
    filesystem: String,
    /// The NameNode's `host:port`, for errors.
    address: String,
    /// The service of the tokens it gives: its `ip:port`, or its nameservice's.
    service: String,
    /// 16 bytes naming this client in every call (the NameNode's retry cache's key).
    client_id: Vec<u8>,
    /// The id of the next call.
    next_call: i32,
}

impl NameNode {
    /// The preamble, SASL as `principal` says (else as the NameNode's offer names itself) and
    /// the connection context; `false` if the NameNode is not secured.
    async fn authenticate(
        &mut self,
        principal: Option<(String, String)>,
        dialed: &str,
    ) -> Result<bool> {
        let mut preamble = b"hrpc".to_vec();
        preamble.extend_from_slice(&[9, 0, SASL_CALL as u8]);
        self.stream
            .write_all(&preamble)
            .await
            .map_err(|e| self.failed("sending the preamble", e))?;
        self.send_sasl(&RpcSasl {
            state: SaslState::Negotiate as i32,
            token: None,
            auths: Vec::new(),
        })
        .await?;
        let offer = self.receive_sasl().await?;
        // Not secured: success at once, or SIMPLE among what it takes (beside its own tokens).
        if offer.state == SaslState::Success as i32
            || offer.auths.iter().any(|a| a.method == "SIMPLE")
        {
            return Ok(false);
        }
        let auth = offer
            .auths
            .into_iter()
            .find(|a| a.method == "KERBEROS" && a.mechanism == "GSSAPI")
            .ok_or_else(|| {
                self.failed(
                    "negotiating SASL",
                    "the NameNode takes no Kerberos (GSSAPI) authentication",
                )
            })?;
        let (service, host) = match (principal, &auth.protocol, &auth.server_id) {
            (Some(principal), _, _) => principal,
            (None, Some(service), Some(host)) => (service.clone(), host.clone()),
            _ => {
                return Err(self.failed(
                    "negotiating SASL",
                    format!(
                        "the NameNode at {dialed} names no principal and the configuration \
                         has no dfs.namenode.kerberos.principal"
                    ),
                ))
            }
        };
        let target = KerberosTarget::service(
            &service,
            &host,
            &format!("the NameNode {} of {}", self.address, self.filesystem),
        );
        let mut carrier = Carrier {
            rpc: self,
            auth: Some(auth),
        };
        target
            .sasl_exchange(
                &mut carrier,
                "its hadoop.rpc.protection",
                kerberos::layer_none,
            )
            .await?;
        let end = self.receive_sasl().await?;
        if end.state != SaslState::Success as i32 {
            return Err(self.failed(
                "negotiating SASL",
                format!("the NameNode ended it with state {}", end.state),
            ));
        }
        let context = ConnectionContext {
            protocol: Some(PROTOCOL.into()),
        };
        let frame = self.frame(CONTEXT_CALL, &[&context]);
        self.stream
            .write_all(&frame)
            .await
            .map_err(|e| self.failed("sending the connection context", e))?;
        Ok(true)
    }

    /// Calls `method` and decodes its response.
    async fn call<R: Message + Default>(
        &mut self,
        method: &str,
        request: &impl Message,
    ) -> Result<R> {
        let body = tokio::time::timeout(TIMEOUT, self.exchange(method, request))
            .await
            .map_err(|_| self.failed(method, format!("no answer in {TIMEOUT:?}")))??;
        R::decode_length_delimited(&body[..])
            .map_err(|e| self.failed(method, format!("an answer that does not decode: {e}")))
    }

    /// Sends one call and returns what follows the reply's header.
    async fn exchange(&mut self, method: &str, request: &impl Message) -> Result<Vec<u8>> {
        let call = self.next_call;
        self.next_call += 1;
        let header = RequestHeader {
            method_name: method.into(),
            declaring_class_protocol_name: PROTOCOL.into(),
            client_protocol_version: 1,
        };
        let frame = self.frame(call, &[&header, request]);
        self.stream
            .write_all(&frame)
            .await
            .map_err(|e| self.failed(method, e))?;
        let (reply, rest) = self.receive(method).await?;
        if reply.call_id != call as u32 {
            return Err(self.failed(
                method,
                format!("an answer to call {} for call {call}", reply.call_id),
            ));
        }
        Ok(rest)
    }

    /// A request of call `call`: see [`frame`].
    fn frame(&self, call: i32, parts: &[&dyn ErasedMessage]) -> Vec<u8> {
        frame(call, &self.client_id, parts)
    }

    /// One reply: its header (an error when it says the call failed) and what follows it.
    async fn receive(&mut self, what: &str) -> Result<(RpcResponseHeader, Vec<u8>)> {
        let len = self
            .stream
            .read_u32()
            .await
            .map_err(|e| self.failed(what, format!("reading the answer: {e}")))?
            as usize;
        if len > MAX_MESSAGE {
            return Err(self.failed(what, format!("an answer of {len} bytes")));
        }
        let mut bytes = vec![0u8; len];
        self.stream
            .read_exact(&mut bytes)
            .await
            .map_err(|e| self.failed(what, format!("reading the answer: {e}")))?;
        let mut rest = &bytes[..];
        let header = RpcResponseHeader::decode_length_delimited(&mut rest)
            .map_err(|e| self.failed(what, format!("an answer that does not decode: {e}")))?;
        if header.status != STATUS_SUCCESS {
            return Err(self.failed(
                what,
                format!(
                    "the NameNode refused: {}",
                    refusal(
                        header.exception_class_name.as_deref(),
                        header.error_msg.as_deref()
                    )
                ),
            ));
        }
        Ok((header, rest.to_vec()))
    }

    /// Sends a SASL message (call id -33).
    async fn send_sasl(&mut self, message: &RpcSasl) -> Result<()> {
        let frame = self.frame(SASL_CALL, &[message]);
        self.stream
            .write_all(&frame)
            .await
            .map_err(|e| self.failed("negotiating SASL", e))
    }

    /// Reads a SASL message: an answer to call id -33.
    async fn receive_sasl(&mut self) -> Result<RpcSasl> {
        let (header, rest) = self.receive("negotiating SASL").await?;
        if header.call_id != SASL_CALL as u32 {
            return Err(self.failed(
                "negotiating SASL",
                format!("an answer to call {} in SASL's place", header.call_id),
            ));
        }
        RpcSasl::decode_length_delimited(&rest[..]).map_err(|e| {
            self.failed(
                "negotiating SASL",
                format!("a message that does not decode: {e}"),
            )
        })
    }

    /// An error of `step` with this NameNode, naming it and the filesystem.
    fn failed(&self, step: &str, message: impl std::fmt::Display) -> Error {
        Error::Staging {
            location: self.filesystem.clone(),
            message: format!(
                "the NameNode {}, for a delegation token ({step}): {message}",
                self.address
            ),
        }
    }
}

/// SASL's tokens as Hadoop's RPC carries them: the first in `INITIATE` (with the mechanism
/// chosen), the others in `RESPONSE`s; the NameNode's in `CHALLENGE`s.
struct Carrier<'a> {
    /// The connection the exchange runs on.
    rpc: &'a mut NameNode,
    /// The mechanism, until the first token is sent.
    auth: Option<SaslAuth>,
}

impl SaslCarrier for Carrier<'_> {
    async fn send(&mut self, token: &[u8]) -> Result<()> {
        let (state, auths) = match self.auth.take() {
            Some(auth) => (SaslState::Initiate as i32, vec![auth]),
            None => (SaslState::Response as i32, Vec::new()),
        };
        self.rpc
            .send_sasl(&RpcSasl {
                state,
                token: Some(token.to_vec()),
                auths,
            })
            .await
    }

    async fn receive(&mut self) -> Result<Vec<u8>> {
        let message = self.rpc.receive_sasl().await?;
        if message.state != SaslState::Challenge as i32 {
            return Err(self.rpc.failed(
                "negotiating SASL",
                format!("state {} where a challenge was expected", message.state),
            ));
        }
        Ok(message.token.unwrap_or_default())
    }
}

/// A request of call `call` (the SASL and context calls, negative, name no client): its
/// header and `parts`, each length-delimited, behind the whole's 4-byte length.
fn frame(call: i32, client_id: &[u8], parts: &[&dyn ErasedMessage]) -> Vec<u8> {
    let header = RpcRequestHeader {
        rpc_kind: Some(RPC_PROTOCOL_BUFFER),
        rpc_op: Some(0),
        call_id: call,
        client_id: if call < 0 {
            Vec::new()
        } else {
            client_id.to_vec()
        },
        retry_count: Some(-1),
    };
    let mut body = header.encode_length_delimited_to_vec();
    for part in parts {
        body.extend_from_slice(&part.delimited());
    }
    let mut frame = (body.len() as u32).to_be_bytes().to_vec();
    frame.extend_from_slice(&body);
    frame
}

/// A message encoded length-delimited, whatever its type.
trait ErasedMessage {
    /// The message, length-delimited.
    fn delimited(&self) -> Vec<u8>;
}

impl<M: Message> ErasedMessage for M {
    fn delimited(&self) -> Vec<u8> {
        self.encode_length_delimited_to_vec()
    }
}

/// 16 bytes naming this client to the NameNode (its retry cache's key): this process and the
/// time.
fn client_id() -> Vec<u8> {
    use md5::Digest;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let mut hash = md5::Md5::new();
    hash.update(std::process::id().to_be_bytes());
    hash.update(now.as_nanos().to_be_bytes());
    hash.finalize().to_vec()
}

/// A token's service for the NameNode at `at`, as Hadoop writes an address: `ip:port`, an
/// IPv6 address in full (`0:0:0:0:0:0:0:1:8020`).
fn hadoop_service(at: std::net::SocketAddr) -> String {
    match at.ip() {
        std::net::IpAddr::V4(ip) => format!("{ip}:{}", at.port()),
        std::net::IpAddr::V6(ip) => {
            let segments: Vec<String> = ip.segments().iter().map(|s| format!("{s:x}")).collect();
            format!("{}:{}", segments.join(":"), at.port())
        }
    }
}

/// A refusal's words: the exception's class and the first line of its message (which may
/// start with the class itself, then a stack).
fn refusal(class: Option<&str>, message: Option<&str>) -> String {
    let line = first_line(message.unwrap_or(""));
    match class {
        Some(class) => {
            let rest = line
                .strip_prefix(class)
                .and_then(|r| r.strip_prefix(": "))
                .unwrap_or(&line);
            format!("{class}: {rest}")
        }
        None => line,
    }
}

/// The first line of a Java exception's message (the rest is its stack).
fn first_line(message: &str) -> String {
    message
        .lines()
        .next()
        .unwrap_or("")
        .chars()
        .take(300)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sasl_negotiation_is_framed_as_hadoop_frames_it() {
        let negotiate = RpcSasl {
            state: SaslState::Negotiate as i32,
            token: None,
            auths: Vec::new(),
        };
        // 14 bytes: the header (RPC_PROTOCOL_BUFFER, final packet, call id -33 zigzag-encoded
        // as 65, no client id, retry count -1 as 1), then the state NEGOTIATE
        assert_eq!(
            frame(SASL_CALL, b"0123456789abcdef", &[&negotiate]),
            [0, 0, 0, 14, 10, 0x08, 2, 0x10, 0, 0x18, 65, 0x22, 0, 0x28, 1, 2, 0x10, 1]
        );
        // a call names the client
        let call = frame(0, b"0123456789abcdef", &[&negotiate]);
        assert!(call.windows(16).any(|w| w == b"0123456789abcdef"));
    }

    #[test]
    fn java_s_answer_header_decodes_with_its_negative_call_id() {
        // As Java writes a SASL answer's header: call id -33 as an unsigned 32-bit varint,
        // status SUCCESS, server IPC version 9.
        let bytes = [
            10, 0x08, 0xDF, 0xFF, 0xFF, 0xFF, 0x0F, 0x10, 0x00, 0x18, 0x09,
        ];
        let header = RpcResponseHeader::decode_length_delimited(&bytes[..]).unwrap();
        assert_eq!(header.call_id, SASL_CALL as u32);
        assert_eq!(header.status, STATUS_SUCCESS);
    }

    #[test]
    fn a_refusal_names_its_class_once_and_a_client_is_named_in_16_bytes() {
        let class = "org.apache.hadoop.security.AccessControlException";
        let message = format!("{class}: denied\n\tat x");
        assert_eq!(
            refusal(Some(class), Some(&message)),
            format!("{class}: denied")
        );
        assert_eq!(
            refusal(Some(class), Some("denied")),
            format!("{class}: denied")
        );
        assert_eq!(client_id().len(), 16);
        let v6: std::net::SocketAddr = "[::1]:8020".parse().unwrap();
        assert_eq!(hadoop_service(v6), "0:0:0:0:0:0:0:1:8020");
    }

    /// A NameNode that reads the preamble and the client's first message on one connection,
    /// answers `reply` and closes.
    async fn fake_namenode(reply: Vec<u8>) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap().to_string();
        tokio::spawn(async move {
            let (mut stream, _) = listener.accept().await.unwrap();
            let mut preamble = [0u8; 7];
            stream.read_exact(&mut preamble).await.unwrap();
            assert_eq!(&preamble, b"hrpc\x09\x00\xdf");
            let len = stream.read_u32().await.unwrap() as usize;
            let mut message = vec![0u8; len];
            stream.read_exact(&mut message).await.unwrap();
            stream.write_all(&reply).await.unwrap();
        });
        address
    }

    fn source(address: String) -> TokenSource {
        TokenSource {
            filesystem: "hdfs://fake".into(),
            namenodes: NameNodes {
                addresses: vec![address],
                service: None,
            },
            principal: None,
        }
    }

    /// A SASL answer: its header (status `status`) and, on success, `sasl`.
    fn sasl_answer(status: i32, class: Option<&str>, sasl: Option<RpcSasl>) -> Vec<u8> {
        let header = RpcResponseHeader {
            call_id: SASL_CALL as u32,
            status,
            exception_class_name: class.map(Into::into),
            error_msg: class.map(|c| format!("{c}: no such thing\n\tat Server.java")),
        };
        let mut body = header.encode_length_delimited_to_vec();
        if let Some(sasl) = sasl {
            body.extend(sasl.encode_length_delimited_to_vec());
        }
        let mut out = (body.len() as u32).to_be_bytes().to_vec();
        out.extend(body);
        out
    }

    fn auth(method: &str, mechanism: &str) -> SaslAuth {
        SaslAuth {
            method: method.into(),
            mechanism: mechanism.into(),
            protocol: Some("hdfs".into()),
            server_id: Some("localhost".into()),
        }
    }

    #[tokio::test]
    async fn an_unsecured_namenode_is_asked_for_no_token() {
        let success = RpcSasl {
            state: SaslState::Success as i32,
            token: None,
            auths: Vec::new(),
        };
        let address = fake_namenode(sasl_answer(0, None, Some(success))).await;
        assert_eq!(source(address).fetch().await.unwrap(), None);
        let simple = RpcSasl {
            state: SaslState::Negotiate as i32,
            token: None,
            auths: vec![auth("TOKEN", "DIGEST-MD5"), auth("SIMPLE", "")],
        };
        let address = fake_namenode(sasl_answer(0, None, Some(simple))).await;
        assert_eq!(source(address).fetch().await.unwrap(), None);
    }

    #[tokio::test]
    async fn a_namenode_s_bad_answers_are_errors_that_name_it() {
        let fatal = sasl_answer(2, Some("org.apache.hadoop.ipc.RpcServerException"), None);
        let tokens_only = sasl_answer(
            0,
            None,
            Some(RpcSasl {
                state: SaslState::Negotiate as i32,
                token: None,
                auths: vec![auth("TOKEN", "DIGEST-MD5")],
            }),
        );
        let mut cut = 100u32.to_be_bytes().to_vec();
        cut.extend([1, 2, 3]);
        let cases: [(Vec<u8>, &str); 4] = [
            (fatal, "RpcServerException: no such thing"),
            (tokens_only, "takes no Kerberos"),
            (vec![0xFF; 4], "bytes"),
            (cut, "reading the answer"),
        ];
        for (reply, expected) in cases {
            let address = fake_namenode(reply).await;
            let error = source(address.clone()).fetch().await.unwrap_err();
            let shown = error.to_string();
            assert!(matches!(error, Error::Staging { .. }), "{shown}");
            assert!(shown.contains(expected), "{expected}: {shown}");
            assert!(
                shown.contains(&address) && shown.contains("hdfs://fake"),
                "{shown}"
            );
            assert!(shown.matches("RpcServerException").count() <= 1, "{shown}");
        }
    }
}
