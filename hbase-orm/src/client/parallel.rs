//! Scans split at the table's region boundaries, several regions read at once.
//!
//! Each region's part of the scan runs as its own [`RowStream`] in a task that feeds a small
//! channel (one page of rows), at most `n` of them at a time. In key order the parts are read
//! out one after the other, so a part further on waits, its page full, until the caller gets
//! there; unordered, rows come from whichever part has them. Dropping the stream drops the
//! channels: every task stops, and its scanner is closed as any dropped [`RowStream`]'s is.

use std::collections::VecDeque;

use futures::stream::{self, BoxStream, StreamExt, TryStreamExt};
use tokio::sync::mpsc;

use super::handle::Client;
use super::plan::{split_at_regions, KeyRange};
use super::scan::RowStream;
use crate::backend::op;
use crate::model::{Result, Scan, ScannedRow, TableName};

/// Rows a region's part holds ready before its task waits for the caller.
const DEFAULT_AHEAD: usize = 256;

impl RowStream {
    /// `scan` split at the table's region boundaries, up to `n` regions read at once (see
    /// [`Scan::parallel`]).
    pub(crate) fn parallel(client: Client, table: TableName, scan: Scan, n: usize) -> Self {
        let rows = stream::once(async move {
            scan.check()?;
            let locate = op::RegionLocations { table: &table };
            let mut regions = client.send(&locate).await?;
            regions.sort_by(|a, b| a.start_key.cmp(&b.start_key));
            let parts = split_at_regions(&KeyRange::of(&scan), &regions, scan.reversed)
                .iter()
                .map(|part| part.apply_to(&scan))
                .collect();
            Ok::<_, crate::model::Error>(run(client, table, parts, n, !scan.unordered, scan.limit))
        })
        .try_flatten();
        RowStream::from_rows(rows.boxed())
    }
}

/// Streams `parts` with up to `n` running at once, in their order when `ordered`.
pub(crate) fn run(
    client: Client,
    table: TableName,
    parts: Vec<Scan>,
    n: usize,
    ordered: bool,
    limit: Option<usize>,
) -> BoxStream<'static, Result<ScannedRow>> {
    let ahead = parts
        .first()
        .and_then(|p| p.caching)
        .and_then(|c| usize::try_from(c).ok())
        .unwrap_or(DEFAULT_AHEAD)
        .max(1);
    let start = move |part: Scan| {
        let (tx, rx) = mpsc::channel(ahead);
        let rows = RowStream::new(client.clone(), table.clone(), part);
        tokio::spawn(feed(rows, tx));
        rx
    };
    let n = n.max(1);
    let rows: BoxStream<'static, Result<ScannedRow>> = if ordered {
        let mut waiting: VecDeque<Scan> = parts.into();
        let mut running: VecDeque<mpsc::Receiver<Result<ScannedRow>>> = VecDeque::new();
        stream::poll_fn(move |cx| loop {
            while running.len() < n {
                match waiting.pop_front() {
                    Some(part) => running.push_back(start(part)),
                    None => break,
                }
            }
            let Some(head) = running.front_mut() else {
                return std::task::Poll::Ready(None);
            };
            match head.poll_recv(cx) {
                std::task::Poll::Ready(Some(row)) => return std::task::Poll::Ready(Some(row)),
                // This part is done: the next one in key order becomes the head.
                std::task::Poll::Ready(None) => {
                    running.pop_front();
                }
                std::task::Poll::Pending => return std::task::Poll::Pending,
            }
        })
        .boxed()
    } else {
        stream::iter(parts)
            .map(move |part| tokio_stream_of(start(part)))
            .flatten_unordered(n)
            .boxed()
    };
    match limit {
        Some(l) => rows.take(l).boxed(),
        None => rows,
    }
}

/// A receiver as a stream.
fn tokio_stream_of(
    mut rx: mpsc::Receiver<Result<ScannedRow>>,
) -> BoxStream<'static, Result<ScannedRow>> {
    stream::poll_fn(move |cx| rx.poll_recv(cx)).boxed()
}

/// Drives one part into its channel until it ends, fails, or the caller goes away.
async fn feed(mut rows: RowStream, tx: mpsc::Sender<Result<ScannedRow>>) {
    while let Some(row) = rows.next_scanned().await {
        let failed = row.is_err();
        if tx.send(row).await.is_err() || failed {
            return;
        }
    }
}
