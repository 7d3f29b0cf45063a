use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "orders", family = "d")]
struct Order {
    #[hbase(key)]
    customer: String,
    #[hbase(key)]
    number: u64,
    total: f64,
}

fn main() {}
