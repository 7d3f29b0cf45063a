//! A load's files written into HDFS (feature `hdfs`), for a cluster that keeps its files there:
//! into a directory of the load's own on the cluster's HDFS (under `/tmp` unless
//! [`BulkLoadOptions::hdfs_dir`](super::BulkLoadOptions::hdfs_dir) says where), named like its
//! local directory. Each file's bytes go straight to the DataNodes as the region's writer makes
//! them (no local copy): the writer's thread hands them in chunks to a task on the load's
//! runtime, which writes them. A file written as its rows arrive gets the 1 MiB pieces its
//! bytes were gathered in, as they are (no copy); a file written from the sorted runs (one per
//! family for each region being written, a region per core) gathers its own chunks of 512 KiB.
//! Each file being written holds at most three of either (two queued, one being written),
//! besides what the HDFS client has sent and the DataNodes not yet acknowledged (up to about
//! 200 packets of 64 KiB, and the piece a packet partly filled). The directories are open to
//! every user, the files readable and writable by all: the region servers, whatever user they
//! run as, move the files into their own staging directory. The directory is removed when the
//! load ends (or, after a crash, with the local one's leftovers).
//!
//! The client is `hdfs-native`'s: HDFS's own RPC and data-transfer protocol in Rust, no JVM or
//! libhdfs. It reads `core-site.xml` and `hdfs-site.xml` from `HADOOP_CONF_DIR` (a nameservice
//! of several NameNodes, Kerberos, `dfs.data.transfer.protection`), and takes the user from
//! `HADOOP_USER_NAME` or the system, or on a secured HDFS from the Kerberos credentials (a
//! ticket cache, or `KRB5_CLIENT_KTNAME`'s keytab).
//!
//! On a secured HDFS (the configuration's `hadoop.security.authentication=kerberos`) the files
//! are the loading user's, and the region servers move them as that user: the load asks the
//! NameNode for a delegation token of the user's ([`token`]) when the first region is handed
//! its files, hands it to each region with them (HBase's secure bulk load), and cancels it
//! when the load ends. A load abandoned without its end (its future dropped) leaves its token
//! to expire on its own (the NameNode's renew interval, a day by default: nobody renews it).

use std::io::{Read, Write};

use bytes::{Bytes, BytesMut};
use hdfs_native::file::FileReader;
use hdfs_native::{Client, ClientBuilder, HdfsError, WriteOptions};
use tokio::sync::{mpsc, oneshot};

use super::files::{not_here, Destination, Location, Sink};
use super::piece::Piece;
use crate::backend::fs_token::FsToken;
use crate::model::{Error, Result};

mod config;
mod token;

/// Bytes of a file gathered by [`Write`] and handed to its writing task at a time (a file
/// given whole pieces hands those instead), and read at a time.
const CHUNK: usize = 512 << 10;

/// Chunks (or pieces) of a file waiting for its task: the file's writer waits when the
/// DataNodes do. A file being written holds at most its chunk being gathered, these and the
/// one being written, besides what the HDFS client has not had acknowledged yet.
const CHUNKS_QUEUED: usize = 2;

/// What a file's task is handed: a chunk of the file, or its end (a file whose chunks stop
/// without it is abandoned).
enum Handed {
    Chunk(Bytes),
    End,
}

/// A load's directory on an HDFS.
pub(super) struct Hdfs {
    client: Client,
    /// The filesystem, `hdfs://authority`.
    filesystem: String,
    /// The load's directory in it, an absolute path.
    dir: String,
    /// The runtime the files are written on.
    runtime: tokio::runtime::Handle,
    /// Where the loading user's delegation token comes from, when the configuration says
    /// the HDFS is secured (see [`token`]).
    tokens: Option<token::TokenSource>,
    /// The token, once asked for (by the first region handed its files).
    token: tokio::sync::OnceCell<Option<FsToken>>,
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
    /// The path of the file `name` of `family` in the load's directory.
    fn path_of(&self, family: &str, name: &str) -> String {
        format!("{}/{family}/{name}", self.dir)
    }

    /// Makes the load's directory `name` under `base` (an `hdfs://` URL); its files are written
    /// on the runtime this is called on.
    pub(super) async fn open(base: &str, name: &str) -> Result<Hdfs> {
        let (filesystem, path) = split_url(base).ok_or_else(|| Error::Staging {
            location: base.to_string(),
            message: "not a URL: give the HDFS directory as hdfs://namenode:port/path".into(),
        })?;
        let hdfs = Hdfs {
            client: connect(filesystem)?,
            tokens: token::TokenSource::of(filesystem, &config::HadoopConf::load()),
            token: tokio::sync::OnceCell::new(),
            filesystem: filesystem.to_string(),
            dir: format!("{}/{name}", path.trim_end_matches('/')),
            runtime: tokio::runtime::Handle::current(),
        };
        hdfs.make_dir(&hdfs.dir).await?;
        Ok(hdfs)
    }

    /// The load's directory, as a URL.
    pub(super) fn url(&self) -> String {
        format!("{}{}", self.filesystem, self.dir)
    }

    /// Makes the directories of `families` in the load's directory (before their files).
    pub(super) async fn make_families<'f>(
        &self,
        families: impl IntoIterator<Item = &'f str>,
    ) -> Result<()> {
        for family in families {
            self.make_dir(&format!("{}/{family}", self.dir)).await?;
        }
        Ok(())
    }

    /// The loading user's delegation token for the region servers, when the HDFS is
    /// secured: asked of the NameNode the first time (when the first region is handed its
    /// files, so that a long load's token is young when it is used).
    pub(super) async fn token(&self) -> Result<Option<&FsToken>> {
        let Some(tokens) = &self.tokens else {
            return Ok(None);
        };
        self.token
            .get_or_try_init(|| tokens.fetch())
            .await
            .map(Option::as_ref)
    }

    /// Removes the load's directory and what is left in it, and cancels its delegation token
    /// (a token that cannot be cancelled expires on its own: only a warning).
    pub(super) async fn remove(&self) -> Result<()> {
        let removed = remove_in(&self.client, &self.filesystem, &self.dir).await;
        if let (Some(tokens), Some(Some(token))) = (&self.tokens, self.token.get()) {
            if let Err(e) = tokens.cancel(token).await {
                tracing::warn!(error = %e, "bulk load: the HDFS delegation token was not cancelled");
            }
        }
        removed
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

impl Destination for Hdfs {
    /// A file `<family>/<name>` in the load's directory (whose family directories were made),
    /// written by a task of its own as its chunks come.
    fn create(&self, family: &str, name: &str) -> Result<Box<dyn Sink>> {
        let path = self.path_of(family, name);
        let url = format!("{}{path}", self.filesystem);
        let (handed, queued) = mpsc::channel(CHUNKS_QUEUED);
        let (done, written) = oneshot::channel();
        let (client, at) = (self.client.clone(), url.clone());
        self.runtime.spawn(async move {
            let _ = done.send(write_file(&client, &path, &at, queued).await);
        });
        Ok(Box::new(HdfsFile {
            url,
            chunk: BytesMut::new(),
            handed,
            written: Some(written),
        }))
    }

    fn location(&self, family: &str, name: &str) -> Location {
        Location::Url(format!("{}{}", self.filesystem, self.path_of(family, name)))
    }

    /// A file of the load's directory, read in chunks of [`CHUNK`] on the load's runtime (the
    /// caller's thread, a blocking one, waits for each).
    fn open(&self, location: &Location) -> Result<Box<dyn Read + Send>> {
        let path = match location {
            Location::Url(url) => split_url(url)
                .filter(|(filesystem, _)| *filesystem == self.filesystem)
                .map(|(_, path)| path.to_string()),
            Location::Local(_) => None,
        }
        .ok_or_else(|| not_here(location))?;
        let url = location.url();
        let reader = self
            .runtime
            .block_on(self.client.read(&path))
            .map_err(|e| hdfs_error(&url, e))?;
        Ok(Box::new(HdfsRead {
            runtime: self.runtime.clone(),
            reader,
            chunk: Bytes::new(),
        }))
    }
}

/// A file of HDFS being read.
struct HdfsRead {
    runtime: tokio::runtime::Handle,
    reader: FileReader,
    /// What was read and not yet taken.
    chunk: Bytes,
}

impl Read for HdfsRead {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.chunk.is_empty() {
            self.chunk = self
                .runtime
                .block_on(self.reader.read_bytes(CHUNK))
                .map_err(std::io::Error::other)?;
        }
        let n = out.len().min(self.chunk.len());
        out[..n].copy_from_slice(&self.chunk.split_to(n));
        Ok(n)
    }
}

/// Writes the chunks that come into a new file at `path` (`url`), closed at their end. A file
/// whose writer stopped short (its chunks stop without their end) is removed, not closed.
async fn write_file(
    client: &Client,
    path: &str,
    url: &str,
    mut handed: mpsc::Receiver<Handed>,
) -> Result<()> {
    let options = WriteOptions::default()
        .permission(0o666)
        .create_parent(false);
    let mut out = client
        .create(path, options)
        .await
        .map_err(|e| hdfs_error(url, e))?;
    loop {
        match handed.recv().await {
            Some(Handed::Chunk(chunk)) => {
                out.write_bytes(chunk)
                    .await
                    .map_err(|e| hdfs_error(url, e))?;
            }
            Some(Handed::End) => return out.close().await.map_err(|e| hdfs_error(url, e)),
            None => {
                drop(out);
                let _ = client.delete(path, false).await;
                return Err(Error::Staging {
                    location: url.to_string(),
                    message: "HDFS: the file's writer stopped before its end".into(),
                });
            }
        }
    }
}

/// A file being written into HDFS: its bytes gathered into chunks, each handed to the file's
/// task when full (the rest when the file is closed), or handed whole pieces as they are.
struct HdfsFile {
    url: String,
    chunk: BytesMut,
    /// The way to the task.
    handed: mpsc::Sender<Handed>,
    /// The task's outcome; taken when it is waited for.
    written: Option<oneshot::Receiver<Result<()>>>,
}

impl HdfsFile {
    /// Hands the chunk gathered to the task (waiting while its queue is full); the task's
    /// error when it stopped.
    fn send(&mut self) -> Result<()> {
        if self.chunk.is_empty() {
            return Ok(());
        }
        let chunk = std::mem::take(&mut self.chunk).freeze();
        self.hand(Handed::Chunk(chunk))
    }

    /// Hands `handed` to the task; the task's error when it stopped.
    fn hand(&mut self, handed: Handed) -> Result<()> {
        if self.handed.blocking_send(handed).is_ok() {
            return Ok(());
        }
        // The task stopped: its outcome says why.
        self.wait().and_then(|()| {
            Err(Error::Staging {
                location: self.url.clone(),
                message: "HDFS: the file was closed before all of it was written".into(),
            })
        })
    }

    /// Waits for the task to end: its outcome.
    fn wait(&mut self) -> Result<()> {
        let written = self.written.take().ok_or_else(|| Error::Staging {
            location: self.url.clone(),
            message: "HDFS: the file's writing failed before".into(),
        })?;
        written.blocking_recv().unwrap_or_else(|_| {
            Err(Error::Staging {
                location: self.url.clone(),
                message: "HDFS: the task writing the file stopped (it panicked, or the runtime \
                          shut down)"
                    .into(),
            })
        })
    }
}

impl Write for HdfsFile {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if self.chunk.is_empty() {
            self.chunk.reserve(CHUNK.max(bytes.len()));
        }
        self.chunk.extend_from_slice(bytes);
        if self.chunk.len() >= CHUNK {
            self.send().map_err(std::io::Error::other)?;
        }
        Ok(bytes.len())
    }

    /// Hands what was gathered to the task (it is written in the file's order; the file is
    /// whole once closed).
    fn flush(&mut self) -> std::io::Result<()> {
        self.send().map_err(std::io::Error::other)
    }
}

impl Sink for HdfsFile {
    fn location(&self) -> &str {
        &self.url
    }

    /// Hands `piece` to the task as it is (after what was gathered before it): the file's
    /// packets keep slices of it until the DataNodes acknowledge them, and then its buffer goes
    /// back to its pool.
    fn write_piece(&mut self, piece: Piece) -> std::io::Result<()> {
        self.send()
            .and_then(|()| self.hand(Handed::Chunk(Bytes::from_owner(piece))))
            .map_err(std::io::Error::other)
    }

    fn close(mut self: Box<Self>) -> Result<Location> {
        self.send()?;
        self.hand(Handed::End)?;
        self.wait()?;
        Ok(Location::Url(std::mem::take(&mut self.url)))
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
            "HDFS: {e} (the load's files are written there for the region servers: this process \
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
