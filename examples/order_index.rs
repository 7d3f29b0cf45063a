//! # Multi-condition queries through index tables
//!
//! HBase finds rows by row key only: a query by creation time or by city over an order table
//! keyed by order id would scan the whole table. The design shown here (table design notes,
//! `order` / `order_item`) keeps, next to the order table, an index table whose row key is the
//! query's conditions followed by the order id, `[create_time]_[order_id]_[city_id]`, and
//! whose one cell points at the order's row. A time range is then one contiguous slice of the
//! index table.
//!
//! Declared here with `#[hbase(index(...))]`:
//! - `by_time` (`created, id, city`): the notes' layout; answers a time range directly.
//!   The city can only be checked after reading every order in the range.
//! - `by_city` (`city, created, id`): equality first, then the range; "city X between t0 and
//!   t1" is one contiguous slice.
//!
//! The order table itself is keyed by the order id with its characters reversed
//! (`key(reversed)`), so sequential ids start with different bytes and spread over regions.
//!
//! Trade-offs: every save reads the stored order first (to find its old index rows) and
//! writes one row per index; HBase has no cross-row transactions, so index rows can be left
//! behind (a crash, or a writer that bypasses the library). Readers skip index rows that do
//! not match the order they point at, and `rebuild_index` repairs an index from the data.
//! An index led by the creation time takes all new writes in its last region; that is the
//! price of the time-ordered layout (salting the index is not declarable).
//!
//! Run it against the local HBase: `hbase-local/hbase.sh up && cargo run --example order_index`.

use std::process::ExitCode;

use futures::TryStreamExt;
use hbase_orm::{
    printable_key, Client, Delete, Get, HBaseEntity, Index, IndexRepair, Repository, Scan,
};
use hbase_orm_suite::example::Example;
use hbase_orm_suite::row_keys;

/// An order, keyed by its reversed id, with two secondary indexes.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    namespace = "example",
    table = "order_index_orders",
    family = "d",
    key_delimiter = '\0',
    index(name = "by_time", parts = "created, id, city"),
    index(name = "by_city", parts = "city, created, id")
)]
struct Order {
    /// The order id, stored reversed in the row key.
    #[hbase(key(reversed))]
    id: String,
    /// Creation time, milliseconds since the epoch.
    #[hbase(rename = "t")]
    created: i64,
    /// The city's id.
    #[hbase(rename = "c")]
    city: u32,
    #[hbase(rename = "u")]
    user: u64,
    #[hbase(rename = "a")]
    amount_cents: i64,
}

/// 2026-03-02 00:00:00 UTC.
const BASE: i64 = 1_772_409_600_000;
const HOUR: i64 = 3_600_000;

const BEIJING: u32 = 10;
const GUANGZHOU: u32 = 20;
const SHANGHAI: u32 = 21;

/// The start of day `d` (0 = 2026-03-02).
fn day(d: i64) -> i64 {
    BASE + d * 24 * HOUR
}

fn order(id: u32, d: i64, hour: i64, city: u32) -> Order {
    Order {
        id: id.to_string(),
        created: day(d) + hour * HOUR,
        city,
        user: u64::from(id % 4),
        amount_cents: i64::from(id % 7) * 1_000 + 500,
    }
}

fn ids(orders: &[Order]) -> Vec<String> {
    orders.iter().map(|o| o.id.clone()).collect()
}

fn strs(ids: &[&str]) -> Vec<String> {
    ids.iter().map(|s| s.to_string()).collect()
}

/// Orders created in `[from, until)`, through `by_time`.
async fn by_time(
    orders: &Repository<Order>,
    from: i64,
    until: i64,
) -> hbase_orm::Result<Vec<Order>> {
    let start = OrderByTimeKey {
        created: from,
        id: String::new(),
        city: 0,
    };
    let stop = OrderByTimeKey {
        created: until,
        id: String::new(),
        city: 0,
    };
    orders
        .index::<OrderByTime>()
        .range(&start, &stop)
        .stream()
        .try_collect()
        .await
}

/// Orders of `city` created in `[from, until)`, through `by_city`.
async fn by_city_between(
    orders: &Repository<Order>,
    city: u32,
    from: i64,
    until: i64,
) -> hbase_orm::Result<Vec<Order>> {
    let start = OrderByCityKey {
        city,
        created: from,
        id: String::new(),
    };
    let stop = OrderByCityKey {
        city,
        created: until,
        id: String::new(),
    };
    orders
        .index::<OrderByCity>()
        .range(&start, &stop)
        .stream()
        .try_collect()
        .await
}

/// Every order of `city`, oldest first, through `by_city`.
async fn by_city(orders: &Repository<Order>, city: u32) -> hbase_orm::Result<Vec<Order>> {
    orders
        .index::<OrderByCity>()
        .prefix(OrderByCityKey::prefix_by_city(&city)?)
        .stream()
        .try_collect()
        .await
}

/// Rows of the data table and of both index tables, read with the raw client.
async fn row_counts(ex: &Example) -> (usize, usize, usize) {
    let client = ex.client();
    let count = |name| async move { row_keys(&client.table_named(name), Scan::new()).await.len() };
    (
        count(Order::table_name()).await,
        count(OrderByTime::def().table_name()).await,
        count(OrderByCity::def().table_name()).await,
    )
}

/// Whether index `I` holds a row for `order` as it is now, pointing at its data row.
async fn index_row_of<I: Index<Entity = Order>>(
    ex: &Example,
    order: &Order,
) -> hbase_orm::Result<bool> {
    let def = I::def();
    // Every part of these indexes is required: each order has its row.
    let Some(index_key) = def.key_of(order)? else {
        return Ok(false);
    };
    let row = ex
        .client()
        .table_named(def.table_name())
        .get(Get::new(index_key))
        .await?;
    let points_at = row.and_then(|r| r.value("i", "r").map(<[u8]>::to_vec));
    Ok(points_at == Some(order.row_key()?))
}

async fn run(ex: &mut Example) -> hbase_orm::Result<()> {
    let orders = ex.fresh::<Order>().await;
    let all = vec![
        order(10001, 0, 9, BEIJING),
        order(10002, 0, 14, SHANGHAI),
        order(10003, 0, 20, BEIJING),
        order(10004, 1, 8, GUANGZHOU),
        order(10005, 1, 11, BEIJING),
        order(10006, 1, 15, SHANGHAI),
        order(10007, 1, 19, BEIJING),
        order(10008, 2, 9, SHANGHAI),
        order(10009, 2, 12, BEIJING),
        order(10010, 2, 16, GUANGZHOU),
        order(10011, 3, 10, BEIJING),
        order(10012, 3, 18, SHANGHAI),
    ];
    orders.save_all(&all).await?;
    ex.say(format!(
        "\nSaved {} orders (4 days, 3 cities); each save also wrote one row per index.",
        all.len()
    ));
    let sample = &all[3];
    ex.say(format!(
        "order {}: data row {}, by_time row {}, by_city row {}",
        sample.id,
        printable_key(&sample.row_key()?),
        printable_key(&OrderByTime::def().key_of(sample)?.unwrap_or_default()),
        printable_key(&OrderByCity::def().key_of(sample)?.unwrap_or_default()),
    ));
    ex.check_eq(
        "12 data rows, 12 rows in each index",
        row_counts(ex).await,
        (12, 12, 12),
    );
    let data_keys = row_keys(orders.table(), Scan::new()).await;
    let first_bytes: std::collections::BTreeSet<u8> = data_keys.iter().map(|k| k[0]).collect();
    ex.say(format!(
        "Reversed ids: the 12 sequential ids start with {} different bytes in the data table.",
        first_bytes.len()
    ));
    ex.check(
        "sequential ids are spread by their reversed key",
        first_bytes.len() >= 9,
    );

    ex.say("\nA time range is one slice of by_time, in creation order:");
    let day1 = by_time(&orders, day(1), day(2)).await?;
    ex.say(format!("  created on 2026-03-03: {:?}", ids(&day1)));
    ex.check_eq(
        "by_time [day 1, day 2) gives the day's orders oldest first",
        ids(&day1),
        strs(&["10004", "10005", "10006", "10007"]),
    );

    ex.say("\nCity AND time range: by_time must read the whole range and drop other cities;");
    ex.say("by_city (equality part first, range part second) reads only the matches:");
    let range = by_time(&orders, day(1), day(3)).await?;
    let read_by_time = range.len();
    let filtered: Vec<Order> = range.into_iter().filter(|o| o.city == BEIJING).collect();
    let direct = by_city_between(&orders, BEIJING, day(1), day(3)).await?;
    ex.say(format!(
        "  Beijing, days 1-2: by_time read {read_by_time} orders, kept {:?}; by_city read {}",
        ids(&filtered),
        direct.len()
    ));
    ex.check_eq(
        "Beijing on days 1-2 through by_city",
        ids(&direct),
        strs(&["10005", "10007", "10009"]),
    );
    ex.check_eq("both indexes agree", ids(&direct), ids(&filtered));
    ex.check_eq(
        "by_time had to read 7 orders for 3 matches",
        read_by_time,
        7,
    );
    let shanghai = by_city(&orders, SHANGHAI).await?;
    ex.check_eq(
        "every Shanghai order, oldest first (by_city prefix)",
        ids(&shanghai),
        strs(&["10002", "10006", "10008", "10012"]),
    );
    ex.check_eq(
        "orders come back whole",
        shanghai.first().cloned(),
        Some(all[1].clone()),
    );

    ex.say("\nUpdate of an indexed field: order 10006 moves from Shanghai to Guangzhou.");
    let before = all[5].clone();
    let mut moved = before.clone();
    moved.city = GUANGZHOU;
    orders.update(&mut moved).await?;
    ex.check(
        "its old by_time row is gone",
        !index_row_of::<OrderByTime>(ex, &before).await?
            && index_row_of::<OrderByTime>(ex, &moved).await?,
    );
    ex.check(
        "its old by_city row is gone, the new one points at the order",
        !index_row_of::<OrderByCity>(ex, &before).await?
            && index_row_of::<OrderByCity>(ex, &moved).await?,
    );
    ex.check_eq(
        "still 12 rows in each table",
        row_counts(ex).await,
        (12, 12, 12),
    );
    ex.check_eq(
        "Shanghai no longer lists it",
        ids(&by_city(&orders, SHANGHAI).await?),
        strs(&["10002", "10008", "10012"]),
    );
    ex.check_eq(
        "Guangzhou does",
        ids(&by_city(&orders, GUANGZHOU).await?),
        strs(&["10004", "10006", "10010"]),
    );

    ex.say("\nDelete through the repository: order 10003 and its index rows go.");
    orders.delete(&OrderKey { id: "10003".into() }).await?;
    ex.check_eq("11 rows in each table", row_counts(ex).await, (11, 11, 11));
    ex.check(
        "no index row of 10003 is left",
        !index_row_of::<OrderByTime>(ex, &all[2]).await?
            && !index_row_of::<OrderByCity>(ex, &all[2]).await?,
    );

    ex.say("\nA dangling index row: order 10009's data row is deleted with the raw client,");
    ex.say("behind the library's back; its index rows stay.");
    orders
        .table()
        .delete(Delete::new(all[8].row_key()?))
        .await?;
    ex.check_eq(
        "10 data rows, 11 rows in each index",
        row_counts(ex).await,
        (10, 11, 11),
    );
    ex.check_eq(
        "by_time for day 2 skips the dangling row",
        ids(&by_time(&orders, day(2), day(3)).await?),
        strs(&["10008", "10010"]),
    );
    ex.check_eq(
        "by_city Beijing skips it too",
        ids(&by_city(&orders, BEIJING).await?),
        strs(&["10001", "10005", "10007", "10011"]),
    );
    let repaired = (
        orders.rebuild_index::<OrderByTime>().await?,
        orders.rebuild_index::<OrderByCity>().await?,
    );
    ex.say(format!("rebuild_index: {repaired:?}"));
    let one_removed = IndexRepair {
        indexed: 10,
        removed: 1,
    };
    ex.check_eq(
        "each rebuild indexed 10 orders and removed 1 row",
        repaired,
        (one_removed, one_removed),
    );
    ex.check_eq(
        "10 rows in each table again",
        row_counts(ex).await,
        (10, 10, 10),
    );

    ex.say("\nA stale index row: order 10011 is rewritten with the raw client (Beijing ->");
    ex.say("Shanghai), so no index knows its new city.");
    let stale = all[10].clone();
    let rewritten = Order {
        city: SHANGHAI,
        ..stale.clone()
    };
    orders.table().put(rewritten.to_put()?).await?;
    ex.check(
        "Beijing does not return it (its index row no longer matches the order)",
        !ids(&by_city(&orders, BEIJING).await?).contains(&stale.id),
    );
    ex.check(
        "Shanghai does not find it yet (no index row)",
        !ids(&by_city(&orders, SHANGHAI).await?).contains(&stale.id),
    );
    ex.check_eq(
        "by_time for day 3 drops it too (the city is part of its by_time key)",
        ids(&by_time(&orders, day(3), day(4)).await?),
        strs(&["10012"]),
    );
    let repaired = (
        orders.rebuild_index::<OrderByTime>().await?,
        orders.rebuild_index::<OrderByCity>().await?,
    );
    ex.say(format!("rebuild_index: {repaired:?}"));
    ex.check_eq(
        "each rebuild removed the stale row",
        repaired,
        (one_removed, one_removed),
    );
    ex.check_eq(
        "Shanghai finds it after the rebuild",
        ids(&by_city(&orders, SHANGHAI).await?),
        strs(&["10002", "10008", "10011", "10012"]),
    );
    ex.check_eq(
        "by_time for day 3 has it again",
        ids(&by_time(&orders, day(3), day(4)).await?),
        strs(&["10011", "10012"]),
    );
    ex.check_eq("10 rows in each table", row_counts(ex).await, (10, 10, 10));
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    let mut ex = Example::start(
        "order_index",
        "Orders keyed by their reversed id (sequential ids spread over regions). HBase finds rows\n\
         by key only, so each query condition gets an index table whose key leads with it:\n\
         by_time [create_time][order_id][city_id] turns a time range into one key range;\n\
         by_city [city_id][create_time][order_id] does the same for \"city X between t0 and t1\".\n\
         The library keeps both in step on save and delete; readers skip rows left behind.",
        Client::from_env().await,
    )
    .await;
    let ran = run(&mut ex).await;
    ex.ran("the example", ran);
    ex.advice::<Order>(&[]);
    ex.finish()
}
