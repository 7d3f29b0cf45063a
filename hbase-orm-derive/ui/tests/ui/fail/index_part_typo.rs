// A typo in an index's parts: the message names the part and its place in the list, suggests
// the nearest field, and points at the part.
use hbase_orm::HBaseEntity;

#[derive(HBaseEntity)]
#[hbase(table = "messages", family = "d", index(name = "by_user", parts = "usr, conversation"))]
struct Message {
    #[hbase(key)]
    conversation: String,
    user: String,
    body: String,
}

// The same for a part further along the list, and an empty part.
#[derive(HBaseEntity)]
#[hbase(
    table = "posts",
    family = "d",
    index(name = "by_author", parts = "author, created_at, id"),
    index(name = "by_title", parts = "title,, id")
)]
struct Post {
    #[hbase(key)]
    id: u64,
    author: String,
    created: i64,
    title: String,
}

fn main() {}
