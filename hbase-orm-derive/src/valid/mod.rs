//! Checks the parsed attributes and builds the [`crate::model`] of the entity, one file per
//! concern. Every mistake is collected, so the user sees all of them in one build. Nothing
//! here writes code.

mod columns;
mod group;
mod indexes;
mod keys;
mod layout;
mod list;
mod names;
mod record;

use darling::error::Accumulator;
use proc_macro2::Span;

use crate::attr;
use crate::model::{Column, ColumnKind, Entity, KeyEncoding, KeyPart, Missing, ValueEncoding};
use columns::FieldSite;

pub use group::group;
pub use record::record_set;

/// The name of `ty` when it is one of Rust's own types written as a path (`String`, `u64`,
/// `Vec<u8>`: `"Vec"`); `None` for any other type, whose meaning (a user type, an alias of
/// `i64`) only the compiler knows, so that checks by name never refuse a type that fits.
pub(crate) fn std_type_name(ty: &syn::Type) -> Option<String> {
    const STD: &[&str] = &[
        "bool", "char", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64",
        "u128", "usize", "f32", "f64", "str", "String", "Vec", "Option", "Box", "BTreeMap",
        "HashMap", "BTreeSet", "HashSet", "Versions",
    ];
    let syn::Type::Path(p) = ty else { return None };
    if p.qself.is_some() {
        return None;
    }
    let name = p.path.segments.last()?.ident.to_string();
    STD.contains(&name.as_str()).then_some(name)
}

/// Reports `ty` at its span with `why` when it is a known type other than `want` (see
/// [`std_type_name`]); whether it reported.
pub(crate) fn wrong_type(errors: &mut Accumulator, ty: &syn::Type, want: &str, why: &str) -> bool {
    match std_type_name(ty) {
        Some(name) if name != want => {
            errors.push(darling::Error::custom(why.replace("{ty}", &name)).with_span(ty));
            true
        }
        _ => false,
    }
}

/// `T` if `ty` is `Option<T>`.
pub(crate) fn option_inner(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(p) = ty else { return None };
    if p.qself.is_some() {
        return None;
    }
    let last = p.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first() {
        Some(syn::GenericArgument::Type(inner)) if args.args.len() == 1 => Some(inner),
        _ => None,
    }
}

/// The stored type of a field and how it reads a missing cell: `T` of an `Option<T>` (read as
/// `None`), or the field's type, required or with its `default`. `None` after reporting an
/// `Option` field that also has a `default`.
pub(crate) fn stored_type(
    errors: &mut Accumulator,
    field: &attr::Field,
) -> Option<(syn::Type, Missing)> {
    match (option_inner(&field.ty), &field.default) {
        (Some(_), Some(d)) => {
            errors.push(
                darling::Error::custom(
                    "an Option field reads a missing cell as None already; remove `default`",
                )
                .with_span(&d.span()),
            );
            None
        }
        (Some(inner), None) => Some((inner.clone(), Missing::Optional)),
        (None, Some(d)) => Some((
            field.ty.clone(),
            Missing::Default(match &**d {
                darling::util::Override::Inherit => None,
                darling::util::Override::Explicit(p) => Some(p.clone()),
            }),
        )),
        (None, None) => Some((field.ty.clone(), Missing::Required)),
    }
}

/// How a field's value is encoded: `json`, `codec = C`, or the type's own.
pub(crate) fn value_encoding(field: &attr::Field) -> ValueEncoding {
    if field.json.is_present() {
        ValueEncoding::Json
    } else if let Some(c) = &field.codec {
        ValueEncoding::Custom(c.clone())
    } else {
        ValueEncoding::Native
    }
}

/// One error per attribute in `with` that is present, saying it cannot be combined with
/// `what`; whether there was any.
fn conflict(errors: &mut Accumulator, what: &str, with: &[(&str, Option<Span>)]) -> bool {
    let mut clashed = false;
    for (name, span) in with {
        if let Some(span) = span {
            errors.push(
                darling::Error::custom(format!("`{what}` cannot be combined with `{name}`"))
                    .with_span(span),
            );
            clashed = true;
        }
    }
    clashed
}

/// The attributes that describe a stored column, with their spans when present.
fn stored_attrs(field: &attr::Field) -> Vec<(&'static str, Option<Span>)> {
    vec![
        ("family", field.family.as_ref().map(|f| f.span())),
        ("rename", field.rename.as_ref().map(|r| r.span())),
        ("default", field.default.as_ref().map(|d| d.span())),
        (
            "codec",
            field.codec.as_ref().map(syn::spanned::Spanned::span),
        ),
        ("json", field.json.is_present().then(|| field.json.span())),
    ]
}

/// The fields sorted into key parts, columns and skipped fields.
struct Fields {
    keys: Vec<KeyPart>,
    columns: Vec<Column>,
    skipped: Vec<syn::Ident>,
    /// Whether any field is marked `key`, even one with a mistake (then "no row key" would be
    /// a second, misleading error).
    any_key: bool,
}

fn fields(errors: &mut Accumulator, e: &attr::Entity) -> Fields {
    let mut out = Fields {
        keys: Vec::new(),
        columns: Vec::new(),
        skipped: Vec::new(),
        any_key: false,
    };
    let fields = named_fields(&e.data);
    for field in fields {
        let Some(ident) = field.ident.clone() else {
            continue;
        };
        let stored = stored_attrs(field);
        out.any_key |= field.key.is_some();
        let site = FieldSite {
            entity: e,
            field,
            ident: &ident,
            columns: &out.columns,
        };
        if field.skip.is_present() {
            let mut with = stored;
            with.push(("key", field.key.as_ref().map(|k| k.span())));
            conflict(errors, "skip", &with);
            out.skipped.push(ident);
        } else if field.key.is_some() {
            if conflict(errors, "key", &stored) {
                continue;
            }
            let Some(encoding) = keys::encoding(errors, field) else {
                continue;
            };
            // A one-way (hashed) part also stores its value in a column, to be read back.
            let stored = if matches!(encoding, KeyEncoding::Md5(_)) {
                let Some(column) = columns::stored_key(errors, site) else {
                    continue;
                };
                out.columns.push(column);
                Some(out.columns.len() - 1)
            } else {
                None
            };
            out.keys.push(KeyPart {
                ident,
                ty: field.ty.clone(),
                encoding,
                stored,
            });
        } else if let Some(column) = columns::column(errors, site) {
            out.columns.push(column);
        }
    }
    out
}

/// Validates an entity struct.
pub fn entity(e: &attr::Entity) -> darling::Result<Entity> {
    let mut errors = darling::Error::accumulator();
    let krate = e
        .krate
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::hbase_orm));
    not_generic(&mut errors, &e.generics, "HBaseEntity", "struct");
    let table = names::table(&mut errors, &e.table, &e.ident);
    let namespace = names::namespace(&mut errors, &e.namespace);
    let (delimiter, separate_all) = names::key_join(&mut errors, e);
    if let Some(f) = &e.family {
        names::family(&mut errors, f, f.span());
    }

    let Fields {
        keys,
        columns,
        skipped,
        any_key,
    } = fields(&mut errors, e);
    columns::check_all(&mut errors, e, &columns);
    if !any_key {
        errors.push(
            darling::Error::custom(
                "no row key: mark the fields that make up the row key with #[hbase(key)]",
            )
            .with_span(&e.ident),
        );
    }
    let mut families: Vec<String> = Vec::new();
    for c in &columns {
        if !families.contains(&c.family) {
            families.push(c.family.clone());
        }
    }
    if let Some(f) = &e.family {
        if families.is_empty() {
            families.push(f.to_string());
        }
    }
    if families.is_empty() && e.extra_families.is_none() && any_key && columns.is_empty() {
        errors.push(
            darling::Error::custom(
                "an entity with only key fields still writes one (empty) cell: set \
                 #[hbase(family = \"...\")] on the struct",
            )
            .with_span(&e.ident),
        );
    }

    // The row's marker cell (`family:` with an empty qualifier) lives in the first family:
    // put one first whose qualifiers are all named, not a wide map's or a children list's.
    let owned = |f: &String| {
        columns.iter().any(|c| {
            c.family == *f && matches!(c.kind, ColumnKind::Wide { .. } | ColumnKind::Children)
        })
    };
    if let Some(i) = families.iter().position(|f| !owned(f)) {
        let first = families.remove(i);
        families.insert(0, first);
    }
    let salt = layout::salt(&mut errors, e, &keys);
    let tag = layout::tag(&mut errors, e, &keys);
    let family_options = layout::family_options(&mut errors, e, &mut families);
    let split = layout::split(&mut errors, e, salt.as_ref());
    let table_time = layout::table_time(&mut errors, e, &keys);
    let region_replication = layout::region_replication(&mut errors, e);
    let indexes = indexes::indexes(&mut errors, e, &keys, &columns, &table);
    let dictionary_table = e.dictionary_table.as_ref().map(|t| {
        names::plain_table(&mut errors, t);
        if !keys
            .iter()
            .any(|k| matches!(k.encoding, KeyEncoding::Dictionary(_)))
        {
            errors.push(
                darling::Error::custom(
                    "dictionary_table is for entities with key(dictionary = \"...\") parts",
                )
                .with_span(&t.span()),
            );
        }
        t.to_string()
    });

    errors.finish()?;
    Ok(Entity {
        key_struct: e
            .key_struct
            .clone()
            .unwrap_or_else(|| syn::Ident::new(&format!("{}Key", e.ident), e.ident.span())),
        key_kind: "row key".into(),
        ident: e.ident.clone(),
        vis: e.vis.clone(),
        krate,
        namespace,
        table,
        delimiter,
        separate_all,
        keys,
        columns,
        skipped,
        families,
        salt,
        tag,
        family_options,
        split,
        table_time,
        indexes,
        dictionary_table,
        region_replication,
    })
}

/// The fields of a named struct (darling has checked that it is one: `supports(struct_named)`).
fn named_fields<F>(data: &darling::ast::Data<(), F>) -> Vec<&F> {
    data.as_ref()
        .take_struct()
        .expect("darling checks struct_named")
        .fields
}

/// Refuses generic parameters: the derives write impls for one concrete type.
fn not_generic(errors: &mut Accumulator, generics: &syn::Generics, derive: &str, item: &str) {
    if !generics.params.is_empty() {
        errors.push(
            darling::Error::custom(format!("{derive} cannot be derived for a generic {item}"))
                .with_span(generics),
        );
    }
}
