// Misuse of `flatten`, `children`, `prefix` and `#[derive(HBaseColumns)]`.
use hbase_orm::{HBaseColumns, HBaseEntity};

#[derive(HBaseColumns)]
struct Address {
    #[hbase(key)]
    city: String,
    #[hbase(family = "x")]
    zip: String,
    #[hbase(prefix = "p_")]
    street: String,
    #[hbase(rename = "zip")]
    zip2: String,
    #[hbase(colour)]
    name: String,
}

#[derive(HBaseColumns)]
enum NotAStruct {
    A,
}

#[derive(HBaseEntity)]
#[hbase(table = "orders", family = "d")]
struct Order {
    #[hbase(key)]
    id: u64,
    #[hbase(flatten, prefix = "ship_", json)]
    ship: Address,
    ship_name: String,
    #[hbase(family = "i", children)]
    items: Address,
    #[hbase(prefix = "x_")]
    note: String,
}

fn main() {}
