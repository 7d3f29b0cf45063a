//! Data calls on one table.

use super::{Client, RowStream};
use crate::error::{BatchFailures, Error, Result};
use crate::model::*;
use crate::schema::TableName;
use crate::thrift2::convert;
use crate::thrift2::generated::thbase::*;

/// A handle for reading and writing one table. Cheap to clone.
///
/// Every method is one round trip to the gateway, except [`Table::scan`] (one per page) and
/// the fallbacks of the batch methods described on them.
#[derive(Clone, Debug)]
pub struct Table {
    client: Client,
    name: TableName,
    wire_name: Vec<u8>,
}

impl Table {
    pub(super) fn new(client: Client, name: TableName) -> Self {
        Table {
            wire_name: convert::table_bytes(&name),
            client,
            name,
        }
    }

    /// The table's name.
    pub fn name(&self) -> &TableName {
        &self.name
    }

    /// The client this handle uses.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// One call about this table (a bare table-name error becomes [`Error::TableNotFound`]).
    async fn call<R: crate::thrift2::rpc::Rpc>(&self, args: &R) -> Result<R::Reply> {
        self.client
            .call(args)
            .await
            .map_err(|e| self.name.recognise_missing(e))
    }

    fn table(&self) -> Vec<u8> {
        self.wire_name.clone()
    }

    /// Reads one row; `None` if it does not exist (or has none of the requested columns).
    pub async fn get(&self, get: Get) -> Result<Option<Row>> {
        let args = THBaseServiceGetArgs {
            table: self.table(),
            tget: convert::get(get)?,
        };
        Ok(convert::row(self.call(&args).await?))
    }

    /// Reads several rows in one call; the answer has one entry per get, in the same order.
    pub async fn get_many(&self, gets: Vec<Get>) -> Result<Vec<Option<Row>>> {
        let args = THBaseServiceGetMultipleArgs {
            table: self.table(),
            tgets: gets.into_iter().map(convert::get).collect::<Result<_>>()?,
        };
        let n = args.tgets.len();
        let results = self.call(&args).await?;
        if results.len() != n {
            return Err(Error::Protocol {
                method: "getMultiple",
                message: format!("asked for {n} rows, got {} results", results.len()),
            });
        }
        Ok(results.into_iter().map(convert::row).collect())
    }

    /// Whether the row (or the columns the get names) exists, without transferring values.
    pub async fn exists(&self, get: Get) -> Result<bool> {
        let args = THBaseServiceExistsArgs {
            table: self.table(),
            tget: convert::get(get)?,
        };
        self.call(&args).await
    }

    /// [`Table::exists`] for several gets in one call, in the same order.
    pub async fn exists_many(&self, gets: Vec<Get>) -> Result<Vec<bool>> {
        let args = THBaseServiceExistsAllArgs {
            table: self.table(),
            tgets: gets.into_iter().map(convert::get).collect::<Result<_>>()?,
        };
        self.call(&args).await
    }

    /// Writes cells into one row.
    pub async fn put(&self, put: Put) -> Result<()> {
        let args = THBaseServicePutArgs {
            table: self.table(),
            tput: convert::put(put)?,
        };
        self.call(&args).await
    }

    /// Writes many rows in one call (not atomic across rows).
    ///
    /// If HBase rejects the batch, each row is written again on its own so that only the rows
    /// that really fail are reported: the error is then [`Error::PartialBatch`] listing them.
    /// Keep batches below the gateway's frame limit (2 MiB by default for framed gateways).
    pub async fn put_many(&self, puts: Vec<Put>) -> Result<()> {
        if puts.is_empty() {
            return Ok(());
        }
        let tputs: Vec<TPut> = puts.into_iter().map(convert::put).collect::<Result<_>>()?;
        let args = THBaseServicePutMultipleArgs {
            table: self.table(),
            tputs,
        };
        match self.call(&args).await {
            Ok(()) => Ok(()),
            Err(error) => {
                self.one_by_one("put_many", error, args.tputs, |tput| THBaseServicePutArgs {
                    table: self.table(),
                    tput,
                })
                .await
            }
        }
    }

    /// Deletes a row or parts of it. A delete that mixes families, columns and versions is
    /// sent as one atomic row mutation.
    pub async fn delete(&self, delete: Delete) -> Result<()> {
        let mut tdeletes = convert::delete(delete)?;
        if tdeletes.len() == 1 {
            let args = THBaseServiceDeleteSingleArgs {
                table: self.table(),
                tdelete: tdeletes.remove(0),
            };
            return self.call(&args).await;
        }
        let args = THBaseServiceMutateRowArgs {
            table: self.table(),
            trow_mutations: TRowMutations {
                row: tdeletes[0].row.clone(),
                mutations: tdeletes.into_iter().map(TMutation::DeleteSingle).collect(),
            },
        };
        self.call(&args).await
    }

    /// Deletes many rows in one call (not atomic across rows). A delete that mixes
    /// families, columns and versions goes as its own atomic row mutation, as in
    /// [`Table::delete`]. Failures are reported like [`Table::put_many`]'s.
    pub async fn delete_many(&self, deletes: Vec<Delete>) -> Result<()> {
        let total = deletes.len();
        let mut simple = Vec::with_capacity(deletes.len());
        let mut mixed = Vec::new();
        for d in deletes {
            let mut tdeletes = convert::delete(d)?;
            if tdeletes.len() == 1 {
                simple.extend(tdeletes.pop());
            } else {
                mixed.push(tdeletes);
            }
        }
        let mut failures = BatchFailures::new("delete_many", total);
        if !simple.is_empty() {
            let args = THBaseServiceDeleteMultipleArgs {
                table: self.table(),
                tdeletes: simple,
            };
            match self.call(&args).await {
                Ok(rejected) => {
                    for d in rejected {
                        failures.record(
                            vec![d.row],
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
                        .one_by_one("delete_many", error, args.tdeletes, |tdelete| {
                            THBaseServiceDeleteSingleArgs {
                                table: self.table(),
                                tdelete,
                            }
                        })
                        .await
                    {
                        failures.record(Vec::new(), e);
                    }
                }
            }
        }
        for tdeletes in mixed {
            let row = tdeletes[0].row.clone();
            let args = THBaseServiceMutateRowArgs {
                table: self.table(),
                trow_mutations: TRowMutations {
                    row: row.clone(),
                    mutations: tdeletes.into_iter().map(TMutation::DeleteSingle).collect(),
                },
            };
            if let Err(e) = self.call(&args).await {
                failures.record(vec![row], e);
            }
        }
        failures.finish()
    }

    /// After a batch failed with `error`, sends each item on its own and reports the rows that
    /// still fail. Only HBase's own rejections are retried this way; if the batch failed for
    /// another reason (connection, timeout) every row is reported as not confirmed.
    async fn one_by_one<T, A>(
        &self,
        operation: &'static str,
        error: Error,
        items: Vec<T>,
        single: impl Fn(T) -> A,
    ) -> Result<()>
    where
        T: RowOf,
        A: crate::thrift2::rpc::Rpc<Reply = ()>,
    {
        let mut failures = BatchFailures::new(operation, items.len());
        if !matches!(error, Error::Server { .. }) {
            failures.record(items.iter().map(|i| i.row().to_vec()).collect(), error);
            return failures.finish();
        }
        for item in items {
            let row = item.row().to_vec();
            if let Err(e) = self.call(&single(item)).await {
                failures.record(vec![row], e);
            }
        }
        failures.finish()
    }

    /// Applies puts and deletes to one row atomically.
    pub async fn mutate_row(&self, mutations: RowMutations) -> Result<()> {
        let args = THBaseServiceMutateRowArgs {
            table: self.table(),
            trow_mutations: convert::row_mutations(mutations)?,
        };
        self.call(&args).await
    }

    /// Applies the mutations if the check passes, atomically; returns whether it passed.
    pub async fn check_and_mutate(&self, cam: CheckAndMutate) -> Result<bool> {
        if cam.row != cam.mutations.row {
            return Err(Error::IllegalArgument {
                message: "check_and_mutate: the checked row and the mutated row differ".into(),
            });
        }
        let args = THBaseServiceCheckAndMutateArgs {
            table: self.table(),
            row: cam.row.clone(),
            family: cam.family,
            qualifier: cam.qualifier,
            compare_op: convert::compare_op(cam.op),
            value: cam.value.unwrap_or_default(),
            row_mutations: convert::row_mutations(cam.mutations)?,
        };
        self.call(&args).await
    }

    /// Adds to counters atomically; returns the row with the new counter values.
    pub async fn increment(&self, increment: Increment) -> Result<Row> {
        let row = increment.row.clone();
        let args = THBaseServiceIncrementArgs {
            table: self.table(),
            tincrement: convert::increment(increment)?,
        };
        let result = self.call(&args).await?;
        Ok(row_or_empty(result, row))
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
        let row = append.row.clone();
        let args = THBaseServiceAppendArgs {
            table: self.table(),
            tappend: convert::append(append)?,
        };
        let result = self.call(&args).await?;
        Ok(row_or_empty(result, row))
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
        RowStream::new(self.client.clone(), self.name.clone(), scan)
    }

    /// Scans a salted table whose keys are `[bucket byte][key]` with buckets `0..buckets`:
    /// the bounds and prefix of `scan` apply to the key without its salt byte. One scan per
    /// bucket runs concurrently; their rows are merged into one stream ordered by the unsalted
    /// key (descending if reversed), and the limit applies to the merged stream. Rows keep
    /// their salted keys.
    pub fn scan_salted(&self, scan: Scan, buckets: u8) -> RowStream {
        RowStream::merged(self.client.clone(), self.name.clone(), scan, buckets)
    }
}

/// The row an increment or append returned, or an empty row with its key if HBase returned
/// no cells.
fn row_or_empty(result: TResult, key: Vec<u8>) -> Row {
    convert::row(result).unwrap_or(Row {
        key,
        cells: Vec::new(),
    })
}

/// Items of a batch that know their row.
trait RowOf {
    fn row(&self) -> &[u8];
}

impl RowOf for TPut {
    fn row(&self) -> &[u8] {
        &self.row
    }
}

impl RowOf for TDelete {
    fn row(&self) -> &[u8] {
        &self.row
    }
}
