//! Checks of names: table (and table templates), namespace, families, the key delimiter.

use darling::error::Accumulator;
use darling::util::SpannedValue;
use proc_macro2::Span;

/// A table template with its placeholders replaced by a letter, to check the rest.
fn without_placeholders(s: &str) -> String {
    [
        "{yyyyMMddHH}",
        "{yyyyMMdd}",
        "{yyyyMM}",
        "{yyyy}",
        "{MM}",
        "{dd}",
        "{HH}",
    ]
    .iter()
    .fold(s.to_string(), |acc, p| acc.replace(p, "x"))
}

fn name_ok(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b))
}

/// The table name (or template); reported missing at the struct's name.
pub fn table(
    errors: &mut Accumulator,
    table: &Option<SpannedValue<String>>,
    ident: &syn::Ident,
) -> String {
    let Some(table) = table else {
        errors.push(
            darling::Error::custom("no table name: add #[hbase(table = \"...\")] to the struct")
                .with_span(ident),
        );
        return String::new();
    };
    if !name_ok(&without_placeholders(table)) {
        errors.push(
            darling::Error::custom(
                "table names use letters, digits, '_', '-' and '.' and may not be empty \
                 (a template may add {yyyyMMdd}, {yyyyMM}, {yyyy}, {MM}, {dd}, {HH})",
            )
            .with_span(&table.span()),
        );
    }
    table.to_string()
}

/// Reports a table name (no template) HBase would refuse.
pub fn plain_table(errors: &mut Accumulator, table: &SpannedValue<String>) {
    if !name_ok(table) {
        errors.push(
            darling::Error::custom(
                "table names use letters, digits, '_', '-' and '.' and may not be empty",
            )
            .with_span(&table.span()),
        );
    }
}

/// The namespace, `default` when absent.
pub fn namespace(errors: &mut Accumulator, ns: &Option<SpannedValue<String>>) -> String {
    let Some(ns) = ns else {
        return "default".to_string();
    };
    if ns.is_empty() || !ns.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        errors.push(
            darling::Error::custom(
                "namespace names use letters, digits and '_' and may not be empty",
            )
            .with_span(&ns.span()),
        );
    }
    ns.to_string()
}

/// The key delimiter as a byte.
pub fn delimiter(errors: &mut Accumulator, d: &Option<SpannedValue<char>>) -> Option<u8> {
    let d = d.as_ref()?;
    if d.is_ascii() {
        Some(**d as u8)
    } else {
        errors.push(
            darling::Error::custom("the key delimiter must be one ASCII character")
                .with_span(&d.span()),
        );
        None
    }
}

/// The key's join byte: `key_delimiter` (after variable-length parts) or `key_separator`
/// (between every two parts), and whether it separates every part.
pub fn key_join(errors: &mut Accumulator, e: &crate::attr::Entity) -> (Option<u8>, bool) {
    match (&e.key_delimiter, &e.key_separator) {
        (Some(_), Some(s)) => {
            errors.push(
                darling::Error::custom(
                    "`key_delimiter` and `key_separator` exclude each other: a separator is \
                     written between every two parts, a delimiter only after variable-length ones",
                )
                .with_span(&s.span()),
            );
            (None, false)
        }
        (None, Some(s)) => (delimiter(errors, &Some(*s)), true),
        (d, None) => (delimiter(errors, d), false),
    }
}

/// Whether HBase takes `f` as a family name: printable ASCII without ':', not empty.
pub fn family_ok(f: &str) -> bool {
    !f.is_empty() && !f.contains(':') && f.chars().all(|c| c.is_ascii_graphic())
}

/// Reports a family name HBase would refuse.
pub fn family(errors: &mut Accumulator, f: &str, span: Span) {
    if !family_ok(f) {
        errors.push(
            darling::Error::custom(
                "a column family name is printable ASCII without ':' and not empty",
            )
            .with_span(&span),
        );
    }
}
