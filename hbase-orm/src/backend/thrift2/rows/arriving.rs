//! [`PageReader`]: a scanner page read as its bytes arrive on an unframed connection.

use bytes::Bytes;

use super::tokens::{Halt, Reader, Step, Ty, Wire};
use super::{answer_header, result, results_header};
use crate::backend::wire::{Feed, ReplyReader};
use crate::model::{Result, ScannerPage, ScannerPageBuilder};

/// Reads a `getScannerRows` reply on an unframed connection as its bytes arrive, a row at a
/// time, instead of the probe finding its end and the whole-reply reader reading it again.
///
/// It reads only what a successful reply from HBase is: the reply header, field 0 holding the
/// list of `TResult`s, the result struct's stop. Each `TResult` is read by the same code as
/// the whole-reply reader. A row cut by the end of the bytes so far is read again from its
/// start when more arrive. Anything else (an exception, a declared exception, an unknown
/// field, a malformed value, a list or value the limit would refuse) gives the reply up to
/// the probe and the whole-reply path, from its first byte, so errors are exactly theirs; a
/// reply it reads whole is one the probe would find complete at the same byte.
pub(crate) struct PageReader<W> {
    method: &'static str,
    seq: i32,
    limit: usize,
    stage: Stage,
    page: ScannerPageBuilder,
    /// Bytes read again so far: those of rows (or the header) cut by the end of a feed.
    reread: usize,
    wire: std::marker::PhantomData<W>,
}

/// Bytes a [`PageReader`] may read again, beyond [`REREAD_PER_BYTE`] times as many as the reply
/// has so far, before it gives the reply to the probe: a row longer than many reads would
/// otherwise be read from its start at each, in time quadratic in its length; this keeps the
/// reader's work linear. Rows shorter than a read are read again once at most.
const REREAD_ALLOWANCE: usize = 64 * 1024;

/// See [`REREAD_ALLOWANCE`]: reads of a few bytes each may read a row's first bytes again a few
/// times over.
const REREAD_PER_BYTE: usize = 4;

/// How far a [`PageReader`] has read.
#[derive(Clone, Copy, Debug)]
enum Stage {
    /// Nothing yet: the header and the list's header come next.
    Start,
    /// `left` rows remain, the next at byte `at`.
    Rows { at: usize, left: usize },
    /// The rows are read; the result struct's stop is at byte `at`.
    End { at: usize },
}

impl<W: Wire> PageReader<W> {
    /// A reader of the reply to call `method`#`seq`, of at most `limit` bytes.
    pub(super) fn new(method: &'static str, seq: i32, limit: usize) -> PageReader<W> {
        PageReader {
            method,
            seq,
            limit,
            stage: Stage::Start,
            page: ScannerPageBuilder::default(),
            reread: 0,
            wire: std::marker::PhantomData,
        }
    }

    /// Reads on from where the last feed stopped; the reply's length once it is all read.
    fn read_on(&mut self, r: &mut Reader<'_>) -> Step<usize> {
        loop {
            match self.stage {
                Stage::Start => {
                    // A header that is not this call's reply gives up (see `feed`), whatever
                    // the whole-reply reader would say of it.
                    answer_header::<W>(r, self.method, self.seq)?;
                    let mut last = 0;
                    if W::field(r, &mut last)? != Some((0, Ty::List)) {
                        return Err(Halt::Generated);
                    }
                    let n = results_header::<W>(r)?;
                    r.check_list(n, W::MIN_RESULT)?;
                    self.page = ScannerPageBuilder::new(n.min(r.remaining() / W::MIN_RESULT), 0);
                    self.stage = Stage::Rows { at: r.pos, left: n };
                }
                Stage::Rows { at, left: 0 } => self.stage = Stage::End { at },
                Stage::Rows { at, left } => {
                    r.pos = at;
                    if let Err(halt) = result::<W>(r, &mut self.page) {
                        self.page.restart_row();
                        return Err(halt);
                    }
                    self.stage = Stage::Rows {
                        at: r.pos,
                        left: left - 1,
                    };
                }
                Stage::End { at } => {
                    r.pos = at;
                    // Field 0's id is what the compact protocol's next id is a delta from.
                    let mut last = 0;
                    return match W::field(r, &mut last)? {
                        None if r.pos <= self.limit => Ok(r.pos),
                        _ => Err(Halt::Generated),
                    };
                }
            }
        }
    }
}

impl<W: Wire + Send + 'static> ReplyReader<ScannerPage> for PageReader<W> {
    fn feed(&mut self, buf: &[u8]) -> Feed {
        let mut r = Reader::arriving(buf, self.limit);
        match self.read_on(&mut r) {
            Ok(end) => Feed::Done(end),
            // The probe refuses a value declared past the limit before its bytes come.
            Err(Halt::Short) if r.wanted <= self.limit => {
                // What this feed read of the row (or header) it stopped in is read again next
                // time, from where that starts.
                let cut_at = match self.stage {
                    Stage::Start => 0,
                    Stage::Rows { at, .. } | Stage::End { at } => at,
                };
                self.reread += r.pos.saturating_sub(cut_at);
                let allowed = buf
                    .len()
                    .saturating_mul(REREAD_PER_BYTE)
                    .saturating_add(REREAD_ALLOWANCE);
                match self.reread > allowed {
                    true => Feed::GiveUp,
                    false => Feed::More,
                }
            }
            Err(_) => Feed::GiveUp,
        }
    }

    fn finish(self: Box<Self>, reply: &Bytes) -> Result<ScannerPage> {
        self.page
            .finish(reply.clone())
            .map_err(|e| e.error(self.method))
    }
}
