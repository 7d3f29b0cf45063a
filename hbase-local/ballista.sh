#!/usr/bin/env bash
# A local Apache DataFusion Ballista cluster beside the local HBase: a scheduler and N executors,
# each a process of its own, all the example program hbase-orm-ballista/examples/node.rs (which
# knows the examples' entities). Start HBase first (hbase.sh up, or up --cluster 3 --hdfs).
#
#   hbase-local/ballista.sh up [N]      build the program, start a scheduler and N executors
#                                       (default 2; idempotent: starts whichever are not
#                                       running) and wait until each executor has registered
#   hbase-local/ballista.sh down [--purge]  stop them all (--purge: delete their logs and
#                                       shuffle files too)
#   hbase-local/ballista.sh status      each process: pid, ports, whether it runs; exit 0 iff all do
#   hbase-local/ballista.sh kill NAME   kill -9 one (a crash) and leave it dead
#   hbase-local/ballista.sh stop NAME   stop one (SIGTERM) and leave it stopped
#   hbase-local/ballista.sh start NAME  start one stopped process; returns once it is ready (an
#                                       executor: once the scheduler has registered it again)
#   hbase-local/ballista.sh logs [NAME] [-n LINES]  the tail of each process's log (or one's)
#
# NAME is scheduler or executor-1 .. executor-N. The scheduler listens on HBASE_ORM_BALLISTA_PORT
# (clients: df://127.0.0.1:PORT); executor-K's Arrow Flight port is PORT + 2K - 1 and its gRPC
# port PORT + 2K. They take an executor for lost after 5 s without its heartbeat (sent every
# second) and run its tasks again on the others, so that a test that kills one waits seconds,
# not Ballista's default three minutes.
#
# Environment:
#   HBASE_ORM_DATA             the data dir (default <repo>/.hbase-local, hbase.sh's): pid files,
#                              logs and shuffle files in $HBASE_ORM_DATA/ballista
#   HBASE_ORM_BALLISTA_PORT    the scheduler's port (default 15050; Ballista's own 50050 lies in
#                              the range Linux hands out to outgoing connections, 32768-60999,
#                              where this machine's clients of ZooKeeper took it first)
#   HBASE_ORM_BALLISTA_SLOTS   tasks each executor runs at once (default 2)
#   HBASE_ORM_BALLISTA_PROFILE the program's cargo profile: dev (default, as the tests build) or
#                              release (benchmarks); start runs the build up made
#   HBASE_ORM_BALLISTA_HBASE   the HBase every process reads (default hbase://127.0.0.1:2181, or
#                              HBASE_ORM_ZK_PORT's port: HBase's own RPC through ZooKeeper)
#   HBASE_ORM_UP_TIMEOUT       seconds up and start wait for each process (default 180)
#   RUST_LOG                   the processes' log level (default info)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$HERE")
DATA=${HBASE_ORM_DATA:-$REPO/.hbase-local}
DIR=$DATA/ballista
RUN=$DIR/run
LOGS=$DIR/logs
WORK=$DIR/work
PORT=${HBASE_ORM_BALLISTA_PORT:-15050}
SLOTS=${HBASE_ORM_BALLISTA_SLOTS:-2}
PROFILE=${HBASE_ORM_BALLISTA_PROFILE:-dev}
HBASE=${HBASE_ORM_BALLISTA_HBASE:-hbase://127.0.0.1:${HBASE_ORM_ZK_PORT:-2181}}
UP_TIMEOUT=${HBASE_ORM_UP_TIMEOUT:-180}
EXECUTOR_TIMEOUT=5
HEARTBEAT=1
# how many executors `up` started last (so that down, status and start know them)
COUNT_FILE=$DIR/executors
# the program `up` built (so that start runs the same build, whatever the environment then)
PROGRAM_FILE=$DIR/program

say() { printf 'ballista.sh: %s\n' "$*" >&2; }
die() {
  say "$*"
  exit 1
}

usage() {
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# the program cargo builds (the crate builds into hbase-orm-sql's target directory)
built_program() {
  local dir=debug
  [[ "$PROFILE" == release ]] && dir=release
  printf '%s/examples/node\n' "${CARGO_TARGET_DIR:-$REPO/hbase-orm-sql/target}/$dir"
}

# the program to run: the one `up` built, else the profile's
program() {
  if [[ -f "$PROGRAM_FILE" ]]; then cat "$PROGRAM_FILE"; else built_program; fi
}

build() {
  say "building hbase-orm-ballista's example node ($PROFILE)"
  (cd "$REPO/hbase-orm-ballista" && cargo build --quiet --profile "$PROFILE" --example node)
}

executors() {
  if [[ -f "$COUNT_FILE" ]]; then cat "$COUNT_FILE"; else echo 0; fi
}

# the names of the processes: the scheduler and the executors `up` started
names() {
  local i n
  n=$(executors)
  echo scheduler
  for ((i = 1; i <= n; i++)); do echo "executor-$i"; done
}

# executor-K's number, or nothing for another name
executor_number() {
  [[ "$1" =~ ^executor-([1-9][0-9]*)$ ]] && echo "${BASH_REMATCH[1]}"
}

flight_port() { echo $((PORT + 2 * $1 - 1)); }
grpc_port() { echo $((PORT + 2 * $1)); }

pid_of() {
  local file=$RUN/$1.pid pid
  [[ -f "$file" ]] || return 1
  pid=$(cat "$file")
  kill -0 "$pid" 2>/dev/null || return 1
  echo "$pid"
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# registrations of the executor whose gRPC port is $1 in the scheduler's log so far
registrations() {
  grep -c "Received register executor request.*grpc_port: $1\b" "$LOGS/scheduler.log" 2>/dev/null || true
}

# waits until $2 (a command) succeeds, or fails naming $1 and its log
wait_for() {
  local name=$1 deadline=$((SECONDS + UP_TIMEOUT))
  shift
  until "$@"; do
    if ! pid_of "$name" >/dev/null; then
      tail -n 30 "$LOGS/$name.log" >&2 || true
      die "$name exited (log above: $LOGS/$name.log)"
    fi
    ((SECONDS < deadline)) || die "$name not ready after ${UP_TIMEOUT}s (log: $LOGS/$name.log)"
    sleep 0.2
  done
}

registered_since() { (($(registrations "$1") > $2)); }

start_one() {
  local name=$1 k before
  if pid_of "$name" >/dev/null; then
    return 0
  fi
  mkdir -p "$RUN" "$LOGS" "$WORK"
  if [[ "$name" == scheduler ]]; then
    port_open "$PORT" && die "port $PORT is taken (HBASE_ORM_BALLISTA_PORT picks another)"
    HBASE_ORM_URL=$HBASE RUST_LOG=${RUST_LOG:-info} nohup "$(program)" scheduler \
      --bind "127.0.0.1:$PORT" --executor-timeout "$EXECUTOR_TIMEOUT" \
      >>"$LOGS/scheduler.log" 2>&1 &
    echo $! >"$RUN/scheduler.pid"
    wait_for scheduler port_open "$PORT"
    say "scheduler at df://127.0.0.1:$PORT"
    return 0
  fi
  k=$(executor_number "$name") || die "no process $name (scheduler, executor-1 .. executor-N)"
  pid_of scheduler >/dev/null || die "the scheduler is not running: hbase-local/ballista.sh up"
  before=$(registrations "$(grpc_port "$k")")
  mkdir -p "$WORK/$name"
  HBASE_ORM_URL=$HBASE RUST_LOG=${RUST_LOG:-info} nohup "$(program)" executor --name "$name" \
    --flight-port "$(flight_port "$k")" --grpc-port "$(grpc_port "$k")" \
    --scheduler "127.0.0.1:$PORT" --slots "$SLOTS" --heartbeat "$HEARTBEAT" \
    --work-dir "$WORK/$name" >>"$LOGS/$name.log" 2>&1 &
  echo $! >"$RUN/$name.pid"
  wait_for "$name" registered_since "$(grpc_port "$k")" "$before"
  say "$name at 127.0.0.1:$(flight_port "$k") registered"
}

stop_one() {
  local name=$1 signal=$2 pid i
  pid=$(pid_of "$name") || {
    rm -f "$RUN/$name.pid"
    return 0
  }
  kill "-$signal" "$pid" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$RUN/$name.pid"
}

known() {
  names | grep -qx "$1" || die "no process $1 (the scheduler and executor-1 .. executor-$(executors))"
}

cmd_up() {
  local n=${1:-2} i
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || die "up takes a number of executors, not '$n'"
  local current
  current=$(executors)
  ((n >= current)) || die "$current executors run here; down first to start fewer"
  [[ -f "$PROGRAM_FILE" && $current -gt 0 && "$(cat "$PROGRAM_FILE")" != "$(built_program)" ]] &&
    die "$current executors run $(cat "$PROGRAM_FILE"); down first to run $(built_program)"
  build
  mkdir -p "$DIR"
  echo "$n" >"$COUNT_FILE"
  built_program >"$PROGRAM_FILE"
  start_one scheduler
  for ((i = 1; i <= n; i++)); do start_one "executor-$i"; done
  say "up: a scheduler and $n executors (logs in $LOGS)"
}

cmd_down() {
  local name
  for name in $(names | tac); do stop_one "$name" TERM; done
  if [[ "${1:-}" == --purge ]]; then
    rm -rf "$DIR"
  else
    rm -f "$COUNT_FILE" "$PROGRAM_FILE"
  fi
  say "down"
}

cmd_status() {
  local name k pid all=0
  for name in $(names); do
    if [[ "$name" == scheduler ]]; then
      ports="port $PORT"
    else
      k=$(executor_number "$name")
      ports="flight $(flight_port "$k"), grpc $(grpc_port "$k")"
    fi
    if pid=$(pid_of "$name"); then
      printf '%-12s running  pid %-8s %s\n' "$name" "$pid" "$ports"
    else
      printf '%-12s stopped  %-12s %s\n' "$name" "" "$ports"
      all=1
    fi
  done
  return "$all"
}

cmd_logs() {
  local lines=40 only="" name
  while (($#)); do
    case $1 in
      -n)
        lines=${2:?-n needs a number}
        shift 2
        ;;
      *)
        only=$1
        shift
        ;;
    esac
  done
  for name in $(names); do
    [[ -z "$only" || "$only" == "$name" ]] || continue
    [[ -f "$LOGS/$name.log" ]] || continue
    printf '==> %s <==\n' "$LOGS/$name.log"
    tail -n "$lines" "$LOGS/$name.log"
  done
}

main() {
  local command=${1:-}
  shift || true
  case $command in
    up) cmd_up "$@" ;;
    down) cmd_down "$@" ;;
    status) cmd_status ;;
    logs) cmd_logs "$@" ;;
    kill)
      known "${1:?kill NAME}"
      stop_one "$1" KILL
      say "killed $1"
      ;;
    stop)
      known "${1:?stop NAME}"
      stop_one "$1" TERM
      say "stopped $1"
      ;;
    start)
      known "${1:?start NAME}"
      start_one "$1"
      ;;
    *) usage ;;
  esac
}

main "$@"
