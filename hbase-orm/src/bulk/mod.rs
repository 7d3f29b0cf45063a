//! Bulk load: rows written as the table's own storage files (HFiles) and handed to the region
//! servers, with no write-ahead log, memstore, flush or compaction on the way in.
//!
//! [`Table::bulk_load_stream`] reads the puts in chunks under a memory budget, each put written
//! into its chunk as a record as it arrives (`chunk`, `record`), each chunk sorted as the files
//! hold them (`plan`) and, but the last, spilled to a file (`runs`); then, in one
//! pass over the runs merged, cuts the rows at the table's region boundaries and writes each
//! region's files in each family's compression, bloom filter and block size (`files`, with
//! `hbase-orm-hfile`), handing every region its files as soon as they are written (`load`).
//! Input in row order skips the records, the sort, the runs and the merge: each row is written
//! into its region's files as it arrives (`through`, the files' bytes written by a thread of
//! their own: `pipe`), and the files handed over when the input ends.
//! Either way: a staging directory first (`PrepareBulkLoad`), one `BulkLoadHFile` per region,
//! the staging directory removed at the end whatever happened (`CleanupBulkLoad`). A region
//! that no longer takes its files (it split or moved meanwhile) has its rows read again (from
//! the runs, or its files read back with `hbase-orm-hfile`'s reader), cut at the new
//! boundaries and sent again, as HBase's own tool does; one that refuses twice without
//! splitting or moving (its server cannot read the files) ends the load (`refusals`).

mod chunk;
mod files;
#[cfg(feature = "hdfs")]
mod hdfs;
mod input;
mod job;
mod leftovers;
mod load;
mod piece;
mod pipe;
mod plan;
mod record;
mod refusals;
mod runs;
mod stage;
mod through;

use std::path::PathBuf;
use std::sync::Arc;

use futures::Stream;

use crate::client::Table;
use crate::model::{Put, Result, TableName};

/// How [`Table::bulk_load`] works.
///
/// ```
/// let options = hbase_orm::BulkLoadOptions::new().staging_dir("/data/hbase-bulk");
/// ```
#[derive(Clone)]
pub struct BulkLoadOptions {
    staging_dir: Option<PathBuf>,
    #[cfg(feature = "hdfs")]
    hdfs_dir: Option<String>,
    attempts: usize,
    memory_budget: usize,
    progress: Option<Arc<Progress<'static>>>,
}

/// A bulk load's progress callback.
pub(crate) type Progress<'a> = dyn Fn(&BulkLoadReport) + Send + Sync + 'a;

pub(crate) use input::{tell_read, WHOLE};
pub(crate) use job::Feed;

impl std::fmt::Debug for BulkLoadOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut f = f.debug_struct("BulkLoadOptions");
        f.field("staging_dir", &self.staging_dir);
        #[cfg(feature = "hdfs")]
        f.field("hdfs_dir", &self.hdfs_dir);
        f.field("attempts", &self.attempts)
            .field("memory_budget", &self.memory_budget)
            .field("progress", &self.progress.as_ref().map(|_| "callback"))
            .finish()
    }
}

impl Default for BulkLoadOptions {
    fn default() -> Self {
        BulkLoadOptions::new()
    }
}

impl BulkLoadOptions {
    /// Files written under the system's temporary directory; a memory budget of 128 MiB for
    /// the input being sorted; a region that does not take its files is tried again up to 10
    /// times (HBase's `hbase.bulkload.retries.number`).
    pub fn new() -> Self {
        BulkLoadOptions {
            staging_dir: None,
            #[cfg(feature = "hdfs")]
            hdfs_dir: None,
            attempts: 10,
            memory_budget: 128 << 20,
            progress: None,
        }
    }

    /// Calls `progress` with what the load has done so far (from the task awaiting the load:
    /// keep it short): every 65,536 puts (or entities) read from the input, with
    /// [`BulkLoadReport::read`] counting them, then each time a region takes its files, with
    /// the rows, cells and files loaded beside what was read. A program shows the reading as a
    /// count (or against the input's length, when it knows it) and the loading as
    /// `rows` of `read`. The same figures go to the metrics (`hbase_orm_bulk_load_total`, see
    /// [`crate::observe`]).
    ///
    /// ```
    /// let options = hbase_orm::BulkLoadOptions::new()
    ///     .on_progress(|so_far| eprintln!("{} rows in {} regions", so_far.rows, so_far.regions));
    /// ```
    pub fn on_progress(
        mut self,
        progress: impl Fn(&BulkLoadReport) + Send + Sync + 'static,
    ) -> Self {
        self.progress = Some(Arc::new(progress));
        self
    }

    /// About how many bytes of input are held to be sorted at once: more input than this is
    /// sorted in chunks spilled to the staging directory and merged while the files are
    /// written, so that a load of any size holds about this much (a `Vec` given to
    /// [`Table::bulk_load`] is held whole by its caller, of course). The files being written
    /// hold their bytes beside it: input in row order about 1 MiB per file open and about
    /// 4 MiB handed to the thread writing them (the buffers kept for reuse until the files are
    /// written); on HDFS, each file open also holds up to three chunks of 512 KiB or pieces of
    /// 1 MiB queued and what its client has not had acknowledged (up to about 200 packets of
    /// 64 KiB).
    pub fn memory_budget(mut self, bytes: usize) -> Self {
        self.memory_budget = bytes.max(1);
        self
    }

    /// The memory budget, for loads that share it among tables.
    pub(crate) fn budget(&self) -> usize {
        self.memory_budget
    }

    /// The progress callback, if any.
    pub(crate) fn progress(&self) -> Option<&Progress<'static>> {
        self.progress.as_deref()
    }

    /// Where the files (and the sorted runs of a large input) are written before the region
    /// servers take them (a directory of its own is made in it per load, and removed after).
    ///
    /// Where the region servers read the files follows the filesystem of their own staging
    /// directory (under the cluster's `hbase.rootdir`). A cluster on a local filesystem (a
    /// standalone HBase, a cluster on one machine) reads them here: the region servers must
    /// be able to read and write what this process writes. A cluster that keeps its files in
    /// HDFS has them written straight into HDFS with the feature `hdfs` (see
    /// `BulkLoadOptions::hdfs_dir`; only the sorted runs are written here then); without it,
    /// or for another filesystem, giving a staging directory says the region servers read it
    /// (a filesystem they share with this machine), and the load fails with
    /// [`Error::Unsupported`](crate::Error::Unsupported) when none is given.
    pub fn staging_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.staging_dir = Some(dir.into());
        self
    }

    /// The HDFS directory, as a URL (`hdfs://namenode:8020/staging/bulk`), a load's files are
    /// written into before the region servers take them (in a directory of the load's own,
    /// removed after; the region servers move the files from there). By default, when the
    /// cluster keeps its files in HDFS, `/tmp` of that HDFS. The HDFS client reads the
    /// configuration in `HADOOP_CONF_DIR` (a nameservice, Kerberos) and takes the user from
    /// `HADOOP_USER_NAME` or the system's.
    ///
    /// On a Kerberized HDFS (with the feature `kerberos` too) the files are written as the
    /// client's Kerberos user, and the load hands each region a delegation token of that
    /// user's, asked of the NameNode given here (its `host:port`: a nameservice of several
    /// NameNodes is not resolved for it) and cancelled when the load ends: HBase's secure bulk
    /// load, in which the region server moves the files as that user. HBase asks CREATE (or
    /// ADMIN) on the table of a user who bulk-loads; one without is refused with
    /// [`Error::AccessDenied`](crate::Error::AccessDenied) before any file is written.
    ///
    /// ```
    /// let options = hbase_orm::BulkLoadOptions::new().hdfs_dir("hdfs://nn1:8020/imports");
    /// ```
    #[cfg(feature = "hdfs")]
    pub fn hdfs_dir(mut self, url: impl Into<String>) -> Self {
        self.hdfs_dir = Some(url.into());
        self
    }

    /// How many times the files of a region are written and sent before the load fails (a
    /// region splits or moves between the two; 10 by default). A region that refuses its
    /// files twice without splitting or moving in between ends the load at its second refusal
    /// whatever this says: its server cannot take the files (most often, it cannot read them
    /// where they were written: see [`BulkLoadOptions::staging_dir`]).
    pub fn attempts(mut self, attempts: usize) -> Self {
        self.attempts = attempts.max(1);
        self
    }
}

/// What [`BulkLoadOptions`] set, as plain data, its progress callback aside: to carry a load's
/// options to another process (a task of a query run across machines that bulk-loads its own
/// rows), where [`BulkLoadOptions::from_settings`] makes them options again.
///
/// ```
/// use hbase_orm::BulkLoadOptions;
///
/// let options = BulkLoadOptions::new().staging_dir("/data/bulk").memory_budget(64 << 20);
/// let settings = options.settings();
/// assert_eq!(settings.memory_budget, 64 << 20);
/// let there = BulkLoadOptions::from_settings(settings.clone())?;
/// assert_eq!(there.settings(), settings);
/// # Ok::<(), hbase_orm::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct BulkLoadSettings {
    /// [`BulkLoadOptions::staging_dir`].
    pub staging_dir: Option<PathBuf>,
    /// `BulkLoadOptions::hdfs_dir` (feature `hdfs`).
    pub hdfs_dir: Option<String>,
    /// [`BulkLoadOptions::attempts`].
    pub attempts: usize,
    /// [`BulkLoadOptions::memory_budget`].
    pub memory_budget: usize,
}

impl BulkLoadOptions {
    /// What these options set, their progress callback aside.
    pub fn settings(&self) -> BulkLoadSettings {
        BulkLoadSettings {
            staging_dir: self.staging_dir.clone(),
            #[cfg(feature = "hdfs")]
            hdfs_dir: self.hdfs_dir.clone(),
            #[cfg(not(feature = "hdfs"))]
            hdfs_dir: None,
            attempts: self.attempts,
            memory_budget: self.memory_budget,
        }
    }

    /// Options that set what `settings` say (no progress callback). An HDFS directory in a
    /// build without the feature `hdfs` is [`Error::Config`](crate::Error::Config) saying so.
    pub fn from_settings(settings: BulkLoadSettings) -> Result<Self> {
        let mut options = BulkLoadOptions::new()
            .attempts(settings.attempts)
            .memory_budget(settings.memory_budget);
        options.staging_dir = settings.staging_dir;
        match settings.hdfs_dir {
            #[cfg(feature = "hdfs")]
            Some(url) => options.hdfs_dir = Some(url),
            #[cfg(not(feature = "hdfs"))]
            Some(url) => {
                return Err(crate::model::Error::Config(format!(
                    "bulk load options with the HDFS directory {url}: this build of \
                     hbase-orm has no feature `hdfs`"
                )))
            }
            None => {}
        }
        Ok(options)
    }
}

/// What a bulk load wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BulkLoadReport {
    /// Puts read from the input (of [`Repository::bulk_load_stream`](crate::Repository::bulk_load_stream)
    /// and [`Repository::bulk_load`](crate::Repository::bulk_load): entities).
    pub read: u64,
    /// Rows loaded (the puts of one row count once).
    pub rows: u64,
    /// Cells loaded (of cells with the same key, the last given counts once).
    pub cells: u64,
    /// Files the region servers took.
    pub files: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Regions that took files.
    pub regions: u64,
    /// Files written again after a region split or moved.
    pub rewritten: u64,
    /// Sorted runs spilled to the staging directory (input over the memory budget).
    pub spilled_runs: u64,
    /// Of [`files`](Self::files), those written while the input was read: input in row order,
    /// which needs no sort and no merge (the others were written from the sorted input at its
    /// end, or again after a split).
    pub written_as_read: u64,
}

impl BulkLoadReport {
    /// Adds what another load wrote (the loads of several tables, as one report).
    pub fn add(&mut self, other: &BulkLoadReport) {
        self.read += other.read;
        self.rows += other.rows;
        self.cells += other.cells;
        self.files += other.files;
        self.bytes += other.bytes;
        self.regions += other.regions;
        self.rewritten += other.rewritten;
        self.spilled_runs += other.spilled_runs;
        self.written_as_read += other.written_as_read;
    }
}

impl Table {
    /// Writes `puts` as HFiles and hands them to the region servers: the fastest way in for
    /// many rows, since nothing goes through the write-ahead log or the memstores.
    /// [`Table::bulk_load_stream`] of the puts (see there), sorted whole in memory, where they
    /// are already: the memory budget is for streams.
    ///
    /// ```no_run
    /// # async fn demo(client: hbase_orm::Client) -> hbase_orm::Result<()> {
    /// use hbase_orm::{BulkLoadOptions, Put};
    /// let orders = client.table("shop:orders")?;
    /// let puts: Vec<Put> = (0..100_000)
    ///     .map(|i| Put::new(format!("order-{i:08}")).column("d", "total", format!("{i}.00")))
    ///     .collect();
    /// let report = orders.bulk_load(puts, &BulkLoadOptions::new()).await?;
    /// assert_eq!(report.cells, 100_000);
    /// # Ok(()) }
    /// ```
    pub async fn bulk_load(
        &self,
        puts: Vec<Put>,
        options: &BulkLoadOptions,
    ) -> Result<BulkLoadReport> {
        let puts = futures::stream::iter(puts.into_iter().map(Ok));
        let whole = options.clone().memory_budget(input::WHOLE);
        self.load_stream("bulk_load", puts, &whole).await
    }

    /// Writes the puts of a stream of any length as HFiles and hands them to the region
    /// servers (see the module documentation of `bulk`). The cells read back as if put, with
    /// the puts' timestamps (cells without one get the load's start time); of two cells with
    /// the same key, the later one given is loaded. The input is sorted in chunks of
    /// [`BulkLoadOptions::memory_budget`], spilled to the staging directory when there is more.
    ///
    /// Native backend only: a gateway has no bulk-load call, and the load fails with
    /// [`Error::Unsupported`](crate::Error::Unsupported) before the stream is read. Checked as
    /// the puts arrive, before any file is handed over: each put
    /// ([`Error::IllegalArgument`](crate::Error::IllegalArgument)), a family the table lacks, a
    /// family whose compression the writer cannot produce (LZ4, ZSTD, ...:
    /// [`Error::Unsupported`](crate::Error::Unsupported)), a put with a TTL (a per-cell TTL is a
    /// tag, which the files do not carry). An error of the stream ends the load the same way.
    ///
    /// A region takes all of its files or none. A load that fails once files were handed
    /// over is [`Error::BulkLoad`](crate::Error::BulkLoad), which says which row ranges were
    /// loaded and which were being written; the files and runs written and the servers'
    /// staging directory are removed either way.
    ///
    /// ```no_run
    /// # async fn demo(client: hbase_orm::Client) -> hbase_orm::Result<()> {
    /// use hbase_orm::{BulkLoadOptions, Put};
    /// let events = client.table("logs:events")?;
    /// let puts = futures::stream::iter((0..50_000_000u64).map(|i| {
    ///     Ok(Put::new(i.to_be_bytes()).column("d", "level", "INFO"))
    /// }));
    /// let options = BulkLoadOptions::new().memory_budget(64 << 20);
    /// events.bulk_load_stream(puts, &options).await?;
    /// # Ok(()) }
    /// ```
    pub async fn bulk_load_stream(
        &self,
        puts: impl Stream<Item = Result<Put>> + Send,
        options: &BulkLoadOptions,
    ) -> Result<BulkLoadReport> {
        self.load_stream("bulk_load_stream", puts, options).await
    }

    /// The load of `bulk_load` and `bulk_load_stream`, `call` naming the one the user made
    /// (a gateway's refusal names it).
    async fn load_stream(
        &self,
        call: &'static str,
        puts: impl Stream<Item = Result<Put>> + Send,
        options: &BulkLoadOptions,
    ) -> Result<BulkLoadReport> {
        let job = job::Job::start(self, call, options).await?;
        let sorted = match job
            .sorter(options.memory_budget, puts.size_hint().0, true)
            .await
        {
            Ok(sorter) => input::read(sorter, puts, options.progress.as_deref()).await,
            Err(e) => Err(e),
        };
        job.finish(sorted, options.progress.as_deref()).await
    }
}

/// The load's own directory under the staging directory: named after the table, this
/// process and the time (see `leftovers`).
fn local_dir(options: &BulkLoadOptions, table: &TableName) -> PathBuf {
    let now = since_epoch().as_nanos();
    let name = format!("{}{}@{now}", leftovers::prefix(table), std::process::id());
    options.staging_base().join(name)
}

impl BulkLoadOptions {
    /// The directory the loads' own directories are made in.
    fn staging_base(&self) -> PathBuf {
        let base = self.staging_dir.clone().unwrap_or_else(std::env::temp_dir);
        // The region servers are sent `file://` URLs: a relative path would read as a host.
        std::path::absolute(&base).unwrap_or(base)
    }
}

/// The time since the epoch (zero on a clock set before it).
fn since_epoch() -> std::time::Duration {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
}

/// A file or directory of the load's own directory that could not be made, written or read: the
/// staging directory must be writable here, with room for the input, and readable by the servers.
fn staging_error(path: &std::path::Path, e: std::io::Error) -> crate::model::Error {
    crate::model::Error::Staging {
        location: path.display().to_string(),
        message: format!(
            "{e}: give a staging directory this process can write, with room for the input, \
             that the region servers can read (BulkLoadOptions::staging_dir)"
        ),
    }
}

/// A backend's refusal of the bulk-load calls, named after the call the user made
/// (`bulk_load`, not the `prepare_bulk_load` it starts with); other errors as they are.
pub(crate) fn refused_as(call: &'static str, e: crate::model::Error) -> crate::model::Error {
    match e {
        crate::model::Error::Unsupported { backend, why, .. } => crate::model::Error::Unsupported {
            operation: call.to_string(),
            backend,
            why,
        },
        e => e,
    }
}
