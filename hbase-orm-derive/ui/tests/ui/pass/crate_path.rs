// `crate = "..."`: the derive names the library through the given path, for crates that reach
// it through a re-export.
#![deny(warnings)]

mod reexport {
    pub use hbase_orm as orm;
}

use reexport::orm::{HBaseEntity, HBaseRecord, RecordSet};

#[derive(HBaseEntity)]
#[hbase(crate = "hbase_orm", table = "direct", family = "d")]
struct Direct {
    #[hbase(key)]
    id: u32,
    name: String,
}

#[derive(HBaseEntity)]
#[hbase(crate = "reexport::orm", table = "via", family = "d")]
struct Via {
    #[hbase(key)]
    id: u32,
    #[hbase(json)]
    names: Vec<String>,
}

#[derive(HBaseEntity)]
#[hbase(crate = "reexport::orm", table = "crm", family = "d", record_type(tag = 1))]
struct Tagged {
    #[hbase(key)]
    id: u32,
}

#[derive(HBaseRecord)]
#[hbase(crate = "reexport::orm")]
enum Records {
    Tagged(Tagged),
}

fn main() {
    assert_eq!(Records::table_name().to_string(), "crm");
    let d = Direct {
        id: 1,
        name: "x".into(),
    };
    assert_eq!(d.row_key().unwrap(), [0, 0, 0, 1]);
    let v = Via {
        id: 2,
        names: vec!["a".into()],
    };
    assert_eq!(v.to_put().unwrap().cells[0].value[..], br#"["a"]"#[..]);
    assert_eq!(DirectKey { id: 1 }, d.key());
    assert_eq!(ViaKey { id: 2 }, v.key());
}
