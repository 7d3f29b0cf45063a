//! A hand-written reader for the replies that carry rows (`get`, `getMultiple`,
//! `getScannerRows`, `increment`, `append`), from the reply's bytes straight to the model's
//! rows.
//!
//! The generated reader builds a `TResult` of `TColumnValue`s through the `thrift` crate's
//! protocol objects (a virtual call and a small copy per token) and [`convert::row`] then moves
//! it into the model's types; this one walks the bytes once and notes where each key and each
//! cell's family, qualifier and value lie in the reply's buffer (a [`Page`], no copy). A
//! scanner page is returned as that page; the other replies as [`Row`]s whose cells are slices
//! of the buffer. It gives the same rows and the same `None`s.
//!
//! Anything but a successful reply goes back to the generated reader: an exception message,
//! a result struct carrying a declared exception (field 1 `io`, field 2 `ia`), a result struct
//! with no success value. Those are rare and keep their classification exactly as
//! the generated reader (`rpc::decode`) makes it.
//!
//! It follows the `thrift` crate's reading of both protocols token for token (varint lengths,
//! compact field-id deltas, how deep an unknown field may nest), with these differences, all on
//! bytes no Thrift writer produces from HBase's IDL (the last two are bytes the probe refuses
//! too):
//!
//! - a known field (or the elements of a known list) whose wire type is not the IDL's is an
//!   error here; the generated reader reads it as the IDL's type whatever the bytes say, and
//!   other Thrift implementations skip it, which would drop a row's key without a word;
//! - a message that is not a reply (a call or one-way message answering a call) is an error
//!   here; the generated reader reads it as a reply;
//! - an unknown `string`/`binary` field is skipped without checking that it is UTF-8, which the
//!   `thrift` crate's `skip` does (and fails on);
//! - a compact field header of type 0 is a stop only as a zero byte;
//! - a compact length or count past `i32::MAX` is an error, not cut to its low 32 bits.
//!
//! A whole reply has been probed before it is read ([`probe`](crate::backend::wire::probe));
//! a scanner page on an unframed connection is read as it arrives, in place of the probe
//! ([`PageReader`]). Nothing here relies on the probe: every length is checked against the
//! bytes left before it is used, and no reservation is sized by a declared count beyond what the bytes left could hold
//! (the page's one cell list grows by `Vec`'s doubling past that, to at most twice the cells
//! the reply holds). Rows are noted as 32-bit offsets: a reply whose rows lie past its first
//! 4 GiB is refused (only an unframed reply under a `max_reply_bytes` above 4 GiB can be one).

use bytes::Bytes;

use super::convert;
use super::generated::thbase::TResult;
use crate::backend::wire::probe::{message_len, Probe, ELEMENT_WEIGHT};
use crate::backend::wire::{Feed, ReplyReader, WireProtocol};
use crate::model::{Error, OutOfPage, Page, PageBuilder, Result, Row};

/// How deep an unknown field may nest, counting itself: the `thrift` crate's `skip` limit.
const SKIP_DEPTH: u8 = 64;

/// Reads the reply to call `method`#`seq`, whose success value has shape `S`: the lean way if
/// it is a successful reply, with `generated` (the generated reader, `rpc::decode`) otherwise.
pub(crate) fn decode<S: Shape>(
    protocol: WireProtocol,
    method: &'static str,
    seq: i32,
    bytes: &Bytes,
    generated: impl FnOnce() -> Result<S::Reply>,
) -> Result<S::Reply> {
    let lean = match protocol {
        WireProtocol::Binary => reply::<Binary, S>(bytes, method, seq),
        WireProtocol::Compact => reply::<Compact, S>(bytes, method, seq),
    };
    let bad = |message| Error::Protocol { method, message };
    match lean {
        Ok(reply) => Ok(reply),
        // The generated reader trusts the lengths and counts the probe checked (a negative
        // one is an allocation failure to it): it only gets a message that passes.
        Err(Halt::Generated) if message_len(protocol, bytes) != Probe::Complete(bytes.len()) => {
            Err(bad("the reply is not one well-formed message".into()))
        }
        Err(Halt::Generated) => generated(),
        Err(Halt::Bad(message)) => Err(bad(message)),
        Err(Halt::Short) => Err(bad("the reply ends inside a value".into())),
    }
}

/// The success value (field 0 of the result struct) of a method that returns rows: how it is
/// laid out, and what the call returns for it.
pub(crate) trait Shape {
    /// What the call returns.
    type Reply;
    /// The success value as the generated reader returns it.
    type Generated;
    /// The success value's wire type.
    const TY: Ty;
    /// Turns the generated success value into the reply (the generated path).
    fn convert(generated: Self::Generated) -> thrift::Result<Self::Reply>;
    /// Reads the success value, its field header already read; `owner` is the whole reply.
    fn read<W: Wire>(r: &mut Reader<'_>, owner: &Bytes) -> Step<Self::Reply>;
    /// A reader of the reply as it arrives, if the shape has one (see [`PageReader`]).
    fn reader(_: WireProtocol, _: &'static str, _: i32, _: usize) -> Option<Arriving<Self::Reply>> {
        None
    }
}

/// A reader of a reply as it arrives, boxed for the connection.
pub(crate) type Arriving<T> = Box<dyn ReplyReader<T>>;

/// One `TResult`: the row, `None` if it has no key (`get`, `increment`, `append`).
pub(crate) struct OneRow;

/// A list of `TResult`s, one per request: `None` for each without a key (`getMultiple`).
pub(crate) struct RowPerGet;

/// A list of `TResult`s of which only those with a key are rows, kept as a [`Page`] over the
/// reply's buffer (`getScannerRows`).
pub(crate) struct ScannedRows;

impl Shape for OneRow {
    type Reply = Option<Row>;
    type Generated = TResult;
    const TY: Ty = Ty::Struct;

    fn convert(generated: TResult) -> thrift::Result<Option<Row>> {
        Ok(convert::row(generated))
    }

    fn read<W: Wire>(r: &mut Reader<'_>, owner: &Bytes) -> Step<Option<Row>> {
        let mut page = PageBuilder::new(1, 0);
        result::<W>(r, &mut page)?;
        Ok(finish(page, owner)?.into_rows().pop())
    }
}

impl Shape for RowPerGet {
    type Reply = Vec<Option<Row>>;
    type Generated = Vec<TResult>;
    const TY: Ty = Ty::List;

    fn convert(generated: Vec<TResult>) -> thrift::Result<Vec<Option<Row>>> {
        Ok(generated.into_iter().map(convert::row).collect())
    }

    fn read<W: Wire>(r: &mut Reader<'_>, owner: &Bytes) -> Step<Vec<Option<Row>>> {
        let n = results_header::<W>(r)?;
        let room = n.min(r.remaining() / W::MIN_RESULT);
        let mut page = PageBuilder::new(room, 0);
        let mut found = Vec::with_capacity(room);
        for _ in 0..n {
            found.push(result::<W>(r, &mut page)?);
        }
        let mut rows = finish(page, owner)?.into_rows().into_iter();
        Ok(found
            .into_iter()
            .map(|has_key| if has_key { rows.next() } else { None })
            .collect())
    }
}

impl Shape for ScannedRows {
    type Reply = Page;
    type Generated = Vec<TResult>;
    const TY: Ty = Ty::List;

    fn convert(generated: Vec<TResult>) -> thrift::Result<Page> {
        Page::from_rows(generated.into_iter().filter_map(convert::row).collect()).map_err(|_| {
            thrift::Error::Protocol(thrift::ProtocolError::new(
                thrift::ProtocolErrorKind::SizeLimit,
                "the rows of the reply hold over 4 GiB, more than one page can",
            ))
        })
    }

    fn read<W: Wire>(r: &mut Reader<'_>, owner: &Bytes) -> Step<Page> {
        let n = results_header::<W>(r)?;
        let mut page = PageBuilder::new(n.min(r.remaining() / W::MIN_RESULT), 0);
        for _ in 0..n {
            result::<W>(r, &mut page)?;
        }
        finish(page, owner)
    }

    fn reader(
        protocol: WireProtocol,
        method: &'static str,
        seq: i32,
        limit: usize,
    ) -> Option<Arriving<Page>> {
        Some(match protocol {
            WireProtocol::Binary => Box::new(PageReader::<Binary>::new(method, seq, limit)),
            WireProtocol::Compact => Box::new(PageReader::<Compact>::new(method, seq, limit)),
        })
    }
}

/// Why the lean reading of a reply stopped.
pub(crate) enum Halt {
    /// The bytes end inside a value.
    Short,
    /// The bytes are not a valid reply; the text says why.
    Bad(String),
    /// The reply is one the generated reader reads and classifies: an exception, or no result.
    Generated,
}

/// The outcome of reading part of a reply.
pub(crate) type Step<T> = std::result::Result<T, Halt>;

/// A malformed reply.
fn bad(why: impl Into<String>) -> Halt {
    Halt::Bad(why.into())
}

/// The bytes end inside a value.
fn short() -> Halt {
    Halt::Short
}

/// A required field the struct did not have.
fn missing(field: &str) -> Halt {
    bad(format!("missing required field {field}"))
}

/// Fails unless `found`, the wire type of `what`, is `want`.
fn expect(found: Ty, want: Ty, what: &str) -> Step<()> {
    let same = found == want || (found == Ty::BoolInHeader && want == Ty::Bool);
    if same {
        return Ok(());
    }
    Err(bad(format!(
        "{what} has the wrong wire type: {found:?}, not {want:?}"
    )))
}

/// A value's type as the wire names it, the same for both protocols.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    /// A bool whose value follows (binary protocol; compact inside containers).
    Bool,
    /// A bool whose value was its compact field header: nothing follows.
    BoolInHeader,
    /// An 8-bit integer.
    Byte,
    /// A 16-bit integer.
    I16,
    /// A 32-bit integer.
    I32,
    /// A 64-bit integer.
    I64,
    /// A 64-bit float.
    Double,
    /// A `binary` or `string`.
    Binary,
    /// A struct: fields up to a stop.
    Struct,
    /// A map.
    Map,
    /// A set.
    Set,
    /// A list.
    List,
    /// A type that names no value that can be read or skipped, as a container's element type
    /// (stop; in the binary protocol also void, UTF-8 and UTF-16): only an empty container of
    /// it can be read.
    Unreadable,
}

/// The kind of message, from its header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A call.
    Call,
    /// A reply: a result struct follows.
    Reply,
    /// An application exception.
    Exception,
    /// A one-way call.
    Oneway,
}

impl Kind {
    /// The kind numbered `n` on the wire.
    fn from_wire(n: u8) -> Step<Kind> {
        match n {
            1 => Ok(Kind::Call),
            2 => Ok(Kind::Reply),
            3 => Ok(Kind::Exception),
            4 => Ok(Kind::Oneway),
            _ => Err(bad(format!("unknown message type {n}"))),
        }
    }
}

/// A message header.
pub(crate) struct Header<'a> {
    /// The method name, as sent.
    name: &'a [u8],
    /// What the message is.
    kind: Kind,
    /// The sequence number.
    seq: i32,
}

/// A read position in one reply message.
pub(crate) struct Reader<'a> {
    /// The message's bytes (so far, for a reply still arriving).
    buf: &'a [u8],
    /// Offset of the next byte to read.
    pos: usize,
    /// For a reply still arriving, which the probe has not walked: the longest message
    /// accepted. `None` for a whole reply the probe walked.
    arriving: Option<usize>,
    /// Where the value the bytes ended inside would end (after a [`Halt::Short`]).
    wanted: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `buf`, a whole reply the probe walked.
    fn whole(buf: &'a [u8]) -> Reader<'a> {
        Reader {
            buf,
            pos: 0,
            arriving: None,
            wanted: 0,
        }
    }

    /// A reader at the start of `buf`, the part of a reply of at most `limit` bytes that has
    /// arrived.
    fn arriving(buf: &'a [u8], limit: usize) -> Reader<'a> {
        Reader {
            arriving: Some(limit),
            ..Reader::whole(buf)
        }
    }

    /// For a reply still arriving, fails if a list of `n` elements of at least `min` bytes,
    /// starting here, could not end within the limit, or reserving `n` elements of
    /// [`ELEMENT_WEIGHT`] bytes would pass it: the probe's checks, or stricter ones (its
    /// smallest element is one byte).
    fn check_list(&self, n: usize, min: usize) -> Step<()> {
        let Some(limit) = self.arriving else {
            return Ok(());
        };
        let end = n.saturating_mul(min).saturating_add(self.pos);
        if end > limit || n.saturating_mul(ELEMENT_WEIGHT) > limit {
            return Err(bad(format!(
                "a list of {n} elements passes the reply limit"
            )));
        }
        Ok(())
    }

    /// Bytes not read yet.
    fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.pos)
    }

    /// Consumes the next `n` bytes.
    fn take(&mut self, n: usize) -> Step<&'a [u8]> {
        let end = self.pos.saturating_add(n);
        let Some(bytes) = self.buf.get(self.pos..end) else {
            self.wanted = end;
            return Err(short());
        };
        self.pos = end;
        Ok(bytes)
    }

    /// Consumes the next `N` bytes.
    fn array<const N: usize>(&mut self) -> Step<[u8; N]> {
        self.take(N)?.try_into().map_err(|_| short())
    }

    /// Consumes one byte.
    fn u8(&mut self) -> Step<u8> {
        let Some(&b) = self.buf.get(self.pos) else {
            self.wanted = self.pos + 1;
            return Err(short());
        };
        self.pos += 1;
        Ok(b)
    }

    /// Consumes an unsigned LEB128 varint of at most `max` bytes, as the `thrift` crate reads
    /// them: a longer one is an error, bits past the 64th are dropped.
    fn varint(&mut self, max: u32) -> Step<u64> {
        let mut v = 0u64;
        for i in 0..max {
            let b = self.u8()?;
            v |= u64::from(b & 0x7F).checked_shl(7 * i).unwrap_or(0);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(bad("a varint runs past its longest encoding"))
    }
}

/// Undoes the zigzag mapping of signed integers to unsigned ones.
fn zigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// A count read as a signed 32-bit integer; a negative one is malformed.
fn count(n: i32) -> Step<usize> {
    usize::try_from(n).map_err(|_| bad(format!("negative length {n}")))
}

/// One protocol's encoding of the tokens a reply is made of.
pub(crate) trait Wire {
    /// Fewest bytes a `TColumnValue` takes: its three required binaries and its stop.
    const MIN_CELL: usize;
    /// Fewest bytes a `TResult` takes: its list of cells and its stop.
    const MIN_RESULT: usize;
    /// Reads the message header.
    fn header<'a>(r: &mut Reader<'a>) -> Step<Header<'a>>;
    /// Reads a field header: its id and type, or `None` at the struct's stop. `last` is the
    /// previous field's id in the struct (0 at its start), which the compact protocol's ids
    /// are deltas from; it becomes this field's.
    fn field(r: &mut Reader<'_>, last: &mut i16) -> Step<Option<(i16, Ty)>>;
    /// Reads a list's or set's header: element type and count.
    fn list(r: &mut Reader<'_>) -> Step<(Ty, usize)>;
    /// Reads a map's header: key type, value type and count.
    fn map(r: &mut Reader<'_>) -> Step<(Ty, Ty, usize)>;
    /// Reads a binary, borrowed from the message.
    fn binary<'a>(r: &mut Reader<'a>) -> Step<&'a [u8]>;
    /// Reads a 64-bit integer.
    fn i64(r: &mut Reader<'_>) -> Step<i64>;
    /// Skips a scalar of type `ty` (not a binary, container or unreadable type).
    fn skip_scalar(r: &mut Reader<'_>, ty: Ty) -> Step<()>;
}

/// The strict binary protocol: big-endian fixed-size integers, `i32` lengths.
pub(crate) struct Binary;

impl Binary {
    /// The type numbered `b` in the binary protocol (stop only as an element type).
    fn ty(b: u8) -> Step<Ty> {
        Ok(match b {
            0 | 1 | 16 | 17 => Ty::Unreadable,
            2 => Ty::Bool,
            3 => Ty::Byte,
            4 => Ty::Double,
            6 => Ty::I16,
            8 => Ty::I32,
            10 => Ty::I64,
            11 => Ty::Binary,
            12 => Ty::Struct,
            13 => Ty::Map,
            14 => Ty::Set,
            15 => Ty::List,
            _ => return Err(bad(format!("unknown binary-protocol type {b}"))),
        })
    }

    /// Reads a big-endian `i32`.
    fn i32(r: &mut Reader<'_>) -> Step<i32> {
        r.array().map(i32::from_be_bytes)
    }
}

impl Wire for Binary {
    const MIN_CELL: usize = 3 * (3 + 4) + 1;
    const MIN_RESULT: usize = 3 + 5 + 1;

    fn header<'a>(r: &mut Reader<'a>) -> Step<Header<'a>> {
        let [v0, v1, _, kind] = r.array()?;
        if v0 & 0x80 == 0 {
            return Err(bad("not a strict binary-protocol message: no version"));
        }
        if [v0, v1] != [0x80, 0x01] {
            return Err(bad(format!("binary-protocol version {v0:#04x}{v1:02x}")));
        }
        let kind = Kind::from_wire(kind)?;
        let name = Self::binary(r)?;
        let seq = Self::i32(r)?;
        Ok(Header { name, kind, seq })
    }

    fn field(r: &mut Reader<'_>, last: &mut i16) -> Step<Option<(i16, Ty)>> {
        let b = r.u8()?;
        if b == 0 {
            return Ok(None);
        }
        let ty = Self::ty(b)?;
        *last = i16::from_be_bytes(r.array()?);
        Ok(Some((*last, ty)))
    }

    fn list(r: &mut Reader<'_>) -> Step<(Ty, usize)> {
        let elem = Self::ty(r.u8()?)?;
        let n = count(Self::i32(r)?)?;
        Ok((elem, n))
    }

    fn map(r: &mut Reader<'_>) -> Step<(Ty, Ty, usize)> {
        let key = Self::ty(r.u8()?)?;
        let value = Self::ty(r.u8()?)?;
        let n = count(Self::i32(r)?)?;
        Ok((key, value, n))
    }

    fn binary<'a>(r: &mut Reader<'a>) -> Step<&'a [u8]> {
        let n = count(Self::i32(r)?)?;
        r.take(n)
    }

    fn i64(r: &mut Reader<'_>) -> Step<i64> {
        r.array().map(i64::from_be_bytes)
    }

    fn skip_scalar(r: &mut Reader<'_>, ty: Ty) -> Step<()> {
        let n = match ty {
            Ty::Bool | Ty::BoolInHeader | Ty::Byte => 1,
            Ty::I16 => 2,
            Ty::I32 => 4,
            Ty::I64 | Ty::Double => 8,
            other => return Err(bad(format!("{other:?} is not a scalar"))),
        };
        r.take(n).map(drop)
    }
}

/// The compact protocol: zigzag varints, field-id deltas, bools in field headers.
pub(crate) struct Compact;

impl Compact {
    /// The type numbered `b` as a container's element type (a bool is then one byte).
    fn element_ty(b: u8) -> Step<Ty> {
        match b {
            0 => Ok(Ty::Unreadable),
            1 => Ok(Ty::Bool),
            2 => Err(bad("unknown compact-protocol element type 2")),
            _ => Self::ty(b),
        }
    }

    /// The type numbered `b` (3 to 12) in the compact protocol.
    fn ty(b: u8) -> Step<Ty> {
        Ok(match b {
            3 => Ty::Byte,
            4 => Ty::I16,
            5 => Ty::I32,
            6 => Ty::I64,
            7 => Ty::Double,
            8 => Ty::Binary,
            9 => Ty::List,
            10 => Ty::Set,
            11 => Ty::Map,
            12 => Ty::Struct,
            _ => return Err(bad(format!("unknown compact-protocol type {b}"))),
        })
    }

    /// Reads a varint of at most 5 bytes as the `thrift` crate reads a `u32` (lengths, counts,
    /// sequence numbers): the bits past the 32nd are dropped.
    fn u32(r: &mut Reader<'_>) -> Step<u32> {
        r.varint(5).map(|v| v as u32)
    }

    /// Reads a length or a container's element count. The `thrift` crate reads it as a `u32`
    /// (bits past the 32nd dropped) taken as an `i32`; the probe refuses any past `i32::MAX`,
    /// and so does this reader, before dropping anything.
    fn count(r: &mut Reader<'_>) -> Step<usize> {
        let n = r.varint(5)?;
        let n = i32::try_from(n).map_err(|_| bad(format!("length {n} over 2^31 - 1")))?;
        count(n)
    }
}

impl Wire for Compact {
    const MIN_CELL: usize = 3 * 2 + 1;
    const MIN_RESULT: usize = 3;

    fn header<'a>(r: &mut Reader<'a>) -> Step<Header<'a>> {
        let id = r.u8()?;
        if id != 0x82 {
            return Err(bad(format!("not a compact-protocol message: {id:#04x}")));
        }
        let version_and_kind = r.u8()?;
        if version_and_kind & 0x1F != 1 {
            return Err(bad(format!(
                "compact-protocol version {}",
                version_and_kind & 0x1F
            )));
        }
        let kind = Kind::from_wire(version_and_kind >> 5)?;
        let seq = Self::u32(r)? as i32;
        let name = Self::binary(r)?;
        Ok(Header { name, kind, seq })
    }

    fn field(r: &mut Reader<'_>, last: &mut i16) -> Step<Option<(i16, Ty)>> {
        let b = r.u8()?;
        let ty = match b & 0x0F {
            0 if b == 0 => return Ok(None),
            // The `thrift` crate reads any type 0 as a stop; the probe, and so this reader,
            // only a zero byte.
            0 => {
                return Err(bad(format!(
                    "field header {b:#04x}: type 0 with a field id"
                )))
            }
            1 | 2 => Ty::BoolInHeader,
            t => Self::ty(t)?,
        };
        let delta = b >> 4;
        *last = if delta == 0 {
            zigzag(r.varint(3)?) as i16
        } else {
            last.wrapping_add(i16::from(delta))
        };
        Ok(Some((*last, ty)))
    }

    fn list(r: &mut Reader<'_>) -> Step<(Ty, usize)> {
        let b = r.u8()?;
        let elem = Self::element_ty(b & 0x0F)?;
        let n = match b >> 4 {
            15 => Self::count(r)?,
            short => usize::from(short),
        };
        Ok((elem, n))
    }

    fn map(r: &mut Reader<'_>) -> Step<(Ty, Ty, usize)> {
        let n = Self::count(r)?;
        if n == 0 {
            return Ok((Ty::Unreadable, Ty::Unreadable, 0));
        }
        let b = r.u8()?;
        Ok((Self::element_ty(b >> 4)?, Self::element_ty(b & 0x0F)?, n))
    }

    fn binary<'a>(r: &mut Reader<'a>) -> Step<&'a [u8]> {
        let n = Self::count(r)?;
        r.take(n)
    }

    fn i64(r: &mut Reader<'_>) -> Step<i64> {
        r.varint(10).map(zigzag)
    }

    fn skip_scalar(r: &mut Reader<'_>, ty: Ty) -> Step<()> {
        match ty {
            Ty::BoolInHeader => Ok(()),
            Ty::Bool => match r.u8()? {
                1 | 2 => Ok(()),
                b => Err(bad(format!("{b} is not a compact-protocol bool"))),
            },
            Ty::Byte => r.take(1).map(drop),
            Ty::I16 => r.varint(3).map(drop),
            Ty::I32 => r.varint(5).map(drop),
            Ty::I64 => r.varint(10).map(drop),
            Ty::Double => r.take(8).map(drop),
            other => Err(bad(format!("{other:?} is not a scalar"))),
        }
    }
}

/// Skips a value of type `ty` that may nest `depth` levels, itself included.
fn skip<W: Wire>(r: &mut Reader<'_>, ty: Ty, depth: u8) -> Step<()> {
    if r.arriving.is_some() {
        // A reply still arriving has only known fields (HBase sends no other): one that does
        // not goes to the probe and the whole-reply path, which nest unknown values the way
        // the probe allows.
        return Err(Halt::Generated);
    }
    let Some(inner) = depth.checked_sub(1) else {
        return Err(bad("an unknown field nests too deep"));
    };
    match ty {
        Ty::Binary => W::binary(r).map(drop),
        Ty::Struct => {
            let mut last = 0;
            while let Some((_, ty)) = W::field(r, &mut last)? {
                skip::<W>(r, ty, inner)?;
            }
            Ok(())
        }
        Ty::List | Ty::Set => {
            let (elem, n) = W::list(r)?;
            for _ in 0..n {
                skip::<W>(r, elem, inner)?;
            }
            Ok(())
        }
        Ty::Map => {
            let (key, value, n) = W::map(r)?;
            for _ in 0..n {
                skip::<W>(r, key, inner)?;
                skip::<W>(r, value, inner)?;
            }
            Ok(())
        }
        Ty::Unreadable => Err(bad("an unknown field holds a value of no readable type")),
        scalar => W::skip_scalar(r, scalar),
    }
}

/// Reads a whole reply message answering `method`#`seq` whose success value has shape `S`.
fn reply<W: Wire, S: Shape>(bytes: &Bytes, method: &str, seq: i32) -> Step<S::Reply> {
    let mut r = Reader::whole(bytes);
    let header = W::header(&mut r)?;
    if header.kind == Kind::Exception {
        return Err(Halt::Generated);
    }
    if header.name != method.as_bytes() || header.seq != seq {
        return Err(bad(format!(
            "reply {}#{} does not answer call {method}#{seq}",
            String::from_utf8_lossy(header.name),
            header.seq
        )));
    }
    if header.kind != Kind::Reply {
        return Err(bad(format!(
            "the answer to {method}#{seq} is a {:?} message, not a reply",
            header.kind
        )));
    }
    let mut last = 0;
    let mut success = None;
    while let Some((id, ty)) = W::field(&mut r, &mut last)? {
        match id {
            0 => {
                expect(ty, S::TY, "the result")?;
                success = Some(S::read::<W>(&mut r, bytes)?);
            }
            // The declared exceptions.
            1 | 2 => return Err(Halt::Generated),
            _ => skip::<W>(&mut r, ty, SKIP_DEPTH)?,
        }
    }
    success.ok_or(Halt::Generated)
}

/// Reads the header of a list of `TResult`s: its length.
fn results_header<W: Wire>(r: &mut Reader<'_>) -> Step<usize> {
    let (elem, n) = W::list(r)?;
    expect(elem, Ty::Struct, "an element of the result")?;
    Ok(n)
}

/// Reads a `TResult` into `page`: a row if it has a key, not empty; says whether it had.
fn result<W: Wire>(r: &mut Reader<'_>, page: &mut PageBuilder) -> Step<bool> {
    let mut last = 0;
    let mut key = None;
    let mut cells = false;
    while let Some((id, ty)) = W::field(r, &mut last)? {
        match id {
            1 => {
                expect(ty, Ty::Binary, "TResult.row")?;
                key = Some(W::binary(r)?);
            }
            2 => {
                expect(ty, Ty::List, "TResult.columnValues")?;
                let (elem, n) = W::list(r)?;
                expect(elem, Ty::Struct, "an element of TResult.columnValues")?;
                r.check_list(n, W::MIN_CELL)?;
                // A second cell list replaces the first, as in the generated reader.
                page.restart_row();
                page.reserve_cells(n.min(r.remaining() / W::MIN_CELL));
                for _ in 0..n {
                    cell::<W>(r, page)?;
                }
                cells = true;
            }
            3 | 4 => {
                expect(ty, Ty::Bool, "TResult.stale or TResult.partial")?;
                W::skip_scalar(r, ty)?;
            }
            _ => skip::<W>(r, ty, SKIP_DEPTH)?,
        }
    }
    if !cells {
        return Err(missing("TResult.column_values"));
    }
    let key = key.filter(|k: &&[u8]| !k.is_empty());
    page.end_row(r.buf, key).map_err(too_far)?;
    Ok(key.is_some())
}

/// The page over the whole reply `owner`.
fn finish(page: PageBuilder, owner: &Bytes) -> Step<Page> {
    page.finish(owner.clone()).map_err(too_far)
}

/// A part of the reply the page cannot point at: past its first 4 GiB (or past its end, which
/// no reply read here reaches).
fn too_far(_: OutOfPage) -> Halt {
    bad("a row of the reply lies past its first 4 GiB")
}

/// Reads a `TColumnValue` as a cell of the row `page` is reading (no timestamp: 0).
fn cell<W: Wire>(r: &mut Reader<'_>, page: &mut PageBuilder) -> Step<()> {
    let mut last = 0;
    let (mut family, mut qualifier, mut value, mut timestamp) = (None, None, None, None);
    while let Some((id, ty)) = W::field(r, &mut last)? {
        match id {
            1 => {
                expect(ty, Ty::Binary, "TColumnValue.family")?;
                family = Some(W::binary(r)?);
            }
            2 => {
                expect(ty, Ty::Binary, "TColumnValue.qualifier")?;
                qualifier = Some(W::binary(r)?);
            }
            3 => {
                expect(ty, Ty::Binary, "TColumnValue.value")?;
                value = Some(W::binary(r)?);
            }
            4 => {
                expect(ty, Ty::I64, "TColumnValue.timestamp")?;
                timestamp = Some(W::i64(r)?);
            }
            5 => {
                expect(ty, Ty::Binary, "TColumnValue.tags")?;
                W::binary(r)?;
            }
            6 => {
                expect(ty, Ty::Byte, "TColumnValue.type")?;
                W::skip_scalar(r, ty)?;
            }
            _ => skip::<W>(r, ty, SKIP_DEPTH)?,
        }
    }
    let family = family.ok_or_else(|| missing("TColumnValue.family"))?;
    let qualifier = qualifier.ok_or_else(|| missing("TColumnValue.qualifier"))?;
    let value = value.ok_or_else(|| missing("TColumnValue.value"))?;
    page.cell(
        r.buf,
        family,
        qualifier,
        value,
        timestamp.unwrap_or_default(),
    )
    .map_err(too_far)
}

/// Reads a `getScannerRows` reply on an unframed connection as its bytes arrive, a row at a
/// time, instead of the probe finding its end and the whole-reply reader reading it again.
///
/// It reads only what a successful reply from HBase is: the reply header, field 0 holding the
/// list of `TResult`s, the result struct's stop. Each `TResult` is read by the same code as
/// the whole-reply reader. A row cut by the end of the bytes so far is read again from its
/// start when more arrive. Anything else (an exception, a declared exception, an unknown
/// field, a malformed value, a list or value the limit would refuse) gives the reply up to
/// the probe and the whole-reply path, from its first byte, so errors are exactly theirs; a
/// reply it reads whole is one the probe would find complete at the same byte.
pub(crate) struct PageReader<W> {
    method: &'static str,
    seq: i32,
    limit: usize,
    stage: Stage,
    page: PageBuilder,
    /// Bytes read again so far: those of rows (or the header) cut by the end of a feed.
    reread: usize,
    wire: std::marker::PhantomData<W>,
}

/// Bytes a [`PageReader`] may read again, beyond [`REREAD_PER_BYTE`] times as many as the reply
/// has so far, before it gives the reply to the probe: a row longer than many reads would
/// otherwise be read from its start at each, in time quadratic in its length; this keeps the
/// reader's work linear. Rows shorter than a read are read again once at most.
const REREAD_ALLOWANCE: usize = 64 * 1024;

/// See [`REREAD_ALLOWANCE`]: reads of a few bytes each may read a row's first bytes again a few
/// times over.
const REREAD_PER_BYTE: usize = 4;

/// How far a [`PageReader`] has read.
#[derive(Clone, Copy, Debug)]
enum Stage {
    /// Nothing yet: the header and the list's header come next.
    Start,
    /// `left` rows remain, the next at byte `at`.
    Rows { at: usize, left: usize },
    /// The rows are read; the result struct's stop is at byte `at`.
    End { at: usize },
}

impl<W: Wire> PageReader<W> {
    /// A reader of the reply to call `method`#`seq`, of at most `limit` bytes.
    fn new(method: &'static str, seq: i32, limit: usize) -> PageReader<W> {
        PageReader {
            method,
            seq,
            limit,
            stage: Stage::Start,
            page: PageBuilder::default(),
            reread: 0,
            wire: std::marker::PhantomData,
        }
    }

    /// Reads on from where the last feed stopped; the reply's length once it is all read.
    fn read_on(&mut self, r: &mut Reader<'_>) -> Step<usize> {
        loop {
            match self.stage {
                Stage::Start => {
                    let header = W::header(r)?;
                    let answers = header.kind == Kind::Reply
                        && header.name == self.method.as_bytes()
                        && header.seq == self.seq;
                    let mut last = 0;
                    if !answers || W::field(r, &mut last)? != Some((0, Ty::List)) {
                        return Err(Halt::Generated);
                    }
                    let n = results_header::<W>(r)?;
                    r.check_list(n, W::MIN_RESULT)?;
                    self.page = PageBuilder::new(n.min(r.remaining() / W::MIN_RESULT), 0);
                    self.stage = Stage::Rows { at: r.pos, left: n };
                }
                Stage::Rows { at, left: 0 } => self.stage = Stage::End { at },
                Stage::Rows { at, left } => {
                    r.pos = at;
                    if let Err(halt) = result::<W>(r, &mut self.page) {
                        self.page.restart_row();
                        return Err(halt);
                    }
                    self.stage = Stage::Rows {
                        at: r.pos,
                        left: left - 1,
                    };
                }
                Stage::End { at } => {
                    r.pos = at;
                    // Field 0's id is what the compact protocol's next id is a delta from.
                    let mut last = 0;
                    return match W::field(r, &mut last)? {
                        None if r.pos <= self.limit => Ok(r.pos),
                        _ => Err(Halt::Generated),
                    };
                }
            }
        }
    }
}

impl<W: Wire + Send + 'static> ReplyReader<Page> for PageReader<W> {
    fn feed(&mut self, buf: &[u8]) -> Feed {
        let mut r = Reader::arriving(buf, self.limit);
        match self.read_on(&mut r) {
            Ok(end) => Feed::Done(end),
            // The probe refuses a value declared past the limit before its bytes come.
            Err(Halt::Short) if r.wanted <= self.limit => {
                // What this feed read of the row (or header) it stopped in is read again next
                // time, from where that starts.
                let cut_at = match self.stage {
                    Stage::Start => 0,
                    Stage::Rows { at, .. } | Stage::End { at } => at,
                };
                self.reread += r.pos.saturating_sub(cut_at);
                let allowed = buf
                    .len()
                    .saturating_mul(REREAD_PER_BYTE)
                    .saturating_add(REREAD_ALLOWANCE);
                match self.reread > allowed {
                    true => Feed::GiveUp,
                    false => Feed::More,
                }
            }
            Err(_) => Feed::GiveUp,
        }
    }

    fn finish(self: Box<Self>, reply: &Bytes) -> Result<Page> {
        self.page
            .finish(reply.clone())
            .map_err(|e| e.error(self.method))
    }
}
