//! Text helpers: string comparison usable in constants, and the edit distance behind
//! did-you-mean hints.

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

/// The Levenshtein distance between two strings (insertions, deletions and substitutions of
/// one character each count one), for the did-you-mean hints of errors.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        current[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::edit_distance;

    #[test]
    fn edit_distance_counts_single_character_edits() {
        assert_eq!(edit_distance("pool_size", "pool_size"), 0);
        assert_eq!(edit_distance("pool_sise", "pool_size"), 1);
        assert_eq!(edit_distance("poolsize", "pool_size"), 1);
        assert_eq!(edit_distance("timeout", "timeout_ms"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
