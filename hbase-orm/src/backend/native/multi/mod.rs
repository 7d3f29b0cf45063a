//! Batches: many gets or mutations of a table, grouped per region server into one `Multi`
//! call each, all servers at once.
//!
//! A server answers per region and per action. An action refused because its region is not
//! there (moved, split, still opening) was not applied: it is grouped again after its region is
//! looked up anew and sent once more, with the other actions still to do. Any other failure of
//! an action is that action's answer.

mod answers;
mod request;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::frame::Service;
use super::proto;
use super::regions::Region;
use super::rpc::{Core, RegionAt, RELOCATE_FOR};
use crate::model::{Error, Result, Row, TableName};
use answers::{read_answers, Answered};
use request::request;

const METHOD: &str = "Multi";

/// A region's part of a call: the items of the batch it holds, in one `RegionAction`. A plain
/// part has one action per item, each applied (or refused) on its own; an atomic part's items
/// (rows' puts and deletes, several actions each) are applied all or none together, in one
/// region operation of the server (one write-ahead-log sync for them all): each row whole,
/// and a failure of any of them fails them all.
#[derive(Clone, Debug)]
pub(super) struct Part {
    pub region: Arc<Region>,
    pub items: Vec<usize>,
    pub atomic: bool,
}

/// The parts to send to each region server.
type ByServer = HashMap<String, Vec<Part>>;

/// One action's answer: the row a get read (or a mutation returned), or its error. The error
/// is boxed: a call's answers are held side by side, and most are a put's empty success,
/// which then takes 56 bytes instead of 120 (and a batch's answers fit the heap they were
/// taken from instead of growing it for every call).
pub(crate) type Answer = std::result::Result<Option<Row>, Box<Error>>;

/// Actions per `Multi` call at most (a server answers a larger batch in several calls).
const ACTIONS_PER_CALL: usize = 1000;

/// The parts for one server split into calls of at most [`ACTIONS_PER_CALL`] items.
fn calls_of(parts: Vec<Part>) -> Vec<Vec<Part>> {
    let mut calls: Vec<Vec<Part>> = vec![Vec::new()];
    let mut in_call = 0;
    for part in parts {
        for chunk in part.items.chunks(ACTIONS_PER_CALL) {
            if in_call + chunk.len() > ACTIONS_PER_CALL {
                calls.push(Vec::new());
                in_call = 0;
            }
            in_call += chunk.len();
            let call = calls.last_mut().expect("never empty");
            call.push(Part {
                region: part.region.clone(),
                items: chunk.to_vec(),
                atomic: part.atomic,
            });
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
        let one = |i: usize, cells: &mut Vec<u8>, out: &mut Vec<proto::Action>| {
            out.push(action(i, cells));
        };
        self.batch(table, rows, |_| false, one).await
    }

    /// [`Core::multi`] of items that may be atomic (`atomic(i)`): item `i` pushes its actions
    /// with `actions(i, cells, out)`, one for a plain item. A region's atomic items (rows'
    /// mutations) go in an atomic region action of their own (HBase 2.4 and later apply it
    /// as one all-or-none batch of rows), each answered `Ok(None)`, or all with its error.
    pub(crate) async fn batch(
        &self,
        table: &TableName,
        rows: &[&[u8]],
        atomic: impl Fn(usize) -> bool,
        actions: impl Fn(usize, &mut Vec<u8>, &mut Vec<proto::Action>) + Sync,
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
            // Per region (plain and atomic items apart), then per server: the items to send. A
            // row in the region of the row before it of its kind (a sorted batch, a table of
            // few regions) is placed without a lookup.
            let mut parts: Vec<Part> = Vec::new();
            let mut places: HashMap<(bytes::Bytes, bool), usize> = HashMap::new();
            // The part the last plain and the last atomic item went to.
            let mut last = [usize::MAX; 2];
            for &i in &todo {
                let kind = atomic(i);
                if let Some(part) = parts.get_mut(last[kind as usize]) {
                    if part.region.holds(rows[i]) {
                        part.items.push(i);
                        continue;
                    }
                }
                let region = self
                    .locate(table, RegionAt::Holding(rows[i]))
                    .await
                    .map_err(|e| sent_part(e, sent))?;
                let at = *places
                    .entry((region.name.clone(), kind))
                    .or_insert_with(|| {
                        parts.push(Part {
                            region,
                            items: Vec::new(),
                            atomic: kind,
                        });
                        parts.len() - 1
                    });
                parts[at].items.push(i);
                last[kind as usize] = at;
            }
            let mut servers = ByServer::new();
            for part in parts {
                servers
                    .entry(part.region.server.clone())
                    .or_default()
                    .push(part);
            }
            let calls = servers
                .into_iter()
                .flat_map(|(server, regions)| {
                    calls_of(regions)
                        .into_iter()
                        .map(move |call| (server.clone(), call))
                })
                .map(|(server, parts)| self.multi_at(table, server, parts, &actions));
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

    /// One `Multi` call to `server` with the items of `parts`; each item's answer, or `None`
    /// for an item to send again after its region is looked up anew.
    async fn multi_at(
        &self,
        table: &TableName,
        server: String,
        parts: Vec<Part>,
        actions: &(impl Fn(usize, &mut Vec<u8>, &mut Vec<proto::Action>) + Sync),
    ) -> Result<Vec<Answered>> {
        let mut cells = self.buffers.take();
        let request = request(&parts, actions, &mut cells);
        let reply = match self
            .call_with_cells(&server, Service::Client, METHOD, &request, &cells)
            .await
        {
            Ok(reply) => reply,
            Err(e) => {
                if !e.is_size() {
                    self.regions.forget_server(&server);
                }
                return Err(self.call_error(METHOD, &server, e));
            }
        };
        let (answers, moved) = read_answers(&parts, &reply.message, &reply.cell_block)?;
        for region in moved {
            self.regions.forget(table, region);
        }
        Ok(answers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A region called `name` on server `s:1`.
    pub(super) fn region(name: &str) -> Arc<Region> {
        Arc::new(Region {
            name: bytes::Bytes::copy_from_slice(name.as_bytes()),
            start: Vec::new(),
            end: Vec::new(),
            id: 1,
            server: "s:1".into(),
            replicas: Vec::new(),
        })
    }

    /// A plain part of region `name` (on server `s:1`) holding `items`.
    pub(super) fn part(name: &str, items: Vec<usize>) -> Part {
        Part {
            region: region(name),
            items,
            atomic: false,
        }
    }

    /// A server's items go out in calls of at most a thousand, each item once.
    #[test]
    fn a_server_s_actions_go_out_in_calls_of_at_most_a_thousand() {
        let regions = vec![
            part("a", (0..1500).collect()),
            part("b", (1500..1700).collect()),
            part("c", (1700..2900).collect()),
        ];
        let calls = calls_of(regions);
        let sizes: Vec<usize> = calls
            .iter()
            .map(|c| c.iter().map(|p| p.items.len()).sum())
            .collect();
        assert!(sizes.iter().all(|&n| n <= ACTIONS_PER_CALL), "{sizes:?}");
        let mut all: Vec<usize> = calls.into_iter().flatten().flat_map(|p| p.items).collect();
        all.sort();
        assert_eq!(all, (0..2900).collect::<Vec<usize>>(), "every action once");
    }
}
