//! A `Multi` reply read: each action's answer, checked against the call's actions.

use std::sync::Arc;

use super::super::convert::Results;
use super::super::proto;
use super::super::regions::Region;
use super::super::rpc;
use super::{Answer, METHOD};
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
/// The answers of a `Multi` reply to the actions of `regions` (`None`: send again), and the
/// regions to look up again; an answer naming an action the call did not hold, twice, or
/// leaving one out is a protocol error.
pub(super) fn read_answers<'r>(
    regions: &'r [(Arc<Region>, Vec<usize>)],
    response: &proto::MultiResponse,
    block: &bytes::Bytes,
) -> Result<(Vec<Answered>, Vec<&'r Region>)> {
    let mut results = Results::new(block);
    let mut out = Vec::new();
    let mut moved = Vec::new();
    // The actions of the call not answered yet, each with its region's place in the call: each
    // answer must name one of its region's, once.
    let mut open = Open::of(regions);
    let answers = regions.iter().zip(&response.region_action_result);
    for (at, ((region, items), answer)) in answers.enumerate() {
        if let Some(e) = &answer.exception {
            // The whole region refused: its actions were not applied.
            for &i in items {
                open.remove(i);
            }
            if let Some(Relocate(relocate)) = send_again(&e.name) {
                if relocate {
                    moved.push(&**region);
                }
                out.extend(items.iter().map(|&i| (i, None)));
            } else {
                out.extend(items.iter().map(|&i| (i, Some(Err(action_error(e))))));
            }
            continue;
        }
        for r in &answer.result_or_exception {
            let i = r.index.unwrap_or(u32::MAX) as usize;
            if open.get(i) != Some(at) {
                return Err(rpc::protocol(
                    METHOD,
                    format!(
                        "the server answered action {i}, which the region's part of the call \
                         did not hold or which was answered already"
                    ),
                ));
            }
            open.remove(i);
            let row = match &r.result {
                Some(result) => results
                    .row(result)
                    .map_err(|e| rpc::protocol(METHOD, e.0))?,
                None => None,
            };
            let answer = match &r.exception {
                Some(e) => match send_again(&e.name) {
                    Some(Relocate(relocate)) => {
                        if relocate {
                            moved.push(&**region);
                        }
                        None
                    }
                    None => Some(Err(action_error(e))),
                },
                None => Some(Ok(row)),
            };
            out.push((i, answer));
        }
    }
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
    fn of(regions: &[(Arc<Region>, Vec<usize>)]) -> Open {
        let mut actions: Vec<(usize, usize, bool)> = regions
            .iter()
            .enumerate()
            .flat_map(|(at, (_, items))| items.iter().map(move |&i| (i, at, true)))
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
    use super::super::tests::region;
    use super::*;

    /// action answered once, or a protocol error; never a panic.
    #[test]
    fn any_multi_reply_answers_each_action_once_or_is_an_error() {
        use super::super::super::cellblock::tests::arb_block;
        use super::super::super::convert::tests::arb_result;
        use proptest::prelude::*;
        let regions = vec![
            (region("a"), vec![0, 1, 2]),
            (region("b"), vec![3, 4]),
            (region("c"), vec![5]),
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
            if let Ok((answers, moved)) = read_answers(&regions, &response, &block) {
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
}
