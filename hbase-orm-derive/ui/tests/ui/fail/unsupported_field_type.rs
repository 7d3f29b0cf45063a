use hbase_orm::HBaseEntity;

struct Money {
    cents: i64,
}

#[derive(HBaseEntity)]
#[hbase(table = "orders", family = "d")]
struct Order {
    #[hbase(key)]
    id: u64,
    total: Money,
}

fn main() {}
