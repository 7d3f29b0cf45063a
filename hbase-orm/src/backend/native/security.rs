//! Who may do what: permissions granted, revoked and listed through the master's
//! `MasterService` (`Grant`, `Revoke`, `GetUserPermissions`), which hands them to its
//! `AccessController` (a master without it answers that it is not loaded); and cell
//! visibility labels and users' authorizations through the `VisibilityLabelsService`
//! endpoint of the `hbase:labels` region (`ExecService`), which its `VisibilityController`
//! serves.

use bytes::Bytes;
use prost::Message;

use super::connection;
use super::proto;
use super::proto::permission::{Action as PbAction, Type};
use super::rpc::{self, Core, RegionAt};
use super::schema;
use crate::model::{Action, Error, Permission, PermissionScope, Result, TableName};

/// The labels' service, by the name HBase registers it under (its short name: the service
/// is in HBase's own package).
const LABELS_SERVICE: &str = "VisibilityLabelsService";

impl Core {
    /// Grants `permission`'s actions, added to those the user has on its scope (as HBase's
    /// own `AccessControlClient.grant` does: `merge_existing_permissions`).
    pub(crate) async fn grant(&self, permission: &Permission) -> Result<()> {
        let request = proto::GrantRequest {
            user_permission: user_permission(permission),
            merge_existing_permissions: Some(true),
        };
        let _: proto::GrantResponse = self.master("Grant", &request).await?;
        Ok(())
    }

    /// Takes `permission`'s actions from the user on its scope.
    pub(crate) async fn revoke(&self, permission: &Permission) -> Result<()> {
        let request = proto::RevokeRequest {
            user_permission: user_permission(permission),
        };
        let _: proto::RevokeResponse = self.master("Revoke", &request).await?;
        Ok(())
    }

    /// The permissions granted on `scope` (on a table: on it, its families and columns,
    /// narrowed to a family or column when the scope names one), `user`'s alone if given.
    pub(crate) async fn user_permissions(
        &self,
        scope: &PermissionScope,
        user: Option<&str>,
    ) -> Result<Vec<Permission>> {
        let mut request = proto::GetUserPermissionsRequest {
            user_name: user.map(|u| Bytes::copy_from_slice(u.as_bytes())),
            ..Default::default()
        };
        match scope {
            PermissionScope::Global => request.set_type(Type::Global),
            PermissionScope::Namespace(ns) => {
                request.set_type(Type::Namespace);
                request.namespace_name = Some(Bytes::copy_from_slice(ns.as_bytes()));
            }
            PermissionScope::Table {
                table,
                family,
                qualifier,
            } => {
                request.set_type(Type::Table);
                request.table_name = Some(schema::table_name(table));
                request.column_family = family.as_deref().map(Bytes::copy_from_slice);
                request.column_qualifier = qualifier.as_deref().map(Bytes::copy_from_slice);
            }
        }
        const METHOD: &str = "GetUserPermissions";
        let reply: proto::GetUserPermissionsResponse = self.master(METHOD, &request).await?;
        reply
            .user_permission
            .iter()
            .map(|p| permission_of(p).map_err(|m| rpc::protocol(METHOD, m)))
            .collect()
    }
}

impl Core {
    /// Calls `method` of the labels' service on the `hbase:labels` region; its reply.
    async fn labels_call<R: Message + Default>(
        &self,
        method: &'static str,
        request: &impl Message,
    ) -> Result<R> {
        let labels = TableName::new("hbase", "labels");
        let request = request.encode_to_vec();
        let (_, reply) = self
            .region_call(&labels, RegionAt::Holding(b""), "ExecService", |region| {
                proto::CoprocessorServiceRequest {
                    region: region.specifier(),
                    call: proto::CoprocessorServiceCall {
                        row: Bytes::new(),
                        service_name: LABELS_SERVICE.into(),
                        method_name: method.into(),
                        request: request.clone().into(),
                    },
                }
            })
            .await
            .map_err(|e| match e {
                Error::TableNotFound { .. } => Error::Unsupported {
                    operation: method.to_string(),
                    backend: "native",
                    why: "the cluster keeps no visibility labels (no hbase:labels table: HBase's \
                          VisibilityController is not loaded)"
                        .into(),
                },
                e => e,
            })?;
        let reply: proto::CoprocessorServiceResponse =
            connection::decode(&reply).map_err(|m| rpc::protocol(method, m))?;
        let value = reply.value.value.unwrap_or_default();
        R::decode(value).map_err(|e| rpc::protocol(method, e.to_string()))
    }

    /// Calls a labels' method that answers for each label: the first refusal, if any.
    async fn labels_change(&self, method: &'static str, request: &impl Message) -> Result<()> {
        let reply: proto::VisibilityLabelsResponse = self.labels_call(method, request).await?;
        match reply.result.iter().find_map(|r| r.exception.as_ref()) {
            Some(e) => {
                let message = String::from_utf8_lossy(e.value.as_deref().unwrap_or_default());
                Err(Error::from_server(
                    method,
                    format!("{}: {message}", e.name),
                    false,
                ))
            }
            None => Ok(()),
        }
    }

    /// Adds cell visibility labels to those the cluster knows.
    pub(crate) async fn add_labels(&self, labels: &[String]) -> Result<()> {
        let request = proto::VisibilityLabelsRequest {
            vis_label: labels
                .iter()
                .map(|l| proto::VisibilityLabel {
                    label: Bytes::copy_from_slice(l.as_bytes()),
                    ordinal: None,
                })
                .collect(),
        };
        self.labels_change("addLabels", &request).await
    }

    /// Gives `user` (or `@group`) `labels` (`set`), or takes them away.
    pub(crate) async fn set_authorizations(
        &self,
        user: &str,
        labels: &[String],
        set: bool,
    ) -> Result<()> {
        let request = proto::SetAuthsRequest {
            user: Bytes::copy_from_slice(user.as_bytes()),
            auth: labels
                .iter()
                .map(|l| Bytes::copy_from_slice(l.as_bytes()))
                .collect(),
        };
        let method = if set { "setAuths" } else { "clearAuths" };
        self.labels_change(method, &request).await
    }

    /// The labels `user` was given.
    pub(crate) async fn authorizations_of(&self, user: &str) -> Result<Vec<String>> {
        let request = proto::GetAuthsRequest {
            user: Bytes::copy_from_slice(user.as_bytes()),
        };
        let reply: proto::GetAuthsResponse = self.labels_call("getAuths", &request).await?;
        Ok(texts(&reply.auth))
    }

    /// The labels the cluster knows (those matching `regex`, when given).
    pub(crate) async fn list_labels(&self, regex: Option<&str>) -> Result<Vec<String>> {
        let request = proto::ListLabelsRequest {
            regex: regex.map(str::to_string),
        };
        let reply: proto::ListLabelsResponse = self.labels_call("listLabels", &request).await?;
        Ok(texts(&reply.label))
    }
}

/// Labels as text (HBase keeps them as bytes of a restricted alphabet).
fn texts(labels: &[Bytes]) -> Vec<String> {
    labels
        .iter()
        .map(|l| String::from_utf8_lossy(l).into_owned())
        .collect()
}

fn pb_action(action: Action) -> i32 {
    (match action {
        Action::Read => PbAction::Read,
        Action::Write => PbAction::Write,
        Action::Exec => PbAction::Exec,
        Action::Create => PbAction::Create,
        Action::Admin => PbAction::Admin,
    }) as i32
}

/// `permission` as the master's `UserPermission`.
fn user_permission(permission: &Permission) -> proto::UserPermission {
    let action: Vec<i32> = permission.actions.iter().copied().map(pb_action).collect();
    let mut pb = proto::Permission::default();
    match &permission.scope {
        PermissionScope::Global => {
            pb.set_type(Type::Global);
            pb.global_permission = Some(proto::GlobalPermission { action });
        }
        PermissionScope::Namespace(ns) => {
            pb.set_type(Type::Namespace);
            pb.namespace_permission = Some(proto::NamespacePermission {
                namespace_name: Some(Bytes::copy_from_slice(ns.as_bytes())),
                action,
            });
        }
        PermissionScope::Table {
            table,
            family,
            qualifier,
        } => {
            pb.set_type(Type::Table);
            pb.table_permission = Some(proto::TablePermission {
                table_name: Some(schema::table_name(table)),
                family: family.as_deref().map(Bytes::copy_from_slice),
                qualifier: qualifier.as_deref().map(Bytes::copy_from_slice),
                action,
            });
        }
    }
    proto::UserPermission {
        user: Bytes::copy_from_slice(permission.user.as_bytes()),
        permission: pb,
    }
}

/// A permission the master listed; what it cannot be read as, said.
fn permission_of(pb: &proto::UserPermission) -> std::result::Result<Permission, String> {
    let user = String::from_utf8(pb.user.to_vec())
        .map_err(|_| format!("a user name that is not UTF-8: {:?}", pb.user))?;
    let p = &pb.permission;
    let (scope, actions) = match p.r#type() {
        Type::Global => (
            PermissionScope::Global,
            p.global_permission.as_ref().map(|g| &g.action[..]),
        ),
        Type::Namespace => {
            let ns = p.namespace_permission.as_ref();
            let name = ns.and_then(|n| n.namespace_name.as_ref());
            let name = name.ok_or("a namespace permission without its namespace")?;
            let name = String::from_utf8(name.to_vec())
                .map_err(|_| format!("a namespace name that is not UTF-8: {name:?}"))?;
            (PermissionScope::Namespace(name), ns.map(|n| &n.action[..]))
        }
        Type::Table => {
            let t = p
                .table_permission
                .as_ref()
                .ok_or("a table permission without its table")?;
            let table = t
                .table_name
                .as_ref()
                .ok_or("a table permission without its table")?;
            let table = schema::model_table_name(table).map_err(|e| e.to_string())?;
            let scope = PermissionScope::Table {
                table,
                family: t.family.as_ref().map(|f| f.to_vec()),
                qualifier: t.qualifier.as_ref().map(|q| q.to_vec()),
            };
            (scope, Some(&t.action[..]))
        }
    };
    let mut actions: Vec<Action> = actions
        .unwrap_or_default()
        .iter()
        .map(|&a| match PbAction::try_from(a) {
            Ok(PbAction::Read) => Ok(Action::Read),
            Ok(PbAction::Write) => Ok(Action::Write),
            Ok(PbAction::Exec) => Ok(Action::Exec),
            Ok(PbAction::Create) => Ok(Action::Create),
            Ok(PbAction::Admin) => Ok(Action::Admin),
            Err(_) => Err(format!(
                "an action numbered {a}, which HBase 2 does not have"
            )),
        })
        .collect::<std::result::Result<_, _>>()?;
    actions.sort();
    actions.dedup();
    Ok(Permission {
        user,
        scope,
        actions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::TableName;

    /// Each scope goes to the master and comes back as it was; a listing the client cannot
    /// read is said, not guessed.
    #[test]
    fn permissions_make_the_round_trip() {
        let table = TableName::new("shop", "orders");
        for p in [
            Permission::global("alice", [Action::Admin, Action::Read]),
            Permission::namespace("@analysts", "shop", [Action::Create]),
            Permission::table("bob", table.clone(), Action::ALL),
            Permission::table("bob", table.clone(), [Action::Write]).column("d", "price"),
        ] {
            assert_eq!(permission_of(&user_permission(&p)).unwrap(), p);
        }
        let mut bad = user_permission(&Permission::global("alice", [Action::Read]));
        bad.permission.global_permission = Some(proto::GlobalPermission { action: vec![9] });
        let e = permission_of(&bad).unwrap_err();
        assert!(e.contains("numbered 9"), "{e}");
        let mut bad = user_permission(&Permission::table("a", table, [Action::Read]));
        bad.permission.table_permission = None;
        assert!(permission_of(&bad)
            .unwrap_err()
            .contains("without its table"));
    }
}
