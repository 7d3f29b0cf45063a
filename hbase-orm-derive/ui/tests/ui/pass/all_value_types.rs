// Every built-in cell encoding, `Option`, JSON, a custom `Codec` and a custom `Value` impl.
#![deny(warnings)]

use std::borrow::Cow;

use hbase_orm::{Codec, HBaseEntity, Value};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Line {
    sku: String,
    qty: u32,
}

/// Stored with its own `Value` impl: cents as a big-endian i64.
#[derive(Debug, Clone, PartialEq)]
struct Money(i64);

impl Value for Money {
    const EXPECTED: &'static str = "cents (8 bytes, big-endian)";

    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0.to_be_bytes());
    }

    fn decode(bytes: &[u8]) -> Result<Self, String> {
        i64::decode(bytes).map(Money)
    }
}

/// A codec for a type with no `Value` impl: a comma-separated list of tags.
struct CommaList;

impl Codec<Vec<String>> for CommaList {
    fn expected() -> Cow<'static, str> {
        Cow::Borrowed("comma-separated text")
    }

    fn encode(value: &Vec<String>, out: &mut Vec<u8>) -> Result<(), String> {
        out.extend_from_slice(value.join(",").as_bytes());
        Ok(())
    }

    fn decode(bytes: &[u8]) -> Result<Vec<String>, String> {
        let text = std::str::from_utf8(bytes).map_err(|e| e.to_string())?;
        Ok(text.split(',').map(str::to_owned).collect())
    }
}

/// A codec for a type that has a `Value` impl already: text instead of big-endian bytes.
struct Decimal;

impl Codec<u64> for Decimal {
    fn expected() -> Cow<'static, str> {
        Cow::Borrowed("decimal digits")
    }

    fn encode(value: &u64, out: &mut Vec<u8>) -> Result<(), String> {
        out.extend_from_slice(value.to_string().as_bytes());
        Ok(())
    }

    fn decode(bytes: &[u8]) -> Result<u64, String> {
        std::str::from_utf8(bytes)
            .map_err(|e| e.to_string())?
            .parse()
            .map_err(|e: std::num::ParseIntError| e.to_string())
    }
}

#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(table = "everything", family = "d")]
struct Everything {
    #[hbase(key)]
    id: u64,
    a_i8: i8,
    a_i16: i16,
    a_i32: i32,
    a_i64: i64,
    a_i128: i128,
    a_u8: u8,
    a_u16: u16,
    a_u32: u32,
    a_u64: u64,
    a_u128: u128,
    a_f32: f32,
    a_f64: f64,
    a_bool: bool,
    a_string: String,
    a_bytes: Vec<u8>,
    maybe_i32: Option<i32>,
    maybe_string: Option<String>,
    maybe_money: Option<Money>,
    #[hbase(json)]
    lines: Vec<Line>,
    #[hbase(json)]
    maybe_line: Option<Line>,
    price: Money,
    #[hbase(codec = CommaList)]
    tags: Vec<String>,
    #[hbase(codec = Decimal)]
    views: u64,
    #[hbase(codec = Decimal)]
    maybe_views: Option<u64>,
}

fn main() {
    let e = Everything {
        id: 1,
        a_i8: -8,
        a_i16: -16,
        a_i32: -32,
        a_i64: -64,
        a_i128: -128,
        a_u8: 8,
        a_u16: 16,
        a_u32: 32,
        a_u64: 64,
        a_u128: 128,
        a_f32: 3.5,
        a_f64: 6.25,
        a_bool: true,
        a_string: "text".into(),
        a_bytes: vec![0, 255],
        maybe_i32: None,
        maybe_string: Some("x".into()),
        maybe_money: None,
        lines: vec![Line {
            sku: "s1".into(),
            qty: 2,
        }],
        maybe_line: None,
        price: Money(1999),
        tags: vec!["a".into(), "b".into()],
        views: 42,
        maybe_views: Some(7),
    };
    assert_eq!(Everything::COLUMNS.len(), 24);
    assert_eq!(Everything::FAMILIES, &["d"]);
    let put = e.to_put().unwrap();
    // Three `None` fields write no cell.
    assert_eq!(put.cells.len(), 21);
    let cell = |q: &str| {
        put.cells
            .iter()
            .find(|c| c.qualifier == q.as_bytes())
            .unwrap()
            .value
            .to_vec()
    };
    assert_eq!(cell("a_i16"), (-16i16).to_be_bytes());
    assert_eq!(cell("a_bool"), [0xFF]);
    assert_eq!(cell("price"), 1999i64.to_be_bytes());
    assert_eq!(cell("tags"), b"a,b");
    assert_eq!(cell("views"), b"42");
    assert_eq!(cell("lines"), br#"[{"sku":"s1","qty":2}]"#);
    // The row image: the put, and one delete of the three `None` fields' columns.
    assert_eq!(e.to_mutations().unwrap().mutations.len(), 2);

    let row = hbase_orm::Row {
        key: put.row.clone(),
        cells: put
            .cells
            .iter()
            .map(|c| hbase_orm::Cell {
                family: c.family.clone().into(),
                qualifier: c.qualifier.clone().into(),
                value: c.value.clone().into(),
                timestamp: 1,
            })
            .collect(), stale: false,
    };
    assert_eq!(Everything::from_row(row).unwrap(), e);
}
