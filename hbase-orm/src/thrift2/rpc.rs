//! The Thrift2 methods the client calls, as typed request/reply pairs.

use thrift::protocol::{TInputProtocol, TOutputProtocol};

use super::generated::thbase::*;

/// One `THBaseService` method: its argument struct, name and reply.
pub(crate) trait Rpc {
    /// The method name on the wire.
    const METHOD: &'static str;
    /// Whether sending it again, after a pooled connection died before any byte of the reply
    /// came back, is harmless: reads, puts (they write the same values) and admin calls that
    /// fail cleanly when repeated. Increments, appends, conditional mutations, deletes (a
    /// latest-version delete would remove two versions), row mutations and scanner opens (a
    /// second scanner would leak) are never resent.
    const IDEMPOTENT: bool;
    /// What a successful call returns.
    type Reply;
    /// Writes the argument struct.
    fn write(&self, o: &mut dyn TOutputProtocol) -> thrift::Result<()>;
    /// Reads the result struct and turns it into the reply or the declared exception.
    fn read_reply(i: &mut dyn TInputProtocol) -> thrift::Result<Self::Reply>;
}

macro_rules! rpcs {
    ($($args:ident / $result:ident = $method:literal -> $reply:ty, idempotent: $idem:literal;)*) => {$(
        impl Rpc for $args {
            const METHOD: &'static str = $method;
            const IDEMPOTENT: bool = $idem;
            type Reply = $reply;
            fn write(&self, o: &mut dyn TOutputProtocol) -> thrift::Result<()> {
                self.write_to_out_protocol(o)
            }
            fn read_reply(i: &mut dyn TInputProtocol) -> thrift::Result<$reply> {
                $result::read_from_in_protocol(i)?.ok_or()
            }
        }
    )*};
}

rpcs! {
    THBaseServiceExistsArgs / THBaseServiceExistsResult = "exists" -> bool, idempotent: true;
    THBaseServiceExistsAllArgs / THBaseServiceExistsAllResult = "existsAll" -> Vec<bool>, idempotent: true;
    THBaseServiceGetArgs / THBaseServiceGetResult = "get" -> TResult, idempotent: true;
    THBaseServiceGetMultipleArgs / THBaseServiceGetMultipleResult = "getMultiple" -> Vec<TResult>, idempotent: true;
    THBaseServicePutArgs / THBaseServicePutResult = "put" -> (), idempotent: true;
    THBaseServicePutMultipleArgs / THBaseServicePutMultipleResult = "putMultiple" -> (), idempotent: true;
    THBaseServiceDeleteSingleArgs / THBaseServiceDeleteSingleResult = "deleteSingle" -> (), idempotent: false;
    THBaseServiceDeleteMultipleArgs / THBaseServiceDeleteMultipleResult = "deleteMultiple" -> Vec<TDelete>, idempotent: false;
    THBaseServiceIncrementArgs / THBaseServiceIncrementResult = "increment" -> TResult, idempotent: false;
    THBaseServiceAppendArgs / THBaseServiceAppendResult = "append" -> TResult, idempotent: false;
    THBaseServiceOpenScannerArgs / THBaseServiceOpenScannerResult = "openScanner" -> i32, idempotent: false;
    THBaseServiceGetScannerRowsArgs / THBaseServiceGetScannerRowsResult = "getScannerRows" -> Vec<TResult>, idempotent: false;
    THBaseServiceCloseScannerArgs / THBaseServiceCloseScannerResult = "closeScanner" -> (), idempotent: true;
    THBaseServiceMutateRowArgs / THBaseServiceMutateRowResult = "mutateRow" -> (), idempotent: false;
    THBaseServiceGetAllRegionLocationsArgs / THBaseServiceGetAllRegionLocationsResult = "getAllRegionLocations" -> Vec<THRegionLocation>, idempotent: true;
    THBaseServiceCheckAndMutateArgs / THBaseServiceCheckAndMutateResult = "checkAndMutate" -> bool, idempotent: false;
    THBaseServiceGetTableDescriptorArgs / THBaseServiceGetTableDescriptorResult = "getTableDescriptor" -> TTableDescriptor, idempotent: true;
    THBaseServiceTableExistsArgs / THBaseServiceTableExistsResult = "tableExists" -> bool, idempotent: true;
    THBaseServiceGetTableNamesByPatternArgs / THBaseServiceGetTableNamesByPatternResult = "getTableNamesByPattern" -> Vec<TTableName>, idempotent: true;
    THBaseServiceGetTableNamesByNamespaceArgs / THBaseServiceGetTableNamesByNamespaceResult = "getTableNamesByNamespace" -> Vec<TTableName>, idempotent: true;
    THBaseServiceCreateTableArgs / THBaseServiceCreateTableResult = "createTable" -> (), idempotent: true;
    THBaseServiceDeleteTableArgs / THBaseServiceDeleteTableResult = "deleteTable" -> (), idempotent: true;
    THBaseServiceTruncateTableArgs / THBaseServiceTruncateTableResult = "truncateTable" -> (), idempotent: true;
    THBaseServiceEnableTableArgs / THBaseServiceEnableTableResult = "enableTable" -> (), idempotent: true;
    THBaseServiceDisableTableArgs / THBaseServiceDisableTableResult = "disableTable" -> (), idempotent: true;
    THBaseServiceIsTableEnabledArgs / THBaseServiceIsTableEnabledResult = "isTableEnabled" -> bool, idempotent: true;
    THBaseServiceAddColumnFamilyArgs / THBaseServiceAddColumnFamilyResult = "addColumnFamily" -> (), idempotent: true;
    THBaseServiceDeleteColumnFamilyArgs / THBaseServiceDeleteColumnFamilyResult = "deleteColumnFamily" -> (), idempotent: true;
    THBaseServiceModifyColumnFamilyArgs / THBaseServiceModifyColumnFamilyResult = "modifyColumnFamily" -> (), idempotent: true;
    THBaseServiceCreateNamespaceArgs / THBaseServiceCreateNamespaceResult = "createNamespace" -> (), idempotent: true;
    THBaseServiceDeleteNamespaceArgs / THBaseServiceDeleteNamespaceResult = "deleteNamespace" -> (), idempotent: true;
    THBaseServiceGetNamespaceDescriptorArgs / THBaseServiceGetNamespaceDescriptorResult = "getNamespaceDescriptor" -> TNamespaceDescriptor, idempotent: true;
    THBaseServiceListNamespacesArgs / THBaseServiceListNamespacesResult = "listNamespaces" -> Vec<String>, idempotent: true;
    THBaseServiceGetThriftServerTypeArgs / THBaseServiceGetThriftServerTypeResult = "getThriftServerType" -> TThriftServerType, idempotent: true;
}
