// The other comma-separated lists in a string: `salt(hash = ...)` and `extra_families` name
// the part at fault and its place in the list.
use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "orders", family = "d", salt(buckets = 8, hash = "customer, ordr"))]
struct Order {
    #[hbase(key)]
    customer: u64,
    #[hbase(key)]
    order: u64,
    total: i64,
}

#[derive(HBaseEntity)]
#[hbase(table = "devices", family = "d", extra_families = "audit, raw:x")]
struct Device {
    #[hbase(key)]
    id: u64,
    label: String,
}

fn main() {}
