//! The HFiles of one region's share, written into the load's local directory as
//! `<family>/<32 hex digits>` (the names HBase's own tools give; the region server renames them
//! when it takes them), in the family's compression, bloom filter and block size.

use std::path::{Path, PathBuf};

use hbase_orm_hfile as hfile;

use super::plan::{cells_of, Plan, RegionShare};
use crate::model::{BloomFilter, ColumnFamily, Compression, Error, Result, TableName};

/// How one family's files are written.
#[derive(Debug, Clone)]
pub(super) struct FamilyFormat {
    pub name: String,
    compression: hfile::Compression,
    bloom: hfile::Bloom,
    block_size: Option<usize>,
}

impl FamilyFormat {
    /// The format of `family`'s files, or an error naming what the writer cannot produce.
    pub(super) fn of(table: &TableName, family: &ColumnFamily) -> Result<FamilyFormat> {
        let compression = match family.compression {
            None | Some(Compression::None) => hfile::Compression::None,
            Some(Compression::Gz) => hfile::Compression::Gz,
            Some(Compression::Snappy) => hfile::Compression::Snappy,
            Some(other) => {
                return Err(Error::Unsupported {
                    operation: "bulk_load".into(),
                    backend: "native",
                    why: format!(
                        "family {}:{} stores its files with {} compression, which the HFile \
                         writer does not produce (it writes NONE, GZ and SNAPPY): load into a \
                         family of one of those, or write with puts",
                        table,
                        family.name,
                        other.name()
                    ),
                })
            }
        };
        // A ROWCOL or prefix bloom is not written: the file then has none, which HBase reads
        // correctly (a compaction writes the family's bloom).
        let bloom = match family.bloom_filter {
            Some(BloomFilter::Row) | None => hfile::Bloom::Row,
            Some(_) => hfile::Bloom::None,
        };
        Ok(FamilyFormat {
            name: family.name.clone(),
            compression,
            bloom,
            block_size: family.block_size.and_then(|b| usize::try_from(b).ok()),
        })
    }

    fn options(&self, now_ms: i64) -> hfile::Options {
        let options = hfile::Options::new()
            .compression(self.compression)
            .bloom(self.bloom)
            .times(now_ms, now_ms)
            .source("hbase-orm bulk_load");
        match self.block_size {
            Some(size) => options.block_size(size),
            None => options,
        }
    }
}

/// A file written for a share: its family, its path, its size.
pub(super) struct Written {
    pub family: String,
    pub path: PathBuf,
    pub bytes: u64,
}

/// Writes one file per family of `share` into `dir` (a family without cells there gets none).
pub(super) fn write_share(
    dir: &Path,
    plan: &Plan,
    share: &RegionShare,
    formats: &[FamilyFormat],
    now_ms: i64,
) -> Result<Vec<Written>> {
    let puts = &plan.puts[share.puts.clone()];
    let mut out = Vec::with_capacity(formats.len());
    for format in formats {
        let family = format.name.as_bytes();
        if puts.iter().all(|p| cells_of(p, family).is_empty()) {
            continue;
        }
        let family_dir = dir.join(&format.name);
        std::fs::create_dir_all(&family_dir).map_err(|e| io_error(&family_dir, e))?;
        let path = family_dir.join(unique_name());
        let file = std::fs::File::create(&path).map_err(|e| io_error(&path, e))?;
        let mut writer = hfile::Writer::new(std::io::BufWriter::new(file), format.options(now_ms));
        for put in puts {
            for cell in cells_of(put, family) {
                let timestamp = cell
                    .timestamp
                    .expect("the plan gives every cell a timestamp");
                writer
                    .append(&hfile::Cell::put(
                        &put.row,
                        family,
                        &cell.qualifier,
                        timestamp,
                        &cell.value,
                    ))
                    .map_err(|e| hfile_error(&path, e))?;
            }
        }
        let (_, summary) = writer.finish().map_err(|e| hfile_error(&path, e))?;
        open_to_servers(&path)?;
        out.push(Written {
            family: format.name.clone(),
            path,
            bytes: summary.bytes,
        });
    }
    Ok(out)
}

/// Lets the region server take the file whoever it runs as: it checks that the user the client
/// connects as may read and write the file (Hadoop's permission check, which knows nothing of
/// this process's user), and reads it as its own OS user. The file lives until the region
/// server has copied it.
fn open_to_servers(path: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o666))
            .map_err(|e| io_error(path, e))?;
    }
    Ok(())
}

/// 32 hex digits unique to this process's files (the time, the process and a counter, hashed).
fn unique_name() -> String {
    use md5::{Digest, Md5};
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let seed = format!(
        "{now}/{}/{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    Md5::digest(seed.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn io_error(path: &Path, e: std::io::Error) -> Error {
    Error::IllegalArgument {
        message: format!(
            "bulk load: cannot write {} ({e}): give a staging directory this process can write \
             and the region servers can read (BulkLoadOptions::staging_dir)",
            path.display()
        ),
    }
}

fn hfile_error(path: &Path, e: hfile::Error) -> Error {
    Error::IllegalArgument {
        message: format!("bulk load: writing {}: {e}", path.display()),
    }
}
