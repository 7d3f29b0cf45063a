//! Flattened children against a real HBase: a nested struct as prefixed columns (recursively),
//! a `Vec` of children in one family, and JSON columns read across struct versions.

use hbase_orm::{Codec, Error, Get, HBaseColumns, HBaseEntity, Json, Put};
use hbase_orm_suite::{client, fresh_repository, TestTable};
use serde::{Deserialize, Serialize};

#[derive(HBaseColumns, Debug, Clone, PartialEq)]
struct Geo {
    lat: f64,
    lon: f64,
}

/// The denormalized `shipTo*` columns of the order/line-item design.
#[derive(HBaseColumns, Debug, Clone, PartialEq)]
struct Address {
    name: String,
    city: String,
    zip: Option<String>,
    #[hbase(flatten, prefix = "geo_")]
    geo: Geo,
}

/// A line item carrying its shipping address, flattened onto its row.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "hbase_orm_it", table = "line_items", family = "d")]
struct LineItem {
    #[hbase(key)]
    order: u64,
    #[hbase(key)]
    line: u16,
    sku: String,
    #[hbase(flatten, prefix = "ship_")]
    ship: Address,
}

#[derive(HBaseColumns, Debug, Clone, PartialEq)]
struct Item {
    sku: String,
    qty: u32,
    note: Option<String>,
}

/// The order with its items packed into an `item` family (`item:0:sku`, ...).
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "hbase_orm_it", table = "packed_orders", family = "d")]
struct Order {
    #[hbase(key)]
    id: u64,
    customer: String,
    #[hbase(family = "item", children)]
    items: Vec<Item>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct PrefsV1 {
    theme: String,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct PrefsV2 {
    theme: String,
    font_size: Option<u32>,
}

#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "hbase_orm_it", table = "user_prefs", family = "d")]
struct User {
    #[hbase(key)]
    id: u64,
    #[hbase(json)]
    prefs: PrefsV2,
}

fn item(line: u16, zip: Option<&str>) -> LineItem {
    LineItem {
        order: 7,
        line,
        sku: format!("sku-{line}"),
        ship: Address {
            name: "Ada".into(),
            city: "Oslo".into(),
            zip: zip.map(Into::into),
            geo: Geo {
                lat: 59.91,
                lon: 10.75,
            },
        },
    }
}

#[tokio::test]
async fn a_nested_struct_is_stored_as_prefixed_columns_recursively() {
    let client = client().await;
    let (items, t) = fresh_repository::<LineItem>(&client, "line_items").await;
    let value = item(1, Some("0150"));
    items.save(&value).await.unwrap();
    let raw = client
        .table_named(t.name.clone())
        .get(Get::new(value.row_key().unwrap()))
        .await
        .unwrap()
        .unwrap();
    let mut qualifiers: Vec<String> = raw
        .cells
        .iter()
        .map(|c| String::from_utf8(c.qualifier.to_vec()).unwrap())
        .collect();
    qualifiers.sort();
    assert_eq!(
        qualifiers,
        [
            "ship_city",
            "ship_geo_lat",
            "ship_geo_lon",
            "ship_name",
            "ship_zip",
            "sku"
        ]
    );
    assert_eq!(
        items
            .get(&LineItemKey { order: 7, line: 1 })
            .await
            .unwrap()
            .unwrap(),
        value
    );

    // A None field of the group is deleted by a save, like any None field.
    let no_zip = item(1, None);
    items.save(&no_zip).await.unwrap();
    assert_eq!(
        items
            .get(&LineItemKey { order: 7, line: 1 })
            .await
            .unwrap()
            .unwrap(),
        no_zip
    );

    // A bad cell inside the group names the table, row, column and field.
    client
        .table_named(t.name.clone())
        .put(Put::new(value.row_key().unwrap()).column("d", "ship_geo_lat", "north"))
        .await
        .unwrap();
    let err = items
        .get(&LineItemKey { order: 7, line: 1 })
        .await
        .unwrap_err();
    let Error::Decode { table, column, .. } = &err else {
        panic!("expected a decode error, got {err}");
    };
    assert_eq!(table, &t.name.to_string());
    assert_eq!(column, "d:ship_geo_lat (field `ship.lat`)");
}

#[tokio::test]
async fn children_live_in_one_family_and_a_save_replaces_the_list() {
    let client = client().await;
    let (orders, t) = fresh_repository::<Order>(&client, "packed_orders").await;
    let mut order = Order {
        id: 1,
        customer: "acme".into(),
        items: (0..12)
            .map(|i| Item {
                sku: format!("sku-{i}"),
                qty: i,
                note: (i % 2 == 0).then(|| "gift".to_string()),
            })
            .collect(),
    };
    orders.save(&order).await.unwrap();
    let back = orders.get(&OrderKey { id: 1 }).await.unwrap().unwrap();
    assert_eq!(
        back, order,
        "twelve items, in index order (10 and 11 after 9)"
    );
    let raw = client
        .table_named(t.name.clone())
        .get(Get::new(order.row_key().unwrap()).column("item", "0:sku"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(raw.cells[0].value, &b"sku-0"[..]);

    order.items.truncate(1);
    orders.save(&order).await.unwrap();
    let back = orders.get(&OrderKey { id: 1 }).await.unwrap().unwrap();
    assert_eq!(back.items, order.items, "the other items' cells are gone");
    let cells = client
        .table_named(t.name.clone())
        .get(Get::new(order.row_key().unwrap()).family("item"))
        .await
        .unwrap()
        .unwrap()
        .cells;
    assert_eq!(cells.len(), 3, "only item 0's sku, qty and note: {cells:?}");
}

#[tokio::test]
async fn json_columns_read_old_documents_and_ignore_unknown_fields() {
    let client = client().await;
    let (users, t) = fresh_repository::<User>(&client, "user_prefs").await;
    let raw = client.table_named(t.name.clone());
    let mut old = Vec::new();
    <Json as Codec<PrefsV1>>::encode(
        &PrefsV1 {
            theme: "dark".into(),
        },
        &mut old,
    )
    .unwrap();
    let key = |id: u64| {
        User {
            id,
            prefs: PrefsV2 {
                theme: String::new(),
                font_size: None,
            },
        }
        .row_key()
        .unwrap()
    };
    raw.put(Put::new(key(1)).column("d", "prefs", old))
        .await
        .unwrap();
    let read = users.get(&UserKey { id: 1 }).await.unwrap().unwrap();
    assert_eq!(
        read.prefs,
        PrefsV2 {
            theme: "dark".into(),
            font_size: None
        },
        "a document written by the old struct reads with the new field None"
    );
    let newer = br#"{"theme":"light","font_size":12,"ligatures":true}"#.to_vec();
    raw.put(Put::new(key(2)).column("d", "prefs", newer))
        .await
        .unwrap();
    let read = users.get(&UserKey { id: 2 }).await.unwrap().unwrap();
    assert_eq!(
        read.prefs.font_size,
        Some(12),
        "an unknown field is ignored"
    );
}

/// A flattened group in a record type that comes before a plain one sharing its family.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    namespace = "hbase_orm_it",
    table = "rec_flat",
    family = "d",
    record_type(tag = 1, after = "order")
)]
struct ShipTo {
    #[hbase(key)]
    order: u64,
    #[hbase(flatten, prefix = "to_")]
    to: Address,
}

#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    namespace = "hbase_orm_it",
    table = "rec_flat",
    family = "d",
    record_type(tag = 2, after = "order")
)]
struct Line {
    #[hbase(key)]
    order: u64,
    #[hbase(key)]
    line: u16,
    sku: String,
}

#[derive(hbase_orm::HBaseRecord, Debug, PartialEq)]
enum OrderRecord {
    ShipTo(ShipTo),
    Line(Line),
}

#[tokio::test]
async fn record_types_read_a_flattened_group_whatever_the_variant_order() {
    use futures::TryStreamExt;
    let client = client().await;
    let t = TestTable::for_entity::<ShipTo>(&client, "rec_flat").await;
    let ship = ShipTo {
        order: 9,
        to: item(1, Some("0150")).ship,
    };
    let line = Line {
        order: 9,
        line: 1,
        sku: "pen".into(),
    };
    client
        .repository::<ShipTo>()
        .on_table(t.name.clone())
        .save(&ship)
        .await
        .unwrap();
    client
        .repository::<Line>()
        .on_table(t.name.clone())
        .save(&line)
        .await
        .unwrap();
    let rows: Vec<OrderRecord> = client
        .records::<OrderRecord>()
        .on_table(t.name.clone())
        .scan_prefix(LineKey::prefix_by_order(&9).unwrap())
        .try_collect()
        .await
        .unwrap();
    assert_eq!(rows, [OrderRecord::ShipTo(ship), OrderRecord::Line(line)]);
}
