//! A `Multi` request encoded as its actions are made.

use super::super::frame::Encoded;
use super::super::proto;
use super::Part;

/// The `MultiRequest` of the items of `parts`, encoded as each action is made (no message per
/// action is kept: a batch of puts allocates the row keys' copies and little else), and their
/// cells written into `cells`, in the same order: the server reads each mutation's count of
/// cells off the block in turn. A plain part's actions carry their item's index; an atomic
/// part's (rows' mutations, applied all or none) carry none and are answered together.
pub(super) fn request(
    parts: &[Part],
    actions: impl Fn(usize, &mut Vec<u8>, &mut Vec<proto::Action>),
    cells: &mut Vec<u8>,
) -> Encoded {
    use prost::encoding::{bool, encode_key, encode_varint, message, WireType};
    let mut out = Vec::new();
    let mut encoded = Vec::new();
    let mut made = Vec::new();
    for part in parts {
        encoded.clear();
        for &i in &part.items {
            made.clear();
            actions(i, cells, &mut made);
            for action in made.drain(..) {
                let action = proto::Action {
                    index: (!part.atomic).then_some(i as u32),
                    ..action
                };
                // `RegionAction.action`, field 3.
                message::encode(3, &action, &mut encoded);
            }
        }
        // `MultiRequest.region_action`, field 1: a `RegionAction` of the region (field 1),
        // whether it is atomic (field 2, only when it is) and the actions.
        let specifier = part.region.specifier();
        let atomic_len = if part.atomic {
            bool::encoded_len(2, &true)
        } else {
            0
        };
        encode_key(1, WireType::LengthDelimited, &mut out);
        encode_varint(
            (message::encoded_len(1, &specifier) + atomic_len + encoded.len()) as u64,
            &mut out,
        );
        message::encode(1, &specifier, &mut out);
        if part.atomic {
            bool::encode(2, &true, &mut out);
        }
        out.extend_from_slice(&encoded);
    }
    Encoded(out)
}

#[cfg(test)]
mod tests {
    use super::super::tests::region;
    use super::*;

    /// The request encoded as its actions are made is the `MultiRequest` prost would encode,
    /// and the cells follow the actions' order: plain parts with an indexed action per item,
    /// an atomic part with a row's put and delete, unindexed, marked atomic.
    #[test]
    fn a_request_encoded_action_by_action_is_the_multi_request() {
        use super::super::super::convert;
        use prost::Message;
        let parts = vec![
            Part {
                region: region("a"),
                items: vec![2, 0],
                atomic: false,
            },
            Part {
                region: region("a"),
                items: vec![3],
                atomic: true,
            },
            Part {
                region: region("b"),
                items: vec![1],
                atomic: false,
            },
        ];
        let actions = |i: usize, cells: &mut Vec<u8>, out: &mut Vec<proto::Action>| {
            let row = format!("row{i}");
            let put = crate::model::Put::new(row.clone()).column("d", "q", vec![i as u8]);
            out.push(proto::Action {
                mutation: Some(convert::put(&put, cells)),
                ..Default::default()
            });
            if i == 3 {
                let delete = crate::model::Delete::new(row).column("d", "gone");
                out.push(proto::Action {
                    mutation: Some(convert::delete(&delete)),
                    ..Default::default()
                });
            }
        };
        let mut cells = Vec::new();
        let encoded = request(&parts, actions, &mut cells);
        let mut expected_cells = Vec::new();
        let expected = proto::MultiRequest {
            region_action: parts
                .iter()
                .map(|part| {
                    let mut made = Vec::new();
                    for &i in &part.items {
                        let before = made.len();
                        actions(i, &mut expected_cells, &mut made);
                        for action in &mut made[before..] {
                            action.index = (!part.atomic).then_some(i as u32);
                        }
                    }
                    proto::RegionAction {
                        region: part.region.specifier(),
                        atomic: part.atomic.then_some(true),
                        action: made,
                        ..Default::default()
                    }
                })
                .collect(),
            ..Default::default()
        };
        assert_eq!(encoded.0, expected.encode_to_vec());
        assert_eq!(cells, expected_cells);
        let rows: Vec<Vec<u8>> = super::super::super::cellblock::Cells::new(&cells)
            .map(|c| c.unwrap().row.to_vec())
            .collect();
        assert_eq!(rows, [&b"row2"[..], b"row0", b"row3", b"row1"]);
        assert_eq!(
            proto::MultiRequest::decode(&encoded.0[..]).unwrap(),
            expected
        );
    }
}
