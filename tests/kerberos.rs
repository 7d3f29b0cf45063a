//! Kerberos against the secured HBase of `hbase-local/secure/secure.sh up`: SPNEGO over HTTPS
//! (Thrift2 and Thrift1) and SASL GSSAPI over TCP with each protection (`auth`, `auth-int`,
//! `auth-conf`), each doing puts, gets, a scan and an entity round trip; what no credentials,
//! a missing token and a protection the gateway does not offer give; `doAs` passed through
//! (the user it names has no rights there, so her writes are refused by HBase itself); and a
//! capture of the bytes on the wire, which shows a marker value in clear under `auth` and
//! `auth-int` and never under `auth-conf`. The native backend (HBase's own RPC) against three
//! HBases, one for each `hbase.rpc.protection`: round trips under each, a protection the
//! server does not offer refused, and a capture of the loopback interface (`tcpdump`) that
//! shows the marker in clear under `authentication` and `integrity` and never under `privacy`.
//!
//! Built with `--features kerberos` (the system's GSSAPI: libkrb5-dev); the environment comes
//! from `eval "$(hbase-local/secure/secure.sh env)"` (the realm's krb5.conf, a ticket cache
//! holding the test user's ticket, the gateways' CA). `.ci/run` runs them so.

use futures::TryStreamExt;
use hbase_orm::{
    Client, ColumnFamily, Config, Error, Get, HBaseEntity, Put, Scan, TableDescriptor, TableName,
};
use hbase_orm_suite::relay::Relay;
use hbase_orm_suite::secure::{
    connect, env, native_url, native_url_of, sasl_url, spnego_url, ENVIRONMENT,
};
use hbase_orm_suite::TestTable;

#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "hbase_orm_it", table = "kerberos", family = "d")]
struct Note {
    #[hbase(key)]
    id: u64,
    text: String,
}

/// Puts, gets, a scan and an entity round trip through `client`.
async fn round_trip(client: &Client, label: &str) {
    let t = TestTable::create(client, label, vec![ColumnFamily::new("d")], &[]).await;
    let table = client.table_named(t.name.clone());
    for k in ["a", "b", "c"] {
        table
            .put(Put::new(k).column("d", "v", format!("value {k}")))
            .await
            .unwrap();
    }
    let row = table.get(Get::new("b")).await.unwrap().unwrap();
    assert_eq!(row.value("d", "v"), Some(&b"value b"[..]));
    let rows: Vec<_> = table.scan(Scan::new()).try_collect().await.unwrap();
    assert_eq!(rows.len(), 3);
    drop(t);

    let t = TestTable::for_entity::<Note>(client, label).await;
    let notes = client.repository::<Note>().on_table(t.name.clone());
    let note = Note {
        id: 7,
        text: "é".repeat(3000),
    };
    notes.save(&note).await.unwrap();
    assert_eq!(notes.get(&note.key()).await.unwrap(), Some(note));
}

#[tokio::test]
async fn every_sasl_protection_carries_calls() {
    let _env = ENVIRONMENT.read().await;
    for (variable, qop) in [
        ("HBASE_ORM_SECURE_SASL_AUTH", "auth"),
        ("HBASE_ORM_SECURE_SASL_INT", "auth-int"),
        ("HBASE_ORM_SECURE_SASL_CONF", "auth-conf"),
    ] {
        let client = connect(&sasl_url(variable, qop)).await.unwrap();
        round_trip(&client, &format!("sasl_{}", qop.replace('-', "_"))).await;
    }
}

#[tokio::test]
async fn spnego_carries_calls_to_both_gateways() {
    let _env = ENVIRONMENT.read().await;
    let thrift2 = connect(&spnego_url("thrift2")).await.unwrap();
    round_trip(&thrift2, "spnego").await;
    // Thrift1 has no namespaces: a table in the default one, made through Thrift2.
    let thrift1 = connect(&spnego_url("thrift1")).await.unwrap();
    let name = TableName::new(
        "default",
        format!("hbase_orm_kerberos_{}", std::process::id()),
    );
    let admin = thrift2.admin();
    admin
        .create_table(
            &TableDescriptor::new(name.clone()).family(ColumnFamily::new("d")),
            &[],
        )
        .await
        .unwrap();
    let table = thrift1.table_named(name.clone());
    table
        .put(Put::new("k").column("d", "v", "1"))
        .await
        .unwrap();
    let row = table.get(Get::new("k")).await.unwrap().unwrap();
    admin.delete_table(&name).await.unwrap();
    assert_eq!(row.value("d", "v"), Some(&b"1"[..]));
}

#[tokio::test]
async fn the_native_backend_authenticates_with_kerberos() {
    let _env = ENVIRONMENT.read().await;
    let started = std::time::Instant::now();
    let client = connect(&native_url()).await.unwrap();
    round_trip(&client, "native").await;
    println!("native round trip with Kerberos: {:?}", started.elapsed());
    let started = std::time::Instant::now();
    // Without Kerberos the secured servers refuse the SIMPLE connection.
    let simple = native_url().replace("auth=kerberos&kerberos_host=localhost", "");
    let client = connect(&simple).await.unwrap();
    let e = client
        .table_named(TableName::new("hbase", "namespace"))
        .get(Get::new("default"))
        .await
        .unwrap_err();
    println!(
        "a SIMPLE client of the secured HBase: {e} ({:?})",
        started.elapsed()
    );
    assert!(matches!(e, Error::Unauthenticated { .. }), "{e}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "not tried again and again"
    );
}

#[tokio::test]
async fn a_protection_the_gateway_does_not_offer_is_refused() {
    let _env = ENVIRONMENT.read().await;
    match connect(&sasl_url("HBASE_ORM_SECURE_SASL_AUTH", "auth-conf")).await {
        Err(Error::Kerberos { step, message, .. }) => {
            assert_eq!(step, "choosing a security layer");
            assert!(
                message.contains("offers auth but at least AuthConf"),
                "{message}"
            );
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
}

#[tokio::test]
async fn without_credentials_or_a_token_the_errors_say_so() {
    // No token at all: the gateway asks for one.
    let https = spnego_url("thrift2").replace("auth=kerberos&", "");
    match connect(&https).await {
        Err(Error::Unauthenticated { challenge, .. }) => {
            assert_eq!(challenge.as_deref(), Some("Negotiate"))
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
    // No credentials: an empty ticket cache and no client keytab.
    let _env = ENVIRONMENT.write().await;
    let (cache, keytab) = (
        std::env::var_os("KRB5CCNAME"),
        std::env::var_os("KRB5_CLIENT_KTNAME"),
    );
    let empty = std::env::temp_dir().join(format!("hbase-orm-no-ticket-{}", std::process::id()));
    std::env::set_var("KRB5CCNAME", format!("FILE:{}", empty.display()));
    std::env::set_var("KRB5_CLIENT_KTNAME", empty.with_extension("keytab"));
    let sasl = connect(&sasl_url("HBASE_ORM_SECURE_SASL_CONF", "auth-conf")).await;
    let spnego = connect(&spnego_url("thrift2")).await;
    match cache {
        Some(v) => std::env::set_var("KRB5CCNAME", v),
        None => std::env::remove_var("KRB5CCNAME"),
    }
    match keytab {
        Some(v) => std::env::set_var("KRB5_CLIENT_KTNAME", v),
        None => std::env::remove_var("KRB5_CLIENT_KTNAME"),
    }
    for result in [sasl, spnego] {
        match result {
            Err(Error::Kerberos { message, .. }) => {
                assert!(message.to_lowercase().contains("credentials"), "{message}")
            }
            other => panic!("{:?}", other.map(|_| ())),
        }
    }
}

#[tokio::test]
async fn do_as_acts_as_the_user_it_names() {
    let _env = ENVIRONMENT.read().await;
    let client = connect(&spnego_url("thrift2")).await.unwrap();
    let t = TestTable::create(&client, "do_as", vec![ColumnFamily::new("d")], &[]).await;
    let mut config = Config::from_url(&spnego_url("thrift2")).unwrap();
    config.http.do_as = Some("alice".into());
    config.retry_deadline = std::time::Duration::ZERO;
    let alice = Client::builder()
        .config(config.clone())
        .build()
        .await
        .unwrap();
    // alice has no rights in this HBase: HBase itself refuses her write.
    let e = alice
        .table_named(t.name.clone())
        .put(Put::new("k").column("d", "v", "1"))
        .await
        .unwrap_err();
    match &e {
        Error::AccessDenied { denial, .. } => {
            assert_eq!(denial.user.as_deref(), Some("alice"), "{e}");
            assert_eq!(denial.action, Some(hbase_orm::Action::Write), "{e}");
            let scope = denial.scope.as_deref().unwrap_or_default();
            assert!(scope.ends_with(&t.name.name), "{e}");
        }
        other => panic!("not AccessDenied: {other:?}"),
    }
    assert!(!e.is_retryable());
    // The test user itself may write.
    client
        .table_named(t.name.clone())
        .put(Put::new("k").column("d", "v", "1"))
        .await
        .unwrap();
    // mallory is no one the test user may act for.
    config.http.do_as = Some("mallory".into());
    match Client::builder().config(config).build().await {
        Err(Error::Forbidden { message, .. }) => {
            assert!(
                message.contains("not allowed to impersonate mallory"),
                "{message}"
            )
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
}

/// Writes `marker` as a row key and its value, and reads it back.
async fn write_and_read(table: &hbase_orm::Table, marker: &str) {
    table
        .put(Put::new(marker).column("d", "v", marker))
        .await
        .unwrap();
    let row = table.get(Get::new(marker)).await.unwrap().unwrap();
    assert_eq!(row.value("d", "v"), Some(marker.as_bytes()));
}

#[tokio::test]
async fn only_auth_conf_hides_the_calls_on_the_wire() {
    let _env = ENVIRONMENT.read().await;
    let admin = connect(&sasl_url("HBASE_ORM_SECURE_SASL_CONF", "auth-conf"))
        .await
        .unwrap();
    let t = TestTable::create(&admin, "wire", vec![ColumnFamily::new("d")], &[]).await;
    for (variable, qop, in_clear) in [
        ("HBASE_ORM_SECURE_SASL_AUTH", "auth", true),
        ("HBASE_ORM_SECURE_SASL_INT", "auth-int", true),
        ("HBASE_ORM_SECURE_SASL_CONF", "auth-conf", false),
    ] {
        let marker = format!("MARKER-{qop}-7f3a9c");
        let relay = Relay::start(env(variable)).await;
        let relay_port = relay.address.rsplit_once(':').unwrap().1.to_string();
        // Through the relay, naming the gateway's principal's host.
        let url = format!(
            "thrift2://127.0.0.1:{relay_port}/?auth=kerberos&qop={qop}&kerberos_host=localhost"
        );
        let client = connect(&url).await.unwrap();
        write_and_read(&client.table_named(t.name.clone()), &marker).await;
        let seen = relay.relayed();
        let found = relay.saw(marker.as_bytes());
        assert!(seen > 200, "{qop}: the relay saw {seen} bytes");
        assert_eq!(
            found, in_clear,
            "{qop}: marker in clear on the wire: {found}"
        );
    }
}

/// The launcher's three HBases: the variables of their ZooKeeper port and RPC ports (master,
/// region server), their `hbase.rpc.protection`, and whether a value written is in clear on
/// the wire.
const PROTECTED: [(&str, &str, &str, bool); 3] = [
    (
        "HBASE_ORM_SECURE_ZK_PORT",
        "HBASE_ORM_SECURE_RPC_PORTS",
        "authentication",
        true,
    ),
    (
        "HBASE_ORM_SECURE_INTEGRITY_ZK_PORT",
        "HBASE_ORM_SECURE_INTEGRITY_RPC_PORTS",
        "integrity",
        true,
    ),
    (
        "HBASE_ORM_SECURE_PRIVACY_ZK_PORT",
        "HBASE_ORM_SECURE_PRIVACY_RPC_PORTS",
        "privacy",
        false,
    ),
];

#[tokio::test]
async fn the_native_backend_speaks_integrity_and_privacy() {
    let _env = ENVIRONMENT.read().await;
    for (zk, _, protection, _) in &PROTECTED[1..] {
        // The default qop (auth) takes the strongest layer the server offers.
        let started = std::time::Instant::now();
        let client = connect(&native_url_of(zk)).await.unwrap();
        round_trip(&client, &format!("native_{protection}")).await;
        println!(
            "native round trip under {protection}: {:?}",
            started.elapsed()
        );
    }
    // Asking for as much as the server gives.
    let url = format!("{}&qop=auth-int", native_url_of(PROTECTED[1].0));
    round_trip(&connect(&url).await.unwrap(), "native_int").await;
    let url = format!("{}&qop=auth-conf", native_url_of(PROTECTED[2].0));
    let client = connect(&url).await.unwrap();
    round_trip(&client, "native_conf").await;
    many_and_large(&client, "native_conf_large").await;
}

/// A batch of 3,000 rows of 1 to 1.7 KB, read back by a scan (pages of about 2 MiB, each
/// many reads off the socket) and by 64 gets at once (replies that may share a message).
async fn many_and_large(client: &Client, label: &str) {
    let t = TestTable::create(client, label, vec![ColumnFamily::new("d")], &[]).await;
    let table = client.table_named(t.name.clone());
    let value = |i: usize| format!("{i:05}-{}", "x".repeat(1000 + i % 700));
    let puts = (0..3000)
        .map(|i| Put::new(format!("r{i:05}")).column("d", "v", value(i)))
        .collect();
    table.put_many(puts).await.unwrap();
    let rows: Vec<_> = table.scan(Scan::new()).try_collect().await.unwrap();
    assert_eq!(rows.len(), 3000);
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row.value("d", "v"), Some(value(i).as_bytes()), "row {i}");
    }
    let gets = (0..64).map(|i| table.get(Get::new(format!("r{:05}", i * 40))));
    let got = futures::future::try_join_all(gets).await.unwrap();
    for (i, row) in got.into_iter().enumerate() {
        let row = row.unwrap();
        assert_eq!(row.value("d", "v"), Some(value(i * 40).as_bytes()));
    }
}

/// The error of the first call of a native client of `url` (the connection is opened then).
async fn first_call_error(url: &str) -> Error {
    let client = connect(url).await.unwrap();
    client
        .table_named(TableName::new("hbase", "namespace"))
        .get(Get::new("default"))
        .await
        .unwrap_err()
}

#[tokio::test]
async fn a_protection_the_server_does_not_offer_is_refused_by_the_native_backend() {
    let _env = ENVIRONMENT.read().await;
    for (zk, qop, offered) in [
        ("HBASE_ORM_SECURE_ZK_PORT", "auth-conf", "auth"),
        ("HBASE_ORM_SECURE_ZK_PORT", "auth-int", "auth"),
        (
            "HBASE_ORM_SECURE_INTEGRITY_ZK_PORT",
            "auth-conf",
            "auth-int",
        ),
    ] {
        let started = std::time::Instant::now();
        let e = first_call_error(&format!("{}&qop={qop}", native_url_of(zk))).await;
        println!("qop={qop} of a server offering {offered}: {e}");
        let Error::Kerberos { step, message, .. } = &e else {
            panic!("qop={qop}: {e:?}");
        };
        assert_eq!(*step, "choosing a security layer");
        assert!(
            message.contains(&format!("the server offers {offered} ")),
            "{message}"
        );
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "not tried again and again"
        );
    }
}

/// `tcpdump` on the loopback interface, keeping the TCP packets to and from `ports`.
struct Capture {
    child: std::process::Child,
    file: std::path::PathBuf,
    /// What it says on stderr after it started (read on, so that it never blocks there).
    said: std::thread::JoinHandle<String>,
}

impl Capture {
    fn start(ports: &str, label: &str) -> Capture {
        use std::io::{BufRead, BufReader};
        let filter = ports
            .split(',')
            .map(|p| format!("tcp port {p}"))
            .collect::<Vec<_>>()
            .join(" or ");
        let file = std::env::temp_dir().join(format!(
            "hbase-orm-capture-{label}-{}.pcap",
            std::process::id()
        ));
        let mut child = std::process::Command::new("tcpdump")
            // Each packet written as it comes (not a buffer's worth when the kernel hands it
            // over), so that all are in the file when it stops.
            .args(["-i", "lo", "-n", "--immediate-mode", "-U", "-s", "0", "-w"])
            .arg(&file)
            .arg(&filter)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "tcpdump: {e} (it captures the wire for this test, as root; \
                     hbase-local/secure/secure.sh up installs it)"
                )
            });
        // It says so on stderr once the capture runs.
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        while !line.contains("listening on") {
            line.clear();
            let n = stderr.read_line(&mut line).unwrap();
            assert!(n > 0, "tcpdump stopped before it captured: {line}");
        }
        let said = std::thread::spawn(move || {
            let mut rest = String::new();
            let _ = std::io::Read::read_to_string(&mut stderr, &mut rest);
            rest
        });
        Capture { child, file, said }
    }

    /// Stops the capture once its file has stopped growing; the bytes captured.
    ///
    /// Packets the kernel has handed to the capture but `tcpdump` has not yet read are lost
    /// when it is interrupted (a CI run once kept 1 of 8), so it is given the time to write
    /// what it was handed: the file unchanged for half a second, five seconds at most.
    fn stop(mut self) -> Vec<u8> {
        let size = |file: &std::path::Path| std::fs::metadata(file).map_or(0, |m| m.len());
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        let mut last = size(&self.file);
        while std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(500));
            let now = size(&self.file);
            if now == last {
                break;
            }
            last = now;
        }
        let pid = self.child.id().to_string();
        let _ = std::process::Command::new("kill")
            .args(["-INT", &pid])
            .status();
        let status = self.child.wait().unwrap();
        let said = self.said.join().unwrap();
        println!("tcpdump ({status}): {}", said.trim().replace('\n', "; "));
        let bytes = std::fs::read(&self.file).unwrap();
        let _ = std::fs::remove_file(&self.file);
        bytes
    }
}

#[tokio::test]
async fn only_privacy_hides_the_native_calls_on_the_wire() {
    let _env = ENVIRONMENT.read().await;
    for (zk, ports, protection, in_clear) in PROTECTED {
        let client = connect(&native_url_of(zk)).await.unwrap();
        let t = TestTable::create(&client, "wire", vec![ColumnFamily::new("d")], &[]).await;
        // Connections to the region server and master opened before the capture starts, so
        // that it holds the calls alone.
        let table = client.table_named(t.name.clone());
        table.get(Get::new("warm")).await.unwrap();
        let marker = format!("MARKER-{protection}-4d1e88");
        let capture = Capture::start(env(ports).as_str(), protection);
        write_and_read(&table, &marker).await;
        let wire = capture.stop();
        let found = wire
            .windows(marker.len())
            .filter(|w| *w == marker.as_bytes())
            .count();
        println!(
            "{protection}: {} bytes captured, the marker {found} times in clear",
            wire.len()
        );
        // The put and the get's request and reply went by: several packets of some size.
        assert!(wire.len() > 500, "{protection}: {} bytes", wire.len());
        assert_eq!(
            found > 0,
            in_clear,
            "{protection}: the marker in clear {found} times"
        );
        drop(t);
    }
}
