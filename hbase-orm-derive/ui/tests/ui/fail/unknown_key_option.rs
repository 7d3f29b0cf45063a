use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "orders", family = "d")]
struct Order {
    #[hbase(key(fixd = 8))]
    code: String,
    total: f64,
}

fn main() {}
