// `#[derive(HBaseRecord)]` misuse the compiler finds on the generated code: an entity in
// another table, an entity without a record-type tag.
use hbase_orm::{HBaseEntity, HBaseRecord};

#[derive(HBaseEntity)]
#[hbase(table = "crm", family = "d", record_type(tag = 1))]
struct Customer {
    #[hbase(key)]
    id: u64,
}

#[derive(HBaseEntity)]
#[hbase(table = "other", family = "d", record_type(tag = 2))]
struct Elsewhere {
    #[hbase(key)]
    id: u64,
}

#[derive(HBaseEntity)]
#[hbase(table = "crm", family = "d")]
struct Untagged {
    #[hbase(key)]
    id: u64,
}

#[derive(HBaseRecord)]
enum Record {
    Customer(Customer),
    Elsewhere(Elsewhere),
    Untagged(Untagged),
}

fn main() {}
