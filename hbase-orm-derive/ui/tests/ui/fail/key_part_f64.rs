use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "readings", family = "d")]
struct Reading {
    #[hbase(key)]
    value: f64,
    unit: String,
}

fn main() {}
