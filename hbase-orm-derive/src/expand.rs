//! Writes the `HBaseEntity` impl and the key type of a validated entity.

use darling::FromDeriveInput;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::attr;
use crate::valid::{self, Missing, Model};

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
            fn read_cells(_: Self::Key, _: &mut #krate::entity::CellReader<'_, Self>) -> #krate::Result<Self> {
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
    } = m;
    let delim = match delimiter {
        Some(d) => quote!(::core::option::Option::Some(#d)),
        None => quote!(::core::option::Option::None),
    };
    let last = keys.len() - 1;

    // Row key: one writer call per part, shared by the key type, the entity and the prefixes.
    let part_write = |i: usize, is_last: bool| {
        let k = &keys[i];
        let (id, ty, codec) = (&k.ident, &k.ty, &k.codec);
        let name = id.to_string();
        quote_spanned! {ty.span()=>
            w.part::<#ty, #codec>(#name, #id, #is_last)?;
        }
    };
    let key_idents: Vec<_> = keys.iter().map(|k| &k.ident).collect();
    let key_types: Vec<_> = keys.iter().map(|k| &k.ty).collect();
    let writes: Vec<_> = (0..keys.len()).map(|i| part_write(i, i == last)).collect();
    let reads = keys.iter().enumerate().map(|(i, k)| {
        let (id, ty, codec) = (&k.ident, &k.ty, &k.codec);
        let name = id.to_string();
        let is_last = i == last;
        quote_spanned! {ty.span()=> #id: r.part::<#ty, #codec>(#name, #is_last)? }
    });
    // Without a delimiter, a variable-length part must be last: checked when the types are known.
    let delimiter_checks = if delimiter.is_some() {
        Vec::new()
    } else {
        keys.iter()
            .zip(keys.iter().skip(1))
            .map(|(k, next)| {
                let (ty, codec) = (&k.ty, &k.codec);
                let msg = format!(
                    "row key part `{}` has a variable length and is followed by `{}`: set \
                     #[hbase(key_delimiter = '|')] on the struct, or give the part a fixed width",
                    k.ident, next.ident
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
    let prefixes = (1..keys.len()).map(|n| {
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
        let parts = (0..n).map(|i| part_write(i, false));
        let doc = format!(
            "The row-key prefix of every `{ident}` with these leading key parts, for prefix scans."
        );
        quote! {
            #[doc = #doc]
            pub fn #name(#(#ids: &#tys),*) -> #krate::Result<#krate::rowkey::KeyPrefix> {
                #krate::entity::key_prefix::<#ident>(|out| {
                    let mut w = #krate::rowkey::KeyWriter::new(out, #delim);
                    #(#parts)*
                    ::core::result::Result::Ok(())
                })
            }
        }
    });

    // Columns.
    let column_defs = columns.iter().map(|c| {
        let (field, family, qualifier) = (c.ident.to_string(), &c.family, &c.qualifier);
        quote! {
            #krate::entity::ColumnDef { field: #field, family: #family, qualifier: #qualifier }
        }
    });
    let index_arms = columns.iter().enumerate().map(|(i, c)| {
        let f = syn::LitByteStr::new(c.family.as_bytes(), c.ident.span());
        let q = syn::LitByteStr::new(c.qualifier.as_bytes(), c.ident.span());
        quote!((#f, #q) => ::core::option::Option::Some(#i),)
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
    let cell_reads = columns.iter().enumerate().map(|(i, c)| {
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
    // Spanned at the field type, so that a type without `Eq` or `Hash` is reported there.
    let key_fields = keys.iter().map(|k| {
        let (id, ty) = (&k.ident, &k.ty);
        quote_spanned! {ty.span()=>
            #[allow(missing_docs)]
            pub #id: #ty,
        }
    });
    let key_doc = format!("The row key of [`{ident}`]: its key fields, in row-key order.");

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
                let mut w = #krate::rowkey::KeyWriter::new(out, #delim);
                #(#writes)*
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
                let key = #key_struct { #(#reads,)* };
                r.finish()?;
                ::core::result::Result::Ok(key)
            }
        }

        #(#delimiter_checks)*

        impl #krate::HBaseEntity for #ident {
            type Key = #key_struct;
            const NAMESPACE: &'static str = #namespace;
            const TABLE: &'static str = #table;
            const FAMILIES: &'static [&'static str] = &[#(#families),*];
            const COLUMNS: &'static [#krate::entity::ColumnDef] = &[#(#column_defs),*];

            fn column_index(family: &[u8], qualifier: &[u8]) -> ::core::option::Option<usize> {
                match (family, qualifier) {
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

            fn read_cells(key: #key_struct, cells: &mut #krate::entity::CellReader<'_, Self>)
                -> #krate::Result<Self> {
                ::core::result::Result::Ok(#ident {
                    #(#key_idents: key.#key_idents,)*
                    #(#cell_reads,)*
                    #(#skipped_fields,)*
                })
            }
        }
    }
}
