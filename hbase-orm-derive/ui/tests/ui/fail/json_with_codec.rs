use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "orders", family = "d")]
struct Order {
    #[hbase(key)]
    id: u64,
    #[hbase(json, codec = hbase_orm::Native)]
    lines: Vec<String>,
}

fn main() {}
