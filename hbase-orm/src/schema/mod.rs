//! What entities declare about their tables, the report of bringing HBase in line with it
//! ([`EnsureReport`]; the calls that do it are the repository's `Admin::ensure*`), and tables
//! named by period (per-day tables). Nothing here does I/O.

use std::fmt;

use crate::model::{Error, Result, TableDescriptor, TableName};

/// What an entity (or several sharing a table) declares about its table: the descriptor and
/// the split keys to create it with, and who declared it (named in conflicts).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableSchema {
    /// Name and families with their declared options (`None`: HBase's default).
    pub descriptor: TableDescriptor,
    /// Region boundaries to create the table with.
    pub split_keys: Vec<Vec<u8>>,
    /// The entity types that declared this schema.
    pub declared_by: Vec<&'static str>,
}

impl TableSchema {
    /// Merges the schemas of several entity types into one per table: families are united,
    /// options declared twice must agree, and so must non-empty split keys. The result has one
    /// schema per distinct table, in first-seen order.
    pub fn merge_all(schemas: Vec<TableSchema>) -> Result<Vec<TableSchema>> {
        let mut merged: Vec<TableSchema> = Vec::new();
        for s in schemas {
            match merged
                .iter_mut()
                .find(|m| m.descriptor.name == s.descriptor.name)
            {
                None => merged.push(s),
                Some(m) => m.merge(s)?,
            }
        }
        Ok(merged)
    }

    fn merge(&mut self, other: TableSchema) -> Result<()> {
        let by = (self.declared_by.join("+"), other.declared_by.join("+"));
        for f in other.descriptor.families {
            match self
                .descriptor
                .families
                .iter_mut()
                .find(|m| m.name == f.name)
            {
                None => self.descriptor.families.push(f),
                Some(m) => m.merge(&f, (&by.0, &by.1))?,
            }
        }
        if !other.split_keys.is_empty() {
            if self.split_keys.is_empty() {
                self.split_keys = other.split_keys;
            } else if self.split_keys != other.split_keys {
                return Err(Error::IllegalArgument {
                    message: format!(
                        "conflicting split keys for table {}: {} and {} declare different ones",
                        self.descriptor.name, by.0, by.1
                    ),
                });
            }
        }
        self.declared_by.extend(other.declared_by);
        Ok(())
    }
}

/// A column family option that `ensure` changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionChange {
    /// The family.
    pub family: String,
    /// The option's name.
    pub option: &'static str,
    /// The value HBase had.
    pub from: String,
    /// The declared value now in force.
    pub to: String,
}

/// What [`crate::Admin::ensure`] found and did for one table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EnsureReport {
    /// The table.
    pub table: Option<TableName>,
    /// The namespace was created.
    pub created_namespace: bool,
    /// The table was created (with its families and split keys).
    pub created_table: bool,
    /// Families added to an existing table.
    pub added_families: Vec<String>,
    /// Family options brought in line with the declaration.
    pub changed_options: Vec<OptionChange>,
    /// Families HBase has that no entity declares: left alone, with their data.
    pub undeclared_families: Vec<String>,
    /// The table exists with other region boundaries than declared (regions are not
    /// re-split by `ensure`).
    pub split_keys_differ: bool,
    /// The reports of the entity's related tables: its secondary index tables
    /// (`#[hbase(index(...))]`) and the dictionary table of its dictionary key parts.
    pub related_tables: Vec<EnsureReport>,
}

impl EnsureReport {
    /// True when `ensure` changed nothing.
    pub fn is_noop(&self) -> bool {
        !self.created_namespace
            && !self.created_table
            && self.added_families.is_empty()
            && self.changed_options.is_empty()
            && self.related_tables.iter().all(EnsureReport::is_noop)
    }
}

impl fmt::Display for EnsureReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self
            .table
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default();
        if self.created_namespace {
            writeln!(f, "{name}: created namespace")?;
        }
        if self.created_table {
            writeln!(f, "{name}: created table")?;
        }
        for fam in &self.added_families {
            writeln!(f, "{name}: added family {fam}")?;
        }
        for c in &self.changed_options {
            writeln!(
                f,
                "{name}: family {} {}: {} -> {}",
                c.family, c.option, c.from, c.to
            )?;
        }
        for fam in &self.undeclared_families {
            writeln!(f, "{name}: family {fam} is not declared; left as is")?;
        }
        if self.split_keys_differ {
            writeln!(
                f,
                "{name}: regions differ from the declared split keys; not re-split"
            )?;
        }
        if self.is_noop() {
            writeln!(f, "{name}: up to date")?;
        }
        for related in &self.related_tables {
            write!(f, "{related}")?;
        }
        Ok(())
    }
}

/// The start (milliseconds since the epoch, UTC) of the period a table rendered from
/// `template` covers: `tx_20261121` from `tx_{yyyyMMdd}` starts at 2026-11-21T00:00Z. `None`
/// when `table` does not fit the template. Fields the template lacks count from their start
/// (a `{yyyyMM}` table starts on day 1).
///
/// ```
/// use hbase_orm::{render_table_template, table_template_start};
///
/// let ms = 1_795_239_520_000; // 2026-11-21T05:38:40Z
/// let table = render_table_template("tx_{yyyyMMdd}", ms);
/// assert_eq!(table_template_start("tx_{yyyyMMdd}", &table), Some(ms - ms % 86_400_000));
/// assert_eq!(table_template_start("tx_{yyyyMMdd}", "tx_2026"), None);
/// ```
pub fn table_template_start(template: &str, table: &str) -> Option<i64> {
    let (mut year, mut month, mut day, mut hour) = (1970i64, 1i64, 1i64, 0i64);
    let (mut t, mut n) = (template, table);
    while !t.is_empty() {
        let placeholder = [
            ("{yyyyMMddHH}", 10),
            ("{yyyyMMdd}", 8),
            ("{yyyyMM}", 6),
            ("{yyyy}", 4),
            ("{MM}", 2),
            ("{dd}", 2),
            ("{HH}", 2),
        ]
        .into_iter()
        .find(|(p, _)| t.starts_with(p));
        match placeholder {
            Some((p, width)) => {
                let digits = n.get(..width)?;
                if !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                let num = |r: std::ops::Range<usize>| digits[r].parse::<i64>().ok();
                match p {
                    "{yyyyMMddHH}" | "{yyyyMMdd}" | "{yyyyMM}" | "{yyyy}" => {
                        year = num(0..4)?;
                        if width >= 6 {
                            month = num(4..6)?;
                        }
                        if width >= 8 {
                            day = num(6..8)?;
                        }
                        if width >= 10 {
                            hour = num(8..10)?;
                        }
                    }
                    "{MM}" => month = num(0..2)?,
                    "{dd}" => day = num(0..2)?,
                    _ => hour = num(0..2)?,
                }
                t = &t[p.len()..];
                n = &n[width..];
            }
            None => {
                let c = t.chars().next()?;
                n = n.strip_prefix(c)?;
                t = &t[c.len_utf8()..];
            }
        }
    }
    if !n.is_empty() || !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 {
        return None;
    }
    // A civil date to days since 1970-01-01 (proleptic Gregorian).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400_000 + hour * 3_600_000)
}

/// The length in milliseconds of the period one table of `template` covers, when it is fixed:
/// an hour (`{HH}`), a day (`{dd}`, `{yyyyMMdd}`); `None` for months and years. The derive
/// checks with it that a time part keeping only the time within a period (`MillisOfDay`)
/// sits in tables no longer than that period.
///
/// ```
/// assert_eq!(hbase_orm::template_period_ms("tx_{yyyyMMdd}"), Some(86_400_000));
/// assert_eq!(hbase_orm::template_period_ms("tx_{yyyyMM}"), None);
/// ```
pub const fn template_period_ms(template: &str) -> Option<i64> {
    const fn contains(hay: &[u8], needle: &[u8]) -> bool {
        let mut i = 0;
        while i + needle.len() <= hay.len() {
            let mut j = 0;
            while j < needle.len() && hay[i + j] == needle[j] {
                j += 1;
            }
            if j == needle.len() {
                return true;
            }
            i += 1;
        }
        false
    }
    let t = template.as_bytes();
    if contains(t, b"HH}") {
        Some(3_600_000)
    } else if contains(t, b"dd}") {
        Some(86_400_000)
    } else {
        None
    }
}

/// Renders a table-name template for a time in milliseconds since the epoch (UTC):
/// `{yyyy}`, `{MM}`, `{dd}`, `{HH}` and the combinations `{yyyyMMdd}`, `{yyyyMM}`,
/// `{yyyyMMddHH}` are replaced; other text is kept.
///
/// ```
/// // 2026-11-21T05:38:40Z
/// assert_eq!(hbase_orm::render_table_template("tx_{yyyyMMdd}", 1_795_239_520_000), "tx_20261121");
/// ```
pub fn render_table_template(template: &str, millis: i64) -> String {
    let days = millis.div_euclid(86_400_000);
    let hour = millis.rem_euclid(86_400_000) / 3_600_000;
    // Days since 1970-01-01 to a civil date (proleptic Gregorian).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    template
        .replace(
            "{yyyyMMddHH}",
            &format!("{year:04}{month:02}{day:02}{hour:02}"),
        )
        .replace("{yyyyMMdd}", &format!("{year:04}{month:02}{day:02}"))
        .replace("{yyyyMM}", &format!("{year:04}{month:02}"))
        .replace("{yyyy}", &format!("{year:04}"))
        .replace("{MM}", &format!("{month:02}"))
        .replace("{dd}", &format!("{day:02}"))
        .replace("{HH}", &format!("{hour:02}"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_bare_table_name_from_the_gateway_means_the_table_is_missing() {
        use super::*;
        let t = TableName::new("default", "t1");
        let e = t.recognise_missing(Error::from_server("get", "t1".into(), false));
        assert!(matches!(e, Error::TableNotFound { ref table } if table == "default:t1"));
        let e = t.recognise_missing(Error::from_server("get", "other".into(), false));
        assert!(matches!(e, Error::Server { .. }));
    }

    use super::*;
    use crate::model::ColumnFamily;

    #[test]
    fn templates_render_utc_dates() {
        assert_eq!(render_table_template("t_{yyyyMMdd}", 0), "t_19700101");
        assert_eq!(
            render_table_template("t_{yyyyMMddHH}", 951_782_400_000 + 3_600_000),
            "t_2000022901"
        );
        assert_eq!(render_table_template("{yyyy}-{MM}-{dd}", -1), "1969-12-31");
        assert_eq!(render_table_template("plain", 5), "plain");
    }

    #[test]
    fn schemas_of_one_table_merge_and_conflicts_name_both_sides() {
        let schema = |by: &'static str, fam: ColumnFamily, splits: Vec<Vec<u8>>| TableSchema {
            descriptor: TableDescriptor::new(TableName::new("ns", "t")).family(fam),
            split_keys: splits,
            declared_by: vec![by],
        };
        let merged = TableSchema::merge_all(vec![
            schema("Customer", ColumnFamily::new("d").max_versions(3), vec![]),
            schema("Order", ColumnFamily::new("d").ttl(60), vec![b"m".to_vec()]),
            schema("Order", ColumnFamily::new("x"), vec![]),
        ])
        .unwrap();
        assert_eq!(merged.len(), 1);
        let d = merged[0].descriptor.get_family("d").unwrap();
        assert_eq!((d.max_versions, d.time_to_live), (Some(3), Some(60)));
        assert_eq!(merged[0].descriptor.families.len(), 2);
        assert_eq!(merged[0].split_keys, vec![b"m".to_vec()]);

        let err = TableSchema::merge_all(vec![
            schema("Customer", ColumnFamily::new("d").max_versions(3), vec![]),
            schema("Order", ColumnFamily::new("d").max_versions(5), vec![]),
        ])
        .unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("Customer") && text.contains("Order") && text.contains("max_versions"),
            "{text}"
        );
    }

    #[test]
    fn differences_compare_only_declared_options() {
        let actual = ColumnFamily::new("d").max_versions(1).in_memory(false);
        let declared = ColumnFamily::new("d").max_versions(3);
        assert_eq!(
            declared.differences(&actual),
            vec![("max_versions", "1".into(), "3".into())]
        );
        assert!(ColumnFamily::new("d").differences(&actual).is_empty());
    }

    #[test]
    fn table_names_parse_and_print_like_hbase() {
        let t = TableName::parse("shop:orders").unwrap();
        assert_eq!((t.namespace.as_str(), t.name.as_str()), ("shop", "orders"));
        assert_eq!(t.to_string(), "shop:orders");
        let t = TableName::parse("orders").unwrap();
        assert_eq!(t.namespace, "default");
        assert_eq!(t.to_string(), "orders");
        assert!(TableName::parse("bad name").is_err());
        assert!(TableName::parse("ns:").is_err());
    }
}
