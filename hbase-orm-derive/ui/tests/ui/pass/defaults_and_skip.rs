// `default`, `default = "path"` and `skip`.
#![deny(warnings)]

use hbase_orm::HBaseEntity;

mod defaults {
    pub fn currency() -> String {
        "EUR".to_string()
    }
}

fn one() -> u32 {
    1
}

#[derive(HBaseEntity, Debug, PartialEq)]
#[hbase(table = "orders", family = "d")]
struct Order {
    #[hbase(key)]
    id: u64,
    #[hbase(default)]
    flags: u32,
    #[hbase(default = "defaults::currency")]
    currency: String,
    #[hbase(default = "one", rename = "q")]
    quantity: u32,
    #[hbase(skip)]
    cache: Vec<String>,
}

fn main() {
    assert_eq!(Order::COLUMNS.len(), 3);
    assert_eq!(Order::COLUMNS[2].qualifier, "q");
    let o = Order {
        id: 9,
        flags: 5,
        currency: "USD".into(),
        quantity: 4,
        cache: vec!["not stored".into()],
    };
    assert_eq!(o.to_put().unwrap().cells.len(), 3);

    // A row with no cells: every missing cell falls back to its default, skipped fields too.
    let row = hbase_orm::Row {
        key: o.row_key().unwrap(),
        cells: Vec::new(), stale: false,
    };
    assert_eq!(
        Order::from_row(row).unwrap(),
        Order {
            id: 9,
            flags: 0,
            currency: "EUR".into(),
            quantity: 1,
            cache: Vec::new(),
        }
    );
}
