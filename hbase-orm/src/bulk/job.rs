//! One table's load, from the servers' staging directory made to its removal: [`Job::start`]
//! (the staging token, the load's own directory held locked, what killed loads left removed,
//! where the files go, the table's families), a [`Sorter`] of its input, and
//! [`Job::finish`] (the sorted input loaded, then everything the load made removed, whatever
//! happened). A [`Table`]'s load is one job; an entity load is one per table it writes.

use std::fs::File;
use std::path::PathBuf;
use std::sync::Arc;

use super::files::Destination;
use super::input::{Sorted, Sorter, WHOLE};
use super::stage::Stage;
use super::through::Through;
use super::{leftovers, load, refused_as, since_epoch, BulkLoadOptions, BulkLoadReport, Progress};
use crate::backend::op;
use crate::client::Table;
use crate::model::{CellRef, Error, Result, TableDescriptor, TableName};

/// A table's load under way: its staging token and directories (see the module
/// documentation).
pub(super) struct Job {
    table: Table,
    token: String,
    dir: PathBuf,
    /// The load's own directory, held locked until the files' remote directory is removed.
    lock: Option<File>,
    stage: Option<Stage>,
    /// Where the files are written (for every family of the table).
    to: Option<Arc<dyn Destination>>,
    descriptor: Option<TableDescriptor>,
    now: i64,
    attempts: usize,
}

impl Job {
    /// Starts a load into `table`; `call` names the call the user made (a gateway's refusal
    /// names it). What fails after the servers' staging directory is made removes it.
    pub(super) async fn start(
        table: &Table,
        call: &'static str,
        options: &BulkLoadOptions,
    ) -> Result<Job> {
        let name = table.name();
        if table.labels_cells() {
            return Err(Error::IllegalArgument {
                message: format!(
                    "{call} into {name}: the table handle labels its cells with a visibility \
                     expression, a per-cell tag that bulk-loaded files do not carry: write \
                     them with puts (save_all)"
                ),
            });
        }
        // First, so that a gateway refuses before anything is read or written.
        let token = table
            .client()
            .run(&op::PrepareBulkLoad { table: name })
            .await
            .map_err(|e| refused_as(call, e))?;
        let mut job = Job {
            table: table.clone(),
            dir: super::local_dir(options, name),
            token,
            lock: None,
            stage: None,
            to: None,
            descriptor: None,
            now: since_epoch().as_millis() as i64,
            attempts: options.attempts,
        };
        match job.claim(options).await {
            Ok(()) => Ok(job),
            Err(e) => {
                job.end().await;
                Err(e)
            }
        }
    }

    /// The load's directory locked, leftovers removed, the table described, the files'
    /// destination chosen and made ready for its families.
    async fn claim(&mut self, options: &BulkLoadOptions) -> Result<()> {
        let table = self.table.name();
        self.lock = Some(leftovers::claim(&self.dir, &self.token)?);
        if let Err(e) = self.table.remove_abandoned(options, &self.token).await {
            tracing::warn!(table = %table, error = %e, "bulk load: leftovers of earlier loads not removed");
        }
        let stage = Stage::choose(options, &self.token, &self.dir).await?;
        let stage = self.stage.insert(stage);
        let descriptor = self.table.client().run(&op::Describe { table }).await?;
        let families = descriptor.families.iter().map(|f| f.name.as_str());
        self.to = Some(stage.destination(&self.dir, families).await?);
        self.descriptor = Some(descriptor);
        Ok(())
    }

    /// A sorter of the load's input under `budget` bytes (see [`Sorter::new`]); `expected`
    /// puts are room held for input held whole (`hold_puts`). Any other input (a stream,
    /// entities read whole) is written into the regions' files as it arrives while it is in
    /// row order: the regions are looked up for it.
    pub(super) async fn sorter(
        &self,
        budget: usize,
        expected: usize,
        hold_puts: bool,
    ) -> Result<Sorter> {
        let descriptor = self.descriptor.clone().expect("a started job is described");
        let through = if budget == WHOLE && hold_puts {
            None
        } else {
            let to = self.to.clone().expect("a started job has a destination");
            let regions = load::regions(&self.table).await?;
            let starts = regions.into_iter().map(|r| r.start_key).collect();
            Some(Through::new(to, starts, self.now)?)
        };
        let (dir, now) = (&self.dir, self.now);
        Sorter::new(descriptor, dir, budget, now, expected, hold_puts, through)
    }

    /// Loads the sorted input (unless reading it failed), then removes what the load made.
    pub(super) async fn finish(
        mut self,
        sorted: Result<Sorted>,
        progress: Option<&Progress<'_>>,
    ) -> Result<BulkLoadReport> {
        let result = match sorted {
            Ok(sorted) => self.load(sorted, progress).await,
            Err(e) => Err(e),
        };
        self.end().await;
        result
    }

    async fn load(
        &self,
        sorted: Sorted,
        progress: Option<&Progress<'_>>,
    ) -> Result<BulkLoadReport> {
        let spilled_runs = sorted.spilled;
        let load = load::Load {
            table: &self.table,
            token: &self.token,
            stage: self.stage.as_ref().expect("a started job has a stage"),
            to: self.to.clone().expect("a started job has a destination"),
            now: self.now,
            attempts: self.attempts,
            progress,
        };
        let report = load.run(sorted).await?;
        Ok(BulkLoadReport {
            spilled_runs,
            ..report
        })
    }

    /// Removes what the load made: the files' remote directory, the servers' staging directory
    /// and the load's own (but the token, without the servers' cleanup: for the next load or
    /// `bulk_load_cleanup` once this process is gone).
    async fn end(&mut self) {
        let table = self.table.name();
        if let Some(stage) = self.stage.take() {
            if let Err(e) = stage.remove().await {
                tracing::warn!(table = %table, error = %e, "bulk load: the files' remote directory was not removed");
            }
        }
        self.lock = None;
        let cleaned = self
            .table
            .client()
            .run(&op::CleanupBulkLoad {
                table,
                token: &self.token,
            })
            .await;
        let local = if cleaned.is_ok() {
            vec![self.dir.clone()]
        } else {
            vec![self.dir.join("files"), self.dir.join("runs")]
        };
        for path in local {
            if let Err(e) = std::fs::remove_dir_all(&path) {
                if e.kind() != std::io::ErrorKind::NotFound {
                    tracing::warn!(path = %path.display(), error = %e, "bulk load: not removed");
                }
            }
        }
        if let Err(e) = cleaned {
            // The rows are in: a failed removal of the staging directory does not undo that.
            tracing::warn!(table = %table, error = %e, "bulk load: the servers' staging directory was not removed");
        }
    }
}

/// One table's load fed a put at a time: an entity load feeds one per table it writes (its
/// data tables and index tables), each sorted apart and loaded when the input has been read.
pub(crate) struct Feed {
    job: Job,
    sorter: Sorter,
}

impl Feed {
    /// Starts a load into `table` whose input is sorted as records under `budget` bytes (see
    /// [`BulkLoadOptions::memory_budget`]; [`super::WHOLE`]: in memory, whatever its size).
    pub(crate) async fn start(
        table: &Table,
        call: &'static str,
        options: &BulkLoadOptions,
        budget: usize,
    ) -> Result<Feed> {
        let mut job = Job::start(table, call, options).await?;
        match job.sorter(budget, 0, false).await {
            Ok(sorter) => Ok(Feed { job, sorter }),
            Err(e) => {
                job.end().await;
                Err(e)
            }
        }
    }

    /// The table loaded.
    pub(crate) fn table(&self) -> &TableName {
        self.job.table.name()
    }

    /// Takes the row of one entity value, its cells where they were written (timestamp
    /// `i64::MAX`: the load's), with no put made when they are in HBase's order (see
    /// [`Sorter::push_row`]).
    pub(crate) async fn push_row<'c>(
        &mut self,
        row: &[u8],
        cells: impl Iterator<Item = CellRef<'c>> + Clone,
    ) -> Result<()> {
        self.sorter.push_row(row, cells).await
    }

    /// Loads what was fed, then removes what the load made.
    pub(crate) async fn finish(self, progress: Option<&Progress<'_>>) -> Result<BulkLoadReport> {
        let sorted = self.sorter.finish().await;
        self.job.finish(sorted, progress).await
    }

    /// Gives up: loads nothing, and removes what the load made.
    pub(crate) async fn abandon(mut self) {
        self.sorter.abandon().await;
        self.job.end().await;
    }
}
