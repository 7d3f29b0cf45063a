//! Per-user list data, the HBase reference guide's "list data" case study: a user's list of
//! `(value id, value)` pairs stored three ways, and read the way the application reads them,
//! 30 at a time, usually only the first 30.
//!
//! - tall: one row per user and value, `[user][value id]`: the first 30 are a prefix scan with
//!   a limit, the next 30 the same scan resumed after the last key. The guide's advice.
//! - wide: one row per user, one column per value (the qualifier is the value id): pages are
//!   column ranges of one row (`ColumnRangeFilter` + `ColumnPaginationFilter`).
//! - middle: one row per user and page of 30 values packed into one cell with the next page's
//!   number (the question's own paged design): a page is one `Get`, but inserting a value
//!   moves every later value, so every later page is rewritten.
//!
//! It runs each for a user with 30 values and one with 100,000, and prints what the first
//! page costs (timings are printed for comparison, never checked).
//!
//!     hbase-local/hbase.sh up && cargo run --example list_data
//!
//! Tables `example:list_data_tall`, `example:list_data_wide` and `example:list_data_middle`
//! are recreated at the start of each run and left for inspection.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use futures::{StreamExt, TryStreamExt};
use hbase_orm::{Client, HBaseEntity, Repository};
use hbase_orm_suite::example::Example;

/// Values per page, as the application reads them.
const PAGE: usize = 30;

/// Tall: one row per user and value, `[user, 16 bytes padded][value id, 8 bytes]`.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "example", table = "list_data_tall", family = "d")]
struct ListValue {
    #[hbase(key(fixed = 16))]
    user: String,
    #[hbase(key)]
    value_id: u64,
    #[hbase(rename = "v")]
    value: String,
}

/// Wide: one row per user, `[user]`, one column of family `v` per value id.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "example", table = "list_data_wide", family = "v")]
struct ListRow {
    #[hbase(key(fixed = 16))]
    user: String,
    #[hbase(wide)]
    values: BTreeMap<u64, String>,
}

/// Middle: one row per user and page, `[user][page number]`, the page's 30 entries in one
/// JSON cell and the next page's number beside it.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "example", table = "list_data_middle", family = "d")]
struct ListPage {
    #[hbase(key(fixed = 16))]
    user: String,
    #[hbase(key)]
    page: u32,
    #[hbase(rename = "e", json)]
    entries: Vec<(u64, String)>,
    #[hbase(rename = "n")]
    next: Option<u32>,
}

/// A user's list: value ids 1000, 1003, 1006, ... with short values.
fn list_of(n: u64) -> Vec<(u64, String)> {
    (0..n)
        .map(|i| (1_000 + 3 * i, format!("item-{i}")))
        .collect()
}

/// The middle shape's rows for a list.
fn paged(user: &str, list: &[(u64, String)]) -> Vec<ListPage> {
    let count = list.len().div_ceil(PAGE);
    list.chunks(PAGE)
        .enumerate()
        .map(|(i, chunk)| ListPage {
            user: user.into(),
            page: i as u32,
            entries: chunk.to_vec(),
            next: (i + 1 < count).then_some(i as u32 + 1),
        })
        .collect()
}

/// The three shapes of one user's list, written in bulk.
async fn store(
    user: &str,
    list: &[(u64, String)],
    tall: &Repository<ListValue>,
    wide: &Repository<ListRow>,
    middle: &Repository<ListPage>,
) {
    let rows: Vec<ListValue> = list
        .iter()
        .map(|(id, v)| ListValue {
            user: user.into(),
            value_id: *id,
            value: v.clone(),
        })
        .collect();
    tall.clone()
        .with_save_chunk(5_000)
        .save_all(&rows)
        .await
        .expect("tall rows");
    // One put per 5,000 columns (a put is atomic for its row), four at a time.
    let columns = wide.wide(ListRow::VALUES);
    let key = ListRowKey { user: user.into() };
    futures::stream::iter(list.chunks(5_000))
        .map(|chunk| {
            let (columns, key) = (columns.clone(), key.clone());
            async move {
                columns
                    .put_all(&key, chunk.iter().map(|(k, v)| (k, v)))
                    .await
            }
        })
        .buffer_unordered(4)
        .try_collect::<()>()
        .await
        .expect("wide columns");
    middle
        .clone()
        .with_save_chunk(2_000)
        .save_all(&paged(user, list))
        .await
        .expect("middle pages");
}

/// The first page of each shape.
async fn first_pages(
    user: &str,
    tall: &Repository<ListValue>,
    wide: &Repository<ListRow>,
    middle: &Repository<ListPage>,
) -> (Vec<(u64, String)>, Vec<(u64, String)>, Option<ListPage>) {
    let t = tall
        .scan()
        .prefix(ListValueKey::prefix_by_user(&user.into()).expect("prefix"))
        .page(PAGE)
        .await
        .expect("tall first page");
    let w = wide
        .wide(ListRow::VALUES)
        .slice(&ListRowKey { user: user.into() })
        .limit(PAGE)
        .fetch()
        .await
        .expect("wide first page");
    let m = middle
        .get(&ListPageKey {
            user: user.into(),
            page: 0,
        })
        .await
        .expect("middle first page");
    (
        t.items.into_iter().map(|v| (v.value_id, v.value)).collect(),
        w.entries,
        m,
    )
}

/// The median of five runs of `read`.
async fn median_time<F, Fut>(mut read: F) -> Duration
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut times = Vec::new();
    for _ in 0..5 {
        let started = Instant::now();
        read().await;
        times.push(started.elapsed());
    }
    times.sort();
    times[2]
}

/// Runs the first-page and next-page reads of one user, checking the shapes agree.
async fn pages_of(
    ex: &mut Example,
    user: &str,
    list: &[(u64, String)],
    tall: &Repository<ListValue>,
    wide: &Repository<ListRow>,
    middle: &Repository<ListPage>,
) {
    let want_first = list[..PAGE.min(list.len())].to_vec();
    let (t, w, m) = first_pages(user, tall, wide, middle).await;
    let m = m.expect("page 0 of the middle shape exists");
    ex.check_eq(
        &format!("{user}: tall first page is the first 30 values"),
        t,
        want_first.clone(),
    );
    ex.check_eq(
        &format!("{user}: wide first page is the same"),
        w,
        want_first.clone(),
    );
    ex.check_eq(
        &format!("{user}: middle page 0 is the same"),
        m.entries.clone(),
        want_first,
    );

    // The next page: resume after the last key (tall, wide) or follow the stored page number.
    let want_next = list[PAGE.min(list.len())..(2 * PAGE).min(list.len())].to_vec();
    let prefix = ListValueKey::prefix_by_user(&user.into()).expect("prefix");
    let first = tall
        .scan()
        .prefix(prefix.clone())
        .page(PAGE)
        .await
        .expect("tall page");
    let tall_next: Vec<(u64, String)> = match &first.next {
        Some(last) => tall
            .scan()
            .prefix(prefix)
            .after(last)
            .page(PAGE)
            .await
            .expect("tall next page")
            .items
            .into_iter()
            .map(|v| (v.value_id, v.value))
            .collect(),
        None => Vec::new(),
    };
    let columns = wide.wide(ListRow::VALUES);
    let key = ListRowKey { user: user.into() };
    let wfirst = columns.slice(&key).limit(PAGE).fetch().await.expect("wide");
    let wide_next = match &wfirst.next {
        Some(last) => {
            columns
                .slice(&key)
                .after(last)
                .limit(PAGE)
                .fetch()
                .await
                .expect("wide next page")
                .entries
        }
        None => Vec::new(),
    };
    let middle_next = match m.next {
        Some(page) => {
            middle
                .get(&ListPageKey {
                    user: user.into(),
                    page,
                })
                .await
                .expect("middle next page")
                .expect("the page it points to exists")
                .entries
        }
        None => Vec::new(),
    };
    ex.check_eq(
        &format!("{user}: tall next page (after the last key)"),
        tall_next,
        want_next.clone(),
    );
    ex.check_eq(
        &format!("{user}: wide next page (after the last column)"),
        wide_next,
        want_next.clone(),
    );
    ex.check_eq(
        &format!("{user}: middle next page (the stored page number)"),
        middle_next,
        want_next,
    );

    // Timings of the first page, median of five.
    let t = median_time(|| async {
        tall.scan()
            .prefix(ListValueKey::prefix_by_user(&user.into()).unwrap())
            .page(PAGE)
            .await
            .expect("tall");
    })
    .await;
    let w = median_time(|| async {
        columns.slice(&key).limit(PAGE).fetch().await.expect("wide");
    })
    .await;
    let md = median_time(|| async {
        middle
            .get(&ListPageKey {
                user: user.into(),
                page: 0,
            })
            .await
            .expect("middle");
    })
    .await;
    ex.say(format!(
        "{user} ({} values), first page, median of 5: tall scan {:.2} ms, wide column range \
         {:.2} ms, middle get {:.2} ms",
        list.len(),
        t.as_secs_f64() * 1e3,
        w.as_secs_f64() * 1e3,
        md.as_secs_f64() * 1e3,
    ));
}

#[tokio::main]
async fn main() -> ExitCode {
    let mut ex = Example::start(
        "list_data",
        "A user's list read 30 values at a time, stored tall (a row per value), wide (a column \
         per value) and middle (a row per page of 30). Tall is the simple default: any page \
         is a short scan from any value id, and inserts touch one row.",
        Client::from_env().await,
    )
    .await;
    let tall = ex.fresh::<ListValue>().await;
    let wide = ex.fresh::<ListRow>().await;
    let middle = ex.fresh::<ListPage>().await;

    let light = list_of(30);
    let heavy = list_of(100_000);
    let started = Instant::now();
    store("light", &light, &tall, &wide, &middle).await;
    store("heavy", &heavy, &tall, &wide, &middle).await;
    ex.say(format!(
        "stored 30 values for `light` and 100,000 for `heavy` in each shape ({:.1} s): \
         save_all in chunks (tall, middle), put_all of 5,000 columns per put (wide)",
        started.elapsed().as_secs_f64()
    ));

    pages_of(&mut ex, "light", &light, &tall, &wide, &middle).await;
    pages_of(&mut ex, "heavy", &heavy, &tall, &wide, &middle).await;

    // Sizes: the heavy user's wide row holds 100,000 columns; the middle shape 3,334 rows.
    let heavy_key = ListRowKey {
        user: "heavy".into(),
    };
    let columns = wide.wide(ListRow::VALUES);
    ex.check_eq(
        "heavy: the wide row has 100,000 columns",
        columns.count(&heavy_key).await.expect("count"),
        100_000,
    );
    let last_tall = tall
        .scan()
        .prefix(ListValueKey::prefix_by_user(&"heavy".into()).expect("prefix"))
        .reversed()
        .limit(1)
        .stream()
        .try_collect::<Vec<_>>()
        .await
        .expect("last tall row");
    ex.check_eq(
        "heavy: a reversed prefix scan finds the last value",
        last_tall.first().map(|v| v.value_id),
        heavy.last().map(|(id, _)| *id),
    );

    // "The next 30 values starting at value id Y": tall and wide seek there directly; the
    // middle shape does not know which page holds Y without reading pages.
    let y = 1_000 + 3 * 71_234;
    let want: Vec<(u64, String)> = heavy
        .iter()
        .filter(|(id, _)| *id >= y)
        .take(PAGE)
        .cloned()
        .collect();
    let from_tall: Vec<(u64, String)> = tall
        .scan()
        .from(&ListValueKey {
            user: "heavy".into(),
            value_id: y,
        })
        .limit(PAGE)
        .stream()
        .map_ok(|v| (v.value_id, v.value))
        .try_collect()
        .await
        .expect("tall from Y");
    let from_wide = columns
        .slice(&heavy_key)
        .from(&y)
        .limit(PAGE)
        .fetch()
        .await
        .expect("wide from Y")
        .entries;
    ex.check_eq(
        "heavy: tall reads 30 values from value id Y",
        from_tall,
        want.clone(),
    );
    ex.check_eq(
        "heavy: wide reads the same 30 from column Y",
        from_wide,
        want,
    );

    // Inserting a value near the front of heavy's list: one row (tall), one cell (wide), and
    // every page from the first on (middle), since each later value moves by one place.
    let inserted = (1_001u64, "inserted".to_string());
    tall.save(&ListValue {
        user: "heavy".into(),
        value_id: inserted.0,
        value: inserted.1.clone(),
    })
    .await
    .expect("tall insert");
    columns
        .put(&heavy_key, &inserted.0, &inserted.1)
        .await
        .expect("wide insert");
    let started = Instant::now();
    let old_pages: Vec<ListPage> = middle
        .scan()
        .prefix(ListPageKey::prefix_by_user(&"heavy".into()).expect("prefix"))
        .stream()
        .try_collect()
        .await
        .expect("middle pages");
    let mut entries: Vec<(u64, String)> =
        old_pages.iter().flat_map(|p| p.entries.clone()).collect();
    let at = entries.partition_point(|(id, _)| *id < inserted.0);
    entries.insert(at, inserted.clone());
    let new_pages = paged("heavy", &entries);
    let changed: Vec<ListPage> = new_pages
        .iter()
        .filter(|p| old_pages.get(p.page as usize) != Some(*p))
        .cloned()
        .collect();
    middle
        .clone()
        .with_save_chunk(2_000)
        .save_all(&changed)
        .await
        .expect("middle rewrite");
    ex.say(format!(
        "inserting value id {} into heavy's list: tall writes 1 row, wide 1 cell, middle \
         rewrites {} of {} page rows ({:.2} s)",
        inserted.0,
        changed.len(),
        new_pages.len(),
        started.elapsed().as_secs_f64()
    ));
    ex.check_eq(
        "heavy: the middle insert rewrote every page row",
        changed.len(),
        new_pages.len(),
    );
    let mut want_first = heavy[..PAGE - 1].to_vec();
    want_first.insert(1, inserted);
    let (t, w, m) = first_pages("heavy", &tall, &wide, &middle).await;
    ex.check_eq(
        "heavy after the insert: tall first page",
        t,
        want_first.clone(),
    );
    ex.check_eq(
        "heavy after the insert: wide first page",
        w,
        want_first.clone(),
    );
    ex.check_eq(
        "heavy after the insert: middle first page",
        m.map(|p| p.entries),
        Some(want_first),
    );

    ex.advice::<ListValue>(&[]);
    ex.advice::<ListRow>(&[]);
    ex.advice::<ListPage>(&[]);
    ex.finish()
}
