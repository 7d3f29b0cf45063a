//! A hand-written reader for the replies that carry rows (`get`, `getMultiple`,
//! `getScannerRows`, `increment`, `append`), from the reply's bytes straight to the model's
//! rows.
//!
//! The generated reader builds a `TResult` of `TColumnValue`s through the `thrift` crate's
//! protocol objects (a virtual call and a small copy per token) and [`convert::row`] then moves
//! it into the model's types; this one walks the bytes once and notes where each key and each
//! cell's family, qualifier and value lie in the reply's buffer (a [`ScannerPage`], no copy). A
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
//!
//! | file | what |
//! | --- | --- |
//! | `mod.rs` | the shapes of the replies that carry rows, and reading a whole reply |
//! | `tokens.rs` | the tokens of both protocols, as this reader reads them |
//! | `arriving.rs` | [`PageReader`]: a scanner page read as it arrives |
//! | `tests.rs` | this reader against the generated one, and against the probe |

mod arriving;
mod tokens;

#[cfg(test)]
mod tests;

use bytes::Bytes;

use super::convert;
use super::generated::thbase::TResult;
use crate::backend::wire::probe::{message_len, Probe};
use crate::backend::wire::{ReplyReader, WireProtocol};
use crate::model::{Error, OutOfPage, Result, Row, ScannerPage, ScannerPageBuilder};
pub(crate) use arriving::PageReader;
use tokens::{bad, expect, skip, Binary, Compact, Kind, Reader, Ty, SKIP_DEPTH};
pub(crate) use tokens::{Halt, Step, Wire};

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

/// A list of `TResult`s of which only those with a key are rows, kept as a [`ScannerPage`] over the
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
        let mut page = ScannerPageBuilder::new(1, 0);
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
        let mut page = ScannerPageBuilder::new(room, 0);
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
    type Reply = ScannerPage;
    type Generated = Vec<TResult>;
    const TY: Ty = Ty::List;

    fn convert(generated: Vec<TResult>) -> thrift::Result<ScannerPage> {
        ScannerPage::from_rows(generated.into_iter().filter_map(convert::row).collect()).map_err(
            |_| {
                thrift::Error::Protocol(thrift::ProtocolError::new(
                    thrift::ProtocolErrorKind::SizeLimit,
                    "the rows of the reply hold over 4 GiB, more than one page can",
                ))
            },
        )
    }

    fn read<W: Wire>(r: &mut Reader<'_>, owner: &Bytes) -> Step<ScannerPage> {
        let n = results_header::<W>(r)?;
        let mut page = ScannerPageBuilder::new(n.min(r.remaining() / W::MIN_RESULT), 0);
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
    ) -> Option<Arriving<ScannerPage>> {
        Some(match protocol {
            WireProtocol::Binary => Box::new(PageReader::<Binary>::new(method, seq, limit)),
            WireProtocol::Compact => Box::new(PageReader::<Compact>::new(method, seq, limit)),
        })
    }
}

/// A required field the struct did not have.
fn missing(field: &str) -> Halt {
    bad(format!("missing required field {field}"))
}

/// Reads the message header of a reply answering `method`#`seq`: an exception message goes to
/// the generated reader, any other message that is not that reply is malformed.
fn answer_header<W: Wire>(r: &mut Reader<'_>, method: &str, seq: i32) -> Step<()> {
    let header = W::header(r)?;
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
    Ok(())
}

/// Reads a whole reply message answering `method`#`seq` whose success value has shape `S`.
fn reply<W: Wire, S: Shape>(bytes: &Bytes, method: &str, seq: i32) -> Step<S::Reply> {
    let mut r = Reader::whole(bytes);
    answer_header::<W>(&mut r, method, seq)?;
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
fn result<W: Wire>(r: &mut Reader<'_>, page: &mut ScannerPageBuilder) -> Step<bool> {
    let mut last = 0;
    let mut key = None;
    let mut cells = false;
    while let Some((id, ty)) = W::field(r, &mut last)? {
        match id {
            1 => key = Some(binary_field::<W>(r, ty, "TResult.row")?),
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
fn finish(page: ScannerPageBuilder, owner: &Bytes) -> Step<ScannerPage> {
    page.finish(owner.clone()).map_err(too_far)
}

/// A part of the reply the page cannot point at: past its first 4 GiB (or past its end, which
/// no reply read here reaches).
fn too_far(_: OutOfPage) -> Halt {
    bad("a row of the reply lies past its first 4 GiB")
}

/// Reads a field that must be binary (`what` names it in the error).
fn binary_field<'a, W: Wire>(r: &mut Reader<'a>, ty: Ty, what: &str) -> Step<&'a [u8]> {
    expect(ty, Ty::Binary, what)?;
    W::binary(r)
}

/// Reads a `TColumnValue` as a cell of the row `page` is reading (no timestamp: 0).
fn cell<W: Wire>(r: &mut Reader<'_>, page: &mut ScannerPageBuilder) -> Step<()> {
    let mut last = 0;
    let (mut family, mut qualifier, mut value, mut timestamp) = (None, None, None, None);
    while let Some((id, ty)) = W::field(r, &mut last)? {
        match id {
            1 => family = Some(binary_field::<W>(r, ty, "TColumnValue.family")?),
            2 => qualifier = Some(binary_field::<W>(r, ty, "TColumnValue.qualifier")?),
            3 => value = Some(binary_field::<W>(r, ty, "TColumnValue.value")?),
            4 => {
                expect(ty, Ty::I64, "TColumnValue.timestamp")?;
                timestamp = Some(W::i64(r)?);
            }
            5 => {
                binary_field::<W>(r, ty, "TColumnValue.tags")?;
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
