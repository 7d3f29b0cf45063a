//! The vocabulary every layer speaks: requests ([`Put`], [`Get`], [`Scan`], ...) and results
//! ([`Row`], [`Cell`]; inside the crate, scanner pages kept in the buffer their reply arrived
//! in), tables and column families with their options, the client's settings and the one
//! [`Error`] type. Nothing here does I/O.
//!
//! - `reads.rs`: [`Get`], [`Scan`], the [`Column`]s and [`TimeRange`] they select, their
//!   [`Consistency`], and
//!   [`filter_literal`] for their filters;
//! - `mutations.rs`: [`Put`], [`Delete`], [`Increment`], [`Append`], [`RowMutations`],
//!   [`CheckAndMutate`] and the [`Durability`] they write with;
//! - `rows.rs`: what a read answers, [`Row`] and [`Cell`];
//! - `keys.rs`: byte helpers for row keys ([`prefix_end`], [`printable_key`]);
//! - `page.rs`: inside the crate, a scanner page kept in the buffer its reply arrived in;
//! - `table.rs`, `family.rs`: a table's descriptor, name and regions, a column family and its
//!   options;
//! - `config.rs`: the client's settings; `backoff.rs`: inside the crate, the waits between
//!   attempts they describe; `access.rs`: those of a gateway behind HTTP or TLS
//!   and the [`Secret`] that keeps passwords out of messages; `error.rs`: [`Error`];
//! - `permissions.rs`: who may do what on a secured cluster, [`Permission`]s of [`Action`]s
//!   (`action.rs`) on a [`PermissionScope`]; `denial.rs`: HBase's refusals for permission
//!   read from its words ([`Denial`]);
//! - `check.rs`: inside the crate, the checks every request passes before a backend sees it.

/// Builder methods that each set one optional field of a request: `name(value)` stores
/// `Some(value)` in the field of the same name and hands the request back.
macro_rules! optional_setters {
    ($($(#[$doc:meta])* $name:ident: $ty:ty;)*) => {
        $(
            $(#[$doc])*
            pub fn $name(mut self, $name: $ty) -> Self {
                self.$name = Some($name);
                self
            }
        )*
    };
}

mod access;
mod action;
mod backoff;
pub(crate) use backoff::Backoff;
mod check;
#[cfg(feature = "bulk-load")]
pub(crate) use check::{MAX_CELL, MAX_ROW_KEY};
mod config;
mod denial;
mod error;
mod family;
mod keys;
mod mutations;
mod page;
mod permissions;
mod reads;
mod rows;
mod table;
mod text;

pub use access::{
    ClientIdentity, Credentials, CredentialsAs, HttpOptions, KerberosMechanism, KerberosOptions,
    Qop, Secret, TlsOptions, TrustRoots,
};
pub use config::{Config, Gateway, Protocol, Registry, Transport};
pub use denial::Denial;
pub(crate) use error::BatchFailures;
pub use error::{Error, Result};
// The backends that read and write family options one by one (Thrift2, native, memory).
pub use action::Action;
#[cfg_attr(
    not(any(feature = "thrift2", feature = "native", feature = "memory")),
    allow(unused_imports)
)]
pub(crate) use family::for_each_family_option;
pub use family::{
    family_option, BloomFilter, ColumnFamily, Compression, DataBlockEncoding, KeepDeletedCells,
};
pub use keys::{prefix_end, printable_key, RowKeys};
pub use mutations::{
    Append, CheckAndMutate, CompareOp, Delete, DeleteTarget, Durability, Increment, Mutation, Put,
    PutCell, RowMutations,
};
pub(crate) use page::ScannerPage;
pub use page::{CellRef, ScannedRow};
#[cfg(any(feature = "thrift2", feature = "native"))]
pub(crate) use page::{OutOfPage, ScannerPageBuilder};
pub use permissions::{Permission, PermissionScope};
pub use reads::{
    filter_literal, single_column_value_filter, Column, Consistency, Get, Scan, TimeRange,
};
pub use rows::{Cell, Row};
#[cfg_attr(
    not(any(feature = "thrift2", feature = "native")),
    allow(unused_imports)
)] // theirs
pub(crate) use table::REGION_REPLICATION_KEY;
pub use table::{RegionLocation, TableDescriptor, TableName};
pub use text::same_str;
