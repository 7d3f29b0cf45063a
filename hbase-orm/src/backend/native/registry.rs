//! Where the cluster's meta region and active master are. HBase publishes both in ZooKeeper,
//! under the cluster's parent znode (`/hbase` unless `zookeeper.znode.parent` says otherwise),
//! and its masters answer for them too (`ClientMetaService`: `GetMetaRegionLocations`,
//! `GetActiveMaster`), so a client given the masters' addresses needs no ZooKeeper. This
//! module reads ZooKeeper and the masters' answers; the calls to the masters go through the
//! client's connections (`rpc.rs`).
//!
//! Each znode holds a magic byte (0xFF), a 4-byte big-endian length and that many bytes of the
//! writer's id, `PBUF`, then a protobuf message: `MetaRegionServer` in `meta-region-server`,
//! `Master` in `master`. The client opens a ZooKeeper session per lookup: lookups happen when
//! the client starts and when the meta region or the master has moved, rarely enough that a
//! session kept open (with its heartbeats and expiry) would cost more than it saves.
//!
//! ZooKeeper is spoken by the `zookeeper-client` crate: async, maintained, with the server
//! failover and chroot handling a hand-written reader would have to repeat.

use std::time::Duration;

use prost::Message;

use super::proto;

/// A server's `host:port`.
pub(crate) fn address_of(server: &proto::ServerName) -> String {
    format!("{}:{}", server.host_name, server.port.unwrap_or(16020))
}

/// Where a client asks for the meta region and the master.
#[derive(Clone, Debug)]
pub(crate) enum Registry {
    /// The cluster's ZooKeeper.
    ZooKeeper(ZooKeeper),
    /// The masters (`host:port`), asked in turn until one answers.
    Masters(Vec<String>),
}

impl Registry {
    /// The addresses asked, as an error names them.
    pub(crate) fn addresses(&self) -> String {
        match self {
            Registry::ZooKeeper(zk) => zk.quorum.clone(),
            Registry::Masters(masters) => masters.join(","),
        }
    }
}

/// The server holding the default replica of `hbase:meta`, from a master's answer.
pub(crate) fn meta_of(answer: &proto::GetMetaRegionLocationsResponse) -> Result<String, String> {
    answer
        .meta_locations
        .iter()
        .filter(|l| l.region_info.replica_id.unwrap_or(0) == 0)
        .find_map(|l| l.server_name.as_ref())
        .map(address_of)
        .ok_or_else(|| "the master knows of no server holding hbase:meta yet".to_string())
}

/// The active master, from a master's answer.
pub(crate) fn master_of(answer: &proto::GetActiveMasterResponse) -> Result<String, String> {
    answer
        .server_name
        .as_ref()
        .map(address_of)
        .ok_or_else(|| "the master knows of no active master yet".to_string())
}

/// The ZooKeeper quorum and parent znode of one cluster.
#[derive(Clone, Debug)]
pub(crate) struct ZooKeeper {
    /// `host:port,host:port`.
    pub(crate) quorum: String,
    /// The parent znode, `/hbase` by default.
    pub(crate) parent: String,
    /// How long a lookup may take.
    pub(crate) timeout: Duration,
}

impl ZooKeeper {
    /// The address of the region server holding `hbase:meta`.
    pub(crate) async fn meta_server(&self) -> Result<String, String> {
        let data = self.read("meta-region-server").await?;
        let meta = proto::MetaRegionServer::decode(data.as_slice())
            .map_err(|e| format!("the meta region's znode does not decode: {e}"))?;
        Ok(address_of(&meta.server))
    }

    /// The address of the active master.
    pub(crate) async fn master(&self) -> Result<String, String> {
        let data = self.read("master").await?;
        let master = proto::Master::decode(data.as_slice())
            .map_err(|e| format!("the master's znode does not decode: {e}"))?;
        Ok(address_of(&master.master))
    }

    /// The protobuf message in znode `name` under the parent, its envelope removed.
    async fn read(&self, name: &str) -> Result<Vec<u8>, String> {
        let path = format!("{}/{name}", self.parent.trim_end_matches('/'));
        let lookup = async {
            let zk = zookeeper_client::Client::connect(&self.quorum)
                .await
                .map_err(|e| format!("cannot reach ZooKeeper at {}: {e}", self.quorum))?;
            let (data, _) = zk.get_data(&path).await.map_err(|e| match e {
                zookeeper_client::Error::NoNode => format!(
                    "ZooKeeper at {} has no {path}: is HBase running, and is its parent \
                     znode {}? (set it with ?znode= in the URL)",
                    self.quorum, self.parent
                ),
                e => format!("reading {path} from ZooKeeper at {}: {e}", self.quorum),
            })?;
            Ok::<_, String>(data)
        };
        let data = tokio::time::timeout(self.timeout, lookup)
            .await
            .map_err(|_| {
                format!(
                    "ZooKeeper at {} did not answer within {:?}",
                    self.quorum, self.timeout
                )
            })??;
        unwrap_znode(&data).map(<[u8]>::to_vec).ok_or_else(|| {
            format!("{path} does not hold what HBase writes there (magic byte, id, PBUF)")
        })
    }
}

/// The protobuf message of a znode HBase wrote: after the magic byte, the id and `PBUF`.
pub(crate) fn unwrap_znode(data: &[u8]) -> Option<&[u8]> {
    let (&magic, rest) = data.split_first()?;
    if magic != 0xFF || rest.len() < 4 {
        return None;
    }
    let id_len = u32::from_be_bytes(rest[..4].try_into().ok()?) as usize;
    let rest = rest[4..].get(id_len..)?;
    rest.strip_prefix(b"PBUF")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_znode_s_envelope_is_removed_and_a_foreign_one_refused() {
        let meta = proto::MetaRegionServer {
            server: proto::ServerName {
                host_name: "rs1".into(),
                port: Some(16020),
                start_code: Some(1),
            },
            ..Default::default()
        };
        let mut data = vec![0xFF];
        data.extend_from_slice(&5u32.to_be_bytes());
        data.extend_from_slice(b"m:160");
        data.extend_from_slice(b"PBUF");
        data.extend_from_slice(&meta.encode_to_vec());
        let inner = unwrap_znode(&data).unwrap();
        let back = proto::MetaRegionServer::decode(inner).unwrap();
        assert_eq!(address_of(&back.server), "rs1:16020");
        assert_eq!(unwrap_znode(&data[..7]), None);
        assert_eq!(unwrap_znode(b"\x00\x00\x00\x00\x00PBUF"), None);
        let mut long_id = data.clone();
        long_id[1..5].copy_from_slice(&999u32.to_be_bytes());
        assert_eq!(unwrap_znode(&long_id), None);
    }
}
