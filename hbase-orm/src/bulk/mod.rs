//! Bulk load: rows written as the table's own storage files (HFiles) and handed to the region
//! servers, with no write-ahead log, memstore, flush or compaction on the way in.
//!
//! [`Table::bulk_load`] sorts the puts' cells as the files hold them, cuts them at the table's
//! region boundaries into one file per region and family (`plan`), writes the files into a
//! local directory in each family's compression, bloom filter and block size (`files`, with
//! `hbase-orm-hfile`), and hands each region its files through the native backend's calls: a
//! staging directory first (`PrepareBulkLoad`), then one `BulkLoadHFile` per region, the
//! staging directory removed at the end whatever happened (`CleanupBulkLoad`). A region that
//! no longer takes its files (it split or moved meanwhile) has its cells cut again at the new
//! boundaries and sent again, as HBase's own tool does.

mod files;
mod plan;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures::StreamExt;

use crate::backend::op;
use crate::client::Table;
use crate::model::{Error, Put, Result, TableName};
use files::FamilyFormat;
use plan::RegionShare;

/// Regions whose files are written and handed over at once.
const REGIONS_AT_ONCE: usize = 8;

/// How [`Table::bulk_load`] works.
///
/// ```
/// let options = hbase_orm::BulkLoadOptions::new().staging_dir("/data/hbase-bulk");
/// ```
#[derive(Debug, Clone)]
pub struct BulkLoadOptions {
    staging_dir: Option<PathBuf>,
    attempts: usize,
}

impl Default for BulkLoadOptions {
    fn default() -> Self {
        BulkLoadOptions::new()
    }
}

impl BulkLoadOptions {
    /// Files written under the system's temporary directory; a region that does not take its
    /// files is tried again up to 10 times (HBase's `hbase.bulkload.retries.number`).
    pub fn new() -> Self {
        BulkLoadOptions {
            staging_dir: None,
            attempts: 10,
        }
    }

    /// Where the files are written before the region servers take them (a directory of its
    /// own is made in it per load, and removed after). The region servers must be able to
    /// read and write what this process writes there: the same machine (a standalone HBase,
    /// the local cluster) or a shared filesystem.
    pub fn staging_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.staging_dir = Some(dir.into());
        self
    }

    /// How many times the files of a region are written and sent before the load fails (a
    /// region splits or moves between the two).
    pub fn attempts(mut self, attempts: usize) -> Self {
        self.attempts = attempts.max(1);
        self
    }
}

/// What a bulk load wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BulkLoadReport {
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
}

impl BulkLoadReport {
    /// Adds what another load wrote (the loads of several tables, as one report).
    pub fn add(&mut self, other: &BulkLoadReport) {
        self.cells += other.cells;
        self.files += other.files;
        self.bytes += other.bytes;
        self.regions += other.regions;
        self.rewritten += other.rewritten;
    }
}

impl Table {
    /// Writes `puts` as HFiles and hands them to the region servers (see the module
    /// documentation of `bulk`): the fastest way in for many rows, since nothing goes through
    /// the write-ahead log or the memstores. The cells read back as if put, with the puts'
    /// timestamps (cells without one get the load's start time); of two cells with the same
    /// key, the later one given is loaded.
    ///
    /// Native backend only: a gateway has no bulk-load call, and the load fails with
    /// [`Error::Unsupported`] before any file is written. Checked before any file is written
    /// too: each put ([`Error::IllegalArgument`]), a family the table lacks, a family whose
    /// compression the writer cannot produce (LZ4, ZSTD, ...: [`Error::Unsupported`]), a put
    /// with a TTL (a per-cell TTL is a tag, which the files do not carry).
    ///
    /// A region takes all of its files or none. A load that fails part way is
    /// [`Error::BulkLoad`], which says which regions' rows were loaded and which were not;
    /// the files written and the servers' staging directory are removed either way.
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
        puts.iter().try_for_each(Put::check)?;
        if let Some(put) = puts.iter().find(|p| p.ttl.is_some()) {
            return Err(Error::IllegalArgument {
                message: format!(
                    "bulk load: the put of row {} has a TTL, a per-cell tag that bulk-loaded \
                     files do not carry: give the family a TTL instead, or write it with a put",
                    crate::model::printable_key(&put.row)
                ),
            });
        }
        let table = self.name();
        let client = self.client();
        // First, so that a gateway refuses before anything is written.
        let token = client.run(&op::PrepareBulkLoad { table }).await?;
        let dir = local_dir(options, table);
        let result = self.load_into(&token, &dir, puts, options).await;
        let cleaned = client
            .run(&op::CleanupBulkLoad {
                table,
                token: &token,
            })
            .await;
        let removed = match std::fs::remove_dir_all(&dir) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::IllegalArgument {
                message: format!("bulk load: cannot remove {}: {e}", dir.display()),
            }),
            _ => Ok(()),
        };
        let report = result?;
        cleaned?;
        removed?;
        Ok(report)
    }

    /// The load once the servers' staging directory exists: the files written into `dir`.
    async fn load_into(
        &self,
        token: &str,
        dir: &Path,
        puts: Vec<Put>,
        options: &BulkLoadOptions,
    ) -> Result<BulkLoadReport> {
        let (table, client) = (self.name(), self.client());
        let descriptor = client.run(&op::Describe { table }).await?;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        let plan = plan::prepare(puts, now);
        let mut formats = Vec::with_capacity(plan.families.len());
        for name in &plan.families {
            let family = descriptor
                .families
                .iter()
                .find(|f| f.name.as_bytes() == name.as_ref())
                .ok_or_else(|| Error::IllegalArgument {
                    message: format!(
                        "bulk load: {table} has no family {} (its families: {})",
                        String::from_utf8_lossy(name),
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
        let (plan, formats) = (Arc::new(plan), Arc::new(formats));
        let mut report = BulkLoadReport::default();
        let mut loaded = Vec::new();
        let all = std::iter::once(0..plan.puts.len());
        let mut pending = plan::shares(&plan, all, &self.region_starts().await?);
        for attempt in 1.. {
            // Every region's files written and handed over, several at once: one region's
            // files are written while another's are copied by its server. Every load started
            // is let finish, so that a failure says exactly what was loaded.
            let outcomes: Vec<(RegionShare, Result<Option<Taken>>)> =
                futures::stream::iter(pending)
                    .map(|share| {
                        let files = ShareFiles {
                            dir: dir.to_path_buf(),
                            plan: plan.clone(),
                            formats: formats.clone(),
                            now,
                        };
                        async move {
                            let outcome = self.load_share(token, files, &share).await;
                            (share, outcome)
                        }
                    })
                    .buffer_unordered(REGIONS_AT_ONCE)
                    .collect()
                    .await;
            let mut again = Vec::new();
            let mut failed = None;
            for (share, outcome) in outcomes {
                match outcome {
                    Ok(Some(Taken { files, bytes })) => {
                        report.cells += share.cells(&plan);
                        report.files += files;
                        report.bytes += bytes;
                        report.regions += 1;
                        if attempt > 1 {
                            report.rewritten += files;
                        }
                        loaded.push(share);
                    }
                    Ok(None) => again.push(share),
                    Err(e) => {
                        failed = failed.or(Some(e));
                        again.push(share);
                    }
                }
            }
            if let Some(e) = failed {
                return Err(partial(table, &plan, loaded, again, e));
            }
            if again.is_empty() {
                break;
            }
            if attempt >= options.attempts {
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
                return Err(partial(table, &plan, loaded, again, e));
            }
            // Regions split or moved: their rows cut again at today's boundaries.
            let starts = self.region_starts().await?;
            again.sort_by_key(|s| s.puts.start);
            pending = plan::shares(&plan, again.into_iter().map(|s| s.puts), &starts);
        }
        Ok(report)
    }

    /// Writes the files of one region's share (on a blocking thread) and hands them over: the
    /// files and bytes taken, or `None` if the region did not take them. The local files are
    /// removed either way (the region server copied what it took).
    async fn load_share(
        &self,
        token: &str,
        files: ShareFiles,
        share: &RegionShare,
    ) -> Result<Option<Taken>> {
        let plan = files.plan.clone();
        let to_write = share.clone();
        let written = tokio::task::spawn_blocking(move || {
            files::write_share(
                &files.dir,
                &files.plan,
                &to_write,
                &files.formats,
                files.now,
            )
        })
        .await
        .map_err(|e| Error::IllegalArgument {
            message: format!("bulk load: the task writing a region's files failed: {e}"),
        })??;
        let paths: Vec<(String, String)> = written
            .iter()
            .map(|w| (w.family.clone(), format!("file://{}", w.path.display())))
            .collect();
        let outcome = self
            .client()
            .run(&op::BulkLoadFiles {
                table: self.name(),
                first_row: share.first_row(&plan),
                files: &paths,
                token,
            })
            .await;
        for file in &written {
            let _ = std::fs::remove_file(&file.path);
        }
        let bytes = written.iter().map(|w| w.bytes).sum();
        Ok(outcome?.then_some(Taken {
            files: written.len() as u64,
            bytes,
        }))
    }

    /// The start keys of the table's regions, in order.
    async fn region_starts(&self) -> Result<Vec<Vec<u8>>> {
        let table = self.name();
        let mut starts: Vec<Vec<u8>> = self
            .client()
            .run(&op::RegionLocations { table })
            .await?
            .into_iter()
            .map(|r| r.start_key)
            .collect();
        starts.sort();
        Ok(starts)
    }
}

/// The load's own directory under the staging directory.
fn local_dir(options: &BulkLoadOptions, table: &TableName) -> PathBuf {
    let base = options
        .staging_dir
        .clone()
        .unwrap_or_else(std::env::temp_dir);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    base.join(format!(
        "hbase-orm-bulk-{}_{}-{}-{now}",
        table.namespace,
        table.name,
        std::process::id()
    ))
}

/// [`Error::BulkLoad`] of a load stopped by `source`, the shares in key order.
fn partial(
    table: &TableName,
    plan: &plan::Plan,
    mut loaded: Vec<RegionShare>,
    mut left: Vec<RegionShare>,
    source: Error,
) -> Error {
    let ranges = |shares: &mut Vec<RegionShare>| {
        shares.sort_by_key(|s| s.puts.start);
        shares
            .iter()
            .map(|s| (s.first_row(plan).to_vec(), s.last_row(plan).to_vec()))
            .collect()
    };
    Error::BulkLoad {
        table: table.to_string(),
        loaded: ranges(&mut loaded),
        not_loaded: ranges(&mut left),
        source: Box::new(source),
    }
}

/// The files a region took, and their bytes.
struct Taken {
    files: u64,
    bytes: u64,
}

/// What a blocking thread needs to write a share's files.
struct ShareFiles {
    dir: PathBuf,
    plan: Arc<plan::Plan>,
    formats: Arc<Vec<FamilyFormat>>,
    now: i64,
}
