//! Finds where one Thrift message ends in a byte buffer, without decoding it.
//!
//! The gateway's default (buffered) transport has no length prefix: a reply ends where its
//! outermost struct ends. The reader keeps appending socket data and asks [`message_len`] after
//! each read; it walks the structure in place (no allocation) and says "complete at N bytes",
//! "need more bytes", or "malformed".

use super::WireProtocol;

/// Outcome of probing a buffer.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Probe {
    /// A whole message occupies the first `n` bytes.
    Complete(usize),
    /// The buffer ends inside the message.
    Incomplete,
    /// The bytes are not a message of this protocol.
    Malformed(&'static str),
}

/// Nesting deeper than this is treated as malformed (protects the stack from hostile input).
const MAX_DEPTH: u32 = 64;

struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
}

/// Early exit of a walk: out of bytes, or malformed.
enum Stop {
    Short,
    Bad(&'static str),
}

type Step<T = ()> = Result<T, Stop>;

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Step<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .ok_or(Stop::Bad("length overflow"))?;
        if end > self.buf.len() {
            return Err(Stop::Short);
        }
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn u8(&mut self) -> Step<u8> {
        Ok(self.take(1)?[0])
    }

    fn i32_be(&mut self) -> Step<i32> {
        let b = self.take(4)?;
        Ok(i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn len_be(&mut self) -> Step<usize> {
        usize::try_from(self.i32_be()?).map_err(|_| Stop::Bad("negative length"))
    }

    fn varint(&mut self) -> Step<u64> {
        let mut v = 0u64;
        for shift in (0..70).step_by(7) {
            let b = self.u8()?;
            v |= u64::from(b & 0x7F) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(Stop::Bad("varint too long"))
    }

    fn len_varint(&mut self) -> Step<usize> {
        usize::try_from(self.varint()?).map_err(|_| Stop::Bad("length overflow"))
    }
}

/// Length of the first complete message in `buf`, for `protocol`.
pub(crate) fn message_len(protocol: WireProtocol, buf: &[u8]) -> Probe {
    let mut c = Cursor { buf, pos: 0 };
    let walked = match protocol {
        WireProtocol::Binary => binary::message(&mut c),
        WireProtocol::Compact => compact::message(&mut c),
    };
    match walked {
        Ok(()) => Probe::Complete(c.pos),
        Err(Stop::Short) => Probe::Incomplete,
        Err(Stop::Bad(why)) => Probe::Malformed(why),
    }
}

mod binary {
    use super::{Cursor, Step, Stop, MAX_DEPTH};

    pub(super) fn message(c: &mut Cursor) -> Step {
        let version = c.i32_be()? as u32;
        if version & 0xFFFF_0000 != 0x8001_0000 {
            return Err(Stop::Bad("not a strict binary-protocol message"));
        }
        let name_len = c.len_be()?;
        c.take(name_len)?;
        c.take(4)?; // sequence id
        value(c, 12, 0)
    }

    fn value(c: &mut Cursor, ty: u8, depth: u32) -> Step {
        if depth > MAX_DEPTH {
            return Err(Stop::Bad("nesting too deep"));
        }
        match ty {
            2 | 3 => c.take(1).map(drop),
            6 => c.take(2).map(drop),
            8 => c.take(4).map(drop),
            4 | 10 => c.take(8).map(drop),
            16 => c.take(16).map(drop),
            11 => {
                let n = c.len_be()?;
                c.take(n).map(drop)
            }
            12 => loop {
                let field_ty = c.u8()?;
                if field_ty == 0 {
                    return Ok(());
                }
                c.take(2)?; // field id
                value(c, field_ty, depth + 1)?;
            },
            13 => {
                let (k, v) = (c.u8()?, c.u8()?);
                for _ in 0..c.len_be()? {
                    value(c, k, depth + 1)?;
                    value(c, v, depth + 1)?;
                }
                Ok(())
            }
            14 | 15 => {
                let e = c.u8()?;
                for _ in 0..c.len_be()? {
                    value(c, e, depth + 1)?;
                }
                Ok(())
            }
            _ => Err(Stop::Bad("unknown binary-protocol type")),
        }
    }
}

mod compact {
    use super::{Cursor, Step, Stop, MAX_DEPTH};

    pub(super) fn message(c: &mut Cursor) -> Step {
        if c.u8()? != 0x82 {
            return Err(Stop::Bad("not a compact-protocol message"));
        }
        if c.u8()? & 0x1F != 1 {
            return Err(Stop::Bad("unsupported compact-protocol version"));
        }
        c.varint()?; // sequence id
        let name_len = c.len_varint()?;
        c.take(name_len)?;
        value(c, 12, 0)
    }

    fn value(c: &mut Cursor, ty: u8, depth: u32) -> Step {
        if depth > MAX_DEPTH {
            return Err(Stop::Bad("nesting too deep"));
        }
        match ty {
            // In containers a bool is one byte; as a struct field its value is in the type.
            1..=3 => c.take(1).map(drop),
            4..=6 => c.varint().map(drop),
            7 => c.take(8).map(drop),
            13 => c.take(16).map(drop),
            8 => {
                let n = c.len_varint()?;
                c.take(n).map(drop)
            }
            12 => loop {
                let header = c.u8()?;
                if header == 0 {
                    return Ok(());
                }
                if header >> 4 == 0 {
                    c.varint()?; // explicit field id
                }
                match header & 0x0F {
                    1 | 2 => {} // bool field: value carried by the type nibble
                    field_ty => value(c, field_ty, depth + 1)?,
                }
            },
            9 | 10 => {
                let header = c.u8()?;
                let n = match header >> 4 {
                    15 => c.len_varint()?,
                    short => usize::from(short),
                };
                for _ in 0..n {
                    value(c, header & 0x0F, depth + 1)?;
                }
                Ok(())
            }
            11 => {
                let n = c.len_varint()?;
                if n > 0 {
                    let kv = c.u8()?;
                    for _ in 0..n {
                        value(c, kv >> 4, depth + 1)?;
                        value(c, kv & 0x0F, depth + 1)?;
                    }
                }
                Ok(())
            }
            _ => Err(Stop::Bad("unknown compact-protocol type")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use thrift::protocol::{
        TBinaryOutputProtocol, TCompactOutputProtocol, TFieldIdentifier, TListIdentifier,
        TMessageIdentifier, TMessageType, TOutputProtocol, TStructIdentifier, TType,
    };

    /// A reply shaped like a row: a binary field, a list of three structs (binary, binary,
    /// 300 bytes, a negative i64), two booleans.
    fn sample_message(protocol: WireProtocol) -> Vec<u8> {
        let mut out = Vec::new();
        let write = |p: &mut dyn TOutputProtocol| -> thrift::Result<()> {
            let field = |name: &'static str, ty, id| TFieldIdentifier::new(name, ty, id);
            p.write_message_begin(&TMessageIdentifier::new("get", TMessageType::Reply, 7))?;
            p.write_struct_begin(&TStructIdentifier::new("TResult"))?;
            p.write_field_begin(&field("row", TType::String, 1))?;
            p.write_bytes(b"row-1")?;
            p.write_field_end()?;
            p.write_field_begin(&field("columnValues", TType::List, 2))?;
            p.write_list_begin(&TListIdentifier::new(TType::Struct, 3))?;
            for i in 0..3u8 {
                p.write_struct_begin(&TStructIdentifier::new("TColumnValue"))?;
                p.write_field_begin(&field("family", TType::String, 1))?;
                p.write_bytes(b"f")?;
                p.write_field_end()?;
                p.write_field_begin(&field("qualifier", TType::String, 2))?;
                p.write_bytes(&[b'q', i])?;
                p.write_field_end()?;
                p.write_field_begin(&field("value", TType::String, 3))?;
                p.write_bytes(&[i; 300])?;
                p.write_field_end()?;
                p.write_field_begin(&field("timestamp", TType::I64, 4))?;
                p.write_i64(-5)?;
                p.write_field_end()?;
                p.write_field_stop()?;
                p.write_struct_end()?;
            }
            p.write_list_end()?;
            p.write_field_end()?;
            for (id, b) in [(3, true), (4, false)] {
                p.write_field_begin(&field("flag", TType::Bool, id))?;
                p.write_bool(b)?;
                p.write_field_end()?;
            }
            p.write_field_stop()?;
            p.write_struct_end()?;
            p.write_message_end()?;
            p.flush()
        };
        match protocol {
            WireProtocol::Binary => write(&mut TBinaryOutputProtocol::new(&mut out, true)),
            WireProtocol::Compact => write(&mut TCompactOutputProtocol::new(&mut out)),
        }
        .unwrap();
        out
    }

    #[test]
    fn finds_the_exact_end_of_a_message_in_both_protocols() {
        for protocol in [WireProtocol::Binary, WireProtocol::Compact] {
            let msg = sample_message(protocol);
            assert_eq!(message_len(protocol, &msg), Probe::Complete(msg.len()));
            for cut in 0..msg.len() {
                assert_eq!(
                    message_len(protocol, &msg[..cut]),
                    Probe::Incomplete,
                    "{protocol:?} cut at {cut}"
                );
            }
            let mut two = msg.clone();
            two.extend_from_slice(&msg);
            assert_eq!(message_len(protocol, &two), Probe::Complete(msg.len()));
        }
    }

    #[test]
    fn rejects_garbage_instead_of_waiting_forever() {
        assert!(matches!(
            message_len(WireProtocol::Binary, b"HTTP/1.1 400 Bad Request\r\n"),
            Probe::Malformed(_)
        ));
        assert!(matches!(
            message_len(WireProtocol::Compact, &[0x80, 0x01, 0, 0]),
            Probe::Malformed(_)
        ));
        // A struct nested deeper than the limit.
        let mut deep = vec![0x80, 0x01, 0x00, 0x02, 0, 0, 0, 0, 0, 0, 0, 1];
        for _ in 0..100 {
            deep.extend_from_slice(&[12, 0, 1]);
        }
        assert!(matches!(
            message_len(WireProtocol::Binary, &deep),
            Probe::Malformed("nesting too deep")
        ));
    }
}
