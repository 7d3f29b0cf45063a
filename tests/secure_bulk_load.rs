//! Bulk loads into the secured HBase whose files are in a Kerberized HDFS (`master-hdfs` of
//! `hbase-local/secure/secure.sh up`): the load's files written into HDFS as the loading
//! Kerberos user, handed to the region server with a delegation token of that user's (HBase's
//! secure bulk load), read back equal by a user HBase lets load (CREATE on the table, what
//! HBase 2.6's `AccessController` asks of a bulk load); a user with WRITE only is denied
//! before any file is made or adopted; nothing of either load is left in HDFS.
//!
//! What happened in HDFS is read from the NameNode's audit log (`HBASE_ORM_SECURE_NAMENODE_LOG`):
//! alice's token asked for, used by the region server to move her files (`auth:TOKEN`) and
//! cancelled; nothing created by bob.
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

/// The NameNode's audit lines (of the secured launcher's log) for user `user` and command
/// `cmd`, from line `from` on.
fn audit(user: &str, cmd: &str, from: usize) -> Vec<String> {
    let log = std::fs::read_to_string(env("HBASE_ORM_SECURE_NAMENODE_LOG")).unwrap();
    let ugi = format!("ugi={user}@");
    let cmd = format!("cmd={cmd}\t");
    log.lines()
        .skip(from)
        .filter(|l| l.contains("FSNamesystem.audit") && l.contains(&ugi) && l.contains(&cmd))
        .map(str::to_string)
        .collect()
}

/// The NameNode log's length in lines: where to read it from after what comes next.
fn audit_mark() -> usize {
    std::fs::read_to_string(env("HBASE_ORM_SECURE_NAMENODE_LOG"))
        .unwrap()
        .lines()
        .count()
}

/// `token N for alice` of an audit line about a delegation token.
fn token_of(line: &str) -> String {
    let at = line.find("token ").expect("a token's audit line");
    line[at..].split(" with").next().unwrap().to_string()
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

    let mark = audit_mark();
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
    // In HDFS: alice's files were hers (written with her Kerberos credentials), her token was
    // asked for once, the region server moved her files with it (as alice, by token), and it
    // was cancelled.
    assert!(!audit("alice", "create", mark).is_empty(), "alice's files");
    let asked = audit("alice", "getDelegationToken", mark);
    assert_eq!(asked.len(), 1, "one token: {asked:?}");
    assert!(asked[0].contains("auth:KERBEROS"), "{}", asked[0]);
    let moved = audit("alice", "rename", mark);
    assert!(
        moved
            .iter()
            .any(|l| l.contains("(auth:TOKEN)") && l.contains("dst=/hbase/staging/")),
        "the region server moved alice's files with her token: {moved:?}"
    );
    let cancelled = audit("alice", "cancelDelegationToken", mark);
    assert_eq!(cancelled.len(), 1, "{cancelled:?}");
    assert_eq!(token_of(&cancelled[0]), token_of(&asked[0]));
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
        let mark = audit_mark();
        let denied = bob_table.bulk_load(puts, &options()).await;
        (denied, mark)
    };
    let (denied, mark) = denied;
    match &denied {
        Err(Error::AccessDenied { denial, .. }) => {
            assert_eq!(denial.user.as_deref().map(short), Some("bob"), "{denial}");
        }
        other => panic!("bob's load was not denied: {other:?}"),
    }
    // Nothing adopted: the table holds bob's one put only; nothing of the load in HDFS.
    let rows: Vec<_> = superuser
        .table_named(table.name.clone())
        .scan(Scan::new())
        .try_collect()
        .await
        .unwrap();
    assert_eq!(rows.len(), 1, "only the put, no loaded row");
    assert_eq!(load_dirs_left(&table.name).await, Vec::<String>::new());
    // Nothing written in HDFS by bob, and no token asked for: refused at the load's first call.
    for cmd in ["mkdirs", "create", "getDelegationToken"] {
        assert_eq!(audit("bob", cmd, mark), Vec::<String>::new(), "{cmd}");
    }
}

/// `bob` of `bob` or `bob@REALM`.
fn short(user: &str) -> &str {
    user.split('@').next().unwrap_or(user)
}
