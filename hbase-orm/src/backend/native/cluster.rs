//! The cluster's region servers, region moves and the balancer, through the master.
//!
//! A move names the region by its encoded name (the hash between the last two dots of its
//! full name) and the destination by its full server name, start code included, which the
//! master's list of live servers gives. The master answers once the move is under way; the
//! client then reads meta until the region serves at its destination, as a caller of a move
//! expects.

use std::time::{Duration, Instant};

use super::proto;
use super::regions::Region;
use super::registry::address_of;
use super::rpc::{Core, RegionAt};
use crate::model::{Error, Result, TableName};

/// How long a move may take before the client stops waiting for it.
const MOVE_WAIT: Duration = Duration::from_secs(120);

/// The encoded name of a region (`table,start,id.ENCODED.`): the part between the last two
/// dots.
pub(crate) fn encoded_name(full: &[u8]) -> Option<&[u8]> {
    let inner = full.strip_suffix(b".")?;
    let dot = inner.iter().rposition(|&b| b == b'.')?;
    Some(&inner[dot + 1..]).filter(|e| !e.is_empty())
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
    /// anywhere but where `from` was.
    async fn wait_moved(
        &self,
        table: &TableName,
        key: &[u8],
        from: &Region,
        to: Option<&str>,
    ) -> Result<()> {
        let started = Instant::now();
        loop {
            self.regions.forget_table(table);
            // A region in transition may have no server in meta for a moment.
            if let Ok(now) = self.locate(table, RegionAt::Holding(key)).await {
                let arrived = match to {
                    Some(to) => now.server == to,
                    None => now.server != from.server || now.id != from.id,
                };
                if arrived {
                    return Ok(());
                }
            }
            if started.elapsed() > MOVE_WAIT {
                return Err(Error::Timeout {
                    operation: "move_region",
                    after: MOVE_WAIT,
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
}
