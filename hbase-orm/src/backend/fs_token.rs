//! A filesystem's delegation token: what a bulk load hands the region servers with its files
//! when the cluster's filesystem is secured (HDFS with Kerberos), so that they move the files
//! as the loading user (HBase's `DelegationToken` of `BulkLoadHFileRequest`).

/// A Hadoop delegation token, as HDFS's NameNode issues it. Its password never appears in
/// `Debug`.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct FsToken {
    /// The token's identifier (its owner, renewer, dates and sequence number, as HDFS encodes
    /// them).
    pub identifier: Vec<u8>,
    /// The secret the NameNode checks the identifier against.
    pub password: Vec<u8>,
    /// Its kind (`HDFS_DELEGATION_TOKEN`).
    pub kind: String,
    /// The filesystem it is for, as Hadoop's clients look tokens up (`ip:port` of the
    /// NameNode).
    pub service: String,
}

impl std::fmt::Debug for FsToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FsToken")
            .field("kind", &self.kind)
            .field("service", &self.service)
            .field(
                "identifier",
                &format_args!("{} bytes", self.identifier.len()),
            )
            .field("password", &"<redacted>")
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_shows_no_secret() {
        let token = FsToken {
            identifier: b"owner-alice".to_vec(),
            password: b"s3cr3t-pw".to_vec(),
            kind: "HDFS_DELEGATION_TOKEN".into(),
            service: "127.0.0.1:8220".into(),
        };
        let shown = format!("{token:?}");
        assert!(shown.contains("127.0.0.1:8220"), "{shown}");
        assert!(
            !shown.contains("s3cr3t") && !shown.contains("owner-alice"),
            "{shown}"
        );
    }
}
