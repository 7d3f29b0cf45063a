//! Checks the parsed attributes and turns them into the model [`crate::expand`] writes out.
//! Every mistake is collected, so the user sees all of them in one build.

use darling::util::Override;
use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use syn::spanned::Spanned;

use crate::attr;

/// A validated entity.
pub struct Model {
    pub ident: syn::Ident,
    pub vis: syn::Visibility,
    pub krate: syn::Path,
    pub namespace: String,
    pub table: String,
    pub key_struct: syn::Ident,
    pub delimiter: Option<u8>,
    pub keys: Vec<KeyPart>,
    pub columns: Vec<Column>,
    /// Fields that are not stored.
    pub skipped: Vec<syn::Ident>,
    /// Every family, in first-use order.
    pub families: Vec<String>,
    pub salt: Option<Salt>,
    pub tag: Option<Tag>,
    /// Per family: the tokens of a `ColumnFamily` value with its declared options.
    pub family_options: Vec<(String, TokenStream)>,
    /// The `split_keys()` body, if declared.
    pub split: Option<TokenStream>,
    /// The key part that renders a table template.
    pub table_time: Option<usize>,
}

/// One row-key field.
pub struct KeyPart {
    pub ident: syn::Ident,
    pub ty: syn::Type,
    /// The `KeyCodec` type.
    pub codec: TokenStream,
    /// For a one-way (hashed) part: the index of the column that also stores the value.
    pub stored: Option<usize>,
}

/// Where the salt bucket comes from.
pub enum SaltSource {
    /// The hash of the first `n` key parts' bytes.
    Hash(usize),
    /// The value of key part `i` modulo the bucket count.
    Modulo(usize),
}

/// A salted row key: `[bucket][key]`.
pub struct Salt {
    pub buckets: u8,
    pub source: SaltSource,
}

impl Salt {
    /// Whether a prefix of the first `n` key parts determines the bucket.
    pub fn known_after(&self, n: usize) -> bool {
        match self.source {
            SaltSource::Hash(k) => n >= k,
            SaltSource::Modulo(i) => n > i,
        }
    }
}

/// A record-type tag byte, written before key part `before` (`keys.len()`: after the last).
pub struct Tag {
    pub tag: u8,
    pub before: usize,
}

/// How a column field reads a missing cell.
pub enum Missing {
    /// Error.
    Required,
    /// The field is `Option<T>`: `None`.
    Optional,
    /// `Default::default()` or the given function.
    Default(Option<syn::Path>),
}

/// One stored field.
pub struct Column {
    pub ident: syn::Ident,
    /// The stored type (`T` of an `Option<T>` field).
    pub ty: syn::Type,
    pub missing: Missing,
    pub family: String,
    pub qualifier: String,
    /// The `Codec` type.
    pub codec: TokenStream,
}

/// `T` if `ty` is `Option<T>`.
fn option_inner(ty: &syn::Type) -> Option<&syn::Type> {
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

/// `tokens` with every span set to `span`. The codecs the derive picks itself get the field
/// type's span, so that "`T` cannot be stored" and "`T` has no default row-key encoding" point at
/// the type rather than at the derive.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tt| {
            if let proc_macro2::TokenTree::Group(g) = &tt {
                let mut group = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                tt = proc_macro2::TokenTree::Group(group);
            } else {
                tt.set_span(span);
            }
            tt
        })
        .collect()
}

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

pub fn validate(e: &attr::Entity) -> darling::Result<Model> {
    let mut errors = darling::Error::accumulator();
    let krate = e
        .krate
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::hbase_orm));

    if !e.generics.params.is_empty() {
        errors.push(
            darling::Error::custom("HBaseEntity cannot be derived for a generic struct")
                .with_span(&e.generics),
        );
    }
    let table = match &e.table {
        Some(table) => {
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
        None => {
            errors.push(
                darling::Error::custom(
                    "no table name: add #[hbase(table = \"...\")] to the struct",
                )
                .with_span(&e.ident),
            );
            String::new()
        }
    };
    let namespace = match &e.namespace {
        Some(ns) => {
            if !name_ok(ns) {
                errors.push(
                    darling::Error::custom(
                        "namespace names use letters, digits, '_', '-' and '.' and may not be empty",
                    )
                    .with_span(&ns.span()),
                );
            }
            ns.to_string()
        }
        None => "default".to_string(),
    };
    let delimiter = e.key_delimiter.as_ref().and_then(|d| {
        if d.is_ascii() {
            Some(**d as u8)
        } else {
            errors.push(
                darling::Error::custom("the key delimiter must be one ASCII character")
                    .with_span(&d.span()),
            );
            None
        }
    });
    let check_family = |errors: &mut darling::error::Accumulator, f: &str, span: Span| {
        if f.is_empty() || f.contains(':') || !f.chars().all(|c| c.is_ascii_graphic()) {
            errors.push(
                darling::Error::custom(
                    "a column family name is printable ASCII without ':' and not empty",
                )
                .with_span(&span),
            );
        }
    };
    if let Some(f) = &e.family {
        check_family(&mut errors, f, f.span());
    }

    let fields = e
        .data
        .as_ref()
        .take_struct()
        .expect("darling checks struct_named")
        .fields;
    let mut keys = Vec::new();
    let mut columns: Vec<Column> = Vec::new();
    let mut skipped = Vec::new();
    let mut families: Vec<String> = Vec::new();
    // Whether any field is marked `key`, even one with a mistake (then "no row key" would be
    // a second, misleading error).
    let mut any_key = false;

    for field in fields {
        let Some(ident) = field.ident.clone() else {
            continue;
        };
        // One error per attribute that clashes with `what`, pointing at that attribute.
        let conflict = |errors: &mut darling::error::Accumulator,
                        what: &str,
                        with: &[(&str, Option<Span>)]| {
            let mut clashed = false;
            for (name, span) in with {
                if let Some(span) = span {
                    errors.push(
                        darling::Error::custom(format!(
                            "`{what}` cannot be combined with `{name}`"
                        ))
                        .with_span(span),
                    );
                    clashed = true;
                }
            }
            clashed
        };
        let stored_attrs = [
            ("family", field.family.as_ref().map(|f| f.span())),
            ("rename", field.rename.as_ref().map(|r| r.span())),
            ("default", field.default.as_ref().map(|d| d.span())),
            ("codec", field.codec.as_ref().map(|c| c.span())),
            ("json", field.json.is_present().then(|| field.json.span())),
        ];

        if field.key.is_some() {
            any_key = true;
        }
        if field.skip.is_present() {
            let mut with = stored_attrs.to_vec();
            with.push(("key", field.key.as_ref().map(|k| k.span())));
            conflict(&mut errors, "skip", &with);
            skipped.push(ident);
            continue;
        }

        if let Some(key) = &field.key {
            if conflict(&mut errors, "key", &stored_attrs) {
                continue;
            }
            if option_inner(&field.ty).is_some() {
                errors.push(
                    darling::Error::custom("a row-key part cannot be an Option")
                        .with_span(&field.ty),
                );
                continue;
            }
            let ty = &field.ty;
            let own = |codec: TokenStream| respan(codec, ty.span());
            let mut one_way = false;
            let codec = match &**key {
                Override::Inherit => own(quote!(<#ty as #krate::rowkey::KeyPart>::Codec)),
                Override::Explicit(opts) => {
                    let chosen: Vec<&str> = [
                        ("fixed", opts.fixed.is_some()),
                        ("codec", opts.codec.is_some()),
                        ("reverse_timestamp", opts.reverse_timestamp.is_present()),
                        ("reversed", opts.reversed.is_present()),
                        ("md5", opts.md5.is_some()),
                    ]
                    .iter()
                    .filter(|(_, set)| *set)
                    .map(|(n, _)| *n)
                    .collect();
                    if chosen.len() > 1 {
                        errors.push(
                            darling::Error::custom(format!(
                                "`key({})` exclude each other: pick one encoding",
                                chosen.join(")` and `key(")
                            ))
                            .with_span(&key.span()),
                        );
                        continue;
                    }
                    if let Some(n) = &opts.fixed {
                        if **n == 0 {
                            errors.push(
                                darling::Error::custom("a fixed width must be at least 1 byte")
                                    .with_span(&n.span()),
                            );
                        }
                        let n = **n;
                        own(quote!(#krate::rowkey::FixedText<#n>))
                    } else if let Some(c) = &opts.codec {
                        c.to_token_stream()
                    } else if opts.reverse_timestamp.is_present() {
                        own(quote!(#krate::rowkey::ReverseTimestamp))
                    } else if opts.reversed.is_present() {
                        own(quote!(#krate::rowkey::ReversedText))
                    } else if let Some(md5) = &opts.md5 {
                        let n = match &**md5 {
                            Override::Inherit => 16,
                            Override::Explicit(n) => *n,
                        };
                        if !(1..=16).contains(&n) {
                            errors.push(
                                darling::Error::custom(
                                    "`md5 = N` keeps 1 to 16 bytes of the digest",
                                )
                                .with_span(&md5.span()),
                            );
                        }
                        one_way = true;
                        own(quote!(#krate::rowkey::Md5<#n>))
                    } else {
                        own(quote!(<#ty as #krate::rowkey::KeyPart>::Codec))
                    }
                }
            };
            // A one-way (hashed) part also stores its value in a column, to be read back.
            let stored = if one_way {
                let Some(family) = &e.family else {
                    errors.push(
                        darling::Error::custom(
                            "an md5 key part stores its value in a column of the struct's family: \
                             set #[hbase(family = \"...\")] on the struct",
                        )
                        .with_span(&ident),
                    );
                    continue;
                };
                let family = family.to_string();
                let qualifier = ident.to_string();
                if let Some(other) = columns
                    .iter()
                    .find(|c| c.family == family && c.qualifier == qualifier)
                {
                    errors.push(
                        darling::Error::custom(format!(
                            "an md5 key part stores its value in column {family}:{qualifier}, \
                             which field `{}` already uses",
                            other.ident
                        ))
                        .with_span(&ident),
                    );
                    continue;
                }
                if !families.contains(&family) {
                    families.push(family.clone());
                }
                columns.push(Column {
                    ident: ident.clone(),
                    ty: field.ty.clone(),
                    missing: Missing::Required,
                    family,
                    qualifier: ident.to_string(),
                    codec: respan(quote!(#krate::Native), ty.span()),
                });
                Some(columns.len() - 1)
            } else {
                None
            };
            keys.push(KeyPart {
                ident,
                ty: field.ty.clone(),
                codec,
                stored,
            });
            continue;
        }

        // A stored column.
        if let (true, Some(codec)) = (field.json.is_present(), &field.codec) {
            errors.push(
                darling::Error::custom("`json` and `codec` exclude each other").with_span(codec),
            );
        }
        let family = match (&field.family, &e.family) {
            (Some(f), _) => {
                check_family(&mut errors, f, f.span());
                f.to_string()
            }
            (None, Some(f)) => f.to_string(),
            (None, None) => {
                errors.push(
                    darling::Error::custom(format!(
                        "field `{ident}` has no column family: set #[hbase(family = \"...\")] on \
                         the field or on the struct"
                    ))
                    .with_span(&ident),
                );
                continue;
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
            continue;
        }
        let (ty, missing) = match (option_inner(&field.ty), &field.default) {
            (Some(_), Some(d)) => {
                errors.push(
                    darling::Error::custom(
                        "an Option field reads a missing cell as None already; remove `default`",
                    )
                    .with_span(&d.span()),
                );
                continue;
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
        let codec = if field.json.is_present() {
            respan(quote!(#krate::Json), ty.span())
        } else if let Some(c) = &field.codec {
            c.to_token_stream()
        } else {
            respan(quote!(#krate::Native), ty.span())
        };
        if !families.contains(&family) {
            families.push(family.clone());
        }
        columns.push(Column {
            ident,
            ty,
            missing,
            family,
            qualifier,
            codec,
        });
    }

    if !any_key {
        errors.push(
            darling::Error::custom(
                "no row key: mark the fields that make up the row key with #[hbase(key)]",
            )
            .with_span(&e.ident),
        );
    }
    if let Some(f) = &e.family {
        if families.is_empty() {
            families.push(f.to_string());
        }
    }
    if families.is_empty() && e.family_options.0.is_empty() && any_key && columns.is_empty() {
        errors.push(
            darling::Error::custom(
                "an entity with only key fields still writes one (empty) cell: set \
                 #[hbase(family = \"...\")] on the struct",
            )
            .with_span(&e.ident),
        );
    }

    let part_index = |name: &str| keys.iter().position(|k| k.ident == name.trim());
    let salt = e.salt.as_ref().and_then(|salt| {
        if *salt.buckets == 0 {
            errors.push(
                darling::Error::custom("salt needs 1 to 255 buckets")
                    .with_span(&salt.buckets.span()),
            );
            return None;
        }
        let source = match (&salt.hash, &salt.modulo) {
            (Some(_), Some(m)) => {
                errors.push(
                    darling::Error::custom("`salt(hash)` and `salt(modulo)` exclude each other")
                        .with_span(&m.span()),
                );
                return None;
            }
            (None, Some(m)) => match part_index(m) {
                Some(i) => SaltSource::Modulo(i),
                None => {
                    errors.push(
                        darling::Error::custom(format!("`{}` is not a key part", m.as_str()))
                            .with_span(&m.span()),
                    );
                    return None;
                }
            },
            (Some(h), None) => {
                let names: Vec<&str> = h.split(',').map(str::trim).collect();
                let leading = names
                    .iter()
                    .enumerate()
                    .all(|(i, n)| keys.get(i).is_some_and(|k| k.ident == n));
                if !leading || names.is_empty() {
                    errors.push(
                        darling::Error::custom(format!(
                            "`salt(hash = ...)` takes the leading key parts in order, e.g. \"{}\"",
                            keys.first()
                                .map(|k| k.ident.to_string())
                                .unwrap_or_default()
                        ))
                        .with_span(&h.span()),
                    );
                    return None;
                }
                SaltSource::Hash(names.len())
            }
            (None, None) => SaltSource::Hash(keys.len()),
        };
        Some(Salt {
            buckets: *salt.buckets,
            source,
        })
    });
    let tag = e.record_type.as_ref().and_then(|rt| {
        let before = match &rt.after {
            None => 0,
            Some(after) => match part_index(after) {
                Some(i) => i + 1,
                None => {
                    errors.push(
                        darling::Error::custom(format!("`{}` is not a key part", after.as_str()))
                            .with_span(&after.span()),
                    );
                    return None;
                }
            },
        };
        Some(Tag {
            tag: *rt.tag,
            before,
        })
    });

    // Column family options.
    let mut family_options = Vec::new();
    for (ident, fo) in &e.family_options.0 {
        let name = ident.to_string();
        // A family no field uses is still part of the table (record types share families).
        check_family(&mut errors, &name, ident.span());
        if !families.contains(&name) {
            families.push(name.clone());
        }
        if family_options.iter().any(|(n, _)| *n == name) {
            errors.push(
                darling::Error::custom(format!("family {name:?} has options declared twice"))
                    .with_span(ident),
            );
            continue;
        }
        let choice = |errors: &mut darling::error::Accumulator,
                      v: &Option<darling::util::SpannedValue<String>>,
                      what: &str,
                      ty: TokenStream,
                      allowed: &[(&str, &str)]| {
            let v = v.as_ref()?;
            let wanted = v.to_ascii_uppercase();
            match allowed.iter().find(|(text, _)| *text == wanted) {
                Some((_, variant)) => {
                    let variant = syn::Ident::new(variant, Span::call_site());
                    Some(quote!(#ty::#variant))
                }
                None => {
                    errors.push(
                        darling::Error::custom(format!(
                            "unknown {what} {:?}; expected one of {}",
                            v.as_str(),
                            allowed
                                .iter()
                                .map(|(t, _)| *t)
                                .collect::<Vec<_>>()
                                .join(", ")
                        ))
                        .with_span(&v.span()),
                    );
                    None
                }
            }
        };
        let opt = |t: Option<TokenStream>| match t {
            Some(t) => quote!(::core::option::Option::Some(#t)),
            None => quote!(::core::option::Option::None),
        };
        let compression = choice(
            &mut errors,
            &fo.compression,
            "compression",
            quote!(#krate::Compression),
            &[
                ("NONE", "None"),
                ("GZ", "Gz"),
                ("SNAPPY", "Snappy"),
                ("LZ4", "Lz4"),
                ("ZSTD", "Zstd"),
                ("LZO", "Lzo"),
                ("BZIP2", "Bzip2"),
            ],
        );
        let bloom = choice(
            &mut errors,
            &fo.bloom_filter,
            "bloom filter",
            quote!(#krate::BloomFilter),
            &[
                ("NONE", "None"),
                ("ROW", "Row"),
                ("ROWCOL", "RowCol"),
                ("ROWPREFIX_FIXED_LENGTH", "RowPrefixFixedLength"),
            ],
        );
        let encoding = choice(
            &mut errors,
            &fo.data_block_encoding,
            "data block encoding",
            quote!(#krate::DataBlockEncoding),
            &[
                ("NONE", "None"),
                ("PREFIX", "Prefix"),
                ("DIFF", "Diff"),
                ("FAST_DIFF", "FastDiff"),
                ("ROW_INDEX_V1", "RowIndexV1"),
            ],
        );
        let keep = choice(
            &mut errors,
            &fo.keep_deleted_cells,
            "keep_deleted_cells",
            quote!(#krate::KeepDeletedCells),
            &[("FALSE", "False"), ("TRUE", "True"), ("TTL", "Ttl")],
        );
        let num = |v: Option<i32>| opt(v.map(|v| quote!(#v)));
        let flag = |v: Option<bool>| opt(v.map(|v| quote!(#v)));
        let (max_v, min_v, ttl, block) = (
            num(fo.max_versions),
            num(fo.min_versions),
            num(fo.ttl),
            num(fo.block_size),
        );
        let (cache, in_memory) = (flag(fo.block_cache), flag(fo.in_memory));
        let (compression, bloom, encoding, keep) =
            (opt(compression), opt(bloom), opt(encoding), opt(keep));
        family_options.push((
            name.clone(),
            quote! {
                #krate::ColumnFamily {
                    name: ::std::string::String::from(#name),
                    max_versions: #max_v,
                    min_versions: #min_v,
                    time_to_live: #ttl,
                    compression: #compression,
                    bloom_filter: #bloom,
                    block_size: #block,
                    block_cache: #cache,
                    in_memory: #in_memory,
                    data_block_encoding: #encoding,
                    keep_deleted_cells: #keep,
                }
            },
        ));
    }

    // Pre-split regions.
    let split = e.split.as_ref().and_then(|sp| {
        let chosen = usize::from(sp.salt.is_present())
            + usize::from(!sp.keys.is_empty())
            + usize::from(sp.uniform.is_some());
        if chosen != 1 {
            errors.push(
                darling::Error::custom(
                    "split takes one of `salt`, `key = \"...\"` (repeatable) or `uniform = N`",
                )
                .with_span(&sp.span()),
            );
            return None;
        }
        if sp.salt.is_present() {
            match &salt {
                Some(s) => {
                    let b = s.buckets;
                    Some(quote!(#krate::rowkey::salt_split_keys(#b)))
                }
                None => {
                    errors.push(
                        darling::Error::custom("split(salt) needs #[hbase(salt(buckets = N))]")
                            .with_span(&sp.span()),
                    );
                    None
                }
            }
        } else if let Some(n) = sp.uniform {
            Some(quote!(#krate::rowkey::uniform_split_keys(#n)))
        } else {
            let keys = sp.keys.iter().map(|k| quote!(#k.as_bytes().to_vec()));
            Some(quote!(::std::vec![#(#keys),*]))
        }
    });

    // A table template needs the key part that fills it.
    let templated = e.table.as_ref().is_some_and(|t| t.contains('{'));
    let table_time = match (&e.table_time, templated) {
        (Some(tt), true) => match part_index(tt) {
            Some(i) => Some(i),
            None => {
                errors.push(
                    darling::Error::custom(format!("`{}` is not a key part", tt.as_str()))
                        .with_span(&tt.span()),
                );
                None
            }
        },
        (None, true) => {
            errors.push(
                darling::Error::custom(
                    "a table template such as \"tx_{yyyyMMdd}\" needs table_time = \"<key part \
                     holding milliseconds since the epoch>\"",
                )
                .with_span(&e.ident),
            );
            None
        }
        (Some(tt), false) => {
            errors.push(
                darling::Error::custom(
                    "table_time is only used with a table template like \"tx_{yyyyMMdd}\"",
                )
                .with_span(&tt.span()),
            );
            None
        }
        (None, false) => None,
    };

    errors.finish()?;
    Ok(Model {
        salt,
        tag,
        family_options,
        split,
        table_time,
        key_struct: e
            .key_struct
            .clone()
            .unwrap_or_else(|| syn::Ident::new(&format!("{}Key", e.ident), e.ident.span())),
        ident: e.ident.clone(),
        vis: e.vis.clone(),
        krate,
        namespace,
        table,
        delimiter,
        keys,
        columns,
        skipped,
        families,
    })
}
