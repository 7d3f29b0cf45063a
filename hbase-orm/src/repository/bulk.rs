//! Entities bulk-loaded: each value's cells as a save writes them, and its index rows, handed to
//! [`Table::bulk_load`] per table.

use std::collections::BTreeMap;

use crate::bulk::{BulkLoadOptions, BulkLoadReport};
use crate::client::Table;
use crate::mapping::{row_image, HBaseEntity, INDEX_FAMILY, INDEX_QUALIFIER};
use crate::model::{Put, Result, TableName};
use crate::repository::repo::Repository;

impl<T: HBaseEntity> Repository<T> {
    /// Loads `values` as HFiles handed to the region servers ([`Table::bulk_load`], native
    /// backend): the fastest way to import many entities. Each value is written as a save
    /// writes its cells (counters with their values, as [`Repository::insert`] writes them),
    /// into the table of its key, and its index rows into the index tables, so that index
    /// queries find the loaded entities. Dictionary key parts get their ids first, as a save
    /// gives them.
    ///
    /// A load is an import, not a save: nothing is read first, so a row already stored keeps
    /// what the value leaves out (columns of `None` fields, wide entries, the index rows of its
    /// old field values), and a version field is written without the optimistic check. The
    /// index tables are loaded before the data tables, one after the other, so that a load
    /// that fails never leaves a loaded entity its index cannot find (index rows whose entity
    /// is not loaded are never returned by index reads); a failure stops at the table it
    /// happened in (the tables before it are loaded; within it, [`crate::Error::BulkLoad`]
    /// says what was). The dictionary ids of new key parts are written before the first load:
    /// a gateway's refusal comes after them.
    ///
    /// ```no_run
    /// # use hbase_orm::{BulkLoadOptions, Client, HBaseEntity};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "orders", family = "d")]
    /// # struct Order { #[hbase(key)] id: u64, total: f64 }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// let orders: Vec<Order> = (0..1_000_000).map(|id| Order { id, total: 9.5 }).collect();
    /// let report = client
    ///     .repository::<Order>()
    ///     .bulk_load(&orders, &BulkLoadOptions::new())
    ///     .await?;
    /// println!("{} cells in {} files", report.cells, report.files);
    /// # Ok(()) }
    /// ```
    pub async fn bulk_load(
        &self,
        values: &[T],
        options: &BulkLoadOptions,
    ) -> Result<BulkLoadReport> {
        let mut data: BTreeMap<TableName, (Table, Vec<Put>)> = BTreeMap::new();
        let mut index: Vec<Vec<Put>> = T::INDEXES.iter().map(|_| Vec::new()).collect();
        for value in values {
            self.name_parts(value).await?;
            let table = self.table_for(&value.key());
            let put = row_image(value, true)?.put;
            for (def, puts) in T::INDEXES.iter().zip(&mut index) {
                if let Some(key) = def.key_of(value)? {
                    puts.push(Put::new(key).column(INDEX_FAMILY, INDEX_QUALIFIER, put.row.clone()));
                }
            }
            data.entry(table.name().clone())
                .or_insert_with(|| (table, Vec::new()))
                .1
                .push(put);
        }
        let mut report = BulkLoadReport::default();
        // The index tables first: see `index.rs` for why.
        for (def, puts) in T::INDEXES.iter().zip(index) {
            if !puts.is_empty() {
                report.add(&self.index_table(def).bulk_load(puts, options).await?);
            }
        }
        for (_, (table, puts)) in data {
            report.add(&table.bulk_load(puts, options).await?);
        }
        Ok(report)
    }
}
