// `key(reversed)` stores text back to front: one message at a non-text type.
use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "hosts", family = "d")]
struct Host {
    #[hbase(key(reversed))]
    address: u32,
    name: String,
}

fn main() {}
