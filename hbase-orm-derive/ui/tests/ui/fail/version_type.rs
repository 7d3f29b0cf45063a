// An optimistic version is a u64: the field says so at its type.
use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "devices", family = "d")]
struct Device {
    #[hbase(key)]
    id: u64,
    #[hbase(version)]
    rev: String,
}

fn main() {}
