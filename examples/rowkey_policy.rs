//! # A configurable row-key policy: replace, pad, fixed length per part
//!
//! Design rules notes, "row-key generator": rows imported from a relational table get their
//! row key from a few source columns, each formatted by a per-column policy (characters to
//! replace or remove, a fixed length, a pad character in front or at the end, a separator
//! after the part). For `PUBLISH_DATA_INFO` the key is `PUBLISH_TIME` and `DATA_TYPE`:
//!
//! | column | replace | length | pad | then |
//! | --- | --- | --- | --- | --- |
//! | `PUBLISH_TIME` | remove `-`, ` `, `:` | 14 | `0` at the end | `.` |
//! | `DATA_TYPE` | nothing | 4 | `0` at the end | |
//!
//! so `2015-08-12 16:35:00` + `D01` gives the row key `20150812163500.D010`.
//!
//! Here each column's policy is a `PartPolicy` impl, and one generic `KeyCodec`, `Policy<P>`,
//! applies it: `#[hbase(key(codec = "Policy<PublishTime>"))]`; `key_separator = '.'` goes
//! between the parts. Reads and gets take the source text (`2015-08-12 16:35:00`): the codec formats
//! it, so callers never build keys by hand.
//!
//! Why it fits: fixed-length parts keep every key the same shape, so keys sort by time then
//! type and a prefix or a time range is one contiguous scan. Trade-offs: the formatting is
//! one-way (`D01` and `D010` give the same key, and an entity read back holds the key's
//! formatted text), values longer than the length are refused rather than cut, and a key led
//! by the time sends a live feed's writes to one region (fine for the notes' bulk import).
//!
//! Run it against the local HBase: `hbase-local/hbase.sh up && cargo run --example rowkey_policy`.

use std::marker::PhantomData;
use std::process::ExitCode;

use futures::TryStreamExt;
use hbase_orm::rowkey::KeyCodec;
use hbase_orm::{Client, Error, HBaseEntity, Repository, Scan};
use hbase_orm_suite::example::Example;
use hbase_orm_suite::row_keys;

/// How one source column becomes a row-key part (one entry of the notes' policy file).
trait PartPolicy {
    /// The source column.
    const COLUMN: &'static str;
    /// Each of these characters is replaced ...
    const REPLACE: &'static str;
    /// ... by this text (empty: removed).
    const REPLACE_WITH: &'static str;
    /// The part's length in bytes after formatting.
    const LENGTH: usize;
    /// Pad character put in front of short values (keeps numbers in numeric order).
    const PREFIX_CHAR: Option<char> = None;
    /// Pad character put after short values (when there is no prefix character).
    const SUFFIX_CHAR: Option<char> = None;

    /// The formatted part, or why the value does not fit the policy.
    fn format(value: &str) -> Result<String, String> {
        let mut text = String::with_capacity(Self::LENGTH);
        for c in value.chars() {
            if Self::REPLACE.contains(c) {
                text.push_str(Self::REPLACE_WITH);
            } else {
                text.push(c);
            }
        }
        if text.len() > Self::LENGTH {
            return Err(format!(
                "{value:?} formats to {text:?}, longer than the {} bytes of {} (the policy does \
                 not cut: two values would share a key)",
                Self::LENGTH,
                Self::COLUMN
            ));
        }
        let missing = Self::LENGTH - text.len();
        match (Self::PREFIX_CHAR, Self::SUFFIX_CHAR) {
            _ if missing == 0 => {}
            (Some(pad), _) => text.insert_str(0, &pad.to_string().repeat(missing)),
            (None, Some(pad)) => text.push_str(&pad.to_string().repeat(missing)),
            (None, None) => {
                return Err(format!(
                    "{value:?} is shorter than the {} bytes of {} and the policy has no pad",
                    Self::LENGTH,
                    Self::COLUMN
                ))
            }
        }
        Ok(text)
    }

    /// The policy in one line, for the printout.
    fn describe() -> String {
        let replace = if Self::REPLACE.is_empty() {
            "no replacements".to_string()
        } else {
            format!(
                "replace any of {:?} by {:?}",
                Self::REPLACE,
                Self::REPLACE_WITH
            )
        };
        let pad = match (Self::PREFIX_CHAR, Self::SUFFIX_CHAR) {
            (Some(c), _) => format!("pad with {c:?} in front"),
            (None, Some(c)) => format!("pad with {c:?} at the end"),
            (None, None) => "no padding".into(),
        };
        format!("{}: {replace}, {pad}, {} bytes", Self::COLUMN, Self::LENGTH)
    }
}

/// `PUBLISH_TIME`: `2015-08-12 16:35:00` -> `20150812163500`.
struct PublishTime;

impl PartPolicy for PublishTime {
    const COLUMN: &'static str = "PUBLISH_TIME";
    const REPLACE: &'static str = "- :";
    const REPLACE_WITH: &'static str = "";
    const LENGTH: usize = 14;
    const SUFFIX_CHAR: Option<char> = Some('0');
}

/// `DATA_TYPE`: `D01` -> `D010`.
struct DataType;

impl PartPolicy for DataType {
    const COLUMN: &'static str = "DATA_TYPE";
    const REPLACE: &'static str = "";
    const REPLACE_WITH: &'static str = "";
    const LENGTH: usize = 4;
    const SUFFIX_CHAR: Option<char> = Some('0');
}

/// The row-key codec of a part formatted by policy `P`.
struct Policy<P>(PhantomData<P>);

impl<P: PartPolicy> KeyCodec<String> for Policy<P> {
    // Every value formats to exactly `P::LENGTH` bytes; `key_separator` puts the policy's '.'
    // between the parts all the same.
    const WIDTH: Option<usize> = Some(P::LENGTH);
    const EXPECTED: &'static str = "text formatted by the row-key policy";

    fn encode(value: &String, out: &mut Vec<u8>) -> Result<(), String> {
        out.extend_from_slice(P::format(value)?.as_bytes());
        Ok(())
    }

    /// The formatted text: the policy is one-way, the source text cannot be recovered.
    fn decode(bytes: &[u8]) -> Result<String, String> {
        if bytes.len() != P::LENGTH {
            return Err(format!("{} bytes, expected {}", bytes.len(), P::LENGTH));
        }
        String::from_utf8(bytes.to_vec()).map_err(|e| format!("invalid UTF-8: {e}"))
    }
}

/// A row of `PUBLISH_DATA_INFO`, keyed by the policy.
#[derive(HBaseEntity, Debug, Clone, PartialEq)]
#[hbase(
    namespace = "example",
    table = "rowkey_policy_publish_data_info",
    family = "d",
    key_separator = '.'
)]
struct PublishData {
    #[hbase(key(codec = "Policy<PublishTime>"))]
    publish_time: String,
    #[hbase(key(codec = "Policy<DataType>"))]
    data_type: String,
    /// The published content.
    #[hbase(rename = "v")]
    content: String,
}

fn row(publish_time: &str, data_type: &str, content: &str) -> PublishData {
    PublishData {
        publish_time: publish_time.into(),
        data_type: data_type.into(),
        content: content.into(),
    }
}

fn key(publish_time: &str, data_type: &str) -> PublishDataKey {
    PublishDataKey {
        publish_time: publish_time.into(),
        data_type: data_type.into(),
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

async fn contents(scan: hbase_orm::EntityScan<PublishData>) -> hbase_orm::Result<Vec<String>> {
    let rows: Vec<PublishData> = scan.stream().try_collect().await?;
    Ok(rows.into_iter().map(|r| r.content).collect())
}

async fn run(ex: &mut Example) -> hbase_orm::Result<()> {
    ex.say("The policy, one entry per source column, separator '.':");
    ex.say(format!("  {}", PublishTime::describe()));
    ex.say(format!("  {}", DataType::describe()));

    ex.say("\nThe notes' two sample rows and the keys they expect:");
    let first = row("2015-08-12 16:35:00", "D01", "first publication");
    let second = row("2015-09-12 16:35:00", "D02", "second publication");
    for (r, want) in [
        (&first, &b"20150812163500.D010"[..]),
        (&second, &b"20150912163500.D020"[..]),
    ] {
        let got = r.row_key()?;
        ex.say(format!(
            "  {:?} + {:?} -> {}",
            r.publish_time,
            r.data_type,
            text(&got)
        ));
        ex.check_eq(
            &format!("row key is exactly {}", text(want)),
            got.as_slice(),
            want,
        );
    }

    let data: Repository<PublishData> = ex.fresh::<PublishData>().await;
    let rows = vec![
        first.clone(),
        second.clone(),
        row("2015-08-12 16:35:00", "D03", "same minute, other type"),
        row("2015-08-12 09:05:00", "D1", "that morning"),
        row("2015-08-31 23:59:59", "D02", "end of August"),
    ];
    data.save_all(&rows).await?;
    let stored: Vec<String> = row_keys(data.table(), Scan::new())
        .await
        .iter()
        .map(|k| text(k))
        .collect();
    ex.say(format!(
        "\nSaved {} rows; the table's keys, in HBase's order:",
        rows.len()
    ));
    for k in &stored {
        ex.say(format!("  {k}"));
    }
    ex.check_eq(
        "the stored keys sort by time, then by type",
        stored,
        vec![
            "20150812090500.D100".to_string(),
            "20150812163500.D010".into(),
            "20150812163500.D030".into(),
            "20150831235959.D020".into(),
            "20150912163500.D020".into(),
        ],
    );

    ex.say("\nGets take the source text; the codec applies the policy:");
    let read = data.get(&key("2015-08-12 16:35:00", "D01")).await?;
    ex.check_eq(
        "get(\"2015-08-12 16:35:00\", \"D01\") finds the first row",
        read.as_ref().map(|r| r.content.as_str()),
        Some("first publication"),
    );
    ex.check_eq(
        "the key parts read back in the policy's form (the policy is one-way)",
        read.clone(),
        Some(row("20150812163500", "D010", "first publication")),
    );
    let read_key = read.map(|r| r.row_key()).transpose()?;
    ex.check_eq(
        "formatting is idempotent: the row read back has the same key, byte for byte",
        read_key,
        Some(first.row_key()?),
    );
    ex.check_eq(
        "the formatted text is a key too",
        data.get(&key("20150912163500", "D020"))
            .await?
            .map(|r| r.content),
        Some("second publication".to_string()),
    );

    ex.say("\nFixed-length parts make prefixes and time ranges contiguous scans:");
    let minute = PublishDataKey::prefix_by_publish_time(&"2015-08-12 16:35:00".to_string())?;
    ex.check_eq(
        "the prefix of one publish time is 20150812163500.",
        minute.bytes.as_slice(),
        &b"20150812163500."[..],
    );
    ex.check_eq(
        "the prefix scan gives both types of that minute",
        contents(data.scan().prefix(minute)).await?,
        vec![
            "first publication".to_string(),
            "same minute, other type".into(),
        ],
    );
    let august = data.scan().range(
        &key("2015-08-01 00:00:00", ""),
        &key("2015-09-01 00:00:00", ""),
    );
    ex.check_eq(
        "the range [2015-08-01, 2015-09-01) gives August's four rows in time order",
        contents(august).await?,
        vec![
            "that morning".to_string(),
            "first publication".into(),
            "same minute, other type".into(),
            "end of August".into(),
        ],
    );

    ex.say("\nWhat the policy costs:");
    let same = (
        row("2015-08-12 16:35:00", "D01", "").row_key()?,
        row("2015-08-12 16:35:00", "D010", "").row_key()?,
    );
    ex.say(format!(
        "  D01 and D010 both give {}: padding at the end only works for codes of one shape",
        text(&same.0)
    ));
    ex.check("D01 and D010 share a row key", same.0 == same.1);
    let too_long = data.save(&row("2015-08-12 16:35:00", "D0001", "")).await;
    if let Err(e) = &too_long {
        ex.say(format!("  saving DATA_TYPE \"D0001\": {e}"));
    }
    ex.check(
        "a value longer than its part is refused, not cut",
        matches!(too_long, Err(Error::Encode { .. })),
    );
    ex.check_eq(
        "nothing was written by the refused save",
        row_keys(data.table(), Scan::new()).await.len(),
        rows.len(),
    );
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    let mut ex = Example::start(
        "rowkey_policy",
        "Row keys from a per-column policy (replace characters, pad to a fixed length,\n\
         separate with '.'): every key has the same shape, so keys sort by publish time then\n\
         data type, and one time or a time range is a contiguous scan. Each column's policy\n\
         is a small KeyCodec; gets and scans take the source text and format it the same way.",
        Client::from_env().await,
    )
    .await;
    let ran = run(&mut ex).await;
    ex.ran("the example", ran);
    ex.advice::<PublishData>(&[(
        "monotonic_key_start",
        "the seed's policy leads with the publish time so that a time range is one contiguous \
         scan; at a high write rate, salt it or lead with the data type",
    )]);
    ex.finish()
}
