//! The rule for partial rows, and decoding rows by it: a row holds an entity of `E` when it
//! holds `E`'s presence cell (its version column, else its first required plain column, else
//! the marker cell every save of such an entity writes). A row that holds some cells of `E`'s
//! families (a counter counted before the entity was saved, wide-map entries written one by
//! one) but not that cell holds no entity: reads return `None` for it, scans skip it, `exists`
//! says `false`, and `insert` writes into it without removing anything.

use crate::mapping::columns::presence_of;
use crate::mapping::{decode_cells, HBaseEntity};
use crate::model::{CellRef, Result, Row, ScannedRow, TableName};

/// The column every saved row of `E` has, checked by [`Repository::insert`]: the version
/// column, else the first required plain column; `None` means the marker cell (written by
/// every save of such an entity).
///
/// [`Repository::insert`]: crate::Repository::insert
pub(crate) fn presence_column<E: HBaseEntity>() -> Option<usize> {
    presence_of(E::COLUMNS)
}

/// The cell whose presence makes a row hold an entity of `E`, as `(family, qualifier)`: its
/// presence column ([`presence_of`]), else the marker cell `family:` (empty qualifier) of its
/// first family, which every save of such an entity writes. A reader of raw rows (a query
/// engine) skips the rows without it, as entity reads do.
///
/// ```
/// use hbase_orm::{entity::presence_cell, HBaseEntity};
///
/// #[derive(HBaseEntity)]
/// #[hbase(table = "t", family = "d")]
/// struct Tag { #[hbase(key)] id: u32, note: Option<String> }
///
/// #[derive(HBaseEntity)]
/// #[hbase(table = "u", family = "d")]
/// struct User { #[hbase(key)] id: u32, name: String }
///
/// assert_eq!(presence_cell::<Tag>(), ("d", "")); // the marker cell
/// assert_eq!(presence_cell::<User>(), ("d", "name"));
/// ```
pub fn presence_cell<E: HBaseEntity>() -> (&'static str, &'static str) {
    match presence_column::<E>() {
        Some(col) => (E::COLUMNS[col].family, E::COLUMNS[col].qualifier),
        None => (E::FAMILIES.first().copied().unwrap_or_default(), ""),
    }
}

/// How a read treats the entity's presence cell (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Presence {
    /// A row without it holds no entity; it is decoded as the field it is.
    Required,
    /// A row without it holds no entity; a projection that does not name its field read it
    /// only to tell, so it is not decoded (the field gets its default, as the projection asked).
    RequiredNotDecoded,
    /// A time range hides the presence cell like any cell written outside the range: every
    /// row HBase returns is decoded, as the range leaves it.
    Unchecked,
}

/// Decodes `row` into `E`, or `None` if it holds no entity of `E` (see the module
/// documentation and [`Presence`]).
pub(crate) fn decode_entity<E: HBaseEntity>(
    row: &Row,
    table: &TableName,
    presence: Presence,
) -> Result<Option<E>> {
    decode_held(
        &row.key,
        || row.cells.iter().map(CellRef::from),
        table,
        presence,
    )
}

/// [`decode_entity`] for a scanned row, decoded from the page it arrived in.
pub(crate) fn decode_scanned_entity<E: HBaseEntity>(
    row: &ScannedRow,
    table: &TableName,
    presence: Presence,
) -> Result<Option<E>> {
    decode_held(row.key(), || row.cells(), table, presence)
}

fn decode_held<'a, E: HBaseEntity, I: Iterator<Item = CellRef<'a>>>(
    key: &'a [u8],
    cells: impl Fn() -> I,
    table: &'a TableName,
    presence: Presence,
) -> Result<Option<E>> {
    // The presence cell, looked up once per row for both its uses.
    let (family, qualifier) = presence_cell::<E>();
    let is_presence =
        move |c: &CellRef<'_>| c.family == family.as_bytes() && c.qualifier == qualifier.as_bytes();
    if presence != Presence::Unchecked && !cells().any(|c| is_presence(&c)) {
        return Ok(None);
    }
    let cells =
        cells().filter(move |c| presence != Presence::RequiredNotDecoded || !is_presence(c));
    decode_cells::<E>(key, cells, Some(table)).map(Some)
}
