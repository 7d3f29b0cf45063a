//! The `ColumnGroup` impl of a `#[derive(HBaseColumns)]` struct.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

use crate::model::{Group, GroupField, GroupFieldKind, Missing, ValueEncoding};

fn codec(krate: &syn::Path, encoding: &ValueEncoding) -> TokenStream {
    match encoding {
        ValueEncoding::Native => quote!(#krate::Native),
        ValueEncoding::Json => quote!(#krate::Json),
        ValueEncoding::Custom(path) => path.to_token_stream(),
    }
}

pub fn group_impl(g: &Group) -> TokenStream {
    let (krate, ident) = (&g.krate, &g.ident);
    let (writes, reads): (Vec<_>, Vec<_>) = g.fields.iter().map(|f| field(krate, f)).unzip();
    quote! {
        impl #krate::entity::ColumnGroup for #ident {
            fn write_group(&self, prefix: &str, out: &mut #krate::entity::GroupWriter)
                -> #krate::Result<()> {
                #(#writes)*
                ::core::result::Result::Ok(())
            }

            fn read_group(prefix: &str, cells: &mut #krate::entity::GroupReader<'_>)
                -> #krate::Result<Self> {
                ::core::result::Result::Ok(#ident {
                    #(#reads,)*
                })
            }
        }
    }
}

/// How `write_group` writes the field `f` and how `read_group` reads it back.
fn field(krate: &syn::Path, f: &GroupField) -> (TokenStream, TokenStream) {
    let (id, ty) = (&f.ident, &f.ty);
    match &f.what {
        GroupFieldKind::Value {
            qualifier,
            missing,
            encoding,
        } => {
            let c = codec(krate, encoding);
            let write = match missing {
                Missing::Optional => quote_spanned! {ty.span()=>
                    out.optional::<#ty, #c>(prefix, #qualifier, &self.#id)?;
                },
                _ => quote_spanned! {ty.span()=>
                    out.value::<#ty, #c>(prefix, #qualifier, &self.#id)?;
                },
            };
            let read = match missing {
                Missing::Required => quote_spanned! {ty.span()=>
                    #id: cells.required::<#ty, #c>(prefix, #qualifier)?
                },
                Missing::Optional => quote_spanned! {ty.span()=>
                    #id: cells.optional::<#ty, #c>(prefix, #qualifier)?
                },
                Missing::Default(None) => quote_spanned! {ty.span()=>
                    #id: cells.or_else::<#ty, #c>(prefix, #qualifier, ::core::default::Default::default)?
                },
                Missing::Default(Some(path)) => quote_spanned! {ty.span()=>
                    #id: cells.or_else::<#ty, #c>(prefix, #qualifier, #path)?
                },
            };
            (write, read)
        }
        GroupFieldKind::Flatten(inner) => (
            quote_spanned! {ty.span()=>
                #krate::entity::ColumnGroup::write_group(
                    &self.#id, &::std::format!("{}{}", prefix, #inner), out)?;
            },
            quote_spanned! {ty.span()=>
                #id: <#ty as #krate::entity::ColumnGroup>::read_group(
                    &::std::format!("{}{}", prefix, #inner), cells)?
            },
        ),
        GroupFieldKind::Skip => (quote!(), quote!(#id: ::core::default::Default::default())),
    }
}
