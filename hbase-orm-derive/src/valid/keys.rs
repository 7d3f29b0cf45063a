//! Checks of row-key fields: `key`, `key(fixed | codec | reverse_timestamp | reversed | md5)`.

use darling::error::Accumulator;
use darling::util::Override;
use syn::spanned::Spanned;

use super::option_inner;
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
    let opts = match &**key {
        Override::Inherit => return Some(KeyEncoding::Default),
        Override::Explicit(opts) => opts,
    };
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
        KeyEncoding::Fixed(**n)
    } else if let Some(c) = &opts.codec {
        KeyEncoding::Custom(c.clone())
    } else if opts.reverse_timestamp.is_present() {
        KeyEncoding::ReverseTimestamp
    } else if opts.reversed.is_present() {
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
