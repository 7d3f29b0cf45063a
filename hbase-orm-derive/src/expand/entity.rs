//! The `HBaseEntity` impl: table and column metadata, the column lookup, and the field-by-field
//! writes and reads (each one call into the library).

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::keys::read_body;
use super::tokens::{
    family_descriptors, handle_name, key_codec, key_field, key_reader, respan, split_keys,
    value_codec,
};
use crate::model::{Column, ColumnKind, Entity, Missing};

/// The `ColumnDef`s, in declaration order.
fn column_defs(m: &Entity, stored_keys: &[usize]) -> Vec<TokenStream> {
    let krate = &m.krate;
    m.columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let (field, family, qualifier) = (c.ident.to_string(), &c.family, &c.qualifier);
            let key_part = stored_keys.contains(&i);
            let optional = matches!(c.missing, Missing::Optional);
            let has_default = matches!(c.missing, Missing::Default(_));
            let value_type = match &c.kind {
                ColumnKind::Flatten(_) | ColumnKind::Children => {
                    quote!(#krate::entity::ValueType::Other)
                }
                _ => {
                    let (ty, codec) = (&c.ty, value_codec(krate, c));
                    quote_spanned! {ty.span()=> <#codec as #krate::Codec<#ty>>::TYPE }
                }
            };
            let map_key = match &c.kind {
                ColumnKind::Wide { key_ty, key_codec } => {
                    let kc = wide_key_codec(krate, key_ty, key_codec);
                    quote_spanned! {key_ty.span()=>
                        ::core::option::Option::Some(#krate::entity::MapKey {
                            value_type: <#kc as #krate::rowkey::KeyCodec<#key_ty>>::TYPE,
                            read: #krate::rowkey::scalar_of::<#key_ty, #kc>,
                        })
                    }
                }
                _ => quote!(::core::option::Option::None),
            };
            let kind = match &c.kind {
                ColumnKind::Value => quote!(Value),
                ColumnKind::Versions(n) => quote!(Versions(#n)),
                ColumnKind::Wide { .. } => quote!(Wide),
                ColumnKind::Counter => quote!(Counter),
                ColumnKind::Version => quote!(Version),
                ColumnKind::Flatten(prefix) => quote!(Flatten(#prefix)),
                ColumnKind::Children => quote!(Children),
            };
            quote! {
                #krate::entity::ColumnDef {
                    field: #field,
                    family: #family,
                    qualifier: #qualifier,
                    key_part: #key_part,
                    kind: #krate::entity::ColumnKind::#kind,
                    optional: #optional,
                    has_default: #has_default,
                    value_type: #value_type,
                    map_key: #map_key,
                }
            }
        })
        .collect()
}

/// The arms of `column_index`: one match on the family, then one on the qualifier, so each
/// cell's family is compared once. Names are compared with `entity::is_name` (as arrays of
/// the name's length: a few word compares, where a byte-string pattern calls `memcmp`).
fn index_arms(m: &Entity) -> Vec<TokenStream> {
    let krate = &m.krate;
    let is = quote!(#krate::entity::is_name);
    m.families
        .iter()
        .map(|fam| {
            let f = syn::LitByteStr::new(fam.as_bytes(), proc_macro2::Span::call_site());
            // A wide map or a children list owns its family: every qualifier is its own, but
            // the empty one when the family also holds the row's marker cell (the first family,
            // when the entity has no other).
            if let Some(i) = m.columns.iter().position(|c| {
                c.family == *fam && matches!(c.kind, ColumnKind::Wide { .. } | ColumnKind::Children)
            }) {
                return if m.families.first() == Some(fam) {
                    quote!(f if #is(f, #f) => (!qualifier.is_empty()).then_some(#i),)
                } else {
                    quote!(f if #is(f, #f) => ::core::option::Option::Some(#i),)
                };
            }
            // A flattened group takes the qualifiers with its prefix that no field names.
            let groups = m
                .columns
                .iter()
                .enumerate()
                .filter(|(_, c)| c.family == *fam)
                .filter_map(|(i, c)| match &c.kind {
                    ColumnKind::Flatten(prefix) => {
                        let p = syn::LitByteStr::new(prefix.as_bytes(), c.ident.span());
                        Some(quote!(q if q.starts_with(#p) => ::core::option::Option::Some(#i),))
                    }
                    _ => None,
                });
            let arms = m
                .columns
                .iter()
                .enumerate()
                .filter(|(_, c)| c.family == *fam && !matches!(c.kind, ColumnKind::Flatten(_)))
                .map(|(i, c)| {
                    let q = syn::LitByteStr::new(c.qualifier.as_bytes(), c.ident.span());
                    quote!(q if #is(q, #q) => ::core::option::Option::Some(#i),)
                });
            quote! {
                f if #is(f, #f) => match qualifier {
                    #(#arms)*
                    #(#groups)*
                    _ => ::core::option::Option::None,
                },
            }
        })
        .collect()
}

/// `write_cells`: one writer call per stored field, in the order HBase keeps the cells (by
/// family, then qualifier) when every field's qualifier is its own, so that a row's cells need
/// no sorting where order matters (a bulk load's files); in declaration order otherwise.
fn cell_writes(m: &Entity) -> Vec<TokenStream> {
    let mut order: Vec<(usize, &Column)> = m.columns.iter().enumerate().collect();
    let fixed = |c: &Column| {
        matches!(
            c.kind,
            ColumnKind::Value | ColumnKind::Versions(_) | ColumnKind::Counter | ColumnKind::Version
        )
    };
    if m.columns.iter().all(fixed) {
        order.sort_by(|(_, a), (_, b)| {
            (a.family.as_bytes(), a.qualifier.as_bytes())
                .cmp(&(b.family.as_bytes(), b.qualifier.as_bytes()))
        });
    }
    order
        .into_iter()
        .map(|(i, c)| {
            let (id, ty, codec) = (&c.ident, &c.ty, value_codec(&m.krate, c));
            match (&c.kind, &c.missing) {
                (ColumnKind::Versions(_), _) => quote_spanned! {ty.span()=>
                    cells.versions::<#ty, #codec>(#i, &self.#id)?;
                },
                (ColumnKind::Wide { key_ty, key_codec }, _) => {
                    let kc = wide_key_codec(&m.krate, key_ty, key_codec);
                    quote_spanned! {ty.span()=>
                        cells.wide::<#key_ty, #kc, #ty, #codec>(#i, &self.#id)?;
                    }
                }
                (ColumnKind::Counter, _) => quote_spanned! {ty.span()=>
                    cells.counter(#i, &self.#id)?;
                },
                (ColumnKind::Version, _) => quote_spanned! {ty.span()=>
                    cells.version(#i, &self.#id)?;
                },
                (ColumnKind::Flatten(_), _) => quote_spanned! {ty.span()=>
                    cells.flatten::<#ty>(#i, &self.#id)?;
                },
                (ColumnKind::Children, _) => quote_spanned! {ty.span()=>
                    cells.children::<#ty>(#i, &self.#id)?;
                },
                (ColumnKind::Value, Missing::Optional) => quote_spanned! {ty.span()=>
                    cells.optional::<#ty, #codec>(#i, &self.#id)?;
                },
                (ColumnKind::Value, _) => quote_spanned! {ty.span()=>
                    cells.value::<#ty, #codec>(#i, &self.#id)?;
                },
            }
        })
        .collect()
}

/// The field initialisers of `read_cells`: one reader call per stored field that is not a
/// hashed key part.
fn cell_reads(m: &Entity, stored_keys: &[usize]) -> Vec<TokenStream> {
    m.columns
        .iter()
        .enumerate()
        .filter(|(i, _)| !stored_keys.contains(i))
        .map(|(i, c)| {
            let (id, ty, codec) = (&c.ident, &c.ty, value_codec(&m.krate, c));
            match &c.kind {
                ColumnKind::Versions(_) => {
                    return quote_spanned! {ty.span()=> #id: cells.versions::<#ty, #codec>(#i)? };
                }
                ColumnKind::Wide { key_ty, key_codec } => {
                    let kc = wide_key_codec(&m.krate, key_ty, key_codec);
                    return quote_spanned! {ty.span()=>
                        #id: cells.wide::<#key_ty, #kc, #ty, #codec>(#i)?
                    };
                }
                ColumnKind::Counter => return quote_spanned! {ty.span()=> #id: cells.counter(#i)? },
                ColumnKind::Version => return quote_spanned! {ty.span()=> #id: cells.version(#i)? },
                ColumnKind::Flatten(_) => {
                    return quote_spanned! {ty.span()=> #id: cells.flatten::<#ty>(#i)? };
                }
                ColumnKind::Children => {
                    return quote_spanned! {ty.span()=> #id: cells.children::<#ty>(#i)? };
                }
                ColumnKind::Value => {}
            }
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
        })
        .collect()
}

/// The `KeyCodec` of a wide map's keys.
fn wide_key_codec(krate: &syn::Path, key_ty: &syn::Type, codec: &Option<syn::Path>) -> TokenStream {
    match codec {
        Some(path) => quote!(#path),
        None => quote_spanned! {key_ty.span()=> <#key_ty as #krate::rowkey::KeyPart>::Codec },
    }
}

/// `version` and `set_version` for an entity with a version field.
fn version_items(m: &Entity) -> TokenStream {
    let Some(c) = m
        .columns
        .iter()
        .find(|c| matches!(c.kind, ColumnKind::Version))
    else {
        return quote!();
    };
    let id = &c.ident;
    quote! {
        fn version(&self) -> ::core::option::Option<u64> {
            ::core::option::Option::Some(self.#id)
        }

        fn set_version(&mut self, version: u64) {
            self.#id = version;
        }
    }
}

/// `RECORD_TAG` and `is_record` for an entity with a record-type tag.
fn tag_items(m: &Entity) -> TokenStream {
    let Some(tag) = &m.tag else {
        return quote!();
    };
    let krate = &m.krate;
    let t = tag.tag;
    let parts_before = m.keys[..tag.before].iter().enumerate().map(|(i, k)| {
        let (ty, codec, name) = (&k.ty, key_codec(krate, k), k.ident.to_string());
        let last = m.is_last(i);
        quote_spanned! {ty.span()=> r.skip::<#ty, #codec>(#name, #last)?; }
    });
    let salt_skip = m.salt.as_ref().map(|_| quote!(r.byte("salt bucket")?;));
    let reader = key_reader(m);
    quote! {
        const RECORD_TAG: ::core::option::Option<u8> = ::core::option::Option::Some(#t);

        fn is_record(key: &[u8]) -> bool {
            let mut r = #reader;
            let mut tag = || -> ::core::result::Result<u8, #krate::rowkey::KeyError> {
                #salt_skip
                #(#parts_before)*
                r.byte("record type")
            };
            tag() == ::core::result::Result::Ok(#t)
        }
    }
}

/// `TABLE_IS_TEMPLATE` and `table_for_key` for a table template.
fn table_items(m: &Entity) -> TokenStream {
    let Some(i) = m.table_time else {
        return quote!();
    };
    let (krate, key_struct, namespace, table) = (&m.krate, &m.key_struct, &m.namespace, &m.table);
    let id = &m.keys[i].ident;
    quote! {
        const TABLE_IS_TEMPLATE: bool = true;

        fn table_for_key(key: &#key_struct) -> #krate::TableName {
            #krate::TableName::new(
                #namespace,
                #krate::render_table_template(#table, ::core::convert::Into::<i64>::into(key.#id)),
            )
        }
    }
}

/// One typed handle per stored field, named after it in upper case (`Order::CITY`).
pub fn field_handles(m: &Entity) -> TokenStream {
    let (krate, ident, vis) = (&m.krate, &m.ident, &m.vis);
    let stored_keys: Vec<usize> = m.keys.iter().filter_map(|k| k.stored).collect();
    let handles = m
        .columns
        .iter()
        .enumerate()
        .filter(|(i, c)| {
            !stored_keys.contains(i)
                && !matches!(c.kind, ColumnKind::Flatten(_) | ColumnKind::Children)
        })
        .map(|(i, c)| {
            let (name, konst) = handle_name(&c.ident);
            let (ty, codec) = (&c.ty, value_codec(krate, c));
            let doc = format!(
                "The stored field `{name}` (`{}:{}`), for typed filters and calls that name it.",
                c.family, c.qualifier
            );
            let handle = match &c.kind {
                ColumnKind::Wide { key_ty, key_codec } => {
                    let kc = wide_key_codec(krate, key_ty, key_codec);
                    quote!(#krate::entity::WideField<#ident, #key_ty, #ty, #kc, #codec>)
                }
                _ => quote!(#krate::entity::Field<#ident, #ty, #codec>),
            };
            let new = match &c.kind {
                ColumnKind::Wide { .. } => quote!(#krate::entity::WideField::new(#i)),
                _ => quote!(#krate::entity::Field::new(#i)),
            };
            quote_spanned! {c.ident.span()=>
                #[doc = #doc]
                #[allow(dead_code)]
                #vis const #konst: #handle = #new;
            }
        });
    let key_handles = key_handles(m);
    quote! {
        impl #ident {
            #(#handles)*
            #(#key_handles)*
        }
    }
}

/// One typed handle per row-key part (`Reading::TS`), with the layout of the key before it
/// (salt byte, earlier parts and what follows each, the record-type tag) for key filters.
fn key_handles(m: &Entity) -> Vec<TokenStream> {
    let (krate, ident, vis) = (&m.krate, &m.ident, &m.vis);
    m.keys
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let (name, konst) = handle_name(&k.ident);
            let (ty, codec) = (&k.ty, key_codec(krate, k));
            let doc = format!(
                "The row-key part `{name}`, for key filters (`where_key_eq`, `where_key_between`)."
            );
            // The type at the part's type: a part with no key encoding is reported there once.
            let handle = respan(
                quote!(#krate::entity::KeyField<#ident, #ty, #codec>),
                ty.span(),
            );
            let new = key_field(m, i);
            quote_spanned! {k.ident.span()=>
                #[doc = #doc]
                #[allow(dead_code)]
                #vis const #konst: #handle = #new;
            }
        })
        .collect()
}

/// The `HBaseEntity` impl.
pub fn entity_impl(m: &Entity) -> TokenStream {
    let (krate, ident, key_struct) = (&m.krate, &m.ident, &m.key_struct);
    let (namespace, table, families) = (&m.namespace, &m.table, &m.families);
    let stored_keys: Vec<usize> = m.keys.iter().filter_map(|k| k.stored).collect();
    let key_idents: Vec<_> = m.keys.iter().map(|k| &k.ident).collect();
    let column_defs = column_defs(m, &stored_keys);
    let index_arms = index_arms(m);
    let cell_writes = cell_writes(m);
    let cell_reads = cell_reads(m, &stored_keys);
    let entity_reads = read_body(m, true);
    let reader = key_reader(m);
    let reversible: Vec<_> = m
        .keys
        .iter()
        .filter(|k| k.stored.is_none())
        .map(|k| &k.ident)
        .collect();
    let entity_key_fields = m.keys.iter().map(|k| {
        let id = &k.ident;
        match k.stored {
            Some(col) => {
                let (ty, codec) = (&k.ty, value_codec(krate, &m.columns[col]));
                quote_spanned! {ty.span()=> #id: cells.required::<#ty, #codec>(#col)? }
            }
            None => quote!(#id),
        }
    });
    let skipped_fields = m
        .skipped
        .iter()
        .map(|id| quote_spanned! {id.span()=> #id: ::core::default::Default::default() });
    let key_part_defs = m.keys.iter().map(|k| {
        let (ty, codec, field) = (&k.ty, key_codec(krate, k), k.ident.to_string());
        let in_key = k.stored.is_none();
        quote_spanned! {ty.span()=>
            #krate::entity::KeyPartDef {
                field: #field,
                kind: <#codec as #krate::rowkey::KeyCodec<#ty>>::KIND,
                width: <#codec as #krate::rowkey::KeyCodec<#ty>>::WIDTH,
                value_type: <#codec as #krate::rowkey::KeyCodec<#ty>>::TYPE,
                in_key: #in_key,
            }
        }
    });
    let salt_const = m.salt.as_ref().map(|s| {
        let b = s.buckets;
        quote!(const SALT_BUCKETS: ::core::option::Option<u8> = ::core::option::Option::Some(#b);)
    });
    let key_delimiter = m.delimiter.map(|d| {
        quote!(const KEY_DELIMITER: ::core::option::Option<u8> = ::core::option::Option::Some(#d);)
    });
    let tag_items = tag_items(m);
    let family_items = family_descriptors(m);
    let split_items = m.split.as_ref().map(|s| {
        let body = split_keys(krate, s);
        quote! {
            fn split_keys() -> ::std::vec::Vec<::std::vec::Vec<u8>> {
                #body
            }
        }
    });
    let table_items = table_items(m);
    let version_items = version_items(m);
    let indexes = super::indexes::indexes_const(m);
    let dictionary_parts = super::tokens::dictionary_parts(krate, &m.keys);
    // A per-period table's time part may hold only the time within the period: the period's
    // start comes from the table's name.
    let period = m
        .table_time
        .filter(|&i| m.keys[i].stored.is_none())
        .map(|i| {
            let k = &m.keys[i];
            let (id, ty, codec, table) = (&k.ident, &k.ty, key_codec(krate, k), &m.table);
            quote_spanned! {ty.span()=> let #id = cells.in_period::<#ty, #codec>(#id, #table)?; }
        });
    // ...which only works when a table covers no more than the codec's period.
    let period_check = m.table_time.map(|i| {
        let k = &m.keys[i];
        let (ty, codec, table) = (&k.ty, key_codec(krate, k), &m.table);
        let msg = format!(
            "the time part `{}` keeps only the time within a period (its codec's PERIOD), but a \
             table of \"{table}\" covers more: use a template with {{dd}} (or {{HH}}), or a codec \
             that keeps the whole time",
            k.ident
        )
        // The message is a format string: its braces are text.
        .replace('{', "{{")
        .replace('}', "}}");
        quote_spanned! {ty.span()=>
            const _: () = ::core::assert!(
                match <#codec as #krate::rowkey::KeyCodec<#ty>>::PERIOD {
                    ::core::option::Option::None => true,
                    ::core::option::Option::Some(p) => match #krate::template_period_ms(#table) {
                        ::core::option::Option::Some(t) => t <= p,
                        ::core::option::Option::None => false,
                    },
                },
                #msg
            );
        }
    });
    let dictionary_table = m
        .dictionary_table
        .as_ref()
        .map(|t| quote!(const DICTIONARY_TABLE: &'static str = #t;));
    let region_replication = m
        .region_replication
        .map(|n| quote!(const REGION_REPLICATION: u32 = #n;));

    quote! {
        #period_check

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
            #version_items
            #indexes
            #dictionary_table
            #region_replication
            #dictionary_parts

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
                let mut r = #reader;
                let mut parts = || -> ::core::result::Result<_, #krate::rowkey::KeyError> {
                    #(#entity_reads)*
                    r.finish()?;
                    ::core::result::Result::Ok((#(#reversible,)*))
                };
                let (#(#reversible,)*) = parts().map_err(|e| cells.key_error(e))?;
                #period
                ::core::result::Result::Ok(#ident {
                    #(#entity_key_fields,)*
                    #(#cell_reads,)*
                    #(#skipped_fields,)*
                })
            }
        }
    }
}
