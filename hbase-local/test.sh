#!/usr/bin/env bash
# The README's test command: every test of the workspace, against the local HBase.
#
#   hbase-local/test.sh          all the tests (see below for the order)
#   hbase-local/test.sh ARGS     `cargo test --workspace ARGS` once HBase is up, e.g.
#                                `hbase-local/test.sh -- entities::` or `--test suite`
#
# It starts the local HBase (`hbase.sh up`: the Maven jars on first use, then the JVMs) while
# cargo compiles the tests, since neither needs the other, and runs the tests once both are
# done. On a fresh clone the start (about 40 s with the jars to fetch) hides behind the compile;
# when HBase is already up, `up` returns at once. HBase is left running, as `up` leaves it
# (`hbase-local/hbase.sh down` stops it).
#
# Without ARGS the tests run in two lanes at once, every test binary cargo built in exactly one:
#   HBase lane:  the root package's tests (tests/), which talk to the local HBase, one binary
#                after another as `cargo test` runs them (some stop or restart a gateway or
#                HBase itself, so nothing else may use HBase meanwhile);
#   other lane:  the tests that need no HBase: the other packages' integration tests (the
#                derives' compile-time tests, the row-key properties), the unit tests, the doc
#                tests. Its output is printed when both lanes are done.
# Most of the HBase lane's first binaries wait (on a gateway's restart, a scanner's expiry)
# rather than compute, so the other lane's CPU work fits beside them. Both lanes are
# `cargo test --workspace` with target filters: the features resolve as in the compile above
# and nothing is built again. Without python3 (which reads cargo's list of test binaries), or
# when that list holds something the lanes do not know how to place, the tests run as one
# plain `cargo test --workspace`.
set -euo pipefail
cd "$(dirname "$0")/.."

hbase-local/hbase.sh up &
up=$!

if [ "$#" -gt 0 ] || ! command -v python3 >/dev/null 2>&1; then
  built=0
  cargo test --workspace --no-run || built=$?
  if ! wait "$up"; then
    echo "[test.sh] hbase-local/hbase.sh up failed (its output is above)" >&2
    exit 1
  fi
  [ "$built" -eq 0 ] || exit "$built"
  exec cargo test --workspace "$@"
fi

plan=$(mktemp -d)
other=
# On any exit (an interrupt too): the other lane runs in a process group of its own (below),
# which a Ctrl-C at the terminal does not reach, so it is stopped here.
cleanup() {
  if [ -n "$other" ]; then
    kill -TERM -- "-$other" 2>/dev/null || true
  fi
  rm -rf "$plan"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

built=0
# cargo's JSON messages name every test binary it built: which target, of which package.
cargo test --workspace --no-run --message-format=json-render-diagnostics \
  >"$plan/artifacts.json" || built=$?
if ! wait "$up"; then
  echo "[test.sh] hbase-local/hbase.sh up failed (its output is above)" >&2
  exit 1
fi
[ "$built" -eq 0 ] || exit "$built"

# Three lines of cargo target filters: the HBase lane's, then the other lane's in the order it
# runs them: the other packages' integration tests first (the derives' compile-time tests
# compile a project of their own, the most CPU work of that lane, best done while the HBase lane
# mostly waits), then the unit tests. The doc tests come last. Exit status 3: a test binary the
# lanes cannot place for sure (a kind of target not known here, or one name in two packages,
# which a `--test NAME` filter would select in both).
lanes=0
python3 - "$PWD/Cargo.toml" "$plan/artifacts.json" >"$plan/lanes" <<'PYEOF' || lanes=$?
import json
import os
import sys

root_manifest = os.path.realpath(sys.argv[1])
LIBRARIES = ("lib", "rlib", "dylib", "cdylib", "staticlib", "proc-macro")
lanes = {"hbase": [], "tests": [], "units": []}
packages_of = {}
for line in open(sys.argv[2]):
    if not line.startswith("{"):
        continue
    message = json.loads(line)
    if message.get("reason") != "compiler-artifact" or not message.get("executable"):
        continue
    if not message["profile"]["test"]:
        continue  # an example built to check that it compiles; CI's examples stage runs it
    target = message["target"]
    kind, name = target["kind"][0], target["name"]
    if kind in LIBRARIES:
        lane, flag = "units", ("--lib",)  # the unit tests of every library of the workspace
    elif kind in ("test", "bench", "example", "bin"):
        if os.path.realpath(message["manifest_path"]) == root_manifest:
            lane = "hbase"
        elif kind == "bin":
            lane = "units"
        else:
            lane = "tests"
        flag = ("--" + kind, name)
        packages_of.setdefault(flag, set()).add(message["package_id"])
        if len(packages_of[flag]) > 1:
            print(f"{kind} {name} is in two packages", file=sys.stderr)
            sys.exit(3)
    else:
        print(f"a test binary of an unknown kind: {kind} {name}", file=sys.stderr)
        sys.exit(3)
    if flag not in lanes[lane]:
        lanes[lane].append(flag)
for lane in ("hbase", "tests", "units"):
    print(" ".join(word for flag in sorted(lanes[lane]) for word in flag))
PYEOF
if [ "$lanes" -eq 0 ]; then
  {
    read -r -a hbase_lane
    read -r -a test_targets
    read -r -a unit_targets
  } <"$plan/lanes"
  [ "${#hbase_lane[@]}" -gt 0 ] && [ "${#unit_targets[@]}" -gt 0 ] || lanes=4
fi
if [ "$lanes" -ne 0 ]; then
  echo "[test.sh] the test binaries could not be split into lanes (exit $lanes); running them in one go" >&2
  cargo test --workspace
  exit
fi

other_lane="cargo test --workspace ${unit_targets[*]}; cargo test --workspace --doc"
if [ "${#test_targets[@]}" -gt 0 ]; then
  other_lane="cargo test --workspace ${test_targets[*]}; $other_lane"
fi
set -m # the other lane gets a process group of its own, which cleanup can stop as a whole
(
  rc=0
  if [ "${#test_targets[@]}" -gt 0 ]; then
    cargo test --workspace "${test_targets[@]}" || rc=1
  fi
  cargo test --workspace "${unit_targets[@]}" || rc=1
  cargo test --workspace --doc || rc=1
  exit "$rc"
) >"$plan/other.log" 2>&1 &
other=$!
set +m
echo "[test.sh] HBase lane: cargo test --workspace ${hbase_lane[*]}"
echo "[test.sh] meanwhile, tests without HBase: $other_lane (output below when done)"
hbase_rc=0
cargo test --workspace "${hbase_lane[@]}" || hbase_rc=$?
other_rc=0
wait "$other" || other_rc=$?
other=
echo
echo "[test.sh] tests without HBase ($other_lane):"
cat "$plan/other.log"
if [ "$hbase_rc" -ne 0 ] || [ "$other_rc" -ne 0 ]; then
  echo "[test.sh] failed: HBase lane exit $hbase_rc, tests without HBase exit $other_rc" >&2
  exit 1
fi
echo "[test.sh] both lanes passed"
