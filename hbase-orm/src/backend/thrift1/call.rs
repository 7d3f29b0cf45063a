//! One `Hbase` (Thrift1) method as a [`WireCall`], driven through `hbase-thrift`'s synchronous
//! client without ever touching a socket.
//!
//! The generated client writes a call and reads its reply on the protocols it is given, and its
//! argument structs are private. So a [`Call`] holds a closure that calls one client method, and
//! runs it twice on throw-away clients:
//!
//! * [`WireCall::encode`]: output into the connection's buffer, input from an empty slice. The
//!   client writes the whole call message, then fails reading the (absent) reply: that failure
//!   is expected and dropped.
//! * [`WireCall::decode`]: output into a sink, input from the reply the connection read. The
//!   client writes a copy nobody sees, then reads and checks the reply (method name, sequence
//!   number, declared exceptions) itself.
//!
//! Both throw-away clients number their first call 1, and the gateway echoes the number the
//! first one wrote, so the client's own sequence check passes; the connection's sequence number
//! is not used.

use std::collections::BTreeMap;

use hbase_thrift::hbase::{
    AlreadyExists, HbaseSyncClient, IOError, IllegalArgument, THbaseSyncClient,
};
use thrift::protocol::{
    TBinaryOutputProtocol, TCompactOutputProtocol, TInputProtocol, TOutputProtocol,
};
use thrift::{ApplicationErrorKind, TransportErrorKind};

use crate::backend::wire::{self, WireCall, WireProtocol};
use crate::model::{Error, Result};

/// Thrift1's per-operation attributes (`Mutation.setAttribute` on the server).
pub(crate) type Attributes = BTreeMap<Vec<u8>, Vec<u8>>;

/// The client type a call's closure is given.
pub(crate) type Client<'a> = dyn THbaseSyncClient + 'a;

/// One `Hbase` method call: the closure calls exactly one method of the client it is given.
pub(crate) struct Call<F> {
    method: &'static str,
    run: F,
}

impl<T, F> Call<F>
where
    F: Fn(&mut Client<'_>) -> thrift::Result<T> + Sync,
{
    /// A call of `method` (its name on the wire, for errors) that `run` makes.
    pub(crate) fn new(method: &'static str, run: F) -> Self {
        Call { method, run }
    }
}

/// A protocol writer that discards what it is given (the copy of the call `decode` writes).
fn sink(protocol: WireProtocol) -> Box<dyn TOutputProtocol> {
    match protocol {
        WireProtocol::Binary => Box::new(TBinaryOutputProtocol::new(std::io::sink(), true)),
        WireProtocol::Compact => Box::new(TCompactOutputProtocol::new(std::io::sink())),
    }
}

/// Whether `e` is the client running out of reply bytes (what `encode` expects).
fn is_end_of_reply(e: &thrift::Error) -> bool {
    matches!(e, thrift::Error::Transport(t) if t.kind == TransportErrorKind::EndOfFile)
}

impl<T, F> WireCall for Call<F>
where
    T: Send,
    F: Fn(&mut Client<'_>) -> thrift::Result<T> + Sync,
{
    type Reply = T;

    fn method(&self) -> &'static str {
        self.method
    }

    fn encode(&self, protocol: WireProtocol, _seq: i32, out: &mut Vec<u8>) -> thrift::Result<()> {
        let before = out.len();
        let input: Box<dyn TInputProtocol> = wire::input(protocol, &[]);
        let mut client = HbaseSyncClient::new(input, wire::output(protocol, out));
        match (self.run)(&mut client) {
            Err(e) if is_end_of_reply(&e) => {}
            Err(e) => return Err(e),
            Ok(_) => {}
        }
        drop(client);
        if out.len() == before {
            return Err(thrift::Error::Protocol(thrift::ProtocolError::new(
                thrift::ProtocolErrorKind::Unknown,
                format!("{} wrote no call message", self.method),
            )));
        }
        Ok(())
    }

    fn decode(&self, protocol: WireProtocol, _seq: i32, reply: &bytes::Bytes) -> Result<T> {
        let mut client = HbaseSyncClient::new(wire::input(protocol, reply), sink(protocol));
        (self.run)(&mut client).map_err(|e| classify(self.method, e))
    }
}

/// Turns a failed call into an [`Error`]: the service's declared exceptions by type, the
/// client's own checks of the reply header as protocol errors (the stream is out of step),
/// the rest as [`wire::thrift_error`] does.
pub(crate) fn classify(method: &'static str, e: thrift::Error) -> Error {
    if let thrift::Error::Application(a) = &e {
        if matches!(
            a.kind,
            ApplicationErrorKind::BadSequenceId
                | ApplicationErrorKind::WrongMethodName
                | ApplicationErrorKind::InvalidMessageType
        ) {
            return wire::protocol_error(method, e);
        }
    }
    wire::thrift_error(method, e, |user| declared(method, user))
}

/// `IOError` carries HBase's exception text (classified by [`Error::from_server`]);
/// `IllegalArgument` a rejected argument; `AlreadyExists` a table that exists.
fn declared(
    method: &'static str,
    user: &(dyn std::error::Error + Send + Sync + 'static),
) -> Option<Error> {
    if let Some(io) = user.downcast_ref::<IOError>() {
        return Some(Error::from_server(
            method,
            io.message.clone().unwrap_or_default(),
            io.can_retry.unwrap_or(false),
        ));
    }
    if let Some(ia) = user.downcast_ref::<IllegalArgument>() {
        return Some(Error::IllegalArgument {
            message: ia.message.clone().unwrap_or_default(),
        });
    }
    user.downcast_ref::<AlreadyExists>()
        .map(|ae| Error::AlreadyExists {
            what: ae.message.clone().unwrap_or_default(),
        })
}

#[cfg(test)]
mod tests {

    use hbase_thrift::hbase::{TCell, TRowResult};
    use thrift::protocol::{TMessageIdentifier, TMessageType, TStructIdentifier};

    use super::*;

    /// The reply the gateway would send to `getRowWithColumnsTs`#`seq` with one row.
    fn reply(seq: i32, name: &str) -> Vec<u8> {
        let mut out = Vec::new();
        let mut o = wire::output(WireProtocol::Binary, &mut out);
        let row = TRowResult::new(
            b"r".to_vec(),
            BTreeMap::from([(b"f:q".to_vec(), TCell::new(b"v".to_vec(), 7))]),
            None,
        );
        o.write_message_begin(&TMessageIdentifier::new(name, TMessageType::Reply, seq))
            .unwrap();
        o.write_struct_begin(&TStructIdentifier::new("result"))
            .unwrap();
        o.write_field_begin(&thrift::protocol::TFieldIdentifier::new(
            "success",
            thrift::protocol::TType::List,
            0,
        ))
        .unwrap();
        o.write_list_begin(&thrift::protocol::TListIdentifier::new(
            thrift::protocol::TType::Struct,
            1,
        ))
        .unwrap();
        row.write_to_out_protocol(&mut *o).unwrap();
        o.write_list_end().unwrap();
        o.write_field_end().unwrap();
        o.write_field_stop().unwrap();
        o.write_struct_end().unwrap();
        o.write_message_end().unwrap();
        drop(o);
        out
    }

    /// A `getRowWithColumnsTs` call as the backend makes it.
    fn get_call() -> Call<impl Fn(&mut Client<'_>) -> thrift::Result<Vec<TRowResult>> + Sync> {
        Call::new("getRowWithColumnsTs", |c: &mut Client<'_>| {
            c.get_row_with_columns_ts(
                b"ns:t".to_vec(),
                b"r".to_vec(),
                vec![b"f:q".to_vec()],
                i64::MAX,
                BTreeMap::new(),
            )
        })
    }

    #[test]
    fn encode_writes_one_call_numbered_one() {
        let mut out = Vec::new();
        get_call()
            .encode(WireProtocol::Binary, 42, &mut out)
            .unwrap();
        let mut i = wire::input(WireProtocol::Binary, &out);
        let ident = i.read_message_begin().unwrap();
        assert_eq!(ident.name, "getRowWithColumnsTs");
        assert_eq!(ident.sequence_number, 1);
        assert_eq!(ident.message_type, TMessageType::Call);
    }

    #[test]
    fn decode_reads_the_reply_to_the_call_encode_wrote() {
        let rows = get_call()
            .decode(
                WireProtocol::Binary,
                42,
                &bytes::Bytes::from(reply(1, "getRowWithColumnsTs")),
            )
            .unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].row.as_deref(), Some(&b"r"[..]));
    }

    #[test]
    fn a_reply_out_of_step_is_a_protocol_error() {
        let call = get_call();
        let e = call
            .decode(
                WireProtocol::Binary,
                1,
                &bytes::Bytes::from(reply(2, "getRowWithColumnsTs")),
            )
            .unwrap_err();
        assert!(matches!(e, Error::Protocol { .. }), "{e:?}");
        let e = call
            .decode(
                WireProtocol::Binary,
                1,
                &bytes::Bytes::from(reply(1, "getRow")),
            )
            .unwrap_err();
        assert!(matches!(e, Error::Protocol { .. }), "{e:?}");
    }

    /// The double run is repeatable: every encode writes the same message, and a decode after
    /// any number of encodes still reads its reply.
    #[test]
    fn running_the_client_again_writes_the_same_call_and_reads_the_reply() {
        let call = get_call();
        let bytes = reply(1, "getRowWithColumnsTs");
        let mut first = Vec::new();
        call.encode(WireProtocol::Binary, 1, &mut first).unwrap();
        let mut out = Vec::with_capacity(4096);
        for _ in 0..3 {
            out.clear();
            call.encode(WireProtocol::Binary, 1, &mut out).unwrap();
            assert_eq!(out, first);
            assert!(call
                .decode(WireProtocol::Binary, 1, &bytes::Bytes::from(bytes.clone()))
                .is_ok());
        }

        let mutations: Vec<_> = (0..100)
            .map(|i| {
                hbase_thrift::hbase::Mutation::new(
                    false,
                    format!("f:q{i}").into_bytes(),
                    vec![7u8; 100],
                    true,
                )
            })
            .collect();
        let put = Call::new("mutateRowTs", |c: &mut Client<'_>| {
            c.mutate_row_ts(
                b"ns:t".to_vec(),
                b"r".to_vec(),
                mutations.clone(),
                i64::MAX,
                BTreeMap::new(),
            )
        });
        out.clear();
        put.encode(WireProtocol::Binary, 1, &mut out).unwrap();
        assert!(
            out.len() > 100 * 100,
            "every value is in the message: {}",
            out.len()
        );
    }
}
