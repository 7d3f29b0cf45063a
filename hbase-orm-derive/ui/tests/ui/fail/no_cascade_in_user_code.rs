// A mis-declared entity gives its one attribute error, not a cascade of "the trait
// `HBaseEntity` is not implemented" errors wherever the code uses it.
use hbase_orm::{Client, HBaseEntity, Repository};

#[derive(HBaseEntity)]
#[hbase(table = "orders", family = "d")]
struct Order {
    id: u64,
    total: f64,
}

fn repository(client: &Client) -> Repository<Order> {
    client.repository::<Order>()
}

fn put(order: &Order) -> hbase_orm::Result<hbase_orm::Put> {
    println!("{}", Order::table_name());
    order.to_put()
}

fn main() {
    let _ = (repository, put);
}
