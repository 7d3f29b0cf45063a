//! What HBase's two Thrift gateways share: a connection carrying one call at a time
//! ([`connection`]: a TCP socket, or HTTP/1.1 ([`http`]), over TLS ([`tls`]) or not, with
//! Kerberos ([`crate::backend::kerberos`]) or not),
//! finding the end of an unframed reply ([`probe`]), reading a reply with
//! every length checked ([`checked`]), and a pool of connections with timeouts ([`pool`]). A
//! backend describes each call as a [`WireCall`]: how its message is written and how its reply
//! is read and classified.
//!
//! Where tests live, here and in every folder of the crate: a file's unit tests sit at its end
//! in `#[cfg(test)] mod tests` while they are short (up to about 150 lines). Longer ones live in
//! a `tests.rs` beside the code, as the child module `tests` of the `mod.rs` they test (a file
//! with long tests becomes a folder of its own: `probe.rs` is `probe/mod.rs` and
//! `probe/tests.rs`). Test support shared by several test modules lives in a `testing/` folder
//! beside the code it serves (here `testing/`: the reply fuzzers and the allocation counter
//! both gateways' tests use), declared `#[cfg(test)]` after the production modules.

pub(crate) mod checked;
pub(crate) mod connection;
#[cfg(feature = "http")]
pub(crate) mod http;
pub(crate) mod pool;
pub(crate) mod probe;
pub(crate) mod scanners;
#[cfg(test)]
pub(crate) mod testing;
#[cfg(feature = "tls")]
pub(crate) mod tls;
// HTTP and TLS left out of the build: stand-ins that refuse them.
#[cfg(not(all(feature = "http", feature = "tls")))]
mod left_out;
#[cfg(not(feature = "http"))]
pub(crate) use left_out::http;
#[cfg(all(feature = "http", not(feature = "tls")))]
pub(crate) use left_out::tls;

use thrift::protocol::{
    TBinaryOutputProtocol, TCompactOutputProtocol, TInputProtocol, TMessageIdentifier,
    TMessageType, TOutputProtocol,
};

use crate::backend::visibility;
use crate::model::{Error, Result};
pub(crate) use crate::model::{Protocol as WireProtocol, Transport as WireTransport};

/// One call on a Thrift gateway.
pub(crate) trait WireCall: Sync {
    /// What a successful call returns.
    type Reply: Send;
    /// The method name on the wire (for errors and tracing).
    fn method(&self) -> &'static str;
    /// Appends the whole call message, sequence number `seq`, to `out`.
    fn encode(&self, protocol: WireProtocol, seq: i32, out: &mut Vec<u8>) -> thrift::Result<()>;
    /// Reads the whole reply message (already known to be complete and well delimited) and
    /// turns it into the reply or a classified [`Error`]. What it returns may share `reply`'s
    /// buffer (rows' cells do).
    fn decode(&self, protocol: WireProtocol, seq: i32, reply: &bytes::Bytes)
        -> Result<Self::Reply>;
    /// A reader of the reply to call #`seq` as it arrives on an unframed connection, for a call
    /// whose replies are big enough to be worth it (scanner pages); `None` has the probe find
    /// the reply's end and [`decode`](Self::decode) read it.
    fn reader(
        &self,
        _protocol: WireProtocol,
        _seq: i32,
        _max_reply_bytes: usize,
    ) -> Option<Box<dyn ReplyReader<Self::Reply>>> {
        None
    }
}

/// Reads a reply while it arrives on an unframed connection, in place of the probe that finds
/// its end and the decode that reads it after: one walk of its bytes instead of two.
pub(crate) trait ReplyReader<T>: Send {
    /// Reads on in `buf`, the reply so far: each call passes the bytes of the one before, and
    /// more.
    fn feed(&mut self, buf: &[u8]) -> Feed;
    /// The reply read, once [`feed`](Self::feed) said where it ends; `reply` holds exactly its
    /// bytes.
    fn finish(self: Box<Self>, reply: &bytes::Bytes) -> Result<T>;
}

/// What a [`ReplyReader`] made of the bytes so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(feature = "thrift2"), allow(dead_code))] // its scanner's
pub(crate) enum Feed {
    /// The reply goes on past them.
    More,
    /// The reply is read: its length.
    Done(usize),
    /// The reply is not one it reads: the probe and `decode` take it from its first byte.
    GiveUp,
}

/// Opens a TCP connection to a gateway, Nagle off (calls are small and wait for their reply).
pub(crate) async fn connect_tcp(address: &str) -> Result<tokio::net::TcpStream> {
    tokio::net::TcpStream::connect(address)
        .await
        .and_then(|s| s.set_nodelay(true).map(|()| s))
        .map_err(|source| Error::Connect {
            address: address.to_string(),
            source,
        })
}

/// HBase's per-mutation TTL (`Mutation.setTTL`) as both gateways pass it: attribute `_ttl`,
/// milliseconds as an 8-byte big-endian long (a TTL past `i64::MAX` ms is forever anyway).
pub(crate) fn ttl_attribute(ttl: std::time::Duration) -> (Vec<u8>, Vec<u8>) {
    let millis = i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX);
    (b"_ttl".to_vec(), millis.to_be_bytes().to_vec())
}

/// A put's operation attributes as both gateways pass them on (`None` when it has none): its
/// TTL ([`ttl_attribute`]) and its cells' visibility expression (HBase's `VISIBILITY`, see
/// `backend::visibility`).
pub(crate) fn put_attributes(put: &crate::model::Put) -> Option<AttributeMap> {
    let mut attributes = put
        .visibility
        .as_deref()
        .map(|e| visibility_attribute(visibility::cell_visibility(e)))
        .unwrap_or_default();
    attributes.extend(put.ttl.map(ttl_attribute));
    (!attributes.is_empty()).then_some(attributes)
}

/// A delete's operation attributes: the visibility expression of the cells it removes.
pub(crate) fn delete_attributes(delete: &crate::model::Delete) -> Option<AttributeMap> {
    let expression = delete.visibility.as_deref()?;
    Some(visibility_attribute(visibility::cell_visibility(
        expression,
    )))
}

/// A get's or scan's operation attributes: its visibility labels, if any.
pub(crate) fn read_attributes(labels: &Option<Vec<String>>) -> Option<AttributeMap> {
    let labels = labels.as_deref()?;
    Some(visibility_attribute(visibility::authorizations(labels)))
}

/// An operation's attributes, as both gateways' IDLs type them.
pub(crate) type AttributeMap = std::collections::BTreeMap<Vec<u8>, Vec<u8>>;

/// HBase's `VISIBILITY` attribute holding `value` (see `backend::visibility`).
fn visibility_attribute(value: Vec<u8>) -> AttributeMap {
    AttributeMap::from([(visibility::ATTRIBUTE.as_bytes().to_vec(), value)])
}

/// A protocol writer appending to `out`.
pub(crate) fn output(protocol: WireProtocol, out: &mut Vec<u8>) -> Box<dyn TOutputProtocol + '_> {
    match protocol {
        WireProtocol::Binary => Box::new(TBinaryOutputProtocol::new(out, true)),
        WireProtocol::Compact => Box::new(TCompactOutputProtocol::new(out)),
    }
}

/// A protocol reader over `bytes` that checks every length and count before anything is
/// allocated for it (see [`checked`]).
pub(crate) fn input(protocol: WireProtocol, bytes: &[u8]) -> Box<dyn TInputProtocol + '_> {
    Box::new(checked::CheckedInput::new(protocol, bytes))
}

/// Writes a call message: header, the argument struct `write` writes, end.
#[cfg_attr(not(feature = "thrift2"), allow(dead_code))] // its calls'
pub(crate) fn write_call(
    o: &mut dyn TOutputProtocol,
    method: &str,
    seq: i32,
    write: impl FnOnce(&mut dyn TOutputProtocol) -> thrift::Result<()>,
) -> thrift::Result<()> {
    o.write_message_begin(&TMessageIdentifier::new(method, TMessageType::Call, seq))?;
    write(o)?;
    o.write_message_end()?;
    o.flush()
}

/// Reads a reply message to call `method`#`seq`: checks the header, turns an application
/// exception into an error, and reads the result struct with `read`.
#[cfg_attr(not(feature = "thrift2"), allow(dead_code))] // its calls'
pub(crate) fn read_reply<T>(
    i: &mut dyn TInputProtocol,
    method: &str,
    seq: i32,
    read: impl FnOnce(&mut dyn TInputProtocol) -> thrift::Result<T>,
) -> thrift::Result<T> {
    let ident = i.read_message_begin()?;
    if ident.name != method || ident.sequence_number != seq {
        return Err(thrift::Error::Protocol(thrift::ProtocolError::new(
            thrift::ProtocolErrorKind::InvalidData,
            format!(
                "reply {}#{} does not answer call {method}#{seq}",
                ident.name, ident.sequence_number
            ),
        )));
    }
    if ident.message_type == TMessageType::Exception {
        let e = thrift::Error::read_application_error_from_in_protocol(i)?;
        return Err(thrift::Error::Application(e));
    }
    let reply = read(i)?;
    i.read_message_end()?;
    Ok(reply)
}

/// Maps a `thrift` crate error that is not one of the service's declared exceptions (those
/// each backend classifies itself, see `user`).
pub(crate) fn thrift_error(
    method: &'static str,
    e: thrift::Error,
    user: impl FnOnce(&(dyn std::error::Error + Send + Sync + 'static)) -> Option<Error>,
) -> Error {
    match e {
        thrift::Error::User(u) => user(u.as_ref()).unwrap_or_else(|| Error::Protocol {
            method,
            message: u.to_string(),
        }),
        // The gateway answered the call with an application exception (an internal error, an
        // unknown method): a complete reply, so the connection stays in step.
        thrift::Error::Application(a) => Error::Server {
            method,
            message: format!("the gateway failed the call ({:?}): {}", a.kind, a.message),
            can_retry: false,
        },
        other => protocol_error(method, other),
    }
}

/// A reply (or request) the `thrift` crate could not read (or write). The message keeps the
/// error's own text: the `thrift` crate's `Display` of a protocol or transport error shows
/// only its kind ("bad data"), and the text says what was wrong where.
pub(crate) fn protocol_error(method: &'static str, e: thrift::Error) -> Error {
    let message = match &e {
        thrift::Error::Protocol(p) if !p.message.is_empty() => format!("{e}: {}", p.message),
        thrift::Error::Transport(t) if !t.message.is_empty() => format!("{e}: {}", t.message),
        thrift::Error::Application(a) if !a.message.is_empty() => format!("{e}: {}", a.message),
        _ => e.to_string(),
    };
    Error::Protocol { method, message }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_protocol_error_keeps_what_the_reader_said() {
        let e = thrift::Error::Protocol(thrift::ProtocolError::new(
            thrift::ProtocolErrorKind::InvalidData,
            "a string of 9 bytes where 4 remain",
        ));
        match protocol_error("get", e) {
            Error::Protocol { method, message } => {
                assert_eq!(method, "get");
                assert_eq!(message, "bad data: a string of 9 bytes where 4 remain");
            }
            other => panic!("{other:?}"),
        }
    }
}
