//! Telling a region that split or moved from one that refuses its files for good.
//!
//! A region server answers a region's files with `loaded = false` both when the files no longer
//! fit the region (it split since the load looked it up) and when it could not take them at all:
//! its secure bulk-load path logs the exception ("Failed to complete bulk load") and sends no
//! reason back. The commonest such failure is a server that cannot read the files at the path
//! the client wrote them to (HBase in a container or on another machine, a staging directory
//! that only the client sees). A split or a move changes the region's location (a new region
//! id, other boundaries or another server) before the next round looks the regions up again;
//! a region that refuses twice from the same location did neither, and the load ends there
//! instead of writing its files again until its attempts run out.

use std::collections::HashMap;

use crate::model::{printable_key, Error, RegionLocation};

/// Where a region was when it refused: its id, boundaries and server.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Place {
    region_id: i64,
    start: Vec<u8>,
    end: Vec<u8>,
    server: String,
}

impl Place {
    fn of(location: &RegionLocation) -> Place {
        Place {
            region_id: location.region_id,
            start: location.start_key.clone(),
            end: location.end_key.clone(),
            server: match location.port {
                Some(port) => format!("{}:{port}", location.host),
                None => location.host.clone(),
            },
        }
    }
}

/// The regions that refused their files in the last round, by the first row of their share.
#[derive(Default)]
pub(super) struct Refusals {
    last: HashMap<Vec<u8>, Place>,
}

impl Refusals {
    /// Records the shares refused in a round (each its first row and one of its files'
    /// locations), placed in `regions` (the locations the round wrote them for). A share whose
    /// region refused in the round before from the same place ends the load: the error says so
    /// and what usually causes it.
    pub(super) fn record(
        &mut self,
        refused: impl IntoIterator<Item = (Vec<u8>, Option<String>)>,
        regions: &[RegionLocation],
    ) -> Result<(), Error> {
        let mut now = HashMap::new();
        for (first_row, file) in refused {
            let Some(location) = holding(regions, &first_row) else {
                continue;
            };
            let place = Place::of(location);
            if self.last.get(&first_row) == Some(&place) {
                return Err(stuck(&place, file.as_deref()));
            }
            now.insert(first_row, place);
        }
        self.last = now;
        Ok(())
    }
}

/// The region of `regions` (sorted or not) that holds `row`.
fn holding<'r>(regions: &'r [RegionLocation], row: &[u8]) -> Option<&'r RegionLocation> {
    regions.iter().find(|r| {
        r.start_key.as_slice() <= row && (r.end_key.is_empty() || row < r.end_key.as_slice())
    })
}

/// The error of a region that refused its files twice without splitting or moving.
fn stuck(place: &Place, file: Option<&str>) -> Error {
    let end = if place.end.is_empty() {
        "the end".to_string()
    } else {
        format!("'{}'", printable_key(&place.end))
    };
    Error::Server {
        method: "BulkLoadHFile",
        message: format!(
            "the region server {} refused the files of the region from '{}' to {end} twice, \
             and the region neither split nor moved in between: it could not take them. HBase \
             sends no reason (the server's log has it, after 'Failed to complete bulk load'); \
             the usual one is a server that cannot read the files where the client wrote them{}: \
             with HBase in a container or on another machine, give \
             BulkLoadOptions::staging_dir a directory mounted at the same path on both sides \
             (the repository's docker-compose.yml mounts /tmp/hbase-orm-bulk), or \
             BulkLoadOptions::hdfs_dir on a cluster whose root is in HDFS",
            place.server,
            printable_key(&place.start),
            match file {
                Some(file) => format!(" ({file})"),
                None => String::new(),
            }
        ),
        can_retry: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(id: i64, start: &str, end: &str, host: &str) -> RegionLocation {
        RegionLocation {
            start_key: start.as_bytes().to_vec(),
            end_key: end.as_bytes().to_vec(),
            region_id: id,
            host: host.into(),
            port: Some(16020),
        }
    }

    /// A region refused twice from the same place ends the load, naming the server, the
    /// region and a file; one that split or moved in between is tried again.
    #[test]
    fn only_a_region_that_refused_twice_from_one_place_ends_the_load() {
        let mut refusals = Refusals::default();
        let regions = vec![region(1, "", "m", "rs1"), region(2, "m", "", "rs1")];
        let file = Some("file:/tmp/x/d/f1".to_string());
        refusals
            .record([(b"a".to_vec(), file.clone())], &regions)
            .unwrap();

        // Split since: the share's first row is in a region of another id.
        let split = vec![
            region(3, "", "f", "rs1"),
            region(4, "f", "m", "rs1"),
            region(2, "m", "", "rs1"),
        ];
        refusals
            .record([(b"a".to_vec(), file.clone())], &split)
            .unwrap();
        // Moved since: another server.
        let moved = vec![region(3, "", "f", "rs2"), region(4, "f", "m", "rs1")];
        refusals
            .record([(b"a".to_vec(), file.clone())], &moved)
            .unwrap();
        // Another share refused: not the same one.
        refusals
            .record([(b"g".to_vec(), file.clone())], &moved)
            .unwrap();
        // A round where it was taken forgets it.
        refusals.record([], &moved).unwrap();
        refusals
            .record([(b"g".to_vec(), file.clone())], &moved)
            .unwrap();

        // The same region, the same server: stuck.
        let err = refusals
            .record([(b"g".to_vec(), file.clone())], &moved)
            .unwrap_err();
        let text = err.to_string();
        assert!(text.contains("rs1:16020"), "{text}");
        assert!(text.contains("from 'f' to 'm'"), "{text}");
        assert!(text.contains("file:/tmp/x/d/f1"), "{text}");
        assert!(text.contains("staging_dir"), "{text}");
        assert!(!err.is_retryable());
    }
}
