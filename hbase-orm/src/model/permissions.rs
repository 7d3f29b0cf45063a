//! Who may do what on a secured cluster: the [`Permission`]s HBase's `AccessController` keeps,
//! each a user's (or a group's) [`Action`]s on a [`PermissionScope`].

use super::action::Action;
use super::table::TableName;

/// Where a permission applies: the whole cluster, a namespace, or a table (narrowed to a
/// family, or a column of it).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PermissionScope {
    /// Every namespace and table.
    Global,
    /// Every table of a namespace.
    Namespace(String),
    /// A table; with `family`, only that family's cells; with `qualifier` too, that column's.
    Table {
        /// The table.
        table: TableName,
        /// A family of it (`None`: every family).
        family: Option<Vec<u8>>,
        /// A qualifier of the family (`None`: every column of it).
        qualifier: Option<Vec<u8>>,
    },
}

/// A user's (or a group's: `@analysts`) [`Action`]s on a [`PermissionScope`]: what
/// [`Admin::grant`](crate::Admin::grant) adds, [`Admin::revoke`](crate::Admin::revoke) takes
/// away and [`Admin::user_permissions`](crate::Admin::user_permissions) lists.
///
/// ```
/// use hbase_orm::{Action, Permission, PermissionScope, TableName};
///
/// let orders = TableName::new("shop", "orders");
/// // alice may read the table and write its family `d`.
/// let read = Permission::table("alice", orders.clone(), [Action::Read]);
/// let write = Permission::table("alice", orders, [Action::Write]).family("d");
/// assert!(matches!(write.scope, PermissionScope::Table { family: Some(_), .. }));
/// // The analysts group may create tables in the namespace.
/// let create = Permission::namespace("@analysts", "shop", [Action::Create]);
/// assert_eq!(create.actions, vec![Action::Create]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Permission {
    /// The user (`alice`, as HBase knows the caller's short name), or a group with `@`.
    pub user: String,
    /// Where it applies.
    pub scope: PermissionScope,
    /// What the user may do there (sorted, each once, when HBase lists it).
    pub actions: Vec<Action>,
}

impl Permission {
    /// `actions` on every namespace and table.
    pub fn global(user: impl Into<String>, actions: impl IntoIterator<Item = Action>) -> Self {
        Permission::new(user, PermissionScope::Global, actions)
    }

    /// `actions` on every table of `namespace`.
    pub fn namespace(
        user: impl Into<String>,
        namespace: impl Into<String>,
        actions: impl IntoIterator<Item = Action>,
    ) -> Self {
        Permission::new(user, PermissionScope::Namespace(namespace.into()), actions)
    }

    /// `actions` on `table` (every family; see [`Permission::family`], [`Permission::column`]).
    pub fn table(
        user: impl Into<String>,
        table: TableName,
        actions: impl IntoIterator<Item = Action>,
    ) -> Self {
        let scope = PermissionScope::Table {
            table,
            family: None,
            qualifier: None,
        };
        Permission::new(user, scope, actions)
    }

    /// A permission on a table narrowed to one family (unchanged on other scopes).
    pub fn family(mut self, family: impl Into<Vec<u8>>) -> Self {
        if let PermissionScope::Table { family: f, .. } = &mut self.scope {
            *f = Some(family.into());
        }
        self
    }

    /// A permission on a table narrowed to one column (unchanged on other scopes).
    ///
    /// ```
    /// use hbase_orm::{Action, Permission, PermissionScope, TableName};
    /// let p = Permission::table("bob", TableName::new("default", "t"), [Action::Read]).column("d", "price");
    /// let PermissionScope::Table { family, qualifier, .. } = p.scope else { unreachable!() };
    /// assert_eq!((family, qualifier), (Some(b"d".to_vec()), Some(b"price".to_vec())));
    /// ```
    pub fn column(mut self, family: impl Into<Vec<u8>>, qualifier: impl Into<Vec<u8>>) -> Self {
        if let PermissionScope::Table {
            family: f,
            qualifier: q,
            ..
        } = &mut self.scope
        {
            *f = Some(family.into());
            *q = Some(qualifier.into());
        }
        self
    }

    fn new(
        user: impl Into<String>,
        scope: PermissionScope,
        actions: impl IntoIterator<Item = Action>,
    ) -> Self {
        let mut actions: Vec<Action> = actions.into_iter().collect();
        actions.sort();
        actions.dedup();
        Permission {
            user: user.into(),
            scope,
            actions,
        }
    }

    /// Refuses a permission HBase could not take: no user, no action, an empty namespace, or
    /// a column without its family.
    pub(crate) fn check(&self) -> super::Result<()> {
        let refuse = |why: &str| {
            Err(super::Error::IllegalArgument {
                message: format!("permission {self:?}: {why}"),
            })
        };
        if self.user.is_empty() || self.user == "@" {
            return refuse("no user or group named");
        }
        if self.actions.is_empty() {
            return refuse("no action (grant at least one; revoke names those to take away)");
        }
        match &self.scope {
            PermissionScope::Namespace(ns) if ns.is_empty() => refuse("an empty namespace"),
            PermissionScope::Table {
                family: None,
                qualifier: Some(_),
                ..
            } => refuse("a qualifier without its family"),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permissions_sort_their_actions_and_refuse_what_hbase_cannot_take() {
        let p = Permission::global("alice", [Action::Write, Action::Read, Action::Write]);
        assert_eq!(p.actions, vec![Action::Read, Action::Write]);
        assert!(p.check().is_ok());
        assert!(Permission::global("", [Action::Read]).check().is_err());
        assert!(Permission::global("alice", []).check().is_err());
        assert!(Permission::namespace("alice", "", [Action::Read])
            .check()
            .is_err());
        let column = PermissionScope::Table {
            table: TableName::new("default", "t"),
            family: None,
            qualifier: Some(b"q".to_vec()),
        };
        let p = Permission {
            scope: column,
            ..Permission::global("alice", [Action::Read])
        };
        assert!(p.check().is_err());
        // Narrowing a namespace's permission to a family does nothing.
        let ns = Permission::namespace("alice", "shop", [Action::Read]).family("d");
        assert_eq!(ns.scope, PermissionScope::Namespace("shop".into()));
        let codes: String = Action::ALL.iter().map(|a| a.code()).collect();
        assert_eq!(codes, "RWXCA");
    }
}
