//! A microblog: follow lists, a user's posts newest first, and a home timeline filled on write.
//!
//! Three tables:
//! - users: `[user id]`, the name in `d`, whom the user follows in family `f` and who follows
//!   the user in family `r` (`wide` maps, one cell per user, the name copied as the value).
//!   Following writes both rows: the follower's `f` and the followed user's `r`.
//! - posts: `[author id][i64::MAX - ts]` (`key(reverse_timestamp)`): an author's posts are one
//!   key prefix, newest first, so their latest N are a prefix scan with a limit.
//! - inbox: `[user id]`, one cell `d:sq` keeping up to 10,000 versions
//!   (`#[hbase(versions = 10000)]`, family `VERSIONS => 10000`). Posting writes the author's id
//!   into the inbox of every follower with the post's timestamp as the cell's version; the
//!   author and that timestamp are the post's key. HBase returns versions newest first, so the
//!   latest N posts of a home timeline are one get of N versions, then one multi-get of posts.
//!
//! The trade-offs: a post costs one write per follower (cheap reads for the many, heavy writes
//! for users with millions of followers); an inbox keeps the posts delivered while the
//! follow lasted (unfollowing stops new ones, older ones stay) and a new follower's timeline
//! starts empty; the inbox holds at most 10,000 posts, and two posts reaching the same inbox in
//! the same millisecond are one version (the later write wins). Following is two rows written
//! separately (HBase is atomic per row), so the program checks that both lists agree.
//!
//!     hbase-local/hbase.sh up && cargo run --example microblog
//!
//! `HBASE_ORM_URL` picks the store (`Client::from_env`: `thrift2://127.0.0.1:9090` when unset,
//! `hbase://127.0.0.1:2181` for HBase's own RPC, `memory://` for the in-memory store). The tables
//! `example:microblog_*` are recreated from the entities' declarations at the start of every
//! run and left for inspection.

use std::collections::{BTreeMap, BTreeSet};
use std::process::ExitCode;

use futures::TryStreamExt;
use hbase_orm::{Client, HBaseEntity, ReadOptions, Repository, Result, Versions};
use hbase_orm_suite::example::Example;

/// A user: `[id]`; follows in family `f`, followers in family `r` (user id -> name).
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "example", table = "microblog_users", family = "d")]
struct User {
    #[hbase(key)]
    id: u64,
    name: String,
    #[hbase(family = "f", wide)]
    follows: BTreeMap<u64, String>,
    #[hbase(family = "r", wide)]
    followers: BTreeMap<u64, String>,
}

/// A post: `[author][i64::MAX - ts]`, newest first within an author.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "example", table = "microblog_posts", family = "d")]
struct Post {
    #[hbase(key)]
    author: u64,
    #[hbase(key(reverse_timestamp))]
    ts: i64,
    title: String,
    body: String,
}

/// A home timeline: `[user id]`, one cell whose versions are the posts delivered: the value
/// is the author, the version's timestamp the post's.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "example", table = "microblog_inbox", family = "d")]
struct Inbox {
    #[hbase(key)]
    user: u64,
    #[hbase(versions = 10000, rename = "sq")]
    posts: Versions<u64>,
}

/// 2026-01-01 00:00 UTC, in milliseconds; posts are a minute apart after it.
const BASE: i64 = 1_767_225_600_000;

fn minute(m: i64) -> i64 {
    BASE + m * 60_000
}

struct Blog {
    users: Repository<User>,
    posts: Repository<Post>,
    inbox: Repository<Inbox>,
}

impl Blog {
    /// `who` follows `whom`: an entry in each row, written concurrently.
    async fn follow(&self, who: &User, whom: &User) -> Result<()> {
        let follows = self.users.wide(User::FOLLOWS);
        let followers = self.users.wide(User::FOLLOWERS);
        let (a, b) = (who.key(), whom.key());
        tokio::try_join!(
            follows.put(&a, &whom.id, &whom.name),
            followers.put(&b, &who.id, &who.name),
        )?;
        Ok(())
    }

    /// `who` stops following `whom`: the entry on each side removed.
    async fn unfollow(&self, who: &User, whom: &User) -> Result<()> {
        let follows = self.users.wide(User::FOLLOWS);
        let followers = self.users.wide(User::FOLLOWERS);
        let (a, b) = (who.key(), whom.key());
        tokio::try_join!(follows.remove(&a, &whom.id), followers.remove(&b, &who.id))?;
        Ok(())
    }

    /// Publishes a post: its row, then one inbox version per follower (the author's id, at
    /// the post's timestamp), all inboxes in one batch. Returns how many were delivered.
    async fn post(&self, author: u64, ts: i64, title: &str) -> Result<usize> {
        let post = Post {
            author,
            ts,
            title: title.into(),
            body: format!("{title} (posted by user {author})"),
        };
        self.posts.save(&post).await?;
        let followers = self.users.wide(User::FOLLOWERS);
        let mut delivered = Vec::new();
        let mut page = followers
            .slice(&UserKey { id: author })
            .limit(1000)
            .fetch()
            .await?;
        loop {
            delivered.extend(page.entries.iter().map(|(follower, _)| Inbox {
                user: *follower,
                posts: Versions::from_iter([(ts, author)]),
            }));
            let Some(last) = page.next else { break };
            page = followers
                .slice(&UserKey { id: author })
                .after(&last)
                .limit(1000)
                .fetch()
                .await?;
        }
        self.inbox.save_all(&delivered).await?;
        Ok(delivered.len())
    }

    /// An author's newest `n` posts: a prefix scan, newest first by construction.
    async fn newest_of(&self, author: u64, n: usize) -> Result<Vec<Post>> {
        self.posts
            .scan()
            .prefix(PostKey::prefix_by_author(&author)?)
            .limit(n)
            .stream()
            .try_collect()
            .await
    }

    /// The newest `n` posts of a user's home timeline older than `before` (milliseconds,
    /// excluded; `i64::MAX` for the newest): `n` versions of the inbox cell, then the posts
    /// they name in one multi-get.
    async fn home(&self, user: u64, n: u32, before: i64) -> Result<Vec<Post>> {
        let options = ReadOptions::new().versions(n).time_range(0, before);
        let Some(inbox) = self.inbox.get_with(&InboxKey { user }, &options).await? else {
            return Ok(Vec::new());
        };
        let keys: Vec<PostKey> = inbox
            .posts
            .iter()
            .map(|v| PostKey {
                author: v.value,
                ts: v.timestamp,
            })
            .collect();
        let posts = self.posts.get_many(&keys).await?;
        Ok(posts.into_iter().flatten().collect())
    }

    /// Every follow as each side records it: `(follower, followed)`.
    async fn both_sides(&self) -> Result<(BTreeSet<(u64, u64)>, BTreeSet<(u64, u64)>)> {
        let users: Vec<User> = self.users.scan().stream().try_collect().await?;
        let from_follows = users
            .iter()
            .flat_map(|u| u.follows.keys().map(move |f| (u.id, *f)))
            .collect();
        let from_followers = users
            .iter()
            .flat_map(|u| u.followers.keys().map(move |f| (*f, u.id)))
            .collect();
        Ok((from_follows, from_followers))
    }
}

fn titles(posts: &[Post]) -> Vec<&str> {
    posts.iter().map(|p| p.title.as_str()).collect()
}

async fn run(ex: &mut Example) -> Result<()> {
    let blog = Blog {
        users: ex.fresh::<User>().await,
        posts: ex.fresh::<Post>().await,
        inbox: ex.fresh::<Inbox>().await,
    };
    let described = ex.client().admin().describe(&Inbox::table_name()).await?;
    ex.check_eq(
        "the inbox family keeps 10,000 versions, as the field declares",
        described.get_family("d").and_then(|f| f.max_versions),
        Some(10_000),
    );

    let user = |id, name: &str| User {
        id,
        name: name.into(),
        follows: BTreeMap::new(),
        followers: BTreeMap::new(),
    };
    let (hong, hei, bai, lan) = (
        user(1, "Xiaohong"),
        user(2, "Xiaohei"),
        user(3, "Xiaobai"),
        user(4, "Xiaolan"),
    );
    blog.users
        .save_all(&[hong.clone(), hei.clone(), bai.clone(), lan.clone()])
        .await?;
    for (who, whom) in [
        (&hong, &hei),
        (&hei, &hong),
        (&hei, &bai),
        (&bai, &hong),
        (&bai, &hei),
    ] {
        blog.follow(who, whom).await?;
    }
    ex.say("follows: 1 -> 2; 2 -> 1, 3; 3 -> 1, 2 (user 4 follows no one yet)");
    let two = blog.users.get(&hei.key()).await?;
    ex.check_eq(
        "user 2's row: follows 1 and 3, followed by 1 and 3",
        two.map(|u| (u.follows, u.followers)),
        Some((
            BTreeMap::from([(1, "Xiaohong".into()), (3, "Xiaobai".into())]),
            BTreeMap::from([(1, "Xiaohong".into()), (3, "Xiaobai".into())]),
        )),
    );
    ex.check_eq(
        "user 1 has 2 followers (counted from its own row)",
        blog.users.wide(User::FOLLOWERS).count(&hong.key()).await?,
        2,
    );
    let (follows, followers) = blog.both_sides().await?;
    ex.check_eq(
        "the follow lists and the follower lists agree (5 follows)",
        (&followers, follows.len()),
        (&follows, 5),
    );

    let posts = [
        (2, 1, "morning"),
        (3, 2, "lunch"),
        (1, 3, "hello"),
        (2, 4, "coffee"),
        (3, 5, "rain"),
        (2, 6, "code review"),
        (1, 7, "reading"),
    ];
    let mut delivered = 0;
    for (author, m, title) in posts {
        delivered += blog.post(author, minute(m), title).await?;
    }
    ex.say(format!(
        "{} posts, one a minute, fanned out to {delivered} inbox versions",
        posts.len()
    ));
    ex.check_eq(
        "each post went to each of its author's followers",
        delivered,
        2 + 1 + 2 + 2 + 1 + 2 + 2,
    );

    ex.check_eq(
        "user 2's newest 2 posts: one prefix scan with a limit",
        titles(&blog.newest_of(2, 2).await?),
        vec!["code review", "coffee"],
    );
    ex.check_eq(
        "all of user 2's posts, newest first by their keys",
        titles(&blog.newest_of(2, 100).await?),
        vec!["code review", "coffee", "morning"],
    );
    ex.check_eq(
        "user 3's home timeline, newest 3: one get of 3 versions",
        titles(&blog.home(3, 3, i64::MAX).await?),
        vec!["reading", "code review", "coffee"],
    );
    ex.check_eq(
        "its next page: versions older than the last post seen",
        titles(&blog.home(3, 3, minute(4)).await?),
        vec!["hello", "morning"],
    );
    ex.check_eq(
        "user 2's home timeline (follows 1 and 3)",
        titles(&blog.home(2, 10, i64::MAX).await?),
        vec!["reading", "rain", "hello", "lunch"],
    );
    let inbox_one = blog.inbox.get(&InboxKey { user: 1 }).await?;
    ex.check_eq(
        "user 1's inbox cell: the author of each version, at the post's timestamp",
        inbox_one.map(|i| {
            i.posts
                .iter()
                .map(|v| (v.value, v.timestamp))
                .collect::<Vec<_>>()
        }),
        Some(vec![(2, minute(6)), (2, minute(4)), (2, minute(1))]),
    );

    blog.unfollow(&bai, &hei).await?;
    blog.follow(&lan, &hei).await?;
    ex.say("3 unfollows 2, 4 follows 2; then 2 posts again");
    let (follows, followers) = blog.both_sides().await?;
    ex.check_eq(
        "the lists still agree (5 follows)",
        (&followers, follows.len()),
        (&follows, 5),
    );
    ex.check_eq(
        "user 2's followers are now 1 and 4",
        blog.users
            .wide(User::FOLLOWERS)
            .slice(&hei.key())
            .fetch()
            .await?
            .entries,
        vec![(1, "Xiaohong".to_string()), (4, "Xiaolan".to_string())],
    );
    ex.check_eq(
        "the new post reached 2 inboxes",
        blog.post(2, minute(8), "evening").await?,
        2,
    );
    ex.check_eq(
        "user 1 sees it first",
        titles(&blog.home(1, 2, i64::MAX).await?),
        vec!["evening", "code review"],
    );
    ex.check_eq(
        "user 3 does not get it, and keeps what was delivered before",
        titles(&blog.home(3, 10, i64::MAX).await?),
        vec!["reading", "code review", "coffee", "hello", "morning"],
    );
    ex.check_eq(
        "user 4's timeline starts at the follow (nothing older is copied in)",
        titles(&blog.home(4, 10, i64::MAX).await?),
        vec!["evening"],
    );

    // The cap: an inbox that has received 10,001 posts (written here in one put of 10,001
    // versions, user 9 following a very busy author 2) reads back the newest 10,000.
    let busy = Inbox {
        user: 9,
        posts: (0..10_001).map(|i| (minute(100 + i), 2)).collect(),
    };
    blog.inbox.save(&busy).await?;
    let read = blog.inbox.get(&InboxKey { user: 9 }).await?;
    let (count, newest, oldest) = read
        .map(|i| {
            let v = i.posts.as_slice();
            (
                v.len(),
                v.first().map(|v| v.timestamp),
                v.last().map(|v| v.timestamp),
            )
        })
        .unwrap_or_default();
    ex.check_eq(
        "an inbox given 10,001 posts keeps the newest 10,000; the oldest dropped out",
        (count, newest, oldest),
        (10_000, Some(minute(100 + 10_000)), Some(minute(101))),
    );
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    let mut ex = Example::start(
        "microblog",
        "Users keep whom they follow and who follows them in two families of their row, \
         changed together; posts are keyed [author][i64::MAX - ts] so an author's newest come \
         first; and every post is copied on write into its followers' inboxes, one cell with \
         10,000 versions whose timestamps are the posts', so a home timeline is one read.",
        Client::from_env().await,
    )
    .await;
    let ran = run(&mut ex).await;
    ex.ran("the microblog", ran);
    ex.say("");
    ex.advice::<User>(&[]);
    ex.advice::<Post>(&[]);
    ex.advice::<Inbox>(&[]);
    ex.finish()
}
