//! Secondary indexes: per index, a key type (written like an entity key, with `prefix_by_*`
//! functions), a marker type implementing `Index`, and the entry of `HBaseEntity::INDEXES`.

use proc_macro2::TokenStream;
use quote::quote;

use super::keys::key_type;
use crate::model::{Entity, Index};

/// The index key as an entity-like model, so the key writer of entities writes it too.
fn key_model(m: &Entity, ix: &Index) -> Entity {
    Entity {
        ident: ix.marker.clone(),
        vis: m.vis.clone(),
        krate: m.krate.clone(),
        namespace: m.namespace.clone(),
        table: ix.table.clone(),
        key_struct: ix.key_struct.clone(),
        key_kind: format!("index `{}`'s key", ix.name),
        delimiter: m.delimiter,
        separate_all: m.separate_all,
        keys: ix.parts.clone(),
        columns: Vec::new(),
        skipped: Vec::new(),
        families: Vec::new(),
        salt: None,
        tag: None,
        family_options: Vec::new(),
        split: None,
        table_time: None,
        indexes: Vec::new(),
        dictionary_table: None,
        region_replication: None,
    }
}

/// The key types and marker types of every index.
pub fn index_types(m: &Entity) -> TokenStream {
    let (krate, ident, vis) = (&m.krate, &m.ident, &m.vis);
    let each = m.indexes.iter().enumerate().map(|(i, ix)| {
        let key = key_type(&key_model(m, ix), false);
        let (marker, key_struct, name, table) = (&ix.marker, &ix.key_struct, &ix.name, &ix.table);
        let doc = format!(
            "The secondary index `{name}` of [`{ident}`] (table `{table}`): query it with \
             `repository.index::<{marker}>()`, its keys are [`{key_struct}`]."
        );
        quote! {
            #key

            #[doc = #doc]
            #[derive(Clone, Copy, Debug)]
            #vis struct #marker;

            impl #krate::entity::Index for #marker {
                type Entity = #ident;
                type Key = #key_struct;
                const POSITION: usize = #i;
            }
        }
    });
    quote!(#(#each)*)
}

/// `const INDEXES` of the `HBaseEntity` impl.
pub fn indexes_const(m: &Entity) -> TokenStream {
    if m.indexes.is_empty() {
        return quote!();
    }
    let (krate, ident) = (&m.krate, &m.ident);
    let defs = m.indexes.iter().map(|ix| {
        let (key_struct, name, table) = (&ix.key_struct, &ix.name, &ix.table);
        // Each part by reference; an `Option` part that is `None` means no index row.
        let bind = ix.parts.iter().map(|k| {
            let id = &k.ident;
            if ix.optional.contains(id) {
                quote! {
                    let ::core::option::Option::Some(#id) = &e.#id else {
                        return ::core::result::Result::Ok(false);
                    };
                }
            } else {
                quote!(let #id = &e.#id;)
            }
        });
        let fields = ix.parts.iter().map(|k| &k.ident);
        quote! {
            #krate::entity::IndexDef {
                name: #name,
                table: #table,
                write_key: |e: &#ident, out: &mut ::std::vec::Vec<u8>| {
                    #(#bind)*
                    #key_struct::write_parts(#(#fields,)* out)?;
                    ::core::result::Result::Ok(true)
                },
            }
        }
    });
    quote! {
        const INDEXES: &'static [#krate::entity::IndexDef<Self>] = &[#(#defs),*];
    }
}
