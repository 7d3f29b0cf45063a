//! Reads with timeline consistency on every backend (see `hbase_orm_suite::conformance!`): on
//! a table without region replicas the native backend's timeline reads are answered by the
//! primaries, never stale, as strong ones; the in-memory store answers them as strong ones;
//! a gateway refuses them before sending anything. (Reads of secondary replicas, on the
//! cluster: `tests/cluster_replicas.rs`.)

use futures::TryStreamExt;
use hbase_orm::{ColumnFamily, Consistency, Get, Put, ReadOptions, Scan};
use hbase_orm_suite::{unsupported_on, with_table};

/// The backends with no call that reads replicas: every gateway.
const GATEWAYS: &[&str] = &["thrift2_buffered", "thrift2_framed", "thrift2", "thrift1"];

/// An entity read with either consistency.
#[derive(hbase_orm::HBaseEntity, Clone, Debug, PartialEq)]
#[hbase(namespace = "hbase_orm_it", table = "consistency", family = "d")]
struct Note {
    #[hbase(key)]
    id: u32,
    text: String,
}

hbase_orm_suite::conformance! {
    async fn timeline_reads_of_a_table_without_replicas_answer_as_strong_ones(c: Client) {
        let splits = [b"m".to_vec()];
        with_table(&c, "timeline", vec![ColumnFamily::new("d")], &splits, |t| async move {
            for k in ["a", "n", "z"] {
                t.put(Put::new(k).column("d", "v", k)).await.unwrap();
            }
            let timeline = |row: &str| Get::new(row).consistency(Consistency::Timeline);
            let client = t.client();
            if let Some(row) = unsupported_on(client, GATEWAYS, t.get(timeline("n")).await) {
                let row = row.expect("the row is there");
                assert_eq!(row.value("d", "v"), Some(&b"n"[..]));
                assert!(!row.is_stale(), "the primary answered");
            }
            let gets = vec![timeline("a"), timeline("nope"), timeline("z")];
            if let Some(rows) = unsupported_on(client, GATEWAYS, t.get_many(gets).await) {
                let keys: Vec<_> = rows.iter().map(|r| r.as_ref().map(|r| r.key.clone())).collect();
                assert_eq!(keys, [Some(b"a".to_vec()), None, Some(b"z".to_vec())]);
                assert!(rows.iter().flatten().all(|r| !r.is_stale()));
            }
            if let Some(found) = unsupported_on(client, GATEWAYS, t.exists(timeline("z")).await) {
                assert!(found);
            }
            let scan = Scan::new().consistency(Consistency::Timeline);
            let rows = t.scan(scan).try_collect::<Vec<_>>().await;
            if let Some(rows) = unsupported_on(client, GATEWAYS, rows) {
                let keys: Vec<_> = rows.iter().map(|r| r.key.clone()).collect();
                assert_eq!(keys, [b"a".to_vec(), b"n".to_vec(), b"z".to_vec()]);
                assert!(rows.iter().all(|r| !r.is_stale()));
            }
            // A strong read is never stale, on every backend.
            let row = t.get(Get::new("a")).await.unwrap().expect("the row is there");
            assert!(!row.is_stale());
        })
        .await;
    }

    async fn entity_reads_say_whether_a_secondary_answered(c: Client) {
        let t = hbase_orm_suite::TestTable::for_entity::<Note>(&c, "consistency").await;
        let notes = c.repository::<Note>().on_table(t.name.clone());
        for id in 1..=3 {
            let text = format!("note {id}");
            notes.save(&Note { id, text }).await.unwrap();
        }
        let key = NoteKey { id: 2 };
        let strong = notes.get_read(&key, &ReadOptions::new()).await.unwrap().unwrap();
        assert_eq!((strong.entity.id, strong.is_stale()), (2, false));
        let timeline = ReadOptions::new().consistency(Consistency::Timeline);
        let read = notes.get_read(&key, &timeline).await;
        if let Some(read) = unsupported_on(&c, GATEWAYS, read) {
            let read = read.expect("the note is there");
            assert_eq!((read.entity.text.as_str(), read.is_stale()), ("note 2", false));
        }
        let page = notes.scan().read_options(&timeline).page(2).await;
        if let Some(page) = unsupported_on(&c, GATEWAYS, page) {
            let ids: Vec<u32> = page.items.iter().map(|n| n.id).collect();
            assert_eq!((ids, page.is_stale()), (vec![1, 2], false));
        }
        let page = notes.scan().page(5).await.unwrap();
        assert_eq!((page.items.len(), page.is_stale()), (3, false));
    }
}
