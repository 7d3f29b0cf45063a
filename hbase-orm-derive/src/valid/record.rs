//! Checks of a `#[derive(HBaseRecord)]` enum: not generic, at least one variant, each variant
//! holding exactly one entity. That the entities share a table and have distinct tags is
//! checked by the compiler on the generated code, where their constants are known.

use super::not_generic;
use crate::attr;
use crate::model::RecordSet;

/// Validates an `HBaseRecord` enum.
pub fn record_set(r: &attr::Record) -> darling::Result<RecordSet> {
    let mut errors = darling::Error::accumulator();
    not_generic(&mut errors, &r.generics, "HBaseRecord", "enum");
    let variants = r
        .data
        .as_ref()
        .take_enum()
        .expect("darling checks enum_any");
    let mut out = Vec::new();
    for v in &variants {
        match &v.fields {
            syn::Fields::Unnamed(f) if f.unnamed.len() == 1 => {
                out.push((v.ident.clone(), f.unnamed[0].ty.clone()));
            }
            _ => errors.push(
                darling::Error::custom("each variant holds exactly one entity: `Variant(Entity)`")
                    .with_span(v),
            ),
        }
    }
    if variants.is_empty() {
        errors.push(
            darling::Error::custom("HBaseRecord needs at least one variant").with_span(&r.ident),
        );
    }
    errors.finish()?;
    Ok(RecordSet {
        ident: r.ident.clone(),
        krate: r
            .krate
            .clone()
            .unwrap_or_else(|| syn::parse_quote!(::hbase_orm)),
        variants: out,
    })
}
