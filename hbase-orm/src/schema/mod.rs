//! What entities declare about their tables, the report of bringing HBase in line with it
//! ([`EnsureReport`]; the calls that do it are the repository's `Admin::ensure*`), and tables
//! named by period (per-day tables; their date templates in `templates.rs`). Nothing here does
//! I/O.

use std::fmt;

use crate::model::{Error, Result, TableDescriptor, TableName};

mod templates;
pub use templates::{render_table_template, table_template_start, template_period_ms};

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
    /// options declared twice must agree, and so must non-empty split keys and region
    /// replications other than 1 (the default, which gives way to another). The result has one
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
        match (
            self.descriptor.region_replication,
            other.descriptor.region_replication,
        ) {
            (mine, theirs) if mine == theirs || theirs == 1 => {}
            (1, theirs) => self.descriptor.region_replication = theirs,
            (mine, theirs) => {
                return Err(Error::IllegalArgument {
                    message: format!(
                        "conflicting region replication for table {}: {} declares {mine}, {} \
                         declares {theirs}",
                        self.descriptor.name, by.0, by.1
                    ),
                })
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
    fn a_region_replication_merges_over_the_default_and_two_others_conflict() {
        let schema = |by: &'static str, replicas: u32| TableSchema {
            descriptor: TableDescriptor::new(TableName::new("ns", "t"))
                .family(ColumnFamily::new("d"))
                .region_replication(replicas),
            split_keys: vec![],
            declared_by: vec![by],
        };
        for order in [[("A", 1), ("B", 3)], [("B", 3), ("A", 1)]] {
            let merged = TableSchema::merge_all(order.map(|(by, n)| schema(by, n)).to_vec());
            assert_eq!(merged.unwrap()[0].descriptor.region_replication, 3);
        }
        let same = TableSchema::merge_all(vec![schema("A", 2), schema("B", 2)]).unwrap();
        assert_eq!(same[0].descriptor.region_replication, 2);
        let err = TableSchema::merge_all(vec![schema("A", 2), schema("B", 3)]).unwrap_err();
        let text = err.to_string();
        assert!(
            matches!(err, Error::IllegalArgument { .. })
                && text.contains("A declares 2")
                && text.contains("B declares 3"),
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
