//! Every public path a user can name for the entity layer, as the docs list them: the crate
//! root's re-exports and the modules `entity`, `records`, `codec` and `rowkey`. It compiles
//! against the library as long as none of them moves away.

#![allow(unused_imports, dead_code)]

// The crate root.
use hbase_orm::{
    codec, records, rowkey, CellVersions, Codec, ColumnGroup, Counter, DictName, Dictionary, EntityKey, EntityScan,
    HBaseColumns, HBaseEntity, HBaseRecord, Index, IndexRepair, IndexScan, Json, KeyPrefix, KeyRef,
    Native, Page, ReadOptions, RecordSet, Records, Repository, Value, Versioned, Versions,
    WideMap, WidePage, WideSlice,
};

// `hbase_orm::entity`: the contract with the derive and the types it names.
use hbase_orm::entity::{
    encode_key, key_prefix, CellReader, CellWriter, ColumnDef, ColumnKind, CounterRef, DictionaryId,
    Field, FieldError, FieldResult, FieldSet, KeyField, GroupReader, GroupWriter, IndexDef, KeyPartDef, NoKey, WideField,
};
use hbase_orm::entity::{
    ColumnGroup as EntityColumnGroup, EntityKey as EntityEntityKey,
    HBaseEntity as EntityHBaseEntity, Index as EntityIndex, IndexRepair as EntityIndexRepair,
    IndexScan as EntityIndexScan, Versioned as EntityVersioned, Versions as EntityVersions,
};
use hbase_orm::entity::{codec as entity_codec, records as entity_records, rowkey as entity_rowkey};

// `hbase_orm::records` (also `hbase_orm::entity::records`).
use hbase_orm::entity::records::{
    columns_of as entity_columns_of, max_versions_of as entity_max_versions_of,
    same_str as entity_same_str, RecordSet as EntityRecordSet, Records as EntityRecords,
};
use hbase_orm::records::{columns_of, max_versions_of, same_str};

// `hbase_orm::codec` (also `hbase_orm::entity::codec`).
use hbase_orm::codec::{
    Counter as CodecCounter, Json as CodecJson, KeyRef as CodecKeyRef, Native as CodecNative,
};
use hbase_orm::entity::codec::{Codec as EntityCodec, Value as EntityValue};

// `hbase_orm::rowkey` (also `hbase_orm::entity::rowkey`).
use hbase_orm::entity::rowkey::KeyPrefix as EntityKeyPrefix;
use hbase_orm::rowkey::{
    hash_bucket, md5, md5_hex_prefix, modulo_bucket, salt_split_keys, uniform_split_keys,
    FixedText, KeyCodec, KeyError, KeyKind, KeyPart, KeyReader, KeyWriter, Md5, MillisOfDay,
    MinuteOfDay, Ordered, Raw, ReverseTimestamp, ReversedText, Utf8,
};

fn main() {}
