//! A [`Table`](super::Table) handle's cell visibility settings: the expression its puts carry
//! and the labels its reads use, each for the requests that name none of their own.

use std::borrow::Cow;
use std::sync::Arc;

use crate::model::{Delete, Get, Mutation, Put, RowMutations, Scan};

/// What a handle adds to the requests it sends (nothing by default).
#[derive(Clone, Debug, Default)]
pub(super) struct Labels {
    /// The visibility expression of puts without one.
    pub visibility: Option<Arc<str>>,
    /// The authorizations of gets and scans without any.
    pub authorizations: Option<Arc<[String]>>,
}

impl Labels {
    /// `put` with the handle's visibility, if it has none of its own.
    pub fn put(&self, put: &mut Put) {
        if let (None, Some(v)) = (&put.visibility, &self.visibility) {
            put.visibility = Some(v.to_string());
        }
    }

    /// `delete` with the handle's visibility, if it has none of its own: a delete removes
    /// only the cells of its own expression.
    pub fn delete(&self, delete: &mut Delete) {
        if let (None, Some(v)) = (&delete.visibility, &self.visibility) {
            delete.visibility = Some(v.to_string());
        }
    }

    /// The puts and deletes of `mutations` with the handle's visibility.
    pub fn mutations(&self, mutations: &mut RowMutations) {
        for m in &mut mutations.mutations {
            match m {
                Mutation::Put(p) => self.put(p),
                Mutation::Delete(d) => self.delete(d),
            }
        }
    }

    /// `puts` as sent: borrowed when the handle adds nothing to them.
    pub fn puts<'a>(&self, puts: &'a [Put]) -> Cow<'a, [Put]> {
        if self.visibility.is_none() || puts.iter().all(|p| p.visibility.is_some()) {
            return Cow::Borrowed(puts);
        }
        let mut owned = puts.to_vec();
        owned.iter_mut().for_each(|p| self.put(p));
        Cow::Owned(owned)
    }

    /// `rows` as sent: borrowed when the handle adds nothing to them.
    pub fn rows<'a>(&self, rows: &'a [RowMutations]) -> Cow<'a, [RowMutations]> {
        if self.visibility.is_none() {
            return Cow::Borrowed(rows);
        }
        let mut owned = rows.to_vec();
        owned.iter_mut().for_each(|r| self.mutations(r));
        Cow::Owned(owned)
    }

    /// `get` with the handle's authorizations, if it has none of its own.
    pub fn get(&self, get: &mut Get) {
        if let (None, Some(a)) = (&get.authorizations, &self.authorizations) {
            get.authorizations = Some(a.to_vec());
        }
    }

    /// `scan` with the handle's authorizations, if it has none of its own.
    pub fn scan(&self, scan: &mut Scan) {
        if let (None, Some(a)) = (&scan.authorizations, &self.authorizations) {
            scan.authorizations = Some(a.to_vec());
        }
    }
}
