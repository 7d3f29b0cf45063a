//! HFile version 3, written: the storage files of HBase 2.x, as its region servers read them
//! and bulk-load them.
//!
//! A [`Writer`] takes one column family's cells in HBase's order and writes a whole file to any
//! [`std::io::Write`]: data blocks cut at the family's block size, each with its 33-byte header
//! and a CRC32C per 16 KiB; the block index in as many levels as the file needs; a ROW bloom
//! filter when the family declares one; the file info HBase's own bulk-load writer records; the
//! trailer. Bodies are stored as the family's `COMPRESSION` says: `NONE`, `GZ` or `SNAPPY`
//! ([`Compression::from_name`] refuses the others before anything is written).
//!
//! A [`Reader`] reads such a file's cells back, in order, from its start (a load that must cut
//! its files again at other region boundaries reads them with it).
//!
//! The format knows nothing of tables, entities or RPC: which cells go into which file, and how
//! the files reach the region servers, is the caller's (hbase-orm's bulk load).
//!
//! ```
//! use hbase_orm_hfile::{Bloom, Cell, Compression, Options, Writer};
//!
//! let options = Options::new().compression(Compression::Gz).bloom(Bloom::Row);
//! let mut writer = Writer::new(Vec::new(), options);
//! for i in 0..1000u32 {
//!     let row = format!("order-{i:06}");
//!     writer.append(&Cell::put(row.as_bytes(), b"d", b"total", 1_700_000_000_000, b"42.50"))?;
//! }
//! let (file, summary) = writer.finish()?;
//! assert_eq!(summary.cells, 1000);
//! assert_eq!(&file[file.len() - 4..], &[3, 0, 0, 3]); // major and minor version 3
//! # Ok::<(), hbase_orm_hfile::Error>(())
//! ```
#![warn(missing_docs)]

mod block;
mod bloom;
mod cell;
mod compression;
mod error;
mod fill;
mod index;
mod reader;
mod trailer;
mod wire;
mod writer;

pub use cell::{compare_bytes, Cell, CellType, RowCell};
pub use compression::Compression;
pub use error::{Error, Result};
pub use reader::{ReadCell, Reader};
pub use writer::{Bloom, Options, Summary, Writer};
