//! Shared helpers for the examples, integration tests and benchmarks of `hbase-orm`.
//!
//! Nothing here is part of the library. It finds the HBase gateways that the project's
//! launcher (`hbase-local/hbase.sh up`) starts, gives tests uniquely named tables that are
//! dropped afterwards, even when the test fails, runs the conformance suite on every backend
//! ([`conformance!`], [`Target`]), and gives the case studies in `examples/` their shared
//! frame ([`example::Example`]).

pub mod cluster;
mod conformance;
pub mod example;
pub mod java;
pub mod load;
pub mod relay;
pub mod secure;
pub mod workload;

pub use conformance::{label, unsupported_on, Target};

use std::future::Future;
use std::sync::atomic::{AtomicU32, Ordering};

use hbase_orm::{Client, ColumnFamily, Config, Table, TableDescriptor, TableName};

/// Address of the default (buffered, binary) gateway: `$HBASE_ORM_THRIFT_ADDR` or
/// `127.0.0.1:9090`.
pub fn gateway_address() -> String {
    std::env::var("HBASE_ORM_THRIFT_ADDR").unwrap_or_else(|_| "127.0.0.1:9090".into())
}

/// Address of the framed + compact gateway: `$HBASE_ORM_THRIFT_FRAMED_ADDR` or
/// `127.0.0.1:9091`.
pub fn framed_gateway_address() -> String {
    std::env::var("HBASE_ORM_THRIFT_FRAMED_ADDR").unwrap_or_else(|_| "127.0.0.1:9091".into())
}

/// The URL of the local HBase for the native backend (its ZooKeeper):
/// `$HBASE_ORM_NATIVE_URL` or `hbase://127.0.0.1:2181`.
pub fn native_url() -> String {
    std::env::var("HBASE_ORM_NATIVE_URL").unwrap_or_else(|_| "hbase://127.0.0.1:2181".into())
}

/// The URL of the local HBase for the native backend through its master's registry service
/// (no ZooKeeper): `$HBASE_ORM_NATIVE_MASTERS_URL` or `hbase+rpc://127.0.0.1:16000`.
pub fn native_masters_url() -> String {
    std::env::var("HBASE_ORM_NATIVE_MASTERS_URL")
        .unwrap_or_else(|_| "hbase+rpc://127.0.0.1:16000".into())
}

/// Address of the Thrift1 gateway: `$HBASE_ORM_THRIFT1_ADDR` or `127.0.0.1:9092`.
pub fn thrift1_gateway_address() -> String {
    std::env::var("HBASE_ORM_THRIFT1_ADDR").unwrap_or_else(|_| "127.0.0.1:9092".into())
}

/// The URL of the launcher's gateway of `service` (`thrift2` or `thrift1`) serving Thrift over
/// HTTP (`tls` false: ports 9094 and 9096) or HTTPS (9095 and 9097, its certificate trusted
/// through the launcher's `ca.pem`). `$HBASE_ORM_THRIFT2_HTTP_URL`, `$HBASE_ORM_THRIFT2_HTTPS_URL`,
/// `$HBASE_ORM_THRIFT1_HTTP_URL` and `$HBASE_ORM_THRIFT1_HTTPS_URL` override them.
pub fn http_gateway_url(service: &str, tls: bool) -> String {
    let scheme = if tls { "https" } else { "http" };
    let variable = format!(
        "HBASE_ORM_{}_{}_URL",
        service.to_ascii_uppercase(),
        scheme.to_ascii_uppercase()
    );
    if let Ok(url) = std::env::var(&variable) {
        return url;
    }
    let port = match (service, tls) {
        ("thrift2", false) => 9094,
        ("thrift2", true) => 9095,
        (_, false) => 9096,
        (_, true) => 9097,
    };
    match tls {
        false => format!("{service}+http://127.0.0.1:{port}/"),
        true => format!(
            "{service}+https://127.0.0.1:{port}/?ca_file={}",
            tls_dir().join("ca.pem").display()
        ),
    }
}

/// The launcher's HBase root directory (`hbase.rootdir`): `$HBASE_ORM_DATA/hbase`, by default
/// `.hbase-local/hbase` in the workspace.
pub fn hbase_root_dir() -> std::path::PathBuf {
    let data = std::env::var("HBASE_ORM_DATA")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/.hbase-local").into());
    std::path::PathBuf::from(data).join("hbase")
}

/// The local cluster's HDFS (`hbase-local/hbase.sh up --cluster --hdfs`): `$HBASE_ORM_HDFS_URL`
/// or `hdfs://127.0.0.1:$HBASE_ORM_NAMENODE_PORT` (port 8020 by default).
pub fn hdfs_url() -> String {
    std::env::var("HBASE_ORM_HDFS_URL").unwrap_or_else(|_| {
        let port = std::env::var("HBASE_ORM_NAMENODE_PORT").unwrap_or_else(|_| "8020".into());
        format!("hdfs://127.0.0.1:{port}")
    })
}

/// Where the launcher keeps its TLS files (`ca.pem`, `other-ca.pem`): `$HBASE_ORM_DATA/tls`,
/// by default `.hbase-local/tls` in the workspace.
pub fn tls_dir() -> std::path::PathBuf {
    let data = std::env::var("HBASE_ORM_DATA")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/.hbase-local").into());
    std::path::Path::new(&data).join("tls")
}

/// Address of the second Thrift2 gateway process (buffered, binary), whose scanners expire
/// after 2 s unused: `$HBASE_ORM_THRIFT_SHORT_ADDR` or `127.0.0.1:9093`. Tests of several
/// gateways and of scans that outlive their scanner use it.
pub fn short_gateway_address() -> String {
    std::env::var("HBASE_ORM_THRIFT_SHORT_ADDR").unwrap_or_else(|_| "127.0.0.1:9093".into())
}

/// How long the gateway at [`short_gateway_address`] keeps an unused scanner:
/// `$HBASE_ORM_SHORT_SCANNER_MS` or 2000 ms, as the launcher starts it.
pub fn short_scanner_timeout() -> std::time::Duration {
    let ms = std::env::var("HBASE_ORM_SHORT_SCANNER_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    std::time::Duration::from_millis(ms)
}

/// How long the local region server keeps an unused scanner (its lease):
/// `$HBASE_ORM_REGION_SCANNER_MS` or 10000 ms, as the launcher starts it.
pub fn region_scanner_lease() -> std::time::Duration {
    let ms = std::env::var("HBASE_ORM_REGION_SCANNER_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    std::time::Duration::from_millis(ms)
}

/// Runs the launcher, `hbase-local/hbase.sh ARGS` (`["restart", "thrift"]`, say), and panics
/// with its output if it fails. For fault tests; it blocks the calling thread.
pub fn launcher(args: &[&str]) {
    run_script("hbase.sh", args)
}

/// Runs `hbase-local/SCRIPT ARGS`, and panics with its output if it fails.
pub(crate) fn run_script(script: &str, args: &[&str]) {
    let path = format!("{}/hbase-local/{script}", env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new("bash")
        .arg(&path)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("runs hbase-local/{script}: {e}"));
    assert!(
        out.status.success(),
        "hbase-local/{script} {} failed: {}{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Connects with `config`, or panics with instructions to start HBase. There is no skipping:
/// a test that needs HBase fails when HBase is not there, locally and in CI alike.
pub async fn connect_with(config: Config) -> Client {
    let (address, gateway) = (config.address.clone(), config.gateway);
    match Client::builder().config(config).build().await {
        Ok(client) => client,
        Err(e) => panic!(
            "cannot reach the HBase {gateway:?} gateway at {address}: {e}\n\
             Start a local HBase first:  hbase-local/hbase.sh up\n\
             (or point HBASE_ORM_THRIFT_ADDR / HBASE_ORM_THRIFT_FRAMED_ADDR / \
             HBASE_ORM_THRIFT1_ADDR / HBASE_ORM_THRIFT_SHORT_ADDR elsewhere)"
        ),
    }
}

/// A client of the default gateway with default settings.
pub async fn client() -> Client {
    connect_with(Config {
        address: gateway_address(),
        ..Config::default()
    })
    .await
}

/// A table name no other test or run uses: `hbase_orm_it:<label>_<pid>_<n>`.
pub fn unique_table_name(label: &str) -> TableName {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    TableName::new(
        TEST_NAMESPACE,
        format!("{label}_{}_{n}", std::process::id()),
    )
}

/// The namespace all test tables live in.
pub const TEST_NAMESPACE: &str = "hbase_orm_it";

/// Creates the test namespace if it is missing (through the Thrift2 gateway when `client`
/// speaks Thrift1, which has no namespaces: both reach the same HBase).
pub async fn ensure_test_namespace(client: &Client) {
    let client = &admin_client(client).await;
    let admin = client.admin();
    if !admin.namespace_exists(TEST_NAMESPACE).await.unwrap() {
        match admin.create_namespace(TEST_NAMESPACE).await {
            Ok(()) | Err(hbase_orm::Error::AlreadyExists { .. }) => {}
            Err(e) => panic!("creating namespace {TEST_NAMESPACE}: {e}"),
        }
    }
}

/// A uniquely named test table that is dropped when the guard goes out of scope, also when the
/// test panics.
pub struct TestTable {
    client: Client,
    /// The table's name.
    pub name: TableName,
}

/// The client to administer test tables with: `client` itself, or a client of the buffered
/// Thrift2 gateway of the same HBase for the backends that cannot create every test table: the
/// Thrift1 gateway (no namespaces, no pre-split tables) and the framed Thrift2 gateway (no
/// pre-split tables, see `Error::Unsupported` there).
pub async fn admin_client(client: &Client) -> Client {
    match conformance::label(client) {
        "thrift1" | "thrift1_http" | "thrift1_https" | "thrift2_framed" => self::client().await,
        _ => client.clone(),
    }
}

/// Splits the region of `table` that holds row `at` at that row, and waits until a region
/// starts there (a minute at most, or it panics); how long that took. For the bulk-load tests
/// that split a region in the middle of a load (from its progress callback).
pub async fn split_and_wait(admin: &Client, table: &TableName, at: &[u8]) -> std::time::Duration {
    let started = std::time::Instant::now();
    let admin = admin.admin();
    admin.split_region(table, at).await.unwrap();
    loop {
        let regions = admin.region_locations(table).await.unwrap();
        if regions.iter().any(|r| r.start_key == at) {
            return started.elapsed();
        }
        assert!(
            started.elapsed().as_secs() < 60,
            "the split did not finish in 60 s: {regions:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}

impl TestTable {
    /// Creates a uniquely named table with the families of entity `T` (up to 3 versions each).
    pub async fn for_entity<T: hbase_orm::HBaseEntity>(client: &Client, label: &str) -> TestTable {
        let families = T::FAMILIES
            .iter()
            .map(|f| ColumnFamily::new(*f).max_versions(3))
            .collect();
        TestTable::create(client, label, families, &[]).await
    }

    /// Makes entity `T`'s tables afresh on a uniquely named table (`Admin::ensure_on`: the data
    /// table and its index or dictionary tables), each dropped with the guards returned (the
    /// data table's first).
    pub async fn ensure_entity<T: hbase_orm::HBaseEntity>(
        client: &Client,
        label: &str,
    ) -> Vec<TestTable> {
        ensure_test_namespace(client).await;
        let name = unique_table_name(label);
        client.admin().ensure_on::<T>(name.clone()).await.unwrap();
        std::iter::once(name.clone())
            .chain(
                T::related_schemas_for(&name)
                    .into_iter()
                    .map(|s| s.descriptor.name),
            )
            .map(|n| TestTable::adopt(client, n))
            .collect()
    }

    /// Takes charge of dropping an existing table.
    pub fn adopt(client: &Client, name: TableName) -> TestTable {
        TestTable {
            client: client.clone(),
            name,
        }
    }

    /// Creates a uniquely named table.
    pub async fn create(
        client: &Client,
        label: &str,
        families: Vec<ColumnFamily>,
        splits: &[Vec<u8>],
    ) -> TestTable {
        ensure_test_namespace(client).await;
        let name = unique_table_name(label);
        admin_client(client)
            .await
            .admin()
            .create_table(
                &TableDescriptor {
                    families,
                    ..TableDescriptor::new(name.clone())
                },
                splits,
            )
            .await
            .unwrap_or_else(|e| panic!("creating {name}: {e}"));
        TestTable {
            client: client.clone(),
            name,
        }
    }
}

impl Drop for TestTable {
    fn drop(&mut self) {
        // Drop cannot await: delete on a runtime of its own, on a thread of its own, so that
        // this works inside the test's runtime and while a panic unwinds.
        let (client, name) = (self.client.clone(), self.name.clone());
        let dropped = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            rt.block_on(async {
                // A fresh client: the test's pool belongs to the test's runtime (an in-memory
                // store has no pool, and a new client would be a new store).
                let fresh = match client.backend_name() {
                    "memory" => client,
                    _ => {
                        let fresh = Client::builder()
                            .config(client.config().clone())
                            .build()
                            .await?;
                        admin_client(&fresh).await
                    }
                };
                fresh.admin().delete_table(&name).await
            })
            .map_err(std::io::Error::other)
        })
        .join();
        if !std::thread::panicking() {
            match dropped {
                Ok(Ok(())) => {}
                Ok(Err(e)) => panic!("dropping test table {}: {e}", self.name),
                Err(_) => panic!("dropping test table {} panicked", self.name),
            }
        }
    }
}

/// A repository of `T` on a fresh, uniquely named table with the families (and options) `T`
/// declares; the table is dropped with the guard.
pub async fn fresh_repository<T: hbase_orm::HBaseEntity>(
    client: &Client,
    label: &str,
) -> (hbase_orm::Repository<T>, TestTable) {
    fresh_split_repository(client, label, &[]).await
}

/// [`fresh_repository`] on a table pre-split at `splits`.
pub async fn fresh_split_repository<T: hbase_orm::HBaseEntity>(
    client: &Client,
    label: &str,
    splits: &[Vec<u8>],
) -> (hbase_orm::Repository<T>, TestTable) {
    let table = TestTable::create(client, label, T::family_descriptors(), splits).await;
    (client.repository::<T>().on_table(table.name.clone()), table)
}

/// The row keys a scan returns, in order.
pub async fn row_keys(table: &Table, scan: hbase_orm::Scan) -> Vec<Vec<u8>> {
    use futures::TryStreamExt;
    table
        .scan(scan)
        .map_ok(|row| row.key)
        .try_collect()
        .await
        .unwrap_or_else(|e| panic!("scanning {}: {e}", table.name()))
}

/// The start keys of a table's regions, in key order (the first is empty).
pub async fn region_starts(client: &Client, table: &TableName) -> Vec<Vec<u8>> {
    client
        .admin()
        .region_locations(table)
        .await
        .unwrap_or_else(|e| panic!("regions of {table}: {e}"))
        .into_iter()
        .map(|r| r.start_key)
        .collect()
}

/// Creates a uniquely named table with `families` (and `splits`), runs `body` with it, and
/// drops the table afterwards, whether `body` passed or panicked.
pub async fn with_table<F, Fut>(
    client: &Client,
    label: &str,
    families: Vec<ColumnFamily>,
    splits: &[Vec<u8>],
    body: F,
) where
    F: FnOnce(Table) -> Fut,
    Fut: Future<Output = ()>,
{
    let guard = TestTable::create(client, label, families, splits).await;
    body(client.table_named(guard.name.clone())).await;
}
