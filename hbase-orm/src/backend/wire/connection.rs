//! One connection to the gateway, carrying one call at a time: a TCP socket with the
//! messages framed or not, or an HTTP/1.1 connection (see [`super::http`]).

use std::sync::Arc;
use std::time::Instant;

use bytes::{Buf, Bytes, BytesMut};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::http::{HttpLink, HttpSettings};
use super::probe::{Fault, Probe, Prober};
use super::{checked, Feed, ReplyReader, WireCall, WireProtocol, WireTransport};
use crate::backend::kerberos::{KerberosTarget, SaslLayer};
use crate::model::{Error, KerberosMechanism, Result};

/// Room a connection's request buffer starts with.
const WRITE_BUF: usize = 4096;

/// Socket reads grow the buffer by at least this much.
const READ_CHUNK: usize = 64 * 1024;

/// The largest read buffer a connection sets aside for the next reply after handing a big one
/// to its caller (a page of a few thousand rows); a longer reply grows it as it arrives.
const KEPT_BUFFER: usize = 4 * 1024 * 1024;

/// Transport, protocol and limits of a connection.
#[derive(Clone)]
pub(crate) struct WireConfig {
    pub(crate) transport: WireTransport,
    pub(crate) protocol: WireProtocol,
    /// Largest reply accepted, in bytes.
    pub(crate) max_reply_bytes: usize,
    /// What every call carries over HTTP ([`WireTransport::Http`] only).
    pub(crate) http: Option<Arc<HttpSettings>>,
    /// Kerberos over TCP (SASL); over HTTP it is in [`HttpSettings`].
    pub(crate) kerberos: Option<crate::model::KerberosOptions>,
}

/// What a connection's calls travel on.
enum Link {
    /// Thrift messages on the socket, framed or not.
    Socket(TcpStream),
    /// Thrift messages on the socket after a SASL handshake: each one length-prefixed and
    /// passed through the security layer (see [`crate::backend::kerberos`]).
    Sasl(TcpStream, SaslLayer),
    /// Each call an HTTP POST.
    Http(HttpLink),
}

/// A failed call, with whether it is safe to send it again on another connection.
#[derive(Debug)]
pub(crate) struct CallFailure {
    pub(crate) error: Error,
    /// The connection had been used before and died before a byte of the reply came back:
    /// typically a socket the gateway closed while it sat idle in the pool.
    pub(crate) stale: bool,
}

/// A connection to the gateway. Thrift allows one call in flight per connection.
///
/// If a call's future is dropped half way (a timeout, a cancelled task), `in_flight` stays set
/// and the pool discards the connection instead of reading someone else's reply from it.
pub(crate) struct Connection {
    link: Link,
    config: WireConfig,
    seq: i32,
    write_buf: Vec<u8>,
    read_buf: BytesMut,
    in_flight: bool,
    broken: bool,
    calls: u64,
    last_used: Instant,
}

impl Connection {
    /// Opens a connection (TCP, and over HTTP(S) the TLS handshake and HTTP's), no call made.
    pub(crate) async fn open(address: &str, config: WireConfig) -> Result<Connection> {
        let link = match &config.http {
            Some(settings) => Link::Http(HttpLink::open(address, settings.clone()).await?),
            None => {
                let mut stream = super::connect_tcp(address).await?;
                match &config.kerberos {
                    Some(options) => {
                        let target = KerberosTarget::new(options, KerberosMechanism::Sasl, address);
                        let layer = target.sasl_handshake(&mut stream).await?;
                        Link::Sasl(stream, layer)
                    }
                    None => Link::Socket(stream),
                }
            }
        };
        Ok(Connection {
            link,
            config,
            seq: 0,
            write_buf: Vec::with_capacity(WRITE_BUF),
            read_buf: BytesMut::with_capacity(READ_CHUNK),
            in_flight: false,
            broken: false,
            calls: 0,
            last_used: Instant::now(),
        })
    }

    /// When the last call on this connection finished.
    pub(crate) fn last_used(&self) -> Instant {
        self.last_used
    }

    /// Whether the connection can carry another call: no call was abandoned on it, the stream
    /// is in sync, and the gateway has not closed it.
    pub(crate) fn is_reusable(&self) -> bool {
        if self.in_flight || self.broken {
            return false;
        }
        let stream = match &self.link {
            Link::Socket(stream) | Link::Sasl(stream, _) => stream,
            Link::Http(link) => return link.is_open(),
        };
        let mut probe = [0u8; 1];
        match stream.try_read(&mut probe) {
            // Nothing to read: the socket is open and idle, as it should be.
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => true,
            // End of stream (closed by the gateway), stray bytes, or a socket error.
            _ => false,
        }
    }

    /// Sends one call and waits for its reply.
    pub(crate) async fn call<C: WireCall>(
        &mut self,
        call: &C,
    ) -> std::result::Result<C::Reply, CallFailure> {
        let method = call.method();
        let fail = |error| CallFailure {
            error,
            stale: false,
        };
        self.seq = self.seq.wrapping_add(1);
        self.encode(call)
            .map_err(|e| fail(super::protocol_error(method, e)))?;

        self.in_flight = true;
        let reused = self.calls > 0;
        if let Link::Http(link) = &mut self.link {
            // The request goes out as it is, not copied; the next call encodes into a fresh
            // buffer (a large batch is not copied, a small call costs the same one allocation).
            let fresh = Vec::with_capacity(WRITE_BUF);
            let body = Bytes::from(std::mem::replace(&mut self.write_buf, fresh));
            let max = self.config.max_reply_bytes;
            let reply = match link.exchange(method, body, max, !reused).await {
                Ok(reply) => reply,
                Err(failure) => {
                    self.in_flight = false;
                    self.broken |= !failure.reusable;
                    if failure.reusable {
                        // A complete refusal: the connection carried a call.
                        self.carried();
                    }
                    return Err(CallFailure {
                        stale: reused && failure.nothing_received,
                        error: failure.error,
                    });
                }
            };
            self.in_flight = false;
            self.carried();
            crate::observe::bytes_read("thrift", reply.len());
            // The body is the whole message: walked as a frame is before it is decoded.
            if let Err(e) = probe_frame(&reply, self.config.protocol, max) {
                self.broken = true;
                return Err(fail(Error::Protocol {
                    method,
                    message: e.to_string(),
                }));
            }
            return self.decode(call, None, &reply).map_err(fail);
        }
        let mut arriving = match (&self.link, self.config.transport) {
            (Link::Sasl(..), _) => None,
            (_, WireTransport::Buffered) => {
                call.reader(self.config.protocol, self.seq, self.config.max_reply_bytes)
            }
            (_, WireTransport::Framed | WireTransport::Http) => None,
        };
        let (reply_start, reply_len) = match self.exchange(&mut arriving).await {
            Ok(at) => at,
            Err((source, nothing_received)) => {
                self.broken = true;
                return Err(CallFailure {
                    stale: reused && nothing_received,
                    error: match source.kind() {
                        std::io::ErrorKind::InvalidData => Error::Protocol {
                            method,
                            message: source.to_string(),
                        },
                        _ => Error::Transport { method, source },
                    },
                });
            }
        };
        self.in_flight = false;
        self.carried();
        crate::observe::bytes_read("thrift", reply_start + reply_len);

        if self.read_buf.len() > reply_start + reply_len {
            // Bytes beyond the reply mean the stream is out of step: never reuse it.
            self.broken = true;
        }
        self.read_buf.advance(reply_start);
        let reply = take_reply(&mut self.read_buf, reply_len);
        self.decode(call, arriving, &reply).map_err(fail)
    }

    /// Notes a call carried to its end (a reply, or a complete refusal).
    fn carried(&mut self) {
        self.calls += 1;
        self.last_used = Instant::now();
    }

    /// Reads a whole reply with the reader that took it as it arrived, or the call's decoder
    /// under the reply limit. A reply that does not decode leaves the connection out of use.
    fn decode<C: WireCall>(
        &mut self,
        call: &C,
        arriving: Option<Box<dyn ReplyReader<C::Reply>>>,
        reply: &Bytes,
    ) -> Result<C::Reply> {
        let decoded = match arriving {
            Some(reader) => reader.finish(reply),
            None => checked::with_reply_limit(self.config.max_reply_bytes, || {
                call.decode(self.config.protocol, self.seq, reply)
            }),
        };
        if matches!(decoded, Err(Error::Protocol { .. })) {
            self.broken = true;
        }
        decoded
    }

    fn encode<C: WireCall>(&mut self, call: &C) -> thrift::Result<()> {
        self.write_buf.clear();
        if self.config.transport == WireTransport::Framed {
            self.write_buf.extend_from_slice(&[0; 4]);
        }
        call.encode(self.config.protocol, self.seq, &mut self.write_buf)?;
        if self.config.transport == WireTransport::Framed {
            let len = u32::try_from(self.write_buf.len() - 4).map_err(|_| {
                thrift::Error::Protocol(thrift::ProtocolError::new(
                    thrift::ProtocolErrorKind::SizeLimit,
                    "request larger than 4 GiB",
                ))
            })?;
            self.write_buf[..4].copy_from_slice(&len.to_be_bytes());
        }
        Ok(())
    }

    /// Writes the encoded call and reads until one whole reply is buffered; returns where the
    /// reply starts in the read buffer (after a frame's length prefix) and its length. On
    /// failure also says whether no byte of the reply had arrived.
    ///
    /// On an unframed connection `arriving`, if any, reads the reply as it comes; if it gives
    /// the reply up, it is dropped and the probe takes over.
    async fn exchange<T>(
        &mut self,
        arriving: &mut Option<Box<dyn ReplyReader<T>>>,
    ) -> std::result::Result<(usize, usize), (std::io::Error, bool)> {
        self.read_buf.clear();
        let stream = match &mut self.link {
            Link::Socket(stream) => stream,
            Link::Sasl(stream, layer) => {
                let max = self.config.max_reply_bytes;
                let protocol = self.config.protocol;
                return sasl_exchange(
                    stream,
                    layer,
                    &self.write_buf,
                    &mut self.read_buf,
                    protocol,
                    max,
                )
                .await
                .map(|len| (0, len));
            }
            Link::Http(_) => return Err((std::io::Error::other("not a socket connection"), true)),
        };
        stream
            .write_all(&self.write_buf)
            .await
            .map_err(|e| (e, true))?;
        let max = self.config.max_reply_bytes;
        match self.config.transport {
            WireTransport::Framed => loop {
                // Read what the socket has, a chunk at a time, until the length prefix and the
                // frame it announces are in: a small reply comes in one read with its prefix.
                let mut want = READ_CHUNK;
                if let Some(prefix) = self.read_buf.first_chunk::<FRAME_PREFIX>() {
                    let len = u32::from_be_bytes(*prefix) as usize;
                    if prefix == HTTP_ANSWER {
                        return Err((http_answer(), false));
                    }
                    if len > max {
                        return Err((too_large(len, max), false));
                    }
                    let end = FRAME_PREFIX + len;
                    if self.read_buf.len() >= end {
                        return probe_frame(
                            &self.read_buf[FRAME_PREFIX..end],
                            self.config.protocol,
                            max,
                        )
                        .map(|()| (FRAME_PREFIX, len))
                        .map_err(|e| (e, false));
                    }
                    want = end - self.read_buf.len();
                }
                self.read_buf.reserve(want);
                read_more(stream, &mut self.read_buf).await?;
            },
            WireTransport::Buffered | WireTransport::Http => {
                // The prober resumes where the previous read left it: probing costs time
                // linear in the reply's size, however many reads it arrives in. A call with a
                // reader of its own (a scanner page) reads the reply as it comes instead, a
                // row at a time; if it gives up, the prober starts from the first byte.
                let mut prober = Prober::new(self.config.protocol, max);
                loop {
                    let probe = match arriving.as_mut().map(|a| a.feed(&self.read_buf)) {
                        Some(Feed::Done(n)) => Probe::Complete(n),
                        Some(Feed::More) => Probe::Incomplete,
                        Some(Feed::GiveUp) | None => {
                            *arriving = None;
                            prober.feed(&self.read_buf)
                        }
                    };
                    match probe {
                        Probe::Complete(n) => return Ok((0, n)),
                        Probe::Malformed(_) if self.read_buf.starts_with(HTTP_ANSWER) => {
                            return Err((http_answer(), false))
                        }
                        Probe::Malformed(fault) => return Err((not_a_reply(fault, max), false)),
                        Probe::Incomplete if self.read_buf.len() > max => {
                            return Err((too_large(self.read_buf.len(), max), false))
                        }
                        Probe::Incomplete => {}
                    }
                    self.read_buf.reserve(READ_CHUNK);
                    read_more(stream, &mut self.read_buf).await?;
                }
            }
        }
    }
}

/// Sends one call through a SASL security layer and reads its reply's messages until the
/// reply is whole; returns the reply's length, at the start of `read_buf`. On failure also
/// says whether no byte of the reply had arrived.
async fn sasl_exchange(
    stream: &mut TcpStream,
    layer: &mut SaslLayer,
    call: &[u8],
    read_buf: &mut BytesMut,
    protocol: WireProtocol,
    max: usize,
) -> std::result::Result<usize, (std::io::Error, bool)> {
    let wrapped = layer.wrap(call).map_err(|e| (e, true))?;
    let len = u32::try_from(wrapped.len()).map_err(|e| (std::io::Error::other(e), true))?;
    let mut out = Vec::with_capacity(FRAME_PREFIX + wrapped.len());
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(&wrapped);
    stream.write_all(&out).await.map_err(|e| (e, true))?;
    let mut prober = Prober::new(protocol, max);
    let mut received = 0usize;
    loop {
        let mut prefix = [0u8; FRAME_PREFIX];
        let mut filled = 0;
        while filled < FRAME_PREFIX {
            let n = match stream.read(&mut prefix[filled..]).await {
                Ok(0) => Err(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "the gateway closed the connection",
                )),
                other => other,
            }
            // Stale only if not a byte of the reply came.
            .map_err(|e| (e, received == 0))?;
            filled += n;
            received += n;
        }
        let len = u32::from_be_bytes(prefix) as usize;
        // A wrapped message is its content and a few dozen bytes of checksum and padding.
        if len > max.saturating_add(SASL_OVERHEAD) {
            return Err((too_large(len, max), false));
        }
        // Room grows as the message comes: a length alone reserves no more than a chunk.
        let mut message = Vec::with_capacity(len.min(READ_CHUNK));
        (&mut *stream)
            .take(len as u64)
            .read_to_end(&mut message)
            .await
            .map_err(|e| (e, false))?;
        if message.len() < len {
            return Err((
                std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "the gateway closed the connection inside a message",
                ),
                false,
            ));
        }
        let plain = layer.unwrap(&message).map_err(|e| (e, false))?;
        read_buf.extend_from_slice(&plain);
        match prober.feed(read_buf) {
            Probe::Complete(n) if n == read_buf.len() => return Ok(n),
            Probe::Complete(n) => {
                return Err((
                    malformed(format!("{} bytes after the reply", read_buf.len() - n)),
                    false,
                ))
            }
            Probe::Malformed(fault) => return Err((not_a_reply(fault, max), false)),
            Probe::Incomplete if read_buf.len() > max => {
                return Err((too_large(read_buf.len(), max), false))
            }
            Probe::Incomplete => {}
        }
    }
}

/// What GSSAPI's wrapping may add to a message (a Kerberos wrap token's header, checksum and
/// padding take well under this).
const SASL_OVERHEAD: usize = 1024;

/// Reads what the socket has into the read buffer (at least one byte). On failure also says
/// whether no byte of the reply had arrived.
async fn read_more(
    stream: &mut TcpStream,
    read_buf: &mut BytesMut,
) -> std::result::Result<(), (std::io::Error, bool)> {
    let before = read_buf.is_empty();
    let n = stream.read_buf(read_buf).await.map_err(|e| (e, before))?;
    if n == 0 {
        return Err((
            std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the gateway closed the connection",
            ),
            before,
        ));
    }
    Ok(())
}

/// How an HTTP answer starts: what a gateway serving Thrift over HTTP sends back to the bytes
/// of a plain Thrift call.
const HTTP_ANSWER: &[u8; 4] = b"HTTP";

/// The error for an HTTP answer on a plain TCP connection.
fn http_answer() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        "the gateway answered in HTTP: it serves Thrift over HTTP, connect with \
         thrift2+http:// (thrift1+http:// for a Thrift1 gateway, +https:// if it speaks TLS)",
    )
}

/// Bytes of a frame's length prefix.
const FRAME_PREFIX: usize = 4;

/// Walks a whole frame before the decoders see it: every length it declares must fit in it and
/// the limit (see the probe's module doc), and the message must fill the frame exactly.
fn probe_frame(frame: &[u8], protocol: WireProtocol, max: usize) -> std::io::Result<()> {
    match Prober::new(protocol, max).feed(frame) {
        Probe::Complete(n) if n == frame.len() => Ok(()),
        Probe::Complete(n) => Err(malformed(format!(
            "{} bytes after the message in its frame",
            frame.len() - n
        ))),
        Probe::Incomplete => Err(malformed(
            "a length in the reply runs past the end of its frame",
        )),
        Probe::Malformed(fault) => Err(not_a_reply(fault, max)),
    }
}

/// An unframed reply the probe rejected: over the length limit, or not a Thrift message of the
/// configured protocol (most likely a gateway with another transport or protocol).
fn not_a_reply(fault: Fault, max: usize) -> std::io::Error {
    let message = if fault.is_limit() {
        format!("reply rejected: {fault} (ClientBuilder::max_reply_bytes is {max})")
    } else {
        format!(
            "reply is not a Thrift message ({fault}); does the gateway use the same transport \
             and protocol as the client?"
        )
    };
    std::io::Error::new(std::io::ErrorKind::InvalidData, message)
}

/// The first `len` bytes of `buf` as the reply the decoders read (rows' cells share it).
///
/// A reply that fills most of the read buffer (a page of rows) is handed over as it is, and the
/// next reply is read into a fresh buffer: a cell the caller keeps then holds that reply's
/// buffer, not later ones. The fresh buffer has room for a reply a quarter longer than this
/// one, up to [`KEPT_BUFFER`], so that the next page of a scan arrives without the buffer
/// growing (each growth copies what came so far); the connection keeps it while it waits in
/// the pool. A small reply (a get) is copied out, so a kept cell holds only its own reply and
/// the read buffer is reused.
fn take_reply(buf: &mut BytesMut, len: usize) -> bytes::Bytes {
    if len.saturating_mul(2) >= buf.capacity() {
        let reply = buf.split_to(len).freeze();
        let room = len.saturating_add(len / 4).clamp(READ_CHUNK, KEPT_BUFFER);
        *buf = BytesMut::with_capacity(room);
        reply
    } else {
        bytes::Bytes::copy_from_slice(&buf[..len])
    }
}

/// A reply that is not a well-formed Thrift message.
fn malformed(why: impl std::fmt::Display) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!("malformed reply: {why}"),
    )
}

/// A reply longer than the configured limit.
fn too_large(len: usize, max: usize) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!(
            "reply of {len} bytes exceeds the limit of {max} bytes (ClientBuilder::max_reply_bytes)"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_reply_is_copied_and_a_page_gets_the_buffer_to_itself() {
        let mut buf = BytesMut::with_capacity(READ_CHUNK);
        buf.extend_from_slice(&[7; 100]);
        let small = take_reply(&mut buf, 100);
        assert_eq!(small, vec![7u8; 100]);
        assert_eq!(buf.capacity(), READ_CHUNK, "the read buffer is kept");
        buf.clear();
        // A later reply in the kept buffer does not change the copy.
        buf.extend_from_slice(&[9; 100]);
        assert_eq!(small, vec![7u8; 100]);

        let mut buf = BytesMut::with_capacity(4 * READ_CHUNK);
        buf.extend_from_slice(&vec![1; 3 * READ_CHUNK]);
        let page = take_reply(&mut buf, 3 * READ_CHUNK);
        assert_eq!(page.len(), 3 * READ_CHUNK);
        assert!(buf.is_empty());
        assert!(
            buf.capacity() >= 3 * READ_CHUNK + 3 * READ_CHUNK / 4,
            "a next page of the same size fits without growing the buffer"
        );
        // The next reply goes to a fresh buffer, not the page's spare capacity.
        buf.extend_from_slice(&[2; 16]);
        let (page_at, next_at) = (page.as_ptr() as usize, buf.as_ptr() as usize);
        assert!(
            next_at < page_at || next_at >= page_at + 4 * READ_CHUNK,
            "the next reply was read into the page's buffer"
        );
    }
}
