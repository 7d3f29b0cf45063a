//! A scan across a table's regions, forward or reversed, one region server scanner at a time.
//!
//! The client keeps the scan's state: the region being read and its server-side scanner, the
//! last row handed out, the rows the limit still allows. When a region is used up the scan
//! opens a scanner in the next one (forward: the region starting where this one ends, from its
//! first row; reversed: the region ending where this one starts, from below that key). When a
//! region moves, or its scanner is lost (expired lease, restarted server, a broken
//! connection), the scan opens a new scanner just after the last row it returned, so no row
//! comes twice and none is skipped.

use std::sync::Arc;

use bytes::Bytes;

use super::connection::{self, CallError};
use super::frame::Service;
use super::proto;
use super::regions::Region;
use super::rpc::{self, Core, RegionAt, Remedy};
use crate::model::{Result, ScannerPage, TableName};

const METHOD: &str = "Scan";

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
        Scanner {
            table,
            template,
            reversed,
            stop,
            remaining: limit,
            from: From::Start,
            open: None,
            done: false,
        }
    }

    /// Whether the scan may still return rows.
    pub(crate) fn is_open(&self) -> bool {
        !self.done
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
    pub(crate) async fn rows(&mut self, core: &Core, rows: i32) -> Result<ScannerPage> {
        let rows = rows.max(1) as u32;
        let mut lost = 0;
        while !self.done {
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
                        limit_of_rows: self.remaining.map(|r| r.min(u32::MAX as usize) as u32),
                        ..Default::default()
                    };
                    (region, request)
                }
            };
            let reply = match core
                .call_at(&region.server, Service::Client, METHOD, &request)
                .await
            {
                Ok(reply) => reply,
                Err(e) => {
                    lost += 1;
                    self.recover(core, &region, e, lost).await?;
                    continue;
                }
            };
            let response: proto::ScanResponse =
                connection::decode(&reply).map_err(|m| rpc::protocol(METHOD, m))?;
            let mut page = rpc::scan_page(&response, &reply.cell_block)
                .map_err(|m| rpc::protocol(METHOD, m))?;
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
        Ok(ScannerPage::default())
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
    /// give the error up.
    async fn recover(
        &mut self,
        core: &Core,
        region: &Region,
        e: CallError,
        lost: u32,
    ) -> Result<()> {
        let reopen = match &e {
            CallError::Remote(ex) => {
                let class = ex.exception_class_name.as_deref().unwrap_or_default();
                rpc::remedy(ex) != Remedy::Fail || LOST.iter().any(|l| class.ends_with(l))
            }
            CallError::Broken(_) | CallError::Connect(_) => true,
            CallError::Timeout(_) => false,
        };
        if !reopen || lost > 10 {
            return Err(core.call_error(METHOD, &region.server, e));
        }
        tracing::debug!(error = ?e, "region scanner lost; reopening after the last row");
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
        // boundary reached); a region that moves is given a moment.
        self.open = None;
        let pause = 50 * u64::from(lost - 1);
        tokio::time::sleep(std::time::Duration::from_millis(pause)).await;
        Ok(())
    }

    /// Ends the scan, closing the server-side scanner if one is open.
    pub(crate) async fn finish(&mut self, core: &Core) {
        self.done = true;
        self.finish_open(core).await;
    }

    /// Closes the server-side scanner if one is open.
    async fn finish_open(&mut self, core: &Core) {
        if let Some((region, id, _)) = self.open.take() {
            let close = proto::ScanRequest {
                scanner_id: Some(id),
                close_scanner: Some(true),
                number_of_rows: Some(0),
                ..Default::default()
            };
            if let Err(e) = core
                .call_at(&region.server, Service::Client, METHOD, &close)
                .await
            {
                tracing::debug!(error = ?e, "closing a region scanner failed; its lease ends it");
            }
        }
    }
}
