use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "orders", family = "d")]
struct Order {
    #[hbase(key)]
    id: u64,
    #[hbase(key, skip)]
    shard: u8,
    total: f64,
}

fn main() {}
