// A counter is HBase's 8-byte counter cell: the field says so at its type.
use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "devices", family = "d")]
struct Device {
    #[hbase(key)]
    id: u64,
    #[hbase(counter)]
    messages: String,
}

fn main() {}
