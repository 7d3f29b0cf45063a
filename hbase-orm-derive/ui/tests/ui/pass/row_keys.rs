// Row-key parts: default encodings, `key(fixed = N)`, `key(codec = ...)`, `key_struct` and the
// generated prefix functions.
#![deny(warnings)]

use hbase_orm::rowkey::KeyCodec;
use hbase_orm::{EntityKey, HBaseEntity};

/// A key codec for a type with no default key encoding: a day as `YYYYMMDD` text.
struct DayCodec;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Day {
    year: u16,
    month: u8,
    day: u8,
}

impl KeyCodec<Day> for DayCodec {
    const WIDTH: Option<usize> = Some(8);
    const EXPECTED: &'static str = "YYYYMMDD";

    fn encode(d: &Day, out: &mut Vec<u8>) -> Result<(), String> {
        out.extend_from_slice(format!("{:04}{:02}{:02}", d.year, d.month, d.day).as_bytes());
        Ok(())
    }

    fn decode(bytes: &[u8]) -> Result<Day, String> {
        let s = std::str::from_utf8(bytes).map_err(|e| e.to_string())?;
        let n = |r: std::ops::Range<usize>| s[r].parse::<u16>().map_err(|e| e.to_string());
        Ok(Day {
            year: n(0..4)?,
            month: n(4..6)? as u8,
            day: n(6..8)? as u8,
        })
    }
}

// No delimiter needed: every part but the last has a fixed width.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    namespace = "metrics",
    table = "events",
    family = "d",
    key_struct = "EventId"
)]
struct Event {
    #[hbase(key(fixed = 6))]
    region: String,
    #[hbase(key(codec = DayCodec))]
    day: Day,
    #[hbase(key)]
    seq: i32,
    #[hbase(key)]
    source: String,
    payload: Vec<u8>,
}

// Every integer width as a key part, with a delimiter for the variable-length parts.
#[derive(HBaseEntity)]
#[hbase(table = "wide", family = "d", key_delimiter = '|')]
struct Wide {
    #[hbase(key)]
    name: String,
    #[hbase(key)]
    blob: Vec<u8>,
    #[hbase(key)]
    a: u8,
    #[hbase(key)]
    b: u16,
    #[hbase(key)]
    c: u32,
    #[hbase(key)]
    d: u64,
    #[hbase(key)]
    e: u128,
    #[hbase(key)]
    f: i8,
    #[hbase(key)]
    g: i16,
    #[hbase(key)]
    h: i32,
    #[hbase(key)]
    i: i64,
    #[hbase(key)]
    j: i128,
}

fn main() {
    assert_eq!(Event::NAMESPACE, "metrics");
    assert_eq!(Event::TABLE, "events");
    let day = Day {
        year: 2024,
        month: 2,
        day: 29,
    };
    let e = Event {
        region: "eu".into(),
        day: day.clone(),
        seq: -1,
        source: "web".into(),
        payload: vec![1],
    };
    let key: EventId = e.key();
    assert_eq!(key.region, "eu");
    let row = e.row_key().unwrap();
    assert_eq!(row, b"eu\0\0\0\x0020240229\x7f\xff\xff\xffweb");
    assert_eq!(EventId::read_key(&row).unwrap(), key);

    assert_eq!(
        EventId::prefix_by_region(&"eu".into()).unwrap().bytes,
        b"eu\0\0\0\0"
    );
    assert_eq!(
        EventId::prefix_by_region_day(&"eu".into(), &day)
            .unwrap()
            .bytes,
        b"eu\0\0\0\x0020240229"
    );
    assert_eq!(
        EventId::prefix_by_region_day_seq(&"eu".into(), &day, &0)
            .unwrap()
            .bytes,
        b"eu\0\0\0\x0020240229\x80\0\0\0"
    );
    // Text longer than the fixed width is an error, not a truncation.
    assert!(EventId::prefix_by_region(&"toolong".into()).is_err());

    let w = Wide {
        name: "n".into(),
        blob: vec![7],
        a: 1,
        b: 2,
        c: 3,
        d: 4,
        e: 5,
        f: -1,
        g: -2,
        h: -3,
        i: -4,
        j: -5,
    };
    let key = w.row_key().unwrap();
    assert_eq!(key.len(), 2 + 2 + (1 + 2 + 4 + 8 + 16) * 2);
    assert_eq!(WideKey::read_key(&key).unwrap(), w.key());
    assert_eq!(WideKey::prefix_by_name(&"n".into()).unwrap().bytes, b"n|");
    assert!(Wide::COLUMNS.is_empty());
    assert_eq!(Wide::FAMILIES, &["d"]);
}
