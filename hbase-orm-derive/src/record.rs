//! `#[derive(HBaseRecord)]`: an enum of entity types sharing one table, told apart by their
//! record-type tags.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

/// Expands the derive, or returns the compile errors.
pub fn derive(input: &syn::DeriveInput) -> TokenStream {
    match expand(input) {
        Ok(tokens) => tokens,
        Err(e) => e.to_compile_error(),
    }
}

fn expand(input: &syn::DeriveInput) -> syn::Result<TokenStream> {
    let syn::Data::Enum(data) = &input.data else {
        return Err(syn::Error::new(
            input.ident.span(),
            "HBaseRecord is derived for an enum whose variants each hold one entity, \
             e.g. `enum CustomerRecord { Customer(Customer), Order(Order) }`",
        ));
    };
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new(
            input.generics.span(),
            "HBaseRecord cannot be derived for a generic enum",
        ));
    }
    let krate: syn::Path = syn::parse_quote!(::hbase_orm);
    let mut variants = Vec::new();
    let mut errors: Option<syn::Error> = None;
    for v in &data.variants {
        match &v.fields {
            syn::Fields::Unnamed(f) if f.unnamed.len() == 1 => {
                variants.push((&v.ident, &f.unnamed[0].ty));
            }
            _ => {
                let e = syn::Error::new(
                    v.span(),
                    "each variant holds exactly one entity: `Variant(Entity)`",
                );
                match &mut errors {
                    Some(all) => all.combine(e),
                    None => errors = Some(e),
                }
            }
        }
    }
    if let Some(e) = errors {
        return Err(e);
    }
    let Some((_, first)) = variants.first() else {
        return Err(syn::Error::new(
            input.ident.span(),
            "HBaseRecord needs at least one variant",
        ));
    };
    let ident = &input.ident;
    let same_table = variants.iter().skip(1).map(|(_, ty)| {
        let msg = "every variant of an HBaseRecord must be stored in the same table as the first";
        quote_spanned! {ty.span()=>
            const _: () = ::core::assert!(
                #krate::records::same_str(
                    <#ty as #krate::HBaseEntity>::TABLE,
                    <#first as #krate::HBaseEntity>::TABLE,
                ) && #krate::records::same_str(
                    <#ty as #krate::HBaseEntity>::NAMESPACE,
                    <#first as #krate::HBaseEntity>::NAMESPACE,
                ),
                #msg
            );
        }
    });
    let tagged = variants.iter().map(|(_, ty)| {
        let msg = "every variant of an HBaseRecord needs #[hbase(record_type(tag = ...))]";
        quote_spanned! {ty.span()=>
            const _: () = ::core::assert!(
                <#ty as #krate::HBaseEntity>::RECORD_TAG.is_some(),
                #msg
            );
        }
    });
    let krate_ref = &krate;
    let variants_ref = &variants;
    let distinct = variants.iter().enumerate().flat_map(|(i, (_, a))| {
        let krate = krate_ref;
        variants_ref[i + 1..].iter().map(move |(_, b)| {
            let msg = "two variants of an HBaseRecord have the same record-type tag";
            quote_spanned! {b.span()=>
                const _: () = ::core::assert!(
                    !::core::matches!(
                        (<#a as #krate::HBaseEntity>::RECORD_TAG, <#b as #krate::HBaseEntity>::RECORD_TAG),
                        (::core::option::Option::Some(x), ::core::option::Option::Some(y)) if x == y
                    ),
                    #msg
                );
            }
        })
    });
    let arms = variants.iter().map(|(v, ty)| {
        quote! {
            if <#ty as #krate::HBaseEntity>::is_record(&row.key) {
                return <#ty as #krate::HBaseEntity>::from_row_of(row, table)
                    .map(|e| ::core::option::Option::Some(#ident::#v(e)));
            }
        }
    });
    let column_lists = variants
        .iter()
        .map(|(_, ty)| quote!(columns.extend(#krate::records::columns_of::<#ty>());));
    Ok(quote! {
        #(#same_table)*
        #(#tagged)*
        #(#distinct)*

        impl #krate::RecordSet for #ident {
            fn table_name() -> #krate::TableName {
                <#first as #krate::HBaseEntity>::table_name()
            }

            fn columns() -> ::std::vec::Vec<#krate::Column> {
                let mut columns = ::std::vec::Vec::new();
                #(#column_lists)*
                columns
            }

            fn salt_buckets() -> ::core::option::Option<u8> {
                <#first as #krate::HBaseEntity>::SALT_BUCKETS
            }

            fn from_row_of(row: #krate::Row, table: &#krate::TableName)
                -> #krate::Result<::core::option::Option<Self>> {
                #(#arms)*
                ::core::result::Result::Ok(::core::option::Option::None)
            }
        }
    })
}
