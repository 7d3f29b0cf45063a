#!/usr/bin/env bash
# The README's test command: every test of the workspace, against the local HBase.
#
#   hbase-local/test.sh [ARGS]   ARGS go to the final `cargo test --workspace`, e.g.
#                                `hbase-local/test.sh -- entities::` or `--test suite`
#
# It starts the local HBase (`hbase.sh up`: the Maven jars on first use, then the JVMs) while
# cargo compiles the tests, since neither needs the other, and runs the tests once both are
# done. On a fresh clone the start (about 50 s with the jars to fetch) hides behind the compile;
# when HBase is already up, `up` returns at once. HBase is left running, as `up` leaves it
# (`hbase-local/hbase.sh down` stops it).
set -euo pipefail
cd "$(dirname "$0")/.."

hbase-local/hbase.sh up &
up=$!
built=0
cargo test --workspace --no-run || built=$?
if ! wait "$up"; then
  echo "[test.sh] hbase-local/hbase.sh up failed (its output is above)" >&2
  exit 1
fi
if [ "$built" -ne 0 ]; then
  exit "$built"
fi
exec cargo test --workspace "$@"
