// `#[derive(HBaseRecord)]` misuse found by the derive: not an enum, variants that do not hold
// exactly one entity, a generic enum, an unknown attribute.
use hbase_orm::HBaseRecord;

#[derive(HBaseRecord)]
struct NotAnEnum {
    id: u64,
}

#[derive(HBaseRecord)]
#[hbase(crate = "hbase_orm", tagged)]
enum Shapes {
    Unit,
    Two(u64, u64),
    Named { id: u64 },
}

#[derive(HBaseRecord)]
enum Generic<T> {
    One(T),
}

#[derive(HBaseRecord)]
enum Empty {}

fn main() {}
