//! The input read into sorted runs: each put checked as it arrives (its checks, its families
//! against the table's, no TTL), then either held whole and sorted in memory (a `Vec`'s puts),
//! or written as its record into a chunk of half the memory budget, each full chunk sorted and
//! spilled while the next is read, the last sorted and kept in memory.

use std::path::Path;
use std::sync::Arc;

use futures::{Stream, StreamExt};

use super::chunk::RecordChunk;
use super::files::FamilyFormat;
use super::plan::sort_chunk;
use super::runs::{compact, Run, MAX_RUNS};
use crate::model::{printable_key, Error, Put, Result, TableDescriptor};

/// The input, sorted: its runs, the formats of the families it writes, its first and last
/// rows (`None` without puts).
pub(super) struct Sorted {
    pub runs: Vec<Run>,
    pub formats: Vec<FamilyFormat>,
    pub rows: Option<(Vec<u8>, Vec<u8>)>,
}

impl Sorted {
    fn new() -> Sorted {
        Sorted {
            runs: Vec::new(),
            formats: Vec::new(),
            rows: None,
        }
    }

    /// Checks `put` (see [`check`]) and counts its row among the first and last.
    fn see(&mut self, put: &Put, descriptor: &TableDescriptor) -> Result<()> {
        check(put, descriptor, &mut self.formats)?;
        match &mut self.rows {
            None => self.rows = Some((put.row.clone(), put.row.clone())),
            Some((first, last)) => {
                if put.row < *first {
                    first.clone_from(&put.row);
                } else if put.row > *last {
                    last.clone_from(&put.row);
                }
            }
        }
        Ok(())
    }
}

/// The budget that reads the input whole: its puts are sorted where they are, in memory.
pub(super) const WHOLE: usize = usize::MAX;

/// Bytes of records reserved for a chunk at most (it grows past that when its budget is
/// larger).
const RESERVED: usize = 256 << 20;

/// Reads `puts` into sorted runs: whole in memory under the budget [`WHOLE`], else in chunks of
/// records of half the `budget`, each full one sorted and spilled into `dir` on a blocking
/// thread while the next one is read.
pub(super) async fn read(
    puts: impl Stream<Item = Result<Put>> + Send,
    descriptor: &TableDescriptor,
    dir: &Path,
    budget: usize,
    now: i64,
) -> Result<Sorted> {
    if budget == WHOLE {
        return read_whole(puts, descriptor, now).await;
    }
    let mut spilling = None;
    let read = read_spilling(puts, descriptor, dir, budget, now, &mut spilling).await;
    // A chunk still being spilled is waited for, even when the input failed: nothing writes
    // in the load's directory once this returns.
    let spilled = match spilling {
        Some(spill) => finish(spill).await.map(drop),
        None => Ok(()),
    };
    let sorted = read?;
    spilled.map(|()| sorted)
}

/// Reads `puts` whole, and sorts them where they are.
async fn read_whole(
    puts: impl Stream<Item = Result<Put>> + Send,
    descriptor: &TableDescriptor,
    now: i64,
) -> Result<Sorted> {
    futures::pin_mut!(puts);
    let mut sorted = Sorted::new();
    // A stream of known length (a `Vec`'s) is held in one allocation.
    let mut all = Vec::with_capacity(puts.size_hint().0);
    while let Some(put) = puts.next().await {
        let put = put?;
        sorted.see(&put, descriptor)?;
        all.push(put);
    }
    let all = blocking(move || Ok(sort_chunk(all, now))).await?;
    sorted.runs.push(Run::Memory(Arc::new(all)));
    Ok(sorted)
}

/// A chunk being sorted and spilled; it comes back emptied, for the next.
type Spilling = tokio::task::JoinHandle<Result<RecordChunk>>;

/// [`read`] under a budget, its last spill (if any) left in `spilling`.
async fn read_spilling(
    puts: impl Stream<Item = Result<Put>> + Send,
    descriptor: &TableDescriptor,
    dir: &Path,
    budget: usize,
    now: i64,
    spilling: &mut Option<Spilling>,
) -> Result<Sorted> {
    futures::pin_mut!(puts);
    let mut sorted = Sorted::new();
    let runs_dir = dir.join("runs");
    std::fs::create_dir_all(&runs_dir).map_err(|e| super::staging_error(&runs_dir, e))?;
    let chunk_budget = (budget / 2).max(1);
    let reserved = chunk_budget.saturating_add(1 << 20).min(RESERVED);
    let mut spilled = 0;
    let mut chunk = RecordChunk::with_capacity(reserved);
    while let Some(put) = puts.next().await {
        let put = put?;
        sorted.see(&put, descriptor)?;
        chunk.push(put, now).map_err(too_large)?;
        if chunk.held() >= chunk_budget {
            let path = runs_dir.join(format!("run-{spilled:05}"));
            spilled += 1;
            // The chunk spilled before gives its buffer to the next one.
            let next = match spilling.take() {
                Some(previous) => finish(previous).await?,
                None => RecordChunk::with_capacity(reserved),
            };
            let (mut full, to) = (std::mem::replace(&mut chunk, next), path.clone());
            *spilling = Some(tokio::task::spawn_blocking(move || {
                full.sort().map_err(too_large)?;
                full.spill(&to)?;
                Ok(full.emptied())
            }));
            sorted.runs.push(Run::Disk(path));
            if sorted.runs.len() == MAX_RUNS {
                if let Some(last) = spilling.take() {
                    finish(last).await?;
                }
                let path = runs_dir.join(format!("run-{spilled:05}"));
                spilled += 1;
                let runs = std::mem::take(&mut sorted.runs);
                sorted.runs = vec![blocking(move || compact(&runs, &path)).await?];
            }
        }
    }
    let last = blocking(move || {
        chunk.sort().map_err(too_large)?;
        Ok(chunk.into_sorted())
    })
    .await?;
    sorted.runs.push(Run::Records(last));
    Ok(sorted)
}

/// A put (or the puts of one row, merged) too large for a record.
fn too_large(e: std::io::Error) -> Error {
    Error::IllegalArgument {
        message: format!("bulk load: {e}"),
    }
}

/// Waits for a task sorting or writing files.
async fn finish<T>(task: tokio::task::JoinHandle<Result<T>>) -> Result<T> {
    task.await.map_err(|e| Error::IllegalArgument {
        message: format!("bulk load: a task sorting or writing files failed: {e}"),
    })?
}

/// Runs sorting and file work on a blocking thread.
pub(super) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    finish(tokio::task::spawn_blocking(work)).await
}

/// A put the load cannot take is refused with what to do; a family seen for the first time
/// gets its format (or the reason the writer cannot produce it).
fn check(put: &Put, descriptor: &TableDescriptor, formats: &mut Vec<FamilyFormat>) -> Result<()> {
    put.check()?;
    if put.ttl.is_some() {
        return Err(Error::IllegalArgument {
            message: format!(
                "bulk load: the put of row {} has a TTL, a per-cell tag that bulk-loaded files \
                 do not carry: give the family a TTL instead, or write it with a put",
                printable_key(&put.row)
            ),
        });
    }
    for cell in &put.cells {
        if formats
            .iter()
            .any(|f| f.name.as_bytes() == cell.family.as_ref())
        {
            continue;
        }
        let table = &descriptor.name;
        let family = descriptor
            .families
            .iter()
            .find(|f| f.name.as_bytes() == cell.family.as_ref())
            .ok_or_else(|| Error::IllegalArgument {
                message: format!(
                    "bulk load: {table} has no family {} (its families: {})",
                    String::from_utf8_lossy(&cell.family),
                    descriptor
                        .families
                        .iter()
                        .map(|f| f.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            })?;
        formats.push(FamilyFormat::of(table, family)?);
    }
    Ok(())
}
