use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "orders", family = "d")]
struct Order {
    #[hbase(key, family = "k")]
    id: u64,
    total: f64,
}

fn main() {}
