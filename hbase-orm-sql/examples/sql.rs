//! # SQL over entity tables: the case studies' questions asked in SQL
//!
//! The design notes key a customer's orders by `[customer][reverse timestamp][order number]`:
//! a customer's orders lie together, newest first, so "the orders of a customer in a date
//! range" is one short scan. Entities answer that question in code; people ask others too: who
//! spent most, how much each city ordered, the table as a file. Here those questions are SQL
//! (DataFusion, through `hbase_orm_sql`), over the same tables the entities write, with
//! nothing installed on the cluster:
//!
//! 1. the orders of one customer in a date range: the condition on the key's first two parts
//!    becomes one row range, and only that range is read (the read counts are printed);
//! 2. the top customers by total spent (a scan of one column, per region);
//! 3. a join of orders with customers: totals per city;
//! 4. the orders table written as a Parquet file, read back and counted.
//!
//! Each answer is checked against the same question computed in Rust over the rows saved; the
//! program exits non-zero on a mismatch.
//!
//!     hbase-local/hbase.sh up && cd hbase-orm-sql && cargo run --example sql
//!
//! `HBASE_ORM_URL` picks the store as in the other examples (`hbase://127.0.0.1:2181` for
//! HBase's own RPC, `memory://` for the in-memory store; the Thrift2 gateway when unset).

use std::collections::BTreeMap;
use std::process::ExitCode;

use datafusion::dataframe::DataFrameWriteOptions;
use datafusion::prelude::{ParquetReadOptions, SessionContext};
use hbase_orm::{Client, HBaseEntity};
use hbase_orm_suite::example::Example;

/// A customer.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "example", table = "sql_customers", family = "c")]
struct Customer {
    #[hbase(key)]
    id: String,
    name: String,
    city: String,
}

/// An order: a customer's orders together, newest first.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    namespace = "example",
    table = "sql_orders",
    family = "o",
    key_delimiter = '\0',
    split(key = "c04", key = "c08")
)]
struct Order {
    #[hbase(key)]
    customer: String,
    #[hbase(key(reverse_timestamp))]
    placed: i64,
    #[hbase(key)]
    number: u32,
    total: f64,
    status: String,
    note: Option<String>,
}

const CITIES: [&str; 3] = ["Lisbon", "Oslo", "Turin"];
const DAY: i64 = 86_400_000;
const START: i64 = 1_767_225_600_000; // 2026-01-01T00:00:00Z

fn customers() -> Vec<Customer> {
    (0..12)
        .map(|i| Customer {
            id: format!("c{i:02}"),
            name: format!("Customer {i}"),
            city: CITIES[i % 3].to_string(),
        })
        .collect()
}

fn orders() -> Vec<Order> {
    // A fixed pseudo-random sequence: the same orders every run.
    let mut x: u64 = 0x9e3779b97f4a7c15;
    let mut next = move |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    (0..2_000u32)
        .map(|number| Order {
            customer: format!("c{:02}", next(12)),
            placed: START + next(90) as i64 * DAY + next(DAY as u64) as i64,
            number,
            total: next(50_000) as f64 / 100.0,
            status: ["new", "paid", "shipped"][next(3) as usize].to_string(),
            note: (next(4) == 0).then(|| "gift".to_string()),
        })
        .collect()
}

async fn sql(ctx: &SessionContext, query: &str) -> Vec<Vec<String>> {
    println!("  {query}");
    let batches = ctx
        .sql(query)
        .await
        .unwrap_or_else(|e| panic!("planning {query}: {e}"))
        .collect()
        .await
        .unwrap_or_else(|e| panic!("running {query}: {e}"));
    hbase_orm_sql::text_rows(&batches).expect("every column casts to text")
}

fn money(v: f64) -> String {
    format!("{v:.2}")
}

#[tokio::main]
async fn main() -> ExitCode {
    let mut ex = Example::start(
        "sql",
        "SQL over entity tables: key conditions become row ranges, one partition per region",
        Client::from_env().await,
    )
    .await;
    let customers_repo = ex.fresh::<Customer>().await;
    let orders_repo = ex.fresh::<Order>().await;
    let (customers, orders) = (customers(), orders());
    customers_repo.save_all(&customers).await.unwrap();
    orders_repo.save_all(&orders).await.unwrap();
    ex.say(format!(
        "saved {} customers and {} orders",
        customers.len(),
        orders.len()
    ));

    let ctx = SessionContext::new();
    hbase_orm_sql::register::<Customer>(&ctx, ex.client()).unwrap();
    let order_table = hbase_orm_sql::register::<Order>(&ctx, ex.client()).unwrap();

    // 1. The orders of one customer in a date range, newest first.
    ex.say("\n1. The orders of c03 in February, newest first");
    let (from, until) = (START + 31 * DAY, START + 59 * DAY - 1);
    let before = order_table.read_counts();
    let got = sql(
        &ctx,
        &format!(
            "SELECT number, placed, total FROM sql_orders \
             WHERE customer = 'c03' AND placed BETWEEN {from} AND {until} ORDER BY placed DESC"
        ),
    )
    .await;
    let read = order_table.read_counts();
    let mut want: Vec<&Order> = orders
        .iter()
        .filter(|o| o.customer == "c03" && (from..=until).contains(&o.placed))
        .collect();
    want.sort_by_key(|o| std::cmp::Reverse(o.placed));
    let want: Vec<Vec<String>> = want
        .iter()
        .map(|o| vec![o.number.to_string(), o.placed.to_string(), money(o.total)])
        .collect();
    let got: Vec<Vec<String>> = got
        .into_iter()
        .map(|r| vec![r[0].clone(), r[1].clone(), money(r[2].parse().unwrap())])
        .collect();
    ex.say(format!(
        "  {} orders; HBase returned {} rows for them (of {} in the table)",
        got.len(),
        read.rows - before.rows,
        orders.len()
    ));
    ex.check_eq("the date range's orders", &got, &want);
    ex.check_eq(
        "only the range's rows are read",
        read.rows - before.rows,
        want.len() as u64,
    );

    // 2. The top customers by total spent.
    ex.say("\n2. The three customers who spent most");
    let got = sql(
        &ctx,
        "SELECT customer, round(sum(total), 2) AS spent FROM sql_orders \
         GROUP BY customer ORDER BY spent DESC LIMIT 3",
    )
    .await;
    let mut spent: BTreeMap<&str, f64> = BTreeMap::new();
    for o in &orders {
        *spent.entry(&o.customer).or_default() += o.total;
    }
    let mut ranked: Vec<(&str, f64)> = spent.into_iter().collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
    let want: Vec<Vec<String>> = ranked[..3]
        .iter()
        .map(|(c, s)| vec![c.to_string(), money(*s)])
        .collect();
    let got: Vec<Vec<String>> = got
        .into_iter()
        .map(|r| vec![r[0].clone(), money(r[1].parse().unwrap())])
        .collect();
    for row in &got {
        ex.say(format!("  {} spent {}", row[0], row[1]));
    }
    ex.check_eq("the top three", got, want);

    // 3. A join: what each city ordered.
    ex.say("\n3. Orders and totals per city (orders joined with customers)");
    let got = sql(
        &ctx,
        "SELECT c.city, count(*) AS orders, round(sum(o.total), 2) AS total \
         FROM sql_orders o JOIN sql_customers c ON o.customer = c.id \
         GROUP BY c.city ORDER BY c.city",
    )
    .await;
    let city_of: BTreeMap<&str, &str> = customers
        .iter()
        .map(|c| (c.id.as_str(), c.city.as_str()))
        .collect();
    let mut per_city: BTreeMap<&str, (u64, f64)> = BTreeMap::new();
    for o in &orders {
        let e = per_city.entry(city_of[o.customer.as_str()]).or_default();
        e.0 += 1;
        e.1 += o.total;
    }
    let want: Vec<Vec<String>> = per_city
        .iter()
        .map(|(city, (n, t))| vec![city.to_string(), n.to_string(), money(*t)])
        .collect();
    let got: Vec<Vec<String>> = got
        .into_iter()
        .map(|r| vec![r[0].clone(), r[1].clone(), money(r[2].parse().unwrap())])
        .collect();
    for row in &got {
        ex.say(format!("  {}: {} orders, {}", row[0], row[1], row[2]));
    }
    ex.check_eq("totals per city", got, want);

    // 4. The table as a Parquet file.
    ex.say("\n4. The orders table written as Parquet");
    let dir = std::env::temp_dir().join(format!("hbase-orm-sql-example-{}", std::process::id()));
    let path = dir.join("orders.parquet");
    let df = ctx.sql("SELECT * FROM sql_orders").await.unwrap();
    df.write_parquet(
        path.to_str().expect("a UTF-8 temporary path"),
        DataFrameWriteOptions::new(),
        None,
    )
    .await
    .unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
    let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    let back = ctx
        .read_parquet(path.to_str().unwrap(), ParquetReadOptions::default())
        .await
        .unwrap();
    let rows = back.clone().count().await.unwrap();
    let gifts = back
        .filter(datafusion::prelude::col("note").is_not_null())
        .unwrap()
        .count()
        .await
        .unwrap();
    ex.say(format!(
        "  {} ({bytes} bytes): {rows} rows, {gifts} with a note",
        path.display()
    ));
    ex.check_eq("rows in the Parquet file", rows, orders.len());
    ex.check_eq(
        "notes kept as values and NULLs",
        gifts,
        orders.iter().filter(|o| o.note.is_some()).count(),
    );
    let _ = std::fs::remove_dir_all(&dir);

    ex.finish()
}
