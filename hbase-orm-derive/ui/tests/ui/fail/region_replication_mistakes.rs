// `region_replication` takes an integer 1 to 65536: zero, a negative number, too many, a
// fraction, a string, a name and no value at all are each reported at the value.
use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "a", family = "d", region_replication = 0)]
struct Zero {
    #[hbase(key)]
    id: u64,
}

#[derive(HBaseEntity)]
#[hbase(table = "b", family = "d", region_replication = -2)]
struct Negative {
    #[hbase(key)]
    id: u64,
}

#[derive(HBaseEntity)]
#[hbase(table = "c", family = "d", region_replication = 65537)]
struct TooMany {
    #[hbase(key)]
    id: u64,
}

#[derive(HBaseEntity)]
#[hbase(table = "d", family = "d", region_replication = 2.5)]
struct Fraction {
    #[hbase(key)]
    id: u64,
}

#[derive(HBaseEntity)]
#[hbase(table = "e", family = "d", region_replication = "3")]
struct Text {
    #[hbase(key)]
    id: u64,
}

#[derive(HBaseEntity)]
#[hbase(table = "f", family = "d", region_replication = three)]
struct Name {
    #[hbase(key)]
    id: u64,
}

#[derive(HBaseEntity)]
#[hbase(table = "g", family = "d", region_replication)]
struct Bare {
    #[hbase(key)]
    id: u64,
}

fn main() {}
