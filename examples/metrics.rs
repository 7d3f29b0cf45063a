//! The client's metrics as a Prometheus scrape: installs metrics-exporter-prometheus's
//! recorder (any `metrics` recorder works), runs a small workload against the local HBase and
//! prints what a scrape of `/metrics` would return. Checks that the scrape holds the calls it
//! made, and exits non-zero if not.
//!
//! `hbase-local/hbase.sh up && cargo run --example metrics` (`HBASE_ORM_URL` picks another
//! backend, e.g. `hbase://127.0.0.1:2181`).

use futures::TryStreamExt;
use hbase_orm::{Client, ColumnFamily, Get, Put, Scan, TableDescriptor, TableName};

#[tokio::main]
async fn main() -> hbase_orm::Result<()> {
    let handle = metrics_exporter_prometheus::PrometheusBuilder::new()
        .install_recorder()
        .expect("no other recorder is installed");

    // HBASE_ORM_URL, or the Thrift2 gateway at 127.0.0.1:9090 when it is not set.
    let client = Client::from_env().await?;
    let admin = client.admin();
    let name = TableName::new("default", format!("metrics_example_{}", std::process::id()));
    admin
        .create_table(
            &TableDescriptor::new(name.clone()).family(ColumnFamily::new("d")),
            &[],
        )
        .await?;
    let table = client.table_named(name.clone());
    for i in 0..20 {
        table
            .put(Put::new(format!("row{i:02}")).column("d", "v", "value"))
            .await?;
    }
    for i in 0..5 {
        table.get(Get::new(format!("row{i:02}"))).await?;
    }
    let rows: Vec<_> = table.scan(Scan::new()).try_collect().await?;
    admin.delete_table(&name).await?;

    let scrape = handle.render();
    println!("{scrape}");
    let backend = client.backend_name();
    let puts = format!(
        "hbase_orm_calls_total{{backend=\"{backend}\",operation=\"put\",outcome=\"ok\"}} 20"
    );
    if rows.len() != 20 || !scrape.lines().any(|l| l == puts) {
        eprintln!("expected 20 rows scanned and the line {puts:?} in the scrape");
        std::process::exit(1);
    }
    Ok(())
}
