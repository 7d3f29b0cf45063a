// `key(reverse_timestamp)` takes an i64 of milliseconds: one message at the type.
use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "readings", family = "d", key_delimiter = '\0')]
struct Reading {
    #[hbase(key)]
    device: String,
    #[hbase(key(reverse_timestamp))]
    ts: u64,
    value: f64,
}

fn main() {}
