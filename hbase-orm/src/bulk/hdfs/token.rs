//! A delegation token from a secured HDFS, for a load's files to be moved as the loading user.
//!
//! On a cluster whose filesystem is secured (Hadoop's `hadoop.security.authentication=kerberos`)
//! a region server moves a bulk load's files only as the user who loads them, and for that it
//! needs a delegation token of that user's for the filesystem, handed with the files; without
//! one it refuses the load ("User token cannot be null"). HBase's Java client asks the NameNode
//! for one; the HDFS client this crate writes the files with cannot, so this module does, over
//! Hadoop's own RPC, on a connection of its own:
//!
//! - the preamble `hrpc`, version 9, service class 0, and SASL (-33) as the authentication;
//! - SASL's negotiation as Hadoop frames it (each message an `RpcSaslProto` behind a request
//!   header of call id -33): the client's `NEGOTIATE`; the NameNode's answer is `SUCCESS` when
//!   it is not secured, or the mechanisms it takes: SIMPLE among them when it is not secured
//!   either (then no token is needed, and none is asked for), else `KERBEROS`/`GSSAPI` with
//!   its service's name and host (`hdfs`, `localhost`: its principal); the client's
//!   `INITIATE` with the first GSSAPI token, then `RESPONSE`s to the NameNode's `CHALLENGE`s
//!   until it says `SUCCESS`. The security layer is
//!   none (Hadoop's `hadoop.rpc.protection=authentication`); a NameNode that demands integrity
//!   or privacy is refused with an error saying so;
//! - the connection context (call id -3) naming the protocol `ClientProtocol`, then the calls
//!   `getDelegationToken` (the renewer `hbase`, the service that would renew it) and, when the
//!   load ends, `cancelDelegationToken`, each as a request header, a method header and the
//!   request, every part length-delimited, the whole behind a 4-byte length; the reply a
//!   response header (an error's class and message when it failed) and the response.
//!
//! The token's service is set to the NameNode's `ip:port`, as Hadoop's clients set it and look
//! it up. A NameNode given by a nameservice (HA, several NameNodes) is not resolved here.

use std::time::Duration;

use prost::Message;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::backend::fs_token::FsToken;
use crate::backend::kerberos::{self, KerberosTarget, SaslCarrier};
use crate::model::{Error, Result};

/// How long connecting and each exchange with the NameNode may take.
const TIMEOUT: Duration = Duration::from_secs(30);

/// The largest message read from the NameNode (a token is a few hundred bytes).
const MAX_MESSAGE: usize = 1 << 20;

/// HDFS's default NameNode RPC port, when the URL gives none.
const DEFAULT_PORT: u16 = 8020;

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
    #[prost(int32, optional, tag = "1")]
    rpc_kind: Option<i32>,
    #[prost(int32, optional, tag = "2")]
    rpc_op: Option<i32>,
    #[prost(sint32, required, tag = "3")]
    call_id: i32,
    #[prost(bytes = "vec", required, tag = "4")]
    client_id: Vec<u8>,
    #[prost(sint32, optional, tag = "5")]
    retry_count: Option<i32>,
}

/// Hadoop's `RpcResponseHeaderProto`.
#[derive(Clone, PartialEq, Message)]
struct RpcResponseHeader {
    #[prost(uint32, required, tag = "1")]
    call_id: u32,
    #[prost(int32, required, tag = "2")]
    status: i32,
    #[prost(string, optional, tag = "4")]
    exception_class_name: Option<String>,
    #[prost(string, optional, tag = "5")]
    error_msg: Option<String>,
}

/// Hadoop's `RpcSaslProto`.
#[derive(Clone, PartialEq, Message)]
struct RpcSasl {
    #[prost(int32, required, tag = "2")]
    state: i32,
    #[prost(bytes = "vec", optional, tag = "3")]
    token: Option<Vec<u8>>,
    #[prost(message, repeated, tag = "4")]
    auths: Vec<SaslAuth>,
}

/// `RpcSaslProto.SaslAuth`: a mechanism a server takes.
#[derive(Clone, PartialEq, Message)]
struct SaslAuth {
    #[prost(string, required, tag = "1")]
    method: String,
    #[prost(string, required, tag = "2")]
    mechanism: String,
    #[prost(string, optional, tag = "3")]
    protocol: Option<String>,
    #[prost(string, optional, tag = "4")]
    server_id: Option<String>,
}

/// Hadoop's `IpcConnectionContextProto` (no user: the SASL exchange established it).
#[derive(Clone, PartialEq, Message)]
struct ConnectionContext {
    #[prost(string, optional, tag = "3")]
    protocol: Option<String>,
}

/// `RequestHeaderProto` (ProtobufRpcEngine): the method called.
#[derive(Clone, PartialEq, Message)]
struct RequestHeader {
    #[prost(string, required, tag = "1")]
    method_name: String,
    #[prost(string, required, tag = "2")]
    declaring_class_protocol_name: String,
    #[prost(uint64, required, tag = "3")]
    client_protocol_version: u64,
}

/// `TokenProto` (Security.proto).
#[derive(Clone, PartialEq, Message)]
struct TokenProto {
    #[prost(bytes = "vec", required, tag = "1")]
    identifier: Vec<u8>,
    #[prost(bytes = "vec", required, tag = "2")]
    password: Vec<u8>,
    #[prost(string, required, tag = "3")]
    kind: String,
    #[prost(string, required, tag = "4")]
    service: String,
}

#[derive(Clone, PartialEq, Message)]
struct GetDelegationTokenRequest {
    #[prost(string, required, tag = "1")]
    renewer: String,
}

#[derive(Clone, PartialEq, Message)]
struct GetDelegationTokenResponse {
    #[prost(message, optional, tag = "1")]
    token: Option<TokenProto>,
}

#[derive(Clone, PartialEq, Message)]
struct CancelDelegationTokenRequest {
    #[prost(message, required, tag = "1")]
    token: TokenProto,
}

/// A delegation token of the current Kerberos user for the HDFS at `filesystem`
/// (`hdfs://host:port`), or `None` when that NameNode is not secured.
pub(super) async fn fetch(filesystem: &str) -> Result<Option<FsToken>> {
    let Some(mut rpc) = NameNode::connect(filesystem).await? else {
        return Ok(None);
    };
    let request = GetDelegationTokenRequest {
        renewer: RENEWER.into(),
    };
    let reply: GetDelegationTokenResponse = rpc.call("getDelegationToken", &request).await?;
    let token = reply.token.ok_or_else(|| {
        rpc.failed(
            "asking for a delegation token",
            "the NameNode gave none (is its delegation token secret manager running?)",
        )
    })?;
    Ok(Some(FsToken {
        identifier: token.identifier,
        password: token.password,
        kind: token.kind,
        service: rpc.service.clone(),
    }))
}

/// Cancels `token` at the HDFS at `filesystem`, the load being over.
pub(super) async fn cancel(filesystem: &str, token: &FsToken) -> Result<()> {
    let Some(mut rpc) = NameNode::connect(filesystem).await? else {
        return Ok(());
    };
    let request = CancelDelegationTokenRequest {
        token: TokenProto {
            identifier: token.identifier.clone(),
            password: token.password.clone(),
            kind: token.kind.clone(),
            service: token.service.clone(),
        },
    };
    let _: () = rpc.call_empty("cancelDelegationToken", &request).await?;
    Ok(())
}

/// An authenticated connection to a NameNode.
struct NameNode {
    stream: TcpStream,
    /// `hdfs://host:port`, for errors.
    filesystem: String,
    /// The NameNode's `ip:port`, the service of its tokens.
    service: String,
    client_id: Vec<u8>,
    next_call: i32,
}

impl NameNode {
    /// Connects and authenticates to the NameNode of `filesystem`; `None` when it is not
    /// secured (it answers SASL's negotiation with success).
    async fn connect(filesystem: &str) -> Result<Option<NameNode>> {
        let staging = |message: String| Error::Staging {
            location: filesystem.to_string(),
            message,
        };
        let authority = filesystem
            .split_once("://")
            .map_or(filesystem, |(_, rest)| rest)
            .split('/')
            .next()
            .unwrap_or_default();
        let address = if authority.rsplit_once(':').is_some_and(|(_, p)| {
            !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) && !authority.ends_with(']')
        }) {
            authority.to_string()
        } else {
            format!("{authority}:{DEFAULT_PORT}")
        };
        let resolved = tokio::time::timeout(TIMEOUT, tokio::net::lookup_host(&address))
            .await
            .map_err(|_| staging(format!("resolving {address} took over {TIMEOUT:?}")))?
            .map_err(|e| {
                staging(format!(
                    "resolving the NameNode {address} for a delegation token: {e} (a \
                     nameservice of several NameNodes is not resolved for secured loads: \
                     give the active NameNode's host:port)"
                ))
            })?
            .next()
            .ok_or_else(|| staging(format!("{address} resolves to no address")))?;
        let stream = tokio::time::timeout(TIMEOUT, TcpStream::connect(resolved))
            .await
            .map_err(|_| staging(format!("connecting to the NameNode {address} timed out")))?
            .map_err(|e| staging(format!("connecting to the NameNode {address}: {e}")))?;
        let _ = stream.set_nodelay(true);
        let mut rpc = NameNode {
            stream,
            filesystem: filesystem.to_string(),
            service: resolved.to_string(),
            client_id: client_id(),
            next_call: 0,
        };
        let authenticated = tokio::time::timeout(TIMEOUT, rpc.authenticate(&address))
            .await
            .map_err(|_| rpc.failed("authenticating", format!("no answer in {TIMEOUT:?}")))??;
        Ok(authenticated.then_some(rpc))
    }

    /// The preamble, SASL and the connection context; `false` if the NameNode is not secured.
    async fn authenticate(&mut self, address: &str) -> Result<bool> {
        let io = |e: std::io::Error| e.to_string();
        let mut preamble = b"hrpc".to_vec();
        preamble.extend_from_slice(&[9, 0, SASL_CALL as u8]);
        self.stream
            .write_all(&preamble)
            .await
            .map_err(|e| self.failed("sending the preamble", io(e)))?;
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
        let target = KerberosTarget::service(
            auth.protocol.as_deref().unwrap_or("hdfs"),
            auth.server_id.as_deref().unwrap_or("localhost"),
            address,
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
            .map_err(|e| self.failed("sending the connection context", io(e)))?;
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

    /// Calls `method`, whose response is empty.
    async fn call_empty(&mut self, method: &str, request: &impl Message) -> Result<()> {
        tokio::time::timeout(TIMEOUT, self.exchange(method, request))
            .await
            .map_err(|_| self.failed(method, format!("no answer in {TIMEOUT:?}")))??;
        Ok(())
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
                    "the NameNode refused: {}: {}",
                    header
                        .exception_class_name
                        .as_deref()
                        .unwrap_or("(no class)"),
                    first_line(header.error_msg.as_deref().unwrap_or("")),
                ),
            ));
        }
        Ok((header, rest.to_vec()))
    }

    async fn send_sasl(&mut self, message: &RpcSasl) -> Result<()> {
        let frame = self.frame(SASL_CALL, &[message]);
        self.stream
            .write_all(&frame)
            .await
            .map_err(|e| self.failed("negotiating SASL", e))
    }

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

    fn failed(&self, step: &str, message: impl std::fmt::Display) -> Error {
        Error::Staging {
            location: self.filesystem.clone(),
            message: format!("the NameNode's delegation token ({step}): {message}"),
        }
    }
}

/// SASL's tokens as Hadoop's RPC carries them: the first in `INITIATE` (with the mechanism
/// chosen), the others in `RESPONSE`s; the NameNode's in `CHALLENGE`s.
struct Carrier<'a> {
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
    fn an_answer_header_decodes_a_negative_call_id() {
        // Java writes call id -33 into the uint32 field as its two's complement.
        let header = RpcResponseHeader {
            call_id: SASL_CALL as u32,
            status: STATUS_SUCCESS,
            exception_class_name: None,
            error_msg: None,
        };
        let bytes = header.encode_length_delimited_to_vec();
        let back = RpcResponseHeader::decode_length_delimited(&bytes[..]).unwrap();
        assert_eq!(back.call_id, SASL_CALL as u32);
    }

    #[test]
    fn an_exception_is_cut_to_its_first_line_and_a_client_is_named_in_16_bytes() {
        let message =
            first_line("org.apache.hadoop.security.AccessControlException: denied\n\tat x");
        assert_eq!(
            message,
            "org.apache.hadoop.security.AccessControlException: denied"
        );
        assert_eq!(client_id().len(), 16);
    }
}
