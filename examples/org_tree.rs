//! A department tree in one table: top-level departments found by a prefix scan, each
//! department's direct children listed in its own row, its parent named in a column.
//!
//! The row key is `[level][id]`: a one-byte level (0 for a top-level department, 1 for any
//! department below one) then the 4-byte id, the binary form of keys such as `0_001` and
//! `1_002`. All top-level departments share the prefix `[0]`, so listing them is a prefix scan
//! that reads nothing else. A department's children live in family `c` of its row (a `wide`
//! map, `c:<child id> = <child name>`; children are always level 1, so the id is enough), and
//! column `d:pid` holds the parent's whole row key. Moving or deleting a department uses that
//! column to find the parent list to change.
//!
//! The level is a key part rather than a record type (`record_type(tag = ..)`): departments
//! look the same at every level, and a record type is for rows of different shapes sharing a
//! table. The trade-offs: a department's level is part of its identity, so promoting one to the
//! top (or the reverse) means a new row and new references to it (not done here: such a move
//! is refused); and the parent's list and the child's `pid` are two rows, changed by separate
//! writes (HBase is atomic per row only), so the program checks after every change that they
//! agree. Only direct children are listed: a whole subtree is one read per level.
//!
//!     hbase-local/hbase.sh up && cargo run --example org_tree
//!
//! `HBASE_ORM_URL` picks the store (`Client::from_env`: `thrift2://127.0.0.1:9090` when unset,
//! `hbase://127.0.0.1:2181` for HBase's own RPC, `memory://` for the in-memory store). The table
//! `example:org_tree_departments` is recreated from the entity's declaration at the start of
//! every run and left for inspection.

use std::collections::BTreeMap;
use std::process::ExitCode;

use futures::TryStreamExt;
use hbase_orm::{printable_key, Client, EntityKey, Get, HBaseEntity, KeyRef, Repository, Result};
use hbase_orm_suite::example::Example;

/// Top-level departments.
const TOP: u8 = 0;
/// Departments below another one.
const BELOW: u8 = 1;

/// A department: row key `[level][id]`, its direct children in family `c`.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(namespace = "example", table = "org_tree_departments", family = "d")]
struct Department {
    #[hbase(key)]
    level: u8,
    #[hbase(key)]
    id: u32,
    name: String,
    /// The parent's row key; `None` for a top-level department.
    #[hbase(rename = "pid", codec = KeyRef)]
    parent: Option<DepartmentKey>,
    /// Direct children: id -> name (all at level 1).
    #[hbase(family = "c", wide)]
    children: BTreeMap<u32, String>,
}

/// What a change did.
#[derive(Debug, PartialEq)]
enum Change {
    Done,
    /// Not done, and why.
    Refused(&'static str),
}

fn key(level: u8, id: u32) -> DepartmentKey {
    DepartmentKey { level, id }
}

/// The department tree.
struct Org {
    departments: Repository<Department>,
}

impl Org {
    /// Adds a department under `parent` (or at the top): its row first, then the entry in the
    /// parent's list, so a failure in between leaves a department that names its parent but
    /// is not listed yet (found and fixed by [`Org::disagreements`]), never a list entry
    /// pointing at nothing.
    async fn add(&self, id: u32, name: &str, parent: Option<&DepartmentKey>) -> Result<()> {
        let dept = Department {
            level: if parent.is_some() { BELOW } else { TOP },
            id,
            name: name.into(),
            parent: parent.cloned(),
            children: BTreeMap::new(),
        };
        self.departments.save(&dept).await?;
        if let Some(p) = parent {
            let lists = self.departments.wide(Department::CHILDREN);
            lists.put(p, &id, &dept.name).await?;
        }
        Ok(())
    }

    /// The top-level departments: one prefix scan over the keys starting with level 0.
    async fn top(&self) -> Result<Vec<Department>> {
        self.departments
            .scan()
            .prefix(DepartmentKey::prefix_by_level(&TOP)?)
            .stream()
            .try_collect()
            .await
    }

    /// The direct children of a department (ids and names), from its row only.
    async fn children(&self, of: &DepartmentKey) -> Result<Vec<(u32, String)>> {
        let lists = self.departments.wide(Department::CHILDREN);
        Ok(lists.slice(of).fetch().await?.entries)
    }

    /// The ids from `from` up to its top-level department, following `pid`.
    async fn path_to_top(&self, from: &DepartmentKey) -> Result<Vec<u32>> {
        let mut path = Vec::new();
        let mut at = Some(from.clone());
        while let Some(k) = at {
            let Some(d) = self.departments.get(&k).await? else {
                break;
            };
            path.push(d.id);
            at = d.parent;
        }
        Ok(path)
    }

    /// Moves a department (with its subtree) under another parent: out of the old parent's
    /// list, into the new one's, then its `pid`.
    async fn move_to(&self, what: &DepartmentKey, to: &DepartmentKey) -> Result<Change> {
        let Some(mut dept) = self.departments.get(what).await? else {
            return Ok(Change::Refused("no such department"));
        };
        let Some(old) = dept.parent.clone() else {
            return Ok(Change::Refused(
                "a top-level department would change its key: re-create it instead",
            ));
        };
        if self.path_to_top(to).await?.contains(&dept.id) {
            return Ok(Change::Refused(
                "the new parent is inside the department's own subtree",
            ));
        }
        if !self.departments.exists(to).await? {
            return Ok(Change::Refused("no such parent"));
        }
        let lists = self.departments.wide(Department::CHILDREN);
        lists.remove(&old, &dept.id).await?;
        lists.put(to, &dept.id, &dept.name).await?;
        // The value read holds the department's own children, so the save keeps them.
        dept.parent = Some(to.clone());
        self.departments.save(&dept).await?;
        Ok(Change::Done)
    }

    /// Deletes a department that has no children: out of its parent's list, then its row.
    async fn delete(&self, what: &DepartmentKey) -> Result<Change> {
        let Some(dept) = self.departments.get(what).await? else {
            return Ok(Change::Refused("no such department"));
        };
        if !dept.children.is_empty() {
            return Ok(Change::Refused(
                "it has children: move or delete them first",
            ));
        }
        if let Some(parent) = &dept.parent {
            let lists = self.departments.wide(Department::CHILDREN);
            lists.remove(parent, &dept.id).await?;
        }
        self.departments.delete(what).await?;
        Ok(Change::Done)
    }

    /// Where the children lists and the `pid` columns disagree (empty when the tree is
    /// consistent): a department not listed by its parent, a list entry whose department
    /// names another parent or does not exist, or a copied name that is stale.
    async fn disagreements(&self) -> Result<Vec<String>> {
        let all: Vec<Department> = self.departments.scan().stream().try_collect().await?;
        let by_key: BTreeMap<(u8, u32), &Department> =
            all.iter().map(|d| ((d.level, d.id), d)).collect();
        let mut out = Vec::new();
        for d in &all {
            if let Some(p) = &d.parent {
                match by_key.get(&(p.level, p.id)) {
                    Some(parent) if parent.children.get(&d.id) == Some(&d.name) => {}
                    Some(_) => out.push(format!("{} is not listed by its parent {}", d.id, p.id)),
                    None => out.push(format!("{} names a missing parent {}", d.id, p.id)),
                }
            }
            for child in d.children.keys() {
                let listed_back = by_key
                    .get(&(BELOW, *child))
                    .and_then(|c| c.parent.as_ref())
                    .is_some_and(|p| *p == key(d.level, d.id));
                if !listed_back {
                    out.push(format!("{} lists {child}, whose pid is elsewhere", d.id));
                }
            }
        }
        Ok(out)
    }
}

/// A key's row key bytes, as the generated key type encodes it.
fn ids(children: &[(u32, String)]) -> Vec<u32> {
    children.iter().map(|(id, _)| *id).collect()
}

async fn run(ex: &mut Example) -> Result<()> {
    let org = Org {
        departments: ex.fresh::<Department>().await,
    };
    let ceo = key(TOP, 1);
    let (dev, market) = (key(BELOW, 2), key(BELOW, 5));
    org.add(1, "CEO", None).await?;
    org.add(2, "Development", Some(&ceo)).await?;
    org.add(3, "Development 1", Some(&dev)).await?;
    org.add(4, "Development 2", Some(&dev)).await?;
    org.add(5, "Marketing", Some(&ceo)).await?;
    org.add(6, "Marketing 1", Some(&market)).await?;
    org.add(7, "Marketing 2", Some(&market)).await?;
    org.add(8, "Foundation", None).await?;
    ex.say("added: CEO (1) > Development (2) > 3, 4; CEO > Marketing (5) > 6, 7; Foundation (8) at the top");
    let top = org.top().await?;
    if let (Some(first), Some(development)) = (top.first(), org.departments.get(&dev).await?) {
        ex.say(format!(
            "row keys: CEO {}, Development {}",
            printable_key(&first.row_key()?),
            printable_key(&development.row_key()?)
        ));
    }
    ex.check_eq(
        "top-level departments, one prefix scan on level 0",
        top.iter().map(|d| d.name.as_str()).collect::<Vec<_>>(),
        vec!["CEO", "Foundation"],
    );
    ex.check(
        "the scan read no department below the top",
        top.iter().all(|d| d.level == TOP && d.parent.is_none()),
    );
    ex.check_eq(
        "CEO's children, from its row",
        org.children(&ceo).await?,
        vec![(2, "Development".into()), (5, "Marketing".into())],
    );
    ex.check_eq(
        "Development's children",
        ids(&org.children(&dev).await?),
        vec![3, 4],
    );
    let four = org.departments.get(&key(BELOW, 4)).await?;
    ex.check_eq(
        "department 4's pid column holds Development's row key",
        four.and_then(|d| d.parent),
        Some(dev.clone()),
    );
    let raw = org
        .departments
        .table()
        .get(Get::new(key(BELOW, 4).row_key()?).column("d", "pid"))
        .await?;
    ex.check_eq(
        "the raw cell d:pid of 4 is Development's row key, byte for byte",
        raw.and_then(|r| r.cells.into_iter().next())
            .map(|c| c.value.to_vec()),
        Some(dev.row_key()?),
    );
    ex.check_eq(
        "following pid from 4 reaches the top: 4, 2, 1",
        org.path_to_top(&key(BELOW, 4)).await?,
        vec![4, 2, 1],
    );
    ex.check_eq(
        "the lists and the pid columns agree",
        org.disagreements().await?,
        vec![],
    );

    ex.check_eq(
        "move 4 from Development to Marketing",
        org.move_to(&key(BELOW, 4), &market).await?,
        Change::Done,
    );
    ex.check_eq(
        "Development lists 3 only",
        ids(&org.children(&dev).await?),
        vec![3],
    );
    ex.check_eq(
        "Marketing lists 4, 6, 7",
        ids(&org.children(&market).await?),
        vec![4, 6, 7],
    );
    ex.check_eq(
        "4's path now runs through Marketing: 4, 5, 1",
        org.path_to_top(&key(BELOW, 4)).await?,
        vec![4, 5, 1],
    );
    ex.check_eq(
        "move Marketing (with its subtree) under Foundation",
        org.move_to(&market, &key(TOP, 8)).await?,
        Change::Done,
    );
    ex.check_eq(
        "CEO lists Development only, Foundation lists Marketing",
        (
            ids(&org.children(&ceo).await?),
            ids(&org.children(&key(TOP, 8)).await?),
        ),
        (vec![2], vec![5]),
    );
    ex.check_eq(
        "Marketing kept its children through the move",
        ids(&org.children(&market).await?),
        vec![4, 6, 7],
    );
    ex.check_eq(
        "after the moves the lists and the pid columns agree",
        org.disagreements().await?,
        vec![],
    );

    ex.check_eq(
        "moving Development under its own child 3 is refused",
        org.move_to(&dev, &key(BELOW, 3)).await?,
        Change::Refused("the new parent is inside the department's own subtree"),
    );
    ex.check_eq(
        "moving the top-level CEO is refused (its key holds its level)",
        org.move_to(&ceo, &key(TOP, 8)).await?,
        Change::Refused("a top-level department would change its key: re-create it instead"),
    );
    ex.check_eq(
        "deleting Marketing, which has children, is refused",
        org.delete(&market).await?,
        Change::Refused("it has children: move or delete them first"),
    );
    ex.check_eq(
        "delete Marketing 2",
        org.delete(&key(BELOW, 7)).await?,
        Change::Done,
    );
    ex.check(
        "its row is gone",
        !org.departments.exists(&key(BELOW, 7)).await?,
    );
    ex.check_eq(
        "Marketing lists 4, 6",
        ids(&org.children(&market).await?),
        vec![4, 6],
    );
    ex.check_eq(
        "after the delete the lists and the pid columns agree",
        org.disagreements().await?,
        vec![],
    );
    // A move cut short after its first list write: 6 listed by Development as well.
    let lists = org.departments.wide(Department::CHILDREN);
    lists.put(&dev, &6, &"Marketing 1".to_string()).await?;
    ex.check_eq(
        "a move cut short after one write is found",
        org.disagreements().await?,
        vec!["2 lists 6, whose pid is elsewhere".to_string()],
    );
    ex.check_eq(
        "running the move again completes it",
        org.move_to(&key(BELOW, 6), &dev).await?,
        Change::Done,
    );
    ex.check_eq(
        "Development lists 3, 6 and Marketing 4; the tree agrees again",
        (
            ids(&org.children(&dev).await?),
            ids(&org.children(&market).await?),
            org.disagreements().await?,
        ),
        (vec![3, 6], vec![4], vec![]),
    );
    let remaining = org
        .departments
        .scan()
        .stream()
        .try_collect::<Vec<_>>()
        .await?;
    ex.check_eq("7 departments remain", remaining.len(), 7);
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    let mut ex = Example::start(
        "org_tree",
        "A department tree in one table keyed [level][id]: the top-level departments are \
         one prefix scan (level 0), a department's direct children are one row read (a \
         family holding one cell per child), and its parent's row key sits in a column, so a \
         move or delete knows which list to change.",
        Client::from_env().await,
    )
    .await;
    let ran = run(&mut ex).await;
    ex.ran("the tree operations", ran);
    ex.say("");
    ex.advice::<Department>(&[]);
    ex.finish()
}
