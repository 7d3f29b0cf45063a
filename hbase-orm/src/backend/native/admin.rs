//! Namespaces and tables, through the master's `MasterService`.
//!
//! HBase 2 carries out a table or namespace change as a procedure: the call returns its id at
//! once, and the client asks for the procedure's result until it is finished, as the Java
//! admin does before it returns.

use std::time::{Duration, Instant};

use super::connection;
use super::proto;
use super::rpc::{self, Core, RegionAt};
use super::schema;
use crate::model::{self, Error, Result, TableDescriptor, TableName};

/// `e`, a table-not-found error named after `table` (the master's messages do not always
/// end in the table's name: "No state found for ...").
fn about(table: &TableName) -> impl Fn(Error) -> Error + '_ {
    move |e| match e {
        Error::TableNotFound { .. } => Error::TableNotFound {
            table: table.to_string(),
        },
        e => e,
    }
}

/// How long a change may take before the client stops waiting for it.
const PROCEDURE_WAIT: Duration = Duration::from_secs(300);

impl Core {
    /// Calls `method` on the master and decodes the reply as `R`.
    pub(crate) async fn master<R: prost::Message + Default>(
        &self,
        method: &'static str,
        request: &impl prost::Message,
    ) -> Result<R> {
        let reply = self.master_call(method, request).await?;
        connection::decode(&reply).map_err(|m| rpc::protocol(method, m))
    }

    /// Calls `method`, a change carried out as a procedure, and waits for it to finish.
    pub(crate) async fn change(
        &self,
        method: &'static str,
        request: &impl prost::Message,
    ) -> Result<()> {
        // Every procedure's reply holds the procedure id alone, as field 1.
        let started: proto::CreateTableResponse = self.master(method, request).await?;
        match started.proc_id {
            Some(id) => self.wait_for_procedure(method, id).await,
            None => Ok(()),
        }
    }

    /// Asks for the result of procedure `id` until it is finished.
    async fn wait_for_procedure(&self, method: &'static str, id: u64) -> Result<()> {
        use proto::get_procedure_result_response::State;
        let started = Instant::now();
        let mut pause = Duration::from_millis(10);
        loop {
            let request = proto::GetProcedureResultRequest { proc_id: id };
            let result: proto::GetProcedureResultResponse =
                self.master("getProcedureResult", &request).await?;
            match State::try_from(result.state) {
                Ok(State::Finished) => {
                    return match result.exception {
                        None => Ok(()),
                        Some(e) => {
                            let generic = e.generic_exception.unwrap_or_default();
                            let message = format!(
                                "{}: {}",
                                generic.class_name.unwrap_or_default(),
                                generic.message.unwrap_or_default()
                            );
                            Err(Error::from_server(method, message, false))
                        }
                    };
                }
                // A procedure the master no longer knows finished long ago.
                Ok(State::NotFound) => return Ok(()),
                _ => {}
            }
            if started.elapsed() > PROCEDURE_WAIT {
                return Err(Error::Timeout {
                    operation: method,
                    after: PROCEDURE_WAIT,
                });
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(Duration::from_millis(250));
        }
    }

    /// Calls `method`, a change of `table` carried out as a procedure, with the request
    /// `make` builds from the table's name, this client's nonce group and a fresh nonce.
    async fn table_change<R: prost::Message>(
        &self,
        method: &'static str,
        table: &TableName,
        make: impl FnOnce(proto::TableName, Option<u64>, Option<u64>) -> R,
    ) -> Result<()> {
        let request = make(
            schema::table_name(table),
            Some(self.nonce_group),
            Some(self.nonce()),
        );
        self.change(method, &request).await.map_err(about(table))
    }

    /// Creates a namespace.
    pub(crate) async fn create_namespace(&self, name: &str) -> Result<()> {
        let request = proto::CreateNamespaceRequest {
            namespace_descriptor: schema::namespace_descriptor(name),
            nonce_group: Some(self.nonce_group),
            nonce: Some(self.nonce()),
        };
        self.change("CreateNamespace", &request).await
    }

    /// Whether a namespace exists.
    pub(crate) async fn namespace_exists(&self, name: &str) -> Result<bool> {
        let request = proto::GetNamespaceDescriptorRequest {
            namespace_name: name.to_string(),
        };
        let found = self
            .master::<proto::GetNamespaceDescriptorResponse>("GetNamespaceDescriptor", &request)
            .await;
        match found {
            Ok(_) => Ok(true),
            Err(Error::NamespaceNotFound { .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Every namespace.
    pub(crate) async fn list_namespaces(&self) -> Result<Vec<String>> {
        let reply: proto::ListNamespacesResponse = self
            .master("ListNamespaces", &proto::ListNamespacesRequest::default())
            .await?;
        Ok(reply.namespace_name)
    }

    /// Deletes an empty namespace.
    pub(crate) async fn delete_namespace(&self, name: &str) -> Result<()> {
        let request = proto::DeleteNamespaceRequest {
            namespace_name: name.to_string(),
            nonce_group: Some(self.nonce_group),
            nonce: Some(self.nonce()),
        };
        self.change("DeleteNamespace", &request).await
    }

    /// Creates a table split at `split_keys`.
    pub(crate) async fn create_table(
        &self,
        table: &TableDescriptor,
        split_keys: &[Vec<u8>],
    ) -> Result<()> {
        let request = proto::CreateTableRequest {
            table_schema: schema::table_schema(table),
            split_keys: split_keys
                .iter()
                .map(|k| bytes::Bytes::copy_from_slice(k))
                .collect(),
            nonce_group: Some(self.nonce_group),
            nonce: Some(self.nonce()),
        };
        self.regions.forget_table(&table.name);
        self.change("CreateTable", &request).await
    }

    /// The table's descriptor, `None` if it does not exist.
    async fn schema_of(&self, table: &TableName) -> Result<Option<proto::TableSchema>> {
        let request = proto::GetTableDescriptorsRequest {
            table_names: vec![schema::table_name(table)],
            ..Default::default()
        };
        let reply: proto::GetTableDescriptorsResponse = self
            .master("GetTableDescriptors", &request)
            .await
            .map_err(about(table))?;
        Ok(reply.table_schema.into_iter().next())
    }

    /// Whether the table exists.
    pub(crate) async fn table_exists(&self, table: &TableName) -> Result<bool> {
        match self.schema_of(table).await {
            Ok(found) => Ok(found.is_some()),
            Err(Error::TableNotFound { .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// The table's descriptor.
    pub(crate) async fn describe(&self, table: &TableName) -> Result<TableDescriptor> {
        let schema = self
            .schema_of(table)
            .await?
            .ok_or_else(|| Error::TableNotFound {
                table: table.to_string(),
            })?;
        schema::descriptor_from_schema(&schema)
    }

    /// The tables of a namespace, or every user table.
    pub(crate) async fn list_tables(&self, namespace: Option<&str>) -> Result<Vec<TableName>> {
        let request = proto::GetTableNamesRequest {
            namespace: namespace.map(str::to_string),
            include_sys_tables: Some(false),
            ..Default::default()
        };
        let reply: proto::GetTableNamesResponse = self.master("GetTableNames", &request).await?;
        reply
            .table_names
            .iter()
            .map(schema::model_table_name)
            .collect()
    }

    /// Enables (`true`) or disables a table.
    pub(crate) async fn set_enabled(&self, table: &TableName, enabled: bool) -> Result<()> {
        if enabled {
            let make = |table_name, nonce_group, nonce| proto::EnableTableRequest {
                table_name,
                nonce_group,
                nonce,
            };
            self.table_change("EnableTable", table, make).await
        } else {
            self.regions.forget_table(table);
            let make = |table_name, nonce_group, nonce| proto::DisableTableRequest {
                table_name,
                nonce_group,
                nonce,
            };
            self.table_change("DisableTable", table, make).await
        }
    }

    /// Whether the table is enabled.
    pub(crate) async fn is_table_enabled(&self, table: &TableName) -> Result<bool> {
        use proto::table_state::State;
        let request = proto::GetTableStateRequest {
            table_name: schema::table_name(table),
        };
        let reply: proto::GetTableStateResponse = self
            .master("GetTableState", &request)
            .await
            .map_err(about(table))?;
        Ok(State::try_from(reply.table_state.state) == Ok(State::Enabled))
    }

    /// Removes every row of a disabled table.
    pub(crate) async fn truncate_table(
        &self,
        table: &TableName,
        preserve_splits: bool,
    ) -> Result<()> {
        self.regions.forget_table(table);
        let make = |table_name, nonce_group, nonce| proto::TruncateTableRequest {
            table_name,
            preserve_splits: Some(preserve_splits),
            nonce_group,
            nonce,
        };
        self.table_change("truncateTable", table, make).await
    }

    /// Drops a disabled table.
    pub(crate) async fn delete_table(&self, table: &TableName) -> Result<()> {
        self.regions.forget_table(table);
        let make = |table_name, nonce_group, nonce| proto::DeleteTableRequest {
            table_name,
            nonce_group,
            nonce,
        };
        self.table_change("DeleteTable", table, make).await
    }

    /// Adds a family, or replaces one's options (`modify`).
    pub(crate) async fn put_family(
        &self,
        table: &TableName,
        column_families: proto::ColumnFamilySchema,
        modify: bool,
    ) -> Result<()> {
        if modify {
            let make = |table_name, nonce_group, nonce| proto::ModifyColumnRequest {
                table_name,
                column_families,
                nonce_group,
                nonce,
            };
            self.table_change("ModifyColumn", table, make).await
        } else {
            let make = |table_name, nonce_group, nonce| proto::AddColumnRequest {
                table_name,
                column_families,
                nonce_group,
                nonce,
            };
            self.table_change("AddColumn", table, make).await
        }
    }

    /// Sets the options `declared` gives on an existing family, keeping every other setting.
    pub(crate) async fn merge_family(
        &self,
        table: &TableName,
        declared: &model::ColumnFamily,
    ) -> Result<()> {
        let schema = self
            .schema_of(table)
            .await?
            .ok_or_else(|| Error::TableNotFound {
                table: table.to_string(),
            })?;
        let existing = schema
            .column_families
            .iter()
            .find(|f| f.name[..] == *declared.name.as_bytes())
            .ok_or_else(|| Error::IllegalArgument {
                message: format!("table {table} has no family {}", declared.name),
            })?;
        self.put_family(table, schema::merge_family(existing, declared), true)
            .await
    }

    /// Drops a family and its data.
    pub(crate) async fn delete_family(&self, table: &TableName, family: &str) -> Result<()> {
        let make = |table_name, nonce_group, nonce| proto::DeleteColumnRequest {
            table_name,
            column_name: bytes::Bytes::copy_from_slice(family.as_bytes()),
            nonce_group,
            nonce,
        };
        self.table_change("DeleteColumn", table, make).await
    }

    /// Splits the region holding `key` in two at that key.
    pub(crate) async fn split_region(&self, table: &TableName, key: &[u8]) -> Result<()> {
        // Looked up in meta, not the cache: the region to split is named by its current id.
        self.regions.forget_table(table);
        let region = self.locate(table, RegionAt::Holding(key)).await?;
        let request = proto::SplitTableRegionRequest {
            region_info: proto::RegionInfo {
                region_id: region.id as u64,
                table_name: schema::table_name(table),
                start_key: Some(bytes::Bytes::copy_from_slice(&region.start)),
                end_key: Some(bytes::Bytes::copy_from_slice(&region.end)),
                ..Default::default()
            },
            split_row: Some(bytes::Bytes::copy_from_slice(key)),
            nonce_group: Some(self.nonce_group),
            nonce: Some(self.nonce()),
        };
        let result = self
            .change("SplitRegion", &request)
            .await
            .map_err(about(table));
        // The parent region is gone either way: the halves are looked up on first use.
        self.regions.forget_table(table);
        result
    }
}
