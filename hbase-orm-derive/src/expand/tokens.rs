//! The small pieces of code the model's choices stand for: codec types, family descriptors,
//! split keys.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

use crate::model::{
    Column, ColumnKind, Entity, FamilyOptions, KeyEncoding, KeyPart, Split, ValueEncoding,
};

/// `tokens` with every span set to `span`. The codecs the derive picks itself get the field
/// type's span, so that "`T` cannot be stored" and "`T` has no default row-key encoding" point at
/// the type rather than at the derive.
pub fn respan(tokens: TokenStream, span: Span) -> TokenStream {
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

/// The `KeyCodec` type of a key part.
pub fn key_codec(krate: &syn::Path, k: &KeyPart) -> TokenStream {
    let ty = &k.ty;
    let own = |codec: TokenStream| respan(codec, ty.span());
    match &k.encoding {
        KeyEncoding::Default => own(quote!(<#ty as #krate::rowkey::KeyPart>::Codec)),
        KeyEncoding::Fixed(n) => own(quote!(#krate::rowkey::FixedText<#n>)),
        KeyEncoding::Custom(path) => path.to_token_stream(),
        KeyEncoding::ReverseTimestamp => own(quote!(#krate::rowkey::ReverseTimestamp)),
        KeyEncoding::Reversed => own(quote!(#krate::rowkey::ReversedText)),
        KeyEncoding::Md5(n) => own(quote!(#krate::rowkey::Md5<#n>)),
        KeyEncoding::Dictionary(_) => own(quote!(#krate::entity::DictionaryId)),
    }
}

/// The `Codec` type of a stored field.
pub fn value_codec(krate: &syn::Path, c: &Column) -> TokenStream {
    let span = c.ty.span();
    match &c.encoding {
        // HBase's counter cell; the type lets only counter handles into increments.
        ValueEncoding::Native if matches!(c.kind, ColumnKind::Counter) => {
            respan(quote!(#krate::Counter), span)
        }
        ValueEncoding::Native => respan(quote!(#krate::Native), span),
        ValueEncoding::Json => respan(quote!(#krate::Json), span),
        ValueEncoding::Custom(path) => path.to_token_stream(),
    }
}

/// A `ColumnFamily` built with its declared options: each option is a call of the builder
/// method of that name (`known` has already refused any other name), so the library checks
/// the value types; a text value goes
/// through the library's constant parser of that option (`family_option::NAME("...")`), so
/// an unknown choice fails the build at the attribute.
pub fn family_descriptor(
    krate: &syn::Path,
    family: &str,
    options: Option<&FamilyOptions>,
) -> TokenStream {
    let calls = options
        .into_iter()
        .flat_map(|o| &o.options)
        .map(|(name, value)| {
            let value = match value {
                syn::Lit::Str(_) => quote_spanned! {value.span()=>
                    const { #krate::family_option::#name(#value) }
                },
                other => other.to_token_stream(),
            };
            quote_spanned! {name.span()=> .#name(#value) }
        });
    quote!(#krate::ColumnFamily::new(#family) #(#calls)*)
}

/// The body of `split_keys()`.
pub fn split_keys(krate: &syn::Path, split: &Split) -> TokenStream {
    match split {
        Split::Salt(b) => quote!(#krate::rowkey::salt_split_keys(#b)),
        Split::Uniform(n) => quote!(#krate::rowkey::uniform_split_keys(#n)),
        Split::Keys(keys) => {
            let keys = keys.iter().map(|k| quote!(#k.as_bytes().to_vec()));
            quote!(::std::vec![#(#keys),*])
        }
    }
}

/// `Option<u8>` as tokens.
pub fn option_byte(b: Option<u8>) -> TokenStream {
    match b {
        Some(b) => quote!(::core::option::Option::Some(#b)),
        None => quote!(::core::option::Option::None),
    }
}

/// The entity's `ColumnFamily` descriptors, or nothing when no family has options. A family
/// holding a `versions = N` field keeps at least N versions unless it declares `max_versions`.
pub fn family_descriptors(m: &Entity) -> TokenStream {
    let versions = |f: &str| {
        m.columns
            .iter()
            .filter(|c| c.family == f)
            .filter_map(|c| match c.kind {
                ColumnKind::Versions(n) => Some(n),
                _ => None,
            })
            .max()
    };
    if m.family_options.is_empty() && m.families.iter().all(|f| versions(f).is_none()) {
        return quote!();
    }
    let krate = &m.krate;
    let each = m.families.iter().map(|f| {
        let declared = m.family_options.iter().find(|o| o.family == *f);
        let mut tokens = family_descriptor(krate, f, declared);
        let says_max = declared.is_some_and(|o| o.options.iter().any(|(n, _)| n == "max_versions"));
        if let (Some(n), false) = (versions(f), says_max) {
            let n = i32::try_from(n).unwrap_or(i32::MAX);
            tokens.extend(quote!(.max_versions(#n)));
        }
        tokens
    });
    quote! {
        fn family_descriptors() -> ::std::vec::Vec<#krate::ColumnFamily> {
            ::std::vec![#(#each),*]
        }
    }
}

/// `fn dictionary_parts(&self)` returning each dictionary key part of `keys`, read from
/// `self.<field>` (an entity and its key type name the parts alike).
pub fn dictionary_parts(krate: &syn::Path, keys: &[KeyPart]) -> TokenStream {
    let parts: Vec<TokenStream> = keys
        .iter()
        .filter_map(|k| match &k.encoding {
            KeyEncoding::Dictionary(name) => {
                let id = &k.ident;
                Some(quote!((#name, &self.#id)))
            }
            _ => None,
        })
        .collect();
    if parts.is_empty() {
        return quote!();
    }
    quote! {
        fn dictionary_parts(&self) -> ::std::vec::Vec<(&'static str, &#krate::DictName)> {
            ::std::vec![#(#parts),*]
        }
    }
}

/// `KeyWriter` over `out` in the entity's key layout.
pub fn key_writer(m: &Entity) -> TokenStream {
    key_layout(m, quote!(KeyWriter), quote!(out))
}

/// `KeyReader` over `key` in the entity's key layout.
pub fn key_reader(m: &Entity) -> TokenStream {
    key_layout(m, quote!(KeyReader), quote!(key))
}

/// `rowkey::<ty>` (`KeyWriter` or `KeyReader`) over `bytes` in the entity's key layout.
fn key_layout(m: &Entity, ty: TokenStream, bytes: TokenStream) -> TokenStream {
    let krate = &m.krate;
    match (m.separate_all, m.delimiter) {
        (true, Some(sep)) => quote!(#krate::rowkey::#ty::separated(#bytes, #sep)),
        _ => {
            let delim = option_byte(m.delimiter);
            quote!(#krate::rowkey::#ty::new(#bytes, #delim))
        }
    }
}

/// A field's name without a raw-identifier prefix, and the name of its handle constant (the
/// name in upper case: `Order::CITY`).
pub fn handle_name(ident: &syn::Ident) -> (String, syn::Ident) {
    let name = ident.to_string();
    let name = name.strip_prefix("r#").unwrap_or(&name).to_string();
    let konst = syn::Ident::new(&name.to_uppercase(), ident.span());
    (name, konst)
}

/// `KeyField::new(..)` of key part `i`: its name, the layout of the key before it (salt byte,
/// earlier parts and what follows each, the record-type tag) and whether it is the last.
pub fn key_field(m: &Entity, i: usize) -> TokenStream {
    let krate = &m.krate;
    let delimiter = match m.delimiter {
        Some(d) => quote!(::core::option::Option::Some(#d)),
        None => quote!(::core::option::Option::None),
    };
    let separate_all = m.separate_all;
    let slot_of = |k: &KeyPart| {
        let (ty, codec) = (&k.ty, key_codec(krate, k));
        quote_spanned! {ty.span()=>
            #krate::entity::KeySlot::part(
                <#codec as #krate::rowkey::KeyCodec<#ty>>::WIDTH,
                #delimiter,
                #separate_all,
            )
        }
    };
    let mut slots = Vec::new();
    if m.salt.is_some() {
        slots.push(quote!(#krate::entity::KeySlot::AnyByte));
    }
    // The tag stands before the part it names (or after the last one).
    let tag_at = |j: usize| {
        let byte = m.tag.as_ref().filter(|t| t.before == j)?.tag;
        Some(quote!(#krate::entity::KeySlot::Byte(#byte)))
    };
    for (j, earlier) in m.keys[..i].iter().enumerate() {
        slots.extend(tag_at(j));
        slots.push(slot_of(earlier));
    }
    slots.extend(tag_at(i));
    let k = &m.keys[i];
    let (name, _) = handle_name(&k.ident);
    let last = m.is_last(i);
    respan(
        quote!(#krate::entity::KeyField::new(#name, &[#(#slots),*], #last)),
        k.ty.span(),
    )
}
