//! Record batches from scans of key spans: each span scanned in turn with the columns asked
//! for (single rows fetched with gets, many at a time), the rows built into batches of at most
//! `batch_size` rows, at most `limit` rows in all.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use datafusion::arrow::record_batch::RecordBatch;
use futures::stream::{BoxStream, StreamExt};
use hbase_orm::entity::KeyTest;
use hbase_orm::{CellRef, Get, HBaseEntity, Result, Row, Scan, ScannedRow, Table};

use crate::batches::BatchBuilder;
use crate::pushdown::KeySpan;

/// What scans of a table read from HBase, counted as rows arrive.
#[derive(Debug, Default)]
pub struct ReadStats {
    rows: AtomicU64,
    cells: AtomicU64,
    bytes: AtomicU64,
    scans: AtomicU64,
    gets: AtomicU64,
}

/// A copy of [`ReadStats`] at one moment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadCounts {
    /// Rows HBase returned (of every record type, partial rows too).
    pub rows: u64,
    /// Cells HBase returned.
    pub cells: u64,
    /// Bytes of the rows' keys and cells' families, qualifiers and values.
    pub bytes: u64,
    /// Scans opened (one per key range read in a partition; a scan a `LIMIT` cut short
    /// before the rows it wanted, rows that held no entity or failed a key test among them,
    /// goes on with another).
    pub scans: u64,
    /// Rows asked for by gets (whole keys; a key no row has counts too).
    pub gets: u64,
}

impl ReadStats {
    /// The counts so far.
    pub fn counts(&self) -> ReadCounts {
        ReadCounts {
            rows: self.rows.load(Ordering::Relaxed),
            cells: self.cells.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
            scans: self.scans.load(Ordering::Relaxed),
            gets: self.gets.load(Ordering::Relaxed),
        }
    }

    fn count<'a>(&self, key: &[u8], row: impl Iterator<Item = CellRef<'a>>) {
        let (mut cells, mut bytes) = (0, key.len());
        for c in row {
            cells += 1;
            bytes += c.family.len() + c.qualifier.len() + c.value.len();
        }
        self.rows.fetch_add(1, Ordering::Relaxed);
        self.cells.fetch_add(cells, Ordering::Relaxed);
        self.bytes.fetch_add(bytes as u64, Ordering::Relaxed);
    }
}

/// At most this many rows are asked for in one multi-get.
const GETS: usize = 256;

/// A `LIMIT` below this reads pages of the rows still wanted (a larger one, pages of the
/// scan's size).
pub(crate) const SMALL_LIMIT: usize = 1000;

/// A scan asked for at most `asked` rows (the rows still wanted): if it ends with that many
/// and some were not kept (rows that held no entity, keys that failed a test), the span goes
/// on after the last row read.
struct Limited {
    asked: usize,
    received: usize,
    last: Vec<u8>,
    stop: Vec<u8>,
}

/// What a scan of one span is reading: a scanner's pages, or the rows of a multi-get.
enum Current {
    Scan(BoxStream<'static, Result<ScannedRow>>),
    Got(std::vec::IntoIter<Row>),
}

/// A row as read: from a scanner page, or by a get.
enum Read {
    Scanned(ScannedRow),
    Got(Row),
}

/// The gets of `keys`, with the columns, versions and filter of `template`.
fn gets(template: &Scan, keys: Vec<Vec<u8>>) -> Vec<Get> {
    keys.into_iter()
        .map(|row| Get {
            row,
            columns: template.columns.clone(),
            max_versions: template.max_versions,
            filter: template.filter.clone(),
            consistency: template.consistency,
            ..Get::default()
        })
        .collect()
}

/// One scan's work: the spans left, the scan (or gets) running, the batch being built.
struct Scanning<E: HBaseEntity> {
    table: Table,
    template: Scan,
    spans: VecDeque<KeySpan>,
    key_tests: Vec<KeyTest>,
    current: Option<Current>,
    limited: Option<Limited>,
    builder: BatchBuilder<E>,
    batch_size: usize,
    remaining: Option<usize>,
    stats: Arc<ReadStats>,
    done: bool,
}

impl<E: HBaseEntity> Scanning<E> {
    /// Starts reading the next span (the single rows after a single row too, in one
    /// multi-get); `false` when none is left.
    async fn open_next(&mut self) -> Result<bool> {
        let Some(span) = self.spans.pop_front() else {
            return Ok(false);
        };
        if span.as_point().is_some() {
            let most = self.remaining.map_or(GETS, |left| left.clamp(1, GETS));
            let mut keys = vec![span.start];
            while keys.len() < most && self.spans.front().is_some_and(|s| s.as_point().is_some()) {
                keys.extend(self.spans.pop_front().map(|s| s.start));
            }
            self.stats
                .gets
                .fetch_add(keys.len() as u64, Ordering::Relaxed);
            let rows = self.table.get_many(gets(&self.template, keys)).await?;
            let found: Vec<Row> = rows.into_iter().flatten().collect();
            self.current = Some(Current::Got(found.into_iter()));
            return Ok(true);
        }
        let mut scan = self.template.clone();
        scan.start = Some(span.start).filter(|s| !s.is_empty());
        self.limited = None;
        if let Some(left) = self.remaining {
            // No more rows than still wanted, in one page when they are few; the client then
            // reads no page ahead either.
            scan.limit = Some(left);
            if left < SMALL_LIMIT {
                let page = i32::try_from(left).unwrap_or(i32::MAX);
                scan.caching = Some(scan.caching.map_or(page, |c| c.min(page)));
            }
            self.limited = Some(Limited {
                asked: left,
                received: 0,
                last: Vec::new(),
                stop: span.stop.clone(),
            });
        }
        scan.stop = Some(span.stop).filter(|s| !s.is_empty());
        self.stats.scans.fetch_add(1, Ordering::Relaxed);
        self.current = Some(Current::Scan(self.table.scan(scan).into_scanned()));
        Ok(true)
    }

    /// After a scan with a limit ended: if it stopped at its limit short of the rows wanted,
    /// the rest of its span is read next.
    fn resume_limited(&mut self) {
        let Some(limited) = self.limited.take() else {
            return;
        };
        if limited.received < limited.asked || self.remaining == Some(0) {
            return;
        }
        let mut start = limited.last;
        start.push(0);
        if limited.stop.is_empty() || start < limited.stop {
            self.spans.push_front(KeySpan {
                start,
                stop: limited.stop,
            });
        }
    }

    /// The next row of the span being read, `None` at its end.
    async fn next_row(&mut self) -> Option<Result<Read>> {
        match self.current.as_mut()? {
            Current::Scan(rows) => rows.next().await.map(|r| r.map(Read::Scanned)),
            Current::Got(rows) => rows.next().map(|r| Ok(Read::Got(r))),
        }
    }

    /// The next batch, `None` at the end; the first error ends the stream.
    async fn next_batch(&mut self) -> Option<Result<RecordBatch>> {
        loop {
            if self.done {
                return None;
            }
            if self.current.is_none() {
                match self.open_next().await {
                    Ok(true) => {}
                    Ok(false) => {
                        self.done = true;
                        return (!self.builder.is_empty()).then(|| self.builder.finish());
                    }
                    Err(e) => {
                        self.done = true;
                        return Some(Err(e));
                    }
                }
            }
            match self.next_row().await {
                Some(Ok(row)) => {
                    let key = match &row {
                        Read::Scanned(row) => {
                            self.stats.count(row.key(), row.cells());
                            if let Some(limited) = &mut self.limited {
                                limited.received += 1;
                                limited.last.clear();
                                limited.last.extend_from_slice(row.key());
                            }
                            row.key()
                        }
                        Read::Got(row) => {
                            self.stats
                                .count(&row.key, row.cells.iter().map(CellRef::from));
                            &row.key
                        }
                    };
                    if !self.key_tests.iter().all(|t| t.passes(key)) {
                        continue;
                    }
                    let pushed = match &row {
                        Read::Scanned(row) => self.builder.push_scanned(row),
                        Read::Got(row) => self.builder.push(row),
                    };
                    match pushed {
                        Ok(true) => {}
                        Ok(false) => continue,
                        Err(e) => {
                            self.done = true;
                            return Some(Err(e));
                        }
                    }
                    if let Some(left) = &mut self.remaining {
                        *left -= 1;
                        if *left == 0 {
                            // Dropping the scan closes its scanner.
                            self.current = None;
                            self.done = true;
                            return Some(self.builder.finish());
                        }
                    }
                    if self.builder.len() >= self.batch_size {
                        return Some(self.builder.finish());
                    }
                }
                Some(Err(e)) => {
                    self.done = true;
                    return Some(Err(e));
                }
                None => {
                    self.current = None;
                    self.resume_limited();
                }
            }
        }
    }
}

/// What a stream of batches reads.
pub(crate) struct ScanOrder<E: HBaseEntity> {
    pub(crate) table: Table,
    pub(crate) template: Scan,
    pub(crate) spans: Vec<KeySpan>,
    pub(crate) key_tests: Vec<KeyTest>,
    pub(crate) builder: BatchBuilder<E>,
    pub(crate) batch_size: usize,
    pub(crate) limit: Option<usize>,
    pub(crate) stats: Arc<ReadStats>,
}

/// The batches of the rows of `order`'s spans, in key order within each span.
pub(crate) fn batches<E: HBaseEntity>(
    order: ScanOrder<E>,
) -> BoxStream<'static, Result<RecordBatch>> {
    let limit = order.limit;
    let state = Scanning {
        table: order.table,
        template: order.template,
        spans: order.spans.into(),
        key_tests: order.key_tests,
        current: None,
        limited: None,
        builder: order.builder,
        batch_size: order.batch_size.max(1),
        remaining: limit,
        stats: order.stats,
        done: limit == Some(0),
    };
    futures::stream::unfold(state, |mut state| async move {
        state.next_batch().await.map(|batch| (batch, state))
    })
    .boxed()
}
