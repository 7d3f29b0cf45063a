use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "orders", family = "d")]
struct Order(#[hbase(key)] u64, f64);

fn main() {}
