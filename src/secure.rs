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

/// The process's Kerberos environment switched to act as `user` (`alice`, `bob`): an empty
/// ticket cache of its own and the user's keytab as the client keytab
/// (`HBASE_ORM_SECURE_<USER>_KEYTAB`), from which the system's Kerberos gets the user's ticket
/// when a client connects. Connections opened while it is held are `user`'s; it is restored
/// when dropped. Hold [`ENVIRONMENT`] for writing around it, and open no other client's
/// connections meanwhile.
pub struct ActingAs {
    cache: Option<std::ffi::OsString>,
    keytab: Option<std::ffi::OsString>,
    own_cache: std::path::PathBuf,
}

/// Acts as `user` until the guard is dropped (see [`ActingAs`]).
pub fn act_as(user: &str) -> ActingAs {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let keytab = env(&format!("HBASE_ORM_SECURE_{}_KEYTAB", user.to_uppercase()));
    let own_cache = std::env::temp_dir().join(format!(
        "hbase-orm-{user}-{}-{}.cc",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let guard = ActingAs {
        cache: std::env::var_os("KRB5CCNAME"),
        keytab: std::env::var_os("KRB5_CLIENT_KTNAME"),
        own_cache,
    };
    std::env::set_var("KRB5CCNAME", format!("FILE:{}", guard.own_cache.display()));
    std::env::set_var("KRB5_CLIENT_KTNAME", keytab);
    guard
}

impl Drop for ActingAs {
    fn drop(&mut self) {
        match self.cache.take() {
            Some(v) => std::env::set_var("KRB5CCNAME", v),
            None => std::env::remove_var("KRB5CCNAME"),
        }
        match self.keytab.take() {
            Some(v) => std::env::set_var("KRB5_CLIENT_KTNAME", v),
            None => std::env::remove_var("KRB5_CLIENT_KTNAME"),
        }
        let _ = std::fs::remove_file(&self.own_cache);
    }
}
