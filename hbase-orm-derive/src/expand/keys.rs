//! The entity's key type: its struct, the writers of the whole key and of each prefix, the
//! reader, and the compile-time check that variable-length parts are delimited.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::tokens::{dictionary_parts, key_codec, key_field, key_reader, key_writer};
use crate::model::{Entity, SaltSource};

/// The statements that write the first `n` key parts into `out`, with the salt byte in front
/// when the first `n` parts determine it, and the tag where it belongs (a prefix does not end
/// with the tag: a prefix scan over a customer then finds all its record types).
pub fn write_body(m: &Entity, n: usize) -> TokenStream {
    let krate = &m.krate;
    let n_keys = m.keys.len();
    let tag_before = m.tag.as_ref().map(|t| t.before);
    let tag_byte = m.tag.as_ref().map(|t| t.tag);
    let full = n == n_keys;
    let salted = m.salt.as_ref().filter(|s| s.known_after(n));
    let mut stmts = Vec::new();
    let mut mark = quote!();
    for (i, k) in m.keys.iter().enumerate().take(n) {
        if tag_before == Some(i) {
            stmts.push(quote!(w.byte(#tag_byte);));
        }
        let (id, ty, codec) = (&k.ident, &k.ty, key_codec(krate, k));
        let name = id.to_string();
        let last = full && m.is_last(i);
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
                    let id = &m.keys[i].ident;
                    quote!(#krate::rowkey::modulo_bucket(::core::convert::Into::<i128>::into(*#id), #buckets))
                }
            };
            (
                quote!(let start = out.len(); out.push(0); #mark),
                quote!(out[start] = #bucket;),
            )
        }
    };
    let writer = key_writer(m);
    quote! {
        #placeholder
        {
            let mut w = #writer;
            #(#stmts)*
        }
        #fill
    }
}

/// The statements that read every key part from `r`; with `entity`, one-way (hashed) parts
/// are skipped: they are read back from their columns.
pub fn read_body(m: &Entity, entity: bool) -> Vec<TokenStream> {
    let krate = &m.krate;
    let n_keys = m.keys.len();
    let tag_before = m.tag.as_ref().map(|t| t.before);
    let tag_byte = m.tag.as_ref().map(|t| t.tag);
    let mut stmts = Vec::new();
    if m.salt.is_some() {
        stmts.push(quote!(r.byte("salt bucket")?;));
    }
    for (i, k) in m.keys.iter().enumerate() {
        if tag_before == Some(i) {
            stmts.push(quote!(r.expect_tag(#tag_byte)?;));
        }
        let (id, ty, codec) = (&k.ident, &k.ty, key_codec(krate, k));
        let name = id.to_string();
        let last = m.is_last(i);
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
}

/// Without a delimiter, a variable-length part must be last: checked when the types are known.
fn delimiter_checks(m: &Entity) -> Vec<TokenStream> {
    if m.delimiter.is_some() {
        return Vec::new();
    }
    let krate = &m.krate;
    m.keys
        .iter()
        .enumerate()
        .filter(|(i, _)| !m.is_last(*i))
        .map(|(i, k)| {
            let (ty, codec) = (&k.ty, key_codec(krate, k));
            let next = m
                .keys
                .get(i + 1)
                .map(|n| format!("`{}`", n.ident))
                .unwrap_or_else(|| "the record-type tag".into());
            let msg = format!(
                "{} part `{}` has a variable length and is followed by {next}: set \
                 #[hbase(key_delimiter = '\\0')] on the struct (the byte that keeps keys in \
                 the order of their parts, see hbase_orm::rowkey), or give the part a fixed \
                 width",
                m.key_kind, k.ident
            );
            quote_spanned! {ty.span()=>
                const _: () = ::core::assert!(
                    <#codec as #krate::rowkey::KeyCodec<#ty>>::WIDTH.is_some(),
                    #msg
                );
            }
        })
        .collect()
}

/// One `prefix_by_<parts>` function per proper prefix of the key parts.
fn prefixes(m: &Entity) -> Vec<TokenStream> {
    let (krate, ident) = (&m.krate, &m.ident);
    (1..m.keys.len())
        .map(|n| {
            let parts = &m.keys[..n];
            let name = format_ident!(
                "prefix_by_{}",
                parts
                    .iter()
                    .map(|k| k.ident.to_string())
                    .collect::<Vec<_>>()
                    .join("_")
            );
            let ids = parts.iter().map(|k| &k.ident);
            let tys = parts.iter().map(|k| &k.ty);
            let body = write_body(m, n);
            let all_buckets = m.salt.as_ref().is_some_and(|s| !s.known_after(n));
            let doc = format!(
                "The row-key prefix of every `{ident}` with these leading key parts, for prefix \
                 scans."
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
        })
        .collect()
}

/// `visit_parts`, `prefix_of` and (for an entity's own key) `part_eq_test`: the key parts as
/// the codecs' scalars, prefixes and key tests of scalars, for query engines.
fn scalar_items(m: &Entity, of_entity: bool) -> TokenStream {
    let (krate, ident) = (&m.krate, &m.ident);
    let visits = m.keys.iter().filter(|k| k.stored.is_none()).map(|k| {
        let (id, ty, codec) = (&k.ident, &k.ty, key_codec(krate, k));
        quote_spanned! {ty.span()=>
            visit(<#codec as #krate::rowkey::KeyCodec<#ty>>::to_scalar(&self.#id));
        }
    });
    let arms = (1..=m.keys.len()).map(|n| {
        let parts = &m.keys[..n];
        // Hygienic names (like a `macro_rules!` local's): a key field named `part_1` cannot
        // take the place of the second slot.
        let slots: Vec<_> = (0..n)
            .map(|i| proc_macro2::Ident::new(&format!("part_{i}"), proc_macro2::Span::mixed_site()))
            .collect();
        let values = parts.iter().zip(&slots).map(|(k, slot)| {
            let (id, ty, codec) = (&k.ident, &k.ty, key_codec(krate, k));
            quote_spanned! {ty.span()=>
                let #id = <#codec as #krate::rowkey::KeyCodec<#ty>>::from_scalar(#slot)?;
            }
        });
        let body = write_body(m, n);
        let ids = parts.iter().map(|k| &k.ident);
        let all_buckets = m.salt.as_ref().is_some_and(|s| !s.known_after(n));
        quote! {
            [#(#slots),*] => {
                #(#values)*
                #(let #ids = &#ids;)*
                ::core::option::Option::Some(#krate::entity::key_prefix::<#ident>(#all_buckets, |out| {
                    #body
                    ::core::result::Result::Ok(())
                }))
            }
        }
    });
    // The equality test of each part, through a handle of the part as `Visit::PAGE` is.
    let tests = m.keys.iter().enumerate().map(|(n, k)| {
        let (ty, codec) = (&k.ty, key_codec(krate, k));
        let field = key_field(m, n);
        quote_spanned! {ty.span()=>
            #n => {
                const PART: #krate::entity::KeyField<#ident, #ty, #codec> = #field;
                let value = <#codec as #krate::rowkey::KeyCodec<#ty>>::from_scalar(value)?;
                ::core::option::Option::Some(PART.eq_test(&value))
            }
        }
    });
    // An index's entries are no entity: their keys keep the trait's default (no tests).
    let tests = of_entity.then(|| {
        quote! {
            fn part_eq_test(
                part: usize,
                value: &#krate::entity::Scalar<'_>,
            ) -> ::core::option::Option<#krate::Result<#krate::entity::KeyTest>> {
                match part {
                    #(#tests)*
                    _ => ::core::option::Option::None,
                }
            }
        }
    });
    quote! {
        #tests

        fn visit_parts(
            &self,
            visit: &mut dyn ::core::ops::FnMut(::core::option::Option<#krate::entity::Scalar<'_>>),
        ) {
            #(#visits)*
        }

        fn prefix_of(
            parts: &[#krate::entity::Scalar<'_>],
        ) -> ::core::option::Option<#krate::Result<#krate::rowkey::KeyPrefix>> {
            match parts {
                #(#arms)*
                _ => ::core::option::Option::None,
            }
        }
    }
}

/// The key struct with its writers, prefixes and `EntityKey` impl (`of_entity`: the key of
/// entity `m.ident`, not of an index's entries).
pub fn key_type(m: &Entity, of_entity: bool) -> TokenStream {
    let (krate, ident, vis, key_struct) = (&m.krate, &m.ident, &m.vis, &m.key_struct);
    let key_idents: Vec<_> = m.keys.iter().map(|k| &k.ident).collect();
    let key_types: Vec<_> = m.keys.iter().map(|k| &k.ty).collect();
    let full_write = write_body(m, m.keys.len());
    let prefixes = prefixes(m);
    let key_reads = read_body(m, false);
    let delimiter_checks = delimiter_checks(m);
    let reader = key_reader(m);
    let dictionary_parts = dictionary_parts(krate, &m.keys);
    let scalar_items = scalar_items(m, of_entity);
    let key_doc = format!("The row key of [`{ident}`]: its key fields, in row-key order.");
    let key_fields = m.keys.iter().map(|k| {
        let (id, ty) = (&k.ident, &k.ty);
        quote_spanned! {ty.span()=>
            #[allow(missing_docs)]
            pub #id: #ty,
        }
    });
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
                let mut r = #reader;
                #(#key_reads)*
                r.finish()?;
                ::core::result::Result::Ok(#key_struct { #(#key_idents,)* })
            }

            #dictionary_parts
            #scalar_items
        }

        #(#delimiter_checks)*
    }
}
