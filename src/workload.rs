//! What the benchmarks share: the 8-column order they read and write, the rows the writes bench
//! and its Java baseline (`benches/java/JavaBaseline.java`) both build, and this process's CPU
//! time and memory as Linux reports them.

use std::time::Duration;

use hbase_orm::HBaseEntity;

/// An order of eight stored columns in family `d` (two `i64`, a timestamp, an `f64`, four
/// short strings), keyed `[customer u64][order u64]`.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(table = "bench_orders", family = "d")]
pub struct Order {
    /// The customer, 50 orders each.
    #[hbase(key)]
    pub customer: u64,
    /// The order within the customer.
    #[hbase(key)]
    pub order: u64,
    /// Items ordered.
    pub quantity: i64,
    /// The amount in cents.
    pub amount_cents: i64,
    /// When it was placed, milliseconds since the epoch.
    pub placed_at: i64,
    /// The unit price.
    pub price: f64,
    /// `new`, `paid` or `sent`.
    pub status: String,
    /// Where it goes.
    pub city: String,
    /// Where it came from.
    pub channel: String,
    /// Its currency.
    pub currency: String,
}

/// Order number `i` of a run: customer `i / 50`, order `i % 50`, the rest derived from `i`.
pub fn order(i: u64) -> Order {
    let status = ["new", "paid", "sent"][(i % 3) as usize];
    let city = ["Oslo", "Lima", "Pune", "Kobe"][(i % 4) as usize];
    numbered(i, [status.into(), city.into(), "web".into(), "EUR".into()])
}

/// Order number `i` with these strings: status, city, channel, currency.
fn numbered(i: u64, [status, city, channel, currency]: [String; 4]) -> Order {
    Order {
        customer: i / 50,
        order: i % 50,
        quantity: (i % 7) as i64,
        amount_cents: (i * 137 % 100_000) as i64,
        placed_at: 1_700_000_000_000 + i as i64,
        price: i as f64 * 0.25,
        status,
        city,
        channel,
        currency,
    }
}

/// The characters [`text`] takes its bytes from, twice: any run of up to 36 of them from any
/// of the first 36 is one slice.
const TEXT: &str = "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789";

/// Text `field` (0 to 3) of order `i` of the writes bench: 6 to 36 ASCII bytes (21 on average),
/// a run of `TEXT` whose length and start change with `i`. `JavaBaseline.text` makes the same.
pub fn text(i: u64, field: u64) -> String {
    let len = 6 + ((i * 7 + field * 11) % 31) as usize;
    let start = ((i + field * 9) % 36) as usize;
    TEXT[start..start + len].to_string()
}

/// Order number `i` of the writes bench: the numbers of [`order`], and four strings of 6 to
/// 36 bytes ([`text`]) instead of short words. `JavaBaseline.order` builds the same row, cell
/// for cell.
pub fn write_order(i: u64) -> Order {
    numbered(i, [0, 1, 2, 3].map(|field| text(i, field)))
}

/// The row the `k`th of a run's sequential gets reads, of `rows` (a multiplicative hash: spread
/// over the table, the same in `JavaBaseline.getIndex`).
pub fn get_index(k: u64, rows: u64) -> u64 {
    let x = (k + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (x ^ (x >> 29)) % rows.max(1)
}

/// The CPU time process `pid` has used so far, user + system, as `/proc/PID/stat` counts it
/// (in clock ticks, 10 ms here); `None` when the process is gone or the file unreadable.
pub fn process_cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command's name, in parentheses, may hold spaces: the fields follow its last `)`.
    // After it: state (3), ... utime (14), stime (15), counted from 1 with the pid.
    let fields: Vec<&str> = stat[stat.rfind(')')? + 1..].split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // SAFETY: sysconf reads a configuration value and writes nothing.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    (per_second > 0).then(|| Duration::from_secs_f64(ticks as f64 / per_second as f64))
}

/// This process's CPU time so far, user + system, to the microsecond (`getrusage`; zero where
/// it fails).
pub fn cpu_time() -> Duration {
    // SAFETY: getrusage only writes the struct it is given, which is zeroed and owned here.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        if libc::getrusage(libc::RUSAGE_SELF, &mut usage) != 0 {
            return Duration::ZERO;
        }
        usage
    };
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec.max(0) as u64) + Duration::from_micros(t.tv_usec.max(0) as u64)
    };
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// A memory line of `/proc/self/status` in MiB: `"VmHWM:"` (the peak resident set) or
/// `"VmRSS:"` (the resident set now); NaN where there is none.
pub fn memory_mib(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

/// Resets the peak resident set (`VmHWM`) to the resident set now, so that a later
/// [`memory_mib`]`("VmHWM:")` is the peak of what ran since. Fails where Linux does not allow it.
pub fn reset_peak_memory() -> std::io::Result<()> {
    std::fs::write("/proc/self/clear_refs", "5")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A text is the run of the 36 characters that starts at its start and wraps around, as
    /// `JavaBaseline.text` makes it.
    #[test]
    fn a_text_is_a_run_of_the_characters_wrapping_around() {
        let characters = &TEXT.as_bytes()[..36];
        for i in 0..500 {
            for field in 0..4 {
                let len = 6 + ((i * 7 + field * 11) % 31) as usize;
                let start = ((i + field * 9) % 36) as usize;
                let expected: String = (0..len)
                    .map(|k| char::from(characters[(start + k) % 36]))
                    .collect();
                assert_eq!(text(i, field), expected, "order {i}, field {field}");
            }
        }
        assert_eq!(text(5, 0), "fghijklmno");
        assert_eq!(text(33, 3), "yz0123456789abcdefghij");
    }
}
