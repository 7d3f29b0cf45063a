//! Bad input gets a clear error and writes nothing, against a real HBase: one case per kind
//! of mistake, each with the error it must give.

use futures::TryStreamExt;
use hbase_orm::{
    Client, ColumnFamily, Error, Get, HBaseEntity, Put, Scan, TableDescriptor, TableName,
};
use hbase_orm_suite::{client, TestTable};

#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "hbase_orm_it", table = "bad_input", family = "d")]
struct Item {
    #[hbase(key)]
    id: u64,
    name: String,
    count: i64,
}

/// How many rows `table` holds.
async fn rows(client: &Client, table: &TableName) -> usize {
    let all: Vec<_> = client
        .table_named(table.clone())
        .scan(Scan::new())
        .try_collect()
        .await
        .unwrap();
    all.len()
}

fn illegal(e: &Error, says: &str) -> bool {
    matches!(e, Error::IllegalArgument { message } if message.contains(says))
}

#[tokio::test]
async fn bad_writes_are_refused_with_a_clear_error_and_write_nothing() {
    let client = client().await;
    let t = TestTable::for_entity::<Item>(&client, "bad_input").await;
    let table = client.table_named(t.name.clone());

    let e = table
        .put(Put::new("").column("d", "q", "v"))
        .await
        .unwrap_err();
    assert!(illegal(&e, "non-empty row key"), "empty row key: {e}");

    let long = vec![b'k'; 40_000];
    let e = table
        .put(Put::new(long.clone()).column("d", "q", "v"))
        .await
        .unwrap_err();
    assert!(illegal(&e, "32767"), "a row key over HBase's limit: {e}");
    let e = table.get(Get::new(long)).await.unwrap_err();
    assert!(illegal(&e, "32767"), "a get of such a key: {e}");

    let e = table
        .put(Put::new("r").column(vec![b'f'; 128], "q", "v"))
        .await
        .unwrap_err();
    assert!(
        illegal(&e, "family of 128 bytes"),
        "a family over 127 bytes: {e}"
    );

    let e = table
        .put(Put::new("r").column("nofamily", "q", "v"))
        .await
        .unwrap_err();
    assert!(
        e.to_string().contains("nofamily"),
        "a family the table lacks is named: {e}"
    );
    assert_eq!(rows(&client, &t.name).await, 0, "nothing was written");
}

#[tokio::test]
async fn bad_reads_are_refused_with_a_clear_error() {
    let client = client().await;
    let t = TestTable::for_entity::<Item>(&client, "bad_reads").await;
    let items = client.repository::<Item>().on_table(t.name.clone());
    items
        .save(&Item {
            id: 1,
            name: "a".into(),
            count: 1,
        })
        .await
        .unwrap();

    let e = items
        .scan()
        .filter("ValueFilter(=, 'binary:x'")
        .stream()
        .try_collect::<Vec<_>>()
        .await
        .unwrap_err();
    assert!(
        e.to_string().to_lowercase().contains("filter"),
        "a malformed filter: {e}"
    );

    for size in [0, -5] {
        let e = items
            .scan()
            .page_size(size)
            .stream()
            .try_collect::<Vec<_>>()
            .await
            .unwrap_err();
        assert!(illegal(&e, "page size"), "page size {size}: {e}");
    }

    // Cells that do not fit their fields: not UTF-8, and the wrong width.
    let raw = client.table_named(t.name.clone());
    let key = Item {
        id: 2,
        name: String::new(),
        count: 0,
    }
    .row_key()
    .unwrap();
    raw.put(
        Put::new(key.clone())
            .column("d", "name", vec![0xFF, 0xFE])
            .column("d", "count", 7i64.to_be_bytes().to_vec()),
    )
    .await
    .unwrap();
    let e = items.get(&ItemKey { id: 2 }).await.unwrap_err();
    assert!(
        matches!(&e, Error::Decode { column, .. } if column.starts_with("d:name")),
        "non-UTF-8 text: {e}"
    );
    raw.put(
        Put::new(key)
            .column("d", "name", "ok")
            .column("d", "count", vec![1, 2, 3]),
    )
    .await
    .unwrap();
    let e = items.get(&ItemKey { id: 2 }).await.unwrap_err();
    assert!(
        matches!(&e, Error::Decode { column, .. } if column.starts_with("d:count")),
        "a 3-byte i64: {e}"
    );
}

#[tokio::test]
async fn bad_names_and_settings_are_refused() {
    let client = client().await;
    let admin = client.admin();
    let e = admin
        .create_table(
            &TableDescriptor::new(TableName::new("no_such_ns_xyz", "t"))
                .family(ColumnFamily::new("d")),
            &[],
        )
        .await
        .unwrap_err();
    assert!(
        matches!(e, Error::NamespaceNotFound { .. }) || e.to_string().contains("no_such_ns_xyz"),
        "an unknown namespace: {e}"
    );
    assert!(
        TableName::parse("bad name!").is_err(),
        "a table name HBase rejects"
    );
    let e = admin
        .create_table(
            &TableDescriptor::new(TableName::new("default", "bad name!"))
                .family(ColumnFamily::new("d")),
            &[],
        )
        .await
        .unwrap_err();
    assert!(
        matches!(e, Error::IllegalArgument { .. }),
        "a table name HBase rejects, built by hand: {e}"
    );
    let e = Client::connect("thrift2://127.0.0.1:9090?pool_sise=4")
        .await
        .unwrap_err();
    assert!(
        matches!(&e, Error::Config(m) if m.contains("pool_sise")),
        "a URL with an unknown option: {e}"
    );
}

/// A `thrift2://` URL pointed at ZooKeeper's port (or any other port that is not a Thrift
/// gateway) says that the port may not be one, and what `hbase://` is for: not only that the
/// connection closed.
#[tokio::test]
async fn a_gateway_url_on_zookeeper_s_port_says_what_the_port_may_be() {
    let zookeeper = hbase_orm_suite::native_url()
        .trim_start_matches("hbase://")
        .to_string();
    let e = Client::connect(&format!("thrift2://{zookeeper}?timeout_ms=5000"))
        .await
        .unwrap_err();
    let text = e.to_string();
    assert!(text.contains("is it a Thrift gateway?"), "{text}");
    assert!(text.contains("hbase://host:2181"), "{text}");
}
