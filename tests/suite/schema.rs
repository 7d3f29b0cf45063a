//! Schema from entities against a real HBase: every family option and the region replication
//! created and read back, pre-split regions, `ensure` idempotence, changed options applied,
//! undeclared families and their data left alone, record types merged into one table, per-day
//! table templates, and the design advice.

use hbase_orm::advice;
use hbase_orm::{
    BloomFilter, Client, Compression, DataBlockEncoding, Error, Get, HBaseEntity, KeepDeletedCells,
    TableName,
};
use hbase_orm_suite::{client, ensure_test_namespace, region_starts, unique_table_name, TestTable};

/// Every option on family `d`, defaults on `m`.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    table = "tuned",
    family = "d",
    family_options(d(
        max_versions = 7,
        min_versions = 1,
        ttl = 604800,
        compression = "gz",
        bloom_filter = "rowcol",
        block_size = 16384,
        block_cache = false,
        in_memory = true,
        data_block_encoding = "fast_diff",
        keep_deleted_cells = "true"
    )),
    split(key = "g", key = "p"),
    region_replication = 2
)]
struct Tuned {
    #[hbase(key)]
    id: String,
    v: String,
    #[hbase(family = "m")]
    meta: Option<String>,
}

/// A fresh table name for `T`'s schema; dropped by the guard.
async fn fresh(c: &Client, label: &str) -> (TableName, TestTable) {
    ensure_test_namespace(c).await;
    let name = unique_table_name(label);
    (name.clone(), TestTable::adopt(c, name))
}

#[tokio::test]
async fn ensure_creates_every_option_and_split_and_reads_them_back_equal() {
    let c = client().await;
    let admin = c.admin();
    let (name, _drop) = fresh(&c, "tuned").await;
    let schema = Tuned::schema_for(name.clone());
    let report = admin.ensure_schema(&schema).await.unwrap();
    assert!(report.created_table && !report.is_noop(), "{report}");

    let described = admin.describe(&name).await.unwrap();
    let declared = schema.descriptor.get_family("d").unwrap();
    assert_eq!(
        described.get_family("d"),
        Some(declared),
        "every declared option read back"
    );
    let d = described.get_family("d").unwrap();
    assert_eq!(d.compression, Some(Compression::Gz));
    assert_eq!(d.bloom_filter, Some(BloomFilter::RowCol));
    assert_eq!(d.data_block_encoding, Some(DataBlockEncoding::FastDiff));
    assert_eq!(d.keep_deleted_cells, Some(KeepDeletedCells::True));
    assert_eq!(described.get_family("m").unwrap().max_versions, Some(1));

    assert_eq!(described.region_replication, 2);

    // The gateway lists each region once per replica.
    let mut starts = region_starts(&c, &name).await;
    starts.dedup();
    assert_eq!(starts, vec![vec![], b"g".to_vec(), b"p".to_vec()]);

    let again = admin.ensure_schema(&schema).await.unwrap();
    assert!(
        again.is_noop(),
        "the second ensure changes nothing: {again}"
    );
    assert!(!again.split_keys_differ);
}

/// Uniform splits over an MD5-led key; salt splits by default.
#[derive(HBaseEntity)]
#[hbase(table = "uniform", family = "d", split(uniform = 4))]
struct Uniform {
    #[hbase(key(md5 = 8))]
    user: String,
}

#[derive(HBaseEntity)]
#[hbase(table = "salted", family = "d", salt(buckets = 6))]
struct Salted {
    #[hbase(key)]
    id: u64,
}

#[tokio::test]
async fn uniform_and_salt_splits_become_region_boundaries() {
    let c = client().await;
    let admin = c.admin();
    let (u, _d1) = fresh(&c, "uniform").await;
    admin
        .ensure_schema(&Uniform::schema_for(u.clone()))
        .await
        .unwrap();
    let starts = region_starts(&c, &u).await;
    assert_eq!(
        starts,
        vec![vec![], vec![0x40, 0], vec![0x80, 0], vec![0xC0, 0]]
    );

    let (s, _d2) = fresh(&c, "saltsplit").await;
    admin
        .ensure_schema(&Salted::schema_for(s.clone()))
        .await
        .unwrap();
    let starts = region_starts(&c, &s).await;
    assert_eq!(
        starts,
        vec![vec![], vec![1], vec![2], vec![3], vec![4], vec![5]],
        "one region per bucket"
    );
}

/// Version 1 of an entity's layout, and version 2 that changes an option and drops `x`.
#[derive(HBaseEntity)]
#[hbase(table = "evolve", family = "d", family_options(d(max_versions = 1)))]
struct V1 {
    #[hbase(key)]
    id: String,
    a: String,
    #[hbase(family = "x")]
    old: Option<String>,
}

#[derive(HBaseEntity, Debug, PartialEq)]
#[hbase(
    table = "evolve",
    family = "d",
    family_options(d(max_versions = 5, ttl = 3600))
)]
struct V2 {
    #[hbase(key)]
    id: String,
    a: String,
    #[hbase(family = "n")]
    added: Option<String>,
}

#[tokio::test]
async fn ensure_applies_changed_options_adds_families_and_never_drops_one() {
    let c = client().await;
    let admin = c.admin();
    let (name, _drop) = fresh(&c, "evolve").await;
    admin
        .ensure_schema(&V1::schema_for(name.clone()))
        .await
        .unwrap();
    c.repository::<V1>()
        .on_table(name.clone())
        .save(&V1 {
            id: "r".into(),
            a: "1".into(),
            old: Some("keep me".into()),
        })
        .await
        .unwrap();

    // A setting no entity declares, changed by hand, must survive `ensure`.
    let mut d = admin
        .describe(&name)
        .await
        .unwrap()
        .get_family("d")
        .cloned()
        .unwrap();
    d.in_memory = Some(true);
    admin.modify_family(&name, &d).await.unwrap();

    let report = admin
        .ensure_schema(&V2::schema_for(name.clone()))
        .await
        .unwrap();
    assert!(!report.created_table);
    assert_eq!(report.added_families, vec!["n".to_string()]);
    let changes: Vec<_> = report
        .changed_options
        .iter()
        .map(|c| (c.family.as_str(), c.option, c.from.as_str(), c.to.as_str()))
        .collect();
    assert_eq!(
        changes,
        vec![
            ("d", "max_versions", "1", "5"),
            ("d", "ttl", "2147483647", "3600")
        ]
    );
    assert_eq!(report.undeclared_families, vec!["x".to_string()]);
    let shown = report.to_string();
    assert!(
        shown.contains("family x is not declared; left as is"),
        "{shown}"
    );

    let d = admin.describe(&name).await.unwrap();
    assert_eq!(d.get_family("d").unwrap().max_versions, Some(5));
    assert_eq!(d.get_family("d").unwrap().time_to_live, Some(3600));
    assert_eq!(
        d.get_family("d").unwrap().in_memory,
        Some(true),
        "undeclared settings kept"
    );
    assert!(
        d.get_family("x").is_some(),
        "the family left out of the code is still there"
    );
    let row = c
        .table_named(name.clone())
        .get(Get::new("r"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        row.value("x", "old"),
        Some(&b"keep me"[..]),
        "and so is its data"
    );
    let v2 = c
        .repository::<V2>()
        .on_table(name.clone())
        .get(&V2Key { id: "r".into() })
        .await
        .unwrap();
    assert_eq!(
        v2,
        Some(V2 {
            id: "r".into(),
            a: "1".into(),
            added: None
        })
    );

    assert!(admin
        .ensure_schema(&V2::schema_for(name.clone()))
        .await
        .unwrap()
        .is_noop());
}

/// Two record types of one table, declaring options on the same family.
#[derive(HBaseEntity)]
#[hbase(
    table = "crm",
    family = "d",
    record_type(tag = 1, after = "id"),
    family_options(d(max_versions = 3))
)]
struct Customer {
    #[hbase(key)]
    id: u64,
    name: String,
}

#[derive(HBaseEntity)]
#[hbase(
    table = "crm",
    family = "d",
    record_type(tag = 2, after = "customer"),
    family_options(d(ttl = 86400))
)]
struct Order {
    #[hbase(key)]
    customer: u64,
    #[hbase(key)]
    number: u32,
    #[hbase(family = "o")]
    total: i64,
}

#[derive(HBaseEntity)]
#[hbase(
    table = "crm",
    family = "d",
    record_type(tag = 3, after = "customer"),
    family_options(d(max_versions = 9))
)]
struct Invoice {
    #[hbase(key)]
    customer: u64,
    #[hbase(key)]
    number: u32,
    amount: i64,
}

#[tokio::test]
async fn record_types_sharing_a_table_merge_into_one_description_and_conflicts_name_both() {
    let c = client().await;
    let admin = c.admin();
    let (name, _drop) = fresh(&c, "crm").await;
    let reports = admin
        .ensure_all(vec![
            Customer::schema_for(name.clone()),
            Order::schema_for(name.clone()),
        ])
        .await
        .unwrap();
    assert_eq!(reports.len(), 1, "one table");
    let d = admin.describe(&name).await.unwrap();
    let fam = d.get_family("d").unwrap();
    assert_eq!((fam.max_versions, fam.time_to_live), (Some(3), Some(86400)));
    assert!(d.get_family("o").is_some());

    let err = admin
        .ensure_all(vec![
            Customer::schema_for(name.clone()),
            Invoice::schema_for(name.clone()),
        ])
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Error::IllegalArgument { .. }), "{text}");
    assert!(
        text.contains("Customer") && text.contains("Invoice") && text.contains("max_versions"),
        "{text}"
    );
    assert_eq!(
        admin
            .describe(&name)
            .await
            .unwrap()
            .get_family("d")
            .unwrap()
            .max_versions,
        Some(3),
        "nothing changed"
    );
}

/// One table per day: `tx_{yyyyMMdd}` from the key's timestamp.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    namespace = "hbase_orm_it",
    table = "tx_{yyyyMMdd}",
    table_time = "ts",
    family = "d"
)]
struct Tx {
    #[hbase(key)]
    ts: i64,
    #[hbase(key)]
    id: u32,
    amount: i64,
}

#[tokio::test]
async fn a_table_template_puts_each_day_in_its_own_table() {
    let c = client().await;
    ensure_test_namespace(&c).await;
    let admin = c.admin();
    // Days far in the past, chosen by the process id, so runs do not collide.
    let day = 86_400_000i64;
    let base = i64::from(std::process::id() % 20_000) * day;
    let txs = vec![
        Tx {
            ts: base + 1_000,
            id: 1,
            amount: 5,
        },
        Tx {
            ts: base + 2_000,
            id: 2,
            amount: 7,
        },
        Tx {
            ts: base + day + 1_000,
            id: 3,
            amount: 9,
        },
    ];
    let tables: Vec<TableName> = txs
        .iter()
        .map(|t| Tx::table_for_key(&TxKey { ts: t.ts, id: t.id }))
        .collect();
    assert_eq!(tables[0], tables[1]);
    assert_ne!(tables[0], tables[2]);
    assert_eq!(
        tables[0].name,
        format!(
            "tx_{}",
            hbase_orm::render_table_template("{yyyyMMdd}", base)
        )
    );
    let _d1 = TestTable::adopt(&c, tables[0].clone());
    let _d2 = TestTable::adopt(&c, tables[2].clone());
    for t in &txs {
        admin
            .ensure_for::<Tx>(&TxKey { ts: t.ts, id: t.id })
            .await
            .unwrap();
    }
    let repo = c.repository::<Tx>();
    repo.save_all(&txs).await.unwrap();
    assert_eq!(
        repo.get(&TxKey {
            ts: txs[2].ts,
            id: 3
        })
        .await
        .unwrap(),
        Some(txs[2].clone())
    );
    let first_day: Vec<Tx> = futures::TryStreamExt::try_collect(
        repo.for_key(&TxKey { ts: base, id: 0 }).scan().stream(),
    )
    .await
    .unwrap();
    assert_eq!(first_day, txs[..2].to_vec());
    let raw = c
        .table_named(tables[2].clone())
        .get(Get::new(Tx::row_key(&txs[2]).unwrap()))
        .await
        .unwrap();
    assert!(raw.is_some(), "day 2 lives in its own table");

    // Without a key there is no table: a clear error instead of a call on "tx_{yyyyMMdd}".
    let err = futures::TryStreamExt::try_collect::<Vec<_>>(repo.scan().stream())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::IllegalArgument { message } if message.contains("for_key")),
        "{err}"
    );
    let err = admin.ensure::<Tx>().await.unwrap_err();
    assert!(
        matches!(&err, Error::IllegalArgument { message } if message.contains("ensure_for")),
        "{err}"
    );
}

/// Entities that break each rule of the advice.
#[derive(HBaseEntity)]
#[hbase(table = "bad", family = "data")]
struct Bad {
    #[hbase(key)]
    created_at: i64,
    w: String,
    #[hbase(family = "b")]
    description_of_the_thing: String,
    #[hbase(family = "c")]
    x: String,
    #[hbase(family = "e")]
    y: String,
}

#[derive(HBaseEntity)]
#[hbase(table = "long", family = "d", key_delimiter = '|')]
struct LongKey {
    #[hbase(key)]
    name: String,
    #[hbase(key(fixed = 80))]
    code: String,
}

#[derive(HBaseEntity)]
#[hbase(table = "good", family = "d", key_delimiter = '\0')]
struct Good {
    #[hbase(key)]
    host: String,
    #[hbase(key(reverse_timestamp))]
    ts: i64,
    #[hbase(rename = "v")]
    value: f64,
}

#[derive(HBaseEntity)]
#[hbase(table = "salted_ts", family = "d", salt(buckets = 8))]
struct SaltedTime {
    #[hbase(key)]
    ts: i64,
}

#[test]
fn design_advice_names_each_problem_with_why_and_what_to_do() {
    let rules = |f: Vec<advice::Finding>| f.into_iter().map(|f| f.rule).collect::<Vec<_>>();
    assert_eq!(
        rules(advice::check::<Bad>()),
        vec![
            "too_many_families",
            "long_family_name",
            "long_qualifier",
            "monotonic_key_start"
        ]
    );
    assert_eq!(
        rules(advice::check::<LongKey>()),
        vec!["delimiter_above_text", "long_key"]
    );
    assert!(advice::check::<Good>().is_empty());
    assert!(
        advice::check::<SaltedTime>().is_empty(),
        "salt removes the hot spot"
    );
    advice::assert_good_design::<Good>(&[]);
    advice::assert_good_design::<LongKey>(&["delimiter_above_text", "long_key"]);
    for f in advice::check::<Bad>() {
        assert!(!f.why.is_empty() && !f.fix.is_empty(), "{f}");
    }
    let monotonic = advice::check::<Bad>()
        .into_iter()
        .find(|f| f.rule == "monotonic_key_start")
        .unwrap();
    assert!(
        monotonic.subject.contains("created_at") && monotonic.fix.contains("salt"),
        "{monotonic}"
    );
    let panicked = std::panic::catch_unwind(|| advice::assert_good_design::<Bad>(&[]));
    assert!(panicked.is_err());
}
