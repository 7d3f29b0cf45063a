// Fields in several column families; `FAMILIES` lists them in first-use order.
#![deny(warnings)]

use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "users", family = "d")]
struct User {
    #[hbase(key)]
    id: u64,
    name: String,
    #[hbase(family = "stats")]
    logins: u64,
    #[hbase(family = "stats", rename = "last")]
    last_login: Option<i64>,
    email: String,
    #[hbase(family = "blob", json)]
    settings: Vec<(String, String)>,
    // The same qualifier in another family is another column.
    #[hbase(family = "stats", rename = "name")]
    name_changes: u32,
}

// No struct family: every field names its own.
#[derive(HBaseEntity)]
#[hbase(table = "split")]
struct Split {
    #[hbase(key)]
    id: u64,
    #[hbase(family = "a")]
    x: i32,
    #[hbase(family = "b")]
    y: i32,
}

fn main() {
    assert_eq!(User::FAMILIES, &["d", "stats", "blob"]);
    assert_eq!(User::COLUMNS.len(), 6);
    assert_eq!(User::column_index(b"stats", b"name"), Some(5));
    assert_eq!(User::column_index(b"d", b"name"), Some(0));
    assert_eq!(User::column_index(b"stats", b"last"), Some(2));
    assert_eq!(User::column_index(b"stats", b"last_login"), None);
    let u = User {
        id: 1,
        name: "ada".into(),
        logins: 3,
        last_login: None,
        email: "a@b".into(),
        settings: vec![("k".into(), "v".into())],
        name_changes: 0,
    };
    let put = u.to_put().unwrap();
    assert_eq!(put.cells.len(), 5);
    assert!(put
        .cells
        .iter()
        .any(|c| c.family == &b"blob"[..] && c.qualifier == &b"settings"[..]));

    assert_eq!(Split::FAMILIES, &["a", "b"]);
    assert_eq!(Split { id: 1, x: 1, y: 2 }.to_put().unwrap().cells.len(), 2);
}
