//! SQL over entity tables, on the in-memory store and on the local HBase (native and Thrift2):
//! answers equal to the same question computed in Rust over every row (random predicates on
//! key parts, values, NULLs and their combinations), and the pushdown measured by what the
//! scans read. `memory::` needs no HBase; `native::` and `thrift2::` fail when it is not up
//! (`hbase-local/hbase.sh up`).

mod common;
mod inserts;
mod layouts;
mod predicates;
mod pushdown;

use datafusion::prelude::SessionContext;
use hbase_orm::HBaseEntity;
use hbase_orm_sql::{register_as, EntityTable};

use common::{orders_table, rows, Order};

macro_rules! on_backend {
    ($module:ident, $client:expr) => {
        mod $module {
            use hbase_orm::Client;

            async fn client() -> Client {
                $client
            }

            #[tokio::test]
            async fn random_predicates_answer_as_rust_does() {
                crate::predicates::random_predicates_answer_as_rust_does(client().await).await;
            }

            #[tokio::test]
            async fn every_column_reads_back() {
                crate::layouts::every_column_reads_back(client().await).await;
            }

            #[tokio::test]
            async fn pushdown_reads_only_what_the_query_needs() {
                crate::pushdown::pushdown_reads_only_what_the_query_needs(client().await).await;
            }

            #[tokio::test]
            async fn later_key_parts_are_tested_by_key() {
                crate::pushdown::later_key_parts_are_tested_by_key(client().await).await;
            }

            #[tokio::test]
            async fn wide_maps_read_as_maps() {
                crate::layouts::wide_maps_read_as_maps(client().await).await;
            }

            #[tokio::test]
            async fn inserts_save_entities() {
                crate::inserts::inserts_save_entities(client().await).await;
            }

            #[tokio::test]
            async fn inserts_by_bulk_load() {
                crate::inserts::inserts_by_bulk_load(client().await).await;
            }

            #[tokio::test]
            async fn inserts_per_partition() {
                crate::inserts::inserts_per_partition(client().await).await;
            }

            #[tokio::test]
            async fn inserts_write_index_rows() {
                crate::inserts::inserts_write_index_rows(client().await).await;
            }

            #[tokio::test]
            async fn salted_keys_are_read_per_bucket() {
                crate::pushdown::salted_keys_are_read_per_bucket(client().await).await;
            }

            #[tokio::test]
            async fn record_types_are_tables_of_their_own() {
                crate::layouts::record_types_are_tables_of_their_own(client().await).await;
            }

            #[tokio::test]
            async fn versions_read_as_lists() {
                crate::layouts::versions_read_as_lists(client().await).await;
            }

            #[tokio::test]
            async fn raw_cells_read_as_batches() {
                crate::layouts::raw_cells_read_as_batches(client().await).await;
            }

            #[tokio::test]
            async fn missing_cells_read_as_the_entity_reads_them() {
                crate::layouts::missing_cells_read_as_the_entity_reads_them(client().await).await;
            }

            #[tokio::test]
            async fn a_bad_cell_is_an_error_naming_it() {
                crate::layouts::a_bad_cell_is_an_error_naming_it(client().await).await;
            }
        }
    };
}

on_backend!(memory, hbase_orm_suite::Target::Memory.client().await);
on_backend!(native, hbase_orm_suite::Target::Native.client().await);
on_backend!(
    thrift2,
    hbase_orm_suite::Target::Thrift2Buffered.client().await
);

/// Entities whose key the SQL layer cannot read are refused, with the reason.
mod refusals {
    use super::*;

    #[derive(HBaseEntity)]
    #[hbase(table = "hashed", family = "d")]
    struct Hashed {
        #[hbase(key(md5))]
        email: String,
        name: String,
    }

    #[derive(HBaseEntity)]
    #[hbase(table = "named", family = "d", key_delimiter = '\0')]
    struct Named {
        #[hbase(key(dictionary = "hosts"))]
        host: hbase_orm::DictName,
        #[hbase(key)]
        ts: u64,
        value: f64,
    }

    #[test]
    fn hashed_and_dictionary_key_parts_are_refused() {
        let hashed = hbase_orm_sql::EntitySchema::of::<Hashed>().unwrap_err();
        assert!(
            hashed.to_string().contains("`email` is one-way"),
            "{hashed}"
        );
        let named = hbase_orm_sql::EntitySchema::of::<Named>().unwrap_err();
        assert!(
            named
                .to_string()
                .contains("`host` is stored as a dictionary id"),
            "{named}"
        );
    }
}

/// A physical plan of the table runs as often as it is executed (one target partition, so
/// that no repartitioning, which runs once, stands between).
#[tokio::test]
async fn memory_a_plan_runs_twice() {
    let client = hbase_orm_suite::Target::Memory.client().await;
    let t = orders_table(&client, "sql_twice", 30, &[]).await;
    let config = datafusion::prelude::SessionConfig::new().with_target_partitions(1);
    let ctx = SessionContext::new_with_config(config);
    let table = EntityTable::<Order>::new(&client)
        .unwrap()
        .on_table(t.repo.table().name().clone());
    register_as(&ctx, "orders", table).unwrap();
    let plan = ctx
        .sql("SELECT number FROM orders WHERE status = 'paid' ORDER BY number")
        .await
        .unwrap()
        .create_physical_plan()
        .await
        .unwrap();
    let mut want: Vec<u32> = t
        .data
        .iter()
        .filter(|o| o.status == "paid")
        .map(|o| o.number)
        .collect();
    want.sort_unstable();
    let want: Vec<Vec<String>> = want.iter().map(|n| vec![n.to_string()]).collect();
    for _ in 0..2 {
        let batches = datafusion::physical_plan::collect(plan.clone(), ctx.task_ctx())
            .await
            .unwrap();
        assert_eq!(rows(&batches), want);
    }
}

mod regions {
    #[tokio::test]
    async fn native_one_partition_per_region() {
        crate::pushdown::one_partition_per_region(hbase_orm_suite::Target::Native.client().await)
            .await;
    }

    #[tokio::test]
    async fn native_a_region_read_whole_is_cut_into_subranges() {
        crate::pushdown::a_region_read_whole_is_cut_into_subranges(
            hbase_orm_suite::Target::Native.client().await,
        )
        .await;
    }

    #[tokio::test]
    async fn thrift2_a_region_read_whole_is_cut_into_subranges() {
        crate::pushdown::a_region_read_whole_is_cut_into_subranges(
            hbase_orm_suite::Target::Thrift2Buffered.client().await,
        )
        .await;
    }

    #[tokio::test]
    async fn thrift2_one_partition_per_region() {
        crate::pushdown::one_partition_per_region(
            hbase_orm_suite::Target::Thrift2Buffered.client().await,
        )
        .await;
    }
}
