//! Random predicates over the orders (key parts, values, NULLs, their combinations): SQL's
//! answers equal the same question computed in Rust over every row.

use hbase_orm::Client;

use crate::common::*;

/// A condition on an order, as SQL and as Rust (SQL's three-valued logic: `None` is NULL).
#[derive(Debug, Clone)]
pub(crate) enum Pred {
    CustomerEq(String),
    CustomerIn(Vec<String>),
    NumberCmp(&'static str, u32),
    NumberBetween(u32, u32),
    TotalCmp(&'static str, f64),
    StatusEq(&'static str),
    NoteEq(String),
    NoteIsNull(bool),
    Paid(bool),
    DayEq(&'static str, i64),
    ItemsCmp(&'static str, u16),
    StatusCmp(&'static str, &'static str),
    /// `customer LIKE '<prefix>%'`: a range of the key's first part.
    CustomerLike(&'static str),
    /// `customer IN (..) AND number IN (..)`: every key part fixed, the rows read with gets.
    Keys(Vec<String>, Vec<u32>),
    And(Box<Pred>, Box<Pred>),
    Or(Box<Pred>, Box<Pred>),
    Not(Box<Pred>),
}

pub(crate) const CMPS: [&str; 6] = ["<", "<=", ">", ">=", "=", "<>"];

pub(crate) fn cmp<T: PartialOrd>(op: &str, a: T, b: T) -> bool {
    match op {
        "<" => a < b,
        "<=" => a <= b,
        ">" => a > b,
        ">=" => a >= b,
        "=" => a == b,
        "<>" => a != b,
        _ => unreachable!(),
    }
}

impl Pred {
    fn random(rng: &mut Rng, depth: u32) -> Pred {
        let leaf = depth == 0 || rng.below(3) == 0;
        if !leaf {
            let (a, b) = (
                Box::new(Pred::random(rng, depth - 1)),
                Box::new(Pred::random(rng, depth - 1)),
            );
            return match rng.below(5) {
                0 | 1 => Pred::And(a, b),
                2 | 3 => Pred::Or(a, b),
                _ => Pred::Not(a),
            };
        }
        match rng.below(13) {
            12 => Pred::CustomerLike(
                ["customer-0", "customer-1", "customer-", "cust", "x"][rng.below(5) as usize],
            ),
            0 => Pred::CustomerEq(customer(rng.below(CUSTOMERS + 1))),
            1 => Pred::CustomerIn(
                (0..1 + rng.below(3))
                    .map(|_| customer(rng.below(CUSTOMERS)))
                    .collect(),
            ),
            2 => Pred::NumberCmp(CMPS[rng.below(6) as usize], rng.below(320) as u32),
            3 => {
                let a = rng.below(300) as u32;
                Pred::NumberBetween(a, a + rng.below(60) as u32)
            }
            4 => Pred::TotalCmp(CMPS[rng.below(6) as usize], rng.below(1000) as f64),
            9 => Pred::DayEq(
                ["=", "<>"][rng.below(2) as usize],
                20_000 + rng.below(30) as i64,
            ),
            10 => Pred::ItemsCmp(CMPS[rng.below(6) as usize], rng.below(520) as u16),
            11 => Pred::StatusCmp(
                CMPS[rng.below(6) as usize],
                ["n", "new", "paid", "q"][rng.below(4) as usize],
            ),
            5 => Pred::StatusEq(STATUSES[rng.below(3) as usize]),
            6 => Pred::NoteEq(format!("note {}", rng.below(1000))),
            7 => Pred::NoteIsNull(rng.below(2) == 0),
            _ => Pred::Paid(rng.below(2) == 0),
        }
    }

    fn sql(&self) -> String {
        match self {
            Pred::CustomerEq(c) => format!("customer = '{c}'"),
            Pred::CustomerIn(cs) => format!(
                "customer IN ({})",
                cs.iter()
                    .map(|c| format!("'{c}'"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Pred::NumberCmp(op, n) => format!("number {op} {n}"),
            Pred::NumberBetween(a, b) => format!("number BETWEEN {a} AND {b}"),
            Pred::TotalCmp(op, t) => format!("total {op} {t:.1}"),
            Pred::StatusEq(s) => format!("status = '{s}'"),
            Pred::NoteEq(n) => format!("note = '{n}'"),
            Pred::NoteIsNull(true) => "note IS NULL".into(),
            Pred::NoteIsNull(false) => "note IS NOT NULL".into(),
            Pred::Paid(true) => "paid".into(),
            Pred::Paid(false) => "NOT paid".into(),
            Pred::DayEq(op, d) => format!("day {op} {d}"),
            Pred::ItemsCmp(op, n) => format!("items {op} {n}"),
            Pred::StatusCmp(op, s) => format!("status {op} '{s}'"),
            Pred::CustomerLike(p) => format!("customer LIKE '{p}%'"),
            Pred::Keys(cs, ns) => format!(
                "(customer IN ({}) AND number IN ({}))",
                cs.iter()
                    .map(|c| format!("'{c}'"))
                    .collect::<Vec<_>>()
                    .join(", "),
                ns.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
            ),
            Pred::And(a, b) => format!("({} AND {})", a.sql(), b.sql()),
            Pred::Or(a, b) => format!("({} OR {})", a.sql(), b.sql()),
            Pred::Not(a) => format!("(NOT {})", a.sql()),
        }
    }

    fn eval(&self, o: &Order) -> Option<bool> {
        Some(match self {
            Pred::CustomerEq(c) => o.customer == *c,
            Pred::CustomerIn(cs) => cs.contains(&o.customer),
            Pred::NumberCmp(op, n) => cmp(op, o.number, *n),
            Pred::NumberBetween(a, b) => (*a..=*b).contains(&o.number),
            Pred::TotalCmp(op, t) => cmp(op, o.total, *t),
            Pred::StatusEq(s) => o.status == *s,
            Pred::NoteEq(n) => return o.note.as_ref().map(|note| note == n),
            Pred::NoteIsNull(null) => o.note.is_none() == *null,
            Pred::Paid(p) => o.paid == *p,
            Pred::DayEq(op, d) => cmp(op, o.day, *d),
            Pred::ItemsCmp(op, n) => cmp(op, o.items, *n),
            Pred::StatusCmp(op, s) => cmp(op, o.status.as_str(), s),
            Pred::CustomerLike(p) => o.customer.starts_with(p),
            Pred::Keys(cs, ns) => cs.contains(&o.customer) && ns.contains(&o.number),
            Pred::And(a, b) => match (a.eval(o), b.eval(o)) {
                (Some(false), _) | (_, Some(false)) => false,
                (Some(true), Some(true)) => true,
                _ => return None,
            },
            Pred::Or(a, b) => match (a.eval(o), b.eval(o)) {
                (Some(true), _) | (_, Some(true)) => true,
                (Some(false), Some(false)) => false,
                _ => return None,
            },
            Pred::Not(a) => !a.eval(o)?,
        })
    }
}

pub(crate) async fn random_predicates_answer_as_rust_does(client: Client) {
    let t = orders_table(&client, "sql_pred", 300, &[]).await;
    let mut rng = Rng(0xC0FFEE);
    for case in 0..60 {
        let mut pred = Pred::random(&mut rng, 2);
        if case % 4 == 0 {
            // Every key part fixed too (keys of some orders, and one no order has): gets.
            let picked: Vec<&Order> = (0..1 + rng.below(4))
                .map(|_| &t.data[rng.below(t.data.len() as u64) as usize])
                .collect();
            let mut customers: Vec<String> = picked.iter().map(|o| o.customer.clone()).collect();
            customers.dedup();
            let mut numbers: Vec<u32> = picked.iter().map(|o| o.number).collect();
            numbers.push(t.data.len() as u32 + 7);
            pred = Pred::And(Box::new(Pred::Keys(customers, numbers)), Box::new(pred));
        }
        let sql = format!(
            "SELECT customer, number FROM orders WHERE {} ORDER BY customer, number",
            pred.sql()
        );
        let got = query(&t.ctx, &sql).await;
        let mut want: Vec<&Order> = t
            .data
            .iter()
            .filter(|o| pred.eval(o) == Some(true))
            .collect();
        want.sort_by(|a, b| (&a.customer, a.number).cmp(&(&b.customer, b.number)));
        let want: Vec<Vec<String>> = want
            .iter()
            .map(|o| vec![o.customer.clone(), o.number.to_string()])
            .collect();
        assert_eq!(got, want, "case {case}: {sql}");

        // The same condition under an aggregate, per customer.
        let sql = format!(
            "SELECT customer, count(*), sum(total), count(note) FROM orders WHERE {} \
             GROUP BY customer ORDER BY customer",
            pred.sql()
        );
        let got = query(&t.ctx, &sql).await;
        let mut want: std::collections::BTreeMap<&str, (u64, f64, u64)> = Default::default();
        for o in t.data.iter().filter(|o| pred.eval(o) == Some(true)) {
            let e = want.entry(&o.customer).or_default();
            e.0 += 1;
            e.1 += o.total;
            e.2 += u64::from(o.note.is_some());
        }
        assert_eq!(got.len(), want.len(), "case {case}: {sql}");
        for (row, (c, (n, sum, notes))) in got.iter().zip(&want) {
            assert_eq!(row[0], *c, "case {case}: {sql}");
            assert_eq!(row[1], n.to_string(), "case {case}: {sql}");
            let got_sum: f64 = row[2].parse().unwrap();
            assert!(
                (got_sum - sum).abs() < 1e-6,
                "case {case}: {sql}: {got_sum} vs {sum}"
            );
            assert_eq!(row[3], notes.to_string(), "case {case}: {sql}");
        }
    }
}
