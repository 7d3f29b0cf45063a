//! The HFiles of one region, written as its puts come (one file per family, opened at the
//! family's first cell) into the load's local directory as `files/<family>/<32 hex digits>` (the
//! names HBase's own tools give; the region server renames them when it takes them), in the
//! family's compression, bloom filter and block size.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use hbase_orm_hfile as hfile;

use super::record::CellRef;
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

/// The files of one region being written.
pub(super) struct RegionWriter<'a> {
    dir: &'a Path,
    formats: &'a [FamilyFormat],
    now_ms: i64,
    /// Per format, its file once the family has a cell.
    files: Vec<Option<(hfile::Writer<BufWriter<File>>, PathBuf)>>,
    /// The first and last rows written, the rows and the cells.
    pub first_row: Vec<u8>,
    pub last_row: Vec<u8>,
    pub rows: u64,
    pub cells: u64,
}

impl<'a> RegionWriter<'a> {
    pub(super) fn new(dir: &'a Path, formats: &'a [FamilyFormat], now_ms: i64) -> Self {
        RegionWriter {
            dir,
            formats,
            now_ms,
            files: formats.iter().map(|_| None).collect(),
            first_row: Vec::new(),
            last_row: Vec::new(),
            rows: 0,
            cells: 0,
        }
    }

    /// Appends a row's cells (in HBase's order, after the region's rows before it; each of a
    /// family of `formats`).
    pub(super) fn add<'c>(
        &mut self,
        row: &[u8],
        cells: impl Iterator<Item = CellRef<'c>>,
    ) -> Result<()> {
        if self.rows == 0 {
            self.first_row = row.to_vec();
        }
        self.rows += 1;
        self.last_row.clear();
        self.last_row.extend_from_slice(row);
        let mut at: Option<usize> = None;
        for cell in cells {
            let i = match at {
                Some(i) if self.formats[i].name.as_bytes() == cell.family => i,
                _ => *at.insert(self.format_of(cell.family)?),
            };
            if self.files[i].is_none() {
                self.files[i] = Some(self.open(&self.formats[i])?);
            }
            let (writer, path) = self.files[i].as_mut().expect("opened");
            writer
                .append(&hfile::Cell::put(
                    row,
                    cell.family,
                    cell.qualifier,
                    cell.timestamp,
                    cell.value,
                ))
                .map_err(|e| hfile_error(path, e))?;
            self.cells += 1;
        }
        Ok(())
    }

    /// The index of `family`'s format (the input's families were checked as it was read).
    fn format_of(&self, family: &[u8]) -> Result<usize> {
        self.formats
            .iter()
            .position(|f| f.name.as_bytes() == family)
            .ok_or_else(|| Error::IllegalArgument {
                message: format!(
                    "bulk load: a cell of family {} that the load has no format for",
                    String::from_utf8_lossy(family)
                ),
            })
    }

    fn open(&self, format: &FamilyFormat) -> Result<(hfile::Writer<BufWriter<File>>, PathBuf)> {
        // Under `files/`: a family may be called `token` or `runs`.
        let family_dir = self.dir.join("files").join(&format.name);
        std::fs::create_dir_all(&family_dir).map_err(|e| super::staging_error(&family_dir, e))?;
        let path = family_dir.join(unique_name());
        let file = File::create(&path).map_err(|e| super::staging_error(&path, e))?;
        let writer = hfile::Writer::new(BufWriter::new(file), format.options(self.now_ms));
        Ok((writer, path))
    }

    /// Finishes the files: what was written.
    pub(super) fn finish(self) -> Result<Vec<Written>> {
        let mut out = Vec::new();
        for ((writer, path), format) in self
            .files
            .into_iter()
            .zip(self.formats)
            .filter_map(|(f, format)| f.map(|f| (f, format)))
        {
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
            .map_err(|e| super::staging_error(path, e))?;
    }
    Ok(())
}

/// 32 hex digits unique to this process's files (the time, the process and a counter, hashed).
fn unique_name() -> String {
    use md5::{Digest, Md5};
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let now = super::since_epoch().as_nanos();
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

fn hfile_error(path: &Path, e: hfile::Error) -> Error {
    Error::IllegalArgument {
        message: format!("bulk load: writing {}: {e}", path.display()),
    }
}
