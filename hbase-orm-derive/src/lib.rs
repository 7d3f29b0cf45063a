//! Procedural macros for `hbase-orm`.
//!
//! The `#[derive(HBaseEntity)]` macro lands here; until then this crate is an empty placeholder
//! so that the workspace has its final shape.
