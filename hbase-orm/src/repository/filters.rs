//! Server-side filters of entity scans: raw filter-language expressions, and typed comparisons
//! of a stored field with a value encoded by the field's own codec.
//!
//! Every typed comparison is one
//! `SingleColumnValueFilter('fam', 'qual', OP, 'binary:<bytes>', true, true)` (or
//! `'binaryprefix:<bytes>'`): rows without the column are dropped (`filterIfMissing`), and
//! only the newest version of the cell is tested. HBase reads `OP` as *stored OP given*
//! (`>=` keeps rows whose stored value is at least the given one), unlike a check-and-mutate,
//! which reads it the other way round; `tests/entity_filters.rs` pins this down against a
//! real HBase. A test of a row-key part is applied by the client to every row's key, and is
//! also sent as a `RowFilter(=, 'regexstring:...')` where HBase runs it exactly (see
//! `mapping/keyparts.rs`). All filters of a scan are ANDed, each in parentheses so that a raw
//! expression using `OR` keeps its meaning.

use crate::mapping::codec::Codec;
use crate::mapping::fields::Field;
use crate::mapping::keyparts::KeyField;
use crate::mapping::rowkey::KeyCodec;
use crate::mapping::HBaseEntity;
use crate::model::CompareOp;
use crate::model::Result;
use crate::repository::filter_expr::Comparison;
use crate::repository::scan::EntityScan;

/// Server-side filters. Values are encoded with the field's codec and compared with the
/// stored bytes; see [the notes on filters](EntityScan#filters).
impl<T: HBaseEntity> EntityScan<T> {
    /// Only rows that pass `expression`, in HBase's filter language, ANDed with the scan's
    /// other filters. The expression is bytes: quote binary arguments with
    /// [`filter_literal`](crate::filter_literal). A blank expression adds nothing.
    ///
    /// ```no_run
    /// # use hbase_orm::{HBaseEntity, Client};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "orders", family = "d")]
    /// # struct Order { #[hbase(key)] id: u64, city: String }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// use futures::TryStreamExt;
    ///
    /// let orders = client.repository::<Order>();
    /// let mut expression = b"ValueFilter(=, ".to_vec();
    /// expression.extend(hbase_orm::filter_literal(b"binary:Paris"));
    /// expression.push(b')');
    /// let in_paris: Vec<Order> = orders.scan().filter(expression).stream().try_collect().await?;
    /// # Ok(()) }
    /// ```
    pub fn filter(self, expression: impl Into<Vec<u8>>) -> Self {
        self.with_filters(|f| {
            f.raw(expression.into());
            Ok(())
        })
    }

    /// Only entities whose row-key part `part` (`Reading::DEVICE`) equals `value`. The client
    /// tests every row's key before decoding it; a text part after a salt byte, a tag and
    /// delimited parts is also tested on the region servers (a `RowFilter` with a
    /// `regexstring:` comparator), which then send only the rows that pass. See
    /// [the notes on filters](EntityScan#filters). For the key's first parts a prefix scan
    /// reads less: use this for a later part.
    ///
    /// ```no_run
    /// # use hbase_orm::{HBaseEntity, Client};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "readings", family = "d", key_delimiter = '\0')]
    /// # struct Reading { #[hbase(key)] site: String, #[hbase(key)] device: String, value: f64 }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// let readings = client.repository::<Reading>();
    /// let of_d7 = readings.scan().where_key_eq(Reading::DEVICE, &"d7".to_string()).page(50).await?;
    /// # Ok(()) }
    /// ```
    pub fn where_key_eq<V, KC: KeyCodec<V>>(self, part: KeyField<T, V, KC>, value: &V) -> Self {
        self.with_filters(|f| {
            f.key_test(part.eq_test(value)?);
            Ok(())
        })
    }

    /// Only entities whose row-key part `part` holds a value `v` with `from <= v < until`:
    /// the range of bytes those values encode to, for parts whose encoding keeps or reverses
    /// the values' order (integers, `reverse_timestamp`, `fixed = N` text), else an
    /// [`Error::IllegalArgument`](crate::Error) when the scan runs. The client tests every
    /// row's key, in every salt bucket, before decoding it: HBase's filter language reads
    /// keys as UTF-8 text and cannot match such bytes exactly, so the rows are sent (see
    /// [the notes on filters](EntityScan#filters)).
    ///
    /// ```no_run
    /// # use hbase_orm::{HBaseEntity, Client};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "readings", family = "d", key_delimiter = '\0', salt(buckets = 8))]
    /// # struct Reading { #[hbase(key)] device: String, #[hbase(key(reverse_timestamp))] ts: i64, value: f64 }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// use futures::TryStreamExt;
    ///
    /// let readings = client.repository::<Reading>();
    /// let (t1, t2) = (1_700_000_000_000, 1_700_000_060_000);
    /// // Every device's readings of that minute, newest first per device.
    /// let minute: Vec<Reading> = readings
    ///     .scan()
    ///     .where_key_between(Reading::TS, &t1, &t2)
    ///     .stream()
    ///     .try_collect()
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub fn where_key_between<V, KC: KeyCodec<V>>(
        self,
        part: KeyField<T, V, KC>,
        from: &V,
        until: &V,
    ) -> Self {
        self.with_filters(|f| {
            f.key_test(part.range_test(from, until)?);
            Ok(())
        })
    }

    /// Only entities whose `field` equals `value`: its stored bytes are those of the encoded
    /// `value`. Rows without the field (an `Option` field that is `None`) are dropped.
    ///
    /// ```no_run
    /// # use hbase_orm::{HBaseEntity, Client};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "orders", family = "d")]
    /// # struct Order { #[hbase(key)] id: u64, city: String }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// use futures::TryStreamExt;
    ///
    /// let orders = client.repository::<Order>();
    /// let scan = orders.scan().where_eq(Order::CITY, &"Paris".to_string());
    /// let in_paris: Vec<Order> = scan.stream().try_collect().await?;
    /// # Ok(()) }
    /// ```
    pub fn where_eq<V, C: Codec<V>>(self, field: Field<T, V, C>, value: &V) -> Self {
        self.compare(field, CompareOp::Equal, value)
    }

    /// Only entities whose `field` is stored and differs from `value`. Rows without the field
    /// are dropped too, not kept.
    ///
    /// ```no_run
    /// # use hbase_orm::{HBaseEntity, Client};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "orders", family = "d")]
    /// # struct Order { #[hbase(key)] id: u64, city: String }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// let orders = client.repository::<Order>();
    /// let first = orders.scan().where_ne(Order::CITY, &"Paris".to_string()).page(20).await?;
    /// # Ok(()) }
    /// ```
    pub fn where_ne<V, C: Codec<V>>(self, field: Field<T, V, C>, value: &V) -> Self {
        self.compare(field, CompareOp::NotEqual, value)
    }

    /// Only entities whose `field` lies in `[lo, hi)`: `lo <= stored < hi`, comparing the
    /// stored bytes (two filters ANDed).
    ///
    /// The order is that of the encoded bytes, which is numeric order only for encodings that
    /// sort like numbers: unsigned integers, and signed ones as long as no value is negative
    /// ([`Native`](crate::Native) signed integers are big-endian two's complement, so `-1`
    /// sorts after every positive value; floats are IEEE 754 bits, so negative ones sort after
    /// positive ones and in reverse). Text is compared byte by byte (UTF-8, case-sensitive).
    ///
    /// ```no_run
    /// # use hbase_orm::{HBaseEntity, Client};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "orders", family = "d")]
    /// # struct Order { #[hbase(key)] id: u64, total: u64 }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// use futures::TryStreamExt;
    ///
    /// let orders = client.repository::<Order>();
    /// let scan = orders.scan().where_range(Order::TOTAL, &100, &500);
    /// let mid_sized: Vec<Order> = scan.stream().try_collect().await?;
    /// # Ok(()) }
    /// ```
    pub fn where_range<V, C: Codec<V>>(self, field: Field<T, V, C>, lo: &V, hi: &V) -> Self {
        self.where_ge(field, lo).where_lt(field, hi)
    }

    /// Only entities whose stored `field` is at least `value` (`stored >= value`, bytewise:
    /// see [`EntityScan::where_range`] for which encodings sort like numbers).
    ///
    /// ```no_run
    /// # use hbase_orm::{HBaseEntity, Client};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "orders", family = "d")]
    /// # struct Order { #[hbase(key)] id: u64, total: u64 }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// let orders = client.repository::<Order>();
    /// let big = orders.scan().where_ge(Order::TOTAL, &1_000).page(50).await?;
    /// # Ok(()) }
    /// ```
    pub fn where_ge<V, C: Codec<V>>(self, field: Field<T, V, C>, value: &V) -> Self {
        self.compare(field, CompareOp::GreaterOrEqual, value)
    }

    /// Only entities whose stored `field` is greater than `value` (`stored > value`,
    /// bytewise: see [`EntityScan::where_range`] for which encodings sort like numbers).
    ///
    /// ```no_run
    /// # use hbase_orm::{HBaseEntity, Client};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "orders", family = "d")]
    /// # struct Order { #[hbase(key)] id: u64, total: u64 }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// let orders = client.repository::<Order>();
    /// let paid = orders.scan().where_gt(Order::TOTAL, &0).page(50).await?;
    /// # Ok(()) }
    /// ```
    pub fn where_gt<V, C: Codec<V>>(self, field: Field<T, V, C>, value: &V) -> Self {
        self.compare(field, CompareOp::Greater, value)
    }

    /// Only entities whose stored `field` is at most `value` (`stored <= value`, bytewise:
    /// see [`EntityScan::where_range`] for which encodings sort like numbers).
    ///
    /// ```no_run
    /// # use hbase_orm::{HBaseEntity, Client};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "orders", family = "d")]
    /// # struct Order { #[hbase(key)] id: u64, total: u64 }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// let orders = client.repository::<Order>();
    /// let small = orders.scan().where_le(Order::TOTAL, &10).page(50).await?;
    /// # Ok(()) }
    /// ```
    pub fn where_le<V, C: Codec<V>>(self, field: Field<T, V, C>, value: &V) -> Self {
        self.compare(field, CompareOp::LessOrEqual, value)
    }

    /// Only entities whose stored `field` is less than `value` (`stored < value`, bytewise:
    /// see [`EntityScan::where_range`] for which encodings sort like numbers).
    ///
    /// ```no_run
    /// # use hbase_orm::{HBaseEntity, Client};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "orders", family = "d")]
    /// # struct Order { #[hbase(key)] id: u64, total: u64 }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// let orders = client.repository::<Order>();
    /// let small = orders.scan().where_lt(Order::TOTAL, &10).page(50).await?;
    /// # Ok(()) }
    /// ```
    pub fn where_lt<V, C: Codec<V>>(self, field: Field<T, V, C>, value: &V) -> Self {
        self.compare(field, CompareOp::Less, value)
    }

    /// Only entities whose stored `field` starts with the bytes `prefix` (`binaryprefix:`).
    ///
    /// The prefix is compared with the stored bytes as given, not encoded with the field's
    /// codec: for a `String` or `Vec<u8>` field with the native codec (UTF-8 text, raw bytes)
    /// that is the text or byte prefix; for other encodings (JSON, numbers) pass the bytes
    /// the stored values begin with.
    ///
    /// ```no_run
    /// # use hbase_orm::{HBaseEntity, Client};
    /// # #[derive(HBaseEntity)]
    /// # #[hbase(table = "orders", family = "d")]
    /// # struct Order { #[hbase(key)] id: u64, name: String }
    /// # async fn demo(client: Client) -> hbase_orm::Result<()> {
    /// let orders = client.repository::<Order>();
    /// let named_al = orders.scan().where_prefix(Order::NAME, "al").page(50).await?;
    /// # Ok(()) }
    /// ```
    pub fn where_prefix<V, C: Codec<V>>(
        self,
        field: Field<T, V, C>,
        prefix: impl AsRef<[u8]>,
    ) -> Self {
        let def = field.def();
        self.with_filters(|f| {
            f.compare(
                def.family,
                def.qualifier,
                Comparison::Prefix,
                prefix.as_ref(),
            );
            Ok(())
        })
    }

    /// Adds `stored OP value`, or keeps the encode error for `stream`/`page`.
    fn compare<V, C: Codec<V>>(self, field: Field<T, V, C>, op: CompareOp, value: &V) -> Self {
        self.with_filters(|f| -> Result<()> {
            let bytes = field.encode(value)?;
            let def = field.def();
            f.compare(def.family, def.qualifier, Comparison::Op(op), &bytes);
            Ok(())
        })
    }
}
