//! Byte helpers for row keys: the end of a prefix range ([`prefix_end`]) and a key as
//! readable text ([`printable_key`]).

/// The smallest key greater than every key that starts with `prefix`, or `None` when no such key
/// exists (the prefix is empty or all `0xFF`).
pub fn prefix_end(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last != 0xFF {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}

/// A row key as readable text: printable ASCII as is, every other byte as `\xNN` (the form
/// HBase's `Bytes.toStringBinary` uses), so keys in messages can be pasted into the HBase shell.
///
/// ```
/// assert_eq!(hbase_orm::printable_key(b"cust\x00\x2a"), "cust\\x00*");
/// ```
pub fn printable_key(key: &[u8]) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(key.len());
    for &b in key {
        if (0x20..0x7F).contains(&b) && b != b'\\' {
            out.push(b as char);
        } else {
            let _ = write!(out, "\\x{b:02X}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printable_key_escapes_binary_bytes() {
        assert_eq!(printable_key(b"a-1"), "a-1");
        assert_eq!(printable_key(&[0, 0xFF, b'\\']), "\\x00\\xFF\\x5C");
    }

    #[test]
    fn prefix_end_increments_the_last_byte_that_can_grow() {
        assert_eq!(prefix_end(b"ab"), Some(b"ac".to_vec()));
        assert_eq!(prefix_end(&[1, 0xFF]), Some(vec![2]));
        assert_eq!(prefix_end(&[0xFF, 0xFF]), None);
        assert_eq!(prefix_end(b""), None);
    }
}
