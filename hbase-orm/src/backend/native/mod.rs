//! The native backend: HBase's own RPC, straight to the region servers and the master, with
//! no gateway in between (URL `hbase://zk1:2181,zk2:2181`, the ZooKeeper quorum of the
//! cluster, or `hbase+rpc://master1:16000`, its masters).
//!
//! The parts, from the bytes up:
//! - [`proto`]: the protobuf messages (generated);
//! - `frame`: the connection preamble and header, and the framing of calls and replies;
//! - `cellblock`: cells in HBase's `KeyValueCodec` encoding, read in place and written;
//! - `buffers`: spare buffers for the cell blocks of requests;
//! - `connection`: one TCP connection per server and service, many calls in flight on it,
//!   replies matched by call id;
//! - `protection`: a connection's SASL security layer (integrity, privacy), frames wrapped
//!   and unwrapped;
//! - `registry`: where the meta region and the active master are (ZooKeeper, or the
//!   masters' answers);
//! - `regions`: the region holding a row, from `hbase:meta`, cached;
//! - `convert`: the model's requests and HBase's replies, in protobuf;
//! - `scanner`: a scan that crosses regions, forward or reversed;
//! - `multi`: batches grouped per region server, one call per server;
//! - `filters`: the filter language as HBase's `Filter` messages;
//! - `schema`: table and family descriptors as the master's messages;
//! - `admin`: the master's calls, waiting for their procedures;
//! - `cluster`: the region servers, region moves and the balancer;
//! - `security`: who may do what, the master's permissions;
//! - `backend`: the [`Backend`](super::Backend) trait over all of it.

mod admin;
mod backend;
mod buffers;
mod bulk;
mod cellblock;
mod cluster;
mod connection;
mod convert;
mod filters;
mod frame;
mod multi;
mod protection;
pub(crate) mod proto;
mod regions;
mod registry;
mod replicas;
mod rpc;
mod scanner;
mod schema;
mod security;

pub(crate) use backend::NativeRpc;
