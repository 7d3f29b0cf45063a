//! Which cells go into which file. The puts are sorted by row (the puts of one row merged, the
//! later cell of two with the same key kept, as the later of two puts wins), each put's cells
//! in HBase's order (family, qualifier, newest first); a region's share is then a range of
//! puts, and its file of one family is that family's cells of each put in turn. No cell is
//! copied: the puts are the plan.

use std::ops::Range;

use bytes::Bytes;

use crate::model::{Put, PutCell};

/// The puts sorted and merged, ready to be cut into files.
pub(super) struct Plan {
    /// One per row, in row order; every cell with its timestamp, in HBase's order.
    pub puts: Vec<Put>,
    /// Every family with cells, in order.
    pub families: Vec<Bytes>,
}

/// Sorts and merges `puts` (see the module documentation); cells without a timestamp get their
/// put's, or `now`.
pub(super) fn prepare(mut puts: Vec<Put>, now: i64) -> Plan {
    // Stable: the puts of one row stay in the order given.
    puts.sort_by(|a, b| a.row.cmp(&b.row));
    let mut merged: Vec<Put> = Vec::with_capacity(puts.len());
    for mut put in puts {
        for cell in &mut put.cells {
            cell.timestamp = Some(cell.timestamp.or(put.timestamp).unwrap_or(now));
        }
        match merged.last_mut() {
            Some(last) if last.row == put.row => last.cells.append(&mut put.cells),
            _ => merged.push(put),
        }
    }
    let mut families: Vec<Bytes> = Vec::new();
    for put in &mut merged {
        // Stable, so that of two cells with the same key the later stays last.
        put.cells.sort_by(|a, b| {
            a.family
                .cmp(&b.family)
                .then_with(|| a.qualifier.cmp(&b.qualifier))
                .then_with(|| b.timestamp.cmp(&a.timestamp))
        });
        put.cells.dedup_by(|later, earlier| {
            let same = later.family == earlier.family
                && later.qualifier == earlier.qualifier
                && later.timestamp == earlier.timestamp;
            if same {
                std::mem::swap(later, earlier);
            }
            same
        });
        for cell in &put.cells {
            if families.last() != Some(&cell.family) && !families.contains(&cell.family) {
                families.push(cell.family.clone());
            }
        }
    }
    families.sort();
    Plan {
        puts: merged,
        families,
    }
}

/// The cells of `family` in `put` (a put's cells are sorted by family).
pub(super) fn cells_of<'p>(put: &'p Put, family: &[u8]) -> &'p [PutCell] {
    let start = put.cells.partition_point(|c| c.family.as_ref() < family);
    let end = start + put.cells[start..].partition_point(|c| c.family.as_ref() == family);
    &put.cells[start..end]
}

/// What one region takes: a range of the plan's puts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct RegionShare {
    pub puts: Range<usize>,
}

impl RegionShare {
    pub(super) fn first_row<'p>(&self, plan: &'p Plan) -> &'p [u8] {
        &plan.puts[self.puts.start].row
    }

    pub(super) fn last_row<'p>(&self, plan: &'p Plan) -> &'p [u8] {
        &plan.puts[self.puts.end - 1].row
    }

    pub(super) fn cells(&self, plan: &Plan) -> u64 {
        plan.puts[self.puts.clone()]
            .iter()
            .map(|p| p.cells.len() as u64)
            .sum()
    }
}

/// Cuts the puts in `ranges` at the region boundaries `starts` (the regions' start keys in
/// order, the first empty): one share per region that gets rows, in key order.
pub(super) fn shares(
    plan: &Plan,
    ranges: impl IntoIterator<Item = Range<usize>>,
    starts: &[Vec<u8>],
) -> Vec<RegionShare> {
    let mut out = Vec::new();
    for range in ranges {
        let mut at = range.start;
        while at < range.end {
            let region = starts.partition_point(|s| s.as_slice() <= plan.puts[at].row.as_slice());
            let end = match starts.get(region) {
                Some(next) => {
                    at + plan.puts[at..range.end]
                        .partition_point(|p| p.row.as_slice() < next.as_slice())
                }
                None => range.end,
            };
            out.push(RegionShare { puts: at..end });
            at = end;
        }
    }
    out
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

    fn text(b: &[u8]) -> String {
        String::from_utf8_lossy(b).into_owned()
    }

    #[test]
    fn rows_sort_cells_follow_hbase_order_and_the_later_put_wins() {
        let puts = vec![
            put("b", &[("d", "q", Some(5), "old"), ("a", "x", None, "1")]),
            put("a", &[("d", "q", Some(5), "a5"), ("d", "q", Some(9), "a9")]),
            put("b", &[("d", "q", Some(5), "new")]),
        ];
        let plan = prepare(puts, 100);
        let seen: Vec<String> = plan
            .puts
            .iter()
            .flat_map(|p| {
                p.cells.iter().map(move |c| {
                    let (f, q, v) = (text(&c.family), text(&c.qualifier), text(&c.value));
                    format!("{}/{f}:{q}/{}={v}", text(&p.row), c.timestamp.unwrap())
                })
            })
            .collect();
        assert_eq!(
            seen,
            ["a/d:q/9=a9", "a/d:q/5=a5", "b/a:x/100=1", "b/d:q/5=new"]
        );
        assert_eq!(plan.families, [Bytes::from("a"), Bytes::from("d")]);
        assert_eq!(cells_of(&plan.puts[1], b"d").len(), 1);
        assert!(cells_of(&plan.puts[0], b"a").is_empty());
    }

    /// Each region gets the rows from its start key up to the next region's.
    #[test]
    fn shares_are_cut_at_the_region_starts() {
        let puts = ["a", "c", "m", "n", "z"]
            .iter()
            .map(|r| put(r, &[("d", "q", Some(1), "v"), ("e", "q", Some(1), "v")]))
            .collect();
        let plan = prepare(puts, 0);
        let starts = [b"".to_vec(), b"c".to_vec(), b"n".to_vec(), b"x".to_vec()];
        let shares = shares(&plan, std::iter::once(0..plan.puts.len()), &starts);
        let rows: Vec<(String, String, u64)> = shares
            .iter()
            .map(|s| {
                (
                    text(s.first_row(&plan)),
                    text(s.last_row(&plan)),
                    s.cells(&plan),
                )
            })
            .collect();
        let want = [("a", "a", 2), ("c", "m", 4), ("n", "n", 2), ("z", "z", 2)];
        let want: Vec<(String, String, u64)> = want
            .iter()
            .map(|(a, b, n)| (a.to_string(), b.to_string(), *n))
            .collect();
        assert_eq!(rows, want);
    }
}
