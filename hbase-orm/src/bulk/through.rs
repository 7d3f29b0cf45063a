//! Input in row order written as it arrives. While every row of a load's input comes after the
//! row before it (an export, a scan of another table, ids counted up), each row is written
//! straight into the files of the regions the load found at its start, as it is read: its
//! cells go from where they lie into the files' blocks, with no record made of them, no sort,
//! no run and no merge at the load's end; the files are handed over as they are. Their bytes
//! are written by a thread of their own (`pipe`). A region that split or moved before it took
//! its files has them read back (the HFile reader) and cut at the new boundaries in the next
//! round.
//!
//! The first row that does not come after the one before ends it: the files written so far
//! become the first run, read back and merged with the runs of the rest of the input, sorted
//! as any load's (the later of two puts of a row winning).

use std::sync::Arc;

use hbase_orm_hfile::compare_bytes;

use super::files::{Destination, FamilyFormat, RegionWriter, Share};
use super::pipe::Pipe;
use super::plan::region_of;
use crate::model::{CellRef, Result};

/// The regions' files of input in row order, written so far.
pub(super) struct Through {
    pipe: Arc<Pipe>,
    /// The start keys of the table's regions when the load began, in order.
    starts: Vec<Vec<u8>>,
    now: i64,
    /// The region being written: its writer, and the start of the region after it (`None`
    /// for the last).
    open: Option<(RegionWriter, Option<Vec<u8>>)>,
    /// The regions written whole.
    shares: Vec<Share>,
}

impl Through {
    /// Files written to `to` (by a thread of their own) for the regions starting at `starts`
    /// (in order), made at `now` (the files' times; the callers give the cells theirs).
    pub(super) fn new(to: Arc<dyn Destination>, starts: Vec<Vec<u8>>, now: i64) -> Result<Through> {
        Ok(Through {
            pipe: Pipe::start(to)?,
            starts,
            now,
            open: None,
            shares: Vec::new(),
        })
    }

    /// Writes `row` and its `cells` (in HBase's order, each with its timestamp), after the
    /// rows written before, of the families of `formats` (the load's: those of the rows
    /// before first). Call [`Through::room`] after it.
    pub(super) fn write<'c>(
        &mut self,
        row: &[u8],
        cells: impl Iterator<Item = CellRef<'c>>,
        formats: &[FamilyFormat],
    ) -> Result<()> {
        let past = match &self.open {
            Some((_, Some(next))) => compare_bytes(row, next).is_ge(),
            Some((_, None)) => false,
            None => true,
        };
        if past {
            self.close()?;
            let region = region_of(&self.starts, row);
            let next = self.starts.get(region + 1).cloned();
            let writer = RegionWriter::new(self.pipe.clone(), formats, self.now);
            self.open = Some((writer, next));
        }
        let (writer, _) = self.open.as_mut().expect("a region is open");
        writer.widen(formats);
        writer.add(row, cells)
    }

    /// Waits while the files' thread is behind (see `pipe`); its failure, if it failed.
    pub(super) async fn room(&self) -> Result<()> {
        self.pipe.room().await
    }

    /// Finishes the region being written, if any.
    fn close(&mut self) -> Result<()> {
        if let Some((writer, _)) = self.open.take() {
            self.shares.push(writer.finish()?);
        }
        Ok(())
    }

    /// Every region's files written: the shares to hand over, in row order.
    pub(super) async fn finish(mut self) -> Result<Vec<Share>> {
        let closed = self.close();
        // The thread's failure first: a file closed after it says only that it stopped.
        self.pipe.end().await?;
        closed?;
        Ok(self.shares)
    }

    /// Gives up: once this returns, the files' thread has ended (an HDFS file it had open
    /// may still be being removed by its own task).
    pub(super) async fn abandon(mut self) {
        self.open = None;
        let _ = self.pipe.end().await;
    }

    /// Where the files are written (to read them once [`Through::finish`] returned).
    pub(super) fn destination(&self) -> Arc<dyn Destination> {
        self.pipe.inner()
    }
}
