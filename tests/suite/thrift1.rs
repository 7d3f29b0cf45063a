//! The Thrift1 backend against the real Thrift1 gateway (127.0.0.1:9092, or
//! `$HBASE_ORM_THRIFT1_ADDR`). Tables are made through the Thrift2 gateway (Thrift1 cannot
//! create the test namespace) and read back through both.

use std::time::Duration;

use futures::TryStreamExt;
use hbase_orm::{
    Append, BloomFilter, CheckAndMutate, Client, ColumnFamily, CompareOp, Compression, Delete,
    Durability, Error, Get, Increment, Put, Row, RowMutations, Scan, Table, TableDescriptor,
};
use hbase_orm_suite::{
    client, gateway_address, thrift1_gateway_address, unique_table_name, TestTable,
};

/// A Thrift1 client.
async fn thrift1() -> Client {
    hbase_orm_suite::Target::Thrift1.client().await
}

/// A fresh table with families `d` and `m` (3 versions), with handles through both gateways.
async fn table(label: &str) -> (TestTable, Table, Table) {
    let c2 = client().await;
    let families = vec![
        ColumnFamily::new("d").max_versions(3),
        ColumnFamily::new("m").max_versions(3),
    ];
    let t = TestTable::create(&c2, label, families, &[]).await;
    let t1 = thrift1().await.table_named(t.name.clone());
    let t2 = c2.table_named(t.name.clone());
    (t, t1, t2)
}

/// Asserts `r` is [`Error::Unsupported`] for `operation` on thrift1.
#[track_caller]
fn assert_unsupported<T: std::fmt::Debug>(r: hbase_orm::Result<T>, operation: &str) {
    match r {
        Err(Error::Unsupported {
            operation: op,
            backend: "thrift1",
            ..
        }) if op == operation => {}
        other => panic!("expected Unsupported {operation}, got {other:?}"),
    }
}

/// The row's cells as `(family, qualifier, value)` texts.
fn cells(row: &Row) -> Vec<(String, String, String)> {
    let s = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    row.cells
        .iter()
        .map(|c| (s(&c.family), s(&c.qualifier), s(&c.value)))
        .collect()
}

#[tokio::test]
async fn connects_and_each_client_refuses_the_other_gateway() {
    let c = thrift1().await;
    assert_eq!(c.backend_name(), "thrift1");

    // Each URL names the other gateway's address: the error names the URL to use instead.
    let (one, two) = (thrift1_gateway_address(), gateway_address());
    for (url, found, expected, hint) in [
        (format!("thrift2://{one}"), 1, 2, format!("thrift1://{one}")),
        (format!("thrift1://{two}"), 2, 1, format!("thrift2://{two}")),
    ] {
        let wrong = Client::connect(&url).await.unwrap_err();
        assert!(
            matches!(wrong, Error::WrongGateway { found: f, expected: e, .. } if f == found && e == expected),
            "{url}: {wrong:?}"
        );
        assert!(wrong.to_string().contains(&hint), "{url}: {wrong}");
    }
}

#[tokio::test]
async fn puts_and_gets_with_columns_in_hbase_order() {
    let (_t, t1, t2) = table("t1_getput").await;
    // Text order of "family:qualifier" differs from (family, qualifier) order here.
    let put = Put::new("r1")
        .column("d", "z", "1")
        .column("d", "a:b", "2")
        .column("m", "x", "3");
    t1.put(put).await.unwrap();

    let row = t1.get(Get::new("r1")).await.unwrap().unwrap();
    let expected = vec![
        ("d".into(), "a:b".into(), "2".into()),
        ("d".into(), "z".into(), "1".into()),
        ("m".into(), "x".into(), "3".into()),
    ];
    assert_eq!(cells(&row), expected);
    // Identical through Thrift2, timestamps included.
    assert_eq!(t2.get(Get::new("r1")).await.unwrap().unwrap(), row);

    let row = t1
        .get(Get::new("r1").column("d", "z").family("m"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row.cells.len(), 2);
    assert!(t1.get(Get::new("nope")).await.unwrap().is_none());
    assert!(t1.exists(Get::new("r1")).await.unwrap());
    assert!(!t1.exists(Get::new("r1").column("d", "none")).await.unwrap());

    let many = t1
        .get_many(vec![
            Get::new("r1"),
            Get::new("nope"),
            Get::new("r1").column("m", "x"),
        ])
        .await
        .unwrap();
    assert!(many[0].is_some() && many[1].is_none());
    assert_eq!(cells(many[2].as_ref().unwrap()), vec![expected[2].clone()]);
    let same = t1
        .get_many(vec![Get::new("nope"), Get::new("r1")])
        .await
        .unwrap();
    assert!(same[0].is_none() && same[1].as_ref() == Some(&row_all(&t1).await));
    assert_eq!(
        t1.exists_many(vec![Get::new("r1"), Get::new("x")])
            .await
            .unwrap(),
        vec![true, false]
    );

    t1.put_many(vec![
        Put::new("r2").column("d", "a", "x"),
        Put::new("r3").column_at("d", "a", 5, "y"),
    ])
    .await
    .unwrap();
    let r3 = t2.get(Get::new("r3")).await.unwrap().unwrap();
    assert_eq!(r3.cells[0].timestamp, 5);
}

/// The whole row `r1`.
async fn row_all(t: &Table) -> Row {
    t.get(Get::new("r1")).await.unwrap().unwrap()
}

/// Experiment: what Thrift1's timestamp argument means on the gateway, and how gets with an
/// exact timestamp come out.
#[tokio::test]
async fn timestamps_read_below_an_exclusive_bound_and_exact_ones_by_scan() {
    let (_t, t1, t2) = table("t1_ts").await;
    t1.put(Put::new("r").column_at("d", "a", 100, "v100"))
        .await
        .unwrap();
    t1.put(Put::new("r").timestamp(200).column("d", "a", "v200"))
        .await
        .unwrap();
    t1.put(Put::new("r").column_at("d", "b", 300, "b300"))
        .await
        .unwrap();

    // getRowWithColumnsTs(ts) reads [0, ts): the version AT 200 is not included.
    let row = t1
        .get(Get::new("r").time_range(0, 200))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row.value("d", "a"), Some(&b"v100"[..]));
    let row = t1
        .get(Get::new("r").time_range(0, 201))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row.value("d", "a"), Some(&b"v200"[..]));
    assert!(row.value("d", "b").is_none());

    // Exact timestamps (one-row scan with TimestampsFilter).
    let row = t1.get(Get::new("r").timestamp(100)).await.unwrap().unwrap();
    assert_eq!(cells(&row), vec![("d".into(), "a".into(), "v100".into())]);
    assert_eq!(
        row,
        t2.get(Get::new("r").timestamp(100)).await.unwrap().unwrap()
    );
    assert!(t1
        .get(Get::new("r").timestamp(150))
        .await
        .unwrap()
        .is_none());
    // With a filter too.
    let row = t1
        .get(
            Get::new("r")
                .timestamp(300)
                .filter("QualifierFilter(=, 'binary:b')"),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row.value("d", "b"), Some(&b"b300"[..]));

    assert_unsupported(t1.get(Get::new("r").time_range(50, 200)).await, "get");
    assert_unsupported(t1.get(Get::new("r").max_versions(2)).await, "get");
    assert_unsupported(
        t1.put(
            Put::new("r")
                .column_at("d", "a", 1, "x")
                .column("d", "b", "y"),
        )
        .await,
        "put",
    );
}

/// Experiment: the `_ttl` attribute reaches HBase through Thrift1's attributes map.
#[tokio::test]
async fn put_ttl_passes_as_an_attribute() {
    let (_t, t1, _t2) = table("t1_ttl").await;
    t1.put(
        Put::new("short")
            .column("d", "a", "x")
            .ttl(Duration::from_millis(3000)),
    )
    .await
    .unwrap();
    t1.put(Put::new("long").column("d", "a", "x"))
        .await
        .unwrap();
    assert!(t1.exists(Get::new("short")).await.unwrap());
    // Margins wide enough for a loaded 2-core machine on both sides of the expiry.
    tokio::time::sleep(Duration::from_millis(4500)).await;
    assert!(
        !t1.exists(Get::new("short")).await.unwrap(),
        "ttl not applied"
    );
    assert!(t1.exists(Get::new("long")).await.unwrap());
}

#[tokio::test]
async fn deletes() {
    let (_t, t1, t2) = table("t1_del").await;
    let full = || {
        Put::new("r")
            .column("d", "a", "1")
            .column("d", "b", "2")
            .column("m", "c", "3")
    };
    t1.put(full()).await.unwrap();
    t1.delete(Delete::new("r").column("d", "a")).await.unwrap();
    let row = t2.get(Get::new("r")).await.unwrap().unwrap();
    assert_eq!(row.cells.len(), 2);
    t1.delete(Delete::new("r").family("m")).await.unwrap();
    let row = t2.get(Get::new("r")).await.unwrap().unwrap();
    assert_eq!(cells(&row), vec![("d".into(), "b".into(), "2".into())]);
    t1.delete(Delete::new("r")).await.unwrap();
    assert!(t2.get(Get::new("r")).await.unwrap().is_none());

    // Whole row at or before a timestamp.
    t1.put(Put::new("s").column_at("d", "a", 10, "old"))
        .await
        .unwrap();
    t1.put(Put::new("s").column_at("d", "b", 20, "new"))
        .await
        .unwrap();
    t1.delete(Delete::new("s").timestamp(10)).await.unwrap();
    let row = t2.get(Get::new("s")).await.unwrap().unwrap();
    assert_eq!(cells(&row), vec![("d".into(), "b".into(), "new".into())]);

    t1.put(full()).await.unwrap();
    t1.delete_many(vec![Delete::new("r").column("d", "b"), Delete::new("s")])
        .await
        .unwrap();
    assert!(t2.get(Get::new("s")).await.unwrap().is_none());
    assert_eq!(t2.get(Get::new("r")).await.unwrap().unwrap().cells.len(), 2);

    assert_unsupported(
        t1.delete(Delete::new("r").latest_version("d", "a")).await,
        "delete",
    );
    assert_unsupported(
        t1.delete(Delete::new("r").version("d", "a", 5)).await,
        "delete",
    );
    assert_unsupported(
        t1.delete(Delete::new("r").durability(Durability::SkipWal))
            .await,
        "delete",
    );
}

#[tokio::test]
async fn row_mutations_of_one_kind_or_of_disjoint_columns() {
    let (_t, t1, t2) = table("t1_mut").await;
    t1.mutate_row(
        RowMutations::new("r")
            .put(Put::new("r").column("d", "a", "1"))
            .put(Put::new("r").column("d", "b", "2")),
    )
    .await
    .unwrap();
    assert_eq!(t2.get(Get::new("r")).await.unwrap().unwrap().cells.len(), 2);
    t1.mutate_row(RowMutations::new("r").delete(Delete::new("r").column("d", "a")))
        .await
        .unwrap();
    assert_eq!(t2.get(Get::new("r")).await.unwrap().unwrap().cells.len(), 1);
    // Deletes and puts of different columns: the gateway applies the deletes first, then the
    // puts, which ends where atomic row mutations would.
    let disjoint = RowMutations::new("r")
        .delete(Delete::new("r").column("d", "b"))
        .put(Put::new("r").column("d", "c", "3"));
    t1.mutate_row(disjoint).await.unwrap();
    let row = t2.get(Get::new("r")).await.unwrap().unwrap();
    assert_eq!(row.value("d", "b"), None);
    assert_eq!(row.value("d", "c"), Some(&b"3"[..]));
    // A put into what a delete removes could end differently: refused.
    let overlapping = RowMutations::new("r")
        .delete(Delete::new("r").family("d"))
        .put(Put::new("r").column("d", "e", "5"));
    assert_unsupported(t1.mutate_row(overlapping).await, "mutate_row");
    let whole_row = RowMutations::new("r")
        .delete(Delete::new("r"))
        .put(Put::new("r").column("d", "e", "5"));
    assert_unsupported(t1.mutate_row(whole_row).await, "mutate_row");
    assert_eq!(t2.get(Get::new("r")).await.unwrap().unwrap().cells.len(), 1);
}

#[tokio::test]
async fn scans() {
    let (_t, t1, t2) = table("t1_scan").await;
    let keys = ["a", "b", "c", "d", "e"];
    let puts = keys
        .iter()
        .map(|k| Put::new(*k).column("d", "v", *k).column("m", "x", "m"))
        .collect();
    t1.put_many(puts).await.unwrap();
    let scan_keys = |t: &Table, s: Scan| {
        let stream = t.scan(s);
        async move {
            let rows: Vec<Row> = stream.try_collect().await.unwrap();
            rows.into_iter()
                .map(|r| String::from_utf8(r.key).unwrap())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(scan_keys(&t1, Scan::new()).await, keys);
    assert_eq!(
        scan_keys(&t1, Scan::new().start("b").stop("d")).await,
        ["b", "c"]
    );
    assert_eq!(
        scan_keys(&t1, Scan::new().start("b").stop("e").reversed()).await,
        ["d", "c", "b"]
    );
    assert_eq!(scan_keys(&t1, Scan::new().limit(2)).await, ["a", "b"]);
    assert_eq!(scan_keys(&t1, Scan::new().caching(2)).await, keys);
    assert_eq!(
        scan_keys(&t1, Scan::new().filter("PrefixFilter('c')")).await,
        ["c"]
    );
    let rows: Vec<Row> = t1
        .scan(Scan::new().column("d", "v"))
        .try_collect()
        .await
        .unwrap();
    assert!(rows.iter().all(|r| r.cells.len() == 1));
    let via2: Vec<Row> = t2
        .scan(Scan::new().column("d", "v"))
        .try_collect()
        .await
        .unwrap();
    assert_eq!(rows, via2);
    let rows: Vec<Row> = t1
        .scan(Scan::new().family("m"))
        .try_collect()
        .await
        .unwrap();
    assert!(rows.iter().all(|r| r.cells[0].family == b"m"[..]));
    let all1: Vec<Row> = t1.scan(Scan::new()).try_collect().await.unwrap();
    let all2: Vec<Row> = t2.scan(Scan::new()).try_collect().await.unwrap();
    assert_eq!(all1, all2);

    let bad: hbase_orm::Result<Vec<Row>> = t1.scan(Scan::new().max_versions(3)).try_collect().await;
    assert_unsupported(bad, "scan");
    let bad: hbase_orm::Result<Vec<Row>> =
        t1.scan(Scan::new().time_range(5, 10)).try_collect().await;
    assert_unsupported(bad, "scan");
}

#[tokio::test]
async fn increments_appends_and_check_and_put() {
    let (_t, t1, t2) = table("t1_atomic").await;
    assert_eq!(t1.increment_column("r", "d", "n", 5).await.unwrap(), 5);
    assert_eq!(t1.increment_column("r", "d", "n", -2).await.unwrap(), 3);
    let row = t2.get(Get::new("r")).await.unwrap().unwrap();
    assert_eq!(row.counter("d", "n"), Some(3));
    assert_unsupported(
        t1.increment(Increment::new("r").column("d", "n", 1).column("d", "o", 1))
            .await,
        "increment",
    );

    t1.put(Put::new("r").column("d", "s", "ab")).await.unwrap();
    let row = t1
        .append(
            Append::new("r")
                .column("m", "t", "x")
                .column("d", "s", "cd"),
        )
        .await
        .unwrap();
    assert_eq!(row.value("d", "s"), Some(&b"abcd"[..]));
    assert_eq!(row.value("m", "t"), Some(&b"x"[..]));

    let put = |v: &str| Put::new("r").column("d", "c", v.to_string());
    let cam = CheckAndMutate::if_absent("r", "d", "c").then_put(put("1"));
    assert!(t1.check_and_mutate(cam.clone()).await.unwrap());
    assert!(!t1.check_and_mutate(cam).await.unwrap());
    let cam = CheckAndMutate::if_value("r", "d", "c", CompareOp::Equal, "1").then_put(put("2"));
    assert!(t1.check_and_mutate(cam).await.unwrap());
    assert_eq!(
        t2.get(Get::new("r"))
            .await
            .unwrap()
            .unwrap()
            .value("d", "c"),
        Some(&b"2"[..])
    );
    let cam = CheckAndMutate::if_value("r", "d", "c", CompareOp::Less, "1").then_put(put("3"));
    assert_unsupported(t1.check_and_mutate(cam).await, "check_and_mutate");
    let cam = CheckAndMutate::if_absent("r", "d", "c").then_delete(Delete::new("r"));
    assert_unsupported(t1.check_and_mutate(cam).await, "check_and_mutate");
}

#[tokio::test]
async fn admin() {
    let c1 = thrift1().await;
    let c2 = client().await;
    let name = unique_table_name("t1_admin");
    hbase_orm_suite::ensure_test_namespace(&c2).await;
    let desc = TableDescriptor::new(name.clone())
        .family(
            ColumnFamily::new("d")
                .max_versions(4)
                .compression(Compression::Gz)
                .bloom_filter(BloomFilter::RowCol)
                .ttl(3600)
                .in_memory(true)
                .block_cache(false),
        )
        .family(ColumnFamily::new("e"));
    let a1 = c1.admin();
    a1.create_table(&desc, &[]).await.unwrap();
    let guard = TestTable::adopt(&c2, name.clone());

    let again = a1.create_table(&desc, &[]).await.unwrap_err();
    assert!(matches!(again, Error::AlreadyExists { .. }), "{again:?}");

    let read = a1.describe(&name).await.unwrap();
    let d = read.get_family("d").unwrap();
    assert_eq!(d.max_versions, Some(4));
    assert_eq!(d.compression, Some(Compression::Gz));
    assert_eq!(d.bloom_filter, Some(BloomFilter::RowCol));
    assert_eq!(d.time_to_live, Some(3600));
    assert_eq!((d.in_memory, d.block_cache), (Some(true), Some(false)));
    assert_eq!(d.block_size, None);
    // Options left unset got HBase's defaults, not the Thrift1 IDL's.
    let e = c2.admin().describe(&name).await.unwrap();
    let e = e.get_family("e").unwrap();
    assert_eq!(e.max_versions, Some(1));
    assert_eq!(e.block_cache, Some(true));
    assert_eq!(e.bloom_filter, Some(BloomFilter::Row));

    assert!(a1.table_exists(&name).await.unwrap());
    assert!(a1
        .list_tables(Some(&name.namespace))
        .await
        .unwrap()
        .contains(&name));
    assert!(a1.list_tables(None).await.unwrap().contains(&name));
    assert!(!a1
        .list_tables(Some("default"))
        .await
        .unwrap()
        .contains(&name));
    assert_eq!(a1.region_locations(&name).await.unwrap().len(), 1);

    a1.disable_table(&name).await.unwrap();
    assert!(!a1.is_table_enabled(&name).await.unwrap());
    a1.enable_table(&name).await.unwrap();
    assert!(a1.is_table_enabled(&name).await.unwrap());
    a1.disable_table(&name).await.unwrap();
    a1.delete_table(&name).await.unwrap();
    std::mem::forget(guard); // dropped already
    assert!(!a1.table_exists(&name).await.unwrap());
    let missing = a1.describe(&name).await.unwrap_err();
    assert!(
        matches!(missing, Error::TableNotFound { .. }),
        "{missing:?}"
    );
    let missing = c1
        .table_named(name.clone())
        .get(Get::new("r"))
        .await
        .unwrap_err();
    assert!(
        matches!(missing, Error::TableNotFound { .. }),
        "{missing:?}"
    );
}

#[tokio::test]
async fn unsupported_admin_operations() {
    let a1 = thrift1().await.admin();
    let name = unique_table_name("t1_never");
    // An existing table for the table-level calls (Admin::truncate_table looks it up first).
    let c2 = client().await;
    let guard = TestTable::create(&c2, "t1_unsup", vec![ColumnFamily::new("d")], &[]).await;
    let existing = guard.name.clone();
    assert_unsupported(a1.create_namespace("x").await, "create_namespace");
    assert_unsupported(a1.namespace_exists("x").await, "namespace_exists");
    assert_unsupported(a1.list_namespaces().await, "list_namespaces");
    assert_unsupported(a1.delete_namespace("x").await, "delete_namespace");
    let desc = TableDescriptor::new(name.clone()).family(ColumnFamily::new("d"));
    assert_unsupported(
        a1.create_table(&desc, &[b"m".to_vec()]).await,
        "create_table",
    );
    let desc = TableDescriptor::new(name.clone()).family(ColumnFamily::new("d").block_size(4096));
    assert_unsupported(a1.create_table(&desc, &[]).await, "create_table");
    let x = ColumnFamily::new("x");
    assert_unsupported(a1.add_family(&existing, &x).await, "add_family");
    assert_unsupported(a1.modify_family(&existing, &x).await, "modify_family");
    assert_unsupported(a1.merge_family(&existing, &x).await, "merge_family");
    assert_unsupported(a1.delete_family(&existing, "x").await, "delete_family");
    // Last: Admin::truncate_table disables the table before the backend refuses.
    assert_unsupported(a1.truncate_table(&existing, true).await, "truncate_table");
}
