//! Namespace and table administration against a real HBase, checked by reading back.

use hbase_orm::{
    BloomFilter, ColumnFamily, Compression, DataBlockEncoding, Error, Get, KeepDeletedCells, Put,
    TableDescriptor, TableName,
};
use hbase_orm_suite::{client, ensure_test_namespace, unique_table_name, with_table};

#[tokio::test]
async fn namespaces_are_created_listed_and_deleted() {
    let c = client().await;
    let admin = c.admin();
    let ns = format!("hbase_orm_ns_{}", std::process::id());
    admin.create_namespace(&ns).await.unwrap();
    assert!(admin.namespace_exists(&ns).await.unwrap());
    assert!(admin.list_namespaces().await.unwrap().contains(&ns));
    let again = admin.create_namespace(&ns).await.unwrap_err();
    assert!(
        matches!(again, Error::AlreadyExists { ref what } if what.contains(&ns)),
        "{again}"
    );

    admin.delete_namespace(&ns).await.unwrap();
    assert!(!admin.namespace_exists(&ns).await.unwrap());
    assert!(!admin.list_namespaces().await.unwrap().contains(&ns));
    let gone = admin.delete_namespace(&ns).await.unwrap_err();
    assert!(
        matches!(gone, Error::NamespaceNotFound { ref namespace } if *namespace == ns),
        "{gone}"
    );
}

#[tokio::test]
async fn a_table_is_created_with_every_family_option_and_described_back_equal() {
    let c = client().await;
    ensure_test_namespace(&c).await;
    let admin = c.admin();
    let name = unique_table_name("options");
    let tuned = ColumnFamily::new("d")
        .max_versions(7)
        .min_versions(1)
        .ttl(86_400)
        .compression(Compression::Gz)
        .bloom_filter(BloomFilter::RowCol)
        .block_size(16_384)
        .block_cache(false)
        .in_memory(true)
        .data_block_encoding(DataBlockEncoding::FastDiff)
        .keep_deleted_cells(KeepDeletedCells::True);
    let plain = ColumnFamily::new("m");
    let descriptor = TableDescriptor::new(name.clone())
        .family(tuned.clone())
        .family(plain);
    admin.create_table(&descriptor, &[]).await.unwrap();

    let described = admin.describe(&name).await.unwrap();
    assert_eq!(described.name, name);
    assert_eq!(described.get_family("d"), Some(&tuned));
    let m = described.get_family("m").expect("family m");
    // HBase's defaults come back filled in.
    assert_eq!(m.max_versions, Some(1));
    assert_eq!(m.compression, Some(Compression::None));
    assert_eq!(m.bloom_filter, Some(BloomFilter::Row));
    assert_eq!(m.block_size, Some(65_536));
    assert_eq!(m.in_memory, Some(false));

    assert!(admin.table_exists(&name).await.unwrap());
    let listed = admin.list_tables(Some(&name.namespace)).await.unwrap();
    assert!(listed.contains(&name), "{listed:?}");
    assert!(admin.list_tables(None).await.unwrap().contains(&name));
    let dup = admin.create_table(&descriptor, &[]).await.unwrap_err();
    assert!(matches!(dup, Error::AlreadyExists { .. }), "{dup}");

    admin.delete_table(&name).await.unwrap();
    assert!(!admin.table_exists(&name).await.unwrap());
    let missing = admin.describe(&name).await.unwrap_err();
    assert!(matches!(missing, Error::TableNotFound { .. }), "{missing}");
}

#[tokio::test]
async fn split_keys_become_region_boundaries() {
    let c = client().await;
    let splits = vec![b"g".to_vec(), b"n".to_vec(), vec![0x80, 0x00]];
    with_table(
        &c,
        "splits",
        vec![ColumnFamily::new("d")],
        &splits,
        |t| async move {
            let regions = t.client().admin().region_locations(t.name()).await.unwrap();
            let bounds: Vec<_> = regions
                .iter()
                .map(|r| (r.start_key.clone(), r.end_key.clone()))
                .collect();
            assert_eq!(
                bounds,
                vec![
                    (vec![], b"g".to_vec()),
                    (b"g".to_vec(), b"n".to_vec()),
                    (b"n".to_vec(), vec![0x80, 0x00]),
                    (vec![0x80, 0x00], vec![]),
                ]
            );
            assert!(
                regions.iter().all(|r| r.host == "127.0.0.1"),
                "the local region server is bound to 127.0.0.1: {regions:?}"
            );
        },
    )
    .await;
}

#[tokio::test]
async fn families_are_added_modified_and_dropped() {
    let c = client().await;
    with_table(
        &c,
        "families",
        vec![ColumnFamily::new("d")],
        &[],
        |t| async move {
            let admin = t.client().admin();
            admin
                .add_family(t.name(), &ColumnFamily::new("e").max_versions(4))
                .await
                .unwrap();
            t.put(Put::new("r").column("e", "q", "v")).await.unwrap();
            let e = admin
                .describe(t.name())
                .await
                .unwrap()
                .get_family("e")
                .cloned()
                .unwrap();
            assert_eq!(e.max_versions, Some(4));

            admin
                .modify_family(t.name(), &e.clone().max_versions(9).ttl(3600))
                .await
                .unwrap();
            let e2 = admin
                .describe(t.name())
                .await
                .unwrap()
                .get_family("e")
                .cloned()
                .unwrap();
            assert_eq!((e2.max_versions, e2.time_to_live), (Some(9), Some(3600)));
            assert_eq!(
                t.get(Get::new("r")).await.unwrap().unwrap().value("e", "q"),
                Some(&b"v"[..]),
                "modifying a family keeps its data"
            );

            admin.delete_family(t.name(), "e").await.unwrap();
            assert!(admin
                .describe(t.name())
                .await
                .unwrap()
                .get_family("e")
                .is_none());
        },
    )
    .await;
}

#[tokio::test]
async fn tables_are_disabled_enabled_and_truncated() {
    let c = client().await;
    let splits = vec![b"m".to_vec()];
    with_table(
        &c,
        "lifecycle",
        vec![ColumnFamily::new("d")],
        &splits,
        |t| async move {
            let admin = t.client().admin();
            t.put(Put::new("a").column("d", "v", "1")).await.unwrap();
            t.put(Put::new("z").column("d", "v", "2")).await.unwrap();

            admin.disable_table(t.name()).await.unwrap();
            assert!(!admin.is_table_enabled(t.name()).await.unwrap());
            assert!(
                t.get(Get::new("a")).await.is_err(),
                "a disabled table serves no reads"
            );
            admin.enable_table(t.name()).await.unwrap();
            assert!(admin.is_table_enabled(t.name()).await.unwrap());
            assert!(t.get(Get::new("a")).await.unwrap().is_some());

            admin.truncate_table(t.name(), true).await.unwrap();
            assert!(admin.is_table_enabled(t.name()).await.unwrap());
            assert!(t.get(Get::new("a")).await.unwrap().is_none());
            assert!(t.get(Get::new("z")).await.unwrap().is_none());
            let regions = admin.region_locations(t.name()).await.unwrap();
            assert_eq!(regions.len(), 2, "truncate kept the split");
        },
    )
    .await;
}

#[tokio::test]
async fn missing_tables_and_namespaces_are_reported_by_name() {
    let c = client().await;
    let admin = c.admin();
    let name = TableName::new(
        "default",
        format!("hbase_orm_missing_{}", std::process::id()),
    );
    let e = admin.delete_table(&name).await.unwrap_err();
    assert!(
        matches!(e, Error::TableNotFound { ref table } if table.ends_with(&name.name)),
        "{e}"
    );
    let e = c
        .table_named(name.clone())
        .get(Get::new("r"))
        .await
        .unwrap_err();
    assert!(matches!(e, Error::TableNotFound { .. }), "{e}");
    let in_missing_ns = TableDescriptor::new(TableName::new("hbase_orm_no_such_ns", "t"))
        .family(ColumnFamily::new("d"));
    let e = admin.create_table(&in_missing_ns, &[]).await.unwrap_err();
    assert!(
        matches!(e, Error::NamespaceNotFound { ref namespace } if namespace == "hbase_orm_no_such_ns"),
        "{e}"
    );
    let e = admin
        .create_table(&TableDescriptor::new(name), &[])
        .await
        .unwrap_err();
    assert!(
        matches!(e, Error::IllegalArgument { .. }),
        "no families: {e}"
    );
}
