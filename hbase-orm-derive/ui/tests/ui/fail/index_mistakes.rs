// Misuse of `index(...)`: a bad name, a name twice, a part that is no field, a counter part,
// a missing row-key part, an md5 key part, a bad table name, an index on per-day tables.
use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(
    table = "orders",
    family = "d",
    index(name = "by time", parts = "id"),
    index(name = "by_city", parts = "city, id"),
    index(name = "by_city", parts = "id, city"),
    index(name = "by_nothing", parts = "nothing, id"),
    index(name = "by_views", parts = "views, id"),
    index(name = "by_total", parts = "total"),
    index(name = "by_x", parts = "id", table = "a:b")
)]
struct Order {
    #[hbase(key)]
    id: u64,
    city: u32,
    total: i64,
    note: Option<String>,
    #[hbase(counter)]
    views: i64,
}

#[derive(HBaseEntity)]
#[hbase(table = "users", family = "d", index(name = "by_user", parts = "user"))]
struct Hashed {
    #[hbase(key(md5))]
    user: String,
}

#[derive(HBaseEntity)]
#[hbase(table = "tx_{yyyyMMdd}", table_time = "ts", family = "d", index(name = "by_ts", parts = "ts"))]
struct Daily {
    #[hbase(key)]
    ts: i64,
}

fn main() {}
