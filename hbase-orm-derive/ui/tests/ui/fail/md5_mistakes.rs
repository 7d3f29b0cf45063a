// `key(md5 = N)` keeps 1 to 16 bytes, and an md5 part needs the struct's family to store its
// value in.
use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "a", family = "d")]
struct TooLong {
    #[hbase(key(md5 = 20))]
    user: String,
}

#[derive(HBaseEntity)]
#[hbase(table = "b")]
struct NoFamily {
    #[hbase(key(md5 = 4))]
    user: String,
    #[hbase(family = "d")]
    name: String,
}

fn main() {}
