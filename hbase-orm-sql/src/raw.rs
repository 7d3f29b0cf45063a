//! Arrow batches of raw cells: one Arrow row per cell a scan returns, for tables no entity
//! describes.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{ArrayRef, BinaryBuilder, TimestampMillisecondBuilder};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
use futures::stream::{BoxStream, StreamExt};
use hbase_orm::{Error, Result, Row, RowStream};

static CELLS: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        Field::new("row", DataType::Binary, false),
        Field::new("family", DataType::Binary, false),
        Field::new("qualifier", DataType::Binary, false),
        Field::new(
            "timestamp",
            DataType::Timestamp(TimeUnit::Millisecond, None),
            false,
        ),
        Field::new("value", DataType::Binary, false),
    ]))
});

/// The schema of [`cell_batches`]: `row`, `family`, `qualifier` (binary), `timestamp`
/// (milliseconds since the epoch), `value` (binary).
pub fn cell_schema() -> SchemaRef {
    CELLS.clone()
}

/// The cells of `rows` (a [`Table::scan`](hbase_orm::Table::scan)) as record batches of
/// [`cell_schema`], about `batch_size` cells each (a row is never cut), in the order they
/// arrive.
///
/// ```no_run
/// # async fn demo(table: hbase_orm::Table) -> hbase_orm::Result<()> {
/// use futures::TryStreamExt;
/// let batches: Vec<_> = hbase_orm_sql::cell_batches(table.scan(hbase_orm::Scan::new()), 8192)
///     .try_collect()
///     .await?;
/// # Ok(()) }
/// ```
pub fn cell_batches(rows: RowStream, batch_size: usize) -> BoxStream<'static, Result<RecordBatch>> {
    let batch_size = batch_size.max(1);
    futures::stream::unfold(Some(rows), move |rows| async move {
        let mut rows = rows?;
        let mut cells = Cells::default();
        while cells.len < batch_size {
            match rows.next().await {
                Some(Ok(row)) => cells.push(&row),
                Some(Err(e)) => return Some((Err(e), None)),
                None => {
                    return (cells.len > 0).then(|| (cells.finish(), None));
                }
            }
        }
        Some((cells.finish(), Some(rows)))
    })
    .boxed()
}

/// The values of `batches` as text, row by row (as Arrow displays them: `NULL` for a null,
/// `{key: value, ..}` for a map, `[..]` for a list), for checks and printing.
///
/// ```
/// use std::sync::Arc;
/// use hbase_orm_sql::datafusion::arrow::array::{Int64Array, RecordBatch};
///
/// let numbers = Int64Array::from(vec![Some(7), None]);
/// let batch = RecordBatch::try_from_iter([("n", Arc::new(numbers) as _)]).unwrap();
/// assert_eq!(hbase_orm_sql::text_rows(&[batch]).unwrap(), [["7"], ["NULL"]]);
/// ```
pub fn text_rows(batches: &[RecordBatch]) -> Result<Vec<Vec<String>>> {
    let options = FormatOptions::default().with_null("NULL");
    let mut out = Vec::new();
    for batch in batches {
        let columns = batch
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &options))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| Error::IllegalArgument {
                message: format!("a column as text: {e}"),
            })?;
        for r in 0..batch.num_rows() {
            out.push(columns.iter().map(|c| c.value(r).to_string()).collect());
        }
    }
    Ok(out)
}

#[derive(Default)]
struct Cells {
    row: BinaryBuilder,
    family: BinaryBuilder,
    qualifier: BinaryBuilder,
    timestamp: TimestampMillisecondBuilder,
    value: BinaryBuilder,
    len: usize,
}

impl Cells {
    fn push(&mut self, row: &Row) {
        for cell in &row.cells {
            self.row.append_value(&row.key);
            self.family.append_value(&cell.family);
            self.qualifier.append_value(&cell.qualifier);
            self.timestamp.append_value(cell.timestamp);
            self.value.append_value(&cell.value);
            self.len += 1;
        }
    }

    fn finish(mut self) -> Result<RecordBatch> {
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.row.finish()),
            Arc::new(self.family.finish()),
            Arc::new(self.qualifier.finish()),
            Arc::new(self.timestamp.finish()),
            Arc::new(self.value.finish()),
        ];
        RecordBatch::try_new(cell_schema(), columns).map_err(|e| Error::IllegalArgument {
            message: format!("building an Arrow batch of cells: {e}"),
        })
    }
}
