//! Writes (and the reads that go with them) of the native backend against HBase's own Java
//! client, measured in one run on this machine: the baseline of issue 35. Not a test: it
//! asserts nothing about speed, it prints one table with both clients and their ratios.
//!
//!     HBASE_ORM_JIT=full hbase-local/hbase.sh up
//!     cargo bench --bench writes
//!
//! Each side gets a fresh table of the same shape (family `d`, created here in namespace
//! `hbase_orm_it`, dropped at the end) and runs the same four measurements on the same rows,
//! `workload::write_order(i)`: 8 columns (two `i64`, a timestamp, an `f64`, four strings of 6
//! to 36 bytes), key `[customer u64][order u64]`.
//!
//! | measurement   | native (ours)                                   | Java client                         |
//! |---------------|-------------------------------------------------|-------------------------------------|
//! | batched puts  | `Repository::save_all` of N rows, 500 a call   | `Table.put(List<Put>)`, 500 a call   |
//! | single puts   | `Repository::save`, one row a call             | `Table.put(Put)`                     |
//! | gets          | sequential `Repository::get` of spread rows    | sequential `Table.get`, decoded      |
//! | scan          | entity scan, pages of 1,000                    | `Scan` with caching 1,000, decoded   |
//!
//! Each measurement is a warm-up round and then three measured rounds; the table shows every
//! round's rate and the best (the machine's other work only ever slows a round down). The rows
//! of a round are built before its clock starts, on both sides: a round times the mapping to
//! cells, the client and the round trips. The batched and single puts rewrite the same rows
//! every round.
//!
//! The Java side is `benches/java/JavaBaseline.java`, compiled with `javac` against the jars
//! `hbase-local/hbase.sh` fetched (`$HBASE_ORM_CACHE/hbase-2.6.1/lib`, by default
//! `~/.cache/hbase-orm/hbase-2.6.1/lib`; run `up` once first) into `target/java/JavaBaseline/`,
//! again only when the source or the jar folder changed; without `javac` (a JRE only) it runs
//! the source file directly (`java JavaBaseline.java`). It runs in a JVM of its own, started
//! fresh by this bench (so it starts cold whichever side goes first), with the JDK flags
//! HBase's scripts use (`hbase-local/jdk-flags`) and `-Xmx1g`; it logs to
//! `target/java/JavaBaseline/JavaBaseline.log` (the suite's `java` module).
//!
//! CPU per row: "ours" is this process's user + system time (`getrusage`), every thread of
//! the runtime included. The Java client's is given twice: the whole JVM's CPU time
//! (`OperatingSystemMXBean.getProcessCpuTime`: the calling thread, the client's Netty and
//! ZooKeeper threads, the JIT compilers, the GC), which compares with ours, and the calling
//! thread's alone (`ThreadMXBean.getCurrentThreadCpuTime`), which leaves out the threads that
//! do the client's I/O. The JVM's process figure comes from Linux's clock ticks, 10 ms each:
//! a round of under a second or so (a few thousand single puts or gets) carries a few percent
//! of rounding. HBase itself runs in other processes and is counted on neither side.
//!
//! The two clients run one after the other, not in turns: the second finds HBase warmer (its
//! JIT, its caches, its memstore), so the table says which went first, and
//! `HBASE_ORM_BENCH_FIRST=java` swaps them. Before the table, the bench checks that the two
//! tables hold the same cells (rows 0, N/2 and N-1, every family, qualifier and value).
//!
//! Environment: `HBASE_ORM_BENCH_ROWS` (N, default 100,000, at most 1,000,000),
//! `HBASE_ORM_BENCH_SINGLES` (single puts per round, default 2,000),
//! `HBASE_ORM_BENCH_GETS` (gets per round, default 2,000), `HBASE_ORM_BENCH_FIRST` (`native`
//! or `java`, default `native`), `HBASE_ORM_BENCH_ROUND_TIMEOUT` (seconds one native round may
//! take, default 600), `HBASE_ORM_BENCH_JAVA_TIMEOUT` (seconds the Java program may take,
//! default 1,800), `HBASE_ORM_NATIVE_URL` (default `hbase://127.0.0.1:2181`; the Java client is
//! given the same ZooKeeper quorum), `HBASE_ORM_BENCH_JAVA_LIB` (another jar folder),
//! `JAVA_HOME`.

use std::time::{Duration, Instant};

use futures::TryStreamExt;
use hbase_orm::{Client, Config, Get, HBaseEntity, TableName};
use hbase_orm_suite::java::{zk_quorum, JavaProgram, HBASE_VERSION};
use hbase_orm_suite::workload::{cpu_time, get_index, write_order, Order, OrderKey};
use hbase_orm_suite::{connect_with, native_url, TestTable};

/// Rows a batched put or `save_all` call carries.
const BATCH: usize = 500;
/// Measured rounds after the warm-up round.
const RUNS: usize = 3;
/// Rows a scan page carries (the Java scan's caching).
const PAGE: i32 = 1000;

/// The measurements, in the order both sides run them: the Java program's name, the table's.
const OPS: [(&str, &str); 4] = [
    ("batched_puts", "batched puts, 500 a call"),
    ("single_puts", "single puts"),
    ("gets", "sequential gets"),
    ("scan", "scan, pages of 1,000"),
];

/// One round of one measurement.
#[derive(Clone, Debug)]
struct Round {
    items: u64,
    wall: Duration,
    /// The process's CPU time over the round.
    cpu: Duration,
    /// The calling thread's (Java only).
    thread_cpu: Option<Duration>,
}

impl Round {
    fn rate(&self) -> f64 {
        self.items as f64 / self.wall.as_secs_f64()
    }

    fn micros_per_item(cpu: Duration, items: u64) -> f64 {
        cpu.as_secs_f64() * 1e6 / items.max(1) as f64
    }
}

/// A side's rounds of each measurement of `OPS` (in that order): the warm-up, then `RUNS`.
type Rounds = Vec<Vec<Round>>;

/// The fastest measured round (the warm-up is not one).
fn best(rounds: &[Round]) -> &Round {
    rounds[1..]
        .iter()
        .min_by(|a, b| a.wall.cmp(&b.wall))
        .expect("measured rounds")
}

fn env(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v}: not a whole number")),
        Err(_) => default,
    }
}

/// Runs `work` (which returns the rows or calls it did) for a warm-up round and `RUNS`
/// measured rounds, each bounded by `limit`.
async fn rounds<F, Fut>(what: &str, limit: Duration, work: F) -> Vec<Round>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = u64>,
{
    let mut out = Vec::with_capacity(RUNS + 1);
    for round in 0..=RUNS {
        let (c0, t0) = (cpu_time(), Instant::now());
        let items = tokio::time::timeout(limit, work())
            .await
            .unwrap_or_else(|_| panic!("{what}: round {round} took more than {limit:?}"));
        out.push(Round {
            items,
            wall: t0.elapsed(),
            cpu: cpu_time().saturating_sub(c0),
            thread_cpu: None,
        });
    }
    out
}

/// The native side: the four measurements through a repository on `table`.
async fn run_native(
    client: &Client,
    table: &TableName,
    all: &[Order],
    singles: usize,
    gets: u64,
    limit: Duration,
) -> Rounds {
    let repo = client
        .repository::<Order>()
        .on_table(table.clone())
        .with_save_chunk(BATCH);
    let rows = all.len() as u64;
    let batched = rounds("native batched puts", limit, || async {
        repo.save_all(all).await.expect("save_all");
        rows
    })
    .await;
    let single = rounds("native single puts", limit, || async {
        for o in &all[..singles] {
            repo.save(o).await.expect("save");
        }
        singles as u64
    })
    .await;
    let got = rounds("native gets", limit, || async {
        for k in 0..gets {
            let want = &all[get_index(k, rows) as usize];
            let key = OrderKey {
                customer: want.customer,
                order: want.order,
            };
            let o = repo.get(&key).await.expect("get").expect("a stored row");
            assert!(
                o.placed_at == want.placed_at && o.currency == want.currency,
                "get {k}: another row's values"
            );
        }
        gets
    })
    .await;
    let scanned = rounds("native scan", limit, || async {
        let (n, checksum) = repo
            .scan()
            .page_size(PAGE)
            .stream()
            .try_fold((0u64, 0i64), |(n, sum), o| async move {
                Ok((n + 1, sum + o.quantity + o.city.len() as i64))
            })
            .await
            .expect("scan");
        assert_eq!(n, rows, "the scan read {n} rows");
        std::hint::black_box(checksum);
        n
    })
    .await;
    vec![batched, single, got, scanned]
}

/// The Java side: runs the program on `table` and reads its lines.
fn run_java(
    java: &JavaProgram,
    table: &TableName,
    rows: u64,
    singles: usize,
    gets: u64,
    limit: Duration,
) -> Rounds {
    let args = [
        format!("table={table}"),
        format!("rows={rows}"),
        format!("batch={BATCH}"),
        format!("singles={singles}"),
        format!("gets={gets}"),
        format!("runs={RUNS}"),
        format!("zk={}", zk_quorum(&native_url())),
    ];
    let lines = java.run(&args, limit);
    let mut out: Rounds = vec![Vec::new(); OPS.len()];
    for line in &lines {
        let f: Vec<&str> = line.split('\t').collect();
        let [tag, name, _round, items, wall, cpu, thread] = f[..] else {
            continue;
        };
        if tag != "java-baseline" {
            continue;
        }
        let i = OPS
            .iter()
            .position(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("the Java program measured {name}, unknown here"));
        let secs = |s: &str| {
            Duration::from_secs_f64(
                s.parse()
                    .unwrap_or_else(|_| panic!("not a number of seconds: {line}")),
            )
        };
        out[i].push(Round {
            items: items.parse().expect("rows"),
            wall: secs(wall),
            cpu: secs(cpu),
            thread_cpu: Some(secs(thread)),
        });
    }
    for (rounds, (name, _)) in out.iter().zip(OPS) {
        assert_eq!(
            rounds.len(),
            RUNS + 1,
            "the Java program printed {} rounds of {name}:\n{}",
            rounds.len(),
            lines.join("\n")
        );
    }
    out
}

/// Checks that both tables hold the same cells in rows `0`, `N/2` and `N-1`: the Java program
/// writes what the entity writes.
async fn same_cells(client: &Client, ours: &TableName, theirs: &TableName, all: &[Order]) {
    for i in [0, all.len() / 2, all.len() - 1] {
        let key = all[i].row_key().expect("a key");
        let mut cells = Vec::new();
        for table in [ours, theirs] {
            let row = client
                .table_named(table.clone())
                .get(Get::new(key.clone()))
                .await
                .expect("get")
                .unwrap_or_else(|| panic!("row {i} missing from {table}"));
            let c: Vec<_> = row
                .cells
                .into_iter()
                .map(|c| (c.family, c.qualifier, c.value))
                .collect();
            cells.push(c);
        }
        assert_eq!(cells[0].len(), 8, "row {i} of {ours} has not 8 cells");
        assert_eq!(
            cells[0], cells[1],
            "row {i}: the Java program wrote other cells than the entity"
        );
    }
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

fn ratio(ours: f64, theirs: f64) -> String {
    if theirs > 0.0 && ours.is_finite() {
        format!("{:.2}x", ours / theirs)
    } else {
        "-".into()
    }
}

fn print_table(ours: &Rounds, java: &Rounds) {
    println!(
        "| {:<26} | {:<13} | {:>7} | {:>9} | {:>9} | {:>9} | {:>9} | {:>9} | {:>11} | {:>13} |",
        "operation",
        "client",
        "items",
        "warm-up/s",
        "run 1 /s",
        "run 2 /s",
        "run 3 /s",
        "best /s",
        "CPU µs/item",
        "thread µs/item"
    );
    println!(
        "|{:-<28}|{:-<15}|{:->9}|{:->11}|{:->11}|{:->11}|{:->11}|{:->11}|{:->13}|{:->15}|",
        "", "", "", "", "", "", "", "", "", ""
    );
    for (i, (_, what)) in OPS.iter().enumerate() {
        let (o, j) = (&ours[i], &java[i]);
        let (ob, jb) = (best(o), best(j));
        let rates =
            |r: &[Round]| -> Vec<String> { r.iter().map(|r| format!("{:.0}", r.rate())).collect() };
        let (or, jr) = (rates(o), rates(j));
        let o_cpu = Round::micros_per_item(ob.cpu, ob.items);
        let j_cpu = Round::micros_per_item(jb.cpu, jb.items);
        let j_thread = Round::micros_per_item(jb.thread_cpu.unwrap_or_default(), jb.items);
        println!(
            "| {:<26} | {:<13} | {:>7} | {:>9} | {:>9} | {:>9} | {:>9} | {:>9.0} | {:>11.2} | {:>13} |",
            what, "native (ours)", ob.items, or[0], or[1], or[2], or[3], ob.rate(), o_cpu, ""
        );
        println!(
            "| {:<26} | {:<13} | {:>7} | {:>9} | {:>9} | {:>9} | {:>9} | {:>9.0} | {:>11.2} | {:>13.2} |",
            "", "Java client", jb.items, jr[0], jr[1], jr[2], jr[3], jb.rate(), j_cpu, j_thread
        );
        let round_ratio = |k: usize| ratio(o[k].rate(), j[k].rate());
        println!(
            "| {:<26} | {:<13} | {:>7} | {:>9} | {:>9} | {:>9} | {:>9} | {:>9} | {:>11} | {:>13} |",
            "",
            "ours / Java",
            "",
            round_ratio(0),
            round_ratio(1),
            round_ratio(2),
            round_ratio(3),
            ratio(ob.rate(), jb.rate()),
            ratio(o_cpu, j_cpu),
            ratio(o_cpu, j_thread)
        );
    }
}

fn main() {
    let rows = env("HBASE_ORM_BENCH_ROWS", 100_000);
    assert!(
        (1..=1_000_000).contains(&rows),
        "HBASE_ORM_BENCH_ROWS={rows}: 1 to 1,000,000 rows"
    );
    let singles = env("HBASE_ORM_BENCH_SINGLES", 2_000).clamp(1, rows) as usize;
    let gets = env("HBASE_ORM_BENCH_GETS", 2_000).clamp(1, 1_000_000);
    let round_limit = Duration::from_secs(env("HBASE_ORM_BENCH_ROUND_TIMEOUT", 600));
    let java_limit = Duration::from_secs(env("HBASE_ORM_BENCH_JAVA_TIMEOUT", 1_800));
    let java_first = match std::env::var("HBASE_ORM_BENCH_FIRST").as_deref() {
        Ok("java") => true,
        Ok("native") | Err(_) => false,
        Ok(other) => panic!("HBASE_ORM_BENCH_FIRST={other}: `native` or `java`"),
    };
    let java = JavaProgram::prepare("benches/java/JavaBaseline.java", "JavaBaseline");
    let load_before = load_average();
    let all: Vec<Order> = (0..rows).map(write_order).collect();

    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    let (ours, theirs, wall) = runtime.block_on(async {
        let t0 = Instant::now();
        let config = Config::from_url(&native_url()).expect("a valid hbase:// URL");
        let client = connect_with(config).await;
        let families = Order::family_descriptors();
        let ours_table = TestTable::create(&client, "writes_native", families.clone(), &[]).await;
        let java_table = TestTable::create(&client, "writes_java", families, &[]).await;
        let native = || run_native(&client, &ours_table.name, &all, singles, gets, round_limit);
        // The Java side blocks `block_on`'s thread, which is no worker of the runtime: the
        // native client's tasks go on meanwhile.
        let java_side = || run_java(&java, &java_table.name, rows, singles, gets, java_limit);
        let (ours, theirs) = if java_first {
            let theirs = java_side();
            (native().await, theirs)
        } else {
            let ours = native().await;
            (ours, java_side())
        };
        same_cells(&client, &ours_table.name, &java_table.name, &all).await;
        // Both tables are dropped at the end of this block.
        (ours, theirs, t0.elapsed())
    });

    println!();
    println!(
        "hbase-orm writes: the native backend ({}) against HBase's Java client {HBASE_VERSION}, \
         {rows} orders of 8 columns (strings of 6 to 36 bytes), {singles} single puts, {gets} \
         gets; a warm-up round, then {RUNS} rounds",
        native_url()
    );
    println!(
        "first: {}; the Java client in a fresh JVM ({}); both tables hold the same cells; \
         load average before {load_before}, after {}; {:.0} s in all",
        if java_first {
            "the Java client, then the native backend"
        } else {
            "the native backend, then the Java client"
        },
        java.built,
        load_average(),
        wall.as_secs_f64()
    );
    print_table(&ours, &theirs);
    println!(
        "CPU µs/item of the best round: ours = this process (getrusage); Java = the whole JVM \
         (getProcessCpuTime, in 10 ms ticks), thread = its calling thread only \
         (getCurrentThreadCpuTime). Ratios above 1x: ours faster (rows/s), ours costlier (CPU)."
    );
}
