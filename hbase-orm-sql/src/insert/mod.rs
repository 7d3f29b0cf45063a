//! `INSERT INTO` an entity's table: each row of the query's batches read as an entity (its key
//! from the key-part columns, its cells from the others, decoded as a read of the entity
//! would be) and saved through the repository, or all of them bulk-loaded through it, so that
//! its presence cell and its index rows are written as any save or load writes them.

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::compute::{cast_with_options, CastOptions};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::ScalarValue;
use datafusion::datasource::sink::DataSink;
use datafusion::error::{DataFusionError, Result as DfResult};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_plan::{DisplayAs, DisplayFormatType};
use futures::StreamExt;
use hbase_orm::codec::encode_scalar;
use hbase_orm::entity::{ColumnKind, EntityKey, Scalar};
use hbase_orm::{BulkLoadOptions, Cell, Client, Error, HBaseEntity, Result, Row, TableName};

use crate::pushdown::scalar;
use crate::schema::{EntitySchema, Source};

mod exec;
mod plan;

pub(crate) use exec::write_apart;
pub use exec::EntityWriteExec;
pub(crate) use plan::add_to;

/// Why the SQL layer does not write entities of `E` yet, if it does not: a field whose cells
/// a row of one value per column cannot say (a wide map, a cell's versions, a flattened group,
/// children), a counter (changed by increments only) or an optimistic version.
pub(crate) fn refusal<E: HBaseEntity>() -> Option<String> {
    E::COLUMNS.iter().find_map(|def| {
        let what = match def.kind {
            ColumnKind::Value => return None,
            ColumnKind::Wide => "a wide map",
            ColumnKind::Versions(_) => "a cell's versions",
            ColumnKind::Flatten(_) => "a flattened group",
            ColumnKind::Children => "children",
            ColumnKind::Counter => "a counter (changed by increments only)",
            ColumnKind::Version => "the optimistic version",
        };
        Some(format!(
            "INSERT INTO a table of {}: field `{}` is {what}, which the SQL layer does not \
             write yet; save such entities with a Repository",
            std::any::type_name::<E>(),
            def.field
        ))
    })
}

/// Saves the rows of the batches it is given as entities of `E`.
pub(crate) struct EntitySink<E: HBaseEntity> {
    client: Client,
    table: TableName,
    schema: EntitySchema,
    /// The table's columns, all nullable: the sink itself refuses a NULL where the entity
    /// needs a value, naming the row and the field (DataFusion, told that a column is not
    /// nullable, would check it first and name only the column's index).
    accepts: SchemaRef,
    /// The options of a bulk load of all the rows; `None`: each row saved.
    bulk: Option<BulkLoadOptions>,
    /// The partition of the query's rows it writes, when each is written apart (errors name
    /// it beside the row).
    partition: Option<usize>,
    entity: std::marker::PhantomData<fn() -> E>,
}

impl<E: HBaseEntity> EntitySink<E> {
    /// A sink into `table` that saves each row, or bulk-loads them all with `bulk`.
    pub(crate) fn new(
        client: Client,
        table: TableName,
        schema: EntitySchema,
        bulk: Option<BulkLoadOptions>,
    ) -> Self {
        EntitySink {
            client,
            table,
            bulk,
            accepts: Arc::new(plan::nullable(schema.arrow())),
            schema,
            partition: None,
            entity: std::marker::PhantomData,
        }
    }

    /// This sink writing partition `partition` of the query's rows (errors name it).
    pub(crate) fn for_partition(mut self, partition: usize) -> Self {
        self.partition = Some(partition);
        self
    }

    /// How errors name row `number` (from 1): `row 7`, or `row 7 of partition 2`.
    fn row(&self, number: u64) -> String {
        match self.partition {
            None => format!("row {number}"),
            Some(p) => format!("row {number} of partition {p}"),
        }
    }

    /// `batch` (the query's columns, in the table's order) with each column cast to the
    /// table's type as DataFusion casts; a value that does not convert is an error naming its
    /// row (`first` is the number of the batch's first row in the statement, from 1) and its
    /// column.
    fn conform(&self, batch: RecordBatch, first: u64) -> Result<RecordBatch> {
        let schema = self.schema.arrow();
        let bad = |row: u64, column: &str, why: String| Error::IllegalArgument {
            message: format!(
                "INSERT INTO {}: {}, column `{column}`: {why}",
                self.table,
                self.row(row)
            ),
        };
        if batch.num_columns() != schema.fields().len() {
            return Err(bad(
                first,
                "*",
                format!(
                    "{} columns given, the table has {}",
                    batch.num_columns(),
                    schema.fields().len()
                ),
            ));
        }
        let options = CastOptions {
            safe: true,
            ..CastOptions::default()
        };
        let mut columns = Vec::with_capacity(batch.num_columns());
        for (given, field) in batch.columns().iter().zip(schema.fields()) {
            if given.data_type() == field.data_type() {
                columns.push(given.clone());
                continue;
            }
            let cast = cast_with_options(given, field.data_type(), &options)
                .map_err(|e| bad(first, field.name(), e.to_string()))?;
            // A safe cast gives NULL for a value that does not convert: that row is named.
            if let Some(at) = (0..given.len()).find(|&i| given.is_valid(i) && cast.is_null(i)) {
                let value = ScalarValue::try_from_array(given, at)
                    .map(|v| v.to_string())
                    .unwrap_or_else(|_| "its value".into());
                return Err(bad(
                    first + at as u64,
                    field.name(),
                    format!(
                        "{value} ({}) does not convert to {}",
                        given.data_type(),
                        field.data_type()
                    ),
                ));
            }
            columns.push(cast);
        }
        RecordBatch::try_new(self.accepts.clone(), columns)
            .map_err(|e| bad(first, "*", e.to_string()))
    }

    /// The rows of the query's batches as entities, in order, each batch's made when it
    /// arrives; a row that is no entity is an error naming it, which ends the stream's use.
    fn entities(
        &self,
        data: SendableRecordBatchStream,
    ) -> impl futures::Stream<Item = Result<E>> + Send + '_ {
        let mut next = 1u64;
        data.flat_map(move |batch| {
            let first = next;
            let made: Vec<Result<E>> = match batch {
                Err(e) => vec![Err(Error::IllegalArgument {
                    message: format!("INSERT INTO {}: the query's rows: {e}", self.table),
                })],
                Ok(batch) => {
                    next += batch.num_rows() as u64;
                    match self.conform(batch, first) {
                        Err(e) => vec![Err(e)],
                        Ok(batch) => (0..batch.num_rows())
                            .map(|row| self.entity(&batch, row, first + row as u64))
                            .collect(),
                    }
                }
            };
            futures::stream::iter(made)
        })
    }

    /// Row `row` of `batch` (of the table's columns) as an entity; `number` counts the rows
    /// of the statement from 1, for errors.
    fn entity(&self, batch: &RecordBatch, row: usize, number: u64) -> Result<E> {
        let bad = |column: &str, why: String| Error::IllegalArgument {
            message: format!(
                "INSERT INTO {}: {}, column `{column}`: {why}",
                self.table,
                self.row(number)
            ),
        };
        let mut parts = Vec::with_capacity(E::KEY_PARTS.len());
        let mut cells = Vec::new();
        for (i, column) in self.schema.sources().iter().enumerate() {
            let name = self.schema.arrow().field(i).name();
            let value = ScalarValue::try_from_array(batch.column(i), row)
                .map_err(|e| bad(name, e.to_string()))?;
            if value.is_null() {
                if let Source::Key(_) = column.source {
                    return Err(bad(name, "a key part cannot be NULL".into()));
                }
                if !self.schema.arrow().field(i).is_nullable() {
                    return Err(bad(
                        name,
                        format!(
                            "NULL where {} needs a value (the field is no Option and has no \
                             default)",
                            std::any::type_name::<E>()
                        ),
                    ));
                }
                // No cell: a `None`, or a field's default.
                continue;
            }
            let held = sql_scalar(&value)
                .ok_or_else(|| bad(name, format!("{value:?} is no value the layer writes")))?;
            match column.source {
                Source::Key(_) => parts.push(held),
                Source::Cell(c) => {
                    let def = &E::COLUMNS[c];
                    let bytes = encode_scalar(def.value_type, &held).ok_or_else(|| {
                        bad(name, format!("{value:?} is not a {:?}", def.value_type))
                    })?;
                    cells.push(Cell {
                        family: def.family.as_bytes().to_vec().into(),
                        qualifier: def.qualifier.as_bytes().to_vec().into(),
                        value: bytes.into(),
                        timestamp: 0,
                    });
                }
            }
        }
        let key = match E::Key::prefix_of(&parts) {
            Some(Ok(prefix)) if !prefix.all_buckets => prefix.bytes,
            Some(Err(e)) => return Err(bad("key", e.to_string())),
            _ => {
                return Err(bad(
                    "key",
                    format!("{parts:?} are not the values of every key part"),
                ))
            }
        };
        // The cells in HBase's order (by family, then qualifier), as a read hands them over.
        cells.sort_by(|a, b| (&a.family, &a.qualifier).cmp(&(&b.family, &b.qualifier)));
        let row_of = Row {
            key,
            cells,
            stale: false,
        };
        E::from_row_of(row_of, &self.table).map_err(|e| Error::IllegalArgument {
            message: format!(
                "INSERT INTO {}: {} is no {}: {e}",
                self.table,
                self.row(number),
                std::any::type_name::<E>()
            ),
        })
    }
}

/// A SQL value as a scalar: a key part's (through the pushdown's conversion), or a float.
fn sql_scalar(value: &ScalarValue) -> Option<Scalar<'static>> {
    scalar(value).or(match value {
        ScalarValue::Float32(Some(v)) => Some(Scalar::Float(f64::from(*v))),
        ScalarValue::Float64(Some(v)) => Some(Scalar::Float(*v)),
        _ => None,
    })
}

impl<E: HBaseEntity> fmt::Debug for EntitySink<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EntitySink")
            .field("table", &self.table.to_string())
            .finish_non_exhaustive()
    }
}

impl<E: HBaseEntity> DisplayAs for EntitySink<E> {
    fn fmt_as(&self, _: DisplayFormatType, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "EntitySink: table={}", self.table)
    }
}

#[async_trait]
impl<E: HBaseEntity> DataSink for EntitySink<E> {
    fn schema(&self) -> &SchemaRef {
        &self.accepts
    }

    async fn write_all(
        &self,
        mut data: SendableRecordBatchStream,
        _context: &Arc<TaskContext>,
    ) -> DfResult<u64> {
        let repository = self.client.repository::<E>().on_table(self.table.clone());
        let external = |e: Error| DataFusionError::External(Box::new(e));
        if let Some(options) = &self.bulk {
            let entities = self.entities(data);
            let report = repository
                .bulk_load_stream(entities, options)
                .await
                .map_err(external)?;
            return Ok(report.read);
        }
        let mut saved = 0;
        while let Some(batch) = data.next().await {
            let batch = self.conform(batch?, saved + 1).map_err(external)?;
            let entities = (0..batch.num_rows())
                .map(|row| self.entity(&batch, row, saved + row as u64 + 1))
                .collect::<Result<Vec<E>>>()
                .map_err(external)?;
            repository.save_all(&entities).await.map_err(external)?;
            saved += entities.len() as u64;
        }
        Ok(saved)
    }
}
