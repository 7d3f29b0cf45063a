//! The HFiles of one region, written as its puts come (one file per family, opened at the
//! family's first cell) in the family's compression, bloom filter and block size, to a
//! [`Destination`]: the load's local directory as `files/<family>/<32 hex digits>` (the names
//! HBase's own tools give; the region server renames them when it takes them), or another
//! filesystem the region servers read (HDFS, feature `hdfs`).

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hbase_orm_hfile as hfile;

use super::piece::Piece;
use crate::model::{BloomFilter, CellRef, ColumnFamily, Compression, Error, Result, TableName};

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

/// Where a load's files are written.
pub(super) trait Destination: Send + Sync {
    /// A new file of `family`, named `name`.
    fn create(&self, family: &str, name: &str) -> Result<Box<dyn Sink>>;

    /// Where the file [`Destination::create`] makes of `family`, named `name`, is once
    /// closed.
    fn location(&self, family: &str, name: &str) -> Location;

    /// A file written here, read from its start (to cut its rows again at other region
    /// boundaries); on a blocking thread.
    fn open(&self, location: &Location) -> Result<Box<dyn Read + Send>>;
}

/// A file being written (by one thread at a time; `Sync` so that a load holding its writers
/// stays a future that can move between threads).
pub(super) trait Sink: Write + Send + Sync {
    /// Where the file is, for errors.
    fn location(&self) -> &str;

    /// Appends `piece`, which the file may keep as long as it needs instead of copying it
    /// (dropped, its buffer goes back to its pool); by default, its bytes written.
    fn write_piece(&mut self, piece: Piece) -> std::io::Result<()> {
        self.write_all(piece.as_ref())
    }

    /// Ends the file, once all of it was written: where the region servers read it.
    fn close(self: Box<Self>) -> Result<Location>;
}

/// Where a file written is.
pub(super) enum Location {
    /// On this machine's filesystem (or one the region servers share).
    Local(PathBuf),
    /// On another filesystem, at a URL.
    #[cfg_attr(not(feature = "hdfs"), allow(dead_code))]
    Url(String),
}

impl Location {
    /// The URL the region servers read the file at.
    pub(super) fn url(&self) -> String {
        match self {
            Location::Local(path) => format!("file://{}", path.display()),
            Location::Url(url) => url.clone(),
        }
    }

    /// Removes the file if it is local (a file elsewhere goes with the load's directory
    /// there).
    pub(super) fn remove_local(&self) {
        if let Location::Local(path) = self {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// The load's local directory: each file in `files/<family>/`.
pub(super) struct LocalFiles(pub PathBuf);

impl LocalFiles {
    /// The directory of `family`'s files: under `files/` (a family may be called `token` or
    /// `runs`).
    fn family_dir(&self, family: &str) -> PathBuf {
        self.0.join("files").join(family)
    }
}

impl Destination for LocalFiles {
    fn create(&self, family: &str, name: &str) -> Result<Box<dyn Sink>> {
        let family_dir = self.family_dir(family);
        std::fs::create_dir_all(&family_dir).map_err(|e| super::staging_error(&family_dir, e))?;
        let path = family_dir.join(name);
        let file = File::create(&path).map_err(|e| super::staging_error(&path, e))?;
        Ok(Box::new(LocalFile {
            location: path.display().to_string(),
            file: BufWriter::new(file),
            path,
        }))
    }

    fn location(&self, family: &str, name: &str) -> Location {
        Location::Local(self.family_dir(family).join(name))
    }

    fn open(&self, location: &Location) -> Result<Box<dyn Read + Send>> {
        let Location::Local(path) = location else {
            return Err(not_here(location));
        };
        let file = File::open(path).map_err(|e| super::staging_error(path, e))?;
        Ok(Box::new(BufReader::with_capacity(READ_BUFFER, file)))
    }
}

/// Bytes of a local file read back at a time.
const READ_BUFFER: usize = 256 << 10;

/// Where `location` is not a file of this destination's.
pub(super) fn not_here(location: &Location) -> Error {
    Error::Staging {
        location: location.url(),
        message: "a file the load did not write there".into(),
    }
}

/// A local file being written.
struct LocalFile {
    file: BufWriter<File>,
    path: PathBuf,
    location: String,
}

impl Write for LocalFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.file.write_all(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

impl Sink for LocalFile {
    fn location(&self) -> &str {
        &self.location
    }

    fn close(mut self: Box<Self>) -> Result<Location> {
        self.file
            .flush()
            .map_err(|e| super::staging_error(&self.path, e))?;
        open_to_servers(&self.path)?;
        Ok(Location::Local(self.path))
    }
}

/// A file written for a share: its family, where it is, its size.
pub(super) struct Written {
    pub family: String,
    pub location: Location,
    pub bytes: u64,
    /// How its blocks are stored (to read it back).
    pub compression: hfile::Compression,
}

/// One region's rows, written: its first and last rows, its rows and cells, its files.
pub(super) struct Share {
    pub rows: (Vec<u8>, Vec<u8>),
    pub row_count: u64,
    pub cells: u64,
    pub files: Vec<Written>,
}

impl Share {
    /// Removes its files if they are local (those elsewhere go with the load's directory
    /// there).
    pub(super) fn remove_local(&self) {
        for file in &self.files {
            file.location.remove_local();
        }
    }
}

/// The files under `dir`'s `files/` (none when it was never made).
#[cfg(test)]
pub(super) fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.join("files")];
    while let Some(at) = dirs.pop() {
        for entry in std::fs::read_dir(&at).into_iter().flatten() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files
}

/// The HFile writer of one file.
type FileWriter = hfile::Writer<Box<dyn Sink>>;

/// The files of one region being written.
pub(super) struct RegionWriter {
    to: Arc<dyn Destination>,
    /// The formats of the load's families (the first of them: see [`RegionWriter::widen`]).
    formats: Vec<FamilyFormat>,
    now_ms: i64,
    /// Per format, its file and where it is, once the family has a cell.
    files: Vec<Option<(FileWriter, String)>>,
    /// The first and last rows written, the rows and the cells.
    first_row: Vec<u8>,
    last_row: Vec<u8>,
    rows: u64,
    cells: u64,
}

impl RegionWriter {
    pub(super) fn new(to: Arc<dyn Destination>, formats: &[FamilyFormat], now_ms: i64) -> Self {
        RegionWriter {
            to,
            formats: formats.to_vec(),
            now_ms,
            files: formats.iter().map(|_| None).collect(),
            first_row: Vec::new(),
            last_row: Vec::new(),
            rows: 0,
            cells: 0,
        }
    }

    /// Takes the formats of families the load met since this writer was made: `formats` are
    /// the load's, of which this writer's are the first (a load adds a family's format when
    /// its first cell comes).
    pub(super) fn widen(&mut self, formats: &[FamilyFormat]) {
        for format in formats.iter().skip(self.formats.len()) {
            self.formats.push(format.clone());
            self.files.push(None);
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
        if self.formats.len() == 1 {
            // One family (the input's were checked as it was read): the row goes whole to its
            // one file, checked for order once.
            if self.files[0].is_none() {
                self.files[0] = Some(self.open(&self.formats[0])?);
            }
            let (writer, location) = self.files[0].as_mut().expect("opened");
            let mut count = 0;
            let cells = cells.inspect(|_| count += 1).map(|cell| {
                hfile::RowCell::put(cell.family, cell.qualifier, cell.timestamp, cell.value)
            });
            let written = writer.append_row(row, cells);
            self.cells += count;
            return written.map_err(|e| hfile_error(location, e));
        }
        let mut at: Option<usize> = None;
        for cell in cells {
            let i = match at {
                Some(i) if self.formats[i].name.as_bytes() == cell.family => i,
                _ => *at.insert(self.format_of(cell.family)?),
            };
            if self.files[i].is_none() {
                self.files[i] = Some(self.open(&self.formats[i])?);
            }
            let (writer, location) = self.files[i].as_mut().expect("opened");
            writer
                .append(&hfile::Cell::put(
                    row,
                    cell.family,
                    cell.qualifier,
                    cell.timestamp,
                    cell.value,
                ))
                .map_err(|e| hfile_error(location, e))?;
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

    fn open(&self, format: &FamilyFormat) -> Result<(FileWriter, String)> {
        let file = self.to.create(&format.name, &unique_name())?;
        let location = file.location().to_string();
        Ok((
            hfile::Writer::new(file, format.options(self.now_ms)),
            location,
        ))
    }

    /// Finishes the files: the region's share.
    pub(super) fn finish(self) -> Result<Share> {
        let rows = (self.first_row, self.last_row);
        let (row_count, cells) = (self.rows, self.cells);
        let mut files = Vec::new();
        for ((writer, location), format) in self
            .files
            .into_iter()
            .zip(self.formats)
            .filter_map(|(f, format)| f.map(|f| (f, format)))
        {
            let (file, summary) = writer.finish().map_err(|e| hfile_error(&location, e))?;
            files.push(Written {
                family: format.name,
                location: file.close()?,
                bytes: summary.bytes,
                compression: format.compression,
            });
        }
        Ok(Share {
            rows,
            row_count,
            cells,
            files,
        })
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

/// The error of writing a file at `location`: the sink's own when it failed with one (the
/// destination says what went wrong where), else the writer's.
fn hfile_error(location: &str, e: hfile::Error) -> Error {
    let e = match e {
        hfile::Error::Io(io) => match io.downcast::<Error>() {
            Ok(own) => return own,
            Err(io) => hfile::Error::Io(io),
        },
        e => e,
    };
    Error::IllegalArgument {
        message: format!("bulk load: writing {location}: {e}"),
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::model::ColumnFamily;

    /// A test destination: each file (at `far:/load/d/f`) gives every write to its function.
    pub(in super::super) struct Taking(pub TakeBytes);

    /// What a [`Taking`] file does with a write.
    pub(in super::super) type TakeBytes = Arc<dyn Fn(&[u8]) -> std::io::Result<()> + Send + Sync>;

    /// Where a [`Taking`] file is.
    const FAR: &str = "far:/load/d/f";

    struct TakingFile(TakeBytes);

    impl Destination for Taking {
        fn create(&self, _: &str, _: &str) -> Result<Box<dyn Sink>> {
            Ok(Box::new(TakingFile(self.0.clone())))
        }

        fn location(&self, _: &str, _: &str) -> Location {
            Location::Url(FAR.into())
        }

        fn open(&self, location: &Location) -> Result<Box<dyn Read + Send>> {
            Err(not_here(location))
        }
    }

    impl Write for TakingFile {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            (self.0)(bytes).map(|()| bytes.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Sink for TakingFile {
        fn location(&self) -> &str {
            FAR
        }

        fn close(self: Box<Self>) -> Result<Location> {
            Ok(Location::Url(FAR.into()))
        }
    }

    /// A destination whose files refuse their bytes with the destination's own error.
    pub(in super::super) fn refusing() -> Taking {
        Taking(Arc::new(|_| {
            Err(std::io::Error::other(Error::Staging {
                location: FAR.into(),
                message: "no room left".into(),
            }))
        }))
    }

    /// A file whose destination fails is that failure, as the destination said it (not a
    /// writer's error around it).
    #[test]
    fn a_destination_s_failure_is_the_load_s() {
        let table = TableName::new("default", "t");
        let formats = [FamilyFormat::of(&table, &ColumnFamily::new("d")).unwrap()];
        let mut writer = RegionWriter::new(Arc::new(refusing()), &formats, 0);
        let cell = CellRef {
            family: b"d",
            qualifier: b"q",
            value: b"v",
            timestamp: 1,
        };
        writer.add(b"r", std::iter::once(cell)).unwrap();
        match writer.finish() {
            Err(Error::Staging { location, message }) => {
                assert_eq!(
                    (location.as_str(), message.as_str()),
                    ("far:/load/d/f", "no room left")
                )
            }
            Err(e) => panic!("the destination's error, not {e}"),
            Ok(_) => panic!("a file that could not be written"),
        }
    }
}
