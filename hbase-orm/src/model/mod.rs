//! The vocabulary every layer speaks: requests ([`Put`], [`Get`], [`Scan`], ...) and results
//! ([`Row`], [`Cell`]; inside the crate, scanner pages kept in the buffer their reply arrived
//! in), tables and column families with their options, the client's settings and the one
//! [`Error`] type. Nothing here does I/O.

mod check;
mod config;
mod data;
mod error;
mod family;
mod page;
mod table;

pub use config::{Config, Gateway, Protocol, Transport};
pub use data::*;
pub(crate) use error::BatchFailures;
pub use error::{Error, Result};
pub(crate) use family::for_each_family_option;
pub use family::{
    family_option, BloomFilter, ColumnFamily, Compression, DataBlockEncoding, KeepDeletedCells,
};
pub(crate) use page::{CellRef, OutOfPage, ScannedRow, ScannerPage, ScannerPageBuilder};
pub use table::{RegionLocation, TableDescriptor, TableName};
