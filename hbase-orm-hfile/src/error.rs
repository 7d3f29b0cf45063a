//! What can go wrong while writing a file, or reading one back.

/// An error of the writer (or the reader). A refused cell leaves the file as it was: the writer takes the next.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The sink failed.
    #[error("writing the HFile failed: {0}")]
    Io(#[from] std::io::Error),
    /// A cell sorts before the cell written before it (cells must come in HBase's order: row,
    /// family, qualifier, newest timestamp first, delete markers before values).
    #[error("cells out of order: {cell} sorts before {previous}, written before it")]
    OutOfOrder {
        /// The key written before (`row/family:qualifier/timestamp/type`).
        previous: String,
        /// The key refused.
        cell: String,
    },
    /// A cell of another family than the file's (one file holds one family).
    #[error("a cell of family `{cell}` in a file of family `{file}`")]
    MixedFamilies {
        /// The file's family.
        file: String,
        /// The cell's.
        cell: String,
    },
    /// A cell that no key can hold.
    #[error("a cell the HFile cannot hold: {reason}")]
    BadCell {
        /// What is wrong with it.
        reason: String,
    },
    /// A block or cell larger than the format's 32-bit sizes.
    #[error("a {what} of {size} bytes, more than an HFile block can hold")]
    TooLarge {
        /// What was too large.
        what: &'static str,
        /// Its size.
        size: u64,
    },
    /// A `COMPRESSION` this writer cannot produce.
    #[error("compression `{0}` is not one this writer produces (NONE, GZ, SNAPPY)")]
    UnsupportedCompression(String),
    /// A file read back whose bytes are not what the format says (a checksum that does not
    /// match, a block that does not parse or decompress, a file cut short).
    #[error("the HFile is damaged at the block at offset {offset}: {reason}")]
    Corrupt {
        /// The block's offset in the file.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// A `BLOOMFILTER` this writer cannot produce.
    #[error("bloom filter `{0}` is not one this writer produces (NONE, ROW)")]
    UnsupportedBloom(String),
}

/// The writer's result.
pub type Result<T> = std::result::Result<T, Error>;
