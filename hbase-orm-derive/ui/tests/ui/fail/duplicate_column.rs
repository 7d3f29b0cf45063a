use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "orders", family = "d")]
struct Order {
    #[hbase(key)]
    id: u64,
    total: f64,
    #[hbase(rename = "total")]
    gross: f64,
}

fn main() {}
