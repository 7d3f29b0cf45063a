//! Who may do what on a secured cluster: [`Admin`]'s calls to the master's `AccessController`
//! and to the `VisibilityController`'s labels (see `admin.rs` for the rest of `Admin`).

use super::admin::Admin;
use crate::backend::op;
use crate::model::{Permission, PermissionScope, Result};

impl Admin {
    /// Grants `permission`'s actions to its user (or `@group`) on its scope, added to those
    /// it has there already (as the HBase shell's `grant` does). The caller needs `ADMIN` on
    /// the scope (or to be a superuser); without it, [`Error::AccessDenied`]. Needs HBase's
    /// `AccessController` on the master (`hbase.security.authorization`); reached through the
    /// native backend: the Thrift gateways of HBase 2 and the in-memory store answer
    /// [`Error::Unsupported`].
    ///
    /// ```no_run
    /// # async fn demo(client: hbase_orm::Client) -> hbase_orm::Result<()> {
    /// use hbase_orm::{Action, Permission, TableName};
    /// let orders = TableName::new("shop", "orders");
    /// let admin = client.admin();
    /// admin.grant(&Permission::table("alice", orders.clone(), [Action::Read, Action::Write])).await?;
    /// // ... and later, writing no more:
    /// admin.revoke(&Permission::table("alice", orders, [Action::Write])).await?;
    /// # Ok(()) }
    /// ```
    ///
    /// [`Error::AccessDenied`]: crate::Error::AccessDenied
    /// [`Error::Unsupported`]: crate::Error::Unsupported
    pub async fn grant(&self, permission: &Permission) -> Result<()> {
        self.client.run(&op::Grant { permission }).await
    }

    /// Takes `permission`'s actions from its user on its scope (those it names; the user
    /// keeps its others there, and what it was granted on other scopes). As
    /// [`Admin::grant`]: `ADMIN` needed, the native backend only.
    pub async fn revoke(&self, permission: &Permission) -> Result<()> {
        self.client.run(&op::Revoke { permission }).await
    }

    /// The permissions granted on `scope`: on the cluster ([`PermissionScope::Global`], the
    /// superusers listed with every action, as HBase lists them), a namespace, or a table
    /// (with its families' and columns'; narrowed when the scope names a family or column);
    /// `user`'s alone when given. As [`Admin::grant`]: `ADMIN` needed, the native backend
    /// only.
    ///
    /// ```no_run
    /// # async fn demo(client: hbase_orm::Client) -> hbase_orm::Result<()> {
    /// use hbase_orm::{PermissionScope, TableName};
    /// let scope = PermissionScope::Table {
    ///     table: TableName::new("shop", "orders"),
    ///     family: None,
    ///     qualifier: None,
    /// };
    /// for p in client.admin().user_permissions(&scope, None).await? {
    ///     println!("{} may {:?}", p.user, p.actions);
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn user_permissions(
        &self,
        scope: &PermissionScope,
        user: Option<&str>,
    ) -> Result<Vec<Permission>> {
        self.client.run(&op::UserPermissions { scope, user }).await
    }

    /// Adds cell visibility labels to those the cluster knows (letters, digits and `_-:./`;
    /// a label known already is refused), so that puts may use them in their expressions
    /// ([`Put::visibility`](crate::Put::visibility)). Needs HBase's `VisibilityController`
    /// (else [`Error::Unsupported`]) and a superuser (else [`Error::AccessDenied`]); the
    /// native backend only.
    ///
    /// ```no_run
    /// # async fn demo(client: hbase_orm::Client) -> hbase_orm::Result<()> {
    /// let admin = client.admin();
    /// admin.add_labels(&["medical".to_string(), "trainee".into()]).await?;
    /// admin.set_authorizations("alice", &["medical".to_string()]).await?;
    /// assert_eq!(admin.authorizations("alice").await?, vec!["medical"]);
    /// # Ok(()) }
    /// ```
    ///
    /// [`Error::AccessDenied`]: crate::Error::AccessDenied
    /// [`Error::Unsupported`]: crate::Error::Unsupported
    pub async fn add_labels(&self, labels: &[String]) -> Result<()> {
        self.client.run(&op::AddLabels { labels }).await
    }

    /// Gives `user` (or `@group`) these labels, added to those it has: its reads see the
    /// cells whose expressions they satisfy. As [`Admin::add_labels`].
    pub async fn set_authorizations(&self, user: &str, labels: &[String]) -> Result<()> {
        let set = true;
        self.client
            .run(&op::SetAuthorizations { user, labels, set })
            .await
    }

    /// Takes these labels from `user` (or `@group`). As [`Admin::add_labels`].
    pub async fn clear_authorizations(&self, user: &str, labels: &[String]) -> Result<()> {
        let set = false;
        self.client
            .run(&op::SetAuthorizations { user, labels, set })
            .await
    }

    /// The labels `user` (or `@group`) was given. As [`Admin::add_labels`].
    pub async fn authorizations(&self, user: &str) -> Result<Vec<String>> {
        self.client.run(&op::Authorizations { user }).await
    }

    /// The labels the cluster knows, those matching `regex` (Java's syntax) when given. As
    /// [`Admin::add_labels`].
    pub async fn list_labels(&self, regex: Option<&str>) -> Result<Vec<String>> {
        self.client.run(&op::ListLabels { regex }).await
    }
}
