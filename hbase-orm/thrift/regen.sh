#!/usr/bin/env bash
# Regenerates the Rust bindings of the Thrift2 subset the project uses.
#
#   hbase-orm/thrift/regen.sh
#
# Needs Debian's thrift-compiler 0.17 (`apt-get install thrift-compiler`). The output goes to
# hbase-orm/src/backend/thrift2/generated/thbase.rs and is committed; never edit it by hand.
#
# The compiler makes the per-method `*Args` / `*Result` structs private to the generated module.
# The async client encodes calls itself (the crate's generated clients are blocking), so the
# script widens those structs, their fields and their methods to `pub(crate)`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out="$here/../src/backend/thrift2/generated"
command -v thrift >/dev/null || { echo "thrift compiler not found: apt-get install thrift-compiler" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
thrift --gen rs -out "$tmp" "$here/thbase_subset.thrift"
perl -0pe '
  # struct THBaseServiceXxxArgs { a: T, ... }  ->  pub(crate) struct with pub(crate) fields
  s<^struct (THBaseService\w+(?:Args|Result)) \{\n(.*?)^\}><
    my ($n, $body) = ($1, $2);
    $body =~ s/^  (\w+): /  pub(crate) $1: /mg;
    "pub(crate) struct $n \{\n$body\}"
  >gmse;
  # the inherent impls of those structs: make their fns pub(crate)
  s<^(impl (THBaseService\w+(?:Args|Result)) \{\n)(.*?)^\}><
    my ($head, $body) = ($1, $3);
    $body =~ s/^  fn /  pub(crate) fn /mg;
    "$head$body\}"
  >gmse;
' "$tmp/thbase_subset.rs" > "$out/thbase.rs"
echo "wrote $out/thbase.rs ($(wc -l < "$out/thbase.rs") lines)"
