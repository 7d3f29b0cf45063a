//! Schema design advice from the HBase guides, as a check users can run on their entities
//! (and assert in their tests).
//!
//! ```
//! use hbase_orm::HBaseEntity;
//!
//! #[derive(HBaseEntity)]
//! #[hbase(table = "log", family = "data")]
//! struct LogLine {
//!     #[hbase(key)]
//!     ts: i64,
//!     message_text_body: String,
//! }
//!
//! let findings = hbase_orm::advice::check::<LogLine>();
//! let rules: Vec<_> = findings.iter().map(|f| f.rule).collect();
//! assert_eq!(rules, ["long_family_name", "long_qualifier", "monotonic_key_start"]);
//! ```

use std::fmt;

use crate::mapping::rowkey::KeyKind;
use crate::mapping::{ColumnDef, ColumnKind, HBaseEntity, KeyPartDef};
use crate::model::ColumnFamily;

/// Families beyond this count draw a finding.
pub const MAX_FAMILIES: usize = 3;
/// Family names longer than this draw a finding.
pub const MAX_FAMILY_NAME: usize = 3;
/// Qualifiers longer than this draw a finding.
pub const MAX_QUALIFIER: usize = 12;
/// Fixed row-key widths above this draw a finding.
pub const MAX_KEY_BYTES: usize = 64;

/// One piece of advice: which rule, about what, why it matters and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// A stable name of the rule (`too_many_families`, `long_family_name`, `long_qualifier`,
    /// `monotonic_key_start`, `undelimited_variable_part`, `delimiter_above_text`, `long_key`,
    /// `versions_exceed_family`).
    pub rule: &'static str,
    /// The entity, family, column or key part concerned.
    pub subject: String,
    /// Why HBase cares.
    pub why: String,
    /// What to do about it.
    pub fix: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[{}] {}: {} Fix: {}",
            self.rule, self.subject, self.why, self.fix
        )
    }
}

/// Whether a field name reads like a time or a sequence number.
fn sounds_monotonic(field: &str) -> bool {
    let lower = field.to_ascii_lowercase();
    let words: Vec<&str> = lower.split('_').collect();
    words.iter().any(|w| {
        matches!(
            *w,
            "ts" | "time"
                | "timestamp"
                | "date"
                | "day"
                | "seq"
                | "sequence"
                | "created"
                | "updated"
                | "epoch"
                | "counter"
                | "millis"
                | "at"
        )
    }) || lower.ends_with("time")
        || lower.ends_with("timestamp")
}

/// Runs every rule on entity `T`.
pub fn check<T: HBaseEntity>() -> Vec<Finding> {
    let entity = Subject {
        name: std::any::type_name::<T>()
            .rsplit("::")
            .next()
            .unwrap_or_default(),
        families: T::FAMILIES,
        columns: T::COLUMNS,
        family_descriptors: T::family_descriptors(),
        key_parts: T::KEY_PARTS,
        key_delimiter: T::KEY_DELIMITER,
        salted: T::SALT_BUCKETS.is_some(),
        tagged: T::RECORD_TAG.is_some(),
    };
    let mut out = Vec::new();
    for rule in RULES {
        rule(&entity, &mut out);
    }
    out
}

/// What the rules read of an entity: its declarations and, for the messages, its type's name.
struct Subject {
    name: &'static str,
    families: &'static [&'static str],
    columns: &'static [ColumnDef],
    family_descriptors: Vec<ColumnFamily>,
    key_parts: &'static [KeyPartDef],
    key_delimiter: Option<u8>,
    salted: bool,
    tagged: bool,
}

/// A rule: pushes its findings about an entity, if any.
type Rule = fn(&Subject, &mut Vec<Finding>);

/// Every rule, in the order [`check`] reports their findings.
const RULES: [Rule; 8] = [
    too_many_families,
    long_family_name,
    long_qualifier,
    versions_exceed_family,
    monotonic_key_start,
    undelimited_variable_part,
    delimiter_above_text,
    long_key,
];

fn too_many_families(e: &Subject, out: &mut Vec<Finding>) {
    if e.families.len() > MAX_FAMILIES {
        out.push(Finding {
            rule: "too_many_families",
            subject: format!("{} ({} families)", e.name, e.families.len()),
            why: "HBase flushes and compacts a region's families together, so every extra \
                  family multiplies I/O; the guides advise one to three."
                .into(),
            fix: "merge families that are written and read together; keep a separate family \
                  only for data with a different access pattern or settings"
                .into(),
        });
    }
}

fn long_family_name(e: &Subject, out: &mut Vec<Finding>) {
    for f in e.families.iter().filter(|f| f.len() > MAX_FAMILY_NAME) {
        out.push(Finding {
            rule: "long_family_name",
            subject: format!("{} family {f:?}", e.name),
            why: "the family name is stored in every cell.".into(),
            fix: format!("use a name of 1 to {MAX_FAMILY_NAME} characters, e.g. \"d\""),
        });
    }
}

fn long_qualifier(e: &Subject, out: &mut Vec<Finding>) {
    // Wide maps and groups choose their qualifiers per entry; their declared name is not one.
    for c in e
        .columns
        .iter()
        .filter(|c| !c.kind.reads_family() && c.qualifier.len() > MAX_QUALIFIER)
    {
        out.push(Finding {
            rule: "long_qualifier",
            subject: format!("{}.{} ({}:{})", e.name, c.field, c.family, c.qualifier),
            why: "the qualifier is stored in every cell.".into(),
            fix: format!(
                "shorten it with #[hbase(rename = \"...\")] to at most {MAX_QUALIFIER} characters"
            ),
        });
    }
}

fn versions_exceed_family(e: &Subject, out: &mut Vec<Finding>) {
    for c in e.columns {
        let ColumnKind::Versions(n) = c.kind else {
            continue;
        };
        let kept = e
            .family_descriptors
            .iter()
            .find(|f| f.name == c.family)
            .and_then(|f| f.max_versions)
            .unwrap_or(1);
        if i64::from(kept) < i64::from(n) {
            out.push(Finding {
                rule: "versions_exceed_family",
                subject: format!(
                    "{}.{} reads {n} versions of family {}",
                    e.name, c.field, c.family
                ),
                why: format!(
                    "the family keeps {kept} version(s); HBase drops older ones at flush and \
                     compaction, so the field would read fewer than it declares."
                ),
                fix: format!(
                    "declare family_options({}(max_versions = {n})) and run Admin::ensure",
                    c.family
                ),
            });
        }
    }
}

fn monotonic_key_start(e: &Subject, out: &mut Vec<Finding>) {
    let Some(first) = e.key_parts.first() else {
        return;
    };
    // A time written as text (a formatted date, a custom codec) rises just the same.
    let monotonic = first.kind == KeyKind::ReverseTimestamp
        || (matches!(
            first.kind,
            KeyKind::Ordered | KeyKind::FixedText | KeyKind::Variable | KeyKind::Custom
        ) && sounds_monotonic(first.field));
    if monotonic && !e.salted {
        out.push(Finding {
            rule: "monotonic_key_start",
            subject: format!("{} row key starts with `{}`", e.name, first.field),
            why: "keys that start with a timestamp or sequence all land in the newest \
                  region: one region server takes every write (hot-spotting)."
                .into(),
            fix: "lead with an entity id (host, customer), salt the key with \
                  #[hbase(salt(buckets = N))], or hash the leading part (key(md5))"
                .into(),
        });
    }
}

/// The index of the last key part (0 when there is none).
fn last_part(e: &Subject) -> usize {
    e.key_parts.len().saturating_sub(1)
}

fn undelimited_variable_part(e: &Subject, out: &mut Vec<Finding>) {
    let last = last_part(e);
    for (i, part) in e.key_parts.iter().enumerate() {
        if i < last && part.width.is_none() && e.key_delimiter.is_none() {
            out.push(Finding {
                rule: "undelimited_variable_part",
                subject: format!("{} key part `{}`", e.name, part.field),
                why: "a variable-length part followed by another part makes keys ambiguous \
                      and prefix scans wrong."
                    .into(),
                fix: "declare a key delimiter or give the part a fixed width".into(),
            });
        }
    }
}

fn delimiter_above_text(e: &Subject, out: &mut Vec<Finding>) {
    let Some(d) = e.key_delimiter else {
        return;
    };
    let has_variable = e.key_parts[..last_part(e).min(e.key_parts.len())]
        .iter()
        .any(|p| p.width.is_none());
    if d > 0x2C && has_variable {
        out.push(Finding {
            rule: "delimiter_above_text",
            subject: format!("{} key delimiter 0x{d:02X}", e.name),
            why: "keys sort by bytes: with this delimiter `a|` sorts after `a-b|`, so range \
                  scans over several leading values do not follow the parts' order \
                  (prefix scans are exact either way)."
                .into(),
            fix: "use key_delimiter = '\\0' where range scans must follow part order".into(),
        });
    }
}

fn long_key(e: &Subject, out: &mut Vec<Finding>) {
    let fixed: usize = e.key_parts.iter().filter_map(|p| p.width).sum::<usize>()
        + usize::from(e.salted)
        + usize::from(e.tagged);
    if fixed > MAX_KEY_BYTES {
        out.push(Finding {
            rule: "long_key",
            subject: format!("{} row key ({fixed} bytes of fixed parts)", e.name),
            why: "the row key is stored in every cell and every index block.".into(),
            fix: "shorten parts: hash long ones (key(md5 = 8)) or substitute ids for names \
                  (hbase_orm::Dictionary)"
                .into(),
        });
    }
}

/// Panics with every finding of [`check`], for a test that keeps an entity's design clean.
/// `allow` lists rules to accept.
pub fn assert_good_design<T: HBaseEntity>(allow: &[&str]) {
    let findings: Vec<String> = check::<T>()
        .into_iter()
        .filter(|f| !allow.contains(&f.rule))
        .map(|f| f.to_string())
        .collect();
    assert!(
        findings.is_empty(),
        "schema design findings:\n{}",
        findings.join("\n")
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mapping::{CellReader, CellWriter, ColumnDef, NoKey};
    use crate::model::ColumnFamily;

    /// An entity written by hand whose family keeps fewer versions than its field reads (the
    /// derive refuses to declare this; a hand-written impl or a shared table can).
    struct Inbox;

    impl HBaseEntity for Inbox {
        type Key = NoKey;
        const NAMESPACE: &'static str = "default";
        const TABLE: &'static str = "inbox";
        const FAMILIES: &'static [&'static str] = &["d"];
        const COLUMNS: &'static [ColumnDef] = &[ColumnDef {
            field: "posts",
            family: "d",
            qualifier: "p",
            key_part: false,
            kind: ColumnKind::Versions(100),
            optional: false,
            has_default: false,
            value_type: crate::mapping::ValueType::Text,
            map_key: None,
        }];
        fn family_descriptors() -> Vec<ColumnFamily> {
            vec![ColumnFamily::new("d").max_versions(3)]
        }
        fn column_index(_: &[u8], _: &[u8]) -> Option<usize> {
            None
        }
        fn key(&self) -> NoKey {
            unreachable!()
        }
        fn write_row_key(&self, _: &mut Vec<u8>) -> Result<(), crate::mapping::rowkey::KeyError> {
            Ok(())
        }
        fn write_cells(&self, _: &mut CellWriter<'_, Self>) -> crate::model::Result<()> {
            Ok(())
        }
        fn read_cells(_: &[u8], _: &mut CellReader<'_, Self>) -> crate::model::Result<Self> {
            Ok(Inbox)
        }
    }

    #[test]
    fn a_family_keeping_fewer_versions_than_a_field_reads_is_a_finding() {
        let rules: Vec<_> = check::<Inbox>().into_iter().map(|f| f.rule).collect();
        assert_eq!(rules, ["versions_exceed_family"]);
    }
}
