//! Text helpers usable in constants.

/// `true` when two strings are equal; usable in constants (the derive checks that all variants
/// of a record set name the same table, the native backend that every family option has an
/// HBase attribute key).
///
/// ```
/// const SAME: bool = hbase_orm::records::same_str("orders", "orders");
/// assert!(SAME);
/// ```
pub const fn same_str(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}
