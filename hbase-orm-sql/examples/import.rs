//! # A Parquet file imported into an entity table with SQL, through a bulk load
//!
//! Data often arrives as files: last year's shipments exported from a warehouse system as
//! Parquet. `INSERT INTO shipments SELECT ... FROM 'shipments.parquet'` reads it with
//! DataFusion; registered with `EntityTable::insert_by_bulk_load`, the entity table turns the
//! rows into entities as they arrive and bulk-loads them (`Repository::bulk_load_stream`): the
//! rows and their index rows are written as HFiles, sorted under a memory budget, and handed
//! to the region servers, with no write-ahead log or memstore on the way. Registered without
//! it, the same statement saves each row.
//!
//! Here a million shipments are generated into a Parquet file (`HBASE_ORM_IMPORT_ROWS` for
//! another count), imported, and read back by SQL and through the index; each answer is
//! checked against the generator.
//!
//!     hbase-local/hbase.sh up && cd hbase-orm-sql && \
//!         HBASE_ORM_URL=hbase://127.0.0.1:2181 cargo run --release --example import
//!
//! A bulk load needs HBase's own RPC: against a gateway or the in-memory store the statement
//! is refused before anything is written, which the example checks.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use datafusion::arrow::array::{
    ArrayRef, Float64Builder, Int64Builder, StringBuilder, UInt64Builder,
};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::prelude::{ParquetReadOptions, SessionContext};
use futures::TryStreamExt;
use hbase_orm::{BulkLoadOptions, Client, HBaseEntity};
use hbase_orm_sql::{register_as, EntityTable};
use hbase_orm_suite::example::Example;

/// A shipment, indexed by the warehouse it left.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    namespace = "example",
    table = "sql_import_shipments",
    family = "d",
    key_delimiter = '\0',
    index(name = "by_warehouse", parts = "warehouse, id")
)]
struct Shipment {
    #[hbase(key)]
    id: u64,
    warehouse: String,
    weight_grams: i64,
    price: f64,
    status: String,
    note: Option<String>,
}

/// Shipment `i` of the generated file.
fn shipment(i: u64) -> Shipment {
    Shipment {
        id: i,
        warehouse: format!("warehouse-{:02}", i % 12),
        weight_grams: (i * 37 % 20_000) as i64 + 100,
        price: (i % 1_000) as f64 * 0.5,
        status: ["packed", "in transit", "delivered", "returned"][(i % 4) as usize].to_string(),
        note: i
            .is_multiple_of(9)
            .then(|| format!("fragile: shipment {i} holds glass")),
    }
}

/// Writes shipments `0..rows` as a Parquet file at `path`, 65,536 rows a row group.
fn write_parquet(path: &std::path::Path, rows: u64) -> Result<(), Box<dyn std::error::Error>> {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::UInt64, false),
        Field::new("warehouse", DataType::Utf8, false),
        Field::new("weight_grams", DataType::Int64, false),
        Field::new("price", DataType::Float64, false),
        Field::new("status", DataType::Utf8, false),
        Field::new("note", DataType::Utf8, true),
    ]));
    let mut writer = ArrowWriter::try_new(std::fs::File::create(path)?, schema.clone(), None)?;
    for from in (0..rows).step_by(1 << 16) {
        let (mut id, mut warehouse, mut weight) = (
            UInt64Builder::new(),
            StringBuilder::new(),
            Int64Builder::new(),
        );
        let (mut price, mut status, mut note) = (
            Float64Builder::new(),
            StringBuilder::new(),
            StringBuilder::new(),
        );
        for i in from..(from + (1 << 16)).min(rows) {
            let s = shipment(i);
            id.append_value(s.id);
            warehouse.append_value(&s.warehouse);
            weight.append_value(s.weight_grams);
            price.append_value(s.price);
            status.append_value(&s.status);
            note.append_option(s.note.as_deref());
        }
        let columns: Vec<ArrayRef> = vec![
            Arc::new(id.finish()),
            Arc::new(warehouse.finish()),
            Arc::new(weight.finish()),
            Arc::new(price.finish()),
            Arc::new(status.finish()),
            Arc::new(note.finish()),
        ];
        writer.write(&RecordBatch::try_new(schema.clone(), columns)?)?;
    }
    writer.close()?;
    Ok(())
}

/// The first row of the first column of `sql`'s answer, as text.
async fn one(ctx: &SessionContext, sql: &str) -> Result<String, Box<dyn std::error::Error>> {
    let batches = ctx.sql(sql).await?.collect().await?;
    let column = batches
        .first()
        .map(|b| b.column(0).clone())
        .ok_or("no answer")?;
    Ok(datafusion::arrow::util::display::array_value_to_string(
        &column, 0,
    )?)
}

#[tokio::main]
async fn main() -> ExitCode {
    let rows: u64 = std::env::var("HBASE_ORM_IMPORT_ROWS")
        .ok()
        .and_then(|v| v.replace('_', "").parse().ok())
        .unwrap_or(1_000_000);
    let mut ex = Example::start(
        "import",
        "a Parquet file of shipments imported by SQL through a bulk load, read back by SQL",
        Client::from_env().await,
    )
    .await;
    let shipments = ex.fresh::<Shipment>().await;
    let dir = std::env::temp_dir().join(format!("hbase-orm-import-{}", std::process::id()));
    let made = std::fs::create_dir_all(&dir).map_err(|e| e.to_string());
    let path = dir.join("shipments.parquet");
    let started = Instant::now();
    let written = made.and_then(|()| write_parquet(&path, rows).map_err(|e| e.to_string()));
    ex.ran("writing the Parquet file", written);
    ex.say(format!(
        "{rows} shipments written to {} ({} bytes) in {:.1} s",
        path.display(),
        std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0),
        started.elapsed().as_secs_f64()
    ));

    let ctx = SessionContext::new();
    // The staging directory the region servers can read: this machine's temporary directory
    // (the launcher's HBase), or the one mounted into a container (HBASE_ORM_BULK_DIR).
    let mut options = BulkLoadOptions::new().memory_budget(128 << 20);
    if let Some(bulk_dir) = std::env::var_os("HBASE_ORM_BULK_DIR") {
        let _ = std::fs::create_dir_all(&bulk_dir);
        options = options.staging_dir(bulk_dir);
    }
    let registered = EntityTable::<Shipment>::new(ex.client())
        .map(|t| {
            t.on_table(shipments.table().name().clone())
                .insert_by_bulk_load(options)
        })
        .and_then(|t| register_as(&ctx, "shipments", t));
    ex.ran("registering the table", registered.map(drop));
    let file = path.to_string_lossy().into_owned();
    let source = ctx
        .register_parquet("exported", &file, ParquetReadOptions::default())
        .await;
    ex.ran("registering the file", source);

    let started = Instant::now();
    let import = "INSERT INTO shipments SELECT * FROM exported";
    let inserted = one(&ctx, import).await;
    let native = ex.client().config().gateway == hbase_orm::Gateway::NativeRpc;
    if !native {
        ex.check(
            "without HBase's own RPC the import is refused, naming the bulk load",
            matches!(&inserted, Err(e) if e.to_string().contains("bulk_load_stream")),
        );
        ex.check_eq(
            "nothing was written",
            shipments.scan().count().await.unwrap_or(u64::MAX),
            0,
        );
        ex.say("run it with HBASE_ORM_URL=hbase://127.0.0.1:2181 to import");
        let _ = std::fs::remove_dir_all(&dir);
        return ex.finish();
    }
    let seconds = started.elapsed().as_secs_f64();
    ex.check_eq(
        "the statement counts every row of the file",
        inserted.map_err(|e| e.to_string()),
        Ok(rows.to_string()),
    );
    ex.say(format!(
        "imported in {seconds:.1} s ({:.0} rows/s), index rows included",
        rows as f64 / seconds
    ));

    let all: Vec<Shipment> = (0..rows).map(shipment).collect();
    let text = |v: i64| v.to_string();
    let answer = |sql: &'static str| one(&ctx, sql);
    ex.check_eq(
        "SQL counts every shipment",
        answer("SELECT count(*) FROM shipments").await.ok(),
        Some(rows.to_string()),
    );
    ex.check_eq(
        "the weights add up as in the file",
        answer("SELECT sum(weight_grams) FROM shipments").await.ok(),
        Some(text(all.iter().map(|s| s.weight_grams).sum())),
    );
    ex.check_eq(
        "the notes left out are NULL",
        answer("SELECT count(*) FROM shipments WHERE note IS NULL")
            .await
            .ok(),
        Some(all.iter().filter(|s| s.note.is_none()).count().to_string()),
    );
    let last = rows.saturating_sub(1);
    let by_key = one(
        &ctx,
        &format!("SELECT status FROM shipments WHERE id = {last}"),
    )
    .await
    .ok();
    ex.check_eq(
        "a shipment read by its key",
        by_key,
        all.last().map(|s| s.status.clone()),
    );
    let got = shipments
        .get(&ShipmentKey { id: last })
        .await
        .ok()
        .flatten();
    ex.check_eq("the entity reads back equal", got.as_ref(), all.last());
    let from_w07: Vec<Shipment> = shipments
        .index::<ShipmentByWarehouse>()
        .prefix(
            ShipmentByWarehouseKey::prefix_by_warehouse(&"warehouse-07".to_string())
                .expect("a key prefix"),
        )
        .stream()
        .try_collect()
        .await
        .unwrap_or_default();
    ex.check_eq(
        "the index finds warehouse-07's shipments",
        from_w07.len(),
        all.iter().filter(|s| s.warehouse == "warehouse-07").count(),
    );
    let _ = std::fs::remove_dir_all(&dir);
    ex.advice::<Shipment>(&[]);
    ex.finish()
}
