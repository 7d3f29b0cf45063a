//! A file byte for byte as HBase 2.6.1's own writer makes it (its `StoreFileWriter`, set up as
//! `HFileOutputFormat2` sets it up, with the times fixed): one cell, `row1/f:q`, with a ROW bloom
//! filter. Every part of the format is in it: a data block, a bloom chunk, the data and meta
//! index roots, the file info, the bloom's meta block and the trailer. The reader reads it back.

use hbase_orm_hfile::{Bloom, Cell, CellType, Compression, Options, Reader, Writer};

/// The file's first 1,071 bytes; zeros follow up to the last four, the version.
const HBASE_WROTE: [&str; 67] = [
    "44 41 54 41 42 4c 4b 2a 00 00 00 23 00 00 00 1f",
    "ff ff ff ff ff ff ff ff 02 00 00 40 00 00 00 00",
    "40 00 00 00 12 00 00 00 02 00 04 72 6f 77 31 01",
    "66 71 00 00 01 8b cf e5 68 00 04 76 31 00 00 00",
    "da 59 d9 c5 42 4c 4d 46 42 4c 4b 32 00 00 00 06",
    "00 00 00 02 ff ff ff ff ff ff ff ff 02 00 00 40",
    "00 00 00 00 23 44 11 95 c2 42 ea 49 44 58 52 4f",
    "4f 54 32 00 00 00 23 00 00 00 1f ff ff ff ff ff",
    "ff ff ff 02 00 00 40 00 00 00 00 40 00 00 00 00",
    "00 00 00 00 00 00 00 44 12 00 04 72 6f 77 31 01",
    "66 71 00 00 01 8b cf e5 68 00 04 f5 a8 91 8c 49",
    "44 58 52 4f 4f 54 32 00 00 00 04 00 00 00 00 00",
    "00 00 00 00 00 00 6b 02 00 00 40 00 00 00 00 21",
    "4d 2e d3 63 46 49 4c 45 49 4e 46 32 00 00 02 8b",
    "00 00 02 87 ff ff ff ff ff ff ff ff 02 00 00 40",
    "00 00 00 02 a8 50 42 55 46 81 05 0a 18 0a 11 42",
    "4c 4f 4f 4d 5f 46 49 4c 54 45 52 5f 54 59 50 45",
    "12 03 52 4f 57 0a 35 0a 14 42 55 4c 4b 4c 4f 41",
    "44 5f 53 4f 55 52 43 45 5f 54 41 53 4b 12 1d 61",
    "74 74 65 6d 70 74 5f 6c 6f 63 61 6c 5f 30 30 30",
    "31 5f 72 5f 30 30 30 30 30 30 5f 30 0a 1e 0a 12",
    "42 55 4c 4b 4c 4f 41 44 5f 54 49 4d 45 53 54 41",
    "4d 50 12 08 00 00 01 8b cf e5 68 02 0a 1f 0a 13",
    "44 45 4c 45 54 45 5f 46 41 4d 49 4c 59 5f 43 4f",
    "55 4e 54 12 08 00 00 00 00 00 00 00 00 0a 1b 0a",
    "0f 45 41 52 4c 49 45 53 54 5f 50 55 54 5f 54 53",
    "12 08 00 00 01 8b cf e5 68 00 0a 22 0a 1d 45 58",
    "43 4c 55 44 45 5f 46 52 4f 4d 5f 4d 49 4e 4f 52",
    "5f 43 4f 4d 50 41 43 54 49 4f 4e 12 01 00 0a 0f",
    "0a 0a 48 49 53 54 4f 52 49 43 41 4c 12 01 00 0a",
    "19 0a 11 4b 45 59 5f 56 41 4c 55 45 5f 56 45 52",
    "53 49 4f 4e 12 04 00 00 00 01 0a 16 0a 0e 4c 41",
    "53 54 5f 42 4c 4f 4f 4d 5f 4b 45 59 12 04 72 6f",
    "77 31 0a 19 0a 14 4d 41 4a 4f 52 5f 43 4f 4d 50",
    "41 43 54 49 4f 4e 5f 4b 45 59 12 01 ff 0a 1f 0a",
    "13 4d 41 58 5f 4d 45 4d 53 54 4f 52 45 5f 54 53",
    "5f 4b 45 59 12 08 00 00 00 00 00 00 00 00 0a 1d",
    "0a 09 54 49 4d 45 52 41 4e 47 45 12 10 00 00 01",
    "8b cf e5 68 00 00 00 01 8b cf e5 68 00 0a 19 0a",
    "11 68 66 69 6c 65 2e 41 56 47 5f 4b 45 59 5f 4c",
    "45 4e 12 04 00 00 00 12 0a 1b 0a 13 68 66 69 6c",
    "65 2e 41 56 47 5f 56 41 4c 55 45 5f 4c 45 4e 12",
    "04 00 00 00 02 0a 20 0a 14 68 66 69 6c 65 2e 43",
    "52 45 41 54 45 5f 54 49 4d 45 5f 54 53 12 08 00",
    "00 01 8b cf e5 68 01 0a 2f 0a 19 68 66 69 6c 65",
    "2e 4b 45 59 5f 4f 46 5f 42 49 47 47 45 53 54 5f",
    "43 45 4c 4c 12 12 00 04 72 6f 77 31 01 66 71 00",
    "00 01 8b cf e5 68 00 04 0a 23 0a 0d 68 66 69 6c",
    "65 2e 4c 41 53 54 4b 45 59 12 12 00 04 72 6f 77",
    "31 01 66 71 00 00 01 8b cf e5 68 00 04 0a 25 0a",
    "19 68 66 69 6c 65 2e 4c 45 4e 5f 4f 46 5f 42 49",
    "47 47 45 53 54 5f 43 45 4c 4c 12 08 00 00 00 00",
    "00 00 00 20 0a 1a 0a 12 68 66 69 6c 65 2e 4d 41",
    "58 5f 54 41 47 53 5f 4c 45 4e 12 04 00 00 00 00",
    "0a 1a 0a 15 68 66 69 6c 65 2e 54 41 47 53 5f 43",
    "4f 4d 50 52 45 53 53 45 44 12 01 00 f5 a8 05 83",
    "42 4c 4d 46 4d 45 54 32 00 00 00 3e 00 00 00 3a",
    "ff ff ff ff ff ff ff ff 02 00 00 40 00 00 00 00",
    "5b 00 00 00 03 00 00 00 00 00 00 00 02 00 00 00",
    "07 00 00 00 01 00 00 00 00 00 00 00 01 00 00 00",
    "00 00 00 00 01 00 00 00 01 00 00 00 00 00 00 00",
    "00 44 00 00 00 27 04 72 6f 77 31 f0 58 e6 f7 54",
    "52 41 42 4c 4b 22 24 47 08 d4 01 10 6b 18 1f 20",
    "87 27 28 01 30 00 38 01 40 01 48 00 50 00 5a 2d",
    "6f 72 67 2e 61 70 61 63 68 65 2e 68 61 64 6f 6f",
    "70 2e 68 62 61 73 65 2e 4b 65 79 56 61 6c 75 65",
    "24 4b 56 43 6f 6d 70 61 72 61 74 6f 72 60 02",
];

/// The whole file HBase wrote: its first bytes, zeros, the version.
fn hbase_wrote() -> Vec<u8> {
    let mut file: Vec<u8> = HBASE_WROTE
        .iter()
        .flat_map(|line| line.split(' '))
        .map(|b| u8::from_str_radix(b, 16).unwrap())
        .collect();
    assert_eq!(file.len(), 1071);
    file.resize(5083, 0);
    file.extend_from_slice(&[3, 0, 0, 3]);
    file
}

/// The reader reads HBase's file back: its one cell, past the bloom chunk after it.
#[test]
fn the_reader_reads_the_file_hbase_writes() {
    let file = hbase_wrote();
    let mut reader = Reader::new(&file[..], Compression::None);
    let cell = reader.next_cell().unwrap().expect("the cell");
    assert_eq!(
        (&cell.row[..], &cell.family[..], &cell.qualifier[..]),
        (&b"row1"[..], &b"f"[..], &b"q"[..])
    );
    assert_eq!(
        (cell.timestamp, cell.kind),
        (1_700_000_000_000, CellType::Put)
    );
    assert_eq!(cell.value, b"v1");
    assert!(reader.next_cell().unwrap().is_none());
}

#[test]
fn the_one_cell_file_is_the_one_hbase_writes() {
    let expected = hbase_wrote();

    let options = Options::new()
        .bloom(Bloom::Row)
        .times(1_700_000_000_001, 1_700_000_000_002)
        .source("attempt_local_0001_r_000000_0");
    let mut writer = Writer::new(Vec::new(), options);
    writer
        .append(&Cell::put(b"row1", b"f", b"q", 1_700_000_000_000, b"v1"))
        .unwrap();
    let (file, summary) = writer.finish().unwrap();
    assert_eq!(summary.bytes, 5087);
    assert_eq!(summary.rows, Some((b"row1".to_vec(), b"row1".to_vec())));
    if let Some(at) = file.iter().zip(&expected).position(|(a, b)| a != b) {
        panic!(
            "first difference at byte {at}: ours {:02x?}, HBase's {:02x?}",
            &file[at..(at + 16).min(file.len())],
            &expected[at..(at + 16).min(expected.len())]
        );
    }
    assert_eq!(file.len(), expected.len());
}
