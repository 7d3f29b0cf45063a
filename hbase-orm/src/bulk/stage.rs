//! Where the region servers read a load's files, chosen by the filesystem of their own staging
//! directory (the token of `PrepareBulkLoad`, a URL under the cluster's root):
//! - a local filesystem (`file:`, a standalone HBase or the cluster on this machine): the files
//!   where they were written, as `file://` URLs;
//! - HDFS (`hdfs://`): the files written straight into a directory of the load's own there
//!   (feature `hdfs`); without the feature, the local files when the caller gave a staging
//!   directory (saying the region servers read it: one machine, or a filesystem they share),
//!   else an error before anything is read;
//! - anything else (an object store): the local files only when the caller gave a staging
//!   directory, as above.

use std::path::Path;
use std::sync::Arc;

use super::files::{Destination, LocalFiles};
use super::BulkLoadOptions;
use crate::model::{Error, Result};

/// Where the region servers read the files of one load.
pub(super) enum Stage {
    /// The local files.
    Local,
    /// Files in the cluster's HDFS.
    #[cfg(feature = "hdfs")]
    Hdfs(Arc<super::hdfs::Hdfs>),
}

/// The scheme of a staging token (`file` for a bare path).
fn scheme(token: &str) -> &str {
    match token.split_once(':') {
        Some((scheme, _)) if !scheme.is_empty() && !scheme.contains('/') => scheme,
        _ => "file",
    }
}

impl Stage {
    /// The stage of a load whose region servers gave the staging token `token`, and whose local
    /// directory is `dir` (its name is the remote directory's; the remote directory's URL is
    /// recorded in it, for the leftovers of a crash).
    pub(super) async fn choose(
        options: &BulkLoadOptions,
        token: &str,
        dir: &Path,
    ) -> Result<Stage> {
        let scheme = scheme(token);
        #[cfg(feature = "hdfs")]
        if let Some(base) = options.hdfs_base(token) {
            let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
            let hdfs = super::hdfs::Hdfs::open(&base, &name.unwrap_or_default()).await?;
            if let Err(e) = super::leftovers::record_remote(dir, &hdfs.url()) {
                let _ = hdfs.remove().await;
                return Err(e);
            }
            return Ok(Stage::Hdfs(Arc::new(hdfs)));
        }
        let _ = dir;
        if scheme == "file" || options.staging_dir.is_some() {
            return Ok(Stage::Local);
        }
        let how = if scheme == "hdfs" {
            "build hbase-orm with its feature `hdfs` to write the files into HDFS, or give"
        } else {
            "give"
        };
        Err(Error::Unsupported {
            operation: "bulk_load".into(),
            backend: "native",
            why: format!(
                "the cluster keeps its files in {scheme} (its staging directory is {token}), \
                 which the region servers would read the load's files from: {how} \
                 BulkLoadOptions::staging_dir a directory that the region servers can read \
                 (this machine's, or a filesystem they share)"
            ),
        })
    }

    /// Where the files of a load whose local directory is `dir` are written, ready for the
    /// files of `families`.
    #[cfg_attr(not(feature = "hdfs"), allow(unused_variables))]
    pub(super) async fn destination<'f>(
        &self,
        dir: &Path,
        families: impl IntoIterator<Item = &'f str>,
    ) -> Result<Arc<dyn Destination>> {
        match self {
            Stage::Local => Ok(Arc::new(LocalFiles(dir.to_path_buf()))),
            #[cfg(feature = "hdfs")]
            Stage::Hdfs(hdfs) => {
                hdfs.make_families(families).await?;
                Ok(hdfs.clone())
            }
        }
    }

    /// The filesystem's delegation token the region servers are handed with the files, when
    /// it is secured (asked for the first time it is wanted).
    pub(super) async fn fs_token(&self) -> Result<Option<&crate::backend::fs_token::FsToken>> {
        match self {
            Stage::Local => Ok(None),
            #[cfg(feature = "hdfs")]
            Stage::Hdfs(hdfs) => hdfs.token().await,
        }
    }

    /// Removes the load's remote directory, if it has one.
    pub(super) async fn remove(&self) -> Result<()> {
        match self {
            Stage::Local => Ok(()),
            #[cfg(feature = "hdfs")]
            Stage::Hdfs(hdfs) => hdfs.remove().await,
        }
    }
}

#[cfg(feature = "hdfs")]
impl BulkLoadOptions {
    /// The HDFS directory (a URL) the load's directory is made in, when the files go to HDFS:
    /// the one the caller gave, else `/tmp` of the filesystem of an `hdfs://` token.
    fn hdfs_base(&self, token: &str) -> Option<String> {
        if let Some(dir) = &self.hdfs_dir {
            return Some(dir.clone());
        }
        if scheme(token) != "hdfs" {
            return None;
        }
        let (filesystem, _) = super::hdfs::split_url(token)?;
        Some(format!("{filesystem}/tmp"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_names_its_filesystem() {
        assert_eq!(scheme("file:/srv/hbase/staging/x"), "file");
        assert_eq!(scheme("/srv/hbase/staging/x"), "file");
        assert_eq!(scheme("hdfs://nn:8020/hbase/staging/x"), "hdfs");
        assert_eq!(scheme("s3a://bucket/hbase/staging/x"), "s3a");
    }

    #[tokio::test]
    async fn a_cluster_elsewhere_than_here_needs_a_way_to_its_files() {
        let dir = Path::new("/nonexistent/hbase-orm-bulk@ns@t@1@2");
        let local = BulkLoadOptions::new();
        let given = BulkLoadOptions::new().staging_dir("/shared/bulk");
        for token in ["file:/srv/hbase/staging/x", "/srv/hbase/staging/x"] {
            assert!(matches!(
                Stage::choose(&local, token, dir).await,
                Ok(Stage::Local)
            ));
        }
        let s3 = "s3a://bucket/hbase/staging/x";
        assert!(matches!(
            Stage::choose(&given, s3, dir).await,
            Ok(Stage::Local)
        ));
        match Stage::choose(&local, s3, dir).await {
            Err(Error::Unsupported { why, .. }) => {
                assert!(why.contains("s3a") && why.contains("staging_dir"), "{why}")
            }
            _ => panic!("an object store's cluster without a staging directory is refused"),
        }
        #[cfg(not(feature = "hdfs"))]
        {
            let hdfs = "hdfs://nn:8020/hbase/staging/x";
            assert!(matches!(
                Stage::choose(&given, hdfs, dir).await,
                Ok(Stage::Local)
            ));
            match Stage::choose(&local, hdfs, dir).await {
                Err(Error::Unsupported { why, .. }) => assert!(why.contains("`hdfs`"), "{why}"),
                _ => panic!("an HDFS cluster without the feature or a staging directory"),
            }
        }
    }
}
