//! Where a scan reads, worked out in one place.
//!
//! A scan's key bounds come from several settings: start and stop, a prefix, a key to go on
//! after (the next page, or a scan that lost its scanner), the salt buckets of a salted table,
//! the direction, and, for parallel scans, the table's regions. [`KeyRange`] is the set of
//! keys a scan covers, always in ascending order; [`ScanPlan`] adds the salt and yields the
//! ranges the server scans, one per bucket, which [`split_at_regions`] cuts further at region
//! boundaries. Only [`KeyRange::server_bounds`] speaks HBase's reversed bounds.

use crate::model::{prefix_end, RegionLocation, Scan};

/// The row keys `lo <= key < hi`, ascending; `hi = None` has no end.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct KeyRange {
    /// The first key included (empty: from the first row).
    pub(crate) lo: Vec<u8>,
    /// The first key excluded.
    pub(crate) hi: Option<Vec<u8>>,
}

impl KeyRange {
    /// Keys from `start` (included) to `stop` (excluded); an empty stop has no end, as in HBase.
    pub(crate) fn new(start: Option<Vec<u8>>, stop: Option<Vec<u8>>) -> Self {
        KeyRange {
            lo: start.unwrap_or_default(),
            hi: stop.filter(|s| !s.is_empty()),
        }
    }

    /// The keys `scan` covers: its start, stop and prefix together.
    pub(crate) fn of(scan: &Scan) -> Self {
        let range = KeyRange::new(scan.start.clone(), scan.stop.clone());
        match &scan.prefix {
            Some(p) => range.with_prefix(p),
            None => range,
        }
    }

    /// Only the keys that also start with `prefix`.
    pub(crate) fn with_prefix(self, prefix: &[u8]) -> Self {
        let prefix_keys = KeyRange::new(Some(prefix.to_vec()), prefix_end(prefix));
        self.intersect(&prefix_keys)
    }

    /// The keys in both ranges.
    pub(crate) fn intersect(&self, other: &KeyRange) -> KeyRange {
        let hi = match (&self.hi, &other.hi) {
            (Some(a), Some(b)) => Some(a.min(b).clone()),
            (a, b) => a.clone().or_else(|| b.clone()),
        };
        KeyRange {
            lo: self.lo.clone().max(other.lo.clone()),
            hi,
        }
    }

    /// Whether no key is in the range.
    pub(crate) fn is_empty(&self) -> bool {
        self.hi.as_ref().is_some_and(|hi| *hi <= self.lo)
    }

    /// Whether `key` is at or past the end (`key >= hi`).
    pub(crate) fn ends_before(&self, key: &[u8]) -> bool {
        self.hi.as_deref().is_some_and(|hi| key >= hi)
    }

    /// Whether `key` comes before the first key (`key < lo`).
    pub(crate) fn starts_after(&self, key: &[u8]) -> bool {
        // Without a first key (a whole table), nothing is before it: no compare per row.
        !self.lo.is_empty() && key < self.lo.as_slice()
    }

    /// Narrows the range to the keys a scan in direction `reversed` reaches after `key`: the
    /// larger keys going forward, the smaller ones reversed. The next page of a paged scan,
    /// and where a scan that lost its scanner goes on.
    pub(crate) fn past(&mut self, key: &[u8], reversed: bool) {
        if reversed {
            if self.hi.as_deref().is_none_or(|hi| key < hi) {
                self.hi = Some(key.to_vec());
            }
        } else {
            let mut next = key.to_vec();
            next.push(0); // the smallest key after `key`
            if next > self.lo {
                self.lo = next;
            }
        }
    }

    /// The keys `[bucket][key]` for every `key` of this range: the range within salt bucket
    /// `bucket` of a salted table.
    pub(crate) fn in_bucket(&self, bucket: u8) -> KeyRange {
        let salted = |k: &[u8]| [&[bucket], k].concat();
        KeyRange {
            lo: salted(&self.lo),
            hi: match &self.hi {
                Some(hi) => Some(salted(hi)),
                None => prefix_end(&[bucket]),
            },
        }
    }

    /// HBase's own `startRow` and `stopRow` for scanning this range.
    ///
    /// Forward: `[lo, hi)` as it is. A reversed scan starts at its `startRow` (included) and
    /// stops before its `stopRow` going down, so the ascending range cannot be said exactly:
    /// the scanner starts at `hi` (a row equal to `hi` comes back and must be skipped, see
    /// [`KeyRange::ends_before`]) and stops at `lo` without its last byte (rows below `lo` come
    /// back and end the scan, see [`KeyRange::starts_after`]).
    pub(crate) fn server_bounds(&self, reversed: bool) -> (Option<Vec<u8>>, Option<Vec<u8>>) {
        let non_empty = |v: Vec<u8>| (!v.is_empty()).then_some(v);
        if reversed {
            let stop = non_empty(self.lo[..self.lo.len().saturating_sub(1)].to_vec());
            (self.hi.clone(), stop)
        } else {
            (non_empty(self.lo.clone()), self.hi.clone())
        }
    }

    /// `template` with this range for bounds (and no prefix: the range includes it).
    pub(crate) fn apply_to(&self, template: &Scan) -> Scan {
        Scan {
            start: Some(self.lo.clone()),
            stop: self.hi.clone(),
            prefix: None,
            ..template.clone()
        }
    }
}

/// Which salt buckets of a salted table (`[bucket byte][key]`) a scan reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Salt {
    /// The table is not salted: keys are read as they are.
    Unsalted,
    /// One bucket, which the scan's prefix fixed.
    Bucket(u8),
    /// Buckets `0..n`, each scanned over the same unsalted keys and merged in key order.
    Buckets(u8),
}

/// A scan's keys: the range (without salt bytes on a salted table) and the buckets read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ScanPlan {
    /// The keys covered, compared without their salt byte.
    pub(crate) range: KeyRange,
    /// The buckets read.
    pub(crate) salt: Salt,
}

impl ScanPlan {
    /// The plan of a scan of an unsalted table.
    pub(crate) fn unsalted(scan: &Scan) -> Self {
        ScanPlan {
            range: KeyRange::of(scan),
            salt: Salt::Unsalted,
        }
    }

    /// The plan of a scan of every bucket of a salted table, its bounds and prefix given
    /// without salt bytes.
    pub(crate) fn salted(scan: &Scan, buckets: u8) -> Self {
        ScanPlan {
            range: KeyRange::of(scan),
            salt: Salt::Buckets(buckets),
        }
    }

    /// The ranges the server scans, in the table's own keys (salt bytes in front), one per
    /// bucket read, in bucket order.
    pub(crate) fn server_ranges(&self) -> Vec<KeyRange> {
        match self.salt {
            Salt::Unsalted => vec![self.range.clone()],
            Salt::Bucket(b) => vec![self.range.in_bucket(b)],
            Salt::Buckets(n) => (0..n).map(|b| self.range.in_bucket(b)).collect(),
        }
    }
}

/// `range` cut at the boundaries of `regions` (sorted by start key): one part per region it
/// touches, in scan order (descending when `reversed`).
pub(crate) fn split_at_regions(
    range: &KeyRange,
    regions: &[RegionLocation],
    reversed: bool,
) -> Vec<KeyRange> {
    let mut parts: Vec<KeyRange> = regions
        .iter()
        .map(|r| {
            range.intersect(&KeyRange::new(
                Some(r.start_key.clone()),
                Some(r.end_key.clone()),
            ))
        })
        .filter(|part| !part.is_empty())
        .collect();
    if reversed {
        parts.reverse();
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(lo: &str, hi: Option<&str>) -> KeyRange {
        KeyRange {
            lo: lo.as_bytes().to_vec(),
            hi: hi.map(|h| h.as_bytes().to_vec()),
        }
    }

    #[test]
    fn start_stop_and_prefix_make_one_range() {
        let s = Scan::new().start("k1").stop("k2");
        assert_eq!(KeyRange::of(&s), range("k1", Some("k2")));
        let s = Scan::new().start("k15").prefix("k1");
        assert_eq!(KeyRange::of(&s), range("k15", Some("k2")));
        let s = Scan::new().prefix("k1").stop("k12");
        assert_eq!(KeyRange::of(&s), range("k1", Some("k12")));
        assert_eq!(KeyRange::of(&Scan::new()), range("", None));
        assert_eq!(
            KeyRange::of(&Scan::new().stop("")),
            range("", None),
            "empty stop"
        );
        let all_ff = Scan::new().prefix(vec![0xFF, 0xFF]);
        assert_eq!(KeyRange::of(&all_ff).hi, None, "no key ends a 0xFF prefix");
        assert!(KeyRange::of(&Scan::new().start("b").stop("a")).is_empty());
    }

    #[test]
    fn past_narrows_in_the_scan_direction_only() {
        let mut r = range("a", Some("m"));
        r.past(b"c", false);
        assert_eq!(r, range("c\0", Some("m")));
        r.past(b"b", false);
        assert_eq!(
            r,
            range("c\0", Some("m")),
            "a key before the range changes nothing"
        );
        let mut r = range("a", Some("m"));
        r.past(b"k", true);
        assert_eq!(r, range("a", Some("k")));
        r.past(b"x", true);
        assert_eq!(r, range("a", Some("k")));
        let mut open = range("", None);
        open.past(b"z", true);
        assert_eq!(open, range("", Some("z")));
    }

    #[test]
    fn ranges_in_buckets_carry_the_salt_byte() {
        let plan = ScanPlan::salted(&Scan::new().start("b").stop("d"), 3);
        let parts = plan.server_ranges();
        assert_eq!(parts.len(), 3);
        assert_eq!(
            parts[1],
            KeyRange::new(Some(b"\x01b".to_vec()), Some(b"\x01d".to_vec()))
        );
        let open = ScanPlan::salted(&Scan::new(), 2).server_ranges();
        assert_eq!(
            open[0],
            KeyRange::new(Some(vec![0]), Some(vec![1])),
            "the whole bucket"
        );
        assert_eq!(
            range("", None).in_bucket(0xFF).hi,
            None,
            "the last bucket has no end"
        );
        let one = ScanPlan {
            range: range("b", None),
            salt: Salt::Bucket(2),
        };
        assert_eq!(
            one.server_ranges(),
            vec![KeyRange::new(Some(b"\x02b".to_vec()), Some(vec![3]))]
        );
    }

    #[test]
    fn reversed_server_bounds_start_at_the_top() {
        let r = range("k1", Some("k5"));
        assert_eq!(
            r.server_bounds(false),
            (Some(b"k1".to_vec()), Some(b"k5".to_vec()))
        );
        assert_eq!(
            r.server_bounds(true),
            (Some(b"k5".to_vec()), Some(b"k".to_vec()))
        );
        assert_eq!(range("", None).server_bounds(true), (None, None));
        assert!(r.ends_before(b"k5") && !r.ends_before(b"k4"));
        assert!(r.starts_after(b"k0") && !r.starts_after(b"k1"));
    }

    #[test]
    fn a_range_splits_at_region_boundaries_in_scan_order() {
        let region = |start: &str, end: &str| RegionLocation {
            start_key: start.as_bytes().to_vec(),
            end_key: end.as_bytes().to_vec(),
            region_id: 0,
            host: String::new(),
            port: None,
        };
        let regions = [region("", "c"), region("c", "f"), region("f", "")];
        let parts = split_at_regions(&range("b", Some("e")), &regions, false);
        assert_eq!(parts, vec![range("b", Some("c")), range("c", Some("e"))]);
        let parts = split_at_regions(&range("", None), &regions, true);
        assert_eq!(
            parts,
            vec![
                range("f", None),
                range("c", Some("f")),
                range("", Some("c"))
            ]
        );
    }
}
