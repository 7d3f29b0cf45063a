// Every misuse of `salt(...)`: no buckets, a hash over parts that are not the leading ones,
// hash and modulo together, a modulo part that does not exist, an unknown option.
use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "a", family = "d", salt(buckets = 0))]
struct NoBuckets {
    #[hbase(key)]
    id: u64,
}

#[derive(HBaseEntity)]
#[hbase(table = "b", family = "d", salt(buckets = 8, hash = "order"))]
struct NotLeading {
    #[hbase(key)]
    customer: u64,
    #[hbase(key)]
    order: u64,
}

#[derive(HBaseEntity)]
#[hbase(table = "c", family = "d", salt(buckets = 8, hash = "ts", modulo = "ts"))]
struct Both {
    #[hbase(key)]
    ts: i64,
}

#[derive(HBaseEntity)]
#[hbase(table = "d", family = "d", salt(buckets = 8, modulo = "time", bucket = 3))]
struct NoSuchPart {
    #[hbase(key)]
    ts: i64,
}

fn main() {}
