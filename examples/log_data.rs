//! # Log data: four row-key designs for the same events
//!
//! The HBase reference guide's log-data / time-series case study: every log event has a host
//! name, an event type and a timestamp, and the row key is some combination of the three. Which
//! combination depends on the read that matters most. This example saves the same 48 events
//! under four designs, one table each, and runs each design's natural read:
//!
//! | design | declaration | read it is good at |
//! | --- | --- | --- |
//! | `[host][event][i64::MAX - ts]` | `key`, `key`, `key(reverse_timestamp)`, `key_delimiter = '\0'` | the newest N events of one host and event: a prefix scan with a limit |
//! | `[ts % 4][ts][host][event]` | `salt(buckets = 4, modulo = "ts")`, `split(salt)` | a time range over all hosts: one scan per bucket, merged back in time order |
//! | `[md5(host)][md5(event)][ts]` | `key(md5)`, `key(md5)`, `key` | host + event prefix scans with keys of one width (40 bytes) whatever the names |
//! | `[host id][event id][ts]` | `key(dictionary = "hosts")`, `key(dictionary = "log_types")` on `DictName` fields | the same, with 16-byte keys: ids from a lookup table (`example:log_data_names`) |
//!
//! A fifth, `[ts][host][event]` with no bucket, is declared only to show what the design
//! advice says of it: every new event would go to the last region.
//!
//! The guide's lookup table keys a name by a type byte (host or event type) and the name; here
//! the dictionary's name (`hosts`, `log_types`) plays the type byte, both dictionaries share
//! the table, and ids are 4 bytes rather than the guide's 8. `key(md5 = 4)` would cut each hash
//! to 4 bytes (24-byte keys) at the price of more collisions between names.
//!
//! The trade-offs: a host-led key spreads writes over hosts but a time range over all hosts
//! reads the whole table; a bucketed time-led key makes time ranges cheap but every such read
//! costs one scan per bucket (and `ts % N` only spreads if the timestamps are not all multiples
//! of N: whole seconds in milliseconds and N = 4 would land in one bucket); hashing fixes the
//! width but loses the names' order (no "hosts starting with web-" scan) and needs the names
//! stored in columns to read them back; numeric ids make the shortest keys but cost a lookup
//! table, a counter increment for every new name, and a resolve before each prefix scan.
//! The row key is repeated in every cell, so its length is paid on every column of every row.
//!
//! Run it against the local HBase: `hbase-local/hbase.sh up && cargo run --example log_data`.
//! `HBASE_ORM_URL` picks the store (`Client::from_env`: `thrift2://127.0.0.1:9090` when unset,
//! `hbase://127.0.0.1:2181` for HBase's own RPC, `memory://` for the in-memory store). The tables
//! `example:log_data_*` are recreated from the entities' declarations at the start of every
//! run and left for inspection.

use std::process::ExitCode;

use futures::TryStreamExt;
use hbase_orm::{
    printable_key, Client, DictName, Dictionary, HBaseEntity, Repository, Scan, TableName,
};
use hbase_orm_suite::example::Example;
use hbase_orm_suite::{region_starts, row_keys};

/// Host-led: `[host]\0[event]\0[i64::MAX - ts]`, newest first within a host and event.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    namespace = "example",
    table = "log_data_by_host",
    family = "d",
    key_delimiter = '\0'
)]
struct LogByHost {
    #[hbase(key)]
    host: String,
    #[hbase(key)]
    event: String,
    #[hbase(key(reverse_timestamp))]
    ts: i64,
    message: String,
}

/// Time-led in buckets: `[ts % 4][ts][host]\0[event]`, one pre-split region per bucket.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    namespace = "example",
    table = "log_data_by_time",
    family = "d",
    key_delimiter = '\0',
    salt(buckets = 4, modulo = "ts"),
    split(salt)
)]
struct LogByTime {
    #[hbase(key)]
    ts: i64,
    #[hbase(key)]
    host: String,
    #[hbase(key)]
    event: String,
    message: String,
}

/// Hashed parts: `[md5(host)][md5(event)][ts]`, 16 + 16 + 8 bytes; the names are kept in
/// columns `d:host` and `d:event` to be read back.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "example", table = "log_data_hashed", family = "d")]
struct LogHashed {
    #[hbase(key(md5))]
    host: String,
    #[hbase(key(md5))]
    event: String,
    #[hbase(key)]
    ts: i64,
    message: String,
}

/// Numeric substitution: `[host id][event id][ts]`, 4 + 4 + 8 bytes; the ids come from the
/// dictionaries `hosts` and `log_types` of the lookup table `example:log_data_names`.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    namespace = "example",
    table = "log_data_numeric",
    family = "d",
    dictionary_table = "log_data_names"
)]
struct LogNumeric {
    #[hbase(key(dictionary = "hosts"))]
    host: DictName,
    #[hbase(key(dictionary = "log_types"))]
    event: DictName,
    #[hbase(key)]
    ts: i64,
    message: String,
}

/// The counterexample: `[ts][host]\0[event]` without a bucket. Never written; declared for
/// its key length and for the advice.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    namespace = "example",
    table = "log_data_time_first",
    family = "d",
    key_delimiter = '\0'
)]
struct LogTimeFirst {
    #[hbase(key)]
    ts: i64,
    #[hbase(key)]
    host: String,
    #[hbase(key)]
    event: String,
    message: String,
}

const HOSTS: [&str; 3] = [
    "web-01.eu-west-1.shop.example.com",
    "db-07.eu-west-1.shop.example.com",
    "a",
];
const EVENTS: [&str; 3] = [
    "login",
    "e1",
    "com.example.billing.invoice.PdfRenderer.timeout",
];
const BUCKETS: i64 = 4;
/// 2026-01-01 00:00 UTC in milliseconds (a multiple of 4).
const BASE: i64 = 1_767_225_600_000;
/// Events are 2.501 s apart, so consecutive events fall in consecutive buckets.
const STEP: i64 = 2_501;

/// One log event, whatever the design.
#[derive(Debug, Clone, PartialEq)]
struct Event {
    host: String,
    event: String,
    ts: i64,
    message: String,
}

fn events() -> Vec<Event> {
    (0..48usize)
        .map(|i| {
            let (host, event) = (HOSTS[i % 3], EVENTS[(i / 3) % 3]);
            Event {
                host: host.into(),
                event: event.into(),
                ts: BASE + i as i64 * STEP,
                message: format!("event #{i}: {event} on {host}"),
            }
        })
        .collect()
}

impl Event {
    fn by_host(&self) -> LogByHost {
        LogByHost {
            host: self.host.clone(),
            event: self.event.clone(),
            ts: self.ts,
            message: self.message.clone(),
        }
    }
    fn by_time(&self) -> LogByTime {
        LogByTime {
            ts: self.ts,
            host: self.host.clone(),
            event: self.event.clone(),
            message: self.message.clone(),
        }
    }
    fn hashed(&self) -> LogHashed {
        LogHashed {
            host: self.host.clone(),
            event: self.event.clone(),
            ts: self.ts,
            message: self.message.clone(),
        }
    }
    fn numeric(&self) -> LogNumeric {
        LogNumeric {
            host: self.host.as_str().into(),
            event: self.event.as_str().into(),
            ts: self.ts,
            message: self.message.clone(),
        }
    }
    fn time_first(&self) -> LogTimeFirst {
        LogTimeFirst {
            ts: self.ts,
            host: self.host.clone(),
            event: self.event.clone(),
            message: self.message.clone(),
        }
    }
}

/// Seconds since `BASE`, for short printing.
fn secs(ts: i64) -> String {
    format!("+{:.3}s", (ts - BASE) as f64 / 1000.0)
}

fn times(ts: impl IntoIterator<Item = i64>) -> Vec<String> {
    ts.into_iter().map(secs).collect()
}

/// The events of one host and event type, oldest first.
fn of(all: &[Event], host: &str, event: &str) -> Vec<i64> {
    all.iter()
        .filter(|e| e.host == host && e.event == event)
        .map(|e| e.ts)
        .collect()
}

async fn host_led(ex: &mut Example, all: &[Event]) -> hbase_orm::Result<Repository<LogByHost>> {
    ex.say("\n-- 1. [host][event][i64::MAX - ts]: host-led, newest first per host and event");
    ex.say("Writes spread over the hosts; one host's events of one type are one key range,");
    ex.say("stored newest first, so \"the latest N\" is a prefix scan that stops after N rows.");
    let repo = ex.fresh::<LogByHost>().await;
    repo.save_all(&all.iter().map(Event::by_host).collect::<Vec<_>>())
        .await?;
    let (host, event) = (HOSTS[0], EVENTS[0]);
    let latest: Vec<LogByHost> = repo
        .scan()
        .prefix(LogByHostKey::prefix_by_host_event(
            &host.to_string(),
            &event.to_string(),
        )?)
        .limit(3)
        .stream()
        .try_collect()
        .await?;
    let got: Vec<i64> = latest.iter().map(|l| l.ts).collect();
    ex.say(format!(
        "newest 3 `{event}` of {host}: {:?}",
        times(got.clone())
    ));
    if let Some(newest) = latest.first() {
        ex.say(format!("its key: {}", printable_key(&newest.row_key()?)));
    }
    let mut want = of(all, host, event);
    want.reverse();
    want.truncate(3);
    ex.check_eq("the newest 3 events, newest first", got, want);
    ex.check(
        "they are all of that host and event",
        latest.iter().all(|l| l.host == host && l.event == event),
    );
    let raw = row_keys(repo.table(), Scan::new()).await;
    ex.check(
        "rows are grouped by host: each host's rows are contiguous in the table",
        HOSTS.iter().all(|h| {
            let at: Vec<usize> = raw
                .iter()
                .enumerate()
                .filter(|(_, k)| k.starts_with(format!("{h}\0").as_bytes()))
                .map(|(i, _)| i)
                .collect();
            at.len() == 16 && at[15] - at[0] == 15
        }),
    );
    Ok(repo)
}

async fn bucketed(ex: &mut Example, all: &[Event]) -> hbase_orm::Result<Repository<LogByTime>> {
    ex.say("\n-- 2. [ts % 4][ts][host][event]: time-led, in 4 buckets");
    ex.say("A leading timestamp alone sends every new event to the last region; the bucket");
    ex.say("byte (ts mod 4) spreads consecutive events over 4 pre-split regions, and within a");
    ex.say("bucket rows stay in time order, so a time range is 4 short scans merged by time.");
    let repo = ex.fresh::<LogByTime>().await;
    let regions = region_starts(ex.client(), &LogByTime::table_name()).await;
    ex.check_eq("split(salt): one region per bucket", regions.len(), 4);

    let first = all[0].by_time();
    let key = first.row_key()?;
    ex.say(format!(
        "row_key() of the first event: {}",
        printable_key(&key)
    ));
    ex.check_eq(
        "the first byte is ts % 4",
        i64::from(key[0]),
        first.ts % BUCKETS,
    );
    ex.check_eq(
        "then the timestamp, 8 bytes big-endian with the sign bit flipped (sorts as a number)",
        key[1..9].to_vec(),
        ((first.ts as u64) ^ (1 << 63)).to_be_bytes().to_vec(),
    );
    ex.check(
        "then the host and the event, \\0-delimited",
        key[9..] == *format!("{}\0{}", first.host, first.event).as_bytes(),
    );

    repo.save_all(&all.iter().map(Event::by_time).collect::<Vec<_>>())
        .await?;
    let raw = row_keys(repo.table(), Scan::new()).await;
    let buckets: Vec<u8> = raw.iter().map(|k| k[0]).collect();
    ex.say(format!(
        "buckets of the first 8 events written: {:?}",
        all[..8].iter().map(|e| e.ts % BUCKETS).collect::<Vec<_>>()
    ));
    ex.check(
        "consecutive events went to different buckets",
        all.windows(2)
            .all(|w| w[0].ts % BUCKETS != w[1].ts % BUCKETS),
    );
    ex.check_eq(
        "the table holds 12 rows per bucket, bucket after bucket",
        buckets,
        (0..4u8).flat_map(|b| [b; 12]).collect::<Vec<_>>(),
    );

    let (from, until) = (all[10].ts, all[30].ts);
    let bound = |ts| LogByTimeKey {
        ts,
        host: String::new(),
        event: String::new(),
    };
    let range: Vec<LogByTime> = repo
        .scan()
        .range(&bound(from), &bound(until))
        .stream()
        .try_collect()
        .await?;
    let got: Vec<i64> = range.iter().map(|l| l.ts).collect();
    ex.say(format!(
        "time range [{}, {}) over all hosts, scanned per bucket and merged: {} events",
        secs(from),
        secs(until),
        got.len()
    ));
    ex.say(format!("  {:?}", times(got.iter().take(6).copied())));
    let want: Vec<i64> = all
        .iter()
        .map(|e| e.ts)
        .filter(|ts| (from..until).contains(ts))
        .collect();
    ex.check_eq(
        "the range reads back every event in it, in time order",
        got,
        want,
    );

    let one = repo
        .scan()
        .prefix(LogByTimeKey::prefix_by_ts(&all[20].ts)?)
        .stream()
        .try_collect::<Vec<_>>()
        .await?;
    ex.check_eq(
        "one exact timestamp: its bucket is known, a single scan",
        one,
        vec![all[20].by_time()],
    );
    Ok(repo)
}

async fn hashed(ex: &mut Example, all: &[Event]) -> hbase_orm::Result<Repository<LogHashed>> {
    ex.say("\n-- 3. [md5(host)][md5(event)][ts]: hashed parts, 40 bytes whatever the names");
    ex.say("Long host and event names cost the same as short ones, and hashes spread writes;");
    ex.say("a prefix of host + event is still exact, but names no longer sort (no scan of");
    ex.say("\"hosts starting with web-\"), so the names are kept in columns to read them back.");
    let repo = ex.fresh::<LogHashed>().await;
    repo.save_all(&all.iter().map(Event::hashed).collect::<Vec<_>>())
        .await?;
    let raw = row_keys(repo.table(), Scan::new()).await;
    ex.check(
        "every key is 40 bytes",
        raw.len() == 48 && raw.iter().all(|k| k.len() == 40),
    );
    let (host, event) = (HOSTS[1], EVENTS[2]);
    let found: Vec<LogHashed> = repo
        .scan()
        .prefix(LogHashedKey::prefix_by_host_event(
            &host.to_string(),
            &event.to_string(),
        )?)
        .stream()
        .try_collect()
        .await?;
    ex.say(format!(
        "prefix scan `{event}` of {host}: {:?}",
        times(found.iter().map(|l| l.ts))
    ));
    ex.check_eq(
        "the prefix scan finds that host's events of that type, oldest first",
        found.iter().map(|l| l.ts).collect::<Vec<_>>(),
        of(all, host, event),
    );
    if let Some(first) = found.first() {
        ex.say(format!("a key: {}", printable_key(&first.row_key()?)));
    }
    ex.check(
        "the names are read back from their columns",
        found.iter().all(|l| l.host == host && l.event == event),
    );
    let e = &all[7];
    let got = repo
        .get(&LogHashedKey {
            host: e.host.clone(),
            event: e.event.clone(),
            ts: e.ts,
        })
        .await?;
    ex.check_eq("a get by names", got, Some(e.hashed()));
    Ok(repo)
}

async fn numeric(ex: &mut Example, all: &[Event]) -> hbase_orm::Result<Repository<LogNumeric>> {
    ex.say("\n-- 4. [host id][event id][ts]: numeric substitution, 16 bytes");
    ex.say("Names become 4-byte ids from a lookup table (dictionaries `hosts` and `log_types`");
    ex.say("in example:log_data_names), handed out by an HBase counter the first time a name");
    ex.say("is saved: the shortest keys, for a lookup per new name and per prefix scan.");
    let repo = ex.fresh::<LogNumeric>().await;
    let values: Vec<LogNumeric> = all.iter().map(Event::numeric).collect();
    repo.save_all(&values).await?;
    let raw = row_keys(repo.table(), Scan::new()).await;
    ex.check(
        "every key is 16 bytes",
        raw.len() == 48 && raw.iter().all(|k| k.len() == 16),
    );

    ex.say("the lookup table, read with a fresh cache (name -> id -> name):");
    let names_table = TableName::new(LogNumeric::NAMESPACE, LogNumeric::DICTIONARY_TABLE);
    for (dict, names) in [("hosts", &HOSTS), ("log_types", &EVENTS)] {
        let dictionary = Dictionary::new(ex.client(), names_table.clone(), dict);
        let mut ids = Vec::new();
        for name in names.iter() {
            let id = dictionary.lookup(name).await?;
            let back = match id {
                Some(id) => dictionary.name(id).await?,
                None => None,
            };
            ex.say(format!(
                "  {dict:<9} {name:<48} -> {} -> {}",
                id.map_or("none".into(), |i| i.to_string()),
                back.as_deref().unwrap_or("none")
            ));
            ex.check_eq(
                &format!("{dict}: the id of {name:?} names it again"),
                back.as_deref(),
                Some(*name),
            );
            ids.extend(id);
        }
        ids.sort_unstable();
        ids.dedup();
        ex.check_eq(
            &format!(
                "{dict}: {} names, {} distinct ids",
                names.len(),
                names.len()
            ),
            ids.len(),
            names.len(),
        );
    }
    ex.say("(ids are unique but not dense: save_all saves its rows concurrently, so several");
    ex.say("first saves of one new name each draw a counter value; one wins, the rest go unused)");
    let dict_rows = row_keys(
        &ex.client()
            .table_named(LogNumeric::related_schemas()[0].descriptor.name.clone()),
        Scan::new(),
    )
    .await;
    ex.check_eq(
        "the lookup table: per dictionary a counter row, and a name->id and an id->name row per name",
        dict_rows.len(),
        2 * (1 + 2 * 3),
    );

    let (host, event) = (HOSTS[0], EVENTS[2]);
    let (h, ev) = (DictName::new(host), DictName::new(event));
    let known = repo.dictionary("hosts").resolve(&h, false).await?
        && repo.dictionary("log_types").resolve(&ev, false).await?;
    ex.check("the prefix's names resolve to ids", known);
    let latest: Vec<LogNumeric> = repo
        .scan()
        .prefix(LogNumericKey::prefix_by_host_event(&h, &ev)?)
        .reversed()
        .limit(3)
        .stream()
        .try_collect()
        .await?;
    ex.say(format!(
        "newest 3 `{event}` of {host} (ids {:?}/{:?}), by a reversed scan: {:?}",
        h.id().unwrap_or_default(),
        ev.id().unwrap_or_default(),
        times(latest.iter().map(|l| l.ts))
    ));
    let mut want = of(all, host, event);
    want.reverse();
    want.truncate(3);
    ex.check_eq(
        "a reversed prefix scan gives the newest first without a reverse timestamp",
        latest.iter().map(|l| l.ts).collect::<Vec<_>>(),
        want,
    );
    if let Some(newest) = latest.first() {
        ex.say(format!(
            "its key (host id, event id, ts): {}",
            printable_key(&newest.row_key()?)
        ));
    }
    ex.check(
        "the entities read have their names filled in",
        latest
            .iter()
            .all(|l| l.host.name() == Some(host) && l.event.name() == Some(event)),
    );
    let unknown = DictName::new("never-seen.example.com");
    ex.check(
        "a name never saved has no id (reads never assign one), so no row can start with it",
        !repo.dictionary("hosts").resolve(&unknown, false).await?,
    );
    Ok(repo)
}

/// The row-key lengths of one event under every design.
async fn key_lengths(
    ex: &mut Example,
    numeric: &Repository<LogNumeric>,
    e: &Event,
) -> hbase_orm::Result<()> {
    // The numeric key needs the names' ids: the value read back carries them.
    let stored = numeric
        .get(&LogNumericKey {
            host: e.host.as_str().into(),
            event: e.event.as_str().into(),
            ts: e.ts,
        })
        .await?;
    let numeric_len = match stored {
        Some(v) => v.row_key()?.len(),
        None => 0,
    };
    let (h, ev) = (e.host.len(), e.event.len());
    let rows = [
        (
            "[ts][host][event]",
            e.time_first().row_key()?.len(),
            8 + h + 1 + ev,
        ),
        (
            "[host][event][rev ts]",
            e.by_host().row_key()?.len(),
            h + 1 + ev + 1 + 8,
        ),
        (
            "[bucket][ts][host][event]",
            e.by_time().row_key()?.len(),
            1 + 8 + h + 1 + ev,
        ),
        ("[md5 host][md5 event][ts]", e.hashed().row_key()?.len(), 40),
        ("[host id][event id][ts]", numeric_len, 16),
    ];
    ex.say(format!(
        "host {:?} ({h} bytes), event {:?} ({ev} bytes):",
        e.host, e.event
    ));
    for (design, len, want) in rows {
        ex.say(format!("  {design:<27} {len:>3} bytes"));
        ex.check_eq(&format!("{design}: {want} bytes"), len, want);
    }
    Ok(())
}

async fn run(ex: &mut Example) -> hbase_orm::Result<()> {
    let all = events();
    ex.say(format!(
        "{} events: {} hosts x {} event types, {STEP} ms apart",
        all.len(),
        HOSTS.len(),
        EVENTS.len()
    ));
    host_led(ex, &all).await?;
    bucketed(ex, &all).await?;
    hashed(ex, &all).await?;
    let numeric = numeric(ex, &all).await?;

    ex.say("\n-- Key lengths of the same event (the key is stored again in every cell)");
    let long = all
        .iter()
        .find(|e| e.host == HOSTS[0] && e.event == EVENTS[2])
        .cloned()
        .unwrap_or_else(|| all[0].clone());
    let short = all
        .iter()
        .find(|e| e.host == HOSTS[2] && e.event == EVENTS[1])
        .cloned()
        .unwrap_or_else(|| all[0].clone());
    key_lengths(ex, &numeric, &long).await?;
    key_lengths(ex, &numeric, &short).await?;
    ex.say("Names up to a few bytes favour the readable designs; long ones, ids or hashes.");
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    let mut ex = Example::start(
        "log_data",
        "Log events (host, event type, timestamp) under four row-key designs, each fitting a\n\
         different read: host-led with reverse timestamps for a host's latest events; time-led\n\
         in buckets (ts mod 4) for time ranges over all hosts without one hot region; hashed\n\
         parts and dictionary ids for keys of fixed, short width whatever the names' lengths.",
        Client::from_env().await,
    )
    .await;
    let ran = run(&mut ex).await;
    ex.ran("the example", ran);
    ex.say("\nDesign advice:");
    ex.advice::<LogByHost>(&[]);
    ex.advice::<LogByTime>(&[]);
    ex.advice::<LogHashed>(&[]);
    ex.advice::<LogNumeric>(&[]);
    ex.advice::<LogTimeFirst>(&[(
        "monotonic_key_start",
        "the counterexample the bucket byte of design 2 fixes; never written to",
    )]);
    ex.finish()
}
