use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "t", family = "d")]
struct Clash {
    #[hbase(rename = "user")]
    other: String,
    #[hbase(key(md5 = 4))]
    user: String,
}

fn main() {}
