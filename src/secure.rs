//! The secured HBase of `hbase-local/secure/secure.sh up`, as its tests reach it: the
//! launcher's environment (`eval "$(secure.sh env)"`), the URLs of its gateways and of its
//! native RPC, and the lock that tests changing the process's Kerberos environment (to act
//! as another user) take for writing.

use hbase_orm::{Client, Config};

/// The environment the secured HBase's launcher prints, or a panic that says how to get it.
pub fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!(
            "{name} is not set: start the secured HBase and take its environment first:\n  \
             hbase-local/secure/secure.sh up && eval \"$(hbase-local/secure/secure.sh env)\""
        )
    })
}

/// The port of a secured gateway (from the launcher's environment).
pub fn port(variable: &str) -> String {
    let address = env(variable);
    address
        .rsplit_once(':')
        .map(|(_, p)| p.to_string())
        .unwrap()
}

/// A SASL client of the gateway at `variable` requiring `qop`. The gateways' principal is
/// `hbase/localhost`: the client dials `localhost`.
pub fn sasl_url(variable: &str, qop: &str) -> String {
    format!(
        "thrift2://localhost:{}/?auth=kerberos&qop={qop}",
        port(variable)
    )
}

/// A SPNEGO client of the HTTPS gateway of `service` (its principal is `HTTP/localhost`).
pub fn spnego_url(service: &str) -> String {
    let https = env("HBASE_ORM_SECURE_HTTPS_URL");
    let port: u16 = https
        .trim_end_matches('/')
        .rsplit_once(':')
        .map(|(_, p)| p.parse().unwrap())
        .unwrap();
    // The Thrift1 HTTPS gateway is the fifth of the launcher's gateways.
    let port = if service == "thrift1" { port + 4 } else { port };
    format!(
        "{service}+https://localhost:{port}/?auth=kerberos&ca_file={}",
        env("HBASE_ORM_SECURE_CA")
    )
}

/// Tests that change the process's Kerberos environment take this for writing; the others
/// for reading.
pub static ENVIRONMENT: tokio::sync::RwLock<()> = tokio::sync::RwLock::const_new(());

pub async fn connect(url: &str) -> hbase_orm::Result<Client> {
    let mut config = Config::from_url(url)?;
    config.retry_deadline = std::time::Duration::ZERO;
    Client::builder().config(config).build().await
}

/// A native client of the secured HBase (HBase's own RPC, SASL GSSAPI): its ZooKeeper from the
/// launcher's environment; the servers' principal is `hbase/localhost`, their address 127.0.0.1.
pub fn native_url() -> String {
    native_url_of("HBASE_ORM_SECURE_ZK_PORT")
}

/// A native client of the secured HBase whose ZooKeeper port is in `variable`.
pub fn native_url_of(variable: &str) -> String {
    format!(
        "hbase://127.0.0.1:{}/?auth=kerberos&kerberos_host=localhost",
        env(variable)
    )
}
