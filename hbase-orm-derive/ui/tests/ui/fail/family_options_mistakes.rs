// `family_options(...)`: an unknown option, an unknown compression name, a value of the wrong
// type, a family declared twice, and something that is not `family(option = value)`.
use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "a", family = "d", family_options(d(max_version = 3)))]
struct UnknownOption {
    #[hbase(key)]
    id: u64,
}

#[derive(HBaseEntity)]
#[hbase(table = "b", family = "d", family_options(d(compression = "gzip")))]
struct UnknownCompression {
    #[hbase(key)]
    id: u64,
}

#[derive(HBaseEntity)]
#[hbase(table = "c", family = "d", family_options(d(in_memory = 1)))]
struct WrongType {
    #[hbase(key)]
    id: u64,
}

#[derive(HBaseEntity)]
#[hbase(table = "e", family = "d", family_options(d(ttl = 60), d(max_versions = 2), x, d(ttl)))]
struct Twice {
    #[hbase(key)]
    id: u64,
}

fn main() {}
