//! The writer alone: rows of eight cells shaped like the bulk-load bench's orders (a 16-byte
//! key, family `d`, qualifiers of 4 to 12 bytes, four 8-byte numbers and four strings of 6 to
//! 36 bytes) written into a sink that drops the bytes, the row bloom on (HBase's default), no
//! compression: what a bulk load's files cost before any I/O. Each round's nanoseconds per row
//! (one thread, so wall time is its CPU), then the best. `HFILE_BENCH_ROWS` (1,000,000),
//! `HFILE_BENCH_RUNS` (5).
//!
//! `cargo bench -p hbase-orm-hfile --bench writer`

use std::time::Instant;

use hbase_orm_hfile::{Bloom, Options, RowCell, Writer};

/// The orders' qualifiers in HBase's order, and whether each holds a string.
const COLUMNS: [(&[u8], bool); 8] = [
    (b"amount_cents", false),
    (b"channel", true),
    (b"city", true),
    (b"currency", true),
    (b"placed_at", false),
    (b"price", false),
    (b"quantity", false),
    (b"status", true),
];

const TEXT: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789";

fn from_env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Writes `rows` rows into a dropped sink; the file's size in bytes.
fn write(rows: u64) -> u64 {
    let mut writer = Writer::new(std::io::sink(), Options::new().bloom(Bloom::Row));
    let timestamp = 1_700_000_000_000;
    let mut numbers = [[0u8; 8]; 8];
    for i in 0..rows {
        let mut row = [0u8; 16];
        row[..8].copy_from_slice(&(i / 50).to_be_bytes());
        row[8..].copy_from_slice(&(i % 50).to_be_bytes());
        let cells = COLUMNS.iter().enumerate().map(|(c, &(qualifier, text))| {
            let value: &[u8] = if text {
                let len = 6 + ((i as usize * 7 + c * 11) % 31);
                let start = (i as usize + c * 9) % 36;
                &TEXT[start..start + len]
            } else {
                &numbers[c]
            };
            RowCell::put(b"d", qualifier, timestamp, value)
        });
        writer.append_row(&row, cells).expect("rows in order");
        for (c, n) in numbers.iter_mut().enumerate() {
            *n = (i * (c as u64 + 3)).to_be_bytes();
        }
    }
    let (_, summary) = writer.finish().expect("finished");
    summary.bytes
}

fn main() {
    let rows = from_env("HFILE_BENCH_ROWS", 1_000_000);
    let runs = from_env("HFILE_BENCH_RUNS", 5).max(1);
    let mut rounds = Vec::new();
    let mut bytes = 0;
    for _ in 0..runs {
        let started = Instant::now();
        bytes = write(rows);
        rounds.push(started.elapsed().as_nanos() as f64 / rows as f64);
    }
    let best = rounds.iter().copied().fold(f64::INFINITY, f64::min);
    let each: Vec<String> = rounds.iter().map(|r| format!("{r:.0}")).collect();
    println!(
        "hfile writer alone: {rows} rows of 8 cells, {:.1} MiB a file: ns/row {} (best {best:.0})",
        bytes as f64 / (1 << 20) as f64,
        each.join(" / ")
    );
}
