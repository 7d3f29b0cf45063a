//! Input in row order written as it arrives. While every row of a load's input comes after the
//! row before it (an export, a scan of another table, ids counted up), each full chunk of its
//! records is written straight into the files of the regions the load found at its start (on
//! a blocking thread, while the next chunk is read), and not spilled or kept: the input needs
//! no sort and no run, and the load's end no merge; the files are handed over as they are. A
//! region that split or moved before it took its files has them read back (the HFile reader)
//! and cut at the new boundaries in the next round.
//!
//! The first row that does not come after the one before ends it: the files written so far
//! become the first run, read back and merged with the runs of the rest of the input, sorted
//! as any load's (the later of two puts of a row winning).

use std::sync::Arc;

use hbase_orm_hfile::compare_bytes;

use super::files::{Destination, FamilyFormat, RegionWriter, Share};
use super::plan::region_of;
use super::record::Cells;
use crate::model::Result;

/// The regions' files of input in row order, written so far.
pub(super) struct Through {
    to: Arc<dyn Destination>,
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
    /// Files written to `to` for the regions starting at `starts` (in order), cells without a
    /// timestamp stamped `now`.
    pub(super) fn new(to: Arc<dyn Destination>, starts: Vec<Vec<u8>>, now: i64) -> Through {
        Through {
            to,
            starts,
            now,
            open: None,
            shares: Vec::new(),
        }
    }

    /// Writes the `rows` of a chunk, each with its cells (each row after the one before, and
    /// after the rows of the chunks before), of the families of `formats` (the load's: those
    /// of the chunks before first).
    pub(super) fn write<'r>(
        &mut self,
        rows: impl Iterator<Item = (&'r [u8], Cells<'r>)>,
        formats: &[FamilyFormat],
    ) -> Result<()> {
        if let Some((writer, _)) = &mut self.open {
            writer.widen(formats);
        }
        for (row, cells) in rows {
            let past = match &self.open {
                Some((_, Some(next))) => compare_bytes(row, next).is_ge(),
                Some((_, None)) => false,
                None => true,
            };
            if past {
                self.close()?;
                let region = region_of(&self.starts, row);
                let next = self.starts.get(region + 1).cloned();
                let writer = RegionWriter::new(self.to.clone(), formats, self.now);
                self.open = Some((writer, next));
            }
            let (writer, _) = self.open.as_mut().expect("a region is open");
            writer.add(row, cells)?;
        }
        Ok(())
    }

    /// Finishes the region being written, if any.
    fn close(&mut self) -> Result<()> {
        if let Some((writer, _)) = self.open.take() {
            self.shares.push(writer.finish()?);
        }
        Ok(())
    }

    /// Every region's files written: the shares to hand over, in row order.
    pub(super) fn finish(mut self) -> Result<Vec<Share>> {
        self.close()?;
        Ok(self.shares)
    }

    /// Where the files are written.
    pub(super) fn destination(&self) -> Arc<dyn Destination> {
        self.to.clone()
    }
}
