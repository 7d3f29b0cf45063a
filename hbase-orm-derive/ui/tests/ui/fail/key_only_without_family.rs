use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "edges", key_delimiter = '|')]
struct Edge {
    #[hbase(key)]
    from: String,
    #[hbase(key)]
    to: String,
}

fn main() {}
