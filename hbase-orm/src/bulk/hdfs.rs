//! A load's files copied into HDFS (feature `hdfs`), for a cluster that keeps its files there:
//! into a directory of the load's own on the cluster's HDFS (under `/tmp` unless
//! [`BulkLoadOptions::hdfs_dir`](super::BulkLoadOptions::hdfs_dir) says where), named like its
//! local directory. The directories are open to every user, the files readable and writable by
//! all: the region servers, whatever user they run as, move the files into their own staging
//! directory. The directory is removed when the load ends (or, after a crash, with the local
//! one's leftovers).
//!
//! The client is `hdfs-native`'s: HDFS's own RPC and data-transfer protocol in Rust, no JVM or
//! libhdfs. It reads `core-site.xml` and `hdfs-site.xml` from `HADOOP_CONF_DIR` (a nameservice
//! of several NameNodes, Kerberos), and takes the user from `HADOOP_USER_NAME` or the system.

use bytes::BytesMut;
use hdfs_native::{Client, ClientBuilder, HdfsError, WriteOptions};
use tokio::io::AsyncReadExt;

use super::files::Written;
use crate::model::{Error, Result};

/// Bytes read from a local file and written to HDFS at a time.
const CHUNK: usize = 4 << 20;

/// Files copied at once: the DataNodes take them no faster when more are sent, and each copy
/// holds its chunk and the packets the DataNodes have not acknowledged yet (about 10 MiB).
const COPIES_AT_ONCE: usize = 3;

/// A load's directory on an HDFS.
pub(super) struct Hdfs {
    client: Client,
    /// The filesystem, `hdfs://authority`.
    filesystem: String,
    /// The load's directory in it, an absolute path.
    dir: String,
    /// The family directories made in it so far (each made once, not once per file).
    families: std::sync::Mutex<std::collections::HashSet<String>>,
    /// A permit per file being copied.
    copies: tokio::sync::Semaphore,
}

/// The filesystem (`scheme://authority`) and the absolute path of `url`, when it has a scheme.
pub(super) fn split_url(url: &str) -> Option<(&str, &str)> {
    let (scheme, rest) = url.split_once("://")?;
    let filesystem_len = scheme.len() + 3 + rest.find('/').unwrap_or(rest.len());
    let path = &url[filesystem_len..];
    Some((
        &url[..filesystem_len],
        if path.is_empty() { "/" } else { path },
    ))
}

impl Hdfs {
    /// Makes the load's directory `name` under `base` (an `hdfs://` URL).
    pub(super) async fn open(base: &str, name: &str) -> Result<Hdfs> {
        let (filesystem, path) = split_url(base).ok_or_else(|| Error::Staging {
            location: base.to_string(),
            message: "not a URL: give the HDFS directory as hdfs://namenode:port/path".into(),
        })?;
        let hdfs = Hdfs {
            client: connect(filesystem)?,
            filesystem: filesystem.to_string(),
            dir: format!("{}/{name}", path.trim_end_matches('/')),
            families: Default::default(),
            copies: tokio::sync::Semaphore::new(COPIES_AT_ONCE),
        };
        hdfs.make_dir(&hdfs.dir).await?;
        Ok(hdfs)
    }

    /// The load's directory, as a URL.
    pub(super) fn url(&self) -> String {
        format!("{}{}", self.filesystem, self.dir)
    }

    /// Copies a written file into the load's directory (`<family>/<name>`) and removes the
    /// local one; the URL of the copy.
    pub(super) async fn copy(&self, written: &Written) -> Result<String> {
        let family_dir = format!("{}/{}", self.dir, written.family);
        if !self.family_made(&written.family) {
            // Two regions' hand-overs may make it at once: making it again does no harm.
            self.make_dir(&family_dir).await?;
            self.lock_families().insert(written.family.clone());
        }
        let name = written
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let remote = format!("{family_dir}/{name}");
        let url = format!("{}{remote}", self.filesystem);
        let _copying = self
            .copies
            .acquire()
            .await
            .expect("the semaphore is never closed");
        let local_error = |e: std::io::Error| super::staging_error(&written.path, e);
        let mut local = tokio::fs::File::open(&written.path)
            .await
            .map_err(local_error)?;
        let options = WriteOptions::default()
            .permission(0o666)
            .create_parent(false);
        let mut out = self
            .client
            .create(&remote, options)
            .await
            .map_err(|e| hdfs_error(&url, e))?;
        loop {
            let mut chunk = BytesMut::with_capacity(CHUNK);
            while chunk.len() < CHUNK {
                if local.read_buf(&mut chunk).await.map_err(local_error)? == 0 {
                    break;
                }
            }
            if chunk.is_empty() {
                break;
            }
            out.write_bytes(chunk.freeze())
                .await
                .map_err(|e| hdfs_error(&url, e))?;
        }
        out.close().await.map_err(|e| hdfs_error(&url, e))?;
        drop(local);
        let _ = std::fs::remove_file(&written.path);
        Ok(url)
    }

    /// Whether the directory of `family` was made.
    fn family_made(&self, family: &str) -> bool {
        self.lock_families().contains(family)
    }

    fn lock_families(&self) -> std::sync::MutexGuard<'_, std::collections::HashSet<String>> {
        self.families.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Removes the load's directory and what is left in it.
    pub(super) async fn remove(&self) -> Result<()> {
        remove_in(&self.client, &self.filesystem, &self.dir).await
    }

    /// Makes `path` (and its parents) open to every user.
    async fn make_dir(&self, path: &str) -> Result<()> {
        let url = format!("{}{path}", self.filesystem);
        self.client
            .mkdirs(path, 0o777, true)
            .await
            .map_err(|e| hdfs_error(&url, e))?;
        // The NameNode may have applied a umask.
        self.client
            .set_permission(path, 0o777)
            .await
            .map_err(|e| hdfs_error(&url, e))
    }
}

/// Removes the directory at `url` (an `hdfs://` URL) and what is in it.
pub(super) async fn remove_dir(url: &str) -> Result<()> {
    let (filesystem, path) = split_url(url).ok_or_else(|| Error::Staging {
        location: url.to_string(),
        message: "not a URL".into(),
    })?;
    remove_in(&connect(filesystem)?, filesystem, path).await
}

async fn remove_in(client: &Client, filesystem: &str, path: &str) -> Result<()> {
    match client.delete(path, true).await {
        Ok(_) | Err(HdfsError::FileNotFound(_)) => Ok(()),
        Err(e) => Err(hdfs_error(&format!("{filesystem}{path}"), e)),
    }
}

/// A client of the filesystem `scheme://authority` (without an authority, the configuration's
/// `fs.defaultFS`).
fn connect(filesystem: &str) -> Result<Client> {
    let builder = ClientBuilder::new();
    let builder = if filesystem.ends_with("://") {
        builder
    } else {
        builder.with_url(filesystem)
    };
    builder.build().map_err(|e| hdfs_error(filesystem, e))
}

fn hdfs_error(location: &str, e: HdfsError) -> Error {
    Error::Staging {
        location: location.to_string(),
        message: format!(
            "HDFS: {e} (the load's files are copied there for the region servers: this process \
             must reach the NameNode and DataNodes and may write under the directory, \
             BulkLoadOptions::hdfs_dir)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::split_url;

    #[test]
    fn a_url_is_its_filesystem_and_path() {
        assert_eq!(
            split_url("hdfs://127.0.0.1:8020/hbase/staging/x"),
            Some(("hdfs://127.0.0.1:8020", "/hbase/staging/x"))
        );
        assert_eq!(
            split_url("hdfs://nameservice"),
            Some(("hdfs://nameservice", "/"))
        );
        assert_eq!(split_url("hdfs:///tmp"), Some(("hdfs://", "/tmp")));
        assert_eq!(split_url("/tmp/x"), None);
        assert_eq!(split_url("file:/tmp/x"), None);
    }
}
