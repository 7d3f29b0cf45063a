//! Who may do what on the secured HBase of `hbase-local/secure/secure.sh up` (its
//! `AccessController`): permissions granted, listed and revoked through `Admin` by the
//! superuser `client`, and what `alice` (the reader) and `bob` (the writer) may then do, each
//! acting through a native client of their own (their own keytab); HBase's refusals as
//! `Error::AccessDenied`, naming the user, the action and the scope; the gateways, which have
//! no permission calls in HBase 2, refusing with `Unsupported`.
//!
//! Built with `--features kerberos`; the environment comes from
//! `eval "$(hbase-local/secure/secure.sh env)"`. `.ci/run` runs them in its secured stage.

use std::future::Future;
use std::time::{Duration, Instant};

use futures::TryStreamExt;
use hbase_orm::{
    Action, Client, ColumnFamily, Error, Get, Permission, PermissionScope, Put, Scan, TableName,
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
