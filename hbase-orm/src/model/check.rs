//! Checks every request passes before any backend sees it, so that a mistake gets the same
//! clear error whichever backend the client uses (HBase's gateways answer several of these
//! with a bare internal error).

use super::error::{Error, Result};
use super::keys::printable_key;
use super::mutations::*;
use super::reads::*;

/// HBase's longest row key (`Short.MAX_VALUE` bytes).
pub(crate) const MAX_ROW_KEY: usize = i16::MAX as usize;

/// HBase's longest family name in a cell (`Byte.MAX_VALUE` bytes).
const MAX_FAMILY: usize = i8::MAX as usize;

/// HBase's largest cell, key and value together (a KeyValue's lengths are Java ints).
pub(crate) const MAX_CELL: usize = i32::MAX as usize - 64;

fn require_row(row: &[u8], what: &str) -> Result<()> {
    if row.is_empty() {
        return Err(Error::IllegalArgument {
            message: format!("{what} needs a non-empty row key"),
        });
    }
    if row.len() > MAX_ROW_KEY {
        return Err(Error::IllegalArgument {
            message: format!(
                "{what}: a row key of {} bytes exceeds HBase's limit of {MAX_ROW_KEY} bytes",
                row.len()
            ),
        });
    }
    Ok(())
}

/// A light check of a filter-language expression: quotes closed (a `'` doubled inside them)
/// and parentheses balanced outside them. The gateway answers a filter it cannot parse with
/// a bare "internal error", so these mistakes are caught here, with what is wrong.
pub(crate) fn check_filter(filter: &[u8]) -> Result<()> {
    let bad = |why: &str| {
        Err(Error::IllegalArgument {
            message: format!(
                "malformed filter {:?}: {why}",
                String::from_utf8_lossy(filter)
            ),
        })
    };
    let (mut depth, mut quoted, mut i) = (0i32, false, 0);
    while i < filter.len() {
        match (filter[i], quoted) {
            (b'\'', true) if filter.get(i + 1) == Some(&b'\'') => i += 1,
            (b'\'', q) => quoted = !q,
            (b'(', false) => depth += 1,
            (b')', false) => {
                depth -= 1;
                if depth < 0 {
                    return bad("a ')' closes nothing");
                }
            }
            _ => {}
        }
        i += 1;
    }
    if quoted {
        return bad("a quote is not closed");
    }
    if depth != 0 {
        return bad("a '(' is not closed");
    }
    Ok(())
}

impl Put {
    /// A non-empty key within HBase's limit, and at least one cell, each within HBase's limits
    /// for a family name and a cell.
    pub(crate) fn check(&self) -> Result<()> {
        require_row(&self.row, "a put")?;
        let refuse = |why: String| {
            Err(Error::IllegalArgument {
                message: format!("the put of row {} {why}", printable_key(&self.row)),
            })
        };
        if self.cells.is_empty() {
            return refuse("has no cells".into());
        }
        if self
            .visibility
            .as_deref()
            .is_some_and(|v| v.trim().is_empty())
        {
            return refuse("has an empty visibility expression".into());
        }
        for cell in &self.cells {
            if cell.family.len() > MAX_FAMILY {
                return refuse(format!(
                    "names a family of {} bytes; HBase's limit is {MAX_FAMILY}",
                    cell.family.len()
                ));
            }
            let size = self.row.len() + cell.family.len() + cell.qualifier.len() + cell.value.len();
            if size > MAX_CELL {
                return refuse(format!(
                    "holds a cell of {size} bytes in {}:{}; HBase's limit is {MAX_CELL}",
                    String::from_utf8_lossy(&cell.family),
                    String::from_utf8_lossy(&cell.qualifier)
                ));
            }
        }
        Ok(())
    }
}

impl Get {
    /// A non-empty key within HBase's limit and a well-formed filter.
    pub(crate) fn check(&self) -> Result<()> {
        require_row(&self.row, "a get")?;
        if let Some(f) = &self.filter {
            check_filter(f)?;
        }
        Ok(())
    }
}

impl Delete {
    /// A non-empty key within HBase's limit, a visibility expression that is not empty.
    pub(crate) fn check(&self) -> Result<()> {
        if self
            .visibility
            .as_deref()
            .is_some_and(|v| v.trim().is_empty())
        {
            return Err(Error::IllegalArgument {
                message: format!(
                    "the delete of row {} has an empty visibility expression",
                    printable_key(&self.row)
                ),
            });
        }
        require_row(&self.row, "a delete")
    }

    /// Whether every target is of one kind (whole row, families, all versions of columns, or
    /// single versions): HBase's Thrift2 `TDelete` carries one delete type for all its columns.
    pub(crate) fn is_one_kind(&self) -> bool {
        self.targets.windows(2).all(|w| w[0].kind() == w[1].kind())
    }
}

impl Increment {
    /// A non-empty key within HBase's limit.
    pub(crate) fn check(&self) -> Result<()> {
        require_row(&self.row, "an increment")
    }
}

impl Append {
    /// A non-empty key within HBase's limit.
    pub(crate) fn check(&self) -> Result<()> {
        require_row(&self.row, "an append")
    }
}

impl RowMutations {
    /// A valid key, every mutation valid and of this row.
    pub(crate) fn check(&self) -> Result<()> {
        require_row(&self.row, "row mutations")?;
        for mutation in &self.mutations {
            let row = match mutation {
                Mutation::Put(p) => {
                    p.check()?;
                    &p.row
                }
                Mutation::Delete(d) => {
                    d.check()?;
                    &d.row
                }
            };
            if *row != self.row {
                return Err(Error::IllegalArgument {
                    message: format!(
                        "row mutations for {} contain a mutation of row {}",
                        printable_key(&self.row),
                        printable_key(row)
                    ),
                });
            }
        }
        Ok(())
    }
}

impl CheckAndMutate {
    /// The checked row is the mutated row, and the mutations are valid.
    pub(crate) fn check(&self) -> Result<()> {
        if self.row != self.mutations.row {
            return Err(Error::IllegalArgument {
                message: "check_and_mutate: the checked row and the mutated row differ".into(),
            });
        }
        self.mutations.check()
    }
}

impl Scan {
    /// A well-formed filter and a page size of at least one row.
    pub(crate) fn check(&self) -> Result<()> {
        if let Some(f) = &self.filter {
            check_filter(f)?;
        }
        if let Some(page) = self.caching.filter(|&n| n < 1) {
            return Err(Error::IllegalArgument {
                message: format!("a scan's page size (caching) must be at least 1, not {page}"),
            });
        }
        Ok(())
    }
}
#[cfg(test)]
mod filter_checks {
    use super::check_filter;

    #[test]
    fn balanced_filters_pass_and_broken_ones_say_why() {
        assert!(
            check_filter(b"SingleColumnValueFilter('d', 'it''s', =, 'binary:(x', true, true)")
                .is_ok()
        );
        assert!(check_filter(b"(PrefixFilter('a')) AND (KeyOnlyFilter())").is_ok());
        let e = check_filter(b"ValueFilter(=, 'binary:x'").unwrap_err();
        assert!(e.to_string().contains("'(' is not closed"), "{e}");
        let e = check_filter(b"ValueFilter(=, 'binary:x)").unwrap_err();
        assert!(e.to_string().contains("quote"), "{e}");
        assert!(check_filter(b"KeyOnlyFilter())").is_err());
    }
}
