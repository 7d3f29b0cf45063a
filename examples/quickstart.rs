//! The raw client in one sitting: connect, create a namespace and a pre-split table, write,
//! read, scan, count, and clean up. It checks every answer and exits non-zero on a mismatch.
//!
//!     hbase-local/hbase.sh up
//!     cargo run --example quickstart
//!
//! `HBASE_ORM_URL` picks the store (`Client::from_env`: `thrift2://127.0.0.1:9090` when unset,
//! `hbase://127.0.0.1:2181` for HBase's own RPC, `memory://` for the in-memory store).

use futures::TryStreamExt;
use hbase_orm::{
    Client, ColumnFamily, Compression, Delete, Get, Put, Scan, TableDescriptor, TableName,
};

type AnyResult<T> = Result<T, Box<dyn std::error::Error>>;

fn check(what: &str, ok: bool) -> AnyResult<()> {
    if ok {
        println!("  ok   {what}");
        Ok(())
    } else {
        Err(format!("MISMATCH: {what}").into())
    }
}

#[tokio::main]
async fn main() -> AnyResult<()> {
    // The store comes from the environment: HBASE_ORM_URL, or the Thrift2 gateway at
    // 127.0.0.1:9090 when it is not set.
    let client = Client::from_env().await?;
    println!(
        "connected to the {:?} backend at {}",
        client.config().gateway,
        client.config().address
    );

    let admin = client.admin();
    if !admin.namespace_exists("example").await? {
        admin.create_namespace("example").await?;
    }
    let name = TableName::new("example", format!("users_{}", std::process::id()));
    let table = TableDescriptor::new(name.clone())
        .family(
            ColumnFamily::new("d")
                .max_versions(3)
                .compression(Compression::Gz),
        )
        .family(ColumnFamily::new("c"));
    admin.create_table(&table, &[b"m".to_vec()]).await?;
    println!("created {name} with 2 regions");

    let users = client.table_named(name.clone());
    let result = run(&users).await;
    admin.delete_table(&name).await?;
    println!("dropped {name}");
    result?;
    println!("quickstart: all checks passed");
    Ok(())
}

async fn run(users: &hbase_orm::Table) -> AnyResult<()> {
    let people = [
        ("ada", "London"),
        ("grace", "Arlington"),
        ("linus", "Helsinki"),
        ("margaret", "Boston"),
    ];
    users
        .put_many(
            people
                .iter()
                .map(|(id, city)| Put::new(*id).column("d", "city", *city))
                .collect(),
        )
        .await?;
    println!("wrote {} users", people.len());

    let ada = users.get(Get::new("ada")).await?;
    check(
        "get ada -> London",
        ada.as_ref().and_then(|r| r.value("d", "city")) == Some(b"London"),
    )?;
    check(
        "get nobody -> None",
        users.get(Get::new("nobody")).await?.is_none(),
    )?;

    let keys: Vec<_> = users
        .scan(Scan::new().reversed())
        .map_ok(|r| String::from_utf8_lossy(&r.key).into_owned())
        .try_collect()
        .await?;
    println!("reversed scan: {keys:?}");
    check(
        "reversed scan crosses both regions",
        keys == ["margaret", "linus", "grace", "ada"],
    )?;

    users.increment_column("ada", "c", "logins", 1).await?;
    let logins = users.increment_column("ada", "c", "logins", 1).await?;
    check("counter ada.logins == 2", logins == 2)?;

    users.delete(Delete::new("linus")).await?;
    let left = users.scan(Scan::new()).try_collect::<Vec<_>>().await?.len();
    check("3 users after a delete", left == 3)?;
    Ok(())
}
