//! What every case study in `examples/` shares: connecting, fresh tables from entity
//! declarations, checks that make the program exit non-zero on a mismatch, and the design
//! advice printed with the trade-offs the example accepts on purpose.
//!
//! ```no_run
//! # async fn demo() -> std::process::ExitCode {
//! use hbase_orm_suite::example::Example;
//! # #[derive(hbase_orm::HBaseEntity, Debug, Clone, PartialEq)]
//! # #[hbase(namespace = "example", table = "t", family = "d")]
//! # struct Thing { #[hbase(key)] id: u64, name: String }
//! let client = hbase_orm::Client::from_env().await;
//! let mut ex = Example::start("things", "why this design fits", client).await;
//! let things = ex.fresh::<Thing>().await;
//! things.save(&Thing { id: 1, name: "a".into() }).await.unwrap();
//! let back = things.get(&ThingKey { id: 1 }).await.unwrap();
//! ex.check_eq("the thing reads back", back.map(|t| t.name), Some("a".to_string()));
//! ex.advice::<Thing>(&[]);
//! ex.finish()
//! # }
//! ```

use std::fmt::Debug;
use std::process::ExitCode;

use hbase_orm::{advice, Client, HBaseEntity, Repository, TableName};

/// The namespace the examples' tables live in.
pub const EXAMPLE_NAMESPACE: &str = "example";

/// One running case study.
pub struct Example {
    name: &'static str,
    client: Client,
    checks: usize,
    failures: Vec<String>,
}

impl Example {
    /// Prints the example's title and the design it shows, and takes the client the example
    /// connected with (`Client::from_env()`: the URL in `$HBASE_ORM_URL`, the Thrift2 gateway
    /// at 127.0.0.1:9090 when unset); panics with instructions if it could not connect.
    pub async fn start(
        name: &'static str,
        design: &str,
        client: hbase_orm::Result<Client>,
    ) -> Example {
        println!("== {name}\n{design}\n");
        let client = client.unwrap_or_else(|e| {
            panic!(
                "cannot reach HBase: {e}\n\
                 Start a local HBase first:  hbase-local/hbase.sh up\n\
                 (or set HBASE_ORM_URL: hbase://host:2181 for HBase's own RPC, \
                 thrift2://host:port for a gateway, memory:// for the in-memory store)"
            )
        });
        let config = client.config();
        println!("(backend: {:?} at {})\n", config.gateway, config.address);
        Example {
            name,
            client,
            checks: 0,
            failures: Vec::new(),
        }
    }

    /// The client.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// A repository of `T` on its declared table, emptied first: the table (and its index
    /// and dictionary tables) are dropped if they exist and created from the declaration with
    /// `Admin::ensure`, which also creates the namespace. They are left for inspection.
    pub async fn fresh<T: HBaseEntity>(&self) -> Repository<T> {
        self.drop_tables::<T>().await;
        let report = self
            .client
            .admin()
            .ensure::<T>()
            .await
            .unwrap_or_else(|e| panic!("creating {}: {e}", T::table_name()));
        print!("{report}");
        self.client.repository::<T>()
    }

    /// Drops `T`'s table and its index and dictionary tables if they exist (several entities sharing a table:
    /// call [`Example::fresh`] for the first and `ensure` for the others).
    pub async fn drop_tables<T: HBaseEntity>(&self) {
        let mut names = vec![T::table_name()];
        names.extend(T::related_schemas().into_iter().map(|s| s.descriptor.name));
        for name in names {
            self.drop_table(&name).await;
        }
    }

    /// Drops one table if it exists.
    pub async fn drop_table(&self, name: &TableName) {
        let admin = self.client.admin();
        let exists = admin
            .table_exists(name)
            .await
            .unwrap_or_else(|e| panic!("checking {name}: {e}"));
        if exists {
            admin
                .delete_table(name)
                .await
                .unwrap_or_else(|e| panic!("dropping {name}: {e}"));
        }
    }

    /// Prints a line of explanation.
    pub fn say(&self, text: impl AsRef<str>) {
        println!("{}", text.as_ref());
    }

    /// Records a check: printed with `ok` or `MISMATCH`; any mismatch makes
    /// [`Example::finish`] fail.
    pub fn check(&mut self, what: &str, ok: bool) {
        self.checks += 1;
        if ok {
            println!("  ok        {what}");
        } else {
            println!("  MISMATCH  {what}");
            self.failures.push(what.to_string());
        }
    }

    /// Records that `got` equals `want`, printing both on a mismatch.
    pub fn check_eq<T: PartialEq + Debug>(&mut self, what: &str, got: T, want: T) {
        let ok = got == want;
        self.check(what, ok);
        if !ok {
            println!("            got:  {got:?}\n            want: {want:?}");
        }
    }

    /// Records how one part of the example ended: an error it returned is a failed check
    /// naming `part`.
    pub fn ran<E: std::fmt::Display>(&mut self, part: &str, result: Result<(), E>) {
        if let Err(e) = result {
            self.check(&format!("{part} ran without error: {e}"), false);
        }
    }

    /// Prints what `advice::check` says of `T`. `accepted` lists the rules this example breaks
    /// on purpose, each with the reason; a finding not listed there counts as a mismatch.
    pub fn advice<T: HBaseEntity>(&mut self, accepted: &[(&str, &str)]) {
        let entity = std::any::type_name::<T>()
            .rsplit("::")
            .next()
            .unwrap_or("?");
        let findings = advice::check::<T>();
        if findings.is_empty() {
            println!("  advice    {entity}: no findings");
        }
        for f in findings {
            match accepted.iter().find(|(rule, _)| *rule == f.rule) {
                Some((_, why)) => println!("  advice    {f}\n            accepted: {why}"),
                None => {
                    println!("  advice    {f}");
                    self.failures
                        .push(format!("unexpected advice on {entity}: {}", f.rule));
                }
            }
        }
    }

    /// Prints the summary; the exit code is non-zero when a check failed.
    pub fn finish(self) -> ExitCode {
        if self.failures.is_empty() {
            println!("\n{}: all {} checks passed", self.name, self.checks);
            ExitCode::SUCCESS
        } else {
            println!(
                "\n{}: {} of {} checks failed: {}",
                self.name,
                self.failures.len(),
                self.checks,
                self.failures.join("; ")
            );
            ExitCode::FAILURE
        }
    }
}

/// A small deterministic generator, so that every run of an example writes the same data.
#[derive(Clone, Debug)]
pub struct Lcg(pub u64);

impl Lcg {
    /// The next number below `below` (which must not be zero).
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self, below: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % below
    }
}
