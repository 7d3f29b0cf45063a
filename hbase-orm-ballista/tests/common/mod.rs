//! What the tests share: the orders entity and its rows, the queries asked of them, answers as
//! sorted text, and a table of orders in three regions.

#![allow(dead_code, unused_imports)] // each test file uses its share

use datafusion::arrow::record_batch::RecordBatch;
use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
use datafusion::prelude::SessionContext;
use hbase_orm::{Client, TableName};
use hbase_orm_sql::{register_as, EntityTable};
use hbase_orm_suite::{fresh_split_repository, TestTable};

#[path = "../../examples/shop/mod.rs"]
pub mod shop;

/// The examples' entities: the orders the queries ask of, and another entity, for a registry
/// that lacks `Order`.
pub use shop::{Customer, Order};

pub fn customer(i: usize) -> String {
    format!("customer-{:02}", i % 12)
}

pub fn orders(n: usize) -> Vec<Order> {
    (0..n)
        .map(|i| Order {
            customer: customer(i),
            number: i as u32,
            total: (i * 37 % 1000) as f64 / 4.0,
            status: ["new", "paid", "shipped"][i % 3].to_string(),
            note: (i % 4 == 0).then(|| format!("note of order {i}, left at the door")),
        })
        .collect()
}

/// `n` orders saved in a new table split at customer-04 and customer-08: three regions of 4
/// customers each (dropped with the guard).
pub async fn orders_table(client: &Client, label: &str, n: usize) -> (TestTable, Vec<Order>) {
    let splits = [b"customer-04".to_vec(), b"customer-08".to_vec()];
    let (repo, table) = fresh_split_repository::<Order>(client, label, &splits).await;
    let data = orders(n);
    repo.save_all(&data).await.unwrap();
    (table, data)
}

/// The answer of `ctx` to `sql`, as sorted text rows.
pub async fn answer(ctx: &SessionContext, sql: &str) -> Vec<Vec<String>> {
    let batches = ctx
        .sql(sql)
        .await
        .unwrap_or_else(|e| panic!("planning {sql}: {e}"))
        .collect()
        .await
        .unwrap_or_else(|e| panic!("running {sql}: {e}"));
    sorted_rows(&batches)
}

/// Rows as text, sorted (a plan's partitions come in any order).
pub fn sorted_rows(batches: &[RecordBatch]) -> Vec<Vec<String>> {
    let options = FormatOptions::default().with_null("NULL");
    let mut rows = Vec::new();
    for batch in batches {
        let columns: Vec<ArrayFormatter> = batch
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &options).unwrap())
            .collect();
        for r in 0..batch.num_rows() {
            rows.push(columns.iter().map(|c| c.value(r).to_string()).collect());
        }
    }
    rows.sort();
    rows
}

/// Queries of every kind a scan pushes down: aggregates, key ranges, a value's test, a whole
/// key (a get), a `LIMIT`.
pub const QUERIES: &[&str] = &[
    "SELECT customer, count(*), sum(total) FROM orders GROUP BY customer",
    "SELECT customer, number, status FROM orders WHERE customer >= 'customer-03' AND customer < 'customer-06'",
    "SELECT number, note FROM orders WHERE customer = 'customer-07' AND status = 'paid'",
    "SELECT number, total FROM orders WHERE customer = 'customer-09' AND number = 9",
    "SELECT count(*) FROM orders WHERE note IS NULL",
    "SELECT status, max(number) FROM orders WHERE total > 100 GROUP BY status",
    "SELECT customer, number FROM orders ORDER BY customer, number LIMIT 7",
];

/// The orders of `table`, read through `client`.
pub fn entity(client: &Client, table: &TableName) -> EntityTable<Order> {
    EntityTable::<Order>::new(client)
        .unwrap()
        .on_table(table.clone())
}

/// A context of one process with the orders of `table` registered as `orders`.
pub fn local_context(client: &Client, table: &TableName) -> SessionContext {
    let local = SessionContext::new();
    register_as(&local, "orders", entity(client, table)).unwrap();
    local
}
