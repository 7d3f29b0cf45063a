//! Read speed of the client against the running HBase: entity scans against raw scans of the
//! same rows, single gets on both Thrift2 gateways and natively (HBase's own RPC, no gateway),
//! salted against unsalted scans. Not a test:
//! it asserts nothing about speed, it prints one table, every row measured in this run.
//!
//!     HBASE_ORM_JIT=full hbase-local/hbase.sh up
//!     cargo bench --bench reads
//!
//! The workload is an 8-column order (family `d`; key `[customer u64][order u64]`; two `i64`,
//! a timestamp, an `f64`, four short strings). Environment: `HBASE_ORM_BENCH_ROWS` (rows
//! written and scanned, default 50,000), `HBASE_ORM_BENCH_GETS` (sequential gets per gateway,
//! default 2,000). "client CPU" is this process's user + system time (`getrusage`)
//! divided by the rows or calls: the gateway and HBase run in other processes. Everything runs
//! on tokio's multi-thread runtime, from `block_on`'s thread as a `#[tokio::main]` program's
//! code does, except the last two rows: the buffered gets again from a task spawned on the
//! runtime's workers, and on a current-thread runtime. Two floor rows come last: a bare round
//! trip on a loopback socket (120 bytes out, 260 back, the size of a get and its reply) to a
//! child process that answers at once, no HBase and no protocol: what the kernel of this
//! machine charges the calling process for any call.

use std::time::{Duration, Instant};

use futures::TryStreamExt;
use hbase_orm::rowkey::salt_split_keys;
use hbase_orm::{Config, HBaseEntity, Protocol, Repository, Scan, Transport};
use hbase_orm_suite::workload::{cpu_time, memory_mib, order, Order, OrderKey};
use hbase_orm_suite::{
    connect_with, framed_gateway_address, gateway_address, native_url, TestTable,
};

const PAGE: i32 = 1000;

/// Runs of each measurement; the table shows the fastest.
const RUNS: usize = 5;

/// The same order in a table salted over 16 buckets.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(table = "bench_salted_orders", family = "d", salt(buckets = 16))]
struct SaltedOrder {
    #[hbase(key)]
    customer: u64,
    #[hbase(key)]
    order: u64,
    quantity: i64,
    amount_cents: i64,
    placed_at: i64,
    price: f64,
    status: String,
    city: String,
    channel: String,
    currency: String,
}

fn salted(o: Order) -> SaltedOrder {
    SaltedOrder {
        customer: o.customer,
        order: o.order,
        quantity: o.quantity,
        amount_cents: o.amount_cents,
        placed_at: o.placed_at,
        price: o.price,
        status: o.status,
        city: o.city,
        channel: o.channel,
        currency: o.currency,
    }
}

struct Line {
    what: String,
    items: usize,
    wall: Duration,
    cpu: Duration,
    /// Items per second in the first of the runs (the one a cold JVM or cache slows).
    first: f64,
}

/// Runs `work` (which returns how many rows or calls it did) once and measures it.
async fn measure_once<F, Fut>(what: &str, work: &F) -> Line
where
    F: Fn() -> Fut + ?Sized,
    Fut: std::future::Future<Output = usize>,
{
    let (c0, t0) = (cpu_time(), Instant::now());
    let items = work().await;
    Line {
        what: what.to_string(),
        items,
        wall: t0.elapsed(),
        cpu: cpu_time().saturating_sub(c0),
        first: 0.0,
    }
}

/// Runs `work` `RUNS` times and keeps the fastest run: the machine's other work (HBase's
/// flushes, the gateways' JIT) only ever slows a run down.
async fn measure<'a, F, Fut>(what: &str, work: F) -> Line
where
    F: Fn() -> Fut + Send + Sync + 'a,
    Fut: std::future::Future<Output = usize> + Send + 'a,
{
    let work: Work<'a> = Box::new(move || Box::pin(work()));
    in_turns(&[(what, work)]).await.remove(0)
}

/// A measured piece of work: it returns how many rows or calls it did.
type Work<'a> = Box<dyn Fn() -> futures::future::BoxFuture<'a, usize> + Send + Sync + 'a>;

/// Runs each of `works` once per round, `RUNS` rounds, and keeps the fastest run of each
/// (with the first run's rate).
async fn in_turns<'a>(works: &[(&str, Work<'a>)]) -> Vec<Line> {
    let mut best: Vec<Option<Line>> = works.iter().map(|_| None).collect();
    for _ in 0..RUNS {
        for ((what, work), best) in works.iter().zip(&mut best) {
            let mut line = measure_once(what, work).await;
            line.first = match best {
                None => line.items as f64 / line.wall.as_secs_f64(),
                Some(b) => b.first,
            };
            if best.as_ref().is_none_or(|b| line.wall < b.wall) {
                *best = Some(line);
            }
        }
    }
    best.into_iter().flatten().collect()
}

async fn write<T: HBaseEntity + Clone>(repo: &Repository<T>, rows: &[T]) {
    for chunk in rows.chunks(1000) {
        repo.save_all(chunk).await.unwrap();
    }
}

async fn entity_scan<T: HBaseEntity + Send + 'static>(repo: &Repository<T>) -> usize {
    repo.scan()
        .page_size(PAGE)
        .stream()
        .try_fold(0, |n, _| async move { Ok(n + 1) })
        .await
        .unwrap()
}

async fn parallel_scan(repo: &Repository<Order>, n: usize) -> usize {
    repo.scan()
        .page_size(PAGE)
        .parallel(n)
        .stream()
        .try_fold(0, |n, _| async move { Ok(n + 1) })
        .await
        .unwrap()
}

async fn raw_scan(repo: &Repository<Order>, scan: Scan) -> usize {
    repo.table()
        .scan(scan.caching(PAGE))
        .try_fold(0, |n, _| async move { Ok(n + 1) })
        .await
        .unwrap()
}

async fn gets(repo: &Repository<Order>, rows: u64, n: usize) -> usize {
    for i in 0..n as u64 {
        let o = order(i * 7919 % rows);
        let key = OrderKey {
            customer: o.customer,
            order: o.order,
        };
        assert!(repo.get(&key).await.unwrap().is_some());
    }
    n
}

/// The environment variable that makes the bench's own binary the floor rows' echo server.
const ECHO: &str = "HBASE_ORM_BENCH_ECHO_SERVER";
const ECHO_ASK: usize = 120;
const ECHO_ANSWER: usize = 260;

/// The echo server (in a child process, so that its CPU is not counted): prints its port,
/// then answers every `ECHO_ASK` bytes read with `ECHO_ANSWER` bytes, a thread per connection.
fn echo_server() {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    println!("{}", listener.local_addr().unwrap().port());
    for stream in listener.incoming() {
        let mut s = stream.unwrap();
        s.set_nodelay(true).unwrap();
        std::thread::spawn(move || {
            let (mut ask, answer) = ([0u8; ECHO_ASK], [7u8; ECHO_ANSWER]);
            while s.read_exact(&mut ask).is_ok() && s.write_all(&answer).is_ok() {}
        });
    }
}

/// The echo server's process, killed when the bench ends (or panics).
struct Echo(std::process::Child);

impl Drop for Echo {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the echo server; its port.
fn start_echo() -> (Echo, u16) {
    use std::io::BufRead;
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .env(ECHO, "1")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    let out = child.stdout.take().unwrap();
    let echo = Echo(child);
    std::io::BufReader::new(out).read_line(&mut line).unwrap();
    (echo, line.trim().parse().unwrap())
}

/// `n` round trips to the echo server on one connection.
async fn bare_round_trips(port: u16, n: usize) -> usize {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    s.set_nodelay(true).unwrap();
    let (ask, mut answer) = ([1u8; ECHO_ASK], [0u8; ECHO_ANSWER]);
    for _ in 0..n {
        s.write_all(&ask).await.unwrap();
        s.read_exact(&mut answer).await.unwrap();
    }
    n
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    if std::env::var_os(ECHO).is_some() {
        return echo_server();
    }
    let (echo, echo_port) = start_echo();
    let rows = env("HBASE_ORM_BENCH_ROWS", 50_000) as u64;
    let n_gets = env("HBASE_ORM_BENCH_GETS", 2_000);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let lines = runtime.block_on(async move {
        let client = hbase_orm_suite::client().await;
        let framed = connect_with(Config {
            address: framed_gateway_address(),
            transport: Transport::Framed,
            protocol: Protocol::Compact,
            ..Config::default()
        })
        .await;
        let native =
            connect_with(Config::from_url(&native_url()).expect("a valid hbase:// URL")).await;
        let plain = TestTable::create(&client, "reads", Order::family_descriptors(), &[]).await;
        let salted_table = TestTable::create(
            &client,
            "reads_salted",
            SaltedOrder::family_descriptors(),
            &salt_split_keys(16),
        )
        .await;
        // The same rows in a table pre-split into 8 regions, for parallel scans.
        let customers = rows / 50;
        let splits: Vec<Vec<u8>> = (1..8u64)
            .map(|k| (customers * k / 8).to_be_bytes().to_vec())
            .collect();
        let split =
            TestTable::create(&client, "reads_split", Order::family_descriptors(), &splits).await;
        let split_repo = client.repository::<Order>().on_table(split.name.clone());
        let repo = client.repository::<Order>().on_table(plain.name.clone());
        let salted_repo = client
            .repository::<SaltedOrder>()
            .on_table(salted_table.name.clone());
        // The same tables through the native backend (HBase's own RPC, no gateway).
        let native_repo = native.repository::<Order>().on_table(plain.name.clone());
        let native_split_repo = native.repository::<Order>().on_table(split.name.clone());
        let all: Vec<Order> = (0..rows).map(order).collect();
        write(&repo, &all).await;
        write(&split_repo, &all).await;
        write(
            &salted_repo,
            &all.into_iter().map(salted).collect::<Vec<_>>(),
        )
        .await;

        let explicit: Vec<(String, String)> = Order::COLUMNS
            .iter()
            .map(|c| (c.family.to_string(), c.qualifier.to_string()))
            .chain([("d".to_string(), String::new())])
            .collect();
        let with_columns = explicit
            .iter()
            .fold(Scan::new(), |s, (f, q)| s.column(f.as_str(), q.as_str()));

        let mut lines = Vec::new();
        // Let the writes settle (memstore flushes run on the same machine), then one pass
        // over every table so each measured scan reads from the block cache.
        tokio::time::sleep(std::time::Duration::from_secs(5)).await;
        raw_scan(&repo, Scan::new().family("d")).await;
        raw_scan(&split_repo, Scan::new().family("d")).await;
        entity_scan(&salted_repo).await;
        // The scans that are compared with each other run in turns, round after round, so
        // that a slow spell of the machine does not fall on one of them only.
        let scans: Vec<(&str, Work<'_>)> = vec![
            (
                "entity scan (repository.scan().page_size(1000))",
                Box::new(|| Box::pin(entity_scan(&repo))),
            ),
            (
                "raw scan, the entity's 9 explicit columns",
                Box::new(|| Box::pin(raw_scan(&repo, with_columns.clone()))),
            ),
            (
                "raw scan, whole family",
                Box::new(|| Box::pin(raw_scan(&repo, Scan::new().family("d")))),
            ),
            (
                "entity scan, salted over 16 buckets (merged)",
                Box::new(|| Box::pin(entity_scan(&salted_repo))),
            ),
            (
                "entity scan, table of 8 regions",
                Box::new(|| Box::pin(entity_scan(&split_repo))),
            ),
            (
                "entity scan, table of 8 regions, parallel(4)",
                Box::new(|| Box::pin(parallel_scan(&split_repo, 4))),
            ),
            (
                "native: entity scan",
                Box::new(|| Box::pin(entity_scan(&native_repo))),
            ),
            (
                "native: raw scan, whole family",
                Box::new(|| Box::pin(raw_scan(&native_repo, Scan::new().family("d")))),
            ),
            (
                "native: entity scan, table of 8 regions",
                Box::new(|| Box::pin(entity_scan(&native_split_repo))),
            ),
            (
                "native: entity scan, 8 regions, parallel(4)",
                Box::new(|| Box::pin(parallel_scan(&native_split_repo, 4))),
            ),
        ];
        lines.extend(in_turns(&scans).await);
        lines.push(
            measure("repository.get, sequential, buffered/binary 9090", || {
                gets(&repo, rows, n_gets)
            })
            .await,
        );
        lines.push(
            measure("native: repository.get, sequential", || {
                gets(&native_repo, rows, n_gets)
            })
            .await,
        );
        let framed_repo = framed.repository::<Order>().on_table(plain.name.clone());
        lines.push(
            measure("repository.get, sequential, framed/compact 9091", || {
                gets(&framed_repo, rows, n_gets)
            })
            .await,
        );
        // The same gets from a task on the runtime's workers (the bench's own code runs on
        // `block_on`'s thread, which a worker must wake for every reply).
        let spawned_repo = repo.clone();
        lines.push(
            tokio::spawn(async move {
                measure("repository.get, 9090, in a spawned task", || {
                    gets(&spawned_repo, rows, n_gets)
                })
                .await
            })
            .await
            .unwrap(),
        );
        let spawned_native = native_repo.clone();
        lines.push(
            tokio::spawn(async move {
                measure("native: repository.get, in a spawned task", || {
                    gets(&spawned_native, rows, n_gets)
                })
                .await
            })
            .await
            .unwrap(),
        );
        // The same gets from a current-thread runtime: no wake-up crosses threads.
        let native_table = plain.name.clone();
        let native_single = tokio::task::spawn_blocking(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let config = Config::from_url(&native_url()).expect("a valid hbase:// URL");
                let client = connect_with(config).await;
                let repo = client.repository::<Order>().on_table(native_table);
                measure("native: repository.get, current-thread runtime", || {
                    gets(&repo, rows, n_gets)
                })
                .await
            })
        })
        .await
        .unwrap();
        lines.push(native_single);
        let table = plain.name.clone();
        let single = tokio::task::spawn_blocking(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let client = hbase_orm_suite::client().await;
                let repo = client.repository::<Order>().on_table(table);
                measure("repository.get, 9090, current-thread runtime", || {
                    gets(&repo, rows, n_gets)
                })
                .await
            })
        })
        .await
        .unwrap();
        lines.push(single);
        lines.push(
            measure("floor: bare loopback round trip, block_on", || {
                bare_round_trips(echo_port, n_gets)
            })
            .await,
        );
        let floor_single = tokio::task::spawn_blocking(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(measure(
                "floor: bare loopback round trip, current-thread",
                || bare_round_trips(echo_port, n_gets),
            ))
        })
        .await
        .unwrap();
        lines.push(floor_single);
        lines
    });
    drop(echo);
    println!();
    println!(
        "hbase-orm reads: {rows} orders of 8 columns, pages of {PAGE} rows, {} (Thrift2), fastest of {RUNS} runs (the scans in turns)",
        gateway_address()
    );
    println!(
        "| {:<50} | {:>7} | {:>9} | {:>10} | {:>12} | {:>12} |",
        "path (same tables, same run)", "items", "wall s", "items/s", "client CPU", "1st run /s"
    );
    println!(
        "|{:-<52}|{:->9}|{:->11}|{:->12}|{:->14}|{:->14}|",
        "", "", "", "", "", ""
    );
    for l in &lines {
        let per = l.cpu.as_secs_f64() * 1e6 / l.items.max(1) as f64;
        println!(
            "| {:<50} | {:>7} | {:>9.2} | {:>10.0} | {:>9.1} µs | {:>12.0} |",
            l.what,
            l.items,
            l.wall.as_secs_f64(),
            l.items as f64 / l.wall.as_secs_f64(),
            per,
            l.first
        );
    }
    println!(
        "peak RSS of the bench process: {:.1} MiB",
        memory_mib("VmHWM:")
    );
}
