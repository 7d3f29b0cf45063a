//! # hbase-orm
//!
//! An async data-access layer for Apache HBase on tokio. Declare how a struct is stored
//! (namespace, table, column families, columns, and how its row key is composed) with
//! `#[derive(HBaseEntity)]`; read and write it through a [`Repository`]. The client speaks
//! HBase's own RPC straight to the region servers, or goes through HBase's Thrift2 or Thrift1
//! gateway (over TCP, HTTP or HTTPS, with Kerberos where the cluster is secured), or keeps
//! everything in an in-memory store with HBase's semantics for unit tests. What a backend
//! cannot do is [`Error::Unsupported`], never a silent difference.
//!
//! # A first entity
//!
//! ```
//! use futures::TryStreamExt;
//! use hbase_orm::{Client, HBaseEntity};
//!
//! /// A message of a conversation, newest first: the key is the conversation, then the
//! /// time reversed, so a prefix scan of a conversation reads its latest messages first.
//! #[derive(HBaseEntity, Debug, Clone, PartialEq)]
//! #[hbase(namespace = "chat", table = "messages", family = "m")]
//! struct Message {
//!     #[hbase(key)]
//!     conversation: u64,
//!     #[hbase(key(reverse_timestamp))]
//!     sent_at: i64,
//!     author: String,
//!     text: String,
//!     edited: Option<bool>,
//! }
//!
//! # #[tokio::main] async fn main() -> hbase_orm::Result<()> {
//! // HBASE_ORM_URL picks the store (`memory://` here would do the same as in_memory()).
//! # std::env::set_var("HBASE_ORM_URL", "memory://");
//! let client = Client::from_env().await?;
//! // Creates the namespace and the table as declared (and changes nothing the second time).
//! client.admin().ensure::<Message>().await?;
//!
//! let messages = client.repository::<Message>();
//! for (sent_at, text) in [(1_000, "hello"), (2_000, "anyone?")] {
//!     let m = Message { conversation: 7, sent_at, author: "ada".into(), text: text.into(), edited: None };
//!     messages.save(&m).await?;
//! }
//! let first = messages.get(&MessageKey { conversation: 7, sent_at: 1_000 }).await?;
//! assert_eq!(first.map(|m| m.text), Some("hello".to_string()));
//!
//! let latest: Vec<Message> = messages
//!     .scan()
//!     .prefix(MessageKey::prefix_by_conversation(&7)?)
//!     .stream()
//!     .try_collect()
//!     .await?;
//! assert_eq!(latest[0].text, "anyone?");
//! # Ok(()) }
//! ```
//!
//! # Connecting
//!
//! [`Client::connect`] takes a URL, [`Client::from_env`] the URL in `HBASE_ORM_URL` (the
//! Thrift2 gateway at `127.0.0.1:9090` when it is not set), [`Client::builder`] every setting
//! one by one, [`Client::in_memory`] nothing at all.
//!
//! | URL | talks to | cargo feature |
//! | --- | --- | --- |
//! | `hbase://zk1:2181,zk2:2181` | HBase's own RPC to the region servers and master, found through the cluster's ZooKeeper quorum | `native` |
//! | `hbase+rpc://master1:16000,master2:16000` | the same, found through the masters' registry service (HBase 2.3 and later, no ZooKeeper) | `native` |
//! | `thrift2://host:9090` | a Thrift2 gateway (`hbase thrift2`) over TCP | `thrift2` |
//! | `thrift1://host:9090` | a Thrift1 gateway (`hbase thrift`, what HappyBase speaks) over TCP | `thrift1` |
//! | `thrift2+http://host:port/path`, `thrift1+http://...` | a gateway serving Thrift over HTTP (`hbase.regionserver.thrift.http`) | as above, and `http` |
//! | `thrift2+https://host:port/path`, `thrift1+https://...` | the same over TLS | as above, and `tls` |
//! | `memory://` | a new, empty in-memory store ([`Client::in_memory`]) | `memory` |
//!
//! Several gateways or quorum members are listed with commas. Over HTTP(S),
//! `user:password@host:port` sends credentials with every call (HTTP basic; write `@`, `:`,
//! `/`, `?` and `#` in them as `%40`, `%3A`, `%2F`, `%3F`, `%23`). Options follow `?`, joined
//! by `&` (`thrift2://gw:9090?transport=framed&protocol=compact&pool_size=16`):
//!
//! | option | values | for | default |
//! | --- | --- | --- | --- |
//! | `transport` | `buffered`, `framed` (must match the gateway's `-f`) | TCP gateways | `buffered` |
//! | `protocol` | `binary`, `compact` (must match the gateway's `-c`) | gateways | `binary` |
//! | `pool_size` | connections kept, and calls in flight at once | gateways | 8 |
//! | `connect_timeout_ms` | limit for opening a connection | all | 5000 |
//! | `timeout_ms` | limit for one call | all | 60000 |
//! | `pool_timeout_ms` | limit for waiting for a free connection | gateways | 30000 |
//! | `max_idle_ms` | idle connections older than this are replaced | gateways | 45000 |
//! | `max_reply_bytes` | largest reply accepted | all | 268435456 |
//! | `retry_deadline_ms` | how long a call that failed for a passing reason is sent again (0: once) | all | 30000 |
//! | `retry_backoff_ms` | first wait between attempts (doubling up to 2 s) | all | 50 |
//! | `znode` | the cluster's parent znode (`zookeeper.znode.parent`) | `hbase://` | `/hbase` |
//! | `primary_call_timeout_ms` | how long a timeline read waits for the primary replica before asking the secondaries | `hbase://`, `hbase+rpc://` | 10 |
//! | `do_as` | the user to act for (the gateway's proxy-user support) | HTTP(S) | none |
//! | `ca_file` | a PEM file of the CAs to trust instead of the system's | HTTPS | system roots |
//! | `server_name` | the name the gateway's certificate must carry | HTTPS | the URL's host |
//! | `auth` | `kerberos` (cargo feature `kerberos`; see [`KerberosOptions`]) | all but `memory://` | none |
//! | `kerberos_service` | first part of the server's principal | with `auth=kerberos` | `hbase` (SASL), `HTTP` (SPNEGO) |
//! | `kerberos_host` | host part of the server's principal | with `auth=kerberos` | the URL's host |
//! | `qop` | least protection accepted: `auth`, `auth-int`, `auth-conf` ([`Qop`]) | with `auth=kerberos`, TCP | `auth` |
//!
//! An unknown option, a bad port or a setting that does not fit the URL is an
//! [`Error::Config`] that names it; a password in a URL never shows in an error. The same
//! settings are fields of [`Config`] and methods of [`ClientBuilder`].
//!
//! # Cargo features
//!
//! | feature | default | what it builds |
//! | --- | --- | --- |
//! | `native` | on | HBase's own RPC (`hbase://`, `hbase+rpc://`): protobuf and a ZooKeeper client |
//! | `thrift2` | on | the Thrift2 gateway backend (`thrift2://`): the Thrift runtime |
//! | `thrift1` | on | the Thrift1 gateway backend (`thrift1://`): the Thrift runtime and HBase's Thrift1 bindings |
//! | `memory` | on | the in-memory store ([`Client::in_memory`], `memory://`) |
//! | `bulk-load` | on | `Table::bulk_load` and `Repository::bulk_load`, with `native`: the HFile writer (`hbase-orm-hfile`: CRC32C, gzip and Snappy codecs) |
//! | `http` | on | Thrift over HTTP for the gateways built (`+http://`): hyper |
//! | `tls` | on | HTTPS (`+https://`, [`TlsOptions`]), with `http`: rustls, with ring as its cryptography |
//! | `kerberos` | off | Kerberos to secured servers (SPNEGO, SASL GSSAPI); needs the system's `libkrb5-dev` to build |
//!
//! A client asked for a backend or transport left out of the build fails at `build()` with an
//! error naming the features to turn on. With `default-features = false`, list what the
//! application uses: `features = ["memory"]` for unit tests on the in-memory store alone,
//! `["native"]` for a client of the region servers, `["thrift2"]` for the Thrift2 gateway over
//! TCP, with `"http"` or `"tls"` behind HTTP or HTTPS; an application that uses one backend and
//! tests on the in-memory store adds `features = ["memory"]` to its `[dev-dependencies]` entry.
//! The first build of a small application on the in-memory store (one derived entity, nothing
//! built yet) compiles 58 crates in about 40 s with `["memory"]`, 167 crates in 1 min 35 s to
//! 1 min 53 s with the default features (2 cores).
//!
//! # Where to go next
//!
//! - Declaring entities: every attribute, on the struct and on fields, is in the tables of
//!   [`HBaseEntity`'s documentation](HBaseEntity#attributes): composite, fixed-width,
//!   order-preserving, reverse-timestamp, hashed, salted and dictionary keys; families and
//!   their options; multi-version fields, wide maps, counters, version fields for optimistic
//!   writes, JSON values, flattened column groups, secondary indexes; record types sharing a
//!   table ([`HBaseRecord`](derive@HBaseRecord)).
//! - Reading and writing them: [`Repository`] (gets, saves, inserts, [`Repository::modify`],
//!   deletes, counters, wide maps, [`Repository::index`]), [`EntityScan`] (prefixes, ranges,
//!   reversed scans, typed filters, projections, [`Page`]s), [`Admin::ensure`] (tables from
//!   declarations) and [`advice`] (what a declaration will cost in HBase).
//! - The raw client under them: [`Table`] (the requests [`Put`], [`Get`], [`Scan`],
//!   [`Delete`], [`Increment`], [`Append`], [`RowMutations`], [`CheckAndMutate`]; results
//!   [`Row`], [`Cell`]) and [`Admin`] (namespaces, tables, families, regions).
//! - Errors you can act on: [`Error`]. Metrics (calls, latency, retries, scanners, pools):
//!   [`observe`]. Secured gateways: [`TlsOptions`], [`HttpOptions`], [`KerberosOptions`];
//!   passwords and header values are [`Secret`]s, never in `Debug` output or errors.
//! - The repository's `examples/` (ten case studies from the HBase reference guide and the
//!   design notes, each runnable against HBase or `HBASE_ORM_URL=memory://`) and its README
//!   (a local HBase in one command, figures measured against real HBase). How the crate is
//!   built is in the repository's `CONTRIBUTING.md`.
#![warn(missing_docs)]

pub mod advice;
mod backend;
#[cfg(feature = "bulk-load")]
mod bulk;
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

#[cfg(feature = "bulk-load")]
pub use bulk::{BulkLoadOptions, BulkLoadReport, BulkLoadSettings};

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
pub use repository::repo::{EntityRead, Repository};
pub use repository::scan::{EntityScan, Page};
pub use repository::versions::CellVersions;
pub use repository::wide::{WideMap, WidePage, WideSlice};

pub use bytes::Bytes;
pub use client::{Admin, Client, ClientBuilder, ClientStats, RowStream, Table};
#[doc(hidden)]
pub use model::family_option;
pub use model::{
    filter_literal, prefix_end, printable_key, single_column_value_filter, Action, Append,
    BloomFilter, Cell, CellRef, CheckAndMutate, ClientIdentity, Column, ColumnFamily, CompareOp,
    Compression, Config, Consistency, Credentials, CredentialsAs, DataBlockEncoding, Delete,
    DeleteTarget, Denial, Durability, Error, Gateway, Get, HttpOptions, Increment,
    KeepDeletedCells, KerberosMechanism, KerberosOptions, Mutation, Permission, PermissionScope,
    Protocol, Put, PutCell, Qop, RegionLocation, Registry, Result, Row, RowKeys, RowMutations,
    Scan, ScannedRow, Secret, TableDescriptor, TableName, TimeRange, TlsOptions, Transport,
    TrustRoots,
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
