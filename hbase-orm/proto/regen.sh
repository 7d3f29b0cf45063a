#!/usr/bin/env bash
# Regenerates the protobuf subset the native backend speaks and its Rust types.
#
#   hbase-orm/proto/regen.sh
#
# 1. Takes HBase's .proto files from hbase-protocol-shaded (the jar the launcher fetches; Maven
#    fetches it here if it is missing), and VisibilityLabels.proto, which only the unshaded
#    hbase-protocol jar holds (same package, same messages), and keeps the messages messages.txt names, with what they
#    refer to, in hbase_subset.proto (trim.py).
# 2. Generates Rust from it with prost-build, parsing with protox (gen/, a separate cargo project:
#    no protoc needed) into hbase-orm/src/backend/native/generated/hbase.pb.rs.
# Both outputs are committed; never edit them by hand.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
version=2.6.1-hadoop3
jar="$HOME/.m2/repository/org/apache/hbase/hbase-protocol-shaded/$version/hbase-protocol-shaded-$version.jar"
unshaded="$HOME/.m2/repository/org/apache/hbase/hbase-protocol/$version/hbase-protocol-$version.jar"
for artifact in hbase-protocol-shaded hbase-protocol; do
  path="$HOME/.m2/repository/org/apache/hbase/$artifact/$version/$artifact-$version.jar"
  if [ ! -f "$path" ]; then
    mvn -q dependency:get -Dartifact="org.apache.hbase:$artifact:$version" -Dtransitive=false
  fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && unzip -q "$jar" '*.proto' && unzip -q "$unshaded" 'VisibilityLabels.proto')
python3 "$here/trim.py" "$tmp" "$here/messages.txt" > "$here/hbase_subset.proto"
out="$here/../src/backend/native/generated"
mkdir -p "$out"
cargo run --quiet --release --manifest-path "$here/gen/Cargo.toml" -- "$here/hbase_subset.proto" "$out"
echo "wrote $here/hbase_subset.proto ($(grep -c '^message' "$here/hbase_subset.proto") messages) and $out/hbase.pb.rs ($(wc -l < "$out/hbase.pb.rs") lines)"
