// A private entity whose key struct and prefix functions go unused compiles without warnings
// (no dead-code noise from generated items).
#![deny(warnings)]

use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "orders", family = "d", key_delimiter = '|')]
struct Order {
    #[hbase(key)]
    customer: String,
    #[hbase(key)]
    number: u64,
    total: f64,
}

fn main() {
    let o = Order {
        customer: "c".into(),
        number: 1,
        total: 1.0,
    };
    assert_eq!(o.to_put().unwrap().cells.len(), 1);
}
