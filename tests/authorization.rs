//! Who may do what on the secured HBase of `hbase-local/secure/secure.sh up` (its
//! `AccessController`): permissions granted, listed and revoked through `Admin` by the
//! superuser `client`, and what `alice` (the reader) and `bob` (the writer) may then do, each
//! acting through a native client of their own (their own keytab); HBase's refusals as
//! `Error::AccessDenied`, naming the user, the action and the scope; the gateways, which have
//! no permission calls in HBase 2, refusing with `Unsupported`. Cell visibility (HBase's
//! `VisibilityController`): labels added, given to alice and not to bob, cells and entities
//! written with expressions (native and through both gateways), read by each as they may.
//!
//! Built with `--features kerberos`; the environment comes from
//! `eval "$(hbase-local/secure/secure.sh env)"`. `.ci/run` runs them in its secured stage.

use std::future::Future;
use std::time::{Duration, Instant};

use futures::TryStreamExt;
use hbase_orm::{
    Action, Client, ColumnFamily, Config, Error, Get, HBaseEntity, Permission, PermissionScope,
    Put, Scan, TableName,
};
use hbase_orm_suite::secure::{act_as, connect, native_url, spnego_url, ENVIRONMENT};
use hbase_orm_suite::TestTable;

/// How long a grant or revoke may take to reach the region servers (HBase hands it on
/// through ZooKeeper).
const PROPAGATION: Duration = Duration::from_secs(30);

/// Runs `attempt` until it returns `Some`, or panics naming `what` after [`PROPAGATION`].
async fn eventually<T, F: Future<Output = Option<T>>>(
    what: &str,
    mut attempt: impl FnMut() -> F,
) -> T {
    let started = Instant::now();
    loop {
        if let Some(done) = attempt().await {
            return done;
        }
        assert!(
            started.elapsed() < PROPAGATION,
            "{what}: not within {PROPAGATION:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// A native client acting as `user` (its connections opened while acting: the first call
/// opens them), and the result of `work` with it.
async fn as_user<T, F: Future<Output = T>>(user: &str, work: impl FnOnce(Client) -> F) -> T {
    let _acting = act_as(user);
    let client = connect(&native_url()).await.unwrap();
    work(client).await
}

/// The denial's user, action and scope, or a panic showing what came instead.
fn denied<T: std::fmt::Debug>(result: hbase_orm::Result<T>) -> (String, Action, String) {
    match result {
        Err(Error::AccessDenied { denial, .. }) => match (&denial.user, denial.action) {
            (Some(user), Some(action)) => (
                user.clone(),
                action,
                denial.scope.clone().unwrap_or_default(),
            ),
            _ => panic!("a denial naming no user or action: {denial:?}"),
        },
        other => panic!("not a denial: {other:?}"),
    }
}

fn table_scope(table: &TableName) -> PermissionScope {
    PermissionScope::Table {
        table: table.clone(),
        family: None,
        qualifier: None,
    }
}

#[tokio::test]
async fn grants_let_users_read_and_write_and_revokes_take_it_back() {
    let _env = ENVIRONMENT.write().await;
    let client = connect(&native_url()).await.unwrap();
    let admin = client.admin();
    let t = TestTable::create(&client, "acl", vec![ColumnFamily::new("d")], &[]).await;
    let name = &t.name;
    let table = client.table_named(name.clone());
    table
        .put(Put::new("k").column("d", "v", "by client"))
        .await
        .unwrap();

    // alice may read the table; bob may write its family d, and nothing else.
    let reader = Permission::table("alice", name.clone(), [Action::Read]);
    let writer = Permission::table("bob", name.clone(), [Action::Write]).family("d");
    admin.grant(&reader).await.unwrap();
    let listed = admin
        .user_permissions(&table_scope(name), None)
        .await
        .unwrap();
    assert!(listed.contains(&reader), "{listed:?}");
    assert!(!listed.iter().any(|p| p.user == "bob"), "{listed:?}");

    // alice reads; her write and her grant to herself are refused, naming her and what she
    // lacks, and never retried.
    let (write, grant) = as_user("alice", |alice| async move {
        let row = eventually("alice's read", || async {
            alice
                .table_named(name.clone())
                .get(Get::new("k"))
                .await
                .ok()
        })
        .await;
        assert_eq!(row.unwrap().value("d", "v"), Some(&b"by client"[..]));
        let write = alice
            .table_named(name.clone())
            .put(Put::new("k").column("d", "v", "by alice"))
            .await;
        let grant = alice
            .admin()
            .grant(&Permission::table("alice", name.clone(), [Action::Write]))
            .await;
        (write, grant)
    })
    .await;
    let (user, action, scope) = denied(write);
    assert!(user.starts_with("alice"), "{user}");
    assert_eq!(action, Action::Write);
    assert!(scope.ends_with(&name.name), "{scope}");
    let (user, action, _) = denied(grant);
    assert!(user.starts_with("alice"), "{user}");
    assert_eq!(action, Action::Admin);

    // bob can do nothing yet; once granted, he writes (and still may not read); once revoked,
    // his writes are refused again.
    let before = as_user("bob", |bob| async move {
        bob.table_named(name.clone())
            .put(Put::new("b").column("d", "v", "by bob"))
            .await
    })
    .await;
    assert_eq!(denied(before).1, Action::Write);
    admin.grant(&writer).await.unwrap();
    let only_bob = admin
        .user_permissions(&table_scope(name), Some("bob"))
        .await
        .unwrap();
    assert_eq!(only_bob, vec![writer.clone()]);
    let (read, scan) = as_user("bob", |bob| async move {
        let table = bob.table_named(name.clone());
        eventually("bob's write after the grant", || async {
            let put = Put::new("b").column("d", "v", "by bob");
            table.put(put).await.ok()
        })
        .await;
        let read = table.get(Get::new("b")).await;
        let scan: hbase_orm::Result<Vec<_>> = table.scan(Scan::new()).try_collect().await;
        (read, scan)
    })
    .await;
    assert_eq!(denied(read).1, Action::Read);
    assert_eq!(denied(scan).1, Action::Read);
    let row = table.get(Get::new("b")).await.unwrap().unwrap();
    assert_eq!(row.value("d", "v"), Some(&b"by bob"[..]));

    admin.revoke(&writer).await.unwrap();
    let left = admin
        .user_permissions(&table_scope(name), Some("bob"))
        .await
        .unwrap();
    assert!(left.is_empty(), "{left:?}");
    as_user("bob", |bob| async move {
        eventually("bob's write refused after the revoke", || async {
            let put = Put::new("b").column("d", "v", "again");
            match bob.table_named(name.clone()).put(put).await {
                Err(Error::AccessDenied { .. }) => Some(()),
                _ => None,
            }
        })
        .await
    })
    .await;

    // A revoke takes only the actions it names: alice, granted WRITE too, keeps READ.
    admin
        .grant(&Permission::table("alice", name.clone(), [Action::Write]))
        .await
        .unwrap();
    let both = Permission::table("alice", name.clone(), [Action::Read, Action::Write]);
    let alice_now = admin
        .user_permissions(&table_scope(name), Some("alice"))
        .await
        .unwrap();
    assert_eq!(alice_now, vec![both]);
    admin
        .revoke(&Permission::table("alice", name.clone(), [Action::Write]))
        .await
        .unwrap();
    let alice_now = admin
        .user_permissions(&table_scope(name), Some("alice"))
        .await
        .unwrap();
    assert_eq!(alice_now, vec![reader]);
}

#[tokio::test]
async fn namespace_and_global_permissions_are_listed() {
    let _env = ENVIRONMENT.read().await;
    let client = connect(&native_url()).await.unwrap();
    let admin = client.admin();
    // The superuser is listed with every action on the cluster, as HBase lists superusers.
    let global = admin
        .user_permissions(&PermissionScope::Global, None)
        .await
        .unwrap();
    assert!(
        global
            .iter()
            .any(|p| p.user == "client" && p.actions == Action::ALL.to_vec()),
        "{global:?}"
    );
    let ns = "hbase_orm_it";
    let create = Permission::namespace("@analysts", ns, [Action::Create]);
    admin.grant(&create).await.unwrap();
    let scope = PermissionScope::Namespace(ns.into());
    let listed = admin.user_permissions(&scope, None).await.unwrap();
    assert!(listed.contains(&create), "{listed:?}");
    admin.revoke(&create).await.unwrap();
    let listed = admin.user_permissions(&scope, None).await.unwrap();
    assert!(!listed.iter().any(|p| p.user == "@analysts"), "{listed:?}");
    // Nothing to grant: refused before anything is sent.
    let nothing = Permission::namespace("alice", ns, []);
    assert!(matches!(
        admin.grant(&nothing).await,
        Err(Error::IllegalArgument { .. })
    ));
}

#[tokio::test]
async fn gateways_have_no_permission_calls() {
    let _env = ENVIRONMENT.read().await;
    for service in ["thrift2", "thrift1"] {
        let client = connect(&spnego_url(service)).await.unwrap();
        let reader = Permission::table("alice", TableName::new("default", "t"), [Action::Read]);
        match client.admin().grant(&reader).await {
            Err(Error::Unsupported { operation, .. }) => assert_eq!(operation, "grant"),
            other => panic!("{service}: {other:?}"),
        }
    }
}

#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "hbase_orm_it", table = "charts", family = "d")]
struct Chart {
    #[hbase(key)]
    id: u64,
    diagnosis: String,
}

/// The row keys `client` scans in `table`, with these labels if given.
async fn keys(client: &Client, table: &TableName, labels: Option<&[&str]>) -> Vec<String> {
    let mut scan = Scan::new();
    if let Some(labels) = labels {
        scan = scan.authorizations(labels.iter().copied());
    }
    let rows: Vec<_> = client
        .table_named(table.clone())
        .scan(scan)
        .try_collect()
        .await
        .unwrap();
    rows.iter()
        .map(|r| String::from_utf8_lossy(&r.key).into_owned())
        .collect()
}

/// A gateway client of `service` acting, through `doAs`, for `user`.
async fn gateway_as(service: &str, user: &str) -> Client {
    let mut config = Config::from_url(&spnego_url(service)).unwrap();
    config.http.do_as = Some(user.into());
    config.retry_deadline = Duration::ZERO;
    Client::builder().config(config).build().await.unwrap()
}

#[tokio::test]
async fn labels_hide_cells_from_readers_without_them() {
    let _env = ENVIRONMENT.write().await;
    let client = connect(&native_url()).await.unwrap();
    let admin = client.admin();
    // The labels (kept by the cluster across runs of this test: added once).
    let known = admin.list_labels(None).await.unwrap();
    let missing: Vec<String> = ["medical", "trainee"]
        .into_iter()
        .filter(|l| !known.iter().any(|k| k == l))
        .map(String::from)
        .collect();
    if !missing.is_empty() {
        admin.add_labels(&missing).await.unwrap();
    }
    let listed = admin.list_labels(Some("med.*")).await.unwrap();
    assert_eq!(listed, vec!["medical"]);
    let again = admin.add_labels(&["medical".to_string()]).await;
    assert!(again.is_err(), "a label added twice: {again:?}");
    admin
        .set_authorizations("alice", &["medical".to_string()])
        .await
        .unwrap();
    assert_eq!(
        admin.authorizations("alice").await.unwrap(),
        vec!["medical"]
    );
    assert!(admin.authorizations("bob").await.unwrap().is_empty());

    let t = TestTable::create(&client, "labels", vec![ColumnFamily::new("d")], &[]).await;
    let name = &t.name;
    for user in ["alice", "bob"] {
        let read = Permission::table(user, name.clone(), [Action::Read]);
        admin.grant(&read).await.unwrap();
    }
    let table = client.table_named(name.clone());
    let put = |row: &str| Put::new(row).column("d", "v", row);
    table.put(put("open")).await.unwrap();
    table
        .put(put("medical").visibility("medical"))
        .await
        .unwrap();
    table
        .put(put("medical-not-trainee").visibility("medical&!trainee"))
        .await
        .unwrap();
    // Through both gateways, as the superuser: the expression travels as HBase's attribute.
    for service in ["thrift2", "thrift1"] {
        let gateway = connect(&spnego_url(service)).await.unwrap();
        let row = format!("medical-by-{service}");
        gateway
            .table_named(name.clone())
            .put(put(&row).visibility("medical"))
            .await
            .unwrap();
    }
    // An entity saved by a labeling repository (its data row labeled).
    let charts = client.repository::<Chart>().on_table(name.clone());
    let chart = Chart {
        id: 7,
        diagnosis: "flu".into(),
    };
    charts
        .clone()
        .with_visibility("medical")
        .save(&chart)
        .await
        .unwrap();

    let all_of_medical = vec![
        "\0\0\0\0\0\0\0\u{7}".to_string(),
        "medical".into(),
        "medical-by-thrift1".into(),
        "medical-by-thrift2".into(),
        "medical-not-trainee".into(),
        "open".into(),
    ];
    // The superuser reads every cell, labels or not (as HBase lets it).
    assert_eq!(keys(&client, name, None).await, all_of_medical);
    let (alice_keys, alice_open_only, alice_gets, alice_chart) =
        as_user("alice", |alice| async move {
            let all = keys(&alice, name, None).await;
            let open_only = keys(&alice, name, Some(&["trainee"])).await;
            let table = alice.table_named(name.clone());
            let mut gets = Vec::new();
            for labels in [&["medical"][..], &["trainee"][..]] {
                let get = Get::new("medical").authorizations(labels.iter().copied());
                gets.push(table.get(get).await.unwrap().is_some());
            }
            let chart = alice
                .repository::<Chart>()
                .on_table(name.clone())
                .with_authorizations(["medical"])
                .get(&ChartKey { id: 7 })
                .await
                .unwrap();
            (all, open_only, gets, chart)
        })
        .await;
    assert_eq!(alice_keys, all_of_medical);
    // Asking only for a label she was not given reads with none of hers (scans and gets).
    assert_eq!(alice_open_only, vec!["open"]);
    assert_eq!(alice_gets, vec![true, false]);
    assert_eq!(alice_chart, Some(chart.clone()));
    // bob, without the label, sees the open row only, and no entity: as if it were not there.
    let (bob_keys, bob_asking, bob_chart) = as_user("bob", |bob| async move {
        let all = keys(&bob, name, None).await;
        // Asking for a label he was not given changes nothing.
        let asking = keys(&bob, name, Some(&["medical"])).await;
        let chart = bob
            .repository::<Chart>()
            .on_table(name.clone())
            .get(&ChartKey { id: 7 })
            .await
            .unwrap();
        (all, asking, chart)
    })
    .await;
    assert_eq!(bob_keys, vec!["open"]);
    assert_eq!(bob_asking, vec!["open"]);
    assert_eq!(bob_chart, None);
    // Through the gateways, for each of them (doAs): the same, the labels a read asks for
    // carried through.
    for service in ["thrift2", "thrift1"] {
        let alice = gateway_as(service, "alice").await;
        assert_eq!(keys(&alice, name, None).await, all_of_medical, "{service}");
        let trainee = keys(&alice, name, Some(&["trainee"])).await;
        assert_eq!(trainee, vec!["open"], "{service}");
        let bob = gateway_as(service, "bob").await;
        assert_eq!(
            keys(&bob, name, Some(&["medical"])).await,
            vec!["open"],
            "{service}"
        );
    }
    // A labeling repository's delete removes the labeled entity (an unlabeled delete would
    // leave it: HBase deletes only the cells of the delete's own expression).
    let key = ChartKey { id: 7 };
    let unlabeled = charts.clone();
    unlabeled.delete(&key).await.unwrap();
    assert_eq!(unlabeled.get(&key).await.unwrap(), Some(chart.clone()));
    let medical = charts.clone().with_visibility("medical");
    medical.delete(&key).await.unwrap();
    assert_eq!(medical.get(&key).await.unwrap(), None);
    // The same through both gateways: the delete's expression travels as HBase's attribute.
    for service in ["thrift2", "thrift1"] {
        let gateway = connect(&spnego_url(service)).await.unwrap();
        let table = gateway.table_named(name.clone());
        let row = format!("medical-by-{service}");
        table
            .delete(hbase_orm::Delete::new(row.as_str()))
            .await
            .unwrap();
        assert!(
            table.get(Get::new(row.as_str())).await.unwrap().is_some(),
            "{service}"
        );
        let labeled = hbase_orm::Delete::new(row.as_str())
            .column("d", "v")
            .visibility("medical");
        table.delete(labeled).await.unwrap();
        assert!(
            table.get(Get::new(row.as_str())).await.unwrap().is_none(),
            "{service}"
        );
    }
    // Taken away, the label no longer shows alice the cells.
    admin
        .clear_authorizations("alice", &["medical".to_string()])
        .await
        .unwrap();
    assert!(admin.authorizations("alice").await.unwrap().is_empty());
    let after = as_user(
        "alice",
        |alice| async move { keys(&alice, name, None).await },
    )
    .await;
    assert_eq!(after, vec!["open"]);
    // What the deletes left, as the superuser reads it.
    let left = keys(&client, name, None).await;
    assert_eq!(left, vec!["medical", "medical-not-trainee", "open"]);
    // A labeling repository cannot bulk-load (bulk-loaded files carry no labels).
    let refused = charts
        .with_visibility("medical")
        .bulk_load(&[chart_of(8)], &hbase_orm::BulkLoadOptions::new())
        .await;
    assert!(
        matches!(&refused, Err(Error::IllegalArgument { message }) if message.contains("visibility")),
        "{refused:?}"
    );
}

fn chart_of(id: u64) -> Chart {
    Chart {
        id,
        diagnosis: "cold".into(),
    }
}

#[tokio::test]
async fn the_in_memory_store_refuses_labels() {
    let client = hbase_orm_suite::connect_with(Config::from_url("memory://").unwrap()).await;
    let t = TestTable::create(&client, "labels", vec![ColumnFamily::new("d")], &[]).await;
    let table = client.table_named(t.name.clone());
    let put = Put::new("k").column("d", "v", "x").visibility("medical");
    for result in [
        table.put(put).await.map(|_| ()),
        table
            .get(Get::new("k").authorizations(["medical"]))
            .await
            .map(|_| ()),
        keys_of(&table).await,
    ] {
        match result {
            Err(Error::Unsupported { why, .. }) => assert!(why.contains("labels"), "{why}"),
            other => panic!("{other:?}"),
        }
    }
    assert!(matches!(
        client.admin().add_labels(&["x".to_string()]).await,
        Err(Error::Unsupported { .. })
    ));
}

async fn keys_of(table: &hbase_orm::Table) -> hbase_orm::Result<()> {
    let scan = Scan::new().authorizations(["medical"]);
    let _: Vec<_> = table.scan(scan).try_collect().await?;
    Ok(())
}
