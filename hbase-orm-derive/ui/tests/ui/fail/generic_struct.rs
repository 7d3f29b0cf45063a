use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "orders", family = "d")]
struct Order<T> {
    #[hbase(key)]
    id: u64,
    total: T,
}

fn main() {}
