//! Compile-time tests of `#[derive(HBaseEntity)]`, run with trybuild.
//!
//! `tests/ui/pass/*.rs` must compile (and run): every attribute and codec combination the derive
//! supports, including the generated key struct and prefix functions in a crate that denies
//! `missing_docs`. `tests/ui/fail/*.rs` must fail to compile with exactly the messages in the
//! matching `.stderr` snapshots: one program per attribute mistake, each message pointing at the
//! offending attribute, field or type, several mistakes reported together, and no cascade of
//! "`HBaseEntity` is not implemented" errors in code that uses a mis-declared entity.
//!
//! The snapshots depend on the compiler's wording. After a deliberate change to a message (or a
//! toolchain upgrade), regenerate them and review the diff:
//!
//! ```text
//! TRYBUILD=overwrite cargo test -p hbase-orm-derive-ui --test derive_ui
//! ```

#[test]
fn derive_ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    t.compile_fail("tests/ui/fail/*.rs");
}
