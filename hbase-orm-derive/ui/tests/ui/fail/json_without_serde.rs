use hbase_orm::HBaseEntity;

struct Line {
    sku: String,
}

#[derive(HBaseEntity)]
#[hbase(table = "orders", family = "d")]
struct Order {
    #[hbase(key)]
    id: u64,
    #[hbase(json)]
    lines: Vec<Line>,
}

fn main() {}
