//! What the read benchmarks share: the 8-column order they read, and this process's CPU time
//! and memory as Linux reports them.

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
    Order {
        customer: i / 50,
        order: i % 50,
        quantity: (i % 7) as i64,
        amount_cents: (i * 137 % 100_000) as i64,
        placed_at: 1_700_000_000_000 + i as i64,
        price: i as f64 * 0.25,
        status: ["new", "paid", "sent"][(i % 3) as usize].into(),
        city: ["Oslo", "Lima", "Pune", "Kobe"][(i % 4) as usize].into(),
        channel: "web".into(),
        currency: "EUR".into(),
    }
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
