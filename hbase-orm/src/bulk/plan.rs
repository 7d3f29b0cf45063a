//! Which cells go into which file: the puts' cells in HBase's order per family, the last of
//! equal keys kept (as the last of two puts of one cell wins), cut at the table's region
//! boundaries into one run per region and family.

use std::ops::Range;

use bytes::Bytes;

use crate::model::Put;

/// One cell to load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct LoadCell {
    pub family: Bytes,
    pub row: Bytes,
    pub qualifier: Bytes,
    pub timestamp: i64,
    pub value: Bytes,
}

impl LoadCell {
    /// Whether two cells have the same key (one replaces the other).
    fn same_key(&self, other: &LoadCell) -> bool {
        self.timestamp == other.timestamp
            && self.row == other.row
            && self.qualifier == other.qualifier
            && self.family == other.family
    }
}

/// The cells of `puts` sorted as the files hold them: by family, then in HBase's order (row,
/// qualifier, newest first); of cells with the same key, the one of the later put. Cells
/// without a timestamp get their put's, or `now`.
pub(super) fn sorted_cells(puts: Vec<Put>, now: i64) -> Vec<LoadCell> {
    let mut cells = Vec::with_capacity(puts.iter().map(|p| p.cells.len()).sum());
    for put in puts {
        let row = Bytes::from(put.row);
        for cell in put.cells {
            cells.push(LoadCell {
                family: cell.family,
                row: row.clone(),
                qualifier: cell.qualifier,
                timestamp: cell.timestamp.or(put.timestamp).unwrap_or(now),
                value: cell.value,
            });
        }
    }
    // Stable: of equal keys, the later put's cell stays last.
    cells.sort_by(|a, b| {
        a.family
            .cmp(&b.family)
            .then_with(|| a.row.cmp(&b.row))
            .then_with(|| a.qualifier.cmp(&b.qualifier))
            .then_with(|| b.timestamp.cmp(&a.timestamp))
    });
    let mut kept: Vec<LoadCell> = Vec::with_capacity(cells.len());
    for cell in cells {
        match kept.last_mut() {
            Some(last) if last.same_key(&cell) => *last = cell,
            _ => kept.push(cell),
        }
    }
    kept
}

/// The cells one region takes: per family, a range of the sorted cells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct RegionShare {
    /// The smallest row of the share (the region is looked up by it).
    pub first_row: Bytes,
    /// The largest row.
    pub last_row: Bytes,
    /// Per family, its cells.
    pub runs: Vec<Range<usize>>,
}

/// Cuts the cells in `runs` (ranges of `cells`, each of one family, sorted) at the region
/// boundaries `starts` (the regions' start keys in order, the first empty): one share per
/// region that gets cells, in key order.
pub(super) fn shares(
    cells: &[LoadCell],
    runs: impl IntoIterator<Item = Range<usize>>,
    starts: &[Vec<u8>],
) -> Vec<RegionShare> {
    let region_of = |row: &[u8]| starts.partition_point(|s| s.as_slice() <= row);
    let mut by_region: std::collections::BTreeMap<usize, RegionShare> = Default::default();
    for run in runs {
        let mut at = run.start;
        while at < run.end {
            let region = region_of(&cells[at].row);
            let end = match starts.get(region) {
                // The first cell of the run at or past the next region's start.
                Some(next) => {
                    at + cells[at..run.end].partition_point(|c| c.row.as_ref() < next.as_slice())
                }
                None => run.end,
            };
            let (first, last) = (cells[at].row.clone(), cells[end - 1].row.clone());
            let share = by_region.entry(region).or_insert_with(|| RegionShare {
                first_row: first.clone(),
                last_row: last.clone(),
                runs: Vec::new(),
            });
            share.first_row = share.first_row.clone().min(first);
            share.last_row = share.last_row.clone().max(last);
            share.runs.push(at..end);
            at = end;
        }
    }
    by_region.into_values().collect()
}

/// The runs of one family each in sorted `cells`.
pub(super) fn family_runs(cells: &[LoadCell]) -> Vec<Range<usize>> {
    let mut runs = Vec::new();
    let mut start = 0;
    for i in 1..=cells.len() {
        if i == cells.len() || cells[i].family != cells[start].family {
            if start < i {
                runs.push(start..i);
            }
            start = i;
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(row: &str, cells: &[(&str, &str, Option<i64>, &str)]) -> Put {
        cells
            .iter()
            .fold(Put::new(row), |p, (f, q, ts, v)| match ts {
                Some(ts) => p.column_at(*f, *q, *ts, v.as_bytes().to_vec()),
                None => p.column(*f, *q, v.as_bytes().to_vec()),
            })
    }

    #[test]
    fn cells_sort_by_family_then_key_and_the_later_put_wins() {
        let puts = vec![
            put("b", &[("d", "q", Some(5), "old"), ("a", "x", None, "1")]),
            put("a", &[("d", "q", Some(5), "a5"), ("d", "q", Some(9), "a9")]),
            put("b", &[("d", "q", Some(5), "new")]),
        ];
        let cells = sorted_cells(puts, 100);
        let seen: Vec<String> = cells
            .iter()
            .map(|c| {
                let text = |b: &Bytes| String::from_utf8_lossy(b).into_owned();
                let (f, r, v) = (text(&c.family), text(&c.row), text(&c.value));
                format!("{f}/{r}/{}={v}", c.timestamp)
            })
            .collect();
        assert_eq!(seen, ["a/b/100=1", "d/a/9=a9", "d/a/5=a5", "d/b/5=new"]);
        assert_eq!(family_runs(&cells), [0..1, 1..4]);
    }

    /// Each region gets the rows from its start key up to the next region's, of every family.
    #[test]
    fn shares_are_cut_at_the_region_starts() {
        let puts = ["a", "c", "m", "n", "z"]
            .iter()
            .map(|r| put(r, &[("d", "q", Some(1), "v"), ("e", "q", Some(1), "v")]))
            .collect();
        let cells = sorted_cells(puts, 0);
        let starts = [b"".to_vec(), b"c".to_vec(), b"n".to_vec(), b"x".to_vec()];
        let shares = shares(&cells, family_runs(&cells), &starts);
        let rows: Vec<(&[u8], &[u8], usize)> = shares
            .iter()
            .map(|s| (&s.first_row[..], &s.last_row[..], s.runs.len()))
            .collect();
        assert_eq!(
            rows,
            [
                (&b"a"[..], &b"a"[..], 2),
                (b"c", b"m", 2),
                (b"n", b"n", 2),
                (b"z", b"z", 2)
            ]
        );
        assert_eq!(shares[1].runs, [1..3, 6..8]);
    }
}
