//! HBase's own Java client beside ours: a Java program of this repository compiled with `javac`
//! against the jars `hbase-local/hbase.sh` fetched for the HBase line under test
//! (`$HBASE_ORM_CACHE/hbase-LINE/lib`, by default `~/.cache/hbase-orm/hbase-2.6.1/lib`; run `up`
//! once first) into `target/java/NAME/`, again only when the source or the jar folder changed;
//! without `javac` (a JRE only) it runs from its source file (`java NAME.java`). Each run is a
//! fresh JVM with the JDK flags HBase's scripts use (`hbase-local/jdk-flags`) and `-Xmx1g`,
//! logging to `target/java/NAME/NAME.log`.
//!
//! Environment: `HBASE_ORM_HBASE_VERSION` (the HBase line, as the launcher reads it; default
//! [`HBASE_VERSION`]), `HBASE_ORM_BENCH_JAVA_LIB` (another jar folder), `JAVA_HOME`.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The HBase line the launcher runs when `HBASE_ORM_HBASE_VERSION` is not set.
pub const HBASE_VERSION: &str = "2.6.1";

/// The HBase line under test: `$HBASE_ORM_HBASE_VERSION` (the launcher's setting), else
/// [`HBASE_VERSION`].
pub fn hbase_version() -> String {
    std::env::var("HBASE_ORM_HBASE_VERSION")
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| HBASE_VERSION.to_string())
}

/// A Java program, ready to run.
pub struct JavaProgram {
    java: PathBuf,
    /// Options before the main class: JDK flags, heap, logging, class path.
    options: Vec<String>,
    /// The main class, or the source file when there is no `javac`.
    main: String,
    /// How it was built (`compiled by javac in 2.1 s`, ...), for a report's header.
    pub built: String,
    /// Its log file.
    pub log: PathBuf,
}

/// The repository's root (the suite package's manifest folder).
fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `target/` of this build: a test or bench runs as `target/PROFILE/deps/NAME-HASH`.
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the program's own path");
    exe.ancestors()
        .nth(3)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| repo_root().join("target"))
}

/// The folder of HBase's jars that `hbase-local/hbase.sh` fetched for the line under test
/// ([`hbase_version`]), or `$HBASE_ORM_BENCH_JAVA_LIB`.
pub fn jar_folder() -> PathBuf {
    if let Ok(lib) = std::env::var("HBASE_ORM_BENCH_JAVA_LIB") {
        return PathBuf::from(lib);
    }
    let cache = std::env::var_os("HBASE_ORM_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").expect("HOME")).join(".cache/hbase-orm")
        });
    cache.join(format!("hbase-{}/lib", hbase_version()))
}

/// The Hadoop version (major, minor) of the jars in [`jar_folder`], read from its
/// `hadoop-common-X.Y.Z.jar`; `None` when the folder holds none (not fetched yet).
pub fn hadoop_version() -> Option<(u32, u32)> {
    std::fs::read_dir(jar_folder())
        .ok()?
        .flatten()
        .find_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let version = name.strip_prefix("hadoop-common-")?.strip_suffix(".jar")?;
            let mut parts = version.split('.').map(|p| p.parse::<u32>().ok());
            Some((parts.next()??, parts.next()??))
        })
}

/// A JDK tool: `$JAVA_HOME/bin/NAME`, else NAME on the path.
fn jdk_tool(name: &str) -> PathBuf {
    match std::env::var_os("JAVA_HOME") {
        Some(home) => PathBuf::from(home).join("bin").join(name),
        None => PathBuf::from(name),
    }
}

/// The ZooKeeper quorum of an `hbase://` URL (`hbase://zk1:2181,zk2:2181/?...`), which the
/// Java client is given.
pub fn zk_quorum(url: &str) -> String {
    let rest = url.strip_prefix("hbase://").unwrap_or_else(|| {
        panic!("HBASE_ORM_NATIVE_URL={url}: the Java client needs an hbase:// (ZooKeeper) URL")
    });
    rest.split(['/', '?']).next().unwrap_or(rest).to_string()
}

impl JavaProgram {
    /// The program of `source` (a path from the repository's root) whose class is `name`,
    /// compiled when its classes are missing or stale.
    pub fn prepare(source: &str, name: &str) -> JavaProgram {
        let lib = jar_folder();
        let has_client = std::fs::read_dir(&lib)
            .map(|d| {
                d.flatten()
                    .any(|e| e.file_name().to_string_lossy().starts_with("hbase-client-"))
            })
            .unwrap_or(false);
        assert!(
            has_client,
            "no hbase-client jar in {}: run `hbase-local/hbase.sh up` once (it fetches HBase's \
             jars there), or point HBASE_ORM_BENCH_JAVA_LIB at a folder of them",
            lib.display()
        );
        let source = repo_root().join(source);
        let text =
            std::fs::read(&source).unwrap_or_else(|e| panic!("reading {}: {e}", source.display()));
        let out = target_dir().join("java").join(name);
        let classes = out.join("classes");
        let stamp_file = classes.join(".stamp");
        // What the classes were built from: the source and the jar folder.
        let stamp = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            text.hash(&mut h);
            lib.hash(&mut h);
            format!("{:016x}", h.finish())
        };
        let jars = format!("{}/*", lib.display());
        let mut built = format!("classes cached in target/java/{name}");
        let fresh = std::fs::read_to_string(&stamp_file).is_ok_and(|s| s.trim() == stamp);
        let mut compiled = fresh;
        if !fresh {
            let _ = std::fs::remove_dir_all(&classes);
            std::fs::create_dir_all(&classes).expect("the classes' folder");
            let t0 = Instant::now();
            match Command::new(jdk_tool("javac"))
                .args(["-nowarn", "-encoding", "UTF-8", "--release", "11", "-cp"])
                .arg(&jars)
                .arg("-d")
                .arg(&classes)
                .arg(&source)
                .output()
            {
                Ok(o) if o.status.success() => {
                    std::fs::write(&stamp_file, &stamp).expect("the classes' stamp");
                    built = format!("compiled by javac in {:.1} s", t0.elapsed().as_secs_f64());
                    compiled = true;
                }
                Ok(o) => panic!(
                    "javac failed on {}:\n{}{}",
                    source.display(),
                    String::from_utf8_lossy(&o.stdout),
                    String::from_utf8_lossy(&o.stderr)
                ),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    built = "no javac: run from its source file".to_string();
                }
                Err(e) => panic!("running javac: {e}"),
            }
        }
        let mut options: Vec<String> =
            std::fs::read_to_string(repo_root().join("hbase-local/jdk-flags"))
                .expect("hbase-local/jdk-flags")
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(String::from)
                .collect();
        let log4j = repo_root().join("hbase-local/conf/log4j2.properties");
        options.extend([
            "-Xmx1g".to_string(),
            format!("-Dlog4j2.configurationFile={}", log4j.display()),
            format!("-Dhbase.log.dir={}", out.display()),
            format!("-Dhbase.log.file={name}.log"),
            "-Dlog4j2.shutdownHookEnabled=false".to_string(),
            "-cp".to_string(),
        ]);
        let main = if compiled {
            options.push(format!("{}:{jars}", classes.display()));
            name.to_string()
        } else {
            options.push(jars);
            source.display().to_string()
        };
        JavaProgram {
            java: jdk_tool("java"),
            options,
            main,
            built,
            log: out.join(format!("{name}.log")),
        }
    }

    /// Runs the program with `args` and returns the lines it printed; panics with its output
    /// and log when it fails or takes longer than `limit` (it is killed then). Blocks the
    /// calling thread.
    pub fn run(&self, args: &[String], limit: Duration) -> Vec<String> {
        let mut child = Command::new(&self.java)
            .args(&self.options)
            .arg(&self.main)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("starting {}: {e}", self.java.display()));
        let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
        let mut process = JavaProcess(child);
        let lines = std::thread::spawn(move || {
            BufReader::new(stdout.expect("piped stdout"))
                .lines()
                .map_while(Result::ok)
                .collect::<Vec<_>>()
        });
        // The last lines of stderr, for a failure's message (the log has the rest).
        let errors = std::thread::spawn(move || {
            let mut tail = std::collections::VecDeque::new();
            for line in BufReader::new(stderr.expect("piped stderr"))
                .lines()
                .map_while(Result::ok)
            {
                if tail.len() == 40 {
                    tail.pop_front();
                }
                tail.push_back(line);
            }
            Vec::from(tail).join("\n")
        });
        let deadline = Instant::now() + limit;
        let status = loop {
            if let Some(status) = process.0.try_wait().expect("waiting for the Java program") {
                break status;
            }
            if Instant::now() > deadline {
                drop(process);
                panic!(
                    "the Java program took more than {limit:?} (killed); its log: {}",
                    self.log.display()
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        let lines = lines.join().expect("stdout reader");
        let errors = errors.join().expect("stderr reader");
        assert!(
            status.success(),
            "the Java program failed ({status}):\n{}\n{errors}\n(log: {})",
            lines.join("\n"),
            self.log.display()
        );
        lines
    }
}

/// The Java program's process, killed if the caller ends first (a timeout, a panic).
struct JavaProcess(Child);

impl Drop for JavaProcess {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            let _ = self.0.kill();
        }
        let _ = self.0.wait();
    }
}
