//! A query's key spans cut at the table's regions (and regions into sub-ranges): the
//! partitions of its scan.

use hbase_orm::{HBaseEntity, Result};

use super::EntityTable;
use crate::pushdown::KeySpan;
use crate::scan::SMALL_LIMIT;
use crate::subranges;

impl<E: HBaseEntity> EntityTable<E> {
    /// The spans cut at the table's regions: one list per region that holds some (one list
    /// for a small `limit`: the regions read one after another until it is reached, where a
    /// partition per region would each read a page).
    pub(super) async fn per_region(
        &self,
        spans: Vec<KeySpan>,
        limit: Option<usize>,
        partitions: usize,
    ) -> Result<Vec<Vec<KeySpan>>> {
        if self.settings.one_partition || limit.is_some_and(|n| n < SMALL_LIMIT) {
            return Ok(vec![spans]);
        }
        let mut regions = self.client.admin().region_locations(&self.table).await?;
        regions.sort_by(|a, b| a.start_key.cmp(&b.start_key));
        // Regions that do not follow each other exactly (a split seen half done): one
        // partition, so that no row is read twice.
        let follow = regions
            .windows(2)
            .all(|w| !w[0].end_key.is_empty() && w[0].end_key == w[1].start_key);
        if !follow {
            return Ok(vec![spans]);
        }
        // Each region's spans, and whether they are the region's whole range.
        let per_region: Vec<(Vec<KeySpan>, bool)> = regions
            .iter()
            .map(|r| {
                let within: Vec<KeySpan> = spans
                    .iter()
                    .filter_map(|s| s.within(&r.start_key, &r.end_key))
                    .collect();
                let whole = matches!(within.as_slice(), [s] if s.start == r.start_key && s.stop == r.end_key);
                (within, whole)
            })
            .filter(|(s, _)| !s.is_empty())
            .collect();
        if per_region.is_empty() {
            // No region (or no span): one partition that reads what the spans say.
            return Ok(vec![spans]);
        }
        if !self.settings.whole_regions && per_region.len() < partitions {
            return self.cut_regions(per_region, partitions).await;
        }
        Ok(per_region.into_iter().map(|(s, _)| s).collect())
    }

    /// The regions read whole cut into sub-ranges (see `subranges`), so that there are about
    /// `partitions` in all; a region read in part (a key range of a query) stays one.
    async fn cut_regions(
        &self,
        regions: Vec<(Vec<KeySpan>, bool)>,
        partitions: usize,
    ) -> Result<Vec<Vec<KeySpan>>> {
        let pieces = partitions.div_ceil(regions.len());
        let table = self.client.table_named(self.table.clone());
        let mut out = Vec::with_capacity(partitions);
        for (spans, whole) in regions {
            let [span] = spans.as_slice() else {
                out.push(spans);
                continue;
            };
            if !whole {
                out.push(spans);
                continue;
            }
            match subranges::ends(&table, span).await? {
                Some((first, last)) => out.extend(
                    subranges::cut(span, &first, &last, pieces)
                        .into_iter()
                        .map(|piece| vec![piece]),
                ),
                None => out.push(spans),
            }
        }
        Ok(out)
    }
}
