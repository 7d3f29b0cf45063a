//! Finds where one Thrift message ends in a byte buffer, without decoding it.
//!
//! The gateway's default (buffered) transport has no length prefix: a reply ends where its
//! outermost struct ends. The reader keeps appending socket data and feeds the whole buffer to
//! a [`Prober`] after each read. The prober walks the structure in place, one token at a time
//! (a field header with its scalar value, a container header, a whole string), with an explicit
//! stack of open containers; when the buffer ends inside a token it keeps the position and
//! stack it had before that token and resumes from there on the next feed. Probing one reply
//! therefore costs time linear in its size, however many reads it arrives in.
//!
//! One-shot callers with no limit (the Thrift2 row reader, before it hands a reply to the
//! generated reader; tests) use [`message_len`].
//!
//! # What the limit bounds
//!
//! A prober has a limit (the connection's `Config::max_reply_bytes`), and accepts a message
//! only if all of these hold:
//!
//! * it ends within the limit; a string or binary declaring `n` bytes fails as soon as its
//!   header shows that its end would fall past the limit ([`Fault::LongString`]), before its
//!   bytes arrive;
//! * a list, set or map declaring `n` elements could hold them within the limit at their
//!   smallest wire size ([`Fault::ManyElements`]);
//! * a list or set declaring `n` elements has `n × ELEMENT_WEIGHT` within the limit
//!   ([`Fault::LongList`]). The generated decoders reserve a list's `n` elements before they
//!   read the first (`Vec::with_capacity(n)`), and an element in memory is far bigger than its
//!   smallest wire form: an empty struct is one byte on the wire, a `TColumnFamilyDescriptor`
//!   176 bytes in memory. [`ELEMENT_WEIGHT`] is at least the size of every element type of
//!   every list of every reply (tests check it against both generated crates), so no
//!   reservation can exceed the limit. The decoders take the element type from the IDL, not
//!   from the wire, so the weight is the same whatever type the list declares. Maps are
//!   decoded into `BTreeMap`s, which reserve nothing and grow with the entries actually read.
//!   Under the default 256 MiB limit a list may declare 1,398,101 elements; a scan page of
//!   10,000 rows of 100 cells has lists of 10,000 and of 100 elements, far below (a test
//!   probes such a page);
//! * every length and count is at most `i32::MAX`: Thrift reads them as `i32`, so a larger
//!   compact varint would be read as another number.
//!
//! The probe cannot see every length the decoders will read. They take a field's type from
//! the IDL, not from the wire: a field whose wire type differs (a map where the IDL has a list)
//! is read as what the IDL says, and its length or count then comes from bytes the probe walked
//! as something else. So the decoders read through [`checked`](super::checked), which applies
//! the same bounds to each length and count as they read it; the probe's checks are what lets
//! a reply be refused early, before all of it has arrived.

use std::fmt;

use super::WireProtocol;

/// Outcome of probing a buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Probe {
    /// A whole message occupies the first `n` bytes.
    Complete(usize),
    /// The buffer ends inside the message.
    Incomplete,
    /// The bytes are not a message of this protocol, or not one within the length limit.
    Malformed(Fault),
}

/// Why a buffer cannot hold an acceptable message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fault {
    /// The bytes are not a message of the protocol.
    Bad(&'static str),
    /// A string or binary declares `declared` bytes: the message would end past `limit` bytes.
    LongString { declared: usize, limit: usize },
    /// A container declares `declared` elements: even at their smallest they would take the
    /// message past `limit` bytes.
    ManyElements { declared: usize, limit: usize },
    /// A list or set declares `declared` elements: reserving them (at [`ELEMENT_WEIGHT`] bytes
    /// each) would take more than `limit` bytes.
    LongList { declared: usize, limit: usize },
    /// A fixed-size part of the message would end past `limit` bytes.
    PastLimit { limit: usize },
}

impl Fault {
    /// Whether the fault is the length limit (the bytes may well be a valid message).
    pub(crate) fn is_limit(&self) -> bool {
        !matches!(self, Fault::Bad(_))
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::Bad(why) => f.write_str(why),
            Fault::LongString { declared, limit } => write!(
                f,
                "a string declares {declared} bytes, which would take the reply past the limit \
                 of {limit} bytes"
            ),
            Fault::ManyElements { declared, limit } => write!(
                f,
                "a container declares {declared} elements, more than fit in the limit of \
                 {limit} bytes"
            ),
            Fault::LongList { declared, limit } => write!(
                f,
                "a list or set declares {declared} elements; decoding would reserve {} bytes \
                 for them, more than the limit of {limit} bytes",
                declared.saturating_mul(ELEMENT_WEIGHT)
            ),
            Fault::PastLimit { limit } => {
                write!(f, "the reply runs past the limit of {limit} bytes")
            }
        }
    }
}

/// Nesting deeper than this is treated as malformed (bounds the stack against hostile input).
const MAX_DEPTH: usize = 64;

/// Bytes charged for each element a list or set declares: at least the in-memory size of any
/// element type of any list in any reply either gateway's decoders read (the largest is
/// Thrift2's `TColumnFamilyDescriptor`, 176 bytes on 64-bit targets). See the module doc.
pub(crate) const ELEMENT_WEIGHT: usize = 192;

/// Length of the first complete message in `buf`, for `protocol`, with no length limit.
#[cfg_attr(not(feature = "thrift2"), allow(dead_code))] // its scanner's
pub(crate) fn message_len(protocol: WireProtocol, buf: &[u8]) -> Probe {
    Prober::new(protocol, usize::MAX).feed(buf)
}

/// A resumable probe of one message: feed it the whole buffer so far after each read.
pub(crate) struct Prober {
    /// Protocol of the message.
    protocol: WireProtocol,
    /// Largest message accepted, in bytes.
    max_len: usize,
    /// Offset of the first byte no token has consumed yet.
    pos: usize,
    /// Whether the message header (and so the root struct) has been consumed.
    started: bool,
    /// Open containers, outermost first.
    stack: Vec<Frame>,
    /// The final outcome, once known (complete or malformed).
    finished: Option<Probe>,
    /// Tokens attempted so far, consumed or not (to test that probing is linear).
    #[cfg(test)]
    steps: u64,
}

/// An open container on the prober's stack.
#[derive(Clone, Copy, Debug)]
enum Frame {
    /// A struct: its next token is a field header or the stop byte.
    Struct,
    /// A list, set or map: `left` elements remain. A list's elements are all of type `even`;
    /// a map's are its keys and values in turn, `2 × entries` of them, so an even `left` means
    /// a key (of type `even`) comes next and an odd one a value (of type `odd`).
    Elements { left: usize, even: u8, odd: u8 },
}

impl Frame {
    /// A list or set of `n` elements of type `elem`.
    fn list(n: usize, elem: u8) -> Frame {
        Frame::Elements {
            left: n,
            even: elem,
            odd: elem,
        }
    }

    /// A map of `n` entries; fails if the element count overflows.
    fn map(n: usize, key: u8, value: u8) -> Step<Frame> {
        let left = n
            .checked_mul(2)
            .ok_or(Stop::Bad(Fault::Bad("length overflow")))?;
        Ok(Frame::Elements {
            left,
            even: key,
            odd: value,
        })
    }
}

/// What a consumed struct-field token was.
enum Field {
    /// The stop byte: the struct ends.
    End,
    /// A field, and the container it opens, if any.
    Value(Option<Frame>),
}

/// Early exit of a token: out of bytes (nothing is consumed), or malformed.
enum Stop {
    /// The buffer ends inside the token.
    Short,
    /// The token is malformed.
    Bad(Fault),
}

/// Result of reading (part of) a token.
type Step<T = ()> = Result<T, Stop>;

/// A read position in the buffer, moved through one token before it is committed.
struct Reader<'a> {
    /// The whole buffer so far.
    buf: &'a [u8],
    /// Offset of the next byte to read.
    pos: usize,
    /// Largest message accepted, in bytes.
    max_len: usize,
}

impl<'a> Reader<'a> {
    /// Consumes `n` bytes.
    fn take(&mut self, n: usize) -> Step<&'a [u8]> {
        let end = self.end_of(n)?;
        if end > self.max_len {
            return Err(Stop::Bad(Fault::PastLimit {
                limit: self.max_len,
            }));
        }
        let bytes = self.buf.get(self.pos..end).ok_or(Stop::Short)?;
        self.pos = end;
        Ok(bytes)
    }

    /// Offset just past the next `n` bytes.
    fn end_of(&self, n: usize) -> Step<usize> {
        self.pos
            .checked_add(n)
            .ok_or(Stop::Bad(Fault::Bad("length overflow")))
    }

    /// Consumes the `n` bytes of a string or binary whose length was just read.
    fn skip_declared(&mut self, n: usize) -> Step {
        if self.end_of(n)? > self.max_len {
            return Err(Stop::Bad(Fault::LongString {
                declared: n,
                limit: self.max_len,
            }));
        }
        self.take(n).map(drop)
    }

    /// Checks that `n` elements of at least `min` bytes each fit before the limit.
    fn check_count(&self, n: usize, min: usize) -> Step {
        let need = n
            .checked_mul(min)
            .ok_or(Stop::Bad(Fault::Bad("length overflow")))?;
        if self.end_of(need)? > self.max_len {
            return Err(Stop::Bad(Fault::ManyElements {
                declared: n,
                limit: self.max_len,
            }));
        }
        Ok(())
    }

    /// Consumes one byte.
    fn u8(&mut self) -> Step<u8> {
        Ok(self.take(1)?[0])
    }

    /// Consumes a big-endian `i32` length; negative is malformed.
    fn len_be(&mut self) -> Step<usize> {
        let b = self.take(4)?;
        let n = i32::from_be_bytes([b[0], b[1], b[2], b[3]]);
        usize::try_from(n).map_err(|_| Stop::Bad(Fault::Bad("negative length")))
    }

    /// Consumes an unsigned LEB128 varint of at most 10 bytes.
    fn varint(&mut self) -> Step<u64> {
        let mut v = 0u64;
        for shift in (0..70).step_by(7) {
            let b = self.u8()?;
            v |= u64::from(b & 0x7F) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(Stop::Bad(Fault::Bad("varint too long")))
    }

    /// Checks that reserving `n` list elements of [`ELEMENT_WEIGHT`] bytes each stays within
    /// the limit.
    fn check_reservation(&self, n: usize) -> Step {
        if n.saturating_mul(ELEMENT_WEIGHT) > self.max_len {
            return Err(Stop::Bad(Fault::LongList {
                declared: n,
                limit: self.max_len,
            }));
        }
        Ok(())
    }

    /// Consumes a varint length; one past `i32::MAX` is malformed (Thrift reads it as an `i32`).
    fn len_varint(&mut self) -> Step<usize> {
        let n = self.varint()?;
        if n > i32::MAX as u64 {
            return Err(Stop::Bad(Fault::Bad("length over 2^31 - 1")));
        }
        usize::try_from(n).map_err(|_| Stop::Bad(Fault::Bad("length overflow")))
    }
}

impl Prober {
    /// A probe of one `protocol` message of at most `max_len` bytes, at its first byte.
    pub(crate) fn new(protocol: WireProtocol, max_len: usize) -> Prober {
        Prober {
            protocol,
            max_len,
            pos: 0,
            started: false,
            stack: Vec::with_capacity(8),
            finished: None,
            #[cfg(test)]
            steps: 0,
        }
    }

    /// Probes `buf`, the whole message so far: each call must pass the bytes of the previous
    /// one followed by any new ones. Resumes where the previous call stopped.
    pub(crate) fn feed(&mut self, buf: &[u8]) -> Probe {
        if let Some(outcome) = &self.finished {
            return outcome.clone();
        }
        debug_assert!(buf.len() >= self.pos, "a feed dropped bytes already probed");
        loop {
            #[cfg(test)]
            {
                self.steps += 1;
            }
            match self.step(buf) {
                Ok(true) => {}
                Ok(false) => return self.finish(Probe::Complete(self.pos)),
                Err(Stop::Short) => return Probe::Incomplete,
                Err(Stop::Bad(fault)) => return self.finish(Probe::Malformed(fault)),
            }
        }
    }

    /// Records the final outcome and returns it.
    fn finish(&mut self, outcome: Probe) -> Probe {
        self.finished = Some(outcome.clone());
        outcome
    }

    /// Consumes one token, or nothing on failure; false once the message is complete.
    fn step(&mut self, buf: &[u8]) -> Step<bool> {
        let mut r = Reader {
            buf,
            pos: self.pos,
            max_len: self.max_len,
        };
        match self.stack.last().copied() {
            None if self.started => return Ok(false),
            None => {
                self.header(&mut r)?;
                self.started = true;
                self.stack.push(Frame::Struct);
            }
            Some(Frame::Struct) => match self.field(&mut r)? {
                Field::End => {
                    self.stack.pop();
                }
                Field::Value(opened) => self.open(opened),
            },
            Some(Frame::Elements { left: 0, .. }) => {
                self.stack.pop();
            }
            Some(Frame::Elements { left, even, odd }) => {
                let ty = if left % 2 == 0 { even } else { odd };
                let opened = self.value(&mut r, ty)?;
                if let Some(Frame::Elements { left, .. }) = self.stack.last_mut() {
                    *left -= 1;
                }
                self.open(opened);
            }
        }
        self.pos = r.pos;
        Ok(true)
    }

    /// Pushes a container a token opened, unless it is empty.
    fn open(&mut self, opened: Option<Frame>) {
        match opened {
            None | Some(Frame::Elements { left: 0, .. }) => {}
            Some(frame) => self.stack.push(frame),
        }
    }

    /// Consumes the message header, up to the result struct.
    fn header(&self, r: &mut Reader) -> Step {
        match self.protocol {
            WireProtocol::Binary => binary::header(r),
            WireProtocol::Compact => compact::header(r),
        }
    }

    /// Consumes a struct's next field header with its value's first token, or its stop byte.
    fn field(&self, r: &mut Reader) -> Step<Field> {
        match self.protocol {
            WireProtocol::Binary => binary::field(r, self.depth()),
            WireProtocol::Compact => compact::field(r, self.depth()),
        }
    }

    /// Consumes the first token of a value of type `ty`; returns the container it opens.
    fn value(&self, r: &mut Reader, ty: u8) -> Step<Option<Frame>> {
        match self.protocol {
            WireProtocol::Binary => binary::value(r, ty, self.depth()),
            WireProtocol::Compact => compact::value(r, ty, self.depth()),
        }
    }

    /// Nesting depth of the next value: the number of open containers.
    fn depth(&self) -> usize {
        self.stack.len()
    }

    /// Tokens attempted so far.
    #[cfg(test)]
    fn steps(&self) -> u64 {
        self.steps
    }
}

/// Fails if a value at `depth` would nest too deep.
fn check_depth(depth: usize) -> Step {
    if depth > MAX_DEPTH {
        return Err(Stop::Bad(Fault::Bad("nesting too deep")));
    }
    Ok(())
}

/// Tokens of the binary protocol.
mod binary {
    use super::{check_depth, Fault, Field, Frame, Reader, Step, Stop};

    /// Consumes a strict message header: version and type, name, sequence id.
    pub(super) fn header(r: &mut Reader) -> Step {
        let b = r.take(4)?;
        let version = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
        if version & 0xFFFF_0000 != 0x8001_0000 {
            return Err(Stop::Bad(Fault::Bad(
                "not a strict binary-protocol message",
            )));
        }
        let name_len = r.len_be()?;
        r.skip_declared(name_len)?;
        r.take(4).map(drop) // sequence id
    }

    /// Consumes a field header (type, id) and its value's first token, or the stop byte.
    pub(super) fn field(r: &mut Reader, depth: usize) -> Step<Field> {
        let ty = r.u8()?;
        if ty == 0 {
            return Ok(Field::End);
        }
        r.take(2)?; // field id
        value(r, ty, depth).map(Field::Value)
    }

    /// Consumes a scalar or string of type `ty`, or a container's header (returned).
    pub(super) fn value(r: &mut Reader, ty: u8, depth: usize) -> Step<Option<Frame>> {
        check_depth(depth)?;
        match ty {
            2 | 3 | 4 | 6 | 8 | 10 | 16 => r.take(min_size(ty)).map(|_| None),
            11 => {
                let n = r.len_be()?;
                r.skip_declared(n).map(|()| None)
            }
            12 => Ok(Some(Frame::Struct)),
            13 => {
                let (key, value) = (r.u8()?, r.u8()?);
                let n = r.len_be()?;
                r.check_count(n, min_size(key) + min_size(value))?;
                Frame::map(n, key, value).map(Some)
            }
            14 | 15 => {
                let elem = r.u8()?;
                let n = r.len_be()?;
                r.check_count(n, min_size(elem))?;
                r.check_reservation(n)?;
                Ok(Some(Frame::list(n, elem)))
            }
            _ => Err(Stop::Bad(Fault::Bad("unknown binary-protocol type"))),
        }
    }

    /// Fewest bytes a value of type `ty` takes (fixed-size types: their size). Unknown types
    /// count as 1: they fail when read.
    fn min_size(ty: u8) -> usize {
        match ty {
            6 => 2,
            8 | 11 => 4, // an i32; a string's length
            4 | 10 => 8,
            13 => 6, // key type, value type, count
            14 | 15 => 5,
            16 => 16,
            _ => 1, // bool, byte, struct (its stop byte), unknown
        }
    }
}

/// Tokens of the compact protocol.
mod compact {
    use super::{check_depth, Fault, Field, Frame, Reader, Step, Stop};

    /// Consumes a message header: protocol id, version and type, sequence id, name.
    pub(super) fn header(r: &mut Reader) -> Step {
        if r.u8()? != 0x82 {
            return Err(Stop::Bad(Fault::Bad("not a compact-protocol message")));
        }
        if r.u8()? & 0x1F != 1 {
            return Err(Stop::Bad(Fault::Bad(
                "unsupported compact-protocol version",
            )));
        }
        r.varint()?; // sequence id
        let name_len = r.len_varint()?;
        r.skip_declared(name_len)
    }

    /// Consumes a field header (id delta and type, or type and explicit id) and its value's
    /// first token, or the stop byte. A bool field's value is its type.
    pub(super) fn field(r: &mut Reader, depth: usize) -> Step<Field> {
        let header = r.u8()?;
        if header == 0 {
            return Ok(Field::End);
        }
        if header >> 4 == 0 {
            r.varint()?; // explicit field id
        }
        match header & 0x0F {
            1 | 2 => Ok(Field::Value(None)),
            ty => value(r, ty, depth).map(Field::Value),
        }
    }

    /// Consumes a scalar or binary of type `ty`, or a container's header (returned). In
    /// containers a bool is one byte.
    pub(super) fn value(r: &mut Reader, ty: u8, depth: usize) -> Step<Option<Frame>> {
        check_depth(depth)?;
        match ty {
            1..=3 | 7 | 13 => r.take(min_size(ty)).map(|_| None),
            4..=6 => r.varint().map(|_| None),
            8 => {
                let n = r.len_varint()?;
                r.skip_declared(n).map(|()| None)
            }
            12 => Ok(Some(Frame::Struct)),
            9 | 10 => {
                let header = r.u8()?;
                let n = match header >> 4 {
                    15 => r.len_varint()?,
                    short => usize::from(short),
                };
                let elem = header & 0x0F;
                r.check_count(n, min_size(elem))?;
                r.check_reservation(n)?;
                Ok(Some(Frame::list(n, elem)))
            }
            11 => {
                let n = r.len_varint()?;
                if n == 0 {
                    return Ok(None);
                }
                let types = r.u8()?;
                let (key, value) = (types >> 4, types & 0x0F);
                r.check_count(n, min_size(key) + min_size(value))?;
                Frame::map(n, key, value).map(Some)
            }
            _ => Err(Stop::Bad(Fault::Bad("unknown compact-protocol type"))),
        }
    }

    /// Fewest bytes a value of type `ty` takes (fixed-size types: their size). Varints,
    /// binaries (their length), structs (their stop byte) and containers (their header) take
    /// at least one; unknown types count as 1: they fail when read.
    fn min_size(ty: u8) -> usize {
        match ty {
            7 => 8,
            13 => 16,
            _ => 1,
        }
    }
}

#[cfg(test)]
mod tests;
