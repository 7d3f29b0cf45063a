//! # Importing a backfill with a bulk load
//!
//! An import of many rows (a migration, a backfill, last year's orders from another store)
//! does not need HBase's write path: the write-ahead log, the memstores, their flushes and the
//! compactions that follow are there for rows that arrive one by one. A bulk load writes the
//! table's storage files (HFiles) outside the region servers, one per region and family, cut
//! at the regions' boundaries, and hands them over; each region takes its files whole.
//!
//! Here 20,000 orders with an index by customer are loaded with `Repository::bulk_load` into
//! a table pre-split in four regions (`split(...)`): the data table gets four files, one per
//! region, and the index table one. Then the orders read back one by one, by scan, and
//! through the index. Last, 200,000 more are made as they are loaded
//! (`Repository::bulk_load_stream`), sorted under a memory budget of 8 MiB, with a progress
//! bar.
//!
//! Trade-offs: a bulk load is an import, not a save. Nothing is read first, so a row already
//! stored keeps the columns the new value leaves out, and the old index rows of changed
//! fields stay (readers skip them). The files are written on this machine and the region
//! servers copy them, so they must share it (or a filesystem) with this process. It needs
//! HBase's own RPC: a gateway (Thrift) and the in-memory store refuse it before anything is
//! written, which this example checks when `HBASE_ORM_URL` names one of them.
//!
//!     hbase-local/hbase.sh up
//!     HBASE_ORM_URL=hbase://127.0.0.1:2181 cargo run --example bulk_load
//!
//! Against the repository's Docker HBase (`docker-compose.yml`), the files go into the
//! directory the container mounts at the same path, which `HBASE_ORM_BULK_DIR` names here:
//!
//!     HBASE_ORM_BULK_DIR=/tmp/hbase-orm-bulk HBASE_ORM_URL=hbase://127.0.0.1:2181 \
//!         cargo run --example bulk_load

use std::process::ExitCode;

use futures::TryStreamExt;
use hbase_orm::{BulkLoadOptions, BulkLoadReport, Client, Error, HBaseEntity, Scan};
use hbase_orm_suite::example::Example;

/// An order of a backfill, keyed by customer and order number, indexed by customer city.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    namespace = "example",
    table = "bulk_load_orders",
    family = "d",
    key_delimiter = '\0',
    split(key = "c05000", key = "c10000", key = "c15000"),
    index(name = "by_city", parts = "city, customer, number")
)]
struct Order {
    #[hbase(key)]
    customer: String,
    #[hbase(key)]
    number: u32,
    city: String,
    total_cents: i64,
    note: Option<String>,
}

const ORDERS: u32 = 20_000;

fn order(i: u32) -> Order {
    Order {
        customer: format!("c{:05}", i),
        number: i % 7,
        city: ["Bergen", "Lima", "Pune", "Osaka"][(i % 4) as usize].to_string(),
        total_cents: i as i64 * 199,
        note: i.is_multiple_of(5).then(|| format!("gift wrap, order {i}")),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let mut ex = Example::start(
        "bulk_load",
        "20,000 orders imported as HFiles, one per region and family, with their index rows",
        Client::from_env().await,
    )
    .await;
    let orders = ex.fresh::<Order>().await;
    let values: Vec<Order> = (0..ORDERS).map(order).collect();
    // The staging directory the region servers can read: this machine's temporary directory
    // (the launcher's HBase), or the one mounted into a container (HBASE_ORM_BULK_DIR).
    let mut options = BulkLoadOptions::new();
    if let Some(dir) = std::env::var_os("HBASE_ORM_BULK_DIR") {
        std::fs::create_dir_all(&dir).expect("the staging directory can be made");
        options = options.staging_dir(dir);
    }
    let loaded = orders.bulk_load(&values, &options).await;
    let native = ex.client().config().gateway == hbase_orm::Gateway::NativeRpc;
    if !native {
        ex.check(
            "without HBase's own RPC the load is refused before anything is written",
            matches!(&loaded, Err(Error::Unsupported { .. })),
        );
        let rows: Vec<_> = orders
            .scan()
            .stream()
            .try_collect()
            .await
            .unwrap_or_default();
        ex.check_eq("nothing was written", rows.len(), 0);
        ex.say("run it with HBASE_ORM_URL=hbase://127.0.0.1:2181 to load");
        return ex.finish();
    }
    let report = match loaded {
        Ok(report) => report,
        Err(e) => {
            ex.ran("the bulk load", Err(e));
            return ex.finish();
        }
    };
    ex.say(format!(
        "loaded {} cells in {} files ({} bytes) into {} regions",
        report.cells, report.files, report.bytes, report.regions
    ));
    ex.check_eq(
        "one file per region: four for the data, one for the index",
        report.files,
        5,
    );
    for i in [0, 4_999, 5_000, 19_999] {
        let key = OrderKey {
            customer: format!("c{i:05}"),
            number: i % 7,
        };
        let got = orders.get(&key).await.ok().flatten();
        ex.check_eq(&format!("order {i} reads back"), got, Some(order(i)));
    }
    let all: Vec<Order> = orders
        .scan()
        .stream()
        .try_collect()
        .await
        .unwrap_or_default();
    ex.check_eq("a scan reads every order", all.len(), ORDERS as usize);
    ex.check(
        "in key order, each as loaded",
        all.iter().enumerate().all(|(i, o)| *o == order(i as u32)),
    );
    let in_lima: Vec<Order> = orders
        .index::<OrderByCity>()
        .prefix(OrderByCityKey::prefix_by_city(&"Lima".to_string()).expect("a key prefix"))
        .stream()
        .try_collect()
        .await
        .unwrap_or_default();
    ex.check_eq("the index finds Lima's orders", in_lima.len(), 5_000);
    let raw = orders
        .table()
        .scan(Scan::new().filter("FirstKeyOnlyFilter()"))
        .try_collect::<Vec<_>>()
        .await
        .map(|rows| rows.len())
        .unwrap_or_default();
    ex.check_eq(
        "the raw table holds one row per order",
        raw,
        ORDERS as usize,
    );

    // A stream of any length: 200,000 more orders made as the load reads them, sorted under a
    // memory budget of 8 MiB (spilled to the staging directory beyond it), with a progress bar.
    let more = futures::stream::iter((ORDERS..ORDERS + STREAMED).map(|i| Ok(order(i))));
    let streamed = orders
        .bulk_load_stream(
            more,
            &options.clone().memory_budget(8 << 20).on_progress(bar),
        )
        .await;
    eprintln!();
    match streamed {
        Ok(report) => {
            ex.say(format!(
                "streamed {} orders: {} rows (data and index) in {} files ({} written as they \
                 were read, while the rows came in order), {} runs spilled",
                report.read, report.rows, report.files, report.written_as_read, report.spilled_runs
            ));
            ex.check_eq(
                "every streamed order was read",
                report.read,
                STREAMED as u64,
            );
            ex.check(
                "the input was sorted in spilled runs",
                report.spilled_runs > 0,
            );
            let last = ORDERS + STREAMED - 1;
            let key = OrderKey {
                customer: format!("c{last:05}"),
                number: last % 7,
            };
            let got = orders.get(&key).await.ok().flatten();
            ex.check_eq("the last streamed order reads back", got, Some(order(last)));
        }
        Err(e) => ex.ran("the streamed bulk load", Err(e)),
    }
    ex.advice::<Order>(&[]);
    ex.finish()
}

/// Orders streamed after the first import.
const STREAMED: u32 = 200_000;

/// Draws the streamed load's progress on one line: the orders read against the stream's
/// length, then the rows loaded (an order's data row and its index row) against those read.
fn bar(so_far: &BulkLoadReport) {
    let (done, of, what) = if so_far.rows == 0 {
        (so_far.read, STREAMED as u64, "read  ")
    } else {
        (so_far.rows, 2 * so_far.read, "loaded")
    };
    let filled = (done * 30 / of.max(1)).min(30) as usize;
    eprint!(
        "\r  [{}{}] {what} {done:>7} of {of}",
        "#".repeat(filled),
        ".".repeat(30 - filled)
    );
}
