//! Bulk load: the region servers' `ClientService` calls that hand them HFiles. A load takes a
//! staging directory (`PrepareBulkLoad`, on the table's first region), gives each region the
//! files of its key range (`BulkLoadHFile`, one call per region with every family's files),
//! and removes the directory (`CleanupBulkLoad`).

use super::connection;
use super::proto;
use super::rpc::{self, Core, RegionAt};
use super::schema;
use crate::backend::fs_token::FsToken;
use crate::model::{Result, TableName};

impl Core {
    /// A staging directory for a load into `table`: the token the other calls name it by (its
    /// path, as the region server's filesystem writes it).
    pub(crate) async fn prepare_bulk_load(&self, table: &TableName) -> Result<String> {
        const METHOD: &str = "PrepareBulkLoad";
        let (_, reply) = self
            .region_call(table, RegionAt::Holding(b""), METHOD, |region| {
                proto::PrepareBulkLoadRequest {
                    table_name: schema::table_name(table),
                    region: Some(region.specifier()),
                }
            })
            .await?;
        let reply: proto::PrepareBulkLoadResponse =
            connection::decode(&reply).map_err(|m| rpc::protocol(METHOD, m))?;
        Ok(reply.bulk_token)
    }

    /// Hands `files` (family and path) to the region holding `first_row`, the files' first
    /// row, with the filesystem's delegation token when it is secured (the region server moves
    /// the files as the user the token is of). `false`: the region did not take them (their
    /// rows no longer fit it after a split, or the server could not read them); none was
    /// loaded.
    pub(crate) async fn bulk_load_files(
        &self,
        table: &TableName,
        first_row: &[u8],
        files: &[(String, String)],
        token: &str,
        fs_token: Option<&FsToken>,
    ) -> Result<bool> {
        const METHOD: &str = "BulkLoadHFile";
        let family_path: Vec<_> = files
            .iter()
            .map(
                |(family, path)| proto::bulk_load_h_file_request::FamilyPath {
                    family: bytes::Bytes::copy_from_slice(family.as_bytes()),
                    path: path.clone(),
                },
            )
            .collect();
        let (_, reply) = self
            .region_call(table, RegionAt::Holding(first_row), METHOD, |region| {
                proto::BulkLoadHFileRequest {
                    region: region.specifier(),
                    family_path: family_path.clone(),
                    // The cells get the sequence id of the flush the server makes first, so
                    // that they sort after the region's older writes of the same timestamp.
                    assign_seq_num: Some(true),
                    fs_token: fs_token.map(|t| proto::DelegationToken {
                        identifier: Some(bytes::Bytes::copy_from_slice(&t.identifier)),
                        password: Some(bytes::Bytes::copy_from_slice(&t.password)),
                        kind: Some(t.kind.clone()),
                        service: Some(t.service.clone()),
                    }),
                    bulk_token: Some(token.to_string()),
                    copy_file: Some(false),
                    cluster_ids: Vec::new(),
                    replicate: Some(true),
                }
            })
            .await?;
        let reply: proto::BulkLoadHFileResponse =
            connection::decode(&reply).map_err(|m| rpc::protocol(METHOD, m))?;
        Ok(reply.loaded)
    }

    /// Removes the staging directory `token` names, with whatever is left in it.
    pub(crate) async fn cleanup_bulk_load(&self, table: &TableName, token: &str) -> Result<()> {
        const METHOD: &str = "CleanupBulkLoad";
        let (_, reply) = self
            .region_call(table, RegionAt::Holding(b""), METHOD, |region| {
                proto::CleanupBulkLoadRequest {
                    bulk_token: token.to_string(),
                    region: Some(region.specifier()),
                }
            })
            .await?;
        let _: proto::CleanupBulkLoadResponse =
            connection::decode(&reply).map_err(|m| rpc::protocol(METHOD, m))?;
        Ok(())
    }
}
