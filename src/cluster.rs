//! For the tests on the local cluster (`hbase-local/hbase.sh up --cluster`): the launcher's
//! names of its region servers, the launcher run off a test's threads, and a process stopped
//! by a test started again however the test ends.

use crate::launcher;

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

/// Runs the launcher (see [`launcher`]) off the test's threads.
pub async fn launch(args: &[&str]) {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        launcher(&args)
    })
    .await
    .unwrap();
}

/// Starts a process the test stopped if the test ends before it did (a failed assertion):
/// the next test needs the whole cluster.
pub struct StartAgain(pub String);

impl StartAgain {
    /// Starts it now.
    pub async fn now(self) {
        launch(&["start", &self.0]).await;
        std::mem::forget(self);
    }
}

impl Drop for StartAgain {
    fn drop(&mut self) {
        launcher(&["start", &self.0]);
    }
}
