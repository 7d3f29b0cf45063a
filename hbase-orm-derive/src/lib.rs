//! `#[derive(HBaseEntity)]` for `hbase-orm`.
//!
//! The macro works in three steps, one module each: `attr` parses the `#[hbase(...)]`
//! attributes (darling), `valid` checks them and collects every mistake at once, `expand`
//! writes an `impl hbase_orm::HBaseEntity` and the entity's key type. On errors it still emits
//! a stub impl, so one mistake gives one message rather than a cascade.
//!
//! See the `hbase_orm::HBaseEntity` documentation for the attributes.

mod attr;
mod expand;
mod record;
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
    expand::derive(&input).into()
}

/// Derives `hbase_orm::RecordSet` for an enum whose variants each hold one entity type; the
/// types share one table and carry `#[hbase(record_type(tag = ...))]`.
///
/// ```text
/// #[derive(HBaseRecord)]
/// enum CustomerRecord {
///     Customer(Customer),
///     Order(Order),
/// }
/// ```
#[proc_macro_derive(HBaseRecord)]
pub fn derive_hbase_record(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    record::derive(&input).into()
}
