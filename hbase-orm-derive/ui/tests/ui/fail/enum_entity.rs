use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "orders", family = "d")]
enum Order {
    Open { id: u64 },
    Closed { id: u64 },
}

fn main() {}
