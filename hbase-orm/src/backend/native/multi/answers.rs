//! A `Multi` reply read: each action's answer, checked against the call's actions.

use super::super::convert::Results;
use super::super::proto;
use super::super::regions::Region;
use super::super::rpc;
use super::{Answer, Part, METHOD};
use crate::model::{Error, Result};

/// An action of a call and its answer (`None`: to send again).
pub(super) type Answered = (usize, Option<Answer>);

/// Whether an action refused with exception `name` was not carried out and may be sent again:
/// its region moved (`relocate`: look it up again first), the server was busy, or the call's
/// reply had grown past the server's limit (`MultiActionResultTooLarge`: the actions after
/// the limit are refused, and go out again in the next round).
fn send_again(name: &str) -> Option<Relocate> {
    if rpc::MOVED.iter().any(|m| name.ends_with(m)) {
        Some(Relocate(true))
    } else if rpc::BUSY.iter().any(|m| name.ends_with(m))
        || name.ends_with("MultiActionResultTooLarge")
    {
        Some(Relocate(false))
    } else {
        None
    }
}

/// Whether an action sent again must look its region up first.
struct Relocate(bool);

/// The crate's error for an action's or a region's exception.
fn action_error(e: &proto::NameBytesPair) -> Error {
    let message = String::from_utf8_lossy(e.value.as_deref().unwrap_or_default());
    Error::from_server(METHOD, format!("{}: {message}", e.name), false)
}

/// The answer of an action refused with exception `e` in `region`: `None` to send it again
/// (its region noted in `moved` when it must be looked up first), else the error.
fn exception_answer<'r>(
    e: &proto::NameBytesPair,
    region: &'r Region,
    moved: &mut Vec<&'r Region>,
) -> Option<Answer> {
    match send_again(&e.name) {
        Some(Relocate(relocate)) => {
            if relocate {
                moved.push(region);
            }
            None
        }
        None => Some(Err(Box::new(action_error(e)))),
    }
}

/// Why a reply's message does not decode.
type Malformed = String;

/// Calls `field(tag, buf)` for each length-delimited field of the message `buf`, its bytes
/// in `buf`; skips the fields of other wire types. A field `field` names must be
/// length-delimited.
fn each_field<'a>(
    mut buf: &'a [u8],
    mut field: impl FnMut(u32, &'a [u8]) -> std::result::Result<(), Malformed>,
) -> std::result::Result<(), Malformed> {
    use prost::encoding::{decode_key, decode_varint, skip_field, DecodeContext, WireType};
    while !buf.is_empty() {
        let (tag, wire) = decode_key(&mut buf).map_err(|e| e.to_string())?;
        if wire != WireType::LengthDelimited {
            skip_field(wire, tag, &mut buf, DecodeContext::default()).map_err(|e| e.to_string())?;
            continue;
        }
        let len = decode_varint(&mut buf).map_err(|e| e.to_string())?;
        let len = usize::try_from(len)
            .ok()
            .filter(|&len| len <= buf.len())
            .ok_or_else(|| format!("field {tag} runs past the end of its message"))?;
        let (part, rest) = buf.split_at(len);
        buf = rest;
        field(tag, part)?;
    }
    Ok(())
}

/// One `ResultOrException` as read off the reply.
#[derive(Default)]
struct ActionReply {
    index: Option<u32>,
    result: Option<proto::Result>,
    exception: Option<proto::NameBytesPair>,
}

impl ActionReply {
    /// Reads fields 1 (`index`), 2 (`result`) and 3 (`exception`); leaves out the others
    /// (a coprocessor's result, load statistics), which no call of this client asks for.
    fn decode(mut buf: &[u8]) -> std::result::Result<ActionReply, Malformed> {
        use prost::encoding::{decode_key, decode_varint, skip_field, DecodeContext, WireType};
        use prost::Message;
        let mut reply = ActionReply::default();
        let bad = |e: prost::DecodeError| e.to_string();
        while !buf.is_empty() {
            let (tag, wire) = decode_key(&mut buf).map_err(bad)?;
            match (tag, wire) {
                (1, WireType::Varint) => {
                    // As protobuf reads a `uint32` sent wider: its low 32 bits.
                    reply.index = Some(decode_varint(&mut buf).map_err(bad)? as u32);
                }
                (2, WireType::LengthDelimited) => {
                    let result = reply.result.get_or_insert_with(Default::default);
                    result.merge_length_delimited(&mut buf).map_err(bad)?;
                }
                (3, WireType::LengthDelimited) => {
                    let exception = reply.exception.get_or_insert_with(Default::default);
                    exception.merge_length_delimited(&mut buf).map_err(bad)?;
                }
                (1..=3, wire) => {
                    return Err(format!("field {tag} of an answer has wire type {wire:?}"))
                }
                _ => skip_field(wire, tag, &mut buf, DecodeContext::default()).map_err(bad)?,
            }
        }
        Ok(reply)
    }
}

/// The answers of a `Multi` reply (`message`, a `MultiResponse`, and its cell block) to the
/// items of `parts` (`None`: send again), and the regions to look up again; an answer
/// naming an action the call did not hold, twice, or leaving one out is a protocol error.
/// An atomic part's item is answered by its region's answer as a whole: an error if the
/// region or any of its actions failed (nothing of it was applied), else done.
///
/// The reply is read as it is walked, without a message per answer: the answer to a put is a
/// few bytes, and a batch's answers would otherwise take a vector of large structs.
pub(super) fn read_answers<'r>(
    parts: &'r [Part],
    message: &[u8],
    block: &bytes::Bytes,
) -> Result<(Vec<Answered>, Vec<&'r Region>)> {
    let mut results = Results::new(block);
    // The items of the call not answered yet, each with its part's place in the call: each
    // answer must name one of its part's, once.
    let mut open = Open::of(parts);
    let mut out = Vec::with_capacity(open.left);
    let mut moved = Vec::new();
    let mut at = 0;
    // `MultiResponse.region_action_result`, field 1: one per region of the call, in order.
    each_field(message, |tag, region_reply| {
        if tag != 1 {
            return Ok(());
        }
        let Some(Part {
            region,
            items,
            atomic,
        }) = parts.get(at)
        else {
            return Ok(()); // More region answers than parts: ignored, as before.
        };
        let this = at;
        at += 1;
        // `RegionActionResult.exception`, field 2: the whole region refused, its actions were
        // not applied.
        let mut refused: Option<proto::NameBytesPair> = None;
        each_field(region_reply, |tag, part| {
            if tag == 2 {
                use prost::Message;
                let e = refused.get_or_insert_with(Default::default);
                e.merge(part).map_err(|e| e.to_string())?;
            }
            Ok(())
        })?;
        if let Some(e) = refused {
            for &i in items {
                open.remove(i);
            }
            if let Some(Relocate(relocate)) = send_again(&e.name) {
                if relocate {
                    moved.push(&**region);
                }
                out.extend(items.iter().map(|&i| (i, None)));
            } else {
                out.extend(
                    items
                        .iter()
                        .map(|&i| (i, Some(Err(Box::new(action_error(&e)))))),
                );
            }
            return Ok(());
        }
        if *atomic {
            // Its items' actions were applied all or none: the first exception of any of them
            // is every item's answer (indexes are not sent for them, so none is checked).
            let mut failed: Option<proto::NameBytesPair> = None;
            each_field(region_reply, |tag, part| {
                if tag == 1 {
                    if let Some(e) = ActionReply::decode(part)?.exception {
                        failed.get_or_insert(e);
                    }
                }
                Ok(())
            })?;
            for &i in items {
                open.remove(i);
                let answer = match &failed {
                    Some(e) => exception_answer(e, region, &mut moved),
                    None => Some(Ok(None)),
                };
                out.push((i, answer));
            }
            return Ok(());
        }
        // `RegionActionResult.result_or_exception`, field 1.
        each_field(region_reply, |tag, part| {
            if tag != 1 {
                return Ok(());
            }
            let r = ActionReply::decode(part)?;
            let i = r.index.unwrap_or(u32::MAX) as usize;
            if open.get(i) != Some(this) {
                return Err(format!(
                    "the server answered action {i}, which the region's part of the call did \
                     not hold or which was answered already"
                ));
            }
            open.remove(i);
            let row = match &r.result {
                Some(result) => results.row(result).map_err(|e| e.0)?,
                None => None,
            };
            let answer = match &r.exception {
                Some(e) => exception_answer(e, region, &mut moved),
                None => Some(Ok(row)),
            };
            out.push((i, answer));
            Ok(())
        })
    })
    .map_err(|m| rpc::protocol(METHOD, m))?;
    if open.left > 0 {
        return Err(rpc::protocol(
            METHOD,
            format!(
                "the server left {} of the call's actions unanswered",
                open.left
            ),
        ));
    }
    Ok((out, moved))
}

/// The actions of a call not answered yet, and each one's region's place in the call: sorted
/// by the action's index (a call holds at most [`ACTIONS_PER_CALL`], whatever the batch's
/// size).
struct Open {
    /// Per action of the call: its index, its region's place, whether it is still open.
    actions: Vec<(usize, usize, bool)>,
    left: usize,
}

impl Open {
    fn of(parts: &[Part]) -> Open {
        let mut actions: Vec<(usize, usize, bool)> = parts
            .iter()
            .enumerate()
            .flat_map(|(at, part)| part.items.iter().map(move |&i| (i, at, true)))
            .collect();
        actions.sort_unstable();
        let left = actions.len();
        Open { actions, left }
    }

    fn find(&self, i: usize) -> Option<usize> {
        self.actions.binary_search_by_key(&i, |a| a.0).ok()
    }

    /// The region's place of action `i`, if it is open.
    fn get(&self, i: usize) -> Option<usize> {
        let (_, at, open) = self.actions[self.find(i)?];
        open.then_some(at)
    }

    fn remove(&mut self, i: usize) {
        if let Some(k) = self.find(i) {
            if std::mem::replace(&mut self.actions[k].2, false) {
                self.left -= 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::part;
    use super::*;

    /// Any `Multi` reply to a call of six items in three parts (the last atomic), with any
    /// cell block: every item answered once, or a protocol error; never a panic.
    #[test]
    fn any_multi_reply_answers_each_action_once_or_is_an_error() {
        use super::super::super::cellblock::tests::arb_block;
        use super::super::super::convert::tests::arb_result;
        use proptest::prelude::*;
        let regions = vec![
            part("a", vec![0, 1, 2]),
            part("b", vec![3, 4]),
            Part {
                atomic: true,
                ..part("c", vec![5])
            },
        ];
        let names = prop_oneof![
            Just("org.apache.hadoop.hbase.NotServingRegionException".to_string()),
            Just("org.apache.hadoop.hbase.RegionTooBusyException".to_string()),
            Just("org.apache.hadoop.hbase.MultiActionResultTooLarge".to_string()),
            Just("java.io.IOException".to_string()),
            ".{0,8}",
        ];
        let pair =
            (names, any::<Option<Vec<u8>>>()).prop_map(|(name, value)| proto::NameBytesPair {
                name,
                value: value.map(Into::into),
            });
        let index = prop_oneof![(0u32..7).prop_map(Some), any::<Option<u32>>()];
        let answer = (
            index,
            proptest::option::of(arb_result()),
            proptest::option::of(pair.clone()),
        )
            .prop_map(|(index, result, exception)| proto::ResultOrException {
                index,
                result,
                exception,
                ..Default::default()
            });
        let region_answer = (
            proptest::collection::vec(answer, 0..5),
            proptest::option::of(pair),
        )
            .prop_map(
                |(result_or_exception, exception)| proto::RegionActionResult {
                    result_or_exception,
                    exception,
                    ..Default::default()
                },
            );
        let response =
            proptest::collection::vec(region_answer, 0..5).prop_map(|r| proto::MultiResponse {
                region_action_result: r,
                ..Default::default()
            });
        proptest::proptest!(|(response in response, block in arb_block())| {
            let message = prost::Message::encode_to_vec(&response);
            if let Ok((answers, moved)) = read_answers(&regions, &message, &block) {
                let mut indexes: Vec<usize> = answers.iter().map(|(i, _)| *i).collect();
                indexes.sort();
                prop_assert_eq!(indexes, (0..6).collect::<Vec<_>>());
                prop_assert!(moved.len() <= 6);
                for (_, answer) in answers {
                    if let Some(Ok(Some(row))) = answer {
                        // Each block cell takes 24 bytes or more; protobuf cells, 2 per result.
                        prop_assert!(row.cells.len() <= 2 + block.len() / 24);
                    }
                }
            }
        });
    }

    #[test]
    fn refused_actions_go_again_only_when_they_were_not_carried_out() {
        assert_eq!(
            send_again("org.apache.hadoop.hbase.MultiActionResultTooLarge").map(|r| r.0),
            Some(false)
        );
        assert_eq!(
            send_again("org.apache.hadoop.hbase.NotServingRegionException").map(|r| r.0),
            Some(true)
        );
        assert!(send_again("org.apache.hadoop.hbase.DoNotRetryIOException").is_none());
    }

    /// An answer read field by field is the `ResultOrException` prost reads, the fields this
    /// client never asks for left out; and no bytes at all make the reader panic.
    #[test]
    fn an_answer_reads_as_prost_reads_it_and_any_bytes_are_safe() {
        use super::super::super::convert::tests::arb_result;
        use proptest::prelude::*;
        let pair =
            (".{0,8}", any::<Option<Vec<u8>>>()).prop_map(|(name, value)| proto::NameBytesPair {
                name,
                value: value.map(Into::into),
            });
        let answer = (
            any::<Option<u32>>(),
            proptest::option::of(arb_result()),
            proptest::option::of(pair.clone()),
            proptest::option::of(pair),
            any::<Option<i32>>(),
        )
            .prop_map(|(index, result, exception, service, load)| {
                proto::ResultOrException {
                    index,
                    result,
                    exception,
                    service_result: service.map(|value| proto::CoprocessorServiceResult {
                        value: Some(value),
                    }),
                    #[allow(deprecated)] // the IDL marks it so; a server may still send it
                    load_stats: load.map(|l| proto::RegionLoadStats {
                        mem_store_load: Some(l),
                        ..Default::default()
                    }),
                }
            });
        proptest::proptest!(|(answer in answer, noise in proptest::collection::vec(any::<u8>(), 0..48))| {
            let bytes = prost::Message::encode_to_vec(&answer);
            let read = ActionReply::decode(&bytes).expect("a valid answer");
            prop_assert_eq!(read.index, answer.index);
            prop_assert_eq!(read.result, answer.result);
            prop_assert_eq!(read.exception, answer.exception);
            let _ = ActionReply::decode(&noise);
            let regions = vec![part("a", vec![0, 1])];
            let _ = read_answers(&regions, &noise, &bytes::Bytes::new());
        });
    }
}
