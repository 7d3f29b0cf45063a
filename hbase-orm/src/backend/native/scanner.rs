//! A scan across a table's regions, forward or reversed, one region server scanner at a time.
//!
//! The client keeps the scan's state: the region being read and its server-side scanner, the
//! last row handed out, the rows the limit still allows. When a region is used up the scan
//! opens a scanner in the next one (forward: the region starting where this one ends, from its
//! first row; reversed: the region ending where this one starts, from below that key). When a
//! region moves, or its scanner is lost (expired lease, restarted server, a broken
//! connection), the scan opens a new scanner just after the last row it returned, so no row
//! comes twice and none is skipped; it tries again, waiting as retried calls wait, until the
//! client's retry deadline from the loss (a crashed server's regions serve again only once
//! HBase has reassigned them). Under timeline consistency a region's scanner is opened
//! on whichever of its replicas answers first (`replicas`), and the scan reads on from that
//! one until the region is used up.
//!
//! A region server stops a reply once it holds the scan's `max_result_size`, between two cells
//! of a row if need be (the scan says it handles partial rows unless it asks for rows in
//! batches of cells, which the server cuts itself). The part of a row that a reply ends with
//! waits here for the rest, so every row is handed out whole.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures::StreamExt;

use super::connection::{self, CallError};
use super::frame::{Reply, Service};
use super::proto;
use super::regions::Region;
use super::replicas;
use super::rpc::{self, Core, RegionAt, Remedy};
use crate::model::{Backoff, Error, OutOfPage, Result, Row, ScannerPage, TableName};

const METHOD: &str = "Scan";

/// How long a scan goes on reopening lost scanners at the least, whatever the client's retry
/// deadline (zero included): a region that moves (a split, the balancer) is routine, served
/// again elsewhere within a second or two.
const REOPEN_AT_LEAST: Duration = Duration::from_secs(2);

/// Exceptions after which a scan reopens its scanner after the last row it returned.
const LOST: &[&str] = &[
    "UnknownScannerException",
    "OutOfOrderScannerNextException",
    "ScannerResetException",
    "LeaseException",
];

/// Where the next scanner starts.
#[derive(Clone, Debug)]
enum From {
    /// The scan's own start.
    Start,
    /// A region boundary: forward, the first row of the region starting at this key; reversed,
    /// the last row below this key.
    Boundary(Vec<u8>),
    /// Just past this row, the last one returned.
    After(Vec<u8>),
}

/// A scan's state between pages.
pub(crate) struct Scanner {
    table: TableName,
    /// The scan as the first scanner is opened with.
    template: proto::Scan,
    reversed: bool,
    /// The server-side bound where the scan ends (excluded), if any.
    stop: Option<Vec<u8>>,
    /// Rows the limit still allows.
    remaining: Option<usize>,
    from: From,
    /// The open server-side scanner: its region, id and next call number.
    open: Option<(Arc<Region>, u64, u64)>,
    /// How long the region server keeps a scanner nobody calls (its lease, as it said when
    /// the scanner opened), and when the last call to it went out.
    lease: Option<Duration>,
    last_call: Instant,
    /// Whether the server may end a reply inside a row.
    partials: bool,
    /// The cells of a row read so far when a reply ended inside it.
    pending: Option<Row>,
    /// Whole rows of the last reply not handed out yet (they came after a row completed).
    ready: Option<ScannerPage>,
    done: bool,
}

impl Scanner {
    /// A scan of `table` as `template` describes it.
    pub(crate) fn new(table: TableName, template: proto::Scan, limit: Option<usize>) -> Scanner {
        let reversed = template.reversed == Some(true);
        let stop = template
            .stop_row
            .as_ref()
            .map(|s| s.to_vec())
            .filter(|s| !s.is_empty());
        let partials = template.batch_size.is_none();
        Scanner {
            table,
            template,
            reversed,
            stop,
            remaining: limit,
            from: From::Start,
            open: None,
            lease: None,
            last_call: Instant::now(),
            partials,
            pending: None,
            ready: None,
            done: false,
        }
    }

    /// Whether the scan may still return rows.
    pub(crate) fn is_open(&self) -> bool {
        !self.done
    }

    /// Whether any replica of a region may answer (timeline consistency).
    fn is_timeline(&self) -> bool {
        self.template.consistency == Some(proto::Consistency::Timeline as i32)
    }

    /// The region the next scanner opens in.
    pub(crate) async fn first_region(&self, core: &Core) -> Result<Arc<Region>> {
        let start = match &self.from {
            From::Start => self
                .template
                .start_row
                .as_ref()
                .map(|s| s.to_vec())
                .unwrap_or_default(),
            From::After(row) => row.clone(),
            From::Boundary(key) if self.reversed => {
                return core.locate(&self.table, RegionAt::Before(key)).await
            }
            From::Boundary(key) => key.clone(),
        };
        if self.reversed && start.is_empty() {
            return core.last_region(&self.table).await;
        }
        core.locate(&self.table, RegionAt::Holding(&start)).await
    }

    /// The scan for a scanner opened now.
    fn next_scan(&self) -> proto::Scan {
        let mut scan = self.template.clone();
        match &self.from {
            From::Start => {}
            From::Boundary(key) => {
                scan.start_row = Some(Bytes::copy_from_slice(key));
                // Reversed, the boundary is the start of the region just read: excluded.
                scan.include_start_row = self.reversed.then_some(false);
            }
            From::After(row) => {
                scan.start_row = Some(Bytes::copy_from_slice(row));
                scan.include_start_row = Some(false);
            }
        }
        scan
    }

    /// Up to `rows` rows: at least one unless the scan is over.
    pub(crate) async fn rows(&mut self, core: &Arc<Core>, rows: i32) -> Result<ScannerPage> {
        let rows = rows.max(1) as u32;
        // The waits between reopening scanners lost in this call, from the first loss.
        let mut lost = None;
        loop {
            let mut page = match self.ready.take() {
                Some(page) => page,
                None if self.done => return Ok(ScannerPage::default()),
                None => self.next_reply(core, rows, &mut lost).await?,
            };
            if page.is_empty() {
                continue;
            }
            if let Some(remaining) = &mut self.remaining {
                page.truncate(*remaining);
                *remaining -= page.len();
                if *remaining == 0 {
                    self.finish(core).await;
                }
            }
            if self.open.is_some() {
                // Where a new scanner starts if this one is lost.
                if let Some(last) = page.last_key() {
                    self.from = From::After(last.to_vec());
                }
            }
            return Ok(page);
        }
    }

    /// The rows of the next reply that are whole (opening a scanner first if none is open,
    /// reopening one that was lost), the region's and the scan's end noted.
    async fn next_reply(
        &mut self,
        core: &Arc<Core>,
        rows: u32,
        lost: &mut Option<Backoff>,
    ) -> Result<ScannerPage> {
        let want = self
            .remaining
            .map_or(rows, |r| rows.min(r.min(u32::MAX as usize) as u32));
        let (region, request) = match &self.open {
            Some((region, id, seq)) => (
                region.clone(),
                proto::ScanRequest {
                    scanner_id: Some(*id),
                    number_of_rows: Some(want),
                    next_call_seq: Some(*seq),
                    client_handles_heartbeats: Some(true),
                    client_handles_partials: Some(self.partials),
                    ..Default::default()
                },
            ),
            None => {
                let region = self.first_region(core).await?;
                let request = proto::ScanRequest {
                    region: Some(region.specifier()),
                    scan: Some(self.next_scan()),
                    number_of_rows: Some(want),
                    client_handles_heartbeats: Some(true),
                    client_handles_partials: Some(self.partials),
                    limit_of_rows: self.remaining.map(|r| r.min(u32::MAX as usize) as u32),
                    ..Default::default()
                };
                (region, request)
            }
        };
        let answer = if self.open.is_none() && self.is_timeline() {
            // Opened on whichever replica answers first; the scan stays on it in this region.
            // The other opens may still succeed: the scanners they open are closed apart.
            let ask = |replica: Arc<Region>| {
                let request = proto::ScanRequest {
                    region: Some(replica.specifier()),
                    ..request.clone()
                };
                let core = core.clone();
                async move {
                    core.call_at(&replica.server, Service::Client, METHOD, &request)
                        .await
                }
            };
            let delay = core.primary_call_timeout();
            replicas::first_answer(delay, &region, ask)
                .await
                .map(|(replica, reply, others)| {
                    if !others.is_empty() {
                        tokio::spawn(close_opened(core.clone(), others));
                    }
                    (replica, reply)
                })
        } else {
            core.call_at(&region.server, Service::Client, METHOD, &request)
                .await
                .map(|reply| (region.clone(), reply))
        };
        let (region, reply) = match answer {
            Ok(answer) => answer,
            Err(e) => {
                let config = &core.config;
                let backoff = lost.get_or_insert_with(|| {
                    let deadline = config.retry_deadline.max(REOPEN_AT_LEAST);
                    Backoff::new(config.retry_backoff, deadline)
                });
                self.recover(core, &region, e, backoff).await?;
                return Ok(ScannerPage::default());
            }
        };
        let response: proto::ScanResponse =
            connection::decode(&reply).map_err(|m| rpc::protocol(METHOD, m))?;
        let page =
            rpc::scan_page(&response, &reply.cell_block).map_err(|m| rpc::protocol(METHOD, m))?;
        self.last_call = Instant::now();
        if let Some(ttl) = response.ttl {
            self.lease = Some(Duration::from_millis(u64::from(ttl)));
        }
        let id = response.scanner_id.or(self.open.as_ref().map(|o| o.1));
        // The first call after the open is number 0, each later one the next number.
        let seq = self.open.as_ref().map_or(0, |o| o.2 + 1);
        self.open = id.map(|id| (region.clone(), id, seq));
        if response.more_results == Some(false) {
            self.open = None;
            self.done = true;
        } else if response.more_results_in_region == Some(false) {
            self.open = None;
            self.next_region(&region);
        }
        // The flag also marks a batch of cells that filled up: only rows the server cut for
        // size are joined here; batches stay the parts the caller asked for.
        let cut = self.partials && response.partial_flag_per_result.last() == Some(&true);
        if self.pending.is_none() && !cut {
            return Ok(page);
        }
        self.stitch(page, cut)
            .map_err(|_| rpc::protocol(METHOD, "a row of the reply holds over 4 GiB".into()))
    }

    /// The whole rows of a reply whose last row the server `cut` (the rest comes in the next
    /// reply), or that follows such a reply: the part held back is joined to its rest. What
    /// is returned now: the page, or the row that was held back, completed, alone (the rest
    /// of the page waits in `ready`, so no page is copied).
    fn stitch(&mut self, mut page: ScannerPage, cut: bool) -> Result<ScannerPage, OutOfPage> {
        let open = self.open.is_some();
        // A row goes on in the next reply only while this scanner reads on.
        let mut tail = if cut && open { page.pop_row() } else { None };
        let mut done = None;
        if let Some(mut head) = self.pending.take() {
            if page.first_key() == Some(&head.key[..]) {
                head.cells
                    .extend(page.pop_first_row().into_iter().flat_map(|r| r.cells));
                done = Some(head);
            } else if tail.as_ref().is_some_and(|t| t.key == head.key) {
                head.cells
                    .extend(tail.take().into_iter().flat_map(|r| r.cells));
                tail = Some(head);
            } else if page.is_empty() && tail.is_none() && open {
                // A heartbeat with none of the row: its rest is still to come.
                tail = Some(head);
            } else {
                // The next row began, or the scanner ended: the row held back is whole.
                done = Some(head);
            }
        }
        self.pending = tail;
        match done {
            None => Ok(page),
            Some(row) => {
                if !page.is_empty() {
                    self.ready = Some(page);
                }
                ScannerPage::from_rows(vec![row])
            }
        }
    }

    /// After a region is used up: where the next one starts, or the end of the scan.
    fn next_region(&mut self, region: &Region) {
        if self.reversed {
            let past_stop = self
                .stop
                .as_ref()
                .is_some_and(|s| s[..] >= region.start[..]);
            if region.start.is_empty() || past_stop {
                self.done = true;
            } else {
                self.from = From::Boundary(region.start.clone());
            }
        } else {
            let past_stop = self.stop.as_ref().is_some_and(|s| s[..] <= region.end[..]);
            if region.end.is_empty() || past_stop {
                self.done = true;
            } else {
                self.from = From::Boundary(region.end.clone());
            }
        }
    }

    /// After a failed call: reopen past the last row if the scanner or region was lost, or
    /// give the error up. Reopening goes on, with `backoff`'s waits, until the client's retry
    /// deadline from the first loss (at least [`REOPEN_AT_LEAST`]): a region whose server
    /// crashed is served again only once HBase has noticed (the server's ZooKeeper session
    /// expires) and reassigned it, which takes seconds.
    async fn recover(
        &mut self,
        core: &Core,
        region: &Region,
        e: CallError,
        backoff: &mut Backoff,
    ) -> Result<()> {
        let reopen = match &e {
            CallError::Remote(ex) => {
                let class = ex.exception_class_name.as_deref().unwrap_or_default();
                rpc::remedy(ex) != Remedy::Fail || LOST.iter().any(|l| class.ends_with(l))
            }
            CallError::Broken(_) | CallError::Connect(_) => true,
            CallError::Timeout(_)
            | CallError::Auth(_)
            | CallError::TooLarge(_)
            | CallError::ReplyTooLarge(..) => false,
        };
        let attempts = backoff.attempts();
        let pause = match backoff.next_wait() {
            Some(pause) if reopen => pause,
            _ => {
                let error = core.call_error(METHOD, &region.server, e);
                if !reopen || attempts == 1 {
                    return Err(error);
                }
                return Err(Error::Retried {
                    operation: METHOD,
                    attempts,
                    elapsed: backoff.elapsed(),
                    source: Box::new(error),
                });
            }
        };
        tracing::debug!(error = ?e, ?pause, "region scanner lost; reopening after the last row");
        crate::observe::scan_resumed("native");
        core.scans_resumed
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if let CallError::Remote(_) = e {
            core.regions.forget(&self.table, region);
            // The server may still hold the scanner: release it rather than wait for its
            // lease (best effort; a region that moved took its scanners with it).
            self.finish_open(core).await;
        } else {
            core.regions.forget_server(&region.server);
        }
        // A new scanner starts where `from` says (after the last row returned, or at the
        // boundary reached), so the part of a row held back is read again whole; a region
        // that moves is given a moment.
        self.open = None;
        self.pending = None;
        self.ready = None;
        tokio::time::sleep(pause).await;
        Ok(())
    }

    /// Keeps the open region scanner while its caller pauses: renews its lease once half of
    /// it is gone since the last call (HBase's `renew` scan request, which reads no row and
    /// leaves the call numbering as it is); when to look again. `None`: no region scanner is
    /// open, the server gave it no lease, or the renewal failed (the next page finds out why,
    /// and reopens if the scanner was lost).
    pub(crate) async fn keep(&mut self, core: &Core) -> Option<Duration> {
        let (region, id, _) = self.open.as_ref()?;
        let half = self.lease? / 2;
        let idle = self.last_call.elapsed();
        if idle < half {
            return Some(half - idle);
        }
        let renew = proto::ScanRequest {
            scanner_id: Some(*id),
            renew: Some(true),
            number_of_rows: Some(0),
            ..Default::default()
        };
        match core
            .call_at(&region.server, Service::Client, METHOD, &renew)
            .await
        {
            Ok(_) => {
                self.last_call = Instant::now();
                core.scanners_renewed
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                Some(half)
            }
            Err(e) => {
                tracing::debug!(error = ?e, "renewing a region scanner's lease failed");
                None
            }
        }
    }

    /// Ends the scan, closing the server-side scanner if one is open.
    pub(crate) async fn finish(&mut self, core: &Core) {
        self.done = true;
        self.ready = None;
        self.finish_open(core).await;
    }

    /// Closes the server-side scanner if one is open.
    async fn finish_open(&mut self, core: &Core) {
        if let Some((region, id, _)) = self.open.take() {
            close_region_scanner(core, &region.server, id).await;
        }
    }
}

/// Closes region scanner `id` on `server` (best effort: one that cannot be closed ends with
/// its lease).
async fn close_region_scanner(core: &Core, server: &str, id: u64) {
    let close = proto::ScanRequest {
        scanner_id: Some(id),
        close_scanner: Some(true),
        number_of_rows: Some(0),
        ..Default::default()
    };
    if let Err(e) = core.call_at(server, Service::Client, METHOD, &close).await {
        tracing::debug!(error = ?e, "closing a region scanner failed; its lease ends it");
    }
}

/// Closes the region scanners that the other replicas' opens of a timeline scan opened after
/// one replica's open had won (without this they would live out their lease on the server).
async fn close_opened(core: Arc<Core>, mut others: replicas::Others<'static, Reply, CallError>) {
    while let Some((replica, answer)) = others.next().await {
        let Ok(reply) = answer else {
            continue;
        };
        let Ok(response) = connection::decode::<proto::ScanResponse>(&reply) else {
            continue;
        };
        if let (Some(id), false) = (response.scanner_id, response.more_results == Some(false)) {
            close_region_scanner(&core, &replica.server, id).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Cell;

    /// Rows given as (key, qualifiers).
    fn page(rows: &[(&str, &[&str])]) -> ScannerPage {
        let rows = rows
            .iter()
            .map(|(key, qualifiers)| Row {
                key: key.as_bytes().to_vec(),
                cells: qualifiers
                    .iter()
                    .map(|q| Cell {
                        family: Bytes::from_static(b"d"),
                        qualifier: Bytes::copy_from_slice(q.as_bytes()),
                        value: Bytes::copy_from_slice(format!("{key}/{q}").as_bytes()),
                        timestamp: 1,
                    })
                    .collect(),
                stale: false,
            })
            .collect();
        ScannerPage::from_rows(rows).unwrap()
    }

    /// A scanner with a region scanner open (or not).
    fn scanner(open: bool) -> Scanner {
        let mut s = Scanner::new(TableName::new("default", "t"), proto::Scan::default(), None);
        let region = Region {
            name: Bytes::from_static(b"t,,1"),
            start: Vec::new(),
            end: Vec::new(),
            id: 1,
            server: "h:1".into(),
            replicas: Vec::new(),
        };
        s.open = open.then(|| (Arc::new(region), 7, 0));
        s
    }

    /// Any run of scan replies (cells counted per result or listed in results, any partial
    /// flags, any cell block, the scanner open or not after each) reads to pages or a protocol
    /// error, never a panic, and loses no cell: those handed out and those held back are those
    /// that came.
    #[test]
    fn any_scan_replies_read_to_pages_or_errors() {
        use super::super::cellblock::tests::arb_block;
        use super::super::convert::tests::arb_result;
        use proptest::prelude::*;
        let counts = proptest::collection::vec(prop_oneof![0u32..4, any::<u32>()], 0..5);
        let reply = (
            counts,
            proptest::collection::vec(arb_result(), 0..3),
            proptest::collection::vec(any::<bool>(), 0..5),
            arb_block(),
            any::<bool>(),
        );
        proptest::proptest!(|(replies in proptest::collection::vec(reply, 1..5))| {
            let mut s = scanner(true);
            let open_state = scanner(true).open;
            let (mut came, mut out) = (0, 0);
            let count = |page: ScannerPage| page.into_rows().iter().map(|r| r.cells.len()).sum::<usize>();
            for (cells_per_result, results, partial_flag_per_result, block, open) in replies {
                let response = proto::ScanResponse {
                    cells_per_result,
                    results,
                    partial_flag_per_result,
                    ..Default::default()
                };
                let Ok(page) = rpc::scan_page(&response, &block) else { continue };
                came += count(rpc::scan_page(&response, &block).unwrap());
                s.open = if open { open_state.clone() } else { None };
                let cut = response.partial_flag_per_result.last() == Some(&true);
                out += count(s.stitch(page, cut).expect("a page of a few cells"));
                if let Some(ready) = s.ready.take() {
                    out += count(ready);
                }
            }
            let held = s.pending.as_ref().map_or(0, |r| r.cells.len());
            prop_assert_eq!(out + held, came, "{} handed out and {} held of {}", out, held, came);
        });
    }

    #[test]
    fn a_row_cut_at_the_end_of_a_reply_waits_for_its_rest() {
        let mut s = scanner(true);
        let out = s.stitch(page(&[("a", &["1"]), ("b", &["1", "2"])]), true);
        assert_eq!(out.unwrap(), page(&[("a", &["1"])]));
        // The rest of b, and c: b comes whole first, alone; c waits its turn.
        let out = s.stitch(page(&[("b", &["3"]), ("c", &["1"])]), false);
        assert_eq!(out.unwrap(), page(&[("b", &["1", "2", "3"])]));
        assert_eq!(s.ready.take().unwrap(), page(&[("c", &["1"])]));
        assert!(s.pending.is_none());
    }

    #[test]
    fn a_row_may_span_several_replies_and_heartbeats() {
        let mut s = scanner(true);
        assert!(s.stitch(page(&[("a", &["1"])]), true).unwrap().is_empty());
        assert!(s.stitch(page(&[("a", &["2"])]), true).unwrap().is_empty());
        // A heartbeat: nothing of the row yet, it still waits.
        assert!(s.stitch(page(&[]), false).unwrap().is_empty());
        let out = s.stitch(page(&[("a", &["3"])]), false).unwrap();
        assert_eq!(out, page(&[("a", &["1", "2", "3"])]));
        assert!(s.ready.is_none() && s.pending.is_none());
    }

    #[test]
    fn the_row_held_back_is_whole_when_the_next_begins_or_the_scanner_ends() {
        let mut s = scanner(true);
        s.stitch(page(&[("a", &["1"])]), true).unwrap();
        let out = s.stitch(page(&[("b", &["1"])]), true).unwrap();
        assert_eq!(out, page(&[("a", &["1"])]));
        assert!(s.ready.is_none(), "b is held back in turn");
        assert_eq!(s.pending.as_ref().unwrap().key, b"b");
        // The region's scanner ended: what it said was cut is all there is.
        s.open = None;
        let out = s.stitch(page(&[]), true).unwrap();
        assert_eq!(out, page(&[("b", &["1"])]));
        let mut s = scanner(false);
        let out = s.stitch(page(&[("a", &["1"])]), true).unwrap();
        assert_eq!(
            out,
            page(&[("a", &["1"])]),
            "no scanner reads on: nothing waits"
        );
    }
}
