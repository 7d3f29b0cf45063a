//! One TCP connection to one server for one service, with many calls in flight on it.
//!
//! Calls are numbered; a writer task sends their frames in the order they were handed over (a
//! caller that gives up never leaves half a frame on the socket), and a reader task hands each
//! reply to the call whose id it carries, in whatever order the server answers. A reply larger
//! than the limit, a frame that does not decode, a closed socket: the connection is dead, every
//! call still waiting fails with the reason, and the next call opens a new one.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::BytesMut;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot};

use super::frame::{self, BadFrame, Reply, Service};
use super::proto;

/// Why a call got no reply message.
#[derive(Debug)]
pub(crate) enum CallError {
    /// The connection could not be opened: the call was not sent.
    Connect(std::io::Error),
    /// The connection died before the reply came (the call may have reached the server).
    Broken(String),
    /// No reply within the limit (the call may have reached the server).
    Timeout(Duration),
    /// The server answered with an exception.
    Remote(proto::ExceptionResponse),
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

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<i32, oneshot::Sender<Result<Reply, CallError>>>> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A connection to one server for one service.
pub(crate) struct Connection {
    address: String,
    frames: mpsc::UnboundedSender<Vec<u8>>,
    shared: Arc<Shared>,
    next_id: AtomicI32,
    tasks: [tokio::task::JoinHandle<()>; 2],
}

impl Drop for Connection {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
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
        user: &str,
        connect_timeout: Duration,
        max_reply_bytes: usize,
    ) -> Result<Connection, CallError> {
        let dial = async {
            let mut stream = TcpStream::connect(address).await?;
            stream.set_nodelay(true)?;
            stream
                .write_all(&frame::connection_preamble(service, user))
                .await?;
            Ok::<_, std::io::Error>(stream)
        };
        let stream = match tokio::time::timeout(connect_timeout, dial).await {
            Ok(Ok(stream)) => stream,
            Ok(Err(e)) => return Err(CallError::Connect(e)),
            Err(_) => {
                return Err(CallError::Connect(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!("no connection within {connect_timeout:?}"),
                )))
            }
        };
        let (read, write) = stream.into_split();
        let shared = Arc::new(Shared::default());
        let (frames, queue) = mpsc::unbounded_channel();
        let reader = tokio::spawn(read_replies(read, shared.clone(), max_reply_bytes));
        let writer = tokio::spawn(write_frames(write, queue, shared.clone()));
        Ok(Connection {
            address: address.to_string(),
            frames,
            shared,
            next_id: AtomicI32::new(0),
            tasks: [reader, writer],
        })
    }

    /// Whether the connection still works.
    pub(crate) fn is_open(&self) -> bool {
        !self.shared.dead.load(Ordering::SeqCst)
    }

    /// Sends `param` to `method` and waits up to `timeout` for the reply.
    pub(crate) async fn call(
        &self,
        method: &str,
        param: &impl prost::Message,
        timeout: Duration,
    ) -> Result<Reply, CallError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed) & i32::MAX;
        let (tx, rx) = oneshot::channel();
        self.shared.lock().insert(id, tx);
        let _slot = Waiting {
            shared: &self.shared,
            id,
        };
        if !self.is_open() || self.frames.send(frame::call_frame(id, method, param)).is_err() {
            return Err(CallError::Broken(format!(
                "the connection to {} is closed",
                self.address
            )));
        }
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(Ok(reply))) => match reply.exception {
                Some(exception) => Err(CallError::Remote(exception)),
                None => Ok(reply),
            },
            Ok(Ok(Err(e))) => Err(e),
            Ok(Err(_)) => Err(CallError::Broken(format!(
                "the connection to {} closed",
                self.address
            ))),
            Err(_) => Err(CallError::Timeout(timeout)),
        }
    }
}

/// Writes the frames handed over, several at once when they queue up.
async fn write_frames(
    mut socket: tokio::net::tcp::OwnedWriteHalf,
    mut queue: mpsc::UnboundedReceiver<Vec<u8>>,
    shared: Arc<Shared>,
) {
    let mut batch = Vec::new();
    while let Some(first) = queue.recv().await {
        batch.clear();
        batch.extend_from_slice(&first);
        while batch.len() < 1 << 20 {
            match queue.try_recv() {
                Ok(more) => batch.extend_from_slice(&more),
                Err(_) => break,
            }
        }
        if let Err(e) = socket.write_all(&batch).await {
            shared.fail_all(&format!("writing to the server failed: {e}"));
            return;
        }
    }
}

/// Reads replies and hands each to its call until the connection fails.
async fn read_replies(
    mut socket: tokio::net::tcp::OwnedReadHalf,
    shared: Arc<Shared>,
    max_reply_bytes: usize,
) {
    let why = loop {
        match read_reply(&mut socket, max_reply_bytes).await {
            Ok(reply) if reply.call_id < 0 => {
                // A reply to no call: the server refuses the connection itself.
                let exception = reply.exception.unwrap_or_default();
                break format!(
                    "the server closed the connection: {} {}",
                    exception.exception_class_name.unwrap_or_default(),
                    exception.stack_trace.unwrap_or_default()
                );
            }
            Ok(reply) => {
                let waiting = shared.lock().remove(&reply.call_id);
                if let Some(tx) = waiting {
                    let _ = tx.send(Ok(reply));
                } else {
                    // A reply to a call that stopped waiting (timed out, dropped).
                    tracing::debug!(call_id = reply.call_id, "reply to no waiting call");
                }
            }
            Err(why) => break why,
        }
    };
    shared.fail_all(&why);
}

/// Reads one reply frame.
async fn read_reply(
    socket: &mut tokio::net::tcp::OwnedReadHalf,
    max_reply_bytes: usize,
) -> Result<Reply, String> {
    let mut len = [0u8; 4];
    socket
        .read_exact(&mut len)
        .await
        .map_err(|e| format!("reading from the server failed: {e}"))?;
    let len = u32::from_be_bytes(len) as usize;
    if len > max_reply_bytes {
        return Err(format!(
            "a reply of {len} bytes exceeds the limit of {max_reply_bytes} bytes (Config::max_reply_bytes)"
        ));
    }
    let mut buf = BytesMut::zeroed(len);
    socket
        .read_exact(&mut buf)
        .await
        .map_err(|e| format!("reading from the server failed: {e}"))?;
    frame::split_reply(buf.freeze()).map_err(|BadFrame(why)| format!("a bad reply: {why}"))
}

/// The connections of a client, one per server and service, opened on first use and replaced
/// when they die.
pub(crate) struct Connections {
    open: Mutex<HashMap<(String, Service), Arc<Connection>>>,
    user: String,
    connect_timeout: Duration,
    max_reply_bytes: usize,
    /// Connections opened since the client was made.
    pub(crate) opened: AtomicU64,
}

impl Connections {
    /// No connection yet; `user` is the name given to the servers.
    pub(crate) fn new(user: String, connect_timeout: Duration, max_reply_bytes: usize) -> Self {
        Connections {
            open: Mutex::new(HashMap::new()),
            user,
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
        if let Some(c) = self.lock().get(&key).filter(|c| c.is_open()) {
            return Ok(c.clone());
        }
        let fresh = Arc::new(
            Connection::open(
                address,
                service,
                &self.user,
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
