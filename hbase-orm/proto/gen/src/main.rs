//! `hbase-orm-proto-gen PROTO_FILE OUT_DIR`: writes the prost types of the proto file's
//! package (`hbase.pb.rs`) into OUT_DIR.

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, proto, out] = &args[..] else {
        eprintln!("usage: hbase-orm-proto-gen PROTO_FILE OUT_DIR");
        std::process::exit(2);
    };
    let dir = std::path::Path::new(proto)
        .parent()
        .expect("the proto file is in a folder");
    let files = protox::compile([proto], [dir]).unwrap_or_else(|e| {
        eprintln!("{proto}: {e:?}");
        std::process::exit(1);
    });
    prost_build::Config::new()
        .out_dir(out)
        // Cell values and row keys arrive as `Bytes`, so replies can be read without a copy.
        .bytes(["."])
        .compile_fds(files)
        .unwrap_or_else(|e| {
            eprintln!("generating into {out}: {e}");
            std::process::exit(1);
        });
}
