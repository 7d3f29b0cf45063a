// `key_separator` (between every two parts) and `key_delimiter` (after variable-length parts)
// exclude each other, and a separator is one ASCII character.
use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "a", family = "d", key_delimiter = '|', key_separator = '.')]
struct Both {
    #[hbase(key)]
    a: u16,
    #[hbase(key)]
    b: u16,
}

#[derive(HBaseEntity)]
#[hbase(table = "b", family = "d", key_separator = 'é')]
struct NotAscii {
    #[hbase(key)]
    a: u16,
}

fn main() {}
