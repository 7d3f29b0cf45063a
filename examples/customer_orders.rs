//! # Customers and orders: the HBase reference guide's case study, every design of it
//!
//! An order belongs to a customer, ships to one or more locations, and each location gets one
//! or more line items. HBase has no joins, so how those objects are laid out in rows decides
//! how many reads it takes to load an order and how much work a change is. This example stores
//! the same order four ways, loads it back whole from each, and prints what each design costs:
//!
//! 1. **Fully normalized**: tables ORDER `[customer][order]`, SHIPPING_LOCATION
//!    `[customer][order][location]` and LINE_ITEM `[customer][order][location][line]`, as a
//!    relational database would have them. Loading an order is a get plus one scan per level;
//!    changing an address is one row.
//! 2. **One table with record types**: the same three kinds of rows in one table, each key
//!    carrying a record-type byte after the order key (`#[hbase(record_type(...))]`), so one
//!    prefix scan reads the order with all its rows (`#[derive(HBaseRecord)]` enum). Reading
//!    one kind of row across all orders is the awkward part.
//! 3. **Denormalized line items**: no location rows; each line item carries its shipping
//!    address as `ship_*` columns (`#[hbase(flatten, prefix = "ship_")]`). Fewer rows and a line
//!    item makes sense alone, but changing an address rewrites every line item that ships there.
//! 4. **The order as one BLOB**: the whole object graph as one JSON document in one cell
//!    (`#[hbase(json)]`). One get, one cell; but nothing inside the document can be read or
//!    filtered without decoding all of it, and the document's format has to stay compatible:
//!    the example reads a document written by the previous version of the struct.
//!
//! Then the guide's remarks on customers and keys:
//!
//! - **CUSTOMER++**: a customer and its orders in one table (record types again), so one scan
//!   reads everything about a customer.
//! - **Composite keys**: `[md5(customer)][md5(order)]` (fixed length, evenly spread, no order
//!   ranges) and `[customer id][md5(order)]`, where the customer's name is replaced by a 4-byte id
//!   from a lookup table (`key(dictionary = ...)`); their lengths are printed next to the plain
//!   numeric keys.
//!
//! Each step checks its results; the program exits non-zero on a mismatch.
//!
//! Reading the code: `model` is the order as the application sees it; each design has a module
//! (`normalized`, `typed`, `denormalized`, `blob`, then `crm` and `keys`) with its entities and
//! the code that turns a `model::Order` into rows and back; a function per design below runs
//! it and prints what it shows.
//!
//!     hbase-local/hbase.sh up && cargo run --example customer_orders
//!
//! `HBASE_ORM_URL` picks the store (`Client::from_env`: `thrift2://127.0.0.1:9090` when unset,
//! `hbase://127.0.0.1:2181` for HBase's own RPC, `memory://` for the in-memory store). The tables
//! `example:customer_orders_*` are recreated from the entities' declarations at the start of
//! every run and left for inspection (`hbase shell`, `scan 'example:customer_orders_typed'`).

use std::process::ExitCode;

use futures::TryStreamExt;
use hbase_orm::{Client, HBaseEntity, KeyPrefix, Result, Row, Scan, TableName};
use hbase_orm_suite::example::Example;

/// The order as the application sees it, whatever a design stores.
mod model {
    use hbase_orm::HBaseColumns;
    use serde::{Deserialize, Serialize};

    /// A shipping address. Designs 1 and 2 store it as the columns of a SHIPPING_LOCATION row,
    /// design 3 as `ship_*` columns on each line item (a group of columns flattened into the
    /// row: hence `HBaseColumns`), design 4 inside the JSON document (hence serde).
    #[derive(HBaseColumns, Serialize, Deserialize, Debug, Clone, PartialEq)]
    pub struct Address {
        pub line1: String,
        pub line2: Option<String>,
        pub city: String,
        pub state: String,
        pub zip: String,
    }

    #[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
    pub struct LineItem {
        /// The item number, e.g. `PEN-BLUE`.
        pub item: String,
        pub quantity: u32,
        pub price_cents: i64,
    }

    #[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
    pub struct ShippingLocation {
        pub to: Address,
        pub items: Vec<LineItem>,
    }

    #[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
    pub struct Order {
        pub customer: u64,
        pub number: u64,
        /// Sale date, `YYYY-MM-DD`.
        pub date: String,
        pub locations: Vec<ShippingLocation>,
    }

    impl Order {
        /// Every line item with its location and line numbers (both from 1).
        pub fn lines(&self) -> impl Iterator<Item = (u16, u16, &Address, &LineItem)> {
            self.locations.iter().zip(1..).flat_map(|(l, ln)| {
                l.items
                    .iter()
                    .zip(1..)
                    .map(move |(item, line)| (ln, line, &l.to, item))
            })
        }
    }
}

/// Design 1: ORDER, SHIPPING_LOCATION and LINE_ITEM, one table each.
mod normalized {
    use super::{model, TryStreamExt};
    use hbase_orm::{Repository, Result};

    /// ORDER: `[customer][order]`.
    #[derive(hbase_orm::HBaseEntity, Debug, Clone, PartialEq)]
    #[hbase(namespace = "example", table = "customer_orders_order", family = "d")]
    pub struct Order {
        #[hbase(key)]
        pub customer: u64,
        #[hbase(key)]
        pub number: u64,
        pub date: String,
    }

    /// SHIPPING_LOCATION: `[customer][order][location number]`.
    #[derive(hbase_orm::HBaseEntity, Debug, Clone, PartialEq)]
    #[hbase(
        namespace = "example",
        table = "customer_orders_shipping_location",
        family = "d"
    )]
    pub struct ShippingLocation {
        #[hbase(key)]
        pub customer: u64,
        #[hbase(key)]
        pub number: u64,
        #[hbase(key)]
        pub location: u16,
        /// The guide's columns `line1`, `line2`, `city`, `state`, `zip`: the address's group
        /// flattened into the row, without a prefix.
        #[hbase(flatten)]
        pub to: model::Address,
    }

    /// LINE_ITEM: `[customer][order][location number][line number]`.
    #[derive(hbase_orm::HBaseEntity, Debug, Clone, PartialEq)]
    #[hbase(
        namespace = "example",
        table = "customer_orders_line_item",
        family = "d"
    )]
    pub struct LineItem {
        #[hbase(key)]
        pub customer: u64,
        #[hbase(key)]
        pub number: u64,
        #[hbase(key)]
        pub location: u16,
        #[hbase(key)]
        pub line: u16,
        pub item: String,
        pub quantity: u32,
        pub price_cents: i64,
    }

    pub struct Tables {
        pub orders: Repository<Order>,
        pub locations: Repository<ShippingLocation>,
        pub items: Repository<LineItem>,
    }

    impl Tables {
        /// Writes the order's rows into the three tables.
        pub async fn save(&self, o: &model::Order) -> Result<()> {
            self.orders
                .save(&Order {
                    customer: o.customer,
                    number: o.number,
                    date: o.date.clone(),
                })
                .await?;
            let locations: Vec<_> = (1..)
                .zip(&o.locations)
                .map(|(location, l)| ShippingLocation {
                    customer: o.customer,
                    number: o.number,
                    location,
                    to: l.to.clone(),
                })
                .collect();
            self.locations.save_all(&locations).await?;
            let items: Vec<_> = o
                .lines()
                .map(|(location, line, _, i)| LineItem {
                    customer: o.customer,
                    number: o.number,
                    location,
                    line,
                    item: i.item.clone(),
                    quantity: i.quantity,
                    price_cents: i.price_cents,
                })
                .collect();
            self.items.save_all(&items).await
        }

        /// Loads an order the way the guide describes: get the ORDER row, scan its
        /// SHIPPING_LOCATION rows, then scan the LINE_ITEM rows of each location. Returns the
        /// order and the number of reads it took.
        pub async fn load(
            &self,
            customer: u64,
            number: u64,
        ) -> Result<(Option<model::Order>, usize)> {
            let key = OrderKey { customer, number };
            let Some(order) = self.orders.get(&key).await? else {
                return Ok((None, 1));
            };
            let locations: Vec<ShippingLocation> = self
                .locations
                .scan()
                .prefix(ShippingLocationKey::prefix_by_customer_number(
                    &customer, &number,
                )?)
                .stream()
                .try_collect()
                .await?;
            let mut reads = 2;
            let mut out = Vec::new();
            for l in locations {
                let items: Vec<LineItem> = self
                    .items
                    .scan()
                    .prefix(LineItemKey::prefix_by_customer_number_location(
                        &customer,
                        &number,
                        &l.location,
                    )?)
                    .stream()
                    .try_collect()
                    .await?;
                reads += 1;
                out.push(model::ShippingLocation {
                    to: l.to,
                    items: items.into_iter().map(item).collect(),
                });
            }
            let order = model::Order {
                customer,
                number,
                date: order.date,
                locations: out,
            };
            Ok((Some(order), reads))
        }

        /// A new address for one shipping location: one row, whatever it ships.
        pub async fn move_location(
            &self,
            customer: u64,
            number: u64,
            location: u16,
            to: &model::Address,
        ) -> Result<usize> {
            let row = ShippingLocation {
                customer,
                number,
                location,
                to: to.clone(),
            };
            self.locations.save(&row).await?;
            Ok(1)
        }
    }

    fn item(l: LineItem) -> model::LineItem {
        model::LineItem {
            item: l.item,
            quantity: l.quantity,
            price_cents: l.price_cents,
        }
    }
}

/// Design 2: the same three kinds of rows in one table, told apart by a record-type byte
/// after the order key: `[customer][order][1]`, `[customer][order][2][location]`,
/// `[customer][order][3][location][line]`.
mod typed {
    use super::{model, TryStreamExt};
    use hbase_orm::{Client, HBaseRecord, Repository, Result};
    use std::collections::BTreeMap;

    /// The ORDER row: `[customer][order][1]`.
    #[derive(hbase_orm::HBaseEntity, Debug, Clone, PartialEq)]
    #[hbase(
        namespace = "example",
        table = "customer_orders_typed",
        family = "d",
        record_type(tag = 1, after = "number")
    )]
    pub struct Order {
        #[hbase(key)]
        pub customer: u64,
        #[hbase(key)]
        pub number: u64,
        pub date: String,
    }

    /// A SHIPPING_LOCATION row: `[customer][order][2][location number]`.
    #[derive(hbase_orm::HBaseEntity, Debug, Clone, PartialEq)]
    #[hbase(
        namespace = "example",
        table = "customer_orders_typed",
        family = "d",
        record_type(tag = 2, after = "number")
    )]
    pub struct ShippingLocation {
        #[hbase(key)]
        pub customer: u64,
        #[hbase(key)]
        pub number: u64,
        #[hbase(key)]
        pub location: u16,
        /// The guide's columns `line1`, `line2`, `city`, `state`, `zip`: the address's group
        /// flattened into the row, without a prefix.
        #[hbase(flatten)]
        pub to: model::Address,
    }

    /// A LINE_ITEM row: `[customer][order][3][location number][line number]`.
    #[derive(hbase_orm::HBaseEntity, Debug, Clone, PartialEq)]
    #[hbase(
        namespace = "example",
        table = "customer_orders_typed",
        family = "d",
        record_type(tag = 3, after = "number")
    )]
    pub struct LineItem {
        #[hbase(key)]
        pub customer: u64,
        #[hbase(key)]
        pub number: u64,
        #[hbase(key)]
        pub location: u16,
        #[hbase(key)]
        pub line: u16,
        pub item: String,
        pub quantity: u32,
        pub price_cents: i64,
    }

    /// Any row of the table, decoded into its own type.
    #[derive(HBaseRecord, Debug, Clone, PartialEq)]
    pub enum Record {
        Order(Order),
        ShippingLocation(ShippingLocation),
        LineItem(LineItem),
    }

    impl Record {
        pub fn label(&self) -> String {
            match self {
                Record::Order(o) => format!("order {}", o.number),
                Record::ShippingLocation(l) => format!("location {}", l.location),
                Record::LineItem(i) => format!("line {}/{}", i.location, i.line),
            }
        }
    }

    pub struct Table {
        pub client: Client,
        pub orders: Repository<Order>,
        pub locations: Repository<ShippingLocation>,
        pub items: Repository<LineItem>,
    }

    impl Table {
        pub async fn save(&self, o: &model::Order) -> Result<()> {
            self.orders
                .save(&Order {
                    customer: o.customer,
                    number: o.number,
                    date: o.date.clone(),
                })
                .await?;
            let locations: Vec<_> = (1..)
                .zip(&o.locations)
                .map(|(location, l)| ShippingLocation {
                    customer: o.customer,
                    number: o.number,
                    location,
                    to: l.to.clone(),
                })
                .collect();
            self.locations.save_all(&locations).await?;
            let items: Vec<_> = o
                .lines()
                .map(|(location, line, _, i)| LineItem {
                    customer: o.customer,
                    number: o.number,
                    location,
                    line,
                    item: i.item.clone(),
                    quantity: i.quantity,
                    price_cents: i.price_cents,
                })
                .collect();
            self.items.save_all(&items).await
        }

        /// Every row of one order, in key order, by ONE prefix scan over `[customer][order]`.
        pub async fn rows(&self, customer: u64, number: u64) -> Result<Vec<Record>> {
            // The prefix of the two leading parts stops before the record-type byte, so it
            // covers all three kinds of rows.
            let prefix = ShippingLocationKey::prefix_by_customer_number(&customer, &number)?;
            self.client
                .records::<Record>()
                .scan_prefix(prefix)
                .try_collect()
                .await
        }

        /// The order put back together from its rows.
        pub fn assemble(rows: Vec<Record>) -> Option<model::Order> {
            let mut order = None;
            let mut locations = BTreeMap::new();
            for r in rows {
                match r {
                    Record::Order(o) => order = Some(o),
                    Record::ShippingLocation(l) => {
                        locations.insert(
                            l.location,
                            model::ShippingLocation {
                                to: l.to,
                                items: Vec::new(),
                            },
                        );
                    }
                    Record::LineItem(i) => {
                        // Line items sort after every location (tag 3 > tag 2).
                        locations.get_mut(&i.location)?.items.push(model::LineItem {
                            item: i.item,
                            quantity: i.quantity,
                            price_cents: i.price_cents,
                        });
                    }
                }
            }
            let o = order?;
            Some(model::Order {
                customer: o.customer,
                number: o.number,
                date: o.date,
                locations: locations.into_values().collect(),
            })
        }
    }
}

/// Design 3: an order row and line-item rows that each carry their shipping address:
/// `[customer][order][1]` and `[customer][order][3][line]`, line numbers unique in the order.
mod denormalized {
    use super::{model, TryStreamExt};
    use hbase_orm::{Client, HBaseRecord, Repository, Result};

    /// The ORDER row: `[customer][order][1]`.
    #[derive(hbase_orm::HBaseEntity, Debug, Clone, PartialEq)]
    #[hbase(
        namespace = "example",
        table = "customer_orders_denormalized",
        family = "d",
        record_type(tag = 1, after = "number")
    )]
    pub struct Order {
        #[hbase(key)]
        pub customer: u64,
        #[hbase(key)]
        pub number: u64,
        pub date: String,
    }

    /// A LINE_ITEM row `[customer][order][3][line number]` with its shipping address folded in:
    /// columns `item`, `quantity`, `price_cents`, `ship_line1`, `ship_line2`, `ship_city`,
    /// `ship_state`, `ship_zip` (the guide's `shipTo*`).
    #[derive(hbase_orm::HBaseEntity, Debug, Clone, PartialEq)]
    #[hbase(
        namespace = "example",
        table = "customer_orders_denormalized",
        family = "d",
        record_type(tag = 3, after = "number")
    )]
    pub struct LineItem {
        #[hbase(key)]
        pub customer: u64,
        #[hbase(key)]
        pub number: u64,
        #[hbase(key)]
        pub line: u16,
        pub item: String,
        pub quantity: u32,
        pub price_cents: i64,
        #[hbase(flatten, prefix = "ship_")]
        pub ship_to: model::Address,
    }

    /// Any row of the table.
    #[derive(HBaseRecord, Debug, Clone, PartialEq)]
    pub enum Record {
        Order(Order),
        LineItem(LineItem),
    }

    pub struct Table {
        pub client: Client,
        pub orders: Repository<Order>,
        pub items: Repository<LineItem>,
    }

    impl Table {
        pub async fn save(&self, o: &model::Order) -> Result<()> {
            self.orders
                .save(&Order {
                    customer: o.customer,
                    number: o.number,
                    date: o.date.clone(),
                })
                .await?;
            let items: Vec<_> = (1..)
                .zip(o.lines())
                .map(|(line, (_, _, to, i))| LineItem {
                    customer: o.customer,
                    number: o.number,
                    line,
                    item: i.item.clone(),
                    quantity: i.quantity,
                    price_cents: i.price_cents,
                    ship_to: to.clone(),
                })
                .collect();
            self.items.save_all(&items).await
        }

        /// One prefix scan, then line items grouped back into locations by equal address
        /// (the locations themselves are not stored).
        pub async fn load(&self, customer: u64, number: u64) -> Result<Option<model::Order>> {
            let prefix = LineItemKey::prefix_by_customer_number(&customer, &number)?;
            let rows: Vec<Record> = self
                .client
                .records::<Record>()
                .scan_prefix(prefix)
                .try_collect()
                .await?;
            let mut order = None;
            let mut locations: Vec<model::ShippingLocation> = Vec::new();
            for r in rows {
                match r {
                    Record::Order(o) => order = Some(o),
                    Record::LineItem(i) => {
                        let item = model::LineItem {
                            item: i.item,
                            quantity: i.quantity,
                            price_cents: i.price_cents,
                        };
                        match locations.last_mut() {
                            Some(l) if l.to == i.ship_to => l.items.push(item),
                            _ => locations.push(model::ShippingLocation {
                                to: i.ship_to,
                                items: vec![item],
                            }),
                        }
                    }
                }
            }
            Ok(order.map(|o| model::Order {
                customer: o.customer,
                number: o.number,
                date: o.date,
                locations,
            }))
        }

        /// A new address for everything shipping to `from`: one row per line item.
        pub async fn move_location(
            &self,
            customer: u64,
            number: u64,
            from: &model::Address,
            to: &model::Address,
        ) -> Result<usize> {
            let lines: Vec<LineItem> = self
                .items
                .scan()
                .prefix(LineItemKey::prefix_by_customer_number(&customer, &number)?)
                .stream()
                .try_collect()
                .await?;
            let moved: Vec<LineItem> = lines
                .into_iter()
                .filter(|l| &l.ship_to == from)
                .map(|mut l| {
                    l.ship_to = to.clone();
                    l
                })
                .collect();
            self.items.save_all(&moved).await?;
            Ok(moved.len())
        }
    }
}

/// Design 4: the whole order graph as one JSON document in the column `d:order`.
mod blob {
    use super::model;
    use serde::{Deserialize, Serialize};

    /// The document as the previous release of the application wrote it.
    #[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
    pub struct OrderDocV1 {
        pub date: String,
        pub locations: Vec<model::ShippingLocation>,
    }

    /// The current document: a gift note was added. `default` lets documents written before
    /// (without the field) read as `None`; unknown fields are ignored by the old struct, so the
    /// previous release still reads documents written by this one.
    #[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
    pub struct OrderDoc {
        pub date: String,
        pub locations: Vec<model::ShippingLocation>,
        #[serde(default)]
        pub gift_note: Option<String>,
    }

    /// ORDER `[customer][order]` with one cell, `d:order`.
    #[derive(hbase_orm::HBaseEntity, Debug, Clone, PartialEq)]
    #[hbase(namespace = "example", table = "customer_orders_blob", family = "d")]
    pub struct Order {
        #[hbase(key)]
        pub customer: u64,
        #[hbase(key)]
        pub number: u64,
        #[hbase(json)]
        pub order: OrderDoc,
    }

    /// The same rows as the previous release declared them.
    #[derive(hbase_orm::HBaseEntity, Debug, Clone, PartialEq)]
    #[hbase(namespace = "example", table = "customer_orders_blob", family = "d")]
    pub struct OrderV1 {
        #[hbase(key)]
        pub customer: u64,
        #[hbase(key)]
        pub number: u64,
        #[hbase(json)]
        pub order: OrderDocV1,
    }

    impl Order {
        pub fn of(o: &model::Order, gift_note: Option<&str>) -> Order {
            Order {
                customer: o.customer,
                number: o.number,
                order: OrderDoc {
                    date: o.date.clone(),
                    locations: o.locations.clone(),
                    gift_note: gift_note.map(Into::into),
                },
            }
        }

        pub fn model(self) -> model::Order {
            model::Order {
                customer: self.customer,
                number: self.number,
                date: self.order.date,
                locations: self.order.locations,
            }
        }
    }
}

/// CUSTOMER++: customers and their orders in one table, `[customer][1]` and
/// `[customer][2][order]`.
mod crm {
    use hbase_orm::HBaseRecord;

    /// A customer: `[customer][1]`.
    #[derive(hbase_orm::HBaseEntity, Debug, Clone, PartialEq)]
    #[hbase(
        namespace = "example",
        table = "customer_orders_crm",
        family = "d",
        record_type(tag = 1, after = "customer")
    )]
    pub struct Customer {
        #[hbase(key)]
        pub customer: u64,
        pub name: String,
        pub city: String,
        pub phone: Option<String>,
    }

    /// An order, as the customer's history lists it: `[customer][2][order]`.
    #[derive(hbase_orm::HBaseEntity, Debug, Clone, PartialEq)]
    #[hbase(
        namespace = "example",
        table = "customer_orders_crm",
        family = "d",
        record_type(tag = 2, after = "customer")
    )]
    pub struct Order {
        #[hbase(key)]
        pub customer: u64,
        #[hbase(key)]
        pub number: u64,
        pub date: String,
        pub total_cents: i64,
    }

    /// Any row of the table: one prefix scan over `[customer]` reads a customer's rows.
    #[derive(HBaseRecord, Debug, Clone, PartialEq)]
    pub enum Record {
        Customer(Customer),
        Order(Order),
    }
}

/// The guide's composite keys for customers known by name.
mod keys {
    use hbase_orm::DictName;

    /// `[md5(customer)][md5(order)]`: 16 + 16 bytes. The hashed values are also stored in
    /// columns `d:customer` and `d:number`, to read them back.
    #[derive(hbase_orm::HBaseEntity, Debug, Clone, PartialEq)]
    #[hbase(namespace = "example", table = "customer_orders_md5", family = "d")]
    pub struct HashedOrder {
        #[hbase(key(md5))]
        pub customer: String,
        #[hbase(key(md5))]
        pub number: u64,
        pub total_cents: i64,
    }

    /// `[customer id][md5(order)]`: 4 + 16 bytes. The customer's name is replaced by its id in
    /// the `customers` dictionary (table `customer_orders_names`), assigned on the first save.
    #[derive(hbase_orm::HBaseEntity, Debug, Clone, PartialEq)]
    #[hbase(
        namespace = "example",
        table = "customer_orders_by_id",
        family = "d",
        dictionary_table = "customer_orders_names"
    )]
    pub struct NumberedOrder {
        #[hbase(key(dictionary = "customers"))]
        pub customer: DictName,
        #[hbase(key(md5))]
        pub number: u64,
        pub total_cents: i64,
    }
}

// ---------------------------------------------------------------------------------------------

/// The customer every order design stores.
const ADA: u64 = 42;

fn address(line1: &str, line2: Option<&str>, city: &str, state: &str, zip: &str) -> model::Address {
    model::Address {
        line1: line1.into(),
        line2: line2.map(Into::into),
        city: city.into(),
        state: state.into(),
        zip: zip.into(),
    }
}

fn item(item: &str, quantity: u32, price_cents: i64) -> model::LineItem {
    model::LineItem {
        item: item.into(),
        quantity,
        price_cents,
    }
}

fn springfield() -> model::Address {
    address("12 Elm Street", None, "Springfield", "IL", "62701")
}

/// Order 42/1001: two shipping locations, three line items.
fn big_order() -> model::Order {
    model::Order {
        customer: ADA,
        number: 1001,
        date: "2026-11-03".into(),
        locations: vec![
            model::ShippingLocation {
                to: springfield(),
                items: vec![item("PEN-BLUE", 3, 150), item("INK-BLACK", 1, 900)],
            },
            model::ShippingLocation {
                to: address("400 Oak Avenue", Some("Suite 5"), "Portland", "OR", "97201"),
                items: vec![item("DESK-OAK", 1, 25_000)],
            },
        ],
    }
}

/// Order 42/1002, stored next to 1001 so that reading 1001 must leave it out.
fn small_order() -> model::Order {
    model::Order {
        customer: ADA,
        number: 1002,
        date: "2026-11-09".into(),
        locations: vec![model::ShippingLocation {
            to: springfield(),
            items: vec![item("PAD-A4", 2, 400)],
        }],
    }
}

/// Order 42/1001 after its first location moved to the other side of the street.
fn moved_order() -> model::Order {
    let mut o = big_order();
    o.locations[0].to = moved_address();
    o
}

fn moved_address() -> model::Address {
    address("15 Elm Street", None, "Springfield", "IL", "62701")
}

/// The order key `[customer][order]` every design's row keys start with.
fn order_prefix(customer: u64, number: u64) -> Result<KeyPrefix> {
    normalized::ShippingLocationKey::prefix_by_customer_number(&customer, &number)
}

/// `key` in hex, a space between parts of these widths.
fn hex_parts(key: &[u8], widths: &[usize]) -> String {
    let mut rest = key;
    let mut parts = Vec::new();
    for &w in widths {
        let (part, tail) = rest.split_at(w.min(rest.len()));
        parts.push(part.iter().map(|b| format!("{b:02x}")).collect::<String>());
        rest = tail;
    }
    parts.join(" ")
}

/// What one design stores for order 42/1001 and what loading it costs.
struct Footprint {
    design: &'static str,
    tables: usize,
    rows: usize,
    cells: usize,
    /// Row key + family + qualifier + value of every cell: roughly what HBase stores.
    bytes: usize,
    reads: String,
}

/// The rows under `prefix` in `table`, read with the raw client.
async fn stored(client: &Client, table: TableName, prefix: &KeyPrefix) -> Result<Vec<Row>> {
    client
        .table_named(table)
        .scan(Scan::new().prefix(prefix.bytes.clone()))
        .try_collect()
        .await
}

/// Rows, cells and cell bytes (row key + family + qualifier + value of every cell).
fn measure(rows: &[Row]) -> (usize, usize, usize) {
    let cells = rows.iter().map(|r| r.cells.len()).sum();
    let bytes = rows
        .iter()
        .flat_map(|r| {
            r.cells
                .iter()
                .map(|c| r.key.len() + c.family.len() + c.qualifier.len() + c.value.len())
        })
        .sum();
    (rows.len(), cells, bytes)
}

async fn fully_normalized(ex: &mut Example, out: &mut Vec<Footprint>) -> Result<()> {
    ex.say("\n-- 1. fully normalized: ORDER, SHIPPING_LOCATION and LINE_ITEM tables");
    // The three tables are recreated at the same time (each takes HBase about a second).
    let (orders, locations, items) = tokio::join!(
        ex.fresh::<normalized::Order>(),
        ex.fresh::<normalized::ShippingLocation>(),
        ex.fresh::<normalized::LineItem>(),
    );
    let t = normalized::Tables {
        orders,
        locations,
        items,
    };
    ex.say(
        "why: every object is a row of its own table keyed by its parents' keys, as in a \
         relational schema; each piece changes alone.\n\
         trade-off: no joins in HBase, so loading an order is a get, a scan of its locations \
         and a scan of each location's line items.",
    );
    t.save(&big_order()).await?;
    t.save(&small_order()).await?;
    let (read, reads) = t.load(ADA, 1001).await?;
    ex.say(format!(
        "order 42/1001 loaded with {reads} reads (1 get, 1 + 2 scans)"
    ));
    ex.check_eq("the order reads back whole", read, Some(big_order()));
    ex.check_eq("reads: get + locations + one per location", reads, 4);
    let (read, _) = t.load(ADA, 1002).await?;
    ex.check_eq("order 42/1002 reads back alone", read, Some(small_order()));

    let mut footprint = Footprint {
        design: "1 normalized, 3 tables",
        tables: 3,
        rows: 0,
        cells: 0,
        bytes: 0,
        reads: format!("{reads} (get + scan + scan per location)"),
    };
    let prefix = order_prefix(ADA, 1001)?;
    for table in [
        normalized::Order::table_name(),
        normalized::ShippingLocation::table_name(),
        normalized::LineItem::table_name(),
    ] {
        let (rows, cells, bytes) = measure(&stored(ex.client(), table, &prefix).await?);
        footprint.rows += rows;
        footprint.cells += cells;
        footprint.bytes += bytes;
    }
    ex.check_eq("1 order + 2 location + 3 line-item rows", footprint.rows, 6);
    out.push(footprint);

    let written = t.move_location(ADA, 1001, 1, &moved_address()).await?;
    ex.say(format!(
        "location 1 moved to 15 Elm Street: {written} row written"
    ));
    ex.check_eq("an address change writes one row", written, 1);
    let (read, _) = t.load(ADA, 1001).await?;
    ex.check_eq(
        "both of its line items ship to the new address",
        read,
        Some(moved_order()),
    );
    Ok(())
}

async fn record_types(ex: &mut Example, out: &mut Vec<Footprint>) -> Result<()> {
    ex.say("\n-- 2. one table with record types: [order][1], [order][2][location], [order][3][location][line]");
    // The three entities share the table and its family `d`: one `fresh` creates it.
    let orders = ex.fresh::<typed::Order>().await;
    let client = ex.client().clone();
    let t = typed::Table {
        locations: client.repository::<typed::ShippingLocation>(),
        items: client.repository::<typed::LineItem>(),
        orders,
        client,
    };
    ex.say(
        "why: the record-type byte after the order key keeps an order's rows together and in \
         a fixed order, so ONE prefix scan reads the whole order.\n\
         trade-off: reading one kind of row across orders (every line item) scans past the \
         other kinds.",
    );
    t.save(&big_order()).await?;
    t.save(&small_order()).await?;
    let rows = t.rows(ADA, 1001).await?;
    let labels: Vec<String> = rows.iter().map(typed::Record::label).collect();
    ex.say(format!(
        "one prefix scan of 42/1001 read: {}",
        labels.join(", ")
    ));
    ex.check_eq(
        "the order row, then its locations, then its line items",
        labels,
        [
            "order 1001",
            "location 1",
            "location 2",
            "line 1/1",
            "line 1/2",
            "line 2/1",
        ]
        .map(String::from)
        .to_vec(),
    );
    ex.check_eq(
        "the order reads back whole from one scan",
        typed::Table::assemble(rows),
        Some(big_order()),
    );
    let small = typed::Table::assemble(t.rows(ADA, 1002).await?);
    ex.check_eq("order 42/1002 reads back alone", small, Some(small_order()));

    let (rows, cells, bytes) = measure(
        &stored(
            ex.client(),
            typed::Order::table_name(),
            &order_prefix(ADA, 1001)?,
        )
        .await?,
    );
    out.push(Footprint {
        design: "2 record types, 1 table",
        tables: 1,
        rows,
        cells,
        bytes,
        reads: "1 prefix scan".into(),
    });

    // Every line item of every order: an entity scan keeps only its own record type, but the
    // region servers still return the other rows, which the client drops.
    let all_items: Vec<typed::LineItem> = t.items.scan().stream().try_collect().await?;
    let all_rows: Vec<Row> = ex
        .client()
        .table_named(typed::Order::table_name())
        .scan(Scan::new())
        .try_collect()
        .await?;
    ex.say(format!(
        "every line item of every order: {} line items out of {} rows read",
        all_items.len(),
        all_rows.len()
    ));
    ex.check_eq("4 line items", all_items.len(), 4);
    ex.check_eq(
        "read through 9 rows (2 orders, 3 locations, 4 line items)",
        all_rows.len(),
        9,
    );
    Ok(())
}

async fn denormalized_line_items(ex: &mut Example, out: &mut Vec<Footprint>) -> Result<()> {
    ex.say("\n-- 3. denormalized: each line item carries its shipping address (ship_* columns)");
    let orders = ex.fresh::<denormalized::Order>().await;
    let client = ex.client().clone();
    let t = denormalized::Table {
        items: client.repository::<denormalized::LineItem>(),
        orders,
        client,
    };
    ex.say(
        "why: no location rows: a line item says what, how many and where to, so one row is \
         enough to ship it, and the order is an order row plus its line items.\n\
         trade-off: the address is repeated on every line item going there; changing it \
         rewrites all of them.",
    );
    t.save(&big_order()).await?;
    t.save(&small_order()).await?;
    let read = t.load(ADA, 1001).await?;
    ex.check_eq(
        "the order reads back whole from one scan",
        read,
        Some(big_order()),
    );
    ex.check_eq(
        "order 42/1002 reads back alone",
        t.load(ADA, 1002).await?,
        Some(small_order()),
    );
    let desk = t
        .items
        .get(&denormalized::LineItemKey {
            customer: ADA,
            number: 1001,
            line: 3,
        })
        .await?;
    let desk_city = desk
        .as_ref()
        .map(|l| (l.item.as_str(), l.ship_to.city.as_str()));
    if let Some((item, city)) = desk_city {
        ex.say(format!("line 3 alone, one get: {item}, ships to {city}"));
    }
    ex.check_eq(
        "one get says what line 3 is and where it goes",
        desk_city,
        Some(("DESK-OAK", "Portland")),
    );

    let (rows, cells, bytes) = measure(
        &stored(
            ex.client(),
            denormalized::Order::table_name(),
            &order_prefix(ADA, 1001)?,
        )
        .await?,
    );
    ex.check_eq("1 order + 3 line-item rows", rows, 4);
    out.push(Footprint {
        design: "3 denormalized line items",
        tables: 1,
        rows,
        cells,
        bytes,
        reads: "1 prefix scan".into(),
    });

    let written = t
        .move_location(ADA, 1001, &springfield(), &moved_address())
        .await?;
    ex.say(format!(
        "location 1 moved to 15 Elm Street: {written} rows written (normalized: 1)"
    ));
    ex.check_eq(
        "an address change rewrites each of its line items",
        written,
        2,
    );
    ex.check_eq(
        "both line items ship to the new address",
        t.load(ADA, 1001).await?,
        Some(moved_order()),
    );
    ex.check_eq(
        "order 1002, same old address, is another order: untouched",
        t.load(ADA, 1002).await?,
        Some(small_order()),
    );
    Ok(())
}

async fn one_blob(ex: &mut Example, out: &mut Vec<Footprint>) -> Result<()> {
    ex.say("\n-- 4. the whole order as one BLOB: a JSON document in d:order");
    let orders = ex.fresh::<blob::Order>().await;
    let old_release = ex.client().repository::<blob::OrderV1>();
    ex.say(
        "why: the least I/O: an order is one get of one cell, however many locations and items.\n\
         trade-off: to see one line item the whole document is read and decoded, HBase filters \
         cannot look inside it, and every change of the struct must keep old documents readable.",
    );
    let gift = "Happy birthday!";
    orders
        .save(&blob::Order::of(&big_order(), Some(gift)))
        .await?;
    let read = orders
        .get(&blob::OrderKey {
            customer: ADA,
            number: 1001,
        })
        .await?;
    ex.check_eq(
        "the order reads back whole from one get",
        read.clone().map(blob::Order::model),
        Some(big_order()),
    );
    ex.check_eq(
        "with its gift note",
        read.and_then(|o| o.order.gift_note),
        Some(gift.to_string()),
    );
    let raw = stored(
        ex.client(),
        blob::Order::table_name(),
        &order_prefix(ADA, 1001)?,
    )
    .await?;
    let (rows, cells, bytes) = measure(&raw);
    let doc = raw
        .first()
        .and_then(|r| r.value("d", "order"))
        .map(|v| String::from_utf8_lossy(v).into_owned())
        .unwrap_or_default();
    ex.say(format!(
        "d:order holds {} bytes: {}...",
        doc.len(),
        &doc[..doc.len().min(72)]
    ));
    ex.check_eq("one row, one cell", (rows, cells), (1, 1));
    out.push(Footprint {
        design: "4 one BLOB",
        tables: 1,
        rows,
        cells,
        bytes,
        reads: "1 get".into(),
    });

    // The schema change: the previous release (struct OrderDocV1, no gift note) wrote 1002.
    let v1 = small_order();
    old_release
        .save(&blob::OrderV1 {
            customer: v1.customer,
            number: v1.number,
            order: blob::OrderDocV1 {
                date: v1.date.clone(),
                locations: v1.locations.clone(),
            },
        })
        .await?;
    let read = orders
        .get(&blob::OrderKey {
            customer: ADA,
            number: 1002,
        })
        .await?;
    ex.say(format!(
        "order 1002, written by the previous release, read by this one: gift note {:?}",
        read.as_ref().and_then(|o| o.order.gift_note.as_deref())
    ));
    ex.check_eq(
        "an old document reads with the new field empty",
        read.map(|o| (o.order.gift_note.clone(), o.model())),
        Some((None, small_order())),
    );
    let by_old = old_release
        .get(&blob::OrderV1Key {
            customer: ADA,
            number: 1001,
        })
        .await?;
    ex.check_eq(
        "the previous release still reads new documents (unknown field ignored)",
        by_old.map(|o| o.order.locations),
        Some(big_order().locations),
    );
    Ok(())
}

fn summary(ex: &Example, footprints: &[Footprint]) {
    ex.say("\n-- order 42/1001 (2 locations, 3 line items) in the four designs");
    ex.say(format!(
        "{:<27} {:>6} {:>5} {:>6} {:>11}  {}",
        "design", "tables", "rows", "cells", "cell bytes", "reads to load it"
    ));
    for f in footprints {
        ex.say(format!(
            "{:<27} {:>6} {:>5} {:>6} {:>11}  {}",
            f.design, f.tables, f.rows, f.cells, f.bytes, f.reads
        ));
    }
    ex.say(
        "(cell bytes: row key + family + qualifier + value of every cell, roughly what HBase \
         stores. The row key is repeated in every cell, so many small cells cost more than one \
         large one; the denormalized line items also repeat their address.)",
    );
}

async fn customer_plus_plus(ex: &mut Example) -> Result<()> {
    ex.say("\n-- CUSTOMER++: a customer and its orders in one table, [customer][1] and [customer][2][order]");
    let customers = ex.fresh::<crm::Customer>().await;
    let orders = ex.client().repository::<crm::Order>();
    ex.say(
        "why: everything about a customer sits under its key: one scan reads the customer \
         and all its orders, no second table to look in.\n\
         trade-off: listing only orders, or only customers, reads past the other type.",
    );
    let customer = |customer: u64, name: &str, city: &str| crm::Customer {
        customer,
        name: name.into(),
        city: city.into(),
        phone: None,
    };
    customers
        .save_all(&[
            customer(7, "Bob Bobson", "Oslo"),
            crm::Customer {
                phone: Some("+1 217 555 0142".into()),
                ..customer(ADA, "Ada Lovelace", "Springfield")
            },
            customer(420, "Cyd Charisse", "Portland"),
        ])
        .await?;
    let order = |customer: u64, number: u64, day: u32, total_cents: i64| crm::Order {
        customer,
        number,
        date: format!("2026-11-{day:02}"),
        total_cents,
    };
    orders
        .save_all(&[
            order(ADA, 1001, 3, 26_350),
            order(ADA, 1002, 9, 800),
            order(ADA, 1010, 20, 4_500),
            order(7, 1001, 5, 3_200),
            order(420, 1001, 6, 100),
        ])
        .await?;

    let of_ada: Vec<crm::Record> = ex
        .client()
        .records::<crm::Record>()
        .scan_prefix(crm::OrderKey::prefix_by_customer(&ADA)?)
        .try_collect()
        .await?;
    ex.say("one prefix scan of customer 42:");
    for r in &of_ada {
        match r {
            crm::Record::Customer(c) => {
                ex.say(format!("  customer {} {} ({})", c.customer, c.name, c.city))
            }
            crm::Record::Order(o) => ex.say(format!(
                "  order    {} of {}, {} cents",
                o.number, o.date, o.total_cents
            )),
        }
    }
    let shape: Vec<(char, u64)> = of_ada
        .iter()
        .map(|r| match r {
            crm::Record::Customer(c) => ('c', c.customer),
            crm::Record::Order(o) => ('o', o.number),
        })
        .collect();
    ex.check_eq(
        "the customer first, then its orders by number (420's not mixed in: fixed-width parts)",
        shape,
        vec![('c', ADA), ('o', 1001), ('o', 1002), ('o', 1010)],
    );
    let spent: i64 = of_ada
        .iter()
        .filter_map(|r| match r {
            crm::Record::Order(o) => Some(o.total_cents),
            _ => None,
        })
        .sum();
    ex.check_eq("customer 42 spent 31_650 cents", spent, 31_650);
    let only_orders: Vec<crm::Order> = orders.scan().stream().try_collect().await?;
    ex.check_eq(
        "a scan of orders returns orders only (5 of 8 rows)",
        only_orders.len(),
        5,
    );
    Ok(())
}

async fn composite_keys(ex: &mut Example) -> Result<()> {
    ex.say(
        "\n-- composite keys for customers known by name: hashed, and with a numeric substitute",
    );
    let (hashed, numbered) = tokio::join!(
        ex.fresh::<keys::HashedOrder>(),
        ex.fresh::<keys::NumberedOrder>(),
    );
    ex.say(
        "why: fixed-length parts make every prefix exact; MD5 spreads customers (and orders) \
         evenly over the regions; a dictionary id keeps a customer's orders together in 4 bytes.\n\
         trade-off: hashed parts give up ranges (orders 1001..1010 are not one scan), and the \
         dictionary costs a lookup table and a read to find an id.",
    );
    let lovelace = "Lovelace Analytical Engines Ltd";
    let babbage = "Babbage & Sons";
    let orders = [
        (lovelace, 1001, 26_350),
        (lovelace, 1002, 800),
        (lovelace, 1010, 4_500),
        (babbage, 1001, 3_200),
    ];
    let hashed_orders: Vec<_> = orders
        .iter()
        .map(|&(c, number, total_cents)| keys::HashedOrder {
            customer: c.into(),
            number,
            total_cents,
        })
        .collect();
    hashed.save_all(&hashed_orders).await?;
    let numbered_orders: Vec<_> = orders
        .iter()
        .map(|&(c, number, total_cents)| keys::NumberedOrder {
            customer: c.into(),
            number,
            total_cents,
        })
        .collect();
    numbered.save_all(&numbered_orders).await?;

    // [md5(customer)][md5(order)]
    let got = hashed
        .get(&keys::HashedOrderKey {
            customer: lovelace.into(),
            number: 1002,
        })
        .await?;
    ex.check_eq(
        "md5 key: a get by name and number reads both back from their columns",
        got,
        Some(hashed_orders[1].clone()),
    );
    let of_lovelace: Vec<keys::HashedOrder> = hashed
        .scan()
        .prefix(keys::HashedOrderKey::prefix_by_customer(&lovelace.into())?)
        .stream()
        .try_collect()
        .await?;
    let mut numbers: Vec<u64> = of_lovelace.iter().map(|o| o.number).collect();
    ex.say(format!(
        "md5 key: the customer's orders come in hash order: {numbers:?}"
    ));
    numbers.sort();
    ex.check_eq(
        "md5 key: one prefix scan finds the customer's 3 orders",
        numbers,
        vec![1001, 1002, 1010],
    );

    // [customer id][md5(order)]
    let customers = numbered.dictionary("customers");
    let ids = (
        customers.lookup(lovelace).await?,
        customers.lookup(babbage).await?,
    );
    ex.say(format!(
        "dictionary: {lovelace:?} ({} bytes) is id {}, {babbage:?} id {}",
        lovelace.len(),
        ids.0.unwrap_or_default(),
        ids.1.unwrap_or_default()
    ));
    // The batch saves concurrently, so which customer is claimed first varies; the ids do not
    // repeat and none is wasted.
    let mut assigned = [ids.0, ids.1];
    assigned.sort();
    ex.check_eq(
        "dictionary: the two customers got ids 1 and 2, one each",
        assigned,
        [Some(1), Some(2)],
    );
    let got = numbered
        .get(&keys::NumberedOrderKey {
            customer: babbage.into(),
            number: 1001,
        })
        .await?;
    ex.check_eq(
        "dictionary key: a get by name reads the order with its name filled in",
        got.as_ref().map(|o| (o.customer.name(), o.total_cents)),
        Some((Some(babbage), 3_200)),
    );
    let name = hbase_orm::DictName::new(lovelace);
    customers.resolve(&name, false).await?;
    let of_lovelace: Vec<keys::NumberedOrder> = numbered
        .scan()
        .prefix(keys::NumberedOrderKey::prefix_by_customer(&name)?)
        .stream()
        .try_collect()
        .await?;
    let mut numbers: Vec<u64> = of_lovelace.iter().map(|o| o.number).collect();
    numbers.sort();
    ex.check_eq(
        "dictionary key: one prefix scan finds the customer's 3 orders",
        numbers,
        vec![1001, 1002, 1010],
    );

    // The four keys of order 1001 side by side, split into their parts.
    let samples = [
        (
            "[customer number][order number]  (designs 1-4)",
            normalized::Order {
                customer: ADA,
                number: 1001,
                date: String::new(),
            }
            .row_key()?,
            &[8, 8][..],
        ),
        (
            "[customer number][type][order]   (CUSTOMER++)",
            crm::Order {
                customer: ADA,
                number: 1001,
                date: String::new(),
                total_cents: 0,
            }
            .row_key()?,
            &[8, 1, 8][..],
        ),
        (
            "[md5(customer)][md5(order)]",
            hashed_orders[0].row_key()?,
            &[16, 16][..],
        ),
        (
            "[customer id][md5(order)]",
            // `name` holds the customer's id now (resolved above), so the key can be encoded
            // outside the repository.
            keys::NumberedOrder {
                customer: name.clone(),
                ..numbered_orders[0].clone()
            }
            .row_key()?,
            &[4, 16][..],
        ),
    ];
    ex.say(format!(
        "{:<47} {:>5}  the key in hex, part by part",
        "row key of order 1001", "bytes"
    ));
    for (layout, key, widths) in &samples {
        ex.say(format!(
            "{layout:<47} {:>5}  {}",
            key.len(),
            hex_parts(key, widths)
        ));
    }
    let lengths: Vec<usize> = samples.iter().map(|(_, k, _)| k.len()).collect();
    ex.check_eq(
        "key lengths 8+8, 8+1+8, 16+16, 4+16 bytes",
        lengths,
        vec![16, 17, 32, 20],
    );
    let everything = KeyPrefix {
        bytes: Vec::new(),
        all_buckets: false,
    };
    let md5_rows = stored(ex.client(), keys::HashedOrder::table_name(), &everything).await?;
    let id_rows = stored(ex.client(), keys::NumberedOrder::table_name(), &everything).await?;
    ex.check(
        "every stored md5 key is 32 bytes, Lovelace's 1001 among them",
        md5_rows.len() == 4
            && md5_rows.iter().all(|r| r.key.len() == 32)
            && md5_rows.iter().any(|r| r.key == samples[2].1),
    );
    ex.check(
        "every stored dictionary key is 20 bytes (the guide's substitute takes 8), Lovelace's 1001 among them",
        id_rows.len() == 4
            && id_rows.iter().all(|r| r.key.len() == 20)
            && id_rows.iter().any(|r| r.key == samples[3].1),
    );
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    let mut ex = Example::start(
        "customer_orders",
        "The HBase reference guide's customer/order case study. One order (2 shipping \
         locations, 3 line items) is stored four ways: normalized tables, one table with \
         record types, denormalized line items, and one BLOB. Each loads it back whole and \
         says what it costs. Then customers and orders in one table (CUSTOMER++), and \
         composite keys with MD5 parts and a numeric substitute.",
        Client::from_env().await,
    )
    .await;
    let mut footprints = Vec::new();

    let ran = fully_normalized(&mut ex, &mut footprints).await;
    ex.ran("design 1", ran);
    ex.advice::<normalized::Order>(&[]);
    ex.advice::<normalized::ShippingLocation>(&[]);
    ex.advice::<normalized::LineItem>(&[]);

    let ran = record_types(&mut ex, &mut footprints).await;
    ex.ran("design 2", ran);
    ex.advice::<typed::Order>(&[]);
    ex.advice::<typed::ShippingLocation>(&[]);
    ex.advice::<typed::LineItem>(&[]);

    let ran = denormalized_line_items(&mut ex, &mut footprints).await;
    ex.ran("design 3", ran);
    ex.advice::<denormalized::Order>(&[]);
    ex.advice::<denormalized::LineItem>(&[]);

    let ran = one_blob(&mut ex, &mut footprints).await;
    ex.ran("design 4", ran);
    ex.advice::<blob::Order>(&[]);
    ex.advice::<blob::OrderV1>(&[]);

    summary(&ex, &footprints);

    let ran = customer_plus_plus(&mut ex).await;
    ex.ran("CUSTOMER++", ran);
    ex.advice::<crm::Customer>(&[]);
    ex.advice::<crm::Order>(&[]);

    let ran = composite_keys(&mut ex).await;
    ex.ran("composite keys", ran);
    ex.advice::<keys::HashedOrder>(&[]);
    ex.advice::<keys::NumberedOrder>(&[]);

    ex.finish()
}
