//! Secondary index tables against a real HBase: maintained on insert, save, save_all, update
//! of an indexed field and delete; queried by prefix and range; dangling rows never returned;
//! rebuilt from the data table.

use futures::TryStreamExt;
use hbase_orm::{Client, Error, HBaseEntity, Index, Repository, TableName};
use hbase_orm_suite::{client, ensure_test_namespace, TestTable};

/// The design notes' multi-condition order query: an index keyed
/// `[create_time][order_id][city_id]`, and one by city.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    namespace = "hbase_orm_it",
    table = "ix_orders",
    family = "d",
    index(
        name = "by_time",
        parts = "created, id, city",
        table = "ix_orders_by_time"
    ),
    index(name = "by_city", parts = "city, created, id")
)]
struct Order {
    #[hbase(key)]
    id: u64,
    created: i64,
    city: u32,
    total: i64,
}

fn order(id: u64, created: i64, city: u32) -> Order {
    Order {
        id,
        created,
        city,
        total: id as i64 * 100,
    }
}

/// Creates the data and index tables of `T` afresh (dropped again by the guards).
async fn tables_of<T: HBaseEntity>(client: &Client) -> Vec<TestTable> {
    ensure_test_namespace(client).await;
    let admin = client.admin();
    let mut names = vec![T::table_name()];
    names.extend(T::index_schemas().into_iter().map(|s| s.descriptor.name));
    for name in &names {
        if admin.table_exists(name).await.unwrap() {
            admin.delete_table(name).await.unwrap();
        }
    }
    let report = admin.ensure::<T>().await.unwrap();
    assert!(report.created_table);
    assert_eq!(report.related_tables.len(), T::INDEXES.len());
    assert!(report.related_tables.iter().all(|r| r.created_table));
    names
        .iter()
        .map(|n| TestTable::adopt(client, n.clone()))
        .collect()
}

async fn by_time(orders: &Repository<Order>, from: i64, to: i64) -> Vec<u64> {
    let from = OrderByTimeKey {
        created: from,
        id: 0,
        city: 0,
    };
    let to = OrderByTimeKey {
        created: to,
        id: 0,
        city: 0,
    };
    let found: Vec<Order> = orders
        .index::<OrderByTime>()
        .range(&from, &to)
        .stream()
        .try_collect()
        .await
        .unwrap();
    found.iter().map(|o| o.id).collect()
}

async fn in_city(orders: &Repository<Order>, city: u32) -> Vec<u64> {
    let found: Vec<Order> = orders
        .index::<OrderByCity>()
        .prefix(OrderByCityKey::prefix_by_city(&city).unwrap())
        .stream()
        .try_collect()
        .await
        .unwrap();
    found.iter().map(|o| o.id).collect()
}

#[tokio::test]
async fn index_rows_follow_inserts_updates_and_deletes() {
    let client = client().await;
    let _tables = tables_of::<Order>(&client).await;
    let orders = client.repository::<Order>();
    assert_eq!(
        Order::index_schemas()[1].descriptor.name,
        TableName::new("hbase_orm_it", "ix_orders_by_city"),
        "the default index table is <table>_<name>"
    );

    orders.insert(&order(1, 1_000, 10)).await.unwrap();
    orders.save(&order(2, 2_000, 20)).await.unwrap();
    orders
        .save_all(&[order(3, 3_000, 10), order(4, 4_000, 30)])
        .await
        .unwrap();
    assert_eq!(by_time(&orders, 0, 10_000).await, [1, 2, 3, 4]);
    assert_eq!(by_time(&orders, 2_000, 4_000).await, [2, 3]);
    assert_eq!(in_city(&orders, 10).await, [1, 3]);

    // An update of an indexed field moves the index row.
    orders.save(&order(3, 5_000, 20)).await.unwrap();
    assert_eq!(by_time(&orders, 0, 10_000).await, [1, 2, 4, 3]);
    assert_eq!(in_city(&orders, 10).await, [1]);
    assert_eq!(in_city(&orders, 20).await, [2, 3]);
    let index = client.table_named(Order::INDEXES[0].table_name());
    let rows: Vec<_> = index
        .scan(hbase_orm::Scan::new())
        .try_collect()
        .await
        .unwrap();
    assert_eq!(rows.len(), 4, "the old index row of order 3 is gone");

    // A delete removes the index rows.
    orders.delete(&OrderKey { id: 1 }).await.unwrap();
    assert_eq!(by_time(&orders, 0, 10_000).await, [2, 4, 3]);
    assert_eq!(in_city(&orders, 10).await, Vec::<u64>::new());

    // Data deleted behind the library's back: the dangling index row is not returned...
    client
        .table_named(Order::table_name())
        .delete(hbase_orm::Delete::new(order(4, 0, 0).row_key().unwrap()))
        .await
        .unwrap();
    assert_eq!(by_time(&orders, 0, 10_000).await, [2, 3]);
    // ...nor one whose entity changed behind the library's back.
    client
        .table_named(Order::table_name())
        .put(
            hbase_orm::Put::new(order(2, 0, 0).row_key().unwrap()).column(
                "d",
                "city",
                99u32.to_be_bytes(),
            ),
        )
        .await
        .unwrap();
    assert_eq!(in_city(&orders, 20).await, [3]);

    // A rebuild repairs both indexes from the data table.
    let repaired = orders.rebuild_index::<OrderByCity>().await.unwrap();
    assert_eq!(repaired.indexed, 2);
    assert_eq!(
        repaired.removed, 2,
        "order 4's row and order 2's old city row"
    );
    assert_eq!(in_city(&orders, 99).await, [2]);
    let repaired = orders.rebuild_index::<OrderByTime>().await.unwrap();
    assert_eq!(
        (repaired.indexed, repaired.removed),
        (2, 2),
        "order 4's row, and order 2's row with its old city (a part of this key too)"
    );
    let rows: Vec<_> = index
        .scan(hbase_orm::Scan::new())
        .try_collect()
        .await
        .unwrap();
    assert_eq!(rows.len(), 2);

    // insert of an existing key is a conflict and leaves the index alone.
    let err = orders.insert(&order(2, 9_000, 10)).await.unwrap_err();
    assert!(matches!(err, Error::Conflict { .. }), "{err}");
    assert_eq!(by_time(&orders, 0, 10_000).await, [2, 3]);

    // A failed index write is an error naming the index; the index rows go first, so the data
    // row is not written (the by_time row put before it is dangling: never returned).
    let by_city = Order::INDEXES[1].table_name();
    client.admin().disable_table(&by_city).await.unwrap();
    let err = orders.save(&order(5, 6_000, 40)).await.unwrap_err();
    match &err {
        Error::IndexWrite { index, table, .. } => {
            assert_eq!(
                (*index, table.as_str()),
                ("by_city", "hbase_orm_it:ix_orders_by_city")
            );
        }
        other => panic!("expected an index write error, got {other}"),
    }
    assert!(orders.get(&OrderKey { id: 5 }).await.unwrap().is_none());
    assert_eq!(by_time(&orders, 0, 10_000).await, [2, 3]);
    client.admin().enable_table(&by_city).await.unwrap();
    orders.save(&order(5, 6_000, 40)).await.unwrap();
    assert_eq!(
        in_city(&orders, 40).await,
        [5],
        "saving again repairs the index"
    );
}

/// A sparse index: a device is indexed by its label only when it has one.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    namespace = "hbase_orm_it",
    table = "ix_devices",
    family = "d",
    key_delimiter = '\0',
    index(name = "by_label", parts = "label, id")
)]
struct Device {
    #[hbase(key)]
    id: u64,
    label: Option<String>,
    model: String,
}

fn device(id: u64, label: Option<&str>) -> Device {
    Device {
        id,
        label: label.map(String::from),
        model: "thermostat v2".into(),
    }
}

async fn labelled(devices: &Repository<Device>, label: &str) -> Vec<u64> {
    let found: Vec<Device> = devices
        .index::<DeviceByLabel>()
        .prefix(DeviceByLabelKey::prefix_by_label(&label.to_string()).unwrap())
        .stream()
        .try_collect()
        .await
        .unwrap();
    found.iter().map(|d| d.id).collect()
}

/// The keys of the index table's rows, as (label, id).
async fn index_rows(client: &Client) -> Vec<(String, u64)> {
    let rows: Vec<_> = client
        .table_named(DeviceByLabel::def().table_name())
        .scan(hbase_orm::Scan::new())
        .try_collect()
        .await
        .unwrap();
    rows.iter()
        .map(|r| {
            let split = r.key.iter().position(|&b| b == 0).unwrap();
            let label = String::from_utf8(r.key[..split].to_vec()).unwrap();
            let id = u64::from_be_bytes(r.key[split + 1..].try_into().unwrap());
            (label, id)
        })
        .collect()
}

#[tokio::test]
async fn a_sparse_index_has_rows_only_for_entities_whose_optional_part_is_set() {
    let client = client().await;
    let _tables = tables_of::<Device>(&client).await;
    let devices = client.repository::<Device>();

    devices
        .save_all(&[
            device(1, Some("kitchen")),
            device(2, None),
            device(3, Some("hall")),
        ])
        .await
        .unwrap();
    assert_eq!(
        index_rows(&client).await,
        [("hall".to_string(), 3), ("kitchen".to_string(), 1)],
        "no index row for the device without a label"
    );
    assert_eq!(labelled(&devices, "kitchen").await, [1]);

    // A label taken away removes the row; a label given adds one.
    devices.save(&device(1, None)).await.unwrap();
    devices.save(&device(2, Some("kitchen"))).await.unwrap();
    assert_eq!(labelled(&devices, "kitchen").await, [2]);
    assert_eq!(
        index_rows(&client).await,
        [("hall".to_string(), 3), ("kitchen".to_string(), 2)]
    );

    // Deleting a device without a label touches no index row; with one, removes it.
    devices.delete(&DeviceKey { id: 1 }).await.unwrap();
    devices.delete(&DeviceKey { id: 3 }).await.unwrap();
    assert_eq!(index_rows(&client).await, [("kitchen".to_string(), 2)]);

    // A rebuild indexes only the devices with a label.
    devices.save(&device(4, None)).await.unwrap();
    let repaired = devices.rebuild_index::<DeviceByLabel>().await.unwrap();
    assert_eq!((repaired.indexed, repaired.removed), (1, 0));
}

/// A chat service's membership: who is in which conversation, and an index of a user's
/// conversations. Its declared tables are never created: the test runs on a copy.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    namespace = "hbase_orm_it",
    table = "ix_members",
    family = "d",
    index(name = "by_user", parts = "user, conversation"),
    index(
        name = "by_role",
        parts = "role, conversation, user",
        table = "ix_roles"
    )
)]
struct Member {
    #[hbase(key)]
    conversation: u64,
    #[hbase(key)]
    user: u64,
    role: u8,
}

async fn conversations_of(members: &Repository<Member>, user: u64) -> Vec<u64> {
    let found: Vec<Member> = members
        .index::<MemberByUser>()
        .prefix(MemberByUserKey::prefix_by_user(&user).unwrap())
        .stream()
        .try_collect()
        .await
        .unwrap();
    found.iter().map(|m| m.conversation).collect()
}

#[tokio::test]
async fn an_entity_moved_to_another_table_takes_its_indexes_along() {
    let client = client().await;
    ensure_test_namespace(&client).await;
    let admin = client.admin();
    let moved = hbase_orm_suite::unique_table_name("ix_moved_members");

    // The naming rule: on a table other than the declared one, `{table}_{index}` in that
    // table's namespace, whatever the declaration names.
    let related: Vec<TableName> = Member::related_schemas_for(&moved)
        .into_iter()
        .map(|s| s.descriptor.name)
        .collect();
    let expected = [
        TableName::new(&moved.namespace, format!("{}_by_user", moved.name)),
        TableName::new(&moved.namespace, format!("{}_by_role", moved.name)),
    ];
    assert_eq!(related, expected);
    assert_eq!(
        Member::related_schemas_for(&Member::table_name())
            .into_iter()
            .map(|s| s.descriptor.name)
            .collect::<Vec<_>>(),
        [
            TableName::new("hbase_orm_it", "ix_members_by_user"),
            TableName::new("hbase_orm_it", "ix_roles")
        ],
        "on the declared table, the declared index tables"
    );

    let report = admin.ensure_on::<Member>(moved.clone()).await.unwrap();
    let _tables: Vec<TestTable> = std::iter::once(moved.clone())
        .chain(expected.iter().cloned())
        .map(|n| TestTable::adopt(&client, n))
        .collect();
    assert!(report.created_table);
    assert_eq!(report.related_tables.len(), 2);
    assert!(report.related_tables.iter().all(|r| r.created_table));

    let members = client.repository::<Member>().on_table(moved.clone());
    let member = |conversation, user| Member {
        conversation,
        user,
        role: 1,
    };
    members.save(&member(1, 7)).await.unwrap();
    members.insert(&member(2, 7)).await.unwrap();
    members
        .save_all(&[member(3, 7), member(3, 8)])
        .await
        .unwrap();
    assert_eq!(conversations_of(&members, 7).await, [1, 2, 3]);
    assert_eq!(conversations_of(&members, 8).await, [3]);
    members
        .delete(&MemberKey {
            conversation: 2,
            user: 7,
        })
        .await
        .unwrap();
    assert_eq!(conversations_of(&members, 7).await, [1, 3]);
    let rows: Vec<_> = client
        .table_named(expected[0].clone())
        .scan(hbase_orm::Scan::new())
        .try_collect()
        .await
        .unwrap();
    assert_eq!(
        rows.len(),
        3,
        "the moved index holds the moved table's rows"
    );
    let repaired = members.rebuild_index::<MemberByRole>().await.unwrap();
    assert_eq!((repaired.indexed, repaired.removed), (3, 0));

    // The declared tables were never touched (none of them exists).
    for declared in
        std::iter::once(Member::table_name()).chain(Member::INDEXES.iter().map(|d| d.table_name()))
    {
        assert!(
            !admin.table_exists(&declared).await.unwrap(),
            "{declared} was created or written"
        );
    }
}

#[tokio::test]
async fn a_missing_index_table_is_named_with_what_creates_it() {
    let client = client().await;
    let guard = TestTable::for_entity::<Member>(&client, "ix_no_index").await;
    let members = client.repository::<Member>().on_table(guard.name.clone());
    let err = members
        .save(&Member {
            conversation: 1,
            user: 1,
            role: 0,
        })
        .await
        .unwrap_err();
    let Error::IndexWrite { index, table, .. } = &err else {
        panic!("expected an index write error, got {err}");
    };
    assert_eq!(*index, "by_user");
    assert_eq!(*table, format!("{}_by_user", guard.name));
    let text = err.to_string();
    assert!(text.contains("ensure_on"), "{text}");
}
