//! A `Multi` request encoded as its actions are made.

use std::sync::Arc;

use super::super::frame::Encoded;
use super::super::proto;
use super::super::regions::Region;

/// The `MultiRequest` of the actions of `regions`, encoded as each action is made (no message
/// per action is kept: a batch of puts allocates the row keys' copies and little else), and
/// their cells written into `cells`, in the same order: the server reads each mutation's
/// count of cells off the block in turn.
pub(super) fn request(
    regions: &[(Arc<Region>, Vec<usize>)],
    action: impl Fn(usize, &mut Vec<u8>) -> proto::Action,
    cells: &mut Vec<u8>,
) -> Encoded {
    use prost::encoding::{encode_key, encode_varint, message, WireType};
    let mut out = Vec::new();
    let mut actions = Vec::new();
    for (region, items) in regions {
        actions.clear();
        for &i in items {
            let action = proto::Action {
                index: Some(i as u32),
                ..action(i, cells)
            };
            // `RegionAction.action`, field 3.
            message::encode(3, &action, &mut actions);
        }
        // `MultiRequest.region_action`, field 1: a `RegionAction` of the region (field 1) and
        // the actions.
        let specifier = region.specifier();
        encode_key(1, WireType::LengthDelimited, &mut out);
        encode_varint(
            (message::encoded_len(1, &specifier) + actions.len()) as u64,
            &mut out,
        );
        message::encode(1, &specifier, &mut out);
        out.extend_from_slice(&actions);
    }
    Encoded(out)
}

#[cfg(test)]
mod tests {
    use super::super::tests::region;
    use super::*;

    /// The request encoded as its actions are made is the `MultiRequest` prost would encode,
    /// and the cells follow the actions' order.
    #[test]
    fn a_request_encoded_action_by_action_is_the_multi_request() {
        use prost::Message;
        let regions = vec![(region("a"), vec![2, 0]), (region("b"), vec![1])];
        let action = |i: usize, cells: &mut Vec<u8>| {
            let put = crate::model::Put::new(format!("row{i}")).column("d", "q", vec![i as u8]);
            proto::Action {
                mutation: Some(super::super::super::convert::put(&put, cells)),
                ..Default::default()
            }
        };
        let mut cells = Vec::new();
        let encoded = request(&regions, action, &mut cells);
        let mut expected_cells = Vec::new();
        let expected = proto::MultiRequest {
            region_action: regions
                .iter()
                .map(|(region, items)| proto::RegionAction {
                    region: region.specifier(),
                    action: items
                        .iter()
                        .map(|&i| proto::Action {
                            index: Some(i as u32),
                            ..action(i, &mut expected_cells)
                        })
                        .collect(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        };
        assert_eq!(encoded.0, expected.encode_to_vec());
        assert_eq!(cells, expected_cells);
        let rows: Vec<Vec<u8>> = super::super::super::cellblock::Cells::new(&cells)
            .map(|c| c.unwrap().row.to_vec())
            .collect();
        assert_eq!(rows, [&b"row2"[..], b"row0", b"row1"]);
        assert_eq!(
            proto::MultiRequest::decode(&encoded.0[..]).unwrap(),
            expected
        );
    }
}
