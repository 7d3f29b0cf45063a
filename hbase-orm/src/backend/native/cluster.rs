//! The cluster's region servers, region moves and the balancer, through the master.
//!
//! A move names the region by its encoded name (the hash between the last two dots of its
//! full name) and the destination by its full server name, start code included, which the
//! master's list of live servers gives. The master answers once the move is under way; the
//! client then reads meta until the region serves at its destination, as a caller of a move
//! expects. A region that could not open there is reported with what meta says of it: failed
//! to open (`FAILED_OPEN`), open on another server (the master placed it elsewhere), or, after
//! the wait, its last state and server.

use std::time::{Duration, Instant};

use super::proto;
use super::regions::{self, MetaRow, Region};
use super::registry::address_of;
use super::rpc::{Core, RegionAt};
use crate::model::{Error, Result, Row, TableName};

/// How long a move may take before the client stops waiting for it.
const MOVE_WAIT: Duration = Duration::from_secs(120);

/// The encoded name of a region (`table,start,id.ENCODED.`): the part between the last two
/// dots.
pub(crate) fn encoded_name(full: &[u8]) -> Option<&[u8]> {
    let inner = full.strip_suffix(b".")?;
    let dot = inner.iter().rposition(|&b| b == b'.')?;
    Some(&inner[dot + 1..]).filter(|e| !e.is_empty())
}

/// Where a move stands, from one reading of the region's meta row.
#[derive(Debug, PartialEq, Eq)]
enum Move {
    Arrived,
    Moving,
    /// It will not arrive: why.
    Failed(String),
}

/// What the readings of a moving region's meta row showed so far.
#[derive(Default)]
struct Seen {
    /// The region left its first server, or was seen in transition.
    left: bool,
    /// The last reading, in words (state and server).
    last: Option<String>,
}

impl Seen {
    /// Reads one meta row of the region moving from `from` to `to` (or anywhere else).
    fn observe(&mut self, table: &TableName, row: &Row, from: &Region, to: Option<&str>) -> Move {
        let state = row
            .value("info", "state")
            .map(|s| String::from_utf8_lossy(s).into_owned());
        let online = match regions::read_meta_row(table, row) {
            Ok(MetaRow::Online(now)) => Some(now),
            _ => None,
        };
        let server = online.as_ref().map(|r| r.server.as_str());
        self.last = Some(format!(
            "{} on {}",
            state.as_deref().unwrap_or("no state"),
            server.unwrap_or("no server")
        ));
        let open = state.as_deref().is_none_or(|s| s == "OPEN");
        if state.as_deref() == Some("FAILED_OPEN") {
            return Move::Failed(format!(
                "the region failed to open{} (hbase:meta says FAILED_OPEN): the master's and \
                 the region server's logs say why",
                to.map(|t| format!(" at {t}")).unwrap_or_default()
            ));
        }
        let Some(now) = online.filter(|_| open) else {
            self.left = true;
            return Move::Moving;
        };
        let moved = now.server != from.server || now.id != from.id;
        self.left |= moved;
        match to {
            Some(to) if now.server == to => Move::Arrived,
            None if moved => Move::Arrived,
            // Open again where it was: the master found nowhere else to open it.
            None if self.left => Move::Failed(format!(
                "the region is open on {} again, where it was: no other server opened it (the \
                 master's log says why)",
                now.server
            )),
            // Open again, and not where it was asked to go: the destination could not open
            // it and the master placed it elsewhere.
            Some(to) if self.left => Move::Failed(format!(
                "the region did not open at {to}: it is open on {} now (the master placed it \
                 there, as it does when the destination cannot open a region; the master's log \
                 says why)",
                now.server
            )),
            _ => Move::Moving,
        }
    }
}

impl Core {
    /// The live region servers, with their start codes.
    async fn live_servers(&self) -> Result<Vec<proto::ServerName>> {
        let request = proto::GetClusterStatusRequest {
            options: vec![proto::Option::LiveServers as i32],
        };
        let reply: proto::GetClusterStatusResponse =
            self.master("GetClusterStatus", &request).await?;
        Ok(reply
            .cluster_status
            .live_servers
            .into_iter()
            .map(|s| s.server)
            .collect())
    }

    /// The live region servers as `host:port`, sorted.
    pub(crate) async fn region_servers(&self) -> Result<Vec<String>> {
        let mut servers: Vec<String> = self.live_servers().await?.iter().map(address_of).collect();
        servers.sort();
        Ok(servers)
    }

    /// Moves the region of `table` holding `key` to `to` (`host:port`) or wherever the master
    /// puts it, and waits until it serves there.
    pub(crate) async fn move_region(
        &self,
        table: &TableName,
        key: &[u8],
        to: Option<&str>,
    ) -> Result<()> {
        // Looked up in meta, not the cache: the move names the region where it is now.
        self.regions.forget_table(table);
        let region = self.locate(table, RegionAt::Holding(key)).await?;
        let live = self.live_servers().await?;
        let dest = match to {
            // The master picks among the other servers: with none, nothing moves.
            None if live.iter().all(|s| address_of(s) == region.server) => return Ok(()),
            None => None,
            Some(to) => {
                let found = live.iter().find(|s| address_of(s) == to).cloned();
                let Some(dest) = found else {
                    let names: Vec<String> = live.iter().map(address_of).collect();
                    return Err(Error::IllegalArgument {
                        message: format!(
                            "no region server serves at {to}; the live ones: {}",
                            names.join(", ")
                        ),
                    });
                };
                if region.server == to {
                    return Ok(());
                }
                Some(dest)
            }
        };
        let encoded = encoded_name(&region.name).ok_or_else(|| {
            let name = String::from_utf8_lossy(&region.name);
            super::rpc::protocol("MoveRegion", format!("meta names a region {name:?}"))
        })?;
        let request = proto::MoveRegionRequest {
            region: proto::RegionSpecifier {
                r#type: proto::region_specifier::RegionSpecifierType::EncodedRegionName as i32,
                value: bytes::Bytes::copy_from_slice(encoded),
            },
            dest_server_name: dest,
        };
        let _: proto::MoveRegionResponse = self.master("MoveRegion", &request).await?;
        self.wait_moved(table, key, &region, to).await
    }

    /// Reads meta until the region holding `key` serves at `to`, or (without a destination)
    /// anywhere but where `from` was; fails as soon as meta shows the move failed.
    async fn wait_moved(
        &self,
        table: &TableName,
        key: &[u8],
        from: &Region,
        to: Option<&str>,
    ) -> Result<()> {
        let started = Instant::now();
        let mut seen = Seen::default();
        loop {
            self.regions.forget_table(table);
            // A region in transition may have no server in meta for a moment.
            if let Some(row) = self.meta_row_holding(table, key).await? {
                match seen.observe(table, &row, from, to) {
                    Move::Arrived => return Ok(()),
                    Move::Failed(why) => {
                        return Err(Error::Server {
                            method: "move_region",
                            message: why,
                            can_retry: false,
                        })
                    }
                    Move::Moving => {}
                }
            }
            if started.elapsed() > MOVE_WAIT {
                return Err(Error::Server {
                    method: "move_region",
                    message: format!(
                        "the region did not open at {} within {MOVE_WAIT:?}: hbase:meta last \
                         said {}",
                        to.unwrap_or("another server"),
                        seen.last.as_deref().unwrap_or("nothing of it")
                    ),
                    can_retry: true,
                });
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Runs the balancer once; whether it ran.
    pub(crate) async fn balance(&self) -> Result<bool> {
        let reply: proto::BalanceResponse = self
            .master("Balance", &proto::BalanceRequest::default())
            .await?;
        Ok(reply.balancer_ran)
    }

    /// Switches the balancer; whether it was on.
    pub(crate) async fn set_balancer(&self, on: bool) -> Result<bool> {
        let request = proto::SetBalancerRunningRequest {
            on,
            synchronous: Some(true),
        };
        let reply: proto::SetBalancerRunningResponse =
            self.master("SetBalancerRunning", &request).await?;
        Ok(reply.prev_balance_value.unwrap_or(false))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_region_s_encoded_name_is_the_hash_between_the_last_two_dots() {
        let full = b"t,k1,1700000000000.0123456789abcdef0123456789abcdef.";
        assert_eq!(
            encoded_name(full),
            Some(&b"0123456789abcdef0123456789abcdef"[..])
        );
        // A start key with dots in it.
        let dotted = b"t,a.b.c,17.ffee.";
        assert_eq!(encoded_name(dotted), Some(&b"ffee"[..]));
        assert_eq!(encoded_name(b"t,k,17"), None);
        assert_eq!(encoded_name(b"t,k,17.."), None);
    }

    /// A meta row of region `t,k,1.` of table `t`: on `server` (if any), in `state` (if any).
    fn meta_row(server: Option<&str>, state: Option<&str>) -> Row {
        use prost::Message;
        let info = proto::RegionInfo {
            region_id: 1,
            table_name: proto::TableName {
                namespace: bytes::Bytes::from_static(b"default"),
                qualifier: bytes::Bytes::from_static(b"t"),
            },
            ..Default::default()
        };
        let mut regioninfo = b"PBUF".to_vec();
        regioninfo.extend(info.encode_to_vec());
        let cell = |q: &'static str, v: Vec<u8>| crate::model::Cell {
            family: bytes::Bytes::from_static(b"info"),
            qualifier: bytes::Bytes::from_static(q.as_bytes()),
            value: v.into(),
            timestamp: 1,
        };
        let mut cells = vec![cell("regioninfo", regioninfo)];
        cells.extend(server.map(|s| cell("server", s.as_bytes().to_vec())));
        cells.extend(state.map(|s| cell("state", s.as_bytes().to_vec())));
        Row {
            key: b"t,,1.".to_vec(),
            cells,
            stale: false,
        }
    }

    /// The readings of a move from `a:1`, one after the other, and what each says.
    fn watch(to: Option<&str>, readings: &[(Option<&str>, Option<&str>)]) -> Vec<Move> {
        let t = TableName::new("default", "t");
        let from = Region {
            name: bytes::Bytes::from_static(b"t,,1.e."),
            start: Vec::new(),
            end: Vec::new(),
            id: 1,
            server: "a:1".into(),
            replicas: Vec::new(),
        };
        let mut seen = Seen::default();
        readings
            .iter()
            .map(|&(server, state)| seen.observe(&t, &meta_row(server, state), &from, to))
            .collect()
    }

    #[test]
    fn a_move_arrives_or_fails_with_what_meta_says() {
        use Move::*;
        let open = Some("OPEN");
        // Closing at a, opening at b, open at b.
        let moves = watch(
            Some("b:1"),
            &[
                (Some("a:1"), open),
                (Some("a:1"), Some("CLOSING")),
                (None, Some("OPENING")),
                (Some("b:1"), open),
            ],
        );
        assert_eq!(moves, [Moving, Moving, Moving, Arrived]);
        // b could not open it: failed to open, or opened on c, or back on a.
        let failed = watch(Some("b:1"), &[(None, Some("FAILED_OPEN"))]);
        assert!(
            matches!(&failed[0], Failed(why) if why.contains("FAILED_OPEN")),
            "{failed:?}"
        );
        let elsewhere = watch(Some("b:1"), &[(Some("a:1"), open), (Some("c:1"), open)]);
        assert!(
            matches!(&elsewhere[1], Failed(why) if why.contains("open on c:1")),
            "{elsewhere:?}"
        );
        let back = watch(
            Some("b:1"),
            &[(Some("a:1"), Some("CLOSING")), (Some("a:1"), open)],
        );
        assert!(
            matches!(&back[1], Failed(why) if why.contains("open on a:1")),
            "{back:?}"
        );
        // Anywhere but a: any other server will do; back on a after leaving it is a failure.
        assert_eq!(
            watch(None, &[(Some("a:1"), open), (Some("c:1"), open)]),
            [Moving, Arrived]
        );
        let home = watch(None, &[(None, Some("OPENING")), (Some("a:1"), open)]);
        assert!(
            matches!(&home[1], Failed(why) if why.contains("again")),
            "{home:?}"
        );
        // A meta without states (the column absent) reads as before: open where the server is.
        assert_eq!(
            watch(Some("b:1"), &[(Some("a:1"), None), (Some("b:1"), None)]),
            [Moving, Arrived]
        );
    }
}
