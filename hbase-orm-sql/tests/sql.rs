//! SQL over entity tables, on the in-memory store and on the local HBase (native and Thrift2):
//! answers equal to the same question computed in Rust over every row (random predicates on
//! key parts, values, NULLs and their combinations), and the pushdown measured by what the
//! scans read. `memory::` needs no HBase; `native::` and `thrift2::` fail when it is not up
//! (`hbase-local/hbase.sh up`).

use std::sync::Arc;

use datafusion::arrow::record_batch::RecordBatch;
use datafusion::physical_plan::displayable;
use datafusion::prelude::SessionContext;
use hbase_orm::{Client, HBaseEntity, Put, Repository};
use hbase_orm_sql::{register_as, EntityTable, ReadCounts};
use hbase_orm_suite::{fresh_split_repository, TestTable};

#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(table = "sql_orders", family = "d", key_delimiter = '\0')]
struct Order {
    #[hbase(key)]
    customer: String,
    #[hbase(key)]
    number: u32,
    day: i64,
    total: f64,
    status: String,
    note: Option<String>,
    paid: bool,
    items: u16,
}

#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(table = "sql_readings", family = "r", salt(buckets = 4))]
struct Reading {
    #[hbase(key)]
    device: u32,
    #[hbase(key(reverse_timestamp))]
    ts: i64,
    value: f64,
}

/// Two record types sharing one table (the reference guide's "customer++" design).
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    table = "sql_crm",
    family = "d",
    key_delimiter = '\0',
    record_type(tag = 1, after = "customer")
)]
struct Profile {
    #[hbase(key)]
    customer: String,
    name: String,
}

#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    table = "sql_crm",
    family = "d",
    key_delimiter = '\0',
    record_type(tag = 2, after = "customer")
)]
struct Purchase {
    #[hbase(key)]
    customer: String,
    #[hbase(key)]
    number: u32,
    total: f64,
}

/// A price history: a cell's versions.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(table = "sql_prices", family = "p")]
struct Price {
    #[hbase(key)]
    sku: String,
    #[hbase(versions = 3)]
    price: hbase_orm::Versions<f64>,
    name: String,
}

/// A small deterministic generator (xorshift), so that a failing case can be run again.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const CUSTOMERS: u64 = 12;
const STATUSES: [&str; 3] = ["new", "paid", "shipped"];

fn customer(n: u64) -> String {
    format!("customer-{n:02}")
}

fn orders(n: usize) -> Vec<Order> {
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

/// A condition on an order, as SQL and as Rust (SQL's three-valued logic: `None` is NULL).
#[derive(Debug, Clone)]
enum Pred {
    CustomerEq(String),
    CustomerIn(Vec<String>),
    NumberCmp(&'static str, u32),
    NumberBetween(u32, u32),
    TotalCmp(&'static str, f64),
    StatusEq(&'static str),
    NoteEq(String),
    NoteIsNull(bool),
    Paid(bool),
    DayEq(&'static str, i64),
    ItemsCmp(&'static str, u16),
    StatusCmp(&'static str, &'static str),
    And(Box<Pred>, Box<Pred>),
    Or(Box<Pred>, Box<Pred>),
    Not(Box<Pred>),
}

const CMPS: [&str; 6] = ["<", "<=", ">", ">=", "=", "<>"];

fn cmp<T: PartialOrd>(op: &str, a: T, b: T) -> bool {
    match op {
        "<" => a < b,
        "<=" => a <= b,
        ">" => a > b,
        ">=" => a >= b,
        "=" => a == b,
        "<>" => a != b,
        _ => unreachable!(),
    }
}

impl Pred {
    fn random(rng: &mut Rng, depth: u32) -> Pred {
        let leaf = depth == 0 || rng.below(3) == 0;
        if !leaf {
            let (a, b) = (
                Box::new(Pred::random(rng, depth - 1)),
                Box::new(Pred::random(rng, depth - 1)),
            );
            return match rng.below(5) {
                0 | 1 => Pred::And(a, b),
                2 | 3 => Pred::Or(a, b),
                _ => Pred::Not(a),
            };
        }
        match rng.below(12) {
            0 => Pred::CustomerEq(customer(rng.below(CUSTOMERS + 1))),
            1 => Pred::CustomerIn(
                (0..1 + rng.below(3))
                    .map(|_| customer(rng.below(CUSTOMERS)))
                    .collect(),
            ),
            2 => Pred::NumberCmp(CMPS[rng.below(6) as usize], rng.below(320) as u32),
            3 => {
                let a = rng.below(300) as u32;
                Pred::NumberBetween(a, a + rng.below(60) as u32)
            }
            4 => Pred::TotalCmp(CMPS[rng.below(6) as usize], rng.below(1000) as f64),
            9 => Pred::DayEq(
                ["=", "<>"][rng.below(2) as usize],
                20_000 + rng.below(30) as i64,
            ),
            10 => Pred::ItemsCmp(CMPS[rng.below(6) as usize], rng.below(520) as u16),
            11 => Pred::StatusCmp(
                CMPS[rng.below(6) as usize],
                ["n", "new", "paid", "q"][rng.below(4) as usize],
            ),
            5 => Pred::StatusEq(STATUSES[rng.below(3) as usize]),
            6 => Pred::NoteEq(format!("note {}", rng.below(1000))),
            7 => Pred::NoteIsNull(rng.below(2) == 0),
            _ => Pred::Paid(rng.below(2) == 0),
        }
    }

    fn sql(&self) -> String {
        match self {
            Pred::CustomerEq(c) => format!("customer = '{c}'"),
            Pred::CustomerIn(cs) => format!(
                "customer IN ({})",
                cs.iter()
                    .map(|c| format!("'{c}'"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Pred::NumberCmp(op, n) => format!("number {op} {n}"),
            Pred::NumberBetween(a, b) => format!("number BETWEEN {a} AND {b}"),
            Pred::TotalCmp(op, t) => format!("total {op} {t:.1}"),
            Pred::StatusEq(s) => format!("status = '{s}'"),
            Pred::NoteEq(n) => format!("note = '{n}'"),
            Pred::NoteIsNull(true) => "note IS NULL".into(),
            Pred::NoteIsNull(false) => "note IS NOT NULL".into(),
            Pred::Paid(true) => "paid".into(),
            Pred::Paid(false) => "NOT paid".into(),
            Pred::DayEq(op, d) => format!("day {op} {d}"),
            Pred::ItemsCmp(op, n) => format!("items {op} {n}"),
            Pred::StatusCmp(op, s) => format!("status {op} '{s}'"),
            Pred::And(a, b) => format!("({} AND {})", a.sql(), b.sql()),
            Pred::Or(a, b) => format!("({} OR {})", a.sql(), b.sql()),
            Pred::Not(a) => format!("(NOT {})", a.sql()),
        }
    }

    fn eval(&self, o: &Order) -> Option<bool> {
        Some(match self {
            Pred::CustomerEq(c) => o.customer == *c,
            Pred::CustomerIn(cs) => cs.contains(&o.customer),
            Pred::NumberCmp(op, n) => cmp(op, o.number, *n),
            Pred::NumberBetween(a, b) => (*a..=*b).contains(&o.number),
            Pred::TotalCmp(op, t) => cmp(op, o.total, *t),
            Pred::StatusEq(s) => o.status == *s,
            Pred::NoteEq(n) => return o.note.as_ref().map(|note| note == n),
            Pred::NoteIsNull(null) => o.note.is_none() == *null,
            Pred::Paid(p) => o.paid == *p,
            Pred::DayEq(op, d) => cmp(op, o.day, *d),
            Pred::ItemsCmp(op, n) => cmp(op, o.items, *n),
            Pred::StatusCmp(op, s) => cmp(op, o.status.as_str(), s),
            Pred::And(a, b) => match (a.eval(o), b.eval(o)) {
                (Some(false), _) | (_, Some(false)) => false,
                (Some(true), Some(true)) => true,
                _ => return None,
            },
            Pred::Or(a, b) => match (a.eval(o), b.eval(o)) {
                (Some(true), _) | (_, Some(true)) => true,
                (Some(false), Some(false)) => false,
                _ => return None,
            },
            Pred::Not(a) => !a.eval(o)?,
        })
    }
}

/// Every value of the batches as text, row by row.
fn rows(batches: &[RecordBatch]) -> Vec<Vec<String>> {
    hbase_orm_sql::text_rows(batches).unwrap()
}

async fn query(ctx: &SessionContext, sql: &str) -> Vec<Vec<String>> {
    let batches = ctx
        .sql(sql)
        .await
        .unwrap_or_else(|e| panic!("planning {sql}: {e}"))
        .collect()
        .await
        .unwrap_or_else(|e| panic!("running {sql}: {e}"));
    rows(&batches)
}

fn diff(before: ReadCounts, after: ReadCounts) -> ReadCounts {
    ReadCounts {
        rows: after.rows - before.rows,
        cells: after.cells - before.cells,
        bytes: after.bytes - before.bytes,
    }
}

/// A table of `n` orders, registered as `orders` in a new context.
struct Orders {
    ctx: SessionContext,
    table: Arc<EntityTable<Order>>,
    data: Vec<Order>,
    repo: Repository<Order>,
    _guard: TestTable,
}

async fn orders_table(client: &Client, label: &str, n: usize, splits: &[&str]) -> Orders {
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

async fn random_predicates_answer_as_rust_does(client: Client) {
    let t = orders_table(&client, "sql_pred", 300, &[]).await;
    let mut rng = Rng(0xC0FFEE);
    for case in 0..60 {
        let pred = Pred::random(&mut rng, 2);
        let sql = format!(
            "SELECT customer, number FROM orders WHERE {} ORDER BY customer, number",
            pred.sql()
        );
        let got = query(&t.ctx, &sql).await;
        let mut want: Vec<&Order> = t
            .data
            .iter()
            .filter(|o| pred.eval(o) == Some(true))
            .collect();
        want.sort_by(|a, b| (&a.customer, a.number).cmp(&(&b.customer, b.number)));
        let want: Vec<Vec<String>> = want
            .iter()
            .map(|o| vec![o.customer.clone(), o.number.to_string()])
            .collect();
        assert_eq!(got, want, "case {case}: {sql}");

        // The same condition under an aggregate, per customer.
        let sql = format!(
            "SELECT customer, count(*), sum(total), count(note) FROM orders WHERE {} \
             GROUP BY customer ORDER BY customer",
            pred.sql()
        );
        let got = query(&t.ctx, &sql).await;
        let mut want: std::collections::BTreeMap<&str, (u64, f64, u64)> = Default::default();
        for o in t.data.iter().filter(|o| pred.eval(o) == Some(true)) {
            let e = want.entry(&o.customer).or_default();
            e.0 += 1;
            e.1 += o.total;
            e.2 += u64::from(o.note.is_some());
        }
        assert_eq!(got.len(), want.len(), "case {case}: {sql}");
        for (row, (c, (n, sum, notes))) in got.iter().zip(&want) {
            assert_eq!(row[0], *c, "case {case}: {sql}");
            assert_eq!(row[1], n.to_string(), "case {case}: {sql}");
            let got_sum: f64 = row[2].parse().unwrap();
            assert!(
                (got_sum - sum).abs() < 1e-6,
                "case {case}: {sql}: {got_sum} vs {sum}"
            );
            assert_eq!(row[3], notes.to_string(), "case {case}: {sql}");
        }
    }
}

async fn every_column_reads_back(client: Client) {
    let t = orders_table(&client, "sql_all", 50, &[]).await;
    let got = query(
        &t.ctx,
        "SELECT customer, number, day, total, status, note, paid, items FROM orders \
         ORDER BY customer, number",
    )
    .await;
    let mut want = t.data.clone();
    want.sort_by(|a, b| (&a.customer, a.number).cmp(&(&b.customer, b.number)));
    let want: Vec<Vec<String>> = want
        .iter()
        .map(|o| {
            vec![
                o.customer.clone(),
                o.number.to_string(),
                o.day.to_string(),
                cast_text(o.total),
                o.status.clone(),
                o.note.clone().unwrap_or_else(|| "NULL".into()),
                o.paid.to_string(),
                o.items.to_string(),
            ]
        })
        .collect();
    assert_eq!(got, want);
}

/// A float as Arrow's cast to text writes it.
fn cast_text(v: f64) -> String {
    let array = datafusion::arrow::array::Float64Array::from(vec![v]);
    rows(&[RecordBatch::try_from_iter([("v", Arc::new(array) as _)]).unwrap()])[0][0].clone()
}

async fn pushdown_reads_only_what_the_query_needs(client: Client) {
    let t = orders_table(&client, "sql_push", 300, &[]).await;
    let n = t.data.len() as u64;

    // A whole scan, for comparison.
    let before = t.table.read_counts();
    query(&t.ctx, "SELECT * FROM orders").await;
    let all = diff(before, t.table.read_counts());
    assert_eq!(all.rows, n);

    // One customer's key range: only its rows.
    let target = customer(3);
    let of_target = t.data.iter().filter(|o| o.customer == target).count() as u64;
    let before = t.table.read_counts();
    let got = query(
        &t.ctx,
        &format!("SELECT number FROM orders WHERE customer = '{target}'"),
    )
    .await;
    let read = diff(before, t.table.read_counts());
    assert_eq!(got.len() as u64, of_target);
    assert_eq!(read.rows, of_target, "rows read for one customer: {read:?}");

    // One customer and a range of numbers within it.
    let before = t.table.read_counts();
    let got = query(
        &t.ctx,
        &format!("SELECT number FROM orders WHERE customer = '{target}' AND number >= 100 AND number < 200"),
    )
    .await;
    let read = diff(before, t.table.read_counts());
    let want = t
        .data
        .iter()
        .filter(|o| o.customer == target && (100..200).contains(&o.number))
        .count() as u64;
    assert_eq!(got.len() as u64, want);
    assert_eq!(read.rows, want, "rows read for a number range: {read:?}");

    // A projection of the presence column: one cell per row; of another: two.
    let before = t.table.read_counts();
    query(&t.ctx, "SELECT day FROM orders").await;
    let read = diff(before, t.table.read_counts());
    assert_eq!((read.rows, read.cells), (n, n), "{read:?}");
    let before = t.table.read_counts();
    query(&t.ctx, "SELECT total FROM orders").await;
    let read = diff(before, t.table.read_counts());
    assert_eq!((read.rows, read.cells), (n, 2 * n), "{read:?}");
    assert!(
        read.bytes < all.bytes,
        "{read:?} against a whole scan's {all:?}"
    );

    // LIMIT 10 reads about 10 rows.
    let before = t.table.read_counts();
    let got = query(
        &t.ctx,
        "SELECT customer, number, total FROM orders LIMIT 10",
    )
    .await;
    let read = diff(before, t.table.read_counts());
    assert_eq!(got.len(), 10);
    assert!(read.rows <= 11, "rows read for LIMIT 10: {read:?}");

    // A condition on a stored text goes to HBase: only the matching rows come back, and with
    // every condition tested there, a LIMIT reaches the scan too.
    let paid = t.data.iter().filter(|o| o.status == "paid").count() as u64;
    let before = t.table.read_counts();
    let got = query(&t.ctx, "SELECT number FROM orders WHERE status = 'paid'").await;
    let read = diff(before, t.table.read_counts());
    assert_eq!(got.len() as u64, paid);
    assert_eq!(read.rows, paid, "rows read for status = 'paid': {read:?}");
    let before = t.table.read_counts();
    let got = query(
        &t.ctx,
        "SELECT number FROM orders WHERE status = 'new' AND items >= 100 LIMIT 5",
    )
    .await;
    let read = diff(before, t.table.read_counts());
    assert_eq!(got.len(), 5);
    assert!(read.rows <= 6, "rows read for a filtered LIMIT 5: {read:?}");

    // count(*) reads the presence cell only.
    let before = t.table.read_counts();
    let got = query(&t.ctx, "SELECT count(*) FROM orders").await;
    let read = diff(before, t.table.read_counts());
    assert_eq!(got, vec![vec![n.to_string()]]);
    assert_eq!(read.cells, n, "{read:?}");
}

async fn one_partition_per_region(client: Client) {
    let t = orders_table(&client, "sql_regions", 300, &["customer-04", "customer-08"]).await;
    let df = t
        .ctx
        .sql("SELECT customer, count(*) FROM orders GROUP BY customer ORDER BY customer")
        .await
        .unwrap();
    let plan = df.clone().create_physical_plan().await.unwrap();
    let shown = displayable(plan.as_ref()).indent(true).to_string();
    assert!(
        shown.contains("StreamingTableExec: partition_sizes=3"),
        "{shown}"
    );
    let got = rows(&df.collect().await.unwrap());
    let mut want: std::collections::BTreeMap<&str, u64> = Default::default();
    for o in &t.data {
        *want.entry(&o.customer).or_default() += 1;
    }
    let want: Vec<Vec<String>> = want
        .into_iter()
        .map(|(c, n)| vec![c.to_string(), n.to_string()])
        .collect();
    assert_eq!(got, want);
    // A customer's range lies in one region: one partition.
    let df = t
        .ctx
        .sql("SELECT number FROM orders WHERE customer = 'customer-05'")
        .await
        .unwrap();
    let plan = df.create_physical_plan().await.unwrap();
    let shown = displayable(plan.as_ref()).indent(true).to_string();
    assert!(
        shown.contains("StreamingTableExec: partition_sizes=1"),
        "{shown}"
    );
}

async fn salted_keys_are_read_per_bucket(client: Client) {
    let (repo, guard) =
        fresh_split_repository::<Reading>(&client, "sql_salted", &Reading::split_keys()).await;
    let mut rng = Rng(77);
    let data: Vec<Reading> = (0..400)
        .map(|i| Reading {
            device: rng.below(10) as u32,
            ts: 1_700_000_000_000 + i * 1000,
            value: rng.below(1000) as f64,
        })
        .collect();
    repo.save_all(&data).await.unwrap();
    let ctx = SessionContext::new();
    let table = EntityTable::<Reading>::new(&client)
        .unwrap()
        .on_table(guard.name.clone());
    let table = register_as(&ctx, "readings", table).unwrap();
    let (from, until) = (1_700_000_100_000i64, 1_700_000_200_000i64);
    let before = table.read_counts();
    let got = query(
        &ctx,
        &format!(
            "SELECT device, ts, value FROM readings WHERE device = 7 AND ts BETWEEN {from} AND {until} \
             ORDER BY ts DESC"
        ),
    )
    .await;
    let read = diff(before, table.read_counts());
    let mut want: Vec<&Reading> = data
        .iter()
        .filter(|r| r.device == 7 && (from..=until).contains(&r.ts))
        .collect();
    want.sort_by_key(|r| std::cmp::Reverse(r.ts));
    let want: Vec<Vec<String>> = want
        .iter()
        .map(|r| vec![r.device.to_string(), r.ts.to_string(), cast_text(r.value)])
        .collect();
    assert!(!want.is_empty());
    assert_eq!(got, want);
    assert_eq!(read.rows, want.len() as u64, "{read:?}");
    // Every reading of a device, whatever its bucket.
    let got = query(&ctx, "SELECT count(*) FROM readings WHERE device = 3").await;
    let want = data.iter().filter(|r| r.device == 3).count();
    assert_eq!(got, vec![vec![want.to_string()]]);
}

async fn a_bad_cell_is_an_error_naming_it(client: Client) {
    let t = orders_table(&client, "sql_bad", 5, &[]).await;
    let key = t.data[2].row_key().unwrap();
    t.repo
        .table()
        .put(Put::new(key).column("d", "total", vec![1u8, 2, 3]))
        .await
        .unwrap();
    let err = t
        .ctx
        .sql("SELECT total FROM orders")
        .await
        .unwrap()
        .collect()
        .await
        .unwrap_err()
        .to_string();
    for part in [
        "cannot decode",
        "d:total",
        "Float64",
        "3 bytes, expected 8",
        &t.repo.table().name().to_string(),
    ] {
        assert!(err.contains(part), "{part:?} missing from: {err}");
    }
}

async fn raw_cells_read_as_batches(client: Client) {
    use datafusion::arrow::array::AsArray;
    use datafusion::arrow::datatypes::TimestampMillisecondType;
    use futures::TryStreamExt;
    let t = orders_table(&client, "sql_raw", 20, &[]).await;
    let cells_per_row = |o: &Order| 6 - usize::from(o.note.is_none());
    let want: usize = t.data.iter().map(cells_per_row).sum();
    let batches: Vec<RecordBatch> =
        hbase_orm_sql::cell_batches(t.repo.table().scan(hbase_orm::Scan::new()), 16)
            .try_collect()
            .await
            .unwrap();
    assert!(batches.len() > 1, "batches of about 16 cells");
    assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), want);
    let first = &batches[0];
    assert_eq!(first.schema(), hbase_orm_sql::cell_schema());
    let mut keys: Vec<&Order> = t.data.iter().collect();
    keys.sort_by(|a, b| (&a.customer, a.number).cmp(&(&b.customer, b.number)));
    assert_eq!(
        first.column(0).as_binary::<i32>().value(0),
        keys[0].row_key().unwrap()
    );
    assert_eq!(first.column(1).as_binary::<i32>().value(0), b"d");
    assert!(
        first
            .column(3)
            .as_primitive::<TimestampMillisecondType>()
            .value(0)
            > 0
    );
}

async fn record_types_are_tables_of_their_own(client: Client) {
    let (profiles, guard) = fresh_split_repository::<Profile>(&client, "sql_crm", &[]).await;
    let purchases = client.repository::<Purchase>().on_table(guard.name.clone());
    let people: Vec<Profile> = (0..5)
        .map(|i| Profile {
            customer: customer(i),
            name: format!("Name {i}"),
        })
        .collect();
    let bought: Vec<Purchase> = (0..40)
        .map(|i| Purchase {
            customer: customer(i % 4),
            number: i as u32,
            total: i as f64,
        })
        .collect();
    profiles.save_all(&people).await.unwrap();
    purchases.save_all(&bought).await.unwrap();
    let ctx = SessionContext::new();
    let name = guard.name.clone();
    let profile_table = EntityTable::<Profile>::new(&client)
        .unwrap()
        .on_table(name.clone());
    register_as(&ctx, "profiles", profile_table).unwrap();
    let purchase_table = EntityTable::<Purchase>::new(&client)
        .unwrap()
        .on_table(name);
    register_as(&ctx, "purchases", purchase_table).unwrap();
    assert_eq!(
        query(&ctx, "SELECT count(*) FROM profiles").await,
        vec![vec!["5".to_string()]]
    );
    assert_eq!(
        query(&ctx, "SELECT count(*) FROM purchases").await,
        vec![vec!["40".to_string()]]
    );
    let got = query(
        &ctx,
        "SELECT p.name, count(*), sum(o.total) FROM profiles p JOIN purchases o \
         ON p.customer = o.customer GROUP BY p.name ORDER BY p.name",
    )
    .await;
    let want: Vec<Vec<String>> = (0..4u32)
        .map(|c| {
            let totals: Vec<u32> = (0..40).filter(|i| i % 4 == c).collect();
            vec![
                format!("Name {c}"),
                totals.len().to_string(),
                cast_text(totals.iter().map(|&t| f64::from(t)).sum()),
            ]
        })
        .collect();
    assert_eq!(got, want);
    let got = query(
        &ctx,
        &format!(
            "SELECT number FROM purchases WHERE customer = '{}' ORDER BY number",
            customer(1)
        ),
    )
    .await;
    let want: Vec<Vec<String>> = (0..40)
        .filter(|i| i % 4 == 1)
        .map(|i| vec![i.to_string()])
        .collect();
    assert_eq!(got, want);
}

async fn versions_read_as_lists(client: Client) {
    use datafusion::arrow::array::{Array, AsArray};
    use datafusion::arrow::datatypes::{Float64Type, TimestampMillisecondType};
    let (repo, _guard) = fresh_split_repository::<Price>(&client, "sql_versions", &[]).await;
    let mut history = hbase_orm::Versions::new();
    for (ts, p) in [(1_000, 1.5), (2_000, 2.5), (3_000, 3.5), (4_000, 4.5)] {
        history.push(ts, p);
    }
    let pen = Price {
        sku: "pen".into(),
        price: history,
        name: "Pen".into(),
    };
    let ink = Price {
        sku: "ink".into(),
        price: hbase_orm::Versions::new(),
        name: "Ink".into(),
    };
    repo.save_all(&[pen, ink]).await.unwrap();
    let ctx = SessionContext::new();
    let table = EntityTable::<Price>::new(&client)
        .unwrap()
        .on_table(repo.table().name().clone());
    register_as(&ctx, "prices", table).unwrap();
    let batches = ctx
        .sql("SELECT sku, price FROM prices ORDER BY sku")
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    let rows: Vec<(String, Vec<(i64, f64)>)> = batches
        .iter()
        .flat_map(|b| {
            let skus = b.column(0).as_string::<i32>().clone();
            let lists = b.column(1).as_list::<i32>().clone();
            (0..b.num_rows())
                .map(|r| {
                    let versions = lists.value(r);
                    let versions = versions.as_struct();
                    let ts = versions
                        .column(0)
                        .as_primitive::<TimestampMillisecondType>();
                    let vs = versions.column(1).as_primitive::<Float64Type>();
                    let pairs = (0..versions.len())
                        .map(|i| (ts.value(i), vs.value(i)))
                        .collect();
                    (skus.value(r).to_string(), pairs)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    // The three newest of the four versions (the field keeps 3), newest first; none for ink.
    assert_eq!(
        rows,
        vec![
            ("ink".to_string(), vec![]),
            (
                "pen".to_string(),
                vec![(4_000, 4.5), (3_000, 3.5), (2_000, 2.5)]
            ),
        ]
    );
}

macro_rules! on_backend {
    ($module:ident, $client:expr) => {
        mod $module {
            use super::*;

            async fn client() -> Client {
                $client
            }

            #[tokio::test]
            async fn random_predicates_answer_as_rust_does() {
                super::random_predicates_answer_as_rust_does(client().await).await;
            }

            #[tokio::test]
            async fn every_column_reads_back() {
                super::every_column_reads_back(client().await).await;
            }

            #[tokio::test]
            async fn pushdown_reads_only_what_the_query_needs() {
                super::pushdown_reads_only_what_the_query_needs(client().await).await;
            }

            #[tokio::test]
            async fn salted_keys_are_read_per_bucket() {
                super::salted_keys_are_read_per_bucket(client().await).await;
            }

            #[tokio::test]
            async fn record_types_are_tables_of_their_own() {
                super::record_types_are_tables_of_their_own(client().await).await;
            }

            #[tokio::test]
            async fn versions_read_as_lists() {
                super::versions_read_as_lists(client().await).await;
            }

            #[tokio::test]
            async fn raw_cells_read_as_batches() {
                super::raw_cells_read_as_batches(client().await).await;
            }

            #[tokio::test]
            async fn a_bad_cell_is_an_error_naming_it() {
                super::a_bad_cell_is_an_error_naming_it(client().await).await;
            }
        }
    };
}

on_backend!(memory, hbase_orm_suite::Target::Memory.client().await);
on_backend!(native, hbase_orm_suite::Target::Native.client().await);
on_backend!(
    thrift2,
    hbase_orm_suite::Target::Thrift2Buffered.client().await
);

/// Entities whose key the SQL layer cannot read are refused, with the reason.
mod refusals {
    use super::*;

    #[derive(HBaseEntity)]
    #[hbase(table = "hashed", family = "d")]
    struct Hashed {
        #[hbase(key(md5))]
        email: String,
        name: String,
    }

    #[derive(HBaseEntity)]
    #[hbase(table = "named", family = "d", key_delimiter = '\0')]
    struct Named {
        #[hbase(key(dictionary = "hosts"))]
        host: hbase_orm::DictName,
        #[hbase(key)]
        ts: u64,
        value: f64,
    }

    #[test]
    fn hashed_and_dictionary_key_parts_are_refused() {
        let hashed = hbase_orm_sql::EntitySchema::of::<Hashed>().unwrap_err();
        assert!(
            hashed.to_string().contains("`email` is one-way"),
            "{hashed}"
        );
        let named = hbase_orm_sql::EntitySchema::of::<Named>().unwrap_err();
        assert!(
            named
                .to_string()
                .contains("`host` is stored as a dictionary id"),
            "{named}"
        );
    }
}

/// A physical plan of the table runs as often as it is executed (one target partition, so
/// that no repartitioning, which runs once, stands between).
#[tokio::test]
async fn memory_a_plan_runs_twice() {
    let client = hbase_orm_suite::Target::Memory.client().await;
    let t = orders_table(&client, "sql_twice", 30, &[]).await;
    let config = datafusion::prelude::SessionConfig::new().with_target_partitions(1);
    let ctx = SessionContext::new_with_config(config);
    let table = EntityTable::<Order>::new(&client)
        .unwrap()
        .on_table(t.repo.table().name().clone());
    register_as(&ctx, "orders", table).unwrap();
    let plan = ctx
        .sql("SELECT number FROM orders WHERE status = 'paid' ORDER BY number")
        .await
        .unwrap()
        .create_physical_plan()
        .await
        .unwrap();
    let mut want: Vec<u32> = t
        .data
        .iter()
        .filter(|o| o.status == "paid")
        .map(|o| o.number)
        .collect();
    want.sort_unstable();
    let want: Vec<Vec<String>> = want.iter().map(|n| vec![n.to_string()]).collect();
    for _ in 0..2 {
        let batches = datafusion::physical_plan::collect(plan.clone(), ctx.task_ctx())
            .await
            .unwrap();
        assert_eq!(rows(&batches), want);
    }
}

mod regions {
    use super::*;

    #[tokio::test]
    async fn native_one_partition_per_region() {
        one_partition_per_region(hbase_orm_suite::Target::Native.client().await).await;
    }

    #[tokio::test]
    async fn thrift2_one_partition_per_region() {
        one_partition_per_region(hbase_orm_suite::Target::Thrift2Buffered.client().await).await;
    }
}
