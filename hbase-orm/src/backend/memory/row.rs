//! One row's cells: versions by timestamp, delete markers, and reading them back with
//! HBase's rules (markers mask versions at or below their timestamp, the family's version
//! limit, time to live and minimum versions, per-cell TTLs).

use std::collections::{BTreeMap, BTreeSet};

use crate::model::{Cell, Column, ColumnFamily, Get, Scan, TimeRange};

/// A delete marker on one column.
#[derive(Clone, Copy, Debug)]
pub(super) enum ColumnMarker {
    /// "Delete column": every version at or below the timestamp.
    UpTo(i64),
    /// "Delete version": the version at exactly the timestamp.
    Exactly(i64),
}

/// The options of a family that decide what a read sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct FamilyRules {
    /// Versions kept per column.
    pub(super) max_versions: usize,
    /// Versions kept per column even when expired by the family's TTL.
    pub(super) min_versions: usize,
    /// The family's time to live in milliseconds; `None` is forever.
    pub(super) ttl_ms: Option<i64>,
}

impl FamilyRules {
    /// The rules of a family descriptor as the store keeps it, its options filled in with
    /// [`ColumnFamily::with_hbase_defaults`] (an option left unset reads as that default too:
    /// one version, none kept past the TTL, no TTL). Runs on every read: copies nothing.
    pub(super) fn of(family: &ColumnFamily) -> FamilyRules {
        let count = |n: Option<i32>, least: i32| usize::try_from(n.unwrap_or(least).max(least));
        FamilyRules {
            max_versions: count(family.max_versions, 1).unwrap_or(1),
            min_versions: count(family.min_versions, 0).unwrap_or(0),
            ttl_ms: family
                .time_to_live
                .filter(|ttl| *ttl != i32::MAX)
                .map(|ttl| i64::from(ttl) * 1000),
        }
    }
}

/// One stored version of a cell.
#[derive(Clone, Debug)]
struct Version {
    /// The stored bytes.
    value: Vec<u8>,
    /// When a per-cell TTL makes it invisible (milliseconds), if it has one.
    expires_at: Option<i64>,
}

/// The versions and delete markers of one column.
#[derive(Clone, Debug, Default)]
struct ColumnData {
    /// Versions by timestamp (the newest last).
    versions: BTreeMap<i64, Version>,
    /// A "delete column" marker: every version at or below this timestamp is deleted.
    deleted_up_to: Option<i64>,
    /// "Delete version" markers: the versions with exactly these timestamps are deleted.
    deleted_versions: BTreeSet<i64>,
}

/// The columns and the "delete family" marker of one family in one row.
#[derive(Clone, Debug, Default)]
struct FamilyData {
    /// Columns by qualifier.
    columns: BTreeMap<Vec<u8>, ColumnData>,
    /// Every version of the family at or below this timestamp is deleted.
    deleted_up_to: Option<i64>,
}

/// Everything stored for one row key: cells and delete markers, by family.
#[derive(Clone, Debug, Default)]
pub(super) struct RowData {
    /// Families by name.
    families: BTreeMap<Vec<u8>, FamilyData>,
}

/// Whether a marker at `up_to` masks a version at `ts`.
fn masks(up_to: Option<i64>, ts: i64) -> bool {
    up_to.is_some_and(|m| ts <= m)
}

/// Raises a "delete everything at or below" marker to `ts`.
fn raise(marker: &mut Option<i64>, ts: i64) {
    *marker = Some(marker.map_or(ts, |m| m.max(ts)));
}

impl ColumnData {
    /// Whether a delete marker of the column or of its family masks the version at `ts`.
    fn is_deleted(&self, family_marker: Option<i64>, ts: i64) -> bool {
        masks(family_marker, ts)
            || masks(self.deleted_up_to, ts)
            || self.deleted_versions.contains(&ts)
    }

    /// The versions a read can see, newest first: not deleted, not past a per-cell TTL, and
    /// within the family's TTL unless among the `min_versions` newest.
    fn visible(
        &self,
        family_marker: Option<i64>,
        rules: FamilyRules,
        now: i64,
    ) -> impl Iterator<Item = (i64, &Version)> + '_ {
        let oldest_alive = rules.ttl_ms.map(|ttl| now.saturating_sub(ttl));
        self.versions
            .iter()
            .rev()
            .map(|(ts, v)| (*ts, v))
            .filter(move |(ts, v)| {
                !self.is_deleted(family_marker, *ts) && v.expires_at.is_none_or(|e| e > now)
            })
            .enumerate()
            .filter(move |(rank, (ts, _))| {
                *rank < rules.min_versions || oldest_alive.is_none_or(|oldest| *ts >= oldest)
            })
            .map(|(_, version)| version)
    }

    /// Drops what no read can see any more, as a compaction would: deleted versions (their
    /// markers stay) and versions beyond the family's limit.
    fn compact(&mut self, family_marker: Option<i64>, rules: FamilyRules) {
        let mut kept = 0;
        let doomed: Vec<i64> = self
            .versions
            .keys()
            .rev()
            .copied()
            .filter(|&ts| {
                if self.is_deleted(family_marker, ts) {
                    return true;
                }
                kept += 1;
                kept > rules.max_versions
            })
            .collect();
        for ts in doomed {
            self.versions.remove(&ts);
        }
    }
}

impl FamilyData {
    /// Drops the deleted and surplus versions of every column.
    fn compact(&mut self, rules: FamilyRules) {
        let marker = self.deleted_up_to;
        for column in self.columns.values_mut() {
            column.compact(marker, rules);
        }
        self.columns.retain(|_, c| {
            !c.versions.is_empty() || c.deleted_up_to.is_some() || !c.deleted_versions.is_empty()
        });
    }
}

/// The columns a read selects of one family: `None` for all of them.
type Qualifiers = Option<BTreeSet<Vec<u8>>>;

/// Which families and columns a read selects.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Selection {
    /// `None`: every family. Otherwise per family `None` for all its columns, or some.
    families: Option<BTreeMap<Vec<u8>, Qualifiers>>,
}

impl Selection {
    /// The selection of a get's or scan's column list, read in order as HBase does: a family
    /// selects all its columns, and a column named afterwards narrows the family to the
    /// columns named (a family named after its columns widens it again).
    pub(super) fn of(columns: &[Column]) -> Selection {
        if columns.is_empty() {
            return Selection::default();
        }
        let mut families: BTreeMap<Vec<u8>, Qualifiers> = BTreeMap::new();
        for c in columns {
            match &c.qualifier {
                None => {
                    families.insert(c.family.clone(), None);
                }
                Some(q) => {
                    let slot = families.entry(c.family.clone()).or_insert(None);
                    slot.get_or_insert_with(BTreeSet::new).insert(q.clone());
                }
            }
        }
        Selection {
            families: Some(families),
        }
    }

    /// The families the selection names (empty when it selects everything).
    pub(super) fn named_families(&self) -> impl Iterator<Item = &[u8]> {
        self.families
            .iter()
            .flat_map(|f| f.keys().map(Vec::as_slice))
    }

    /// Whether the selection reads the family at all.
    fn has_family(&self, family: &[u8]) -> bool {
        self.families
            .as_ref()
            .is_none_or(|f| f.contains_key(family))
    }

    /// Whether the selection reads `family:qualifier`.
    fn has_column(&self, family: &[u8], qualifier: &[u8]) -> bool {
        match &self.families {
            None => true,
            Some(f) => match f.get(family) {
                None => false,
                Some(None) => true,
                Some(Some(qualifiers)) => qualifiers.contains(qualifier),
            },
        }
    }
}

/// What a read asks of each row: columns, timestamps and versions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct ReadSpec {
    /// The families and columns read.
    pub(super) selection: Selection,
    /// Only the version with exactly this timestamp.
    timestamp: Option<i64>,
    /// Only versions in this range.
    time_range: Option<TimeRange>,
    /// Versions per column asked for (further capped by the family's own limit).
    max_versions: usize,
}

/// The versions asked for: HBase's default is one, and fewer than one means one.
fn versions_asked(n: Option<i32>) -> usize {
    usize::try_from(n.unwrap_or(1).max(1)).unwrap_or(1)
}

impl ReadSpec {
    /// What a get reads.
    pub(super) fn of_get(get: &Get) -> ReadSpec {
        ReadSpec {
            selection: Selection::of(&get.columns),
            timestamp: get.timestamp,
            time_range: get.time_range,
            max_versions: versions_asked(get.max_versions),
        }
    }

    /// What a scan reads of each row.
    pub(super) fn of_scan(scan: &Scan) -> ReadSpec {
        ReadSpec {
            selection: Selection::of(&scan.columns),
            timestamp: None,
            time_range: scan.time_range,
            max_versions: versions_asked(scan.max_versions),
        }
    }

    /// The versions per column asked for.
    pub(super) fn max_versions(&self) -> usize {
        self.max_versions
    }

    /// Whether a version at `ts` falls in the asked timestamp or time range.
    fn admits(&self, ts: i64) -> bool {
        self.timestamp.is_none_or(|t| t == ts)
            && self.time_range.is_none_or(|r| r.min <= ts && ts < r.max)
    }
}

impl RowData {
    /// The cells `spec` selects, in HBase's order: family, qualifier, newest first. `rules`
    /// gives each family's options. At most `versions` per column besides each family's own
    /// limit: `spec.max_versions()`, or no limit for what a filter sees, since HBase filters
    /// versions before it counts them.
    pub(super) fn read(
        &self,
        spec: &ReadSpec,
        versions: usize,
        rules: impl Fn(&[u8]) -> FamilyRules,
        now: i64,
    ) -> Vec<Cell> {
        let mut cells = Vec::new();
        for (family, data) in &self.families {
            if !spec.selection.has_family(family) {
                continue;
            }
            let rules = rules(family);
            let limit = versions.min(rules.max_versions);
            for (qualifier, column) in &data.columns {
                if !spec.selection.has_column(family, qualifier) {
                    continue;
                }
                let versions = column
                    .visible(data.deleted_up_to, rules, now)
                    .filter(|(ts, _)| spec.admits(*ts))
                    .take(limit);
                cells.extend(versions.map(|(ts, v)| Cell {
                    family: family.clone().into(),
                    qualifier: qualifier.clone().into(),
                    value: v.value.clone().into(),
                    timestamp: ts,
                }));
            }
        }
        cells
    }

    /// The newest visible version of `family:qualifier`: its timestamp and value.
    pub(super) fn latest(
        &self,
        family: &[u8],
        qualifier: &[u8],
        rules: FamilyRules,
        now: i64,
    ) -> Option<(i64, &[u8])> {
        let data = self.families.get(family)?;
        let column = data.columns.get(qualifier)?;
        column
            .visible(data.deleted_up_to, rules, now)
            .next()
            .map(|(ts, v)| (ts, v.value.as_slice()))
    }

    /// Stores one version (replacing a version of the same timestamp) and drops the versions
    /// the family no longer keeps. A delete marker at or above `ts` hides it at once.
    pub(super) fn put(
        &mut self,
        family: &[u8],
        qualifier: &[u8],
        ts: i64,
        value: Vec<u8>,
        expires_at: Option<i64>,
        rules: FamilyRules,
    ) {
        let data = self.families.entry(family.to_vec()).or_default();
        let column = data.columns.entry(qualifier.to_vec()).or_default();
        column.versions.insert(ts, Version { value, expires_at });
        column.compact(data.deleted_up_to, rules);
    }

    /// A "delete family" marker: every version of the family at or below `ts` is deleted,
    /// including versions written later with such timestamps.
    pub(super) fn delete_family(&mut self, family: &[u8], ts: i64, rules: FamilyRules) {
        let data = self.families.entry(family.to_vec()).or_default();
        raise(&mut data.deleted_up_to, ts);
        data.compact(rules);
    }

    /// Sets a marker on one column, then drops what it hides.
    pub(super) fn mark_column(
        &mut self,
        family: &[u8],
        qualifier: &[u8],
        marker: ColumnMarker,
        rules: FamilyRules,
    ) {
        let data = self.families.entry(family.to_vec()).or_default();
        let column = data.columns.entry(qualifier.to_vec()).or_default();
        match marker {
            ColumnMarker::UpTo(ts) => raise(&mut column.deleted_up_to, ts),
            ColumnMarker::Exactly(ts) => {
                column.deleted_versions.insert(ts);
            }
        }
        column.compact(data.deleted_up_to, rules);
    }

    /// Forgets a family's cells and markers (the family was dropped from the table).
    pub(super) fn drop_family(&mut self, family: &[u8]) {
        self.families.remove(family);
    }

    /// Whether the row holds neither cells nor markers (it can be forgotten).
    pub(super) fn is_void(&self) -> bool {
        self.families.is_empty()
    }
}
