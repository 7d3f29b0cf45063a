//! The wire boundary: what the client asks of a store, in the project's own types.
//!
//! [`Backend`] is the one trait every store implements: Thrift2 ([`thrift2`]) is the first. It
//! lives in [`op`] beside the operations it carries out (its methods take them, and each
//! operation names the method that carries it out).
//!
//! Requests arrive checked (see `model::check`) and in the protocol-neutral model; a backend
//! turns them into its wire's types, makes the calls, and turns replies and failures back
//! into the model's `Row`s and `Error`s. Nothing above this module knows a wire type.
//!
//! [`wire`] is the machinery both Thrift gateways share: one socket per call in flight,
//! framed or buffered, binary or compact, a pool with timeouts and replies bounded in size.
//!
//! [`kerberos`] authenticates to secured servers (cargo feature `kerberos`): SPNEGO and SASL
//! for the gateways, SASL in HBase's own RPC for the native backend, and the SASL exchange a
//! NameNode's RPC carries for a secure bulk load.
//!
//! [`fs_token`] is a secured filesystem's delegation token, which a bulk load hands the region
//! servers with its files.
//!
//! [`region_name`] reads HBase's region names (their encoded part, a secondary replica's id)
//! for the native backend and the Thrift1 gateway's region lists.
//!
//! [`visibility`] encodes cell visibility labels and read authorizations as the operation
//! attribute HBase's own client sends (the native backend and both gateways).
//!
//! [`filter_language`] parses HBase's filter language (the text of `Get::filter` and
//! `Scan::filter`) for the backends that must understand it rather than pass it on: the
//! in-memory store evaluates it, the native backend sends it as protobuf filters.

#[cfg(any(feature = "memory", feature = "native"))]
pub(crate) mod filter_language;
pub(crate) mod fs_token;
pub(crate) mod kerberos;
#[cfg(feature = "memory")]
pub(crate) mod memory;
#[cfg(feature = "native")]
pub(crate) mod native;
pub(crate) mod op;
#[cfg(any(feature = "native", feature = "thrift1"))]
pub(crate) mod region_name;
#[cfg(feature = "thrift1")]
pub(crate) mod thrift1;
#[cfg(feature = "thrift2")]
pub(crate) mod thrift2;
#[cfg(any(feature = "thrift2", feature = "thrift1", feature = "native"))]
pub(crate) mod visibility;
#[cfg(any(feature = "thrift2", feature = "thrift1"))]
pub(crate) mod wire;

// Named by every backend: unused in a build with none.
#[cfg_attr(
    not(any(
        feature = "thrift2",
        feature = "thrift1",
        feature = "native",
        feature = "memory"
    )),
    allow(unused_imports)
)]
pub(crate) use op::{Backend, PoolCounters};
