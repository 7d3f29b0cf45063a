//! The input read into sorted runs: each put checked as it arrives (its checks, its families
//! against the table's, no TTL), held until the chunk reaches half the memory budget, then
//! sorted and spilled while the next chunk is read; the last chunk sorted and kept in memory.

use std::path::Path;
use std::sync::Arc;

use futures::{Stream, StreamExt};

use super::files::FamilyFormat;
use super::plan::sort_chunk;
use super::runs::{compact, spill, Run, MAX_RUNS};
use crate::model::{printable_key, Error, Put, Result, TableDescriptor};

/// The input, sorted: its runs, the formats of the families it writes, its first and last
/// rows (`None` without puts).
pub(super) struct Sorted {
    pub runs: Vec<Run>,
    pub formats: Vec<FamilyFormat>,
    pub rows: Option<(Vec<u8>, Vec<u8>)>,
}

/// Bytes a put is counted for against the budget: its bytes and what holds them.
fn held_bytes(put: &Put) -> usize {
    let cells: usize = put
        .cells
        .iter()
        .map(|c| c.family.len() + c.qualifier.len() + c.value.len() + 112)
        .sum();
    put.row.len() + cells + 96
}

/// Reads `puts` into sorted runs, spilling each chunk of half the `budget` into `dir`: a full
/// chunk is sorted and spilled on a blocking thread while the next one is read.
pub(super) async fn read(
    puts: impl Stream<Item = Result<Put>> + Send,
    descriptor: &TableDescriptor,
    dir: &Path,
    budget: usize,
    now: i64,
) -> Result<Sorted> {
    let mut spilling = None;
    let read = read_spilling(puts, descriptor, dir, budget, now, &mut spilling).await;
    // A chunk still being spilled is waited for, even when the input failed: nothing writes
    // in the load's directory once this returns.
    let spilled = match spilling {
        Some(spill) => finish(spill).await,
        None => Ok(()),
    };
    let sorted = read?;
    spilled.map(|()| sorted)
}

/// A chunk being sorted and spilled.
type Spilling = tokio::task::JoinHandle<Result<()>>;

/// [`read`], its last spill (if any) left in `spilling`.
async fn read_spilling(
    puts: impl Stream<Item = Result<Put>> + Send,
    descriptor: &TableDescriptor,
    dir: &Path,
    budget: usize,
    now: i64,
    spilling: &mut Option<Spilling>,
) -> Result<Sorted> {
    futures::pin_mut!(puts);
    let mut sorted = Sorted {
        runs: Vec::new(),
        formats: Vec::new(),
        rows: None,
    };
    let runs_dir = dir.join("runs");
    std::fs::create_dir_all(&runs_dir).map_err(|e| super::staging_error(&runs_dir, e))?;
    let chunk_budget = (budget / 2).max(1);
    let mut spilled = 0;
    let (mut chunk, mut held) = (Vec::new(), 0);
    // A chunk of a stream of known length (a `Vec`'s) is allocated once.
    chunk.reserve(puts.size_hint().0.min(chunk_budget / 256));
    while let Some(put) = puts.next().await {
        let put = put?;
        check(&put, descriptor, &mut sorted.formats)?;
        match &mut sorted.rows {
            None => sorted.rows = Some((put.row.clone(), put.row.clone())),
            Some((first, last)) => {
                if put.row < *first {
                    first.clone_from(&put.row);
                } else if put.row > *last {
                    last.clone_from(&put.row);
                }
            }
        }
        held += held_bytes(&put);
        chunk.push(put);
        if held >= chunk_budget {
            let path = runs_dir.join(format!("run-{spilled:05}"));
            spilled += 1;
            let (full, to) = (std::mem::take(&mut chunk), path.clone());
            held = 0;
            if let Some(previous) = spilling.take() {
                finish(previous).await?;
            }
            *spilling = Some(tokio::task::spawn_blocking(move || {
                spill(&to, &sort_chunk(full, now))
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
    let last = blocking(move || Ok(sort_chunk(chunk, now))).await?;
    sorted.runs.push(Run::Memory(Arc::new(last)));
    Ok(sorted)
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
