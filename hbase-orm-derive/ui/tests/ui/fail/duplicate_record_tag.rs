use hbase_orm::{HBaseEntity, HBaseRecord};

#[derive(HBaseEntity)]
#[hbase(table = "crm", family = "d", record_type(tag = 1, after = "id"))]
struct Customer {
    #[hbase(key)]
    id: u64,
    name: String,
}

#[derive(HBaseEntity)]
#[hbase(table = "crm", family = "d", record_type(tag = 1, after = "customer"))]
struct Order {
    #[hbase(key)]
    customer: u64,
    #[hbase(key)]
    number: u32,
    total: i64,
}

#[derive(HBaseRecord)]
enum Record {
    Customer(Customer),
    Order(Order),
}

fn main() {}
