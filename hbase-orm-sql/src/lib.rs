//! SQL and Apache Arrow over [`hbase_orm`] entity tables, with nothing installed on the
//! cluster.
//!
//! An entity's declaration says what a SQL engine needs: its columns and their types, which
//! columns form the row key and how it is encoded, its salt and record type. This crate turns
//! it into:
//!
//! - Arrow record batches built straight from scanned cells ([`BatchBuilder`],
//!   [`EntityTable::batches`]), no entity made on the way: key parts as columns, plain
//!   fields, counters and the version field as columns typed by their codecs (nullable
//!   where the entity can lack a value: `Option` fields and fields with a default),
//!   `Versions` fields as lists of `{timestamp, value}`, wide maps as maps of `{key, value}`
//!   ([`EntitySchema`]);
//! - Arrow batches of raw cells (row, family, qualifier, timestamp, value) from any scan
//!   ([`cell_batches`]);
//! - a DataFusion table per entity ([`EntityTable`], [`register`]) that reads only the
//!   columns a query names, only the key ranges its conditions on the leading key parts allow
//!   (whole keys with gets), only the rows whose keys pass its `=` conditions on later key
//!   parts ([`key_tests`]), only the rows its conditions on stored values keep where HBase can
//!   test them exactly (a `SingleColumnValueFilter` on the cell's bytes: text, bytes and
//!   unsigned integers for every comparison, signed integers for `=` and `<>`,
//!   `IS [NOT] NULL`, and `AND`, `OR`, `NOT` of those), about its `LIMIT` rows when nothing is
//!   filtered after the scan, one partition per region; and `INSERT INTO` that saves each
//!   row as an entity (for entities of key parts and plain fields).
//!
//! ```no_run
//! use datafusion::prelude::SessionContext;
//! use hbase_orm::{Client, HBaseEntity};
//!
//! #[derive(HBaseEntity)]
//! #[hbase(table = "orders", family = "d", key_delimiter = '\0')]
//! struct Order {
//!     #[hbase(key)]
//!     customer: String,
//!     #[hbase(key)]
//!     number: u32,
//!     total: f64,
//! }
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let client = Client::from_env().await?;
//! let ctx = SessionContext::new();
//! let orders = hbase_orm_sql::register::<Order>(&ctx, &client)?;
//! // Reads the rows of one customer only (a prefix of the row key), and their `total` cells.
//! let df = ctx
//!     .sql("SELECT number, total FROM orders WHERE customer = 'acme' ORDER BY number")
//!     .await?;
//! df.show().await?;
//! println!("{:?}", orders.read_counts());
//! # Ok(()) }
//! ```
//!
//! Not yet: flattened groups and children as columns, JSON fields as structs (they are text);
//! hashed and dictionary key parts and per-period tables (refused with `Error::Unsupported`).
//! Conditions HBase cannot test exactly (on floats, booleans, JSON, or mixing key parts and
//! stored values) are DataFusion's, on the rows read.
#![warn(missing_docs)]

mod batches;
mod columns;
mod insert;
mod provider;
mod pushdown;
mod raw;
mod scan;
mod schema;
mod subranges;
mod values;

pub use batches::BatchBuilder;
pub use insert::EntityWriteExec;
pub use provider::{register, register_as, EntityScanExec, EntityTable, ReadSettings, BATCH_ROWS};
pub use pushdown::{key_tests, spans, KeySpan};
pub use raw::{cell_batches, cell_schema, text_rows};
pub use scan::{ReadCounts, ReadStats};
pub use schema::{arrow_type, versions_item, EntitySchema, ENTITY_METADATA};

/// DataFusion, as this crate builds against it.
pub use datafusion;
