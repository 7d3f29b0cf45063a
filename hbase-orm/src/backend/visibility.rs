//! Cell visibility as HBase's client sends it on every wire: an operation attribute named
//! `VISIBILITY` holding the protobuf `CellVisibility { 1: expression }` on a mutation, or
//! `Authorizations { repeated 1: label }` on a get or scan (HBase's
//! `Mutation.setCellVisibility` and `Query.setAuthorizations` write exactly these). The gateways
//! pass operation attributes on, so the native backend and both Thrift gateways send the same
//! bytes.

/// The attribute's name.
pub(crate) const ATTRIBUTE: &str = "VISIBILITY";

/// `CellVisibility { expression }`, encoded.
pub(crate) fn cell_visibility(expression: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(expression.len() + 6);
    string_field(&mut out, expression);
    out
}

/// `Authorizations { label... }`, encoded.
pub(crate) fn authorizations(labels: &[String]) -> Vec<u8> {
    let mut out = Vec::new();
    for label in labels {
        string_field(&mut out, label);
    }
    out
}

/// Field 1, length-delimited: its key, its length as a varint, its bytes.
fn string_field(out: &mut Vec<u8>, text: &str) {
    out.push(0x0a);
    let mut len = text.len() as u64;
    while len >= 0x80 {
        out.push((len as u8 & 0x7f) | 0x80);
        len >>= 7;
    }
    out.push(len as u8);
    out.extend_from_slice(text.as_bytes());
}

#[cfg(all(test, feature = "native"))]
mod tests {
    use super::*;
    use crate::backend::native::proto;
    use prost::Message;

    /// The bytes are the messages HBase decodes (checked with the generated types), long
    /// expressions included.
    #[test]
    fn attributes_decode_as_hbase_messages() {
        let long = "a|".repeat(100) + "b";
        for expression in ["secret|(pii&eu)", long.as_str()] {
            let decoded = proto::CellVisibility::decode(&cell_visibility(expression)[..]).unwrap();
            assert_eq!(decoded.expression, expression);
        }
        let labels = vec!["secret".to_string(), "pii".into(), long];
        let decoded = proto::Authorizations::decode(&authorizations(&labels)[..]).unwrap();
        assert_eq!(decoded.label, labels);
        assert!(authorizations(&[]).is_empty());
    }
}
