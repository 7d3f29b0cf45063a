// Every attribute mistake in one struct is reported in the same build.
use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "", key_delimiter = 'é')]
struct Order {
    #[hbase(key(fixed = 0))]
    code: String,
    #[hbase(key)]
    shard: Option<u8>,
    #[hbase(family = "d:x")]
    total: f64,
    #[hbase(family = "d")]
    notes: Option<String>,
    #[hbase(family = "d", rename = "notes")]
    remarks: String,
    #[hbase(skip, json)]
    cache: Vec<u8>,
}

fn main() {}
