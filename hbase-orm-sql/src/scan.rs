//! Record batches from scans of key spans: each span scanned in turn with the columns asked
//! for, the rows built into batches of at most `batch_size` rows, at most `limit` rows in all.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use datafusion::arrow::record_batch::RecordBatch;
use futures::stream::{BoxStream, StreamExt};
use hbase_orm::{HBaseEntity, Result, Scan, ScannedRow, Table};

use crate::batches::BatchBuilder;
use crate::pushdown::KeySpan;

/// What scans of a table read from HBase, counted as rows arrive.
#[derive(Debug, Default)]
pub struct ReadStats {
    rows: AtomicU64,
    cells: AtomicU64,
    bytes: AtomicU64,
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
}

impl ReadStats {
    /// The counts so far.
    pub fn counts(&self) -> ReadCounts {
        ReadCounts {
            rows: self.rows.load(Ordering::Relaxed),
            cells: self.cells.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
        }
    }

    fn count(&self, row: &ScannedRow) {
        let (mut cells, mut bytes) = (0, row.key().len());
        for c in row.cells() {
            cells += 1;
            bytes += c.family.len() + c.qualifier.len() + c.value.len();
        }
        self.rows.fetch_add(1, Ordering::Relaxed);
        self.cells.fetch_add(cells, Ordering::Relaxed);
        self.bytes.fetch_add(bytes as u64, Ordering::Relaxed);
    }
}

/// One scan's work: the spans left, the scan running, the batch being built.
struct Scanning<E: HBaseEntity> {
    table: Table,
    template: Scan,
    spans: VecDeque<KeySpan>,
    current: Option<BoxStream<'static, Result<ScannedRow>>>,
    builder: BatchBuilder<E>,
    batch_size: usize,
    remaining: Option<usize>,
    stats: Arc<ReadStats>,
    done: bool,
}

impl<E: HBaseEntity> Scanning<E> {
    /// The next batch, `None` at the end; the first error ends the stream.
    async fn next_batch(&mut self) -> Option<Result<RecordBatch>> {
        loop {
            if self.done {
                return None;
            }
            let rows = match &mut self.current {
                Some(rows) => rows,
                None => match self.spans.pop_front() {
                    Some(span) => {
                        let mut scan = self.template.clone();
                        scan.start = Some(span.start).filter(|s| !s.is_empty());
                        scan.stop = Some(span.stop).filter(|s| !s.is_empty());
                        self.current.insert(self.table.scan(scan).into_scanned())
                    }
                    None => {
                        self.done = true;
                        return (!self.builder.is_empty()).then(|| self.builder.finish());
                    }
                },
            };
            match rows.next().await {
                Some(Ok(row)) => {
                    self.stats.count(&row);
                    match self.builder.push_scanned(&row) {
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
                None => self.current = None,
            }
        }
    }
}

/// What a stream of batches reads.
pub(crate) struct ScanOrder<E: HBaseEntity> {
    pub(crate) table: Table,
    pub(crate) template: Scan,
    pub(crate) spans: Vec<KeySpan>,
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
        current: None,
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
