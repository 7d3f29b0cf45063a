//! For the tests on the local cluster (`hbase-local/hbase.sh up --cluster`) and the local
//! Ballista cluster beside it (`hbase-local/ballista.sh up`): the launcher's names of its region
//! servers, the launchers run off a test's threads, where the Ballista processes listen and log,
//! and a process stopped by a test started again however the test ends.

use std::path::PathBuf;

use crate::run_script;

/// The launcher's name of the region server at `server` (`host:port`): `rsN` listens on the
/// base port (`$HBASE_ORM_REGIONSERVER_PORT`, 16020) plus N - 1.
pub fn launcher_name(server: &str) -> String {
    let port: u32 = server.rsplit(':').next().unwrap().parse().unwrap();
    let base: u32 = std::env::var("HBASE_ORM_REGIONSERVER_PORT")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(16020);
    format!("rs{}", port - base + 1)
}

/// Runs the launcher, `hbase-local/hbase.sh ARGS`, off the test's threads.
pub async fn launch(args: &[&str]) {
    launch_script("hbase.sh", args).await
}

/// Runs the Ballista launcher, `hbase-local/ballista.sh ARGS` (`["kill", "executor-2"]`), off
/// the test's threads.
pub async fn launch_ballista(args: &[&str]) {
    launch_script("ballista.sh", args).await
}

async fn launch_script(script: &'static str, args: &[&str]) {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run_script(script, &args)
    })
    .await
    .unwrap();
}

/// The local Ballista scheduler's URL: `df://127.0.0.1:$HBASE_ORM_BALLISTA_PORT` (15050 unless
/// set), as `hbase-local/ballista.sh` starts it.
pub fn ballista_url() -> String {
    let port = std::env::var("HBASE_ORM_BALLISTA_PORT").unwrap_or_else(|_| "15050".into());
    format!("df://127.0.0.1:{port}")
}

/// The log of the local Ballista process `name` (`scheduler`, `executor-1`, ...):
/// `$HBASE_ORM_DATA/ballista/logs/NAME.log`, the data dir the launchers share.
pub fn ballista_log(name: &str) -> PathBuf {
    ballista_dir().join(format!("logs/{name}.log"))
}

/// The process id of the local Ballista process `name`, from the launcher's pid file
/// (`$HBASE_ORM_DATA/ballista/run/NAME.pid`), or `None` when it has none.
pub fn ballista_pid(name: &str) -> Option<u32> {
    std::fs::read_to_string(ballista_dir().join(format!("run/{name}.pid")))
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// Where `hbase-local/ballista.sh` keeps its files: `$HBASE_ORM_DATA/ballista`.
fn ballista_dir() -> PathBuf {
    let data = std::env::var("HBASE_ORM_DATA")
        .unwrap_or_else(|_| format!("{}/.hbase-local", env!("CARGO_MANIFEST_DIR")));
    PathBuf::from(data).join("ballista")
}

/// Starts a process the test stopped if the test ends before it did (a failed assertion):
/// the next test needs the whole cluster. [`StartAgain::hbase`] for one of
/// `hbase-local/hbase.sh`, [`StartAgain::ballista`] for one of `hbase-local/ballista.sh`.
pub struct StartAgain {
    script: &'static str,
    name: String,
}

impl StartAgain {
    /// The HBase (or HDFS) process `name` (`rs2`, `master`).
    pub fn hbase(name: impl Into<String>) -> StartAgain {
        StartAgain {
            script: "hbase.sh",
            name: name.into(),
        }
    }

    /// The Ballista process `name` (`executor-2`).
    pub fn ballista(name: impl Into<String>) -> StartAgain {
        StartAgain {
            script: "ballista.sh",
            name: name.into(),
        }
    }

    /// Starts it now.
    pub async fn now(self) {
        launch_script(self.script, &["start", &self.name]).await;
        std::mem::forget(self);
    }
}

impl Drop for StartAgain {
    fn drop(&mut self) {
        run_script(self.script, &["start", &self.name]);
    }
}
