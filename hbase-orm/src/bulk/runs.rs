//! Sorted runs: the input cut into chunks under the memory budget, each sorted, the full ones
//! spilled to a file of the load's directory; then merged back into one stream of puts in row
//! order (the puts of one row from several runs merged, the later run's cells winning), read
//! again for the rows of regions that have to be written anew. The regions' files written as
//! input in row order came are a run too, read back with the HFile reader.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hbase_orm_hfile as hfile;

use super::chunk::SortedRecords;
use super::files::{Destination, Share};
use super::plan::merge_rows;
use super::record::{Cells, Record, RunReader, RunWriter};
use crate::model::{Error, Put, Result};

/// A sorted run.
pub(super) enum Run {
    /// The last chunk, kept in memory.
    Memory(Arc<Vec<Put>>),
    /// The last chunk of a stream read under a memory budget, kept in memory as records.
    Records(SortedRecords),
    /// A chunk spilled to a file.
    Disk(PathBuf),
    /// The regions' files written as input in row order arrived, read back.
    Files(Arc<WrittenFiles>),
}

/// Regions' files written (see `through`), read back as a run: the input in row order up to
/// where it came out of order, or the regions that did not take their files.
pub(super) struct WrittenFiles {
    pub to: Arc<dyn Destination>,
    /// In row order.
    pub shares: Vec<Share>,
}

impl WrittenFiles {
    /// Removes the files (those elsewhere than here go with the load's directory there).
    pub(super) fn remove_local(&self) {
        self.shares.iter().for_each(Share::remove_local);
    }
}

/// Runs merged at once at most: when this many are spilled, they are merged into one first
/// (open files and read buffers stay bounded whatever the input's size).
pub(super) const MAX_RUNS: usize = 64;

/// Writes a sorted chunk of puts to `path`: each put's record (the loads spill chunks of
/// records, `chunk::RecordChunk`).
#[cfg(test)]
pub(super) fn spill(path: &Path, puts: &[Put]) -> Result<()> {
    let mut run = RunWriter::create(path)?;
    for put in puts {
        run.put(put)?;
    }
    run.finish()
}

/// Merges spilled `runs` into one run at `path`, and removes them.
pub(super) fn compact(runs: &[Run], path: &Path) -> Result<Run> {
    let mut merge = Merge::new(runs, None)?;
    let mut run = RunWriter::create(path)?;
    while let Some(put) = merge.next_put()? {
        match put.source() {
            Err(record) => run.record(record)?,
            Ok(put) => run.put(put)?,
        }
    }
    run.finish()?;
    for run in runs {
        match run {
            Run::Disk(old) => {
                std::fs::remove_file(old).map_err(|e| super::staging_error(old, e))?;
            }
            Run::Files(files) => files.remove_local(),
            Run::Memory(_) | Run::Records(_) => {}
        }
    }
    Ok(Run::Disk(path.to_path_buf()))
}

/// A put of a run: shared with the in-memory run, owned (merged), or a record (of a spilled
/// run or of one kept in memory).
pub(super) enum RunPut {
    Shared(Arc<Vec<Put>>, usize),
    Owned(Put),
    Spilled(Record),
}

impl RunPut {
    pub(super) fn row(&self) -> &[u8] {
        match self.source() {
            Ok(put) => &put.row,
            Err(record) => record.row(),
        }
    }

    /// Its cells, in HBase's order.
    pub(super) fn cells(&self) -> Cells<'_> {
        match self.source() {
            Ok(put) => Cells::of_put(put),
            Err(record) => record.cells(),
        }
    }

    /// The put, or the record it is.
    fn source(&self) -> std::result::Result<&Put, &Record> {
        match self {
            RunPut::Shared(puts, i) => Ok(&puts[*i]),
            RunPut::Owned(put) => Ok(put),
            RunPut::Spilled(record) => Err(record),
        }
    }

    fn into_owned(self) -> Put {
        match self {
            RunPut::Shared(puts, i) => puts[i].clone(),
            RunPut::Owned(put) => put,
            RunPut::Spilled(record) => record.to_put(),
        }
    }
}

/// Reads one run from its start.
enum Cursor {
    Memory(Arc<Vec<Put>>, usize),
    Records(SortedRecords, usize),
    Disk(RunReader, PathBuf),
    Files(FilesCursor),
}

impl Cursor {
    fn open(run: &Run) -> Result<Cursor> {
        Ok(match run {
            Run::Memory(puts) => Cursor::Memory(puts.clone(), 0),
            Run::Records(records) => Cursor::Records(records.clone(), 0),
            Run::Disk(path) => {
                let file = File::open(path).map_err(|e| super::staging_error(path, e))?;
                let reader = RunReader::new(file).map_err(|e| super::staging_error(path, e))?;
                Cursor::Disk(reader, path.clone())
            }
            Run::Files(files) => Cursor::Files(FilesCursor {
                files: files.clone(),
                next_share: 0,
                families: Vec::new(),
                reading: None,
                read: ReadBack::default(),
            }),
        })
    }

    fn next(&mut self) -> Result<Option<RunPut>> {
        match self {
            Cursor::Memory(puts, at) => {
                let put = (*at < puts.len()).then(|| RunPut::Shared(puts.clone(), *at));
                *at += 1;
                Ok(put)
            }
            Cursor::Records(records, at) => {
                let record = records
                    .get(*at)
                    .transpose()
                    .map_err(|e| Error::IllegalArgument {
                        message: format!("bulk load: a sorted chunk kept in memory: {e}"),
                    })?;
                *at += 1;
                Ok(record.map(RunPut::Spilled))
            }
            Cursor::Disk(input, path) => Ok(input
                .next_record()
                .map_err(|e| super::staging_error(path, e))?
                .map(RunPut::Spilled)),
            Cursor::Files(files) => Ok(files.next_row()?.map(RunPut::Owned)),
        }
    }
}

/// Reads regions' files back, a region after the other, each region's rows merged from its
/// families' files.
struct FilesCursor {
    files: Arc<WrittenFiles>,
    /// The region read after the one being read.
    next_share: usize,
    /// The files of the region being read, by family name, each with its next cell.
    families: Vec<FamilyFile>,
    /// The region being read, and what was read of it so far.
    reading: Option<usize>,
    read: ReadBack,
}

/// One family's file being read, and its next cell.
struct FamilyFile {
    location: String,
    reader: hfile::Reader<Box<dyn Read + Send>>,
    head: Option<hfile::ReadCell>,
}

impl FamilyFile {
    fn advance(&mut self) -> Result<()> {
        self.head = self.reader.next_cell().map_err(|e| Error::Staging {
            location: self.location.clone(),
            message: format!("reading back a file the load wrote: {e}"),
        })?;
        Ok(())
    }
}

/// The rows and cells read back of the region being read, to hold them to what was written.
#[derive(Default)]
struct ReadBack {
    rows: u64,
    cells: u64,
}

impl FilesCursor {
    /// The next row of the files, as a put of its cells in HBase's order.
    fn next_row(&mut self) -> Result<Option<Put>> {
        loop {
            let row = self
                .families
                .iter()
                .filter_map(|f| f.head.as_ref().map(|cell| &cell.row))
                .min()
                .cloned();
            if let Some(row) = row {
                let mut put = Put::new(row.clone());
                for family in &mut self.families {
                    while let Some(cell) = family.head.take_if(|cell| cell.row == row) {
                        put.push(
                            cell.family,
                            cell.qualifier,
                            cell.value,
                            Some(cell.timestamp),
                        );
                        family.advance()?;
                    }
                }
                self.read.rows += 1;
                self.read.cells += put.cells.len() as u64;
                return Ok(Some(put));
            }
            // The region read whole: every row and cell written came back (a file that ended
            // early without a damaged block would otherwise lose rows silently).
            if let Some(done) = self.reading.take() {
                let (share, read) = (&self.files.shares[done], std::mem::take(&mut self.read));
                if (read.rows, read.cells) != (share.row_count, share.cells) {
                    let location = share.files.first().map(|f| f.location.url());
                    return Err(Error::Staging {
                        location: location.unwrap_or_default(),
                        message: format!(
                            "the region's files read back hold {} rows and {} cells, {} and {} \
                             were written",
                            read.rows, read.cells, share.row_count, share.cells
                        ),
                    });
                }
            }
            let Some(share) = self.files.shares.get(self.next_share) else {
                return Ok(None);
            };
            self.reading = Some(self.next_share);
            self.next_share += 1;
            let mut families = Vec::with_capacity(share.files.len());
            for file in &share.files {
                let compression = file.compression;
                let mut family = FamilyFile {
                    location: file.location.url(),
                    reader: hfile::Reader::new(self.files.to.open(&file.location)?, compression),
                    head: None,
                };
                family.advance()?;
                families.push((file.family.clone(), family));
            }
            families.sort_by(|a, b| a.0.cmp(&b.0));
            self.families = families.into_iter().map(|(_, f)| f).collect();
        }
    }
}

/// The puts of all runs in row order, merged, limited to the rows of `ranges` (inclusive
/// first and last rows, in order) when given. The runs are kept in the order of their next
/// puts' rows (of two with the same row, the earlier run first): the next put is the first
/// run's, and a run whose head was taken goes back in its place, found by bisection. A row
/// is copied only when several runs hold it.
pub(super) struct Merge {
    cursors: Vec<Cursor>,
    /// The next put of each run.
    heads: Vec<Option<RunPut>>,
    /// The runs with a next put, by (its row, the run).
    order: Vec<usize>,
    ranges: Option<Vec<(Vec<u8>, Vec<u8>)>>,
}

impl Merge {
    pub(super) fn new(runs: &[Run], ranges: Option<Vec<(Vec<u8>, Vec<u8>)>>) -> Result<Merge> {
        let mut cursors: Vec<Cursor> = runs.iter().map(Cursor::open).collect::<Result<_>>()?;
        let heads: Vec<Option<RunPut>> = cursors
            .iter_mut()
            .map(Cursor::next)
            .collect::<Result<_>>()?;
        let mut merge = Merge {
            cursors,
            heads,
            order: Vec::with_capacity(runs.len()),
            ranges,
        };
        for i in 0..merge.heads.len() {
            merge.place(i);
        }
        Ok(merge)
    }

    /// Puts run `i` in its place in `order`, if it has a next put.
    fn place(&mut self, i: usize) {
        let Some(head) = &self.heads[i] else { return };
        let heads = &self.heads;
        let before = |j: usize| {
            let other = heads[j].as_ref().expect("ordered runs have a head").row();
            (other, j) < (head.row(), i)
        };
        // Runs that do not overlap (input given in row order) keep the run just taken from
        // first: one comparison then, instead of a bisection.
        let at = match self.order.first() {
            Some(&j) if before(j) => self.order.partition_point(|&j| before(j)),
            _ => 0,
        };
        self.order.insert(at, i);
    }

    /// Run `i`'s head (taken out of `order`), taken, and the run's next put read in and put
    /// in its place.
    fn take(&mut self, i: usize) -> Result<RunPut> {
        let next = self.cursors[i].next()?;
        let head = std::mem::replace(&mut self.heads[i], next).expect("a head");
        self.place(i);
        Ok(head)
    }

    /// Whether `row` is wanted.
    fn wanted(&mut self, row: &[u8]) -> bool {
        let Some(ranges) = &mut self.ranges else {
            return true;
        };
        // Rows come in order: ranges ending before `row` are done with.
        let done = ranges
            .iter()
            .take_while(|(_, last)| last.as_slice() < row)
            .count();
        ranges.drain(..done);
        ranges
            .first()
            .is_some_and(|(first, _)| first.as_slice() <= row)
    }

    /// The next put in row order, the puts of its row in every run merged into it (an earlier
    /// run's first, so that a later run's cells win).
    pub(super) fn next_put(&mut self) -> Result<Option<RunPut>> {
        while !self.order.is_empty() {
            let first = self.order.remove(0);
            let mut put = self.take(first)?;
            // The runs with the same row come next, earlier runs first: merged at once.
            let mut later = Vec::new();
            while let Some(&j) = self.order.first() {
                if self.heads[j].as_ref().is_none_or(|h| h.row() != put.row()) {
                    break;
                }
                self.order.remove(0);
                later.push(self.take(j)?.into_owned());
            }
            if !later.is_empty() {
                let mut merged = put.into_owned();
                merge_rows(&mut merged, later);
                put = RunPut::Owned(merged);
            }
            if self.wanted(put.row()) {
                return Ok(Some(put));
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::super::plan::sort_chunk;
    use super::*;

    fn put(row: &str, value: &str) -> Put {
        Put::new(row).column_at("d", "q", 1, value.as_bytes().to_vec())
    }

    fn rows(merge: &mut Merge) -> Vec<String> {
        let mut out = Vec::new();
        while let Some(put) = merge.next_put().unwrap() {
            let value = put.cells().next().expect("a cell").value;
            let value = String::from_utf8_lossy(value).into_owned();
            out.push(format!("{}={value}", String::from_utf8_lossy(put.row())));
        }
        out
    }

    /// Runs on disk and in memory merge in row order; a row in several runs takes the later
    /// run's cell; ranges keep their rows only.
    #[test]
    fn runs_merge_in_row_order_and_the_later_run_wins() {
        let dir = std::env::temp_dir().join(format!("hbase-orm-runs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let first = sort_chunk(vec![put("c", "c1"), put("a", "a1"), put("e", "e1")], 0);
        let second = sort_chunk(vec![put("b", "b2"), put("c", "c2")], 0);
        let last = sort_chunk(vec![put("d", "d3"), put("a", "a3")], 0);
        let (p1, p2) = (dir.join("1"), dir.join("2"));
        spill(&p1, &first).unwrap();
        spill(&p2, &second).unwrap();
        let runs = [Run::Disk(p1), Run::Disk(p2), Run::Memory(Arc::new(last))];
        let mut all = Merge::new(&runs, None).unwrap();
        assert_eq!(rows(&mut all), ["a=a3", "b=b2", "c=c2", "d=d3", "e=e1"]);
        let ranges = vec![
            (b"b".to_vec(), b"b".to_vec()),
            (b"d".to_vec(), b"z".to_vec()),
        ];
        let mut some = Merge::new(&runs, Some(ranges)).unwrap();
        assert_eq!(rows(&mut some), ["b=b2", "d=d3", "e=e1"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Runs of input given in row order (each after the one before) merge in row order, the
    /// run taken from staying first; a run that overlaps them still takes its place, and the
    /// later run's cell of a row wins.
    #[test]
    fn runs_in_row_order_merge_in_order() {
        let run = |rows: &[&str], tag: &str| {
            let puts = rows.iter().map(|r| put(r, &format!("{r}{tag}"))).collect();
            Run::Memory(Arc::new(sort_chunk(puts, 0)))
        };
        let runs = [
            run(&["a", "b", "c"], "1"),
            run(&["d", "e"], "2"),
            run(&["f", "g", "h"], "3"),
            run(&["b", "e", "z"], "4"),
        ];
        let mut merge = Merge::new(&runs, None).unwrap();
        assert_eq!(
            rows(&mut merge),
            ["a=a1", "b=b4", "c=c1", "d=d2", "e=e4", "f=f3", "g=g3", "h=h3", "z=z4"]
        );
    }

    /// Regions' files written (a plain family and a GZ one) are read back as the first run
    /// and compacted with a spilled run after them: every row once with both families' cells,
    /// a row of both runs with the later run's value, the files removed by the compaction.
    #[test]
    fn written_files_read_back_as_a_run_and_compact_with_spilled_runs() {
        use super::super::files::{FamilyFormat, LocalFiles, RegionWriter};
        use super::super::record::Cells;
        use crate::model::{ColumnFamily, Compression, TableName};

        let dir = std::env::temp_dir().join(format!("hbase-orm-files-run-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let to: Arc<dyn Destination> = Arc::new(LocalFiles(dir.clone()));
        let table = TableName::new("default", "t");
        let formats = [
            ColumnFamily::new("d"),
            ColumnFamily::new("g").compression(Compression::Gz),
        ]
        .map(|family| FamilyFormat::of(&table, &family).unwrap());
        let shares = (0..2)
            .map(|region| {
                let mut writer = RegionWriter::new(to.clone(), &formats, 0);
                for i in region * 100..(region + 1) * 100 {
                    let put = put(&format!("r{i:03}"), "first").column_at(
                        "g",
                        "b",
                        1,
                        format!("blob {i}").into_bytes(),
                    );
                    writer.add(&put.row, Cells::of_put(&put)).unwrap();
                }
                writer.finish().unwrap()
            })
            .collect();
        let files = Run::Files(Arc::new(WrittenFiles { to, shares }));
        let again: Vec<Put> = (0..200)
            .step_by(10)
            .map(|i| put(&format!("r{i:03}"), "again"))
            .collect();
        let spilled = dir.join("run-1");
        spill(&spilled, &sort_chunk(again, 0)).unwrap();
        let compacted = compact(&[files, Run::Disk(spilled)], &dir.join("run-2")).unwrap();
        let left = super::super::files::files_under(&dir);
        assert_eq!(left, Vec::<PathBuf>::new(), "the files removed");
        let mut merge = Merge::new(&[compacted], None).unwrap();
        let mut rows = 0;
        while let Some(put) = merge.next_put().unwrap() {
            assert_eq!(put.row(), format!("r{rows:03}").as_bytes());
            let cells: Vec<(Vec<u8>, Vec<u8>)> = put
                .cells()
                .map(|c| (c.family.to_vec(), c.value.to_vec()))
                .collect();
            let d = if rows % 10 == 0 { "again" } else { "first" };
            let g = format!("blob {rows}");
            assert_eq!(
                cells,
                [
                    (b"d".to_vec(), d.as_bytes().to_vec()),
                    (b"g".to_vec(), g.into_bytes())
                ]
            );
            rows += 1;
        }
        assert_eq!(rows, 200);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A run longer than its read block, with a put larger than one, reads back whole.
    #[test]
    fn a_run_reads_back_across_its_blocks() {
        let dir = std::env::temp_dir().join(format!("hbase-orm-blocks-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut puts: Vec<Put> = (0..3_000)
            .map(|i| put(&format!("r{i:05}"), &format!("{i:0>200}")))
            .collect();
        puts[1_500] = put(
            "r01500",
            &"x".repeat(super::super::record::READ_BUFFER + 10),
        );
        let path = dir.join("run");
        spill(&path, &puts).unwrap();
        let back = rows(&mut Merge::new(&[Run::Disk(path)], None).unwrap());
        let given: Vec<String> = puts
            .iter()
            .map(|p| {
                let value = String::from_utf8_lossy(&p.cells[0].value).into_owned();
                format!("{}={value}", String::from_utf8_lossy(&p.row))
            })
            .collect();
        assert_eq!(back, given);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Any number of runs (spilled or the last in memory; chunks of puts or of records)
        /// merge into every row once, each with the value of the last run that has it.
        #[test]
        fn many_runs_merge_like_a_map(
            runs in proptest::collection::vec(
                proptest::collection::vec((0u8..60, 0u32..1000), 0..40), 1..12),
        ) {
            let dir = std::env::temp_dir().join(format!(
                "hbase-orm-merge-{}-{:?}", std::process::id(), std::thread::current().id()));
            std::fs::create_dir_all(&dir).unwrap();
            let mut expected = std::collections::BTreeMap::new();
            let mut made = Vec::new();
            for (n, run) in runs.iter().enumerate() {
                let puts: Vec<Put> = run
                    .iter()
                    .map(|(row, value)| {
                        expected.insert(format!("r{row:02}"), format!("{n}-{value}"));
                        put(&format!("r{row:02}"), &format!("{n}-{value}"))
                    })
                    .collect();
                let path = dir.join(format!("run-{n}"));
                let last = n + 1 == runs.len();
                // Every other run as a stream's chunk of records, the others as puts.
                if n % 2 == 0 {
                    let mut chunk = super::super::chunk::RecordChunk::with_capacity(64);
                    for put in puts {
                        chunk.push(put, 0).unwrap();
                    }
                    chunk.sort().unwrap();
                    if last {
                        made.push(Run::Records(chunk.into_sorted()));
                    } else {
                        chunk.spill(&path).unwrap();
                        made.push(Run::Disk(path));
                    }
                } else {
                    let sorted = sort_chunk(puts, 0);
                    if last {
                        made.push(Run::Memory(Arc::new(sorted)));
                    } else {
                        spill(&path, &sorted).unwrap();
                        made.push(Run::Disk(path));
                    }
                }
            }
            let merged = rows(&mut Merge::new(&made, None).unwrap());
            let wanted: Vec<String> = expected.iter().map(|(r, v)| format!("{r}={v}")).collect();
            std::fs::remove_dir_all(&dir).unwrap();
            proptest::prop_assert_eq!(merged, wanted);
        }
    }
}
