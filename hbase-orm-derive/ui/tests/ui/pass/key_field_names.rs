// Key fields named like the locals of the generated key functions still compile.
use hbase_orm::entity::{EntityKey, Scalar};
use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "t", family = "d", key_delimiter = '\0')]
struct Named {
    #[hbase(key)]
    part_1: String,
    #[hbase(key)]
    part_0: u32,
    #[hbase(key)]
    parts: String,
    value: u8,
}

fn main() {
    let prefix = NamedKey::prefix_of(&["a".into(), Scalar::UInt(7)]).unwrap().unwrap();
    assert_eq!(prefix.bytes, b"a\0\0\0\0\x07");
    let _ = Named { part_1: String::new(), part_0: 0, parts: String::new(), value: 0 };
}
