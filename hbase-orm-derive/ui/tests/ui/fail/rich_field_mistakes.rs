// Misuse of `versions`, `wide`, `counter`, `version` and `key_codec`.
use std::collections::BTreeMap;

use hbase_orm::{HBaseEntity, Versions};

#[derive(HBaseEntity)]
#[hbase(table = "a", family = "d", family_options(d(max_versions = 3)))]
struct Mistakes {
    #[hbase(key)]
    id: u64,
    #[hbase(versions = 10)]
    too_many_for_family: Versions<u64>,
    #[hbase(versions = 2)]
    not_versions: u64,
    #[hbase(versions = 0, family = "x")]
    zero: Versions<u64>,
    #[hbase(family = "w", wide)]
    not_a_map: Vec<u8>,
    #[hbase(counter, version)]
    both: i64,
    #[hbase(counter)]
    optional_counter: Option<i64>,
    #[hbase(key_codec = Foo)]
    plain: String,
}

#[derive(HBaseEntity)]
#[hbase(table = "b", family = "d")]
struct Crowded {
    #[hbase(key)]
    id: u64,
    #[hbase(wide)]
    roles: BTreeMap<u32, String>,
    name: String,
    #[hbase(version, family = "v")]
    rev: u64,
    #[hbase(version, family = "v", rename = "r2")]
    rev2: u64,
}

fn main() {}
