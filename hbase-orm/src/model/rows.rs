//! What HBase answers: a [`Row`] and its [`Cell`]s.

/// One stored value: a cell at `family:qualifier` with its version timestamp (milliseconds).
///
/// Its bytes are [`Bytes`](bytes::Bytes): the cells read from a Thrift2 gateway share the
/// buffer the reply arrived in instead of a copy each, the cells of a scan page from another
/// backend share one buffer of that page, and a clone shares them too. They read as `&[u8]`
/// (`&cell.value[..]`, `cell.value.as_ref()`), compare with byte slices and vectors, and convert
/// from a `Vec<u8>` without a copy (`Bytes::from(vec)`). A cell keeps the buffer it came in
/// alive (all of a scan page's bytes; a small reply, such as a get's, is its own buffer): to
/// keep a few small values of many pages for long, copy them (`cell.value.to_vec()`).
///
/// ```
/// use hbase_orm::{Bytes, Cell};
/// let cell = Cell {
///     family: Bytes::from_static(b"d"),
///     qualifier: Bytes::from_static(b"city"),
///     value: Bytes::from(b"Oslo".to_vec()),
///     timestamp: 1,
/// };
/// assert_eq!(cell.value, b"Oslo"[..]);
/// assert_eq!(std::str::from_utf8(&cell.value).unwrap(), "Oslo");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    /// Column family.
    pub family: bytes::Bytes,
    /// Column qualifier.
    pub qualifier: bytes::Bytes,
    /// The stored bytes.
    pub value: bytes::Bytes,
    /// Version timestamp in milliseconds since the epoch.
    pub timestamp: i64,
}

/// A row as HBase returns it: its key and its cells, sorted by family, qualifier and then
/// newest version first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Row {
    /// The row key.
    pub key: Vec<u8>,
    /// The cells read, in HBase's order.
    pub cells: Vec<Cell>,
    /// Whether a secondary region replica answered (a read with
    /// [`Consistency::Timeline`](crate::Consistency::Timeline)): the row may miss recent
    /// writes.
    pub stale: bool,
}

impl Row {
    /// A row with its key and no cells.
    pub fn empty(key: Vec<u8>) -> Row {
        Row::new(key, Vec::new())
    }

    /// A row with its key and cells (not stale).
    ///
    /// ```
    /// let row = hbase_orm::Row::new(b"k".to_vec(), Vec::new());
    /// assert!(row.is_empty() && !row.is_stale());
    /// ```
    pub fn new(key: Vec<u8>, cells: Vec<Cell>) -> Row {
        Row {
            key,
            cells,
            stale: false,
        }
    }

    /// Whether a secondary region replica answered, so that the row may miss recent writes
    /// (only a read with [`Consistency::Timeline`](crate::Consistency::Timeline) can be).
    pub fn is_stale(&self) -> bool {
        self.stale
    }

    /// The newest value of `family:qualifier`, if the row has that column.
    pub fn value(&self, family: impl AsRef<[u8]>, qualifier: impl AsRef<[u8]>) -> Option<&[u8]> {
        self.versions(family, qualifier)
            .next()
            .map(|c| c.value.as_ref())
    }

    /// Every version read of `family:qualifier`, newest first.
    pub fn versions(
        &self,
        family: impl AsRef<[u8]>,
        qualifier: impl AsRef<[u8]>,
    ) -> impl Iterator<Item = &Cell> {
        self.cells.iter().filter(move |c| {
            c.family.as_ref() == family.as_ref() && c.qualifier.as_ref() == qualifier.as_ref()
        })
    }

    /// The newest value of a counter column (an 8-byte big-endian integer, as
    /// [`Increment`](super::Increment) writes it). `None` if the column is absent or not 8 bytes long.
    pub fn counter(&self, family: impl AsRef<[u8]>, qualifier: impl AsRef<[u8]>) -> Option<i64> {
        let v: [u8; 8] = self.value(family, qualifier)?.try_into().ok()?;
        Some(i64::from_be_bytes(v))
    }

    /// True when the row has no cells (HBase returns such a row for a missing key).
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_reads_newest_version_and_counters() {
        let cell = |q: &str, v: &[u8], ts| Cell {
            family: bytes::Bytes::from_static(b"f"),
            qualifier: bytes::Bytes::copy_from_slice(q.as_bytes()),
            value: bytes::Bytes::copy_from_slice(v),
            timestamp: ts,
        };
        let row = Row {
            key: b"r".to_vec(),
            cells: vec![
                cell("a", b"new", 2),
                cell("a", b"old", 1),
                cell("n", &7i64.to_be_bytes(), 1),
            ],
            stale: false,
        };
        assert_eq!(row.value("f", "a"), Some(&b"new"[..]));
        assert_eq!(row.versions("f", "a").count(), 2);
        assert_eq!(row.counter("f", "n"), Some(7));
        assert_eq!(row.counter("f", "a"), None);
        assert_eq!(row.value("f", "zz"), None);
    }
}
