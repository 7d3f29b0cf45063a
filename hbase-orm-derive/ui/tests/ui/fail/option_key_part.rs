use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "orders", family = "d")]
struct Order {
    #[hbase(key)]
    id: Option<u64>,
    total: f64,
}

fn main() {}
