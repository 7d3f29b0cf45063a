//! The pushdown measured by what the scans read: key ranges, projections, value filters,
//! `LIMIT`, partitions per region and salt buckets.

use datafusion::physical_plan::displayable;
use datafusion::prelude::SessionContext;
use hbase_orm::{Client, HBaseEntity};
use hbase_orm_sql::{register_as, EntityTable};
use hbase_orm_suite::fresh_split_repository;

use crate::common::*;

/// Pages of sites: a text part after a delimited text part, which HBase can test by key.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(table = "sql_pages", family = "d", key_delimiter = '\0')]
struct Page {
    #[hbase(key)]
    site: String,
    #[hbase(key)]
    path: String,
    hits: u64,
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

pub(crate) async fn pushdown_reads_only_what_the_query_needs(client: Client) {
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

    // A prefix of the first part's text (`LIKE 'customer-0%'`): those customers' rows only.
    let of_prefix = t
        .data
        .iter()
        .filter(|o| o.customer.starts_with("customer-0"))
        .count() as u64;
    let before = t.table.read_counts();
    let got = query(
        &t.ctx,
        "SELECT number FROM orders WHERE customer LIKE 'customer-0%'",
    )
    .await;
    let read = diff(before, t.table.read_counts());
    assert_eq!(got.len() as u64, of_prefix);
    assert_eq!(
        read.rows, of_prefix,
        "rows read for a LIKE prefix: {read:?}"
    );

    // Whole keys: those rows alone, read with gets (a key no order has reads nothing).
    let picked: Vec<&Order> = t
        .data
        .iter()
        .filter(|o| o.customer == target)
        .take(3)
        .collect();
    let numbers: Vec<String> = picked.iter().map(|o| o.number.to_string()).collect();
    let before = t.table.read_counts();
    let got = query(
        &t.ctx,
        &format!(
            "SELECT number, status FROM orders WHERE customer = '{target}' \
             AND number IN ({}, 9999) ORDER BY number",
            numbers.join(", ")
        ),
    )
    .await;
    let read = diff(before, t.table.read_counts());
    let want: Vec<Vec<String>> = picked
        .iter()
        .map(|o| vec![o.number.to_string(), o.status.clone()])
        .collect();
    assert_eq!(got, want);
    assert_eq!(read.rows, 3, "rows read for three whole keys: {read:?}");
    assert_eq!((read.scans, read.gets), (0, 4), "{read:?}");

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

    // Rows that hold no entity (a cell written by hand, no presence cell) first in key order:
    // a scan that a LIMIT cut short on them goes on after them, and the LIMIT is met.
    let raw = client.table_named(t.repo.table().name().clone());
    for i in 0..3 {
        raw.put(hbase_orm::Put::new(format!("a-partial-{i}")).column("d", "total", vec![0u8; 8]))
            .await
            .unwrap();
    }
    let before = t.table.read_counts();
    let got = query(&t.ctx, "SELECT customer, total FROM orders LIMIT 2").await;
    let read = diff(before, t.table.read_counts());
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(got.iter().all(|r| r[0].starts_with("customer-")), "{got:?}");
    // Three rows without an entity and two with: three scans (2, then 1 + 1, then 1 row).
    assert_eq!((read.rows, read.scans), (5, 3), "{read:?}");
}

pub(crate) async fn one_partition_per_region(client: Client) {
    let t = orders_table(&client, "sql_regions", 300, &["customer-04", "customer-08"]).await;
    let df = t
        .ctx
        .sql("SELECT customer, count(*) FROM orders GROUP BY customer ORDER BY customer")
        .await
        .unwrap();
    let plan = df.clone().create_physical_plan().await.unwrap();
    let shown = displayable(plan.as_ref()).indent(true).to_string();
    assert!(
        shown.contains("EntityScanExec: table=") && shown.contains(", partitions=3,"),
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
    assert!(shown.contains(", partitions=1,"), "{shown}");
    // A small LIMIT reads the regions one after another and stops there: about LIMIT rows,
    // not a page of each region.
    let before = t.table.read_counts();
    let got = query(&t.ctx, "SELECT customer, number FROM orders LIMIT 10").await;
    let read = diff(before, t.table.read_counts());
    assert_eq!(got.len(), 10);
    assert!(
        read.rows <= 11,
        "rows read for LIMIT 10 over 3 regions: {read:?}"
    );
    // So does a LIMIT past the first region's rows.
    let first = t
        .data
        .iter()
        .filter(|o| o.customer.as_str() < "customer-04")
        .count();
    let before = t.table.read_counts();
    let got = query(
        &t.ctx,
        &format!("SELECT number FROM orders LIMIT {}", first + 5),
    )
    .await;
    let read = diff(before, t.table.read_counts());
    assert_eq!(got.len(), first + 5);
    assert!(
        read.rows <= first as u64 + 6,
        "rows read for LIMIT {} over 3 regions: {read:?}",
        first + 5
    );
}

pub(crate) async fn salted_keys_are_read_per_bucket(client: Client) {
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

pub(crate) async fn later_key_parts_are_tested_by_key(client: Client) {
    let (repo, guard) = fresh_split_repository::<Page>(&client, "sql_pages", &[]).await;
    let pages: Vec<Page> = (0..4)
        .flat_map(|s| {
            (0..25).map(move |p| Page {
                site: format!("site-{s}"),
                path: format!("/p{p:02}"),
                hits: s * 100 + p,
            })
        })
        .collect();
    repo.save_all(&pages).await.unwrap();
    let ctx = SessionContext::new();
    let table = EntityTable::<Page>::new(&client)
        .unwrap()
        .on_table(guard.name.clone());
    let table = register_as(&ctx, "pages", table).unwrap();

    // A text part after a delimited one: HBase drops the other rows.
    let before = table.read_counts();
    let got = query(
        &ctx,
        "SELECT site, hits FROM pages WHERE path = '/p07' ORDER BY site",
    )
    .await;
    let read = diff(before, table.read_counts());
    let want: Vec<Vec<String>> = (0..4)
        .map(|s| vec![format!("site-{s}"), (s * 100 + 7).to_string()])
        .collect();
    assert_eq!(got, want);
    assert_eq!(
        read.rows, 4,
        "rows read for one path of every site: {read:?}"
    );

    // With a range on the first part, and with a value condition.
    let got = query(
        &ctx,
        "SELECT site FROM pages WHERE site >= 'site-2' AND path = '/p24' AND hits > 224 \
         ORDER BY site",
    )
    .await;
    assert_eq!(got, vec![vec!["site-3".to_string()]]);
    // A prefix of the second part within one site: those pages only.
    let before = table.read_counts();
    let got = query(
        &ctx,
        "SELECT path FROM pages WHERE site = 'site-1' AND path LIKE '/p1%' ORDER BY path",
    )
    .await;
    let read = diff(before, table.read_counts());
    let want: Vec<Vec<String>> = (10..20).map(|p| vec![format!("/p{p}")]).collect();
    assert_eq!(got, want);
    assert_eq!(read.rows, 10, "rows read for a LIKE prefix: {read:?}");

    // A value no key holds: nothing.
    let got = query(&ctx, "SELECT site FROM pages WHERE path = '/nowhere'").await;
    assert!(got.is_empty(), "{got:?}");

    // A binary part after a delimited text: HBase tests it when its bytes read as text
    // (17 is 00 00 00 11), the client alone when they do not (200 ends in C8, no character).
    let t = orders_table(&client, "sql_number", 250, &[]).await;
    for (number, travel) in [(17, 1), (200, 250)] {
        let before = t.table.read_counts();
        let got = query(
            &t.ctx,
            &format!("SELECT customer, number FROM orders WHERE number = {number}"),
        )
        .await;
        let read = diff(before, t.table.read_counts());
        let o = &t.data[number];
        assert_eq!(got, vec![vec![o.customer.clone(), number.to_string()]]);
        assert_eq!(
            read.rows, travel,
            "rows read for number = {number}: {read:?}"
        );
    }
}

/// A region read whole by a query with more partitions than regions is cut into sub-ranges
/// read at once (one per partition here): every row counted once; a query of a key range, or
/// a table registered with `whole_regions`, reads the region in one piece.
pub(crate) async fn a_region_read_whole_is_cut_into_subranges(client: Client) {
    let t = orders_table(&client, "sql_subranges", 400, &[]).await;
    let context = |table: EntityTable<Order>| {
        let config = datafusion::prelude::SessionConfig::new().with_target_partitions(4);
        let ctx = SessionContext::new_with_config(config);
        register_as(&ctx, "orders", table).unwrap();
        ctx
    };
    let table = || {
        EntityTable::<Order>::new(&client)
            .unwrap()
            .on_table(t.repo.table().name().clone())
    };
    let want_sum: i64 = t.data.iter().map(|o| o.day).sum();
    let want = vec![vec![t.data.len().to_string(), want_sum.to_string()]];
    for (ctx, partitions) in [
        (context(table()), ", partitions=4,"),
        (context(table().whole_regions()), ", partitions=1,"),
    ] {
        let df = ctx
            .sql("SELECT count(*), sum(day) FROM orders")
            .await
            .unwrap();
        let plan = df.clone().create_physical_plan().await.unwrap();
        let shown = displayable(plan.as_ref()).indent(true).to_string();
        assert!(shown.contains(partitions), "{shown}");
        assert_eq!(rows(&df.collect().await.unwrap()), want);
        let some = "SELECT count(*) FROM orders WHERE customer = 'customer-05'";
        let df = ctx.sql(some).await.unwrap();
        let plan = df.create_physical_plan().await.unwrap();
        let shown = displayable(plan.as_ref()).indent(true).to_string();
        assert!(shown.contains(", partitions=1,"), "{shown}");
    }
}
