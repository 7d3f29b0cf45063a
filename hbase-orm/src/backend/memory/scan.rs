//! Scanners: a scan's position in a table, paged out a few rows at a time.

use std::collections::VecDeque;

use super::errors;
use super::filter::{Filter, FilterState};
use super::row::ReadSpec;
use super::table::TableState;
use crate::model::{Result, Row, Scan, TableName};

/// An open scanner: what it reads and how far it got.
#[derive(Debug)]
pub(super) struct Scanner {
    /// The table it reads.
    pub(super) table: TableName,
    /// Columns, time range and versions read of each row.
    spec: ReadSpec,
    /// The scan's filter, if any.
    filter: Option<Filter>,
    /// What the filter remembers, and the region it remembers it for: HBase runs a scan's
    /// filter in each region afresh, so `PageFilter` and `WhileMatchFilter` end one region's
    /// part of the scan, and the scan goes on in the next region.
    filter_state: Option<(usize, FilterState)>,
    /// Whether it goes from high keys to low ones.
    reversed: bool,
    /// The key the scan ends at (exclusive): the high key forward, the low key reversed.
    stop: Option<Vec<u8>>,
    /// Cells per returned row part, if wide rows are split.
    batch: Option<usize>,
    /// Rows it may still return, if limited.
    remaining: Option<usize>,
    /// Where the next row is looked for: a key, and whether that key itself is included
    /// (`None`: from the table's first row, or last when reversed).
    position: Option<(Vec<u8>, bool)>,
    /// Parts of a split row not handed out yet.
    pending: VecDeque<Row>,
    /// Whether no row is left.
    done: bool,
}

/// A key bound, with the empty key meaning none (as HBase reads it).
fn bound(key: &Option<Vec<u8>>) -> Option<Vec<u8>> {
    key.clone().filter(|k| !k.is_empty())
}

impl Scanner {
    /// A scanner of `table` for a scan with HBase's own bounds (see [`Scan`] and the
    /// backend's `open_scanner`); the families it names must exist and its filter parse.
    pub(super) fn open(name: &TableName, table: &TableState, scan: &Scan) -> Result<Scanner> {
        if scan.authorizations.is_some() {
            return Err(errors::no_labels("openScanner"));
        }
        let spec = ReadSpec::of_scan(scan);
        table.check_read("openScanner", &spec)?;
        let filter = scan.filter.as_deref().map(Filter::parse).transpose()?;
        Ok(Scanner {
            table: name.clone(),
            spec,
            filter,
            filter_state: None,
            reversed: scan.reversed,
            stop: bound(&scan.stop),
            batch: scan
                .batch_size
                .and_then(|n| usize::try_from(n).ok())
                .filter(|&n| n > 0),
            remaining: scan.limit,
            position: bound(&scan.start).map(|start| (start, true)),
            pending: VecDeque::new(),
            done: false,
        })
    }

    /// Up to `n` rows (or row parts, when rows are split); empty once the scan is over.
    pub(super) fn next_rows(&mut self, table: &TableState, n: usize, now: i64) -> Vec<Row> {
        let mut out = Vec::new();
        while out.len() < n {
            if let Some(part) = self.pending.pop_front() {
                out.push(part);
                continue;
            }
            if self.done {
                break;
            }
            match self.next_row(table, now) {
                Some(row) => self.pending.extend(self.split(row)),
                None => self.done = true,
            }
        }
        out
    }

    /// Whether `key` lies past the end of the scan.
    fn past_stop(&self, key: &[u8]) -> bool {
        match (&self.stop, self.reversed) {
            (None, _) => false,
            (Some(stop), false) => key >= stop.as_slice(),
            (Some(stop), true) => key <= stop.as_slice(),
        }
    }

    /// The next row with cells that the filter keeps; `None` at the end of the scan.
    fn next_row(&mut self, table: &TableState, now: i64) -> Option<Row> {
        loop {
            if self.remaining == Some(0) {
                return None;
            }
            let key = match &self.position {
                Some((key, inclusive)) => table.next_key(Some(key), *inclusive, self.reversed),
                None => table.next_key(None, true, self.reversed),
            }?
            .to_vec();
            if self.past_stop(&key) {
                return None;
            }
            self.position = Some((key.clone(), false));
            self.prepare_filter(table, &key);
            let cells = match (&self.filter, &mut self.filter_state) {
                (Some(filter), Some((_, state))) => {
                    match table.read_filtered(&key, &self.spec, filter, state, now) {
                        Some(cells) => cells,
                        None => {
                            self.leave_region(table, &key)?;
                            continue;
                        }
                    }
                }
                _ => table.read_row(&key, &self.spec, now),
            };
            if cells.is_empty() {
                continue;
            }
            if let Some(n) = &mut self.remaining {
                *n -= 1;
            }
            return Some(Row {
                key,
                cells,
                stale: false,
            });
        }
    }

    /// Gives the filter a fresh state when `key` is in another region than the last row.
    fn prepare_filter(&mut self, table: &TableState, key: &[u8]) {
        if self.filter.is_none() {
            return;
        }
        let region = table.region_of(key);
        if self.filter_state.as_ref().is_none_or(|(r, _)| *r != region) {
            let state = if self.reversed {
                FilterState::for_reversed_scan()
            } else {
                FilterState::default()
            };
            self.filter_state = Some((region, state));
        }
    }

    /// Moves past the region holding `key`, whose filter ended its part of the scan;
    /// `None` if it was the last region the scan goes through.
    fn leave_region(&mut self, table: &TableState, key: &[u8]) -> Option<()> {
        let region = table.region_of(key);
        self.position = if self.reversed {
            let start = &table.regions.get(region)?.start;
            (!start.is_empty()).then(|| (start.clone(), false))
        } else {
            Some((table.regions.get(region + 1)?.start.clone(), true))
        };
        self.position.as_ref().map(|_| ())
    }

    /// A row as the scan hands it out: whole, or in parts of `batch` cells with its key.
    fn split(&self, row: Row) -> Vec<Row> {
        match self.batch {
            Some(batch) if row.cells.len() > batch => row
                .cells
                .chunks(batch)
                .map(|cells| Row {
                    key: row.key.clone(),
                    cells: cells.to_vec(),
                    stale: false,
                })
                .collect(),
            _ => vec![row],
        }
    }
}
