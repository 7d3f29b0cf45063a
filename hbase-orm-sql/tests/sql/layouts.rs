//! Tables of every shape an entity takes: every column type, a cell that does not decode, raw
//! cells, record types sharing a table, a cell's versions, wide maps.

use datafusion::arrow::record_batch::RecordBatch;
use datafusion::prelude::SessionContext;
use hbase_orm::{Client, HBaseEntity, Put};
use hbase_orm_sql::{register_as, EntityTable};
use hbase_orm_suite::fresh_split_repository;

use crate::common::*;

/// Stock per store and sales per day: wide maps (text keys, integer keys), each owning a
/// family.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(table = "sql_stock", family = "d")]
struct Stock {
    #[hbase(key)]
    sku: String,
    name: String,
    #[hbase(family = "s", wide)]
    per_store: std::collections::BTreeMap<String, u32>,
    #[hbase(family = "h", wide)]
    sold_by_day: std::collections::BTreeMap<u32, f64>,
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
pub(crate) struct Price {
    #[hbase(key)]
    sku: String,
    #[hbase(versions = 3)]
    price: hbase_orm::Versions<f64>,
    name: String,
}

/// A tally of every kind of field that can lack its cell: a required field, one with a
/// default, an `Option`, a counter and the version.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(table = "sql_tallies", family = "d")]
struct Tally {
    #[hbase(key)]
    id: u32,
    label: String,
    #[hbase(default)]
    score: u32,
    note: Option<String>,
    #[hbase(counter)]
    hits: i64,
    #[hbase(version)]
    version: u64,
}

/// A column is nullable where the entity can lack a value; a row without a cell reads as the
/// entity reads it: a counter as 0, a field with a default as NULL (SQL does not know the
/// default), a required field as an error naming the table, the row and the column.
pub(crate) async fn missing_cells_read_as_the_entity_reads_them(client: Client) {
    let (repo, _guard) = fresh_split_repository::<Tally>(&client, "sql_tallies", &[]).await;
    let ctx = SessionContext::new();
    let table = EntityTable::<Tally>::new(&client)
        .unwrap()
        .on_table(repo.table().name().clone());
    register_as(&ctx, "tallies", table).unwrap();
    let nullable: Vec<(String, bool)> = hbase_orm_sql::EntitySchema::of::<Tally>()
        .unwrap()
        .arrow()
        .fields()
        .iter()
        .map(|f| (f.name().clone(), f.is_nullable()))
        .collect();
    let want = [
        ("id", false),
        ("label", false),
        ("score", true),
        ("note", true),
        ("hits", false),
        ("version", false),
    ];
    let want: Vec<(String, bool)> = want.iter().map(|(n, b)| (n.to_string(), *b)).collect();
    assert_eq!(nullable, want);
    let described = query(&ctx, "DESCRIBE tallies").await;
    let described: Vec<(String, String)> = described
        .iter()
        .map(|r| (r[0].clone(), r[2].clone()))
        .collect();
    let want_described: Vec<(String, String)> = want
        .iter()
        .map(|(n, b)| (n.clone(), if *b { "YES" } else { "NO" }.to_string()))
        .collect();
    assert_eq!(described, want_described);

    let tally = |id: u32| Tally {
        id,
        label: format!("t{id}"),
        score: 0,
        note: None,
        hits: 0,
        version: 0,
    };
    repo.save_all(&[tally(1), tally(2)]).await.unwrap();
    repo.increment(&TallyKey { id: 1 }, Tally::HITS, 5)
        .await
        .unwrap();
    // Row 2 loses its `score` (read as the default) and, below, its `label`.
    let key2 = tally(2).row_key().unwrap();
    repo.table()
        .delete(hbase_orm::Delete::new(key2.clone()).column("d", "score"))
        .await
        .unwrap();
    let got = query(
        &ctx,
        "SELECT id, score, note, hits, version FROM tallies ORDER BY id",
    )
    .await;
    let row = |cells: [&str; 5]| cells.iter().map(|c| c.to_string()).collect::<Vec<_>>();
    assert_eq!(
        got,
        vec![
            row(["1", "0", "NULL", "5", "1"]),
            row(["2", "NULL", "NULL", "0", "1"])
        ]
    );

    repo.table()
        .delete(hbase_orm::Delete::new(key2).column("d", "label"))
        .await
        .unwrap();
    let err = query_error(&ctx, "SELECT id, label FROM tallies").await;
    assert_names(
        &err,
        &[
            "d:label",
            "no such cell",
            "`label` is no Option",
            &repo.table().name().to_string(),
        ],
    );
    // The entity cannot be read either.
    assert!(repo.get(&TallyKey { id: 2 }).await.is_err());
    // The other columns still read.
    let got = query(&ctx, "SELECT count(*), sum(hits) FROM tallies").await;
    assert_eq!(got, vec![vec!["2".to_string(), "5".to_string()]]);
}

pub(crate) async fn every_column_reads_back(client: Client) {
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

pub(crate) async fn a_bad_cell_is_an_error_naming_it(client: Client) {
    let t = orders_table(&client, "sql_bad", 5, &[]).await;
    let key = t.data[2].row_key().unwrap();
    t.repo
        .table()
        .put(Put::new(key).column("d", "total", vec![1u8, 2, 3]))
        .await
        .unwrap();
    let err = query_error(&t.ctx, "SELECT total FROM orders").await;
    let table = t.repo.table().name().to_string();
    assert_names(
        &err,
        &[
            "cannot decode",
            "d:total",
            "Float64",
            "3 bytes, expected 8",
            &table,
        ],
    );
}

pub(crate) async fn raw_cells_read_as_batches(client: Client) {
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

pub(crate) async fn record_types_are_tables_of_their_own(client: Client) {
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

pub(crate) async fn versions_read_as_lists(client: Client) {
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

pub(crate) async fn wide_maps_read_as_maps(client: Client) {
    use datafusion::arrow::array::{Array, AsArray};
    use datafusion::arrow::datatypes::{Float64Type, UInt32Type};
    use std::collections::BTreeMap;
    let (repo, guard) = fresh_split_repository::<Stock>(&client, "sql_maps", &[]).await;
    let stock: Vec<Stock> = (0..4u32)
        .map(|i| Stock {
            sku: format!("sku-{i}"),
            name: format!("item {i}"),
            per_store: (0..i).map(|s| (format!("store-{s}"), i * 10 + s)).collect(),
            sold_by_day: (0..i * 2)
                .map(|d| (20_000 + d, f64::from(d) / 2.0))
                .collect(),
        })
        .collect();
    repo.save_all(&stock).await.unwrap();
    let ctx = SessionContext::new();
    let table = EntityTable::<Stock>::new(&client)
        .unwrap()
        .on_table(guard.name.clone());
    let table = register_as(&ctx, "stock", table).unwrap();

    // Both maps, entries in key order, empty ones for sku-0.
    let batches = ctx
        .sql("SELECT sku, per_store, sold_by_day FROM stock ORDER BY sku")
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    type Got = (String, BTreeMap<String, u32>, BTreeMap<u32, f64>);
    let got: Vec<Got> = batches
        .iter()
        .flat_map(|b| {
            let skus = b.column(0).as_string::<i32>().clone();
            let stores = b.column(1).as_map().clone();
            let days = b.column(2).as_map().clone();
            (0..b.num_rows())
                .map(|r| {
                    let s = stores.value(r);
                    let (names, counts) = (
                        s.column(0).as_string::<i32>(),
                        s.column(1).as_primitive::<UInt32Type>(),
                    );
                    let per_store = (0..s.len())
                        .map(|i| (names.value(i).to_string(), counts.value(i)))
                        .collect();
                    let d = days.value(r);
                    let (day, sold) = (
                        d.column(0).as_primitive::<UInt32Type>(),
                        d.column(1).as_primitive::<Float64Type>(),
                    );
                    let sold_by_day = (0..d.len())
                        .map(|i| (day.value(i), sold.value(i)))
                        .collect();
                    (skus.value(r).to_string(), per_store, sold_by_day)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let want: Vec<Got> = stock
        .iter()
        .map(|s| (s.sku.clone(), s.per_store.clone(), s.sold_by_day.clone()))
        .collect();
    assert_eq!(got, want);

    // SQL over a map: an entry by key, and the number of entries.
    let got = query(
        &ctx,
        "SELECT sku, per_store['store-1'], cardinality(sold_by_day) \
         FROM stock ORDER BY sku",
    )
    .await;
    let want: Vec<Vec<String>> = stock
        .iter()
        .map(|s| {
            vec![
                s.sku.clone(),
                s.per_store
                    .get("store-1")
                    .map_or("NULL".to_string(), u32::to_string),
                s.sold_by_day.len().to_string(),
            ]
        })
        .collect();
    assert_eq!(got, want);

    // One map read: its family and the presence cell, not the other map's cells.
    let before = table.read_counts();
    query(&ctx, "SELECT per_store FROM stock").await;
    let read = diff(before, table.read_counts());
    let entries: usize = stock.iter().map(|s| s.per_store.len()).sum();
    assert_eq!(read.cells, (entries + stock.len()) as u64, "{read:?}");

    // A qualifier that is no key of the map: an error naming the row, the cell and the type.
    client
        .table_named(guard.name.clone())
        .put(Put::new("sku-2").column("h", "bad", vec![0u8; 8]))
        .await
        .unwrap();
    let err = query_error(&ctx, "SELECT sold_by_day FROM stock").await;
    assert_names(&err, &["sku-2", "h:bad", "sold_by_day", "UInt32"]);
}
