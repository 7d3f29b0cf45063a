//! Checks of a `#[derive(HBaseColumns)]` struct: each field is a column (with `rename`,
//! `default`, `json`, `codec`), a nested group (`flatten, prefix = "..."`) or skipped, with
//! no two fields on one column. (`key`, `family` and the entity-only attributes are refused
//! as unknown names by `known::GROUP_FIELD`.)

use super::{named_fields, not_generic, stored_type, value_encoding};
use crate::attr;
use crate::model::{Group, GroupField, GroupFieldKind};

/// Validates a column group.
pub fn group(g: &attr::Group) -> darling::Result<Group> {
    let mut errors = darling::Error::accumulator();
    not_generic(&mut errors, &g.generics, "HBaseColumns", "struct");
    let fields = named_fields(&g.data);
    let mut out: Vec<GroupField> = Vec::new();
    for field in fields {
        let Some(ident) = field.ident.clone() else {
            continue;
        };
        if field.skip.is_present() {
            out.push(GroupField {
                ident,
                ty: field.ty.clone(),
                what: GroupFieldKind::Skip,
            });
            continue;
        }
        if field.flatten.is_present() {
            let prefix = field
                .prefix
                .as_ref()
                .map(|p| p.to_string())
                .unwrap_or_default();
            out.push(GroupField {
                ident,
                ty: field.ty.clone(),
                what: GroupFieldKind::Flatten(prefix),
            });
            continue;
        }
        if let Some(p) = &field.prefix {
            errors.push(
                darling::Error::custom("`prefix` is for `flatten` fields").with_span(&p.span()),
            );
        }
        let qualifier = field
            .rename
            .as_ref()
            .map(|r| r.to_string())
            .unwrap_or_else(|| ident.to_string());
        let clash = out.iter().any(
            |o| matches!(&o.what, GroupFieldKind::Value { qualifier: q, .. } if *q == qualifier),
        );
        if clash || qualifier.is_empty() {
            errors.push(
                darling::Error::custom(format!(
                    "the column {qualifier:?} is empty or already used in this group"
                ))
                .with_span(&ident),
            );
            continue;
        }
        let Some((ty, missing)) = stored_type(&mut errors, field) else {
            continue;
        };
        let encoding = value_encoding(field);
        out.push(GroupField {
            ident,
            ty,
            what: GroupFieldKind::Value {
                qualifier,
                missing,
                encoding,
            },
        });
    }
    errors.finish()?;
    Ok(Group {
        ident: g.ident.clone(),
        krate: g
            .krate
            .clone()
            .unwrap_or_else(|| syn::parse_quote!(::hbase_orm)),
        fields: out,
    })
}
