//! The codecs a block body can be stored with, as HBase's readers expect them framed.

use std::io::Write;

use crate::{Error, Result};

/// How block bodies are stored: a column family's `COMPRESSION`.
///
/// ```
/// use hbase_orm_hfile::Compression;
/// assert_eq!(Compression::from_name("gz").unwrap(), Compression::Gz);
/// assert!(Compression::from_name("LZO").is_err()); // a codec this writer cannot produce
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compression {
    /// Bodies as they are (HBase's default).
    #[default]
    None,
    /// One gzip member per block (HBase's `GZ`).
    Gz,
    /// Raw Snappy in Hadoop's block framing (HBase's `SNAPPY`).
    Snappy,
}

/// The most input bytes one Snappy frame carries in Hadoop's framing (its 256 KiB buffer less
/// the room Snappy's worst case needs).
const SNAPPY_FRAME_INPUT: usize = 256 * 1024 - (256 * 1024 / 6 + 32);

impl Compression {
    /// The codec a family's `COMPRESSION` names (`NONE`, `GZ`, `SNAPPY`; any case). Any other
    /// name (`LZO`, `LZ4`, `ZSTD`, `BZIP2`, ...) is [`Error::UnsupportedCompression`]: the file
    /// could not be written as the family stores its files.
    pub fn from_name(name: &str) -> Result<Self> {
        match name.to_ascii_uppercase().as_str() {
            "NONE" | "" => Ok(Compression::None),
            "GZ" => Ok(Compression::Gz),
            "SNAPPY" => Ok(Compression::Snappy),
            _ => Err(Error::UnsupportedCompression(name.to_string())),
        }
    }

    /// The codec's number in the trailer (HBase's `Compression.Algorithm` ordinal).
    pub(crate) fn ordinal(self) -> u32 {
        match self {
            Compression::Gz => 1,
            Compression::None => 2,
            Compression::Snappy => 3,
        }
    }

    /// Appends `body` as stored.
    pub(crate) fn compress(self, body: &[u8], out: &mut Vec<u8>) -> Result<()> {
        match self {
            Compression::None => out.extend_from_slice(body),
            Compression::Gz => {
                let mut encoder = flate2::GzBuilder::new()
                    .operating_system(255)
                    .write(out, flate2::Compression::new(6));
                encoder.write_all(body)?;
                encoder.finish()?;
            }
            Compression::Snappy => {
                let len = u32::try_from(body.len()).map_err(|_| Error::TooLarge {
                    what: "block",
                    size: body.len() as u64,
                })?;
                out.extend_from_slice(&len.to_be_bytes());
                let mut encoder = snap::raw::Encoder::new();
                for frame in body.chunks(SNAPPY_FRAME_INPUT) {
                    let at = out.len();
                    out.resize(at + 4 + snap::raw::max_compress_len(frame.len()), 0);
                    let n = encoder
                        .compress(frame, &mut out[at + 4..])
                        .map_err(|e| Error::Io(std::io::Error::other(e)))?;
                    out[at..at + 4].copy_from_slice(&(n as u32).to_be_bytes());
                    out.truncate(at + 4 + n);
                }
            }
        }
        Ok(())
    }
}

impl Compression {
    /// Appends the body `stored` holds, as [`Compression::compress`] stored it: `expected`
    /// bytes (a body that says it holds more is refused before it is decompressed further).
    pub(crate) fn decompress(
        self,
        stored: &[u8],
        expected: usize,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        use std::io::Read;
        let bad = |what: &str| Error::Io(std::io::Error::other(what.to_string()));
        let start = out.len();
        match self {
            Compression::None => out.extend_from_slice(stored),
            Compression::Gz => {
                flate2::read::MultiGzDecoder::new(stored)
                    .take(expected as u64 + 1)
                    .read_to_end(out)?;
            }
            Compression::Snappy => {
                let int = |at: usize| -> Result<usize> {
                    let bytes = stored
                        .get(at..at + 4)
                        .ok_or_else(|| bad("snappy: a frame cut short"))?;
                    Ok(u32::from_be_bytes(bytes.try_into().expect("4")) as usize)
                };
                if int(0)? != expected {
                    return Err(bad("snappy: a body of another length than its block's"));
                }
                let mut at = 4;
                let mut decoder = snap::raw::Decoder::new();
                while out.len() - start < expected {
                    let n = int(at)?;
                    let frame = stored
                        .get(at + 4..at + 4 + n)
                        .ok_or_else(|| bad("snappy: a frame cut short"))?;
                    let len = snap::raw::decompress_len(frame).map_err(std::io::Error::other)?;
                    if len > expected - (out.len() - start) {
                        return Err(bad("snappy: a frame longer than the body left"));
                    }
                    let from = out.len();
                    out.resize(from + len, 0);
                    decoder
                        .decompress(frame, &mut out[from..])
                        .map_err(std::io::Error::other)?;
                    at += 4 + n;
                }
            }
        }
        if out.len() - start != expected {
            return Err(bad("a body of another length than its block's"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn a_gz_body_is_one_gzip_member() {
        let body = b"a body that compresses, a body that compresses".repeat(10);
        let mut out = Vec::new();
        Compression::Gz.compress(&body, &mut out).unwrap();
        assert_eq!(&out[..10], &[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
        let mut back = Vec::new();
        flate2::read::GzDecoder::new(&out[..])
            .read_to_end(&mut back)
            .unwrap();
        assert_eq!(back, body);
    }

    /// Hadoop's framing: the body's length, then frames of a length and raw Snappy, each of at
    /// most the frame's input.
    #[test]
    fn a_snappy_body_is_framed_as_hadoop_frames_it() {
        let body: Vec<u8> = (0..600_000u32).map(|i| (i % 251) as u8).collect();
        let mut out = Vec::new();
        Compression::Snappy.compress(&body, &mut out).unwrap();
        assert_eq!(&out[..4], &600_000u32.to_be_bytes());
        let mut at = 4;
        let mut back = Vec::new();
        while at < out.len() {
            let n = u32::from_be_bytes(out[at..at + 4].try_into().unwrap()) as usize;
            let frame = snap::raw::Decoder::new()
                .decompress_vec(&out[at + 4..at + 4 + n])
                .unwrap();
            assert!(frame.len() <= SNAPPY_FRAME_INPUT);
            back.extend(frame);
            at += 4 + n;
        }
        assert_eq!(back, body);
    }
}
