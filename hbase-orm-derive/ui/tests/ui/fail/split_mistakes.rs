// `split(...)` takes exactly one of salt, key, uniform; `split(salt)` needs a salt.
use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "a", family = "d", split(salt))]
struct NoSalt {
    #[hbase(key)]
    id: u64,
}

#[derive(HBaseEntity)]
#[hbase(table = "b", family = "d", split(uniform = 4, key = "m"))]
struct TwoKinds {
    #[hbase(key)]
    id: u64,
}

#[derive(HBaseEntity)]
#[hbase(table = "c", family = "d", split())]
struct Nothing {
    #[hbase(key)]
    id: u64,
}

fn main() {}
