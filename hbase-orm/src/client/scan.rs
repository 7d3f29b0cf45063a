//! Scans as `futures::Stream`s of rows, with the server-side scanner closed on every exit.

use std::pin::Pin;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::stream::{BoxStream, Stream, StreamExt};

use super::handle::Client;
use super::plan::{KeyRange, ScanPlan};
use crate::backend::op;
use crate::model::{Error, Result, Row, Scan, ScannedRow, ScannerPage, TableName};

/// Rows fetched per round trip when the scan does not say.
const DEFAULT_PAGE: i32 = 256;

/// The rows of a scan, in key order (descending for reversed scans).
///
/// Returned by [`crate::Table::scan`]. Pages are fetched lazily as the stream is polled.
/// Dropping the stream early closes the scanner on the gateway in a background task.
pub struct RowStream {
    /// The rows, each still in the page it arrived in: an entity scan decodes them there, and
    /// this stream turns them into [`Row`]s.
    inner: BoxStream<'static, Result<ScannedRow>>,
    scanner_id: Arc<AtomicI64>,
}

/// `scanner_id` before a scanner is opened.
const NO_SCANNER: i64 = i64::MIN;

impl RowStream {
    pub(crate) fn new(client: Client, table: TableName, scan: Scan) -> Self {
        let scanner_id = Arc::new(AtomicI64::new(NO_SCANNER));
        // Boxed: the stream hands the state from row to row, a pointer instead of the whole.
        let state = Box::new(State::new(client, table, scan, scanner_id.clone()));
        RowStream {
            inner: futures::stream::unfold(state, State::next).boxed(),
            scanner_id,
        }
    }

    /// The gateway's id of this stream's scanner, once the first page was requested. For
    /// diagnostics, with [`Client::scanner_is_open`]. Always `None` for a merged scan of a
    /// salted table, which runs one scanner per bucket.
    pub fn scanner_id(&self) -> Option<i32> {
        i32::try_from(self.scanner_id.load(Ordering::Relaxed)).ok()
    }

    /// A stream of rows that runs no scanner of its own (merged or parallel scans).
    pub(super) fn from_rows(inner: BoxStream<'static, Result<ScannedRow>>) -> Self {
        RowStream {
            inner,
            scanner_id: Arc::new(AtomicI64::new(NO_SCANNER)),
        }
    }

    /// The rows as they are read, each in its page: for decoding them without making
    /// [`Row`]s (a row's cells are borrowed from its page, no copy, no allocation per cell).
    ///
    /// ```no_run
    /// # async fn demo(table: hbase_orm::Table) -> hbase_orm::Result<()> {
    /// use futures::TryStreamExt;
    /// let mut rows = table.scan(hbase_orm::Scan::new()).into_scanned();
    /// let mut bytes = 0;
    /// while let Some(row) = rows.try_next().await? {
    ///     bytes += row.key().len() + row.cells().map(|c| c.value.len()).sum::<usize>();
    /// }
    /// # Ok(()) }
    /// ```
    pub fn into_scanned(self) -> BoxStream<'static, Result<ScannedRow>> {
        self.inner
    }

    /// The next row still in its page.
    pub(super) async fn next_scanned(&mut self) -> Option<Result<ScannedRow>> {
        self.inner.next().await
    }
}

impl Stream for RowStream {
    type Item = Result<Row>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner
            .poll_next_unpin(cx)
            .map(|row| row.map(|row| row.map(ScannedRow::into_row)))
    }
}

impl std::fmt::Debug for RowStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RowStream")
    }
}

/// Whether `e` means the scanner (or the way to it) is gone while the scan could go on: the
/// gateway no longer knows the id (restarted, or the lease expired), the connection broke, or
/// retries ran out while the gateway was away.
fn scanner_lost(e: &Error) -> bool {
    match e {
        Error::IllegalArgument { message } => message.to_ascii_lowercase().contains("scanner"),
        Error::Transport { .. } | Error::Timeout { .. } | Error::Connect { .. } => true,
        Error::Server { message, .. } => SCANNER_GONE.iter().any(|m| message.contains(m)),
        Error::Retried { source, .. } => scanner_lost(source),
        _ => false,
    }
}

/// What HBase says when a scanner's region-server side is gone: its lease expired while the
/// caller paused, or the region moved under it.
const SCANNER_GONE: &[&str] = &[
    "UnknownScannerException",
    "ScannerTimeoutException",
    "OutOfOrderScannerNextException",
    "LeaseException",
    "NotServingRegionException",
    "RegionMovedException",
];

/// An open scanner on the gateway; closed in the background if dropped while open, after the
/// page it may have in flight (a gateway may fail to close a scanner a call is reading from).
struct Scanner {
    client: Client,
    id: i32,
    open: bool,
    /// The next page, requested while the caller consumes the current one.
    ahead: Option<Prefetch>,
}

impl Scanner {
    async fn close(mut self) -> Result<()> {
        self.open = false;
        close_scanner(&self.client, self.id).await
    }
}

/// Asks the gateway to drop scanner `id`, once. It counts as closed whatever the answer: a
/// failed close is logged, and the gateway expires the scanner after its lease either way (a
/// gateway that is gone took its scanners with it).
async fn close_scanner(client: &Client, id: i32) -> Result<()> {
    let closed = client.send(&op::CloseScanner { id }).await;
    client.count_scanner(false);
    closed
}

impl Drop for Scanner {
    fn drop(&mut self) {
        if !self.open {
            return;
        }
        let (client, id, ahead) = (self.client.clone(), self.id, self.ahead.take());
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                if let Some(ahead) = ahead {
                    let _ = ahead.take().await;
                }
                if let Err(e) = close_scanner(&client, id).await {
                    tracing::debug!(scanner = id, error = %e, "closing an abandoned scanner failed");
                }
            });
        }
    }
}

struct State {
    client: Client,
    table: TableName,
    scan: Scan,
    /// The keys still to read: every returned row is in it, and it narrows past each one.
    range: KeyRange,
    scanner: Option<Scanner>,
    /// The page being handed out, from row `next` on.
    page: Option<Arc<ScannerPage>>,
    next: usize,
    remaining: Option<usize>,
    exhausted: bool,
    finished: bool,
    /// The key of the last row returned, where a resumed scan starts again.
    last_key: Option<Vec<u8>>,
    /// Scanners lost since the last row returned.
    resumes: u32,
    /// Shared with the [`RowStream`] so that it can report the scanner id.
    scanner_id: Arc<AtomicI64>,
}

/// A page being fetched in a task of its own, held by its [`Scanner`]. Once fetched, the page
/// waits in the task, which keeps the scanner alive meanwhile (a region scanner's lease is
/// renewed while the caller pauses: see [`keep_until_taken`]) until `taken` is sent or dropped.
struct Prefetch {
    task: tokio::task::JoinHandle<Result<ScannerPage>>,
    taken: tokio::sync::oneshot::Sender<()>,
}

impl Prefetch {
    /// The page, once the task has stopped keeping the scanner.
    async fn take(self) -> Result<ScannerPage> {
        drop(self.taken);
        self.task.await.map_err(|e| Error::Protocol {
            method: "getScannerRows",
            message: format!("the task fetching the next page failed: {e}"),
        })?
    }

    /// Stops the task, page and all.
    fn abort(self) {
        self.task.abort();
    }
}

/// Keeps scanner `id` alive until `taken` says the caller wants the page fetched for it: asks
/// the backend to keep it (the native backend renews its region scanner's lease once half of
/// it is gone) as often as the backend says, until the backend has nothing to keep. A keep
/// call under way is never cut short: a call dropped in the middle could take its connection
/// down with it.
async fn keep_until_taken(client: &Client, id: i32, mut taken: tokio::sync::oneshot::Receiver<()>) {
    loop {
        let keep = client.backend().keep_scanner(&op::KeepScanner { id }).await;
        let Ok(Some(wait)) = keep else {
            return;
        };
        tokio::select! {
            biased;
            _ = &mut taken => return,
            () = tokio::time::sleep(wait) => {}
        }
    }
}

impl State {
    fn new(client: Client, table: TableName, scan: Scan, scanner_id: Arc<AtomicI64>) -> Self {
        State {
            client,
            table,
            range: KeyRange::of(&scan),
            scanner: None,
            page: None,
            next: 0,
            remaining: scan.limit,
            exhausted: false,
            finished: false,
            last_key: None,
            resumes: 0,
            scan,
            scanner_id,
        }
    }

    /// The next row of the buffered page, if any is left.
    fn pop_row(&mut self) -> Option<ScannedRow> {
        let page = self.page.as_ref()?;
        let index = self.next;
        if index >= page.len() {
            self.page = None;
            return None;
        }
        self.next += 1;
        // The last row takes the page along: once the caller drops that row, the page is gone.
        let page = match self.next == page.len() {
            true => self.page.take()?,
            false => page.clone(),
        };
        Some(ScannedRow::new(page, index))
    }

    /// Rows of the buffered page not handed out yet.
    fn rows_left(&self) -> usize {
        self.page.as_ref().map_or(0, |p| p.len() - self.next)
    }

    async fn next(mut self: Box<Self>) -> Option<(Result<ScannedRow>, Box<State>)> {
        loop {
            if self.finished {
                return None;
            }
            if self.remaining == Some(0) {
                self.finish().await;
                return None;
            }
            if let Some(row) = self.pop_row() {
                if self.range.ends_before(row.key()) {
                    continue;
                }
                if self.range.starts_after(row.key()) {
                    // Only reversed scans reach keys below the range: everything after is lower.
                    self.finish().await;
                    return None;
                }
                if let Some(n) = &mut self.remaining {
                    *n -= 1;
                }
                self.resumes = 0;
                // Kept in one buffer for the whole scan: no allocation per row.
                let last = self.last_key.get_or_insert_with(Vec::new);
                last.clear();
                last.extend_from_slice(row.key());
                return Some((Ok(row), self));
            }
            if self.exhausted {
                self.finish().await;
                return None;
            }
            if let Err(e) = self.fetch().await {
                if self.resume_after_loss(&e) {
                    continue;
                }
                self.finish().await;
                return Some((Err(e), self));
            }
        }
    }

    /// After the scanner was lost (the gateway restarted, the connection broke, the scanner's
    /// lease expired while the caller paused), narrows the bounds to what comes after the last
    /// row returned and lets the next fetch open a new scanner: no row twice, none missing.
    /// Gives up after a few losses in a row without a row in between.
    ///
    /// A scan that never had a scanner failed to start: that error is the caller's. But the
    /// open of a scanner that replaces a lost one may break too (it can go out on a pooled
    /// connection to the gateway that just went away): it is tried again, within the same
    /// budget.
    fn resume_after_loss(&mut self, e: &Error) -> bool {
        const MAX_RESUMES: u32 = 5;
        let started = self.scanner.is_some() || self.resumes > 0;
        if !started || self.resumes >= MAX_RESUMES || !scanner_lost(e) {
            return false;
        }
        self.resumes += 1;
        self.client.count_resume();
        tracing::debug!(error = %e, resumes = self.resumes, "scanner lost; reopening after the last row");
        // The old scanner is forgotten, not closed: after a gateway restart its id may already
        // name another scanner of the new gateway process (this stream's next one, even).
        if let Some(mut lost) = self.scanner.take() {
            lost.open = false;
            self.client.count_scanner(false);
            self.client.backend().forget_scanner(lost.id);
            if let Some(ahead) = lost.ahead.take() {
                ahead.abort();
            }
        }
        self.page = None;
        self.exhausted = false;
        if let Some(last) = &self.last_key {
            self.range.past(last, self.scan.reversed);
        }
        true
    }

    /// Opens the scanner if needed and buffers the next page of rows.
    async fn fetch(&mut self) -> Result<()> {
        let page_size = self.scan.caching.unwrap_or(DEFAULT_PAGE);
        if self.scanner.is_none() {
            self.scan.check()?;
            if self.range.is_empty() {
                self.exhausted = true;
                return Ok(());
            }
            let (start, stop) = self.range.server_bounds(self.scan.reversed);
            let server = Scan {
                start,
                stop,
                prefix: None,
                // Reversed scans may read one row at `hi` that is skipped, so ask for one more.
                limit: self.remaining.map(|n| n + usize::from(self.scan.reversed)),
                caching: Some(page_size),
                ..self.scan.clone()
            };
            let (table, scan) = (&self.table, &server);
            let id = self.client.run(&op::OpenScanner { table, scan }).await?;
            self.scanner_id.store(i64::from(id), Ordering::Relaxed);
            self.client.count_scanner(true);
            self.scanner = Some(Scanner {
                client: self.client.clone(),
                id,
                open: true,
                ahead: None,
            });
        }
        let id = self.scanner.as_ref().map(|s| s.id).unwrap_or_default();
        let page = match self.scanner.as_mut().and_then(|s| s.ahead.take()) {
            Some(ahead) => ahead.take().await?,
            // Not retried: a scanner lives in one gateway process, and when that cannot be
            // reached the stream resumes with a new scanner (see `resume_after_loss`).
            None => {
                let (table, rows) = (&self.table, page_size);
                self.client
                    .send(&op::ScannerRows { table, id, rows })
                    .await?
            }
        };
        if page.is_empty() {
            self.exhausted = true;
        }
        // `next` only fetches once the buffered page is used up.
        self.page = Some(Arc::new(page));
        self.next = 0;
        self.fetch_ahead(id, page_size);
        Ok(())
    }

    /// Requests the page after the buffered one in the background, so that the gateway works
    /// while the caller consumes this one: at most one page ahead, and none when the buffered
    /// rows already cover the limit or the scanner is exhausted.
    fn fetch_ahead(&mut self, id: i32, page_size: i32) {
        let covered = self.remaining.is_some_and(|n| n <= self.rows_left());
        let Some(scanner) = self.scanner.as_mut() else {
            return;
        };
        if self.exhausted || covered || scanner.ahead.is_some() {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (client, table) = (self.client.clone(), self.table.clone());
        let (taken, until_taken) = tokio::sync::oneshot::channel();
        let task = runtime.spawn(async move {
            let (table, rows) = (&table, page_size);
            let page = client.send(&op::ScannerRows { table, id, rows }).await;
            if page.as_ref().is_ok_and(|p| !p.is_empty()) {
                keep_until_taken(&client, id, until_taken).await;
            }
            page
        });
        scanner.ahead = Some(Prefetch { task, taken });
    }

    /// Closes the scanner now (awaited, so tests and callers see it closed when the stream ends).
    async fn finish(&mut self) {
        self.finished = true;
        self.page = None;
        if let Some(mut scanner) = self.scanner.take() {
            if let Some(ahead) = scanner.ahead.take() {
                // The scanner is closed after the page in flight, never under it.
                let _ = ahead.take().await;
            }
            let id = scanner.id;
            if let Err(e) = scanner.close().await {
                tracing::debug!(scanner = id, error = %e, "closing a finished scanner failed");
            }
        }
    }
}

/// One bucket's stream and the row at its head, ordered by the key without its salt byte.
struct Head {
    row: ScannedRow,
    bucket: usize,
    reversed: bool,
}

impl Head {
    fn unsalted(&self) -> &[u8] {
        self.row.key().get(1..).unwrap_or_default()
    }
}

impl PartialEq for Head {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == std::cmp::Ordering::Equal
    }
}

impl Eq for Head {}

impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Head {
    /// `BinaryHeap` pops the greatest: the smallest key forward, the largest reversed.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        let by_key = self
            .unsalted()
            .cmp(other.unsalted())
            .then(self.bucket.cmp(&other.bucket));
        if self.reversed {
            by_key
        } else {
            by_key.reverse()
        }
    }
}

impl RowStream {
    /// The rows of `scan` over the keys `plan` says: one scanner, or one per salt bucket
    /// merged in unsalted key order, or one per region when the scan is parallel.
    pub(crate) fn planned(client: Client, table: TableName, scan: Scan, plan: ScanPlan) -> Self {
        let mut ranges = plan.server_ranges();
        if ranges.len() != 1 {
            return RowStream::merged(client, table, scan, ranges);
        }
        let scan = ranges.remove(0).apply_to(&scan);
        match scan.parallel {
            Some(n) if n > 1 => RowStream::parallel(client, table, scan, n),
            _ => RowStream::new(client, table, scan),
        }
    }

    /// Scans a salted table (`[bucket byte][key]`): one scan per bucket range, all opened at
    /// once, merged into one stream in unsalted key order (a heap on the key without its first
    /// byte), reversed and limited as `scan` says. Rows keep their salted keys.
    fn merged(client: Client, table: TableName, scan: Scan, buckets: Vec<KeyRange>) -> Self {
        let limit = scan.limit;
        let reversed = scan.reversed;
        let streams: Vec<RowStream> = buckets
            .iter()
            .map(|range| RowStream::new(client.clone(), table.clone(), range.apply_to(&scan)))
            .collect();
        struct Merge {
            streams: Vec<RowStream>,
            heap: std::collections::BinaryHeap<Head>,
            started: bool,
            remaining: Option<usize>,
            reversed: bool,
            failed: bool,
            pending_error: Option<Error>,
        }
        let state = Merge {
            streams,
            heap: std::collections::BinaryHeap::new(),
            started: false,
            remaining: limit,
            reversed,
            failed: false,
            pending_error: None,
        };
        let inner = futures::stream::unfold(state, |mut m| async move {
            if m.failed || m.remaining == Some(0) {
                return None;
            }
            let reversed = m.reversed;
            if !m.started {
                m.started = true;
                // The first page of every bucket, concurrently.
                let heads =
                    futures::future::join_all(m.streams.iter_mut().map(|s| s.next_scanned())).await;
                for (bucket, head) in heads.into_iter().enumerate() {
                    match head {
                        Some(Ok(row)) => m.heap.push(Head {
                            row,
                            bucket,
                            reversed,
                        }),
                        Some(Err(e)) => {
                            m.failed = true;
                            return Some((Err(e), m));
                        }
                        None => {}
                    }
                }
            }
            if let Some(e) = m.pending_error.take() {
                m.failed = true;
                return Some((Err(e), m));
            }
            let head = m.heap.pop()?;
            match m.streams[head.bucket].next_scanned().await {
                Some(Ok(row)) => m.heap.push(Head {
                    row,
                    bucket: head.bucket,
                    reversed,
                }),
                // Hand out the row already taken; the error comes next.
                Some(Err(e)) => m.pending_error = Some(e),
                None => {}
            }
            if let Some(n) = &mut m.remaining {
                *n -= 1;
            }
            Some((Ok(head.row), m))
        });
        RowStream::from_rows(inner.boxed())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scan_resumes_after_the_failures_that_lose_its_scanner_only() {
        let server = |message: &str| Error::Server {
            method: "getScannerRows",
            message: message.into(),
            can_retry: false,
        };
        let lost = [
            Error::IllegalArgument {
                message: "Invalid scanner Id".into(),
            },
            server("org.apache.hadoop.hbase.UnknownScannerException: Unknown scanner '7'"),
            server("ScannerTimeoutException: 61000ms passed since the last invocation"),
            Error::Transport {
                method: "getScannerRows",
                source: std::io::Error::from(std::io::ErrorKind::ConnectionReset),
            },
        ];
        for e in &lost {
            assert!(scanner_lost(e), "{e}");
        }
        let kept = [
            server("NoSuchColumnFamilyException: x"),
            Error::IllegalArgument {
                message: "bad filter".into(),
            },
        ];
        for e in &kept {
            assert!(!scanner_lost(e), "{e}");
        }
    }
}
