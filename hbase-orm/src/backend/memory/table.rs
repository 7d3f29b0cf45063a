//! One table: its descriptor, state and regions, and its rows with the data operations on
//! them (reads, puts, deletes, increments, appends, row mutations, check-and-mutate).

use std::collections::BTreeMap;
use std::ops::Bound;

use super::errors;
use super::filter::{Filter, FilterState, RowVerdict};
use super::row::ColumnMarker::{Exactly, UpTo};
use super::row::{FamilyRules, ReadSpec, RowData};
use crate::model::*;

/// A region: the first key it holds and its id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Region {
    /// First row key of the region (empty for the first).
    pub(super) start: Vec<u8>,
    /// The region's id.
    pub(super) id: i64,
}

/// A table held in memory.
#[derive(Clone, Debug)]
pub(super) struct TableState {
    /// Its name and families, every family option filled in.
    pub(super) descriptor: TableDescriptor,
    /// Whether it serves reads and writes.
    pub(super) enabled: bool,
    /// Its regions in key order.
    pub(super) regions: Vec<Region>,
    /// Its rows by key (unsigned byte order).
    rows: BTreeMap<Vec<u8>, RowData>,
}

/// New values of an increment or append by `(family, qualifier)`: each with the timestamp
/// of the version it follows, if there is one.
type Updates<V> = BTreeMap<(Vec<u8>, Vec<u8>), (V, Option<i64>)>;

/// The name of the Thrift2 method a data call corresponds to, for errors.
pub(super) type Method = &'static str;

impl TableState {
    /// An empty, enabled table.
    pub(super) fn new(descriptor: TableDescriptor, regions: Vec<Region>) -> TableState {
        TableState {
            descriptor,
            enabled: true,
            regions,
            rows: BTreeMap::new(),
        }
    }

    /// The index of the region holding `key`.
    pub(super) fn region_of(&self, key: &[u8]) -> usize {
        self.regions
            .partition_point(|r| r.start.as_slice() <= key)
            .saturating_sub(1)
    }

    /// Forgets every row.
    pub(super) fn clear(&mut self) {
        self.rows.clear();
    }

    /// Forgets a family's data in every row.
    pub(super) fn drop_family_data(&mut self, family: &str) {
        for row in self.rows.values_mut() {
            row.drop_family(family.as_bytes());
        }
        self.rows.retain(|_, r| !r.is_void());
    }

    /// The table's family named `family` (compared as bytes: a name that is not UTF-8 is
    /// simply not found).
    fn family(&self, family: &[u8]) -> Option<&ColumnFamily> {
        self.descriptor
            .families
            .iter()
            .find(|f| f.name.as_bytes() == family)
    }

    /// The options of `family` that decide what reads see (defaults if it is unknown).
    fn rules(&self, family: &[u8]) -> FamilyRules {
        self.family(family)
            .map_or_else(|| FamilyRules::of(&ColumnFamily::new("")), FamilyRules::of)
    }

    /// Fails naming the first of `families` the table does not have.
    fn require_families<'a>(
        &self,
        method: Method,
        families: impl IntoIterator<Item = &'a [u8]>,
    ) -> Result<()> {
        for family in families {
            if self.family(family).is_none() {
                return Err(errors::no_such_family(
                    method,
                    &self.descriptor.name,
                    family,
                ));
            }
        }
        Ok(())
    }

    /// The cells of row `key` that `spec` reads, in HBase's order.
    pub(super) fn read_row(&self, key: &[u8], spec: &ReadSpec, now: i64) -> Vec<Cell> {
        self.read_versions(key, spec, spec.max_versions(), now)
    }

    /// [`TableState::read_row`] with its own version limit.
    fn read_versions(&self, key: &[u8], spec: &ReadSpec, versions: usize, now: i64) -> Vec<Cell> {
        match self.rows.get(key) {
            Some(row) => row.read(spec, versions, |f| self.rules(f), now),
            None => Vec::new(),
        }
    }

    /// Checks that the families a read names exist.
    pub(super) fn check_read(&self, method: Method, spec: &ReadSpec) -> Result<()> {
        self.require_families(method, spec.selection.named_families())
    }

    /// One get: `None` when the row has no visible cells or the filter leaves it out.
    pub(super) fn get(&self, method: Method, get: &Get, now: i64) -> Result<Option<Row>> {
        if get.authorizations.is_some() {
            return Err(errors::no_labels(method));
        }
        let spec = ReadSpec::of_get(get);
        self.check_read(method, &spec)?;
        let filter = get.filter.as_deref().map(Filter::parse).transpose()?;
        let cells = match &filter {
            None => self.read_row(&get.row, &spec, now),
            Some(f) => self
                .read_filtered(&get.row, &spec, f, &mut FilterState::default(), now)
                .unwrap_or_default(),
        };
        Ok((!cells.is_empty()).then(|| Row {
            key: get.row.clone(),
            cells,
            stale: false,
        }))
    }

    /// The cells of row `key` that `spec` reads and `filter` keeps: the filter sees every
    /// version before the version limit applies, as in HBase. `None` when the filter ends
    /// the scan ([`RowVerdict::Stop`]); empty when it leaves the row out.
    pub(super) fn read_filtered(
        &self,
        key: &[u8],
        spec: &ReadSpec,
        filter: &Filter,
        state: &mut FilterState,
        now: i64,
    ) -> Option<Vec<Cell>> {
        let cells = self.read_versions(key, spec, usize::MAX, now);
        if cells.is_empty() {
            return Some(cells);
        }
        match filter.apply_versions(state, key, cells, spec.max_versions()) {
            RowVerdict::Keep(cells) => Some(cells),
            RowVerdict::Skip => Some(Vec::new()),
            RowVerdict::Stop => None,
        }
    }

    /// The first row key strictly after (`reversed`: before) `from`, or at `from` itself
    /// when `inclusive`; `None` at the end of the table.
    pub(super) fn next_key(
        &self,
        from: Option<&[u8]>,
        inclusive: bool,
        reversed: bool,
    ) -> Option<&[u8]> {
        let bound = |k| {
            if inclusive {
                Bound::Included(k)
            } else {
                Bound::Excluded(k)
            }
        };
        let key = match (from, reversed) {
            (None, false) => self.rows.keys().next(),
            (None, true) => self.rows.keys().next_back(),
            (Some(k), false) => self
                .rows
                .range::<[u8], _>((bound(k), Bound::Unbounded))
                .next()
                .map(|(k, _)| k),
            (Some(k), true) => self
                .rows
                .range::<[u8], _>((Bound::Unbounded, bound(k)))
                .next_back()
                .map(|(k, _)| k),
        };
        key.map(Vec::as_slice)
    }

    /// Checks a put: its families exist.
    fn check_put(&self, method: Method, put: &Put) -> Result<()> {
        if put.visibility.is_some() {
            return Err(errors::no_labels(method));
        }
        self.require_families(method, put.cells.iter().map(|c| &c.family[..]))
    }

    /// Checks a delete: the families its targets name exist.
    fn check_delete(&self, method: Method, delete: &Delete) -> Result<()> {
        if delete.visibility.is_some() {
            return Err(errors::no_labels(method));
        }
        self.require_families(
            method,
            delete.targets.iter().map(|t| match t {
                DeleteTarget::Family(f)
                | DeleteTarget::Column(f, _)
                | DeleteTarget::LatestVersion(f, _)
                | DeleteTarget::Version(f, _, _) => f.as_slice(),
            }),
        )
    }

    /// Checks every mutation of a row mutation.
    fn check_mutations(&self, method: Method, mutations: &RowMutations) -> Result<()> {
        if mutations.mutations.is_empty() {
            return Err(Error::Server {
                method,
                message: "the gateway failed the call (InternalError): Internal error processing \
                          mutateRow (a row mutation needs at least one mutation)"
                    .into(),
                can_retry: false,
            });
        }
        mutations.mutations.iter().try_for_each(|m| match m {
            Mutation::Put(p) => self.check_put(method, p),
            Mutation::Delete(d) => self.check_delete(method, d),
        })
    }

    /// The row `key`, created empty if missing.
    fn row_mut(&mut self, key: &[u8]) -> &mut RowData {
        self.rows.entry(key.to_vec()).or_default()
    }

    /// Writes a checked put; cells without a timestamp get the put's or `now`.
    fn apply_put(&mut self, put: &Put, now: i64) {
        let ttl_ms = put
            .ttl
            .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
        for cell in &put.cells {
            let ts = cell.timestamp.or(put.timestamp).unwrap_or(now);
            let rules = self.rules(&cell.family);
            let expires_at = ttl_ms.map(|ttl| ts.saturating_add(ttl));
            self.row_mut(&put.row).put(
                &cell.family,
                &cell.qualifier,
                ts,
                cell.value.to_vec(),
                expires_at,
                rules,
            );
        }
    }

    /// Applies a checked delete: markers at `now` unless the delete says otherwise.
    fn apply_delete(&mut self, delete: &Delete, now: i64) {
        if delete.targets.is_empty() {
            let ts = delete.timestamp.unwrap_or(now);
            let families: Vec<(Vec<u8>, FamilyRules)> = self
                .descriptor
                .families
                .iter()
                .map(|f| (f.name.clone().into_bytes(), FamilyRules::of(f)))
                .collect();
            let row = self.row_mut(&delete.row);
            for (family, rules) in families {
                row.delete_family(&family, ts, rules);
            }
        }
        for target in &delete.targets {
            self.apply_target(&delete.row, target, now);
        }
        if self.rows.get(&delete.row).is_some_and(RowData::is_void) {
            self.rows.remove(&delete.row);
        }
    }

    /// Applies one delete target to row `key`.
    fn apply_target(&mut self, key: &[u8], target: &DeleteTarget, now: i64) {
        match target {
            DeleteTarget::Family(f) => {
                let rules = self.rules(f);
                self.row_mut(key).delete_family(f, now, rules);
            }
            DeleteTarget::Column(f, q) => {
                let rules = self.rules(f);
                self.row_mut(key).mark_column(f, q, UpTo(now), rules);
            }
            DeleteTarget::Version(f, q, ts) => {
                let rules = self.rules(f);
                self.row_mut(key).mark_column(f, q, Exactly(*ts), rules);
            }
            DeleteTarget::LatestVersion(f, q) => {
                let rules = self.rules(f);
                // Nothing to delete: HBase still writes the marker, at the current time.
                let ts = self
                    .rows
                    .get(key)
                    .and_then(|r| r.latest(f, q, rules, now))
                    .map_or(now, |(ts, _)| ts);
                self.row_mut(key).mark_column(f, q, Exactly(ts), rules);
            }
        }
    }

    /// Writes several puts, all checked first.
    pub(super) fn put_all(&mut self, method: Method, puts: &[Put], now: i64) -> Result<()> {
        puts.iter().try_for_each(|p| self.check_put(method, p))?;
        puts.iter().for_each(|p| self.apply_put(p, now));
        Ok(())
    }

    /// Applies several deletes, all checked first.
    pub(super) fn delete_all(
        &mut self,
        method: Method,
        deletes: &[Delete],
        now: i64,
    ) -> Result<()> {
        deletes
            .iter()
            .try_for_each(|d| self.check_delete(method, d))?;
        deletes.iter().for_each(|d| self.apply_delete(d, now));
        Ok(())
    }

    /// Applies puts and deletes to one row in order, all checked first.
    pub(super) fn mutate(
        &mut self,
        method: Method,
        mutations: &RowMutations,
        now: i64,
    ) -> Result<()> {
        self.check_mutations(method, mutations)?;
        for m in &mutations.mutations {
            match m {
                Mutation::Put(p) => self.apply_put(p, now),
                Mutation::Delete(d) => self.apply_delete(d, now),
            }
        }
        Ok(())
    }

    /// Whether the check of a check-and-mutate passes, as HBase decides it: the given value
    /// is compared with the newest stored one as `given <op> stored`, byte-wise; an absent or
    /// empty given value tests for an absent (or empty) cell, `NotEqual` for a present one.
    fn check_passes(&self, cam: &CheckAndMutate, now: i64) -> bool {
        let rules = self.rules(&cam.family);
        let stored = self
            .rows
            .get(&cam.row)
            .and_then(|r| r.latest(&cam.family, &cam.qualifier, rules, now))
            .map(|(_, v)| v);
        let given = cam.value.as_deref().unwrap_or_default();
        if given.is_empty() {
            let absent = stored.is_none_or(<[u8]>::is_empty);
            return absent == (cam.op != CompareOp::NotEqual);
        }
        let Some(stored) = stored else {
            return false;
        };
        let order = given.cmp(stored);
        match cam.op {
            CompareOp::Less => order.is_lt(),
            CompareOp::LessOrEqual => order.is_le(),
            CompareOp::Equal => order.is_eq(),
            CompareOp::NotEqual => order.is_ne(),
            CompareOp::GreaterOrEqual => order.is_ge(),
            CompareOp::Greater => order.is_gt(),
        }
    }

    /// Applies the mutations if the check passes; whether it passed. The checked family must
    /// exist; the mutations are checked only when they are applied, as HBase does.
    pub(super) fn check_and_mutate(&mut self, cam: &CheckAndMutate, now: i64) -> Result<bool> {
        let method = "checkAndMutate";
        self.require_families(method, [cam.family.as_slice()])?;
        if !self.check_passes(cam, now) {
            return Ok(false);
        }
        self.mutate(method, &cam.mutations, now)?;
        Ok(true)
    }

    /// The timestamp of a version written over the newest one at `previous`: now, or just
    /// after it when it lies in the future (so the new value is the newest).
    fn successor_stamp(previous: Option<i64>, now: i64) -> i64 {
        previous.map_or(now, |p| now.max(p.saturating_add(1)))
    }

    /// Adds to counters atomically (every column checked first); the new values.
    pub(super) fn increment(&mut self, inc: &Increment, now: i64) -> Result<Row> {
        let method = "increment";
        self.require_families(method, inc.columns.iter().map(|(f, _, _)| f.as_slice()))?;
        let mut updates: Updates<i64> = BTreeMap::new();
        for (family, qualifier, amount) in &inc.columns {
            let key = (family.clone(), qualifier.clone());
            let current = match updates.get(&key) {
                Some(&(value, ts)) => (value, ts),
                None => self.counter(&inc.row, family, qualifier, now)?,
            };
            updates.insert(key, (current.0.wrapping_add(*amount), current.1));
        }
        let values = updates
            .into_iter()
            .map(|(column, (value, previous))| (column, (value.to_be_bytes().to_vec(), previous)))
            .collect();
        Ok(self.write_results(&inc.row, values, now))
    }

    /// The current value of a counter (0 if absent) and the timestamp of its newest version.
    fn counter(
        &self,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        now: i64,
    ) -> Result<(i64, Option<i64>)> {
        let rules = self.rules(family);
        let Some((ts, value)) = self
            .rows
            .get(row)
            .and_then(|r| r.latest(family, qualifier, rules, now))
        else {
            return Ok((0, None));
        };
        let bytes: [u8; 8] = value.try_into().map_err(|_| {
            errors::not_a_counter(&self.descriptor.name, row, family, qualifier, value.len())
        })?;
        Ok((i64::from_be_bytes(bytes), Some(ts)))
    }

    /// Appends to cells atomically (every family checked first); the new values.
    pub(super) fn append(&mut self, append: &Append, now: i64) -> Result<Row> {
        self.require_families(
            "append",
            append.columns.iter().map(|(f, _, _)| f.as_slice()),
        )?;
        let mut updates: Updates<Vec<u8>> = BTreeMap::new();
        for (family, qualifier, tail) in &append.columns {
            let key = (family.clone(), qualifier.clone());
            let entry = updates.entry(key).or_insert_with(|| {
                let rules = self.rules(family);
                self.rows
                    .get(&append.row)
                    .and_then(|r| r.latest(family, qualifier, rules, now))
                    .map_or((Vec::new(), None), |(ts, v)| (v.to_vec(), Some(ts)))
            });
            entry.0.extend_from_slice(tail);
        }
        Ok(self.write_results(&append.row, updates, now))
    }

    /// Writes the new values of an increment or append and returns them as a row, in
    /// HBase's order.
    fn write_results(&mut self, key: &[u8], values: Updates<Vec<u8>>, now: i64) -> Row {
        let mut row = Row::empty(key.to_vec());
        for ((family, qualifier), (value, previous)) in values {
            let ts = Self::successor_stamp(previous, now);
            let rules = self.rules(&family);
            self.row_mut(key)
                .put(&family, &qualifier, ts, value.clone(), None, rules);
            row.cells.push(Cell {
                family: family.into(),
                qualifier: qualifier.into(),
                value: value.into(),
                timestamp: ts,
            });
        }
        row
    }
}
