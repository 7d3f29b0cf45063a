//! The messages the codecs write: an entity table (logical plans) and its scan (physical
//! plans), in an envelope that also carries the bytes of the codec they wrap for every other
//! node. Protobuf, by prost's derive; the tags below are the format and never change meaning.

use datafusion_proto::protobuf::LogicalExprNode;

/// Which entity, which table, through which client.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct EntityRef {
    /// The entity's name in the registry ([`EntityRegistry::add`](crate::EntityRegistry::add)).
    #[prost(string, tag = "1")]
    pub entity: String,
    /// What the entity's declaration looks like to SQL, hashed (see `registry::fingerprint`).
    #[prost(uint64, tag = "2")]
    pub fingerprint: u64,
    /// The table read (`namespace:table`, or `table` in the default namespace).
    #[prost(string, tag = "3")]
    pub table: String,
    /// The name of the client in the registry; each process connects its own.
    #[prost(string, tag = "4")]
    pub client: String,
}

/// [`hbase_orm_sql::ReadSettings`].
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct ReadSettings {
    #[prost(int32, optional, tag = "1")]
    pub page_size: Option<i32>,
    #[prost(bool, tag = "2")]
    pub whole_families: bool,
    #[prost(bool, tag = "3")]
    pub whole_regions: bool,
    #[prost(bool, tag = "4")]
    pub one_partition: bool,
}

/// The bulk load of an `INSERT` (`hbase_orm::BulkLoadSettings`; its progress callback stays
/// in the process that registered the table).
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct BulkLoad {
    #[prost(string, optional, tag = "1")]
    pub staging_dir: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub hdfs_dir: Option<String>,
    #[prost(uint64, tag = "3")]
    pub attempts: u64,
    #[prost(uint64, tag = "4")]
    pub memory_budget: u64,
}

/// An entity table: a logical plan's table scan and an `INSERT`'s target.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct EntityTableNode {
    #[prost(message, optional, tag = "1")]
    pub entity: Option<EntityRef>,
    #[prost(message, optional, tag = "2")]
    pub settings: Option<ReadSettings>,
    /// Present when its `INSERT` is a bulk load.
    #[prost(message, optional, tag = "3")]
    pub bulk: Option<BulkLoad>,
}

/// [`hbase_orm_sql::EntityScanExec`], but for its input (the key spans), which travels as the
/// node's child.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct EntityScanNode {
    #[prost(message, optional, tag = "1")]
    pub table: Option<EntityTableNode>,
    /// The columns read, when `all_columns` is false.
    #[prost(uint32, repeated, tag = "2")]
    pub projection: Vec<u32>,
    #[prost(bool, tag = "3")]
    pub all_columns: bool,
    /// The conditions pushed to the scan, as DataFusion writes expressions.
    #[prost(message, repeated, tag = "4")]
    pub filters: Vec<LogicalExprNode>,
    #[prost(uint64, optional, tag = "5")]
    pub limit: Option<u64>,
    #[prost(uint64, tag = "6")]
    pub batch_size: u64,
}

/// The writes of an `INSERT` into an entity table, each partition of its input apart (its
/// input, the query's rows, travels as the node's child).
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct EntityWriteNode {
    #[prost(message, optional, tag = "1")]
    pub table: Option<EntityTableNode>,
}

/// What a codec of this crate writes for any node.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct Envelope {
    #[prost(oneof = "envelope::Node", tags = "1, 2, 3, 4")]
    pub node: Option<envelope::Node>,
}

/// The nodes of an [`Envelope`].
pub(crate) mod envelope {
    /// One node.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub(crate) enum Node {
        /// A node of the wrapped codec, as it wrote it.
        #[prost(bytes, tag = "1")]
        Inner(Vec<u8>),
        /// An entity table.
        #[prost(message, tag = "2")]
        Table(super::EntityTableNode),
        /// A scan of one.
        #[prost(message, tag = "3")]
        Scan(super::EntityScanNode),
        /// The writes of an `INSERT` into one.
        #[prost(message, tag = "4")]
        Write(super::EntityWriteNode),
    }
}
