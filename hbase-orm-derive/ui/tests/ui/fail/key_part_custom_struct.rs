use hbase_orm::HBaseEntity;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct CustomerId(u32);

#[derive(HBaseEntity)]
#[hbase(table = "orders", family = "d")]
struct Order {
    #[hbase(key)]
    customer: CustomerId,
    total: f64,
}

fn main() {}
