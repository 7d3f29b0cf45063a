//! # A scheduler or an executor of a Ballista cluster that knows the shop's entities
//!
//! Stock `ballista-scheduler` and `ballista-executor` binaries cannot run plans over entity
//! tables: the entities are Rust types, compiled into the program that reads them. A program
//! like this one links them (`shop/mod.rs`) and runs either process with
//! [`run_scheduler`] or [`run_executor`], which install the registry's codecs. Build your own
//! from it with your entities; `hbase-local/ballista.sh` runs this one (a scheduler and N
//! executors beside the local HBase):
//!
//!     cargo run --example node -- scheduler --bind 127.0.0.1:50050
//!     cargo run --example node -- executor --scheduler 127.0.0.1:50050 --flight-port 50051 --grpc-port 50052
//!
//! Options (every one has a default):
//!
//! - scheduler: `--bind HOST:PORT` (127.0.0.1:50050; the address the executors and clients
//!   reach it at), `--executor-timeout SECONDS` (180: an executor silent this long is taken for
//!   lost and its tasks run again elsewhere);
//! - executor: `--name NAME` (how errors name the process), `--host HOST` (127.0.0.1),
//!   `--flight-port PORT` (50051), `--grpc-port PORT` (50052), `--scheduler HOST:PORT`
//!   (127.0.0.1:50050), `--slots N` (tasks at once; the machine's cores), `--heartbeat
//!   SECONDS` (60), `--work-dir DIR` (its shuffle files; a temporary directory).
//!
//! HBase is `HBASE_ORM_URL`'s (required: each process of the cluster reaches the same HBase;
//! `hbase://zk1:2181,zk2:2181` for HBase's own RPC). Ballista's log goes to standard error, at
//! the level of `RUST_LOG` (default `info`).

use std::net::SocketAddr;
use std::process::ExitCode;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use hbase_orm::Client;
use hbase_orm_ballista::{run_executor, run_scheduler, ExecutorOptions, SchedulerOptions};

mod shop;

const USAGE: &str =
    "usage: node scheduler [--bind HOST:PORT] [--executor-timeout SECONDS]\n       \
node executor [--name NAME] [--host HOST] [--flight-port PORT] [--grpc-port PORT] \
[--scheduler HOST:PORT] [--slots N] [--heartbeat SECONDS] [--work-dir DIR]";

/// The options after the role, as `--name value` pairs.
struct Flags(Vec<(String, String)>);

impl Flags {
    fn parse(args: &[String], known: &[&str]) -> Result<Flags, String> {
        let mut pairs = Vec::new();
        let mut rest = args.iter();
        while let Some(flag) = rest.next() {
            let name = flag
                .strip_prefix("--")
                .filter(|n| known.contains(n))
                .ok_or_else(|| format!("unknown option `{flag}`"))?;
            let value = rest
                .next()
                .ok_or_else(|| format!("option `{flag}` needs a value"))?;
            pairs.push((name.to_string(), value.clone()));
        }
        Ok(Flags(pairs))
    }

    /// The value of `--name` parsed, or `default` when it is not given.
    fn get<T: FromStr>(&self, name: &str, default: T) -> Result<T, String>
    where
        T::Err: std::fmt::Display,
    {
        match self.0.iter().rev().find(|(n, _)| n == name) {
            Some((_, v)) => v.parse().map_err(|e| format!("option `--{name} {v}`: {e}")),
            None => Ok(default),
        }
    }
}

async fn run(args: &[String]) -> Result<(), String> {
    let (role, rest) = args.split_first().ok_or("no role given")?;
    if std::env::var("HBASE_ORM_URL").is_ok_and(|u| u.starts_with("memory:")) {
        return Err(
            "HBASE_ORM_URL is an in-memory store, which each process would have \
                    to itself: give the HBase every process reaches"
                .into(),
        );
    }
    let client = Client::from_env_required()
        .await
        .map_err(|e| format!("connecting to HBase: {e}"))?;
    match role.as_str() {
        "scheduler" => {
            let flags = Flags::parse(rest, &["bind", "executor-timeout"])?;
            let mut options = SchedulerOptions::default();
            options.bind = flags.get("bind", options.bind)?;
            options.executor_timeout = Duration::from_secs(flags.get("executor-timeout", 180)?);
            let registry = Arc::new(shop::registry(
                &format!("scheduler at {}", options.bind),
                client,
            ));
            eprintln!("scheduler at {}", options.bind);
            run_scheduler(registry, options)
                .await
                .map_err(|e| e.to_string())
        }
        "executor" => {
            let flags = Flags::parse(
                rest,
                &[
                    "name",
                    "host",
                    "flight-port",
                    "grpc-port",
                    "scheduler",
                    "slots",
                    "heartbeat",
                    "work-dir",
                ],
            )?;
            let mut options = ExecutorOptions::default();
            options.host = flags.get("host", options.host)?;
            options.flight_port = flags.get("flight-port", options.flight_port)?;
            options.grpc_port = flags.get("grpc-port", options.grpc_port)?;
            options.scheduler = flags.get::<SocketAddr>("scheduler", options.scheduler)?;
            options.task_slots = flags.get("slots", options.task_slots)?;
            options.heartbeat = Duration::from_secs(flags.get("heartbeat", 60)?);
            let work_dir: String = flags.get("work-dir", String::new())?;
            options.work_dir = (!work_dir.is_empty()).then_some(work_dir);
            let name: String = flags.get("name", "executor".to_string())?;
            let registry = Arc::new(shop::registry(
                &format!("{name} at {}:{}", options.host, options.flight_port),
                client,
            ));
            eprintln!(
                "{name} at {}:{} (tasks from {}:{}), scheduler {}",
                options.host,
                options.flight_port,
                options.host,
                options.grpc_port,
                options.scheduler
            );
            run_executor(registry, options)
                .await
                .map_err(|e| e.to_string())
        }
        other => Err(format!("unknown role `{other}`")),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("node: {e}\n{USAGE}");
            ExitCode::FAILURE
        }
    }
}
