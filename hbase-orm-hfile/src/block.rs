//! Blocks: every part of an HFile but its trailer is a block of a 33-byte header, a body
//! (compressed with the file's codec) and a CRC32C per 16 KiB of header and body.

use std::io::Write;

use crate::compression::Compression;
use crate::Result;

/// The kinds of block a bulk-load file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlockType {
    Data,
    LeafIndex,
    BloomChunk,
    IntermediateIndex,
    RootIndex,
    FileInfo,
    GeneralBloomMeta,
}

impl BlockType {
    /// The 8 bytes a block of this type starts with.
    fn magic(self) -> &'static [u8; 8] {
        match self {
            BlockType::Data => b"DATABLK*",
            BlockType::LeafIndex => b"IDXLEAF2",
            BlockType::BloomChunk => b"BLMFBLK2",
            BlockType::IntermediateIndex => b"IDXINTE2",
            BlockType::RootIndex => b"IDXROOT2",
            BlockType::FileInfo => b"FILEINF2",
            BlockType::GeneralBloomMeta => b"BLMFMET2",
        }
    }

    /// The type of a block starting with `magic` (of those a bulk-load file holds).
    pub(crate) fn of_magic(magic: &[u8]) -> Option<BlockType> {
        [
            BlockType::Data,
            BlockType::LeafIndex,
            BlockType::BloomChunk,
            BlockType::IntermediateIndex,
            BlockType::RootIndex,
            BlockType::FileInfo,
            BlockType::GeneralBloomMeta,
        ]
        .into_iter()
        .find(|kind| kind.magic() == magic)
    }

    /// Which earlier block a block's header points back to: the last one of the same kind.
    fn slot(self) -> usize {
        self as usize
    }
}

/// The size of a block header (HBase's header with checksum fields).
pub(crate) const HEADER_LEN: usize = 33;

/// Bytes covered by one checksum (HBase's `hbase.hstore.bytes.per.checksum` default).
const BYTES_PER_CHECKSUM: usize = 16 * 1024;

/// The header's checksum type: CRC32C.
pub(crate) const CRC32C: u8 = 2;

/// Where a written block lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Placed {
    /// Its offset in the file.
    pub offset: u64,
    /// Its whole size on disk: header, body as stored, checksums.
    pub on_disk: u32,
    /// The size of its body before compression.
    pub uncompressed: u32,
}

/// Writes blocks one after the other and keeps the file's position.
pub(crate) struct BlockWriter<W> {
    out: W,
    position: u64,
    compression: Compression,
    /// Per block type, the offset of the last block written (-1: none yet).
    previous: [i64; 7],
    /// A compressed block's stored body (reused).
    buffer: Vec<u8>,
    /// A block's checksums (reused).
    sums: Vec<u8>,
}

impl<W: Write> BlockWriter<W> {
    pub(crate) fn new(out: W, compression: Compression) -> Self {
        BlockWriter {
            out,
            position: 0,
            compression,
            previous: [-1; 7],
            buffer: Vec::new(),
            sums: Vec::new(),
        }
    }

    /// The offset the next block will have.
    pub(crate) fn position(&self) -> u64 {
        self.position
    }

    /// Writes one block of `kind` with this body. An uncompressed body goes out as it is,
    /// between its header and its checksums, without being copied into the block's buffer.
    pub(crate) fn write(&mut self, kind: BlockType, body: &[u8]) -> Result<Placed> {
        let offset = self.position;
        let stored = match self.compression {
            Compression::None => body,
            compression => {
                self.buffer.clear();
                compression.compress(body, &mut self.buffer)?;
                &self.buffer
            }
        };
        let with_header = HEADER_LEN + stored.len();
        let chunks = with_header.div_ceil(BYTES_PER_CHECKSUM);
        let on_disk = with_header + 4 * chunks;
        let mut header = [0u8; HEADER_LEN];
        header[0..8].copy_from_slice(kind.magic());
        header[8..12].copy_from_slice(&to_i32(on_disk - HEADER_LEN)?.to_be_bytes());
        header[12..16].copy_from_slice(&to_i32(body.len())?.to_be_bytes());
        header[16..24].copy_from_slice(&self.previous[kind.slot()].to_be_bytes());
        header[24] = CRC32C;
        header[25..29].copy_from_slice(&(BYTES_PER_CHECKSUM as i32).to_be_bytes());
        header[29..33].copy_from_slice(&to_i32(with_header)?.to_be_bytes());
        // A CRC32C of every 16 KiB of header and stored body together (the first chunk holds
        // the header).
        let sums = &mut self.sums;
        sums.clear();
        let (mut crc, mut filled, mut rest) = (crc32c::crc32c(&header), HEADER_LEN, stored);
        while !rest.is_empty() {
            let take = (BYTES_PER_CHECKSUM - filled).min(rest.len());
            crc = crc32c::crc32c_append(crc, &rest[..take]);
            rest = &rest[take..];
            filled += take;
            if filled == BYTES_PER_CHECKSUM {
                sums.extend_from_slice(&crc.to_be_bytes());
                (crc, filled) = (0, 0);
            }
        }
        if filled > 0 {
            sums.extend_from_slice(&crc.to_be_bytes());
        }
        debug_assert_eq!(sums.len(), 4 * chunks);
        self.out.write_all(&header)?;
        self.out.write_all(stored)?;
        self.out.write_all(sums)?;
        self.position += on_disk as u64;
        self.previous[kind.slot()] = offset as i64;
        Ok(Placed {
            offset,
            on_disk: on_disk as u32,
            uncompressed: body.len() as u32,
        })
    }

    /// Writes bytes that are not a block (the trailer).
    pub(crate) fn write_raw(&mut self, bytes: &[u8]) -> Result<()> {
        self.out.write_all(bytes)?;
        self.position += bytes.len() as u64;
        Ok(())
    }

    /// The sink, flushed.
    pub(crate) fn finish(mut self) -> Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// A size as the header's signed 32 bits.
fn to_i32(n: usize) -> Result<i32> {
    i32::try_from(n).map_err(|_| crate::Error::TooLarge {
        what: "block",
        size: n as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The block of the one-cell file HBase writes (its first 68 bytes).
    #[test]
    fn a_block_is_a_header_a_body_and_its_checksum() {
        let body = [
            0, 0, 0, 0x12, 0, 0, 0, 2, 0, 4, b'r', b'o', b'w', b'1', 1, b'f', b'q', 0, 0, 1, 0x8b,
            0xcf, 0xe5, 0x68, 0, 4, b'v', b'1', 0, 0, 0,
        ];
        let mut writer = BlockWriter::new(Vec::new(), Compression::None);
        let placed = writer.write(BlockType::Data, &body).unwrap();
        assert_eq!(
            placed,
            Placed {
                offset: 0,
                on_disk: 68,
                uncompressed: 31
            }
        );
        let out = writer.finish().unwrap();
        assert_eq!(&out[..8], b"DATABLK*");
        assert_eq!(
            &out[8..33],
            &[
                0, 0, 0, 0x23, 0, 0, 0, 0x1f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0,
                0, 0x40, 0, 0, 0, 0, 0x40
            ]
        );
        assert_eq!(&out[64..], &[0xda, 0x59, 0xd9, 0xc5]);
    }

    /// A body over 16 KiB has one checksum per 16 KiB of header and body, and a block points
    /// back to the block of its type before it.
    #[test]
    fn a_large_block_has_a_checksum_per_chunk() {
        let mut writer = BlockWriter::new(Vec::new(), Compression::None);
        let first = writer.write(BlockType::Data, &[7; 40_000]).unwrap();
        let second = writer.write(BlockType::Data, &[7; 10]).unwrap();
        assert_eq!(first.on_disk as usize, 33 + 40_000 + 4 * 3);
        let out = writer.finish().unwrap();
        let at = second.offset as usize;
        assert_eq!(&out[at + 16..at + 24], &0i64.to_be_bytes());
        let crc = crc32c::crc32c(&out[16_384..32_768]);
        assert_eq!(&out[40_033 + 4..40_033 + 8], &crc.to_be_bytes());
    }

    /// Header and stored body end in one checksum per 16 KiB of the two together, whatever
    /// the body's length (none, a chunk's end falling at the body's end, one byte either side
    /// of it), stored as it is or compressed.
    #[test]
    fn the_checksums_cover_header_and_body_chunk_by_chunk() {
        let lengths = [0, 1, 16_351, 16_352, 16_353, 32_735, 40_000];
        for compression in [Compression::None, Compression::Gz] {
            for len in lengths {
                let body: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
                let mut writer = BlockWriter::new(Vec::new(), compression);
                let placed = writer.write(BlockType::Data, &body).unwrap();
                let out = writer.finish().unwrap();
                assert_eq!(out.len(), placed.on_disk as usize, "{compression:?} {len}");
                let with_header = i32::from_be_bytes(out[29..33].try_into().unwrap()) as usize;
                let chunks = with_header.div_ceil(BYTES_PER_CHECKSUM);
                assert_eq!(out.len(), with_header + 4 * chunks, "{compression:?} {len}");
                let sums = &out[with_header..];
                for (i, chunk) in out[..with_header].chunks(BYTES_PER_CHECKSUM).enumerate() {
                    let crc = crc32c::crc32c(chunk).to_be_bytes();
                    assert_eq!(
                        sums[4 * i..4 * i + 4],
                        crc,
                        "{compression:?} {len} chunk {i}"
                    );
                }
                if compression == Compression::None {
                    assert_eq!(&out[HEADER_LEN..with_header], &body[..]);
                }
            }
        }
    }
}
