//! The order the files hold: puts sorted by row, the puts of one row merged (the later cell of
//! two with the same key kept, as the later of two puts wins), each put's cells in HBase's
//! order (family, qualifier, newest first); and which region a row falls in.

use crate::model::{Put, PutCell};

/// Sorts a chunk of puts (see the module documentation); cells without a timestamp get their
/// put's, or `now`, as do cells at HBase's "latest" timestamp (`i64::MAX`), which a region
/// server would replace with its clock.
pub(super) fn sort_chunk(mut puts: Vec<Put>, now: i64) -> Vec<Put> {
    // Stable: the puts of one row stay in the order given.
    puts.sort_by(|a, b| a.row.cmp(&b.row));
    let mut merged: Vec<Put> = Vec::with_capacity(puts.len());
    for mut put in puts {
        stamp(&mut put, now);
        match merged.last_mut() {
            Some(last) if last.row == put.row => last.cells.append(&mut put.cells),
            _ => merged.push(put),
        }
    }
    for put in &mut merged {
        sort_cells(put);
    }
    merged
}

/// Gives `put`'s cells their timestamps as [`sort_chunk`] does, and puts them in HBase's
/// order.
pub(super) fn finish_put(put: &mut Put, now: i64) {
    stamp(put, now);
    sort_cells(put);
}

/// Gives each cell of `put` a timestamp: its own, else the put's, else `now` (as for HBase's
/// "latest").
fn stamp(put: &mut Put, now: i64) {
    for cell in &mut put.cells {
        let timestamp = cell.timestamp.or(put.timestamp).unwrap_or(now);
        cell.timestamp = Some(if timestamp == i64::MAX {
            now
        } else {
            timestamp
        });
    }
}

/// Merges `later` puts of the same row, each sorted by [`sort_chunk`] (or [`finish_put`]), into
/// `put`: their cells joined, then sorted once.
pub(super) fn merge_rows(put: &mut Put, later: impl IntoIterator<Item = Put>) {
    for mut later in later {
        put.cells.append(&mut later.cells);
    }
    sort_cells(put);
}

/// A put's cells in HBase's order, the later of two with the same key kept.
fn sort_cells(put: &mut Put) {
    let order = |a: &PutCell, b: &PutCell| {
        family_order(a, b)
            .then_with(|| a.qualifier.cmp(&b.qualifier))
            .then_with(|| b.timestamp.cmp(&a.timestamp))
    };
    // Cells given in order, each key once, stay as they are.
    if put.cells.windows(2).all(|w| order(&w[0], &w[1]).is_lt()) {
        return;
    }
    // Stable, so that of two cells with the same key the later stays last.
    put.cells.sort_by(order);
    put.cells.dedup_by(|later, earlier| {
        let same = order(later, earlier).is_eq();
        if same {
            std::mem::swap(later, earlier);
        }
        same
    });
}

/// How two cells' families sort: at once when they share one buffer (an entity's cells share
/// their family's name).
fn family_order(a: &PutCell, b: &PutCell) -> std::cmp::Ordering {
    if a.family.as_ptr() == b.family.as_ptr() && a.family.len() == b.family.len() {
        std::cmp::Ordering::Equal
    } else {
        a.family.cmp(&b.family)
    }
}

/// The index of the region holding `row`, of regions starting at `starts` (in order, the
/// first empty).
pub(super) fn region_of(starts: &[Vec<u8>], row: &[u8]) -> usize {
    starts
        .partition_point(|s| s.as_slice() <= row)
        .saturating_sub(1)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A put of `row` with `cells` (family, qualifier, timestamp, value).
    pub(in super::super) fn put(row: &str, cells: &[(&str, &str, Option<i64>, &str)]) -> Put {
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

    fn cells(puts: &[Put]) -> Vec<String> {
        puts.iter()
            .flat_map(|p| {
                p.cells.iter().map(move |c| {
                    let (f, q, v) = (text(&c.family), text(&c.qualifier), text(&c.value));
                    format!("{}/{f}:{q}/{}={v}", text(&p.row), c.timestamp.unwrap())
                })
            })
            .collect()
    }

    #[test]
    fn rows_sort_cells_follow_hbase_order_and_the_later_put_wins() {
        let puts = vec![
            put("b", &[("d", "q", Some(5), "old"), ("a", "x", None, "1")]),
            put("a", &[("d", "q", Some(5), "a5"), ("d", "q", Some(9), "a9")]),
            put("b", &[("d", "q", Some(5), "new")]),
        ];
        let sorted = sort_chunk(puts, 100);
        assert_eq!(
            cells(&sorted),
            ["a/d:q/9=a9", "a/d:q/5=a5", "b/a:x/100=1", "b/d:q/5=new"]
        );

        let mut first = sorted[1].clone();
        let later = sort_chunk(vec![put("b", &[("d", "q", Some(5), "newest")])], 0);
        merge_rows(&mut first, later);
        assert_eq!(cells(&[first]), ["b/a:x/100=1", "b/d:q/5=newest"]);
    }

    #[test]
    fn a_row_falls_in_the_region_of_the_last_start_not_after_it() {
        let starts = [b"".to_vec(), b"c".to_vec(), b"n".to_vec()];
        let regions: Vec<usize> = ["a", "c", "m", "n", "z"]
            .iter()
            .map(|r| region_of(&starts, r.as_bytes()))
            .collect();
        assert_eq!(regions, [0, 1, 1, 2, 2]);
    }
}
