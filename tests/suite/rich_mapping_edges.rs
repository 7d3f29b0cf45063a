//! Rich mapping where features meet, against a real HBase: each test pins a case a review of
//! the rich-mapping change found broken (and that is fixed).

use futures::TryStreamExt;
use hbase_orm::{HBaseColumns, HBaseEntity, Versions};
use hbase_orm_suite::{client, fresh_repository, TestTable};

// ---------------------------------------------------------------------------------------------
// save_all replaces a `children` list whole, as save does.

#[derive(HBaseColumns, Debug, Clone, PartialEq)]
struct Item {
    sku: String,
    qty: u32,
}

#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "hbase_orm_it", table = "rf_packed", family = "d")]
struct Packed {
    #[hbase(key)]
    id: u64,
    customer: String,
    #[hbase(family = "item", children)]
    items: Vec<Item>,
}

#[tokio::test]
async fn save_all_replaces_a_children_list_whole() {
    let client = client().await;
    let (orders, _t) = fresh_repository::<Packed>(&client, "rf_packed").await;
    let item = |sku: &str| Item {
        sku: sku.into(),
        qty: 1,
    };
    let three = Packed {
        id: 1,
        customer: "ada".into(),
        items: vec![item("a"), item("b"), item("c")],
    };
    orders.save(&three).await.unwrap();
    let one = Packed {
        items: vec![item("x")],
        ..three.clone()
    };
    // `save` replaces the list whole; `save_all` must too.
    orders.save_all(std::slice::from_ref(&one)).await.unwrap();
    let back = orders.get(&PackedKey { id: 1 }).await.unwrap().unwrap();
    assert_eq!(
        back, one,
        "save_all left the children the value no longer holds"
    );
}

// ---------------------------------------------------------------------------------------------
// Record-set scans read every version a variant's `versions = N` field declares.

#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    namespace = "hbase_orm_it",
    table = "rf_rec",
    family = "d",
    record_type(tag = 1, after = "id")
)]
struct Account {
    #[hbase(key)]
    id: u64,
    #[hbase(versions = 5)]
    balance: Versions<i64>,
}

#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    namespace = "hbase_orm_it",
    table = "rf_rec",
    family = "d",
    record_type(tag = 2, after = "id")
)]
struct Note {
    #[hbase(key)]
    id: u64,
    #[hbase(key)]
    n: u32,
    text: String,
}

#[derive(hbase_orm::HBaseRecord, Debug, PartialEq)]
enum AccountRecord {
    Account(Account),
    Note(Note),
}

#[tokio::test]
async fn record_set_scans_read_the_versions_their_variants_declare() {
    let client = client().await;
    let (accounts, t) = fresh_repository::<Account>(&client, "rf_rec").await;
    let balance: Versions<i64> = (0..3i64).map(|i| (1_700_000_000_000 + i, i * 10)).collect();
    let account = Account { id: 4, balance };
    accounts.save(&account).await.unwrap();
    // The repository reads all three versions...
    let got = accounts.get(&AccountKey { id: 4 }).await.unwrap().unwrap();
    assert_eq!(got.balance.len(), 3);
    // ... the record set must too.
    let rows: Vec<AccountRecord> = client
        .records::<AccountRecord>()
        .on_table(t.name.clone())
        .scan_prefix(NoteKey::prefix_by_id(&4).unwrap())
        .try_collect()
        .await
        .unwrap();
    assert_eq!(rows, [AccountRecord::Account(got)]);
    // A time range that leaves out the row's marker cell (written at the save's time) reads
    // the versions it holds, as the entity's own scans do: the range hides the presence cell.
    let ranged: Vec<AccountRecord> = client
        .records::<AccountRecord>()
        .on_table(t.name.clone())
        .scan(hbase_orm::Scan::new().time_range(1_700_000_000_000, 1_700_000_000_002))
        .try_collect()
        .await
        .unwrap();
    match ranged.as_slice() {
        [AccountRecord::Account(a)] => assert_eq!(a.balance.len(), 2),
        other => panic!("expected the account with two versions, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// insert on a row holding only counters (from `increment`) keeps their counts.

#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "hbase_orm_it", table = "rf_pages", family = "d")]
struct Page {
    #[hbase(key)]
    slug: String,
    title: String,
    #[hbase(counter)]
    views: i64,
}

#[tokio::test]
async fn insert_never_resets_counts_an_increment_made_first() {
    let client = client().await;
    let (pages, _t) = fresh_repository::<Page>(&client, "rf_pages").await;
    let key = PageKey {
        slug: "home".into(),
    };
    // Views counted before the page's metadata is inserted (the row exists from here on).
    assert_eq!(pages.increment(&key, Page::VIEWS, 5).await.unwrap(), 5);
    let page = Page {
        slug: "home".into(),
        title: "Home".into(),
        views: 0,
    };
    pages
        .insert(&page)
        .await
        .expect("a row of counters only counts as absent");
    let back = pages.get(&key).await.unwrap().unwrap();
    assert_eq!(
        (back.title.as_str(), back.views),
        ("Home", 5),
        "the insert wrote the page and added its 0 views to the 5 counted"
    );
}

// ---------------------------------------------------------------------------------------------
// A per-hour table with a MillisOfDay time part reads its time back exactly.

#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    namespace = "hbase_orm_it",
    table = "rf_hourly_{yyyyMMddHH}",
    table_time = "ts",
    family = "d"
)]
struct Tick {
    #[hbase(key(codec = hbase_orm::rowkey::MillisOfDay))]
    ts: i64,
    #[hbase(key)]
    id: u32,
    v: u32,
}

#[tokio::test]
async fn an_hourly_table_with_a_millis_of_day_part_reads_its_time_back() {
    let client = client().await;
    hbase_orm_suite::ensure_test_namespace(&client).await;
    let ts = 1_795_239_520_000i64; // 2026-11-21T05:38:40Z
    let key = TickKey { ts, id: 1 };
    let name = Tick::table_for_key(&key);
    let admin = client.admin();
    if admin.table_exists(&name).await.unwrap() {
        admin.delete_table(&name).await.unwrap();
    }
    admin
        .create_table(
            &hbase_orm::TableDescriptor {
                families: Tick::family_descriptors(),
                ..hbase_orm::TableDescriptor::new(name.clone())
            },
            &[],
        )
        .await
        .unwrap();
    let _t = TestTable::adopt(&client, name.clone());
    let ticks = client.repository::<Tick>();
    let tick = Tick { ts, id: 1, v: 9 };
    ticks.save(&tick).await.unwrap();
    let back = ticks.get(&key).await.unwrap().unwrap();
    assert_eq!(back.ts, ts, "read back {} ms off", back.ts - ts);
}

// ---------------------------------------------------------------------------------------------
// An entity whose only family is a wide map's: the row's marker cell there is no entry for
// WideMap's count and slices.

#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "hbase_orm_it", table = "rf_tags", family = "t")]
struct Tagged {
    #[hbase(key)]
    id: u64,
    #[hbase(family = "t", wide)]
    tags: std::collections::BTreeMap<u32, String>,
}

#[tokio::test]
async fn wide_map_count_skips_the_marker_cell() {
    let client = client().await;
    let (tagged, _t) = fresh_repository::<Tagged>(&client, "rf_tags").await;
    let value = Tagged {
        id: 1,
        tags: [(1, "a".to_string()), (2, "b".to_string())].into(),
    };
    tagged.save(&value).await.unwrap();
    assert_eq!(
        tagged.get(&TaggedKey { id: 1 }).await.unwrap().unwrap(),
        value
    );
    let tags = tagged.wide(Tagged::TAGS);
    assert_eq!(tags.count(&TaggedKey { id: 1 }).await.unwrap(), 2);
}

#[tokio::test]
async fn wide_map_slices_skip_the_marker_cell() {
    let client = client().await;
    let (tagged, _t) = fresh_repository::<Tagged>(&client, "rf_tags2").await;
    let value = Tagged {
        id: 1,
        tags: [(1, "a".to_string()), (2, "b".to_string())].into(),
    };
    tagged.save(&value).await.unwrap();
    let page = tagged
        .wide(Tagged::TAGS)
        .slice(&TaggedKey { id: 1 })
        .fetch()
        .await
        .expect("every entry of the map decodes");
    assert_eq!(
        page.entries,
        vec![(1, "a".to_string()), (2, "b".to_string())]
    );
}
