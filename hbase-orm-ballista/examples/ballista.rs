//! # SQL across machines: the shop's questions answered by a Ballista cluster
//!
//! A client's context points at a Ballista scheduler (`df://host:port`); the shop's tables are
//! registered in it as in one process. The scheduler cuts each scan at the table's regions, its
//! executors read those regions (each a task: a region, or a sub-range of one), and the answer
//! comes back to the client. Every process knows the shop's entities (`shop/mod.rs`, compiled
//! into the scheduler and executors of `node.rs`).
//!
//! Each question is asked twice, of the Ballista cluster and of DataFusion in this process over
//! the same tables, and the answers must be equal; the program exits non-zero otherwise.
//!
//!     hbase-local/hbase.sh up && hbase-local/ballista.sh up 2
//!     cd hbase-orm-ballista && cargo run --example ballista
//!
//! The scheduler is `HBASE_ORM_BALLISTA_URL`'s (default `df://127.0.0.1:15050`, the launcher's);
//! HBase is `HBASE_ORM_URL`'s as in the other examples (the Thrift2 gateway when unset: this
//! client may reach HBase another way than the executors do, it is the same HBase).

use std::process::ExitCode;
use std::sync::Arc;

use datafusion::prelude::SessionContext;
use hbase_orm::Client;
use hbase_orm_suite::example::Example;

mod shop;

use shop::{Customer, Order};

const ORDERS: u32 = 20_000;

/// The scheduler's URL.
fn scheduler_url() -> String {
    std::env::var("HBASE_ORM_BALLISTA_URL").unwrap_or_else(|_| {
        let port = std::env::var("HBASE_ORM_BALLISTA_PORT").unwrap_or_else(|_| "15050".into());
        format!("df://127.0.0.1:{port}")
    })
}

async fn rows(ctx: &SessionContext, query: &str) -> Result<Vec<Vec<String>>, String> {
    let batches = ctx
        .sql(query)
        .await
        .map_err(|e| format!("planning {query}: {e}"))?
        .collect()
        .await
        .map_err(|e| format!("running {query}: {e}"))?;
    Ok(hbase_orm_sql::text_rows(&batches).expect("every column casts to text"))
}

#[tokio::main]
async fn main() -> ExitCode {
    let mut ex = Example::start(
        "ballista",
        "SQL across machines: a Ballista scheduler and its executors read the regions",
        Client::from_env().await,
    )
    .await;
    let customers = ex.fresh::<Customer>().await;
    let orders = ex.fresh::<Order>().await;
    customers.save_all(&shop::customers()).await.unwrap();
    let saved = shop::orders(ORDERS);
    orders.save_all(&saved).await.unwrap();
    ex.say(format!(
        "saved 12 customers and {ORDERS} orders (3 regions)"
    ));

    let url = scheduler_url();
    let registry = Arc::new(shop::registry("the example's client", ex.client().clone()));
    let cluster = match hbase_orm_ballista::remote(&url, &registry).await {
        Ok(ctx) => ctx,
        Err(e) => {
            ex.check(&format!("the scheduler at {url} answers: {e}"), false);
            ex.say("Start one first: hbase-local/ballista.sh up 2");
            return ex.finish();
        }
    };
    let local = SessionContext::new();
    for ctx in [&cluster, &local] {
        hbase_orm_sql::register::<Customer>(ctx, ex.client()).unwrap();
        hbase_orm_sql::register::<Order>(ctx, ex.client()).unwrap();
    }
    ex.say(format!("\nasking the Ballista scheduler at {url}"));

    let some = &saved[ORDERS as usize / 2];
    let questions = [
        (
            "totals per city (a join of both tables, every region of each read by a task)",
            "SELECT c.city, count(*) AS orders, round(sum(o.total), 2) AS spent \
             FROM ballista_orders o JOIN ballista_customers c ON o.customer = c.id \
             GROUP BY c.city ORDER BY c.city"
                .to_string(),
        ),
        (
            "orders by status",
            "SELECT status, count(*), min(total), max(total) FROM ballista_orders \
             GROUP BY status ORDER BY status"
                .to_string(),
        ),
        (
            "the largest paid orders of c03 (one customer: one key range, one region)",
            "SELECT number, total FROM ballista_orders WHERE customer = 'c03' \
             AND status = 'paid' ORDER BY total DESC, number LIMIT 5"
                .to_string(),
        ),
        (
            "one order by its whole key (a get)",
            format!(
                "SELECT customer, number, total, status, note FROM ballista_orders \
                 WHERE customer = '{}' AND number = {}",
                some.customer, some.number
            ),
        ),
    ];
    for (what, query) in &questions {
        ex.say(format!("\n{what}\n  {query}"));
        match (rows(&cluster, query).await, rows(&local, query).await) {
            (Ok(got), Ok(want)) => {
                for row in got.iter().take(5) {
                    ex.say(format!("    {}", row.join(" | ")));
                }
                ex.check_eq("the cluster's answer is this process's", got, want);
            }
            (Err(e), _) | (_, Err(e)) => ex.check(&format!("{what}: {e}"), false),
        }
    }

    let counted = rows(&cluster, "SELECT count(*) FROM ballista_orders").await;
    ex.check_eq(
        "the cluster counts every order saved",
        counted.ok(),
        Some(vec![vec![ORDERS.to_string()]]),
    );
    ex.finish()
}
