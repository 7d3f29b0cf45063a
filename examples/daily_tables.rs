//! One table per day with 6-byte row keys, from the row-key design rules of the seeds' design
//! notes (transaction data and pre-computed statistics).
//!
//! - Transactions go to `daily_tx_{yyyyMMdd}`. Since the table carries the date, the key keeps
//!   only the time of day: `[spread: 2 bytes][milliseconds of the day: 4 bytes]`. The spread
//!   field leads so that writes arriving in time order fan out over the regions: the loader
//!   hands it out from a cyclic counter (multiplied by an odd constant, so consecutive
//!   transactions land far apart), and the table is pre-split on it into 4 regions. Keys are
//!   unique as long as one spread value is not used twice within the same millisecond.
//! - Statistics go to `daily_txstat_{yyyyMMdd}`: `[series: 4 bytes][minute of the day: 2
//!   bytes]`, the series id (a hash of the dimension it counts) doubling as the spread field.
//!   A recomputed minute lands on the same key and replaces the old figures.
//!
//! The trade-off: a day is one table (dropping old data is dropping a table, a day's scan reads
//! one table) and keys are 6 bytes instead of 14, but a time window within a day is not one key
//! range for transactions (the spread field leads), and a query over several days opens one
//! table per day.
//!
//! The time-of-day parts use the library's `MillisOfDay` and `MinuteOfDay` key codecs: the
//! key holds the time within the day, and entities read from a day's table get the day (from
//! the table's name) added back.
//!
//!     hbase-local/hbase.sh up && cargo run --example daily_tables
//!
//! Tables `example:daily_tx_20240301`, `example:daily_tx_20240302`,
//! `example:daily_txstat_20240301` and `example:daily_txstat_20240302` are recreated at the
//! start of each run and left for inspection.

use std::collections::BTreeMap;
use std::process::ExitCode;

use futures::TryStreamExt;
use hbase_orm::rowkey::{MillisOfDay, MinuteOfDay};
use hbase_orm::{Client, HBaseEntity, Scan, Table, TableName};
use hbase_orm_suite::example::{Example, Lcg};

const DAY: i64 = 86_400_000;
/// 2024-03-01T00:00:00Z.
const DAY1: i64 = 1_709_251_200_000;
/// 2024-03-02T00:00:00Z.
const DAY2: i64 = DAY1 + DAY;

/// A transaction: table `daily_tx_{yyyyMMdd}`, key `[spread][ms of day]`, 6 bytes.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    namespace = "example",
    table = "daily_tx_{yyyyMMdd}",
    table_time = "ts",
    family = "d",
    split(uniform = 4)
)]
struct Tx {
    #[hbase(key)]
    spread: u16,
    /// Milliseconds since the epoch; the key keeps the time of day, reads add the day back.
    #[hbase(key(codec = MillisOfDay))]
    ts: i64,
    #[hbase(rename = "ac")]
    account: String,
    #[hbase(rename = "amt")]
    amount_cents: i64,
}

/// Per-minute statistics of one series: table `daily_txstat_{yyyyMMdd}`, key
/// `[series][minute of day]`, 6 bytes.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    namespace = "example",
    table = "daily_txstat_{yyyyMMdd}",
    table_time = "minute",
    family = "d",
    split(uniform = 4)
)]
struct TxStat {
    /// A hash of the account counted, spread over the whole 4-byte range.
    #[hbase(key)]
    series: u32,
    /// The minute's start in milliseconds since the epoch; the key keeps the minute of the day.
    #[hbase(key(codec = MinuteOfDay))]
    minute: i64,
    #[hbase(rename = "n")]
    count: u64,
    #[hbase(rename = "s")]
    sum_cents: i64,
}

/// The series id of an account: FNV-1a with MurmurHash3's final mix, so ids of similar names
/// spread over the whole 4-byte range.
fn series_of(account: &str) -> u32 {
    let mut h = account.bytes().fold(0x811c_9dc5u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

/// The loader's spread field: a cyclic counter times an odd constant (a permutation of the 2-byte
/// range, so 65,536 consecutive transactions all get different values).
struct Spreader(u16);

impl Spreader {
    fn next(&mut self) -> u16 {
        self.0 = self.0.wrapping_add(1);
        self.0.wrapping_mul(40_503)
    }
}

/// `n` transactions at random times of `day`, in time order.
fn transactions(day: i64, n: usize, rng: &mut Lcg, spreader: &mut Spreader) -> Vec<Tx> {
    let mut times: Vec<i64> = (0..n).map(|_| day + rng.next(DAY as u64) as i64).collect();
    times.sort();
    times
        .into_iter()
        .map(|ts| Tx {
            spread: spreader.next(),
            ts,
            account: format!("acct-{:03}", rng.next(120)),
            amount_cents: 100 + rng.next(50_000) as i64,
        })
        .collect()
}

/// Per-account, per-minute statistics of some transactions.
fn statistics(txs: &[Tx]) -> Vec<TxStat> {
    let mut by: BTreeMap<(u32, i64), (u64, i64)> = BTreeMap::new();
    for tx in txs {
        let minute = tx.ts - tx.ts.rem_euclid(60_000);
        let e = by.entry((series_of(&tx.account), minute)).or_default();
        e.0 += 1;
        e.1 += tx.amount_cents;
    }
    by.into_iter()
        .map(|((series, minute), (count, sum_cents))| TxStat {
            series,
            minute,
            count,
            sum_cents,
        })
        .collect()
}

async fn rows_of(table: &Table, scan: Scan) -> usize {
    let rows: Vec<hbase_orm::Row> = table.scan(scan).try_collect().await.expect("counting rows");
    rows.len()
}

/// Rows per region of a table.
async fn rows_per_region(ex: &Example, name: &TableName) -> Vec<usize> {
    let table = ex.client().table_named(name.clone());
    let mut out = Vec::new();
    let regions = ex
        .client()
        .admin()
        .region_locations(name)
        .await
        .expect("regions");
    for r in regions {
        let mut scan = Scan::new();
        if !r.start_key.is_empty() {
            scan = scan.start(r.start_key.clone());
        }
        if !r.end_key.is_empty() {
            scan = scan.stop(r.end_key.clone());
        }
        out.push(rows_of(&table, scan).await);
    }
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[tokio::main]
async fn main() -> ExitCode {
    let mut ex = Example::start(
        "daily_tables",
        "Transactions and per-minute statistics in one table per day: the table name carries \
         the date, so 6-byte keys hold a 2-byte spread field and the time of day \
         (transactions) or a 4-byte series and the minute (statistics).",
        Client::from_env().await,
    )
    .await;
    let day_key = |day: i64| TxKey { spread: 0, ts: day };
    let stat_day_key = |day: i64| TxStatKey {
        series: 0,
        minute: day,
    };
    let tx_tables = [
        Tx::table_for_key(&day_key(DAY1)),
        Tx::table_for_key(&day_key(DAY2)),
    ];
    let stat_tables = [
        TxStat::table_for_key(&stat_day_key(DAY1)),
        TxStat::table_for_key(&stat_day_key(DAY2)),
    ];
    for name in tx_tables.iter().chain(&stat_tables) {
        ex.drop_table(name).await;
    }
    let admin = ex.client().admin();
    for day in [DAY1, DAY2] {
        print!(
            "{}",
            admin
                .ensure_for::<Tx>(&day_key(day))
                .await
                .expect("tx table")
        );
        print!(
            "{}",
            admin
                .ensure_for::<TxStat>(&stat_day_key(day))
                .await
                .expect("stat table")
        );
    }
    ex.check_eq(
        "one transaction table per day",
        tx_tables.iter().map(|t| t.to_string()).collect::<Vec<_>>(),
        vec![
            "example:daily_tx_20240301".to_string(),
            "example:daily_tx_20240302".to_string(),
        ],
    );
    let txs = ex.client().repository::<Tx>();
    let stats = ex.client().repository::<TxStat>();

    // Two days of transactions. Within a day they arrive in time order; the spread field
    // scatters them. Each day is one batch on that day's table (`for_time` pins it).
    let (mut rng, mut spreader) = (Lcg(4), Spreader(0));
    let mut day1 = transactions(DAY1, 400, &mut rng, &mut spreader);
    let mut day2 = transactions(DAY2, 300, &mut rng, &mut spreader);
    // The same 6-byte key on both days: it is a different row, since the table differs.
    let twin = Tx {
        spread: day1[0].spread,
        ts: day1[0].ts + DAY,
        account: "acct-999".into(),
        amount_cents: 1,
    };
    day2.push(twin.clone());
    txs.for_time(DAY1).save_all(&day1).await.expect("day 1");
    txs.for_time(DAY2).save_all(&day2).await.expect("day 2");
    // A single save is routed by its own key: this late one goes to day 1's table.
    let late = Tx {
        spread: spreader.next(),
        ts: DAY1 + DAY - 1,
        account: "acct-007".into(),
        amount_cents: 4_200,
    };
    txs.save(&late).await.expect("late transaction");
    day1.push(late.clone());
    ex.say(format!(
        "wrote {} transactions dated 2024-03-01 and {} dated 2024-03-02",
        day1.len(),
        day2.len()
    ));

    let key = day1[0].row_key().expect("row key");
    ex.say(format!(
        "row key of {}: {} (spread {:04x}, {} ms into the day)",
        day1[0].account,
        hex(&key),
        day1[0].spread,
        day1[0].ts - DAY1
    ));
    ex.check_eq("a transaction key is 6 bytes", key.len(), 6);
    ex.check_eq(
        "the first transaction of each day has the same key bytes",
        twin.row_key().expect("row key"),
        key,
    );

    for (name, want) in tx_tables.iter().zip([day1.len(), day2.len()]) {
        let table = ex.client().table_named(name.clone());
        ex.check_eq(
            &format!("{name} holds its day's transactions"),
            rows_of(&table, Scan::new()).await,
            want,
        );
    }
    let spread = rows_per_region(&ex, &tx_tables[0]).await;
    ex.say(format!(
        "2024-03-01's rows per region (pre-split on the spread field): {spread:?}"
    ));
    ex.check_eq("the day table has 4 regions", spread.len(), 4);
    ex.check(
        "writes in time order reached every region",
        spread.iter().all(|n| *n > 0),
    );

    // A day's scan reads that day's table only.
    let scanned: Vec<Tx> = txs
        .for_time(DAY1)
        .scan()
        .stream()
        .try_collect()
        .await
        .expect("day scan");
    let mut want = day1.clone();
    want.sort_by_key(|t| (t.spread, t.ts));
    ex.check_eq(
        "a scan of 2024-03-01 returns its transactions, in [spread][time] order",
        scanned
            .iter()
            .map(|t| (t.spread, t.account.clone(), t.amount_cents))
            .collect::<Vec<_>>(),
        want.iter()
            .map(|t| (t.spread, t.account.clone(), t.amount_cents))
            .collect(),
    );
    ex.check_eq(
        "read back, `ts` is whole again: the key's time of day plus the table's date",
        scanned,
        want,
    );

    // Gets are routed by the key's date: the same key bytes read different rows.
    let k1 = day1[0].key();
    let k2 = twin.key();
    let (g1, g2) = (
        txs.get(&k1).await.expect("get day 1"),
        txs.get(&k2).await.expect("get day 2"),
    );
    ex.check_eq(
        "a get of day 1's key reads day 1's table",
        g1.map(|t| t.account),
        Some(day1[0].account.clone()),
    );
    ex.check_eq(
        "the same key bytes dated day 2 read day 2's row",
        g2.map(|t| t.account),
        Some(twin.account.clone()),
    );

    // Statistics: per account and minute, one table per day.
    let (stats1, stats2) = (statistics(&day1), statistics(&day2));
    stats
        .for_time(DAY1)
        .save_all(&stats1)
        .await
        .expect("day 1 stats");
    stats
        .for_time(DAY2)
        .save_all(&stats2)
        .await
        .expect("day 2 stats");
    let stat_key = stats1[0].row_key().expect("stat key");
    ex.say(format!(
        "wrote {} + {} statistics rows; key of series {:08x} at minute {}: {}",
        stats1.len(),
        stats2.len(),
        stats1[0].series,
        (stats1[0].minute - DAY1) / 60_000,
        hex(&stat_key)
    ));
    ex.check_eq("a statistics key is 6 bytes", stat_key.len(), 6);

    // Recomputing a minute replaces its row: same key, same table.
    let mut again = stats1[0].clone();
    again.count += 1;
    again.sum_cents += 99;
    stats.save(&again).await.expect("recomputed minute");
    let stat_table = ex.client().table_named(stat_tables[0].clone());
    ex.check_eq(
        "a recomputed minute overwrites its row (no new row)",
        rows_of(&stat_table, Scan::new()).await,
        stats1.len(),
    );
    let read = stats
        .get(&again.key())
        .await
        .expect("get stat")
        .map(|s| (s.count, s.sum_cents));
    ex.check_eq(
        "it reads the recomputed figures",
        read,
        Some((again.count, again.sum_cents)),
    );
    stats.save(&stats1[0]).await.expect("restore");

    // One series' morning is one key range of its day's table.
    let (from, to) = (DAY1 + 6 * 3_600_000, DAY1 + 12 * 3_600_000);
    let account = &day1
        .iter()
        .find(|t| (from..to).contains(&t.ts))
        .expect("a morning transaction")
        .account;
    let series = series_of(account);
    let morning: Vec<TxStat> = stats
        .for_time(DAY1)
        .scan()
        .range(
            &TxStatKey {
                series,
                minute: from,
            },
            &TxStatKey { series, minute: to },
        )
        .stream()
        .try_collect()
        .await
        .expect("series range");
    let want: Vec<(i64, u64)> = stats1
        .iter()
        .filter(|s| s.series == series && (from..to).contains(&s.minute))
        .map(|s| (s.minute, s.count))
        .collect();
    ex.say(format!(
        "{account} (series {series:08x}) between 06:00 and 12:00: {} minutes with transactions",
        morning.len()
    ));
    ex.check(
        "the account had transactions that morning",
        !want.is_empty(),
    );
    ex.check_eq(
        "a range scan of [series][06:00, 12:00) returns that morning's minutes",
        morning
            .iter()
            .map(|s| (s.minute, s.count))
            .collect::<Vec<_>>(),
        want,
    );
    let counted: u64 = stats1.iter().map(|s| s.count).sum();
    ex.check_eq(
        "the day's statistics count every transaction",
        counted as usize,
        day1.len(),
    );
    let stat_spread = rows_per_region(&ex, &stat_tables[0]).await;
    ex.say(format!(
        "statistics rows per region of 2024-03-01 (pre-split on the series' high bytes): \
         {stat_spread:?}"
    ));
    ex.check(
        "hashed series ids reached every region",
        stat_spread.len() == 4 && stat_spread.iter().all(|n| *n > 0),
    );

    ex.say(
        "Read back, `ts` and `minute` are whole times again: their key codecs keep only the \
         time within the day, and the repository adds the day named by the table.",
    );
    ex.advice::<Tx>(&[]);
    ex.advice::<TxStat>(&[]);
    ex.finish()
}
