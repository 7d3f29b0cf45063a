//! What a killed load leaves behind: its local directory (files, sorted runs), the region
//! servers' staging directory, whose token the local directory keeps in a file `token`, and
//! the files' directory in HDFS when they were written there, whose URL it keeps in a file
//! `remote`. The next load into the table, or [`Table::bulk_load_cleanup`], removes them for
//! every load that is over: a directory of this user's, not a link, whose process is gone (by
//! its id in the name, on this host) and whose `lock` no process holds (a load holds it while
//! it runs, and the system lets go of it when the process dies, wherever it ran); only a token
//! that names a directory beside the servers' staging directories, and only a remote directory
//! of the local one's name.

use std::fs::File;
use std::path::{Path, PathBuf};

use crate::backend::op;
use crate::client::Table;
use crate::model::{Result, TableName};

/// The file of a load's directory that holds the servers' staging token.
const TOKEN_FILE: &str = "token";
/// The file a running load holds locked.
const LOCK_FILE: &str = "lock";
/// The file of a load's directory that holds the URL of its files' remote directory.
const REMOTE_FILE: &str = "remote";

/// What a load that is over left: its local directory, the servers' staging token, the URL of
/// its files' remote directory.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Leftover {
    dir: PathBuf,
    token: Option<String>,
    remote: Option<String>,
}

/// The start of the names of the load directories of `table`: the process id and a time
/// follow (`<prefix><pid>@<nanos>`). `@` is in no table or namespace name: the prefix of one
/// table is never the start of another's.
pub(super) fn prefix(table: &TableName) -> String {
    format!("hbase-orm-bulk@{}@{}@", table.namespace, table.name)
}

/// Makes a load's directory, locks it for the load's life (the lock is held while the file
/// returned is open) and records the servers' staging token in it.
pub(super) fn claim(dir: &Path, token: &str) -> Result<File> {
    let made = || -> std::io::Result<File> {
        std::fs::create_dir_all(dir)?;
        let lock = File::create(dir.join(LOCK_FILE))?;
        // A filesystem without locks: the load goes on, and its leftovers (if any) are never
        // taken for a finished load's (a free lock is required), so they stay.
        if let Err(e) = lock.lock() {
            tracing::debug!(dir = %dir.display(), error = %e, "bulk load: no lock");
        }
        std::fs::write(dir.join(TOKEN_FILE), token)?;
        Ok(lock)
    };
    made().map_err(|e| super::staging_error(dir, e))
}

/// Records in a load's directory the URL of its files' remote directory (of the same name).
#[cfg(feature = "hdfs")]
pub(super) fn record_remote(dir: &Path, url: &str) -> Result<()> {
    let path = dir.join(REMOTE_FILE);
    std::fs::write(&path, url).map_err(|e| super::staging_error(&path, e))
}

/// The parent of a staging token (a path or URL), and its last part.
fn split_token(token: &str) -> Option<(&str, &str)> {
    token
        .trim_end_matches('/')
        .rsplit_once('/')
        .filter(|(_, name)| !name.is_empty() && *name != "." && *name != "..")
}

/// The over loads' directories of `table` under `base`, with their tokens when they name a
/// directory beside `fresh` (a staging token just given by the servers), and their remote
/// directories when these have the local one's name.
fn abandoned(base: &Path, table: &TableName, fresh: &str) -> Vec<Leftover> {
    let prefix = prefix(table);
    let Some(me) = own_user() else {
        return Vec::new();
    };
    let Some((staging, _)) = split_token(fresh) else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(base) else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let (pid, nanos) = name.strip_prefix(&prefix)?.split_once('@')?;
            let pid: u32 = pid.parse().ok()?;
            nanos.parse::<u128>().ok()?;
            let path = e.path();
            let meta = std::fs::symlink_metadata(&path).ok()?;
            if !meta.is_dir() || owner(&meta) != Some(me) || running(pid) {
                return None;
            }
            // A load still holds it (another host, another process namespace): not over.
            File::open(path.join(LOCK_FILE)).ok()?.try_lock().ok()?;
            let token = std::fs::read_to_string(path.join(TOKEN_FILE))
                .ok()
                .map(|t| t.trim().to_string())
                .filter(|t| split_token(t).is_some_and(|(parent, _)| parent == staging));
            let remote = std::fs::read_to_string(path.join(REMOTE_FILE))
                .ok()
                .map(|t| t.trim().to_string())
                .filter(|t| split_token(t).is_some_and(|(_, last)| last == name.as_str()));
            Some(Leftover {
                dir: path,
                token,
                remote,
            })
        })
        .collect()
}

/// Whether process `pid` runs on this host (where that cannot be told, it is taken to run:
/// its directory is left alone).
fn running(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    let proc = Path::new("/proc");
    !proc.is_dir() || proc.join(pid.to_string()).exists()
}

/// This process's user id (the owner of `/proc/self`), where it can be told.
fn own_user() -> Option<u32> {
    owner(&std::fs::metadata("/proc/self").ok()?)
}

fn owner(meta: &std::fs::Metadata) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some(meta.uid())
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

impl Table {
    /// Removes what killed bulk loads into this table left behind under the staging directory
    /// of `options` (the system's temporary directory by default): each load directory
    /// (`hbase-orm-bulk@<namespace>@<table>@<process id>@<time>`) of this user whose load is
    /// over (its process gone, its lock free), and the region servers' staging directory its
    /// file `token` names. Every load does this first (and goes on if it fails); call it after
    /// a crash to clean up without loading. Returns how many loads' leftovers were removed.
    ///
    /// ```no_run
    /// # async fn demo(table: hbase_orm::Table) -> hbase_orm::Result<()> {
    /// let removed = table.bulk_load_cleanup(&hbase_orm::BulkLoadOptions::new()).await?;
    /// # Ok(()) }
    /// ```
    pub async fn bulk_load_cleanup(&self, options: &super::BulkLoadOptions) -> Result<usize> {
        let table = self.name();
        // A fresh staging directory says where the servers' are (tokens naming anything else
        // are not sent); it is removed again at once.
        let fresh = self
            .client()
            .run(&op::PrepareBulkLoad { table })
            .await
            .map_err(|e| super::refused_as("bulk_load_cleanup", e))?;
        let removed = self.remove_abandoned(options, &fresh).await;
        let token = fresh.as_str();
        self.client()
            .run(&op::CleanupBulkLoad { table, token })
            .await?;
        removed
    }

    /// [`Table::bulk_load_cleanup`] given a fresh staging token.
    pub(super) async fn remove_abandoned(
        &self,
        options: &super::BulkLoadOptions,
        fresh: &str,
    ) -> Result<usize> {
        let mut removed = 0;
        for left in abandoned(&options.staging_base(), self.name(), fresh) {
            if let Some(token) = &left.token {
                let (table, token) = (self.name(), token.as_str());
                self.client()
                    .run(&op::CleanupBulkLoad { table, token })
                    .await?;
            }
            if let Some(remote) = &left.remote {
                remove_remote(remote).await?;
            }
            std::fs::remove_dir_all(&left.dir).map_err(|e| super::staging_error(&left.dir, e))?;
            removed += 1;
        }
        Ok(removed)
    }
}

/// Removes a killed load's remote directory.
#[cfg(feature = "hdfs")]
async fn remove_remote(url: &str) -> Result<()> {
    super::hdfs::remove_dir(url).await
}

/// A remote directory cannot be removed without the client of its filesystem: the local
/// directory, which says where it is, stays too.
#[cfg(not(feature = "hdfs"))]
async fn remove_remote(url: &str) -> Result<()> {
    Err(crate::model::Error::Staging {
        location: url.to_string(),
        message: "a killed load's files were written there; this build has no HDFS client to \
                  remove them (feature `hdfs`)"
            .into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only the directories of this table's loads that are over, and only tokens beside the
    /// servers' staging directory.
    #[test]
    fn abandoned_loads_are_those_of_the_table_that_are_over() {
        let base = std::env::temp_dir().join(format!("hbase-orm-leftovers-{}", std::process::id()));
        let table = TableName::new("ns", "orders");
        let other = TableName::new("ns", "orders-7");
        let gone = u32::MAX - 1;
        let dirs = [
            format!("{}{gone}@1", prefix(&table)),
            format!("{}{}@2", prefix(&table), std::process::id()),
            format!("{}{gone}@3", prefix(&other)),
            format!("{}junk", prefix(&table)),
            format!("{}{gone}@5", prefix(&table)),
            format!("{}{gone}@6", prefix(&table)),
        ];
        let tokens = [
            "file:/srv/staging/u__ns_orders__abc",
            "file:/srv/staging/u__ns_orders__def",
            "file:/srv/staging/u__ns_orders-7__ghi",
            "file:/srv/staging/x",
            "file:/srv/hbase/data",
            "file:/srv/staging/u__ns_orders__held",
        ];
        let mut held = None;
        for (d, t) in dirs.iter().zip(tokens) {
            let lock = claim(&base.join(d), t).unwrap();
            if t.ends_with("held") {
                held = Some(lock);
            }
        }
        // A remote directory of the local one's name, and one of another name.
        let remote = format!("hdfs://nn:8020/tmp/{}", dirs[0]);
        std::fs::write(base.join(&dirs[0]).join(REMOTE_FILE), &remote).unwrap();
        std::fs::write(base.join(&dirs[4]).join(REMOTE_FILE), "hdfs://nn:8020/tmp").unwrap();
        let mut found = abandoned(&base, &table, "file:/srv/staging/u__ns_orders__new");
        found.sort();
        assert_eq!(
            found,
            [
                Leftover {
                    dir: base.join(&dirs[0]),
                    token: Some(tokens[0].to_string()),
                    remote: Some(remote),
                },
                // A token elsewhere than beside the servers' staging directories is not sent,
                // nor a remote directory of another name removed.
                Leftover {
                    dir: base.join(&dirs[4]),
                    token: None,
                    remote: None,
                },
            ]
        );
        drop(held);
        std::fs::remove_dir_all(&base).unwrap();
    }
}
