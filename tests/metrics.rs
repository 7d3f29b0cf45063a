//! The client's metrics after a known workload against the real HBase, read through
//! metrics-util's recorder (installed for this test binary): calls per operation and outcome,
//! their latency, scanners opened and closed, pool waits and bytes read.

use futures::TryStreamExt;
use hbase_orm::{ColumnFamily, Get, Put, Scan};
use hbase_orm_suite::{client, TestTable};
use metrics_util::debugging::{DebugValue, DebuggingRecorder};
use metrics_util::MetricKind;

/// The value of the metric `name` whose labels include every pair of `labels`, summed over
/// the metrics that match (a counter's count, a gauge's value, a histogram's samples).
fn value(
    snapshot: &[(metrics_util::CompositeKey, DebugValue)],
    kind: MetricKind,
    name: &str,
    labels: &[(&str, &str)],
) -> f64 {
    snapshot
        .iter()
        .filter(|(key, _)| key.kind() == kind && key.key().name() == name)
        .filter(|(key, _)| {
            labels
                .iter()
                .all(|(k, v)| key.key().labels().any(|l| l.key() == *k && l.value() == *v))
        })
        .map(|(_, value)| match value {
            DebugValue::Counter(n) => *n as f64,
            DebugValue::Gauge(g) => g.into_inner(),
            DebugValue::Histogram(samples) => samples.len() as f64,
        })
        .sum()
}

#[tokio::test]
async fn a_known_workload_shows_in_the_metrics() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    recorder
        .install()
        .expect("the only recorder of this test binary");

    let client = client().await;
    let t = TestTable::create(&client, "metrics", vec![ColumnFamily::new("d")], &[]).await;
    let table = client.table_named(t.name.clone());
    for i in 0..10 {
        table
            .put(Put::new(format!("k{i}")).column("d", "v", "x".repeat(100)))
            .await
            .unwrap();
    }
    for i in 0..5 {
        assert!(table
            .get(Get::new(format!("k{i}")))
            .await
            .unwrap()
            .is_some());
    }
    // A get of a family the table lacks: an error, counted with its kind.
    let missing = table.get(Get::new("k0").family("nofamily")).await;
    assert!(missing.is_err());
    let rows: Vec<_> = table
        .scan(Scan::new().caching(4))
        .try_collect()
        .await
        .unwrap();
    assert_eq!(rows.len(), 10);

    let snapshot: Vec<_> = snapshotter
        .snapshot()
        .into_vec()
        .into_iter()
        .map(|(key, _, _, value)| (key, value))
        .collect();
    let calls = |operation: &str, outcome: &str| {
        value(
            &snapshot,
            MetricKind::Counter,
            "hbase_orm_calls_total",
            &[
                ("backend", "thrift2"),
                ("operation", operation),
                ("outcome", outcome),
            ],
        )
    };
    assert_eq!(calls("put", "ok"), 10.0);
    assert_eq!(calls("get", "ok"), 5.0);
    assert_eq!(calls("get", "server"), 1.0, "the failed get, by its kind");
    assert_eq!(calls("openScanner", "ok"), 1.0);
    // 10 rows 4 at a time: three pages with rows, and the call that finds the end.
    assert!(calls("getScannerRows", "ok") >= 3.0);
    let latencies = value(
        &snapshot,
        MetricKind::Histogram,
        "hbase_orm_call_seconds",
        &[("operation", "put")],
    );
    assert_eq!(latencies, 10.0, "one latency per put");
    assert_eq!(
        value(
            &snapshot,
            MetricKind::Gauge,
            "hbase_orm_scanners_open",
            &[("backend", "thrift2")]
        ),
        0.0,
        "the scan's scanner was opened and closed"
    );
    let waits = value(
        &snapshot,
        MetricKind::Histogram,
        "hbase_orm_pool_wait_seconds",
        &[],
    );
    assert!(waits >= 16.0, "a pool wait per call: {waits}");
    let bytes = value(
        &snapshot,
        MetricKind::Counter,
        "hbase_orm_bytes_read_total",
        &[("backend", "thrift")],
    );
    assert!(
        bytes > 10.0 * 100.0,
        "the scan's 10 values of 100 bytes at least: {bytes}"
    );
    assert_eq!(
        value(
            &snapshot,
            MetricKind::Counter,
            "hbase_orm_retries_total",
            &[]
        ),
        0.0
    );
}
