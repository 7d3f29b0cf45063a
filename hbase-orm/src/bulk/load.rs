//! The runs loaded: in one pass over them merged (on a blocking thread), each region's rows
//! written into its files (on as many threads as there are cores, a region each) and handed
//! over as soon as they are, several regions at once; the regions that did not take their
//! files read again from the runs in the next round, cut at the boundaries of then.

use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender};
use std::sync::{Arc, Mutex};

use futures::StreamExt;
use tokio::sync::mpsc;

use super::files::{FamilyFormat, RegionWriter, Written};
use super::input::{blocking, Sorted};
use super::plan::region_of;
use super::record::Cells;
use super::runs::{Merge, Run, RunPut};
use super::BulkLoadReport;
use crate::backend::op;
use crate::client::Table;
use crate::model::{Error, Put, Result};

/// Regions whose files are handed over at once (and written ahead of them).
const REGIONS_AT_ONCE: usize = 8;

/// A row range: its first and last rows.
type Rows = (Vec<u8>, Vec<u8>);

/// One region's rows, written.
struct Share {
    rows: Rows,
    row_count: u64,
    cells: u64,
    files: Vec<Written>,
}

/// A load into `table` under the staging token, with files written into `dir`.
pub(super) struct Load<'a> {
    pub table: &'a Table,
    pub token: &'a str,
    pub dir: &'a Path,
    pub stage: &'a super::stage::Stage,
    pub now: i64,
    pub attempts: usize,
    pub progress: Option<&'a super::Progress>,
}

impl Load<'_> {
    pub(super) async fn run(&self, sorted: Sorted) -> Result<BulkLoadReport> {
        let runs = Arc::new(sorted.runs);
        let formats = Arc::new(sorted.formats);
        // Counted as each region takes its files (the progress callback sees it then).
        let report = Mutex::new(BulkLoadReport::default());
        let mut loaded: Vec<Rows> = Vec::new();
        // The rows a round writes: all of them, then those of the regions that did not take
        // their files. A failure reports them as not loaded (but for the regions that did).
        let mut requested: Vec<Rows> = sorted.rows.iter().cloned().collect();
        let mut ranges: Option<Vec<Rows>> = None;
        for attempt in 1.. {
            let starts = match self.region_starts().await {
                Ok(starts) => starts,
                // After the first round some regions hold their rows: say which.
                Err(e) if attempt > 1 => return Err(self.partial(loaded, requested, e)),
                Err(e) => return Err(e),
            };
            let (sender, receiver) = mpsc::channel::<Share>(REGIONS_AT_ONCE);
            let writing = {
                let (runs, formats) = (runs.clone(), formats.clone());
                let (dir, now, ranges) = (self.dir.to_path_buf(), self.now, ranges.clone());
                blocking(move || write_regions(&runs, &formats, &dir, now, ranges, &starts, sender))
            };
            let shares = futures::stream::unfold(receiver, |mut receiver| async move {
                receiver.recv().await.map(|share| (share, receiver))
            });
            let (this, report) = (self, &report);
            let handing = shares
                .map(|share| async move {
                    let outcome = this.hand_over(&share).await;
                    if let Ok(true) = outcome {
                        this.count(&mut report.lock().expect("not poisoned"), &share, attempt);
                    }
                    (share, outcome)
                })
                .buffer_unordered(REGIONS_AT_ONCE)
                .collect::<Vec<_>>();
            let (written, outcomes) = futures::join!(writing, handing);
            let mut again = Vec::new();
            let mut failed = written.err();
            for (share, outcome) in outcomes {
                match outcome {
                    Ok(true) => loaded.push(share.rows),
                    Ok(false) => again.push(share.rows),
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
            // Regions split or moved: their rows read again and cut at today's boundaries.
            again.sort();
            requested.clone_from(&again);
            ranges = Some(again);
        }
        Ok(report.into_inner().expect("not poisoned"))
    }

    /// Counts a region's files taken, in the metrics and the report, and tells the progress
    /// callback.
    fn count(&self, report: &mut BulkLoadReport, share: &Share, attempt: usize) {
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
        if let Some(progress) = self.progress {
            progress(report);
        }
    }

    /// Hands a region its files (copied where the region servers read them first); whether
    /// it took them. The local files are removed either way (the region server copied what it
    /// took).
    async fn hand_over(&self, share: &Share) -> Result<bool> {
        let outcome = async {
            let paths = self.stage.send(&share.files).await?;
            self.table
                .client()
                .run(&op::BulkLoadFiles {
                    table: self.table.name(),
                    first_row: &share.rows.0,
                    files: &paths,
                    token: self.token,
                })
                .await
        }
        .await;
        for file in &share.files {
            let _ = std::fs::remove_file(&file.path);
        }
        outcome
    }

    /// The start keys of the table's regions, in order.
    async fn region_starts(&self) -> Result<Vec<Vec<u8>>> {
        let table = self.table.name();
        let mut starts: Vec<Vec<u8>> = self
            .table
            .client()
            .run(&op::RegionLocations { table })
            .await?
            .into_iter()
            .map(|r| r.start_key)
            .collect();
        starts.sort();
        Ok(starts)
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

/// Writes each region's files of the rows of the runs (of `ranges` only, when given) and
/// sends them on as soon as the region's last row is written.
fn write_regions(
    runs: &[Run],
    formats: &[FamilyFormat],
    dir: &Path,
    now: i64,
    ranges: Option<Vec<Rows>>,
    starts: &[Vec<u8>],
    sender: mpsc::Sender<Share>,
) -> Result<()> {
    if let [Run::Memory(puts)] = runs {
        let parts = region_parts(puts, ranges, starts);
        return write_parts(puts, &parts, formats, dir, now, sender);
    }
    write_merged(Merge::new(runs, ranges)?, formats, dir, now, starts, sender)
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
/// files written on one of as many threads as there are cores, several regions at once.
fn write_merged(
    mut merge: Merge,
    formats: &[FamilyFormat],
    dir: &Path,
    now: i64,
    starts: &[Vec<u8>],
    sender: mpsc::Sender<Share>,
) -> Result<()> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    // Each region's pieces come through a channel of its own, handed to the next free writer.
    let (regions_in, regions) = std::sync::mpsc::channel::<Receiver<Piece>>();
    let regions = Mutex::new(regions);
    std::thread::scope(|scope| {
        let writers: Vec<_> = (0..threads)
            .map(|_| {
                let (regions, sender) = (&regions, sender.clone());
                scope.spawn(move || -> Result<()> {
                    while let Ok(pieces) = next_region(regions) {
                        let mut writer = RegionWriter::new(dir, formats, now);
                        for piece in pieces {
                            match piece {
                                Piece::Puts(puts) => {
                                    for put in &puts {
                                        writer.add(put.row(), put.cells())?;
                                    }
                                }
                                Piece::End => {
                                    send(writer, &sender)?;
                                    break;
                                }
                            }
                        }
                    }
                    Ok(())
                })
            })
            .collect();
        let merged = merge_into(&mut merge, starts, &regions_in);
        drop(regions_in);
        let written = writers
            .into_iter()
            .map(|w| w.join().unwrap_or_else(|_| Err(panicked())))
            .collect::<Result<Vec<()>>>();
        // A writer's failure first: the merge then stopped for want of it.
        written.and(merged)
    })
}

/// The next region to write, when there is one.
fn next_region(
    regions: &Mutex<Receiver<Receiver<Piece>>>,
) -> std::result::Result<Receiver<Piece>, std::sync::mpsc::RecvError> {
    regions.lock().unwrap_or_else(|p| p.into_inner()).recv()
}

/// Reads the merged puts and hands them, region by region, to the writers.
fn merge_into(
    merge: &mut Merge,
    starts: &[Vec<u8>],
    regions: &std::sync::mpsc::Sender<Receiver<Piece>>,
) -> Result<()> {
    let gone = || Error::IllegalArgument {
        message: "bulk load: a thread writing files stopped".into(),
    };
    let mut current: Option<(usize, SyncSender<Piece>, Vec<RunPut>)> = None;
    while let Some(put) = merge.next_put()? {
        let region = region_of(starts, put.row());
        if let Some((_, pieces, batch)) = current.take_if(|(at, _, _)| *at != region) {
            pieces.send(Piece::Puts(batch)).map_err(|_| gone())?;
            pieces.send(Piece::End).map_err(|_| gone())?;
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
            pieces.send(Piece::Puts(full)).map_err(|_| gone())?;
        }
    }
    if let Some((_, pieces, batch)) = current {
        pieces.send(Piece::Puts(batch)).map_err(|_| gone())?;
        pieces.send(Piece::End).map_err(|_| gone())?;
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
    dir: &Path,
    now: i64,
    sender: mpsc::Sender<Share>,
) -> Result<()> {
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(parts.len())
        .max(1);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                let (next, sender) = (&next, sender.clone());
                scope.spawn(move || -> Result<()> {
                    while let Some(part) = parts.get(next.fetch_add(1, Ordering::Relaxed)) {
                        let mut writer = RegionWriter::new(dir, formats, now);
                        for put in &puts[part.clone()] {
                            writer.add(&put.row, Cells::of_put(put))?;
                        }
                        send(writer, &sender)?;
                    }
                    Ok(())
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().unwrap_or_else(|_| Err(panicked())))
            .collect::<Result<Vec<()>>>()
            .map(drop)
    })
}

/// Finishes a region's files and sends them on.
fn send(writer: RegionWriter, sender: &mpsc::Sender<Share>) -> Result<()> {
    let rows = (writer.first_row.clone(), writer.last_row.clone());
    let (row_count, cells) = (writer.rows, writer.cells);
    let files = writer.finish()?;
    sender
        .blocking_send(Share {
            rows,
            row_count,
            cells,
            files,
        })
        .map_err(|_| Error::IllegalArgument {
            message: "bulk load: the files written were no longer awaited".into(),
        })
}

fn panicked() -> Error {
    Error::IllegalArgument {
        message: "bulk load: a thread writing files panicked".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
