//! Byte helpers for row keys: the end of a prefix range ([`prefix_end`]), a key as
//! readable text ([`printable_key`]) and a list of keys that prints as such ([`RowKeys`]).

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

/// Row keys listed by an error ([`Error::PartialBatch`](crate::Error::PartialBatch)'s rows
/// not written): the raw keys, as a `Vec` of them (it derefs to one), which print as HBase
/// prints keys ([`printable_key`]), at most [`RowKeys::SHOWN`] of them, then how many more.
///
/// ```
/// use hbase_orm::RowKeys;
/// let keys = RowKeys::from((0..12u8).map(|i| vec![b'o', 0, i]).collect::<Vec<_>>());
/// assert_eq!(keys.len(), 12);
/// assert_eq!(keys[1], b"o\x00\x01");
/// assert_eq!(
///     format!("{keys:?}"),
///     r#"["o\x00\x00", "o\x00\x01", "o\x00\x02", "o\x00\x03", "o\x00\x04", "o\x00\x05", "o\x00\x06", "o\x00\x07", ...and 4 more]"#
/// );
/// ```
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct RowKeys(pub Vec<Vec<u8>>);

impl RowKeys {
    /// How many keys `Debug` and `Display` print before saying how many more there are.
    pub const SHOWN: usize = 8;

    /// The keys.
    pub fn into_vec(self) -> Vec<Vec<u8>> {
        self.0
    }

    /// Writes the first `shown` keys (at least one) as HBase prints them, then how many more
    /// there are.
    fn write(
        &self,
        f: &mut std::fmt::Formatter<'_>,
        shown: usize,
        quote: bool,
    ) -> std::fmt::Result {
        for (i, key) in self.0.iter().take(shown).enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            if quote {
                write!(f, "{sep}\"{}\"", printable_key(key))?;
            } else {
                write!(f, "{sep}{}", printable_key(key))?;
            }
        }
        match self.0.len().saturating_sub(shown) {
            0 => Ok(()),
            more => write!(f, ", ...and {more} more"),
        }
    }
}

impl std::fmt::Debug for RowKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("[")?;
        self.write(f, Self::SHOWN, true)?;
        f.write_str("]")
    }
}

/// The first three keys, then how many more: `o-1, o-7, o-9, ...and 61 more`.
impl std::fmt::Display for RowKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.write(f, 3, false)
    }
}

impl std::ops::Deref for RowKeys {
    type Target = Vec<Vec<u8>>;

    fn deref(&self) -> &Vec<Vec<u8>> {
        &self.0
    }
}

impl From<Vec<Vec<u8>>> for RowKeys {
    fn from(keys: Vec<Vec<u8>>) -> Self {
        RowKeys(keys)
    }
}

impl PartialEq<Vec<Vec<u8>>> for RowKeys {
    fn eq(&self, other: &Vec<Vec<u8>>) -> bool {
        &self.0 == other
    }
}

impl IntoIterator for RowKeys {
    type Item = Vec<u8>;
    type IntoIter = std::vec::IntoIter<Vec<u8>>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a RowKeys {
    type Item = &'a Vec<u8>;
    type IntoIter = std::slice::Iter<'a, Vec<u8>>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
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
