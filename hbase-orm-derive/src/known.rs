//! The names `#[hbase(...)]` knows at each level, and the check that reports any other name
//! where it stands, with the nearest known name as a hint (or, for a name that was renamed,
//! its new name). Unknown names are taken out of the input before darling reads it, so every
//! other mistake is still reported in the same build.

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
    /// Names whose value is a list of `any_name(...)` items, the list of each checked at
    /// another level: `family_options(d(...), audit(...))`.
    pub per_item: &'static [(&'static str, &'static Level)],
    /// Names an earlier release knew, with the name that replaced them.
    pub renamed: &'static [(&'static str, &'static str)],
}

/// A level's other fields when it has no nested lists and no renamed names.
const PLAIN: Level = Level {
    within: "",
    names: &[],
    nested: &[],
    per_item: &[],
    renamed: &[],
};

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
    ..PLAIN
};
const SALT: Level = Level {
    within: "`salt(...)`",
    names: &["buckets", "hash", "modulo"],
    ..PLAIN
};
const RECORD_TYPE: Level = Level {
    within: "`record_type(...)`",
    names: &["tag", "after"],
    ..PLAIN
};
const INDEX: Level = Level {
    within: "`index(...)`",
    names: &["name", "parts", "table"],
    ..PLAIN
};
const SPLIT: Level = Level {
    within: "`split(...)`",
    names: &["salt", "key", "uniform"],
    ..PLAIN
};

/// The options of one family, `d(...)` in `family_options(d(...))`: the names of the library's
/// `ColumnFamily` builder methods. The generated code calls the builder with each value, so
/// the builder stays the judge of values; `builder_and_derive_know_the_same_family_options`
/// fails when this list and the builder's (`for_each_family_option!`) disagree.
const FAMILY_OPTION: Level = Level {
    within: "`family_options(...)`",
    names: &[
        "max_versions",
        "min_versions",
        "ttl",
        "compression",
        "bloom_filter",
        "block_size",
        "block_cache",
        "in_memory",
        "data_block_encoding",
        "keep_deleted_cells",
    ],
    renamed: &[("time_to_live", "ttl")],
    ..PLAIN
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
        "region_replication",
        "index",
        "crate",
    ],
    nested: &[
        ("index", &INDEX),
        ("salt", &SALT),
        ("record_type", &RECORD_TYPE),
        ("split", &SPLIT),
    ],
    per_item: &[("family_options", &FAMILY_OPTION)],
    renamed: &[],
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
    ..PLAIN
};

/// `#[hbase(...)]` on a field of an `HBaseColumns` group.
pub const GROUP_FIELD: Level = Level {
    within: "#[hbase(...)] of a column group",
    names: &[
        "rename", "default", "skip", "json", "codec", "flatten", "prefix",
    ],
    ..PLAIN
};

/// `#[hbase(...)]` on an `HBaseRecord` enum or an `HBaseColumns` struct.
pub const RECORD: Level = Level {
    within: "#[hbase(...)]",
    names: &["crate"],
    ..PLAIN
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
            if let Some(tokens) = strip_list(&list.tokens, level, level.within, errors) {
                list.tokens = tokens;
            }
        }
    }
}

/// The list's items without unknown names; `None` if the list is not `meta, meta, ...`.
/// `within` names the list in messages.
fn strip_list(
    tokens: &proc_macro2::TokenStream,
    level: &Level,
    within: &str,
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
                errors.push(unknown(&name, meta, level, within));
                continue;
            }
            if let syn::Meta::List(list) = &mut *meta {
                let stripped = if let Some((_, inner)) = find(level.nested, &name) {
                    strip_list(&list.tokens, inner, inner.within, errors)
                } else if let Some((_, inner)) = find(level.per_item, &name) {
                    strip_items(&list.tokens, &name, inner, errors)
                } else {
                    None
                };
                if let Some(tokens) = stripped {
                    list.tokens = tokens;
                }
            }
        }
        kept.push(item);
    }
    Some(quote!(#kept))
}

/// The list of `outer(a(...), b(...))` with the unknown names taken out of each item's own
/// list, checked at `level`; other items are left to darling. `None` if the list is not
/// `meta, meta, ...`.
fn strip_items(
    tokens: &proc_macro2::TokenStream,
    outer: &str,
    level: &Level,
    errors: &mut Vec<darling::Error>,
) -> Option<proc_macro2::TokenStream> {
    let mut items: Punctuated<NestedMeta, syn::Token![,]> =
        NestedMeta::parse_meta_list(tokens.clone())
            .ok()?
            .into_iter()
            .collect();
    for item in items.iter_mut() {
        if let NestedMeta::Meta(syn::Meta::List(list)) = item {
            let Some(name) = list.path.get_ident().map(|i| i.to_string()) else {
                continue;
            };
            let within = format!("`{outer}({name}(...))`");
            if let Some(tokens) = strip_list(&list.tokens, level, &within, errors) {
                list.tokens = tokens;
            }
        }
    }
    Some(quote!(#items))
}

fn find<'a>(
    entries: &'a [(&'static str, &'static Level)],
    name: &str,
) -> Option<&'a (&'static str, &'static Level)> {
    entries.iter().find(|(n, _)| *n == name)
}

/// The error for `name`, unknown in `level`: its new name if it was renamed (with the value,
/// rewritten), else the nearest known name if it is likely a typo, and the known names.
fn unknown(name: &str, meta: &syn::Meta, level: &Level, within: &str) -> darling::Error {
    if let Some((_, new)) = level.renamed.iter().find(|(old, _)| *old == name) {
        let mut text = format!("`{name}` was renamed to `{new}`");
        if let syn::Meta::NameValue(nv) = meta {
            let value = &nv.value;
            text.push_str(&format!(": `{new} = {}`", quote!(#value)));
        }
        return darling::Error::custom(text).with_span(meta.path());
    }
    let what = if within.starts_with('#') {
        "attribute"
    } else {
        "option"
    };
    let mut text = format!(
        "unknown {what} `{name}` in {within}{}",
        did_you_mean(name, level.names)
    );
    text.push_str(&format!(
        " (known: {})",
        level
            .names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    darling::Error::custom(text).with_span(meta.path())
}

/// ``; did you mean `x`?`` with the name of `names` nearest `name`, or nothing if none is
/// close enough to be a likely typo.
pub(crate) fn did_you_mean(name: &str, names: &[&str]) -> String {
    nearest(name, names)
        .map(|near| format!("; did you mean `{near}`?"))
        .unwrap_or_default()
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
    use quote::ToTokens;

    #[test]
    fn typos_find_their_name_and_strangers_find_none() {
        assert_eq!(nearest("fixd", KEY.names), Some("fixed"));
        assert_eq!(nearest("tabel", ENTITY.names), Some("table"));
        assert_eq!(nearest("qualifier", FIELD.names), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    /// The family options known here are the library's `ColumnFamily` builder methods, read
    /// from `for_each_family_option!` in its `model/family.rs` (one line per option,
    /// `builder: field: Type => wire;`), and a renamed option's old name is none of them.
    #[test]
    fn builder_and_derive_know_the_same_family_options() {
        let library = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../hbase-orm");
        if !library.join("Cargo.toml").exists() {
            // The derive on its own (as published): no builder beside it to compare with.
            return;
        }
        let source = std::fs::read_to_string(library.join("src/model/family.rs"))
            .expect("the library's src/model/family.rs");
        let start = source
            .find("macro_rules! for_each_family_option")
            .expect("for_each_family_option! in the library's src/model/family.rs");
        let body = &source[start..];
        let body = &body[..body
            .find("\n}\n")
            .expect("the end of for_each_family_option!")];
        let mut builder: Vec<&str> = body
            .lines()
            .map(str::trim)
            .filter(|l| !l.starts_with("//") && l.contains("=>") && l.ends_with(';'))
            .filter_map(|l| l.split_once(':').map(|(name, _)| name.trim()))
            .collect();
        assert!(builder.len() >= 10, "options read: {builder:?}");
        let mut derive = FAMILY_OPTION.names.to_vec();
        builder.sort_unstable();
        derive.sort_unstable();
        assert_eq!(
            derive, builder,
            "known.rs's FAMILY_OPTION names and the ColumnFamily builder's options differ"
        );
        for (old, new) in FAMILY_OPTION.renamed {
            assert!(
                !builder.contains(old) && builder.contains(new),
                "{old} -> {new}"
            );
        }
    }

    #[test]
    fn a_renamed_option_is_named_with_its_value() {
        let mut input: syn::DeriveInput = syn::parse_quote! {
            #[hbase(table = "t", family_options(d(ttl = 5, time_to_live = 60, max_version = 2)))]
            struct S { id: u64 }
        };
        let errors: Vec<String> = strip_unknown(&mut input, &ENTITY, &FIELD)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert_eq!(errors[0], "`time_to_live` was renamed to `ttl`: `ttl = 60`");
        assert!(errors[1].starts_with(
            "unknown option `max_version` in `family_options(d(...))`; did you mean `max_versions`?"
        ));
        let kept = input.attrs[0].meta.to_token_stream().to_string();
        assert!(
            kept.contains("ttl = 5") && !kept.contains("time_to_live"),
            "{kept}"
        );
    }
}
