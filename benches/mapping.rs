//! The cost of the derived mapping alone (no HBase): `to_put` and `from_row` of a derived
//! entity against a hand-written conversion of the same struct to the same cells, in one run;
//! and the reads of a wide row (1,000 entries of a `wide` map) and of a versioned cell (1,000
//! versions of a `versions = N` field) against hand-written loops over the same cells.
//!
//!     cargo bench --bench mapping
//!
//! Target: derived within 1.2x of hand-written.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use std::collections::BTreeMap;

use hbase_orm::{Cell, HBaseEntity, Put, Row, Versions};

#[derive(HBaseEntity, Clone, Debug, PartialEq)]
#[hbase(namespace = "bench", table = "orders", family = "d")]
struct Order {
    #[hbase(key)]
    customer: u64,
    #[hbase(key)]
    number: u32,
    #[hbase(rename = "st")]
    status: String,
    #[hbase(rename = "tot")]
    total_cents: i64,
    #[hbase(rename = "qty")]
    quantity: i32,
    #[hbase(rename = "paid")]
    paid: bool,
    #[hbase(rename = "note")]
    note: Option<String>,
    #[hbase(rename = "rate")]
    rate: f64,
    #[hbase(rename = "city")]
    city: String,
}

/// Person/role: roles as qualifiers of their own family.
#[derive(HBaseEntity, Clone, Debug, PartialEq)]
#[hbase(namespace = "bench", table = "people", family = "d")]
struct Person {
    #[hbase(key)]
    id: u64,
    #[hbase(family = "r", wide)]
    roles: BTreeMap<u32, String>,
}

/// The microblog inbox: one cell, many versions.
#[derive(HBaseEntity, Clone, Debug, PartialEq)]
#[hbase(namespace = "bench", table = "inbox", family = "d")]
struct Inbox {
    #[hbase(key)]
    user: u64,
    #[hbase(versions = 1000, rename = "p")]
    posts: Versions<u64>,
}

/// What a careful user writes by hand for the same cells.
mod by_hand {
    use super::Order;
    use hbase_orm::{Bytes, Put, PutCell, Row};

    fn cell(q: &'static [u8], value: Vec<u8>) -> PutCell {
        PutCell {
            family: Bytes::from_static(b"d"),
            qualifier: Bytes::from_static(q),
            value: value.into(),
            timestamp: None,
        }
    }

    pub fn to_put(o: &Order) -> Put {
        let mut key = Vec::with_capacity(12);
        key.extend_from_slice(&o.customer.to_be_bytes());
        key.extend_from_slice(&o.number.to_be_bytes());
        let mut put = Put::new(key);
        put.cells.reserve(7);
        put.cells.push(cell(b"st", o.status.as_bytes().to_vec()));
        put.cells
            .push(cell(b"tot", o.total_cents.to_be_bytes().to_vec()));
        put.cells
            .push(cell(b"qty", o.quantity.to_be_bytes().to_vec()));
        put.cells
            .push(cell(b"paid", vec![if o.paid { 0xFF } else { 0 }]));
        if let Some(n) = &o.note {
            put.cells.push(cell(b"note", n.as_bytes().to_vec()));
        }
        put.cells.push(cell(b"rate", o.rate.to_be_bytes().to_vec()));
        put.cells.push(cell(b"city", o.city.as_bytes().to_vec()));
        put
    }

    pub fn from_row(row: Row) -> Option<Order> {
        let customer = u64::from_be_bytes(row.key.get(..8)?.try_into().ok()?);
        let number = u32::from_be_bytes(row.key.get(8..12)?.try_into().ok()?);
        let (mut status, mut total, mut qty, mut paid, mut note, mut rate, mut city) =
            (None, None, None, None, None, None, None);
        for c in row.cells {
            if c.family != b"d"[..] {
                continue;
            }
            match c.qualifier.as_ref() {
                b"st" => status = Some(std::str::from_utf8(&c.value).ok()?.to_owned()),
                b"tot" => total = Some(i64::from_be_bytes(c.value.as_ref().try_into().ok()?)),
                b"qty" => qty = Some(i32::from_be_bytes(c.value.as_ref().try_into().ok()?)),
                b"paid" => paid = Some(*c.value.first()? != 0),
                b"note" => note = Some(std::str::from_utf8(&c.value).ok()?.to_owned()),
                b"rate" => rate = Some(f64::from_be_bytes(c.value.as_ref().try_into().ok()?)),
                b"city" => city = Some(std::str::from_utf8(&c.value).ok()?.to_owned()),
                _ => {}
            }
        }
        Some(Order {
            customer,
            number,
            status: status?,
            total_cents: total?,
            quantity: qty?,
            paid: paid?,
            note,
            rate: rate?,
            city: city?,
        })
    }
}

/// Hand-written reads of the wide row and the versioned cell.
mod by_hand_rich {
    use super::{Inbox, Person};
    use hbase_orm::{Row, Versions};
    use std::collections::BTreeMap;

    pub fn person(row: Row) -> Option<Person> {
        let id = u64::from_be_bytes(row.key.get(..8)?.try_into().ok()?);
        let mut roles = BTreeMap::new();
        for c in row.cells {
            // The row's empty marker cell (no other field has a cell) is no entry.
            if c.family == b"r"[..] && !c.qualifier.is_empty() {
                let k = u32::from_be_bytes(c.qualifier.as_ref().try_into().ok()?);
                roles.insert(k, std::str::from_utf8(&c.value).ok()?.to_owned());
            }
        }
        Some(Person { id, roles })
    }

    pub fn inbox(row: Row) -> Option<Inbox> {
        let user = u64::from_be_bytes(row.key.get(..8)?.try_into().ok()?);
        let mut posts = Vec::with_capacity(row.cells.len());
        for c in row.cells {
            if c.family == b"d"[..] && c.qualifier == b"p"[..] {
                let v = u64::from_be_bytes(c.value.as_ref().try_into().ok()?);
                posts.push((c.timestamp, v));
            }
        }
        Some(Inbox {
            user,
            posts: posts.into_iter().collect::<Versions<u64>>(),
        })
    }
}

fn wide_row() -> (Person, Row) {
    let person = Person {
        id: 7,
        roles: (0..1000u32).map(|i| (i * 3, format!("role-{i}"))).collect(),
    };
    let row = as_row(&person.to_put().unwrap());
    (person, row)
}

fn versioned_row() -> (Inbox, Row) {
    let inbox = Inbox {
        user: 7,
        posts: (0..1000u64).map(|i| (1_000_000 + i as i64, i)).collect(),
    };
    let put = inbox.to_put().unwrap();
    // HBase returns the versions of a cell newest first.
    let mut row = as_row(&put);
    for (cell, put_cell) in row.cells.iter_mut().zip(&put.cells) {
        cell.timestamp = put_cell.timestamp.unwrap_or_default();
    }
    (inbox, row)
}

fn rich(c: &mut Criterion) {
    let (person, row) = wide_row();
    assert_eq!(Person::from_row(row.clone()).unwrap(), person);
    assert_eq!(by_hand_rich::person(row.clone()), Some(person));
    let mut g = c.benchmark_group("wide_row_1000");
    g.bench_function("derived", |b| {
        b.iter_batched(
            || row.clone(),
            |r| Person::from_row(r).unwrap(),
            criterion::BatchSize::SmallInput,
        )
    });
    g.bench_function("hand-written", |b| {
        b.iter_batched(
            || row.clone(),
            |r| by_hand_rich::person(r).unwrap(),
            criterion::BatchSize::SmallInput,
        )
    });
    g.finish();

    let (inbox, row) = versioned_row();
    assert_eq!(Inbox::from_row(row.clone()).unwrap(), inbox);
    assert_eq!(by_hand_rich::inbox(row.clone()), Some(inbox));
    let mut g = c.benchmark_group("versions_1000");
    g.bench_function("derived", |b| {
        b.iter_batched(
            || row.clone(),
            |r| Inbox::from_row(r).unwrap(),
            criterion::BatchSize::SmallInput,
        )
    });
    g.bench_function("hand-written", |b| {
        b.iter_batched(
            || row.clone(),
            |r| by_hand_rich::inbox(r).unwrap(),
            criterion::BatchSize::SmallInput,
        )
    });
    g.finish();
}

fn sample() -> Order {
    Order {
        customer: 4_200_042,
        number: 17,
        status: "shipped".into(),
        total_cents: 123_456,
        quantity: 3,
        paid: true,
        note: Some("leave at the door".into()),
        rate: 0.19,
        city: "Trondheim".into(),
    }
}

fn as_row(put: &Put) -> Row {
    Row {
        key: put.row.clone(),
        cells: put
            .cells
            .iter()
            .map(|c| Cell {
                family: c.family.clone(),
                qualifier: c.qualifier.clone(),
                value: c.value.clone(),
                timestamp: 1,
            })
            .collect(),
        stale: false,
    }
}

fn mapping(c: &mut Criterion) {
    let order = sample();
    let derived_put = order.to_put().unwrap();
    assert_eq!(
        derived_put,
        by_hand::to_put(&order),
        "both write the same cells"
    );
    let row = as_row(&derived_put);
    assert_eq!(by_hand::from_row(row.clone()), Some(order.clone()));
    assert_eq!(Order::from_row(row.clone()).unwrap(), order);

    let mut g = c.benchmark_group("to_put");
    g.bench_function("derived", |b| {
        b.iter(|| black_box(&order).to_put().unwrap())
    });
    g.bench_function("hand-written", |b| {
        b.iter(|| by_hand::to_put(black_box(&order)))
    });
    g.finish();

    let mut g = c.benchmark_group("from_row");
    g.bench_function("derived", |b| {
        b.iter_batched(
            || row.clone(),
            |r| Order::from_row(r).unwrap(),
            criterion::BatchSize::SmallInput,
        )
    });
    g.bench_function("hand-written", |b| {
        b.iter_batched(
            || row.clone(),
            |r| by_hand::from_row(r).unwrap(),
            criterion::BatchSize::SmallInput,
        )
    });
    g.finish();
}

criterion_group!(benches, mapping, rich);
criterion_main!(benches);
