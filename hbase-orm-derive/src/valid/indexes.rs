//! Checks of `index(name = "...", parts = "...", table = "...")`: a usable name, parts that
//! are row-key parts or plain columns (an `Option` one makes the index sparse), every row-key
//! part included (so each entity has its own index row), a valid table name.

use darling::error::Accumulator;

use super::{list, names};
use crate::attr;
use crate::model::{Column, ColumnKind, Index, KeyEncoding, KeyPart, Missing};

/// `by_time` as `ByTime`.
fn camel(name: &str) -> String {
    name.split('_')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

pub fn indexes(
    errors: &mut Accumulator,
    e: &attr::Entity,
    keys: &[KeyPart],
    columns: &[Column],
    table: &str,
) -> Vec<Index> {
    let mut out: Vec<Index> = Vec::new();
    for ix in &e.indexes {
        let name = ix.name.as_str();
        let ok_name = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !ok_name {
            errors.push(
                darling::Error::custom(
                    "an index name is an identifier such as \"by_time\" (letters, digits, '_')",
                )
                .with_span(&ix.name.span()),
            );
            continue;
        }
        if out.iter().any(|o| o.name == name) {
            errors.push(
                darling::Error::custom(format!("index {name:?} is declared twice"))
                    .with_span(&ix.name.span()),
            );
            continue;
        }
        if table.contains('{') {
            errors.push(
                darling::Error::custom(
                    "an entity stored in one table per day cannot have an index table",
                )
                .with_span(&ix.span()),
            );
            continue;
        }
        let index_table = match &ix.table {
            Some(t) => {
                names::plain_table(errors, t);
                t.to_string()
            }
            None => format!("{table}_{name}"),
        };
        let mut parts = Vec::new();
        let mut optional = Vec::new();
        let mut ok = true;
        for part in list::items(&ix.parts) {
            match index_part(&part, keys, columns) {
                Ok((copy, is_option)) => {
                    if is_option {
                        optional.push(copy.ident.clone());
                    }
                    parts.push(copy);
                }
                Err(error) => {
                    errors.push(error);
                    ok = false;
                }
            }
        }
        for k in keys {
            if ok && !parts.iter().any(|p| p.ident == k.ident) {
                errors.push(
                    darling::Error::custom(format!(
                        "the index parts must include every row-key part (missing `{}`), so \
                         that each entity has its own index row",
                        k.ident
                    ))
                    .with_span(&ix.parts.span()),
                );
                ok = false;
            }
        }
        if !ok {
            continue;
        }
        let marker = syn::Ident::new(&format!("{}{}", e.ident, camel(name)), e.ident.span());
        let key_struct = syn::Ident::new(&format!("{marker}Key"), e.ident.span());
        out.push(Index {
            name: name.to_string(),
            marker,
            key_struct,
            table: index_table,
            parts,
            optional,
        });
    }
    out
}

/// The key part an index takes from the entity's field `part` (a row-key part or a plain
/// column) and whether the field is an `Option`, or why that field cannot be one, at the part.
fn index_part(
    part: &list::Item,
    keys: &[KeyPart],
    columns: &[Column],
) -> Result<(KeyPart, bool), darling::Error> {
    const WHAT: &str = "index part";
    let name = part.name.as_str();
    let refused = |why: String| {
        Err(darling::Error::custom(format!("{} {why}", part.subject(WHAT))).with_span(&part.span))
    };
    if name.is_empty() {
        return Err(part.empty(WHAT));
    }
    if let Some(k) = keys.iter().find(|k| k.ident == name) {
        if matches!(k.encoding, KeyEncoding::Md5(_)) {
            return refused(
                "is an md5 key part: an index orders by values, index a column instead".into(),
            );
        }
        let part = KeyPart {
            ident: k.ident.clone(),
            ty: k.ty.clone(),
            encoding: k.encoding.clone(),
            stored: None,
        };
        Ok((part, false))
    } else if let Some(c) = columns.iter().find(|c| c.ident == name) {
        if !matches!(c.kind, ColumnKind::Value) {
            return refused(
                "must be a key part or a plain field (not versions, wide, counter, version)".into(),
            );
        }
        // The column's type is already the Option's inner type.
        let optional = matches!(c.missing, Missing::Optional);
        let part = KeyPart {
            ident: c.ident.clone(),
            ty: c.ty.clone(),
            encoding: KeyEncoding::Default,
            stored: None,
        };
        Ok((part, optional))
    } else {
        let fields: Vec<String> = keys
            .iter()
            .map(|k| k.ident.to_string())
            .chain(columns.iter().map(|c| c.ident.to_string()))
            .collect();
        let fields: Vec<&str> = fields.iter().map(String::as_str).collect();
        refused(format!(
            "is not a field of the entity{}",
            crate::known::did_you_mean(name, &fields)
        ))
    }
}
