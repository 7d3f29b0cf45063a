//! What a load's delegation token needs of the Hadoop client configuration, read as Hadoop's
//! clients read it: `core-site.xml` and `hdfs-site.xml` in `HADOOP_CONF_DIR` (else
//! `$HADOOP_HOME/etc/hadoop`): whether the HDFS is secured (`hadoop.security.authentication`),
//! the NameNodes of a nameservice (`dfs.ha.namenodes.<ns>`, `dfs.namenode.rpc-address.<ns>.<nn>`)
//! and the NameNodes' principal (`dfs.namenode.kerberos.principal`). The HDFS client that
//! writes the files reads the same files itself.

use std::collections::HashMap;
use std::path::PathBuf;

/// HDFS's default NameNode RPC port, when an address gives none.
const DEFAULT_PORT: u16 = 8020;

/// The properties of the client configuration (the later file's over the earlier's).
#[derive(Default, Debug)]
pub(super) struct HadoopConf {
    properties: HashMap<String, String>,
}

/// Where a filesystem's NameNodes are, and the service its tokens are looked up by.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct NameNodes {
    /// `host:port` of each NameNode, in the configuration's order.
    pub addresses: Vec<String>,
    /// The tokens' service of a nameservice (`ha-hdfs:<ns>`, as Hadoop names it); for a
    /// single NameNode, its `ip:port` once connected.
    pub service: Option<String>,
}

impl HadoopConf {
    /// The configuration in `HADOOP_CONF_DIR` (or `$HADOOP_HOME/etc/hadoop`); empty when
    /// there is none.
    pub(super) fn load() -> HadoopConf {
        let dir = std::env::var_os("HADOOP_CONF_DIR")
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("HADOOP_HOME").map(|home| PathBuf::from(home).join("etc/hadoop"))
            });
        let mut conf = HadoopConf::default();
        if let Some(dir) = dir {
            for file in ["core-site.xml", "hdfs-site.xml"] {
                if let Ok(xml) = std::fs::read_to_string(dir.join(file)) {
                    conf.add(&xml);
                }
            }
        }
        conf
    }

    /// Adds the properties of a Hadoop configuration file's text.
    pub(super) fn add(&mut self, xml: &str) {
        let property = regex::Regex::new(r"(?s)<property>(.*?)</property>").expect("a regex");
        let name = regex::Regex::new(r"(?s)<name>\s*(.*?)\s*</name>").expect("a regex");
        let value = regex::Regex::new(r"(?s)<value>\s*(.*?)\s*</value>").expect("a regex");
        for block in property.captures_iter(xml) {
            let block = &block[1];
            if let (Some(n), Some(v)) = (name.captures(block), value.captures(block)) {
                self.properties.insert(unescape(&n[1]), unescape(&v[1]));
            }
        }
    }

    fn get(&self, key: &str) -> Option<&str> {
        self.properties.get(key).map(String::as_str)
    }

    /// Whether the configuration says the HDFS is secured with Kerberos.
    pub(super) fn kerberos(&self) -> bool {
        self.get("hadoop.security.authentication")
            .is_some_and(|v| v.eq_ignore_ascii_case("kerberos"))
    }

    /// The NameNodes' service principal as the configuration gives it, when of the form
    /// `service/host@REALM`: its service and host (`_HOST` standing for each NameNode's own
    /// host, see [`principal_at`]).
    pub(super) fn namenode_principal(&self) -> Option<(String, String)> {
        let principal = self.get("dfs.namenode.kerberos.principal")?;
        let (service, rest) = principal.split_once('/')?;
        let host = rest.split('@').next().unwrap_or(rest);
        Some((service.to_string(), host.to_string()))
    }

    /// The NameNodes of `authority` (a URL's `host[:port]`): those of the nameservice it
    /// names, else itself.
    pub(super) fn namenodes(&self, authority: &str) -> NameNodes {
        if let Some(ids) = self.get(&format!("dfs.ha.namenodes.{authority}")) {
            let addresses: Vec<String> = ids
                .split(',')
                .map(str::trim)
                .filter(|id| !id.is_empty())
                .filter_map(|id| self.get(&format!("dfs.namenode.rpc-address.{authority}.{id}")))
                .map(with_port)
                .collect();
            if !addresses.is_empty() {
                return NameNodes {
                    addresses,
                    service: Some(format!("ha-hdfs:{authority}")),
                };
            }
        }
        NameNodes {
            addresses: vec![with_port(authority)],
            service: None,
        }
    }
}

/// The principal `(service, host)` of the NameNode at `host`, the configuration's `_HOST`
/// replaced by that host as Hadoop does (lower case).
pub(super) fn principal_at((service, pattern): &(String, String), host: &str) -> (String, String) {
    let host = if pattern == "_HOST" {
        host.to_ascii_lowercase()
    } else {
        pattern.clone()
    };
    (service.clone(), host)
}

/// The host of `address` (`host[:port]`, an IPv6 host in brackets), without port or brackets.
pub(super) fn host_of(address: &str) -> &str {
    let host = match address.rsplit_once(':') {
        Some((host, _)) if !host.contains(':') || host.ends_with(']') => host,
        _ => address,
    };
    host.trim_start_matches('[').trim_end_matches(']')
}

/// `host:port`, HDFS's default port added when `address` has none.
fn with_port(address: &str) -> String {
    let has_port = address.rsplit_once(':').is_some_and(|(host, port)| {
        !port.is_empty()
            && port.bytes().all(|b| b.is_ascii_digit())
            && (!host.contains(':') || host.ends_with(']'))
    });
    if has_port {
        address.to_string()
    } else {
        format!("{address}:{DEFAULT_PORT}")
    }
}

/// The text of an XML element, its five predefined entities replaced.
fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;

    const CORE: &str = r#"<?xml version="1.0"?>
<configuration>
  <property><name>fs.defaultFS</name><value>hdfs://prod</value></property>
  <property>
    <name>hadoop.security.authentication</name>
    <value>Kerberos</value>
    <description>on</description>
  </property>
</configuration>"#;

    const HDFS: &str = r#"<configuration>
  <property><name>dfs.nameservices</name><value>prod</value></property>
  <property><name>dfs.ha.namenodes.prod</name><value>nn1, nn2</value></property>
  <property><name>dfs.namenode.rpc-address.prod.nn1</name><value>nn1.example.com:8020</value></property>
  <property><name>dfs.namenode.rpc-address.prod.nn2</name><value>nn2.example.com</value></property>
  <property><name>dfs.namenode.kerberos.principal</name><value>hdfs/_HOST@EXAMPLE.COM</value></property>
</configuration>"#;

    #[test]
    fn kerberos_nameservices_and_the_principal_are_read() {
        let mut conf = HadoopConf::default();
        assert!(!conf.kerberos());
        conf.add(CORE);
        conf.add(HDFS);
        assert!(conf.kerberos());
        assert_eq!(
            conf.namenodes("prod"),
            NameNodes {
                addresses: vec!["nn1.example.com:8020".into(), "nn2.example.com:8020".into()],
                service: Some("ha-hdfs:prod".into()),
            }
        );
        assert_eq!(
            conf.namenodes("127.0.0.1:8220"),
            NameNodes {
                addresses: vec!["127.0.0.1:8220".into()],
                service: None,
            }
        );
        assert_eq!(conf.namenodes("nn").addresses, ["nn:8020"]);
        // `_HOST` is each NameNode's own host, not the nameservice's name.
        let pattern = conf.namenode_principal().unwrap();
        assert_eq!(
            principal_at(&pattern, host_of("NN1.example.com:8020")),
            ("hdfs".into(), "nn1.example.com".into())
        );
        let fixed = ("hdfs".to_string(), "nn.example.com".to_string());
        assert_eq!(principal_at(&fixed, "other"), fixed);
    }

    #[test]
    fn addresses_get_the_default_port_and_entities_are_read() {
        assert_eq!(with_port("[::1]:8020"), "[::1]:8020");
        assert_eq!(with_port("[::1]"), "[::1]:8020");
        assert_eq!(with_port("nn:9000"), "nn:9000");
        assert_eq!(host_of("nn:9000"), "nn");
        assert_eq!(host_of("[::1]:8020"), "::1");
        assert_eq!(host_of("[::1]"), "::1");
        assert_eq!(host_of("nn"), "nn");
        let mut conf = HadoopConf::default();
        conf.add("<property><name>a</name><value>x &amp; y &lt;z&gt;</value></property>");
        assert_eq!(conf.get("a"), Some("x & y <z>"));
    }
}
