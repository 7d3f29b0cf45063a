//! Files written on a thread of their own: a [`Destination`] whose files take their bytes in
//! memory, where the load encodes them, and hand them in pieces of [`PIECE`] to one thread
//! (a thread of its own, not the runtime's: it lives as long as the load's input) that
//! creates, writes and closes the files of the destination behind it. The load's task does no
//! I/O and never blocks, and pays for the files' system calls only in the wall time the
//! writing thread cannot hide; [`Pipe::room`] holds it back while [`IN_FLIGHT`] bytes are
//! handed over and not yet taken by the destination, and lets the runtime run its other tasks
//! now and then. A piece is given to the destination whole ([`Sink::write_piece`]): a local
//! file writes its bytes, an HDFS file keeps it (no copy) until the DataNodes acknowledge it;
//! its buffer then comes back to be filled again.
//!
//! A failure of the writing thread (its panic too) is told at the next [`Pipe::room`] or at
//! [`Pipe::end`]: what came after it is dropped unwritten. A pipe dropped without
//! [`Pipe::end`] (its load given up, or its future dropped) has its thread create and write
//! nothing more.

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use super::files::{Destination, Location, Sink};
use super::piece::{Piece, Pool, PIECE};
use crate::model::{Error, Result};

/// Bytes handed over and not yet taken by the destination, at most, before [`Pipe::room`]
/// waits.
const IN_FLIGHT: usize = 4 * PIECE;

/// What the writing thread is told.
enum Message {
    /// Creates file `id`, `name` of `family`.
    Create {
        id: usize,
        family: String,
        name: String,
    },
    /// Appends `piece` to file `id`.
    Write { id: usize, piece: Piece },
    /// Closes file `id`.
    Close { id: usize },
    /// Stops the thread (every file was closed).
    End,
}

/// What the load's thread and the writing thread share.
struct Shared {
    /// Bytes handed over and not yet taken by the destination.
    in_flight: AtomicUsize,
    /// Told when bytes were taken by the destination (or the thread failed).
    written: tokio::sync::Notify,
    /// The thread failed: its error is in `error` (until it is told).
    failed: AtomicBool,
    /// The pipe was dropped: the thread creates and writes nothing more.
    dropped: AtomicBool,
    error: Mutex<Option<Error>>,
    /// Where the buffers of pieces go back when dropped (written, or let go by the
    /// destination), for the next ones.
    pool: Arc<Pool>,
}

impl Shared {
    /// Counts `bytes` handed over as taken by the destination (or dropped), and wakes the
    /// load's task.
    fn done(&self, bytes: usize) {
        self.in_flight.fetch_sub(bytes, Ordering::AcqRel);
        self.written.notify_one();
    }

    /// Records the thread's first failure.
    fn fail(&self, e: Error) {
        if let Ok(mut error) = self.error.lock() {
            error.get_or_insert(e);
        }
        self.failed.store(true, Ordering::Release);
        self.written.notify_one();
    }

    /// The thread's failure, once (later calls give one saying it was told).
    fn failure(&self) -> Error {
        let error = self.error.lock().ok().and_then(|mut e| e.take());
        error.unwrap_or_else(|| stopped("the load's files"))
    }
}

/// The error of a file handed to a thread that stopped writing (its failure is told once,
/// by [`Pipe::room`] or [`Pipe::end`]).
fn stopped(location: &str) -> Error {
    Error::Staging {
        location: location.to_string(),
        message: "the thread writing the load's files stopped after a failure".into(),
    }
}

/// The writing thread's end, whatever ends it: a panic is its failure, and the load's task is
/// woken (and never waits for bytes again).
struct Ending<'s> {
    shared: &'s Shared,
    ended: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Drop for Ending<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.shared.fail(Error::Staging {
                location: "the load's files".into(),
                message: "the thread writing them panicked".into(),
            });
        }
        if let Some(ended) = self.ended.take() {
            let _ = ended.send(());
        }
    }
}

/// Files of a destination written on a thread of their own (see the module documentation).
pub(super) struct Pipe {
    to: Arc<dyn Destination>,
    messages: mpsc::Sender<Message>,
    shared: Arc<Shared>,
    next: AtomicUsize,
    /// Told when the thread ends (taken by [`Pipe::end`]).
    ended: Mutex<Option<tokio::sync::oneshot::Receiver<()>>>,
}

impl Pipe {
    /// Starts the thread writing the files of `to`; an error when the system refuses a
    /// thread.
    pub(super) fn start(to: Arc<dyn Destination>) -> Result<Arc<Pipe>> {
        let (messages, received) = mpsc::channel();
        let shared = Arc::new(Shared {
            in_flight: AtomicUsize::new(0),
            written: tokio::sync::Notify::new(),
            failed: AtomicBool::new(false),
            dropped: AtomicBool::new(false),
            error: Mutex::new(None),
            pool: Arc::default(),
        });
        let (ended_tx, ended) = tokio::sync::oneshot::channel();
        let (writer_to, writer_shared) = (to.clone(), shared.clone());
        std::thread::Builder::new()
            .name("hbase-orm-bulk-files".into())
            .spawn(move || {
                let _ending = Ending {
                    shared: &writer_shared,
                    ended: Some(ended_tx),
                };
                write_all(&*writer_to, &writer_shared, received);
            })
            .map_err(|e| Error::Staging {
                location: "the load's files".into(),
                message: format!("no thread to write them: {e}"),
            })?;
        Ok(Arc::new(Pipe {
            to,
            messages,
            shared,
            next: AtomicUsize::new(0),
            ended: Mutex::new(Some(ended)),
        }))
    }

    /// The destination the files are written to (to read them once [`Pipe::end`] returned).
    pub(super) fn inner(&self) -> Arc<dyn Destination> {
        self.to.clone()
    }

    /// Waits while more than [`IN_FLIGHT`] bytes are handed over and not taken, and lets
    /// the runtime run other tasks when this one has run long (its cooperative budget); the
    /// writing thread's failure, if it failed.
    pub(super) async fn room(&self) -> Result<()> {
        loop {
            if self.shared.failed.load(Ordering::Acquire) {
                return Err(self.shared.failure());
            }
            if self.shared.in_flight.load(Ordering::Acquire) <= IN_FLIGHT {
                tokio::task::coop::consume_budget().await;
                return Ok(());
            }
            // The thread's `notify_one` leaves a permit when nobody waits yet: a piece taken
            // between the check and this wait is not missed.
            self.shared.written.notified().await;
        }
    }

    /// Stops the thread once it has written what was handed over: the first failure, if
    /// any. Call it once every file is closed.
    pub(super) async fn end(&self) -> Result<()> {
        let _ = self.messages.send(Message::End);
        let ended = self.ended.lock().ok().and_then(|mut e| e.take());
        if let Some(ended) = ended {
            // The thread tells its end even when it panics.
            let _ = ended.await;
        }
        if self.shared.failed.load(Ordering::Acquire) {
            return Err(self.shared.failure());
        }
        Ok(())
    }
}

impl Drop for Pipe {
    fn drop(&mut self) {
        self.shared.dropped.store(true, Ordering::Release);
        let _ = self.messages.send(Message::End);
    }
}

impl Destination for Pipe {
    fn create(&self, family: &str, name: &str) -> Result<Box<dyn Sink>> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let location = self.to.location(family, name);
        self.messages
            .send(Message::Create {
                id,
                family: family.to_string(),
                name: name.to_string(),
            })
            .map_err(|_| stopped(&location.url()))?;
        Ok(Box::new(Piped {
            id,
            shown: location.url(),
            location: Some(location),
            piece: Vec::new(),
            messages: self.messages.clone(),
            shared: self.shared.clone(),
        }))
    }

    fn location(&self, family: &str, name: &str) -> Location {
        self.to.location(family, name)
    }

    fn open(&self, location: &Location) -> Result<Box<dyn std::io::Read + Send>> {
        self.to.open(location)
    }
}

/// A file whose bytes are handed to the writing thread.
struct Piped {
    id: usize,
    location: Option<Location>,
    /// Its location, for errors.
    shown: String,
    piece: Vec<u8>,
    messages: mpsc::Sender<Message>,
    shared: Arc<Shared>,
}

impl Piped {
    /// Hands the gathered bytes over.
    fn hand(&mut self) -> std::io::Result<()> {
        if self.piece.is_empty() {
            return Ok(());
        }
        let piece = Piece::new(std::mem::take(&mut self.piece), self.shared.pool.clone());
        let len = piece.len();
        self.shared.in_flight.fetch_add(len, Ordering::AcqRel);
        let id = self.id;
        self.messages
            .send(Message::Write { id, piece })
            .map_err(|_| {
                self.shared.done(len);
                std::io::Error::other(stopped(&self.shown))
            })
    }
}

impl Write for Piped {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if self.piece.capacity() == 0 {
            self.piece = self.shared.pool.buffer();
        }
        self.piece.extend_from_slice(bytes);
        if self.piece.len() >= PIECE {
            self.hand()?;
        }
        Ok(bytes.len())
    }

    /// Nothing: the bytes are handed over by the piece, and the rest when the file closes.
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Sink for Piped {
    fn location(&self) -> &str {
        &self.shown
    }

    /// Hands the rest over and has the file closed; where it will be (the writing thread's
    /// failure is told by [`Pipe::end`]).
    fn close(mut self: Box<Self>) -> Result<Location> {
        self.hand().map_err(|_| stopped(&self.shown))?;
        let id = self.id;
        self.messages
            .send(Message::Close { id })
            .map_err(|_| stopped(&self.shown))?;
        Ok(self.location.take().expect("a file closes once"))
    }
}

/// The writing thread: creates, writes and closes the files it is told of, until
/// [`Message::End`] (or every sender is gone). After a failure, or once the pipe was dropped,
/// it drops what comes, telling the bytes taken all the same (the load's task must not wait
/// for them).
fn write_all(to: &dyn Destination, shared: &Shared, received: mpsc::Receiver<Message>) {
    let mut files: Vec<Option<Box<dyn Sink>>> = Vec::new();
    let mut failed = false;
    for message in received {
        if !failed && shared.dropped.load(Ordering::Acquire) {
            failed = true;
            files.clear();
        }
        let done = match message {
            Message::End => break,
            Message::Create { id, family, name } => {
                if files.len() <= id {
                    files.resize_with(id + 1, || None);
                }
                if !failed {
                    match to.create(&family, &name) {
                        Ok(sink) => files[id] = Some(sink),
                        Err(e) => {
                            failed = true;
                            shared.fail(e);
                        }
                    }
                }
                0
            }
            Message::Write { id, piece } => {
                let len = piece.len();
                if let Some(sink) = files.get_mut(id).and_then(Option::as_mut) {
                    if let Err(e) = sink.write_piece(piece) {
                        // The destination's own error when it gave one.
                        let e = e.downcast::<Error>().unwrap_or_else(|e| Error::Staging {
                            location: sink.location().to_string(),
                            message: format!("writing: {e}"),
                        });
                        failed = true;
                        files.clear();
                        shared.fail(e);
                    }
                }
                len
            }
            Message::Close { id } => {
                if let Some(sink) = files.get_mut(id).and_then(Option::take) {
                    if let Err(e) = sink.close() {
                        failed = true;
                        files.clear();
                        shared.fail(e);
                    }
                }
                0
            }
        };
        if done > 0 {
            shared.done(done);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::files::tests::{refusing, Taking};
    use super::super::files::{not_here, LocalFiles};
    use super::*;

    /// The files' bytes written by the thread come out whole (pieces of several files
    /// interleaved, each in order), at the locations the destination gives; the thread's
    /// failure is the destination's own error, told by `room` or `end`, and the load's
    /// thread never waits for bytes that will not be written.
    #[tokio::test]
    async fn files_come_out_whole_and_a_failure_is_told() {
        let dir = std::env::temp_dir().join(format!("pipe-{}", std::process::id()));
        let pipe = Pipe::start(Arc::new(LocalFiles(dir.clone()))).unwrap();
        let (mut a, mut b) = (
            pipe.create("d", "a").unwrap(),
            pipe.create("e", "b").unwrap(),
        );
        let (mut want_a, mut want_b) = (Vec::new(), Vec::new());
        for i in 0..3_000u32 {
            let bytes = vec![i as u8; 1_000 + i as usize % 700];
            a.write_all(&bytes).unwrap();
            want_a.extend_from_slice(&bytes);
            if i % 3 == 0 {
                b.write_all(&bytes[..100]).unwrap();
                want_b.extend_from_slice(&bytes[..100]);
            }
            pipe.room().await.unwrap();
            assert!(pipe.shared.in_flight.load(Ordering::Acquire) <= IN_FLIGHT + PIECE * 2);
        }
        let (at_a, at_b) = (a.close().unwrap(), b.close().unwrap());
        pipe.end().await.unwrap();
        let Location::Local(path_a) = at_a else {
            panic!("a local file")
        };
        let Location::Local(path_b) = at_b else {
            panic!("a local file")
        };
        assert_eq!(path_a, dir.join("files").join("d").join("a"));
        assert_eq!(std::fs::read(&path_a).unwrap(), want_a);
        assert_eq!(std::fs::read(&path_b).unwrap(), want_b);
        std::fs::remove_dir_all(&dir).unwrap();

        let pipe = Pipe::start(Arc::new(refusing())).unwrap();
        let mut file = pipe.create("d", "f").unwrap();
        let mut told = None;
        for _ in 0..64 {
            // Written past the failure: dropped, never waited for.
            file.write_all(&[7; 300 << 10]).unwrap_or(());
            if let Err(e) = pipe.room().await {
                told = Some(e);
                break;
            }
        }
        drop(file);
        let told = match told {
            Some(e) => e,
            None => pipe
                .end()
                .await
                .expect_err("the destination refused the bytes"),
        };
        match told {
            Error::Staging { location, message } => {
                assert_eq!(
                    (location.as_str(), message.as_str()),
                    ("far:/load/d/f", "no room left")
                )
            }
            e => panic!("the destination's error, not {e}"),
        }
        assert!(pipe.end().await.is_err(), "a failure is told again");
    }

    /// A destination whose files take their bytes only once the test lets them (`gate`
    /// holds the number of writes allowed), or panic on their first byte.
    fn gated(gate: Arc<(std::sync::Mutex<usize>, std::sync::Condvar)>, panics: bool) -> Taking {
        Taking(Arc::new(move |_| {
            assert!(!panics, "a sink that panics");
            let (allowed, open) = &*gate;
            let mut allowed = allowed.lock().unwrap();
            while *allowed == 0 {
                allowed = open.wait(allowed).unwrap();
            }
            *allowed -= 1;
            Ok(())
        }))
    }

    /// `room` waits while more than `IN_FLIGHT` bytes are not written, and returns once they
    /// are; a writing thread that panics is a failure told (the load's task never hangs).
    #[tokio::test]
    async fn the_load_waits_for_the_thread_and_hears_of_its_panic() {
        let gate = Arc::new((std::sync::Mutex::new(0), std::sync::Condvar::new()));
        let pipe = Pipe::start(Arc::new(gated(gate.clone(), false))).unwrap();
        let mut file = pipe.create("d", "f").unwrap();
        for _ in 0..=IN_FLIGHT / PIECE + 1 {
            file.write_all(&vec![1; PIECE]).unwrap();
        }
        let waiting = tokio::time::timeout(std::time::Duration::from_millis(300), pipe.room());
        assert!(
            waiting.await.is_err(),
            "the bytes are not written: room waits"
        );
        {
            let (allowed, open) = &*gate;
            *allowed.lock().unwrap() = usize::MAX;
            open.notify_all();
        }
        pipe.room().await.unwrap();
        assert!(pipe.shared.in_flight.load(Ordering::Acquire) <= IN_FLIGHT);
        assert!(matches!(file.close(), Ok(Location::Url(url)) if url == "far:/load/d/f"));
        pipe.end().await.unwrap();

        let pipe = Pipe::start(Arc::new(gated(gate, true))).unwrap();
        let mut file = pipe.create("d", "f").unwrap();
        file.write_all(&vec![1; PIECE]).unwrap();
        let told = tokio::time::timeout(std::time::Duration::from_secs(10), pipe.end())
            .await
            .expect("the end of a thread that panicked is told");
        match told {
            Err(Error::Staging { message, .. }) => assert!(message.contains("panicked")),
            other => panic!("a thread that panicked is a failure, not {other:?}"),
        }
    }

    /// A destination that keeps the pieces it is given, as an HDFS file keeps them until the
    /// DataNodes acknowledge them: `kept` holds them; a file named `refused` is not created,
    /// and one named `unclosed` does not close.
    struct Keeping {
        kept: Arc<Mutex<Vec<Piece>>>,
    }

    struct KeptFile {
        name: String,
        kept: Arc<Mutex<Vec<Piece>>>,
    }

    impl Destination for Keeping {
        fn create(&self, _: &str, name: &str) -> Result<Box<dyn Sink>> {
            if name == "refused" {
                return Err(refusal("refused", "not created"));
            }
            Ok(Box::new(KeptFile {
                name: name.to_string(),
                kept: self.kept.clone(),
            }))
        }

        fn location(&self, _: &str, name: &str) -> Location {
            Location::Url(format!("far:/load/d/{name}"))
        }

        fn open(&self, location: &Location) -> Result<Box<dyn std::io::Read + Send>> {
            Err(not_here(location))
        }
    }

    impl Write for KeptFile {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            panic!("a keeping file is given its pieces whole")
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Sink for KeptFile {
        fn location(&self) -> &str {
            &self.name
        }

        fn write_piece(&mut self, piece: Piece) -> std::io::Result<()> {
            self.kept.lock().unwrap().push(piece);
            Ok(())
        }

        fn close(self: Box<Self>) -> Result<Location> {
            if self.name == "unclosed" {
                return Err(refusal("unclosed", "not closed"));
            }
            Ok(Location::Url(format!("far:/load/d/{}", self.name)))
        }
    }

    /// The error a [`Keeping`] destination gives for file `name`.
    fn refusal(name: &str, message: &str) -> Error {
        Error::Staging {
            location: format!("far:/load/d/{name}"),
            message: message.into(),
        }
    }

    /// A destination that keeps its pieces gets them whole and in order, each as it was
    /// filled (no copy); dropped, their buffers are filled again. A file the destination
    /// does not create, or does not close, is the load's failure, told at its end.
    #[tokio::test]
    async fn pieces_kept_come_back_and_a_file_not_created_or_closed_is_told() {
        let kept = Arc::new(Mutex::new(Vec::new()));
        let pipe = Pipe::start(Arc::new(Keeping { kept: kept.clone() })).unwrap();
        let mut file = pipe.create("d", "f").unwrap();
        let mut want = Vec::new();
        for i in 0..3_000u32 {
            let bytes = vec![i as u8; 1_000 + i as usize % 700];
            file.write_all(&bytes).unwrap();
            want.extend_from_slice(&bytes);
            pipe.room().await.unwrap();
        }
        file.close().unwrap();
        pipe.end().await.unwrap();
        // Taken by the destination is no longer in flight, though still kept.
        assert_eq!(pipe.shared.in_flight.load(Ordering::Acquire), 0);
        let pieces = std::mem::take(&mut *kept.lock().unwrap());
        assert!(pieces.len() > 2, "{} pieces", pieces.len());
        // Each the buffer it was filled in (a copy would have the capacity of its length).
        assert!(pieces
            .iter()
            .all(|p| p.len() <= PIECE + 1_700 && p.capacity() > PIECE));
        assert_eq!(
            pieces
                .iter()
                .flat_map(|p| p.as_ref())
                .copied()
                .collect::<Vec<u8>>(),
            want
        );
        // Kept by the destination, none came back before; dropped, every one does.
        assert_eq!(pipe.shared.pool.kept(), 0);
        let (count, buffers): (usize, Vec<*const u8>) = (
            pieces.len(),
            pieces.iter().map(|p| p.as_ref().as_ptr()).collect(),
        );
        drop(pieces);
        assert_eq!(pipe.shared.pool.kept(), count);
        let again = pipe.shared.pool.buffer();
        assert!(again.is_empty() && buffers.contains(&again.as_ptr()));

        for (name, said) in [("refused", "not created"), ("unclosed", "not closed")] {
            let pipe = Pipe::start(Arc::new(Keeping { kept: kept.clone() })).unwrap();
            let mut file = pipe.create("d", name).unwrap();
            file.write_all(b"bytes").unwrap();
            file.close().unwrap();
            match pipe.end().await {
                Err(Error::Staging { location, message }) => assert_eq!(
                    (location, message.as_str()),
                    (format!("far:/load/d/{name}"), said)
                ),
                other => panic!("{name}: the destination's failure, not {other:?}"),
            }
        }
    }

    /// A local file's location, as the pipe tells it before the file is written, is where
    /// the destination puts it.
    #[test]
    fn a_local_file_is_where_its_location_says() {
        let dir = std::env::temp_dir().join(format!("pipe-location-{}", std::process::id()));
        let to = LocalFiles(dir.clone());
        let told = to.location("d", "f").url();
        assert_eq!(to.create("d", "f").unwrap().close().unwrap().url(), told);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
