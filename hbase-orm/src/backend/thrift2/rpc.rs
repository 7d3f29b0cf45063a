//! The Thrift2 methods the client calls, as typed request/reply pairs.

use bytes::Bytes;
use thrift::protocol::{TInputProtocol, TOutputProtocol};

use super::generated::thbase::*;
use super::rows::{self, OneRow, RowPerGet, ScannedRows, Shape};
use crate::backend::wire::{self, WireCall, WireProtocol};
use crate::model::{Error, Result};

/// One `THBaseService` method: its argument struct, name and reply.
pub(crate) trait Rpc {
    /// The method name on the wire.
    const METHOD: &'static str;
    /// What a successful call returns.
    type Reply;
    /// Writes the argument struct.
    fn write(&self, o: &mut dyn TOutputProtocol) -> thrift::Result<()>;
    /// Reads the result struct and turns it into the reply or the declared exception.
    fn read_reply(i: &mut dyn TInputProtocol) -> thrift::Result<Self::Reply>;
    /// Reads a whole reply message: with the generated reader ([`decode`]) unless the method
    /// has a faster one.
    fn decode_reply(protocol: WireProtocol, seq: i32, reply: &Bytes) -> Result<Self::Reply>
    where
        Self: Sized,
    {
        decode::<Self>(protocol, seq, reply)
    }
    /// A reader of the reply as it arrives (see [`WireCall::reader`]), if the method has one.
    fn reader(_: WireProtocol, _: i32, _: usize) -> Option<rows::Arriving<Self::Reply>> {
        None
    }
}

macro_rules! rpcs {
    ($($args:ident / $result:ident = $method:literal -> $reply:ty;)*) => {$(
        impl Rpc for $args {
            const METHOD: &'static str = $method;
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
    THBaseServiceExistsArgs / THBaseServiceExistsResult = "exists" -> bool;
    THBaseServiceExistsAllArgs / THBaseServiceExistsAllResult = "existsAll" -> Vec<bool>;
    THBaseServicePutArgs / THBaseServicePutResult = "put" -> ();
    THBaseServicePutMultipleArgs / THBaseServicePutMultipleResult = "putMultiple" -> ();
    THBaseServiceDeleteSingleArgs / THBaseServiceDeleteSingleResult = "deleteSingle" -> ();
    THBaseServiceDeleteMultipleArgs / THBaseServiceDeleteMultipleResult = "deleteMultiple" -> Vec<TDelete>;
    THBaseServiceOpenScannerArgs / THBaseServiceOpenScannerResult = "openScanner" -> i32;
    THBaseServiceCloseScannerArgs / THBaseServiceCloseScannerResult = "closeScanner" -> ();
    THBaseServiceMutateRowArgs / THBaseServiceMutateRowResult = "mutateRow" -> ();
    THBaseServiceGetAllRegionLocationsArgs / THBaseServiceGetAllRegionLocationsResult = "getAllRegionLocations" -> Vec<THRegionLocation>;
    THBaseServiceCheckAndMutateArgs / THBaseServiceCheckAndMutateResult = "checkAndMutate" -> bool;
    THBaseServiceGetTableDescriptorArgs / THBaseServiceGetTableDescriptorResult = "getTableDescriptor" -> TTableDescriptor;
    THBaseServiceTableExistsArgs / THBaseServiceTableExistsResult = "tableExists" -> bool;
    THBaseServiceGetTableNamesByPatternArgs / THBaseServiceGetTableNamesByPatternResult = "getTableNamesByPattern" -> Vec<TTableName>;
    THBaseServiceGetTableNamesByNamespaceArgs / THBaseServiceGetTableNamesByNamespaceResult = "getTableNamesByNamespace" -> Vec<TTableName>;
    THBaseServiceCreateTableArgs / THBaseServiceCreateTableResult = "createTable" -> ();
    THBaseServiceDeleteTableArgs / THBaseServiceDeleteTableResult = "deleteTable" -> ();
    THBaseServiceTruncateTableArgs / THBaseServiceTruncateTableResult = "truncateTable" -> ();
    THBaseServiceEnableTableArgs / THBaseServiceEnableTableResult = "enableTable" -> ();
    THBaseServiceDisableTableArgs / THBaseServiceDisableTableResult = "disableTable" -> ();
    THBaseServiceIsTableEnabledArgs / THBaseServiceIsTableEnabledResult = "isTableEnabled" -> bool;
    THBaseServiceAddColumnFamilyArgs / THBaseServiceAddColumnFamilyResult = "addColumnFamily" -> ();
    THBaseServiceDeleteColumnFamilyArgs / THBaseServiceDeleteColumnFamilyResult = "deleteColumnFamily" -> ();
    THBaseServiceModifyColumnFamilyArgs / THBaseServiceModifyColumnFamilyResult = "modifyColumnFamily" -> ();
    THBaseServiceCreateNamespaceArgs / THBaseServiceCreateNamespaceResult = "createNamespace" -> ();
    THBaseServiceDeleteNamespaceArgs / THBaseServiceDeleteNamespaceResult = "deleteNamespace" -> ();
    THBaseServiceGetNamespaceDescriptorArgs / THBaseServiceGetNamespaceDescriptorResult = "getNamespaceDescriptor" -> TNamespaceDescriptor;
    THBaseServiceListNamespacesArgs / THBaseServiceListNamespacesResult = "listNamespaces" -> Vec<String>;
    THBaseServiceGetThriftServerTypeArgs / THBaseServiceGetThriftServerTypeResult = "getThriftServerType" -> TThriftServerType;
}

/// A method whose one argument is a table's name.
pub(crate) trait ByName: Rpc + Sync {
    /// Its argument struct.
    fn named(table_name: TTableName) -> Self;
}

macro_rules! by_name {
    ($($args:ident),*) => {$(
        impl ByName for $args {
            fn named(table_name: TTableName) -> Self {
                $args { table_name }
            }
        }
    )*};
}

by_name!(
    THBaseServiceTableExistsArgs,
    THBaseServiceEnableTableArgs,
    THBaseServiceDisableTableArgs,
    THBaseServiceIsTableEnabledArgs,
    THBaseServiceDeleteTableArgs
);

/// Methods that return rows: their reply is the model's rows, read by [`rows::decode`] (the
/// generated reader followed by the shape's conversion when the reply is not a success), or
/// as it arrives by the shape's reader, if it has one ([`rows::PageReader`] for scanner pages
/// on an unframed connection).
macro_rules! row_rpcs {
    ($($args:ident / $result:ident = $method:literal -> $shape:ty;)*) => {$(
        impl Rpc for $args {
            const METHOD: &'static str = $method;
            type Reply = <$shape as Shape>::Reply;
            fn write(&self, o: &mut dyn TOutputProtocol) -> thrift::Result<()> {
                self.write_to_out_protocol(o)
            }
            fn read_reply(i: &mut dyn TInputProtocol) -> thrift::Result<Self::Reply> {
                $result::read_from_in_protocol(i)?.ok_or().and_then(<$shape>::convert)
            }
            fn decode_reply(protocol: WireProtocol, seq: i32, reply: &Bytes) -> Result<Self::Reply> {
                rows::decode::<$shape>(protocol, $method, seq, reply, || {
                    decode::<Self>(protocol, seq, reply)
                })
            }
            fn reader(protocol: WireProtocol, seq: i32, limit: usize) -> Option<rows::Arriving<Self::Reply>> {
                <$shape>::reader(protocol, $method, seq, limit)
            }
        }
    )*};
}

row_rpcs! {
    THBaseServiceGetArgs / THBaseServiceGetResult = "get" -> OneRow;
    THBaseServiceGetMultipleArgs / THBaseServiceGetMultipleResult = "getMultiple" -> RowPerGet;
    THBaseServiceIncrementArgs / THBaseServiceIncrementResult = "increment" -> OneRow;
    THBaseServiceAppendArgs / THBaseServiceAppendResult = "append" -> OneRow;
    THBaseServiceGetScannerRowsArgs / THBaseServiceGetScannerRowsResult = "getScannerRows" -> ScannedRows;
}

impl<R: Rpc + Sync> WireCall for R
where
    R::Reply: Send,
{
    type Reply = R::Reply;

    fn method(&self) -> &'static str {
        R::METHOD
    }

    fn encode(&self, protocol: WireProtocol, seq: i32, out: &mut Vec<u8>) -> thrift::Result<()> {
        wire::write_call(&mut *wire::output(protocol, out), R::METHOD, seq, |o| {
            self.write(o)
        })
    }

    fn decode(&self, protocol: WireProtocol, seq: i32, reply: &Bytes) -> Result<R::Reply> {
        R::decode_reply(protocol, seq, reply)
    }

    fn reader(
        &self,
        protocol: WireProtocol,
        seq: i32,
        max_reply_bytes: usize,
    ) -> Option<Box<dyn wire::ReplyReader<R::Reply>>> {
        R::reader(protocol, seq, max_reply_bytes)
    }
}

/// Reads the reply to an `R` call with the generated reader, classifying `THBaseService`'s
/// declared exceptions.
pub(crate) fn decode<R: Rpc>(protocol: WireProtocol, seq: i32, reply: &[u8]) -> Result<R::Reply> {
    wire::read_reply(
        &mut *wire::input(protocol, reply),
        R::METHOD,
        seq,
        R::read_reply,
    )
    .map_err(|e| wire::thrift_error(R::METHOD, e, |user| classify(R::METHOD, user)))
}

/// `TIOError` carries HBase's exception text (classified by [`Error::from_server`]);
/// `TIllegalArgument` a rejected argument.
fn classify(
    method: &'static str,
    user: &(dyn std::error::Error + Send + Sync + 'static),
) -> Option<Error> {
    if let Some(io) = user.downcast_ref::<TIOError>() {
        Some(Error::from_server(
            method,
            io.message.clone().unwrap_or_default(),
            io.can_retry.unwrap_or(false),
        ))
    } else {
        user.downcast_ref::<TIllegalArgument>()
            .map(|ia| Error::IllegalArgument {
                message: ia.message.clone().unwrap_or_default(),
            })
    }
}
