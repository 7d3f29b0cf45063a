use hbase_orm::HBaseEntity;

#[derive(HBaseEntity, Debug, PartialEq, Clone)]
#[hbase(
    namespace = "shop",
    table = "orders",
    family = "d",
    key_delimiter = '|'
)]
struct Order {
    #[hbase(key)]
    customer: String,
    #[hbase(key)]
    number: u64,
    #[hbase(rename = "t")]
    total: f64,
    notes: Option<String>,
    #[hbase(family = "x", json)]
    lines: Vec<String>,
    #[hbase(default)]
    flags: u32,
    #[hbase(skip)]
    cache: u8,
}

#[test]
fn round_trip() {
    let o = Order {
        customer: "c1".into(),
        number: 7,
        total: 9.5,
        notes: None,
        lines: vec!["a".into()],
        flags: 3,
        cache: 9,
    };
    let put = o.to_put().unwrap();
    assert_eq!(put.row, b"c1|\0\0\0\0\0\0\0\x07");
    let row = hbase_orm::Row {
        key: put.row.clone(),
        cells: put
            .cells
            .iter()
            .map(|c| hbase_orm::Cell {
                family: c.family.clone(),
                qualifier: c.qualifier.clone(),
                value: c.value.clone(),
                timestamp: 1,
            })
            .collect(),
    };
    let back = Order::from_row(row).unwrap();
    assert_eq!(
        back,
        Order {
            cache: 0,
            ..o.clone()
        }
    );
    let m = o.to_mutations().unwrap();
    assert_eq!(m.mutations.len(), 2);
    assert_eq!(
        OrderKey::prefix_by_customer(&"c1".to_string()).unwrap().0,
        b"c1|"
    );
}
