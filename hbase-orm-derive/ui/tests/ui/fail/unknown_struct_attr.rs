use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "orders", family = "d", tabel_prefix = "x")]
struct Order {
    #[hbase(key)]
    id: u64,
    total: f64,
}

fn main() {}
