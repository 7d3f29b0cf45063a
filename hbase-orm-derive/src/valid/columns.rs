//! Checks of stored fields: family, qualifier, how a missing cell reads, the value encoding.

use darling::error::Accumulator;
use proc_macro2::Span;

use super::{names, stored_type, value_encoding, wrong_type};
use crate::attr;
use crate::model::{Column, ColumnKind, Missing, ValueEncoding};

/// A stored field being checked: its struct, its attributes, its name, and the columns
/// declared before it (to find clashes).
#[derive(Clone, Copy)]
pub struct FieldSite<'a> {
    pub entity: &'a attr::Entity,
    pub field: &'a attr::Field,
    pub ident: &'a syn::Ident,
    pub columns: &'a [Column],
}

/// The column of a stored field, or `None` after reporting a mistake.
pub fn column(errors: &mut Accumulator, at: FieldSite<'_>) -> Option<Column> {
    if let (true, Some(codec)) = (at.field.json.is_present(), &at.field.codec) {
        errors
            .push(darling::Error::custom("`json` and `codec` exclude each other").with_span(codec));
    }
    let family = match (&at.field.family, &at.entity.family) {
        (Some(f), _) => {
            names::family(errors, f, f.span());
            f.to_string()
        }
        (None, Some(f)) => f.to_string(),
        (None, None) => {
            errors.push(
                darling::Error::custom(format!(
                    "field `{ident}` has no column family: set #[hbase(family = \"...\")] on the \
                     field or on the struct",
                    ident = at.ident
                ))
                .with_span(at.ident),
            );
            return None;
        }
    };
    let qualifier = match &at.field.rename {
        Some(q) => {
            if q.is_empty() {
                errors.push(
                    darling::Error::custom("a qualifier may not be empty").with_span(&q.span()),
                );
            }
            q.to_string()
        }
        None => at.ident.to_string(),
    };
    if let Some(other) = at
        .columns
        .iter()
        .find(|c| c.family == family && c.qualifier == qualifier)
    {
        let span = at
            .field
            .rename
            .as_ref()
            .map(|r| r.span())
            .unwrap_or_else(|| at.ident.span());
        errors.push(
            darling::Error::custom(format!(
                "column {family}:{qualifier} is already used by field `{}`",
                other.ident
            ))
            .with_span(&span),
        );
        return None;
    }
    let (ty, missing) = stored_type(errors, at.field)?;
    let encoding = value_encoding(at.field);
    let (kind, ty) = kind(errors, at.field, ty, &missing)?;
    // A flattened group's columns are the prefix followed by its fields' names.
    let qualifier = match &kind {
        ColumnKind::Flatten(prefix) => prefix.clone(),
        _ => qualifier,
    };
    Some(Column {
        ident: at.ident.clone(),
        ty,
        kind,
        missing,
        family,
        qualifier,
        encoding,
    })
}

/// The type arguments of `ty` if it is `name<...>` (by its last path segment).
fn type_args<'a>(ty: &'a syn::Type, name: &str) -> Option<Vec<&'a syn::Type>> {
    let syn::Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != name {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    args.args
        .iter()
        .map(|a| match a {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        })
        .collect()
}

/// What the field holds (`versions`, `wide`, `counter`, `version` or a plain value), and
/// the type its codec handles.
fn kind(
    errors: &mut Accumulator,
    field: &attr::Field,
    ty: syn::Type,
    missing: &Missing,
) -> Option<(ColumnKind, syn::Type)> {
    let declared: Vec<(&str, Span)> = [
        ("versions", field.versions.as_ref().map(|v| v.span())),
        ("wide", field.wide.is_present().then(|| field.wide.span())),
        (
            "counter",
            field.counter.is_present().then(|| field.counter.span()),
        ),
        (
            "version",
            field.version.is_present().then(|| field.version.span()),
        ),
        (
            "flatten",
            field.flatten.is_present().then(|| field.flatten.span()),
        ),
        (
            "children",
            field.children.is_present().then(|| field.children.span()),
        ),
    ]
    .into_iter()
    .filter_map(|(n, s)| s.map(|s| (n, s)))
    .collect();
    if let (Some(prefix), false) = (&field.prefix, field.flatten.is_present()) {
        errors.push(
            darling::Error::custom("`prefix` is for `flatten` fields").with_span(&prefix.span()),
        );
    }
    if let Some(codec) = &field.key_codec {
        if !field.wide.is_present() {
            errors.push(
                darling::Error::custom("`key_codec` is for `wide` map fields").with_span(codec),
            );
        }
    }
    let Some(&(name, span)) = declared.first() else {
        return Some((ColumnKind::Value, ty));
    };
    if declared.len() > 1 {
        errors.push(
            darling::Error::custom(format!(
                "`{name}` and `{}` exclude each other",
                declared[1].0
            ))
            .with_span(&declared[1].1),
        );
        return None;
    }
    if !matches!(missing, Missing::Required) {
        errors.push(
            darling::Error::custom(format!(
                "a `{name}` field cannot be an Option or have a default (it reads as empty, or 0)"
            ))
            .with_span(&span),
        );
        return None;
    }
    let no_codec = |errors: &mut Accumulator| {
        if field.json.is_present() || field.codec.is_some() {
            errors.push(
                darling::Error::custom(format!(
                    "a `{name}` field is stored as HBase's 8-byte number: remove `json`/`codec`"
                ))
                .with_span(&span),
            );
        }
    };
    match name {
        "versions" => {
            let n = field.versions.as_ref().map(|v| **v).unwrap_or_default();
            if n == 0 {
                errors.push(
                    darling::Error::custom("`versions = N` reads at least 1 version")
                        .with_span(&span),
                );
            }
            match type_args(&ty, "Versions").as_deref() {
                Some([inner]) => Some((ColumnKind::Versions(n), (*inner).clone())),
                _ => {
                    errors.push(
                        darling::Error::custom(
                            "a `versions = N` field has the type `hbase_orm::Versions<T>`",
                        )
                        .with_span(&ty),
                    );
                    None
                }
            }
        }
        "wide" => match type_args(&ty, "BTreeMap").as_deref() {
            Some([k, v]) => Some((
                ColumnKind::Wide {
                    key_ty: (*k).clone(),
                    key_codec: field.key_codec.clone(),
                },
                (*v).clone(),
            )),
            _ => {
                errors.push(
                    darling::Error::custom(
                        "a `wide` field is a `BTreeMap<K, V>`: one cell per entry, the key \
                         encoded as the qualifier",
                    )
                    .with_span(&ty),
                );
                None
            }
        },
        "counter" => {
            no_codec(errors);
            let why = "a `counter` field is an `i64` (HBase's counter cell, an 8-byte signed \
                       number that increments add to), not a `{ty}`";
            (!wrong_type(errors, &ty, "i64", why)).then_some((ColumnKind::Counter, ty))
        }
        "version" => {
            no_codec(errors);
            let why = "a `version` field is a `u64` (the number a save checks and increases \
                       by one), not a `{ty}`";
            (!wrong_type(errors, &ty, "u64", why)).then_some((ColumnKind::Version, ty))
        }
        "flatten" => {
            no_group_codec(errors, field, name, span);
            let prefix = field
                .prefix
                .as_ref()
                .map(|p| p.to_string())
                .unwrap_or_default();
            Some((ColumnKind::Flatten(prefix), ty))
        }
        _ => {
            no_group_codec(errors, field, name, span);
            match type_args(&ty, "Vec").as_deref() {
                Some([inner]) => Some((ColumnKind::Children, (*inner).clone())),
                _ => {
                    errors.push(
                        darling::Error::custom(
                            "a `children` field is a `Vec<G>` of a `#[derive(HBaseColumns)]` type",
                        )
                        .with_span(&ty),
                    );
                    None
                }
            }
        }
    }
}

/// A group's fields carry their own encodings.
fn no_group_codec(errors: &mut Accumulator, field: &attr::Field, name: &str, span: Span) {
    if field.json.is_present() || field.codec.is_some() {
        errors.push(
            darling::Error::custom(format!(
                "a `{name}` group stores each of its fields with its own codec: remove \
                 `json`/`codec` (or put them on the group's fields)"
            ))
            .with_span(&span),
        );
    }
}

/// Checks across columns: a wide map owns its family, one version field at most, and a
/// declared `max_versions` keeps the versions a field reads.
pub fn check_all(errors: &mut Accumulator, e: &attr::Entity, columns: &[Column]) {
    for (i, c) in columns.iter().enumerate() {
        if let ColumnKind::Flatten(prefix) = &c.kind {
            for other in columns
                .iter()
                .filter(|o| o.family == c.family && o.ident != c.ident)
            {
                let clash = match &other.kind {
                    ColumnKind::Flatten(p) => {
                        p.starts_with(prefix.as_str()) || prefix.starts_with(p.as_str())
                    }
                    _ => other.qualifier.starts_with(prefix.as_str()),
                };
                if clash {
                    errors.push(
                        darling::Error::custom(format!(
                            "the columns of field `{}` start with {prefix:?}, which the flattened \
                             group `{}` uses in family {}: give one of them another prefix or \
                             family",
                            other.ident, c.ident, c.family
                        ))
                        .with_span(&other.ident),
                    );
                }
            }
        }
        if let ColumnKind::Wide { .. } | ColumnKind::Children = c.kind {
            for other in columns
                .iter()
                .filter(|o| o.family == c.family && o.ident != c.ident)
            {
                errors.push(
                    darling::Error::custom(format!(
                        "family {} belongs to the field `{}` (one cell per entry): give field \
                         `{}` another family",
                        c.family, c.ident, other.ident
                    ))
                    .with_span(&other.ident),
                );
            }
        }
        if matches!(c.kind, ColumnKind::Version)
            && columns[..i]
                .iter()
                .any(|o| matches!(o.kind, ColumnKind::Version))
        {
            errors.push(
                darling::Error::custom("an entity has at most one `version` field")
                    .with_span(&c.ident),
            );
        }
        if let ColumnKind::Versions(n) = c.kind {
            let declared = e
                .family_options
                .0
                .iter()
                .filter(|(f, _)| *f == c.family)
                .flat_map(|(_, o)| o)
                .find(|(name, _)| name == "max_versions");
            if let Some((_, syn::Lit::Int(max))) = declared {
                if max.base10_parse::<u32>().is_ok_and(|m| m < n) {
                    errors.push(
                        darling::Error::custom(format!(
                            "family {} keeps max_versions = {max}, fewer than the {n} versions \
                             field `{}` reads",
                            c.family, c.ident
                        ))
                        .with_span(max),
                    );
                }
            }
        }
    }
}

/// The column that stores the value of a hashed key part (read back from there): `family:field`
/// of the struct's family.
pub fn stored_key(errors: &mut Accumulator, at: FieldSite<'_>) -> Option<Column> {
    let Some(family) = &at.entity.family else {
        errors.push(
            darling::Error::custom(
                "an md5 key part stores its value in a column of the struct's family: set \
                 #[hbase(family = \"...\")] on the struct",
            )
            .with_span(at.ident),
        );
        return None;
    };
    let (family, qualifier) = (family.to_string(), at.ident.to_string());
    if let Some(other) = at
        .columns
        .iter()
        .find(|c| c.family == family && c.qualifier == qualifier)
    {
        errors.push(
            darling::Error::custom(format!(
                "an md5 key part stores its value in column {family}:{qualifier}, which field \
                 `{}` already uses",
                other.ident
            ))
            .with_span(at.ident),
        );
        return None;
    }
    Some(Column {
        ident: at.ident.clone(),
        ty: at.field.ty.clone(),
        kind: ColumnKind::Value,
        missing: Missing::Required,
        family,
        qualifier,
        encoding: ValueEncoding::Native,
    })
}
