//! What a read of an entity asks HBase for: its columns (whole families where a field reads
//! one), how many versions, and the caller's [`ReadOptions`]. Gets, scans and record-set scans
//! all plan their reads here.

use crate::mapping::rows::{presence_column, Presence};
use crate::mapping::{ColumnDef, ColumnKind, HBaseEntity};
use crate::model::{Column, Consistency, TimeRange};
use crate::model::{Error, Result};

/// The versions a read of `T` asks for: the largest `versions = N`, or HBase's default.
pub(crate) fn max_versions<T: HBaseEntity>() -> Option<i32> {
    T::COLUMNS
        .iter()
        .filter_map(|c| match c.kind {
            ColumnKind::Versions(n) => Some(i32::try_from(n).unwrap_or(i32::MAX)),
            _ => None,
        })
        .max()
}

/// How to read versioned fields, and from which region replica: see
/// [`Repository::get_with`](crate::Repository::get_with),
/// [`Repository::get_read`](crate::Repository::get_read) and
/// [`EntityScan::read_options`](crate::EntityScan::read_options).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    time_range: Option<TimeRange>,
    versions: Option<i32>,
    consistency: Consistency,
}

impl ReadOptions {
    /// HBase's defaults: every version a field declares, at any time.
    pub fn new() -> Self {
        ReadOptions::default()
    }

    /// Only versions with `min <= timestamp < max` (milliseconds). Plain fields then read
    /// their newest version in that range too.
    pub fn time_range(mut self, min: i64, max: i64) -> Self {
        self.time_range = Some(TimeRange { min, max });
        self
    }

    /// At most `n` versions per versioned field (instead of its declared `versions = N`).
    pub fn versions(mut self, n: u32) -> Self {
        self.versions = Some(i32::try_from(n).unwrap_or(i32::MAX));
        self
    }

    /// Reads with this [`Consistency`]: `Timeline` lets a secondary region replica answer
    /// when the primary is slow or gone (a table with `region_replication`; native backend).
    ///
    /// ```
    /// use hbase_orm::{Consistency, ReadOptions};
    /// let any_replica = ReadOptions::new().consistency(Consistency::Timeline);
    /// ```
    pub fn consistency(mut self, consistency: Consistency) -> Self {
        self.consistency = consistency;
        self
    }

    pub(crate) fn apply(
        &self,
        time_range: &mut Option<TimeRange>,
        versions: &mut Option<i32>,
        consistency: &mut Consistency,
    ) {
        if let Some(t) = self.time_range {
            *time_range = Some(t);
        }
        if let Some(n) = self.versions {
            *versions = Some(n);
        }
        *consistency = self.consistency;
    }
}

/// The columns of `T` a read asks for.
///
/// A full read (`fields` is `None`) asks for each of `T`'s families whole: it reads every
/// stored column of them anyway, HBase's region server reads a whole family about twice as
/// fast as a list of its columns, and cells the entity does not declare are skipped when the
/// row is decoded. A projection lists the named fields' columns only (plus the columns of
/// hashed key parts, read back from there) and the row's marker cell (`family:` with an empty
/// qualifier, written when a value has no other cell), so that a row holding only its key
/// still reads back, and the entity's presence column (see `cells::presence_column`), so that a
/// partial row reads as no entity. A family that also holds large cells of other data is best read with a
/// projection.
pub(crate) fn read_columns<T: HBaseEntity>(fields: Option<&[&str]>) -> Result<Vec<Column>> {
    let column = ColumnDef::column;
    let mut columns: Vec<Column> = match fields {
        None => {
            return Ok(T::FAMILIES
                .iter()
                .map(|f| Column {
                    family: f.as_bytes().to_vec(),
                    qualifier: None,
                })
                .collect())
        }
        Some(names) => {
            let mut picked: Vec<Column> = T::COLUMNS
                .iter()
                .filter(|c| c.key_part && !names.contains(&c.field))
                .map(column)
                .collect();
            for name in names {
                let def = T::COLUMNS
                    .iter()
                    .find(|c| c.field == *name)
                    .ok_or_else(|| Error::IllegalArgument {
                        message: format!(
                            "{} has no stored field `{name}` (stored fields: {})",
                            std::any::type_name::<T>(),
                            T::COLUMNS
                                .iter()
                                .map(|c| c.field)
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    })?;
                picked.push(column(def));
            }
            if presence_rule::<T>(fields, false) == Presence::RequiredNotDecoded {
                if let Some(col) = presence_column::<T>() {
                    picked.push(column(&T::COLUMNS[col]));
                }
            }
            picked
        }
    };
    if let Some(family) = T::FAMILIES.first() {
        columns.push(Column {
            family: family.as_bytes().to_vec(),
            qualifier: Some(Vec::new()),
        });
    }
    Ok(whole_families_win(columns))
}

/// How a read of `fields` (all of them: `None`), with or without a time range, treats the
/// entity's presence cell. A projection that does not name it still reads it, to tell a
/// partial row from an entity, but does not decode it; a time range hides it like any cell
/// written outside the range, so such a read decodes what the range holds.
pub(crate) fn presence_rule<T: HBaseEntity>(fields: Option<&[&str]>, time_range: bool) -> Presence {
    if time_range {
        return Presence::Unchecked;
    }
    match (fields, presence_column::<T>()) {
        // A projection reads and decodes the columns of hashed key parts anyway.
        (Some(names), Some(col))
            if !names.contains(&T::COLUMNS[col].field) && !T::COLUMNS[col].key_part =>
        {
            Presence::RequiredNotDecoded
        }
        _ => Presence::Required,
    }
}

/// The columns with no explicit column of a family that is also read whole: once a family is
/// listed column by column, HBase reads only those columns of it (the gateway applies the
/// list in order, and a column after the whole family narrows it), so a family read whole (a
/// wide map, flattened children) must not be listed column by column too.
pub(crate) fn whole_families_win(columns: Vec<Column>) -> Vec<Column> {
    let whole: Vec<Vec<u8>> = columns
        .iter()
        .filter(|c| c.qualifier.is_none())
        .map(|c| c.family.clone())
        .collect();
    if whole.is_empty() {
        return columns;
    }
    let mut out: Vec<Column> = Vec::with_capacity(columns.len());
    for c in columns {
        let covered = whole.contains(&c.family);
        let seen = out
            .iter()
            .any(|o| o.family == c.family && o.qualifier.is_none());
        if (covered && c.qualifier.is_some()) || (c.qualifier.is_none() && seen) {
            continue;
        }
        out.push(c);
    }
    out
}
