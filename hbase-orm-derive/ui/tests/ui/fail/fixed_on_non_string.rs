use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "orders", family = "d")]
struct Order {
    #[hbase(key(fixed = 4))]
    id: u32,
    total: f64,
}

fn main() {}
