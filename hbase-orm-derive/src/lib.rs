//! `#[derive(HBaseEntity)]` for `hbase-orm`.
//!
//! Both derives work in the same steps: `known` reports attribute names it does not know (and
//! takes them out), `attr` parses the `#[hbase(...)]` attributes (darling), `valid` checks
//! them, collects every mistake at once and builds the plain-data `model`, and `expand` writes
//! the code (it is the only module that builds tokens). On errors they still emit a stub impl,
//! so one mistake gives one message rather than a cascade.
//!
//! See the `hbase_orm::HBaseEntity` documentation for the attributes.

mod attr;
mod expand;
mod known;
mod model;
mod valid;

use proc_macro::TokenStream;
use syn::{parse_macro_input, DeriveInput};

/// Derives `hbase_orm::HBaseEntity`: the mapping of a struct to HBase rows.
///
/// ```text
/// #[derive(HBaseEntity)]
/// #[hbase(namespace = "shop", table = "orders", family = "d", key_delimiter = '|')]
/// struct Order {
///     #[hbase(key)]
///     customer: String,
///     #[hbase(key)]
///     number: u64,
///     #[hbase(rename = "t")]
///     total: f64,
///     #[hbase(family = "x", json)]
///     lines: Vec<Line>,
///     notes: Option<String>,
/// }
/// ```
#[proc_macro_derive(HBaseEntity, attributes(hbase))]
pub fn derive_hbase_entity(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive_entity(&input).into()
}

/// Derives `hbase_orm::RecordSet` for an enum whose variants each hold one entity type; the
/// types share one table and carry `#[hbase(record_type(tag = ...))]`. `#[hbase(crate =
/// "path")]` names the library through a re-export.
///
/// ```text
/// #[derive(HBaseRecord)]
/// enum CustomerRecord {
///     Customer(Customer),
///     Order(Order),
/// }
/// ```
#[proc_macro_derive(HBaseRecord, attributes(hbase))]
pub fn derive_hbase_record(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive_record(&input).into()
}

/// Derives `hbase_orm::entity::ColumnGroup` for a struct stored as columns of an entity's row:
/// `#[hbase(flatten, prefix = "ship_")] ship: Address` or
/// `#[hbase(family = "item", children)] items: Vec<Item>` on the entity.
///
/// ```text
/// #[derive(HBaseColumns)]
/// struct Address {
///     city: String,
///     #[hbase(rename = "z")]
///     zip: Option<String>,
/// }
/// ```
#[proc_macro_derive(HBaseColumns, attributes(hbase))]
pub fn derive_hbase_columns(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive_group(&input).into()
}
