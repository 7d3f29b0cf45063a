//! Replies of the shapes the client reads, mutated at random: whatever the probe lets
//! through to the decoders must decode or fail, never panic.

mod hostile_replies {
    use proptest::prelude::*;
    use thrift::protocol::{
        TBinaryOutputProtocol, TCompactOutputProtocol, TMessageIdentifier, TMessageType,
        TOutputProtocol,
    };

    use super::super::rpc::decode;
    use crate::backend::wire::probe::{message_len, Probe};
    use crate::backend::wire::WireProtocol;

    use super::super::generated::thbase::{
        TColumnValue, THBaseServiceGetScannerRowsArgs, THBaseServiceGetScannerRowsResult, TResult,
    };

    /// A `getScannerRows` reply of `rows` rows of two cells, in `protocol`.
    fn reply(protocol: WireProtocol, rows: usize) -> Vec<u8> {
        let result = THBaseServiceGetScannerRowsResult {
            result_value: Some(
                (0..rows)
                    .map(|i| TResult {
                        row: Some(format!("row-{i}").into_bytes()),
                        column_values: (0..2)
                            .map(|q| TColumnValue {
                                family: b"d".to_vec(),
                                qualifier: vec![q],
                                value: vec![7; 5],
                                timestamp: Some(1),
                                tags: None,
                                type_: None,
                            })
                            .collect(),
                        stale: None,
                        partial: None,
                    })
                    .collect(),
            ),
            io: None,
            ia: None,
        };
        let mut out = Vec::new();
        let ident = TMessageIdentifier::new("getScannerRows", TMessageType::Reply, 1);
        let write = |o: &mut dyn TOutputProtocol| {
            o.write_message_begin(&ident).unwrap();
            result.write_to_out_protocol(o).unwrap();
            o.write_message_end().unwrap();
            o.flush().unwrap();
        };
        match protocol {
            WireProtocol::Binary => write(&mut TBinaryOutputProtocol::new(&mut out, true)),
            WireProtocol::Compact => write(&mut TCompactOutputProtocol::new(&mut out)),
        }
        out
    }

    fn walk_then_decode(protocol: WireProtocol, bytes: &[u8]) {
        if message_len(protocol, bytes) == Probe::Complete(bytes.len()) {
            let _ = decode::<THBaseServiceGetScannerRowsArgs>(protocol, 1, bytes);
        }
    }

    #[test]
    fn an_untouched_reply_decodes() {
        for protocol in [WireProtocol::Binary, WireProtocol::Compact] {
            let bytes = reply(protocol, 3);
            assert_eq!(message_len(protocol, &bytes), Probe::Complete(bytes.len()));
            let rows = decode::<THBaseServiceGetScannerRowsArgs>(protocol, 1, &bytes).unwrap();
            assert_eq!(rows.len(), 3);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn mutated_replies_never_panic(
            compact in any::<bool>(),
            rows in 0usize..4,
            edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
            cut in any::<prop::sample::Index>(),
        ) {
            let protocol = if compact { WireProtocol::Compact } else { WireProtocol::Binary };
            let mut bytes = reply(protocol, rows);
            for (at, b) in edits {
                let i = at.index(bytes.len());
                bytes[i] = b;
            }
            walk_then_decode(protocol, &bytes);
            let keep = cut.index(bytes.len() + 1);
            walk_then_decode(protocol, &bytes[..keep]);
        }

        #[test]
        fn random_bytes_never_panic(compact in any::<bool>(), bytes in prop::collection::vec(any::<u8>(), 0..256)) {
            let protocol = if compact { WireProtocol::Compact } else { WireProtocol::Binary };
            walk_then_decode(protocol, &bytes);
        }
    }
}
