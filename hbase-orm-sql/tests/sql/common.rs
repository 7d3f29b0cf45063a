//! What the tests share: the orders table (its entity, rows and a registered context), a
//! deterministic generator, and queries read back as text.

use std::sync::Arc;

use datafusion::arrow::record_batch::RecordBatch;
use datafusion::prelude::SessionContext;
use hbase_orm::{Client, HBaseEntity, Repository};
use hbase_orm_sql::{register_as, EntityTable, ReadCounts};
use hbase_orm_suite::{fresh_split_repository, TestTable};

#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(table = "sql_orders", family = "d", key_delimiter = '\0')]
pub(crate) struct Order {
    #[hbase(key)]
    pub(crate) customer: String,
    #[hbase(key)]
    pub(crate) number: u32,
    pub(crate) day: i64,
    pub(crate) total: f64,
    pub(crate) status: String,
    pub(crate) note: Option<String>,
    pub(crate) paid: bool,
    pub(crate) items: u16,
}

/// A small deterministic generator (xorshift), so that a failing case can be run again.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

pub(crate) const CUSTOMERS: u64 = 12;
pub(crate) const STATUSES: [&str; 3] = ["new", "paid", "shipped"];

pub(crate) fn customer(n: u64) -> String {
    format!("customer-{n:02}")
}

pub(crate) fn orders(n: usize) -> Vec<Order> {
    let mut rng = Rng(0x5eed);
    (0..n)
        .map(|i| Order {
            customer: customer(rng.below(CUSTOMERS)),
            number: i as u32,
            day: 20_000 + rng.below(30) as i64,
            total: (rng.below(100_000) as f64) / 100.0,
            status: STATUSES[rng.below(3) as usize].to_string(),
            note: (rng.below(3) == 0).then(|| format!("note {}", rng.below(1000))),
            paid: rng.below(2) == 0,
            items: rng.below(500) as u16,
        })
        .collect()
}

/// Every value of the batches as text, row by row.
pub(crate) fn rows(batches: &[RecordBatch]) -> Vec<Vec<String>> {
    hbase_orm_sql::text_rows(batches).unwrap()
}

pub(crate) async fn query(ctx: &SessionContext, sql: &str) -> Vec<Vec<String>> {
    let batches = ctx
        .sql(sql)
        .await
        .unwrap_or_else(|e| panic!("planning {sql}: {e}"))
        .collect()
        .await
        .unwrap_or_else(|e| panic!("running {sql}: {e}"));
    rows(&batches)
}

/// The error of running `sql`, which must fail, as text.
pub(crate) async fn query_error(ctx: &SessionContext, sql: &str) -> String {
    let df = match ctx.sql(sql).await {
        Ok(df) => df,
        Err(e) => return e.to_string(),
    };
    match df.collect().await {
        Ok(batches) => panic!("{sql} answered {:?} instead of failing", rows(&batches)),
        Err(e) => e.to_string(),
    }
}

/// Asserts that `err` names each of `parts`.
pub(crate) fn assert_names(err: &str, parts: &[&str]) {
    for part in parts {
        assert!(err.contains(part), "{part:?} missing from: {err}");
    }
}

pub(crate) fn diff(before: ReadCounts, after: ReadCounts) -> ReadCounts {
    ReadCounts {
        rows: after.rows - before.rows,
        cells: after.cells - before.cells,
        bytes: after.bytes - before.bytes,
        scans: after.scans - before.scans,
        gets: after.gets - before.gets,
    }
}

/// A table of `n` orders, registered as `orders` in a new context.
pub(crate) struct Orders {
    pub(crate) ctx: SessionContext,
    pub(crate) table: Arc<EntityTable<Order>>,
    pub(crate) data: Vec<Order>,
    pub(crate) repo: Repository<Order>,
    pub(crate) _guard: TestTable,
}

pub(crate) async fn orders_table(
    client: &Client,
    label: &str,
    n: usize,
    splits: &[&str],
) -> Orders {
    let splits: Vec<Vec<u8>> = splits.iter().map(|s| s.as_bytes().to_vec()).collect();
    let (repo, guard) = fresh_split_repository::<Order>(client, label, &splits).await;
    let data = orders(n);
    repo.save_all(&data).await.unwrap();
    let ctx = SessionContext::new();
    let table = EntityTable::<Order>::new(client)
        .unwrap()
        .on_table(guard.name.clone());
    let table = register_as(&ctx, "orders", table).unwrap();
    Orders {
        ctx,
        table,
        data,
        repo,
        _guard: guard,
    }
}

/// A float as Arrow's cast to text writes it.
pub(crate) fn cast_text(v: f64) -> String {
    let array = datafusion::arrow::array::Float64Array::from(vec![v]);
    rows(&[RecordBatch::try_from_iter([("v", Arc::new(array) as _)]).unwrap()])[0][0].clone()
}
