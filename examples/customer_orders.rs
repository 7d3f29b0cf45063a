//! The customer/order case study of the HBase reference guide, with `#[derive(HBaseEntity)]`.
//!
//! A customer table keyed by customer number, and an order table keyed
//! `[customer number][order number]`, both numbers fixed-width and order-preserving, so one
//! prefix scan reads a customer's orders in order and a reversed one reads the newest first.
//! Each order keeps its shipping locations and line items as one JSON document (the guide's
//! "object BLOB" design). The program checks what it prints and exits non-zero on a mismatch.
//!
//!     hbase-local/hbase.sh up && cargo run --example customer_orders
//!
//! `HBASE_ORM_THRIFT_ADDR` overrides the gateway address (default 127.0.0.1:9090). The tables
//! `example:customers` and `example:orders` are created from the entities' declarations
//! (`Admin::ensure`), emptied at the start of each run, and left for inspection.

use futures::TryStreamExt;
use hbase_orm::{Client, HBaseEntity};
use serde::{Deserialize, Serialize};

/// A customer record: `[customer number]`.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "example", table = "customers", family = "d")]
struct Customer {
    #[hbase(key)]
    number: u64,
    #[hbase(rename = "n")]
    name: String,
    #[hbase(rename = "c")]
    city: String,
    #[hbase(rename = "p")]
    phone: Option<String>,
}

/// An order: `[customer number][order number]`, with its shipping locations as one document.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    namespace = "example",
    table = "orders",
    family = "d",
    family_options(
        d(max_versions = 3, compression = "gz"),
        s(compression = "gz", bloom_filter = "row")
    )
)]
struct Order {
    #[hbase(key)]
    customer: u64,
    #[hbase(key)]
    number: u64,
    /// Sale date, `YYYY-MM-DD`.
    #[hbase(rename = "dt")]
    date: String,
    #[hbase(rename = "tot")]
    total_cents: i64,
    #[hbase(family = "s", rename = "loc", json)]
    shipping: Vec<ShippingLocation>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct ShippingLocation {
    address: String,
    items: Vec<LineItem>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct LineItem {
    sku: String,
    quantity: u32,
    price_cents: i64,
}

type AnyResult<T> = Result<T, Box<dyn std::error::Error>>;

fn check(what: &str, ok: bool) -> AnyResult<()> {
    if ok {
        println!("  ok   {what}");
        Ok(())
    } else {
        Err(format!("MISMATCH: {what}").into())
    }
}

/// Creates or updates the entity's table from its declaration, then empties it.
async fn prepare<T: HBaseEntity>(client: &Client) -> AnyResult<()> {
    let admin = client.admin();
    let report = admin.ensure::<T>().await?;
    print!("{report}");
    admin.truncate_table(&T::table_name(), true).await?;
    Ok(())
}

fn order(customer: u64, number: u64, day: u32, lines: &[(&str, u32, i64)]) -> Order {
    let items: Vec<_> = lines
        .iter()
        .map(|(sku, quantity, price_cents)| LineItem {
            sku: sku.to_string(),
            quantity: *quantity,
            price_cents: *price_cents,
        })
        .collect();
    Order {
        customer,
        number,
        date: format!("2026-11-{day:02}"),
        total_cents: items
            .iter()
            .map(|i| i64::from(i.quantity) * i.price_cents)
            .sum(),
        shipping: vec![ShippingLocation {
            address: format!("customer {customer}, main address"),
            items,
        }],
    }
}

#[tokio::main]
async fn main() -> AnyResult<()> {
    let address =
        std::env::var("HBASE_ORM_THRIFT_ADDR").unwrap_or_else(|_| "127.0.0.1:9090".into());
    let client = Client::builder().address(&address).build().await?;
    println!("connected to {address}");
    prepare::<Customer>(&client).await?;
    prepare::<Order>(&client).await?;
    let described = client.admin().describe(&Order::table_name()).await?;
    let d = described.get_family("d").ok_or("family d missing")?;
    check(
        "orders.d keeps 3 versions, gzip",
        d.max_versions == Some(3) && d.compression == Some(hbase_orm::Compression::Gz),
    )?;

    let customers = client.repository::<Customer>();
    let orders = client.repository::<Order>();

    let ada = Customer {
        number: 42,
        name: "Ada".into(),
        city: "London".into(),
        phone: Some("+44 20".into()),
    };
    let bob = Customer {
        number: 7,
        name: "Bob".into(),
        city: "Oslo".into(),
        phone: None,
    };
    customers.save_all(&[ada.clone(), bob.clone()]).await?;
    let all_orders = vec![
        order(42, 1, 3, &[("pen", 3, 150)]),
        order(42, 2, 9, &[("ink", 1, 900), ("pad", 2, 400)]),
        order(42, 10, 20, &[("desk", 1, 25_000)]),
        order(7, 1, 5, &[("mug", 4, 800)]),
        order(420, 1, 6, &[("cup", 1, 100)]),
    ];
    orders.save_all(&all_orders).await?;
    println!("saved 2 customers and {} orders", all_orders.len());

    let read = customers.get(&CustomerKey { number: 42 }).await?;
    println!("customer 42: {read:?}");
    check("customer 42 reads back equal", read.as_ref() == Some(&ada))?;
    check(
        "customer 7 has no phone",
        customers.get(&CustomerKey { number: 7 }).await? == Some(bob),
    )?;

    let key = OrderKey {
        customer: 42,
        number: 2,
    };
    let o = orders.get(&key).await?.ok_or("order 42/2 missing")?;
    println!(
        "order 42/2: {} on {}, {} line items",
        o.total_cents,
        o.date,
        o.shipping[0].items.len()
    );
    check("order 42/2 reads back equal", o == all_orders[1])?;

    // All orders of customer 42, by order number (10 after 2: the numbers are order-preserving,
    // and customer 420 is not mixed in: the parts are fixed width).
    let of_42: Vec<Order> = orders
        .scan()
        .prefix(OrderKey::prefix_by_customer(&42)?)
        .stream()
        .try_collect()
        .await?;
    let numbers: Vec<u64> = of_42.iter().map(|o| o.number).collect();
    println!("orders of customer 42: {numbers:?}");
    check("customer 42 has orders [1, 2, 10]", numbers == [1, 2, 10])?;

    let newest: Vec<Order> = orders
        .scan()
        .prefix(OrderKey::prefix_by_customer(&42)?)
        .reversed()
        .limit(2)
        .stream()
        .try_collect()
        .await?;
    let numbers: Vec<u64> = newest.iter().map(|o| o.number).collect();
    println!("two newest orders of customer 42: {numbers:?}");
    check("newest first: [10, 2]", numbers == [10, 2])?;

    let spent: i64 = of_42.iter().map(|o| o.total_cents).sum();
    println!("customer 42 spent {spent} cents");
    check(
        "customer 42 spent 27_150 cents",
        spent == 450 + 1_700 + 25_000,
    )?;

    println!("customer_orders: all checks passed");
    Ok(())
}
