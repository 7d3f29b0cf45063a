//! Checks of the table layout: salt buckets, record-type tag, family options, pre-splits,
//! table templates, region replication.

use darling::error::Accumulator;

use proc_macro2::Span;

use super::{list, names};
use crate::attr;
use crate::model::{FamilyOptions, KeyPart, Salt, SaltSource, Split, Tag};

/// The index of the key part named `name`.
fn part_index(keys: &[KeyPart], name: &str) -> Option<usize> {
    keys.iter().position(|k| k.ident == name.trim())
}

/// Reports `subject` (`` `time` ``, or ``hash part 2, `ordr`,``) as no key part, with the
/// nearest key part's name to `name`.
fn not_a_key_part(
    errors: &mut Accumulator,
    subject: &str,
    name: &str,
    span: Span,
    keys: &[KeyPart],
) {
    let parts: Vec<String> = keys.iter().map(|k| k.ident.to_string()).collect();
    let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
    errors.push(
        darling::Error::custom(format!(
            "{subject} is not a key part{}",
            crate::known::did_you_mean(name.trim(), &parts)
        ))
        .with_span(&span),
    );
}

/// [`not_a_key_part`] for a name that is a whole string.
fn not_a_key_part_value(
    errors: &mut Accumulator,
    name: &darling::util::SpannedValue<String>,
    keys: &[KeyPart],
) {
    let subject = format!("`{}`", name.as_str());
    not_a_key_part(errors, &subject, name, name.span(), keys);
}

/// `salt(buckets = N, hash = "..." | modulo = "...")`.
pub fn salt(errors: &mut Accumulator, e: &attr::Entity, keys: &[KeyPart]) -> Option<Salt> {
    let salt = e.salt.as_ref()?;
    if *salt.buckets == 0 {
        errors.push(
            darling::Error::custom("salt needs 1 to 255 buckets").with_span(&salt.buckets.span()),
        );
        return None;
    }
    let source = match (&salt.hash, &salt.modulo) {
        (Some(_), Some(m)) => {
            errors.push(
                darling::Error::custom("`salt(hash)` and `salt(modulo)` exclude each other")
                    .with_span(&m.span()),
            );
            return None;
        }
        (None, Some(m)) => match part_index(keys, m) {
            Some(i) => SaltSource::Modulo(i),
            None => {
                not_a_key_part_value(errors, m, keys);
                return None;
            }
        },
        (Some(h), None) => {
            let names = list::items(h);
            // A name that is no key part is most likely a typo: said at the name, with the
            // nearest key part.
            let mut strangers = false;
            for n in names.iter().filter(|n| !n.name.is_empty()) {
                if part_index(keys, &n.name).is_none() {
                    let subject = n.subject("hash part");
                    not_a_key_part(errors, &subject, &n.name, n.span, keys);
                    strangers = true;
                }
            }
            if strangers {
                return None;
            }
            let leading = names
                .iter()
                .enumerate()
                .all(|(i, n)| keys.get(i).is_some_and(|k| k.ident == n.name));
            if !leading {
                errors.push(
                    darling::Error::custom(format!(
                        "`salt(hash = ...)` takes the leading key parts in order, e.g. \"{}\"",
                        keys.first()
                            .map(|k| k.ident.to_string())
                            .unwrap_or_default()
                    ))
                    .with_span(&h.span()),
                );
                return None;
            }
            SaltSource::Hash(names.len())
        }
        (None, None) => SaltSource::Hash(keys.len()),
    };
    Some(Salt {
        buckets: *salt.buckets,
        source,
    })
}

/// `record_type(tag = T, after = "part")`.
pub fn tag(errors: &mut Accumulator, e: &attr::Entity, keys: &[KeyPart]) -> Option<Tag> {
    let rt = e.record_type.as_ref()?;
    let before = match &rt.after {
        None => 0,
        Some(after) => match part_index(keys, after) {
            Some(i) => i + 1,
            None => {
                not_a_key_part_value(errors, after, keys);
                return None;
            }
        },
    };
    Some(Tag {
        tag: *rt.tag,
        before,
    })
}

/// `extra_families = "..."` and `family_options(d(...), ...)`: adds the extra families to
/// `families` (those the fields use) and checks that options name one of them or the
/// struct's `family`.
pub fn family_options(
    errors: &mut Accumulator,
    e: &attr::Entity,
    families: &mut Vec<String>,
) -> Vec<FamilyOptions> {
    if let Some(extra) = &e.extra_families {
        const WHAT: &str = "extra family";
        for item in list::items(extra) {
            let family = item.name.as_str();
            let problem = if family.is_empty() {
                errors.push(item.empty(WHAT));
                continue;
            } else if !names::family_ok(family) {
                "is not a column family name (printable ASCII without ':')"
            } else if families.iter().any(|f| f == family) {
                "holds fields of the struct: it is not an extra family"
            } else {
                families.push(family.to_string());
                continue;
            };
            errors.push(
                darling::Error::custom(format!("{} {problem}", item.subject(WHAT)))
                    .with_span(&item.span),
            );
        }
    }
    let mut out: Vec<FamilyOptions> = Vec::new();
    for (ident, options) in &e.family_options.0 {
        let family = ident.to_string();
        names::family(errors, &family, ident.span());
        // The struct's own family is declared even when no field is stored in it (a record
        // type that shares a table may set its options).
        let own = e.family.as_deref() == Some(&family);
        if own && !families.contains(&family) {
            families.push(family.clone());
        }
        if !families.contains(&family) {
            let known: Vec<&str> = families.iter().map(String::as_str).collect();
            let near = crate::known::nearest(&family, &known)
                .map(|n| format!("did you mean `{n}`? "))
                .unwrap_or_default();
            errors.push(
                darling::Error::custom(format!(
                    "family `{family}` has options but no field of the struct is stored in it: \
                     {near}(a family kept on purpose without fields is declared with \
                     `extra_families = \"{family}\"`)"
                ))
                .with_span(ident),
            );
            continue;
        }
        if out.iter().any(|o| o.family == family) {
            errors.push(
                darling::Error::custom(format!("family {family:?} has options declared twice"))
                    .with_span(ident),
            );
            continue;
        }
        out.push(FamilyOptions {
            family,
            options: options.clone(),
        });
    }
    out
}

/// `split(salt | key = "..." | uniform = N)`.
pub fn split(errors: &mut Accumulator, e: &attr::Entity, salt: Option<&Salt>) -> Option<Split> {
    let sp = e.split.as_ref()?;
    let chosen = usize::from(sp.salt.is_present())
        + usize::from(!sp.keys.is_empty())
        + usize::from(sp.uniform.is_some());
    if chosen != 1 {
        errors.push(
            darling::Error::custom(
                "split takes one of `salt`, `key = \"...\"` (repeatable) or `uniform = N`",
            )
            .with_span(&sp.span()),
        );
        return None;
    }
    if sp.salt.is_present() {
        match salt {
            Some(s) => Some(Split::Salt(s.buckets)),
            None => {
                errors.push(
                    darling::Error::custom("split(salt) needs #[hbase(salt(buckets = N))]")
                        .with_span(&sp.span()),
                );
                None
            }
        }
    } else if let Some(n) = sp.uniform {
        Some(Split::Uniform(n))
    } else {
        Some(Split::Keys(sp.keys.clone()))
    }
}

/// The key part that fills a table template (`table_time`), which a template needs.
pub fn table_time(errors: &mut Accumulator, e: &attr::Entity, keys: &[KeyPart]) -> Option<usize> {
    let templated = e.table.as_ref().is_some_and(|t| t.contains('{'));
    match (&e.table_time, templated) {
        (Some(tt), true) => {
            let i = part_index(keys, tt);
            if i.is_none() {
                not_a_key_part_value(errors, tt, keys);
            }
            i
        }
        (None, true) => {
            errors.push(
                darling::Error::custom(
                    "a table template such as \"tx_{yyyyMMdd}\" needs table_time = \"<key part \
                     holding milliseconds since the epoch>\"",
                )
                .with_span(&e.ident),
            );
            None
        }
        (Some(tt), false) => {
            errors.push(
                darling::Error::custom(
                    "table_time is only used with a table template like \"tx_{yyyyMMdd}\"",
                )
                .with_span(&tt.span()),
            );
            None
        }
        (None, false) => None,
    }
}

/// The most replicas a region can have: HBase numbers them 0 to `0xFFFF` (the library's
/// `TableDescriptor::MAX_REGION_REPLICATION`).
const MAX_REGION_REPLICATION: u32 = 0x1_0000;

/// `region_replication = N`: replicas per region, the primary included, an integer literal 1
/// to [`MAX_REGION_REPLICATION`]. Anything else is reported at the value.
pub fn region_replication(errors: &mut Accumulator, e: &attr::Entity) -> Option<u32> {
    let value = &e.region_replication.as_ref()?.0;
    let replicas = match value {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(n),
            ..
        }) => n.base10_parse::<u32>().ok(),
        _ => None,
    };
    let valid = replicas.filter(|n| (1..=MAX_REGION_REPLICATION).contains(n));
    if valid.is_none() {
        errors.push(
            darling::Error::custom(format!(
                "region_replication takes the number of replicas per region, the primary \
                 included: an integer 1 to {MAX_REGION_REPLICATION} (1 is no read replicas), \
                 e.g. `region_replication = 3`"
            ))
            .with_span(value),
        );
    }
    valid
}
