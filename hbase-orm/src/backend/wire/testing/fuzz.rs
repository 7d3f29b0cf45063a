//! Test support for the reply fuzzers of both gateways: hostile variants of valid replies, and
//! the connection's own checks (probe, then decode under the reply limit) run on them with the
//! allocations counted. The reader of scanner pages as they arrive, which stands in for the
//! probe on unframed connections, is held to the probe by a proptest of its own
//! (`thrift2::rows::tests`).

use proptest::prelude::*;
use proptest::sample::Index;
use thrift::protocol::{TMessageIdentifier, TMessageType, TOutputProtocol};

use super::counting::{measure, Usage};
use crate::backend::wire::probe::{Probe, Prober};
use crate::backend::wire::WireProtocol;

/// Both protocols.
pub(crate) const PROTOCOLS: [WireProtocol; 2] = [WireProtocol::Binary, WireProtocol::Compact];

/// A whole message of type `kind` to `method`#`seq`: header, the struct `body` writes, end.
pub(crate) fn message(
    protocol: WireProtocol,
    method: &str,
    kind: TMessageType,
    seq: i32,
    body: impl FnOnce(&mut dyn TOutputProtocol) -> thrift::Result<()>,
) -> Vec<u8> {
    let mut out = Vec::new();
    let mut o = crate::backend::wire::output(protocol, &mut out);
    o.write_message_begin(&TMessageIdentifier::new(method, kind, seq))
        .and_then(|()| body(&mut *o))
        .and_then(|()| o.write_message_end())
        .and_then(|()| o.flush())
        .expect("writing to a Vec cannot fail");
    drop(o);
    out
}

/// One change to a message.
#[derive(Clone, Debug)]
pub(crate) enum Edit {
    /// Overwrites a byte.
    Byte(Index, u8),
    /// Overwrites a byte with a small value: a type code, a compact field header, a count.
    Small(Index, u8),
    /// Overwrites four bytes with a big-endian `i32` (a binary length or count).
    Int(Index, i32),
    /// Overwrites bytes with an unsigned varint (a compact length or count).
    Varint(Index, u64),
    /// Inserts a byte (shifts what follows).
    Insert(Index, u8),
    /// Removes a byte.
    Remove(Index),
}

/// Values that make lengths and counts interesting: zero, small, the edges of `i32` and of
/// the one-byte and five-byte varints.
fn telling_i32() -> impl Strategy<Value = i32> {
    prop_oneof![
        Just(0),
        Just(1),
        Just(-1),
        Just(i32::MAX),
        Just(i32::MIN),
        Just(0x00FF_FFFF),
        Just(65_536),
        0..300i32,
        any::<i32>(),
    ]
}

/// Strategy for one [`Edit`].
pub(crate) fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => (any::<Index>(), any::<u8>()).prop_map(|(at, b)| Edit::Byte(at, b)),
        3 => (any::<Index>(), 0u8..0x20).prop_map(|(at, b)| Edit::Small(at, b)),
        2 => (any::<Index>(), telling_i32()).prop_map(|(at, n)| Edit::Int(at, n)),
        2 => (any::<Index>(), prop_oneof![
            Just(u64::from(u32::MAX)),
            Just(1u64 << 31),
            Just(u64::MAX),
            0..100_000u64,
        ])
        .prop_map(|(at, n)| Edit::Varint(at, n)),
        1 => (any::<Index>(), any::<u8>()).prop_map(|(at, b)| Edit::Insert(at, b)),
        1 => any::<Index>().prop_map(Edit::Remove),
    ]
}

/// Random changes to a valid message.
#[derive(Clone, Debug)]
pub(crate) struct Mutation {
    /// Edits, applied in turn.
    pub(crate) edits: Vec<Edit>,
    /// Random bytes appended after the edits.
    pub(crate) tail: Vec<u8>,
    /// Where the result is cut, if it is.
    pub(crate) cut: Option<Index>,
}

/// Strategy for a [`Mutation`] of one to five edits.
pub(crate) fn mutation() -> impl Strategy<Value = Mutation> {
    (
        prop::collection::vec(edit(), 1..6),
        prop_oneof![
            3 => Just(Vec::new()),
            1 => prop::collection::vec(any::<u8>(), 1..32),
        ],
        prop::option::weighted(0.3, any::<Index>()),
    )
        .prop_map(|(edits, tail, cut)| Mutation { edits, tail, cut })
}

/// Writes `n` as an unsigned LEB128 varint.
fn varint(mut n: u64, out: &mut Vec<u8>) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// Overwrites `bytes` from `at` with `with`, as far as they go.
fn overwrite(bytes: &mut [u8], at: usize, with: &[u8]) {
    for (b, w) in bytes[at..].iter_mut().zip(with) {
        *b = *w;
    }
}

/// `bytes` changed by `m`.
pub(crate) fn apply(bytes: &[u8], m: &Mutation) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for edit in &m.edits {
        if out.is_empty() {
            break;
        }
        let len = out.len();
        match edit {
            Edit::Byte(at, b) | Edit::Small(at, b) => out[at.index(len)] = *b,
            Edit::Int(at, n) => overwrite(&mut out, at.index(len), &n.to_be_bytes()),
            Edit::Varint(at, n) => {
                let mut v = Vec::new();
                varint(*n, &mut v);
                overwrite(&mut out, at.index(len), &v);
            }
            Edit::Insert(at, b) => out.insert(at.index(len + 1), *b),
            Edit::Remove(at) => {
                out.remove(at.index(len));
            }
        }
    }
    out.extend_from_slice(&m.tail);
    if let Some(cut) = &m.cut {
        let keep = cut.index(out.len() + 1);
        out.truncate(keep);
    }
    out
}

/// What the connection's checks made of one reply.
#[derive(Debug)]
pub(crate) struct Verdict {
    /// The probe's answer under the limit.
    pub(crate) probe: Probe,
    /// Whether the decoder returned a reply (rather than an error).
    pub(crate) decoded: bool,
    /// What decoding allocated.
    pub(crate) usage: Usage,
}

/// On which replies a decoder must stay within the reply limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bound {
    /// On any bytes at all: it reads only through the checked protocol reader, which applies
    /// the limit itself.
    Always,
    /// On the replies the probe accepts, the only ones the connection hands to a decoder: the
    /// Thrift2 row reader bounds its reservations by the bytes left, and relies on the probe
    /// for the limit.
    #[cfg_attr(not(feature = "thrift2"), allow(dead_code))] // its row reader's
    Probed,
}

/// Probes `bytes` as a buffered connection with reply limit `limit` does, then decodes them
/// with `decode` under that limit as the connection does, counting what decoding allocates.
/// Decodes whatever the probe said, so the decoders' own checks are tested alone as well.
///
/// Panics (the test fails) if decoding panics, or makes a single allocation larger than
/// `limit` where `bound` says it must not; `bytes` must be within the limit, as the connection
/// never decodes more.
pub(crate) fn check_bound<T>(
    protocol: WireProtocol,
    bytes: &[u8],
    limit: usize,
    bound: Bound,
    decode: impl FnOnce(&bytes::Bytes) -> crate::model::Result<T>,
) -> Verdict {
    assert!(
        bytes.len() <= limit,
        "{} bytes over a {limit}-byte limit",
        bytes.len()
    );
    let probe = Prober::new(protocol, limit).feed(bytes);
    // The connection hands decoders the reply as it read it: not a copy made while measuring.
    let reply = bytes::Bytes::copy_from_slice(bytes);
    let (decoded, usage) = measure(|| {
        crate::backend::wire::checked::with_reply_limit(limit, || decode(&reply).is_ok())
    });
    if bound == Bound::Always || probe == Probe::Complete(bytes.len()) {
        assert!(
            usage.largest <= limit,
            "decoding {} bytes ({probe:?}) allocated {} bytes at once, over the {limit}-byte \
             limit",
            bytes.len(),
            usage.largest
        );
    }
    Verdict {
        probe,
        decoded,
        usage,
    }
}

/// [`check_bound`] for a decoder that must stay within the limit on any bytes.
pub(crate) fn check<T>(
    protocol: WireProtocol,
    bytes: &[u8],
    limit: usize,
    decode: impl FnOnce(&bytes::Bytes) -> crate::model::Result<T>,
) -> Verdict {
    check_bound(protocol, bytes, limit, Bound::Always, decode)
}

/// Every single-byte overwrite of `bytes` with each of `values`, and every truncation: the
/// messages a sweep checks.
pub(crate) fn single_edits<'a>(
    bytes: &'a [u8],
    values: &'a [u8],
) -> impl Iterator<Item = Vec<u8>> + 'a {
    let overwrites = (0..bytes.len()).flat_map(move |i| {
        values
            .iter()
            .filter(move |v| bytes[i] != **v)
            .map(move |v| {
                let mut b = bytes.to_vec();
                b[i] = *v;
                b
            })
    });
    let cuts = (0..bytes.len()).map(move |n| bytes[..n].to_vec());
    overwrites.chain(cuts)
}

/// Byte values a sweep writes at every position: zero (a stop byte, an empty length), 2 (a
/// field id changed, a compact `false`), type codes (binary list, map and struct; compact list,
/// binary and map), and the bytes that make lengths negative or huge.
pub(crate) const SWEEP_VALUES: &[u8] = &[0x00, 0x02, 0x08, 0x09, 0x0B, 0x0C, 0x0F, 0x80, 0xFF];

/// Reply limits the fuzz runs under: two that bind list reservations in small replies, and a
/// generous one. The smallest is above the largest allocation that does not grow with the
/// reply: a node of a decoded map's B-tree (1,608 bytes for Thrift1's family descriptors).
pub(crate) const LIMITS: [usize; 3] = [2048, 8192, 1 << 20];

/// One reply type of a gateway, as the fuzzers see it.
pub(crate) trait FuzzCase {
    /// The method name on the wire.
    fn method(&self) -> &'static str;
    /// Where its reader must stay within the reply limit.
    fn bound(&self) -> Bound;
    /// Valid replies: success first, then an application exception, then each declared
    /// exception.
    fn replies(&self, protocol: WireProtocol) -> Vec<Vec<u8>>;
    /// Reads a reply as the client does.
    fn decode(&self, protocol: WireProtocol, reply: &bytes::Bytes) -> crate::model::Result<()>;
}

fn protocol_of(compact: bool) -> WireProtocol {
    if compact {
        WireProtocol::Compact
    } else {
        WireProtocol::Binary
    }
}

impl Verdict {
    /// Asserts that the probe took the `len` bytes for a whole message, and that decoding
    /// refused them without allocating 4 KiB or more at once.
    pub(crate) fn assert_refused_cheaply(&self, len: usize) {
        assert_eq!(self.probe, Probe::Complete(len));
        assert!(!self.decoded);
        assert!(self.usage.largest < 4096, "{self:?}");
    }

    /// Asserts that the probe refused a list of `declared` elements under `limit`.
    pub(crate) fn assert_long_list(&self, declared: usize, limit: usize) {
        assert_eq!(
            self.probe,
            Probe::Malformed(crate::backend::wire::probe::Fault::LongList { declared, limit })
        );
    }
}

/// Every valid reply of every case is a whole message within the smallest limit; the success
/// decodes and the exceptions are errors.
pub(crate) fn valid_replies_decode<C: FuzzCase>(cases: &[C]) {
    for case in cases {
        for protocol in PROTOCOLS {
            for (i, bytes) in case.replies(protocol).iter().enumerate() {
                let verdict = check_bound(protocol, bytes, LIMITS[0], case.bound(), |b| {
                    case.decode(protocol, b)
                });
                let method = case.method();
                assert_eq!(verdict.probe, Probe::Complete(bytes.len()), "{method}");
                assert_eq!(verdict.decoded, i == 0, "{method} reply {i}");
            }
        }
    }
}

/// Every single-byte change (to each of [`SWEEP_VALUES`]) and every cut of each case's
/// success reply, under the smallest of [`LIMITS`].
pub(crate) fn every_edit<C: FuzzCase>(cases: &[C]) {
    for case in cases {
        for protocol in PROTOCOLS {
            for reply in case.replies(protocol).iter().take(1) {
                for changed in single_edits(reply, SWEEP_VALUES) {
                    check_bound(protocol, &changed, LIMITS[0], case.bound(), |b| {
                        case.decode(protocol, b)
                    });
                }
            }
        }
    }
}

/// One random case: a valid reply of a case changed by `m`, checked under `limit` if it still
/// fits.
pub(crate) fn mutated<C: FuzzCase>(
    cases: &[C],
    (which, reply, compact): (Index, Index, bool),
    limit: usize,
    m: &Mutation,
) {
    let (case, protocol) = (&cases[which.index(cases.len())], protocol_of(compact));
    let replies = case.replies(protocol);
    let bytes = apply(&replies[reply.index(replies.len())], m);
    if bytes.len() <= limit {
        check_bound(protocol, &bytes, limit, case.bound(), |b| {
            case.decode(protocol, b)
        });
    }
}

/// One random case: a valid reply header to call #`seq` of a case, then `body`.
pub(crate) fn random_body<C: FuzzCase>(
    cases: &[C],
    (which, compact): (Index, bool),
    seq: i32,
    body: &[u8],
) {
    let (case, protocol) = (&cases[which.index(cases.len())], protocol_of(compact));
    let mut bytes = message(
        protocol,
        case.method(),
        TMessageType::Reply,
        seq,
        |_| Ok(()),
    );
    bytes.extend_from_slice(body);
    check_bound(protocol, &bytes, LIMITS[0], case.bound(), |b| {
        case.decode(protocol, b)
    });
}

/// One random case: `bytes` read as a reply of a case.
pub(crate) fn random_bytes<C: FuzzCase>(
    cases: &[C],
    (which, compact): (Index, bool),
    bytes: &[u8],
) {
    let (case, protocol) = (&cases[which.index(cases.len())], protocol_of(compact));
    check_bound(protocol, bytes, LIMITS[0], case.bound(), |b| {
        case.decode(protocol, b)
    });
}

/// The fuzz tests of one gateway's replies, for its `Case` type (fields `method`, `replies`,
/// `decode`), its `cases()`, its sequence number `SEQ` and where its readers must stay within
/// the limit (`$bound`, an expression of `self`).
macro_rules! reply_fuzz_suite {
    ($bound:expr) => {
        impl $crate::backend::wire::testing::fuzz::FuzzCase for Case {
            fn method(&self) -> &'static str {
                self.method
            }
            fn bound(&self) -> $crate::backend::wire::testing::fuzz::Bound {
                #[allow(clippy::redundant_closure_call)]
                ($bound)(self)
            }
            fn replies(&self, protocol: WireProtocol) -> Vec<Vec<u8>> {
                (self.replies)(protocol)
            }
            fn decode(
                &self,
                protocol: WireProtocol,
                reply: &bytes::Bytes,
            ) -> $crate::model::Result<()> {
                (self.decode)(protocol, reply)
            }
        }

        #[test]
        fn valid_replies_decode_within_the_limit() {
            $crate::backend::wire::testing::fuzz::valid_replies_decode(&cases());
        }

        #[test]
        fn every_single_byte_change_and_every_cut_is_safe() {
            $crate::backend::wire::testing::fuzz::every_edit(&cases());
        }

        proptest::proptest! {
            #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

            /// Valid replies of every type with random edits, insertions, removals, tails and
            /// cuts.
            #[test]
            fn mutated_replies_are_safe(
                pick in (
                    proptest::prelude::any::<proptest::sample::Index>(),
                    proptest::prelude::any::<proptest::sample::Index>(),
                    proptest::prelude::any::<bool>(),
                ),
                limit in proptest::sample::select(&$crate::backend::wire::testing::fuzz::LIMITS[..]),
                m in $crate::backend::wire::testing::fuzz::mutation(),
            ) {
                $crate::backend::wire::testing::fuzz::mutated(&cases(), pick, limit, &m);
            }
        }

        proptest::proptest! {
            #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]

            /// A valid reply header followed by random bytes, for every reply type.
            #[test]
            fn random_bodies_are_safe(
                pick in (
                    proptest::prelude::any::<proptest::sample::Index>(),
                    proptest::prelude::any::<bool>(),
                ),
                body in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200),
            ) {
                $crate::backend::wire::testing::fuzz::random_body(&cases(), pick, SEQ, &body);
            }

            /// Random bytes, for every reply type.
            #[test]
            fn random_bytes_are_safe(
                pick in (
                    proptest::prelude::any::<proptest::sample::Index>(),
                    proptest::prelude::any::<bool>(),
                ),
                bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..256),
            ) {
                $crate::backend::wire::testing::fuzz::random_bytes(&cases(), pick, &bytes);
            }
        }
    };
}
pub(crate) use reply_fuzz_suite;
