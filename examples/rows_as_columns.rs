//! "Rows as columns", the OpenTSDB approach from the HBase reference guide's log-data case
//! study: events are ingested one row each, `[host][event][timestamp]` (tall), then rewritten
//! into one row per host, event and five-minute bucket, `[host][event][bucket start]`, whose
//! columns are the events' offsets (milliseconds) within the bucket (wide).
//!
//! The trade-off: the rewrite is an extra batch step (and late events must be merged into an
//! existing bucket row), but a read of a time window afterwards touches one row per bucket
//! instead of one row per event, and a bucket row can be read column range by column range.
//! OpenTSDB goes one step further and compacts a bucket's columns into a single cell; this
//! example stops at one cell per event, so both shapes hold about as many cells (every cell
//! still carries its row key) and the win shown is in rows.
//!
//!     hbase-local/hbase.sh up && cargo run --example rows_as_columns
//!
//! Tables `example:rows_as_columns_events` (tall) and `example:rows_as_columns_buckets` (wide)
//! are recreated at the start of each run and left for inspection.

use std::collections::BTreeMap;
use std::process::ExitCode;

use futures::TryStreamExt;
use hbase_orm::{Client, HBaseEntity, Scan};
use hbase_orm_suite::example::{Example, Lcg};

/// Width of a bucket row: five minutes.
const BUCKET_MS: i64 = 5 * 60 * 1000;
/// 2024-03-01T10:00:00Z, the start of the ingested half hour.
const BASE: i64 = 1_709_287_200_000;

/// One ingested event: `[host]\0[event]\0[ts]`, one row each (the tall shape).
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    namespace = "example",
    table = "rows_as_columns_events",
    family = "d",
    key_delimiter = '\0'
)]
struct LogEvent {
    #[hbase(key)]
    host: String,
    #[hbase(key)]
    event: String,
    /// Milliseconds since the epoch.
    #[hbase(key)]
    ts: i64,
    #[hbase(rename = "v")]
    value: i64,
}

/// The same events rewritten: `[host]\0[event]\0[bucket start]`, one column per event in
/// family `t`, the qualifier being the event's offset in milliseconds from the bucket start
/// (4 bytes, order-preserving, so columns sort by time).
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    namespace = "example",
    table = "rows_as_columns_buckets",
    family = "t",
    key_delimiter = '\0'
)]
struct LogBucket {
    #[hbase(key)]
    host: String,
    #[hbase(key)]
    event: String,
    /// Milliseconds since the epoch, a multiple of [`BUCKET_MS`].
    #[hbase(key)]
    start: i64,
    #[hbase(wide)]
    events: BTreeMap<u32, i64>,
}

/// The ingested events: for each host and event type, one every 5 to 15 s for half an hour.
fn ingest() -> Vec<LogEvent> {
    let mut rng = Lcg(1);
    let mut out = Vec::new();
    for host in ["db-01", "web-01", "web-02"] {
        for event in ["gc.pause", "http.latency"] {
            let mut ts = BASE + rng.next(5_000) as i64;
            while ts < BASE + 30 * 60 * 1000 {
                out.push(LogEvent {
                    host: host.into(),
                    event: event.into(),
                    ts,
                    value: rng.next(1_000) as i64,
                });
                ts += 5_000 + rng.next(10_000) as i64;
            }
        }
    }
    out
}

/// Rows, cells and bytes (row key + family + qualifier + value of every cell) of a table.
async fn footprint(table: &hbase_orm::Table) -> (usize, usize, usize) {
    let rows: Vec<hbase_orm::Row> = table
        .scan(Scan::new())
        .try_collect()
        .await
        .expect("scanning for counts");
    let cells = rows.iter().map(|r| r.cells.len()).sum();
    let bytes = rows
        .iter()
        .flat_map(|r| {
            r.cells
                .iter()
                .map(move |c| r.key.len() + c.family.len() + c.qualifier.len() + c.value.len())
        })
        .sum();
    (rows.len(), cells, bytes)
}

#[tokio::main]
async fn main() -> ExitCode {
    let mut ex = Example::start(
        "rows_as_columns",
        "Events land one row each ([host][event][ts]); a batch step packs them into one row \
         per host, event and 5-minute bucket with one column per time offset, so reading a \
         window touches a handful of rows instead of hundreds.",
        Client::from_env().await,
    )
    .await;
    let events = ex.fresh::<LogEvent>().await;
    let buckets = ex.fresh::<LogBucket>().await;

    // 1. Ingest: one row per event.
    let ingested = ingest();
    events.save_all(&ingested).await.expect("ingesting events");
    ex.say(format!(
        "ingested {} events, one row each (tall)",
        ingested.len()
    ));

    // 2. Rewrite: read the tall rows back in key order and pack each host/event/bucket into
    //    one row whose columns are the offsets within the bucket.
    let mut packed: BTreeMap<(String, String, i64), BTreeMap<u32, i64>> = BTreeMap::new();
    let mut tall = events.scan().stream();
    while let Some(e) = tall.try_next().await.expect("reading events") {
        let start = e.ts - e.ts.rem_euclid(BUCKET_MS);
        let offset = u32::try_from(e.ts - start).expect("offset fits 4 bytes");
        packed
            .entry((e.host, e.event, start))
            .or_default()
            .insert(offset, e.value);
    }
    let rewritten: Vec<LogBucket> = packed
        .into_iter()
        .map(|((host, event, start), events)| LogBucket {
            host,
            event,
            start,
            events,
        })
        .collect();
    buckets.save_all(&rewritten).await.expect("saving buckets");
    ex.say(format!(
        "rewrote them into {} bucket rows (wide, one column per event)",
        rewritten.len()
    ));
    let packed_events: usize = rewritten.iter().map(|b| b.events.len()).sum();
    ex.check_eq(
        "every event is a column of some bucket",
        packed_events,
        ingested.len(),
    );

    // 3. Read the same window, 10:07:30 to 10:21:00, for web-02's latencies from both shapes.
    let (host, event) = ("web-02".to_string(), "http.latency".to_string());
    let (from, to) = (BASE + 450_000, BASE + 21 * 60 * 1000);
    let want: Vec<(i64, i64)> = ingested
        .iter()
        .filter(|e| e.host == host && e.event == event && (from..to).contains(&e.ts))
        .map(|e| (e.ts, e.value))
        .collect();

    let from_tall: Vec<LogEvent> = events
        .scan()
        .range(
            &LogEventKey {
                host: host.clone(),
                event: event.clone(),
                ts: from,
            },
            &LogEventKey {
                host: host.clone(),
                event: event.clone(),
                ts: to,
            },
        )
        .stream()
        .try_collect()
        .await
        .expect("window from the tall table");
    let tall_window: Vec<(i64, i64)> = from_tall.iter().map(|e| (e.ts, e.value)).collect();

    // Bucket rows starting from the one holding `from` up to (excluding) `to`; the edge
    // buckets are trimmed to the window.
    let first_bucket = from - from.rem_euclid(BUCKET_MS);
    let from_wide: Vec<LogBucket> = buckets
        .scan()
        .range(
            &LogBucketKey {
                host: host.clone(),
                event: event.clone(),
                start: first_bucket,
            },
            &LogBucketKey {
                host: host.clone(),
                event: event.clone(),
                start: to,
            },
        )
        .stream()
        .try_collect()
        .await
        .expect("window from the bucket table");
    let wide_window: Vec<(i64, i64)> = from_wide
        .iter()
        .flat_map(|b| {
            b.events
                .iter()
                .map(|(off, v)| (b.start + i64::from(*off), *v))
        })
        .filter(|(ts, _)| (from..to).contains(ts))
        .collect();

    ex.say(format!(
        "window 10:07:30-10:21:00 of {host} {event}: {} rows from the tall table, {} rows \
         from the bucket table",
        from_tall.len(),
        from_wide.len()
    ));
    ex.check("the window holds events", !want.is_empty());
    ex.check_eq(
        "the tall table returns the window's events",
        tall_window.clone(),
        want.clone(),
    );
    ex.check_eq(
        "the bucket table returns the same events",
        wide_window,
        want.clone(),
    );
    ex.check_eq(
        "the bucket read touched 4 rows (10:05, 10:10, 10:15, 10:20)",
        from_wide.iter().map(|b| b.start).collect::<Vec<_>>(),
        vec![
            BASE + BUCKET_MS,
            BASE + 2 * BUCKET_MS,
            BASE + 3 * BUCKET_MS,
            BASE + 4 * BUCKET_MS,
        ],
    );

    // A bucket row is read column range by column range too: the first bucket's part of the
    // window alone, without the events before 10:07:30.
    let first = buckets
        .wide(LogBucket::EVENTS)
        .slice(&LogBucketKey {
            host: host.clone(),
            event: event.clone(),
            start: first_bucket,
        })
        .from(&u32::try_from(from - first_bucket).expect("offset"))
        .fetch()
        .await
        .expect("column range of the first bucket");
    let first_part: Vec<(i64, i64)> = first
        .entries
        .iter()
        .map(|(off, v)| (first_bucket + i64::from(*off), *v))
        .collect();
    ex.check_eq(
        "a column range of the first bucket is the window's start",
        first_part.clone(),
        want.iter()
            .copied()
            .filter(|(ts, _)| *ts < first_bucket + BUCKET_MS)
            .collect(),
    );

    // 4. What each shape stores.
    let (tall_rows, tall_cells, tall_bytes) = footprint(events.table()).await;
    let (wide_rows, wide_cells, wide_bytes) = footprint(buckets.table()).await;
    ex.say(format!(
        "tall:  {tall_rows:>5} rows, {tall_cells:>5} cells, {tall_bytes:>6} bytes of keys, \
         qualifiers and values"
    ));
    ex.say(format!(
        "wide:  {wide_rows:>5} rows, {wide_cells:>5} cells, {wide_bytes:>6} bytes (one empty \
         marker cell per row: the entity's only family is the map's)"
    ));
    ex.check_eq("one tall row per event", tall_rows, ingested.len());
    ex.check_eq("one wide row per bucket", wide_rows, rewritten.len());
    ex.check_eq(
        "one wide cell per event plus a marker per row",
        wide_cells,
        ingested.len() + rewritten.len(),
    );
    ex.check(
        "the wide shape has far fewer rows (at least 20 times)",
        wide_rows * 20 <= tall_rows,
    );
    ex.say(
        "Every cell still stores its row key, so cells and bytes stay close; the saving is in \
         rows: seeks, index entries and rows returned per window. OpenTSDB then compacts each \
         bucket row into one cell to save the bytes too.",
    );

    ex.advice::<LogEvent>(&[]);
    ex.advice::<LogBucket>(&[]);
    ex.finish()
}
