//! The wire against real gateways: both transports and protocols, the gateway-type check,
//! unreachable gateways, cancelled calls and sockets the gateway closed while idle.
//!
//! `hbase-local/hbase.sh up` starts three gateways on one HBase: Thrift2 buffered + binary on
//! 9090, Thrift2 framed + compact on 9091 (which closes sockets idle for 3 s), and the Thrift1
//! gateway on 9092.

use std::time::Duration;

use futures::TryStreamExt;
use hbase_orm::{
    CheckAndMutate, Client, ColumnFamily, CompareOp, Config, Delete, Error, Get, Protocol, Put,
    RowMutations, Scan, Transport,
};
use hbase_orm_suite::{connect_with, framed_gateway_address, gateway_address, with_table};

fn thrift1_gateway_address() -> String {
    std::env::var("HBASE_ORM_THRIFT1_ADDR").unwrap_or_else(|_| "127.0.0.1:9092".into())
}

async fn framed_compact(pool_size: usize, max_idle: Duration) -> Client {
    connect_with(Config {
        address: framed_gateway_address(),
        transport: Transport::Framed,
        protocol: Protocol::Compact,
        pool_size,
        max_idle,
        ..Config::default()
    })
    .await
}

#[tokio::test]
async fn framed_compact_gateway_serves_the_same_data() {
    let framed = framed_compact(4, Duration::from_secs(45)).await;
    with_table(
        &framed,
        "framed",
        vec![ColumnFamily::new("d")],
        &[],
        |t| async move {
            let puts = (0..300)
                .map(|i| Put::new(format!("r{i:03}")).column("d", "v", vec![7u8; 1000]))
                .collect();
            t.put_many(puts).await.unwrap();
            let rows: Vec<_> = t
                .scan(Scan::new().caching(100))
                .try_collect()
                .await
                .unwrap();
            assert_eq!(rows.len(), 300);
            assert!(rows
                .iter()
                .all(|r| r.value("d", "v") == Some(&[7u8; 1000][..])));

            // The buffered/binary gateway sees the same table.
            let plain = hbase_orm_suite::client().await;
            let row = plain
                .table_named(t.name().clone())
                .get(Get::new("r123"))
                .await
                .unwrap();
            assert_eq!(row.unwrap().value("d", "v").map(<[u8]>::len), Some(1000));
        },
    )
    .await;

    let url = format!(
        "thrift2://{}?transport=framed&protocol=compact&pool_size=2",
        framed_gateway_address()
    );
    let from_url = Client::connect(&url).await.unwrap();
    assert!(from_url
        .admin()
        .list_namespaces()
        .await
        .unwrap()
        .contains(&"default".to_string()));
}

#[tokio::test]
async fn a_thrift1_gateway_is_refused_with_a_clear_error() {
    let err = Client::builder()
        .address(thrift1_gateway_address())
        .build()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::WrongGateway { found: 1, .. }), "{err}");
    assert!(err.to_string().contains("Thrift2"), "{err}");
}

#[tokio::test]
async fn a_mismatched_transport_fails_instead_of_hanging() {
    let quick = Duration::from_secs(3);
    for (address, transport, protocol) in [
        (
            framed_gateway_address(),
            Transport::Buffered,
            Protocol::Binary,
        ),
        (gateway_address(), Transport::Framed, Protocol::Compact),
    ] {
        let result = Client::builder()
            .address(address.clone())
            .transport(transport)
            .protocol(protocol)
            .connect_timeout(quick)
            .build()
            .await;
        let err = result.expect_err("a mismatched client must not connect");
        assert!(
            matches!(
                err,
                Error::Transport { .. } | Error::Protocol { .. } | Error::Timeout { .. }
            ),
            "{address} {transport:?}/{protocol:?}: {err}"
        );
    }
}

#[tokio::test]
async fn an_unreachable_gateway_is_a_connect_error() {
    // Bind a port, then free it: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let err = Client::builder()
        .address(format!("127.0.0.1:{port}"))
        .build()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Connect { .. }), "{err}");
    assert!(err.to_string().contains(&port.to_string()), "{err}");
}

#[tokio::test]
async fn cancelled_calls_never_leave_a_half_read_connection_in_the_pool() {
    // One connection, so every call after a cancellation reuses the pool's only slot.
    let c = connect_with(Config {
        address: gateway_address(),
        pool_size: 1,
        ..Config::default()
    })
    .await;
    with_table(
        &c,
        "cancel",
        vec![ColumnFamily::new("d")],
        &[],
        |t| async move {
            let puts = (0..400)
                .map(|i| Put::new(format!("r{i:03}")).column("d", "v", vec![b'x'; 4096]))
                .collect();
            t.put_many(puts).await.unwrap();
            let big_read = || t.get_many((0..400).map(|i| Get::new(format!("r{i:03}"))).collect());
            let mut cancelled = 0;
            for micros in [50u64, 200, 500, 1000, 2000, 4000, 8000] {
                if tokio::time::timeout(Duration::from_micros(micros), big_read())
                    .await
                    .is_err()
                {
                    cancelled += 1;
                }
                // The next calls on the same pool get their own replies.
                let row = t.get(Get::new("r007")).await.unwrap().unwrap();
                assert_eq!(row.key, b"r007");
                let rows = big_read().await.unwrap();
                assert_eq!(rows.len(), 400);
                assert_eq!(rows[399].as_ref().unwrap().key, b"r399");
            }
            assert!(
                cancelled > 0,
                "no call was cancelled mid-flight; the test proved nothing"
            );
        },
    )
    .await;

    // A request timeout behaves like a cancellation and names the method.
    let hasty = connect_with(Config {
        address: gateway_address(),
        pool_size: 1,
        request_timeout: Duration::from_micros(1),
        // A timed-out read is sent again until the retry deadline: none here.
        retry_deadline: Duration::ZERO,
        ..Config::default()
    })
    .await;
    // Tokio's timer ticks in milliseconds, so a fast local call can still beat it now and
    // then: try until the timeout fires, and every failure must be that timeout.
    let mut timed_out = false;
    for _ in 0..50 {
        match hasty.admin().list_namespaces().await {
            Ok(_) => continue,
            Err(Error::Timeout {
                operation: "listNamespaces",
                ..
            }) => {
                timed_out = true;
                break;
            }
            Err(other) => panic!("expected a timeout naming listNamespaces, got {other}"),
        }
    }
    assert!(timed_out, "50 calls all beat a 1 µs request timeout");
}

#[tokio::test]
async fn sockets_the_gateway_closed_while_idle_are_replaced() {
    // max_idle above the gateway's 3 s idle timeout: the pool keeps the dead sockets and must
    // notice on its own that the gateway closed them.
    let c = framed_compact(2, Duration::from_secs(600)).await;
    let admin = c.admin();
    let both = || async {
        let (a, b) = tokio::join!(admin.list_namespaces(), admin.list_namespaces());
        (a.unwrap(), b.unwrap())
    };
    both().await;
    let before = c.stats();
    assert_eq!(before.connections_open, 2);
    tokio::time::sleep(Duration::from_secs(5)).await;
    // The gateway's idle sweep may run late on a loaded machine: keep calling (every call
    // must succeed) until both sockets were replaced, within a deadline.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let (a, b) = both().await;
        assert!(a.contains(&"default".to_string()) && b.contains(&"hbase".to_string()));
        if c.stats().connections_opened >= before.connections_opened + 2
            || std::time::Instant::now() > deadline
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let after = c.stats();
    assert_eq!(
        after.connections_opened,
        before.connections_opened + 2,
        "both idle sockets were closed by the gateway and replaced"
    );
}

/// A framed binary message: header (`kind`: 2 reply, 3 exception), `name`, `seq`, then `body`.
fn framed_message(kind: u8, name: &str, seq: i32, body: &[u8]) -> Vec<u8> {
    let mut msg = vec![0x80, 0x01, 0x00, kind];
    msg.extend_from_slice(&(name.len() as i32).to_be_bytes());
    msg.extend_from_slice(name.as_bytes());
    msg.extend_from_slice(&seq.to_be_bytes());
    msg.extend_from_slice(body);
    let mut frame = (msg.len() as u32).to_be_bytes().to_vec();
    frame.extend(msg);
    frame
}

/// How a fake gateway misbehaves.
#[derive(Clone, Copy, PartialEq)]
enum Quirk {
    /// Each reply goes out in pieces of 3 bytes (its length prefix split too), a millisecond
    /// apart.
    Dribble,
    /// The first connection reads the first call after the type check and closes without a
    /// reply, as a gateway closing an idle socket just as a call arrives does; the others
    /// answer.
    CloseOnFirstCall,
    /// None.
    Plain,
}

/// A framed binary gateway that answers the type check as a Thrift2 server and every other call
/// `name`#`seq` with `reply(name, seq)`, with a `quirk`.
async fn fake_framed_gateway(reply: fn(&str, i32) -> Vec<u8>, quirk: Quirk) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    tokio::spawn(async move {
        let mut connections = 0;
        while let Ok((mut socket, _)) = listener.accept().await {
            socket.set_nodelay(true).unwrap();
            connections += 1;
            let close_on_call = quirk == Quirk::CloseOnFirstCall && connections == 1;
            tokio::spawn(async move {
                loop {
                    let mut len = [0u8; 4];
                    if socket.read_exact(&mut len).await.is_err() {
                        return;
                    }
                    let mut call = vec![0u8; u32::from_be_bytes(len) as usize];
                    if socket.read_exact(&mut call).await.is_err() {
                        return;
                    }
                    let name_len = i32::from_be_bytes(call[4..8].try_into().unwrap()) as usize;
                    let name = String::from_utf8_lossy(&call[8..8 + name_len]).to_string();
                    let seq =
                        i32::from_be_bytes(call[8 + name_len..12 + name_len].try_into().unwrap());
                    let answer = if name == "getThriftServerType" {
                        // result { 0: i32 success = TWO (2) }
                        framed_message(2, &name, seq, &[8, 0, 0, 0, 0, 0, 2, 0])
                    } else if close_on_call {
                        return;
                    } else {
                        reply(&name, seq)
                    };
                    let dribble = quirk == Quirk::Dribble;
                    let pieces: Vec<&[u8]> = match dribble {
                        true => answer.chunks(3).collect(),
                        false => vec![&answer],
                    };
                    for piece in pieces {
                        if socket.write_all(piece).await.is_err() {
                            return;
                        }
                        if dribble {
                            tokio::time::sleep(Duration::from_millis(1)).await;
                        }
                    }
                }
            });
        }
    });
    address
}

/// A client of the fake gateway at `address`: framed, binary, one connection.
async fn fake_gateway_client(address: String) -> Client {
    fake_gateway_client_with(address, Config::default().retry_deadline).await
}

/// [`fake_gateway_client`] whose calls are sent again for `retry_deadline`.
async fn fake_gateway_client_with(address: String, retry_deadline: Duration) -> Client {
    Client::builder()
        .config(Config {
            address,
            transport: Transport::Framed,
            protocol: Protocol::Binary,
            pool_size: 1,
            retry_deadline,
            ..Config::default()
        })
        .build()
        .await
        .expect("the fake gateway passes the type check")
}

#[tokio::test]
async fn a_hostile_framed_reply_is_an_error_not_a_panic() {
    // TApplicationException { 1: string message, declared length -1 }
    let hostile =
        |name: &str, seq| framed_message(3, name, seq, &[11, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0]);
    let client = fake_gateway_client(fake_framed_gateway(hostile, Quirk::Plain).await).await;
    let err = client
        .table("t")
        .unwrap()
        .get(Get::new("row"))
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::Protocol { .. }),
        "a length of -1 is a protocol error: {err}"
    );
    assert!(err.to_string().contains("negative length"), "{err}");
}

#[tokio::test]
async fn a_framed_reply_arriving_a_few_bytes_at_a_time_reads_whole() {
    // result { 0: bool success = true }
    let yes = |name: &str, seq| framed_message(2, name, seq, &[2, 0, 0, 1, 0]);
    let client = fake_gateway_client(fake_framed_gateway(yes, Quirk::Dribble).await).await;
    let table = client.table("t").unwrap();
    for _ in 0..3 {
        assert!(table.exists(Get::new("row")).await.unwrap());
    }
    assert_eq!(
        client.stats().connections_opened,
        1,
        "the connection stayed in step from one reply to the next"
    );
}

#[tokio::test]
async fn a_call_lost_with_a_closing_socket_is_sent_again_only_when_its_operation_allows() {
    // Every call here gets a bool or an empty result: `result { 0: bool success = true }` for
    // `exists` and `checkAndMutate`, and the `result {}` of `deleteSingle` and `mutateRow`
    // reads the same bytes (an unknown field 0 is skipped).
    let yes = |name: &str, seq| framed_message(2, name, seq, &[2, 0, 0, 1, 0]);
    // The client's own retries are off: what is sent again here, the pool sends.
    let fresh = || async {
        let address = fake_framed_gateway(yes, Quirk::CloseOnFirstCall).await;
        fake_gateway_client_with(address, Duration::ZERO).await
    };

    // A read is idempotent: sent again on a new connection, and the caller sees only the answer.
    let client = fresh().await;
    assert!(client
        .table("t")
        .unwrap()
        .exists(Get::new("r"))
        .await
        .unwrap());
    assert_eq!(
        client.stats().connections_opened,
        2,
        "the read went out again on a new socket"
    );

    // So is a delete of a whole row (repeated, it removes the same versions).
    let client = fresh().await;
    client
        .table("t")
        .unwrap()
        .delete(Delete::new("r"))
        .await
        .unwrap();
    assert_eq!(client.stats().connections_opened, 2);

    // So are row mutations of puts and column deletes (an entity's save)...
    let client = fresh().await;
    let save = RowMutations::new("r")
        .put(Put::new("r").column("d", "q", "v"))
        .delete(Delete::new("r").column("d", "gone"));
    client.table("t").unwrap().mutate_row(save).await.unwrap();
    assert_eq!(client.stats().connections_opened, 2);

    // ...but not row mutations holding a latest-version delete (a repeat removes one more).
    let client = fresh().await;
    let one_more = RowMutations::new("r").delete(Delete::new("r").latest_version("d", "q"));
    let err = client.table("t").unwrap().mutate_row(one_more).await;
    not_sent_again(&client, err);

    // A conditional write may have been applied: it is not sent again, and the caller is told.
    let client = fresh().await;
    let cam = CheckAndMutate::if_value("r", "d", "q", CompareOp::Equal, "old")
        .then_put(Put::new("r").column("d", "q", "new"));
    let err = client.table("t").unwrap().check_and_mutate(cam).await;
    not_sent_again(&client, err);
}

/// `result` is the broken connection's error, and no second connection was opened for it.
#[track_caller]
fn not_sent_again<T: std::fmt::Debug>(client: &Client, result: hbase_orm::Result<T>) {
    let err = result.unwrap_err();
    assert!(matches!(err, Error::Transport { .. }), "{err}");
    assert_eq!(
        client.stats().connections_opened,
        1,
        "nothing was sent again"
    );
}
