//! The input read into sorted runs: each put checked as it arrives (its checks, its families
//! against the table's, no TTL), then either held whole and sorted in memory (a `Vec`'s puts),
//! or written as its record into a chunk of half the memory budget, each full chunk sorted and
//! spilled while the next is read, the last sorted and kept in memory. Records read whole
//! (an entity load without a budget) are cut into chunks too, each sorted while the next is
//! read and kept in memory: the sort is then done beside the reading, not after it. While the
//! rows come in row order, they are not held at all but written into the regions' files as
//! they arrive (`through`); once a row comes out of order, those files are the first run.

use std::path::Path;
use std::sync::Arc;

use futures::{Stream, StreamExt};

use hbase_orm_hfile::compare_bytes;

use super::chunk::{stamp, stamped_in_order, RecordChunk};
use super::files::{FamilyFormat, Share};
use super::plan::{finish_put, sort_chunk};
use super::record::Cells;
use super::runs::{compact, Run, WrittenFiles, MAX_RUNS};
use super::through::Through;
use crate::model::{
    printable_key, CellRef, Error, Put, Result, TableDescriptor, MAX_CELL, MAX_ROW_KEY,
};

/// The input, sorted: its runs, the formats of the families it writes, its first and last
/// rows (`None` without puts), the regions' files when they were written as it arrived.
pub(super) struct Sorted {
    pub runs: Vec<Run>,
    pub formats: Vec<FamilyFormat>,
    pub rows: Option<(Vec<u8>, Vec<u8>)>,
    /// Whether each row came after the row before it.
    ordered: bool,
    /// The regions' files of input in row order, written as it arrived (see `through`), cut at
    /// the regions of the load's start.
    pub written: Option<Vec<Share>>,
    /// The puts read.
    pub taken: u64,
    /// The chunks spilled to the staging directory.
    pub spilled: u64,
}

impl Sorted {
    fn new() -> Sorted {
        Sorted {
            runs: Vec::new(),
            formats: Vec::new(),
            rows: None,
            ordered: true,
            written: None,
            taken: 0,
            spilled: 0,
        }
    }

    /// Checks `put` (see [`check`]) and counts its row among the first and last.
    fn see(&mut self, put: &Put, descriptor: &TableDescriptor) -> Result<()> {
        check(put, descriptor, &mut self.formats)?;
        self.seen(&put.row);
        Ok(())
    }

    /// Counts a row taken among the first and last (and whether it came after the row
    /// before it: then it is the last).
    fn seen(&mut self, row: &[u8]) {
        self.taken += 1;
        match &mut self.rows {
            None => self.rows = Some((row.to_vec(), row.to_vec())),
            Some((first, last)) => {
                if compare_bytes(row, last).is_gt() {
                    last.clear();
                    last.extend_from_slice(row);
                    return;
                }
                self.ordered = false;
                if row < first.as_slice() {
                    first.clear();
                    first.extend_from_slice(row);
                }
            }
        }
    }

    /// Whether every row so far came in row order and `row` comes after the last of them.
    fn follows(&self, row: &[u8]) -> bool {
        self.ordered
            && match &self.rows {
                None => true,
                Some((_, last)) => compare_bytes(row, last).is_gt(),
            }
    }

    /// Whether the put of `row` and `cells` would pass [`check`] with nothing to tell: its
    /// row and cells within HBase's limits, each cell of a family the load has a format for
    /// already (anything else goes through [`check`], which says what is wrong).
    fn passes<'c>(&self, row: &[u8], cells: impl Iterator<Item = CellRef<'c>>) -> bool {
        if row.is_empty() || row.len() > MAX_ROW_KEY {
            return false;
        }
        let mut any = false;
        let mut family: &[u8] = &[];
        for cell in cells {
            any = true;
            if !std::ptr::eq(cell.family, family) && cell.family != family {
                if !self
                    .formats
                    .iter()
                    .any(|f| f.name.as_bytes() == cell.family)
                {
                    return false;
                }
                family = cell.family;
            }
            if row.len() + cell.family.len() + cell.qualifier.len() + cell.value.len() > MAX_CELL {
                return false;
            }
        }
        any
    }
}

/// The budget that reads the input whole: its puts are sorted where they are, in memory.
pub(crate) const WHOLE: usize = usize::MAX;

/// Bytes of records reserved for a chunk at most (it grows past that when its budget is
/// larger).
const RESERVED: usize = 256 << 20;

/// The smallest chunk of records read whole: each is sorted on a blocking thread while the
/// next is read. Later chunks hold a quarter of what the earlier ones hold, so that a large
/// input makes few runs to merge (a few dozen for gigabytes).
const WHOLE_CHUNK: usize = 32 << 20;

/// How many puts (or entities) are read between two calls of a load's progress callback.
pub(crate) const READ_STEP: u64 = 1 << 16;

/// Tells `progress` that `read` puts (or entities) were read, every [`READ_STEP`].
pub(crate) fn tell_read(progress: Option<&super::Progress<'_>>, read: u64) {
    if let Some(progress) = progress.filter(|_| read.is_multiple_of(READ_STEP)) {
        progress(&super::BulkLoadReport {
            read,
            ..Default::default()
        });
    }
}

/// Reads `puts` into `sorter`, the input sorted; `progress` is told every [`READ_STEP`] puts.
pub(super) async fn read(
    mut sorter: Sorter,
    puts: impl Stream<Item = Result<Put>> + Send,
    progress: Option<&super::Progress<'_>>,
) -> Result<Sorted> {
    futures::pin_mut!(puts);
    while let Some(put) = puts.next().await {
        if let Err(e) = sorter.push(put).await {
            sorter.abandon().await;
            return Err(e);
        }
        tell_read(progress, sorter.sorted.taken);
    }
    sorter.finish().await
}

/// The input being read into sorted runs, a put at a time: whole in memory under the budget
/// [`WHOLE`], else as records in chunks of half the budget, each full one sorted and spilled
/// on a blocking thread while the next one is read. While it comes in row order (and is not
/// puts held whole), each row is written into the regions' files as it arrives instead.
pub(super) struct Sorter {
    sorted: Sorted,
    descriptor: TableDescriptor,
    now: i64,
    /// The puts held whole (under [`WHOLE`]).
    whole: Option<Vec<Put>>,
    chunk: RecordChunk,
    /// The last chunk spilled, while it is.
    spilling: Option<Spilling>,
    runs_dir: std::path::PathBuf,
    chunk_budget: usize,
    reserved: usize,
    spilled: usize,
    /// Records read whole: the chunks being sorted (in the order read) and the bytes they
    /// hold; `None` when chunks are spilled.
    kept: Option<(Vec<Sorting>, usize)>,
    /// The smallest chunk of records read whole ([`WHOLE_CHUNK`]; smaller in tests).
    whole_chunk: usize,
    /// The regions' files of the input while it is in row order (and not held whole).
    through: Option<Through>,
}

impl Sorter {
    /// A sorter of the puts of the table `descriptor` describes, spilling into `dir` (made
    /// when the budget is not [`WHOLE`]); under [`WHOLE`], the puts are held as they are
    /// (`expected` of them) with `hold_puts`, else as records in chunks that are never
    /// spilled. While the input is in row order, its rows are written through `through`
    /// instead (when it is given: not for puts held whole).
    pub(super) fn new(
        descriptor: TableDescriptor,
        dir: &Path,
        budget: usize,
        now: i64,
        expected: usize,
        hold_puts: bool,
        through: Option<Through>,
    ) -> Result<Sorter> {
        debug_assert!(
            !(budget == WHOLE && hold_puts) || through.is_none(),
            "puts held whole are sorted, not written through"
        );
        let runs_dir = dir.join("runs");
        let (whole, chunk_budget, reserved) = if budget == WHOLE && hold_puts {
            (Some(Vec::with_capacity(expected)), usize::MAX, 0)
        } else if budget == WHOLE {
            (None, WHOLE_CHUNK, WHOLE_CHUNK + (1 << 20))
        } else {
            std::fs::create_dir_all(&runs_dir).map_err(|e| super::staging_error(&runs_dir, e))?;
            let chunk_budget = (budget / 2).max(1);
            let reserved = chunk_budget.saturating_add(1 << 20).min(RESERVED);
            (None, chunk_budget, reserved)
        };
        Ok(Sorter {
            sorted: Sorted::new(),
            descriptor,
            now,
            whole,
            chunk: RecordChunk::with_capacity(reserved),
            spilling: None,
            runs_dir,
            chunk_budget,
            reserved,
            spilled: 0,
            kept: (budget == WHOLE && !hold_puts).then(|| (Vec::new(), 0)),
            whole_chunk: WHOLE_CHUNK,
            through,
        })
    }

    /// Takes one put of the input (or its error, which ends the input).
    pub(super) async fn push(&mut self, put: Result<Put>) -> Result<()> {
        let mut put = put?;
        self.sorted.see(&put, &self.descriptor)?;
        if let Some(all) = &mut self.whole {
            all.push(put);
            return Ok(());
        }
        if self.through.is_some() {
            if self.sorted.ordered {
                finish_put(&mut put, self.now);
                return self.write_through(&put.row, Cells::of_put(&put)).await;
            }
            self.fall_back().await?;
        }
        self.chunk.push(put, self.now).map_err(too_large)?;
        if self.chunk.held() >= self.chunk_budget {
            self.spill().await?;
        }
        Ok(())
    }

    /// Takes the row of one entity value, its cells where the value was written: with no
    /// put made when its cells are in order and pass the checks a put's would, and the row
    /// is written through (it follows the rows before) or held as a record (see
    /// [`RecordChunk::push_row`]); as a put made of them otherwise.
    pub(super) async fn push_row<'c>(
        &mut self,
        row: &[u8],
        cells: impl Iterator<Item = CellRef<'c>> + Clone,
    ) -> Result<()> {
        let now = self.now;
        if self.through.is_some() && self.sorted.follows(row) {
            // The checks and the order in one pass over the cells.
            let mut ordered = true;
            if self
                .sorted
                .passes(row, stamped_in_order(cells.clone(), now, &mut ordered))
                && ordered
            {
                self.sorted.seen(row);
                return self
                    .write_through(row, cells.clone().map(move |c| stamp(c, now)))
                    .await;
            }
        }
        let written = self.whole.is_none()
            && self.through.is_none()
            && self.sorted.passes(row, cells.clone())
            && self
                .chunk
                .push_row(row, cells.clone(), self.now)
                .map_err(too_large)?;
        if written {
            self.sorted.seen(row);
            if self.chunk.held() >= self.chunk_budget {
                self.spill().await?;
            }
            return Ok(());
        }
        let mut put = Put::new(row);
        for cell in cells {
            let timestamp = (cell.timestamp != i64::MAX).then_some(cell.timestamp);
            put.push(cell.family, cell.qualifier, cell.value, timestamp);
        }
        self.push(Ok(put)).await
    }

    /// Writes a row that follows the rows before into the regions' files, its cells in
    /// HBase's order with their timestamps; waits while their thread is behind.
    async fn write_through<'c>(
        &mut self,
        row: &[u8],
        cells: impl Iterator<Item = CellRef<'c>>,
    ) -> Result<()> {
        let through = self.through.as_mut().expect("rows are written through");
        through.write(row, cells, &self.sorted.formats)?;
        through.room().await
    }

    /// Sorts and spills the full chunk on a blocking thread, the one spilled before it given
    /// back as the next chunk; compacts the runs when there are [`MAX_RUNS`]. Records read
    /// whole are sorted there and kept (see [`Sorter::keep`]).
    async fn spill(&mut self) -> Result<()> {
        if self.kept.is_some() {
            return self.keep().await;
        }
        // The chunk spilled before gives its buffer to the next one.
        let next = match self.spilling.take() {
            Some(previous) => finish(previous).await?,
            None => RecordChunk::with_capacity(self.reserved),
        };
        let mut full = std::mem::replace(&mut self.chunk, next);
        let path = self.runs_dir.join(format!("run-{:05}", self.spilled));
        self.spilled += 1;
        self.sorted.spilled += 1;
        let to = path.clone();
        self.spilling = Some(tokio::task::spawn_blocking(move || {
            full.sort().map_err(too_large)?;
            full.spill(&to)?;
            Ok(full.emptied())
        }));
        self.sorted.runs.push(Run::Disk(path));
        if self.sorted.runs.len() == MAX_RUNS {
            if let Some(last) = self.spilling.take() {
                finish(last).await?;
            }
            let path = self.runs_dir.join(format!("run-{:05}", self.spilled));
            self.spilled += 1;
            let runs = std::mem::take(&mut self.sorted.runs);
            self.sorted.runs = vec![blocking(move || compact(&runs, &path)).await?];
        }
        Ok(())
    }

    /// Once a row came out of order: the regions' files written while the input was in order
    /// become the first run (no run was made before it), read back by the merge with the
    /// runs after it.
    async fn fall_back(&mut self) -> Result<()> {
        if let Some(through) = self.through.take() {
            let to = through.destination();
            let shares = through.finish().await?;
            let files = WrittenFiles { to, shares };
            self.sorted.runs.insert(0, Run::Files(Arc::new(files)));
        }
        Ok(())
    }

    /// Keeps the full chunk of records read whole: sorted on a blocking thread of its own,
    /// later chunks larger (see [`WHOLE_CHUNK`]).
    async fn keep(&mut self) -> Result<()> {
        let (sorting, held) = self.kept.as_mut().expect("records read whole");
        *held += self.chunk.held();
        self.chunk_budget = self.whole_chunk.max(*held / 4);
        let next = RecordChunk::with_capacity(self.chunk_budget + (1 << 20));
        let mut full = std::mem::replace(&mut self.chunk, next);
        sorting.push(tokio::task::spawn_blocking(move || {
            full.sort().map_err(too_large)?;
            Ok(full.into_sorted())
        }));
        Ok(())
    }

    /// The input read, sorted.
    pub(super) async fn finish(mut self) -> Result<Sorted> {
        if let Some(all) = self.whole.take() {
            let now = self.now;
            let all = blocking(move || Ok(sort_chunk(all, now))).await?;
            self.sorted.runs.push(Run::Memory(Arc::new(all)));
            return Ok(self.sorted);
        }
        // Input in row order was all written through.
        if let Some(through) = self.through.take() {
            self.sorted.written = Some(through.finish().await?);
            return Ok(self.sorted);
        }
        // A chunk still being spilled is waited for: nothing writes in the load's directory
        // once this returns.
        if let Some(spill) = self.spilling.take() {
            finish(spill).await?;
        }
        // Chunks read whole, sorted: runs in the order read (the merge keeps the first run's
        // puts of a row first).
        for sorting in self.kept.take().map(|(s, _)| s).unwrap_or_default() {
            self.sorted.runs.push(Run::Records(finish(sorting).await?));
        }
        let mut chunk = std::mem::replace(&mut self.chunk, RecordChunk::with_capacity(0));
        let last = blocking(move || {
            chunk.sort().map_err(too_large)?;
            Ok(chunk.into_sorted())
        })
        .await?;
        self.sorted.runs.push(Run::Records(last));
        Ok(self.sorted)
    }

    /// Gives up on the input: waits for a chunk still being spilled and for the files'
    /// thread, so that nothing writes in the load's directory once this returns.
    pub(super) async fn abandon(mut self) {
        if let Some(through) = self.through.take() {
            through.abandon().await;
        }
        if let Some(spill) = self.spilling.take() {
            let _ = spill.await;
        }
        for sorting in self.kept.take().map(|(s, _)| s).unwrap_or_default() {
            let _ = sorting.await;
        }
    }
}

/// A chunk being sorted and spilled; it comes back emptied, for the next.
type Spilling = tokio::task::JoinHandle<Result<RecordChunk>>;

/// A chunk of records read whole being sorted, to be kept in memory.
type Sorting = tokio::task::JoinHandle<Result<super::chunk::SortedRecords>>;

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
    if put.visibility.is_some() {
        return Err(Error::IllegalArgument {
            message: format!(
                "bulk load: the put of row {} has a visibility expression, a per-cell tag that \
                 bulk-loaded files do not carry: write it with a put",
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

#[cfg(test)]
mod tests {
    use super::super::files::{files_under, Destination, LocalFiles};
    use super::super::runs::Merge;
    use super::*;
    use crate::model::{ColumnFamily, TableName};

    /// Input over its budget, and records read whole in chunks: ordered, each row is written
    /// into the regions' files as it arrives, cut at the regions' starts, a family met late
    /// given its own files from there on, and nothing is spilled or kept; a row out of order
    /// after many makes those files the first run, read back and merged with the rest (the
    /// later cell of a key winning).
    #[tokio::test]
    async fn ordered_input_is_written_as_it_arrives_until_a_row_comes_out_of_order() {
        let descriptor = TableDescriptor::new(TableName::new("default", "t"))
            .family(ColumnFamily::new("d"))
            .family(ColumnFamily::new("e"));
        let cell = |family: &'static [u8], v: &'static [u8]| CellRef {
            family,
            qualifier: b"q",
            value: v,
            timestamp: i64::MAX,
        };
        let starts = vec![Vec::new(), 1_000u32.to_be_bytes().to_vec()];
        for (budget, disorder) in [
            (8 << 10, false),
            (8 << 10, true),
            (WHOLE, false),
            (WHOLE, true),
        ] {
            let name = format!("through-{}-{budget}-{disorder}", std::process::id());
            let dir = std::env::temp_dir().join(name);
            let to: Arc<dyn Destination> = Arc::new(LocalFiles(dir.clone()));
            let through = Through::new(to, starts.clone(), 7).unwrap();
            let mut sorter =
                Sorter::new(descriptor.clone(), &dir, budget, 7, 0, false, Some(through)).unwrap();
            if budget == WHOLE {
                (sorter.whole_chunk, sorter.chunk_budget) = (4 << 10, 4 << 10);
            }
            for i in 0..3_000u32 {
                let row = i.to_be_bytes();
                // Family `e` from row 2,500 on, met late.
                let e = [cell(b"d", b"v"), cell(b"e", b"w")];
                let cells = if i < 2_500 { &e[..1] } else { &e[..] };
                if i == 2_998 {
                    // Cells of one family out of order (qualifier `r` before `q`): made a put,
                    // sorted, then written through (as they are, the file would refuse them).
                    let r = CellRef {
                        qualifier: b"r",
                        ..cell(b"d", b"x")
                    };
                    let cells = [r, cell(b"d", b"v"), cell(b"e", b"w")];
                    sorter.push_row(&row, cells.iter().copied()).await.unwrap();
                    assert!(sorter.through.is_some(), "still written as it arrives");
                    continue;
                }
                if i == 2_999 {
                    // The last as a put, its cells out of order: sorted, then written through.
                    let put = Put::new(row.to_vec())
                        .column(&b"e"[..], &b"q"[..], &b"w"[..])
                        .column(&b"d"[..], &b"q"[..], &b"v"[..]);
                    sorter.push(Ok(put)).await.unwrap();
                    continue;
                }
                sorter.push_row(&row, cells.iter().copied()).await.unwrap();
            }
            // Out of order: a row before the last, or the last again.
            let again = if budget == WHOLE { 2_999u32 } else { 5 };
            if disorder {
                let cells = [cell(b"d", b"again")];
                let row = again.to_be_bytes();
                sorter.push_row(&row, cells.iter().copied()).await.unwrap();
                assert!(
                    sorter.through.is_none(),
                    "the files are a run from there on"
                );
                // Rows in order after it are held as any (not written through again).
                for i in 3_000..3_010u32 {
                    let cells = [cell(b"d", b"v")];
                    sorter
                        .push_row(&i.to_be_bytes(), cells.iter().copied())
                        .await
                        .unwrap();
                }
            }
            let sorted = sorter.finish().await.unwrap();
            assert_eq!(sorted.spilled, 0, "input in row order is not spilled");
            if disorder {
                assert!(sorted.written.is_none());
                let Some(Run::Files(files)) = sorted.runs.first() else {
                    panic!("the files written are the first run");
                };
                assert!(files.shares.len() >= 2, "{} regions", files.shares.len());
                assert!(!files_under(&dir).is_empty());
                let mut merge = Merge::new(&sorted.runs, None).unwrap();
                let (mut rows, mut cells) = (0, 0);
                while let Some(put) = merge.next_put().unwrap() {
                    assert_eq!(put.row(), (rows as u32).to_be_bytes());
                    let first = put.cells().next().unwrap();
                    let value: &[u8] = if put.row() == again.to_be_bytes() {
                        b"again"
                    } else {
                        b"v"
                    };
                    assert_eq!((first.value, first.timestamp), (value, 7));
                    rows += 1;
                    cells += put.cells().count();
                }
                assert_eq!((rows, cells), (3_010, 3_511));
            } else {
                assert!(sorted.runs.is_empty(), "neither spilled nor kept");
                let shares = sorted.written.expect("written as it arrived");
                let cut: Vec<_> = shares
                    .iter()
                    .map(|s| (s.rows.0.clone(), s.rows.1.clone(), s.row_count, s.cells))
                    .collect();
                let row = |i: u32| i.to_be_bytes().to_vec();
                assert_eq!(
                    cut,
                    [
                        (row(0), row(999), 1_000, 1_000),
                        (row(1_000), row(2_999), 2_000, 2_501)
                    ]
                );
                let families: Vec<Vec<&str>> = shares
                    .iter()
                    .map(|s| s.files.iter().map(|f| f.family.as_str()).collect())
                    .collect();
                assert_eq!(families, [vec!["d"], vec!["d", "e"]]);
                assert_eq!(files_under(&dir).len(), 3);
            }
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }

    /// Entity rows read whole are sorted in chunks kept in memory (none spilled, the staging
    /// directory untouched), growing as the input does, and merge as the whole input sorted
    /// at once: rows in order, a row given twice merged, the later cell of a key kept.
    #[tokio::test]
    async fn rows_read_whole_sort_in_chunks_kept_in_memory() {
        let descriptor =
            TableDescriptor::new(TableName::new("default", "t")).family(ColumnFamily::new("d"));
        let dir = std::env::temp_dir().join(format!("whole-chunks-{}", std::process::id()));
        let mut sorter = Sorter::new(descriptor, &dir, WHOLE, 7, 0, false, None).unwrap();
        (sorter.whole_chunk, sorter.chunk_budget) = (4 << 10, 4 << 10);
        let cell = |q: &'static [u8], v: &'static [u8]| CellRef {
            family: b"d",
            qualifier: q,
            value: v,
            timestamp: i64::MAX,
        };
        let mut expected = Vec::new();
        for i in 0..3_000u32 {
            // Rows out of order; row 5 given again at the end with a newer `b`.
            let row = ((i * 7_919) % 3_000).to_be_bytes();
            let cells = [cell(b"a", b"first"), cell(b"b", b"old")];
            sorter.push_row(&row, cells.iter().copied()).await.unwrap();
            expected.push(row.to_vec());
        }
        let again = 5u32.to_be_bytes();
        let cells = [cell(b"b", b"newer"), cell(b"c", b"added")];
        sorter
            .push_row(&again, cells.iter().copied())
            .await
            .unwrap();
        let kept = sorter.kept.as_ref().map(|(s, _)| s.len()).unwrap();
        assert!(kept > 3, "{kept} chunks");
        let sorted = sorter.finish().await.unwrap();
        assert_eq!((sorted.spilled, sorted.taken), (0, 3_001));
        assert!(!dir.exists(), "nothing written for input read whole");
        assert!(sorted.runs.iter().all(|r| matches!(r, Run::Records(_))));
        expected.sort();
        let mut merge = Merge::new(&sorted.runs, None).unwrap();
        let mut rows = Vec::new();
        while let Some(put) = merge.next_put().unwrap() {
            let cells: Vec<(Vec<u8>, Vec<u8>, i64)> = put
                .cells()
                .map(|c| (c.qualifier.to_vec(), c.value.to_vec(), c.timestamp))
                .collect();
            if put.row() == again.as_slice() {
                let want: &[(&[u8], &[u8])] =
                    &[(b"a", b"first"), (b"b", b"newer"), (b"c", b"added")];
                let want: Vec<_> = want
                    .iter()
                    .map(|(q, v)| (q.to_vec(), v.to_vec(), 7))
                    .collect();
                assert_eq!(cells, want);
            } else {
                assert_eq!(cells.len(), 2);
            }
            rows.push(put.row().to_vec());
        }
        assert_eq!(rows, expected);
    }
}
