//! What the client reports to the application's metrics, through the [`metrics`] facade:
//! recorded wherever it happens, kept and exported by whatever recorder the application
//! installs (a Prometheus exporter, say), and nothing at all without one. Names and labels:
//!
//! | metric | kind | labels | what |
//! | --- | --- | --- | --- |
//! | `hbase_orm_calls_total` | counter | `backend`, `operation`, `outcome` | attempts of each operation; `outcome` is `ok` or the error's kind ([`crate::Error::kind`]) |
//! | `hbase_orm_call_seconds` | histogram | `backend`, `operation` | how long each attempt took |
//! | `hbase_orm_retries_total` | counter | `operation`, `cause` | calls sent again, and why (the error's kind; `region_moved` for the native backend's resends after a region moved or a server was busy) |
//! | `hbase_orm_scanners_open` | gauge | `backend` | server-side scanners open now |
//! | `hbase_orm_scans_resumed_total` | counter | `backend` | scans that lost their scanner and reopened after their last row |
//! | `hbase_orm_pool_wait_seconds` | histogram | | how long a call waited for a pooled gateway connection |
//! | `hbase_orm_pool_connections` | gauge | `state` (`open`, `idle`) | a gateway pool's connections, after each wait |
//! | `hbase_orm_bytes_read_total` | counter | `backend` (`thrift`, `native`) | bytes of replies read |
//! | `hbase_orm_bulk_load_total` | counter | `unit` (`rows`, `cells`, `bytes`, `files`, `regions`) | what regions took from bulk loads, as they take it |
//!
//! Any recorder works; with metrics-exporter-prometheus, for one:
//!
//! ```text
//! let handle = metrics_exporter_prometheus::PrometheusBuilder::new().install_recorder()?;
//! // ... use the client ...
//! println!("{}", handle.render());
//! ```
//!
//! `examples/metrics.rs` prints a Prometheus scrape after a workload.

use std::time::Duration;

/// Counts one attempt of `operation` on `backend` and how long it took.
pub(crate) fn call(
    backend: &'static str,
    operation: &'static str,
    outcome: &'static str,
    took: Duration,
) {
    metrics::counter!("hbase_orm_calls_total", "backend" => backend, "operation" => operation, "outcome" => outcome)
        .increment(1);
    metrics::histogram!("hbase_orm_call_seconds", "backend" => backend, "operation" => operation)
        .record(took.as_secs_f64());
}

/// Counts a call sent again.
pub(crate) fn retry(operation: &'static str, cause: &'static str) {
    metrics::counter!("hbase_orm_retries_total", "operation" => operation, "cause" => cause)
        .increment(1);
}

/// Counts a scanner opened (`opened`) or closed.
pub(crate) fn scanner(backend: &'static str, opened: bool) {
    let gauge = metrics::gauge!("hbase_orm_scanners_open", "backend" => backend);
    if opened {
        gauge.increment(1.0);
    } else {
        gauge.decrement(1.0);
    }
}

/// Counts a scan that reopened after losing its scanner.
pub(crate) fn scan_resumed(backend: &'static str) {
    metrics::counter!("hbase_orm_scans_resumed_total", "backend" => backend).increment(1);
}

/// Records a wait for a pooled connection and the pool's size after it.
#[cfg_attr(not(any(feature = "thrift2", feature = "thrift1")), allow(dead_code))] // the gateways'
pub(crate) fn pool_wait(took: Duration, open: usize, idle: usize) {
    metrics::histogram!("hbase_orm_pool_wait_seconds").record(took.as_secs_f64());
    metrics::gauge!("hbase_orm_pool_connections", "state" => "open").set(open as f64);
    metrics::gauge!("hbase_orm_pool_connections", "state" => "idle").set(idle as f64);
}

/// Counts bytes of replies read.
// The remote backends' (gateways and native).
#[cfg_attr(
    not(any(feature = "thrift2", feature = "thrift1", feature = "native")),
    allow(dead_code)
)]
pub(crate) fn bytes_read(backend: &'static str, bytes: usize) {
    metrics::counter!("hbase_orm_bytes_read_total", "backend" => backend).increment(bytes as u64);
}

/// Counts what a region took from a bulk load.
#[cfg(feature = "bulk-load")]
pub(crate) fn bulk_loaded(rows: u64, cells: u64, bytes: u64, files: u64) {
    for (unit, n) in [
        ("rows", rows),
        ("cells", cells),
        ("bytes", bytes),
        ("files", files),
        ("regions", 1),
    ] {
        metrics::counter!("hbase_orm_bulk_load_total", "unit" => unit).increment(n);
    }
}
