//! The tokens of a reply in both protocols as the row reader reads them: a read position
//! ([`Reader`]), each protocol's encoding ([`Wire`]: [`Binary`], [`Compact`]), skipping an
//! unknown value, and why reading stopped ([`Halt`]).

use crate::backend::wire::probe::ELEMENT_WEIGHT;

/// How deep an unknown field may nest, counting itself: the `thrift` crate's `skip` limit.
pub(super) const SKIP_DEPTH: u8 = 64;

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
pub(super) fn bad(why: impl Into<String>) -> Halt {
    Halt::Bad(why.into())
}

/// The bytes end inside a value.
pub(super) fn short() -> Halt {
    Halt::Short
}

/// Fails unless `found`, the wire type of `what`, is `want`.
pub(super) fn expect(found: Ty, want: Ty, what: &str) -> Step<()> {
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
    pub(super) name: &'a [u8],
    /// What the message is.
    pub(super) kind: Kind,
    /// The sequence number.
    pub(super) seq: i32,
}

/// A read position in one reply message.
pub(crate) struct Reader<'a> {
    /// The message's bytes (so far, for a reply still arriving).
    pub(super) buf: &'a [u8],
    /// Offset of the next byte to read.
    pub(super) pos: usize,
    /// For a reply still arriving, which the probe has not walked: the longest message
    /// accepted. `None` for a whole reply the probe walked.
    pub(super) arriving: Option<usize>,
    /// Where the value the bytes ended inside would end (after a [`Halt::Short`]).
    pub(super) wanted: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `buf`, a whole reply the probe walked.
    pub(super) fn whole(buf: &'a [u8]) -> Reader<'a> {
        Reader {
            buf,
            pos: 0,
            arriving: None,
            wanted: 0,
        }
    }

    /// A reader at the start of `buf`, the part of a reply of at most `limit` bytes that has
    /// arrived.
    pub(super) fn arriving(buf: &'a [u8], limit: usize) -> Reader<'a> {
        Reader {
            arriving: Some(limit),
            ..Reader::whole(buf)
        }
    }

    /// For a reply still arriving, fails if a list of `n` elements of at least `min` bytes,
    /// starting here, could not end within the limit, or reserving `n` elements of
    /// [`ELEMENT_WEIGHT`] bytes would pass it: the probe's checks, or stricter ones (its
    /// smallest element is one byte).
    pub(super) fn check_list(&self, n: usize, min: usize) -> Step<()> {
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
    pub(super) fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.pos)
    }

    /// Consumes the next `n` bytes.
    pub(super) fn take(&mut self, n: usize) -> Step<&'a [u8]> {
        let end = self.pos.saturating_add(n);
        let Some(bytes) = self.buf.get(self.pos..end) else {
            self.wanted = end;
            return Err(short());
        };
        self.pos = end;
        Ok(bytes)
    }

    /// Consumes the next `N` bytes.
    pub(super) fn array<const N: usize>(&mut self) -> Step<[u8; N]> {
        self.take(N)?.try_into().map_err(|_| short())
    }

    /// Consumes one byte.
    pub(super) fn u8(&mut self) -> Step<u8> {
        let Some(&b) = self.buf.get(self.pos) else {
            self.wanted = self.pos + 1;
            return Err(short());
        };
        self.pos += 1;
        Ok(b)
    }

    /// Consumes an unsigned LEB128 varint of at most `max` bytes, as the `thrift` crate reads
    /// them: a longer one is an error, bits past the 64th are dropped.
    pub(super) fn varint(&mut self, max: u32) -> Step<u64> {
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
pub(super) fn zigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// A count read as a signed 32-bit integer; a negative one is malformed.
pub(super) fn count(n: i32) -> Step<usize> {
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
pub(super) fn skip<W: Wire>(r: &mut Reader<'_>, ty: Ty, depth: u8) -> Step<()> {
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
