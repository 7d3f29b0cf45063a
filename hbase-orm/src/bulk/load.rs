//! The runs loaded: in one pass over them merged (on a blocking thread), each region's rows
//! written into its files (on as many threads as there are cores, a region each) and handed
//! over as soon as they are, several regions at once; the regions that did not take their
//! files read again from the runs in the next round, cut at the boundaries of then. Input in
//! row order comes with its regions' files written as it arrived (see `through`) and no runs:
//! the first round hands those over, and the next rounds read back the files refused.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender};
use std::sync::{Arc, Mutex};

use futures::future::Either;
use futures::StreamExt;
use tokio::sync::mpsc;

use super::files::{Destination, FamilyFormat, RegionWriter, Share};
use super::input::{blocking, Sorted};
use super::plan::region_of;
use super::record::Cells;
use super::refusals::Refusals;
use super::runs::{Merge, Run, RunPut, WrittenFiles};
use super::BulkLoadReport;
use crate::backend::op;
use crate::client::Table;
use crate::model::{Error, Put, RegionLocation, Result};

/// Regions whose files are handed over at once (and written ahead of them).
const REGIONS_AT_ONCE: usize = 8;

/// A row range: its first and last rows.
type Rows = (Vec<u8>, Vec<u8>);

/// A load into `table` under the staging token, with files written to `to`.
pub(super) struct Load<'a> {
    pub table: &'a Table,
    pub token: &'a str,
    pub stage: &'a super::stage::Stage,
    pub to: Arc<dyn Destination>,
    pub now: i64,
    pub attempts: usize,
    pub progress: Option<&'a super::Progress<'a>>,
}

impl Load<'_> {
    pub(super) async fn run(&self, sorted: Sorted) -> Result<BulkLoadReport> {
        let to = self.to.clone();
        // Input in row order was written as it arrived: its files are the first round's.
        let mut written = sorted.written;
        let mut runs = Arc::new(sorted.runs);
        let formats = Arc::new(sorted.formats);
        // Counted as each region takes its files (the progress callback sees it then).
        let report = Mutex::new(BulkLoadReport {
            read: sorted.taken,
            ..BulkLoadReport::default()
        });
        let mut loaded: Vec<Rows> = Vec::new();
        // The rows a round writes: all of them, then those of the regions that did not take
        // their files. A failure reports them as not loaded (but for the regions that did).
        let mut requested: Vec<Rows> = sorted.rows.iter().cloned().collect();
        let mut ranges: Option<Vec<Rows>> = None;
        let mut refusals = Refusals::default();
        for attempt in 1.. {
            let regions = match self.regions().await {
                Ok(regions) => regions,
                // After the first round some regions hold their rows: say which.
                Err(e) if attempt > 1 => return Err(self.partial(loaded, requested, e)),
                Err(e) => return Err(e),
            };
            let starts: Vec<Vec<u8>> = regions.iter().map(|r| r.start_key.clone()).collect();
            let (sender, receiver) = mpsc::channel::<Share>(REGIONS_AT_ONCE);
            let as_read = written.is_some();
            let writing = match written.take() {
                Some(shares) => Either::Left(async move {
                    for share in shares {
                        // Not awaited any more: the handing over failed, and says so.
                        if sender.send(share).await.is_err() {
                            break;
                        }
                    }
                    Ok(())
                }),
                None => {
                    let (runs, formats, to) = (runs.clone(), formats.clone(), to.clone());
                    let (now, ranges) = (self.now, ranges.clone());
                    Either::Right(blocking(move || {
                        write_regions(&runs, &formats, &to, now, ranges, &starts, sender)
                    }))
                }
            };
            // Polled, not an async closure: the load's future stays `Send` (a closure returning
            // a future that borrows its argument is not provably so).
            let mut receiver = receiver;
            let shares = futures::stream::poll_fn(move |cx| receiver.poll_recv(cx));
            let (this, report) = (self, &report);
            let handing = shares
                .map(|share| async move {
                    let outcome = this.hand_over(&share).await;
                    if let Ok(true) = outcome {
                        let report = &mut report.lock().expect("not poisoned");
                        this.count(report, &share, attempt, as_read);
                    }
                    // The region server copied what it took. Files written as the input came
                    // and refused are kept: the next round reads them back.
                    if !(as_read && matches!(outcome, Ok(false))) {
                        share.remove_local();
                    }
                    (share, outcome)
                })
                .buffer_unordered(REGIONS_AT_ONCE)
                .collect::<Vec<_>>();
            let (written, outcomes) = futures::join!(writing, handing);
            let mut again = Vec::new();
            let mut refused = Vec::new();
            let mut read_back = Vec::new();
            let mut failed = written.err();
            for (share, outcome) in outcomes {
                match outcome {
                    Ok(true) => loaded.push(share.rows),
                    Ok(false) => {
                        let file = share.files.first().map(|f| f.location.url());
                        refused.push((share.rows.0.clone(), file));
                        again.push(share.rows.clone());
                        read_back.push(share);
                    }
                    Err(e) => {
                        failed = failed.or(Some(e));
                        again.push(share.rows);
                    }
                }
            }
            if let Some(e) = failed {
                return Err(self.partial(loaded, requested, e));
            }
            if again.is_empty() {
                break;
            }
            // A region that refused twice from the same place did not split or move: its
            // server cannot take the files, and writing them again will not change that.
            if let Err(e) = refusals.record(refused, &regions) {
                return Err(self.partial(loaded, again, e));
            }
            if attempt >= self.attempts {
                let e = Error::Server {
                    method: "BulkLoadHFile",
                    message: format!(
                        "the region servers did not take the files of {} regions in {attempt} \
                         attempts (a region kept splitting or moving, or its server could not \
                         read the files: its log says which)",
                        again.len()
                    ),
                    can_retry: true,
                };
                return Err(self.partial(loaded, again, e));
            }
            // Regions split or moved: their rows read again and cut at today's boundaries
            // (from their files, when these were written as the input came: it has no runs).
            if as_read {
                read_back.sort_by(|a, b| a.rows.cmp(&b.rows));
                let files = WrittenFiles {
                    to: to.clone(),
                    shares: read_back,
                };
                runs = Arc::new(vec![Run::Files(Arc::new(files))]);
            }
            again.sort();
            requested.clone_from(&again);
            ranges = Some(again);
        }
        Ok(report.into_inner().expect("not poisoned"))
    }

    /// Counts a region's files taken (written as the input was read: `as_read`), in the
    /// metrics and the report, and tells the progress callback.
    fn count(&self, report: &mut BulkLoadReport, share: &Share, attempt: usize, as_read: bool) {
        let files = share.files.len() as u64;
        let bytes = share.files.iter().map(|f| f.bytes).sum::<u64>();
        crate::observe::bulk_loaded(share.row_count, share.cells, bytes, files);
        report.rows += share.row_count;
        report.cells += share.cells;
        report.files += files;
        report.bytes += bytes;
        report.regions += 1;
        if attempt > 1 {
            report.rewritten += files;
        }
        if as_read {
            report.written_as_read += files;
        }
        if let Some(progress) = self.progress {
            progress(report);
        }
    }

    /// Hands a region its files; whether it took them.
    async fn hand_over(&self, share: &Share) -> Result<bool> {
        let files: Vec<(String, String)> = share
            .files
            .iter()
            .map(|file| (file.family.clone(), file.location.url()))
            .collect();
        let outcome = match self.stage.fs_token().await {
            Ok(fs_token) => {
                self.table
                    .client()
                    .run(&op::BulkLoadFiles {
                        table: self.table.name(),
                        first_row: &share.rows.0,
                        files: &files,
                        token: self.token,
                        fs_token,
                    })
                    .await
            }
            Err(e) => Err(e),
        };
        outcome
    }

    /// The table's regions, in the order of their start keys.
    async fn regions(&self) -> Result<Vec<RegionLocation>> {
        regions(self.table).await
    }

    /// [`Error::BulkLoad`] of a load stopped by `source`, the ranges in key order.
    fn partial(&self, mut loaded: Vec<Rows>, mut left: Vec<Rows>, source: Error) -> Error {
        loaded.sort();
        left.sort();
        Error::BulkLoad {
            table: self.table.name().to_string(),
            loaded,
            not_loaded: left,
            source: Box::new(source),
        }
    }
}

/// `table`'s regions, in the order of their start keys.
pub(super) async fn regions(table: &Table) -> Result<Vec<RegionLocation>> {
    let name = table.name();
    let mut regions = table
        .client()
        .run(&op::RegionLocations { table: name })
        .await?;
    regions.sort_by(|a, b| a.start_key.cmp(&b.start_key));
    Ok(regions)
}

/// Writes each region's files of the rows of the runs (of `ranges` only, when given) and
/// sends them on as soon as the region's last row is written.
fn write_regions(
    runs: &[Run],
    formats: &[FamilyFormat],
    to: &Arc<dyn Destination>,
    now: i64,
    ranges: Option<Vec<Rows>>,
    starts: &[Vec<u8>],
    sender: mpsc::Sender<Share>,
) -> Result<()> {
    if let [Run::Memory(puts)] = runs {
        let parts = region_parts(puts, ranges, starts);
        return write_parts(puts, &parts, formats, to, now, sender);
    }
    write_merged(Merge::new(runs, ranges)?, formats, to, now, starts, sender)
}

/// Puts handed from the merge to a region's writer at a time.
const BATCH: usize = 256;

/// What the merge hands a region's writer: puts, then the end of the region (a region whose
/// puts stop without it is not written: the merge failed).
enum Piece {
    Puts(Vec<RunPut>),
    End,
}

/// Writes the regions' files of the merged runs: the merge on this thread, each region's
/// files written on one of as many threads as there are cores, several regions at once. The
/// merge waits while the writers are busy (a region's channel holds 4 batches, and one region
/// waits for a writer), and stops at its next batch or region once a writer has failed.
fn write_merged(
    mut merge: Merge,
    formats: &[FamilyFormat],
    to: &Arc<dyn Destination>,
    now: i64,
    starts: &[Vec<u8>],
    sender: mpsc::Sender<Share>,
) -> Result<()> {
    let threads = cores();
    // Each region's pieces come through a channel of its own, handed to the next free writer.
    let (regions_in, regions) = std::sync::mpsc::sync_channel::<Receiver<Piece>>(1);
    let regions = Regions {
        queue: Mutex::new(Some(regions)),
        failed: AtomicBool::new(false),
    };
    std::thread::scope(|scope| {
        let writers: Vec<_> = (0..threads)
            .map(|_| {
                let (regions, sender) = (&regions, sender.clone());
                scope.spawn(move || -> Result<()> {
                    // A writer that fails or panics closes the queue: the merge stops.
                    let mut failing = Failing(regions, true);
                    let written = write_taken(regions, &sender, to, formats, now);
                    failing.1 = written.is_err();
                    written
                })
            })
            .collect();
        let merged = merge_into(&mut merge, starts, &regions_in, &regions.failed);
        drop(regions_in);
        let written = joined(writers);
        // A writer's failure first: the merge then stopped for want of it.
        written.and(merged)
    })
}

/// The regions waiting for a writer, and whether a writer failed.
struct Regions {
    queue: Mutex<Option<Receiver<Receiver<Piece>>>>,
    failed: AtomicBool,
}

impl Regions {
    /// The next region to write, until there are no more (or a writer failed).
    fn next(&self) -> Option<Receiver<Piece>> {
        let queue = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        queue.as_ref()?.recv().ok()
    }
}

/// Closes the queue of regions when dropped armed (its writer failed or panicked): the regions
/// waiting in it are dropped, and the merge's next region or batch finds no writer.
struct Failing<'a>(&'a Regions, bool);

impl Drop for Failing<'_> {
    fn drop(&mut self) {
        if self.1 {
            self.0.failed.store(true, Ordering::Relaxed);
            // Taken without waiting for a writer that holds the lock in `next`: the queue is
            // then closed when that writer's wait ends with the merge's.
            if let Ok(mut queue) = self.0.queue.try_lock() {
                queue.take();
            }
        }
    }
}

/// Writes the regions taken from the queue, each once its end has come; a region whose pieces
/// stop before their end (the merge failed) is not written.
fn write_taken(
    regions: &Regions,
    sender: &mpsc::Sender<Share>,
    to: &Arc<dyn Destination>,
    formats: &[FamilyFormat],
    now: i64,
) -> Result<()> {
    while let Some(pieces) = regions.next() {
        let mut writer = RegionWriter::new(to.clone(), formats, now);
        for piece in pieces {
            match piece {
                Piece::Puts(puts) => {
                    for put in &puts {
                        writer.add(put.row(), put.cells())?;
                    }
                }
                Piece::End => {
                    send(writer, sender)?;
                    break;
                }
            }
        }
    }
    Ok(())
}

/// Reads the merged puts and hands them, region by region, to the writers, until a writer
/// fails.
fn merge_into(
    merge: &mut Merge,
    starts: &[Vec<u8>],
    regions: &SyncSender<Receiver<Piece>>,
    failed: &AtomicBool,
) -> Result<()> {
    let gone = || Error::IllegalArgument {
        message: "bulk load: a thread writing files stopped".into(),
    };
    let hand = |pieces: &SyncSender<Piece>, piece: Piece| {
        if failed.load(Ordering::Relaxed) {
            return Err(gone());
        }
        pieces.send(piece).map_err(|_| gone())
    };
    let mut current: Option<(usize, SyncSender<Piece>, Vec<RunPut>)> = None;
    while let Some(put) = merge.next_put()? {
        let region = region_of(starts, put.row());
        if let Some((_, pieces, batch)) = current.take_if(|(at, _, _)| *at != region) {
            hand(&pieces, Piece::Puts(batch))?;
            hand(&pieces, Piece::End)?;
        }
        let (_, pieces, batch) = match &mut current {
            Some(current) => current,
            None => {
                let (pieces, receiver) = std::sync::mpsc::sync_channel(4);
                regions.send(receiver).map_err(|_| gone())?;
                current.insert((region, pieces, Vec::with_capacity(BATCH)))
            }
        };
        batch.push(put);
        if batch.len() == BATCH {
            let full = std::mem::replace(batch, Vec::with_capacity(BATCH));
            hand(pieces, Piece::Puts(full))?;
        }
    }
    if let Some((_, pieces, batch)) = current {
        hand(&pieces, Piece::Puts(batch))?;
        hand(&pieces, Piece::End)?;
    }
    Ok(())
}

/// The puts of sorted `puts` (of `ranges` only, when given) cut per region: index ranges.
fn region_parts(puts: &[Put], ranges: Option<Vec<Rows>>, starts: &[Vec<u8>]) -> Vec<Range<usize>> {
    let wanted: Vec<Range<usize>> = match ranges {
        None => std::iter::once(0..puts.len()).collect(),
        Some(ranges) => ranges
            .iter()
            .map(|(first, last)| {
                let lo = puts.partition_point(|p| p.row < *first);
                lo..lo + puts[lo..].partition_point(|p| p.row <= *last)
            })
            .collect(),
    };
    let mut parts = Vec::new();
    for range in wanted {
        let mut at = range.start;
        while at < range.end {
            let end = match starts.get(region_of(starts, &puts[at].row) + 1) {
                Some(next) => at + puts[at..range.end].partition_point(|p| p.row < *next),
                None => range.end,
            };
            parts.push(at..end);
            at = end;
        }
    }
    parts
}

/// Writes the regions' files of `parts` of `puts`, on as many threads as there are cores.
fn write_parts(
    puts: &[Put],
    parts: &[Range<usize>],
    formats: &[FamilyFormat],
    to: &Arc<dyn Destination>,
    now: i64,
    sender: mpsc::Sender<Share>,
) -> Result<()> {
    let next = AtomicUsize::new(0);
    let threads = cores().min(parts.len()).max(1);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                let (next, sender) = (&next, sender.clone());
                scope.spawn(move || -> Result<()> {
                    while let Some(part) = parts.get(next.fetch_add(1, Ordering::Relaxed)) {
                        let mut writer = RegionWriter::new(to.clone(), formats, now);
                        for put in &puts[part.clone()] {
                            writer.add(&put.row, Cells::of_put(put))?;
                        }
                        send(writer, &sender)?;
                    }
                    Ok(())
                })
            })
            .collect();
        joined(workers)
    })
}

/// Finishes a region's files and sends them on.
fn send(writer: RegionWriter, sender: &mpsc::Sender<Share>) -> Result<()> {
    sender
        .blocking_send(writer.finish()?)
        .map_err(|_| Error::IllegalArgument {
            message: "bulk load: the files written were no longer awaited".into(),
        })
}

/// The threads that write files at once: as many as there are cores.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Waits for the threads writing files: the first failure, a panic as an error.
fn joined(threads: Vec<std::thread::ScopedJoinHandle<'_, Result<()>>>) -> Result<()> {
    threads
        .into_iter()
        .map(|w| w.join().unwrap_or_else(|_| Err(panicked())))
        .collect::<Result<Vec<()>>>()
        .map(drop)
}

fn panicked() -> Error {
    Error::IllegalArgument {
        message: "bulk load: a thread writing files panicked".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::files::LocalFiles;
    use super::super::plan::sort_chunk;
    use super::super::runs::spill;
    use super::*;
    use std::path::Path;

    /// Rows cut at the region starts; with ranges, only their rows.
    #[test]
    fn parts_are_regions_of_the_wanted_rows() {
        let puts: Vec<Put> = ["a", "c", "m", "n", "p", "z"]
            .iter()
            .map(|r| Put::new(*r).column("d", "q", "v"))
            .collect();
        let starts = [b"".to_vec(), b"c".to_vec(), b"n".to_vec(), b"x".to_vec()];
        assert_eq!(region_parts(&puts, None, &starts), [0..1, 1..3, 3..5, 5..6]);
        let ranges = vec![
            (b"b".to_vec(), b"c".to_vec()),
            (b"o".to_vec(), b"zz".to_vec()),
        ];
        assert_eq!(
            region_parts(&puts, Some(ranges), &starts),
            [1..2, 4..5, 5..6]
        );
    }

    /// Two runs (one spilled, one in memory) of `rows` rows, interleaved, in `dir`; region
    /// starts every ten rows.
    fn merged_input(dir: &Path, rows: usize) -> (Vec<Run>, Vec<Vec<u8>>) {
        std::fs::create_dir_all(dir).unwrap();
        let puts = |from: usize| -> Vec<Put> {
            (from..rows)
                .step_by(2)
                .map(|i| Put::new(format!("r{i:05}")).column_at("d", "q", 1, "v"))
                .collect()
        };
        let spilled = dir.join("run-0");
        spill(&spilled, &sort_chunk(puts(0), 0)).unwrap();
        let last = sort_chunk(puts(1), 0);
        let runs = vec![Run::Disk(spilled), Run::Memory(Arc::new(last))];
        let starts = std::iter::once(Vec::new())
            .chain(
                (10..rows)
                    .step_by(10)
                    .map(|i| format!("r{i:05}").into_bytes()),
            )
            .collect();
        (runs, starts)
    }

    /// `work` on a thread of its own, which must end within a minute.
    fn ends<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
        let (done, wait) = std::sync::mpsc::channel();
        std::thread::spawn(move || done.send(work()));
        wait.recv_timeout(std::time::Duration::from_secs(60))
            .expect("the files' writing ended")
    }

    fn local(dir: std::path::PathBuf) -> Arc<dyn Destination> {
        Arc::new(LocalFiles(dir))
    }

    fn format() -> FamilyFormat {
        let table = crate::model::TableName::new("default", "t");
        FamilyFormat::of(&table, &crate::model::ColumnFamily::new("d")).unwrap()
    }

    /// Merged runs: every row written once, region by region; when every writer fails (here, a
    /// family without a format) or the shares are no longer awaited, the merge stops with the
    /// error instead of waiting for ever, and no region is handed on.
    #[test]
    fn merged_regions_are_written_once_and_a_failure_stops_the_merge() {
        let dir = std::env::temp_dir().join(format!("hbase-orm-merged-{}", std::process::id()));
        let (runs, starts) = merged_input(&dir, 2_000);
        let (runs, starts) = (Arc::new(runs), Arc::new(starts));

        let (sender, mut receiver) = mpsc::channel::<Share>(REGIONS_AT_ONCE);
        let (r, s, d) = (runs.clone(), starts.clone(), dir.clone());
        let drained = std::thread::spawn(move || {
            let mut shares = Vec::new();
            while let Some(share) = receiver.blocking_recv() {
                shares.push((share.rows.0, share.row_count));
            }
            shares
        });
        ends(move || write_regions(&r, &[format()], &local(d), 0, None, &s, sender)).unwrap();
        let mut shares = drained.join().unwrap();
        shares.sort();
        assert_eq!(shares.len(), 200, "a share per region");
        assert!(shares.iter().all(|(_, rows)| *rows == 10));
        assert_eq!(shares[1].0, b"r00010");

        let (sender, mut receiver) = mpsc::channel::<Share>(REGIONS_AT_ONCE);
        let (r, s, d) = (runs.clone(), starts.clone(), dir.clone());
        let failed = ends(move || write_regions(&r, &[], &local(d), 0, None, &s, sender));
        assert!(failed.is_err());
        assert!(receiver.try_recv().is_err(), "no region handed on");

        let (sender, receiver) = mpsc::channel::<Share>(REGIONS_AT_ONCE);
        drop(receiver);
        let (r, s, d) = (runs.clone(), starts.clone(), dir.clone());
        let unawaited =
            ends(move || write_regions(&r, &[format()], &local(d), 0, None, &s, sender));
        assert!(unawaited.is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
