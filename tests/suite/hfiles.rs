//! HFiles of `hbase-orm-hfile`'s writer, read by HBase's own reader (`hbase-local/hbase.sh
//! hfile`: HFilePrettyPrinter from the launcher's jars) in every compression the writer speaks,
//! with and without a ROW bloom, with an index three levels deep, and with delete markers: every
//! cell read back, in order, and the trailer and file info as written.
//!
//! The reader is the one of the HBase line under test (`HBASE_ORM_HBASE_VERSION`, as the
//! launcher runs it). Lines whose Hadoop is older than 3.3 (2.4, 2.5, 3.0.0-alpha-4) read
//! Snappy blocks only with Hadoop's native library (`libhadoop`; Hadoop 3.3 brought a pure-Java
//! Snappy codec): without it their reader fails with `UnsatisfiedLinkError ...
//! buildSupportsSnappy`, and this test then says so for each Snappy file and checks the others.

use std::path::{Path, PathBuf};
use std::process::Command;

use hbase_orm_hfile::{Bloom, Cell, CellType, Compression, Options, Writer};

/// The qualifiers of an order row, in HBase's order.
const QUALIFIERS: [&[u8]; 4] = [b"city", b"note", b"status", b"total"];

/// `rows` order rows of four cells each (strings of 6 to 36 bytes), and with `deletes` a
/// column delete marker before every tenth row's `note` and a family delete on every
/// twentieth row.
fn write_file(path: &Path, options: Options, rows: usize, deletes: bool) -> (u64, u32) {
    let file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut writer = Writer::new(file, options);
    let mut cells = 0;
    for i in 0..rows {
        let row = format!("customer-{:06}/order-{:08}", i / 7, i);
        let ts = 1_700_000_000_000 + i as i64;
        if deletes && i % 20 == 0 {
            let marker = Cell {
                kind: CellType::DeleteFamily,
                ..Cell::put(row.as_bytes(), b"d", b"", ts + 1, b"")
            };
            writer.append(&marker).unwrap();
            cells += 1;
        }
        for q in QUALIFIERS {
            if deletes && i % 10 == 0 && q == b"note" {
                let marker = Cell {
                    kind: CellType::DeleteColumn,
                    ..Cell::put(row.as_bytes(), b"d", q, ts + 1, b"")
                };
                writer.append(&marker).unwrap();
                cells += 1;
            }
            let value = match q {
                b"city" => ["Oslo", "Trondheim", "Kristiansand"][i % 3].repeat(1 + i % 2),
                b"note" => format!("deliver to the back door, ring {} times", i % 5),
                b"status" => "SHIPPED".to_string(),
                _ => format!("{}.{:02}", i * 7 % 10_000, i % 100),
            };
            writer
                .append(&Cell::put(row.as_bytes(), b"d", q, ts, value.as_bytes()))
                .unwrap();
            cells += 1;
        }
    }
    let (_, summary) = writer.finish().unwrap();
    assert_eq!(summary.cells, cells);
    (cells, summary.index_levels)
}

/// HBase's reader over `file`: whether it exited well, its output and its errors.
fn run_hbase_reader(file: &Path) -> (bool, String, String) {
    let launcher = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("hbase-local/hbase.sh");
    let out = Command::new("bash")
        .arg(&launcher)
        .arg("hfile")
        .arg(file)
        .output()
        .expect("runs hbase-local/hbase.sh hfile");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The Hadoop version of the line's jars when it is older than 3.3: its reader needs Hadoop's
/// native library for Snappy blocks. `None` on 3.3 and later (2.6.1: Hadoop 3.3.5).
fn hadoop_without_java_snappy() -> Option<(u32, u32)> {
    let version = hbase_orm_suite::java::hadoop_version().unwrap_or_else(|| {
        panic!(
            "no hadoop-common jar in {} (hbase.sh hfile fetches the jars)",
            hbase_orm_suite::java::jar_folder().display()
        )
    });
    (version < (3, 3)).then_some(version)
}

/// HBase's reader over `file`: its output, after checking it exited well and warned of nothing.
fn read_with_hbase(file: &Path) -> String {
    let (success, stdout, stderr) = run_hbase_reader(file);
    assert!(
        success,
        "HBase's reader refused {}:\n{stdout}\n{stderr}",
        file.display()
    );
    check_read(file, stdout, &stderr)
}

/// The reader's output, after checking it warned of nothing.
fn check_read(file: &Path, stdout: String, stderr: &str) -> String {
    for bad in ["WARNING", "ERROR", "Exception"] {
        assert!(
            !stdout.contains(bad) && !stderr.contains(bad),
            "{bad} reading {}:\n{stdout}\n{stderr}",
            file.display()
        );
    }
    stdout
}

/// The value of `name=` or `name = ` in the reader's output.
fn field<'a>(out: &'a str, name: &str) -> &'a str {
    out.lines()
        .map(str::trim)
        .find_map(|l| {
            l.strip_prefix(name)
                .and_then(|r| r.trim_start().strip_prefix(['=', '-']))
                .map(|r| r.trim_start_matches('>').trim().trim_end_matches(','))
        })
        .unwrap_or_else(|| panic!("no `{name}` in:\n{out}"))
}

#[test]
fn hbase_reads_every_kind_of_file_the_writer_makes() {
    let dir = std::env::temp_dir().join(format!("hbase-orm-hfiles-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // (name, options, rows, deletes, codec as HBase names it, index levels at least)
    let cases = [
        (
            "plain-row-bloom",
            Options::new().bloom(Bloom::Row),
            20_000,
            false,
            "NONE",
            1,
        ),
        (
            "gz",
            Options::new().compression(Compression::Gz),
            20_000,
            false,
            "GZ",
            1,
        ),
        (
            "snappy-row-bloom",
            Options::new()
                .compression(Compression::Snappy)
                .bloom(Bloom::Row),
            20_000,
            false,
            "SNAPPY",
            1,
        ),
        (
            // Small blocks and index blocks: leaf, intermediate and root levels.
            "three-levels",
            Options::new()
                .bloom(Bloom::Row)
                .block_size(256)
                .index_block_size(512)
                .bloom_chunk_size(128),
            5_000,
            false,
            "NONE",
            3,
        ),
        (
            "deletes-gz",
            Options::new()
                .compression(Compression::Gz)
                .bloom(Bloom::Row)
                .block_size(4096),
            5_000,
            true,
            "GZ",
            1,
        ),
    ];
    for (name, options, rows, deletes, codec, levels) in cases {
        let path = dir.join(name);
        let (cells, written_levels) = write_file(&path, options, rows, deletes);
        assert!(written_levels >= levels, "{name}: {written_levels} levels");
        let old_hadoop = if codec == "SNAPPY" {
            hadoop_without_java_snappy()
        } else {
            None
        };
        let out = match old_hadoop {
            None => read_with_hbase(&path),
            Some((major, minor)) => {
                let (success, stdout, stderr) = run_hbase_reader(&path);
                if stdout.contains("buildSupportsSnappy") || stderr.contains("buildSupportsSnappy")
                {
                    println!(
                        "hfiles: {name} NOT read by HBase's reader: HBase {} runs on Hadoop \
                         {major}.{minor}, whose Snappy codec needs Hadoop's native library \
                         (older than 3.3; not installed here: UnsatisfiedLinkError \
                         ...buildSupportsSnappy). The other files are checked.",
                        hbase_orm_suite::java::hbase_version()
                    );
                    std::fs::remove_file(&path).unwrap();
                    continue;
                }
                // Hadoop's native library is there after all: checked as on any line.
                assert!(
                    success,
                    "HBase's reader refused {}:\n{stdout}\n{stderr}",
                    path.display()
                );
                check_read(&path, stdout, &stderr)
            }
        };
        assert_eq!(field(&out, "Scanned kv count"), cells.to_string(), "{name}");
        assert_eq!(field(&out, "entryCount"), cells.to_string(), "{name}");
        assert_eq!(field(&out, "compressionCodec"), codec, "{name}");
        assert_eq!(
            field(&out, "numDataIndexLevels"),
            written_levels.to_string(),
            "{name}"
        );
        assert!(
            field(&out, "firstKey").starts_with("Optional[customer-000000/order-00000000/d:"),
            "{name}:\n{out}"
        );
        let last = format!(
            "customer-{:06}/order-{:08}/d:total/",
            (rows - 1) / 7,
            rows - 1
        );
        assert!(field(&out, "lastKey").contains(&last), "{name}:\n{out}");
        std::fs::remove_file(&path).unwrap();
    }
    std::fs::remove_dir(&dir).unwrap();
}
