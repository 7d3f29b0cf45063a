//! Checks of row-key fields: `key`, `key(fixed | codec | reverse_timestamp | reversed | md5)`.

use darling::error::Accumulator;
use darling::util::Override;
use syn::spanned::Spanned;

use super::{option_inner, std_type_name, wrong_type};
use crate::attr;
use crate::model::KeyEncoding;

/// The encoding of a key field, or `None` after reporting a mistake.
pub fn encoding(errors: &mut Accumulator, field: &attr::Field) -> Option<KeyEncoding> {
    let key = field.key.as_ref()?;
    if option_inner(&field.ty).is_some() {
        errors.push(
            darling::Error::custom("a row-key part cannot be an Option")
                .with_span(&field.ty.span()),
        );
        return None;
    }
    if let Some(float @ ("f32" | "f64")) = std_type_name(&field.ty).as_deref() {
        errors.push(
            darling::Error::custom(format!(
                "a row-key part cannot be an `{float}`: its bytes would not sort as its values, \
                 and a key needs `Eq` and `Hash`; key on an integer (the value in thousandths \
                 as an `i64`, say) or store the number in a plain field"
            ))
            .with_span(&field.ty),
        );
        return None;
    }
    let opts = match &**key {
        Override::Inherit => return Some(KeyEncoding::Default),
        Override::Explicit(opts) => opts,
    };
    let ty = &field.ty;
    let chosen: Vec<&str> = [
        ("fixed", opts.fixed.is_some()),
        ("codec", opts.codec.is_some()),
        ("reverse_timestamp", opts.reverse_timestamp.is_present()),
        ("reversed", opts.reversed.is_present()),
        ("md5", opts.md5.is_some()),
        ("dictionary", opts.dictionary.is_some()),
    ]
    .iter()
    .filter(|(_, set)| *set)
    .map(|(n, _)| *n)
    .collect();
    if chosen.len() > 1 {
        errors.push(
            darling::Error::custom(format!(
                "`key({})` exclude each other: pick one encoding",
                chosen.join(")` and `key(")
            ))
            .with_span(&key.span()),
        );
        return None;
    }
    Some(if let Some(n) = &opts.fixed {
        if **n == 0 {
            errors.push(
                darling::Error::custom("a fixed width must be at least 1 byte")
                    .with_span(&n.span()),
            );
        }
        let why = "`key(fixed = N)` pads text to N bytes: the part is a `String`, not a `{ty}` \
                   (an integer part has a fixed width already: use `#[hbase(key)]`)";
        if wrong_type(errors, ty, "String", why) {
            return None;
        }
        KeyEncoding::Fixed(**n)
    } else if let Some(c) = &opts.codec {
        KeyEncoding::Custom(c.clone())
    } else if opts.reverse_timestamp.is_present() {
        let why = "`key(reverse_timestamp)` stores `i64::MAX - t` so that the newest sorts \
                   first: the part is an `i64` of milliseconds, not a `{ty}`";
        if wrong_type(errors, ty, "i64", why) {
            return None;
        }
        KeyEncoding::ReverseTimestamp
    } else if opts.reversed.is_present() {
        let why = "`key(reversed)` stores text back to front: the part is a `String`, not a `{ty}`";
        if wrong_type(errors, ty, "String", why) {
            return None;
        }
        KeyEncoding::Reversed
    } else if let Some(dict) = &opts.dictionary {
        let ok = !dict.is_empty() && !dict.contains('\0');
        if !ok {
            errors.push(
                darling::Error::custom("a dictionary name is non-empty text without NUL bytes")
                    .with_span(&dict.span()),
            );
        }
        KeyEncoding::Dictionary(dict.to_string())
    } else if let Some(md5) = &opts.md5 {
        let n = match &**md5 {
            Override::Inherit => 16,
            Override::Explicit(n) => *n,
        };
        if !(1..=16).contains(&n) {
            errors.push(
                darling::Error::custom("`md5 = N` keeps 1 to 16 bytes of the digest")
                    .with_span(&md5.span()),
            );
        }
        KeyEncoding::Md5(n)
    } else {
        KeyEncoding::Default
    })
}
