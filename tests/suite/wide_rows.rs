//! Wide rows against a real HBase: a `wide` map's entries read, written and removed one by one
//! ([`hbase_orm::WideMap`]), counted, and paged by qualifier range ([`hbase_orm::WideSlice`])
//! on a row of 100,000 entries.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use hbase_orm::rowkey::{KeyCodec, KeyPart};
use hbase_orm::{
    filter_literal, printable_key, Client, Codec, Error, Get, HBaseEntity, Native, Put,
};
use hbase_orm_suite::{client, fresh_repository, TestTable};

/// Person/role, as in `rich_mapping.rs`: roles as the qualifiers of their own family.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "hbase_orm_it", table = "wide_people", family = "d")]
struct Person {
    #[hbase(key)]
    id: u64,
    name: String,
    #[hbase(family = "r", wide)]
    roles: BTreeMap<u32, String>,
}

/// Text keys, for prefixes, the empty key and keys holding a quote.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "hbase_orm_it", table = "wide_tagged", family = "d")]
struct Tagged {
    #[hbase(key)]
    id: u64,
    title: String,
    #[hbase(family = "t", wide)]
    tags: BTreeMap<String, u32>,
}

fn role(i: u32) -> String {
    format!("role-{i}")
}

const ENTRIES: u32 = 100_000;

#[tokio::test]
async fn a_row_of_100k_entries_pages_30_at_a_time_each_entry_once_in_order() {
    let client = client().await;
    let (people, t) = fresh_repository::<Person>(&client, "wide_100k").await;
    let roles = people.wide(Person::ROLES);
    let key = PersonKey { id: 1 };
    people
        .save(&Person {
            id: 1,
            name: "ada".into(),
            roles: BTreeMap::new(),
        })
        .await
        .unwrap();

    // 20 puts of 5,000 entries, two at a time.
    let batches: Vec<Vec<(u32, String)>> = (0..ENTRIES)
        .collect::<Vec<_>>()
        .chunks(5_000)
        .map(|c| c.iter().map(|&i| (i, role(i))).collect())
        .collect();
    for pair in batches.chunks(2) {
        let writes = pair.iter().map(|b| roles.put_all(&key, b.iter().cloned()));
        for r in futures::future::join_all(writes).await {
            r.unwrap();
        }
    }
    assert_eq!(
        roles.count(&key).await.unwrap(),
        ENTRIES as usize,
        "counted in pages"
    );

    // Forward, 30 at a time.
    let mut seen: Vec<u32> = Vec::with_capacity(ENTRIES as usize);
    let mut times: Vec<Duration> = Vec::new();
    let mut after: Option<u32> = None;
    loop {
        let mut slice = roles.slice(&key).limit(30);
        if let Some(a) = &after {
            slice = slice.after(a);
        }
        let started = Instant::now();
        let page = slice.fetch().await.unwrap();
        times.push(started.elapsed());
        for (k, v) in &page.entries {
            assert_eq!(*v, role(*k));
            seen.push(*k);
        }
        match page.next {
            Some(next) => {
                assert_eq!(page.entries.len(), 30);
                assert_eq!(Some(next), page.entries.last().map(|e| e.0));
                after = Some(next);
            }
            None => {
                assert_eq!(
                    page.entries.len(),
                    ENTRIES as usize % 30,
                    "the short last page"
                );
                break;
            }
        }
    }
    assert_eq!(seen.len(), ENTRIES as usize, "every entry once");
    assert!(
        seen.iter().copied().eq(0..ENTRIES),
        "in key order, none twice"
    );

    // Without a limit: every entry in range, read 1,000 per round trip behind the scenes.
    let tail = roles.slice(&key).from(&98_500).fetch().await.unwrap();
    assert!(tail.entries.iter().map(|e| e.0).eq(98_500..ENTRIES));
    assert_eq!(tail.next, None);

    // The entity's other fields are untouched, and `get` reads the whole map.
    let whole = people.get(&key).await.unwrap().unwrap();
    assert_eq!(whole.name, "ada");
    assert_eq!(whole.roles.len(), ENTRIES as usize);

    report_timings(&client, &t, &key, &times).await;
}

/// Prints (never asserts) what a 30-entry page costs near the start and near the end of the
/// row, once every page has been read (so both are warm): with `ColumnRangeFilter` the server
/// seeks, so both cost about the same. For contrast, the same pages with `QualifierFilter`,
/// which does not seek: every page then walks the row from its first entry.
async fn report_timings(client: &Client, t: &TestTable, key: &PersonKey, times: &[Duration]) {
    const PAGES: u32 = 50;
    let avg = |d: &[Duration]| d.iter().sum::<Duration>() / d.len().max(1) as u32;
    println!("forward pass: {} pages, avg {:?}", times.len(), avg(times));
    let roles = client
        .repository::<Person>()
        .on_table(t.name.clone())
        .wide(Person::ROLES);
    let seek = |start: u32| {
        let roles = roles.clone();
        async move {
            let started = Instant::now();
            for p in 0..PAGES {
                let after = start + p * 30;
                let page = roles
                    .slice(key)
                    .after(&after)
                    .limit(30)
                    .fetch()
                    .await
                    .unwrap();
                assert_eq!(page.entries.len(), 30);
            }
            started.elapsed() / PAGES
        }
    };
    let table = client.table_named(t.name.clone());
    let row = hbase_orm::entity::encode_key::<Person>(key).unwrap();
    let no_seek = |start: u32| {
        let (table, row) = (table.clone(), row.clone());
        async move {
            let started = Instant::now();
            for p in 0..PAGES {
                let q = Person::ROLES.qualifier(&(start + p * 30)).unwrap();
                let filter = [
                    &b"QualifierFilter(>, "[..],
                    &filter_literal(&[b"binary:", &q[..]].concat()),
                    b") AND ColumnPaginationFilter(30, 0)",
                ]
                .concat();
                let get = Get::new(row.clone()).family("r").filter(filter);
                assert_eq!(table.get(get).await.unwrap().unwrap().cells.len(), 30);
            }
            started.elapsed() / PAGES
        }
    };
    let near_end = ENTRIES - 2 * PAGES * 30;
    let (a, b) = (seek(0).await, seek(near_end).await);
    println!(
        "WideSlice (ColumnRangeFilter), 30-entry pages: near start avg {a:?}, near end avg {b:?}"
    );
    let (a, b) = (no_seek(0).await, no_seek(near_end).await);
    println!(
        "QualifierFilter (no seek),     30-entry pages: near start avg {a:?}, near end avg {b:?}"
    );
}

#[tokio::test]
async fn single_entries_change_alone_and_slices_pick_exact_ranges() {
    let client = client().await;
    let (people, t) = fresh_repository::<Person>(&client, "wide_entries").await;
    let roles = people.wide(Person::ROLES);
    let (ada, bob) = (PersonKey { id: 1 }, PersonKey { id: 2 });
    let mut ada_value = Person {
        id: 1,
        name: "ada".into(),
        roles: BTreeMap::from([
            (100, "monitor".into()),
            (200, "admin".into()),
            (300, "dev".into()),
        ]),
    };
    let bob_value = Person {
        id: 2,
        name: "bob".into(),
        roles: BTreeMap::from([(100, "guest".into())]),
    };
    people.save(&ada_value).await.unwrap();
    people.save(&bob_value).await.unwrap();

    // put: one entry added, nothing else changes.
    roles.put(&ada, &400, &"ops".into()).await.unwrap();
    ada_value.roles.insert(400, "ops".into());
    assert_eq!(people.get(&ada).await.unwrap().unwrap(), ada_value);
    // put over an entry replaces its value only.
    roles.put(&ada, &200, &"root".into()).await.unwrap();
    ada_value.roles.insert(200, "root".into());
    assert_eq!(people.get(&ada).await.unwrap().unwrap(), ada_value);
    // put_all: several entries at once.
    let more = BTreeMap::from([(500u32, "qa".to_string()), (600, "sec".to_string())]);
    roles.put_all(&ada, &more).await.unwrap();
    ada_value.roles.extend(more);
    roles
        .put_all(&ada, Vec::<(u32, String)>::new())
        .await
        .unwrap();
    assert_eq!(people.get(&ada).await.unwrap().unwrap(), ada_value);
    // remove: that cell only; an absent entry is fine.
    roles.remove(&ada, &100).await.unwrap();
    roles.remove(&ada, &999).await.unwrap();
    ada_value.roles.remove(&100);
    assert_eq!(people.get(&ada).await.unwrap().unwrap(), ada_value);
    assert_eq!(
        people.get(&bob).await.unwrap().unwrap(),
        bob_value,
        "other rows untouched"
    );

    // get
    assert_eq!(
        roles.get(&ada, &200).await.unwrap().as_deref(),
        Some("root")
    );
    assert_eq!(roles.get(&ada, &100).await.unwrap(), None, "removed");
    assert_eq!(roles.get(&ada, &999).await.unwrap(), None, "never there");
    assert_eq!(
        roles.get(&PersonKey { id: 9 }, &100).await.unwrap(),
        None,
        "no row"
    );
    assert_eq!(roles.count(&ada).await.unwrap(), 5);
    assert_eq!(roles.count(&PersonKey { id: 9 }).await.unwrap(), 0);

    // slices: ada has 200, 300, 400, 500, 600.
    let keys = |page: &hbase_orm::WidePage<u32, String>| -> Vec<u32> {
        page.entries.iter().map(|e| e.0).collect()
    };
    let s = || roles.slice(&ada);
    let all = s().fetch().await.unwrap();
    assert_eq!(
        all.entries,
        ada_value.roles.clone().into_iter().collect::<Vec<_>>()
    );
    assert_eq!(all.next, None);
    assert_eq!(
        keys(&s().from(&300).until(&500).fetch().await.unwrap()),
        [300, 400]
    );
    assert_eq!(
        keys(&s().from(&301).until(&501).fetch().await.unwrap()),
        [400, 500]
    );
    assert_eq!(
        keys(&s().after(&300).fetch().await.unwrap()),
        [400, 500, 600]
    );
    assert_eq!(
        keys(&s().from(&300).after(&300).fetch().await.unwrap()),
        [400, 500, 600]
    );
    assert_eq!(
        keys(&s().after(&300).from(&500).fetch().await.unwrap()),
        [500, 600]
    );
    assert_eq!(
        keys(&s().until(&200).fetch().await.unwrap()),
        [] as [u32; 0]
    );
    assert_eq!(
        keys(&s().from(&500).until(&300).fetch().await.unwrap()),
        [] as [u32; 0]
    );
    assert_eq!(
        keys(&s().until(&u32::MAX).fetch().await.unwrap()),
        [200, 300, 400, 500, 600]
    );
    let p1 = s().from(&250).limit(2).fetch().await.unwrap();
    assert_eq!((keys(&p1), p1.next), (vec![300, 400], Some(400)));
    let p2 = s().from(&250).after(&400).limit(2).fetch().await.unwrap();
    assert_eq!((keys(&p2), p2.next), (vec![500, 600], Some(600)));
    let p3 = s().from(&250).after(&600).limit(2).fetch().await.unwrap();
    assert_eq!((keys(&p3), p3.next), (vec![], None));
    let p0 = s().limit(0).fetch().await.unwrap();
    assert_eq!((keys(&p0), p0.next), (vec![], None));
    // An integer prefix: the first 3 of 4 bytes pick the keys 256..512.
    let q256 = Person::ROLES.qualifier(&256).unwrap();
    assert_eq!(
        keys(&s().prefix_bytes(&q256[..3]).unwrap().fetch().await.unwrap()),
        [300, 400, 500]
    );
    assert!(
        matches!(
            s().prefix_bytes(vec![0; 5]),
            Err(Error::IllegalArgument { .. })
        ),
        "a prefix longer than every key"
    );

    // A qualifier that is not a u32 key: a decode error naming table, row, column and type.
    let row = ada_value.row_key().unwrap();
    let raw = client.table_named(t.name.clone());
    raw.put(Put::new(row.clone()).column("r", "bad", "x"))
        .await
        .unwrap();
    let err = s().fetch().await.unwrap_err();
    let Error::Decode {
        table,
        row: shown,
        column,
        expected,
        ..
    } = &err
    else {
        panic!("not a decode error: {err:?}");
    };
    assert_eq!(*table, t.name.to_string());
    assert_eq!(*shown, printable_key(&row));
    assert_eq!(column, "r:bad (key of map field `roles`)");
    assert_eq!(
        expected,
        <<u32 as KeyPart>::Codec as KeyCodec<u32>>::EXPECTED
    );
    assert_eq!(
        roles.count(&ada).await.unwrap(),
        6,
        "count reads no keys' meaning"
    );
    assert_eq!(
        keys(&s().until(&600).fetch().await.unwrap()),
        [200, 300, 400, 500],
        "in range: fine"
    );
    // A value that is not UTF-8, read alone.
    let q700 = Person::ROLES.qualifier(&700).unwrap();
    raw.put(Put::new(row.clone()).column("r", q700, vec![0xFF, 0xFE]))
        .await
        .unwrap();
    let err = roles.get(&ada, &700).await.unwrap_err();
    let Error::Decode {
        column, expected, ..
    } = &err
    else {
        panic!("not a decode error: {err:?}");
    };
    assert_eq!(
        column,
        &format!(
            "r:{} (value of map field `roles`)",
            printable_key(&Person::ROLES.qualifier(&700).unwrap())
        )
    );
    assert_eq!(*expected, <Native as Codec<String>>::expected());
    println!("{err}");
}

#[tokio::test]
async fn text_keys_prefixes_the_empty_key_and_quotes() {
    let client = client().await;
    let (tagged, _t) = fresh_repository::<Tagged>(&client, "wide_tagged").await;
    let tags = tagged.wide(Tagged::TAGS);
    let key = TaggedKey { id: 7 };
    let names = [
        "",
        "\0",
        "ad",
        "adm",
        "admin",
        "administrator",
        "b",
        "it''s",
        "it's",
        "z",
    ];
    let value = Tagged {
        id: 7,
        title: "t".into(),
        tags: names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.to_string(), i as u32))
            .collect(),
    };
    tagged.save(&value).await.unwrap();
    assert_eq!(tagged.get(&key).await.unwrap().unwrap(), value);
    assert_eq!(tags.count(&key).await.unwrap(), names.len());

    let keys = |page: hbase_orm::WidePage<String, u32>| -> Vec<String> {
        page.entries.into_iter().map(|e| e.0).collect()
    };
    let s = || tags.slice(&key);
    let all: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    assert_eq!(keys(s().fetch().await.unwrap()), all);
    assert_eq!(
        keys(s().prefix_bytes("adm").unwrap().fetch().await.unwrap()),
        ["adm", "admin", "administrator"]
    );
    assert_eq!(
        keys(
            s().prefix_bytes("adm")
                .unwrap()
                .from(&"admin".into())
                .fetch()
                .await
                .unwrap()
        ),
        ["admin", "administrator"]
    );
    assert_eq!(
        keys(
            s().prefix_bytes("adm")
                .unwrap()
                .until(&"admin".into())
                .fetch()
                .await
                .unwrap()
        ),
        ["adm"]
    );
    assert_eq!(
        keys(
            s().prefix_bytes("adm")
                .unwrap()
                .after(&"adm".into())
                .limit(1)
                .fetch()
                .await
                .unwrap()
        ),
        ["admin"]
    );
    assert_eq!(
        keys(s().prefix_bytes("").unwrap().fetch().await.unwrap()),
        all
    );
    assert_eq!(
        keys(s().prefix_bytes("it'").unwrap().fetch().await.unwrap()),
        ["it''s", "it's"]
    );
    assert_eq!(
        keys(
            s().from(&"it''s".into())
                .until(&"z".into())
                .fetch()
                .await
                .unwrap()
        ),
        ["it''s", "it's"]
    );
    // The empty key: HBase reads an empty ColumnRangeFilter bound as "none".
    assert_eq!(keys(s().from(&String::new()).fetch().await.unwrap()), all);
    assert_eq!(
        keys(s().after(&String::new()).fetch().await.unwrap()),
        all[1..]
    );
    assert_eq!(
        keys(s().until(&String::new()).fetch().await.unwrap()),
        [] as [String; 0]
    );
    assert_eq!(keys(s().until(&"\0".into()).fetch().await.unwrap()), [""]);
    let first = s().limit(1).fetch().await.unwrap();
    assert_eq!(first.next.as_deref(), Some(""));
    let second = s()
        .after(&first.next.unwrap())
        .limit(1)
        .fetch()
        .await
        .unwrap();
    assert_eq!(keys(second), ["\0"]);
    // Single entries with text keys, the empty one included.
    tags.remove(&key, &String::new()).await.unwrap();
    tags.put(&key, &"new".into(), &99).await.unwrap();
    assert_eq!(tags.get(&key, &"new".into()).await.unwrap(), Some(99));
    assert_eq!(tags.get(&key, &String::new()).await.unwrap(), None);
    let back = tagged.get(&key).await.unwrap().unwrap();
    assert_eq!(back.title, "t");
    assert_eq!(back.tags.len(), names.len());
}
