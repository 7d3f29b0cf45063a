use std::borrow::Cow;

use hbase_orm::{Codec, HBaseEntity};

/// A codec for `u64` only.
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
        String::from_utf8(bytes.to_vec())
            .map_err(|e| e.to_string())?
            .parse()
            .map_err(|e: std::num::ParseIntError| e.to_string())
    }
}

#[derive(HBaseEntity)]
#[hbase(table = "orders", family = "d")]
struct Order {
    #[hbase(key)]
    id: u64,
    #[hbase(codec = Decimal)]
    total: f64,
}

fn main() {}
