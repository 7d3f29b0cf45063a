//! The protocol reader both gateways' decoders read replies through: the `thrift` crate's
//! reader, with every length and count checked before anything is allocated for it.
//!
//! The probe ([`probe`](super::probe)) walks a reply by its wire types; the generated decoders
//! (ours for Thrift2, `hbase-thrift`'s for Thrift1) read it by the IDL's types and never compare
//! the two. Where they differ, a decoder takes a length or count from bytes the probe walked as
//! something else (the count of a "list" that is really a map's header, the length of a
//! "string" that is really an `i64`), which the probe never checked. One changed byte in a
//! valid table descriptor made a decoder reserve 184 million list elements (32 GB): the
//! process aborted. The `thrift` readers also trust what they read: a negative binary length
//! is cast to a huge `usize` and allocated (a panic, or an abort).
//!
//! So [`CheckedInput`] wraps the `thrift` reader and applies the probe's bounds where the
//! decoders read:
//!
//! * a string or binary must fit in the bytes that remain, checked before the `thrift` reader
//!   allocates it (its length is read ahead in the buffer), and so must a message name;
//! * a list, set or map must not declare a negative count, nor more elements than bytes
//!   remain (every element takes at least one byte in both protocols);
//! * a list or set must not declare more than `limit / ELEMENT_WEIGHT` elements (see the
//!   probe's module doc): the decoders reserve the elements before reading them;
//! * a compact field-id delta must not overflow an `i16` (the `thrift` reader adds it
//!   unchecked, which panics in debug builds).
//!
//! Every failure is a protocol error, which the connection treats as a stream out of step.
//! `limit` is the reply limit of the connection that read the reply: the connection sets it
//! with [`with_reply_limit`] around decoding (decoding is synchronous, so a thread-local holds
//! it, and the decoders' call sites need not carry it). Outside that, the bytes themselves are
//! the only bound.

use std::cell::Cell;
use std::io::Read;
use std::rc::Rc;

use thrift::protocol::{
    TBinaryInputProtocol, TCompactInputProtocol, TFieldIdentifier, TInputProtocol, TListIdentifier,
    TMapIdentifier, TMessageIdentifier, TSetIdentifier, TStructIdentifier,
};
use thrift::{ProtocolError, ProtocolErrorKind};

use super::probe::ELEMENT_WEIGHT;
use super::WireProtocol;

thread_local! {
    /// The reply limit of the decoding under way on this thread (see [`with_reply_limit`]).
    static REPLY_LIMIT: Cell<usize> = const { Cell::new(usize::MAX) };
}

/// Runs `f` with `limit` as the reply limit of every [`CheckedInput`] it creates on this thread.
pub(crate) fn with_reply_limit<T>(limit: usize, f: impl FnOnce() -> T) -> T {
    /// Puts the previous limit back, also if `f` panics.
    struct Restore(usize);
    impl Drop for Restore {
        fn drop(&mut self) {
            REPLY_LIMIT.with(|l| l.set(self.0));
        }
    }
    let _restore = Restore(REPLY_LIMIT.with(|l| l.replace(limit)));
    f()
}

/// A reader of the reply's bytes that shares its position with the [`CheckedInput`] over it.
struct Tracked<'a> {
    /// The whole reply.
    bytes: &'a [u8],
    /// Offset of the next byte to read.
    pos: Rc<Cell<usize>>,
}

impl Read for Tracked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let at = self.pos.get();
        let rest = &self.bytes[at..];
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.pos.set(at + n);
        Ok(n)
    }
}

/// The `thrift` reader of a reply, with every length and count checked (see the module doc).
pub(crate) struct CheckedInput<'a> {
    /// The `thrift` crate's reader, over a [`Tracked`] reader of `bytes`.
    inner: Box<dyn TInputProtocol + 'a>,
    /// Its protocol.
    protocol: WireProtocol,
    /// The whole reply.
    bytes: &'a [u8],
    /// Offset of the next byte `inner` reads.
    pos: Rc<Cell<usize>>,
    /// The reply limit list reservations must fit in.
    limit: usize,
    /// Compact only: the last field id read in the innermost open struct, as `inner` keeps it.
    last_field_id: i16,
    /// Compact only: the same for the enclosing structs, outermost first.
    field_ids: Vec<i16>,
}

impl<'a> CheckedInput<'a> {
    /// A reader of `bytes` in `protocol`, under the limit [`with_reply_limit`] set (none
    /// otherwise).
    pub(crate) fn new(protocol: WireProtocol, bytes: &'a [u8]) -> CheckedInput<'a> {
        let pos = Rc::new(Cell::new(0));
        let transport = Tracked {
            bytes,
            pos: Rc::clone(&pos),
        };
        let inner: Box<dyn TInputProtocol + 'a> = match protocol {
            WireProtocol::Binary => Box::new(TBinaryInputProtocol::new(transport, true)),
            WireProtocol::Compact => Box::new(TCompactInputProtocol::new(transport)),
        };
        CheckedInput {
            inner,
            protocol,
            bytes,
            pos,
            limit: REPLY_LIMIT.with(Cell::get),
            last_field_id: 0,
            field_ids: Vec::new(),
        }
    }

    /// The bytes not read yet.
    fn rest(&self) -> &'a [u8] {
        &self.bytes[self.pos.get().min(self.bytes.len())..]
    }

    /// Checks the length prefix of a string or binary `skip` bytes ahead, before `inner`
    /// allocates what it declares. A prefix cut short is left for `inner` to fail on.
    fn check_length_at(&self, skip: usize) -> thrift::Result<()> {
        let Some(ahead) = self.rest().get(skip..) else {
            return Ok(());
        };
        let (declared, header) = match self.protocol {
            WireProtocol::Binary => match ahead.get(..4) {
                Some(b) => (i64::from(i32::from_be_bytes([b[0], b[1], b[2], b[3]])), 4),
                None => return Ok(()),
            },
            WireProtocol::Compact => match varint_u32(ahead) {
                Some((n, used)) => (i64::from(n), used),
                None => return Ok(()),
            },
        };
        if declared < 0 {
            return Err(refused(
                ProtocolErrorKind::NegativeSize,
                format!("a string declares {declared} bytes"),
            ));
        }
        let left = ahead.len() - header;
        if declared as u64 > left as u64 {
            return Err(refused(
                ProtocolErrorKind::SizeLimit,
                format!("a string declares {declared} bytes; {left} remain in the reply"),
            ));
        }
        Ok(())
    }

    /// Checks a container's element count as `inner` read it: not negative, no more than the
    /// bytes that remain, and (for what the decoders reserve, lists and sets) within the limit
    /// at [`ELEMENT_WEIGHT`] bytes each.
    fn check_count(&self, what: &str, declared: i32, reserved: bool) -> thrift::Result<()> {
        let Ok(n) = usize::try_from(declared) else {
            return Err(refused(
                ProtocolErrorKind::NegativeSize,
                format!("a {what} declares {declared} elements"),
            ));
        };
        let left = self.rest().len();
        if n > left {
            return Err(refused(
                ProtocolErrorKind::SizeLimit,
                format!("a {what} declares {n} elements; {left} bytes remain in the reply"),
            ));
        }
        if reserved && n.saturating_mul(ELEMENT_WEIGHT) > self.limit {
            return Err(refused(
                ProtocolErrorKind::SizeLimit,
                format!(
                    "a {what} declares {n} elements; decoding would reserve {} bytes for them, \
                     more than the reply limit of {} bytes",
                    n.saturating_mul(ELEMENT_WEIGHT),
                    self.limit
                ),
            ));
        }
        Ok(())
    }

    /// Compact: checks that the next field header's id delta, if it has one, does not take the
    /// field id past `i16::MAX`.
    fn check_field_delta(&self) -> thrift::Result<()> {
        let Some(&header) = self.rest().first() else {
            return Ok(());
        };
        let delta = i16::from(header >> 4);
        if header & 0x0F != 0 && delta != 0 && self.last_field_id.checked_add(delta).is_none() {
            return Err(refused(
                ProtocolErrorKind::InvalidData,
                format!(
                    "a field id delta of {delta} after field {} overflows",
                    self.last_field_id
                ),
            ));
        }
        Ok(())
    }

    /// Checks the message header ahead: its name's length.
    fn check_message_header(&self) -> thrift::Result<()> {
        match self.protocol {
            // A strict header: version and type (4 bytes), then the name. Anything else
            // fails in `inner` before it allocates.
            WireProtocol::Binary => {
                if self.rest().starts_with(&[0x80, 0x01]) {
                    self.check_length_at(4)?;
                }
            }
            // Protocol id, version and type (2 bytes), sequence id (a varint), then the name.
            WireProtocol::Compact => {
                if let Some((_, seq_len)) = self.rest().get(2..).and_then(varint_u32) {
                    self.check_length_at(2 + seq_len)?;
                }
            }
        }
        Ok(())
    }
}

/// A reply the checks refused.
fn refused(kind: ProtocolErrorKind, message: String) -> thrift::Error {
    thrift::Error::Protocol(ProtocolError::new(kind, message))
}

/// Reads an unsigned varint as the `thrift` compact reader reads a `u32` (at most five bytes,
/// bits past the 32nd dropped): the value and the bytes it took, or `None` where that reader
/// fails without allocating (cut short, or too long).
fn varint_u32(bytes: &[u8]) -> Option<(u32, usize)> {
    let mut value = 0u64;
    for (i, b) in bytes.iter().take(5).enumerate() {
        value |= u64::from(b & 0x7F) << (7 * i);
        if b & 0x80 == 0 {
            return Some((value as u32, i + 1));
        }
    }
    None
}

/// Methods of [`TInputProtocol`] that read nothing a length or count could be wrong in, so they
/// hand the call to the wrapped protocol as is.
macro_rules! forward_to_inner {
    ($($method:ident -> $ty:ty;)*) => {
        $(
            fn $method(&mut self) -> thrift::Result<$ty> {
                self.inner.$method()
            }
        )*
    };
}

impl TInputProtocol for CheckedInput<'_> {
    forward_to_inner! {
        read_message_end -> ();
        read_field_end -> ();
        read_bool -> bool;
        read_i8 -> i8;
        read_i16 -> i16;
        read_i32 -> i32;
        read_i64 -> i64;
        read_double -> f64;
        read_list_end -> ();
        read_set_end -> ();
        read_map_end -> ();
        read_byte -> u8;
    }

    fn read_message_begin(&mut self) -> thrift::Result<TMessageIdentifier> {
        self.check_message_header()?;
        let ident = self.inner.read_message_begin()?;
        self.last_field_id = 0;
        Ok(ident)
    }

    fn read_struct_begin(&mut self) -> thrift::Result<Option<TStructIdentifier>> {
        let ident = self.inner.read_struct_begin()?;
        self.field_ids.push(self.last_field_id);
        self.last_field_id = 0;
        Ok(ident)
    }

    fn read_struct_end(&mut self) -> thrift::Result<()> {
        self.inner.read_struct_end()?;
        self.last_field_id = self.field_ids.pop().unwrap_or(0);
        Ok(())
    }

    fn read_field_begin(&mut self) -> thrift::Result<TFieldIdentifier> {
        if self.protocol == WireProtocol::Compact {
            self.check_field_delta()?;
        }
        let ident = self.inner.read_field_begin()?;
        if let Some(id) = ident.id {
            self.last_field_id = id;
        }
        Ok(ident)
    }

    fn read_bytes(&mut self) -> thrift::Result<Vec<u8>> {
        self.check_length_at(0)?;
        self.inner.read_bytes()
    }

    fn read_string(&mut self) -> thrift::Result<String> {
        self.check_length_at(0)?;
        self.inner.read_string()
    }

    fn read_list_begin(&mut self) -> thrift::Result<TListIdentifier> {
        let ident = self.inner.read_list_begin()?;
        self.check_count("list", ident.size, true)?;
        Ok(ident)
    }

    fn read_set_begin(&mut self) -> thrift::Result<TSetIdentifier> {
        let ident = self.inner.read_set_begin()?;
        self.check_count("set", ident.size, true)?;
        Ok(ident)
    }

    fn read_map_begin(&mut self) -> thrift::Result<TMapIdentifier> {
        let ident = self.inner.read_map_begin()?;
        self.check_count("map", ident.size, false)?;
        Ok(ident)
    }
}

#[cfg(test)]
mod tests;
