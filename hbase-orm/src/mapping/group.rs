//! Flattened children: a struct stored as columns of its parent's row.
//!
//! `#[derive(HBaseColumns)]` on a struct implements [`ColumnGroup`]; a parent entity stores it
//! with `#[hbase(flatten, prefix = "ship_")] ship: Address` (columns `d:ship_city`,
//! `d:ship_zip`, ..., recursively for groups inside groups), or a `Vec` of them with
//! `#[hbase(family = "item", children)] items: Vec<Item>` (columns `item:0:sku`,
//! `item:0:qty`, `item:1:sku`, ...: the index, `:`, the child's qualifier).

use std::borrow::Cow;

use crate::mapping::codec::Codec;
use crate::model::printable_key;
use crate::model::{Error, Result};

/// A struct stored as a group of columns inside an entity's row; derive it with
/// `#[derive(HBaseColumns)]`.
///
/// ```
/// use hbase_orm::{HBaseColumns, HBaseEntity};
///
/// #[derive(HBaseColumns, Debug, Clone, PartialEq)]
/// struct Address {
///     city: String,
///     zip: Option<String>,
/// }
///
/// #[derive(HBaseEntity, Debug, Clone, PartialEq)]
/// #[hbase(table = "orders", family = "d")]
/// struct Order {
///     #[hbase(key)]
///     id: u64,
///     #[hbase(flatten, prefix = "ship_")]
///     ship: Address,
/// }
///
/// let order = Order { id: 1, ship: Address { city: "Oslo".into(), zip: None } };
/// let put = order.to_put().unwrap();
/// assert_eq!(put.cells[0].qualifier[..], b"ship_city"[..]);
/// ```
///
/// Attributes on the group's fields: `rename`, `default`, `skip`, `json`, `codec = C`, and
/// `flatten, prefix = "..."` for a group inside the group.
pub trait ColumnGroup: Sized {
    /// Writes the group's cells, each qualifier starting with `prefix`.
    fn write_group(&self, prefix: &str, out: &mut GroupWriter) -> Result<()>;
    /// Reads the group from cells whose qualifiers start with `prefix`.
    fn read_group(prefix: &str, cells: &mut GroupReader<'_>) -> Result<Self>;
}

/// Collects the cells of a group; used by generated [`ColumnGroup::write_group`].
#[derive(Debug, Default)]
pub struct GroupWriter {
    /// `(qualifier, value)` of each cell to write.
    pub(crate) cells: Vec<(Vec<u8>, Vec<u8>)>,
    /// Qualifiers of `None` fields: deleted by a save.
    pub(crate) absent: Vec<Vec<u8>>,
    /// The entity type, for encode errors.
    pub(crate) entity: &'static str,
}

fn qualifier(prefix: &str, name: &str) -> Vec<u8> {
    let mut q = Vec::with_capacity(prefix.len() + name.len());
    q.extend_from_slice(prefix.as_bytes());
    q.extend_from_slice(name.as_bytes());
    q
}

impl GroupWriter {
    /// Writes one field.
    pub fn value<T, C: Codec<T>>(
        &mut self,
        prefix: &str,
        name: &'static str,
        value: &T,
    ) -> Result<()> {
        let mut bytes = Vec::new();
        C::encode(value, &mut bytes).map_err(|reason| Error::Encode {
            entity: self.entity,
            field: name,
            reason,
        })?;
        self.cells.push((qualifier(prefix, name), bytes));
        Ok(())
    }

    /// Writes an optional field: `None` writes no cell and a save deletes the old one.
    pub fn optional<T, C: Codec<T>>(
        &mut self,
        prefix: &str,
        name: &'static str,
        value: &Option<T>,
    ) -> Result<()> {
        match value {
            Some(v) => self.value::<T, C>(prefix, name, v),
            None => {
                self.absent.push(qualifier(prefix, name));
                Ok(())
            }
        }
    }
}

/// The cells of a group, for generated [`ColumnGroup::read_group`].
#[derive(Debug)]
pub struct GroupReader<'a> {
    /// `(qualifier, value)`, sorted by qualifier.
    cells: Vec<(&'a [u8], &'a [u8])>,
    /// For decode errors: table, row, family, and the parent field.
    pub(crate) table: Cow<'a, str>,
    pub(crate) row: &'a [u8],
    pub(crate) family: &'static str,
    pub(crate) field: &'static str,
}

impl<'a> GroupReader<'a> {
    pub(crate) fn new(
        mut cells: Vec<(&'a [u8], &'a [u8])>,
        table: Cow<'a, str>,
        row: &'a [u8],
        family: &'static str,
        field: &'static str,
    ) -> Self {
        // Newest version first within a qualifier: a stable sort keeps it first.
        cells.sort_by(|a, b| a.0.cmp(b.0));
        cells.dedup_by(|later, first| later.0 == first.0);
        GroupReader {
            cells,
            table,
            row,
            family,
            field,
        }
    }

    fn take(&mut self, prefix: &str, name: &str) -> Option<&'a [u8]> {
        let q = qualifier(prefix, name);
        let i = self
            .cells
            .binary_search_by(|c| c.0.cmp(q.as_slice()))
            .ok()?;
        Some(std::mem::take(&mut self.cells[i].1))
    }

    #[cold]
    fn error<T, C: Codec<T>>(&self, prefix: &str, name: &str, reason: String) -> Error {
        Error::Decode {
            table: self.table.to_string(),
            row: printable_key(self.row),
            column: format!(
                "{}:{prefix}{name} (field `{}.{name}`)",
                self.family, self.field
            ),
            expected: C::expected().into_owned(),
            reason,
        }
    }

    fn decode<T, C: Codec<T>>(&self, prefix: &str, name: &str, bytes: &[u8]) -> Result<T> {
        C::decode(bytes).map_err(|reason| self.error::<T, C>(prefix, name, reason))
    }

    /// A field that must be present.
    pub fn required<T, C: Codec<T>>(&mut self, prefix: &str, name: &str) -> Result<T> {
        match self.take(prefix, name) {
            Some(bytes) => self.decode::<T, C>(prefix, name, bytes),
            None => Err(self.error::<T, C>(
                prefix,
                name,
                "the cell is missing; make the field an Option or give it #[hbase(default)]".into(),
            )),
        }
    }

    /// An `Option` field.
    pub fn optional<T, C: Codec<T>>(&mut self, prefix: &str, name: &str) -> Result<Option<T>> {
        match self.take(prefix, name) {
            Some(bytes) => self.decode::<T, C>(prefix, name, bytes).map(Some),
            None => Ok(None),
        }
    }

    /// A field with a default.
    pub fn or_else<T, C: Codec<T>>(
        &mut self,
        prefix: &str,
        name: &str,
        default: impl FnOnce() -> T,
    ) -> Result<T> {
        match self.take(prefix, name) {
            Some(bytes) => self.decode::<T, C>(prefix, name, bytes),
            None => Ok(default()),
        }
    }

    /// The indexes of the children stored under `item:<index>:...` (for a `children` field):
    /// every distinct number before the first `:` of a qualifier, in numeric order.
    pub(crate) fn child_indexes(&self) -> std::result::Result<Vec<usize>, Error> {
        let mut out = Vec::new();
        for (q, _) in &self.cells {
            let end = q.iter().position(|&b| b == b':').unwrap_or(q.len());
            let index = std::str::from_utf8(&q[..end])
                .ok()
                .and_then(|t| t.parse::<usize>().ok())
                .ok_or_else(|| Error::Decode {
                    table: self.table.to_string(),
                    row: printable_key(self.row),
                    column: format!(
                        "{}:{} (field `{}`)",
                        self.family,
                        printable_key(q),
                        self.field
                    ),
                    expected: "<child index>:<field>".into(),
                    reason: "the qualifier does not start with a child index".into(),
                })?;
            out.push(index);
        }
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }
}
