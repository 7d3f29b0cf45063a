//! The names `#[hbase(...)]` knows at each level, and the check that reports any other name
//! where it stands, with the nearest known name as a hint. Unknown names are taken out of the
//! input before darling reads it, so every other mistake is still reported in the same build.

use darling::ast::NestedMeta;
use quote::quote;
use syn::punctuated::Punctuated;

/// The names known inside one attribute list.
pub struct Level {
    /// How the list is named in messages: `#[hbase(...)]`, `` `key(...)` ``.
    pub within: &'static str,
    pub names: &'static [&'static str],
    /// Names whose value is itself a list checked at another level.
    pub nested: &'static [(&'static str, &'static Level)],
}

const KEY: Level = Level {
    within: "`key(...)`",
    names: &[
        "fixed",
        "codec",
        "reverse_timestamp",
        "reversed",
        "md5",
        "dictionary",
    ],
    nested: &[],
};
const SALT: Level = Level {
    within: "`salt(...)`",
    names: &["buckets", "hash", "modulo"],
    nested: &[],
};
const RECORD_TYPE: Level = Level {
    within: "`record_type(...)`",
    names: &["tag", "after"],
    nested: &[],
};
const INDEX: Level = Level {
    within: "`index(...)`",
    names: &["name", "parts", "table"],
    nested: &[],
};
const SPLIT: Level = Level {
    within: "`split(...)`",
    names: &["salt", "key", "uniform"],
    nested: &[],
};

/// `#[hbase(...)]` on an entity struct.
pub const ENTITY: Level = Level {
    within: "#[hbase(...)]",
    names: &[
        "table",
        "namespace",
        "family",
        "key_delimiter",
        "key_separator",
        "key_struct",
        "salt",
        "record_type",
        "family_options",
        "extra_families",
        "split",
        "table_time",
        "dictionary_table",
        "index",
        "crate",
    ],
    nested: &[
        ("index", &INDEX),
        ("salt", &SALT),
        ("record_type", &RECORD_TYPE),
        ("split", &SPLIT),
    ],
};

/// `#[hbase(...)]` on an entity's field.
pub const FIELD: Level = Level {
    within: "#[hbase(...)]",
    names: &[
        "key",
        "family",
        "rename",
        "skip",
        "default",
        "codec",
        "json",
        "versions",
        "wide",
        "key_codec",
        "counter",
        "version",
        "flatten",
        "prefix",
        "children",
    ],
    nested: &[("key", &KEY)],
};

/// `#[hbase(...)]` on a field of an `HBaseColumns` group.
pub const GROUP_FIELD: Level = Level {
    within: "#[hbase(...)] of a column group",
    names: &[
        "rename", "default", "skip", "json", "codec", "flatten", "prefix",
    ],
    nested: &[],
};

/// `#[hbase(...)]` on an `HBaseRecord` enum or an `HBaseColumns` struct.
pub const RECORD: Level = Level {
    within: "#[hbase(...)]",
    names: &["crate"],
    nested: &[],
};

/// Removes the unknown names from every `#[hbase(...)]` of the item (`item_level`) and of its
/// named fields (`field_level`), returning one error per removed name.
pub fn strip_unknown(
    input: &mut syn::DeriveInput,
    item_level: &Level,
    field_level: &Level,
) -> Vec<darling::Error> {
    let mut errors = Vec::new();
    strip_attrs(&mut input.attrs, item_level, &mut errors);
    if let syn::Data::Struct(s) = &mut input.data {
        for field in s.fields.iter_mut() {
            strip_attrs(&mut field.attrs, field_level, &mut errors);
        }
    }
    errors
}

fn strip_attrs(attrs: &mut [syn::Attribute], level: &Level, errors: &mut Vec<darling::Error>) {
    for attr in attrs.iter_mut().filter(|a| a.path().is_ident("hbase")) {
        if let syn::Meta::List(list) = &mut attr.meta {
            // What does not parse is left to darling, which reports it.
            if let Some(tokens) = strip_list(&list.tokens, level, errors) {
                list.tokens = tokens;
            }
        }
    }
}

/// The list's items without unknown names; `None` if the list is not `meta, meta, ...`.
fn strip_list(
    tokens: &proc_macro2::TokenStream,
    level: &Level,
    errors: &mut Vec<darling::Error>,
) -> Option<proc_macro2::TokenStream> {
    let items = NestedMeta::parse_meta_list(tokens.clone()).ok()?;
    let mut kept: Punctuated<NestedMeta, syn::Token![,]> = Punctuated::new();
    for mut item in items {
        if let NestedMeta::Meta(meta) = &mut item {
            let Some(name) = meta.path().get_ident().map(|i| i.to_string()) else {
                kept.push(item);
                continue;
            };
            if !level.names.contains(&name.as_str()) {
                errors.push(unknown(&name, meta.path(), level));
                continue;
            }
            let nested = level.nested.iter().find(|(n, _)| *n == name);
            if let (Some((_, inner)), syn::Meta::List(list)) = (nested, &mut *meta) {
                if let Some(tokens) = strip_list(&list.tokens, inner, errors) {
                    list.tokens = tokens;
                }
            }
        }
        kept.push(item);
    }
    Some(quote!(#kept))
}

fn unknown(name: &str, at: &syn::Path, level: &Level) -> darling::Error {
    let what = if level.within.starts_with('#') {
        "attribute"
    } else {
        "option"
    };
    let mut text = format!("unknown {what} `{name}` in {}", level.within);
    if let Some(near) = nearest(name, level.names) {
        text.push_str(&format!("; did you mean `{near}`?"));
    }
    text.push_str(&format!(
        " (known: {})",
        level
            .names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    darling::Error::custom(text).with_span(at)
}

/// The known name closest to `name`, if it is close enough to be a likely typo.
pub(crate) fn nearest<'a>(name: &str, names: &[&'a str]) -> Option<&'a str> {
    names
        .iter()
        .map(|n| (edit_distance(name, n), *n))
        .filter(|(d, n)| *d <= 2.max(n.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n)
}

/// Levenshtein distance (characters inserted, removed or replaced).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let here = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb))
                .min(row[j] + 1)
                .min(here + 1);
            prev = here;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_find_their_name_and_strangers_find_none() {
        assert_eq!(nearest("fixd", KEY.names), Some("fixed"));
        assert_eq!(nearest("tabel", ENTITY.names), Some("table"));
        assert_eq!(nearest("qualifier", FIELD.names), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
