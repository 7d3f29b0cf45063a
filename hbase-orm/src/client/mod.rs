//! The async client: a pool of gateway connections, and handles for data and admin calls.
//!
//! | file | concern |
//! | --- | --- |
//! | `handle.rs` | [`Client`], [`ClientBuilder`], [`ClientStats`] |
//! | `table.rs` | [`Table`]: data calls on one table, batches and their fallbacks |
//! | `labels.rs` | a [`Table`] handle's cell visibility and read authorizations |
//! | `admin.rs` | [`Admin`]: namespaces, tables, families, regions |
//! | `security.rs` | [`Admin`]: who may do what (permissions) |
//! | `retry.rs` | running an operation under the retry rules and a deadline |
//! | `scan.rs` | [`RowStream`]: a scan's pages, prefetch, resuming a lost scanner |
//! | `plan.rs` | which keys a scan reads: bounds, prefixes, salt buckets, regions |
//! | `parallel.rs` | a scan split at region boundaries, read several regions at once |

mod admin;
mod handle;
mod labels;
mod parallel;
pub(crate) mod plan;
mod retry;
mod scan;
mod security;
mod table;

pub use admin::Admin;
pub use handle::{Client, ClientBuilder, ClientStats};
pub use scan::RowStream;
pub use table::Table;
