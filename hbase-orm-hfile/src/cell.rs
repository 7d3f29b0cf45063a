//! A cell as an HFile stores it: its key (row, family, qualifier, timestamp, type), the order
//! HBase keeps keys in, and the bytes of a key.

use std::cmp::Ordering;

use crate::fill::Cursor;

/// What a cell is: a value or one of HBase's delete markers (the type byte of its key).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CellType {
    /// A value.
    Put,
    /// Deletes one version of a column (the one with the cell's timestamp).
    Delete,
    /// Deletes every version of a family's columns with the cell's timestamp.
    DeleteFamilyVersion,
    /// Deletes a column's versions up to the cell's timestamp.
    DeleteColumn,
    /// Deletes a family's cells up to the cell's timestamp.
    DeleteFamily,
}

impl CellType {
    /// The type byte of a key (HBase's `KeyValue.Type` codes).
    ///
    /// ```
    /// assert_eq!(hbase_orm_hfile::CellType::Put.code(), 4);
    /// ```
    pub fn code(self) -> u8 {
        match self {
            CellType::Put => 4,
            CellType::Delete => 8,
            CellType::DeleteFamilyVersion => 10,
            CellType::DeleteColumn => 12,
            CellType::DeleteFamily => 14,
        }
    }

    /// The type of a key's type byte, if it is one of a stored cell's.
    pub(crate) fn of_code(code: u8) -> Option<CellType> {
        [
            CellType::Put,
            CellType::Delete,
            CellType::DeleteFamilyVersion,
            CellType::DeleteColumn,
            CellType::DeleteFamily,
        ]
        .into_iter()
        .find(|kind| kind.code() == code)
    }

    /// Whether the cell deletes a whole family (counted in the file's `DELETE_FAMILY_COUNT`).
    pub(crate) fn deletes_family(self) -> bool {
        matches!(self, CellType::DeleteFamily | CellType::DeleteFamilyVersion)
    }
}

/// One cell handed to the writer, borrowed.
///
/// ```
/// use hbase_orm_hfile::{Cell, CellType};
/// let cell = Cell::put(b"row1", b"d", b"city", 1_700_000_000_000, b"Oslo");
/// assert_eq!(cell.kind, CellType::Put);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell<'a> {
    /// The row key (1 to 32,767 bytes).
    pub row: &'a [u8],
    /// The column family (at most 255 bytes; every cell of a file has the same one).
    pub family: &'a [u8],
    /// The column qualifier.
    pub qualifier: &'a [u8],
    /// Milliseconds since the epoch (HBase's version of the cell).
    pub timestamp: i64,
    /// A value or a delete marker.
    pub kind: CellType,
    /// The value (empty for delete markers).
    pub value: &'a [u8],
}

impl<'a> Cell<'a> {
    /// A value cell.
    pub fn put(
        row: &'a [u8],
        family: &'a [u8],
        qualifier: &'a [u8],
        timestamp: i64,
        value: &'a [u8],
    ) -> Self {
        Cell {
            row,
            family,
            qualifier,
            timestamp,
            kind: CellType::Put,
            value,
        }
    }

    /// The length of the cell's key (see [`Cell::write_key`]).
    pub fn key_len(&self) -> usize {
        self.key().len()
    }

    /// Appends the cell's key as HBase lays it out: row length (2 bytes), row, family length
    /// (1 byte), family, qualifier, timestamp (8 bytes), type (1 byte); big-endian.
    ///
    /// ```
    /// use hbase_orm_hfile::Cell;
    /// let mut key = Vec::new();
    /// Cell::put(b"r", b"f", b"q", 1, b"v").write_key(&mut key);
    /// assert_eq!(key, [0, 1, b'r', 1, b'f', b'q', 0, 0, 0, 0, 0, 0, 0, 1, 4]);
    /// ```
    pub fn write_key(&self, out: &mut Vec<u8>) {
        self.key().write(out);
    }

    /// How this cell's key sorts against `other`'s in a file: row, family and qualifier as
    /// unsigned bytes, then newer timestamps first, then the type code descending (a delete
    /// marker before the value it covers).
    ///
    /// ```
    /// use hbase_orm_hfile::Cell;
    /// let old = Cell::put(b"r", b"d", b"q", 1, b"old");
    /// let new = Cell::put(b"r", b"d", b"q", 2, b"new");
    /// assert!(new.compare_key(&old).is_lt()); // the newer version comes first
    /// ```
    pub fn compare_key(&self, other: &Cell<'_>) -> Ordering {
        self.key().compare(&other.key())
    }

    pub(crate) fn key(&self) -> Key<'a> {
        Key {
            row: self.row,
            family: self.family,
            qualifier: self.qualifier,
            timestamp: self.timestamp,
            code: self.kind.code(),
        }
    }
}

/// A cell of one row handed to [`Writer::append_row`](crate::Writer::append_row): a [`Cell`]
/// without its row, which the call gives once.
///
/// ```
/// use hbase_orm_hfile::{CellType, RowCell};
/// let cell = RowCell::put(b"d", b"city", 1_700_000_000_000, b"Oslo");
/// assert_eq!(cell.kind, CellType::Put);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowCell<'a> {
    /// The column family (every cell of a file has the same one).
    pub family: &'a [u8],
    /// The column qualifier.
    pub qualifier: &'a [u8],
    /// Milliseconds since the epoch.
    pub timestamp: i64,
    /// A value or a delete marker.
    pub kind: CellType,
    /// The value (empty for delete markers).
    pub value: &'a [u8],
}

impl<'a> RowCell<'a> {
    /// A value cell.
    pub fn put(family: &'a [u8], qualifier: &'a [u8], timestamp: i64, value: &'a [u8]) -> Self {
        RowCell {
            family,
            qualifier,
            timestamp,
            kind: CellType::Put,
            value,
        }
    }

    /// The cell of row `row`.
    pub fn in_row(self, row: &'a [u8]) -> Cell<'a> {
        let cell = Cell::put(row, self.family, self.qualifier, self.timestamp, self.value);
        Cell {
            kind: self.kind,
            ..cell
        }
    }

    /// How `previous`, a cell of the same row and family, sorts against this one (`Greater`:
    /// this one is out of order): qualifier, then newer timestamps first, then the type code
    /// descending.
    #[inline]
    pub(crate) fn previous_against(&self, previous: &RowCell<'_>) -> Ordering {
        compare_bytes(previous.qualifier, self.qualifier)
            .then_with(|| self.timestamp.cmp(&previous.timestamp))
            .then_with(|| self.kind.code().cmp(&previous.kind.code()))
    }
}

/// Compares two byte strings as HBase orders a key's parts (unsigned bytes, a prefix before
/// what it starts): what `a.cmp(b)` gives, with no call to `memcmp` for the short strings row
/// keys, families and qualifiers mostly are (over 64 bytes in common are left to it). Eight
/// bytes are compared at a time as big-endian words (four when fewer than eight are in common,
/// one by one under four); the last word ends where the shorter string ends and may overlap
/// the one before: the bytes before it are equal, so its first difference is the first
/// difference after them.
///
/// ```
/// use hbase_orm_hfile::compare_bytes;
/// use std::cmp::Ordering;
/// assert_eq!(compare_bytes(b"amount_cents", b"channel"), Ordering::Less);
/// assert_eq!(compare_bytes(b"city", b"cit"), Ordering::Greater);
/// ```
#[inline]
pub fn compare_bytes(a: &[u8], b: &[u8]) -> Ordering {
    let n = a.len().min(b.len());
    let common = if n >= 8 {
        if n > 64 {
            return a.cmp(b);
        }
        let mut i = 0;
        while i + 8 < n {
            let order = word8(a, i).cmp(&word8(b, i));
            if order.is_ne() {
                return order;
            }
            i += 8;
        }
        word8(a, n - 8).cmp(&word8(b, n - 8))
    } else if n >= 4 {
        word4(a, 0)
            .cmp(&word4(b, 0))
            .then_with(|| word4(a, n - 4).cmp(&word4(b, n - 4)))
    } else {
        (0..n)
            .find(|&i| a[i] != b[i])
            .map_or(Ordering::Equal, |i| a[i].cmp(&b[i]))
    };
    common.then(a.len().cmp(&b.len()))
}

/// The eight bytes of `bytes` from `at`, as a big-endian number.
#[inline(always)]
fn word8(bytes: &[u8], at: usize) -> u64 {
    u64::from_be_bytes(bytes[at..at + 8].try_into().expect("eight bytes"))
}

/// The four bytes of `bytes` from `at`, as a big-endian number.
#[inline(always)]
fn word4(bytes: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(bytes[at..at + 4].try_into().expect("four bytes"))
}

/// The bytes of a key besides its row, family and qualifier.
pub(crate) const KEY_OVERHEAD: usize = 2 + 1 + 8 + 1;

/// The largest timestamp, given to the shortened keys of the block index.
pub(crate) const LATEST_TIMESTAMP: i64 = i64::MAX;

/// The type code of the shortened keys of the block index (HBase's `Maximum`).
pub(crate) const TYPE_MAXIMUM: u8 = 255;

/// Appends a key of these parts (the layout of [`Cell::write_key`]).
pub(crate) fn write_key(
    out: &mut Vec<u8>,
    row: &[u8],
    family: &[u8],
    qualifier: &[u8],
    timestamp: i64,
    code: u8,
) {
    let key = Key {
        row,
        family,
        qualifier,
        timestamp,
        code,
    };
    key.write(out);
}

/// A key's parts, borrowed from a cell or read back from a key's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Key<'a> {
    pub row: &'a [u8],
    pub family: &'a [u8],
    pub qualifier: &'a [u8],
    pub timestamp: i64,
    pub code: u8,
}

impl<'a> Key<'a> {
    /// The parts of a key written by [`write_key`].
    pub(crate) fn parse(key: &'a [u8]) -> Key<'a> {
        let row_len = u16::from_be_bytes([key[0], key[1]]) as usize;
        let family_len = key[2 + row_len] as usize;
        let qualifier_start = 3 + row_len + family_len;
        let timestamp_start = key.len() - 9;
        Key {
            row: &key[2..2 + row_len],
            family: &key[3 + row_len..qualifier_start],
            qualifier: &key[qualifier_start..timestamp_start],
            timestamp: i64::from_be_bytes(
                key[timestamp_start..timestamp_start + 8]
                    .try_into()
                    .expect("eight bytes"),
            ),
            code: key[key.len() - 1],
        }
    }

    /// How two keys sort in a file (see [`Cell::compare_key`]).
    pub(crate) fn compare(&self, other: &Key<'_>) -> Ordering {
        compare_bytes(self.row, other.row)
            .then_with(|| compare_bytes(self.family, other.family))
            .then_with(|| compare_bytes(self.qualifier, other.qualifier))
            .then_with(|| other.timestamp.cmp(&self.timestamp))
            .then_with(|| other.code.cmp(&self.code))
    }

    /// The key's length in bytes.
    pub(crate) fn len(&self) -> usize {
        self.row.len() + self.family.len() + self.qualifier.len() + KEY_OVERHEAD
    }

    /// Appends the key (see [`Key::put`]).
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        let at = out.len();
        out.resize(at + self.len(), 0);
        self.put(&mut Cursor::new(&mut out[at..]));
    }

    /// Writes the key as HBase lays it out: row length (2 bytes), row, family length (1 byte),
    /// family, qualifier, timestamp (8 bytes), type (1 byte); big-endian.
    #[inline(always)]
    pub(crate) fn put(&self, out: &mut Cursor<'_>) {
        out.put((self.row.len() as u16).to_be_bytes());
        out.slice(self.row);
        out.put([self.family.len() as u8]);
        out.slice(self.family);
        out.slice(self.qualifier);
        out.put(self.timestamp.to_be_bytes());
        out.put([self.code]);
    }
}

/// A key shorter than `right`'s that sorts after `left` and not after `right`, for the index
/// entry of the block that starts with `right` (`left` ends the block before): the first
/// differing part cut one byte past where the two differ, with the greatest timestamp and type.
/// The full key of `right` when they differ only in timestamp or type.
pub(crate) fn index_key(left: &Key<'_>, right: &Key<'_>, out: &mut Vec<u8>) {
    if let Some(row) = between(left.row, right.row) {
        write_key(out, &row, b"", b"", LATEST_TIMESTAMP, TYPE_MAXIMUM);
    } else if let Some(family) = between(left.family, right.family) {
        write_key(out, right.row, &family, b"", LATEST_TIMESTAMP, TYPE_MAXIMUM);
    } else if let Some(qualifier) = between(left.qualifier, right.qualifier) {
        write_key(
            out,
            right.row,
            right.family,
            &qualifier,
            LATEST_TIMESTAMP,
            TYPE_MAXIMUM,
        );
    } else {
        right.write(out);
    }
}

/// The shortest bytes after `a` and at most `b` (`a <= b`), or `None` when they are equal: `a`
/// up to the first byte where they differ, that byte plus one; or `a` and a zero byte when `a`
/// is a prefix of `b`.
fn between(a: &[u8], b: &[u8]) -> Option<Vec<u8>> {
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => {
            let mut out = a[..=i].to_vec();
            out[i] += 1;
            Some(out)
        }
        None if a.len() < b.len() => {
            let mut out = a.to_vec();
            out.push(0);
            Some(out)
        }
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell<'a>(row: &'a [u8], family: &'a [u8], qualifier: &'a [u8], ts: i64) -> Cell<'a> {
        Cell::put(row, family, qualifier, ts, b"")
    }

    /// The comparison is the slices' own, for any lengths and bytes.
    #[test]
    fn bytes_compare_as_slices_do() {
        let samples: Vec<Vec<u8>> = (0..40u8)
            .flat_map(|len| {
                [0u8, 1, 0x7f, 0x80, 0xff].map(|fill| {
                    let mut bytes: Vec<u8> = (0..len).map(|i| i.wrapping_mul(37)).collect();
                    if let Some(last) = bytes.last_mut() {
                        *last = fill;
                    }
                    bytes
                })
            })
            .chain([vec![9; 70], vec![9; 71], [vec![9; 69], vec![8]].concat()])
            .collect();
        for a in &samples {
            for b in &samples {
                assert_eq!(compare_bytes(a, b), a.cmp(b), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn the_first_difference_decides_wherever_the_words_overlap() {
        // Two strings that differ at two places, each raised at one of them: the first place
        // decides, whichever word (or the overlap of two) it falls in; up to 70 bytes (past
        // the 64 compared a word at a time), either one the shorter.
        for len in 1..=70usize {
            let base: Vec<u8> = (0..len as u8).map(|i| i.wrapping_mul(37) & 0x7f).collect();
            for p in 0..len {
                for q in 0..len {
                    let (mut a, mut b) = (base.clone(), base.clone());
                    a[p] = 0xff;
                    b[q] = 0xff;
                    for cut in [len, len.saturating_sub(1)] {
                        let short = &b[..cut];
                        assert_eq!(
                            compare_bytes(&a, short),
                            a[..].cmp(short),
                            "{a:?} {short:?}"
                        );
                        assert_eq!(
                            compare_bytes(short, &a),
                            short.cmp(&a[..]),
                            "{short:?} {a:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn between_cuts_one_byte_past_the_difference() {
        assert_eq!(between(b"abc", b"abz").unwrap(), b"abd");
        assert_eq!(between(b"1", b"10").unwrap(), b"1\0");
        assert_eq!(between(b"row", b"row"), None);
        assert_eq!(between(b"a\xfe", b"a\xff").unwrap(), b"a\xff");
    }

    /// The index key sorts after the block before's last cell and not after the block's first.
    #[test]
    fn an_index_key_lies_between_the_blocks() {
        let pairs = [
            (cell(b"abc", b"f", b"q", 5), cell(b"abz", b"f", b"q", 5)),
            (cell(b"1", b"f", b"q", 5), cell(b"10", b"f", b"q", 5)),
            (cell(b"r", b"a", b"q", 5), cell(b"r", b"b", b"q", 5)),
            (cell(b"r", b"f", b"q", 5), cell(b"r", b"f", b"qq", 5)),
            (cell(b"r", b"f", b"q", 9), cell(b"r", b"f", b"q", 5)),
        ];
        for (left, right) in pairs {
            let mut key = Vec::new();
            index_key(&left.key(), &right.key(), &mut key);
            let key = Key::parse(&key);
            assert_eq!(
                left.key().compare(&key),
                Ordering::Less,
                "{left:?} {right:?}"
            );
            assert_ne!(
                key.compare(&right.key()),
                Ordering::Greater,
                "{left:?} {right:?}"
            );
        }
    }

    #[test]
    fn a_key_reads_back() {
        let c = cell(b"row", b"fam", b"qual", -3);
        let mut bytes = Vec::new();
        c.write_key(&mut bytes);
        assert_eq!(Key::parse(&bytes), c.key());
    }

    #[test]
    fn newer_versions_and_markers_sort_first() {
        let old = cell(b"r", b"f", b"q", 1);
        let new = cell(b"r", b"f", b"q", 2);
        assert_eq!(new.compare_key(&old), Ordering::Less);
        let marker = Cell {
            kind: CellType::DeleteColumn,
            ..old
        };
        assert_eq!(marker.compare_key(&old), Ordering::Less);
    }
}
