//! Dictionary key parts as the mapping sees them: [`DictName`], a name stored in row keys as
//! its compact id, and [`DictionaryId`], its key codec. Finding and assigning ids is I/O: the
//! repository's `Dictionary` does it.

use std::sync::OnceLock;

use crate::mapping::rowkey::{KeyCodec, KeyKind};
use crate::model::{ColumnFamily, TableDescriptor, TableName};
use crate::schema::TableSchema;

/// The one family of a dictionary's lookup table.
pub(crate) const LOOKUP_FAMILY: &str = "d";

/// What a dictionary's lookup table looks like: one family `d`, kept in memory.
pub(crate) fn lookup_table_schema(table: TableName) -> TableSchema {
    TableSchema {
        descriptor: TableDescriptor::new(table)
            .family(ColumnFamily::new(LOOKUP_FAMILY).in_memory(true)),
        split_keys: Vec::new(),
        declared_by: vec!["Dictionary"],
    }
}

/// A name stored in row keys as its dictionary id: the type of a
/// `#[hbase(key(dictionary = "log_types"))]` key part (4 bytes in the key, whatever the name's
/// length: the log-data case study's numeric substitution).
///
/// A value holds the name, the id, or both. Build keys and entities from names
/// (`DictName::new("login")` or `"login".into()`); the repository finds (or, when saving,
/// assigns) the id before it encodes a key, and fills in the names of the entities it reads.
/// Outside a repository, [`Dictionary::resolve`](crate::Dictionary::resolve) does the same for one value.
///
/// Two values are equal when both have names and the names are equal, or else when both have
/// ids and the ids are equal. (All values hash alike, so that this stays consistent with
/// `Hash`.)
///
/// ```
/// use hbase_orm::DictName;
///
/// let login = DictName::new("login");
/// assert_eq!(login.name(), Some("login"));
/// assert_eq!(login.id(), None);
/// assert_eq!(login, DictName::from("login"));
/// ```
#[derive(Clone, Default)]
pub struct DictName {
    name: OnceLock<String>,
    id: OnceLock<u32>,
}

impl DictName {
    /// A name, its id not known yet.
    pub fn new(name: impl Into<String>) -> Self {
        let n = DictName::default();
        let _ = n.name.set(name.into());
        n
    }

    /// An id read from a row key, its name not known yet.
    pub fn from_id(id: u32) -> Self {
        let n = DictName::default();
        let _ = n.id.set(id);
        n
    }

    /// The name, if known.
    pub fn name(&self) -> Option<&str> {
        self.name.get().map(String::as_str)
    }

    /// The id, if known.
    pub fn id(&self) -> Option<u32> {
        self.id.get().copied()
    }

    /// Records the id found for the name (a value's id, once known, never changes).
    pub(crate) fn set_id(&self, id: u32) {
        let _ = self.id.set(id);
    }

    /// Records the name found for the id.
    pub(crate) fn set_name(&self, name: String) {
        let _ = self.name.set(name);
    }
}

impl From<&str> for DictName {
    fn from(name: &str) -> Self {
        DictName::new(name)
    }
}

impl From<String> for DictName {
    fn from(name: String) -> Self {
        DictName::new(name)
    }
}

impl PartialEq for DictName {
    fn eq(&self, other: &Self) -> bool {
        match (self.name(), other.name(), self.id(), other.id()) {
            (Some(a), Some(b), _, _) => a == b,
            (_, _, Some(a), Some(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for DictName {}

impl std::hash::Hash for DictName {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}

impl std::fmt::Debug for DictName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.name(), self.id()) {
            (Some(n), Some(i)) => write!(f, "{n:?}#{i}"),
            (Some(n), None) => write!(f, "{n:?}"),
            (None, Some(i)) => write!(f, "#{i}"),
            (None, None) => f.write_str("DictName(empty)"),
        }
    }
}

impl std::fmt::Display for DictName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.name(), self.id()) {
            (Some(n), _) => f.write_str(n),
            (None, Some(i)) => write!(f, "#{i}"),
            (None, None) => f.write_str("?"),
        }
    }
}

/// A [`DictName`](crate::DictName) as its 4-byte dictionary id, big-endian: the codec of
/// `#[hbase(key(dictionary = "..."))]` parts. Encoding needs the id (the repository finds it
/// first); decoding gives the id, and the repository fills in the name.
#[derive(Debug, Clone, Copy)]
pub struct DictionaryId;

impl KeyCodec<DictName> for DictionaryId {
    const WIDTH: Option<usize> = Some(4);
    const EXPECTED: &'static str = "dictionary id (4 bytes, big-endian)";
    const KIND: KeyKind = KeyKind::Dictionary;

    fn encode(value: &DictName, out: &mut Vec<u8>) -> Result<(), String> {
        match value.id() {
            Some(id) => {
                out.extend_from_slice(&id.to_be_bytes());
                Ok(())
            }
            None => Err(format!(
                "the dictionary name {value} has no id yet: repository calls find it; elsewhere \
                 call Dictionary::resolve first"
            )),
        }
    }

    fn decode(bytes: &[u8]) -> std::result::Result<DictName, String> {
        let array: [u8; 4] = bytes
            .try_into()
            .map_err(|_| format!("{} bytes, expected 4", bytes.len()))?;
        Ok(DictName::from_id(u32::from_be_bytes(array)))
    }
}
