//! What a killed load leaves behind: its local directory (files, sorted runs) and the region
//! servers' staging directory, whose token the local directory keeps in a file `token`. The
//! next load into the table, or [`Table::bulk_load_cleanup`], removes both for every load
//! whose process is gone.

use std::path::{Path, PathBuf};

use crate::backend::op;
use crate::client::Table;
use crate::model::{Error, Result, TableName};

/// The file of a load's directory that holds the servers' staging token.
const TOKEN_FILE: &str = "token";

/// The start of the names of the load directories of `table`: the process id and a time
/// follow (`<prefix><pid>@<nanos>`). `@` is in no table or namespace name: the prefix of one
/// table is never the start of another's.
pub(super) fn prefix(table: &TableName) -> String {
    format!("hbase-orm-bulk@{}@{}@", table.namespace, table.name)
}

/// Records the servers' staging token in a load's directory.
pub(super) fn keep_token(dir: &Path, token: &str) -> Result<()> {
    std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(dir.join(TOKEN_FILE), token))
        .map_err(|e| Error::IllegalArgument {
            message: format!(
                "bulk load: cannot write into {} ({e}): give a staging directory this process \
                 can write (BulkLoadOptions::staging_dir)",
                dir.display()
            ),
        })
}

/// The load directories of `table` under `base` whose process is no longer running.
fn abandoned(base: &Path, table: &TableName) -> Vec<PathBuf> {
    let prefix = prefix(table);
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
            (!running(pid)).then(|| e.path())
        })
        .collect()
}

/// Whether process `pid` runs (where that cannot be told, it is taken to run: its directory
/// is left alone).
fn running(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    let proc = Path::new("/proc");
    !proc.is_dir() || proc.join(pid.to_string()).exists()
}

impl Table {
    /// Removes what killed bulk loads into this table left behind under the staging directory
    /// of `options` (the system's temporary directory by default): each load directory
    /// (`hbase-orm-bulk@<namespace>@<table>@<process id>@<time>`) whose process is gone, and
    /// the region servers' staging directory its file `token` names. Every load
    /// does this first; call it after a crash to clean up without loading. Returns how many
    /// loads' leftovers were removed.
    ///
    /// ```no_run
    /// # async fn demo(table: hbase_orm::Table) -> hbase_orm::Result<()> {
    /// let removed = table.bulk_load_cleanup(&hbase_orm::BulkLoadOptions::new()).await?;
    /// # Ok(()) }
    /// ```
    pub async fn bulk_load_cleanup(&self, options: &super::BulkLoadOptions) -> Result<usize> {
        let base = options.staging_base();
        let mut removed = 0;
        for dir in abandoned(&base, self.name()) {
            if let Ok(token) = std::fs::read_to_string(dir.join(TOKEN_FILE)) {
                let token = token.trim();
                self.client()
                    .run(&op::CleanupBulkLoad {
                        table: self.name(),
                        token,
                    })
                    .await?;
            }
            std::fs::remove_dir_all(&dir).map_err(|e| Error::IllegalArgument {
                message: format!("bulk load: cannot remove {}: {e}", dir.display()),
            })?;
            removed += 1;
        }
        Ok(removed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only the directories of this table's loads whose process is gone.
    #[test]
    fn abandoned_loads_are_those_of_the_table_whose_process_is_gone() {
        let base = std::env::temp_dir().join(format!("hbase-orm-leftovers-{}", std::process::id()));
        let table = TableName::new("ns", "orders");
        let other = TableName::new("ns", "orders-7");
        let gone = u32::MAX - 1;
        let dirs = [
            format!("{}{gone}@1", prefix(&table)),
            format!("{}{}@2", prefix(&table), std::process::id()),
            format!("{}{gone}@3", prefix(&other)),
            format!("{}junk", prefix(&table)),
        ];
        for d in &dirs {
            std::fs::create_dir_all(base.join(d)).unwrap();
        }
        let found = abandoned(&base, &table);
        assert_eq!(found, [base.join(&dirs[0])]);
        std::fs::remove_dir_all(&base).unwrap();
    }
}
