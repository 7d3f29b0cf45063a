use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "orders")]
struct Order {
    #[hbase(key)]
    id: u64,
    #[hbase(family = "d")]
    total: f64,
    notes: Option<String>,
}

fn main() {}
