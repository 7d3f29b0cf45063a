//! The gateways behind HTTP and HTTPS, against the launcher's real ones: what fails and how
//! it says so (a CA that did not sign the certificate, a name it does not carry, plain HTTP to
//! the TLS port and TLS to the plain one, a TCP client at an HTTP gateway and the reverse),
//! `doAs` passed through and refused, and secrets kept out of errors, `Debug` and tracing.
//!
//! `hbase-local/hbase.sh up` starts them: Thrift2 over HTTP on 9094 (no proxy users) and over
//! HTTPS on 9095 (its own user may act for `alice` only), Thrift1 likewise on 9096 and 9097,
//! the certificate signed by itself, trusted through `ca.pem` in the launcher's `tls/` folder
//! beside `other-ca.pem`, which is not its CA. The conformance suite runs everything else on
//! them (`thrift2_http::`, `thrift2_https::`, `thrift1_http::`, `thrift1_https::`).

use std::sync::{Arc, Mutex};

use hbase_orm::{Client, ColumnFamily, Config, Error, Get, Put, TrustRoots};
use hbase_orm_suite::relay::Relay;
use hbase_orm_suite::{gateway_address, http_gateway_url, tls_dir, with_table, TestTable};

/// The launcher's Thrift2 HTTPS gateway's settings.
fn https() -> Config {
    Config::from_url(&http_gateway_url("thrift2", true)).unwrap()
}

/// The launcher's Thrift2 HTTP gateway's settings.
fn http() -> Config {
    Config::from_url(&http_gateway_url("thrift2", false)).unwrap()
}

/// Connects (one call is made: the gateway-type check) and returns the error it must give.
async fn refused(config: Config) -> Error {
    let config = Config {
        retry_deadline: std::time::Duration::ZERO,
        ..config
    };
    match Client::builder().config(config).build().await {
        Ok(_) => panic!("connected where it must not"),
        Err(e) => e,
    }
}

#[tokio::test]
async fn a_certificate_from_another_ca_is_refused() {
    let mut config = https();
    if let Some(tls) = config.tls.as_mut() {
        tls.roots = TrustRoots::PemFile(tls_dir().join("other-ca.pem"));
    }
    match refused(config).await {
        Error::Tls { step, message, .. } => {
            assert_eq!(step, "checking the gateway's certificate");
            assert!(message.contains("not signed by a trusted CA"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_certificate_for_another_name_is_refused() {
    let mut config = https();
    if let Some(tls) = config.tls.as_mut() {
        tls.server_name = Some("other.example".into());
    }
    match refused(config).await {
        Error::Tls { step, message, .. } => {
            assert_eq!(step, "checking the gateway's certificate");
            assert!(message.contains("not valid for"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    // The certificate carries both names the launcher's gateways are reached by.
    let mut config = https();
    config.address = config.address.replace("127.0.0.1", "localhost");
    let client = Client::builder().config(config).build().await.unwrap();
    client.admin().list_namespaces().await.unwrap();
}

#[tokio::test]
async fn plain_http_to_the_tls_port_and_tls_to_the_plain_one_fail_apart() {
    // Plain HTTP to the HTTPS port: the gateway answers with a TLS alert, no HTTP.
    let mut plain = http();
    plain.address = https().address;
    let e = refused(plain).await;
    assert!(matches!(e, Error::Transport { .. }), "{e:?}");
    assert!(e.to_string().contains("the answer is not HTTP"), "{e}");
    assert!(e.to_string().contains("thrift2+https://"), "{e}");

    // TLS to the HTTP port: the gateway answers the handshake with an HTTP 400.
    let mut tls = https();
    tls.address = http().address;
    match refused(tls).await {
        Error::Tls { step, message, .. } => {
            assert_eq!(step, "the handshake");
            assert!(message.contains("did not answer in TLS"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn tcp_and_http_clients_at_the_other_kind_of_gateway_are_told_so() {
    // A plain TCP client at an HTTP gateway: the gateway answers the Thrift bytes in HTTP.
    let tcp = Config {
        address: http().address,
        ..Config::default()
    };
    let e = refused(tcp).await;
    assert!(matches!(e, Error::Protocol { .. }), "{e:?}");
    assert!(
        e.to_string().contains("the gateway answered in HTTP"),
        "{e}"
    );
    assert!(e.to_string().contains("thrift2+http://"), "{e}");

    // An HTTP client at a plain TCP gateway: it hangs up without a byte.
    let mut over_http = http();
    over_http.address = gateway_address();
    let e = refused(over_http).await;
    assert!(
        e.to_string()
            .contains("is it a plain TCP Thrift gateway (thrift2://)"),
        "{e}"
    );
}

#[tokio::test]
async fn do_as_is_passed_through_and_refused_where_not_allowed() {
    // The HTTPS gateway's user may act for alice: her calls work.
    let mut alice = https();
    alice.http.do_as = Some("alice".into());
    let client = Client::builder().config(alice).build().await.unwrap();
    with_table(
        &client,
        "doas",
        vec![ColumnFamily::new("d")],
        &[],
        |t| async move {
            t.put(Put::new("k").column("d", "v", "1")).await.unwrap();
            let row = t.get(Get::new("k")).await.unwrap().unwrap();
            assert_eq!(row.value("d", "v"), Some(&b"1"[..]));
        },
    )
    .await;

    // Not for mallory: the gateway's proxy-user rules refuse her, and the error says so.
    let mut mallory = https();
    mallory.http.do_as = Some("mallory".into());
    match refused(mallory).await {
        Error::Forbidden { message, .. } => {
            assert!(
                message.contains("not allowed to impersonate mallory"),
                "{message}"
            )
        }
        other => panic!("{other:?}"),
    }

    // A gateway without proxy-user support refuses any doAs.
    let mut unsupported = http();
    unsupported.http.do_as = Some("alice".into());
    match refused(unsupported).await {
        Error::Forbidden { message, .. } => {
            assert!(
                message.contains("Support for proxyuser is not configured"),
                "{message}"
            )
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn over_https_no_call_crosses_in_clear() {
    // The same put and get through a relay in front of the HTTP and the HTTPS gateway: the
    // marker crosses the first in clear, never the second.
    for (config, in_clear) in [(http(), true), (https(), false)] {
        let relay = Relay::start(config.address.clone()).await;
        let mut through = config.clone();
        through.address = relay.address.clone();
        if let Some(tls) = through.tls.as_mut() {
            // The certificate names 127.0.0.1, the gateway's address, not the relay's port.
            tls.server_name = Some("127.0.0.1".into());
        }
        let client = Client::builder().config(through).build().await.unwrap();
        let marker = format!("MARKER-{}-51c0ffee", relay.address);
        // The table is made and dropped without the relay (its drop runs on a runtime of its
        // own, where the relay does not).
        let direct = Client::builder()
            .config(config.clone())
            .build()
            .await
            .unwrap();
        let made = TestTable::create(&direct, "clear", vec![ColumnFamily::new("d")], &[]).await;
        let t = client.table_named(made.name.clone());
        t.put(Put::new(marker.as_str()).column("d", "v", marker.as_str()))
            .await
            .unwrap();
        let row = t.get(Get::new(marker.as_str())).await.unwrap().unwrap();
        assert_eq!(row.value("d", "v"), Some(marker.as_bytes()));
        drop(made);
        assert!(
            relay.relayed() > 500,
            "the relay saw too little to prove anything"
        );
        assert_eq!(relay.saw(marker.as_bytes()), in_clear, "{}", config.address);
    }
}

/// Every tracing event and span field of the current thread, as text.
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<String>>);

impl tracing::field::Visit for Recorder {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        let mut text = self.0.lock().unwrap();
        text.push_str(&format!("{}={value:?}\n", field.name()));
    }
}

impl tracing::Subscriber for Recorder {
    fn register_callsite(
        &self,
        _: &'static tracing::Metadata<'static>,
    ) -> tracing::subscriber::Interest {
        tracing::subscriber::Interest::always()
    }
    fn max_level_hint(&self) -> Option<tracing::level_filters::LevelFilter> {
        Some(tracing::level_filters::LevelFilter::TRACE)
    }
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        span.record(&mut self.clone());
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, values: &tracing::span::Record<'_>) {
        values.record(&mut self.clone());
    }
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        event.record(&mut self.clone());
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

#[test]
fn secrets_never_show_in_errors_debug_or_tracing() {
    let password = "TopSecret42";
    let token = "Tok-5150-secret";
    let recorder = Recorder::default();
    let seen = recorder.0.clone();
    // The process's subscriber, not a scoped one: a callsite that another test's thread met
    // first (with no subscriber) could otherwise stay silent here. What the other tests of
    // this binary trace is recorded too, and must hold no secret either.
    tracing::subscriber::set_global_default(recorder).expect("the only subscriber here");
    let shown = {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let mut shown = Vec::new();
            // A bad URL, an unreachable gateway, a refused doAs and a working client, each with
            // the password and a secret header: their errors and Debug output.
            let url = format!("thrift2+http://scott:{password}@127.0.0.1:1/");
            let config = Config::from_url(&url).unwrap();
            shown.push(format!("{config:?}"));
            shown.push(
                Config::from_url(&format!("{url}?nonsense=1"))
                    .unwrap_err()
                    .to_string(),
            );
            let unreachable = refused(config).await;
            shown.push(format!("{unreachable} {unreachable:?}"));
            let base = https();
            let url = http_gateway_url("thrift2", true).replacen(
                "https://",
                &format!("https://scott:{password}@"),
                1,
            );
            let mut config = Config::from_url(&url).unwrap();
            config.http.headers.push(("X-Token".into(), token.into()));
            config.http.do_as = Some("mallory".into());
            let e = refused(config.clone()).await;
            shown.push(format!("{e} {e:?}"));
            config.http.do_as = None;
            let client = Client::builder().config(config).build().await.unwrap();
            shown.push(format!("{:?}", client.config()));
            let missing = client.table("hbase_orm_it:no_such_table_here").unwrap();
            let e = missing.get(Get::new("k")).await.unwrap_err();
            shown.push(format!("{e} {e:?}"));
            assert_eq!(base.address, client.config().address);
            shown
        })
    };
    let traced = seen.lock().unwrap().clone();
    assert!(
        !traced.is_empty(),
        "the client traced nothing: the check would prove nothing"
    );
    for text in shown.iter().chain(std::iter::once(&traced)) {
        for secret in [password, token, "c2NvdHQ6VG9wU2VjcmV0NDI"] {
            assert!(!text.contains(secret), "{secret} shows in: {text}");
        }
    }
}
