//! Namespace and table administration on every backend (see `hbase_orm_suite::conformance!`),
//! checked by reading back; what a backend cannot do is asserted to be `Unsupported`.

use hbase_orm::{
    BloomFilter, ColumnFamily, Compression, DataBlockEncoding, Error, Get, KeepDeletedCells, Put,
    TableDescriptor, TableName,
};
use hbase_orm_suite::{
    admin_client, ensure_test_namespace, label, unique_table_name, unsupported_on, with_table,
    TestTable,
};

/// The family `name` of `table` as described now.
async fn family(
    admin: &hbase_orm::Admin,
    table: &hbase_orm::TableName,
    name: &str,
) -> hbase_orm::ColumnFamily {
    admin
        .describe(table)
        .await
        .unwrap()
        .get_family(name)
        .cloned()
        .unwrap_or_else(|| panic!("{table} has no family {name}"))
}

hbase_orm_suite::conformance! {
    async fn namespaces_are_created_listed_and_deleted(c: Client) {
        let admin = c.admin();
        // One namespace per backend: the backends' tests run at the same time.
        let ns = format!("hbase_orm_ns_{}_{}", label(&c), std::process::id());
        // Thrift1 has no namespace calls.
        if unsupported_on(&c, &["thrift1"], admin.create_namespace(&ns).await).is_none() {
            unsupported_on(&c, &["thrift1"], admin.namespace_exists(&ns).await);
            unsupported_on(&c, &["thrift1"], admin.list_namespaces().await);
            unsupported_on(&c, &["thrift1"], admin.delete_namespace(&ns).await);
            return;
        }
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

    async fn a_table_is_created_with_every_family_option_and_described_back_equal(c: Client) {
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
        let mut descriptor = TableDescriptor::new(name.clone())
            .family(tuned.clone())
            .family(plain.clone());
        let created = admin.create_table(&descriptor, &[]).await;
        if unsupported_on(&c, &["thrift1"], created).is_none() {
            // Thrift1's column descriptors carry only some of the options.
            let mut tuned = tuned.clone();
            tuned.min_versions = None;
            tuned.block_size = None;
            tuned.data_block_encoding = None;
            tuned.keep_deleted_cells = None;
            descriptor = TableDescriptor::new(name.clone())
                .family(tuned.clone())
                .family(plain);
            admin.create_table(&descriptor, &[]).await.unwrap();
            let described = admin.describe(&name).await.unwrap();
            assert_eq!(described.get_family("d"), Some(&tuned));
        } else {
            let described = admin.describe(&name).await.unwrap();
            assert_eq!(described.name, name);
            assert_eq!(described.get_family("d"), Some(&tuned));
            let m = described.get_family("m").expect("family m");
            assert_eq!(m.block_size, Some(65_536));
        }
        let described = admin.describe(&name).await.unwrap();
        let m = described.get_family("m").expect("family m");
        // HBase's defaults come back filled in.
        assert_eq!(m.max_versions, Some(1));
        assert_eq!(m.compression, Some(Compression::None));
        assert_eq!(m.bloom_filter, Some(BloomFilter::Row));
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

    async fn a_table_is_created_with_region_replicas_and_described_with_them(c: Client) {
        ensure_test_namespace(&c).await;
        let admin = c.admin();
        let name = unique_table_name("replicas");
        let descriptor = TableDescriptor::new(name.clone())
            .family(ColumnFamily::new("d"))
            .region_replication(2);
        // Thrift1's createTable has no table attributes; the framed Thrift2 gateway garbles
        // them (see the thrift2 backend). Neither sends anything: the table is then created
        // through the buffered Thrift2 gateway, to be described here.
        let created = admin.create_table(&descriptor, &[]).await;
        if unsupported_on(&c, &["thrift1", "thrift2_framed"], created).is_none() {
            assert!(!admin.table_exists(&name).await.unwrap(), "{name} was created");
            let other = admin_client(&c).await;
            other.admin().create_table(&descriptor, &[]).await.unwrap();
        }
        let _drop = TestTable::adopt(&c, name.clone());
        let described = admin.describe(&name).await.unwrap();
        assert_eq!(described.name, name);
        // getColumnDescriptors, Thrift1's describe, carries no table attributes.
        let replicas = if label(&c).starts_with("thrift1") { 1 } else { 2 };
        assert_eq!(described.region_replication, replicas);
        let families: Vec<_> = described.families.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(families, ["d"]);
        // One location per region (the primary's), whatever the backend.
        let locations = admin.region_locations(&name).await.unwrap();
        assert_eq!(locations.len(), 1, "{locations:?}");

        with_table(&c, "no_replicas", vec![ColumnFamily::new("d")], &[], |t| async move {
            let described = t.client().admin().describe(t.name()).await.unwrap();
            assert_eq!(described.region_replication, 1);
        })
        .await;

        // No replicas at all, or more than HBase numbers: refused before anything is sent.
        for replicas in [0, TableDescriptor::MAX_REGION_REPLICATION + 1] {
            let bad = TableDescriptor::new(unique_table_name("bad_replicas"))
                .family(ColumnFamily::new("d"))
                .region_replication(replicas);
            let refused = admin.create_table(&bad, &[]).await.unwrap_err();
            assert!(
                matches!(refused, Error::IllegalArgument { ref message }
                    if message.contains("region replication")),
                "{replicas}: {refused}"
            );
            assert!(!admin_client(&c).await.admin().table_exists(&bad.name).await.unwrap());
        }
    }

    async fn split_keys_become_region_boundaries(c: Client) {
        let splits = vec![b"g".to_vec(), b"n".to_vec(), vec![0x80, 0x00]];
        // Thrift1 cannot pre-split; the framed Thrift2 gateway garbles split keys (see the
        // thrift2 backend). `with_table` creates the table through the buffered gateway then.
        let direct = TableDescriptor::new(unique_table_name("splits_direct"))
            .family(ColumnFamily::new("d"));
        ensure_test_namespace(&c).await;
        let created = c.admin().create_table(&direct, &splits).await;
        if unsupported_on(&c, &["thrift1", "thrift2_framed"], created).is_some() {
            c.admin().delete_table(&direct.name).await.unwrap();
        }
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
                // The local region server is bound to 127.0.0.1; the in-memory store names
                // a host of its own.
                let host = match t.client().backend_name() {
                    "memory" => "localhost",
                    _ => "127.0.0.1",
                };
                assert!(regions.iter().all(|r| r.host == host), "{regions:?}");
            },
        )
        .await;
    }

    async fn families_are_added_modified_and_dropped(c: Client) {
        with_table(
            &c,
            "families",
            vec![ColumnFamily::new("d")],
            &[],
            |t| async move {
                let admin = t.client().admin();
                // Thrift1 has no family calls.
                let added = admin
                    .add_family(t.name(), &ColumnFamily::new("e").max_versions(4))
                    .await;
                if unsupported_on(t.client(), &["thrift1"], added).is_none() {
                    let e = ColumnFamily::new("d").max_versions(2);
                    unsupported_on(t.client(), &["thrift1"], admin.modify_family(t.name(), &e).await);
                    unsupported_on(t.client(), &["thrift1"], admin.merge_family(t.name(), &e).await);
                    unsupported_on(t.client(), &["thrift1"], admin.delete_family(t.name(), "d").await);
                    return;
                }
                t.put(Put::new("r").column("e", "q", "v")).await.unwrap();
                let e = family(&admin, t.name(), "e").await;
                assert_eq!(e.max_versions, Some(4));

                admin
                    .modify_family(t.name(), &e.clone().max_versions(9).ttl(3600))
                    .await
                    .unwrap();
                let e2 = family(&admin, t.name(), "e").await;
                assert_eq!((e2.max_versions, e2.time_to_live), (Some(9), Some(3600)));
                assert_eq!(
                    t.get(Get::new("r")).await.unwrap().unwrap().value("e", "q"),
                    Some(&b"v"[..]),
                    "modifying a family keeps its data"
                );

                // The framed Thrift2 gateway garbles the family name (see the thrift2 backend).
                let dropped = admin.delete_family(t.name(), "e").await;
                if unsupported_on(t.client(), &["thrift2_framed"], dropped).is_none() {
                    return;
                }
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

    async fn a_region_splits_at_a_key_and_its_rows_stay_readable(c: Client) {
        with_table(&c, "split", vec![ColumnFamily::new("d")], &[], |t| async move {
            let admin = t.client().admin();
            let keys: Vec<String> = ('a'..='z').map(|k| k.to_string()).collect();
            let puts = keys.iter().map(|k| Put::new(k.as_str()).column("d", "v", k.as_str()));
            t.put_many(puts.collect()).await.unwrap();
            let split = admin.split_region(t.name(), b"m").await;
            // The Thrift gateways have no split call.
            let gateways = ["thrift2_buffered", "thrift2_framed", "thrift2_http", "thrift2_https", "thrift1"];
            if unsupported_on(t.client(), &gateways, split).is_none() {
                return;
            }
            let regions = admin.region_locations(t.name()).await.unwrap();
            let bounds: Vec<(&[u8], &[u8])> = regions
                .iter()
                .map(|r| (&r.start_key[..], &r.end_key[..]))
                .collect();
            assert_eq!(bounds, vec![(&b""[..], &b"m"[..]), (&b"m"[..], &b""[..])]);
            for k in ["a", "l", "m", "z"] {
                let row = t.get(Get::new(k)).await.unwrap().expect("written before the split");
                assert_eq!(row.value("d", "v"), Some(k.as_bytes()));
            }
            let scanned = hbase_orm_suite::row_keys(&t, hbase_orm::Scan::new()).await;
            let expected: Vec<Vec<u8>> = keys.iter().map(|k| k.clone().into_bytes()).collect();
            assert_eq!(scanned, expected);
            // A key that starts a region already cannot split it.
            let again = admin.split_region(t.name(), b"m").await.unwrap_err();
            assert!(matches!(again, Error::Server { .. }), "{again}");
            let empty = admin.split_region(t.name(), b"").await.unwrap_err();
            assert!(matches!(empty, Error::IllegalArgument { .. }), "{empty}");
        })
        .await;
    }

    /// The cluster calls on one server (the standalone HBase, the in-memory store): moving a
    /// region where it is, or where the master finds no other server, leaves it serving;
    /// moves between servers are tests/cluster.rs's, on the local cluster.
    async fn cluster_calls_answer_on_one_server_and_the_balancer_switches(c: Client) {
        with_table(&c, "move", vec![ColumnFamily::new("d")], &[b"m".to_vec()], |t| async move {
            let admin = t.client().admin();
            t.put(Put::new("z").column("d", "v", "1")).await.unwrap();
            // The Thrift gateways have no call for any of this.
            let gateways = ["thrift2_buffered", "thrift2_framed", "thrift2_http", "thrift2_https", "thrift1"];
            let servers = admin.region_servers().await;
            let Some(servers) = unsupported_on(t.client(), &gateways, servers) else {
                let moved = admin.move_region(t.name(), b"z", None).await;
                unsupported_on(t.client(), &gateways, moved);
                unsupported_on(t.client(), &gateways, admin.balance().await);
                unsupported_on(t.client(), &gateways, admin.set_balancer(true).await);
                return;
            };
            assert!(!servers.is_empty());
            let mut sorted = servers.clone();
            sorted.sort();
            assert_eq!(servers, sorted);
            let regions = admin.region_locations(t.name()).await.unwrap();
            let holding_z = &regions[1];
            let host = match holding_z.port {
                Some(port) => format!("{}:{port}", holding_z.host),
                None => holding_z.host.clone(),
            };
            assert!(servers.contains(&host), "{host} is one of {servers:?}");
            // To the server it is on, or wherever the master puts it: it serves after.
            admin.move_region(t.name(), b"z", Some(&host)).await.unwrap();
            admin.move_region(t.name(), b"z", None).await.unwrap();
            let row = t.get(Get::new("z")).await.unwrap().expect("written before the moves");
            assert_eq!(row.value("d", "v"), Some(&b"1"[..]));
            // A server that does not serve is refused, naming the ones that do.
            let nowhere = admin.move_region(t.name(), b"z", Some("nowhere:1")).await.unwrap_err();
            assert!(
                matches!(nowhere, Error::IllegalArgument { ref message } if message.contains(&servers[0])),
                "{nowhere}"
            );
            let missing = TableName::new("default", "hbase_orm_no_such_table_to_move");
            assert!(admin.move_region(&missing, b"z", None).await.is_err());
            // Off, then back as it was; a run reports whether it ran.
            let was_on = admin.set_balancer(false).await.unwrap();
            assert!(!admin.set_balancer(was_on).await.unwrap(), "it was off");
            admin.balance().await.unwrap();
        })
        .await;
    }

    async fn tables_are_disabled_enabled_and_truncated(c: Client) {
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

                // Thrift1 has no truncate; the table is left enabled.
                let truncated = admin.truncate_table(t.name(), true).await;
                if unsupported_on(t.client(), &["thrift1"], truncated).is_none() {
                    assert!(admin.is_table_enabled(t.name()).await.unwrap());
                    return;
                }
                assert!(admin.is_table_enabled(t.name()).await.unwrap());
                assert!(t.get(Get::new("a")).await.unwrap().is_none());
                assert!(t.get(Get::new("z")).await.unwrap().is_none());
                let regions = admin.region_locations(t.name()).await.unwrap();
                assert_eq!(regions.len(), 2, "truncate kept the split");
            },
        )
        .await;
    }

    async fn missing_tables_and_namespaces_are_reported_by_name(c: Client) {
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
}
