//! Writes code from a validated [`crate::model`]; the only place that builds tokens. Also the
//! two derives' pipelines (parse, validate, expand) and their stubs after an error.

mod entity;
mod group;
mod indexes;
mod keys;
mod record;
mod tokens;

use darling::FromDeriveInput;
use proc_macro2::TokenStream;
use quote::quote;

use crate::{attr, known, valid};

/// `#[derive(HBaseEntity)]`: parses, validates and expands; on errors, all of them plus a
/// stub impl.
pub fn derive_entity(input: &syn::DeriveInput) -> TokenStream {
    if let Some(refusal) = not_a_named_struct(input, "HBaseEntity", entity_stub) {
        return refusal;
    }
    let model = |input: &_| attr::Entity::from_derive_input(input).and_then(|e| valid::entity(&e));
    let levels = [&known::ENTITY, &known::FIELD];
    pipeline(input, levels, entity_stub, model, |m| {
        let key = keys::key_type(m, true);
        let imp = entity::entity_impl(m);
        let handles = entity::field_handles(m);
        let indexes = indexes::index_types(m);
        quote!(#key #imp #handles #indexes)
    })
}

/// `#[derive(HBaseRecord)]`: the same pipeline for an enum of entity types.
pub fn derive_record(input: &syn::DeriveInput) -> TokenStream {
    if !matches!(input.data, syn::Data::Enum(_)) {
        let e = darling::Error::custom(
            "HBaseRecord is derived for an enum whose variants each hold one entity, e.g. \
             `enum CustomerRecord { Customer(Customer), Order(Order) }`",
        )
        .with_span(&input.ident);
        return e.write_errors();
    }
    let model =
        |input: &_| attr::Record::from_derive_input(input).and_then(|r| valid::record_set(&r));
    let levels = [&known::RECORD, &known::RECORD];
    pipeline(input, levels, record_stub, model, record::record_impl)
}

/// `#[derive(HBaseColumns)]`: the same pipeline for a group of columns.
pub fn derive_group(input: &syn::DeriveInput) -> TokenStream {
    if let Some(refusal) = not_a_named_struct(input, "HBaseColumns", group_stub) {
        return refusal;
    }
    let model = |input: &_| attr::Group::from_derive_input(input).and_then(|g| valid::group(&g));
    let levels = [&known::RECORD, &known::GROUP_FIELD];
    pipeline(input, levels, group_stub, model, group::group_impl)
}

/// Every derive's pipeline: strips the attribute names unknown at the item's and the fields'
/// `levels` (each one an error), parses and validates the rest into a model, and expands it
/// when nothing was wrong; else every mistake, the unknown names first, with a stub impl.
fn pipeline<M>(
    input: &syn::DeriveInput,
    [item_level, field_level]: [&known::Level; 2],
    stub: fn(&syn::Ident, &syn::Path) -> TokenStream,
    model: impl FnOnce(&syn::DeriveInput) -> darling::Result<M>,
    expand: impl FnOnce(&M) -> TokenStream,
) -> TokenStream {
    let mut input = input.clone();
    let mut errors = known::strip_unknown(&mut input, item_level, field_level);
    match model(&input) {
        Ok(m) if errors.is_empty() => expand(&m),
        Ok(_) => with_stub(errors, &input, stub),
        Err(e) => {
            errors.push(e);
            with_stub(errors, &input, stub)
        }
    }
}

/// If the item is not a struct with named fields, the error saying what it is (with a stub
/// impl), for `derive`.
fn not_a_named_struct(
    input: &syn::DeriveInput,
    derive: &str,
    stub: fn(&syn::Ident, &syn::Path) -> TokenStream,
) -> Option<TokenStream> {
    let shape = match &input.data {
        syn::Data::Enum(_) => "an enum",
        syn::Data::Union(_) => "a union",
        syn::Data::Struct(s) => match s.fields {
            syn::Fields::Named(_) => return None,
            syn::Fields::Unit => "a unit struct",
            syn::Fields::Unnamed(_) => "a tuple struct",
        },
    };
    let e = darling::Error::custom(format!(
        "{derive} can only be derived for a struct with named fields, not {shape}"
    ))
    .with_span(&input.ident);
    Some(with_stub(vec![e], input, stub))
}

/// The errors, and a stub impl that keeps the rest of the user's code from failing with
/// "not implemented" after an attribute mistake. It is never run: the crate does not compile.
fn with_stub(
    errors: Vec<darling::Error>,
    input: &syn::DeriveInput,
    stub: fn(&syn::Ident, &syn::Path) -> TokenStream,
) -> TokenStream {
    let mut out = darling::Error::multiple(errors).write_errors();
    if input.generics.params.is_empty() {
        out.extend(stub(&input.ident, &stub_crate(input)));
    }
    out
}

/// The `crate = "..."` path of the item if it can be read despite the errors, else
/// `::hbase_orm`.
fn stub_crate(input: &syn::DeriveInput) -> syn::Path {
    #[derive(FromDeriveInput)]
    #[darling(attributes(hbase), allow_unknown_fields)]
    struct CratePath {
        #[darling(default, rename = "crate")]
        krate: Option<syn::Path>,
    }
    CratePath::from_derive_input(input)
        .ok()
        .and_then(|c| c.krate)
        .unwrap_or_else(|| syn::parse_quote!(::hbase_orm))
}

fn entity_stub(ident: &syn::Ident, krate: &syn::Path) -> TokenStream {
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

fn group_stub(ident: &syn::Ident, krate: &syn::Path) -> TokenStream {
    quote! {
        impl #krate::entity::ColumnGroup for #ident {
            fn write_group(&self, _: &str, _: &mut #krate::entity::GroupWriter) -> #krate::Result<()> {
                ::core::unreachable!()
            }
            fn read_group(_: &str, _: &mut #krate::entity::GroupReader<'_>) -> #krate::Result<Self> {
                ::core::unreachable!()
            }
        }
    }
}

fn record_stub(ident: &syn::Ident, krate: &syn::Path) -> TokenStream {
    quote! {
        impl #krate::RecordSet for #ident {
            fn table_name() -> #krate::TableName {
                ::core::unreachable!()
            }
            fn columns() -> ::std::vec::Vec<#krate::Column> {
                ::core::unreachable!()
            }
            fn salt_buckets() -> ::core::option::Option<u8> {
                ::core::unreachable!()
            }
            fn from_row_of(_: #krate::Row, _: &#krate::TableName)
                -> #krate::Result<::core::option::Option<Self>> {
                ::core::unreachable!()
            }
        }
    }
}
