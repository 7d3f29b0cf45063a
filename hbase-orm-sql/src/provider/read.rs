//! What a scan of an entity table asks HBase for: the cells a query's columns and filter need,
//! by family or by name.

use hbase_orm::entity::{ColumnKind, KeyTest};
use hbase_orm::{Column, HBaseEntity, Scan};

use super::EntityTable;
use crate::batches::BatchBuilder;
use crate::pushdown::KeySpan;
use crate::scan::ScanOrder;
use crate::schema::Source;
use crate::values::ValueFilter;

impl<E: HBaseEntity> EntityTable<E> {
    /// The scan of the spans, with the cells the projection and the filter need.
    pub(super) fn order(
        &self,
        projection: Option<&[usize]>,
        spans: Vec<KeySpan>,
        key_tests: Vec<KeyTest>,
        filter: Option<&ValueFilter>,
        batch_size: usize,
        limit: Option<usize>,
    ) -> ScanOrder<E> {
        let builder = BatchBuilder::<E>::new(&self.schema, projection, self.table.clone());
        let mut scan = Scan::new();
        let picked: Vec<usize> = match projection {
            Some(p) => p.to_vec(),
            None => (0..self.schema.sources().len()).collect(),
        };
        for i in picked {
            if let Source::Cell(c) = self.schema.sources()[i].source {
                let def = &E::COLUMNS[c];
                // A wide map's whole family, else the one column.
                scan.columns.push(def.column());
                if let ColumnKind::Versions(n) = def.kind {
                    let n = i32::try_from(n).unwrap_or(i32::MAX);
                    scan.max_versions = Some(scan.max_versions.unwrap_or(1).max(n));
                }
            }
        }
        // The cell that tells a row holds an entity, and the cells the filter tests (HBase
        // tests only the cells a scan reads).
        let (family, qualifier) = builder.presence_cell();
        let tested = filter.into_iter().flat_map(|f| &f.columns).map(|&c| {
            let def = &E::COLUMNS[c];
            (def.family.as_bytes(), def.qualifier.as_bytes())
        });
        for (family, qualifier) in std::iter::once((family, qualifier)).chain(tested) {
            let read = scan.columns.iter().any(|c| {
                c.family == family && c.qualifier.as_deref().is_none_or(|q| q == qualifier)
            });
            if !read {
                scan = scan.column(family, qualifier);
            }
        }
        scan.columns = whole_families::<E>(
            std::mem::take(&mut scan.columns),
            self.settings.whole_families,
        );
        scan.filter = filter.map(|f| f.expression.clone());
        if scan.filter.is_none() {
            qualifiers_by_filter(&mut scan);
        }
        scan.caching = self.settings.page_size;
        ScanOrder {
            table: self.client.table_named(self.table.clone()),
            template: scan,
            spans,
            key_tests,
            builder,
            batch_size,
            limit,
            stats: self.stats.clone(),
        }
    }
}

/// The columns to ask HBase for: a family whose declared columns are mostly asked for (any
/// family with `all`) is asked for whole. A region server finds each column asked for by name
/// with a seek of its own, so eight named columns of a row cost several times one family
/// (measured: a scan of every column of 200,000 eight-column rows took 3.0 s by name and 0.6 s
/// by family); the cells of other columns that come along are skipped by the batch builder.
fn whole_families<E: HBaseEntity>(columns: Vec<Column>, all: bool) -> Vec<Column> {
    let mut out: Vec<Column> = Vec::with_capacity(columns.len());
    for family in E::FAMILIES {
        let of_family = || columns.iter().filter(|c| c.family == family.as_bytes());
        let asked = of_family().count();
        let declared = E::COLUMNS.iter().filter(|c| c.family == *family).count();
        // A wide map's family is asked for whole already.
        let whole = of_family().any(|c| c.qualifier.is_none());
        if asked > 0 && (whole || all || (asked > 2 && asked * 2 > declared)) {
            out.push(Column {
                family: family.as_bytes().to_vec(),
                qualifier: None,
            });
        } else {
            out.extend(
                columns
                    .iter()
                    .filter(|c| c.family == family.as_bytes())
                    .cloned(),
            );
        }
    }
    // Columns of families the entity does not declare (none today), as they were.
    out.extend(
        columns
            .into_iter()
            .filter(|c| !E::FAMILIES.iter().any(|f| c.family == f.as_bytes())),
    );
    out
}

/// A scan of columns asked for by name, all of them, made a scan of their families with a
/// filter that keeps only those columns' cells. A region server finds each column asked for
/// by name with a seek of its own; a filter's cells it skips one by one, in the block it has
/// read anyway (measured on a one-region table of 200,000 eight-column rows, an aggregate of
/// 3 columns: 355,228 rows/s by name, 585,477 by filter, in two runs of
/// `cargo bench --bench sql` on a fresh HBase). Only for scans without a filter of their own:
/// a value's test must see its cell.
fn qualifiers_by_filter(scan: &mut Scan) {
    if scan.columns.is_empty() || scan.columns.iter().any(|c| c.qualifier.is_none()) {
        return;
    }
    let mut families: Vec<Vec<u8>> = Vec::new();
    let mut tests: Vec<Vec<u8>> = Vec::new();
    for column in std::mem::take(&mut scan.columns) {
        if !families.contains(&column.family) {
            families.push(column.family.clone());
        }
        let mut comparator = b"binary:".to_vec();
        comparator.extend_from_slice(column.qualifier.as_deref().unwrap_or_default());
        let mut test = b"QualifierFilter(=, ".to_vec();
        test.extend_from_slice(&hbase_orm::filter_literal(&comparator));
        test.push(b')');
        tests.push(test);
    }
    scan.columns = families
        .into_iter()
        .map(|family| Column {
            family,
            qualifier: None,
        })
        .collect();
    scan.filter = Some(tests.join(&b" OR "[..]));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Columns by name become their families and a filter of their qualifiers; a scan with a
    /// family asked for whole (a wide map's) stays as it is.
    #[test]
    fn named_columns_are_read_by_a_qualifier_filter() {
        let mut scan = Scan::new()
            .column("d", "a")
            .column("e", "it's")
            .column("d", "");
        qualifiers_by_filter(&mut scan);
        let families: Vec<_> = scan
            .columns
            .iter()
            .map(|c| (c.family.clone(), c.qualifier.clone()))
            .collect();
        assert_eq!(families, [(b"d".to_vec(), None), (b"e".to_vec(), None)]);
        assert_eq!(
            String::from_utf8(scan.filter.unwrap()).unwrap(),
            "QualifierFilter(=, 'binary:a') OR QualifierFilter(=, 'binary:it''s') OR \
             QualifierFilter(=, 'binary:')"
        );
        let mut wide = Scan::new().column("d", "a").family("w");
        let before = wide.columns.clone();
        qualifiers_by_filter(&mut wide);
        assert_eq!(wide.columns, before);
        assert!(wide.filter.is_none());
    }
}
