//! A region's key range cut into sub-ranges read at once, for tables with fewer regions than
//! the query has partitions to fill (a one-region table is read by one scanner, one handler
//! thread of its region server, otherwise). The cuts are guessed from the range's first and
//! last rows: the bytes after their common prefix read as a big-endian number, and the keys
//! at even steps between them; rows spread evenly over their keys give sub-ranges of about
//! the same size, and any spread gives sub-ranges that cover the range exactly once.

use futures::TryStreamExt;
use hbase_orm::{Result, Scan, Table};

use crate::pushdown::KeySpan;

/// How many bytes after the common prefix a cut is interpolated over.
const WIDTH: usize = 8;

/// `span` cut into up to `pieces` sub-ranges by keys between `first` and `last` (the span's
/// first and last rows): the sub-ranges, in order, covering `span` exactly.
pub(crate) fn cut(span: &KeySpan, first: &[u8], last: &[u8], pieces: usize) -> Vec<KeySpan> {
    let common = first.iter().zip(last).take_while(|(a, b)| a == b).count();
    let number = |key: &[u8]| {
        let mut bytes = [0u8; WIDTH];
        for (i, b) in key.iter().skip(common).take(WIDTH).enumerate() {
            bytes[i] = *b;
        }
        u64::from_be_bytes(bytes)
    };
    let (low, high) = (number(first), number(last));
    let mut cuts: Vec<Vec<u8>> = Vec::new();
    for i in 1..pieces as u64 {
        let at = low + ((high - low) as u128 * i as u128 / pieces as u128) as u64;
        let mut key = first[..common].to_vec();
        key.extend_from_slice(&at.to_be_bytes());
        // Trailing zeros add nothing to where a key sorts among longer keys.
        while key.len() > common + 1 && key.last() == Some(&0) {
            key.pop();
        }
        // Only keys strictly inside the span, each once, in order.
        let inside = key.as_slice() > first && key.as_slice() <= last;
        if inside && cuts.last().is_none_or(|c| *c < key) {
            cuts.push(key);
        }
    }
    let mut out = Vec::with_capacity(cuts.len() + 1);
    let mut start = span.start.clone();
    for key in cuts {
        out.push(KeySpan {
            start: std::mem::replace(&mut start, key.clone()),
            stop: key,
        });
    }
    out.push(KeySpan {
        start,
        stop: span.stop.clone(),
    });
    out
}

/// The first and last row keys of `span` in `table` (`None` when it holds no row): two scans
/// of one row's first cell's key.
pub(crate) async fn ends(table: &Table, span: &KeySpan) -> Result<Option<(Vec<u8>, Vec<u8>)>> {
    let one = |reversed: bool| {
        let mut scan = Scan::new()
            .start(span.start.clone())
            .stop(span.stop.clone())
            .limit(1)
            .caching(1)
            .filter("FirstKeyOnlyFilter() AND KeyOnlyFilter()");
        if reversed {
            scan = scan.reversed();
        }
        let rows = table.scan(scan);
        async move {
            let rows: Vec<_> = rows.try_collect().await?;
            Ok::<_, hbase_orm::Error>(rows.into_iter().next().map(|r| r.key))
        }
    };
    let (first, last) = futures::try_join!(one(false), one(true))?;
    Ok(first.zip(last))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sub-ranges that follow each other from the span's start to its stop, their cuts
    /// strictly between the first and last rows.
    fn covers(pieces: &[KeySpan], whole: &KeySpan, first: &[u8], last: &[u8]) {
        assert_eq!(pieces.first().unwrap().start, whole.start);
        assert_eq!(pieces.last().unwrap().stop, whole.stop);
        for w in pieces.windows(2) {
            assert_eq!(w[0].stop, w[1].start);
            assert!(w[0].stop.as_slice() > first && w[0].stop.as_slice() <= last);
            assert!(w[0].start < w[0].stop);
        }
    }

    #[test]
    fn a_range_is_cut_between_its_first_and_last_rows() {
        // Keys of a big-endian customer number: cut evenly in between.
        let first = 0u64.to_be_bytes();
        let last = 4_000u64.to_be_bytes();
        let whole = KeySpan::new(b"", b"");
        let pieces = cut(&whole, &first, &last, 4);
        assert_eq!(pieces.len(), 4);
        covers(&pieces, &whole, &first, &last);
        let at = |i: usize| {
            let mut key = pieces[i].stop.clone();
            key.resize(8, 0);
            u64::from_be_bytes(key.try_into().unwrap())
        };
        assert_eq!([at(0), at(1), at(2)], [1_000, 2_000, 3_000]);

        // Text keys sharing a prefix, and keys of different lengths.
        let pieces = cut(&KeySpan::new(b"a", b"z"), b"order-0001", b"order-9", 3);
        covers(
            &pieces,
            &KeySpan::new(b"a", b"z"),
            b"order-0001",
            b"order-9",
        );
        assert_eq!(pieces.len(), 3);
        // One row, or rows too close to cut: the span whole.
        assert_eq!(cut(&whole, b"k", b"k", 4), vec![whole.clone()]);
        let pieces = cut(&whole, b"k\x00", b"k\x01", 8);
        covers(&pieces, &whole, b"k\x00", b"k\x01");
    }
}
