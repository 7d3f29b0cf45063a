// A table template needs `table_time` naming a key part; `table_time` needs a template.
use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "tx_{yyyyMMdd}", family = "d")]
struct NoTime {
    #[hbase(key)]
    ts: i64,
}

#[derive(HBaseEntity)]
#[hbase(table = "tx", family = "d", table_time = "ts")]
struct NoTemplate {
    #[hbase(key)]
    ts: i64,
}

#[derive(HBaseEntity)]
#[hbase(table = "tx_{yyyyMMdd}", family = "d", table_time = "time")]
struct NoSuchPart {
    #[hbase(key)]
    ts: i64,
}

#[derive(HBaseEntity)]
#[hbase(table = "tx_{yyyy-MM}", family = "d", table_time = "ts")]
struct BadPlaceholder {
    #[hbase(key)]
    ts: i64,
}

#[derive(HBaseEntity)]
#[hbase(table = "tx_{yyyyMM}", family = "d", table_time = "ts")]
struct MonthlyWithTimeOfDay {
    #[hbase(key(codec = hbase_orm::rowkey::MillisOfDay))]
    ts: i64,
}

fn main() {}
