//! `INSERT INTO` an entity's table: each row of the query's batches read as an entity (its key
//! from the key-part columns, its cells from the others, decoded as a read of the entity
//! would be) and saved through the repository, so that its presence cell and its index rows
//! are written as any save writes them.

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
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
use hbase_orm::{Cell, Client, Error, HBaseEntity, Result, Row, TableName};

use crate::pushdown::scalar;
use crate::schema::{EntitySchema, Source};

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
    entity: std::marker::PhantomData<fn() -> E>,
}

impl<E: HBaseEntity> EntitySink<E> {
    pub(crate) fn new(client: Client, table: TableName, schema: EntitySchema) -> Self {
        EntitySink {
            client,
            table,
            accepts: Arc::new(crate::nulls::nullable(schema.arrow())),
            schema,
            entity: std::marker::PhantomData,
        }
    }

    /// Row `row` of `batch` (of the table's columns) as an entity; `number` counts the rows
    /// of the statement from 1, for errors.
    fn entity(&self, batch: &RecordBatch, row: usize, number: u64) -> Result<E> {
        let bad = |column: &str, why: String| Error::IllegalArgument {
            message: format!(
                "INSERT INTO {}: row {number}, column `{column}`: {why}",
                self.table
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
                // No cell: a `None`, or a missing value the entity's decode names.
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
                "INSERT INTO {}: row {number} is no {}: {e}",
                self.table,
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
        let mut saved = 0;
        while let Some(batch) = data.next().await {
            let batch = batch?;
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
