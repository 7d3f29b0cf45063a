use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(family = "d")]
struct Order {
    #[hbase(key)]
    id: u64,
    total: f64,
}

fn main() {}
