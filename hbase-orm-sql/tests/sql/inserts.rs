//! `INSERT INTO` an entity table: rows saved as entities, read back by the repository; what
//! cannot be saved is refused with the reason.

use futures::TryStreamExt;
use hbase_orm::{Client, HBaseEntity};
use hbase_orm_sql::{register_as, EntityTable};
use hbase_orm_suite::TestTable;

use crate::common::*;

/// A ticket with a secondary index of its owner's tickets.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    table = "sql_tickets",
    family = "d",
    key_delimiter = '\0',
    index(name = "by_owner", parts = "owner, id")
)]
struct Ticket {
    #[hbase(key)]
    id: u64,
    owner: String,
    title: String,
}

/// Runs a statement, its error as text.
async fn run(
    ctx: &datafusion::prelude::SessionContext,
    sql: &str,
) -> Result<Vec<Vec<String>>, String> {
    let df = ctx.sql(sql).await.map_err(|e| e.to_string())?;
    let batches = df.collect().await.map_err(|e| e.to_string())?;
    Ok(rows(&batches))
}

pub(crate) async fn inserts_save_entities(client: Client) {
    let t = orders_table(&client, "sql_insert", 10, &[]).await;

    // Values of every type, a NULL for an Option.
    let got = run(
        &t.ctx,
        "INSERT INTO orders VALUES \
         ('zed', 1, 20001, 9.5, 'new', NULL, true, 3), \
         ('zed', 2, 20002, 1.25, 'paid', 'by the door', false, 40)",
    )
    .await
    .unwrap();
    assert_eq!(got, vec![vec!["2".to_string()]]);
    let first = Order {
        customer: "zed".into(),
        number: 1,
        day: 20001,
        total: 9.5,
        status: "new".into(),
        note: None,
        paid: true,
        items: 3,
    };
    let second = Order {
        customer: "zed".into(),
        number: 2,
        day: 20002,
        total: 1.25,
        status: "paid".into(),
        note: Some("by the door".into()),
        paid: false,
        items: 40,
    };
    let key = |number| OrderKey {
        customer: "zed".into(),
        number,
    };
    assert_eq!(t.repo.get(&key(1)).await.unwrap(), Some(first.clone()));
    assert_eq!(t.repo.get(&key(2)).await.unwrap(), Some(second.clone()));

    // INSERT ... SELECT from the table itself, and REPLACE INTO over a stored row.
    let got = run(
        &t.ctx,
        "INSERT INTO orders SELECT 'zoe', number, day, total, status, note, paid, items \
         FROM orders WHERE customer = 'zed'",
    )
    .await
    .unwrap();
    assert_eq!(got, vec![vec!["2".to_string()]]);
    let copy = t
        .repo
        .get(&OrderKey {
            customer: "zoe".into(),
            number: 2,
        })
        .await
        .unwrap();
    assert_eq!(
        copy,
        Some(Order {
            customer: "zoe".into(),
            ..second.clone()
        })
    );
    run(
        &t.ctx,
        "REPLACE INTO orders VALUES ('zed', 1, 20001, 9.5, 'shipped', 'late', true, 3)",
    )
    .await
    .unwrap();
    assert_eq!(
        t.repo.get(&key(1)).await.unwrap(),
        Some(Order {
            status: "shipped".into(),
            note: Some("late".into()),
            ..first
        })
    );
    let got = query(&t.ctx, "SELECT count(*) FROM orders").await;
    assert_eq!(got, vec![vec![(t.data.len() + 4).to_string()]]);

    // A NULL where the entity needs a value: nothing of the batch is saved, and the error
    // names the table, the row and the column.
    let err = run(
        &t.ctx,
        "INSERT INTO orders VALUES ('zed', 9, 20009, 1.0, NULL, NULL, true, 1)",
    )
    .await
    .unwrap_err();
    assert!(err.contains("status"), "{err}");
    assert!(err.contains(&t.repo.table().name().to_string()), "{err}");
    assert_eq!(t.repo.get(&key(9)).await.unwrap(), None);
    // The same from a query whose columns are nullable (as a file's are): the row is named
    // by its place in the statement.
    let err = run(
        &t.ctx,
        "INSERT INTO orders SELECT * FROM (VALUES \
         ('zed', 10, 20010, 1.0, 'new', NULL, true, 1), \
         ('zed', 11, 20011, 1.0, NULL, NULL, true, 1))",
    )
    .await
    .unwrap_err();
    for part in ["row 2", "status", &t.repo.table().name().to_string()] {
        assert!(err.contains(part), "{part:?} missing from: {err}");
    }
    assert_eq!(t.repo.get(&key(11)).await.unwrap(), None);

    // An entity with a field a row of single values cannot say is refused with the reason.
    let ctx = datafusion::prelude::SessionContext::new();
    let prices = EntityTable::<crate::layouts::Price>::new(&client).unwrap();
    register_as(&ctx, "prices", prices).unwrap();
    let err = run(&ctx, "INSERT INTO prices VALUES ('pen', [], 'Pen')")
        .await
        .unwrap_err();
    assert!(err.contains("field `price` is a cell's versions"), "{err}");
}

pub(crate) async fn inserts_write_index_rows(client: Client) {
    // The data table and its index table, made afresh (dropped again by the guards).
    let tables = TestTable::ensure_entity::<Ticket>(&client, "sql_tickets").await;
    let name = tables[0].name.clone();
    let ctx = datafusion::prelude::SessionContext::new();
    let table = EntityTable::<Ticket>::new(&client)
        .unwrap()
        .on_table(name.clone());
    register_as(&ctx, "tickets", table).unwrap();

    run(
        &ctx,
        "INSERT INTO tickets VALUES (1, 'ann', 'printer'), (2, 'bob', 'vpn'), (3, 'ann', 'mail')",
    )
    .await
    .unwrap();
    // A row saved again under another owner moves its index row, as a save does.
    run(&ctx, "REPLACE INTO tickets VALUES (2, 'ann', 'vpn')")
        .await
        .unwrap();
    let tickets = client.repository::<Ticket>().on_table(name);
    assert_eq!(owned_by(&tickets, "ann").await, [1, 2, 3]);
    assert_eq!(owned_by(&tickets, "bob").await, Vec::<u64>::new());
}

/// The ids of the tickets the index of `tickets` finds under `owner`.
async fn owned_by(tickets: &hbase_orm::Repository<Ticket>, owner: &str) -> Vec<u64> {
    let found: Vec<Ticket> = tickets
        .index::<TicketByOwner>()
        .prefix(TicketByOwnerKey::prefix_by_owner(&owner.to_string()).unwrap())
        .stream()
        .try_collect()
        .await
        .unwrap();
    found.iter().map(|t| t.id).collect()
}

/// A file of `lines` (a header first) named `name` in directory `dir` (made if need be).
fn file(dir: &std::path::Path, name: &str, lines: &[String]) -> std::path::PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// `INSERT INTO` a table registered for bulk loads, from a Parquet file and CSV files: on the
/// native backend the rows are loaded with their index rows (ids read as signed integers by
/// the file, cast to the entity's unsigned ones), and a row that is no ticket (a value that
/// does not convert, a NULL where a ticket needs a value) fails the statement naming the
/// file's row and column, nothing loaded; elsewhere the load is refused, named.
pub(crate) async fn inserts_by_bulk_load(client: Client) {
    let tables = TestTable::ensure_entity::<Ticket>(&client, "sql_bulk_tickets").await;
    let name = tables[0].name.clone();
    let ctx = datafusion::prelude::SessionContext::new();
    let options = hbase_orm::BulkLoadOptions::new().memory_budget(256 << 10);
    let table = EntityTable::<Ticket>::new(&client)
        .unwrap()
        .on_table(name.clone())
        .insert_by_bulk_load(options);
    register_as(&ctx, "tickets", table).unwrap();
    let n = 20_000i64;
    let lines: Vec<String> = std::iter::once("id,owner,title".to_string())
        .chain((0..n).map(|i| format!("{i},owner{},ticket number {i}", i % 7)))
        .collect();
    // A directory of this test's own (the backends' tests run at once).
    let dir = std::env::temp_dir().join(format!("hbase-orm-sql-import-{}", name.name));
    let csv = file(&dir, "tickets.csv", &lines);
    ctx.register_csv("csv", csv.to_str().unwrap(), Default::default())
        .await
        .unwrap();
    // The same rows as Parquet.
    let parquet = csv.with_extension("parquet");
    ctx.sql("SELECT * FROM csv")
        .await
        .unwrap()
        .write_parquet(parquet.to_str().unwrap(), Default::default(), None)
        .await
        .unwrap();
    ctx.register_parquet("file", parquet.to_str().unwrap(), Default::default())
        .await
        .unwrap();
    let inserted = run(
        &ctx,
        "INSERT INTO tickets SELECT id, owner, title FROM file",
    )
    .await;
    let tickets = client.repository::<Ticket>().on_table(name.clone());
    let native = client.config().gateway == hbase_orm::Gateway::NativeRpc;
    if !native {
        std::fs::remove_dir_all(&dir).unwrap();
        let err = inserted.unwrap_err();
        assert!(err.contains("bulk_load_stream"), "{err}");
        assert_eq!(tickets.get(&TicketKey { id: 1 }).await.unwrap(), None);
        return;
    }
    assert_eq!(inserted.unwrap(), vec![vec![n.to_string()]]);
    for id in [0u64, 1, 19_999] {
        let want = Ticket {
            id,
            owner: format!("owner{}", id % 7),
            title: format!("ticket number {id}"),
        };
        assert_eq!(tickets.get(&TicketKey { id }).await.unwrap(), Some(want));
    }
    let count = query(&ctx, "SELECT count(*) FROM tickets").await;
    assert_eq!(count, vec![vec![n.to_string()]]);
    let of_3 = owned_by(&tickets, "owner3").await;
    assert_eq!(of_3.len() as i64, n / 7);
    assert!(of_3.iter().all(|id| id % 7 == 3));

    // Files with a row that is no ticket: nothing of them is loaded.
    let mut bad_id = vec!["id,owner,title".to_string()];
    bad_id.extend((0..5).map(|i| format!("{},late,bad id {i}", 30_000 + i)));
    bad_id[4] = "x17,late,not a number".into();
    let mut no_title = vec!["id,owner,title".to_string()];
    no_title.extend((0..5).map(|i| format!("{},late,", 40_000 + i)));
    no_title[2] = "40001,late,the only title".into();
    for (name, lines, parts) in [
        ("bad_id.csv", bad_id, ["row 4", "`id`", "x17"]),
        ("no_title.csv", no_title, ["row 1", "`title`", "NULL where"]),
    ] {
        let path = file(&dir, name, &lines);
        let table = name.trim_end_matches(".csv");
        ctx.register_csv(table, path.to_str().unwrap(), Default::default())
            .await
            .unwrap();
        let err = run(&ctx, &format!("INSERT INTO tickets SELECT * FROM {table}"))
            .await
            .unwrap_err();
        for part in parts {
            assert!(err.contains(part), "{part:?} missing from: {err}");
        }
    }
    for id in [30_000, 30_001, 40_001] {
        assert_eq!(tickets.get(&TicketKey { id }).await.unwrap(), None);
    }
    assert!(owned_by(&tickets, "late").await.is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `INSERT INTO` a table registered to insert per partition, from a directory of CSV files
/// (a partition per file at least): each partition's rows saved by a writer of its own, or,
/// registered for bulk loads too, loaded by a load of its own (native backend; refused
/// elsewhere, named), with their index rows; the statement's count is the sum of the
/// partitions'. A row that is no ticket is named with its partition.
pub(crate) async fn inserts_per_partition(client: Client) {
    let native = client.config().gateway == hbase_orm::Gateway::NativeRpc;
    let n = 6_000u64;
    for bulk in [false, true] {
        let label = if bulk { "sql_apart_bulk" } else { "sql_apart" };
        let tables = TestTable::ensure_entity::<Ticket>(&client, label).await;
        let name = tables[0].name.clone();
        let ctx = datafusion::prelude::SessionContext::new();
        let mut table = EntityTable::<Ticket>::new(&client)
            .unwrap()
            .on_table(name.clone())
            .insert_per_partition();
        if bulk {
            table = table.insert_by_bulk_load(hbase_orm::BulkLoadOptions::new());
        }
        assert!(table.inserts_per_partition());
        register_as(&ctx, "tickets", table).unwrap();
        // Four files of 1,500 tickets each, in a directory of this test's own.
        let dir = std::env::temp_dir().join(format!("hbase-orm-sql-apart-{}", name.name));
        // What a failed run left.
        let _ = std::fs::remove_dir_all(&dir);
        for f in 0..4u64 {
            let lines: Vec<String> = std::iter::once("id,owner,title".to_string())
                .chain(
                    (f * n / 4..(f + 1) * n / 4).map(|i| format!("{i},owner{},ticket {i}", i % 7)),
                )
                .collect();
            file(&dir, &format!("part{f}.csv"), &lines);
        }
        ctx.register_csv("files", dir.to_str().unwrap(), Default::default())
            .await
            .unwrap();
        let sql = "INSERT INTO tickets SELECT id, owner, title FROM files";
        let plan = query(&ctx, &format!("EXPLAIN {sql}")).await;
        let plan = plan
            .iter()
            .map(|r| r.join(" "))
            .collect::<Vec<_>>()
            .join("\n");
        assert!(plan.contains("EntityWriteExec: table="), "{plan}");
        assert!(
            !plan.contains("partitions=1\n"),
            "one partition written: {plan}"
        );
        let inserted = run(&ctx, sql).await;
        let tickets = client.repository::<Ticket>().on_table(name.clone());
        if bulk && !native {
            let err = inserted.unwrap_err();
            assert!(err.contains("bulk_load_stream"), "{err}");
            assert_eq!(tickets.get(&TicketKey { id: 1 }).await.unwrap(), None);
            std::fs::remove_dir_all(&dir).unwrap();
            continue;
        }
        assert_eq!(inserted.unwrap(), vec![vec![n.to_string()]], "{label}");
        let count = query(&ctx, "SELECT count(*), sum(id) FROM tickets").await;
        assert_eq!(
            count,
            vec![vec![n.to_string(), (n * (n - 1) / 2).to_string()]],
            "{label}"
        );
        for id in [0, 1_499, 1_500, n - 1] {
            let want = Ticket {
                id,
                owner: format!("owner{}", id % 7),
                title: format!("ticket {id}"),
            };
            assert_eq!(tickets.get(&TicketKey { id }).await.unwrap(), Some(want));
        }
        let of_3 = owned_by(&tickets, "owner3").await;
        assert_eq!(
            of_3.len() as u64,
            (0..n).filter(|i| i % 7 == 3).count() as u64
        );

        // A row that is no ticket (no title), in a file of its own: named with its partition.
        file(
            &dir,
            "part9.csv",
            &["id,owner,title".to_string(), "99999,late,".to_string()],
        );
        ctx.deregister_table("files").unwrap();
        ctx.register_csv("files", dir.to_str().unwrap(), Default::default())
            .await
            .unwrap();
        let err = run(&ctx, sql).await.unwrap_err();
        for part in [" of partition ", "`title`", "NULL where"] {
            assert!(err.contains(part), "{part:?} missing from: {err}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
