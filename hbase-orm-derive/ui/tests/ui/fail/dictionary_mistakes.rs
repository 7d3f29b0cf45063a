// `key(dictionary = ...)` misuse: with another encoding, an empty name, a field that is not a
// DictName, and `dictionary_table` on an entity without dictionary parts.
use hbase_orm::{DictName, HBaseEntity};

#[derive(HBaseEntity)]
#[hbase(table = "logs", family = "d")]
struct Logs {
    #[hbase(key(dictionary = "hosts", fixed = 8))]
    host: DictName,
    #[hbase(key(dictionary = ""))]
    event: DictName,
    #[hbase(key(dictionary = "users"))]
    user: String,
}

#[derive(HBaseEntity)]
#[hbase(table = "plain", family = "d", dictionary_table = "names")]
struct Plain {
    #[hbase(key)]
    id: u64,
}

fn main() {}
