//! Rich mapping against a real HBase: multi-version fields, wide maps, counters, create-only
//! inserts and optimistic concurrency with a version field.

use std::collections::BTreeMap;

use hbase_orm::rowkey::{KeyCodec, KeyPart};
use hbase_orm::{Error, HBaseEntity, ReadOptions, Versions};
use hbase_orm_suite::{client, fresh_repository};

/// The microblog inbox of the design notes: one cell keeping 10,000 versions, one per post id.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "hbase_orm_it", table = "inbox", family = "d")]
struct Inbox {
    #[hbase(key)]
    user: u64,
    #[hbase(versions = 10000, rename = "p")]
    posts: Versions<u64>,
    name: Option<String>,
}

/// Person/role: roles as dynamic qualifiers of their own family (`roles:100=monitor`).
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "hbase_orm_it", table = "person_roles", family = "d")]
struct Person {
    #[hbase(key)]
    id: u64,
    name: String,
    #[hbase(family = "r", wide)]
    roles: BTreeMap<u32, String>,
}

/// A page with a view counter and an optimistic-concurrency version.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "hbase_orm_it", table = "pages", family = "d")]
struct Page {
    #[hbase(key)]
    slug: String,
    title: String,
    #[hbase(counter)]
    views: i64,
    #[hbase(version)]
    rev: u64,
}

#[tokio::test]
async fn ten_thousand_versions_read_back_newest_first_and_by_time_range() {
    let client = client().await;
    let (inbox, _t) = fresh_repository::<Inbox>(&client, "inbox").await;
    assert_eq!(
        Inbox::family_descriptors()[0].max_versions,
        Some(10_000),
        "the family keeps the versions the field reads"
    );
    let base = 1_700_000_000_000i64;
    let posts: Versions<u64> = (0..10_000u64).map(|i| (base + i as i64, i)).collect();
    let value = Inbox {
        user: 7,
        posts,
        name: Some("ada".into()),
    };
    inbox.save(&value).await.unwrap();

    let back = inbox.get(&InboxKey { user: 7 }).await.unwrap().unwrap();
    assert_eq!(back.posts.len(), 10_000);
    assert_eq!(back.name.as_deref(), Some("ada"));
    let ids: Vec<u64> = back.posts.iter().map(|v| v.value).collect();
    assert_eq!(
        ids,
        (0..10_000u64).rev().collect::<Vec<_>>(),
        "newest first"
    );
    assert!(back
        .posts
        .iter()
        .all(|v| v.timestamp == base + v.value as i64));

    let window = ReadOptions::new().time_range(base + 100, base + 110);
    let some = inbox
        .get_with(&InboxKey { user: 7 }, &window)
        .await
        .unwrap()
        .unwrap();
    let ids: Vec<u64> = some.posts.iter().map(|v| v.value).collect();
    assert_eq!(ids, (100..110u64).rev().collect::<Vec<_>>());
    assert_eq!(
        some.name, None,
        "a time range applies to every field: `name` was written now"
    );

    let newest3 = ReadOptions::new().versions(3);
    let few = inbox
        .get_with(&InboxKey { user: 7 }, &newest3)
        .await
        .unwrap()
        .unwrap();
    let ids: Vec<u64> = few.posts.iter().map(|v| v.value).collect();
    assert_eq!(ids, [9_999, 9_998, 9_997]);
}

#[tokio::test]
async fn a_wide_map_is_one_cell_per_entry_and_a_save_replaces_it_whole() {
    let client = client().await;
    let (people, t) = fresh_repository::<Person>(&client, "person_roles").await;
    let mut ada = Person {
        id: 1,
        name: "ada".into(),
        roles: BTreeMap::from([
            (100, "monitor".into()),
            (200, "admin".into()),
            (300, "dev".into()),
        ]),
    };
    people.save(&ada).await.unwrap();
    let raw = client
        .table_named(t.name.clone())
        .get(hbase_orm::Get::new(ada.row_key().unwrap()).family("r"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(raw.cells.len(), 3, "one cell per entry");
    let mut q = Vec::new();
    <<u32 as KeyPart>::Codec as KeyCodec<u32>>::encode(&100, &mut q).unwrap();
    assert_eq!(
        raw.cells[0].qualifier, q,
        "the qualifier is the key's row-key encoding"
    );
    assert_eq!(
        people.get(&PersonKey { id: 1 }).await.unwrap().unwrap(),
        ada
    );

    ada.roles.remove(&200);
    ada.roles.insert(400, "ops".into());
    people.save(&ada).await.unwrap();
    let back = people.get(&PersonKey { id: 1 }).await.unwrap().unwrap();
    assert_eq!(
        back.roles, ada.roles,
        "the removed entry is gone, the new one there"
    );

    ada.roles.clear();
    people.save(&ada).await.unwrap();
    assert!(people
        .get(&PersonKey { id: 1 })
        .await
        .unwrap()
        .unwrap()
        .roles
        .is_empty());
}

#[tokio::test]
async fn counters_count_every_concurrent_increment_and_saves_leave_them_alone() {
    let client = client().await;
    let (pages, _t) = fresh_repository::<Page>(&client, "pages_counter").await;
    let page = Page {
        slug: "home".into(),
        title: "Home".into(),
        views: 5,
        rev: 0,
    };
    pages.insert(&page).await.unwrap();
    let key = PageKey {
        slug: "home".into(),
    };
    let tasks: Vec<_> = (0..8)
        .map(|_| {
            let pages = pages.clone();
            let key = key.clone();
            tokio::spawn(async move {
                for _ in 0..25 {
                    pages.increment(&key, Page::VIEWS, 2).await.unwrap();
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    let stored = pages.get(&key).await.unwrap().unwrap();
    assert_eq!(stored.views, 5 + 8 * 25 * 2);

    // A save of a stale value does not reset the counter.
    let mut stale = stored.clone();
    stale.views = 0;
    stale.title = "Start".into();
    pages.update(&mut stale).await.unwrap();
    let after = pages.get(&key).await.unwrap().unwrap();
    assert_eq!((after.views, after.title.as_str()), (405, "Start"));
    assert!(matches!(
        // A counter's name as a string is the fallback: a wrong one is found when it runs.
        pages.increment(&key, "title", 1).await,
        Err(Error::IllegalArgument { .. })
    ));
}

#[tokio::test]
async fn insert_creates_once_and_then_conflicts() {
    let client = client().await;
    let (pages, _t) = fresh_repository::<Page>(&client, "pages_insert").await;
    let page = Page {
        slug: "a".into(),
        title: "A".into(),
        views: 0,
        rev: 0,
    };
    pages.insert(&page).await.unwrap();
    let err = pages.insert(&page).await.unwrap_err();
    assert!(matches!(err, Error::Conflict { .. }), "{err}");
    assert!(err.to_string().contains("exists"), "{err}");
}

#[tokio::test]
async fn a_save_after_a_delete_says_the_row_was_saved_or_deleted_first() {
    let client = client().await;
    let (pages, _t) = fresh_repository::<Page>(&client, "pages_deleted").await;
    let mut page = Page {
        slug: "gone".into(),
        title: "Gone".into(),
        views: 0,
        rev: 0,
    };
    pages.update(&mut page).await.unwrap();
    pages
        .delete(&PageKey {
            slug: "gone".into(),
        })
        .await
        .unwrap();
    let err = pages.save(&page).await.unwrap_err();
    assert!(matches!(err, Error::Conflict { .. }), "{err}");
    assert!(err.to_string().contains("saved or deleted"), "{err}");
}

#[tokio::test]
async fn a_time_range_that_hides_a_required_column_says_so() {
    let client = client().await;
    let (pages, _t) = fresh_repository::<Page>(&client, "pages_window").await;
    let key = PageKey { slug: "old".into() };
    let page = Page {
        slug: "old".into(),
        title: "Old".into(),
        views: 0,
        rev: 0,
    };
    // The title is written at 1000 ms; the view counter now.
    pages.save_at(&page, 1_000).await.unwrap();
    pages.increment(&key, Page::VIEWS, 1).await.unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let last_minute = ReadOptions::new().time_range(now - 60_000, now + 60_000);
    let err = pages.get_with(&key, &last_minute).await.unwrap_err();
    assert!(matches!(err, Error::Decode { .. }), "{err}");
    assert!(err.to_string().contains("time range"), "{err}");
}

#[tokio::test]
async fn of_two_writers_with_the_same_version_exactly_one_wins_every_time() {
    let client = client().await;
    let (pages, _t) = fresh_repository::<Page>(&client, "pages_race").await;
    let key = PageKey {
        slug: "race".into(),
    };
    let mut base = Page {
        slug: "race".into(),
        title: "v0".into(),
        views: 0,
        rev: 0,
    };
    pages.update(&mut base).await.unwrap();
    for round in 0..100 {
        let read = pages.get(&key).await.unwrap().unwrap();
        let (mut a, mut b) = (read.clone(), read.clone());
        a.title = format!("a{round}");
        b.title = format!("b{round}");
        let (ra, rb) = tokio::join!(pages.save(&a), pages.save(&b));
        let wins = [&ra, &rb].iter().filter(|r| r.is_ok()).count();
        assert_eq!(wins, 1, "round {round}: {ra:?} {rb:?}");
        let lost = if ra.is_ok() { rb } else { ra };
        assert!(matches!(lost, Err(Error::Conflict { .. })), "round {round}");
        let now = pages.get(&key).await.unwrap().unwrap();
        assert_eq!(now.rev, read.rev + 1);
    }
    let stored = pages.get(&key).await.unwrap().unwrap();
    assert_eq!(stored.rev, 101);
    assert!(matches!(
        pages.delete_if_version(&key, 3).await,
        Err(Error::Conflict { .. })
    ));
    pages.delete_if_version(&key, 101).await.unwrap();
    assert!(pages.get(&key).await.unwrap().is_none());
}

#[tokio::test]
async fn modify_repeats_a_lost_race_until_every_writer_has_counted() {
    let client = client().await;
    let (pages, _t) = fresh_repository::<Page>(&client, "pages_modify").await;
    let key = PageKey {
        slug: "modify".into(),
    };
    assert!(
        pages.modify(&key, 3, |_| {}).await.unwrap().is_none(),
        "no entity, nothing written"
    );
    let mut page = Page {
        slug: "modify".into(),
        title: "0".into(),
        views: 0,
        rev: 0,
    };
    pages.update(&mut page).await.unwrap();
    // Eight writers each add one to a number kept in the title, five times, at once: every
    // lost race is read again and repeated, so all forty count.
    let writers: Vec<_> = (0..8)
        .map(|_| {
            let (pages, key) = (pages.clone(), key.clone());
            tokio::spawn(async move {
                for _ in 0..5 {
                    pages
                        .modify(&key, 1_000, |p| {
                            p.title = (p.title.parse::<u32>().unwrap() + 1).to_string()
                        })
                        .await
                        .unwrap()
                        .unwrap();
                }
            })
        })
        .collect();
    for w in writers {
        w.await.unwrap();
    }
    let stored = pages.get(&key).await.unwrap().unwrap();
    assert_eq!((stored.title.as_str(), stored.rev), ("40", 41));

    // With one attempt each, eight writers reading the same version at once: the first save
    // wins, and a writer that loses gets the conflict, saying how many attempts it made.
    let results = futures::future::join_all(
        (0..8).map(|i| pages.modify(&key, 1, move |p| p.title = format!("writer {i}"))),
    )
    .await;
    let won = results.iter().filter(|r| r.is_ok()).count();
    assert!((1..8).contains(&won), "{won} of 8 won");
    for lost in results.iter().filter_map(|r| r.as_ref().err()) {
        assert!(matches!(lost, Error::Conflict { .. }), "{lost}");
        assert!(
            lost.to_string().contains("gave up after 1 attempt)"),
            "{lost}"
        );
    }
    assert_eq!(pages.get(&key).await.unwrap().unwrap().rev, 41 + won as u64);

    // A change of the key or of the version field is refused, and nothing is written.
    let before = pages.get(&key).await.unwrap().unwrap();
    let err = pages.modify(&key, 3, |p| p.rev += 5).await.unwrap_err();
    assert!(err.to_string().contains("key or version field"), "{err}");
    let err = pages
        .modify(&key, 3, |p| p.slug = "elsewhere".into())
        .await
        .unwrap_err();
    assert!(matches!(err, Error::IllegalArgument { .. }), "{err}");
    assert_eq!(pages.get(&key).await.unwrap().unwrap(), before);

    // An entity without a version field is refused before anything is read.
    let (sessions, _s) = fresh_repository::<Session>(&client, "sessions_modify").await;
    let err = sessions
        .modify(&SessionKey { id: 1 }, 3, |_| {})
        .await
        .unwrap_err();
    assert!(err.to_string().contains("#[hbase(version)]"), "{err}");
}

/// A short-lived row: written with a per-cell TTL.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "hbase_orm_it", table = "sessions", family = "d")]
struct Session {
    #[hbase(key)]
    id: u64,
    token: String,
}

#[tokio::test]
async fn save_at_stamps_cells_and_a_per_cell_ttl_expires_them() {
    let client = client().await;
    let (sessions, t) = fresh_repository::<Session>(&client, "sessions").await;
    let s = Session {
        id: 1,
        token: "abc".into(),
    };
    sessions.save_at(&s, 1_234_567).await.unwrap();
    let raw = client
        .table_named(t.name.clone())
        .get(hbase_orm::Get::new(s.row_key().unwrap()))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(raw.cells[0].timestamp, 1_234_567);

    let short = Session {
        id: 2,
        token: "xyz".into(),
    };
    sessions
        .save_with_ttl(&short, std::time::Duration::from_millis(3000))
        .await
        .unwrap();
    assert_eq!(
        sessions.get(&SessionKey { id: 2 }).await.unwrap(),
        Some(short)
    );
    // Margins wide enough for a loaded 2-core machine on both sides of the expiry.
    tokio::time::sleep(std::time::Duration::from_millis(4500)).await;
    assert_eq!(
        sessions.get(&SessionKey { id: 2 }).await.unwrap(),
        None,
        "expired"
    );
    assert!(
        sessions.get(&SessionKey { id: 1 }).await.unwrap().is_some(),
        "no TTL, kept"
    );
}
