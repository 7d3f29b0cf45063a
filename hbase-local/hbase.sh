#!/usr/bin/env bash
# Local standalone HBase 2.6.1 + Thrift gateways (three Thrift2, one Thrift1), from Maven jars (no HBase install needed).
#
#   hbase-local/hbase.sh up            start (idempotent) and wait until ready
#   hbase-local/hbase.sh down [--purge] stop (and with --purge delete the data dir)
#   hbase-local/hbase.sh status        what runs, whether the gateways answer; exit 0 iff all up
#   hbase-local/hbase.sh restart NAME  stop one gateway (thrift, thrift-framed, thrift1,
#                                      thrift-short) and start it again (or start it if it was
#                                      stopped); returns once it answers (for fault tests)
#   hbase-local/hbase.sh stop NAME     stop one gateway and leave it stopped (fault tests)
#   hbase-local/hbase.sh logs [-f]     tail of the master and gateway logs (-f follows)
#
# Processes (background JVMs, pid files in $DATA/run):
#   master        org.apache.hadoop.hbase.master.HMaster start  (ZooKeeper + master + region
#                 server in one JVM, hbase.cluster.distributed=false)
#   thrift        Thrift2 gateway 127.0.0.1:$HBASE_ORM_THRIFT_PORT (9090), buffered + binary
#   thrift-framed Thrift2 gateway 127.0.0.1:$HBASE_ORM_THRIFT_FRAMED_PORT (9091), framed + compact;
#                 it closes connections idle for $HBASE_ORM_FRAMED_IDLE_MS ms (default 3000), so
#                 clients can test how they replace sockets the server closed
#   thrift1       Thrift1 gateway (service Hbase) 127.0.0.1:$HBASE_ORM_THRIFT1_PORT (9092),
#                 buffered + binary (the client's thrift1:// backend)
#   thrift-short  a second Thrift2 gateway process 127.0.0.1:$HBASE_ORM_THRIFT_SHORT_PORT (9093),
#                 buffered + binary, whose scanners expire after $HBASE_ORM_SHORT_SCANNER_MS ms
#                 unused (default 2000; the others: 60 s), for tests of several gateways and of
#                 scans that outlive their scanner
#
# Environment:
#   HBASE_ORM_DATA               data, logs, pid files     (default <repo>/.hbase-local)
#   HBASE_ORM_CACHE              resolved jars             (default ~/.cache/hbase-orm)
#   HBASE_ORM_THRIFT_PORT        buffered/binary gateway   (default 9090)
#   HBASE_ORM_THRIFT_FRAMED_PORT framed/compact gateway    (default 9091)
#   HBASE_ORM_FRAMED_IDLE_MS     its idle-socket timeout   (default 3000 ms; the others: 60 s)
#   HBASE_ORM_THRIFT1_PORT       Thrift1 gateway           (default 9092)
#   HBASE_ORM_THRIFT_SHORT_PORT  short-scanner gateway     (default 9093)
#   HBASE_ORM_SHORT_SCANNER_MS   its scanner timeout       (default 2000 ms)
#   HBASE_ORM_REGION_SCANNER_MS  the region server's scanner lease (default 10000 ms; HBase's
#                                own default is 60 s): a native scan paused longer than this
#                                finds its region scanner gone, as tests of resuming need
#   HBASE_ORM_ZK_PORT            ZooKeeper client port     (default 2181)
#   HBASE_ORM_MASTER_PORT        master RPC port           (default 16000)
#   HBASE_ORM_REGIONSERVER_PORT  region server RPC port    (default 16020)
#   HBASE_ORM_UP_TIMEOUT         seconds `up` waits        (default 180)
#   HBASE_ORM_MASTER_HEAP        master -Xmx               (default 1g)
#   HBASE_ORM_THRIFT_HEAP        -Xmx of each gateway      (default 512m)
#   HBASE_ORM_MASTER_JAVA_OPTS   extra JVM options for the master (word-split)
#   HBASE_ORM_THRIFT_JAVA_OPTS   extra JVM options for each gateway (word-split)
#   JAVA_HOME                    JDK/JRE to use (else `java` on PATH)
set -euo pipefail

HBASE_VERSION=2.6.1

SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
REPO_ROOT=$(cd -- "$SCRIPT_DIR/.." && pwd -P)
CONF_DIR=$SCRIPT_DIR/conf
POM=$SCRIPT_DIR/pom.xml
PING=$SCRIPT_DIR/ping.py

if [[ -z "${HOME:-}" ]]; then
  HOME=$(getent passwd "$(id -u)" 2>/dev/null | cut -d: -f6 || true)
  HOME=${HOME:-/tmp}
fi
CACHE_ROOT=${HBASE_ORM_CACHE:-$HOME/.cache/hbase-orm}
LIB_DIR=$CACHE_ROOT/hbase-$HBASE_VERSION/lib
LIB_MARKER=$LIB_DIR/.complete

DATA_DIR=${HBASE_ORM_DATA:-$REPO_ROOT/.hbase-local}
THRIFT_PORT=${HBASE_ORM_THRIFT_PORT:-9090}
THRIFT_FRAMED_PORT=${HBASE_ORM_THRIFT_FRAMED_PORT:-9091}
FRAMED_IDLE_MS=${HBASE_ORM_FRAMED_IDLE_MS:-3000}
THRIFT_SHORT_PORT=${HBASE_ORM_THRIFT_SHORT_PORT:-9093}
SHORT_SCANNER_MS=${HBASE_ORM_SHORT_SCANNER_MS:-2000}
REGION_SCANNER_MS=${HBASE_ORM_REGION_SCANNER_MS:-10000}
THRIFT1_PORT=${HBASE_ORM_THRIFT1_PORT:-9092}
ZK_PORT=${HBASE_ORM_ZK_PORT:-2181}
MASTER_RPC_PORT=${HBASE_ORM_MASTER_PORT:-16000}
REGIONSERVER_RPC_PORT=${HBASE_ORM_REGIONSERVER_PORT:-16020}
UP_TIMEOUT=${HBASE_ORM_UP_TIMEOUT:-180}
MASTER_HEAP=${HBASE_ORM_MASTER_HEAP:-1g}
THRIFT_HEAP=${HBASE_ORM_THRIFT_HEAP:-512m}
STOP_TIMEOUT=30

GATEWAYS=(thrift thrift-framed thrift1 thrift-short)
COMPONENTS=(master "${GATEWAYS[@]}")
READY_LINE="Master has completed initialization"
DATA_MARKER_NAME=.hbase-orm-data

# ----------------------------------------------------------------------------- helpers

say() { printf '[hbase-local] %s\n' "$*"; }
warn() { printf '[hbase-local] %s\n' "$*" >&2; }
die() { warn "error: $*"; exit 1; }

for v in THRIFT_PORT THRIFT_FRAMED_PORT THRIFT1_PORT THRIFT_SHORT_PORT SHORT_SCANNER_MS REGION_SCANNER_MS FRAMED_IDLE_MS ZK_PORT MASTER_RPC_PORT REGIONSERVER_RPC_PORT UP_TIMEOUT; do
  [[ "${!v}" =~ ^[0-9]+$ ]] || die "$v must be a number, got '${!v}'"
done

# absolute data dir (it ends up in a file:// URL)
abs_data_dir() {
  case "$DATA_DIR" in
    /*) ;;
    *) DATA_DIR=$PWD/$DATA_DIR ;;
  esac
  DATA_DIR=${DATA_DIR%/}
  LOG_DIR=$DATA_DIR/logs
  RUN_DIR=$DATA_DIR/run
}
abs_data_dir

pid_file() { printf '%s/%s.pid' "$RUN_DIR" "$1"; }
log_file() { printf '%s/%s.log' "$LOG_DIR" "$1"; }
out_file() { printf '%s/%s.out' "$LOG_DIR" "$1"; }

# pid of a running component, or nothing. A pid only counts if that process is still the JVM
# we started (its command line carries -Dhbase.orm.component=<name> and our data dir).
component_pid() {
  local name=$1 f pid cmd
  f=$(pid_file "$name")
  [[ -f "$f" ]] || return 0
  pid=$(tr -dc '0-9' <"$f" 2>/dev/null || true)
  [[ -n "$pid" ]] || return 0
  kill -0 "$pid" 2>/dev/null || return 0
  if [[ -r "/proc/$pid/cmdline" ]]; then
    cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null || true)
  else
    cmd=$(ps -ww -p "$pid" -o args= 2>/dev/null || true)
  fi
  [[ "$cmd" == *"-Dhbase.orm.component=$name "* && "$cmd" == *"-Dhbase.orm.data=$DATA_DIR "* ]] || return 0
  printf '%s' "$pid"
}

# true if $1 names one of the gateways
is_gateway() {
  local name
  for name in "${GATEWAYS[@]}"; do
    [[ "$name" == "$1" ]] && return 0
  done
  return 1
}

port_of() {
  case "$1" in
    thrift) printf '%s' "$THRIFT_PORT" ;;
    thrift-framed) printf '%s' "$THRIFT_FRAMED_PORT" ;;
    thrift1) printf '%s' "$THRIFT1_PORT" ;;
    thrift-short) printf '%s' "$THRIFT_SHORT_PORT" ;;
  esac
}

# human description of a gateway
describe() {
  case "$1" in
    thrift) printf 'Thrift2 127.0.0.1:%s buffered/binary' "$THRIFT_PORT" ;;
    thrift-framed) printf 'Thrift2 127.0.0.1:%s framed/compact' "$THRIFT_FRAMED_PORT" ;;
    thrift1) printf 'Thrift1 127.0.0.1:%s buffered/binary' "$THRIFT1_PORT" ;;
    thrift-short) printf 'Thrift2 127.0.0.1:%s buffered/binary, scanners expire after %s ms' "$THRIFT_SHORT_PORT" "$SHORT_SCANNER_MS" ;;
  esac
}

# true if something accepts TCP connections on 127.0.0.1:$1
port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

have_python() { command -v python3 >/dev/null 2>&1; }

gateways_summary() {
  local name out=()
  for name in "${GATEWAYS[@]}"; do
    out+=("$(describe "$name")")
  done
  local IFS=,
  printf '%s' "${out[*]}" | sed 's/,/, /g'
}

# real Thrift call on one gateway (quiet)
ping_component() {
  local name=$1 port
  port=$(port_of "$name")
  case "$name" in
    thrift | thrift-short) python3 "$PING" -q -t "${2:-5}" -p "$port" ;;
    thrift-framed) python3 "$PING" -q -t "${2:-5}" -p "$port" -f -c ;;
    thrift1) python3 "$PING" -q -t "${2:-5}" -p "$port" --thrift1 ;;
  esac
}

# The master is initialized once its log (of this run: rotated at start) has $READY_LINE.
# The first sighting is remembered in run/master.ready (with the master's pid), as the log may
# roll over later.
all_gateways_answer() {
  local name
  for name in "${GATEWAYS[@]}"; do
    ping_component "$name" "${1:-5}" || return 1
  done
}

master_initialized() {
  local pid f ready
  pid=$(component_pid master)
  [[ -n "$pid" ]] || return 1
  ready=$RUN_DIR/master.ready
  [[ -f "$ready" && "$(cat "$ready" 2>/dev/null)" == "$pid" ]] && return 0
  f=$(log_file master)
  if [[ -f "$f" ]] && grep -qF "$READY_LINE" "$f"; then
    printf '%s\n' "$pid" >"$ready" 2>/dev/null || true
    return 0
  fi
  return 1
}

tail_logs() {
  local n=${1:-40} name f
  shift || true
  local names=("$@")
  [[ ${#names[@]} -gt 0 ]] || names=("${COMPONENTS[@]}")
  for name in "${names[@]}"; do
    for f in "$(log_file "$name")" "$(out_file "$name")"; do
      if [[ -s "$f" ]]; then
        printf -- '----- %s (last %s lines) -----\n' "$f" "$n"
        tail -n "$n" "$f"
      fi
    done
  done
}

# ----------------------------------------------------------------------------- java / jars

JAVA=
find_java() {
  if [[ -n "${JAVA_HOME:-}" && -x "${JAVA_HOME}/bin/java" ]]; then
    JAVA=$JAVA_HOME/bin/java
  elif command -v java >/dev/null 2>&1; then
    JAVA=$(command -v java)
  else
    die "java not found. Install a JDK/JRE >= 11, e.g.: apt-get install openjdk-17-jre-headless maven"
  fi
  local ver major
  ver=$("$JAVA" -version 2>&1 | sed -n 's/.* version "\([^"]*\)".*/\1/p' | head -n1)
  major=${ver%%.*}
  [[ "$major" == 1 ]] && major=$(printf '%s' "$ver" | cut -d. -f2)
  [[ "$major" =~ ^[0-9]+$ ]] || die "cannot parse the version of $JAVA ('$ver')"
  if ((major < 11)); then
    die "$JAVA is Java $ver; HBase $HBASE_VERSION needs Java >= 11 (17 recommended): apt-get install openjdk-17-jre-headless maven"
  fi
}

pom_hash() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$POM" | cut -d' ' -f1
  else
    shasum -a 256 "$POM" | cut -d' ' -f1
  fi
}

# resolve the jars once into $LIB_DIR (skipped if the marker matches the current pom)
ensure_jars() {
  local want
  want=$(pom_hash)
  if [[ -f "$LIB_MARKER" && "$(cat "$LIB_MARKER")" == "$want" ]]; then
    return 0
  fi
  command -v mvn >/dev/null 2>&1 ||
    die "mvn not found (needed once to download the HBase jars). Install: apt-get install openjdk-17-jre-headless maven"
  say "resolving HBase $HBASE_VERSION jars with Maven into $LIB_DIR (first time only: about"
  say "120 MB from Maven Central, typically 20 s to 2 min; later starts skip this) ..."
  local tmp start mvn_pid m2
  start=$SECONDS
  mkdir -p "$(dirname "$LIB_DIR")"
  tmp=$(mktemp -d "$(dirname "$LIB_DIR")/lib.tmp.XXXXXX")
  chmod 755 "$tmp"
  m2="${MAVEN_REPO:-$HOME/.m2/repository}"
  mvn -q -B -Dstyle.color=never -f "$POM" dependency:copy-dependencies -DoutputDirectory="$tmp" \
    >"$tmp.mvn.log" 2>&1 </dev/null &
  mvn_pid=$!
  # Progress while Maven works quietly: what its local repository holds so far.
  while kill -0 "$mvn_pid" 2>/dev/null; do
    sleep 10
    kill -0 "$mvn_pid" 2>/dev/null || break
    say "  ... $((SECONDS - start)) s, $(du -sm "$m2" 2>/dev/null | cut -f1) MB in $m2"
  done
  if ! wait "$mvn_pid"; then
    cat "$tmp.mvn.log" >&2
    rm -rf "$tmp" "$tmp.mvn.log"
    die "mvn dependency:copy-dependencies failed (output above); is Maven Central reachable?"
  fi
  rm -f "$tmp.mvn.log"
  ls "$tmp"/hbase-server-*.jar "$tmp"/hbase-thrift-*.jar >/dev/null 2>&1 ||
    { rm -rf "$tmp"; die "Maven did not produce hbase-server/hbase-thrift jars in $tmp"; }
  printf '%s\n' "$want" >"$tmp/.complete"
  rm -rf "$LIB_DIR"
  mv "$tmp" "$LIB_DIR"
  say "jars ready: $(find "$LIB_DIR" -name '*.jar' | wc -l | tr -d ' ') files in $((SECONDS - start)) s"
}

# ----------------------------------------------------------------------------- start / stop

jvm_opts() {
  local name=$1 heap=$2
  JVM_OPTS=(
    "-Dhbase.orm.component=$name"
    "-Dhbase.orm.data=$DATA_DIR"
    "-Dhbase.orm.zk.port=$ZK_PORT"
    "-Dhbase.orm.master.port=$MASTER_RPC_PORT"
    "-Dhbase.orm.regionserver.port=$REGIONSERVER_RPC_PORT"
    "-Xmx$heap"
    -XX:+ExitOnOutOfMemoryError
    -Djava.net.preferIPv4Stack=true
    -Djava.awt.headless=true
    # what bin/hbase adds on JDK >= 11
    -Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true
    --add-modules jdk.unsupported
    --add-opens java.base/java.io=ALL-UNNAMED
    --add-opens java.base/java.nio=ALL-UNNAMED
    --add-opens java.base/sun.nio.ch=ALL-UNNAMED
    --add-opens java.base/java.lang=ALL-UNNAMED
    --add-opens java.base/jdk.internal.ref=ALL-UNNAMED
    --add-opens java.base/java.lang.reflect=ALL-UNNAMED
    --add-opens java.base/java.util=ALL-UNNAMED
    --add-opens java.base/java.util.concurrent=ALL-UNNAMED
    --add-exports java.base/jdk.internal.misc=ALL-UNNAMED
    --add-exports java.base/sun.net.dns=ALL-UNNAMED
    --add-exports java.base/sun.net.util=ALL-UNNAMED
    --add-exports java.security.jgss/sun.security.krb5=ALL-UNNAMED
    # logging: conf/log4j2.properties -> $DATA/logs/<name>.log
    "-Dlog4j.configurationFile=$CONF_DIR/log4j2.properties"
    "-Dlog4j2.configurationFile=$CONF_DIR/log4j2.properties"
    "-Dhbase.log.dir=$LOG_DIR"
    "-Dhbase.log.file=$name.log"
    -Dlog4j2.shutdownHookEnabled=false
    -cp "$CONF_DIR:$LIB_DIR/*"
  )
}

start_component() {
  local name=$1 heap main args=()
  case "$name" in
    master)
      heap=$MASTER_HEAP
      main=org.apache.hadoop.hbase.master.HMaster
      args=(start)
      ;;
    thrift)
      heap=$THRIFT_HEAP
      main=org.apache.hadoop.hbase.thrift2.ThriftServer
      args=(-b 127.0.0.1 -p "$THRIFT_PORT" --infoport -1 start)
      ;;
    thrift-framed)
      heap=$THRIFT_HEAP
      main=org.apache.hadoop.hbase.thrift2.ThriftServer
      args=(-b 127.0.0.1 -p "$THRIFT_FRAMED_PORT" --infoport -1 -f -c -t "$FRAMED_IDLE_MS" start)
      ;;
    thrift1)
      heap=$THRIFT_HEAP
      main=org.apache.hadoop.hbase.thrift.ThriftServer
      args=(-b 127.0.0.1 -p "$THRIFT1_PORT" --infoport -1 start)
      ;;
    thrift-short)
      heap=$THRIFT_HEAP
      main=org.apache.hadoop.hbase.thrift2.ThriftServer
      args=(-b 127.0.0.1 -p "$THRIFT_SHORT_PORT" --infoport -1 start)
      ;;
  esac
  jvm_opts "$name" "$heap"
  if [[ "$name" == thrift-short ]]; then
    # the gateway's scanner cache drops scanners unused this long (conf/hbase-site.xml)
    JVM_OPTS+=("-Dhbase.orm.scanner.timeout.ms=$SHORT_SCANNER_MS")
  elif [[ "$name" == master ]]; then
    # the region server's scanner lease (the same key, read by the region server)
    JVM_OPTS+=("-Dhbase.orm.scanner.timeout.ms=$REGION_SCANNER_MS")
  fi
  local extra
  if [[ "$name" == master ]]; then extra=${HBASE_ORM_MASTER_JAVA_OPTS:-}; else extra=${HBASE_ORM_THRIFT_JAVA_OPTS:-}; fi
  if [[ -n "$extra" ]]; then
    local extra_words
    read -r -a extra_words <<<"$extra"
    JVM_OPTS+=("${extra_words[@]}")
  fi
  # a fresh log per run: "ready" is decided by grepping the master log
  local f
  for f in "$(log_file "$name")" "$(out_file "$name")"; do
    if [[ -f "$f" ]]; then mv -f "$f" "$f.prev"; fi
  done
  rm -f "$(log_file "$name")".[0-9]* # rolled-over logs of an earlier run
  [[ "$name" != master ]] || rm -f "$RUN_DIR/master.ready"
  local launcher=()
  # own session: the JVMs survive the terminal / CI step that ran `up`
  command -v setsid >/dev/null 2>&1 && launcher=(setsid)
  (
    cd "$DATA_DIR"
    exec 9>&- # do not leak the run-dir lock into the JVM
    exec "${launcher[@]}" nohup "$JAVA" "${JVM_OPTS[@]}" "$main" "${args[@]}" \
      >"$(out_file "$name")" 2>&1 </dev/null
  ) &
  printf '%s\n' "$!" >"$(pid_file "$name")"
}

# Stopping: term_components sends TERM without waiting (pids collected in STOP_PIDS/STOP_NAMES),
# wait_stopped waits up to $STOP_TIMEOUT s for them, then KILLs what is left.
STOP_PIDS=()
STOP_NAMES=()
term_components() {
  local name pid
  for name in "$@"; do
    pid=$(component_pid "$name")
    if [[ -n "$pid" ]]; then
      say "stopping $name (pid $pid)"
      kill -TERM "$pid" 2>/dev/null || true
      STOP_PIDS+=("$pid")
      STOP_NAMES+=("$name")
    else
      rm -f "$(pid_file "$name")"
    fi
  done
}

wait_stopped() {
  local waited=0 alive i
  while ((${#STOP_PIDS[@]})); do
    alive=()
    for i in "${!STOP_PIDS[@]}"; do
      kill -0 "${STOP_PIDS[$i]}" 2>/dev/null && alive+=("$i")
    done
    ((${#alive[@]} == 0)) && break
    if ((waited >= STOP_TIMEOUT)); then
      for i in "${alive[@]}"; do
        warn "${STOP_NAMES[$i]} (pid ${STOP_PIDS[$i]}) still running after ${STOP_TIMEOUT}s: KILL"
        kill -KILL "${STOP_PIDS[$i]}" 2>/dev/null || true
      done
      sleep 1
      break
    fi
    sleep 1
    waited=$((waited + 1))
  done
  for i in "${!STOP_NAMES[@]}"; do
    rm -f "$(pid_file "${STOP_NAMES[$i]}")"
    [[ "${STOP_NAMES[$i]}" != master ]] || rm -f "$RUN_DIR/master.ready"
  done
  STOP_PIDS=()
  STOP_NAMES=()
}

# Stops the master the way bin/stop-hbase.sh does in standalone mode: `HMaster stop
# --shutDownCluster` asks it over RPC to shut the cluster down, so the region server leaves
# ZooKeeper before the embedded ZooKeeper stops. (A plain TERM works too, but then the region
# server spends ~20 s retrying the stopped ZooKeeper.) Falls back to TERM, then KILL.
stop_master() {
  local pid
  pid=$(component_pid master)
  [[ -n "$pid" ]] || { rm -f "$(pid_file master)" "$RUN_DIR/master.ready"; return 0; }
  # an uninitialized (starting or broken) master cannot serve a shutdown request: just TERM it
  if master_initialized && { [[ -n "$JAVA" ]] || find_java_quiet; }; then
    say "stopping master (pid $pid): asking HBase to shut the cluster down"
    jvm_opts master-stop 256m
    rm -f "$(log_file master-stop)"
    local stopper=("$JAVA" "${JVM_OPTS[@]}" org.apache.hadoop.hbase.master.HMaster stop --shutDownCluster)
    # the stop client tries only once; bound it anyway
    command -v timeout >/dev/null 2>&1 && stopper=(timeout 60 "${stopper[@]}")
    if (cd "$DATA_DIR" && exec 9>&- && exec "${stopper[@]}" >"$(out_file master-stop)" 2>&1 </dev/null); then
      local waited=0
      while kill -0 "$pid" 2>/dev/null && ((waited < STOP_TIMEOUT)); do
        sleep 1
        waited=$((waited + 1))
      done
      if ! kill -0 "$pid" 2>/dev/null; then
        rm -f "$(pid_file master)" "$RUN_DIR/master.ready"
        return 0
      fi
      warn "master (pid $pid) still running ${STOP_TIMEOUT}s after the shutdown request: TERM"
    else
      warn "'HMaster stop' failed (see $(out_file master-stop)): TERM"
    fi
  fi
  term_components master
}

find_java_quiet() {
  (find_java) >/dev/null 2>&1 && find_java >/dev/null 2>&1
}

stop_components() {
  term_components "$@"
  wait_stopped
}

stop_all() {
  # gateways get TERM first (they are clients of the master); the master's shutdown request
  # runs while they exit
  term_components "${GATEWAYS[@]}"
  stop_master
  wait_stopped
}

lock_run_dir() {
  mkdir -p "$RUN_DIR"
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$RUN_DIR/lock"
    if ! flock -n 9; then
      say "another hbase.sh is running on $DATA_DIR; waiting for it ..."
      flock -w 600 9 || die "timed out waiting for the lock $RUN_DIR/lock"
    fi
  fi
}

# ----------------------------------------------------------------------------- commands

cmd_up() {
  have_python || die "python3 not found (needed for the readiness check hbase-local/ping.py): apt-get install python3"
  find_java
  ensure_jars
  mkdir -p "$DATA_DIR" "$LOG_DIR" "$RUN_DIR"
  touch "$DATA_DIR/$DATA_MARKER_NAME"
  lock_run_dir

  local name pid
  local running=()
  for name in "${COMPONENTS[@]}"; do
    pid=$(component_pid "$name")
    [[ -n "$pid" ]] && running+=("$name")
  done

  if ((${#running[@]} == ${#COMPONENTS[@]})) && master_initialized && all_gateways_answer 3; then
    say "already up: $(gateways_summary); data in $DATA_DIR"
    return 0
  fi

  local t0=$SECONDS
  # what to start; gateways left over from an earlier master hold a dead ZooKeeper session, so
  # a new master means new gateways
  local to_start=() stale=()
  if [[ -z "$(component_pid master)" ]]; then
    to_start=("${COMPONENTS[@]}")
    for name in "${GATEWAYS[@]}"; do
      [[ -n "$(component_pid "$name")" ]] && stale+=("$name")
    done
  else
    say "master already running (pid $(component_pid master))"
    for name in "${GATEWAYS[@]}"; do
      [[ -n "$(component_pid "$name")" ]] || to_start+=("$name")
    done
  fi
  ((${#stale[@]} == 0)) || stop_components "${stale[@]}"

  # all ports free? (checked before anything starts)
  local port
  for name in "${to_start[@]}"; do
    if [[ "$name" == master ]]; then
      for port in "$ZK_PORT" "$MASTER_RPC_PORT" "$REGIONSERVER_RPC_PORT"; do
        port_in_use "$port" &&
          die "port $port on 127.0.0.1 is already in use (another HBase/ZooKeeper? see 'ss -ltnp'); stop it or set HBASE_ORM_ZK_PORT / HBASE_ORM_MASTER_PORT / HBASE_ORM_REGIONSERVER_PORT"
      done
    else
      port=$(port_of "$name")
      port_in_use "$port" &&
        die "port $port on 127.0.0.1 is already in use by another process; stop it or set HBASE_ORM_THRIFT_PORT / HBASE_ORM_THRIFT_FRAMED_PORT / HBASE_ORM_THRIFT1_PORT / HBASE_ORM_THRIFT_SHORT_PORT"
    fi
  done

  for name in "${to_start[@]}"; do
    case "$name" in
      master) say "starting HBase $HBASE_VERSION master (standalone: ZooKeeper 127.0.0.1:$ZK_PORT + master + region server), data in $DATA_DIR" ;;
      thrift-framed) say "starting gateway $(describe "$name") (closes sockets idle for ${FRAMED_IDLE_MS} ms)" ;;
      *) say "starting gateway $(describe "$name")" ;;
    esac
    start_component "$name"
  done

  say "waiting for HBase to be ready (timeout ${UP_TIMEOUT}s) ..."
  local deadline=$((SECONDS + UP_TIMEOUT)) master_ok=0 pending
  while :; do
    for name in "${COMPONENTS[@]}"; do
      if [[ -z "$(component_pid "$name")" ]]; then
        warn "error: $name died during startup; its log:"
        tail_logs 60 "$name" >&2
        stop_all
        die "$name failed to start (logs in $LOG_DIR)"
      fi
    done
    if ((master_ok == 0)) && master_initialized; then
      master_ok=1
      say "master initialized after $((SECONDS - t0)) s"
    fi
    if ((master_ok)); then
      # the gateways are checked in parallel (the first call of each sets up its connection)
      pending=()
      local ping_pids=() i
      for name in "${GATEWAYS[@]}"; do
        ping_component "$name" 5 &
        ping_pids+=("$!")
      done
      for i in "${!ping_pids[@]}"; do
        wait "${ping_pids[$i]}" || pending+=("${GATEWAYS[$i]}")
      done
      if ((${#pending[@]} == 0)); then
        say "HBase is up after $((SECONDS - t0)) s: $(gateways_summary)"
        return 0
      fi
    else
      pending=("${GATEWAYS[@]}")
    fi
    if ((SECONDS >= deadline)); then
      warn "error: HBase not ready after ${UP_TIMEOUT}s (master initialized: $( ((master_ok)) && echo yes || echo no); not answering: ${pending[*]})"
      tail_logs 60 >&2
      stop_all
      die "startup timed out (logs in $LOG_DIR; raise HBASE_ORM_UP_TIMEOUT if the machine is slow)"
    fi
    sleep 1
  done
}

cmd_down() {
  local purge=0 arg
  for arg in "$@"; do
    case "$arg" in
      --purge) purge=1 ;;
      *) die "unknown option for down: $arg (usage: hbase.sh down [--purge])" ;;
    esac
  done
  if [[ -d "$RUN_DIR" ]]; then
    lock_run_dir
    local name any=0
    for name in "${COMPONENTS[@]}"; do
      [[ -n "$(component_pid "$name")" ]] && any=1
    done
    if ((any)); then
      stop_all
      say "stopped"
    else
      rm -f "$RUN_DIR"/*.pid
      say "not running"
    fi
  else
    say "not running"
  fi
  if ((purge)) && [[ -d "$DATA_DIR" ]]; then
    if [[ -f "$DATA_DIR/$DATA_MARKER_NAME" ]]; then
      rm -rf -- "$DATA_DIR"
      say "deleted data dir $DATA_DIR"
    else
      die "refusing to delete $DATA_DIR: it has no $DATA_MARKER_NAME marker (not created by hbase.sh?)"
    fi
  fi
}

cmd_status() {
  local name pid all=1 port
  for name in "${COMPONENTS[@]}"; do
    pid=$(component_pid "$name")
    case "$name" in
      master) port="ZooKeeper 127.0.0.1:$ZK_PORT" ;;
      *) port=$(describe "$name") ;;
    esac
    if [[ -z "$pid" ]]; then
      printf '%-14s stopped   (%s)\n' "$name" "$port"
      all=0
      continue
    fi
    case "$name" in
      master)
        if master_initialized; then
          printf '%-14s running   pid %-8s initialized (%s)\n' "$name" "$pid" "$port"
        else
          printf '%-14s running   pid %-8s NOT initialized yet (%s)\n' "$name" "$pid" "$port"
          all=0
        fi
        ;;
      *)
        if have_python && ping_component "$name" 5; then
          printf '%-14s running   pid %-8s answers  (%s)\n' "$name" "$pid" "$port"
        else
          printf '%-14s running   pid %-8s NOT answering (%s)\n' "$name" "$pid" "$port"
          all=0
        fi
        ;;
    esac
  done
  printf 'data: %s\n' "$DATA_DIR"
  if ((all)); then
    echo "HBase is up"
    return 0
  fi
  echo "HBase is not (fully) up"
  return 3
}

cmd_logs() {
  local follow=0 lines=50 arg
  while (($#)); do
    arg=$1
    shift
    case "$arg" in
      -f | --follow) follow=1 ;;
      -n) lines=${1:?-n needs a number}; shift ;;
      *) die "unknown option for logs: $arg (usage: hbase.sh logs [-f] [-n LINES])" ;;
    esac
  done
  local files=() name
  for name in "${COMPONENTS[@]}"; do
    [[ -f "$(log_file "$name")" ]] && files+=("$(log_file "$name")")
  done
  ((${#files[@]})) || die "no logs in $LOG_DIR (never started?)"
  if ((follow)); then
    exec tail -n "$lines" -F "${files[@]}"
  fi
  tail -n "$lines" "${files[@]}"
}

cmd_restart() {
  local name=${1:-}
  is_gateway "$name" || die "usage: hbase.sh restart $(IFS='|'; printf '%s' "${GATEWAYS[*]}")"
  lock_run_dir
  [[ -n "$(component_pid master)" ]] || die "HBase is not running: hbase-local/hbase.sh up"
  find_java >/dev/null
  stop_components "$name"
  local t0=$SECONDS
  say "starting gateway $(describe "$name")"
  start_component "$name"
  while ! ping_component "$name" 5; do
    [[ -n "$(component_pid "$name")" ]] || { tail_logs 40 "$name" >&2; die "$name died while starting"; }
    ((SECONDS - t0 < UP_TIMEOUT)) || die "$name did not answer within ${UP_TIMEOUT}s"
    sleep 0.2
  done
  say "$name is back after $((SECONDS - t0)) s"
}

cmd_stop_one() {
  local name=$1
  lock_run_dir
  stop_components "$name"
  say "$name stopped; 'hbase-local/hbase.sh restart $name' starts it again"
}

usage() {
  # the comment block at the top of this file
  awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "${BASH_SOURCE[0]}"
}

main() {
  local cmd=${1:-}
  shift || true
  case "$cmd" in
    up) cmd_up "$@" ;;
    down) cmd_down "$@" ;;
    stop)
      if is_gateway "${1:-}"; then cmd_stop_one "$@"; else cmd_down "$@"; fi
      ;;
    status) cmd_status "$@" ;;
    logs) cmd_logs "$@" ;;
    restart) cmd_restart "$@" ;;
    -h | --help | help) usage ;;
    "") usage >&2; exit 2 ;;
    *) warn "unknown command: $cmd"; usage >&2; exit 2 ;;
  esac
}

main "$@"
