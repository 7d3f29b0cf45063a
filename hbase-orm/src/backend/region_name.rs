//! HBase's region names, as meta keys its rows and the gateways report them: a region's name is
//! `table,start key,region id.encoded.`, where the encoded part is the MD5 (32 hex digits) of
//! what precedes it (names made before HBase 0.90, such as meta's own `hbase:meta,,1`, have
//! none); the name of a region's secondary replica `N` has `_000N` (four hex digits) after the
//! region id, and an encoded part of its own.

/// `name` without its encoded part, and whether it had one.
pub(crate) fn without_encoded(name: &[u8]) -> (&[u8], bool) {
    match name.len().checked_sub(34) {
        Some(at)
            if name[at] == b'.'
                && name.ends_with(b".")
                && name[at + 1..name.len() - 1]
                    .iter()
                    .all(u8::is_ascii_hexdigit) =>
        {
            (&name[..at], true)
        }
        _ => (name, false),
    }
}

/// Whether the region called `name` is a secondary replica.
#[cfg_attr(not(feature = "thrift1"), allow(dead_code))] // Thrift1's region list
pub(crate) fn is_secondary_replica(name: &[u8]) -> bool {
    let (base, _) = without_encoded(name);
    let id = base.rsplit(|&b| b == b',').next().unwrap_or_default();
    match id.iter().rposition(|&b| b == b'_') {
        Some(at) => id.len() - at == 5 && id[at + 1..].iter().all(u8::is_ascii_hexdigit),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secondary_replicas_are_told_by_their_names() {
        let primary = b"ns:t,k_0001,1700000000000.8bdf7aeb78389f57428bb7b5b424c0ce.";
        let secondary = b"ns:t,k_0001,1700000000000_0001.dafe7bf977bd8b12f7c47c544d69da14.";
        assert!(
            !is_secondary_replica(primary),
            "a start key may hold `_0001`"
        );
        assert!(is_secondary_replica(secondary));
        assert!(is_secondary_replica(b"hbase:meta,,1_000A"));
        assert!(!is_secondary_replica(b"hbase:meta,,1"));
        assert!(!is_secondary_replica(b""));
        assert_eq!(
            without_encoded(primary),
            (&b"ns:t,k_0001,1700000000000"[..], true)
        );
        assert_eq!(
            without_encoded(b"hbase:meta,,1"),
            (&b"hbase:meta,,1"[..], false)
        );
    }
}
