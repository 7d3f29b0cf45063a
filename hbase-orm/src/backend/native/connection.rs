//! One TCP connection to one server for one service, with many calls in flight on it.
//!
//! Calls are numbered. Each caller writes its frame whole under the connection's write lock (a
//! caller that gives up in the middle of a frame takes the connection down with it, so no half
//! frame is ever followed by another). Replies are read by the callers themselves: whoever
//! holds the read lock reads replies, hands each to the call whose id it carries (in whatever
//! order the server answers) and stops at its own, and the next waiting caller takes over.
//! So a reply reaches its caller without a hop through another task or thread. What a reader
//! has read stays in the connection's buffer when its caller stops waiting, so a timeout never
//! loses half a frame. A reply larger than the limit fails its own call only: its header says
//! which call it answers, and the rest of its frame is read past and dropped. A frame that
//! does not decode (or too large a reply whose header does not), a closed socket: the
//! connection is dead, every call still waiting fails with the reason, and the next call opens
//! a new one. A connection idle for a while is checked for a close by the
//! server before it is used again. Under a SASL security layer (`hbase.rpc.protection`
//! `integrity` or `privacy`) a frame is wrapped as it is written and the reader unwraps what
//! it reads before it looks for frames ([`Protection`]).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::{Buf, BytesMut};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::oneshot;

use super::frame::{self, BadFrame, Reply, Service};
use super::protection::Protection;
use super::proto;
use crate::backend::kerberos::KerberosTarget;
use crate::model::KerberosMechanism;

/// Why a call got no reply message.
#[derive(Debug)]
pub(crate) enum CallError {
    /// The connection could not be opened, or was closed before the call was written: the call
    /// was not sent.
    Connect(std::io::Error),
    /// The connection died before the reply came (the call may have reached the server).
    Broken(String),
    /// No reply within the limit (the call may have reached the server).
    Timeout(Duration),
    /// The server answered with an exception.
    Remote(proto::ExceptionResponse),
    /// Kerberos authentication failed while opening the connection (nothing was sent).
    Auth(crate::model::Error),
    /// The request (this many bytes) is larger than a frame can carry: nothing was sent.
    TooLarge(usize),
    /// The reply (this many bytes) is larger than the client's limit, the second figure
    /// (`Config::max_reply_bytes`): it was dropped, the connection goes on.
    ReplyTooLarge(usize, usize),
}

impl CallError {
    /// Whether the call failed for its own size, the connection and the server being fine
    /// (a request too large to send, a reply too large to keep).
    pub(crate) fn is_size(&self) -> bool {
        matches!(self, CallError::TooLarge(_) | CallError::ReplyTooLarge(..))
    }
}

/// Who the client is to the servers.
#[derive(Clone, Debug)]
pub(crate) enum Identity {
    /// SIMPLE authentication: the name given is believed.
    Simple(String),
    /// Kerberos (SASL GSSAPI): the user of the ticket cache or client keytab.
    Kerberos(crate::model::KerberosOptions),
}

/// The calls waiting for a reply, by id, and whether the connection still works.
#[derive(Default)]
struct Shared {
    pending: Mutex<HashMap<i32, oneshot::Sender<Result<Reply, CallError>>>>,
    dead: AtomicBool,
}

impl Shared {
    /// Marks the connection dead and fails every waiting call with `why`.
    fn fail_all(&self, why: &str) {
        self.dead.store(true, Ordering::SeqCst);
        let waiting: Vec<_> = self.lock().drain().collect();
        for (_, tx) in waiting {
            let _ = tx.send(Err(CallError::Broken(why.to_string())));
        }
    }

    fn lock(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<i32, oneshot::Sender<Result<Reply, CallError>>>> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A connection to one server for one service.
pub(crate) struct Connection {
    address: String,
    writer: tokio::sync::Mutex<tokio::net::tcp::OwnedWriteHalf>,
    reader: tokio::sync::Mutex<ReadSide>,
    /// The security layer every frame is wrapped in, if any.
    protection: Option<Arc<Protection>>,
    shared: Arc<Shared>,
    next_id: AtomicI32,
    max_reply_bytes: usize,
    /// When a call last finished, in milliseconds since `opened`.
    last_used: AtomicU64,
    opened: std::time::Instant,
}

/// The read half of the socket and what has been read from it but not handed out yet.
struct ReadSide {
    socket: tokio::net::tcp::OwnedReadHalf,
    /// The frames' bytes (unwrapped, under a security layer).
    buf: BytesMut,
    /// Bytes still to read past of a reply too large to keep.
    skipping: usize,
    /// Under a security layer: the layer, and the start of a wrapped message not all read.
    unwrapping: Option<(Arc<Protection>, BytesMut)>,
}

/// What a reader takes off the connection next.
enum Incoming {
    Reply(Reply),
    /// A reply to call `call_id` of `len` bytes, over the limit: dropped.
    TooLarge {
        call_id: i32,
        len: usize,
    },
}

/// The longest reply header a reply too large to keep may have to be skipped (a header
/// holds the call id, perhaps an exception and the cell block's length).
const MAX_SKIPPED_HEADER: usize = 64 * 1024;

impl ReadSide {
    /// The next reply (cancel-safe: bytes read stay in the buffer for the next reader, and a
    /// reply being skipped goes on being skipped).
    async fn next(&mut self, max_reply_bytes: usize) -> Result<Incoming, String> {
        loop {
            if self.skipping > 0 {
                let n = self.skipping.min(self.buf.len());
                self.buf.advance(n);
                self.skipping -= n;
            }
            if self.skipping == 0 {
                if let Some(incoming) = self.take_frame(max_reply_bytes)? {
                    return Ok(incoming);
                }
            }
            let n = self
                .fill()
                .await
                .map_err(|e| format!("reading from the server failed: {e}"))?;
            crate::observe::bytes_read("native", n);
            if n == 0 {
                return Err("the server closed the connection".into());
            }
        }
    }

    /// Reads what the socket has (cancel-safe), unwrapping the whole messages under a security
    /// layer; the bytes read off the socket (0: it was closed).
    async fn fill(&mut self) -> std::io::Result<usize> {
        let into = match &mut self.unwrapping {
            Some((_, raw)) => raw,
            None => &mut self.buf,
        };
        if into.capacity() - into.len() < READ_CHUNK / 4 {
            into.reserve(READ_CHUNK);
        }
        let n = self.socket.read_buf(into).await?;
        if let Some((protection, raw)) = &mut self.unwrapping {
            protection
                .unwrap_into(raw, &mut self.buf)
                .map_err(|why| std::io::Error::new(std::io::ErrorKind::InvalidData, why))?;
        }
        Ok(n)
    }

    /// A whole reply from the buffer, if one is there; or the call a reply too large to keep
    /// answers, once its header is, and the reply is then skipped.
    fn take_frame(&mut self, max_reply_bytes: usize) -> Result<Option<Incoming>, String> {
        let Some(head) = self.buf.get(..4) else {
            return Ok(None);
        };
        let len = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
        if len > max_reply_bytes {
            let too_large = |why: &str| {
                format!(
                    "a reply of {len} bytes exceeds the limit of {max_reply_bytes} bytes \
                     (Config::max_reply_bytes), and {why}"
                )
            };
            let body = &self.buf[4..self.buf.len().min(4 + len)];
            return match frame::reply_call_id(body, MAX_SKIPPED_HEADER) {
                Some(Ok(call_id)) => {
                    self.buf.advance(4);
                    self.skipping = len;
                    Ok(Some(Incoming::TooLarge { call_id, len }))
                }
                Some(Err(BadFrame(why))) => Err(too_large(&why)),
                None if body.len() == len => Err(too_large("its frame ends inside its header")),
                None => Ok(None),
            };
        }
        if self.buf.len() < 4 + len {
            // Room for the rest of the frame, so it is read in as few calls as it arrives in.
            self.buf.reserve(4 + len - self.buf.len());
            return Ok(None);
        }
        self.buf.advance(4);
        let frame = self.buf.split_to(len).freeze();
        frame::split_reply(frame)
            .map(|reply| Some(Incoming::Reply(reply)))
            .map_err(|BadFrame(why)| format!("a bad reply: {why}"))
    }
}

/// Takes the connection down if its caller stops while its frame is half written.
struct Writing<'a> {
    shared: &'a Shared,
    done: bool,
}

impl Drop for Writing<'_> {
    fn drop(&mut self) {
        if !self.done {
            self.shared
                .fail_all("a call was abandoned while its frame was being written");
        }
    }
}

/// Removes a call's slot when its caller stops waiting (timeout, or the future dropped).
struct Waiting<'a> {
    shared: &'a Shared,
    id: i32,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.shared.lock().remove(&self.id);
    }
}

impl Connection {
    /// Opens a connection to `address` for `service` and sends the preamble.
    pub(crate) async fn open(
        address: &str,
        service: Service,
        identity: &Identity,
        connect_timeout: Duration,
        max_reply_bytes: usize,
    ) -> Result<Connection, CallError> {
        let dial = async {
            let mut stream = TcpStream::connect(address)
                .await
                .map_err(CallError::Connect)?;
            stream.set_nodelay(true).map_err(CallError::Connect)?;
            let mut protection = None;
            match identity {
                Identity::Simple(user) => stream
                    .write_all(&frame::connection_preamble(service, user))
                    .await
                    .map_err(CallError::Connect)?,
                Identity::Kerberos(options) => {
                    stream
                        .write_all(&frame::preamble(frame::AUTH_KERBEROS))
                        .await
                        .map_err(CallError::Connect)?;
                    let target = KerberosTarget::new(options, KerberosMechanism::Sasl, address);
                    let layer = target
                        .hbase_rpc_sasl(&mut stream)
                        .await
                        .map_err(CallError::Auth)?;
                    let header = frame::connection_header(service, None);
                    if layer.protects() {
                        let layer = Protection::new(layer, max_reply_bytes);
                        let wrapped = layer.wrap(&[&header]).map_err(CallError::Connect)?;
                        stream
                            .write_all(&wrapped)
                            .await
                            .map_err(CallError::Connect)?;
                        protection = Some(Arc::new(layer));
                    } else {
                        stream
                            .write_all(&header)
                            .await
                            .map_err(CallError::Connect)?;
                    }
                }
            }
            Ok::<_, CallError>((stream, protection))
        };
        let (stream, protection) = match tokio::time::timeout(connect_timeout, dial).await {
            Ok(Ok(stream)) => stream,
            Ok(Err(e)) => return Err(e),
            Err(_) => {
                return Err(CallError::Connect(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!("no connection within {connect_timeout:?}"),
                )))
            }
        };
        let (read, write) = stream.into_split();
        Ok(Connection {
            address: address.to_string(),
            writer: tokio::sync::Mutex::new(write),
            reader: tokio::sync::Mutex::new(ReadSide {
                skipping: 0,
                socket: read,
                buf: BytesMut::with_capacity(READ_CHUNK),
                unwrapping: protection.clone().map(|p| (p, BytesMut::new())),
            }),
            protection,
            shared: Arc::new(Shared::default()),
            next_id: AtomicI32::new(0),
            max_reply_bytes,
            last_used: AtomicU64::new(0),
            opened: std::time::Instant::now(),
        })
    }

    /// Whether the connection still works (as far as the client knows).
    pub(crate) fn is_open(&self) -> bool {
        !self.shared.dead.load(Ordering::SeqCst)
    }

    /// Whether the connection still works, checking a connection idle for a while for a close
    /// by the server (one read that does not wait): a call on a socket the server has closed
    /// could not tell whether it was applied.
    fn is_usable(&self) -> bool {
        let now = self.opened.elapsed().as_millis() as u64;
        let idle = now.saturating_sub(self.last_used.load(Ordering::Relaxed));
        if self.is_open() && idle >= IDLE_CHECK_MS {
            if let Ok(mut side) = self.reader.try_lock() {
                use futures::FutureExt;
                match side.fill().now_or_never() {
                    Some(Ok(0)) => self
                        .shared
                        .fail_all("the server closed the idle connection"),
                    Some(Err(e)) => self
                        .shared
                        .fail_all(&format!("the idle connection failed: {e}")),
                    // Nothing to read (or bytes the next reader will hand out): still open.
                    _ => {}
                }
            }
        }
        self.is_open()
    }

    /// Sends `param` (with the cell block `cells`, empty for none) to `method` and waits up
    /// to `timeout` for the reply.
    pub(crate) async fn call(
        &self,
        method: &str,
        param: &impl frame::Param,
        cells: &[u8],
        timeout: Duration,
    ) -> Result<Reply, CallError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed) & i32::MAX;
        let (frame, after) = frame::call_frame(id, method, param, cells)
            .map_err(|frame::TooLarge(size)| CallError::TooLarge(size))?;
        let (tx, mut rx) = oneshot::channel();
        self.shared.lock().insert(id, tx);
        let _slot = Waiting {
            shared: &self.shared,
            id,
        };
        let deadline = tokio::time::Instant::now() + timeout;
        let write = async {
            let mut socket = self.writer.lock().await;
            if !self.is_open() {
                // Nothing of this call left the client: it may be sent again anywhere.
                return Err(CallError::Connect(std::io::Error::new(
                    std::io::ErrorKind::NotConnected,
                    format!(
                        "the connection to {} closed before the call was sent",
                        self.address
                    ),
                )));
            }
            let mut writing = Writing {
                shared: &self.shared,
                done: false,
            };
            let written = match &self.protection {
                Some(layer) => match layer.wrap(&[&frame, after]) {
                    Ok(wrapped) => socket.write_all(&wrapped).await,
                    failed => failed.map(drop),
                },
                None => match socket.write_all(&frame).await {
                    Ok(()) => socket.write_all(after).await,
                    failed => failed,
                },
            };
            writing.done = true;
            if let Err(e) = written {
                self.shared
                    .fail_all(&format!("writing to the server failed: {e}"));
                return Err(CallError::Broken(format!(
                    "writing to {} failed: {e}",
                    self.address
                )));
            }
            Ok(())
        };
        // A server that stops reading (a partition, a stopped process) holds the write, and
        // the writers queued behind it, no longer than the call's limit.
        match tokio::time::timeout_at(deadline, write).await {
            Ok(written) => written?,
            Err(_) => return Err(CallError::Timeout(timeout)),
        }
        // `None`: the connection died and dropped this call's slot.
        let reply: Option<Result<Reply, CallError>> = tokio::select! {
            biased;
            handed = &mut rx => handed.ok(),
            side = self.reader.lock() => {
                let mut side = side;
                match rx.try_recv() {
                    // Handed over while this call waited for the read lock.
                    Ok(handed) => Some(handed),
                    Err(oneshot::error::TryRecvError::Closed) => None,
                    Err(oneshot::error::TryRecvError::Empty) => {
                        let read = self.read_until(&mut side, id);
                        match tokio::time::timeout_at(deadline, read).await {
                            Ok(read) => Some(read),
                            Err(_) => Some(Err(CallError::Timeout(timeout))),
                        }
                    }
                }
            }
            _ = tokio::time::sleep_until(deadline) => Some(Err(CallError::Timeout(timeout))),
        };
        let now = self.opened.elapsed().as_millis() as u64;
        self.last_used.store(now, Ordering::Relaxed);
        match reply {
            Some(Ok(reply)) => match reply.exception {
                Some(exception) => Err(CallError::Remote(exception)),
                None => Ok(reply),
            },
            Some(Err(e)) => Err(e),
            None => Err(CallError::Broken(format!(
                "the connection to {} closed",
                self.address
            ))),
        }
    }

    /// Reads replies, handing each to its call, until the one to call `id` comes.
    async fn read_until(&self, side: &mut ReadSide, id: i32) -> Result<Reply, CallError> {
        loop {
            let reply = match side.next(self.max_reply_bytes).await {
                Ok(Incoming::Reply(reply)) => Ok(reply),
                Ok(Incoming::TooLarge { call_id, len }) if call_id >= 0 => {
                    let e = CallError::ReplyTooLarge(len, self.max_reply_bytes);
                    if call_id == id {
                        return Err(e);
                    }
                    if let Some(tx) = self.shared.lock().remove(&call_id) {
                        let _ = tx.send(Err(e));
                    }
                    continue;
                }
                Ok(Incoming::TooLarge { len, .. }) => Err(format!(
                    "a reply to no call of {len} bytes exceeds the limit of {} bytes \
                     (Config::max_reply_bytes)",
                    self.max_reply_bytes
                )),
                Err(why) => Err(why),
            };
            let why = match reply {
                Ok(reply) if reply.call_id == id => return Ok(reply),
                Ok(reply) if reply.call_id < 0 => {
                    // A reply to no call: the server refuses the connection itself.
                    let exception = reply.exception.unwrap_or_default();
                    let class = exception.exception_class_name.unwrap_or_default();
                    let text = exception.stack_trace.unwrap_or_default();
                    let why = format!("the server closed the connection: {class} {text}");
                    if class.ends_with("AccessDeniedException") {
                        // A secured server and a client that did not authenticate (or as
                        // someone it refuses): no use trying again.
                        self.shared.fail_all(&why);
                        return Err(CallError::Auth(crate::model::Error::Unauthenticated {
                            address: self.address.clone(),
                            method: "the connection",
                            challenge: Some("Kerberos: Config::kerberos, URL auth=kerberos".into()),
                            message: format!(
                                "{class}: {}",
                                text.lines().next().unwrap_or_default()
                            ),
                        }));
                    }
                    why
                }
                Ok(reply) => {
                    let waiting = self.shared.lock().remove(&reply.call_id);
                    match waiting {
                        Some(tx) => {
                            let _ = tx.send(Ok(reply));
                        }
                        // A reply to a call that stopped waiting (timed out, dropped).
                        None => {
                            tracing::debug!(call_id = reply.call_id, "reply to no waiting call")
                        }
                    }
                    continue;
                }
                Err(why) => why,
            };
            self.shared.fail_all(&why);
            return Err(CallError::Broken(why));
        }
    }
}

/// How much of the socket a reader asks for at once.
const READ_CHUNK: usize = 64 * 1024;

/// A connection unused for this long is checked for a close by the server before its next call.
const IDLE_CHECK_MS: u64 = 1000;

/// The connections of a client, one per server and service, opened on first use and replaced
/// when they die.
pub(crate) struct Connections {
    open: Mutex<HashMap<(String, Service), Arc<Connection>>>,
    identity: Identity,
    connect_timeout: Duration,
    max_reply_bytes: usize,
    /// Connections opened since the client was made.
    pub(crate) opened: AtomicU64,
}

impl Connections {
    /// No connection yet; `identity` is who the client is to the servers.
    pub(crate) fn new(
        identity: Identity,
        connect_timeout: Duration,
        max_reply_bytes: usize,
    ) -> Self {
        Connections {
            open: Mutex::new(HashMap::new()),
            identity,
            connect_timeout,
            max_reply_bytes,
            opened: AtomicU64::new(0),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(String, Service), Arc<Connection>>> {
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The working connection to `address` for `service`, opened if there is none.
    pub(crate) async fn get(
        &self,
        address: &str,
        service: Service,
    ) -> Result<Arc<Connection>, CallError> {
        let key = (address.to_string(), service);
        if let Some(c) = self.lock().get(&key).filter(|c| c.is_usable()) {
            return Ok(c.clone());
        }
        let fresh = Arc::new(
            Connection::open(
                address,
                service,
                &self.identity,
                self.connect_timeout,
                self.max_reply_bytes,
            )
            .await?,
        );
        self.opened.fetch_add(1, Ordering::Relaxed);
        let mut open = self.lock();
        match open.get(&key) {
            // Another call opened one meanwhile: use that one.
            Some(c) if c.is_open() => Ok(c.clone()),
            _ => {
                open.insert(key, fresh.clone());
                Ok(fresh)
            }
        }
    }

    /// Forgets the connection to `address` (after it failed), so the next call opens another.
    pub(crate) fn drop_server(&self, address: &str) {
        self.lock().retain(|(a, _), _| a != address);
    }

    /// How many connections are open now.
    pub(crate) fn count(&self) -> usize {
        self.lock().values().filter(|c| c.is_open()).count()
    }
}

/// The reply message of `reply` decoded as `M`.
pub(crate) fn decode<M: prost::Message + Default>(reply: &Reply) -> Result<M, String> {
    M::decode(reply.message.clone()).map_err(|e| format!("the reply does not decode: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::net::TcpListener;

    fn simple() -> Identity {
        Identity::Simple("t".into())
    }

    /// A SIMPLE connection to a test server, 1 KiB replies at most.
    async fn open_plain(address: &str) -> Connection {
        Connection::open(
            address,
            Service::Client,
            &simple(),
            Duration::from_secs(5),
            1024,
        )
        .await
        .unwrap()
    }

    /// Accepts one client and reads its preamble and connection header.
    async fn accept(listener: TcpListener) -> TcpStream {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut head = [0u8; 10];
        socket.read_exact(&mut head).await.unwrap();
        let len = u32::from_be_bytes(head[6..10].try_into().unwrap()) as usize;
        socket.read_exact(&mut vec![0u8; len]).await.unwrap();
        socket
    }

    /// Reads one call frame (without its length).
    async fn read_call(socket: &mut TcpStream) -> Vec<u8> {
        let mut call_len = [0u8; 4];
        socket.read_exact(&mut call_len).await.unwrap();
        let mut call = vec![0u8; u32::from_be_bytes(call_len) as usize];
        socket.read_exact(&mut call).await.unwrap();
        call
    }

    /// A server for one client: once its preamble and connection header are read, `script`
    /// talks to it. Its address.
    async fn one_client<F, Fut>(script: F) -> String
    where
        F: FnOnce(TcpStream) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = ()> + Send,
    {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap().to_string();
        tokio::spawn(async move { script(accept(listener).await).await });
        address
    }

    /// A server that reads the preamble and one call, then answers with `reply` (raw bytes) and
    /// closes the socket.
    async fn hostile_server(reply: Vec<u8>) -> String {
        one_client(|mut socket| async move {
            read_call(&mut socket).await;
            socket.write_all(&reply).await.unwrap();
        })
        .await
    }

    /// A whole reply frame to call `id` carrying `message`.
    fn reply_to(id: u32, message: &[u8]) -> Vec<u8> {
        let header = proto::ResponseHeader {
            call_id: Some(id),
            ..Default::default()
        };
        let mut body = Vec::new();
        prost::Message::encode_length_delimited(&header, &mut body).unwrap();
        prost::encode_length_delimiter(message.len(), &mut body).unwrap();
        body.extend_from_slice(message);
        let mut out = (body.len() as u32).to_be_bytes().to_vec();
        out.extend_from_slice(&body);
        out
    }

    async fn one_call(reply: Vec<u8>) -> Result<Reply, CallError> {
        let address = hostile_server(reply).await;
        let c = open_plain(&address).await;
        let result = c
            .call(
                "Get",
                &proto::GetRequest::default(),
                &[],
                Duration::from_secs(5),
            )
            .await;
        assert!(
            !c.is_open() || result.is_ok(),
            "a failed connection is marked dead"
        );
        result
    }

    #[tokio::test]
    async fn a_hostile_server_gives_errors_not_panics_or_huge_buffers() {
        // A reply to the call.
        assert_eq!(
            &one_call(reply_to(0, b"ok")).await.unwrap().message[..],
            b"ok"
        );
        // A length past the cap, and a header that does not decode: refused before anything
        // is allocated.
        let mut huge = (u32::MAX - 1).to_be_bytes().to_vec();
        huge.extend_from_slice(&[3, 0xff, 0xff, 0xff]);
        match one_call(huge).await {
            Err(CallError::Broken(why)) => assert!(why.contains("exceeds the limit"), "{why}"),
            other => panic!("{other:?}"),
        }
        // A length past the cap and nothing after it: the socket closes while it waits for the
        // header.
        match one_call((u32::MAX - 1).to_be_bytes().to_vec()).await {
            Err(CallError::Broken(why)) => assert!(why.contains("closed"), "{why}"),
            other => panic!("{other:?}"),
        }
        // A reply to a call never made, then the socket closes.
        match one_call(reply_to(77, b"stray")).await {
            Err(CallError::Broken(_)) => {}
            other => panic!("{other:?}"),
        }
        // A reply cut short.
        let mut cut = reply_to(0, b"a longer message");
        cut.truncate(cut.len() - 5);
        match one_call(cut).await {
            Err(CallError::Broken(why)) => assert!(why.contains("closed"), "{why}"),
            other => panic!("{other:?}"),
        }
        // A frame whose message claims more bytes than the frame holds.
        let lying = vec![0, 0, 0, 4, 2, 0x08, 0, 9];
        match one_call(lying).await {
            Err(CallError::Broken(why)) => assert!(why.contains("bad reply"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    /// A reply over the limit fails its own call; it is read past, in pieces as it comes,
    /// and the next call on the same connection gets its reply.
    #[tokio::test]
    async fn a_reply_too_large_fails_its_call_and_the_connection_goes_on() {
        let address = one_client(|mut socket| async move {
            read_call(&mut socket).await;
            let big = reply_to(0, &[7u8; 5000]);
            for piece in big.chunks(700) {
                socket.write_all(piece).await.unwrap();
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
            read_call(&mut socket).await;
            socket.write_all(&reply_to(1, b"small")).await.unwrap();
            read_call(&mut socket).await;
        })
        .await;
        let c = open_plain(&address).await;
        let get = proto::GetRequest::default();
        let first = c.call("Get", &get, &[], Duration::from_secs(5)).await;
        assert!(
            matches!(first, Err(CallError::ReplyTooLarge(n, 1024)) if n > 5000),
            "{first:?}"
        );
        assert!(c.is_open(), "the connection is kept");
        let second = c.call("Get", &get, &[], Duration::from_secs(5)).await;
        assert_eq!(&second.unwrap().message[..], b"small");
    }

    #[tokio::test]
    async fn many_calls_share_one_connection_and_get_their_own_replies() {
        // A server that answers each call with its own call id as the message, in reverse
        // order of arrival, once 64 have come.
        let address = one_client(|mut socket| async move {
            let mut ids = Vec::new();
            for _ in 0..64 {
                let call = read_call(&mut socket).await;
                let header =
                    <proto::RequestHeader as prost::Message>::decode_length_delimited(&call[..])
                        .unwrap();
                ids.push(header.call_id.unwrap());
            }
            for id in ids.into_iter().rev() {
                socket
                    .write_all(&reply_to(id, id.to_string().as_bytes()))
                    .await
                    .unwrap();
            }
            tokio::time::sleep(Duration::from_secs(5)).await;
        })
        .await;
        let c = open_plain(&address).await;
        let calls = (0..64).map(|_| {
            let c = &c;
            async move {
                let reply = c
                    .call(
                        "Get",
                        &proto::GetRequest::default(),
                        &[],
                        Duration::from_secs(5),
                    )
                    .await
                    .unwrap();
                (reply.call_id, reply.message)
            }
        });
        let replies = futures::future::join_all(calls).await;
        for (id, message) in &replies {
            assert_eq!(&message[..], id.to_string().as_bytes());
        }
        let mut ids: Vec<i32> = replies.iter().map(|r| r.0).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(
            ids.len(),
            64,
            "64 calls, 64 distinct ids, each its own reply"
        );
    }

    #[tokio::test]
    async fn a_connection_the_server_closed_while_idle_is_replaced_before_the_next_call() {
        // Each connection gets one reply, then the server closes it.
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap().to_string();
        tokio::spawn(async move {
            loop {
                let (socket, _) = listener.accept().await.unwrap();
                tokio::spawn(async move {
                    let mut socket = socket;
                    let mut head = [0u8; 10];
                    socket.read_exact(&mut head).await.unwrap();
                    let len = u32::from_be_bytes(head[6..10].try_into().unwrap()) as usize;
                    socket.read_exact(&mut vec![0u8; len]).await.unwrap();
                    let call = read_call(&mut socket).await;
                    let header = <proto::RequestHeader as prost::Message>::decode_length_delimited(
                        &call[..],
                    )
                    .unwrap();
                    let id = header.call_id.unwrap();
                    socket.write_all(&reply_to(id, b"ok")).await.unwrap();
                });
            }
        });
        let connections = Connections::new(simple(), Duration::from_secs(5), 1024);
        let call = |c: Arc<Connection>| async move {
            c.call(
                "Get",
                &proto::GetRequest::default(),
                &[],
                Duration::from_secs(5),
            )
            .await
        };
        let first = connections.get(&address, Service::Client).await.unwrap();
        assert_eq!(&call(first).await.unwrap().message[..], b"ok");
        tokio::time::sleep(Duration::from_millis(IDLE_CHECK_MS + 300)).await;
        let second = connections.get(&address, Service::Client).await.unwrap();
        assert_eq!(&call(second).await.unwrap().message[..], b"ok");
        assert_eq!(connections.opened.load(Ordering::Relaxed), 2);
    }

    #[tokio::test]
    async fn a_call_that_times_out_leaves_the_next_reply_whole() {
        // The server sends the start of the first call's reply at once and the rest only after
        // the second call came (the first caller has given up by then, with part of a frame
        // read), then the second call's reply.
        let address = one_client(|mut socket| async move {
            read_call(&mut socket).await;
            let late = reply_to(0, b"late");
            socket.write_all(&late[..5]).await.unwrap();
            read_call(&mut socket).await;
            socket.write_all(&late[5..]).await.unwrap();
            socket.write_all(&reply_to(1, b"second")).await.unwrap();
            tokio::time::sleep(Duration::from_secs(5)).await;
        })
        .await;
        let c = open_plain(&address).await;
        let get = proto::GetRequest::default();
        let first = c.call("Get", &get, &[], Duration::from_millis(100)).await;
        assert!(matches!(first, Err(CallError::Timeout(_))), "{first:?}");
        let second = c
            .call("Get", &get, &[], Duration::from_secs(5))
            .await
            .unwrap();
        assert_eq!(&second.message[..], b"second");
        assert!(c.is_open());
    }

    /// A message that says it is larger than a frame can carry (and is never written).
    struct Huge;

    impl frame::Param for Huge {
        fn param_len(&self) -> usize {
            frame::MAX_REQUEST - 10
        }

        fn write_param(&self, _: &mut Vec<u8>) {
            unreachable!("a request too large is not written")
        }
    }

    #[tokio::test]
    async fn a_request_larger_than_a_frame_is_refused_before_anything_is_sent() {
        let address = one_client(|mut socket| async move {
            read_call(&mut socket).await;
            // The refused call took id 0: the next one is 1.
            socket.write_all(&reply_to(1, b"after")).await.unwrap();
            tokio::time::sleep(Duration::from_secs(5)).await;
        })
        .await;
        let c = open_plain(&address).await;
        let refused = c
            .call("Multi", &Huge, &[0; 11], Duration::from_secs(5))
            .await;
        assert!(
            matches!(refused, Err(CallError::TooLarge(n)) if n == frame::MAX_REQUEST + 1),
            "{refused:?}"
        );
        let get = proto::GetRequest::default();
        let next = c
            .call("Get", &get, &[], Duration::from_secs(5))
            .await
            .unwrap();
        assert_eq!(&next.message[..], b"after", "the connection is still whole");
    }
}
