// `record_type(after = ...)` must name a key part, and `tag` is one byte.
use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "crm", family = "d", record_type(tag = 1, after = "customer_id"))]
struct Customer {
    #[hbase(key)]
    id: u64,
}

#[derive(HBaseEntity)]
#[hbase(table = "crm", family = "d", record_type(tag = 300))]
struct Order {
    #[hbase(key)]
    id: u64,
}

fn main() {}
