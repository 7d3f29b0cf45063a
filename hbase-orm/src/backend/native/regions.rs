//! Regions: what `hbase:meta` says about them, and the client's cache of where they are.
//!
//! Each region has a row in `hbase:meta` whose key is the region's name
//! (`table,start key,region id.encoded name.`), with its `RegionInfo` (after `PBUF`) in
//! `info:regioninfo` and its server's `host:port` in `info:server`. Meta sorts rows by table,
//! then start key, then region id (not byte by byte), so a reversed scan from
//! `table,row,99999999999999` finds the region whose start is the largest not above `row`,
//! and one from `table,row,` the region before the one starting at `row`.
//!
//! A table with region replicas has one meta row per region too: the secondary replica `N`'s
//! server is in `info:server_000N` (`N` in four hex digits). Its name is the primary's with
//! `_000N` after the region id, and a new encoded name: the MD5 (in hex) of the name up to
//! there (`table,start key,region id_000N.md5.`).

use std::collections::{BTreeMap, HashMap};
use std::ops::Bound;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use prost::Message;

use super::proto;
use crate::model::{Row, TableName};

/// The name of the meta region, the same in every cluster.
pub(crate) const META_REGION: &[u8] = b"hbase:meta,,1";

/// One region of a table, and the server holding it when it was looked up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Region {
    /// Its name, as requests name it.
    pub(crate) name: Bytes,
    /// First row key it holds.
    pub(crate) start: Vec<u8>,
    /// First row key it does not hold; empty for the table's last region.
    pub(crate) end: Vec<u8>,
    /// Its id (the time it was made).
    pub(crate) id: i64,
    /// The `host:port` of its region server.
    pub(crate) server: String,
    /// Its secondary replicas that are assigned to a server, by replica id (for the primary;
    /// a secondary's own list is empty).
    pub(crate) replicas: Vec<Region>,
}

impl Region {
    /// Whether `row` lies in the region.
    pub(crate) fn holds(&self, row: &[u8]) -> bool {
        row >= &self.start[..] && (self.end.is_empty() || row < &self.end[..])
    }

    /// The region specifier that names it in a request.
    pub(crate) fn specifier(&self) -> proto::RegionSpecifier {
        specifier(self.name.clone())
    }
}

/// A request's name for the region called `name`.
pub(crate) fn specifier(name: Bytes) -> proto::RegionSpecifier {
    proto::RegionSpecifier {
        r#type: proto::region_specifier::RegionSpecifierType::RegionName as i32,
        value: name,
    }
}

/// The table's name as meta writes it (`name` in the default namespace, `ns:name` elsewhere).
pub(crate) fn meta_table_name(table: &TableName) -> String {
    if table.namespace == "default" {
        table.name.clone()
    } else {
        format!("{}:{}", table.namespace, table.name)
    }
}

/// The meta key a reversed scan starts from to find the region holding `row`.
pub(crate) fn search_key_holding(table: &TableName, row: &[u8]) -> Vec<u8> {
    let mut key = meta_table_name(table).into_bytes();
    key.push(b',');
    key.extend_from_slice(row);
    key.extend_from_slice(b",99999999999999");
    key
}

/// The meta key a reversed scan starts from to find the region just before the one that
/// starts at `start` (not empty).
pub(crate) fn search_key_before(table: &TableName, start: &[u8]) -> Vec<u8> {
    let mut key = meta_table_name(table).into_bytes();
    key.push(b',');
    key.extend_from_slice(start);
    key.push(b',');
    key
}

/// The first meta key of the table's rows (a forward scan from it reads them in order).
pub(crate) fn first_key_of(table: &TableName) -> Vec<u8> {
    let mut key = meta_table_name(table).into_bytes();
    key.extend_from_slice(b",,");
    key
}

/// What a meta row says of its region.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum MetaRow {
    /// A region of another table (the search ran past the table's rows).
    OtherTable,
    /// A region being split or merged away, or not assigned to a server yet: ask again soon.
    NotReady(String),
    /// An online region.
    Online(Region),
}

/// Reads a meta row of `table`.
pub(crate) fn read_meta_row(table: &TableName, row: &Row) -> Result<MetaRow, String> {
    let Some(info) = row.value("info", "regioninfo") else {
        return Err(format!(
            "meta row {:?} has no info:regioninfo",
            String::from_utf8_lossy(&row.key)
        ));
    };
    let info = info
        .strip_prefix(b"PBUF")
        .ok_or("info:regioninfo does not start with PBUF")?;
    let info = proto::RegionInfo::decode(info)
        .map_err(|e| format!("info:regioninfo does not decode: {e}"))?;
    let name = &info.table_name;
    if name.namespace[..] != *table.namespace.as_bytes()
        || name.qualifier[..] != *table.name.as_bytes()
    {
        return Ok(MetaRow::OtherTable);
    }
    let key = String::from_utf8_lossy(&row.key).into_owned();
    if info.offline.unwrap_or(false) || info.split.unwrap_or(false) {
        return Ok(MetaRow::NotReady(format!(
            "region {key} is offline (split or merged)"
        )));
    }
    let Some(server) = row.value("info", "server").filter(|s| !s.is_empty()) else {
        return Ok(MetaRow::NotReady(format!(
            "region {key} is not assigned to a server yet"
        )));
    };
    let mut region = Region {
        name: Bytes::copy_from_slice(&row.key),
        start: info.start_key.map(|k| k.to_vec()).unwrap_or_default(),
        end: info.end_key.map(|k| k.to_vec()).unwrap_or_default(),
        id: info.region_id as i64,
        server: String::from_utf8_lossy(server).into_owned(),
        replicas: Vec::new(),
    };
    region.replicas = secondaries(&region, row);
    Ok(MetaRow::Online(region))
}

/// The secondary replicas of `primary` that its meta `row` places on a server, by replica id.
fn secondaries(primary: &Region, row: &Row) -> Vec<Region> {
    let mut replicas: Vec<(u16, Region)> = row
        .cells
        .iter()
        .filter(|c| &c.family[..] == b"info" && !c.value.is_empty())
        .filter_map(|c| {
            let id = c.qualifier.strip_prefix(b"server_")?;
            let id = u16::from_str_radix(std::str::from_utf8(id).ok()?, 16).ok()?;
            (id > 0).then(|| {
                let replica = Region {
                    name: replica_name(&primary.name, id),
                    server: String::from_utf8_lossy(&c.value).into_owned(),
                    replicas: Vec::new(),
                    ..primary.clone()
                };
                (id, replica)
            })
        })
        .collect();
    replicas.sort_by_key(|(id, _)| *id);
    replicas.dedup_by_key(|(id, _)| *id);
    replicas.into_iter().map(|(_, r)| r).collect()
}

/// The name of replica `id` of the region called `primary` (HBase's
/// `RegionInfo.createRegionName` with a replica id): the primary's name without its encoded
/// part, `_` and the id in four hex digits, and, when the primary's name has an encoded part,
/// the replica's own (the MD5 in hex of what precedes it) between dots.
pub(crate) fn replica_name(primary: &[u8], id: u16) -> Bytes {
    use md5::Digest;
    use std::io::Write;
    let (base, encoded) = crate::backend::region_name::without_encoded(primary);
    let mut name = base.to_vec();
    // Writing into a Vec cannot fail.
    let _ = write!(name, "_{id:04X}");
    if encoded {
        let hash = md5::Md5::digest(&name);
        name.push(b'.');
        for byte in hash {
            let _ = write!(name, "{byte:02x}");
        }
        name.push(b'.');
    }
    Bytes::from(name)
}

/// Where the client last found each table's regions. Regions that overlap a newly found one
/// (the parent of a split, the halves of a merge) are dropped as it comes in.
#[derive(Default)]
pub(crate) struct RegionCache {
    tables: Mutex<HashMap<TableName, ByStart>>,
}

/// A table's cached regions by start key.
type ByStart = BTreeMap<Vec<u8>, Arc<Region>>;

impl RegionCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<TableName, ByStart>> {
        self.tables.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The cached region of `table` holding `row`.
    pub(crate) fn find(&self, table: &TableName, row: &[u8]) -> Option<Arc<Region>> {
        let tables = self.lock();
        let up_to_row = (Bound::Unbounded, Bound::Included(row));
        let (_, region) = tables.get(table)?.range::<[u8], _>(up_to_row).next_back()?;
        region.holds(row).then(|| region.clone())
    }

    /// The cached region of `table` that ends where `start` begins (the one before it).
    pub(crate) fn find_before(&self, table: &TableName, start: &[u8]) -> Option<Arc<Region>> {
        let tables = self.lock();
        let before_start = (Bound::Unbounded, Bound::Excluded(start));
        let (_, region) = tables
            .get(table)?
            .range::<[u8], _>(before_start)
            .next_back()?;
        (region.end == start).then(|| region.clone())
    }

    /// Remembers `region`, dropping the cached regions of its table it overlaps. The cached
    /// regions never overlap one another, so those it overlaps are the one before its start
    /// (if that one reaches past it) and those that start inside it: found by key, in
    /// logarithmic time, however many regions the table has.
    pub(crate) fn insert(&self, table: &TableName, region: Arc<Region>) {
        let mut tables = self.lock();
        let regions = tables.entry(table.clone()).or_default();
        let start: &[u8] = &region.start;
        let mut overlapping: Vec<Vec<u8>> = Vec::new();
        if let Some((key, before)) = regions
            .range::<[u8], _>((Bound::Unbounded, Bound::Excluded(start)))
            .next_back()
        {
            if before.end.is_empty() || before.end.as_slice() > start {
                overlapping.push(key.clone());
            }
        }
        let inside = match region.end.is_empty() {
            true => (Bound::Included(start), Bound::Unbounded),
            false => (Bound::Included(start), Bound::Excluded(&region.end[..])),
        };
        overlapping.extend(regions.range::<[u8], _>(inside).map(|(key, _)| key.clone()));
        for key in overlapping {
            regions.remove(&key);
        }
        regions.insert(region.start.clone(), region);
    }

    /// Forgets `region` (it moved, or its server failed).
    pub(crate) fn forget(&self, table: &TableName, region: &Region) {
        if let Some(regions) = self.lock().get_mut(table) {
            if regions
                .get(&region.start)
                .is_some_and(|r| r.name == region.name)
            {
                regions.remove(&region.start);
            }
        }
    }

    /// Forgets every region on `server`.
    pub(crate) fn forget_server(&self, server: &str) {
        for regions in self.lock().values_mut() {
            regions.retain(|_, r| r.server != server);
        }
    }

    /// Forgets every region of `table` (it was dropped, truncated or re-created).
    pub(crate) fn forget_table(&self, table: &TableName) {
        self.lock().remove(table);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(start: &str, end: &str, server: &str) -> Arc<Region> {
        Arc::new(Region {
            name: Bytes::from(format!("t,{start},1.")),
            start: start.into(),
            end: end.into(),
            id: 1,
            server: server.into(),
            replicas: Vec::new(),
        })
    }

    /// Inserting by key drops exactly the cached regions a new one overlaps: the same as
    /// checking every cached region, over any sequence of regions found.
    #[test]
    fn an_insert_drops_exactly_the_overlapping_regions() {
        use proptest::prelude::*;
        let bound = proptest::sample::select(vec!["", "b", "d", "f", "h", "k", "m", "p"]);
        let found = proptest::collection::vec((bound.clone(), bound), 1..24);
        proptest::proptest!(|(found in found)| {
            let t = TableName::new("default", "t");
            let cache = RegionCache::default();
            let mut model: Vec<Arc<Region>> = Vec::new();
            for (i, (a, b)) in found.iter().enumerate() {
                // A region [start, end): `end` empty for the table's end.
                let (start, end) = match (*a, *b) {
                    (a, "") => (a, ""),
                    (a, b) if a < b => (a, b),
                    (a, b) if b < a && !b.is_empty() => (b, a),
                    _ => continue,
                };
                let new = region(start, end, &format!("s{i}:1"));
                model.retain(|r| {
                    let starts_before_end = new.end.is_empty() || r.start < new.end;
                    let ends_after_start = r.end.is_empty() || r.end > new.start;
                    !(starts_before_end && ends_after_start)
                });
                model.push(new.clone());
                cache.insert(&t, new);
                let mut want: Vec<(Vec<u8>, String)> =
                    model.iter().map(|r| (r.start.clone(), r.server.clone())).collect();
                want.sort();
                let tables = cache.lock();
                let have: Vec<(Vec<u8>, String)> = tables[&t]
                    .values()
                    .map(|r| (r.start.clone(), r.server.clone()))
                    .collect();
                prop_assert_eq!(have, want);
            }
        });
    }

    #[test]
    fn the_cache_finds_the_holder_and_drops_what_a_new_region_overlaps() {
        let t = TableName::new("default", "t");
        let cache = RegionCache::default();
        cache.insert(&t, region("", "m", "a:1"));
        cache.insert(&t, region("m", "", "b:1"));
        assert_eq!(cache.find(&t, b"c").unwrap().server, "a:1");
        assert_eq!(cache.find(&t, b"m").unwrap().server, "b:1");
        assert_eq!(cache.find(&t, b"zzz").unwrap().server, "b:1");
        assert_eq!(cache.find_before(&t, b"m").unwrap().server, "a:1");
        // A split of [m, end) into [m, t) and [t, end): the parent goes.
        cache.insert(&t, region("t", "", "c:1"));
        assert!(
            cache.find(&t, b"n").is_none(),
            "the parent overlapped the half"
        );
        assert_eq!(cache.find(&t, b"u").unwrap().server, "c:1");
        cache.forget_server("a:1");
        assert!(cache.find(&t, b"c").is_none());
        cache.forget_table(&t);
        assert!(cache.find(&t, b"u").is_none());
    }

    #[test]
    fn a_replica_s_name_is_hbase_s() {
        // The primary `orders,,1700000000000.<MD5 of that>.`; the MD5s worked out apart.
        let primary = b"orders,,1700000000000.8bdf7aeb78389f57428bb7b5b424c0ce.";
        assert_eq!(
            &replica_name(primary, 1)[..],
            b"orders,,1700000000000_0001.dafe7bf977bd8b12f7c47c544d69da14."
        );
        // An old-format name (no encoded part) gets none.
        assert_eq!(
            &replica_name(b"hbase:meta,,1", 10)[..],
            b"hbase:meta,,1_000A"
        );
    }

    #[test]
    fn a_meta_row_names_the_secondaries_that_are_placed() {
        let t = TableName::new("default", "orders");
        let info = proto::RegionInfo {
            region_id: 1_700_000_000_000,
            table_name: proto::TableName {
                namespace: Bytes::from_static(b"default"),
                qualifier: Bytes::from_static(b"orders"),
            },
            start_key: None,
            end_key: Some(Bytes::from_static(b"m")),
            ..Default::default()
        };
        let cell = |q: &str, v: &[u8]| crate::model::Cell {
            family: Bytes::from_static(b"info"),
            qualifier: Bytes::copy_from_slice(q.as_bytes()),
            value: Bytes::copy_from_slice(v),
            timestamp: 1,
        };
        let row = Row::new(
            b"orders,,1700000000000.8bdf7aeb78389f57428bb7b5b424c0ce.".to_vec(),
            vec![
                cell(
                    "regioninfo",
                    &[b"PBUF".to_vec(), info.encode_to_vec()].concat(),
                ),
                cell("server", b"a:1"),
                // Replica 2 before 1 in the row: they come out by id.
                cell("server_0002", b"c:1"),
                cell("server_0001", b"b:1"),
                // Replica 3 is not placed; a column that only looks like one is ignored.
                cell("server_0003", b""),
                cell("server_zzzz", b"d:1"),
                cell("serverstartcode_0001", b"123"),
            ],
        );
        let MetaRow::Online(region) = read_meta_row(&t, &row).unwrap() else {
            panic!("online");
        };
        assert_eq!(region.server, "a:1");
        let replicas: Vec<(&str, &[u8])> = region
            .replicas
            .iter()
            .map(|r| (r.server.as_str(), &r.name[..]))
            .collect();
        assert_eq!(
            replicas,
            [
                (
                    "b:1",
                    &b"orders,,1700000000000_0001.dafe7bf977bd8b12f7c47c544d69da14."[..]
                ),
                ("c:1", &replica_name(&row.key, 2)[..]),
            ]
        );
        assert!(region
            .replicas
            .iter()
            .all(|r| r.end == b"m" && r.replicas.is_empty()));
    }

    #[test]
    fn meta_keys_follow_hbase_s_layout() {
        let t = TableName::new("shop", "orders");
        assert_eq!(
            search_key_holding(&t, b"r1"),
            b"shop:orders,r1,99999999999999"
        );
        assert_eq!(search_key_before(&t, b"m"), b"shop:orders,m,");
        let d = TableName::new("default", "t");
        assert_eq!(first_key_of(&d), b"t,,");
    }
}
