//! Thrift over HTTP against fake gateways: typed refusals, secrets kept out of messages,
//! keep-alive, chunked, cut, oversized and hostile answers (errors, never a panic, memory
//! bounded by the reply limit).

use super::*;

#[test]
fn a_refusal_is_shown_short_and_without_markup() {
    let page = b"<html>\n<head><title>Error 403 User: root is not allowed to impersonate \
                 mallory</title></head><body><h2>HTTP ERROR 403</h2></body></html>";
    assert_eq!(
        excerpt(page),
        "Error 403 User: root is not allowed to impersonate mallory"
    );
    assert_eq!(excerpt(b""), "(no message)");
    // Jetty's plain-text page (what a client accepting text gets).
    let text = b"HTTP ERROR 500 javax.servlet.ServletException: nope\nURI: /\nSTATUS: 500\n\
                 MESSAGE: javax.servlet.ServletException: Support for proxyuser is not configured\n\
                 SERVLET: thrift\n";
    assert_eq!(
        excerpt(text),
        "javax.servlet.ServletException: Support for proxyuser is not configured"
    );
    assert_eq!(excerpt(b"plain\r\n  words"), "plain words");
    let long = "x ".repeat(400);
    let shown = excerpt(long.as_bytes());
    assert!(shown.ends_with(" ...") && shown.chars().count() <= EXCERPT_CHARS + 4);
}

#[test]
fn statuses_become_typed_errors() {
    let mut headers = HeaderMap::new();
    headers.append(
        http::header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Negotiate"),
    );
    match refusal("gw:9095", "get", 401, &headers, b"") {
        Error::Unauthenticated { challenge, .. } => {
            assert_eq!(challenge.as_deref(), Some("Negotiate"))
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        refusal("gw:9095", "get", 403, &HeaderMap::new(), b"no"),
        Error::Forbidden { .. }
    ));
    let refused = b"MESSAGE: javax.servlet.ServletException: \
                    org.apache.hadoop.security.authorize.AuthorizationException: User: root is \
                    not allowed to impersonate mallory";
    assert!(matches!(
        refusal("gw:9095", "get", 500, &HeaderMap::new(), refused),
        Error::Forbidden { .. }
    ));
    // A 503 may come from a proxy that passed the call on: not "nothing was done".
    let e = refusal("gw:9095", "get", 503, &HeaderMap::new(), b"busy");
    assert!(matches!(e, Error::HttpStatus { status: 503, .. }));
    assert!(!e.is_retryable());
}

#[test]
fn secrets_in_settings_never_show() {
    let mut config = Config::from_url("thrift2+http://app:TopSecret42@127.0.0.1:9094/").unwrap();
    config
        .http
        .headers
        .push(("X-Token".into(), "Tok-777".into()));
    let settings = HttpSettings::new(&config).unwrap().unwrap();
    let shown = format!("{:?} {config:?}", settings.headers);
    for secret in ["TopSecret42", "Tok-777", "YXBwOlRvcFNlY3JldDQy"] {
        assert!(!shown.contains(secret), "{secret} shows in {shown}");
    }
    // A bad header value is named by its header, not shown.
    config
        .http
        .headers
        .push(("X-Bad".into(), "line\nbreak-Secret99".into()));
    let e = HttpSettings::new(&config).err().unwrap().to_string();
    assert!(e.contains("X-Bad") && !e.contains("Secret99"), "{e}");
}

// ---------------------------------------------------------------------------- fake gateways

use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use thrift::protocol::{TFieldIdentifier, TMessageType, TStructIdentifier, TType};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::backend::wire::connection::{Connection, WireConfig};
use crate::backend::wire::testing::counting::measure;
use crate::backend::wire::testing::fuzz::{self, message};
use crate::backend::wire::{WireCall, WireProtocol};

/// `getThriftServerType`, as the pool's handshake sends it: the smallest real call.
struct ServerType;

impl WireCall for ServerType {
    type Reply = i32;
    fn method(&self) -> &'static str {
        "getThriftServerType"
    }
    fn encode(&self, protocol: WireProtocol, seq: i32, out: &mut Vec<u8>) -> thrift::Result<()> {
        let mut o = crate::backend::wire::output(protocol, out);
        crate::backend::wire::write_call(&mut *o, self.method(), seq, |o| {
            o.write_struct_begin(&TStructIdentifier::new("args"))?;
            o.write_field_stop()?;
            o.write_struct_end()
        })
    }
    fn decode(&self, protocol: WireProtocol, seq: i32, reply: &Bytes) -> Result<i32> {
        let mut i = crate::backend::wire::input(protocol, reply);
        crate::backend::wire::read_reply(&mut *i, self.method(), seq, |i| {
            i.read_struct_begin()?;
            let mut found = None;
            loop {
                let field = i.read_field_begin()?;
                match (field.field_type, field.id) {
                    (TType::Stop, _) => break,
                    (TType::I32, Some(0)) => found = Some(i.read_i32()?),
                    (t, _) => i.skip(t)?,
                }
                i.read_field_end()?;
            }
            i.read_struct_end()?;
            found.ok_or_else(|| {
                thrift::Error::Protocol(thrift::ProtocolError::new(
                    thrift::ProtocolErrorKind::InvalidData,
                    "no server type",
                ))
            })
        })
        .map_err(|e| crate::backend::wire::protocol_error(self.method(), e))
    }
}

/// The Thrift reply to call #`seq`: server type 2.
fn thrift_reply(seq: i32) -> Vec<u8> {
    message(
        WireProtocol::Binary,
        "getThriftServerType",
        TMessageType::Reply,
        seq,
        |o| {
            o.write_struct_begin(&TStructIdentifier::new("result"))?;
            o.write_field_begin(&TFieldIdentifier::new("success", TType::I32, 0))?;
            o.write_i32(2)?;
            o.write_field_end()?;
            o.write_field_stop()?;
            o.write_struct_end()
        },
    )
}

/// `200 OK` with `body`, its length declared.
fn ok(body: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/x-thrift\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body);
    out
}

/// `200 OK` with `body` sent in chunks of `size` bytes.
fn chunked(body: &[u8], size: usize) -> Vec<u8> {
    let mut out =
        b"HTTP/1.1 200 OK\r\nContent-Type: application/x-thrift\r\nTransfer-Encoding: chunked\r\n\r\n"
            .to_vec();
    for piece in body.chunks(size.max(1)) {
        out.extend_from_slice(format!("{:x}\r\n", piece.len()).as_bytes());
        out.extend_from_slice(piece);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"0\r\n\r\n");
    out
}

/// What a fake gateway does with one request: answer with the bytes made from the call's
/// sequence number, then keep the connection or close it.
type Answer = Box<dyn Fn(i32) -> Vec<u8> + Send + Sync>;

/// A fake HTTP gateway on a port of its own, answering the requests of each connection with
/// `answers` in turn (across connections), closing a connection after the last answer or
/// after an answer the list marks with `close`. Counts connections accepted. Every request
/// it read is kept (for checks of what the client sent).
struct FakeGateway {
    address: String,
    accepted: Arc<AtomicUsize>,
    requests: Arc<std::sync::Mutex<Vec<String>>>,
}

async fn fake_gateway(answers: Vec<(Answer, bool)>) -> FakeGateway {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let accepted = Arc::new(AtomicUsize::new(0));
    let requests = Arc::new(std::sync::Mutex::new(Vec::new()));
    let (count, seen) = (accepted.clone(), requests.clone());
    let answers = Arc::new(answers);
    tokio::spawn(async move {
        let next = Arc::new(AtomicUsize::new(0));
        while let Ok((mut socket, _)) = listener.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
            let (answers, next, seen) = (answers.clone(), next.clone(), seen.clone());
            tokio::spawn(async move {
                while let Some((head, body)) = read_request(&mut socket).await {
                    seen.lock().unwrap().push(head);
                    let seq = call_seq(&body);
                    let k = next.fetch_add(1, Ordering::SeqCst);
                    let Some((answer, close)) = answers.get(k) else {
                        return;
                    };
                    // The client may hang up first (a limit it enforced): not the test's fault.
                    if socket.write_all(&answer(seq)).await.is_err() || *close {
                        return;
                    }
                }
            });
        }
    });
    FakeGateway {
        address,
        accepted,
        requests,
    }
}

/// Reads one HTTP request with a declared length: its head (as text) and body.
async fn read_request(
    socket: &mut (impl tokio::io::AsyncRead + Unpin),
) -> Option<(String, Vec<u8>)> {
    let mut buf = Vec::new();
    let head_end = loop {
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let mut chunk = [0u8; 4096];
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let len = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length:")
                .map(|v| v.trim().parse::<usize>().unwrap_or(0))
        })
        .unwrap_or(0);
    while buf.len() < head_end + len {
        let mut chunk = [0u8; 4096];
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    Some((head, buf[head_end..head_end + len].to_vec()))
}

/// The sequence number of a binary call message (after version, name length and name).
fn call_seq(body: &[u8]) -> i32 {
    let name_len = i32::from_be_bytes(body[4..8].try_into().unwrap()) as usize;
    i32::from_be_bytes(body[8 + name_len..12 + name_len].try_into().unwrap())
}

fn answer(f: impl Fn(i32) -> Vec<u8> + Send + Sync + 'static) -> Answer {
    Box::new(f)
}

/// Wire settings for a fake gateway at `max` bytes of reply.
fn wire(config: &Config, max: usize) -> WireConfig {
    WireConfig {
        transport: Transport::Http,
        protocol: WireProtocol::Binary,
        max_reply_bytes: max,
        http: HttpSettings::new(config).unwrap(),
        kerberos: None,
    }
}

fn http_config(address: &str) -> Config {
    Config::from_url(&format!("thrift2+http://{address}/")).unwrap()
}

#[tokio::test]
async fn calls_go_on_one_kept_alive_connection_with_the_settings_headers() {
    let gateway = fake_gateway(vec![
        (answer(|seq| ok(&thrift_reply(seq))), false),
        (answer(|seq| chunked(&thrift_reply(seq), 3)), false),
        (answer(|seq| ok(&thrift_reply(seq))), false),
    ])
    .await;
    let mut config = Config::from_url(&format!(
        "thrift2+http://app:Pa%40ss@{}/hbase?do_as=alice",
        gateway.address
    ))
    .unwrap();
    config.http.headers.push(("X-Token".into(), "tok".into()));
    let mut conn = Connection::open(&gateway.address, wire(&config, 1 << 20))
        .await
        .unwrap();
    for _ in 0..3 {
        assert_eq!(
            conn.call(&ServerType).await.map_err(|f| f.error).unwrap(),
            2
        );
        assert!(conn.is_reusable());
    }
    assert_eq!(gateway.accepted.load(Ordering::SeqCst), 1);
    let requests = gateway.requests.lock().unwrap();
    let head = requests[0].to_ascii_lowercase();
    assert!(head.starts_with("post /hbase http/1.1\r\n"), "{head}");
    for line in [
        "content-type: application/x-thrift",
        "doas: alice",
        "x-token: tok",
        // app:Pa@ss
        "authorization: basic yxbwolbhqhnz",
    ] {
        assert!(head.contains(line), "{line:?} missing from {head}");
    }
}

#[tokio::test]
async fn credentials_go_in_the_headers_the_builder_names() {
    let gateway = fake_gateway(vec![(answer(|seq| ok(&thrift_reply(seq))), false)]).await;
    let mut config =
        Config::from_url(&format!("thrift2+http://app:pw@{}/", gateway.address)).unwrap();
    if let Some(c) = config.http.credentials.as_mut() {
        c.send_as = CredentialsAs::Headers {
            user: "X-User".into(),
            password: "X-Password".into(),
        };
    }
    let mut conn = Connection::open(&gateway.address, wire(&config, 1 << 20))
        .await
        .unwrap();
    conn.call(&ServerType).await.map_err(|f| f.error).unwrap();
    let head = gateway.requests.lock().unwrap()[0].to_ascii_lowercase();
    assert!(
        head.contains("x-user: app") && head.contains("x-password: pw"),
        "{head}"
    );
    assert!(!head.contains("authorization"), "{head}");
}

#[tokio::test]
async fn refusals_are_typed_and_a_complete_one_keeps_the_connection() {
    let gateway = fake_gateway(vec![
        (
            answer(|_| {
                b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Negotiate\r\nContent-Length: 19\r\n\r\n\
                  <title>Unauthorized"
                    .to_vec()
            }),
            false,
        ),
        (
            answer(|_| {
                let page = "<html><head><title>Error 403 User: root is not allowed to impersonate \
                            mallory</title></head></html>";
                format!("HTTP/1.1 403 Forbidden\r\nContent-Length: {}\r\n\r\n{page}", page.len())
                    .into_bytes()
            }),
            false,
        ),
        (
            answer(|_| b"HTTP/1.1 500 Server Error\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nboom!\r\n0\r\n\r\n".to_vec()),
            false,
        ),
        (answer(|seq| ok(&thrift_reply(seq))), false),
    ])
    .await;
    let config = http_config(&gateway.address);
    let mut conn = Connection::open(&gateway.address, wire(&config, 1 << 20))
        .await
        .unwrap();
    match conn.call(&ServerType).await.map(|_| ()).unwrap_err().error {
        Error::Unauthenticated {
            challenge, message, ..
        } => {
            assert_eq!(challenge.as_deref(), Some("Negotiate"));
            assert_eq!(message, "Unauthorized");
        }
        other => panic!("{other:?}"),
    }
    assert!(conn.is_reusable());
    let e = conn.call(&ServerType).await.map(|_| ()).unwrap_err().error;
    assert!(matches!(e, Error::Forbidden { .. }), "{e:?}");
    assert!(
        e.to_string().contains("not allowed to impersonate mallory"),
        "{e}"
    );
    let e = conn.call(&ServerType).await.map(|_| ()).unwrap_err().error;
    assert!(
        matches!(e, Error::HttpStatus { status: 500, ref message, .. } if message == "boom!"),
        "{e:?}"
    );
    assert!(!e.is_retryable());
    assert_eq!(
        conn.call(&ServerType).await.map_err(|f| f.error).unwrap(),
        2
    );
    assert_eq!(gateway.accepted.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn an_oversized_declared_reply_is_refused_before_its_body() {
    let gateway = fake_gateway(vec![(
        answer(|_| b"HTTP/1.1 200 OK\r\nContent-Length: 1073741824\r\n\r\nxx".to_vec()),
        false,
    )])
    .await;
    let config = http_config(&gateway.address);
    let mut conn = Connection::open(&gateway.address, wire(&config, 4096))
        .await
        .unwrap();
    let e = conn.call(&ServerType).await.map(|_| ()).unwrap_err().error;
    assert!(
        e.to_string()
            .contains("1073741824 bytes exceeds the limit of 4096"),
        "{e}"
    );
    assert!(!conn.is_reusable());
}

#[test]
fn an_endless_chunked_reply_stops_at_the_limit_with_memory_bounded() {
    // The gateway streams chunks for as long as the client reads: the client stops at its
    // limit (64 KiB) having held little more than that.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let server = std::thread::spawn(|| {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        (address, listener)
    })
    .join()
    .unwrap();
    let (address, listener) = server;
    std::thread::spawn(move || {
        use std::io::{Read, Write};
        let (mut socket, _) = listener.accept().unwrap();
        let mut request = [0u8; 4096];
        let _ = socket.read(&mut request);
        let _ = socket.write_all(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
        let chunk = format!("{:x}\r\n{}\r\n", 8192, "z".repeat(8192));
        for _ in 0..100_000 {
            if socket.write_all(chunk.as_bytes()).is_err() {
                return;
            }
        }
    });
    let config = http_config(&address);
    let (result, usage) = measure(|| {
        rt.block_on(async {
            let mut conn = Connection::open(&address, wire(&config, 64 * 1024))
                .await
                .unwrap();
            conn.call(&ServerType)
                .await
                .map(|_| ())
                .map_err(|f| f.error)
        })
    });
    let e = result.unwrap_err();
    assert!(e.to_string().contains("exceeds the limit of 65536"), "{e}");
    assert!(usage.peak < 2 * 1024 * 1024, "{usage:?}");
}

#[tokio::test]
async fn a_cut_reply_and_a_tcp_gateway_say_what_went_wrong() {
    let gateway = fake_gateway(vec![(
        answer(|seq| {
            let mut bytes = ok(&thrift_reply(seq));
            bytes.truncate(bytes.len() - 5);
            bytes
        }),
        true,
    )])
    .await;
    let config = http_config(&gateway.address);
    let mut conn = Connection::open(&gateway.address, wire(&config, 1 << 20))
        .await
        .unwrap();
    let e = conn.call(&ServerType).await.map(|_| ()).unwrap_err().error;
    assert!(matches!(e, Error::Transport { .. }), "{e:?}");
    assert!(!conn.is_reusable());

    // A plain TCP Thrift gateway reads "POST / HTTP/1.1" as a message length and hangs up.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut buf = [0u8; 64];
        let _ = socket.read(&mut buf).await;
    });
    let config = http_config(&address);
    let mut conn = Connection::open(&address, wire(&config, 1 << 20))
        .await
        .unwrap();
    let e = conn
        .call(&ServerType)
        .await
        .map(|_| ())
        .unwrap_err()
        .error
        .to_string();
    assert!(
        e.contains("is it a plain TCP Thrift gateway (thrift2://)"),
        "{e}"
    );
}

/// A hostile answer to one call: a status, a body framing, a body (valid, mutated or random)
/// and a cut.
#[derive(Clone, Debug)]
struct Hostile {
    status: u16,
    framing: Framing,
    body: BodyKind,
    cut: Option<proptest::sample::Index>,
}

#[derive(Clone, Debug)]
enum Framing {
    /// Content-Length, off by this much from the body's real length.
    Length(i64),
    /// Chunked, in chunks of this size, with this garbage in place of one size line.
    Chunked(usize, Option<String>),
    /// No length: the body runs until the connection closes.
    UntilClose,
}

#[derive(Clone, Debug)]
enum BodyKind {
    Valid,
    Mutated(fuzz::Mutation),
    Random(Vec<u8>),
}

fn hostile() -> impl Strategy<Value = Hostile> {
    (
        prop::sample::select(vec![
            200u16, 200, 200, 401, 403, 404, 500, 503, 302, 100, 204,
        ]),
        prop_oneof![
            (-20i64..20).prop_map(Framing::Length),
            (
                1usize..64,
                prop::option::weighted(0.2, "[0-9a-zA-Z;\\- ]{0,10}")
            )
                .prop_map(|(n, g)| Framing::Chunked(n, g)),
            Just(Framing::UntilClose),
        ],
        prop_oneof![
            3 => Just(BodyKind::Valid),
            2 => fuzz::mutation().prop_map(BodyKind::Mutated),
            1 => prop::collection::vec(any::<u8>(), 0..200).prop_map(BodyKind::Random),
        ],
        prop::option::weighted(0.3, any::<proptest::sample::Index>()),
    )
        .prop_map(|(status, framing, body, cut)| Hostile {
            status,
            framing,
            body,
            cut,
        })
}

impl Hostile {
    fn bytes(&self, seq: i32) -> Vec<u8> {
        let valid = thrift_reply(seq);
        let body = match &self.body {
            BodyKind::Valid => valid,
            BodyKind::Mutated(m) => fuzz::apply(&valid, m),
            BodyKind::Random(b) => b.clone(),
        };
        let mut out = format!("HTTP/1.1 {} Whatever\r\n", self.status).into_bytes();
        match &self.framing {
            Framing::Length(off) => {
                let n = (body.len() as i64 + off).max(0);
                out.extend_from_slice(format!("Content-Length: {n}\r\n\r\n").as_bytes());
                out.extend_from_slice(&body);
            }
            Framing::Chunked(size, garbage) => {
                let framed = chunked(&body, *size);
                let head_end = framed.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
                out.extend_from_slice(b"Transfer-Encoding: chunked\r\n\r\n");
                let mut rest = framed[head_end..].to_vec();
                if let Some(g) = garbage {
                    let line_end = rest.windows(2).position(|w| w == b"\r\n").unwrap();
                    rest.splice(..line_end, g.bytes());
                }
                out.extend_from_slice(&rest);
            }
            Framing::UntilClose => {
                out.extend_from_slice(b"Connection: close\r\n\r\n");
                out.extend_from_slice(&body);
            }
        }
        if let Some(cut) = &self.cut {
            out.truncate(cut.index(out.len()));
        }
        out
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Whatever a gateway answers, the call ends (within the test's timeout) in a reply or an
    /// error, never a panic; a reply comes only from a 200 whose body is a whole message (the
    /// gateway's own value when the body was not touched); a refusal is a typed error for its
    /// status.
    #[test]
    fn any_answer_is_a_reply_or_an_error(h in hostile()) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let outcome = rt.block_on(async {
            let hostile = h.clone();
            // Every answer closes its connection: an answer with a wrong length would leave
            // the client waiting for bytes that never come.
            let gateway = fake_gateway(vec![(answer(move |seq| hostile.bytes(seq)), true)]).await;
            let config = http_config(&gateway.address);
            let mut conn = Connection::open(&gateway.address, wire(&config, 2048)).await.unwrap();
            tokio::time::timeout(std::time::Duration::from_secs(5), conn.call(&ServerType))
                .await
                .expect("the call ended")
                .map_err(|f| f.error)
        });
        match outcome {
            Ok(kind) => {
                prop_assert_eq!(h.status, 200);
                // A mutated or random body can still be a whole message carrying another
                // value; an untouched one carries the gateway's.
                if matches!(h.body, BodyKind::Valid) {
                    prop_assert_eq!(kind, 2);
                }
            }
            Err(Error::Unauthenticated { .. }) => prop_assert_eq!(h.status, 401),
            Err(Error::Forbidden { .. }) => prop_assert_eq!(h.status, 403),
            Err(Error::HttpStatus { status, .. }) => prop_assert_eq!(status, h.status),
            Err(Error::Protocol { .. } | Error::Transport { .. }) => {}
            Err(other) => prop_assert!(false, "unexpected {other:?}"),
        }
    }
}

// ------------------------------------------------------------------ a TLS proxy asking for a
// client certificate

/// A CA, a server certificate for `localhost` and a client certificate, all signed by the CA,
/// written as PEM files into a fresh folder: (folder, server chain DER, server key DER).
#[cfg(feature = "tls")]
fn certificates() -> (
    std::path::PathBuf,
    rustls::pki_types::CertificateDer<'static>,
    rustls::pki_types::PrivateKeyDer<'static>,
) {
    use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair};
    let dir = std::env::temp_dir().join(format!(
        "hbase-orm-tls-{}-{}",
        std::process::id(),
        NEXT_DIR.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = ca_params.self_signed(&ca_key).unwrap();
    let server_key = KeyPair::generate().unwrap();
    let server = CertificateParams::new(vec!["localhost".to_string()])
        .unwrap()
        .signed_by(&server_key, &ca, &ca_key)
        .unwrap();
    let client_key = KeyPair::generate().unwrap();
    let client = CertificateParams::new(vec!["hbase-orm-client".to_string()])
        .unwrap()
        .signed_by(&client_key, &ca, &ca_key)
        .unwrap();
    std::fs::write(dir.join("ca.pem"), ca.pem()).unwrap();
    std::fs::write(dir.join("client.pem"), client.pem()).unwrap();
    std::fs::write(dir.join("client.key"), client_key.serialize_pem()).unwrap();
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(server_key.serialize_der().into());
    (dir, server.der().clone(), key)
}

#[cfg(feature = "tls")]
static NEXT_DIR: AtomicUsize = AtomicUsize::new(0);

/// A TLS server on a port of its own that wants a client certificate signed by the CA in
/// `dir`, and answers each call on it with a Thrift reply over HTTP.
#[cfg(feature = "tls")]
async fn tls_gateway_wanting_client_certificates(
    dir: &std::path::Path,
    chain: rustls::pki_types::CertificateDer<'static>,
    key: rustls::pki_types::PrivateKeyDer<'static>,
) -> String {
    use rustls::pki_types::pem::PemObject;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut roots = rustls::RootCertStore::empty();
    for cert in rustls::pki_types::CertificateDer::pem_file_iter(dir.join("ca.pem")).unwrap() {
        roots.add(cert.unwrap()).unwrap();
    }
    let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
        Arc::new(roots),
        provider.clone(),
    )
    .build()
    .unwrap();
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_client_cert_verifier(verifier)
        .with_single_cert(vec![chain], key)
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(socket).await else {
                    return;
                };
                while let Some((_, body)) = read_request(&mut tls).await {
                    let reply = ok(&thrift_reply(call_seq(&body)));
                    if tls.write_all(&reply).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    address
}

#[tokio::test]
#[cfg(feature = "tls")]
async fn a_client_certificate_is_shown_to_a_server_that_asks_for_one() {
    let (dir, chain, key) = certificates();
    let address = tls_gateway_wanting_client_certificates(&dir, chain, key).await;
    let url = format!(
        "thrift2+https://{address}/?ca_file={}&server_name=localhost",
        dir.join("ca.pem").display()
    );
    let mut config = Config::from_url(&url).unwrap();
    // Without a certificate the server refuses, and the error says what it wanted.
    let mut conn = Connection::open(&address, wire(&config, 1 << 20)).await;
    let e = match &mut conn {
        Ok(conn) => conn.call(&ServerType).await.map(|_| ()).unwrap_err().error,
        Err(_) => conn.map(|_| ()).unwrap_err(),
    };
    match e {
        Error::Tls { message, .. } => {
            assert!(message.contains("client certificate"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    if let Some(tls) = config.tls.as_mut() {
        tls.client_identity = Some(crate::model::ClientIdentity {
            certificate_chain: dir.join("client.pem"),
            private_key: dir.join("client.key"),
        });
    }
    let mut conn = Connection::open(&address, wire(&config, 1 << 20))
        .await
        .unwrap();
    assert_eq!(
        conn.call(&ServerType).await.map_err(|f| f.error).unwrap(),
        2
    );
    std::fs::remove_dir_all(dir).unwrap();
}
