//! Data calls on one table. `Client::table` and `table_named`, which make a [`Table`], sit
//! here beside it (see `handle.rs` for where the rest of `impl Client` is).

use super::handle::Client;
use super::labels::Labels;
use super::plan::ScanPlan;
use super::scan::RowStream;
use crate::backend::op::{self, Operation};
use crate::model::*;

impl Client {
    /// A handle for data calls on `table` (`"namespace:table"` or `"table"`).
    pub fn table(&self, table: &str) -> Result<Table> {
        Ok(self.table_named(TableName::parse(table)?))
    }

    /// A handle for data calls on an already parsed table name.
    pub fn table_named(&self, table: TableName) -> Table {
        Table::new(self.clone(), table)
    }
}

/// A handle for reading and writing one table. Cheap to clone.
///
/// Every method is one round trip to the gateway, except [`Table::scan`] (one per page) and
/// the fallbacks of the batch methods described on them. Every request is checked before it
/// is sent (an empty or oversized row key, a put without cells, a malformed filter are
/// [`Error::IllegalArgument`] and nothing is written).
#[derive(Clone, Debug)]
pub struct Table {
    client: Client,
    name: TableName,
    /// This handle's retry deadline, instead of the client's.
    retry_deadline: Option<std::time::Duration>,
    /// The visibility and authorizations its requests carry when they name none.
    labels: Labels,
}

impl Table {
    pub(super) fn new(client: Client, name: TableName) -> Self {
        Table {
            client,
            name,
            retry_deadline: None,
            labels: Labels::default(),
        }
    }

    /// This handle with a cell visibility expression for the puts it sends that carry none of
    /// their own (`put`, `put_many`, `mutate_row`, `mutate_rows`, `check_and_mutate`; see
    /// [`Put::visibility`]), and for its deletes, which then remove the cells it labeled
    /// ([`Delete::visibility`]). A [`Repository`](crate::Repository) on such a handle labels
    /// every row it writes, index rows included ([`Repository::with_visibility`](crate::Repository::with_visibility)).
    ///
    /// ```no_run
    /// # async fn demo(patients: hbase_orm::Table) -> hbase_orm::Result<()> {
    /// let medical = patients.visibility("medical");
    /// medical.put(hbase_orm::Put::new("p-1").column("d", "diagnosis", "flu")).await?;
    /// # Ok(()) }
    /// ```
    pub fn visibility(mut self, expression: impl Into<String>) -> Self {
        self.labels.visibility = Some(expression.into().into());
        self
    }

    /// This handle with cell visibility labels for the gets and scans it sends that name none
    /// of their own (see [`Get::authorizations`]).
    ///
    /// ```no_run
    /// # async fn demo(patients: hbase_orm::Table) -> hbase_orm::Result<()> {
    /// let doctor = patients.authorizations(["medical"]);
    /// let row = doctor.get(hbase_orm::Get::new("p-1")).await?;
    /// # Ok(()) }
    /// ```
    pub fn authorizations<L: Into<String>>(mut self, labels: impl IntoIterator<Item = L>) -> Self {
        let labels: Vec<String> = labels.into_iter().map(Into::into).collect();
        self.labels.authorizations = Some(labels.into());
        self
    }

    /// This handle with a retry deadline of its own for its calls (gets, puts, deletes,
    /// increments and the rest; scans keep the client's): zero sends each call once, a long
    /// one rides out a longer outage. See [`crate::Config::retry_deadline`].
    ///
    /// ```no_run
    /// # async fn demo(orders: hbase_orm::Table) -> hbase_orm::Result<()> {
    /// use std::time::Duration;
    /// let impatient = orders.retry_deadline(Duration::ZERO);
    /// let row = impatient.get(hbase_orm::Get::new("o1")).await?;
    /// # Ok(()) }
    /// ```
    pub fn retry_deadline(mut self, deadline: std::time::Duration) -> Self {
        self.retry_deadline = Some(deadline);
        self
    }

    /// Whether the handle gives its puts a visibility expression (a bulk load cannot).
    #[cfg(feature = "bulk-load")]
    pub(crate) fn labels_cells(&self) -> bool {
        self.labels.visibility.is_some()
    }

    /// A handle on another table with this one's settings (its retry deadline, visibility
    /// and authorizations).
    pub(crate) fn renamed(&self, name: TableName) -> Table {
        Table {
            client: self.client.clone(),
            name,
            retry_deadline: self.retry_deadline,
            labels: self.labels.clone(),
        }
    }

    /// Runs one operation of this handle under the retry rules, with its deadline.
    async fn run<O: Operation>(&self, op: &O) -> Result<O::Output> {
        self.client.run_within(self.retry_deadline, op).await
    }

    /// The table's name.
    pub fn name(&self) -> &TableName {
        &self.name
    }

    /// The client this handle uses.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Reads one row; `None` if it does not exist (or has none of the requested columns).
    pub async fn get(&self, mut get: Get) -> Result<Option<Row>> {
        self.labels.get(&mut get);
        let (table, get) = (&self.name, &get);
        self.run(&op::Get { table, get }).await
    }

    /// Reads several rows in one call; the answer has one entry per get, in the same order.
    pub async fn get_many(&self, mut gets: Vec<Get>) -> Result<Vec<Option<Row>>> {
        gets.iter_mut().for_each(|g| self.labels.get(g));
        let (table, gets) = (&self.name, &gets[..]);
        self.run(&op::GetMany { table, gets }).await
    }

    /// Whether the row (or the columns the get names) exists, without transferring values.
    pub async fn exists(&self, mut get: Get) -> Result<bool> {
        self.labels.get(&mut get);
        let (table, get) = (&self.name, &get);
        self.run(&op::Exists { table, get }).await
    }

    /// [`Table::exists`] for several gets in one call, in the same order.
    pub async fn exists_many(&self, mut gets: Vec<Get>) -> Result<Vec<bool>> {
        gets.iter_mut().for_each(|g| self.labels.get(g));
        let (table, gets) = (&self.name, &gets[..]);
        self.run(&op::ExistsMany { table, gets }).await
    }

    /// Writes cells into one row.
    pub async fn put(&self, mut put: Put) -> Result<()> {
        self.labels.put(&mut put);
        let (table, put) = (&self.name, &put);
        self.run(&op::Put { table, put }).await
    }

    /// Writes many rows in one call (not atomic across rows).
    ///
    /// If HBase rejects the batch, each row is written again on its own so that only the rows
    /// that really fail are reported: the error is then [`Error::PartialBatch`] listing them.
    /// Keep batches below the gateway's frame limit (2 MiB by default for framed gateways).
    pub async fn put_many(&self, puts: Vec<Put>) -> Result<()> {
        self.put_slice(&puts).await
    }

    /// [`Table::put_many`] of puts the caller keeps (to name the rows of a failure).
    pub(crate) async fn put_slice(&self, puts: &[Put]) -> Result<()> {
        if puts.is_empty() {
            return Ok(());
        }
        let puts = &self.labels.puts(puts)[..];
        let table = &self.name;
        let batch = op::PutMany { table, puts };
        // Checked once here: a batch refused by its checks is not sent row by row below.
        batch.check()?;
        let sent = self
            .client
            .run_checked_within(self.retry_deadline, &batch)
            .await;
        match sent {
            Ok(()) => Ok(()),
            Err(error) => {
                self.one_by_one("put_many", error, puts, |put| async move {
                    self.run(&op::Put { table, put }).await
                })
                .await
            }
        }
    }

    /// Deletes a row or parts of it. A delete that mixes families, columns and versions is
    /// applied atomically.
    pub async fn delete(&self, mut delete: Delete) -> Result<()> {
        self.labels.delete(&mut delete);
        let (table, delete) = (&self.name, &delete);
        self.run(&op::Delete { table, delete }).await
    }

    /// Deletes many rows in one call (not atomic across rows). A delete that mixes
    /// families, columns and versions goes as its own atomic row mutation, as in
    /// [`Table::delete`]. Failures are reported like [`Table::put_many`]'s.
    pub async fn delete_many(&self, mut deletes: Vec<Delete>) -> Result<()> {
        deletes.iter_mut().for_each(|d| self.labels.delete(d));
        deletes.iter().try_for_each(Delete::check)?;
        let total = deletes.len();
        let (simple, mixed): (Vec<Delete>, Vec<Delete>) =
            deletes.into_iter().partition(Delete::is_one_kind);
        let mut failures = BatchFailures::new("delete_many", total);
        let table = &self.name;
        if !simple.is_empty() {
            let batch = op::DeleteMany {
                table,
                deletes: &simple,
            };
            match self.run(&batch).await {
                Ok(rejected) => {
                    for i in rejected {
                        failures.record(
                            vec![simple[i].row.clone()],
                            Error::Server {
                                method: "deleteMultiple",
                                message: "HBase returned this delete as not applied".into(),
                                can_retry: true,
                            },
                        );
                    }
                }
                Err(error) => {
                    if let Err(e) = self
                        .one_by_one("delete_many", error, &simple, |delete| async move {
                            self.run(&op::Delete { table, delete }).await
                        })
                        .await
                    {
                        failures.record(Vec::new(), e);
                    }
                }
            }
        }
        for d in mixed {
            if let Err(e) = self.run(&op::Delete { table, delete: &d }).await {
                failures.record(vec![d.row], e);
            }
        }
        failures.finish()
    }

    /// After a batch failed with `error`, sends each item on its own and reports the rows that
    /// still fail. Only HBase's own rejections are retried this way; a batch the backend
    /// refused as unsupported returns that error; if the batch failed for another reason
    /// (connection, timeout) every row is reported as not confirmed.
    async fn one_by_one<'a, T, F>(
        &self,
        operation: &'static str,
        error: Error,
        items: &'a [T],
        single: impl Fn(&'a T) -> F,
    ) -> Result<()>
    where
        T: RowOf,
        F: std::future::Future<Output = Result<()>>,
    {
        if matches!(error, Error::Unsupported { .. }) {
            // Refused before anything was sent: no row was written, and none would be alone.
            return Err(error);
        }
        let mut failures = BatchFailures::new(operation, items.len());
        // A refusal of the batch (a server error, or a permission some rows lack): each row
        // on its own says which were written.
        if !matches!(error, Error::Server { .. } | Error::AccessDenied { .. }) {
            failures.record(items.iter().map(|i| i.row().to_vec()).collect(), error);
            return failures.finish();
        }
        for item in items {
            if let Err(e) = single(item).await {
                failures.record(vec![item.row().to_vec()], e);
            }
        }
        failures.finish()
    }

    /// Applies puts and deletes to one row atomically. Sent again after a passing failure
    /// unless it holds a latest-version delete (see the client's retry rules).
    pub async fn mutate_row(&self, mut mutations: RowMutations) -> Result<()> {
        self.labels.mutations(&mut mutations);
        let (table, mutations) = (&self.name, &mutations);
        self.run(&op::MutateRow { table, mutations }).await
    }

    /// Applies each row's puts and deletes atomically ([`Table::mutate_row`] for many rows),
    /// in one batch where the backend has one: the native backend sends each server one call,
    /// a region's rows in one atomic region action (HBase 2.4+ applies them as one batch, all
    /// or none; after a failure the rows go again one by one, so that only the failing ones
    /// are reported); the gateways, whose IDLs have no batch of atomic rows, send one
    /// `mutateRow` per row, as many at once as the pool holds connections. Rows that fail are
    /// listed in [`Error::PartialBatch`]; the others were applied, each whole.
    ///
    /// ```no_run
    /// # async fn demo(table: hbase_orm::Table) -> hbase_orm::Result<()> {
    /// use hbase_orm::{Delete, Put, RowMutations};
    /// let rows: Vec<RowMutations> = ["o-1", "o-2"]
    ///     .into_iter()
    ///     .map(|row| {
    ///         RowMutations::new(row)
    ///             .put(Put::new(row).column("d", "status", "sent"))
    ///             .delete(Delete::new(row).column("d", "note"))
    ///     })
    ///     .collect();
    /// table.mutate_rows(&rows).await?;
    /// # Ok(()) }
    /// ```
    pub async fn mutate_rows(&self, rows: &[RowMutations]) -> Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        let rows = &self.labels.rows(rows)[..];
        let table = &self.name;
        let batch = op::MutateRows { table, rows };
        batch.check()?;
        match self
            .client
            .run_checked_within(self.retry_deadline, &batch)
            .await
        {
            Ok(()) => Ok(()),
            Err(error) => {
                self.one_by_one("mutate_rows", error, rows, |mutations| async move {
                    self.run(&op::MutateRow { table, mutations }).await
                })
                .await
            }
        }
    }

    /// Applies the mutations if the check passes, atomically; returns whether it passed.
    pub async fn check_and_mutate(&self, mut cam: CheckAndMutate) -> Result<bool> {
        self.labels.mutations(&mut cam.mutations);
        let (table, cam) = (&self.name, &cam);
        self.run(&op::CheckAndMutate { table, cam }).await
    }

    /// Adds to counters atomically; returns the row with the new counter values.
    pub async fn increment(&self, increment: Increment) -> Result<Row> {
        let table = &self.name;
        let row = self
            .run(&op::Increment {
                table,
                increment: &increment,
            })
            .await?;
        Ok(row.unwrap_or_else(|| Row::empty(increment.row)))
    }

    /// Adds `amount` to one counter and returns its new value.
    pub async fn increment_column(
        &self,
        row: impl Into<Vec<u8>>,
        family: impl Into<Vec<u8>>,
        qualifier: impl Into<Vec<u8>>,
        amount: i64,
    ) -> Result<i64> {
        let (family, qualifier) = (family.into(), qualifier.into());
        let inc = Increment::new(row).column(family.clone(), qualifier.clone(), amount);
        let key = inc.row.clone();
        let row = self.increment(inc).await?;
        row.counter(&family, &qualifier)
            .ok_or_else(|| Error::Protocol {
                method: "increment",
                message: format!(
                    "no 8-byte counter value returned for row {}",
                    printable_key(&key)
                ),
            })
    }

    /// Appends bytes to cells atomically; returns the row with the new values.
    pub async fn append(&self, append: Append) -> Result<Row> {
        let table = &self.name;
        let row = self
            .run(&op::Append {
                table,
                append: &append,
            })
            .await?;
        Ok(row.unwrap_or_else(|| Row::empty(append.row)))
    }

    /// Streams the rows of a scan. The server-side scanner is closed when the stream ends, fails
    /// or is dropped early.
    ///
    /// ```no_run
    /// # async fn demo(orders: hbase_orm::Table) -> hbase_orm::Result<()> {
    /// use futures::TryStreamExt;
    /// use hbase_orm::Scan;
    /// let newest: Vec<_> = orders
    ///     .scan(Scan::new().prefix("cust-42|").reversed().limit(10))
    ///     .try_collect()
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub fn scan(&self, scan: Scan) -> RowStream {
        let plan = ScanPlan::unsalted(&scan);
        self.scan_planned(scan, plan)
    }

    /// Streams the rows of `scan` (its options) over the keys `plan` says.
    pub(crate) fn scan_planned(&self, mut scan: Scan, plan: ScanPlan) -> RowStream {
        self.labels.scan(&mut scan);
        RowStream::planned(self.client.clone(), self.name.clone(), scan, plan)
    }

    /// Scans a salted table whose keys are `[bucket byte][key]` with buckets `0..buckets`:
    /// the bounds and prefix of `scan` apply to the key without its salt byte. One scan per
    /// bucket runs concurrently; their rows are merged into one stream ordered by the unsalted
    /// key (descending if reversed), and the limit applies to the merged stream. Rows keep
    /// their salted keys.
    pub fn scan_salted(&self, scan: Scan, buckets: u8) -> RowStream {
        let plan = ScanPlan::salted(&scan, buckets);
        self.scan_planned(scan, plan)
    }
}

/// Items of a batch that know their row.
trait RowOf {
    fn row(&self) -> &[u8];
}

impl RowOf for Put {
    fn row(&self) -> &[u8] {
        &self.row
    }
}

impl RowOf for RowMutations {
    fn row(&self) -> &[u8] {
        &self.row
    }
}

impl RowOf for Delete {
    fn row(&self) -> &[u8] {
        &self.row
    }
}
