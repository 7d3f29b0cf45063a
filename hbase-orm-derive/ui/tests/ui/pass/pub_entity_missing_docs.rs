//! A public entity in a crate that denies `missing_docs`: the generated key struct, its fields
//! and its prefix functions must not need documentation from the user.
#![deny(missing_docs, warnings)]

use hbase_orm::HBaseEntity;

/// An order.
#[derive(HBaseEntity, Debug, Clone)]
#[hbase(
    namespace = "shop",
    table = "orders",
    family = "d",
    key_delimiter = '|'
)]
pub struct Order {
    /// Who ordered.
    #[hbase(key)]
    pub customer: String,
    /// Order number.
    #[hbase(key)]
    pub number: u64,
    /// Line number.
    #[hbase(key)]
    pub line: u16,
    /// Total amount.
    pub total: f64,
}

/// A public module, so that its items are part of the crate's public API.
pub mod nested {
    use hbase_orm::HBaseEntity;

    /// A user.
    #[derive(HBaseEntity)]
    #[hbase(table = "users", family = "d", key_struct = "UserId")]
    pub struct User {
        /// Id.
        #[hbase(key(fixed = 4))]
        pub id: String,
        /// Sequence.
        #[hbase(key)]
        pub seq: u8,
        /// Name.
        pub name: String,
    }
}

fn main() {
    let prefix = OrderKey::prefix_by_customer(&"acme".to_string()).unwrap();
    assert_eq!(prefix.bytes, b"acme|");
    let prefix = OrderKey::prefix_by_customer_number(&"acme".to_string(), &7).unwrap();
    assert_eq!(prefix.bytes, b"acme|\0\0\0\0\0\0\0\x07");
    assert_eq!(
        nested::UserId::prefix_by_id(&"ab".to_string())
            .unwrap()
            .bytes,
        b"ab\0\0"
    );
    let o = Order {
        customer: "acme".into(),
        number: 7,
        line: 1,
        total: 2.5,
    };
    assert_eq!(o.to_put().unwrap().cells.len(), 1);
    assert_eq!(Order::table_name().to_string(), "shop:orders");
}
