//! The `RecordSet` impl of an `HBaseRecord` enum, with compile-time checks that its entities
//! share one table and carry distinct record-type tags.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::model::RecordSet;

/// A compile-time assertion at `ty`'s span.
fn assert_at(ty: &syn::Type, condition: TokenStream, msg: &str) -> TokenStream {
    quote_spanned! {ty.span()=> const _: () = ::core::assert!(#condition, #msg); }
}

pub fn record_impl(r: &RecordSet) -> TokenStream {
    let (krate, ident) = (&r.krate, &r.ident);
    let first = &r.variants[0].1;
    let entity = |ty: &syn::Type| quote!(<#ty as #krate::HBaseEntity>);
    let same_table = r.variants.iter().skip(1).map(|(_, ty)| {
        let (a, b) = (entity(ty), entity(first));
        assert_at(
            ty,
            quote! {
                #krate::records::same_str(#a::TABLE, #b::TABLE)
                    && #krate::records::same_str(#a::NAMESPACE, #b::NAMESPACE)
            },
            "every variant of an HBaseRecord must be stored in the same table as the first",
        )
    });
    let tagged = r.variants.iter().map(|(_, ty)| {
        let e = entity(ty);
        assert_at(
            ty,
            quote!(#e::RECORD_TAG.is_some()),
            "every variant of an HBaseRecord needs #[hbase(record_type(tag = ...))]",
        )
    });
    let distinct = r.variants.iter().enumerate().flat_map(|(i, (_, a))| {
        r.variants[i + 1..].iter().map(move |(_, b)| {
            let (ea, eb) = (entity(a), entity(b));
            assert_at(
                b,
                quote! {
                    !::core::matches!(
                        (#ea::RECORD_TAG, #eb::RECORD_TAG),
                        (::core::option::Option::Some(x), ::core::option::Option::Some(y)) if x == y
                    )
                },
                "two variants of an HBaseRecord have the same record-type tag",
            )
        })
    });
    // A row of a listed type decodes as that entity, unless it is partial (no presence cell):
    // then it holds none, as for the entity's own reads; a read with a time range decodes
    // what the range leaves (`ranged`).
    let arms = |ranged: bool| {
        r.variants
            .iter()
            .map(|(v, ty)| {
                let e = entity(ty);
                quote! {
                    if #e::is_record(&row.key) {
                        return #krate::records::decode_record::<#ty>(&row, table, #ranged)
                            .map(|e| e.map(#ident::#v));
                    }
                }
            })
            .collect::<Vec<_>>()
    };
    let (arms, ranged_arms) = (arms(false), arms(true));
    let column_lists = r
        .variants
        .iter()
        .map(|(_, ty)| quote!(columns.extend(#krate::records::columns_of::<#ty>());));
    let variant_types: Vec<&syn::Type> = r.variants.iter().map(|(_, ty)| ty).collect();
    let first = entity(first);
    quote! {
        #(#same_table)*
        #(#tagged)*
        #(#distinct)*

        impl #krate::RecordSet for #ident {
            fn table_name() -> #krate::TableName {
                #first::table_name()
            }

            fn columns() -> ::std::vec::Vec<#krate::Column> {
                let mut columns = ::std::vec::Vec::new();
                #(#column_lists)*
                columns
            }

            fn max_versions() -> ::core::option::Option<i32> {
                [#(#krate::records::max_versions_of::<#variant_types>()),*]
                    .into_iter()
                    .flatten()
                    .max()
            }

            fn salt_buckets() -> ::core::option::Option<u8> {
                #first::SALT_BUCKETS
            }

            fn from_row_of(row: #krate::Row, table: &#krate::TableName)
                -> #krate::Result<::core::option::Option<Self>> {
                #(#arms)*
                ::core::result::Result::Ok(::core::option::Option::None)
            }

            fn from_ranged_row_of(row: #krate::Row, table: &#krate::TableName)
                -> #krate::Result<::core::option::Option<Self>> {
                #(#ranged_arms)*
                ::core::result::Result::Ok(::core::option::Option::None)
            }
        }
    }
}
