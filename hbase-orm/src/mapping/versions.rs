//! [`Versions`]: a field holding a cell's history, `#[hbase(versions = N)]`.

/// One version of a cell: its timestamp (milliseconds) and value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Versioned<T> {
    /// The version's timestamp, milliseconds since the epoch (HBase's cell timestamp).
    pub timestamp: i64,
    /// The value at that version.
    pub value: T,
}

/// The versions of one cell, newest first: the type of a `#[hbase(versions = N)]` field.
///
/// Reads fill it with up to `N` versions (fewer with a time range, see
/// [`ReadOptions`](crate::ReadOptions)); a save writes every version it holds with its own
/// timestamp and leaves other stored versions alone (HBase drops those beyond the family's
/// `max_versions`).
///
/// ```
/// use hbase_orm::Versions;
///
/// let mut inbox = Versions::new();
/// inbox.push(1_000, "hello".to_string());
/// inbox.push(3_000, "newest".to_string());
/// inbox.push(2_000, "middle".to_string());
/// assert_eq!(inbox.newest().map(|v| v.value.as_str()), Some("newest"));
/// assert_eq!(inbox.iter().map(|v| v.timestamp).collect::<Vec<_>>(), [3_000, 2_000, 1_000]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Versions<T>(Vec<Versioned<T>>);

impl<T> Default for Versions<T> {
    fn default() -> Self {
        Versions(Vec::new())
    }
}

impl<T> Versions<T> {
    /// No versions.
    pub fn new() -> Self {
        Versions::default()
    }

    /// Adds a version, keeping newest-first order; a version with the same timestamp is
    /// replaced (as HBase does).
    pub fn push(&mut self, timestamp: i64, value: T) {
        match self.0.binary_search_by(|v| timestamp.cmp(&v.timestamp)) {
            Ok(i) => self.0[i].value = value,
            Err(i) => self.0.insert(i, Versioned { timestamp, value }),
        }
    }

    /// The newest version.
    pub fn newest(&self) -> Option<&Versioned<T>> {
        self.0.first()
    }

    /// The versions as a slice, newest first.
    pub fn as_slice(&self) -> &[Versioned<T>] {
        &self.0
    }

    /// The versions, newest first.
    pub fn iter(&self) -> std::slice::Iter<'_, Versioned<T>> {
        self.0.iter()
    }

    /// How many versions.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The versions, newest first.
    pub fn into_vec(self) -> Vec<Versioned<T>> {
        self.0
    }
}

impl<T> FromIterator<(i64, T)> for Versions<T> {
    fn from_iter<I: IntoIterator<Item = (i64, T)>>(iter: I) -> Self {
        let mut v = Versions::new();
        for (ts, value) in iter {
            v.push(ts, value);
        }
        v
    }
}

impl<'a, T> IntoIterator for &'a Versions<T> {
    type Item = &'a Versioned<T>;
    type IntoIter = std::slice::Iter<'a, Versioned<T>>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}
