//! Writes the `HBaseEntity` impl and the key type of a validated entity.

use darling::FromDeriveInput;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::attr;
use crate::valid::{self, Missing, Model, SaltSource};

/// Parses, validates and expands; on errors, the errors plus a stub impl.
pub fn derive(input: &syn::DeriveInput) -> TokenStream {
    let result = attr::Entity::from_derive_input(input).and_then(|e| valid::validate(&e));
    match result {
        Ok(model) => expand(&model),
        Err(errors) => {
            let mut out = reword(errors, input).write_errors();
            out.extend(stub(input));
            out
        }
    }
}

/// darling's wording speaks of "fields" and "shapes"; say "attribute" and point an unsupported
/// item at its name rather than at the derive.
fn reword(errors: darling::Error, input: &syn::DeriveInput) -> darling::Error {
    darling::Error::multiple(
        errors
            .flatten()
            .into_iter()
            .map(|e| {
                let message = e.to_string();
                if let Some(rest) = message.strip_prefix("Unknown field: ") {
                    // "`name`[. Did you mean `other`?][ at field[/key]]": the location is the
                    // field, then the nested attribute (`key(...)`) if any.
                    let (rest, within) = match rest.rsplit_once(" at ") {
                        Some((rest, at)) => (rest, at.split('/').nth(1)),
                        None => (rest, None),
                    };
                    let (name, hint) = rest.split_once(". ").unwrap_or((rest, ""));
                    let mut text = match within {
                        Some(within) => format!("unknown option {name} in `{within}(...)`"),
                        None => format!("unknown attribute {name} in #[hbase(...)]"),
                    };
                    if !hint.is_empty() {
                        text = format!("{text}. {hint}");
                    }
                    darling::Error::custom(text).with_span(&e.span())
                } else if message.starts_with("Unsupported shape") {
                    let what = match &input.data {
                        syn::Data::Enum(_) => "an enum",
                        syn::Data::Union(_) => "a union",
                        syn::Data::Struct(s) if matches!(s.fields, syn::Fields::Unit) => {
                            "a unit struct"
                        }
                        syn::Data::Struct(_) => "a tuple struct",
                    };
                    darling::Error::custom(format!(
                        "HBaseEntity can only be derived for a struct with named fields, not {what}"
                    ))
                    .with_span(&input.ident)
                } else {
                    e
                }
            })
            .collect(),
    )
}

/// An impl that keeps the rest of the user's code from failing with "HBaseEntity is not
/// implemented" after an attribute mistake. It is never run: the crate does not compile.
fn stub(input: &syn::DeriveInput) -> TokenStream {
    if !input.generics.params.is_empty() {
        return TokenStream::new();
    }
    let ident = &input.ident;
    let krate = quote!(::hbase_orm);
    quote! {
        impl #krate::HBaseEntity for #ident {
            type Key = #krate::entity::NoKey;
            const NAMESPACE: &'static str = "";
            const TABLE: &'static str = "";
            const FAMILIES: &'static [&'static str] = &[];
            const COLUMNS: &'static [#krate::entity::ColumnDef] = &[];
            fn column_index(_: &[u8], _: &[u8]) -> ::core::option::Option<usize> {
                ::core::unreachable!()
            }
            fn key(&self) -> Self::Key {
                ::core::unreachable!()
            }
            fn write_row_key(&self, _: &mut ::std::vec::Vec<u8>)
                -> ::core::result::Result<(), #krate::rowkey::KeyError> {
                ::core::unreachable!()
            }
            fn write_cells(&self, _: &mut #krate::entity::CellWriter<'_, Self>) -> #krate::Result<()> {
                ::core::unreachable!()
            }
            fn read_cells(_: &[u8], _: &mut #krate::entity::CellReader<'_, Self>) -> #krate::Result<Self> {
                ::core::unreachable!()
            }
        }
    }
}

fn expand(m: &Model) -> TokenStream {
    let Model {
        ident,
        vis,
        krate,
        namespace,
        table,
        key_struct,
        delimiter,
        keys,
        columns,
        skipped,
        families,
        salt,
        tag,
        family_options,
        split,
        table_time,
    } = m;
    let delim = match delimiter {
        Some(d) => quote!(::core::option::Option::Some(#d)),
        None => quote!(::core::option::Option::None),
    };
    let n_keys = keys.len();
    // Where the record-type tag goes: before key part `tag_before` (n_keys: after the last).
    let tag_before = tag.as_ref().map(|t| t.before);
    let tag_byte = tag.as_ref().map(|t| t.tag);
    // A part is last in the key bytes if nothing, not even the tag, follows it.
    let is_last = |i: usize| i + 1 == n_keys && tag_before != Some(n_keys);

    // The statements that write the first `n` parts into `out`, with the salt byte in front
    // when the first `n` parts determine it, and the tag where it belongs (a prefix does not
    // end with the tag: a prefix scan over a customer then finds all its record types).
    let write_body = |n: usize| {
        let full = n == n_keys;
        let salted = salt.as_ref().filter(|s| s.known_after(n));
        let mut stmts = Vec::new();
        let mut mark = quote!();
        for (i, k) in keys.iter().enumerate().take(n) {
            if tag_before == Some(i) {
                stmts.push(quote!(w.byte(#tag_byte);));
            }
            let (id, ty, codec) = (&k.ident, &k.ty, &k.codec);
            let name = id.to_string();
            let last = full && is_last(i);
            stmts.push(quote_spanned! {ty.span()=> w.part::<#ty, #codec>(#name, #id, #last)?; });
            if let Some(s) = salted {
                if matches!(s.source, SaltSource::Hash(k) if k == i + 1) {
                    stmts.push(quote!(mark = w.position();));
                    mark = quote!(let mut mark = 0usize;);
                }
            }
        }
        if full && tag_before == Some(n_keys) {
            stmts.push(quote!(w.byte(#tag_byte);));
        }
        let (placeholder, fill) = match salted {
            None => (quote!(), quote!()),
            Some(s) => {
                let buckets = s.buckets;
                let bucket = match s.source {
                    SaltSource::Hash(_) => quote! {
                        #krate::rowkey::hash_bucket(&out[start + 1..mark], #buckets)
                    },
                    SaltSource::Modulo(i) => {
                        let id = &keys[i].ident;
                        quote!(#krate::rowkey::modulo_bucket(::core::convert::Into::<i128>::into(*#id), #buckets))
                    }
                };
                (
                    quote!(let start = out.len(); out.push(0); #mark),
                    quote!(out[start] = #bucket;),
                )
            }
        };
        quote! {
            #placeholder
            {
                let mut w = #krate::rowkey::KeyWriter::new(out, #delim);
                #(#stmts)*
            }
            #fill
        }
    };

    // The statements that read every part: `entity` reads one-way parts from their columns.
    let read_body = |entity: bool| {
        let mut stmts = Vec::new();
        if salt.is_some() {
            stmts.push(quote!(r.byte("salt bucket")?;));
        }
        for (i, k) in keys.iter().enumerate() {
            if tag_before == Some(i) {
                stmts.push(quote!(r.expect_tag(#tag_byte)?;));
            }
            let (id, ty, codec) = (&k.ident, &k.ty, &k.codec);
            let name = id.to_string();
            let last = is_last(i);
            stmts.push(match (entity, k.stored) {
                (true, Some(_)) => quote_spanned! {ty.span()=>
                    r.skip::<#ty, #codec>(#name, #last)?;
                },
                _ => quote_spanned! {ty.span()=>
                    let #id = r.part::<#ty, #codec>(#name, #last)?;
                },
            });
        }
        if tag_before == Some(n_keys) {
            stmts.push(quote!(r.expect_tag(#tag_byte)?;));
        }
        stmts
    };

    // Without a delimiter, a variable-length part must be last: checked when the types are known.
    let delimiter_checks = if delimiter.is_some() {
        Vec::new()
    } else {
        keys.iter()
            .enumerate()
            .filter(|(i, _)| !is_last(*i))
            .map(|(i, k)| {
                let (ty, codec) = (&k.ty, &k.codec);
                let next = keys
                    .get(i + 1)
                    .map(|n| format!("`{}`", n.ident))
                    .unwrap_or_else(|| "the record-type tag".into());
                let msg = format!(
                    "row key part `{}` has a variable length and is followed by {next}: set \
                     #[hbase(key_delimiter = '|')] on the struct, or give the part a fixed width",
                    k.ident
                );
                quote_spanned! {ty.span()=>
                    const _: () = ::core::assert!(
                        <#codec as #krate::rowkey::KeyCodec<#ty>>::WIDTH.is_some(),
                        #msg
                    );
                }
            })
            .collect()
    };

    let key_idents: Vec<_> = keys.iter().map(|k| &k.ident).collect();
    let key_types: Vec<_> = keys.iter().map(|k| &k.ty).collect();
    let full_write = write_body(n_keys);
    let prefixes = (1..n_keys).map(|n| {
        let name = format_ident!(
            "prefix_by_{}",
            keys[..n]
                .iter()
                .map(|k| k.ident.to_string())
                .collect::<Vec<_>>()
                .join("_")
        );
        let ids = &key_idents[..n];
        let tys = &key_types[..n];
        let body = write_body(n);
        let all_buckets = salt.as_ref().is_some_and(|s| !s.known_after(n));
        let doc = format!(
            "The row-key prefix of every `{ident}` with these leading key parts, for prefix scans."
        );
        quote! {
            #[doc = #doc]
            pub fn #name(#(#ids: &#tys),*) -> #krate::Result<#krate::rowkey::KeyPrefix> {
                #krate::entity::key_prefix::<#ident>(#all_buckets, |out| {
                    #body
                    ::core::result::Result::Ok(())
                })
            }
        }
    });
    let key_reads = read_body(false);
    let reversible: Vec<_> = keys
        .iter()
        .filter(|k| k.stored.is_none())
        .map(|k| &k.ident)
        .collect();
    let entity_reads = read_body(true);
    let entity_key_fields = keys.iter().map(|k| {
        let id = &k.ident;
        match k.stored {
            Some(col) => {
                let (ty, codec) = (&k.ty, &columns[col].codec);
                quote_spanned! {ty.span()=> #id: cells.required::<#ty, #codec>(#col)? }
            }
            None => quote!(#id),
        }
    });

    // Columns (one-way key parts included: they are stored as well).
    let stored_keys: Vec<usize> = keys.iter().filter_map(|k| k.stored).collect();
    let column_defs = columns.iter().enumerate().map(|(i, c)| {
        let (field, family, qualifier) = (c.ident.to_string(), &c.family, &c.qualifier);
        let key_part = stored_keys.contains(&i);
        quote! {
            #krate::entity::ColumnDef {
                field: #field,
                family: #family,
                qualifier: #qualifier,
                key_part: #key_part,
            }
        }
    });
    // One match on the family, then one on the qualifier: each cell's family is compared once.
    let index_arms = families.iter().map(|fam| {
        let f = syn::LitByteStr::new(fam.as_bytes(), proc_macro2::Span::call_site());
        let arms = columns
            .iter()
            .enumerate()
            .filter(|(_, c)| c.family == *fam)
            .map(|(i, c)| {
                let q = syn::LitByteStr::new(c.qualifier.as_bytes(), c.ident.span());
                quote!(#q => ::core::option::Option::Some(#i),)
            });
        quote! {
            #f => match qualifier {
                #(#arms)*
                _ => ::core::option::Option::None,
            },
        }
    });
    let cell_writes = columns.iter().enumerate().map(|(i, c)| {
        let (id, ty, codec) = (&c.ident, &c.ty, &c.codec);
        match c.missing {
            Missing::Optional => quote_spanned! {ty.span()=>
                cells.optional::<#ty, #codec>(#i, &self.#id)?;
            },
            _ => quote_spanned! {ty.span()=>
                cells.value::<#ty, #codec>(#i, &self.#id)?;
            },
        }
    });
    let cell_reads = columns
        .iter()
        .enumerate()
        .filter(|(i, _)| !stored_keys.contains(i))
        .map(|(i, c)| {
            let (id, ty, codec) = (&c.ident, &c.ty, &c.codec);
            match &c.missing {
                Missing::Required => {
                    quote_spanned! {ty.span()=> #id: cells.required::<#ty, #codec>(#i)? }
                }
                Missing::Optional => {
                    quote_spanned! {ty.span()=> #id: cells.optional::<#ty, #codec>(#i)? }
                }
                Missing::Default(None) => quote_spanned! {ty.span()=>
                    #id: cells.or_else::<#ty, #codec>(#i, ::core::default::Default::default)?
                },
                Missing::Default(Some(path)) => quote_spanned! {ty.span()=>
                    #id: cells.or_else::<#ty, #codec>(#i, #path)?
                },
            }
        });
    let skipped_fields = skipped
        .iter()
        .map(|id| quote_spanned! {id.span()=> #id: ::core::default::Default::default() });
    let key_doc = format!("The row key of [`{ident}`]: its key fields, in row-key order.");
    let key_fields = keys.iter().map(|k| {
        let (id, ty) = (&k.ident, &k.ty);
        quote_spanned! {ty.span()=>
            #[allow(missing_docs)]
            pub #id: #ty,
        }
    });
    let salt_const = match salt {
        Some(s) => {
            let b = s.buckets;
            quote!(const SALT_BUCKETS: ::core::option::Option<u8> = ::core::option::Option::Some(#b);)
        }
        None => quote!(),
    };
    let key_part_defs = keys.iter().map(|k| {
        let (ty, codec, field) = (&k.ty, &k.codec, k.ident.to_string());
        quote_spanned! {ty.span()=>
            #krate::entity::KeyPartDef {
                field: #field,
                kind: <#codec as #krate::rowkey::KeyCodec<#ty>>::KIND,
                width: <#codec as #krate::rowkey::KeyCodec<#ty>>::WIDTH,
            }
        }
    });
    let key_delimiter = match delimiter {
        Some(d) => {
            quote!(const KEY_DELIMITER: ::core::option::Option<u8> = ::core::option::Option::Some(#d);)
        }
        None => quote!(),
    };
    let family_items = if family_options.is_empty() {
        quote!()
    } else {
        let each = families
            .iter()
            .map(|f| match family_options.iter().find(|(n, _)| n == f) {
                Some((_, tokens)) => tokens.clone(),
                None => quote!(#krate::ColumnFamily::new(#f)),
            });
        quote! {
            fn family_descriptors() -> ::std::vec::Vec<#krate::ColumnFamily> {
                ::std::vec![#(#each),*]
            }
        }
    };
    let split_items = match split {
        Some(body) => quote! {
            fn split_keys() -> ::std::vec::Vec<::std::vec::Vec<u8>> {
                #body
            }
        },
        None => quote!(),
    };
    let table_items = match table_time {
        Some(i) => {
            let id = &keys[*i].ident;
            quote! {
                const TABLE_IS_TEMPLATE: bool = true;

                fn table_for_key(key: &#key_struct) -> #krate::TableName {
                    #krate::TableName::new(
                        #namespace,
                        #krate::render_table_template(
                            #table,
                            ::core::convert::Into::<i64>::into(key.#id),
                        ),
                    )
                }
            }
        }
        None => quote!(),
    };
    let tag_items = match (tag_byte, tag_before) {
        (Some(t), Some(before)) => {
            let parts_before = keys[..before].iter().enumerate().map(|(i, k)| {
                let (ty, codec, name) = (&k.ty, &k.codec, k.ident.to_string());
                let last = is_last(i);
                quote_spanned! {ty.span()=> r.skip::<#ty, #codec>(#name, #last)?; }
            });
            let salt_skip = salt.as_ref().map(|_| quote!(r.byte("salt bucket")?;));
            quote! {
                const RECORD_TAG: ::core::option::Option<u8> = ::core::option::Option::Some(#t);

                fn is_record(key: &[u8]) -> bool {
                    let mut r = #krate::rowkey::KeyReader::new(key, #delim);
                    let mut tag = || -> ::core::result::Result<u8, #krate::rowkey::KeyError> {
                        #salt_skip
                        #(#parts_before)*
                        r.byte("record type")
                    };
                    tag() == ::core::result::Result::Ok(#t)
                }
            }
        }
        _ => quote!(),
    };

    quote! {
        #[doc = #key_doc]
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        #vis struct #key_struct {
            #(#key_fields)*
        }

        impl #key_struct {
            #[doc(hidden)]
            pub fn write_parts(
                #(#key_idents: &#key_types,)*
                out: &mut ::std::vec::Vec<u8>,
            ) -> ::core::result::Result<(), #krate::rowkey::KeyError> {
                #full_write
                ::core::result::Result::Ok(())
            }

            #(#prefixes)*
        }

        impl #krate::EntityKey for #key_struct {
            fn write_key(&self, out: &mut ::std::vec::Vec<u8>)
                -> ::core::result::Result<(), #krate::rowkey::KeyError> {
                Self::write_parts(#(&self.#key_idents,)* out)
            }

            fn read_key(key: &[u8]) -> ::core::result::Result<Self, #krate::rowkey::KeyError> {
                let mut r = #krate::rowkey::KeyReader::new(key, #delim);
                #(#key_reads)*
                r.finish()?;
                ::core::result::Result::Ok(#key_struct { #(#key_idents,)* })
            }
        }

        #(#delimiter_checks)*

        impl #krate::HBaseEntity for #ident {
            type Key = #key_struct;
            const NAMESPACE: &'static str = #namespace;
            const TABLE: &'static str = #table;
            const FAMILIES: &'static [&'static str] = &[#(#families),*];
            const COLUMNS: &'static [#krate::entity::ColumnDef] = &[#(#column_defs),*];
            const KEY_PARTS: &'static [#krate::entity::KeyPartDef] = &[#(#key_part_defs),*];
            #key_delimiter
            #salt_const
            #tag_items
            #family_items
            #split_items
            #table_items

            fn column_index(family: &[u8], qualifier: &[u8]) -> ::core::option::Option<usize> {
                match family {
                    #(#index_arms)*
                    _ => ::core::option::Option::None,
                }
            }

            fn key(&self) -> #key_struct {
                #key_struct { #(#key_idents: ::core::clone::Clone::clone(&self.#key_idents),)* }
            }

            fn write_row_key(&self, out: &mut ::std::vec::Vec<u8>)
                -> ::core::result::Result<(), #krate::rowkey::KeyError> {
                #key_struct::write_parts(#(&self.#key_idents,)* out)
            }

            fn write_cells(&self, cells: &mut #krate::entity::CellWriter<'_, Self>) -> #krate::Result<()> {
                #(#cell_writes)*
                ::core::result::Result::Ok(())
            }

            fn read_cells(key: &[u8], cells: &mut #krate::entity::CellReader<'_, Self>)
                -> #krate::Result<Self> {
                let mut r = #krate::rowkey::KeyReader::new(key, #delim);
                let mut parts = || -> ::core::result::Result<_, #krate::rowkey::KeyError> {
                    #(#entity_reads)*
                    r.finish()?;
                    ::core::result::Result::Ok((#(#reversible,)*))
                };
                let (#(#reversible,)*) = parts().map_err(|e| cells.key_error(e))?;
                ::core::result::Result::Ok(#ident {
                    #(#entity_key_fields,)*
                    #(#cell_reads,)*
                    #(#skipped_fields,)*
                })
            }
        }
    }
}
