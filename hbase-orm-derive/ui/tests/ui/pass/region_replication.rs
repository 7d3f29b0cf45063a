// `region_replication = N` sets the replicas per region of the table the entity's schema
// creates; without it the table has none (1). The index tables keep 1.
use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(
    table = "sessions",
    family = "d",
    region_replication = 3,
    index(name = "by_user", parts = "user, id")
)]
struct Session {
    #[hbase(key)]
    id: u64,
    user: u64,
}

#[derive(HBaseEntity)]
#[hbase(table = "widest", family = "d", region_replication = 65536)]
struct Widest {
    #[hbase(key)]
    id: u64,
}

#[derive(HBaseEntity)]
#[hbase(table = "plain", family = "d")]
struct Plain {
    #[hbase(key)]
    id: u64,
}

fn main() {
    assert_eq!(Session::REGION_REPLICATION, 3);
    assert_eq!(Session::schema().descriptor.region_replication, 3);
    let other = hbase_orm::TableName::new("run1", "sessions");
    assert_eq!(Session::schema_for(other).descriptor.region_replication, 3);
    let indexes = Session::index_schemas();
    assert_eq!(indexes.len(), 1);
    assert_eq!(indexes[0].descriptor.region_replication, 1);

    assert_eq!(
        Widest::schema().descriptor.region_replication,
        hbase_orm::TableDescriptor::MAX_REGION_REPLICATION
    );
    assert_eq!(Plain::REGION_REPLICATION, 1);
    assert_eq!(Plain::schema().descriptor.region_replication, 1);
}
