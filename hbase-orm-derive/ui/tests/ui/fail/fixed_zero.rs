use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "orders", family = "d")]
struct Order {
    #[hbase(key(fixed = 0))]
    code: String,
    total: f64,
}

fn main() {}
