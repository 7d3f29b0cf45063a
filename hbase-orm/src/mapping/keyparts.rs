//! Typed handles to an entity's row-key parts (`Reading::TS`), for filters on a part that
//! is not the key's first: "readings of every device between t1 and t2" with the key
//! `[device][reverse ts]`.
//!
//! A test is a pattern over the row key's bytes: it walks the key as the derive lays it out
//! (a salt byte, the parts before, each fixed-width or ended by the delimiter, the
//! record-type tag) and then matches the part's encoded bytes: equal to a value, or inside
//! the byte range a value range encodes to (for parts whose encoding keeps or reverses the
//! values' order: integers, `reverse_timestamp`, fixed-width text).
//!
//! Where it runs. The client always applies it, exactly, to each row's key before anything
//! of the row is decoded. It also goes to the region servers, as
//! `RowFilter(=, 'regexstring:<pattern>')`, where HBase can run it exactly: the
//! `RegexStringComparator` the filter language builds reads the key as UTF-8 text, so
//! arbitrary bytes (a binary integer, a reverse timestamp) cannot be told apart there (every
//! invalid byte reads as the same replacement character). What goes to the servers is an
//! equality test of a text part when the key before it holds only a salt byte, a
//! record-type tag and delimited parts (which read the same as text); the rows it drops are
//! then not sent. Any other test runs on the client only: the rows travel and are dropped
//! before they are decoded. Either way the region servers read every row of the scanned
//! range (of every salt bucket): narrow the range with the key's first parts when you can.

use std::fmt::Write as _;
use std::marker::PhantomData;
use std::sync::Arc;

use crate::mapping::fields::{copy_handle, Types};
use crate::mapping::rowkey::{KeyCodec, KeyKind};
use crate::mapping::HBaseEntity;
use crate::model::{filter_literal, Error, Result};

/// A pattern no key matches (an empty range, a value no key can hold).
const NO_KEY: &str = "\\z.";

/// What stands before a key part in the row key, one slot at a time; written by the derive.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeySlot {
    /// One byte whose value varies (the salt bucket).
    AnyByte,
    /// This byte (the record-type tag).
    Byte(u8),
    /// An earlier part: fixed-width, or of any length up to the delimiter; followed by
    /// `then` when the key writer puts a byte after it (the delimiter after a variable-length
    /// part, the separator after every part with `key_separator`).
    Part {
        /// The part's width, if fixed.
        width: Option<usize>,
        /// The byte written after it, if any.
        then: Option<u8>,
    },
}

impl KeySlot {
    /// The slot of a part that is not the key's last, as the key writer writes it.
    pub const fn part(width: Option<usize>, delimiter: Option<u8>, separate_all: bool) -> Self {
        let then = match width {
            None => delimiter,
            Some(_) if separate_all => delimiter,
            Some(_) => None,
        };
        KeySlot::Part { width, then }
    }
}

/// A row-key part of entity `E` holding values of type `T`, encoded with `KC`; the derive
/// writes one associated constant per key part (`Reading::TS`), for
/// [`EntityScan::where_key_eq`](crate::EntityScan::where_key_eq) and
/// [`EntityScan::where_key_between`](crate::EntityScan::where_key_between).
pub struct KeyField<E, T, KC> {
    name: &'static str,
    before: &'static [KeySlot],
    last: bool,
    types: Types<(E, T, KC)>,
}

copy_handle!(KeyField<E, T, KC>);

impl<E, T, KC> std::fmt::Debug for KeyField<E, T, KC> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyField")
            .field("part", &self.name)
            .finish()
    }
}

impl<E, T, KC> KeyField<E, T, KC> {
    /// The handle of part `name`, after the slots `before`; written by the derive.
    #[doc(hidden)]
    pub const fn new(name: &'static str, before: &'static [KeySlot], last: bool) -> Self {
        KeyField {
            name,
            before,
            last,
            types: PhantomData,
        }
    }

    /// The part's field name.
    pub fn name(&self) -> &'static str {
        self.name
    }
}

impl<E: HBaseEntity, T, KC: KeyCodec<T>> KeyField<E, T, KC> {
    fn encode(&self, value: &T) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        KC::encode(value, &mut out).map_err(|reason| Error::Encode {
            entity: std::any::type_name::<E>(),
            field: self.name,
            reason,
        })?;
        Ok(out)
    }

    fn refuse(&self, why: &str) -> Error {
        Error::IllegalArgument {
            message: format!(
                "key part `{}` of {}: {why}",
                self.name,
                std::any::type_name::<E>()
            ),
        }
    }

    /// The test of keys whose part equals `value` (what
    /// [`EntityScan::where_key_eq`](crate::EntityScan::where_key_eq) applies). A dictionary
    /// part is refused with [`Error::IllegalArgument`]: its ids are assigned at run time.
    ///
    /// ```
    /// use hbase_orm::HBaseEntity;
    ///
    /// #[derive(HBaseEntity)]
    /// #[hbase(table = "visits", family = "d", key_delimiter = '/')]
    /// struct Visit {
    ///     #[hbase(key)]
    ///     site: String,
    ///     #[hbase(key)]
    ///     page: String,
    ///     hits: u64,
    /// }
    ///
    /// let home = Visit::PAGE.eq_test(&"home".to_string()).unwrap();
    /// assert!(home.passes(b"example.org/home"));
    /// assert!(!home.passes(b"example.org/homes"));
    /// // Text after delimited text: HBase can run the test too.
    /// assert!(home.row_filter().is_some());
    /// ```
    pub fn eq_test(&self, value: &T) -> Result<KeyTest> {
        if matches!(KC::KIND, KeyKind::Dictionary) {
            return Err(self.refuse(
                "a dictionary part is stored as an id assigned at run time: filter on a \
                 stored field instead",
            ));
        }
        let bytes = self.encode(value)?;
        // A delimited part never holds its delimiter (the key writer refuses such a value), so
        // no key holds this one; its pattern could match across into the next part.
        let delimited = KC::WIDTH.is_none() && !self.last;
        if let (true, Some(d)) = (delimited, E::KEY_DELIMITER) {
            if bytes.contains(&d) {
                return KeyTest::new(self.name, NO_KEY, None);
            }
        }
        // A variable-length part ends at the delimiter, or at the key's end.
        let end = match (KC::WIDTH, self.last, E::KEY_DELIMITER) {
            (Some(_), _, _) => String::new(),
            (None, false, Some(d)) => escaped(&[d]),
            (None, _, _) => "\\z".into(),
        };
        let prefix = self.prefix();
        let client = format!("{prefix}{}{end}", escaped(&bytes));
        // Text, which HBase reads as the same characters, after a key that reads the same.
        let delimiter_is_ascii = E::KEY_DELIMITER.is_none_or(|d| d < 0x80);
        let server = match std::str::from_utf8(&bytes) {
            Ok(text) if self.textual_prefix() && delimiter_is_ascii => {
                let chars: String = text
                    .chars()
                    .map(|c| format!("\\x{{{:X}}}", u32::from(c)))
                    .collect();
                Some(format!("{prefix}{chars}{end}"))
            }
            _ => None,
        };
        KeyTest::new(self.name, &client, server)
    }

    /// The test of keys whose part holds a value `v` with `from <= v < until` (what
    /// [`EntityScan::where_key_between`](crate::EntityScan::where_key_between) applies; run
    /// on the client only: the values are bytes HBase's filter language cannot match
    /// exactly). A part whose encoding does not keep the values' order is refused with
    /// [`Error::IllegalArgument`].
    ///
    /// ```
    /// use hbase_orm::HBaseEntity;
    ///
    /// #[derive(HBaseEntity)]
    /// #[hbase(table = "readings", family = "r")]
    /// struct Reading {
    ///     #[hbase(key)]
    ///     device: u32,
    ///     #[hbase(key(reverse_timestamp))]
    ///     ts: i64,
    ///     value: f64,
    /// }
    ///
    /// let day = Reading::TS.range_test(&1_000, &2_000).unwrap();
    /// let key = |device: u32, ts: i64| ReadingKey { device, ts }.row_key().unwrap();
    /// # use hbase_orm::EntityKey;
    /// assert!(day.passes(&key(7, 1_500)));
    /// assert!(!day.passes(&key(7, 2_000)));
    /// assert!(day.row_filter().is_none());
    /// ```
    pub fn range_test(&self, from: &T, until: &T) -> Result<KeyTest> {
        // An empty range keeps no key: a pattern that never matches.
        let client = self
            .range_pattern(from, until)?
            .unwrap_or_else(|| NO_KEY.into());
        KeyTest::new(self.name, &client, None)
    }

    /// Whether HBase reads the key before the part as its bytes: a salt byte (of at most 128
    /// buckets) or a tag below 0x80, and parts ended by a delimiter below 0x80 (whatever they
    /// hold, a UTF-8 reader never takes an ASCII byte into another character).
    fn textual_prefix(&self) -> bool {
        self.before.iter().all(|slot| match *slot {
            KeySlot::AnyByte => E::SALT_BUCKETS.is_none_or(|n| n <= 128),
            KeySlot::Byte(b) => b < 0x80,
            KeySlot::Part { width, then } => width.is_none() && then.is_some_and(|d| d < 0x80),
        })
    }

    /// The pattern of keys whose part holds a value `v` with `from <= v < until`; `None` when
    /// no value is in that range.
    fn range_pattern(&self, from: &T, until: &T) -> Result<Option<String>> {
        let ordered = matches!(
            KC::KIND,
            KeyKind::Ordered | KeyKind::ReverseTimestamp | KeyKind::FixedText
        );
        if !ordered || KC::WIDTH.is_none() {
            return Err(self.refuse(
                "a range needs a fixed-width encoding that keeps (or reverses) the values' \
                 order: an integer, `reverse_timestamp` or `fixed = N` text; test this part \
                 with where_key_eq",
            ));
        }
        let (lo, hi) = (self.encode(from)?, self.encode(until)?);
        // `[from, until)` encodes to `[lo, hi)`, or to `(hi, lo]` for an order-reversing
        // encoding (a reverse timestamp): as an inclusive byte range, either way.
        let range = if matches!(KC::KIND, KeyKind::ReverseTimestamp) {
            plus_one(&hi).map(|first| (first, lo))
        } else {
            minus_one(&hi).map(|last| (lo, last))
        };
        Ok(range
            .filter(|(first, last)| first <= last)
            .map(|(first, last)| {
                let mut pattern = self.prefix();
                pattern.push_str(&byte_range(&first, &last));
                pattern
            }))
    }

    /// The pattern of everything before the part, from the key's start.
    fn prefix(&self) -> String {
        // `(?s)`: `.` matches every byte, line ends too (HBase compiles with DOTALL anyway).
        let mut pattern = String::from("(?s)^");
        for slot in self.before {
            match *slot {
                KeySlot::AnyByte => pattern.push('.'),
                KeySlot::Byte(b) => pattern.push_str(&escaped(&[b])),
                KeySlot::Part { width, then } => {
                    match (width, then) {
                        (Some(w), _) => {
                            let _ = write!(pattern, ".{{{w}}}");
                        }
                        (None, Some(d)) => {
                            let _ = write!(pattern, "[^\\x{d:02X}]*");
                        }
                        // Unreachable for keys the derive accepts (a variable-length part
                        // that is not last has a delimiter): any bytes.
                        (None, None) => pattern.push_str(".*"),
                    }
                    if let Some(d) = then {
                        pattern.push_str(&escaped(&[d]));
                    }
                }
            }
        }
        pattern
    }
}

/// `bytes` as `\xHH` escapes.
fn escaped(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 4);
    for b in bytes {
        let _ = write!(out, "\\x{b:02X}");
    }
    out
}

/// A test of one key part on row keys ([`KeyField::eq_test`], [`KeyField::range_test`]):
/// exact on the client ([`KeyTest::passes`]), and a `RowFilter` for the region servers when
/// HBase can run the same test exactly ([`KeyTest::row_filter`]; a text part after a salt
/// byte, a record-type tag and delimited parts).
#[derive(Clone, Debug)]
pub struct KeyTest {
    client: Arc<regex::bytes::Regex>,
    /// The pattern for a `RowFilter` with a `regexstring:` comparator, if exact there.
    server: Option<String>,
}

impl KeyTest {
    fn new(part: &str, client: &str, server: Option<String>) -> Result<KeyTest> {
        let client = regex::bytes::RegexBuilder::new(client)
            .unicode(false)
            .build()
            .map_err(|e| Error::IllegalArgument {
                message: format!("key part `{part}`: no key test could be made of it: {e}"),
            })?;
        Ok(KeyTest {
            client: Arc::new(client),
            server,
        })
    }

    /// Whether the row key `key` passes.
    pub fn passes(&self, key: &[u8]) -> bool {
        self.client.is_match(key)
    }

    /// The filter-language text of the same test for the region servers,
    /// `RowFilter(=, 'regexstring:<pattern>')`, when HBase runs it exactly; `None` when only
    /// the client can (bytes HBase's regular expressions read as text cannot tell apart).
    pub fn row_filter(&self) -> Option<Vec<u8>> {
        let pattern = self.server.as_ref()?;
        let mut out = b"RowFilter(=, ".to_vec();
        out.extend(filter_literal(format!("regexstring:{pattern}").as_bytes()));
        out.push(b')');
        Some(out)
    }
}

/// A class of the bytes `from..=to`.
fn class(from: u8, to: u8) -> String {
    if from == to {
        format!("\\x{from:02X}")
    } else if from == 0 && to == 0xFF {
        ".".into()
    } else {
        format!("[\\x{from:02X}-\\x{to:02X}]")
    }
}

/// Any `n` bytes.
fn any(n: usize) -> String {
    match n {
        0 => String::new(),
        1 => ".".into(),
        n => format!(".{{{n}}}"),
    }
}

/// The alternatives of a pattern, grouped.
fn either(alternatives: Vec<String>) -> String {
    match alternatives.len() {
        1 => alternatives.into_iter().next().unwrap_or_default(),
        _ => format!("(?:{})", alternatives.join("|")),
    }
}

/// A pattern of the byte strings `s` of `first.len()` bytes with `first <= s <= last`
/// (`first <= last`, same length), compared byte by byte as HBase orders keys.
fn byte_range(first: &[u8], last: &[u8]) -> String {
    let Some((&a, rest_a)) = first.split_first() else {
        return String::new();
    };
    let (&b, rest_b) = last.split_first().unwrap_or((&a, &[]));
    if a == b {
        return format!("{}{}", class(a, a), byte_range(rest_a, rest_b));
    }
    let mut alternatives = vec![format!("{}{}", class(a, a), beyond(rest_a, true))];
    if b - a > 1 {
        alternatives.push(format!("{}{}", class(a + 1, b - 1), any(rest_a.len())));
    }
    alternatives.push(format!("{}{}", class(b, b), beyond(rest_b, false)));
    either(alternatives)
}

/// A pattern of the byte strings of `s.len()` bytes that are `>= s` (`up`) or `<= s`.
fn beyond(s: &[u8], up: bool) -> String {
    let edge = if up { 0 } else { 0xFF };
    if s.iter().all(|&b| b == edge) {
        return any(s.len());
    }
    let (&a, rest) = s.split_first().unwrap_or((&edge, &[]));
    let mut alternatives = vec![format!("{}{}", class(a, a), beyond(rest, up))];
    match up {
        true if a < 0xFF => alternatives.push(format!("{}{}", class(a + 1, 0xFF), any(rest.len()))),
        false if a > 0 => alternatives.push(format!("{}{}", class(0, a - 1), any(rest.len()))),
        _ => {}
    }
    either(alternatives)
}

/// `bytes` minus one, as a big-endian number; `None` for all zeros.
fn minus_one(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut out = bytes.to_vec();
    for b in out.iter_mut().rev() {
        if *b > 0 {
            *b -= 1;
            return Some(out);
        }
        *b = 0xFF;
    }
    None
}

/// `bytes` plus one, as a big-endian number; `None` for all `0xFF`.
fn plus_one(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut out = bytes.to_vec();
    for b in out.iter_mut().rev() {
        if *b < 0xFF {
            *b += 1;
            return Some(out);
        }
        *b = 0;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `pattern` (as HBase would read it) matches `key`, with the `regex` crate on
    /// bytes.
    fn matches(pattern: &str, key: &[u8]) -> bool {
        regex::bytes::RegexBuilder::new(&format!("(?s){pattern}"))
            .unicode(false)
            .build()
            .unwrap()
            .is_match(key)
    }

    #[test]
    fn a_byte_range_matches_exactly_the_strings_inside_it() {
        let (first, last) = ([0x12, 0xF0], [0x14, 0x03]);
        let pattern = format!("^{}$", byte_range(&first, &last));
        for hi in 0..=0xFFu8 {
            for lo in 0..=0xFFu8 {
                let s = [hi, lo];
                let inside = s >= first && s <= last;
                assert_eq!(matches(&pattern, &s), inside, "{s:?} with {pattern}");
            }
        }
    }

    #[test]
    fn ranges_at_the_edges_and_of_one_value() {
        for (first, last) in [
            ([0u8, 0, 0], [0xFFu8, 0xFF, 0xFF]),
            ([7, 7, 7], [7, 7, 7]),
            ([0, 0xFF, 0xFF], [1, 0, 0]),
        ] {
            let pattern = format!("^{}$", byte_range(&first, &last));
            for s in [
                [0, 0, 0],
                [7, 7, 7],
                [0, 0xFF, 0xFF],
                [1, 0, 0],
                [1, 0, 1],
                [0xFF; 3],
            ] {
                let inside = s >= first && s <= last;
                assert_eq!(matches(&pattern, &s), inside, "{s:?} with {pattern}");
            }
        }
    }

    #[test]
    fn one_more_and_one_less_carry_and_stop_at_the_ends() {
        assert_eq!(minus_one(&[1, 0]), Some(vec![0, 0xFF]));
        assert_eq!(minus_one(&[0, 0]), None);
        assert_eq!(plus_one(&[0, 0xFF]), Some(vec![1, 0]));
        assert_eq!(plus_one(&[0xFF, 0xFF]), None);
    }

    #[test]
    fn slots_say_what_the_key_writer_puts_after_a_part() {
        assert_eq!(
            KeySlot::part(None, Some(0), false),
            KeySlot::Part {
                width: None,
                then: Some(0)
            }
        );
        assert_eq!(
            KeySlot::part(Some(8), Some(b'.'), true),
            KeySlot::Part {
                width: Some(8),
                then: Some(b'.')
            }
        );
        assert_eq!(
            KeySlot::part(Some(8), Some(0), false),
            KeySlot::Part {
                width: Some(8),
                then: None
            }
        );
    }
}
