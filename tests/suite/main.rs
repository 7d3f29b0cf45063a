//! The integration tests that share the local HBase peacefully, as one test binary: it is
//! linked once and its tests run at the same time, each on tables of its own.
//!
//! Tests that stop or restart a gateway or HBase itself (`faults`, `gateways`, `scanner_ids`,
//! `native_restart`), that install a process-wide recorder (`metrics`, `http_gateways`), or
//! that need another HBase (`cluster`, `kerberos`) are test binaries of their own, which
//! `cargo test` runs one after another, never beside this one.
//!
//! One module per concern; `cargo test --test suite entities::` runs one of them, and
//! `cargo test --test suite thrift1_http::` one backend's share of the conformance suite.

mod admin;
mod bad_input;
mod bulk_load;
mod consistency;
mod data_ops;
mod dictionary_keys;
mod entities;
mod entity_filters;
mod flattened;
mod hfiles;
mod index_failures;
mod index_tables;
mod native;
mod native_scanner;
mod rich_mapping;
mod rich_mapping_edges;
mod rowkeys;
mod scanner_lease;
mod scans;
mod schema;
mod thrift1;
mod wide_rows;
mod wire;
