//! The examples' entities: a shop's customers and orders, which the example executor and
//! scheduler (`node.rs`) compile in and the example client (`ballista.rs`) queries. Every
//! process of a Ballista cluster builds its registry here, so all of them know the same
//! entities.

#![allow(dead_code)] // each example uses its share

use hbase_orm::{Client, HBaseEntity};
use hbase_orm_ballista::{EntityRegistry, DEFAULT_CLIENT};
use hbase_orm_suite::example::Lcg;

/// A customer, with a secondary index of the customers of each city.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    namespace = "example",
    table = "ballista_customers",
    family = "c",
    key_delimiter = '\0',
    index(name = "by_city", parts = "city, id")
)]
pub struct Customer {
    #[hbase(key)]
    pub id: String,
    pub name: String,
    pub city: String,
}

/// An order, keyed by its customer and number: a customer's orders lie together, and the
/// table is split between customers, so a scan of it is three regions' reads.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    namespace = "example",
    table = "ballista_orders",
    family = "o",
    key_delimiter = '\0',
    split(key = "c04", key = "c08")
)]
pub struct Order {
    #[hbase(key)]
    pub customer: String,
    #[hbase(key)]
    pub number: u32,
    pub total: f64,
    pub status: String,
    pub note: Option<String>,
}

/// The cities customers live in.
pub const CITIES: [&str; 3] = ["Lisbon", "Oslo", "Turin"];

/// The registry of process `process`: the shop's entities, read through `client`.
pub fn registry(process: &str, client: Client) -> EntityRegistry {
    EntityRegistry::new(process)
        .add::<Customer>()
        .add::<Order>()
        .client(DEFAULT_CLIENT, client)
}

/// Twelve customers, `c00` to `c11`, in the three cities in turn.
pub fn customers() -> Vec<Customer> {
    (0..12)
        .map(|i| Customer {
            id: format!("c{i:02}"),
            name: format!("Customer number {i}"),
            city: CITIES[i % 3].to_string(),
        })
        .collect()
}

/// `n` orders of the twelve customers, the same every run.
pub fn orders(n: u32) -> Vec<Order> {
    let mut random = Lcg(50);
    let mut next = move |below: u64| random.next(below);
    (0..n)
        .map(|number| Order {
            customer: format!("c{:02}", next(12)),
            number,
            total: next(50_000) as f64 / 100.0,
            status: ["new", "paid", "shipped"][next(3) as usize].to_string(),
            note: (next(4) == 0).then(|| format!("leave order {number} with the neighbour")),
        })
        .collect()
}
