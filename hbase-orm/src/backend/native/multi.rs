//! Batches: many gets or mutations of a table, grouped per region server into one `Multi`
//! call each, all servers at once.
//!
//! A server answers per region and per action. An action refused because its region is not
//! there (moved, split, still opening) was not applied: it is grouped again after its region is
//! looked up anew and sent once more, with the other actions still to do. Any other failure of
//! an action is that action's answer.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::connection::{self, CallError};
use super::convert::Results;
use super::frame::{Encoded, Service};
use super::proto;
use super::regions::Region;
use super::rpc::{self, Core, RegionAt, RELOCATE_FOR};
use crate::model::{Error, Result, Row, TableName};

const METHOD: &str = "Multi";

/// The actions to send to each region server: per region, the indexes of its actions.
type ByServer = HashMap<String, Vec<(Arc<Region>, Vec<usize>)>>;

/// One action's answer: the row a get read (or a mutation returned), or its error.
pub(crate) type Answer = Result<Option<Row>>;

/// An action of a call and its answer (`None`: to send again).
type Answered = (usize, Option<Answer>);

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

/// Actions per `Multi` call at most (a server answers a larger batch in several calls).
const ACTIONS_PER_CALL: usize = 1000;

/// The crate's error for an action's or a region's exception.
fn action_error(e: &proto::NameBytesPair) -> Error {
    let message = String::from_utf8_lossy(e.value.as_deref().unwrap_or_default());
    Error::from_server(METHOD, format!("{}: {message}", e.name), false)
}

/// The actions for one server split into calls of at most [`ACTIONS_PER_CALL`] actions.
fn calls_of(regions: Vec<(Arc<Region>, Vec<usize>)>) -> Vec<Vec<(Arc<Region>, Vec<usize>)>> {
    let mut calls: Vec<Vec<(Arc<Region>, Vec<usize>)>> = vec![Vec::new()];
    let mut in_call = 0;
    for (region, items) in regions {
        for chunk in items.chunks(ACTIONS_PER_CALL) {
            if in_call + chunk.len() > ACTIONS_PER_CALL {
                calls.push(Vec::new());
                in_call = 0;
            }
            in_call += chunk.len();
            let call = calls.last_mut().expect("never empty");
            call.push((region.clone(), chunk.to_vec()));
        }
    }
    calls.retain(|c| !c.is_empty());
    calls
}

impl Core {
    /// Sends the actions `action(i, cells)` for the rows `rows[i]` of `table`, grouped per
    /// server; the answers in the order of `rows`. An action writes its mutation's cells at the
    /// end of `cells`, the call's cell block, and counts them in its message.
    pub(crate) async fn multi(
        &self,
        table: &TableName,
        rows: &[&[u8]],
        action: impl Fn(usize, &mut Vec<u8>) -> proto::Action + Sync,
    ) -> Result<Vec<Answer>> {
        let mut answers: Vec<Option<Answer>> = rows.iter().map(|_| None).collect();
        let mut todo: Vec<usize> = (0..rows.len()).collect();
        let started = Instant::now();
        let mut pause = Duration::from_millis(20);
        // Once part of the batch went out, a failure may leave the rest applied: the error
        // must not say "nothing was sent" (the client sends an unsent batch again whole).
        let sent_part = |e: Error, sent: bool| match e {
            Error::Connect { address, source } if sent => Error::Transport {
                method: METHOD,
                source: std::io::Error::new(
                    source.kind(),
                    format!("{address}: {source} (after part of the batch went out)"),
                ),
            },
            e => e,
        };
        let mut sent = false;
        while !todo.is_empty() {
            // Per region, then per server: the actions to send. A row in the region of the
            // row before it (a sorted batch, a table of few regions) is placed without a
            // lookup.
            let mut by_region: Vec<(Arc<Region>, Vec<usize>)> = Vec::new();
            let mut places: HashMap<bytes::Bytes, usize> = HashMap::new();
            let mut last = usize::MAX;
            for &i in &todo {
                if let Some((region, items)) = by_region.get_mut(last) {
                    if region.holds(rows[i]) {
                        items.push(i);
                        continue;
                    }
                }
                let region = self
                    .locate(table, RegionAt::Holding(rows[i]))
                    .await
                    .map_err(|e| sent_part(e, sent))?;
                last = *places.entry(region.name.clone()).or_insert_with(|| {
                    by_region.push((region, Vec::new()));
                    by_region.len() - 1
                });
                by_region[last].1.push(i);
            }
            let mut servers = ByServer::new();
            for (region, items) in by_region {
                servers
                    .entry(region.server.clone())
                    .or_default()
                    .push((region, items));
            }
            let calls = servers
                .into_iter()
                .flat_map(|(server, regions)| {
                    calls_of(regions)
                        .into_iter()
                        .map(move |call| (server.clone(), call))
                })
                .map(|(server, regions)| self.multi_at(table, server, regions, &action));
            let mut again = Vec::new();
            let outcomes = futures::future::join_all(calls).await;
            sent |= outcomes.iter().any(Result::is_ok);
            let mut failed = None;
            for outcome in outcomes {
                match outcome {
                    Ok(answered) => {
                        for (i, answer) in answered {
                            match answer {
                                Some(answer) => answers[i] = Some(answer),
                                None => again.push(i),
                            }
                        }
                    }
                    Err(e) => failed = failed.or(Some(e)),
                }
            }
            if let Some(e) = failed {
                return Err(sent_part(e, sent));
            }
            todo = again;
            if !todo.is_empty() {
                if started.elapsed() + pause > RELOCATE_FOR {
                    return Err(Error::Server {
                        method: METHOD,
                        message: format!(
                            "{} actions found their regions moving for {RELOCATE_FOR:?}",
                            todo.len()
                        ),
                        can_retry: true,
                    });
                }
                self.resent
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                crate::observe::retry("multi", "region_moved");
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(Duration::from_secs(1));
            }
        }
        Ok(answers
            .into_iter()
            .map(|a| a.expect("every action answered"))
            .collect())
    }

    /// One `Multi` call to `server` with the actions of `regions`; each action's answer, or
    /// `None` for an action to send again after its region is looked up anew.
    async fn multi_at(
        &self,
        table: &TableName,
        server: String,
        regions: Vec<(Arc<Region>, Vec<usize>)>,
        action: &(impl Fn(usize, &mut Vec<u8>) -> proto::Action + Sync),
    ) -> Result<Vec<Answered>> {
        let mut cells = self.buffers.take();
        let request = request(&regions, action, &mut cells);
        let reply = match self
            .call_with_cells(&server, Service::Client, METHOD, &request, &cells)
            .await
        {
            Ok(reply) => reply,
            Err(e) => {
                if !matches!(e, CallError::TooLarge(_)) {
                    self.regions.forget_server(&server);
                }
                return Err(self.call_error(METHOD, &server, e));
            }
        };
        let response: proto::MultiResponse =
            connection::decode(&reply).map_err(|m| rpc::protocol(METHOD, m))?;
        let (answers, moved) = read_answers(&regions, &response, &reply.cell_block)?;
        for region in moved {
            self.regions.forget(table, region);
        }
        Ok(answers)
    }
}

/// The `MultiRequest` of the actions of `regions`, encoded as each action is made (no message
/// per action is kept: a batch of puts allocates the row keys' copies and little else), and
/// their cells written into `cells`, in the same order: the server reads each mutation's
/// count of cells off the block in turn.
fn request(
    regions: &[(Arc<Region>, Vec<usize>)],
    action: impl Fn(usize, &mut Vec<u8>) -> proto::Action,
    cells: &mut Vec<u8>,
) -> Encoded {
    use prost::encoding::{encode_key, encode_varint, message, WireType};
    let mut out = Vec::new();
    let mut actions = Vec::new();
    for (region, items) in regions {
        actions.clear();
        for &i in items {
            let action = proto::Action {
                index: Some(i as u32),
                ..action(i, cells)
            };
            // `RegionAction.action`, field 3.
            message::encode(3, &action, &mut actions);
        }
        // `MultiRequest.region_action`, field 1: a `RegionAction` of the region (field 1) and
        // the actions.
        let specifier = region.specifier();
        encode_key(1, WireType::LengthDelimited, &mut out);
        encode_varint(
            (message::encoded_len(1, &specifier) + actions.len()) as u64,
            &mut out,
        );
        message::encode(1, &specifier, &mut out);
        out.extend_from_slice(&actions);
    }
    Encoded(out)
}

/// The answers of a `Multi` reply to the actions of `regions` (`None`: send again), and the
/// regions to look up again; an answer naming an action the call did not hold, twice, or
/// leaving one out is a protocol error.
fn read_answers<'r>(
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
    use super::*;

    /// A region called `name` on server `s:1`.
    fn region(name: &str) -> Arc<Region> {
        Arc::new(Region {
            name: bytes::Bytes::copy_from_slice(name.as_bytes()),
            start: Vec::new(),
            end: Vec::new(),
            id: 1,
            server: "s:1".into(),
        })
    }

    /// Any `Multi` reply to a call of six actions in three regions, with any cell block: every
    /// action answered once, or a protocol error; never a panic.
    #[test]
    fn any_multi_reply_answers_each_action_once_or_is_an_error() {
        use super::super::cellblock::tests::arb_block;
        use super::super::convert::tests::arb_result;
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

    /// The request encoded as its actions are made is the `MultiRequest` prost would encode,
    /// and the cells follow the actions' order.
    #[test]
    fn a_request_encoded_action_by_action_is_the_multi_request() {
        use prost::Message;
        let regions = vec![(region("a"), vec![2, 0]), (region("b"), vec![1])];
        let action = |i: usize, cells: &mut Vec<u8>| {
            let put = crate::model::Put::new(format!("row{i}")).column("d", "q", vec![i as u8]);
            proto::Action {
                mutation: Some(super::super::convert::put(&put, cells)),
                ..Default::default()
            }
        };
        let mut cells = Vec::new();
        let encoded = request(&regions, action, &mut cells);
        let mut expected_cells = Vec::new();
        let expected = proto::MultiRequest {
            region_action: regions
                .iter()
                .map(|(region, items)| proto::RegionAction {
                    region: region.specifier(),
                    action: items
                        .iter()
                        .map(|&i| proto::Action {
                            index: Some(i as u32),
                            ..action(i, &mut expected_cells)
                        })
                        .collect(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        };
        assert_eq!(encoded.0, expected.encode_to_vec());
        assert_eq!(cells, expected_cells);
        let rows: Vec<Vec<u8>> = super::super::cellblock::Cells::new(&cells)
            .map(|c| c.unwrap().row.to_vec())
            .collect();
        assert_eq!(rows, [&b"row2"[..], b"row0", b"row1"]);
        assert_eq!(
            proto::MultiRequest::decode(&encoded.0[..]).unwrap(),
            expected
        );
    }

    #[test]
    fn a_server_s_actions_go_out_in_calls_of_at_most_a_thousand() {
        let regions = vec![
            (region("a"), (0..1500).collect::<Vec<usize>>()),
            (region("b"), (1500..1700).collect()),
            (region("c"), (1700..2900).collect()),
        ];
        let calls = calls_of(regions);
        let sizes: Vec<usize> = calls
            .iter()
            .map(|c| c.iter().map(|(_, items)| items.len()).sum())
            .collect();
        assert!(sizes.iter().all(|&n| n <= ACTIONS_PER_CALL), "{sizes:?}");
        let mut all: Vec<usize> = calls.into_iter().flatten().flat_map(|(_, i)| i).collect();
        all.sort();
        assert_eq!(all, (0..2900).collect::<Vec<usize>>(), "every action once");
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
