//! Bulk loads into the secured HBase whose files are in a Kerberized HDFS (`master-hdfs` of
//! `hbase-local/secure/secure.sh up`): the load's files written into HDFS as the loading
//! Kerberos user, handed to the region server with a delegation token of that user's (HBase's
//! secure bulk load), read back equal by a user HBase lets load (CREATE on the table, what
//! HBase 2.6's `AccessController` asks of a bulk load); a user with WRITE only is denied
//! before any file is made or adopted; nothing of either load is left in HDFS.
//!
//! Built with `--features kerberos,hdfs`; the environment comes from
//! `eval "$(hbase-local/secure/secure.sh env)"` (`HADOOP_CONF_DIR` among it, which the HDFS
//! client reads). `.ci/run` runs them in its secured stage.

use futures::TryStreamExt;
use hbase_orm::{
    Action, BulkLoadOptions, Client, ColumnFamily, Error, Permission, PermissionScope, Put, Scan,
    TableName,
};
use hbase_orm_suite::secure::{act_as, connect, env, native_url_of, ENVIRONMENT};
use hbase_orm_suite::TestTable;

/// Rows of a load: enough for several HFile blocks.
const ROWS: usize = 3_000;

fn key(i: usize) -> String {
    format!("patient-{i:06}")
}

/// A row of four columns, with strings of the lengths users' have.
fn record(i: usize) -> Put {
    Put::new(key(i))
        .column(
            "d",
            "name",
            format!("Patient Number {i} Lastname-{}", i % 97),
        )
        .column("d", "ward", ["cardiology", "oncology", "pediatrics"][i % 3])
        .column(
            "d",
            "note",
            "discharged with a follow-up visit in two weeks",
        )
        .column("d", "n", i.to_string())
}

/// The native URL of the HBase whose root is in the Kerberized HDFS.
fn hdfs_hbase() -> String {
    native_url_of("HBASE_ORM_SECURE_HDFS_ZK_PORT")
}

/// A load's options: its files into `/tmp` of the Kerberized HDFS.
fn options() -> BulkLoadOptions {
    BulkLoadOptions::new().hdfs_dir(format!("{}/tmp", env("HBASE_ORM_SECURE_HDFS_URL")))
}

/// The names under `/tmp` of the Kerberized HDFS that a load into `table` would make, listed
/// as the superuser `client` (HDFS's client reads `HADOOP_CONF_DIR`).
async fn load_dirs_left(table: &TableName) -> Vec<String> {
    let prefix = format!("hbase-orm-bulk@{}@{}@", table.namespace, table.name);
    let hdfs = hdfs_native::ClientBuilder::new()
        .with_url(env("HBASE_ORM_SECURE_HDFS_URL"))
        .build()
        .expect("an HDFS client");
    hdfs.list_status("/tmp", false)
        .await
        .unwrap_or_else(|e| panic!("listing /tmp of the Kerberized HDFS: {e}"))
        .into_iter()
        .map(|s| s.path.rsplit('/').next().unwrap_or_default().to_string())
        .filter(|name| name.starts_with(&prefix))
        .collect()
}

fn on_table(table: &TableName, user: &str, actions: Vec<Action>) -> Permission {
    Permission {
        user: user.into(),
        scope: PermissionScope::Table {
            table: table.clone(),
            family: None,
            qualifier: None,
        },
        actions,
    }
}

/// Every row once, each cell as loaded, read by `client`.
async fn check_rows(client: &Client, table: &TableName) {
    let rows: Vec<_> = client
        .table_named(table.clone())
        .scan(Scan::new().caching(1000))
        .try_collect()
        .await
        .unwrap();
    assert_eq!(rows.len(), ROWS, "every row once");
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row.key, key(i).into_bytes(), "rows in order");
        for cell in &record(i).cells {
            assert_eq!(
                row.value(&cell.family, &cell.qualifier),
                Some(cell.value.as_ref()),
                "row {i}, column {}",
                String::from_utf8_lossy(&cell.qualifier)
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_user_with_create_loads_through_kerberized_hdfs_and_reads_the_rows_back() {
    let _env = ENVIRONMENT.write().await;
    let superuser = connect(&hdfs_hbase()).await.unwrap();
    let splits = vec![key(ROWS / 3).into_bytes(), key(2 * ROWS / 3).into_bytes()];
    let table = TestTable::create(
        &superuser,
        "secure_load",
        vec![ColumnFamily::new("d")],
        &splits,
    )
    .await;
    let admin = superuser.admin();
    admin
        .grant(&on_table(
            &table.name,
            "alice",
            vec![Action::Create, Action::Read],
        ))
        .await
        .unwrap();

    let report = {
        let _alice = act_as("alice");
        let alice = connect(&hdfs_hbase()).await.unwrap();
        let puts: Vec<Put> = (0..ROWS).map(record).collect();
        // HBase hands a grant to its region servers through ZooKeeper: a refusal right after
        // it is its propagation, tried again for a while.
        let started = std::time::Instant::now();
        let report = loop {
            match alice
                .table_named(table.name.clone())
                .bulk_load(puts.clone(), &options())
                .await
            {
                Err(Error::AccessDenied { .. })
                    if started.elapsed() < std::time::Duration::from_secs(30) =>
                {
                    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
                }
                other => break other.unwrap_or_else(|e| panic!("alice's load: {e}")),
            }
        };
        // alice reads what she loaded (she has READ).
        check_rows(&alice, &table.name).await;
        report
    };
    assert_eq!(report.rows, ROWS as u64);
    assert_eq!(report.regions, 3, "one share per region: {report:?}");
    // The superuser reads the same rows, and the load's HDFS directory is gone.
    check_rows(&superuser, &table.name).await;
    assert_eq!(load_dirs_left(&table.name).await, Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_user_with_write_only_is_denied_before_any_file_is_adopted() {
    let _env = ENVIRONMENT.write().await;
    let superuser = connect(&hdfs_hbase()).await.unwrap();
    let table = TestTable::create(
        &superuser,
        "secure_load_denied",
        vec![ColumnFamily::new("d")],
        &[],
    )
    .await;
    superuser
        .admin()
        .grant(&on_table(&table.name, "bob", vec![Action::Write]))
        .await
        .unwrap();
    let keytab = std::fs::read(env("HBASE_ORM_SECURE_BOB_KEYTAB")).unwrap();

    let denied = {
        let _bob = act_as("bob");
        let bob = connect(&hdfs_hbase()).await.unwrap();
        let bob_table = bob.table_named(table.name.clone());
        // bob may write (his grant reached the region server once a put goes through) ...
        let started = std::time::Instant::now();
        while let Err(e) = bob_table.put(record(0)).await {
            assert!(
                matches!(e, Error::AccessDenied { .. })
                    && started.elapsed() < std::time::Duration::from_secs(30),
                "bob's put: {e}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        }
        // ... but not bulk-load: HBase asks CREATE (or ADMIN) of a load.
        let puts: Vec<Put> = (1..ROWS).map(record).collect();
        bob_table.bulk_load(puts, &options()).await
    };
    match &denied {
        Err(Error::AccessDenied { denial, .. }) => {
            assert_eq!(denial.user.as_deref().map(short), Some("bob"), "{denial}");
        }
        other => panic!("bob's load was not denied: {other:?}"),
    }
    // No secret in the error: neither the keytab's key bytes nor its password material.
    let shown = format!("{denied:?} {}", denied.as_ref().unwrap_err());
    let key_material = &keytab[keytab.len().saturating_sub(16)..];
    assert!(
        !shown
            .as_bytes()
            .windows(key_material.len())
            .any(|w| w == key_material),
        "{shown}"
    );
    // Nothing adopted: the table holds bob's one put only; nothing of the load in HDFS.
    let rows: Vec<_> = superuser
        .table_named(table.name.clone())
        .scan(Scan::new())
        .try_collect()
        .await
        .unwrap();
    assert_eq!(rows.len(), 1, "only the put, no loaded row");
    assert_eq!(load_dirs_left(&table.name).await, Vec::<String>::new());
}

/// `bob` of `bob` or `bob@REALM`.
fn short(user: &str) -> &str {
    user.split('@').next().unwrap_or(user)
}
