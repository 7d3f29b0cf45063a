//! The Thrift1 gateway (service `Hbase`, `hbase thrift`, what HappyBase speaks), buffered or
//! framed, binary or compact.
//!
//! The calls are `hbase-thrift`'s generated client methods, driven over the project's own async
//! [`wire`](super::wire) pool without blocking a thread: see [`call`]. [`convert`] maps the
//! types, and refuses what Thrift1 cannot express.
//!
//! # What works and what does not
//!
//! Everything Thrift1 cannot do fails with [`Error::Unsupported`] (backend `thrift1`) before
//! anything is sent; nothing is silently done differently.
//!
//! | Operation | Thrift1 | How / why not |
//! |---|---|---|
//! | get, exists | yes | `getRowWithColumnsTs` (columns `f` or `f:q`); a time range `[0, max)` is its timestamp argument (the gateway reads `[0, ts)`) |
//! | get with an exact `timestamp`, or with a filter | yes, 3 calls | a one-row scan (`scannerOpenWithScan` + `scannerGetList` + `scannerClose`), the timestamp as `TimestampsFilter`, AND-ed with the filter |
//! | get_many, exists_many | yes | one `getRowsWithColumnsTs` when the gets read the same columns and time range with no filter or timestamp, else one get each (concurrently) |
//! | get/scan with `max_versions` > 1 | **Unsupported** | Thrift1 row reads and scans return one version per column |
//! | get/scan with a time range whose `min` > 0 | **Unsupported** | only an exclusive upper bound can be sent |
//! | put, put_many | yes | `mutateRowTs` / `mutateRowsTs` (puts grouped by timestamp and TTL, one call per group) |
//! | put whose cells carry different timestamps | **Unsupported** | one timestamp per call; splitting would not be atomic |
//! | put TTL | yes | HBase's `_ttl` operation attribute, which the gateway passes on |
//! | durability | default, `SyncWal`, `SkipWal` | `writeToWAL` (true is `SYNC_WAL`, also for `UseDefault`); `AsyncWal`/`FsyncWal` **Unsupported**; increment, append, whole-row delete: default only |
//! | delete of a whole row | yes | `deleteAllRowTs` (with the delete's timestamp: versions at or before it) |
//! | delete of families / columns | yes | `mutateRowTs` with `isDelete` mutations (every version) |
//! | delete of one version (`latest_version`, `version`) | **Unsupported** | Thrift1 deletes all versions at or before a timestamp |
//! | delete_many | yes, one call per delete | not one batch |
//! | mutate_row with only puts, or only deletes | yes | one `mutateRowTs` (atomic: one HBase Put or one Delete) |
//! | mutate_row mixing puts and deletes | when no put writes a column a delete removes | one `mutateRowTs`, which the gateway applies as two operations, the deletes first: the end state is that of atomic row mutations, but a reader may see the row between the two (an entity's save clearing `None` fields or stale map entries is such a mix); a delete of the whole row, or of what a put writes, **Unsupported** |
//! | check_and_mutate | `Equal` + one single-cell put | `checkAndPut`; value `None` (or empty) checks absence; other operators, deletes, several cells, a cell timestamp **Unsupported** |
//! | increment | one column | `atomicIncrement`; the returned cell has timestamp 0 (the gateway returns only the value). Several columns **Unsupported** (`incrementRows` is not atomic and returns nothing) |
//! | append | yes | `append` (`TAppend`); the returned cells are matched to the columns in (family, qualifier) order |
//! | scans | yes | `scannerOpenWithScan` (bounds, reversed, columns, filter string, caching, batch size, time range `[0, max)`, sorted columns), `scannerGetList`, `scannerClose` |
//! | namespaces (create, exists, list, delete) | **Unsupported** | no namespace calls in Thrift1 |
//! | create_table | yes | `createTable` with max versions, compression, bloom filter, TTL, in-memory, block cache (unset options get HBase's defaults, not the IDL's); other options, split keys and a region replication other than 1 **Unsupported** |
//! | table_exists, list_tables | yes | `getTableNames`, filtered by namespace on the client |
//! | describe | yes | `getColumnDescriptors`; options it does not return (min versions, block size, encoding, keep deleted cells) are `None`, the region replication 1 |
//! | enable, disable, is_enabled, delete_table | yes | the same calls |
//! | truncate, add/modify/merge/delete family | **Unsupported** | no such calls in Thrift1 |
//! | region_locations | yes | `getTableRegions` |

pub(crate) mod call;
pub(crate) mod convert;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap};

use async_trait::async_trait;
use hbase_thrift::hbase::{BatchMutation, Mutation as TMutation, TAppend, TRowResult, TScan};

use super::op::{self, OnTable, Operation, Safety, Safety::UnsentOnly};
use super::wire::connection::Connection;
use super::wire::pool::{Handshake, WirePool};
use super::wire::scanners::ScannerIds;
use super::{Backend, PoolCounters};
use crate::model::*;
use call::{Attributes, Call, Client};
use convert::{column_text, read_column, table_text, unsupported, LATEST};

/// Pools of connections to one or several Thrift1 gateways of one HBase.
pub(crate) struct Thrift1 {
    pool: WirePool<IsThrift1>,
    scanners: ScannerIds,
}

/// Checks that a new connection reaches a Thrift1 gateway.
#[derive(Clone)]
struct IsThrift1;

impl Handshake for IsThrift1 {
    const EXPECTED: i32 = 1;

    async fn server_type(&self, conn: &mut Connection) -> Result<i32> {
        let ask = Call::new("getThriftServerType", |c: &mut Client<'_>| {
            c.get_thrift_server_type()
        });
        let kind = conn.call(&ask).await.map_err(|f| f.error)?;
        Ok(kind.0)
    }
}

impl Thrift1 {
    /// Connects (one connection is opened and checked now).
    pub(crate) async fn connect(config: Config) -> Result<Thrift1> {
        let (pool, scanners) = WirePool::connect_with_scanners(config, IsThrift1).await?;
        Ok(Thrift1 { pool, scanners })
    }

    /// Makes one call: `run` calls the client method named `method`; sent again after a stale
    /// pooled connection if `safety` (the operation's) allows it.
    async fn call<T, F>(&self, safety: Safety, method: &'static str, run: F) -> Result<T>
    where
        T: Send,
        F: Fn(&mut Client<'_>) -> thrift::Result<T> + Sync,
    {
        self.pool.call(safety, &Call::new(method, run)).await
    }

    /// One call about `table`: its missing-table error becomes [`Error::TableNotFound`].
    async fn on<T, F>(
        &self,
        safety: Safety,
        table: &TableName,
        method: &'static str,
        run: F,
    ) -> Result<T>
    where
        T: Send,
        F: Fn(&mut Client<'_>) -> thrift::Result<T> + Sync,
    {
        self.call(safety, method, run)
            .await
            .map_err(|e| table.recognise_missing(e))
    }

    /// [`Thrift1::on`] for an operation whose one argument is the table's name: `run` calls
    /// the client method `method` with it.
    async fn on_named<T: Send>(
        &self,
        op: &impl OnTable,
        method: &'static str,
        run: fn(&mut Client<'_>, Vec<u8>) -> thrift::Result<T>,
    ) -> Result<T> {
        let (table, safety) = (op.table(), op.safety());
        let t = table_text(table);
        self.on(safety, table, method, |c: &mut Client<'_>| {
            run(c, t.clone())
        })
        .await
    }

    /// A plain row read: `getRowWithColumnsTs`.
    async fn get_row(&self, op: &op::Get<'_>) -> Result<Option<Row>> {
        let op::Get { table, get } = *op;
        let ts = convert::read_timestamp("get", get.time_range)?;
        let (t, columns) = (table_text(table), get_columns(get));
        let attributes = convert::read_attributes(&get.authorizations);
        let rows = self
            .on(op.safety(), table, "getRowWithColumnsTs", |c| {
                c.get_row_with_columns_ts(
                    t.clone(),
                    get.row.clone(),
                    columns.clone(),
                    ts,
                    attributes.clone(),
                )
            })
            .await?;
        Ok(rows.into_iter().find_map(convert::row))
    }

    /// A get Thrift1's get calls cannot express (an exact timestamp, a filter), as a scan of
    /// its one row. Its scanner calls are never sent twice, as a scan's are (a second open
    /// would leak a scanner), whatever the get's safety.
    async fn get_by_scan(&self, op: &op::Get<'_>) -> Result<Option<Row>> {
        let op::Get { table, get } = *op;
        let ts = convert::read_timestamp("get", get.time_range)?;
        let ts = match get.timestamp {
            Some(exact) => ts.min(exact.saturating_add(1)),
            None => ts,
        };
        let mut stop = get.row.clone();
        stop.push(0);
        let tscan = TScan {
            start_row: Some(get.row.clone()),
            stop_row: Some(stop),
            timestamp: (ts != LATEST).then_some(ts),
            columns: Some(get_columns(get)),
            caching: Some(1),
            filter_string: get_filter(get),
            batch_size: None,
            sort_columns: Some(true),
            reversed: None,
            cache_blocks: None,
        };
        let attributes = convert::read_attributes(&get.authorizations);
        let id = self.open_tscan(table, tscan, attributes).await?;
        let rows = self.scanned_rows(UnsentOnly, table, id, 1).await;
        let closed = self.close_scanner(&op::CloseScanner { id }).await;
        let row = rows?.into_iter().next();
        closed?;
        Ok(row)
    }

    /// Opens a scanner on some gateway; the id is the client's (see [`ScannerIds`]). Never
    /// sent twice: a second scanner would leak.
    async fn open_tscan(
        &self,
        table: &TableName,
        tscan: TScan,
        attributes: Attributes,
    ) -> Result<i32> {
        let t = table_text(table);
        let open = Call::new("scannerOpenWithScan", |c: &mut Client<'_>| {
            c.scanner_open_with_scan(t.clone(), tscan.clone(), attributes.clone())
        });
        let before = self.scanners.before_open();
        let (gateway, id) = self
            .pool
            .call_any(UnsentOnly, &open)
            .await
            .map_err(|e| table.recognise_missing(e))?;
        Ok(self.scanners.register(gateway, id, &before))
    }

    /// Up to `rows` rows of the client's scanner `id`.
    async fn scanned_rows(
        &self,
        safety: Safety,
        table: &TableName,
        id: i32,
        rows: i32,
    ) -> Result<Vec<Row>> {
        let results: Vec<TRowResult> = self
            .on_scanner(safety, id, "scannerGetList", |sid| {
                move |c: &mut Client<'_>| c.scanner_get_list(sid, rows)
            })
            .await
            .map_err(|e| table.recognise_missing(e))?;
        Ok(results.into_iter().filter_map(convert::row).collect())
    }

    /// A call on the gateway that holds the client's scanner `id`, given the gateway's id.
    async fn on_scanner<T, F>(
        &self,
        safety: Safety,
        id: i32,
        method: &'static str,
        run: impl Fn(i32) -> F,
    ) -> Result<T>
    where
        T: Send,
        F: Fn(&mut Client<'_>) -> thrift::Result<T> + Sync,
    {
        let (gateway, server_id) = self.scanners.find(id)?;
        self.pool
            .call_at(gateway, safety, &Call::new(method, run(server_id)))
            .await
    }

    /// `getRowsWithColumnsTs` for gets reading the same columns, range and labels; answers matched
    /// back by row key (the gateway leaves missing rows out).
    async fn get_rows(&self, op: &op::GetMany<'_>) -> Result<Vec<Option<Row>>> {
        let op::GetMany { table, gets } = *op;
        let ts = convert::read_timestamp("get", gets[0].time_range)?;
        let (t, columns) = (table_text(table), get_columns(&gets[0]));
        let attributes = convert::read_attributes(&gets[0].authorizations);
        let keys: Vec<Vec<u8>> = gets.iter().map(|g| g.row.clone()).collect();
        let results = self
            .on(op.safety(), table, "getRowsWithColumnsTs", |c| {
                c.get_rows_with_columns_ts(
                    t.clone(),
                    keys.clone(),
                    columns.clone(),
                    ts,
                    attributes.clone(),
                )
            })
            .await?;
        let mut by_key: HashMap<Vec<u8>, Row> = results
            .into_iter()
            .filter_map(convert::row)
            .map(|r| (r.key.clone(), r))
            .collect();
        // Each row moves out once; a key asked for again gets a copy of the first answer.
        let mut answers: Vec<Option<Row>> = Vec::with_capacity(keys.len());
        let mut first: HashMap<&[u8], usize> = HashMap::with_capacity(keys.len());
        for (i, k) in keys.iter().enumerate() {
            let row = match first.get(k.as_slice()) {
                Some(&j) => answers[j].clone(),
                None => {
                    first.insert(k, i);
                    by_key.remove(k)
                }
            };
            answers.push(row);
        }
        Ok(answers)
    }

    /// Writes puts that share a timestamp, TTL and visibility in one `mutateRowsTs`.
    async fn put_group(
        &self,
        safety: Safety,
        table: &TableName,
        puts: &[&Put],
        ts: i64,
    ) -> Result<()> {
        let attributes = convert::put_attributes(puts[0])?;
        let batches = puts
            .iter()
            .map(|p| {
                Ok(BatchMutation::new(
                    p.row.clone(),
                    convert::put_mutations(p)?,
                ))
            })
            .collect::<Result<Vec<_>>>()?;
        let t = table_text(table);
        self.on(safety, table, "mutateRowsTs", |c: &mut Client<'_>| {
            c.mutate_rows_ts(t.clone(), batches.clone(), ts, attributes.clone())
        })
        .await
    }

    /// One `mutateRowTs` of `mutations` on `row`.
    async fn mutate(
        &self,
        safety: Safety,
        table: &TableName,
        row: &[u8],
        mutations: Vec<TMutation>,
        ts: i64,
        attributes: Attributes,
    ) -> Result<()> {
        let t = table_text(table);
        self.on(safety, table, "mutateRowTs", |c: &mut Client<'_>| {
            c.mutate_row_ts(
                t.clone(),
                row.to_vec(),
                mutations.clone(),
                ts,
                attributes.clone(),
            )
        })
        .await
    }

    /// One `atomicIncrement`: the counter's new value.
    async fn atomic_increment(&self, op: &op::Increment<'_>) -> Result<Option<Row>> {
        let op::Increment {
            table,
            increment: inc,
        } = *op;
        let (family, qualifier, amount) = &inc.columns[0];
        let (t, column) = (table_text(table), column_text(family, qualifier));
        let value = self
            .on(op.safety(), table, "atomicIncrement", |c| {
                c.atomic_increment(t.clone(), inc.row.clone(), column.clone(), *amount)
            })
            .await?;
        Ok(Some(Row {
            key: inc.row.clone(),
            cells: vec![Cell {
                family: family.clone().into(),
                qualifier: qualifier.clone().into(),
                value: value.to_be_bytes().to_vec().into(),
                timestamp: 0,
            }],
            stale: false,
        }))
    }
}

/// The columns a get reads, as Thrift1 names them.
fn get_columns(get: &Get) -> Vec<Vec<u8>> {
    get.columns.iter().map(read_column).collect()
}

/// The filter a one-row scan applies for `get`: its exact timestamp and its filter, AND-ed.
fn get_filter(get: &Get) -> Option<Vec<u8>> {
    let stamp = get
        .timestamp
        .map(|ts| format!("TimestampsFilter ({ts})").into_bytes());
    match (stamp, get.filter.clone()) {
        (Some(s), Some(f)) => Some([&b"("[..], &s, b") AND (", &f, b")"].concat()),
        (s, f) => s.or(f),
    }
}

/// Whether a get needs a one-row scan rather than a get call.
fn needs_scan(get: &Get) -> bool {
    get.timestamp.is_some() || get.filter.is_some()
}

/// The mutation of a check-and-put: the one cell of the one put, written at the server's time.
fn check_and_put_mutation(cam: &CheckAndMutate) -> Result<(TMutation, Attributes)> {
    let refuse = |why: &str| unsupported("check_and_mutate", why);
    if cam.op != CompareOp::Equal {
        return Err(refuse(
            "Thrift1's checkAndPut compares only for equality (or absence)",
        ));
    }
    let put = match cam.mutations.mutations.as_slice() {
        [Mutation::Put(p)] if p.cells.len() == 1 => p,
        _ => {
            return Err(refuse(
                "Thrift1's checkAndPut applies exactly one put of one cell",
            ))
        }
    };
    if put.cells[0].timestamp.or(put.timestamp).is_some() {
        return Err(refuse(
            "checkAndPut writes its cell at the server's time; an explicit timestamp cannot be sent",
        ));
    }
    let cell = &put.cells[0];
    let wal = convert::write_to_wal("check_and_mutate", put.durability)?;
    let mutation = TMutation::new(
        false,
        column_text(&cell.family, &cell.qualifier),
        cell.value.to_vec(),
        wal,
    );
    Ok((mutation, convert::put_attributes(put)?))
}

/// A column as `(family, qualifier)`.
type ColumnKey = (Vec<u8>, Vec<u8>);

/// `TAppend` of an append, and its columns in the (family, qualifier) order in which the
/// gateway returns the new cells.
fn tappend(table: &TableName, append: &Append) -> Result<(TAppend, Vec<ColumnKey>)> {
    convert::default_durability_only("append", append.durability)?;
    let mut order: Vec<ColumnKey> = append
        .columns
        .iter()
        .map(|(f, q, _)| (f.clone(), q.clone()))
        .collect();
    order.sort();
    order.dedup();
    if order.len() != append.columns.len() {
        return Err(unsupported(
            "append",
            "the same column twice: the gateway's answer could not be matched to it",
        ));
    }
    let tappend = TAppend::new(
        table_text(table),
        append.row.clone(),
        append
            .columns
            .iter()
            .map(|(f, q, _)| column_text(f, q))
            .collect::<Vec<_>>(),
        append
            .columns
            .iter()
            .map(|(_, _, v)| v.clone())
            .collect::<Vec<_>>(),
    );
    Ok((tappend, order))
}

/// Refuses a namespace operation.
fn no_namespaces(operation: &str) -> Error {
    unsupported(
        operation,
        "the Thrift1 gateway has no namespace calls; use the thrift2 gateway (tables in \
         existing namespaces work, named ns:table)",
    )
}

/// Refuses a schema change Thrift1 has no call for.
fn no_schema_change(operation: &str) -> Error {
    unsupported(
        operation,
        "the Thrift1 gateway has no call for it; use the thrift2 gateway or the HBase shell",
    )
}

#[async_trait]
impl Backend for Thrift1 {
    fn name(&self) -> &'static str {
        convert::BACKEND
    }

    fn address(&self) -> &str {
        &self.pool.config().address
    }

    fn counters(&self) -> PoolCounters {
        self.pool.counters()
    }

    async fn get(&self, op: &op::Get<'_>) -> Result<Option<Row>> {
        let get = op.get;
        convert::one_version("get", get.max_versions)?;
        if needs_scan(get) {
            self.get_by_scan(op).await
        } else {
            self.get_row(op).await
        }
    }

    async fn get_many(&self, op: &op::GetMany<'_>) -> Result<Vec<Option<Row>>> {
        let op::GetMany { table, gets } = *op;
        for g in gets {
            convert::one_version("get", g.max_versions)?;
        }
        let Some(first) = gets.first() else {
            return Ok(Vec::new());
        };
        let shared = gets.iter().all(|g| {
            !needs_scan(g)
                && g.columns == first.columns
                && g.time_range == first.time_range
                && g.authorizations == first.authorizations
        });
        if shared {
            return self.get_rows(op).await;
        }
        let one = |get| async move { self.get(&op::Get { table, get }).await };
        futures::future::try_join_all(gets.iter().map(one)).await
    }

    async fn exists(&self, op: &op::Exists<'_>) -> Result<bool> {
        let op::Exists { table, get } = *op;
        Ok(self.get(&op::Get { table, get }).await?.is_some())
    }

    async fn exists_many(&self, op: &op::ExistsMany<'_>) -> Result<Vec<bool>> {
        let op::ExistsMany { table, gets } = *op;
        let rows = self.get_many(&op::GetMany { table, gets }).await?;
        Ok(rows.iter().map(Option::is_some).collect())
    }

    async fn put(&self, op: &op::Put<'_>) -> Result<()> {
        let op::Put { table, put } = *op;
        let ts = convert::put_timestamp(put)?;
        let mutations = convert::put_mutations(put)?;
        let attributes = convert::put_attributes(put)?;
        self.mutate(op.safety(), table, &put.row, mutations, ts, attributes)
            .await
    }

    /// One `mutateRowsTs` per distinct (timestamp, TTL, visibility) among the puts.
    async fn put_many(&self, op: &op::PutMany<'_>) -> Result<()> {
        let op::PutMany { table, puts } = *op;
        type Group = (i64, Option<std::time::Duration>, Option<String>);
        let mut groups: BTreeMap<Group, Vec<&Put>> = BTreeMap::new();
        for p in puts {
            groups
                .entry((convert::put_timestamp(p)?, p.ttl, p.visibility.clone()))
                .or_default()
                .push(p);
        }
        for ((ts, _, _), group) in &groups {
            self.put_group(op.safety(), table, group, *ts).await?;
        }
        Ok(())
    }

    async fn delete(&self, op: &op::Delete<'_>) -> Result<()> {
        let op::Delete { table, delete } = *op;
        if !delete.targets.is_empty() {
            let mutations = convert::delete_mutations(delete)?;
            return self
                .mutate(
                    op.safety(),
                    table,
                    &delete.row,
                    mutations,
                    LATEST,
                    convert::delete_attributes(delete),
                )
                .await;
        }
        convert::default_durability_only("delete", delete.durability)?;
        let (t, ts) = (table_text(table), delete.timestamp.unwrap_or(LATEST));
        let attributes = convert::delete_attributes(delete);
        self.on(op.safety(), table, "deleteAllRowTs", |c| {
            c.delete_all_row_ts(t.clone(), delete.row.clone(), ts, attributes.clone())
        })
        .await
    }

    /// One call per delete (Thrift1 has no batch that mixes whole-row and column deletes); the
    /// first failure is returned.
    async fn delete_many(&self, op: &op::DeleteMany<'_>) -> Result<Vec<usize>> {
        let op::DeleteMany { table, deletes } = *op;
        for d in deletes {
            self.delete(&op::Delete { table, delete: d }).await?;
        }
        Ok(Vec::new())
    }

    /// One `mutateRowTs`. Only puts, or only deletes of families and columns: the gateway
    /// applies it as one HBase Put or one Delete. A mix of both: see `check_disjoint` and the
    /// module doc.
    async fn mutate_row(&self, op: &op::MutateRow<'_>) -> Result<()> {
        let op::MutateRow { table, mutations } = *op;
        let mut puts = Vec::new();
        let mut deletes = Vec::new();
        for m in &mutations.mutations {
            match m {
                Mutation::Put(p) => puts.push(p),
                Mutation::Delete(d) => deletes.push(d),
            }
        }
        let merged = merge_puts(&mutations.row, &puts)?;
        // The gateway applies a call's deletes, then its puts, as two operations. The end
        // state is the one atomic row mutations would leave when no put writes a column a
        // delete removes (an entity's save clearing `None` fields and stale map entries);
        // anything else is refused.
        let mut all = Vec::new();
        for d in &deletes {
            match &merged {
                Some(merged) => check_disjoint(d, merged)?,
                None if d.targets.is_empty() => {
                    return Err(unsupported(
                        "mutate_row",
                        "a whole-row delete inside row mutations: Thrift1 mutations name \
                         families or columns; send it as a delete",
                    ))
                }
                None => {}
            }
            all.extend(convert::delete_mutations(d)?);
        }
        let row = &mutations.row;
        // One call carries one set of attributes: the deletes' visibility must be the puts'.
        let delete_visibility = match &deletes[..] {
            [] => None,
            [first, rest @ ..] => {
                if rest.iter().any(|d| d.visibility != first.visibility)
                    || merged
                        .as_ref()
                        .is_some_and(|m| m.visibility != first.visibility)
                {
                    return Err(unsupported(
                        "mutate_row",
                        "puts and deletes of different visibility: one Thrift1 call carries one",
                    ));
                }
                Some(*first)
            }
        };
        match merged {
            None => {
                let attributes = delete_visibility
                    .map(convert::delete_attributes)
                    .unwrap_or_default();
                self.mutate(op.safety(), table, row, all, LATEST, attributes)
                    .await
            }
            // Puts alone write the same cells however often they are sent.
            Some(merged) if deletes.is_empty() => {
                self.put(&op::Put {
                    table,
                    put: &merged,
                })
                .await
            }
            Some(merged) => {
                let ts = convert::put_timestamp(&merged)?;
                all.extend(convert::put_mutations(&merged)?);
                let attributes = convert::put_attributes(&merged)?;
                self.mutate(op.safety(), table, row, all, ts, attributes)
                    .await
            }
        }
    }

    async fn check_and_mutate(&self, op: &op::CheckAndMutate<'_>) -> Result<bool> {
        let op::CheckAndMutate { table, cam } = *op;
        let (mutation, attributes) = check_and_put_mutation(cam)?;
        let t = table_text(table);
        let column = column_text(&cam.family, &cam.qualifier);
        let value = cam.value.clone().unwrap_or_default();
        self.on(op.safety(), table, "checkAndPut", |c: &mut Client<'_>| {
            c.check_and_put(
                t.clone(),
                cam.row.clone(),
                column.clone(),
                value.clone(),
                mutation.clone(),
                attributes.clone(),
            )
        })
        .await
    }

    async fn increment(&self, op: &op::Increment<'_>) -> Result<Option<Row>> {
        let increment = op.increment;
        convert::default_durability_only("increment", increment.durability)?;
        if increment.columns.len() != 1 {
            return Err(unsupported(
                "increment",
                "several counters in one increment: Thrift1's atomicIncrement takes one column, \
                 and its increment/incrementRows apply each column separately (not atomically) \
                 and return nothing; increment each column on its own",
            ));
        }
        self.atomic_increment(op).await
    }

    async fn append(&self, op: &op::Append<'_>) -> Result<Option<Row>> {
        let op::Append { table, append } = *op;
        let (tappend, order) = tappend(table, append)?;
        let cells = self
            .on(op.safety(), table, "append", |c: &mut Client<'_>| {
                c.append(tappend.clone())
            })
            .await?;
        if cells.is_empty() {
            return Ok(None);
        }
        if cells.len() != order.len() {
            return Err(Error::Protocol {
                method: "append",
                message: format!(
                    "appended {} columns, got {} cells",
                    order.len(),
                    cells.len()
                ),
            });
        }
        let cells = order
            .into_iter()
            .zip(cells)
            .map(|((family, qualifier), c)| Cell {
                family: family.into(),
                qualifier: qualifier.into(),
                value: c.value.unwrap_or_default().into(),
                timestamp: c.timestamp.unwrap_or_default(),
            })
            .collect();
        Ok(Some(Row {
            key: append.row.clone(),
            cells,
            stale: false,
        }))
    }

    async fn open_scanner(&self, op: &op::OpenScanner<'_>) -> Result<i32> {
        let op::OpenScanner { table, scan } = *op;
        let attributes = convert::read_attributes(&scan.authorizations);
        self.open_tscan(table, convert::scan(scan)?, attributes)
            .await
    }

    async fn scanner_rows(&self, op: &op::ScannerRows<'_>) -> Result<ScannerPage> {
        let op::ScannerRows { table, id, rows } = *op;
        let rows = self.scanned_rows(op.safety(), table, id, rows).await?;
        ScannerPage::from_rows(rows).map_err(|e| e.error("scannerGetList"))
    }

    async fn close_scanner(&self, op: &op::CloseScanner) -> Result<()> {
        let closed = self
            .on_scanner(op.safety(), op.id, "scannerClose", |sid| {
                move |c: &mut Client<'_>| c.scanner_close(sid)
            })
            .await;
        self.scanners.forget(op.id);
        closed
    }

    fn forget_scanner(&self, id: i32) {
        self.scanners.forget(id);
    }

    async fn scanner_is_open(&self, op: &op::ScannerIsOpen) -> Result<bool> {
        let probe = self
            .on_scanner(op.safety(), op.id, "scannerGetList", |sid| {
                move |c: &mut Client<'_>| c.scanner_get_list(sid, 0)
            })
            .await;
        match probe {
            Ok(_) => Ok(true),
            Err(Error::IllegalArgument { .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }

    async fn create_namespace(&self, _op: &op::CreateNamespace<'_>) -> Result<()> {
        Err(no_namespaces("create_namespace"))
    }

    async fn namespace_exists(&self, _op: &op::NamespaceExists<'_>) -> Result<bool> {
        Err(no_namespaces("namespace_exists"))
    }

    async fn list_namespaces(&self, _op: &op::ListNamespaces) -> Result<Vec<String>> {
        Err(no_namespaces("list_namespaces"))
    }

    async fn delete_namespace(&self, _op: &op::DeleteNamespace<'_>) -> Result<()> {
        Err(no_namespaces("delete_namespace"))
    }

    async fn create_table(&self, op: &op::CreateTable<'_>) -> Result<()> {
        let op::CreateTable { table, split_keys } = *op;
        if !split_keys.is_empty() {
            return Err(unsupported(
                "create_table",
                "split keys: Thrift1's createTable makes a table of one region; create \
                 pre-split tables through the thrift2 gateway",
            ));
        }
        if table.region_replication != 1 {
            return Err(unsupported(
                "create_table",
                "region replicas: Thrift1's createTable carries no table attributes; create \
                 the table through the thrift2 gateway or the native backend",
            ));
        }
        let families = table
            .families
            .iter()
            .map(convert::column_descriptor)
            .collect::<Result<Vec<_>>>()?;
        let t = table_text(&table.name);
        self.call(op.safety(), "createTable", |c: &mut Client<'_>| {
            c.create_table(t.clone(), families.clone())
        })
        .await
    }

    async fn table_exists(&self, op: &op::TableExists<'_>) -> Result<bool> {
        let namespace = Some(op.table.namespace.as_str());
        let tables = self.list_tables(&op::ListTables { namespace }).await?;
        Ok(tables.contains(op.table))
    }

    async fn describe(&self, op: &op::Describe<'_>) -> Result<TableDescriptor> {
        let descriptors = self
            .on_named(op, "getColumnDescriptors", |c, t| {
                c.get_column_descriptors(t)
            })
            .await?;
        let families = descriptors
            .into_values()
            .map(convert::family_from)
            .collect::<Result<Vec<_>>>()?;
        // getColumnDescriptors says nothing of the table's own attributes.
        Ok(TableDescriptor {
            families,
            ..TableDescriptor::new(op.table.clone())
        })
    }

    async fn list_tables(&self, op: &op::ListTables<'_>) -> Result<Vec<TableName>> {
        let names = self
            .call(op.safety(), "getTableNames", |c: &mut Client<'_>| {
                c.get_table_names()
            })
            .await?;
        let tables = names
            .into_iter()
            .map(convert::table_name_from)
            .collect::<Result<Vec<_>>>()?;
        Ok(tables
            .into_iter()
            .filter(|t| op.namespace.is_none_or(|ns| t.namespace == ns))
            .collect())
    }

    async fn enable_table(&self, op: &op::EnableTable<'_>) -> Result<()> {
        self.on_named(op, "enableTable", |c, t| c.enable_table(t))
            .await
    }

    async fn disable_table(&self, op: &op::DisableTable<'_>) -> Result<()> {
        self.on_named(op, "disableTable", |c, t| c.disable_table(t))
            .await
    }

    async fn is_table_enabled(&self, op: &op::IsTableEnabled<'_>) -> Result<bool> {
        self.on_named(op, "isTableEnabled", |c, t| c.is_table_enabled(t))
            .await
    }

    async fn truncate_table(&self, _op: &op::TruncateTable<'_>) -> Result<()> {
        Err(no_schema_change("truncate_table"))
    }

    async fn delete_table(&self, op: &op::DeleteTable<'_>) -> Result<()> {
        self.on_named(op, "deleteTable", |c, t| c.delete_table(t))
            .await
    }

    async fn add_family(&self, _op: &op::AddFamily<'_>) -> Result<()> {
        Err(no_schema_change("add_family"))
    }

    async fn modify_family(&self, _op: &op::ModifyFamily<'_>) -> Result<()> {
        Err(no_schema_change("modify_family"))
    }

    async fn merge_family(&self, _op: &op::MergeFamily<'_>) -> Result<()> {
        Err(no_schema_change("merge_family"))
    }

    async fn delete_family(&self, _op: &op::DeleteFamily<'_>) -> Result<()> {
        Err(no_schema_change("delete_family"))
    }

    async fn region_locations(&self, op: &op::RegionLocations<'_>) -> Result<Vec<RegionLocation>> {
        let regions = self
            .on_named(op, "getTableRegions", |c, t| c.get_table_regions(t))
            .await?;
        // One location per region, its primary's, as the other backends give.
        let primaries = regions.into_iter().filter(|r| {
            let name = r.name.as_deref().unwrap_or_default();
            !crate::backend::region_name::is_secondary_replica(name)
        });
        Ok(primaries.map(convert::region_location).collect())
    }
}

/// The puts of row mutations as one put of every cell (each keeps its timestamp); `None`
/// when there are none. Thrift1 sends one durability, TTL and visibility per call, so the
/// puts must agree on them.
fn merge_puts(row: &[u8], puts: &[&Put]) -> Result<Option<Put>> {
    let Some(first) = puts.first() else {
        return Ok(None);
    };
    if puts.iter().any(|p| {
        p.durability != first.durability || p.ttl != first.ttl || p.visibility != first.visibility
    }) {
        return Err(unsupported(
            "mutate_row",
            "puts with different durability, TTL or visibility: one Thrift1 call carries one of \
             each",
        ));
    }
    let mut merged = Put::new(row.to_vec());
    for p in puts {
        for c in &p.cells {
            let ts = c.timestamp.or(p.timestamp);
            merged.push(c.family.clone(), c.qualifier.clone(), c.value.clone(), ts);
        }
    }
    merged.durability = first.durability;
    merged.ttl = first.ttl;
    merged.visibility = first.visibility.clone();
    Ok(Some(merged))
}

/// Refuses a delete that row mutations mix with `put` unless it only removes families or
/// columns the put does not write (see the module doc).
fn check_disjoint(delete: &Delete, put: &Put) -> Result<()> {
    let clash = delete.targets.is_empty()
        || put.cells.iter().any(|c| {
            delete.targets.iter().any(|t| match t {
                DeleteTarget::Family(f) => *f == c.family,
                DeleteTarget::Column(f, q)
                | DeleteTarget::LatestVersion(f, q)
                | DeleteTarget::Version(f, q, _) => *f == c.family && *q == c.qualifier,
            })
        });
    if clash {
        return Err(unsupported(
            "mutate_row",
            "a delete mixed with puts that write what it removes (or a whole-row delete): the \
             Thrift1 gateway applies the deletes and then the puts as two operations, so the \
             result could differ from atomic row mutations; use the thrift2 gateway",
        ));
    }
    Ok(())
}
