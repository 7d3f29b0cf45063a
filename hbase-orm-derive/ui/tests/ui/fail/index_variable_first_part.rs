// An index whose first part has a variable length needs the entity's key delimiter: the
// message names the index and the delimiter the row-key docs recommend.
use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "devices", family = "d", index(name = "by_label", parts = "label, id"))]
struct Device {
    #[hbase(key)]
    id: u64,
    label: String,
}

fn main() {}
