//! The end of the file: its file info block (a sorted map of named values) and the fixed-size
//! trailer that tells the reader where everything is.

use std::collections::BTreeMap;

use prost::encoding::{encode_key, encode_varint, encoded_len_varint, WireType};

/// The trailer's size in a version 3 file.
pub(crate) const TRAILER_LEN: usize = 4096;

/// The trailer's first bytes.
const TRAILER_MAGIC: &[u8; 8] = b"TRABLK\"$";

/// Major version 3, minor version 3 (checksums in block headers), as the last 4 bytes hold it.
const VERSION: u32 = 3 | (3 << 24);

/// The comparator HBase 2 names in the trailer of a user table's file (its 1.x name, which
/// readers map to today's cell comparator).
const COMPARATOR: &str = "org.apache.hadoop.hbase.KeyValue$KVComparator";

/// The file info: names and values, written in name order.
#[derive(Default)]
pub(crate) struct FileInfo(BTreeMap<&'static str, Vec<u8>>);

impl FileInfo {
    pub(crate) fn set(&mut self, name: &'static str, value: impl Into<Vec<u8>>) {
        self.0.insert(name, value.into());
    }

    /// The block body: `PBUF` and a length-prefixed `FileInfoProto` of `BytesBytesPair`s.
    pub(crate) fn body(&self) -> Vec<u8> {
        let entry_len = |k: &str, v: &[u8]| {
            1 + encoded_len_varint(k.len() as u64)
                + k.len()
                + 1
                + encoded_len_varint(v.len() as u64)
                + v.len()
        };
        let message_len: usize = self
            .0
            .iter()
            .map(|(k, v)| {
                let n = entry_len(k, v);
                1 + encoded_len_varint(n as u64) + n
            })
            .sum();
        let mut out = Vec::with_capacity(4 + 5 + message_len);
        out.extend_from_slice(b"PBUF");
        encode_varint(message_len as u64, &mut out);
        for (k, v) in &self.0 {
            // `map_entry`, field 1, of `first` (1) and `second` (2).
            encode_key(1, WireType::LengthDelimited, &mut out);
            encode_varint(entry_len(k, v) as u64, &mut out);
            prost::encoding::bytes::encode(1, &k.as_bytes().to_vec(), &mut out);
            prost::encoding::bytes::encode(2, v, &mut out);
        }
        out
    }
}

/// What the trailer records.
pub(crate) struct Trailer {
    pub file_info_offset: u64,
    pub load_on_open_offset: u64,
    pub uncompressed_index_size: u64,
    pub total_uncompressed_bytes: u64,
    pub data_index_count: u32,
    pub entry_count: u64,
    pub index_levels: u32,
    /// `None` for a file without cells.
    pub data_blocks: Option<(u64, u64)>,
    pub compression: u32,
}

impl Trailer {
    /// The 4096 bytes: the magic, a length-prefixed `FileTrailerProto`, zeros, the version.
    pub(crate) fn bytes(&self) -> Vec<u8> {
        use prost::encoding::{string, uint32, uint64};
        let mut message = Vec::new();
        uint64::encode(1, &self.file_info_offset, &mut message);
        uint64::encode(2, &self.load_on_open_offset, &mut message);
        uint64::encode(3, &self.uncompressed_index_size, &mut message);
        uint64::encode(4, &self.total_uncompressed_bytes, &mut message);
        uint32::encode(5, &self.data_index_count, &mut message);
        uint32::encode(6, &0, &mut message);
        uint64::encode(7, &self.entry_count, &mut message);
        uint32::encode(8, &self.index_levels, &mut message);
        let (first, last) = self.data_blocks.unwrap_or((u64::MAX, u64::MAX));
        uint64::encode(9, &first, &mut message);
        uint64::encode(10, &last, &mut message);
        string::encode(11, &COMPARATOR.to_string(), &mut message);
        uint32::encode(12, &self.compression, &mut message);
        let mut out = Vec::with_capacity(TRAILER_LEN);
        out.extend_from_slice(TRAILER_MAGIC);
        encode_varint(message.len() as u64, &mut out);
        out.extend_from_slice(&message);
        out.resize(TRAILER_LEN - 4, 0);
        out.extend_from_slice(&VERSION.to_be_bytes());
        out
    }
}
