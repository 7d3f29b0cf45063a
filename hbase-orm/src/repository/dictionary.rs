//! Numeric substitution: long names (host names, event types) replaced in row keys by compact
//! ids, assigned once with an atomic HBase counter and kept in a lookup table.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::client::{Client, Table};
use crate::mapping::dictionary::{lookup_table_schema, LOOKUP_FAMILY};
use crate::mapping::{DictName, HBaseEntity};
use crate::model::TableName;
use crate::model::{printable_key, CheckAndMutate, Delete, Get, Put};
use crate::model::{Error, Result};
use crate::schema::TableSchema;

const FAMILY: &str = LOOKUP_FAMILY;
const ID: &str = "id";
const NAME: &str = "name";
const SEQ: &str = "seq";

/// A dictionary of names and their ids, stored in an HBase table and cached in memory.
/// Cheap to clone; clones share the cache.
///
/// Rows: `<dict>\0n\0<name>` holds the id, `<dict>\0i\0<id>` the name, `<dict>\0seq` the
/// counter. Ids start at 1 and are never reused; two clients naming the same new name at once
/// agree on one id (the loser's counter value is left unused).
#[derive(Clone, Debug)]
pub struct Dictionary {
    table: Table,
    name: String,
    cache: Arc<Mutex<Cache>>,
    /// Held while a new name is claimed, so that concurrent saves of one new name in this
    /// process claim one id (not one each, all but one then left unused).
    claiming: Arc<tokio::sync::Mutex<()>>,
}

#[derive(Debug, Default)]
struct Cache {
    ids: HashMap<String, u64>,
    names: HashMap<u64, String>,
}

impl Dictionary {
    /// The dictionary `name` (several may share one table) stored in `table`.
    pub fn new(client: &Client, table: TableName, name: &str) -> Dictionary {
        Dictionary {
            table: client.table_named(table),
            name: name.to_string(),
            cache: Arc::default(),
            claiming: Arc::default(),
        }
    }

    /// What a lookup table looks like: one family `d`, kept in memory.
    pub fn schema(table: TableName) -> TableSchema {
        lookup_table_schema(table)
    }

    /// Creates the lookup table (one family `d`) if it does not exist.
    pub async fn ensure_table(client: &Client, table: &TableName) -> Result<()> {
        let admin = client.admin();
        if admin.table_exists(table).await? {
            return Ok(());
        }
        let desc = Self::schema(table.clone()).descriptor;
        match admin.create_table(&desc, &[]).await {
            Ok(()) | Err(Error::AlreadyExists { .. }) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// The value of cell `d:<qualifier>` of `row`; `None` if the row does not exist (an empty
    /// value if the row exists without that cell).
    async fn stored(&self, row: &[u8], qualifier: &str) -> Result<Option<Vec<u8>>> {
        let get = Get::new(row.to_vec()).column(FAMILY, qualifier);
        Ok(self
            .table
            .get(get)
            .await?
            .map(|found| found.value(FAMILY, qualifier).unwrap_or_default().to_vec()))
    }

    fn row(&self, kind: &str, rest: &[u8]) -> Vec<u8> {
        let mut row = Vec::with_capacity(self.name.len() + 3 + rest.len());
        row.extend_from_slice(self.name.as_bytes());
        row.push(0);
        row.extend_from_slice(kind.as_bytes());
        if !rest.is_empty() {
            row.push(0);
            row.extend_from_slice(rest);
        }
        row
    }

    fn remember(&self, name: &str, id: u64) {
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        cache.ids.insert(name.to_string(), id);
        cache.names.insert(id, name.to_string());
    }

    fn decode_id(&self, row: &[u8], bytes: &[u8]) -> Result<u64> {
        let array: [u8; 8] = bytes.try_into().map_err(|_| Error::Decode {
            table: self.table.name().to_string(),
            row: printable_key(row),
            column: format!("{FAMILY}:{ID}"),
            expected: "u64 (8 bytes, big-endian)".into(),
            reason: format!("{} bytes", bytes.len()),
        })?;
        Ok(u64::from_be_bytes(array))
    }

    /// The id of `name`, if it has one.
    pub async fn lookup(&self, name: &str) -> Result<Option<u64>> {
        if let Some(id) = self
            .cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .ids
            .get(name)
        {
            return Ok(Some(*id));
        }
        let row = self.row("n", name.as_bytes());
        let Some(stored) = self.stored(&row, ID).await? else {
            return Ok(None);
        };
        let id = self.decode_id(&row, &stored)?;
        self.remember(name, id);
        Ok(Some(id))
    }

    /// The id of `name`, assigning the next one if it has none.
    pub async fn id(&self, name: &str) -> Result<u64> {
        if let Some(id) = self.lookup(name).await? {
            return Ok(id);
        }
        let _claiming = self.claiming.lock().await;
        // Another task of this process may have claimed it while we waited.
        if let Some(id) = self.lookup(name).await? {
            return Ok(id);
        }
        let seq = self
            .table
            .increment_column(self.row(SEQ, b""), FAMILY, SEQ, 1)
            .await?;
        let id = u64::try_from(seq).map_err(|_| Error::IllegalArgument {
            message: format!("dictionary {} counter is negative ({seq})", self.name),
        })?;
        let reverse = self.row("i", &id.to_be_bytes());
        self.table
            .put(Put::new(reverse.clone()).column(FAMILY, NAME, name))
            .await?;
        let forward = self.row("n", name.as_bytes());
        let claimed = self
            .table
            .check_and_mutate(
                CheckAndMutate::if_absent(forward.clone(), FAMILY, ID)
                    .then_put(Put::new(forward).column(FAMILY, ID, id.to_be_bytes().to_vec())),
            )
            .await?;
        if claimed {
            self.remember(name, id);
            return Ok(id);
        }
        // Another client named it first: use its id and drop our reverse entry.
        self.table.delete(Delete::new(reverse)).await?;
        self.lookup(name).await?.ok_or_else(|| Error::Server {
            method: "checkAndMutate",
            message: format!(
                "dictionary {}: {name:?} was claimed but cannot be read",
                self.name
            ),
            can_retry: true,
        })
    }

    /// The name with id `id`, if any.
    pub async fn name(&self, id: u64) -> Result<Option<String>> {
        if let Some(name) = self
            .cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .names
            .get(&id)
        {
            return Ok(Some(name.clone()));
        }
        let row = self.row("i", &id.to_be_bytes());
        let Some(stored) = self.stored(&row, NAME).await? else {
            return Ok(None);
        };
        let name = String::from_utf8(stored).map_err(|e| Error::Decode {
            table: self.table.name().to_string(),
            row: printable_key(&row),
            column: format!("{FAMILY}:{NAME}"),
            expected: "UTF-8 text".into(),
            reason: e.to_string(),
        })?;
        self.remember(&name, id);
        Ok(Some(name))
    }
}

fn short_id(dictionary: &str, id: u64) -> Result<u32> {
    u32::try_from(id).map_err(|_| Error::IllegalArgument {
        message: format!(
            "dictionary {dictionary} reached id {id}: a dictionary key part holds 4 bytes"
        ),
    })
}

impl Dictionary {
    /// Completes `value`: finds the id of its name (assigning one with `create`), or the name
    /// of its id. `Ok(false)` when the name has no id and `create` is false, or the id has no
    /// name: no row can hold it.
    pub async fn resolve(&self, value: &DictName, create: bool) -> Result<bool> {
        if let (Some(name), None) = (value.name(), value.id()) {
            let id = if create {
                Some(self.id(name).await?)
            } else {
                self.lookup(name).await?
            };
            let Some(id) = id else { return Ok(false) };
            value.set_id(short_id(&self.name, id)?);
        }
        if let (None, Some(id)) = (value.name(), value.id()) {
            let Some(name) = self.name(u64::from(id)).await? else {
                return Ok(false);
            };
            value.set_name(name);
        }
        Ok(true)
    }
}

/// The dictionary `name` of entity `T`'s key parts.
fn dictionary_of<T: HBaseEntity>(client: &Client, name: &str) -> Dictionary {
    client.dictionary(TableName::new(T::NAMESPACE, T::DICTIONARY_TABLE), name)
}

/// Completes every part's id (assigning new ids with `create`) or name; `Ok(false)` if one
/// cannot be completed (no row holds it).
pub(crate) async fn resolve_parts<T: HBaseEntity>(
    client: &Client,
    parts: Vec<(&'static str, &DictName)>,
    create: bool,
) -> Result<bool> {
    for (dictionary, value) in parts {
        if !dictionary_of::<T>(client, dictionary)
            .resolve(value, create)
            .await?
        {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Fills in the names of an entity read from `table` (its key holds ids).
pub(crate) async fn fill_names<T: HBaseEntity>(
    client: &Client,
    table: &TableName,
    value: &T,
) -> Result<()> {
    for (dictionary, part) in value.dictionary_parts() {
        if !dictionary_of::<T>(client, dictionary)
            .resolve(part, false)
            .await?
        {
            return Err(Error::Decode {
                table: table.to_string(),
                row: value
                    .row_key()
                    .map(|k| printable_key(&k))
                    .unwrap_or_default(),
                column: format!("row key part of dictionary {dictionary}"),
                expected: "an id the dictionary knows".into(),
                reason: format!("dictionary {dictionary} has no name for id {part}"),
            });
        }
    }
    Ok(())
}
