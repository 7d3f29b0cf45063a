//! # hbase-orm
//!
//! An async data-access layer for Apache HBase on tokio, speaking HBase's own RPC straight to
//! the region servers and the master (`hbase://` URLs with the ZooKeeper quorum, or
//! `hbase+rpc://` with the masters), to its Thrift2 gateway (`THBaseService`, `thrift2://`) or
//! its Thrift1 gateway (`Hbase`, `thrift1://`), or to a store in the process with HBase's
//! semantics for unit tests ([`Client::in_memory`]). What a backend cannot do is
//! [`Error::Unsupported`], never a silent difference.
//!
//! Secured gateways are reached the same way: Thrift over HTTP and HTTPS
//! (`thrift2+http://`, `thrift2+https://`: [`Transport::Http`], [`TlsOptions`], credentials,
//! headers and `doAs` in [`HttpOptions`]), and, with the cargo feature `kerberos`, Kerberos
//! ([`KerberosOptions`]: SPNEGO over HTTP(S), SASL GSSAPI over TCP with each [`Qop`]).
//! Passwords and header values are [`Secret`]s: never in `Debug` output or errors.
//!
//! Metrics (calls and their latency per operation and backend, retries and their causes,
//! scanners, pool waits, bytes read) go through the `metrics` facade to whatever recorder the
//! application installs: see [`observe`] for the names and labels.
//!
//! Cargo features: `thrift1`, `native` and `memory` (the Thrift1 backend, HBase's own RPC, the
//! in-memory store) are on by default; `kerberos` is not (it needs the system's Kerberos
//! headers, `libkrb5-dev`, to build). The Thrift2 backend is always built. A client asked for a
//! backend left out fails at `build()` with an error naming the feature.
//!
//! This layer is the raw client: [`Client`] (its connections to the gateway or the region
//! servers), [`Table`] for
//! reads, writes and scans, [`Admin`] for namespaces and tables, and the protocol-neutral
//! request types ([`Put`], [`Get`], [`Scan`], [`Delete`], [`Increment`], [`Append`],
//! [`RowMutations`], [`CheckAndMutate`]) and results ([`Row`], [`Cell`]).
//!
//! ```no_run
//! # async fn demo() -> hbase_orm::Result<()> {
//! use futures::TryStreamExt;
//! use hbase_orm::{Client, Get, Put, Scan};
//!
//! let client = Client::builder().address("127.0.0.1:9090").pool_size(8).build().await?;
//! let users = client.table("users")?;
//! users.put(Put::new("u1").column("d", "name", "Ada")).await?;
//! let row = users.get(Get::new("u1")).await?;
//! let all: Vec<_> = users.scan(Scan::new().prefix("u").limit(100)).try_collect().await?;
//! # Ok(()) }
//! ```
//!
//! The entity layer sits on top: `#[derive(HBaseEntity)]` on a struct, then
//! [`Client::repository`] for typed saves, gets and scans (see [`entity`] and [`Repository`]).
//!
//! # How the crate is built
//!
//! Folders of `hbase-orm/src`, from the top down. Each may import from the folders below it
//! and never from one above; inside a folder, files name each other's items by their own
//! paths, not through the crate root.
//!
//! | folder or file | what it holds | imports from |
//! | --- | --- | --- |
//! | `lib.rs`, `entity.rs` | the public paths: re-exports, and the `entity` and `records` modules gathering the mapping and the repository types users name | everything below |
//! | `advice.rs` | schema design advice on an entity | `mapping`, `schema`, `model` |
//! | `repository/` | async typed operations: [`Repository`], entity scans and filters, wide maps, index maintenance, record sets, dictionaries, `Admin::ensure*` | `mapping`, `schema`, `client`, `model` |
//! | `mapping/` | how a struct is stored, no I/O: the [`HBaseEntity`] contract, codecs, row-key parts, cells to fields and back, indexes and record sets as declared | `schema`, `model` |
//! | `schema/` | table descriptors from declarations, the ensure report, per-period table names; no I/O | `model` |
//! | `client/` | [`Client`], [`Table`], [`Admin`], scan streams and their plan, retries under a deadline | `backend`, `model` |
//! | `backend/` | the wire boundary: the `Backend` trait, each operation a value with its name, retry safety and checks (`op.rs`); the stores `thrift2/`, `thrift1/` (with `wire/`, what the two gateways share: connections over TCP, HTTP(S) and Kerberos, pools, the checked readers), `native/` (HBase's own RPC to the region servers and the master) and `memory/`; `filter_language/`, HBase's filter language parsed for the backends that read it | `model` |
//! | `model/` | the vocabulary every layer speaks: requests, rows and cells, scanner pages, tables and families, [`Config`], [`Error`] | nothing of the crate |
//!
//! Unit tests sit at the end of the file they test while short (up to about 150 lines);
//! longer ones go to a `tests.rs` child of the `mod.rs` they test, a plain file with long
//! tests becoming a folder of its own (`x/mod.rs` and `x/tests.rs`). Test support shared by
//! several test modules (reply fuzzers, the allocation counter) lives in a `testing/` folder
//! beside the code it serves, declared under `cfg(test)` after the production modules.
#![warn(missing_docs)]

pub mod advice;
mod backend;
mod client;
pub mod entity;
mod mapping;
mod model;
pub mod observe;
mod repository;
mod schema;

// Inlined so the docs list them as the crate's own modules, where users name them.
#[doc(inline)]
pub use entity::{codec, records, rowkey};

/// Derives [`entity::ColumnGroup`] for a struct stored as columns of an entity's row.
pub use hbase_orm_derive::HBaseColumns;
/// Derives [`HBaseEntity`] for a struct stored as HBase rows.
///
/// Every attribute, on the struct and on fields, is listed in the tables of
/// [`HBaseEntity`'s documentation](HBaseEntity#attributes). Besides the impl, the derive
/// writes, next to the struct and with its visibility:
///
/// - the key type `<Struct>Key` (or `key_struct = "..."`) with one public field per key part,
///   and one `prefix_by_<parts>` function per proper prefix of the key parts, for prefix scans;
/// - one typed handle per stored field, an associated constant named after the field in upper
///   case (`Order::CITY`, a [`entity::Field`]; a wide map's is an [`entity::WideField`]; a
///   counter's a `Field<_, i64, `[`Counter`]`>`, the only handle increments take), for typed
///   filters ([`EntityScan::where_eq`]), projections ([`Repository::get_fields`],
///   [`EntityScan::fields`]), wide-map access ([`Repository::wide`]) and counters
///   ([`Repository::increment`], [`Repository::counter`]);
/// - per `index(name = "by_city", ...)`, a marker type `<Struct>` + the name in camel case
///   (`OrderByCity`, implementing [`Index`]) to query it with
///   [`Repository::index`], and its key type `OrderByCityKey` with `prefix_by_<parts>`
///   functions like an entity key's.
///
/// ```
/// use hbase_orm::HBaseEntity;
///
/// #[derive(HBaseEntity, Debug, Clone, PartialEq)]
/// #[hbase(table = "orders", family = "d", key_delimiter = '\0',
///         index(name = "by_city", parts = "city, customer, number"))]
/// struct Order {
///     #[hbase(key)]
///     customer: String,
///     #[hbase(key)]
///     number: u32,
///     city: String,
///     #[hbase(counter)]
///     views: i64,
/// }
///
/// // The key type and its prefixes.
/// let key = OrderKey { customer: "acme".into(), number: 7 };
/// let of_acme = OrderKey::prefix_by_customer(&"acme".into()).unwrap();
/// assert_eq!(of_acme.bytes, b"acme\0");
/// // Typed field handles: checked by the compiler, encoded with the field's codec.
/// assert_eq!(Order::CITY.def().qualifier, "city");
/// assert_eq!(Order::VIEWS.def().field, "views");
/// let _: hbase_orm::entity::Field<Order, i64, hbase_orm::Counter> = Order::VIEWS;
/// // The index marker and its key type.
/// let in_oslo = OrderByCityKey::prefix_by_city(&"Oslo".into()).unwrap();
/// assert_eq!(in_oslo.bytes, b"Oslo\0");
/// # let _ = (key, std::marker::PhantomData::<OrderByCity>);
/// ```
pub use hbase_orm_derive::HBaseEntity;
/// Derives [`records::RecordSet`] for an enum of entity types sharing one table.
pub use hbase_orm_derive::HBaseRecord;
pub use mapping::codec::{Codec, Counter, Json, KeyRef, Native, Value};
pub use mapping::read::ReadOptions;
pub use mapping::records::RecordSet;
pub use mapping::rowkey::KeyPrefix;
pub use mapping::DictName;
pub use mapping::{ColumnGroup, EntityKey, HBaseEntity, Versioned, Versions};
pub use mapping::{Index, IndexRepair};
pub use repository::dictionary::Dictionary;
pub use repository::index::IndexScan;
pub use repository::records::Records;
pub use repository::repo::Repository;
pub use repository::scan::{EntityScan, Page};
pub use repository::versions::CellVersions;
pub use repository::wide::{WideMap, WidePage, WideSlice};

pub use bytes::Bytes;
pub use client::{Admin, Client, ClientBuilder, ClientStats, RowStream, Table};
#[doc(hidden)]
pub use model::family_option;
pub use model::{
    filter_literal, prefix_end, printable_key, Append, BloomFilter, Cell, CheckAndMutate,
    ClientIdentity, Column, ColumnFamily, CompareOp, Compression, Config, Credentials,
    CredentialsAs, DataBlockEncoding, Delete, DeleteTarget, Durability, Error, Gateway, Get,
    HttpOptions, Increment, KeepDeletedCells, KerberosMechanism, KerberosOptions, Mutation,
    Protocol, Put, PutCell, Qop, RegionLocation, Registry, Result, Row, RowMutations, Scan, Secret,
    TableDescriptor, TableName, TimeRange, TlsOptions, Transport, TrustRoots,
};
pub use schema::{
    render_table_template, table_template_start, template_period_ms, EnsureReport, OptionChange,
    TableSchema,
};

/// The README's Rust example, compiled as a doctest so it cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeExample;

/// The crate's own README (what crates.io shows), compiled as a doctest too.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct CrateReadmeExample;
