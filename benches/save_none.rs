//! `save_all` of entities with `None` fields against the same entities with every field set,
//! in one run, on the native backend and the Thrift2 gateway. Not a test: it asserts nothing
//! about speed, it prints one table.
//!
//!     HBASE_ORM_JIT=full hbase-local/hbase.sh up
//!     cargo bench --bench save_none
//!
//! The rows are shipment events as a data engineer's CSV held them: key `[shipment u64][seq
//! u32]`, seven columns (a status, a carrier, a city, a free-text location of 20 to 60 bytes,
//! a weight, a timestamp, an `Option<String>` note). A row whose note is `None` must delete the
//! stored note in the same atomic write as its puts, so it cannot be a plain put; a row with a
//! note is one. Each backend gets a fresh table per case (family `d`, dropped at the end), and
//! the cases run in turns: every field set (`put_many`, the baseline), 90% of the notes `None`
//! (`save_all` batches the rows that delete a column with `Table::mutate_rows`), and the same
//! rows saved the way `save_all` did before (one `Table::mutate_row` per such row, all of a
//! chunk at once). Each case: a warm-up round and three measured rounds of `save_all` (500
//! rows a call) over the same rows; the table gives every round, the best, and the ratio of
//! each case's best to the baseline's. CPU is this process's (`getrusage`); HBase runs in
//! other processes.
//!
//! Environment: `HBASE_ORM_BENCH_ROWS` (rows per round on the native backend, default
//! 100,000), `HBASE_ORM_BENCH_GATEWAY_ROWS` (on the gateway, default 20,000; 0 leaves the
//! gateway out), `HBASE_ORM_NATIVE_URL` (default `hbase://127.0.0.1:2181`),
//! `HBASE_ORM_URL` for the gateway (default `thrift2://127.0.0.1:9090?pool_size=16`).

use std::time::{Duration, Instant};

use hbase_orm::{Client, Config, HBaseEntity, Repository};
use hbase_orm_suite::workload::cpu_time;
use hbase_orm_suite::{connect_with, native_url, TestTable};

/// A shipment event.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(table = "bench_events", family = "d")]
struct Event {
    #[hbase(key)]
    shipment: u64,
    #[hbase(key)]
    seq: u32,
    status: String,
    carrier: String,
    city: String,
    location: String,
    weight_grams: i64,
    at: i64,
    note: Option<String>,
}

const STATUSES: [&str; 5] = [
    "created",
    "picked_up",
    "in_transit",
    "out_for_delivery",
    "delivered",
];
const CARRIERS: [&str; 4] = ["NorthFreight", "Coastline Parcel", "RapidPost", "Blue Mile"];
const CITIES: [&str; 6] = [
    "Rotterdam",
    "Lyon",
    "Gdansk",
    "Porto",
    "Leipzig",
    "Thessaloniki",
];

/// Event `i`; its note is set when `notes` says so for it.
fn event(i: u64, notes: impl Fn(u64) -> bool) -> Event {
    let city = CITIES[(i % 6) as usize];
    Event {
        shipment: i / 8,
        seq: (i % 8) as u32,
        status: STATUSES[(i % 5) as usize].to_string(),
        carrier: CARRIERS[(i % 4) as usize].to_string(),
        city: city.to_string(),
        location: format!(
            "dock {} of the {city} sorting centre{}",
            i % 97,
            " (north annex)".repeat((i % 4) as usize)
        ),
        weight_grams: (i * 7919 % 40_000) as i64,
        at: 1_790_000_000_000 + i as i64 * 1_000,
        note: notes(i).then(|| format!("leave with the neighbour at number {}", i % 200)),
    }
}

/// Rows a `save_all` call carries.
const CHUNK: usize = 500;
/// Measured rounds after the warm-up.
const RUNS: usize = 3;

/// One measured round.
struct Round {
    wall: Duration,
    cpu: Duration,
}

/// How a case saves its rows.
#[derive(Clone, Copy)]
enum How {
    /// `Repository::save_all`.
    SaveAll,
    /// What `save_all` did before: `put_many` of the rows that are plain puts, then one
    /// `Table::mutate_row` per other row, all of a chunk at once.
    RowByRow,
}

/// The rows of every round of a case, and how they are saved.
struct Case {
    name: &'static str,
    rows: Vec<Event>,
    how: How,
}

async fn save(repo: &Repository<Event>, rows: &[Event], how: How) {
    match how {
        How::SaveAll => repo.save_all(rows).await.expect("save_all"),
        How::RowByRow => {
            let table = repo.table();
            for chunk in rows.chunks(CHUNK) {
                let mut puts = Vec::new();
                let mut images = Vec::new();
                for row in chunk {
                    let mut image = row.to_mutations().expect("a row image");
                    match image.mutations.as_mut_slice() {
                        [hbase_orm::Mutation::Put(p)] => puts.push(p.clone()),
                        _ => images.push(image),
                    }
                }
                table.put_many(puts).await.expect("put_many");
                let saved = images.into_iter().map(|m| table.mutate_row(m));
                for result in futures::future::join_all(saved).await {
                    result.expect("mutate_row");
                }
            }
        }
    }
}

/// Every case on `client`, in turns, each on a table of its own; the rounds of each case.
async fn run(client: &Client, label: &str, cases: &[Case]) -> Vec<Vec<Round>> {
    let mut tables = Vec::new();
    let mut repos = Vec::new();
    for k in 0..cases.len() {
        let table = TestTable::create(
            client,
            &format!("save_none_{label}_{k}"),
            Event::family_descriptors(),
            &[],
        )
        .await;
        repos.push(
            client
                .repository::<Event>()
                .on_table(table.name.clone())
                .with_save_chunk(CHUNK),
        );
        tables.push(table);
    }
    let mut rounds: Vec<Vec<Round>> = cases.iter().map(|_| Vec::new()).collect();
    for round in 0..=RUNS {
        for (k, case) in cases.iter().enumerate() {
            let (c0, t0) = (cpu_time(), Instant::now());
            save(&repos[k], &case.rows, case.how).await;
            let done = Round {
                wall: t0.elapsed(),
                cpu: cpu_time().saturating_sub(c0),
            };
            if round > 0 {
                rounds[k].push(done);
            }
        }
    }
    drop(tables);
    rounds
}

fn rate(rows: usize, round: &Round) -> f64 {
    rows as f64 / round.wall.as_secs_f64()
}

fn print(label: &str, cases: &[Case], rounds: &[Vec<Round>]) {
    println!("\n{label}");
    println!(
        "| case | rows | rounds (rows/s) | best rows/s | CPU µs/row (best round) | best / every field set |"
    );
    println!("|---|---|---|---|---|---|");
    let best = |k: usize| -> &Round {
        rounds[k]
            .iter()
            .max_by(|a, b| rate(1, a).total_cmp(&rate(1, b)))
            .expect("measured rounds")
    };
    let base = rate(cases[0].rows.len(), best(0));
    for (k, case) in cases.iter().enumerate() {
        let n = case.rows.len();
        let each: Vec<String> = rounds[k]
            .iter()
            .map(|r| format!("{:.0}", rate(n, r)))
            .collect();
        let b = best(k);
        println!(
            "| {} | {n} | {} | {:.0} | {:.2} | {:.2}x |",
            case.name,
            each.join(" / "),
            rate(n, b),
            b.cpu.as_secs_f64() * 1e6 / n as f64,
            rate(n, b) / base
        );
    }
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn cases(rows: usize) -> Vec<Case> {
    let set: Vec<Event> = (0..rows as u64).map(|i| event(i, |_| true)).collect();
    let sparse: Vec<Event> = (0..rows as u64)
        .map(|i| event(i, |i| i.is_multiple_of(10)))
        .collect();
    vec![
        Case {
            name: "every field set",
            rows: set,
            how: How::SaveAll,
        },
        Case {
            name: "90% notes None",
            rows: sparse.clone(),
            how: How::SaveAll,
        },
        Case {
            name: "90% notes None, row by row (before)",
            rows: sparse,
            how: How::RowByRow,
        },
    ]
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    runtime.block_on(async {
        let native_rows = env("HBASE_ORM_BENCH_ROWS", 100_000);
        let gateway_rows = env("HBASE_ORM_BENCH_GATEWAY_ROWS", 20_000);
        let native = connect_with(Config::from_url(&native_url()).expect("a native URL")).await;
        let native_cases = cases(native_rows);
        let rounds = run(&native, "native", &native_cases).await;
        print("native backend", &native_cases, &rounds);
        if gateway_rows > 0 {
            let url = std::env::var("HBASE_ORM_URL")
                .unwrap_or_else(|_| "thrift2://127.0.0.1:9090?pool_size=16".into());
            let gateway = connect_with(Config::from_url(&url).expect("a gateway URL")).await;
            let gateway_cases = cases(gateway_rows);
            let rounds = run(&gateway, "thrift2", &gateway_cases).await;
            print(&format!("Thrift2 gateway ({url})"), &gateway_cases, &rounds);
        }
    });
}
