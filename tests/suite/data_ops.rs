//! Data calls of the raw client on every backend (see `hbase_orm_suite::conformance!`), each
//! checked by reading back.

use futures::StreamExt;
use hbase_orm::{
    Append, CheckAndMutate, ColumnFamily, CompareOp, Delete, Error, Get, Increment, Put,
    RowMutations, Scan,
};
use hbase_orm_suite::{label, row_keys, unsupported_on, with_table};

fn families() -> Vec<ColumnFamily> {
    vec![
        ColumnFamily::new("d").max_versions(5),
        ColumnFamily::new("x"),
    ]
}

fn s(b: &[u8]) -> &str {
    std::str::from_utf8(b).unwrap()
}

/// The delete cases Thrift1 can express, on rows of one version per cell (it writes one
/// timestamp per call and reads the newest version only); single-version deletes refused.
async fn thrift1_deletes(t: &hbase_orm::Table) {
    let cases: Vec<(&str, Delete, Vec<&str>)> = vec![
        (
            "column",
            Delete::new("column").column("d", "a"),
            vec!["d:b", "x:c"],
        ),
        ("family", Delete::new("family").family("d"), vec!["x:c"]),
        (
            "mixed",
            Delete::new("mixed").family("x").column("d", "b"),
            vec!["d:a"],
        ),
        ("row", Delete::new("row"), vec![]),
    ];
    for (row, delete, expected) in cases {
        let put = Put::new(row)
            .column("d", "a", "1")
            .column("d", "b", "1")
            .column("x", "c", "1");
        t.put(put).await.unwrap();
        t.delete(delete).await.unwrap();
        let left: Vec<String> = t
            .get(Get::new(row))
            .await
            .unwrap()
            .map(|r| {
                r.cells
                    .iter()
                    .map(|c| format!("{}:{}", s(&c.family), s(&c.qualifier)))
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(left, expected, "case {row}");
    }
    for one_version in [
        Delete::new("row").latest_version("d", "a"),
        Delete::new("row").version("d", "a", 10),
    ] {
        unsupported_on(t.client(), &["thrift1"], t.delete(one_version).await);
    }
}

#[tokio::test]
async fn concurrent_calls_share_a_small_pool() {
    let c = hbase_orm_suite::connect_with(hbase_orm::Config {
        address: hbase_orm_suite::gateway_address(),
        pool_size: 3,
        ..Default::default()
    })
    .await;
    with_table(&c, "concurrent", families(), &[], |t| async move {
        let writes = (0..64).map(|i| {
            let t = t.clone();
            async move {
                t.put(Put::new(format!("r{i:02}")).column("d", "v", i.to_string()))
                    .await
            }
        });
        for r in futures::future::join_all(writes).await {
            r.unwrap();
        }
        let reads = (0..64).map(|i| {
            let t = t.clone();
            async move { t.get(Get::new(format!("r{i:02}"))).await }
        });
        for (i, r) in futures::future::join_all(reads)
            .await
            .into_iter()
            .enumerate()
        {
            let row = r.unwrap().unwrap();
            assert_eq!(row.value("d", "v"), Some(i.to_string().as_bytes()));
        }
        let n = t.scan(Scan::new()).count().await;
        assert_eq!(n, 64);
    })
    .await;
}

#[tokio::test]
async fn a_call_the_gateway_fails_internally_is_a_server_error_and_the_connection_survives() {
    let c = hbase_orm_suite::connect_with(hbase_orm::Config {
        address: hbase_orm_suite::gateway_address(),
        pool_size: 1,
        ..Default::default()
    })
    .await;
    with_table(&c, "appexc", families(), &[], |t| async move {
        // An empty row mutation makes the gateway answer with an application exception.
        let err = t.mutate_row(RowMutations::new("r")).await.unwrap_err();
        assert!(matches!(err, Error::Server { .. }), "{err}");
        let opened = t.client().stats().connections_opened;
        t.put(Put::new("r").column("d", "v", "1")).await.unwrap();
        assert_eq!(
            t.client().stats().connections_opened,
            opened,
            "the same connection served on"
        );
    })
    .await;
}

hbase_orm_suite::conformance! {
    async fn put_and_get_read_back_families_columns_and_versions(c: Client) {
        with_table(&c, "putget", families(), &[], |t| async move {
            // One put whose cells carry different timestamps (Thrift1 sends one per call).
            let mixed = Put::new("r1")
                .column_at("d", "name", 100, "old")
                .column_at("d", "name", 200, "new")
                .column("d", "city", "Oslo")
                .column("x", "flag", vec![1u8]);
            if unsupported_on(t.client(), &["thrift1"], t.put(mixed).await).is_none() {
                for put in [
                    Put::new("r1").column_at("d", "name", 100, "old"),
                    Put::new("r1").column_at("d", "name", 200, "new"),
                    Put::new("r1")
                        .column("d", "city", "Oslo")
                        .column("x", "flag", vec![1u8]),
                ] {
                    t.put(put).await.unwrap();
                }
            }

            let row = t.get(Get::new("r1")).await.unwrap().expect("row exists");
            assert_eq!(row.key, b"r1");
            assert_eq!(row.value("d", "name"), Some(&b"new"[..]));
            assert_eq!(row.value("d", "city"), Some(&b"Oslo"[..]));
            assert_eq!(row.value("x", "flag"), Some(&[1u8][..]));
            assert_eq!(
                row.versions("d", "name").count(),
                1,
                "default reads one version"
            );

            // Thrift1 reads one version per column.
            let all = t
                .get(Get::new("r1").column("d", "name").max_versions(5))
                .await;
            if let Some(all) = unsupported_on(t.client(), &["thrift1"], all) {
                let all = all.unwrap();
                let versions: Vec<_> = all
                    .versions("d", "name")
                    .map(|c| (c.timestamp, s(&c.value)))
                    .collect();
                assert_eq!(versions, vec![(200, "new"), (100, "old")]);
                assert_eq!(all.cells.len(), 2, "only the requested column");
            }

            let family = t.get(Get::new("r1").family("x")).await.unwrap().unwrap();
            assert_eq!(family.cells.len(), 1);
            assert_eq!(family.cells[0].family, &b"x"[..]);

            let at = t
                .get(Get::new("r1").column("d", "name").timestamp(100))
                .await
                .unwrap()
                .unwrap();
            assert_eq!(at.value("d", "name"), Some(&b"old"[..]));
            // Thrift1 sends only a range's upper bound.
            let range = t
                .get(Get::new("r1").column("d", "name").time_range(150, 250))
                .await;
            if let Some(range) = unsupported_on(t.client(), &["thrift1"], range) {
                assert_eq!(range.unwrap().value("d", "name"), Some(&b"new"[..]));
            }
            let below = t
                .get(Get::new("r1").column("d", "name").time_range(0, 150))
                .await
                .unwrap()
                .unwrap();
            assert_eq!(below.value("d", "name"), Some(&b"old"[..]));

            let filtered = t
                .get(Get::new("r1").filter("QualifierFilter(=, 'binary:city')"))
                .await
                .unwrap()
                .unwrap();
            assert_eq!(filtered.cells.len(), 1);
            assert_eq!(filtered.value("d", "city"), Some(&b"Oslo"[..]));

            assert!(t.get(Get::new("missing")).await.unwrap().is_none());
            let err = t.get(Get::new("")).await.unwrap_err();
            assert!(matches!(err, Error::IllegalArgument { .. }), "{err}");
        })
        .await;
    }

    async fn get_many_exists_and_exists_many_keep_request_order(c: Client) {
        with_table(&c, "multi", families(), &[], |t| async move {
            t.put_many(vec![
                Put::new("a").column("d", "v", "1"),
                Put::new("c").column("d", "v", "3"),
            ])
            .await
            .unwrap();
            let rows = t
                .get_many(vec![Get::new("c"), Get::new("b"), Get::new("a")])
                .await
                .unwrap();
            let values: Vec<_> = rows
                .iter()
                .map(|r| {
                    r.as_ref()
                        .map(|r| s(r.value("d", "v").unwrap()).to_string())
                })
                .collect();
            assert_eq!(values, vec![Some("3".into()), None, Some("1".into())]);

            assert!(t.exists(Get::new("a")).await.unwrap());
            assert!(!t.exists(Get::new("b")).await.unwrap());
            assert!(!t.exists(Get::new("a").column("d", "other")).await.unwrap());
            assert_eq!(
                t.exists_many(vec![Get::new("b"), Get::new("c")])
                    .await
                    .unwrap(),
                vec![false, true]
            );
        })
        .await;
    }

    async fn put_many_and_delete_many_write_and_remove_every_row(c: Client) {
        with_table(&c, "batch", families(), &[], |t| async move {
            let puts: Vec<_> = (0..500)
                .map(|i| Put::new(format!("k{i:04}")).column("d", "v", i.to_string()))
                .collect();
            t.put_many(puts).await.unwrap();
            let keys = row_keys(&t, Scan::new()).await;
            assert_eq!(keys.len(), 500);
            assert_eq!(keys[0], b"k0000");
            assert_eq!(keys[499], b"k0499");

            let deletes: Vec<_> = (0..500)
                .step_by(2)
                .map(|i| Delete::new(format!("k{i:04}")))
                .collect();
            t.delete_many(deletes).await.unwrap();
            let left = row_keys(&t, Scan::new()).await;
            assert_eq!(left.len(), 250);
            assert!(
                left.iter().all(|k| (k[4] - b'0') % 2 == 1),
                "only odd keys remain"
            );

            // Nothing to do is not an error.
            t.put_many(vec![]).await.unwrap();
            t.delete_many(vec![]).await.unwrap();
        })
        .await;
    }

    async fn a_batch_with_a_bad_row_names_exactly_the_rows_not_written(c: Client) {
        with_table(&c, "partial", families(), &[], |t| async move {
            let puts = vec![
                Put::new("ok1").column("d", "v", "1"),
                Put::new("bad").column("nosuchfamily", "v", "2"),
                Put::new("ok2").column("d", "v", "3"),
            ];
            let err = t.put_many(puts).await.unwrap_err();
            match &err {
                Error::PartialBatch {
                    operation,
                    total,
                    failed_rows,
                    ..
                } => {
                    assert_eq!(*operation, "put_many");
                    assert_eq!(*total, 3);
                    assert_eq!(failed_rows, &vec![b"bad".to_vec()]);
                }
                other => panic!("expected PartialBatch, got {other}"),
            }
            assert!(err.to_string().contains("1 of 3 rows failed"), "{err}");
            assert!(t.exists(Get::new("ok1")).await.unwrap());
            assert!(t.exists(Get::new("ok2")).await.unwrap());
        })
        .await;
    }

    async fn mutate_rows_applies_each_row_whole_and_names_the_rows_not_written(c: Client) {
        // Thrift1's gateway applies a row's deletes, then its puts, as two operations: a row
        // whose put fails has had its deletes applied (the README's table of backends).
        let atomic = !label(&c).starts_with("thrift1");
        with_table(&c, "mutate_rows", families(), &[], |t| async move {
            let rows: Vec<String> = (0..40).map(|i| format!("r{i:02}")).collect();
            t.put_many(rows.iter().map(|r| Put::new(r.as_str()).column("d", "old", "x")).collect())
                .await
                .unwrap();
            // Each row puts `new` and deletes `old`, but r07 puts into a family the table lacks
            // too: it fails whole (its `old` stays, its `new` is not written), the others apply.
            let batch: Vec<RowMutations> = rows
                .iter()
                .map(|r| {
                    let mut put = Put::new(r.as_str()).column("d", "new", format!("{r} v2"));
                    if r == "r07" {
                        put = put.column("nosuchfamily", "q", "v");
                    }
                    RowMutations::new(r.as_str())
                        .put(put)
                        .delete(Delete::new(r.as_str()).column("d", "old"))
                })
                .collect();
            let err = t.mutate_rows(&batch).await.unwrap_err();
            let Error::PartialBatch { operation, total, failed_rows, .. } = &err else {
                panic!("expected PartialBatch, got {err}");
            };
            assert_eq!((*operation, *total), ("mutate_rows", 40));
            assert_eq!(failed_rows, &vec![b"r07".to_vec()]);
            for r in &rows {
                let row = t.get(Get::new(r.as_str())).await.unwrap();
                if r == "r07" {
                    let old = row.as_ref().and_then(|row| row.value("d", "old"));
                    let new = row.as_ref().and_then(|row| row.value("d", "new"));
                    assert_eq!(old, atomic.then_some(&b"x"[..]), "{r}");
                    assert_eq!(new, None, "{r}");
                } else {
                    let row = row.unwrap();
                    assert_eq!(row.value("d", "old"), None, "{r}");
                    assert_eq!(row.value("d", "new"), Some(format!("{r} v2").as_bytes()), "{r}");
                }
            }
            // One mutation per row, and none at all, are batches too.
            t.mutate_rows(&[RowMutations::new("solo").put(Put::new("solo").column("d", "v", "1"))])
                .await
                .unwrap();
            assert!(t.exists(Get::new("solo")).await.unwrap());
            t.mutate_rows(&[]).await.unwrap();
        })
        .await;
    }

    async fn deletes_remove_exactly_their_targets(c: Client) {
        with_table(&c, "delete", families(), &[], |t| async move {
            // Each case uses its own row: HBase's delete markers keep masking later puts that
            // reuse the same timestamps, so rewriting one row would test the markers instead.
            let base = |row: &str| {
                Put::new(row)
                    .column_at("d", "a", 10, "a10")
                    .column_at("d", "a", 20, "a20")
                    .column_at("d", "b", 10, "b10")
                    .column_at("x", "c", 10, "c10")
            };
            let read = |t: hbase_orm::Table, row: &'static str| async move {
                let row = t.get(Get::new(row).max_versions(5)).await.unwrap();
                row.map(|r| {
                    r.cells
                        .iter()
                        .map(|c| format!("{}:{}@{}", s(&c.family), s(&c.qualifier), c.timestamp))
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
            };
            let cases: Vec<(&'static str, Delete, Vec<&str>)> = vec![
                (
                    "latest",
                    Delete::new("latest").latest_version("d", "a"),
                    vec!["d:a@10", "d:b@10", "x:c@10"],
                ),
                (
                    "version",
                    Delete::new("version").version("d", "a", 10),
                    vec!["d:a@20", "d:b@10", "x:c@10"],
                ),
                (
                    "column",
                    Delete::new("column").column("d", "a"),
                    vec!["d:b@10", "x:c@10"],
                ),
                ("family", Delete::new("family").family("d"), vec!["x:c@10"]),
                // Mixed targets go as one atomic row mutation.
                (
                    "mixed",
                    Delete::new("mixed").family("x").column("d", "b"),
                    vec!["d:a@20", "d:a@10"],
                ),
                // A whole-row delete up to a timestamp keeps newer cells.
                ("upto", Delete::new("upto").timestamp(15), vec!["d:a@20"]),
                ("row", Delete::new("row"), vec![]),
            ];
            if label(t.client()).starts_with("thrift1") {
                thrift1_deletes(&t).await;
                return;
            }
            for (row, delete, expected) in cases {
                t.put(base(row)).await.unwrap();
                t.delete(delete).await.unwrap();
                assert_eq!(read(t.clone(), row).await, expected, "case {row}");
            }
        })
        .await;
    }

    async fn mutate_row_applies_puts_and_deletes_together(c: Client) {
        with_table(&c, "mutate", families(), &[], |t| async move {
            t.put(Put::new("r").column("d", "old", "x")).await.unwrap();
            t.mutate_row(
                RowMutations::new("r")
                    .put(Put::new("r").column("d", "new", "y"))
                    .delete(Delete::new("r").column("d", "old")),
            )
            .await
            .unwrap();
            let row = t.get(Get::new("r")).await.unwrap().unwrap();
            assert_eq!(row.value("d", "new"), Some(&b"y"[..]));
            assert_eq!(row.value("d", "old"), None);

            // A mutation for another row is refused before anything is sent.
            let err = t
                .mutate_row(RowMutations::new("r").put(Put::new("other").column("d", "a", "1")))
                .await
                .unwrap_err();
            assert!(matches!(err, Error::IllegalArgument { .. }), "{err}");
            // A family that does not exist fails the whole mutation: nothing is applied.
            let err = t
                .mutate_row(
                    RowMutations::new("r")
                        .put(Put::new("r").column("d", "z", "1"))
                        .put(Put::new("r").column("nosuchfamily", "a", "1")),
                )
                .await
                .unwrap_err();
            assert!(matches!(err, Error::Server { .. }), "{err}");
            assert!(t
                .get(Get::new("r").column("d", "z"))
                .await
                .unwrap()
                .is_none());
        })
        .await;
    }

    async fn check_and_mutate_applies_only_when_the_check_passes(c: Client) {
        with_table(&c, "cas", families(), &[], |t| async move {
            let claim = |who: &str| {
                CheckAndMutate::if_absent("lock", "d", "owner").then_put(Put::new("lock").column(
                    "d",
                    "owner",
                    who.to_string(),
                ))
            };
            assert!(t.check_and_mutate(claim("alice")).await.unwrap());
            assert!(!t.check_and_mutate(claim("bob")).await.unwrap());
            let owner = t.get(Get::new("lock")).await.unwrap().unwrap();
            assert_eq!(owner.value("d", "owner"), Some(&b"alice"[..]));

            let release = |who: &str| {
                CheckAndMutate::if_value("lock", "d", "owner", CompareOp::Equal, who.to_string())
                    .then_delete(Delete::new("lock").column("d", "owner"))
            };
            // Thrift1's checkAndPut can only put.
            let released = t.check_and_mutate(release("bob")).await;
            if let Some(passed) = unsupported_on(t.client(), &["thrift1"], released) {
                assert!(!passed);
                assert!(t.check_and_mutate(release("alice")).await.unwrap());
                assert!(t.get(Get::new("lock")).await.unwrap().is_none());
            }

            // Pin down how HBase reads the operator: `given <op> stored`.
            t.put(Put::new("n").column("d", "v", "5")).await.unwrap();
            let mark = |op, given: &str| {
                CheckAndMutate::if_value("n", "d", "v", op, given.to_string())
                    .then_put(Put::new("n").column("d", "hit", "1"))
            };
            assert!(!t
                .check_and_mutate(mark(CompareOp::Equal, "4"))
                .await
                .unwrap());
            assert!(t
                .check_and_mutate(mark(CompareOp::Equal, "5"))
                .await
                .unwrap());
            // Thrift1's checkAndPut only compares for equality.
            let less = t.check_and_mutate(mark(CompareOp::Less, "3")).await;
            if let Some(passed) = unsupported_on(t.client(), &["thrift1"], less) {
                assert!(passed, "3 < 5");
                assert!(
                    !t.check_and_mutate(mark(CompareOp::Less, "7"))
                        .await
                        .unwrap(),
                    "7 < 5 is false"
                );
                assert!(
                    t.check_and_mutate(mark(CompareOp::Greater, "7"))
                        .await
                        .unwrap(),
                    "7 > 5"
                );
                assert!(t
                    .check_and_mutate(mark(CompareOp::NotEqual, "4"))
                    .await
                    .unwrap());
            }
        })
        .await;
    }

    async fn increment_and_append_return_and_store_new_values(c: Client) {
        with_table(&c, "counters", families(), &[], |t| async move {
            assert_eq!(t.increment_column("page", "d", "hits", 1).await.unwrap(), 1);
            assert_eq!(
                t.increment_column("page", "d", "hits", 41).await.unwrap(),
                42
            );
            // Several counters at once: one atomic increment (Thrift1 has none).
            let both = t
                .increment(
                    Increment::new("page")
                        .column("d", "hits", -2)
                        .column("x", "other", 5),
                )
                .await;
            match unsupported_on(t.client(), &["thrift1"], both) {
                Some(row) => {
                    assert_eq!(row.counter("d", "hits"), Some(40));
                    assert_eq!(row.counter("x", "other"), Some(5));
                }
                None => {
                    assert_eq!(t.increment_column("page", "d", "hits", -2).await.unwrap(), 40);
                    assert_eq!(t.increment_column("page", "x", "other", 5).await.unwrap(), 5);
                }
            }
            let stored = t.get(Get::new("page")).await.unwrap().unwrap();
            assert_eq!(stored.value("d", "hits"), Some(&40i64.to_be_bytes()[..]));

            let row = t
                .append(Append::new("log").column("d", "l", "a"))
                .await
                .unwrap();
            assert_eq!(row.value("d", "l"), Some(&b"a"[..]));
            let row = t
                .append(Append::new("log").column("d", "l", "bc"))
                .await
                .unwrap();
            assert_eq!(row.value("d", "l"), Some(&b"abc"[..]));

            // Incrementing a cell that is not an 8-byte counter is HBase's error, reported as such.
            t.put(Put::new("text").column("d", "n", "abc"))
                .await
                .unwrap();
            let err = t.increment_column("text", "d", "n", 1).await.unwrap_err();
            assert!(matches!(err, Error::Server { .. }), "{err}");
        })
        .await;
    }

    async fn delete_many_keeps_mixed_deletes_atomic_and_counts_rows(c: Client) {
        with_table(&c, "delmany", families(), &[], |t| async move {
            for r in ["a", "b", "c"] {
                t.put(
                    Put::new(r)
                        .column("d", "x", "1")
                        .column("d", "y", "2")
                        .column("x", "z", "3"),
                )
                .await
                .unwrap();
            }
            t.delete_many(vec![
                Delete::new("a"),
                Delete::new("b").column("d", "x").family("x"),
                Delete::new("c").column("d", "y"),
            ])
            .await
            .unwrap();
            assert!(t.get(Get::new("a")).await.unwrap().is_none());
            let b = t.get(Get::new("b")).await.unwrap().unwrap();
            assert_eq!(b.cells.len(), 1);
            assert_eq!(b.value("d", "y"), Some(&b"2"[..]));
            let cr = t.get(Get::new("c")).await.unwrap().unwrap();
            assert_eq!(cr.cells.len(), 2);
        })
        .await;
    }
}
