//! The bytes of HBase's RPC, apart from any socket: the preamble and connection header a
//! client opens with, a call's frame, and a reply's parts.
//!
//! A connection starts with `HBas`, the RPC version (0) and the authentication method
//! (SIMPLE, 0x50), then the [`ConnectionHeader`](proto::ConnectionHeader) behind its 4-byte
//! big-endian length. Every call after that is one frame: a 4-byte big-endian length of the
//! rest, the varint-delimited [`RequestHeader`](proto::RequestHeader) (call id, method name),
//! the varint-delimited request message, then the request's cell block if its header
//! announces one. A reply is a frame of the same shape: the
//! varint-delimited [`ResponseHeader`](proto::ResponseHeader) (call id, an exception, or
//! where its cell block lies), the varint-delimited reply message, then the cell block.

use bytes::{Buf, Bytes};
use prost::Message;

use super::proto;

/// The cell block codec the client asks for: cells come in one block after a reply's message,
/// read in place instead of one protobuf message each; a request's mutations send theirs the
/// same way.
pub(crate) const CELL_CODEC: &str = "org.apache.hadoop.hbase.codec.KeyValueCodec";

/// HBase's SIMPLE authentication: the server takes the user name the header gives.
const AUTH_SIMPLE: u8 = 0x50;

/// The services a connection can be opened for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Service {
    /// Reads, writes and scans, on a region server.
    Client,
    /// Tables and namespaces, on the master.
    Master,
    /// Where the meta region and the active master are, on a master (the registry that needs
    /// no ZooKeeper).
    Registry,
}

impl Service {
    /// The service's name in the connection header.
    fn name(self) -> &'static str {
        match self {
            Service::Client => "ClientService",
            Service::Master => "MasterService",
            Service::Registry => "ClientMetaService",
        }
    }
}

/// What a client sends before its first call: the preamble and the connection header.
pub(crate) fn connection_preamble(service: Service, user: &str) -> Vec<u8> {
    let mut out = preamble(AUTH_SIMPLE).to_vec();
    out.extend_from_slice(&connection_header(service, Some(user)));
    out
}

/// The six bytes that open a connection: `HBas`, version 0, the authentication method.
pub(crate) fn preamble(auth: u8) -> [u8; 6] {
    [b'H', b'B', b'a', b's', 0, auth]
}

/// The authentication method of a Kerberos (SASL GSSAPI) connection.
pub(crate) const AUTH_KERBEROS: u8 = 0x51;

/// The connection header (length-prefixed) that follows the preamble, or the SASL exchange of
/// a Kerberos connection. With Kerberos no user is named: the server knows it from the ticket
/// (a user named there that is not the ticket's would ask to act for them).
pub(crate) fn connection_header(service: Service, user: Option<&str>) -> Vec<u8> {
    let header = proto::ConnectionHeader {
        user_info: user.map(|user| proto::UserInformation {
            effective_user: user.to_string(),
            real_user: None,
        }),
        service_name: Some(service.name().to_string()),
        cell_block_codec_class: Some(CELL_CODEC.to_string()),
        version_info: Some(proto::VersionInfo {
            version: "2.6.1".into(),
            url: String::new(),
            revision: String::new(),
            user: String::new(),
            date: String::new(),
            src_checksum: String::new(),
            version_major: Some(2),
            version_minor: Some(6),
        }),
        ..Default::default()
    };
    let header = header.encode_to_vec();
    let mut out = Vec::with_capacity(4 + header.len());
    out.extend_from_slice(&(header.len() as u32).to_be_bytes());
    out.extend_from_slice(&header);
    out
}

/// A request's message as a frame carries it: any protobuf message, or one whose fields are
/// encoded already ([`Encoded`]).
pub(crate) trait Param {
    /// The message's encoded length.
    fn param_len(&self) -> usize;
    /// Writes the message's encoding at the end of `out`.
    fn write_param(&self, out: &mut Vec<u8>);
}

impl<M: Message> Param for M {
    fn param_len(&self) -> usize {
        self.encoded_len()
    }

    fn write_param(&self, out: &mut Vec<u8>) {
        self.encode_raw(out);
    }
}

/// A message already encoded, field after field (a `Multi` request written as its actions
/// were made, see `multi`).
pub(crate) struct Encoded(pub(crate) Vec<u8>);

impl Param for Encoded {
    fn param_len(&self) -> usize {
        self.0.len()
    }

    fn write_param(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0);
    }
}

/// A cell block up to this size is copied into its call's frame; a larger one is written to
/// the socket after the frame, from where it was made.
const INLINE_CELLS: usize = 64 << 10;

/// The largest request a frame carries: its length is a 4-byte signed int to the server.
pub(crate) const MAX_REQUEST: usize = i32::MAX as usize - 4096;

/// A request larger than a frame can carry (its size in bytes).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct TooLarge(pub(crate) usize);

/// The frame of call `id` to `method` with the request `param` and the cell block `cells`
/// (empty: none; a mutation's cells there are counted by its message): the bytes to write,
/// and the part of `cells` to write right after them (empty, unless the block is large). A
/// request past [`MAX_REQUEST`] is refused: its length would not fit the frame's.
pub(crate) fn call_frame<'c>(
    id: i32,
    method: &str,
    param: &impl Param,
    cells: &'c [u8],
) -> Result<(Vec<u8>, &'c [u8]), TooLarge> {
    let p = param.param_len();
    if p.saturating_add(cells.len()) > MAX_REQUEST {
        return Err(TooLarge(p.saturating_add(cells.len())));
    }
    let header = proto::RequestHeader {
        call_id: Some(id as u32),
        method_name: Some(method.to_string()),
        request_param: Some(true),
        cell_block_meta: (!cells.is_empty()).then_some(proto::CellBlockMeta {
            length: Some(cells.len() as u32),
        }),
        ..Default::default()
    };
    let h = header.encoded_len();
    let body =
        prost::length_delimiter_len(h) + h + prost::length_delimiter_len(p) + p + cells.len();
    let (inline, after) = if cells.len() <= INLINE_CELLS {
        (cells, &[][..])
    } else {
        (&[][..], cells)
    };
    let mut out = Vec::with_capacity(4 + body - after.len());
    out.extend_from_slice(&(body as u32).to_be_bytes());
    header
        .encode_length_delimited(&mut out)
        .expect("a Vec grows as needed");
    prost::encode_length_delimiter(p, &mut out).expect("a Vec grows as needed");
    let at = out.len();
    param.write_param(&mut out);
    debug_assert_eq!(out.len() - at, p, "a param writes the length it gives");
    out.extend_from_slice(inline);
    Ok((out, after))
}

/// A reply frame that does not hold what its header says.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct BadFrame(pub(crate) String);

/// A reply, split into its parts; the message and the cell block share the frame's buffer.
#[derive(Debug)]
pub(crate) struct Reply {
    /// The call it answers.
    pub(crate) call_id: i32,
    /// The server's exception, when the call failed: its class and message.
    pub(crate) exception: Option<proto::ExceptionResponse>,
    /// The reply message's bytes (empty with an exception).
    pub(crate) message: Bytes,
    /// The cells of the reply in the codec's encoding (empty if it has none).
    pub(crate) cell_block: Bytes,
}

/// Splits a reply frame (the bytes after its length) into its parts.
pub(crate) fn split_reply(mut frame: Bytes) -> Result<Reply, BadFrame> {
    let header_bytes = delimited(&mut frame, "header")?;
    let (header, call_id) = reply_header(&header_bytes)?;
    if let Some(exception) = header.exception {
        return Ok(Reply {
            call_id,
            exception: Some(exception),
            message: Bytes::new(),
            cell_block: Bytes::new(),
        });
    }
    let message = if frame.has_remaining() {
        delimited(&mut frame, "message")?
    } else {
        Bytes::new()
    };
    let block_len = header.cell_block_meta.and_then(|m| m.length).unwrap_or(0) as usize;
    if block_len > frame.len() {
        return Err(BadFrame(format!(
            "the header announces a cell block of {block_len} bytes, the frame holds {}",
            frame.len()
        )));
    }
    Ok(Reply {
        call_id,
        exception: None,
        message,
        cell_block: frame.split_to(block_len),
    })
}

/// The call a reply answers, read from the start of its frame (`body`, after the frame's
/// length) without the rest: `None` while fewer bytes than its header's are at hand, an error
/// when the header does not decode or is longer than `max_header` bytes.
pub(crate) fn reply_call_id(body: &[u8], max_header: usize) -> Option<Result<i32, BadFrame>> {
    let mut rest = body;
    let len = match prost::decode_length_delimiter(&mut rest) {
        Ok(len) => len,
        // Up to 10 bytes make a varint: fewer may be the start of one.
        Err(_) if body.len() < 10 => return None,
        Err(_) => {
            return Some(Err(BadFrame(
                "the reply's header length is not a varint".into(),
            )))
        }
    };
    if len > max_header {
        return Some(Err(BadFrame(format!(
            "the reply's header declares {len} bytes"
        ))));
    }
    let header = rest.get(..len)?;
    Some(reply_header(header).map(|(_, call_id)| call_id))
}

/// A reply's header, decoded, and the call it answers.
fn reply_header(bytes: &[u8]) -> Result<(proto::ResponseHeader, i32), BadFrame> {
    let header = proto::ResponseHeader::decode(bytes)
        .map_err(|e| BadFrame(format!("the reply header does not decode: {e}")))?;
    let call_id = header
        .call_id
        .ok_or_else(|| BadFrame("the reply header has no call id".into()))?
        as i32;
    Ok((header, call_id))
}

/// The next varint-delimited part of `frame`.
fn delimited(frame: &mut Bytes, what: &str) -> Result<Bytes, BadFrame> {
    let len = prost::decode_length_delimiter(&mut *frame)
        .map_err(|_| BadFrame(format!("the reply's {what} length is not a varint")))?;
    if len > frame.len() {
        return Err(BadFrame(format!(
            "the reply's {what} claims {len} bytes, {} are left in the frame",
            frame.len()
        )));
    }
    Ok(frame.split_to(len))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reply frame as a server writes it (without the leading length).
    fn reply_frame(header: &proto::ResponseHeader, message: &[u8], block: &[u8]) -> Bytes {
        let mut out = Vec::new();
        header.encode_length_delimited(&mut out).unwrap();
        if !message.is_empty() || !block.is_empty() {
            prost::encode_length_delimiter(message.len(), &mut out).unwrap();
            out.extend_from_slice(message);
        }
        out.extend_from_slice(block);
        Bytes::from(out)
    }

    #[test]
    fn a_call_frame_carries_its_length_header_and_message() {
        let param = proto::GetRequest::default();
        let large = vec![7; INLINE_CELLS + 1];
        for cells in [&b""[..], b"cells", &large] {
            let (mut frame, after) = call_frame(7, "Get", &param, cells).unwrap();
            assert_eq!(after.is_empty(), cells.len() <= INLINE_CELLS);
            frame.extend_from_slice(after);
            let len = u32::from_be_bytes(frame[..4].try_into().unwrap()) as usize;
            assert_eq!(len, frame.len() - 4);
            let mut rest = Bytes::from(frame[4..].to_vec());
            let header = proto::RequestHeader::decode_length_delimited(&mut rest).unwrap();
            assert_eq!(header.call_id, Some(7));
            assert_eq!(header.method_name.as_deref(), Some("Get"));
            let meta = header.cell_block_meta.and_then(|m| m.length);
            assert_eq!(meta, (!cells.is_empty()).then_some(cells.len() as u32));
            assert_eq!(
                proto::GetRequest::decode_length_delimited(&mut rest).unwrap(),
                param
            );
            assert_eq!(&rest[..], cells, "the cell block ends the frame");
        }
    }

    #[test]
    fn the_preamble_names_the_service_and_the_codec() {
        let out = connection_preamble(Service::Master, "alice");
        assert_eq!(&out[..6], b"HBas\x00\x50");
        let len = u32::from_be_bytes(out[6..10].try_into().unwrap()) as usize;
        let header = proto::ConnectionHeader::decode(&out[10..]).unwrap();
        assert_eq!(len, out.len() - 10);
        assert_eq!(header.service_name.as_deref(), Some("MasterService"));
        assert_eq!(header.cell_block_codec_class.as_deref(), Some(CELL_CODEC));
        assert_eq!(header.user_info.unwrap().effective_user, "alice");
    }

    #[test]
    fn replies_split_into_message_and_cell_block_and_bad_ones_are_named() {
        let header = proto::ResponseHeader {
            call_id: Some(3),
            cell_block_meta: Some(proto::CellBlockMeta { length: Some(4) }),
            ..Default::default()
        };
        let reply = split_reply(reply_frame(&header, b"msg", b"cell")).unwrap();
        assert_eq!(reply.call_id, 3);
        assert_eq!(&reply.message[..], b"msg");
        assert_eq!(&reply.cell_block[..], b"cell");

        let failed = proto::ResponseHeader {
            call_id: Some(4),
            exception: Some(proto::ExceptionResponse {
                exception_class_name: Some(
                    "org.apache.hadoop.hbase.NotServingRegionException".into(),
                ),
                ..Default::default()
            }),
            ..Default::default()
        };
        let reply = split_reply(reply_frame(&failed, b"", b"")).unwrap();
        assert!(reply.exception.is_some());

        // A cell block longer than the frame, a message length past the end, no call id.
        let long = split_reply(reply_frame(&header, b"msg", b"ce")).unwrap_err();
        assert!(long.0.contains("cell block of 4 bytes"), "{long:?}");
        let mut cut = reply_frame(&header, b"message", b"").to_vec();
        cut.truncate(cut.len() - 3);
        assert!(split_reply(Bytes::from(cut)).is_err());
        let anonymous = reply_frame(&proto::ResponseHeader::default(), b"", b"");
        assert!(split_reply(anonymous).unwrap_err().0.contains("call id"));
        assert!(split_reply(Bytes::from_static(&[0xff; 12])).is_err());
    }

    /// Random frames, and every cut and single-byte change of a valid one, split into parts
    /// that lie inside the frame, or fail: never a panic.
    #[test]
    fn damaged_and_random_frames_never_panic() {
        let header = proto::ResponseHeader {
            call_id: Some(9),
            cell_block_meta: Some(proto::CellBlockMeta { length: Some(5) }),
            ..Default::default()
        };
        let frame = reply_frame(&header, b"message", b"cells");
        let check = |frame: Bytes| {
            if let Ok(reply) = split_reply(frame.clone()) {
                assert!(reply.message.len() + reply.cell_block.len() <= frame.len());
            }
        };
        for cut in 0..frame.len() {
            check(frame.slice(..cut));
        }
        for at in 0..frame.len() {
            for byte in [0u8, 1, 0x7f, 0x80, 0xff] {
                let mut changed = frame.to_vec();
                changed[at] = byte;
                check(Bytes::from(changed));
            }
        }
        proptest::proptest!(|(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..300))| {
            check(Bytes::from(bytes));
        });
    }
}
