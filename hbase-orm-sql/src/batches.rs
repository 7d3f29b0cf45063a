//! Arrow record batches built straight from scanned rows: key parts from the row key, values
//! from the cells' bytes by their [`ValueType`], no entity made on the way.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, TimestampMillisecondBuilder};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::{RecordBatch, RecordBatchOptions};
use hbase_orm::entity::{presence_cell, ColumnDef, ColumnKind, EntityKey, ValueType};
use hbase_orm::{printable_key, CellRef, Error, HBaseEntity, Result, Row, ScannedRow, TableName};

use crate::columns::{Builder, Column, EntryError};
use crate::schema::{nullable, EntitySchema, Source};

/// Builds record batches of some columns of entity `E` from its rows.
///
/// ```
/// use hbase_orm::{Cell, HBaseEntity, Row, TableName};
/// use hbase_orm_sql::{BatchBuilder, EntitySchema};
///
/// #[derive(HBaseEntity)]
/// #[hbase(table = "orders", family = "d", key_delimiter = '\0')]
/// struct Order {
///     #[hbase(key)]
///     customer: String,
///     #[hbase(key)]
///     number: u32,
///     total: f64,
/// }
///
/// let order = Order { customer: "acme".into(), number: 7, total: 9.5 };
/// let put = order.to_put().unwrap();
/// let row = Row {
///     key: put.row.clone(),
///     cells: put.cells.iter().map(|c| Cell {
///         family: c.family.clone(), qualifier: c.qualifier.clone(),
///         value: c.value.clone(), timestamp: 1,
///     }).collect(),
///     stale: false,
/// };
/// let schema = EntitySchema::of::<Order>().unwrap();
/// let mut builder = BatchBuilder::<Order>::new(&schema, None, Order::table_name());
/// assert!(builder.push(&row).unwrap());
/// let batch = builder.finish().unwrap();
/// assert_eq!(batch.num_rows(), 1);
/// assert_eq!(batch.num_columns(), 3);
/// ```
pub struct BatchBuilder<E: HBaseEntity> {
    schema: SchemaRef,
    table: TableName,
    builders: Vec<Column>,
    /// Per key part read from the key, its builder.
    keys: Vec<Option<usize>>,
    /// Whether some key part is a column asked for (else the key is not decoded).
    reads_key: bool,
    /// Per stored field (index in `E::COLUMNS`), its builder.
    cells: Vec<Option<usize>>,
    /// Per builder, whether this row gave it a value.
    filled: Vec<bool>,
    /// Per builder, what a row without its value gives.
    missing: Vec<Missing>,
    presence: (&'static [u8], &'static [u8]),
    rows: usize,
    entity: std::marker::PhantomData<fn() -> E>,
}

impl<E: HBaseEntity> BatchBuilder<E> {
    /// A builder of the columns `projection` picks from `schema` (all of them with `None`),
    /// for rows read from `table` (named in errors).
    pub fn new(schema: &EntitySchema, projection: Option<&[usize]>, table: TableName) -> Self {
        let picked: Vec<usize> = match projection {
            Some(p) => p.to_vec(),
            None => (0..schema.sources().len()).collect(),
        };
        let mut keys = vec![None; E::KEY_PARTS.len()];
        let mut cells = vec![None; E::COLUMNS.len()];
        let mut builders = Vec::with_capacity(picked.len());
        let mut missing = Vec::with_capacity(picked.len());
        for (slot, &i) in picked.iter().enumerate() {
            let column = schema.sources()[i];
            missing.push(match column.source {
                Source::Cell(c) => Missing::of(c, &E::COLUMNS[c]),
                Source::Key(_) => Missing::Null,
            });
            match column.source {
                Source::Key(n) => keys[n] = Some(slot),
                Source::Cell(c) => cells[c] = Some(slot),
            }
            builders.push(match column.source {
                Source::Cell(c) => match E::COLUMNS[c].kind {
                    ColumnKind::Versions(n) => Column::Versions {
                        limit: n as usize,
                        taken: 0,
                        timestamps: TimestampMillisecondBuilder::new(),
                        values: Builder::new(column.value_type),
                        offsets: vec![0],
                    },
                    ColumnKind::Wide => {
                        let key = E::COLUMNS[c]
                            .map_key
                            .expect("a map column has the map's key (EntitySchema::of)");
                        Column::Map {
                            read: key.read,
                            taken: 0,
                            last: Vec::new(),
                            keys: Builder::new(key.value_type),
                            values: Builder::new(column.value_type),
                            offsets: vec![0],
                        }
                    }
                    _ => Column::One(Builder::new(column.value_type)),
                },
                Source::Key(_) => Column::One(Builder::new(column.value_type)),
            });
        }
        let (family, qualifier) = presence_cell::<E>();
        let presence = (family.as_bytes(), qualifier.as_bytes());
        BatchBuilder {
            schema: Arc::new(
                schema
                    .arrow()
                    .project(&picked)
                    .expect("projection indexes come from this schema"),
            ),
            table,
            filled: vec![false; builders.len()],
            missing,
            builders,
            reads_key: keys.iter().any(Option::is_some),
            keys,
            cells,
            presence,
            rows: 0,
            entity: std::marker::PhantomData,
        }
    }

    /// The schema of the batches.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// The rows added since the last batch.
    pub fn len(&self) -> usize {
        self.rows
    }

    /// Whether no row was added since the last batch.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// The `(family, qualifier)` of the cell every row of an entity holds
    /// ([`presence_cell`]): scans must read it.
    pub fn presence_cell(&self) -> (&'static [u8], &'static [u8]) {
        self.presence
    }

    /// Adds `row` if it holds an entity of `E` (its record type, its presence cell); `false`
    /// when it does not. A key or cell that does not decode is an [`Error::Decode`] naming the
    /// table, the row, the column and the type expected; the builder is then spent (its
    /// columns may hold part of that row): drop it.
    pub fn push(&mut self, row: &Row) -> Result<bool> {
        self.push_cells(&row.key, || row.cells.iter().map(CellRef::from))
    }

    /// [`BatchBuilder::push`] for a row read where it lies in its scanner page
    /// ([`RowStream::into_scanned`](hbase_orm::RowStream::into_scanned)): no [`Row`] made.
    pub fn push_scanned(&mut self, row: &ScannedRow) -> Result<bool> {
        self.push_cells(row.key(), || row.cells())
    }

    fn push_cells<'a, I: Iterator<Item = CellRef<'a>>>(
        &mut self,
        row_key: &[u8],
        cells: impl Fn() -> I,
    ) -> Result<bool> {
        if !E::is_record(row_key) {
            return Ok(false);
        }
        let (pf, pq) = self.presence;
        if !cells().any(|c| c.family == pf && c.qualifier == pq) {
            return Ok(false);
        }
        let decode = |column: &str, value_type: ValueType, reason: String| Error::Decode {
            table: self.table.to_string(),
            row: printable_key(row_key),
            column: column.to_string(),
            expected: format!("{value_type:?}"),
            reason,
        };
        self.filled.iter_mut().for_each(|f| *f = false);
        let mut failed = None;
        if self.reads_key {
            let key = E::Key::read_key(row_key)
                .map_err(|e| decode(e.part, ValueType::Other, e.to_string()))?;
            let mut n = 0;
            let (builders, filled, keys) = (&mut self.builders, &mut self.filled, &self.keys);
            key.visit_parts(&mut |value| {
                if let Some(slot) = keys.get(n).copied().flatten() {
                    if failed.is_none() {
                        let Column::One(builder) = &mut builders[slot] else {
                            unreachable!("a key part is one value");
                        };
                        match builder.push_scalar(value) {
                            Ok(()) => filled[slot] = true,
                            Err(e) => failed = Some((E::KEY_PARTS[n], e)),
                        }
                    }
                }
                n += 1;
            });
        }
        if let Some((part, reason)) = failed {
            return Err(decode(part.field, part.value_type, reason));
        }
        for cell in cells() {
            let Some(col) = E::column_index(cell.family, cell.qualifier) else {
                continue;
            };
            let Some(slot) = self.cells[col] else {
                continue;
            };
            let pushed = match &mut self.builders[slot] {
                // The newest version comes first; older ones are not read.
                Column::One(_) if self.filled[slot] => continue,
                Column::One(builder) => builder.push_cell(cell.value),
                Column::Versions { limit, taken, .. } if *taken >= *limit => continue,
                Column::Versions {
                    taken,
                    timestamps,
                    values,
                    ..
                } => values.push_cell(cell.value).map(|()| {
                    timestamps.append_value(cell.timestamp);
                    *taken += 1;
                }),
                map @ Column::Map { .. } => match map.push_entry(cell.qualifier, cell.value) {
                    Ok(_) => Ok(()),
                    Err(e) => {
                        let def = &E::COLUMNS[col];
                        let column = format!(
                            "{}:{} (an entry of map `{}`)",
                            def.family,
                            String::from_utf8_lossy(cell.qualifier),
                            def.field
                        );
                        let (expected, reason) = match e {
                            EntryError::Key(reason) => (
                                def.map_key.map_or(ValueType::Other, |k| k.value_type),
                                reason,
                            ),
                            EntryError::Value(reason) => (def.value_type, reason),
                        };
                        return Err(decode(&column, expected, reason));
                    }
                },
            };
            if let Err(reason) = pushed {
                let def = &E::COLUMNS[col];
                let column = format!("{}:{}", def.family, def.qualifier);
                return Err(decode(&column, def.value_type, reason));
            }
            self.filled[slot] = true;
        }
        for ((column, filled), missing) in self
            .builders
            .iter_mut()
            .zip(&self.filled)
            .zip(&self.missing)
        {
            match (column, missing) {
                (Column::One(_), _) if *filled => {}
                (Column::One(builder), Missing::Null) => builder.push_null(),
                (Column::One(builder), Missing::Zero) => builder
                    .push_cell(&[0; 8])
                    .expect("8 zero bytes are a counter's and a version's 0"),
                (Column::One(_), Missing::Refuse(c)) => {
                    let def = &E::COLUMNS[*c];
                    return Err(decode(
                        &format!("{}:{}", def.family, def.qualifier),
                        def.value_type,
                        format!(
                            "the row has no such cell, and field `{}` is no Option and has \
                             no default (the entity cannot be read either)",
                            def.field
                        ),
                    ));
                }
                (list, _) => list.end_row(),
            }
        }
        self.rows += 1;
        Ok(true)
    }

    /// The batch of the rows added since the last one.
    pub fn finish(&mut self) -> Result<RecordBatch> {
        let failed = |e: String| Error::IllegalArgument {
            message: format!("building an Arrow batch of {}: {e}", self.table),
        };
        let columns = self
            .builders
            .iter_mut()
            .map(Column::finish)
            .collect::<std::result::Result<Vec<ArrayRef>, String>>()
            .map_err(failed)?;
        let options = RecordBatchOptions::new().with_row_count(Some(self.rows));
        self.rows = 0;
        RecordBatch::try_new_with_options(self.schema.clone(), columns, &options)
            .map_err(|e| failed(e.to_string()))
    }
}

/// What a row without a value for a column gives (see [`EntitySchema::of`]).
#[derive(Debug, Clone, Copy)]
enum Missing {
    /// NULL: an `Option` field, a field with a default, a list or a map (which end the row
    /// empty).
    Null,
    /// 0: a counter, a version.
    Zero,
    /// An error: the field at this index of `E::COLUMNS` must have a cell.
    Refuse(usize),
}

impl Missing {
    fn of(index: usize, def: &ColumnDef) -> Missing {
        match def.kind {
            ColumnKind::Counter | ColumnKind::Version => Missing::Zero,
            ColumnKind::Value if !nullable(def) => Missing::Refuse(index),
            _ => Missing::Null,
        }
    }
}
