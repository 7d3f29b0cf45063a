//! Checks of stored fields: family, qualifier, how a missing cell reads, the value encoding.

use darling::error::Accumulator;
use darling::util::Override;

use super::{names, option_inner};
use crate::attr;
use crate::model::{Column, Missing, ValueEncoding};

/// The column of a stored field, or `None` after reporting a mistake. `columns` are the ones
/// declared before it, to find clashes.
pub fn column(
    errors: &mut Accumulator,
    entity: &attr::Entity,
    field: &attr::Field,
    ident: &syn::Ident,
    columns: &[Column],
) -> Option<Column> {
    if let (true, Some(codec)) = (field.json.is_present(), &field.codec) {
        errors
            .push(darling::Error::custom("`json` and `codec` exclude each other").with_span(codec));
    }
    let family = match (&field.family, &entity.family) {
        (Some(f), _) => {
            names::family(errors, f, f.span());
            f.to_string()
        }
        (None, Some(f)) => f.to_string(),
        (None, None) => {
            errors.push(
                darling::Error::custom(format!(
                    "field `{ident}` has no column family: set #[hbase(family = \"...\")] on the \
                     field or on the struct"
                ))
                .with_span(ident),
            );
            return None;
        }
    };
    let qualifier = match &field.rename {
        Some(q) => {
            if q.is_empty() {
                errors.push(
                    darling::Error::custom("a qualifier may not be empty").with_span(&q.span()),
                );
            }
            q.to_string()
        }
        None => ident.to_string(),
    };
    if let Some(other) = columns
        .iter()
        .find(|c| c.family == family && c.qualifier == qualifier)
    {
        let span = field
            .rename
            .as_ref()
            .map(|r| r.span())
            .unwrap_or_else(|| ident.span());
        errors.push(
            darling::Error::custom(format!(
                "column {family}:{qualifier} is already used by field `{}`",
                other.ident
            ))
            .with_span(&span),
        );
        return None;
    }
    let (ty, missing) = match (option_inner(&field.ty), &field.default) {
        (Some(_), Some(d)) => {
            errors.push(
                darling::Error::custom(
                    "an Option field reads a missing cell as None already; remove `default`",
                )
                .with_span(&d.span()),
            );
            return None;
        }
        (Some(inner), None) => (inner.clone(), Missing::Optional),
        (None, Some(d)) => (
            field.ty.clone(),
            Missing::Default(match &**d {
                Override::Inherit => None,
                Override::Explicit(p) => Some(p.clone()),
            }),
        ),
        (None, None) => (field.ty.clone(), Missing::Required),
    };
    let encoding = if field.json.is_present() {
        ValueEncoding::Json
    } else if let Some(c) = &field.codec {
        ValueEncoding::Custom(c.clone())
    } else {
        ValueEncoding::Native
    };
    Some(Column {
        ident: ident.clone(),
        ty,
        missing,
        family,
        qualifier,
        encoding,
    })
}

/// The column that stores the value of a hashed key part (read back from there): `family:field`
/// of the struct's family.
pub fn stored_key(
    errors: &mut Accumulator,
    entity: &attr::Entity,
    field: &attr::Field,
    ident: &syn::Ident,
    columns: &[Column],
) -> Option<Column> {
    let Some(family) = &entity.family else {
        errors.push(
            darling::Error::custom(
                "an md5 key part stores its value in a column of the struct's family: set \
                 #[hbase(family = \"...\")] on the struct",
            )
            .with_span(ident),
        );
        return None;
    };
    let (family, qualifier) = (family.to_string(), ident.to_string());
    if let Some(other) = columns
        .iter()
        .find(|c| c.family == family && c.qualifier == qualifier)
    {
        errors.push(
            darling::Error::custom(format!(
                "an md5 key part stores its value in column {family}:{qualifier}, which field \
                 `{}` already uses",
                other.ident
            ))
            .with_span(ident),
        );
        return None;
    }
    Some(Column {
        ident: ident.clone(),
        ty: field.ty.clone(),
        missing: Missing::Required,
        family,
        qualifier,
        encoding: ValueEncoding::Native,
    })
}
