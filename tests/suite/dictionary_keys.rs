//! Dictionary key parts against a real HBase: names stored in row keys as 4-byte ids from a
//! lookup table (the log-data case study's numeric substitution), assigned on save, found on
//! reads, and turned back into names on every read path.

use futures::TryStreamExt;
use hbase_orm::{Client, DictName, HBaseEntity, Repository, TableName};
use hbase_orm_suite::{client, ensure_test_namespace, TestTable};

/// `[host id][event id][reverse timestamp]`: 4 + 4 + 8 bytes whatever the names' lengths.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    namespace = "hbase_orm_it",
    table = "dict_log",
    family = "d",
    dictionary_table = "dict_log_names"
)]
struct LogLine {
    #[hbase(key(dictionary = "hosts"))]
    host: DictName,
    #[hbase(key(dictionary = "log_types"))]
    event: DictName,
    #[hbase(key(reverse_timestamp))]
    ts: i64,
    message: String,
}

fn line(host: &str, event: &str, ts: i64) -> LogLine {
    LogLine {
        host: host.into(),
        event: event.into(),
        ts,
        message: format!("{event} on {host} at {ts}"),
    }
}

async fn tables(client: &Client) -> (Repository<LogLine>, Vec<TestTable>) {
    ensure_test_namespace(client).await;
    let admin = client.admin();
    let names = [
        LogLine::table_name(),
        TableName::new("hbase_orm_it", "dict_log_names"),
    ];
    for name in &names {
        if admin.table_exists(name).await.unwrap() {
            admin.delete_table(name).await.unwrap();
        }
    }
    let report = admin.ensure::<LogLine>().await.unwrap();
    assert!(
        report.related_tables[0].created_table,
        "ensure creates the dictionary table"
    );
    let guards = names
        .iter()
        .map(|n| TestTable::adopt(client, n.clone()))
        .collect();
    (client.repository::<LogLine>(), guards)
}

#[tokio::test]
async fn names_become_ids_in_keys_and_names_again_on_reads() {
    let client = client().await;
    let (logs, _tables) = tables(&client).await;
    let long_host = "web-frontend-0042.eu-west.example.com";
    logs.save(&line(long_host, "login", 1_000)).await.unwrap();
    logs.save_all(&[
        line(long_host, "login", 2_000),
        line(long_host, "logout", 3_000),
        line("db-1", "login", 1_500),
    ])
    .await
    .unwrap();

    // The key holds ids: 4 + 4 + 8 bytes.
    let raw: Vec<_> = client
        .table_named(LogLine::table_name())
        .scan(hbase_orm::Scan::new())
        .try_collect()
        .await
        .unwrap();
    assert_eq!(raw.len(), 4);
    assert!(
        raw.iter().all(|r| r.key.len() == 16),
        "4-byte ids, not the names"
    );
    let hosts = logs.dictionary("hosts");
    assert_eq!(hosts.lookup(long_host).await.unwrap(), Some(1));
    assert_eq!(hosts.lookup("db-1").await.unwrap(), Some(2));

    // get: by names; the entity read has names and ids.
    let key = LogLineKey {
        host: long_host.into(),
        event: "logout".into(),
        ts: 3_000,
    };
    let got = logs.get(&key).await.unwrap().unwrap();
    assert_eq!(got, line(long_host, "logout", 3_000));
    assert_eq!(got.event.name(), Some("logout"));
    assert_eq!(got.event.id(), Some(2));

    // A name never saved: no id is assigned by a read, and nothing is found.
    let unknown = LogLineKey {
        host: "nowhere".into(),
        event: "login".into(),
        ts: 1,
    };
    assert_eq!(logs.get(&unknown).await.unwrap(), None);
    assert!(!logs.exists(&unknown).await.unwrap());
    assert_eq!(hosts.lookup("nowhere").await.unwrap(), None);

    // A prefix scan: resolve the names of the prefix, then newest first per host and event.
    let (host, event) = (DictName::new(long_host), DictName::new("login"));
    assert!(hosts.resolve(&host, false).await.unwrap());
    assert!(logs
        .dictionary("log_types")
        .resolve(&event, false)
        .await
        .unwrap());
    let prefix = LogLineKey::prefix_by_host_event(&host, &event).unwrap();
    let logins: Vec<LogLine> = logs
        .scan()
        .prefix(prefix)
        .stream()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(
        logins
            .iter()
            .map(|l| (l.host.name(), l.ts))
            .collect::<Vec<_>>(),
        [(Some(long_host), 2_000), (Some(long_host), 1_000)]
    );
    // Scan bounds by name, and a whole scan with names filled in.
    let all: Vec<LogLine> = logs
        .scan()
        .from(&LogLineKey {
            host: long_host.into(),
            event: "logout".into(),
            ts: i64::MAX,
        })
        .stream()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(all.len(), 2, "logout of host 1, then db-1's line");
    assert!(all
        .iter()
        .all(|l| l.host.name().is_some() && l.event.name().is_some()));

    // get_many and delete by names.
    let many = logs
        .get_many(&[key.clone(), unknown.clone()])
        .await
        .unwrap();
    assert!(many[0].is_some() && many[1].is_none());
    logs.delete(&key).await.unwrap();
    assert_eq!(logs.get(&key).await.unwrap(), None);

    // Without a repository, encoding a name that has no id says what to do.
    let err = line("fresh-host", "login", 1).row_key().unwrap_err();
    assert!(err.to_string().contains("Dictionary::resolve"), "{err}");

    versions_through_a_key_of_names(&logs).await;
}

/// A field's versions reached through a key of names (run by the test above: both use the
/// same tables, which a second test running at once would drop and create again).
async fn versions_through_a_key_of_names(logs: &Repository<LogLine>) {
    let key = || LogLineKey {
        host: "versions-host.example.org".into(),
        event: "versions-event".into(),
        ts: 1_700_000_000_000,
    };
    let messages = logs.versions(LogLine::MESSAGE);
    // Unknown names: nothing to read or delete, and no id is assigned by it.
    assert!(messages.latest(&key(), 1).await.unwrap().is_empty());
    messages.delete_all(&key()).await.unwrap();
    // A write assigns the ids, as a save does; fresh keys built from the names reach it.
    messages
        .put_at(&key(), 5, &"first".to_string())
        .await
        .unwrap();
    let read = messages.latest(&key(), 1).await.unwrap();
    assert_eq!(read.newest().map(|v| v.value.as_str()), Some("first"));
    messages.delete_all(&key()).await.unwrap();
    assert!(messages.latest(&key(), 1).await.unwrap().is_empty());
}
