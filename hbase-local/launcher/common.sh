# shellcheck shell=bash
# What every mode of hbase-local/hbase.sh shares: settings from the environment, paths, the
# jars and the java command, JVM options and starting a JVM, pid and log files, ports, the
# readiness checks (ZooKeeper, HBase's RPC, the gateways' real calls), waiting, stopping, the
# run-dir lock, and the four TCP gateways both modes run. Sourced first by hbase.sh; it calls
# nothing of the files sourced after it. The mode files describe their processes to it with
# add_component and the mode variables below (set through set_mode, launcher/commands.sh).

# The HBase line (HBASE_ORM_HBASE_VERSION, default 2.6.1): set_hbase_line below says what each
# takes from Maven Central. A data dir remembers the line it was made with ($DATA/hbase-version,
# commands.sh).
DEFAULT_HBASE_VERSION=2.6.1
SUPPORTED_HBASE_VERSIONS=(2.6.1 2.5.10 2.4.18 3.0.0-alpha-4)

# hbase-local/, this file's parent
LOCAL_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd -P)
REPO_ROOT=$(cd -- "$LOCAL_DIR/.." && pwd -P)
# JVM flags every HBase process needs on JDK 11 and later
mapfile -t JDK_FLAGS < <(grep -v '^#' "$LOCAL_DIR/jdk-flags")
CONF_DIR=$LOCAL_DIR/conf
POM=$LOCAL_DIR/pom.xml
PING=$LOCAL_DIR/ping.py

if [[ -z "${HOME:-}" ]]; then
  HOME=$(getent passwd "$(id -u)" 2>/dev/null | cut -d: -f6 || true)
  HOME=${HOME:-/tmp}
fi
CACHE_ROOT=${HBASE_ORM_CACHE:-$HOME/.cache/hbase-orm}

DATA_DIR=${HBASE_ORM_DATA:-$REPO_ROOT/.hbase-local}
THRIFT_PORT=${HBASE_ORM_THRIFT_PORT:-9090}
THRIFT_FRAMED_PORT=${HBASE_ORM_THRIFT_FRAMED_PORT:-9091}
FRAMED_IDLE_MS=${HBASE_ORM_FRAMED_IDLE_MS:-3000}
THRIFT_SHORT_PORT=${HBASE_ORM_THRIFT_SHORT_PORT:-9093}
SHORT_SCANNER_MS=${HBASE_ORM_SHORT_SCANNER_MS:-2000}
REGION_SCANNER_MS=${HBASE_ORM_REGION_SCANNER_MS:-10000}
THRIFT1_PORT=${HBASE_ORM_THRIFT1_PORT:-9092}
THRIFT_HTTP_PORT=${HBASE_ORM_THRIFT_HTTP_PORT:-9094}
THRIFT_HTTPS_PORT=${HBASE_ORM_THRIFT_HTTPS_PORT:-9095}
THRIFT1_HTTP_PORT=${HBASE_ORM_THRIFT1_HTTP_PORT:-9096}
THRIFT1_HTTPS_PORT=${HBASE_ORM_THRIFT1_HTTPS_PORT:-9097}
ZK_PORT=${HBASE_ORM_ZK_PORT:-2181}
MASTER_RPC_PORT=${HBASE_ORM_MASTER_PORT:-16000}
REGIONSERVER_RPC_PORT=${HBASE_ORM_REGIONSERVER_PORT:-16020}
ZK_SESSION_MS=${HBASE_ORM_ZK_SESSION_MS:-10000}
case "${HBASE_ORM_JIT:-quick}" in
  quick) JIT_FLAGS=(-XX:TieredStopAtLevel=1) ;;
  full) JIT_FLAGS=() ;;
  *)
    echo "[hbase-local] HBASE_ORM_JIT must be quick or full, not ${HBASE_ORM_JIT}" >&2
    exit 2
    ;;
esac
UP_TIMEOUT=${HBASE_ORM_UP_TIMEOUT:-180}
THRIFT_HEAP=${HBASE_ORM_THRIFT_HEAP:-512m}
STOP_TIMEOUT=30

# the gateways of both modes (plain TCP) are TCP_GATEWAYS (set_hbase_line); standalone mode
# adds its HTTP ones (standalone.sh)
READY_LINE="Master has completed initialization"
RS_READY_LINE="Serving as "
DATA_MARKER_NAME=.hbase-orm-data

# ----------------------------------------------------------------------------- helpers

say() { printf '[hbase-local] %s\n' "$*"; }
warn() { printf '[hbase-local] %s\n' "$*" >&2; }
die() { warn "error: $*"; exit 1; }

# set_hbase_line LINE: the HBase line the commands run (one of $SUPPORTED_HBASE_VERSIONS), and
# what it takes from Maven Central (pom.xml's properties; each line's own POM pins its Hadoop):
#   HBASE_VERSION         the line (2.6.1)
#   HBASE_MAVEN_VERSION   its hbase-* artifacts: the Hadoop 3 build where one is published
#                         (2.6.1-hadoop3, 2.5.10-hadoop3), else the plain one (2.4 is Hadoop 2 only)
#   HADOOP_VERSION        the Hadoop its POM pins (2.6.1: 3.3.5; 2.5.10: 3.2.4; 2.4.18: 2.10.0;
#                         3.0.0-alpha-4: 3.2.4)
#   THRIFT_MAVEN_VERSION  the hbase-thrift jar of the gateways, published as the Hadoop 2 build
#                         and not for every release (2.5.10 takes 2.5.8, 2.4.18 takes 2.4.17);
#                         empty: none published (3.x), so no gateways, only the native backend
#   LIB_DIR               its jars, a folder per line ($HBASE_ORM_CACHE/hbase-<line>/lib)
#   TCP_GATEWAYS          the gateways both modes run (none on 3.x)
set_hbase_line() {
  case "$1" in
    2.6.1) HBASE_MAVEN_VERSION=2.6.1-hadoop3 HADOOP_VERSION=3.3.5 THRIFT_MAVEN_VERSION=2.6.1 ;;
    2.5.10) HBASE_MAVEN_VERSION=2.5.10-hadoop3 HADOOP_VERSION=3.2.4 THRIFT_MAVEN_VERSION=2.5.8 ;;
    2.4.18) HBASE_MAVEN_VERSION=2.4.18 HADOOP_VERSION=2.10.0 THRIFT_MAVEN_VERSION=2.4.17 ;;
    3.0.0-alpha-4) HBASE_MAVEN_VERSION=3.0.0-alpha-4 HADOOP_VERSION=3.2.4 THRIFT_MAVEN_VERSION= ;;
    *) die "HBASE_ORM_HBASE_VERSION=$1 is not a line this launcher knows; one of: ${SUPPORTED_HBASE_VERSIONS[*]}" ;;
  esac
  HBASE_VERSION=$1
  LIB_DIR=$CACHE_ROOT/hbase-$HBASE_VERSION/lib
  LIB_MARKER=$LIB_DIR/.complete
  if has_gateways; then
    TCP_GATEWAYS=(thrift thrift-framed thrift1 thrift-short)
  else
    TCP_GATEWAYS=()
  fi
}

# true if the line has Thrift gateways (a published hbase-thrift)
has_gateways() { [[ -n "$THRIFT_MAVEN_VERSION" ]]; }

# what a line without gateways serves, for messages
NATIVE_ONLY_NOTE="no Thrift gateway on this line (no hbase-thrift is published for it); only the native backend (hbase://) is available"

set_hbase_line "${HBASE_ORM_HBASE_VERSION:-$DEFAULT_HBASE_VERSION}"

for v in THRIFT_PORT THRIFT_FRAMED_PORT THRIFT1_PORT THRIFT_SHORT_PORT THRIFT_HTTP_PORT THRIFT_HTTPS_PORT THRIFT1_HTTP_PORT THRIFT1_HTTPS_PORT SHORT_SCANNER_MS REGION_SCANNER_MS FRAMED_IDLE_MS ZK_PORT MASTER_RPC_PORT REGIONSERVER_RPC_PORT ZK_SESSION_MS UP_TIMEOUT; do
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
  MODE_FILE=$DATA_DIR/mode
  # the HBase line the data dir was made with (commands.sh)
  LINE_FILE=$DATA_DIR/hbase-version
  # the HTTPS gateways' keystore (the path is also in conf/hbase-site.xml), the CA certificate
  # clients trust, an unrelated one; the generated conf dir of the HTTPS gateways
  TLS_DIR=$DATA_DIR/tls
  KEYSTORE=$TLS_DIR/gateway.p12
  CA_PEM=$TLS_DIR/ca.pem
  OTHER_CA_PEM=$TLS_DIR/other-ca.pem
  GATEWAY_CONF_DIR=$DATA_DIR/gateway-conf
}
abs_data_dir

# ----------------------------------------------------------------------------- the mode's processes

# What the mode the data dir runs in consists of, set by set_mode (commands.sh) through the
# mode file's definition (standalone_define, cluster_define, hdfs_define):
#   MODE            standalone | cluster;  RS_COUNT  cluster: how many region servers
#   DN_COUNT        the cluster with HDFS: how many DataNodes (0: no HDFS)
#   MODE_SUMMARY    one line saying what runs
#   COMPONENTS      every process of the mode, in start order (add_component)
#   GATEWAYS        its gateways (stopped first: they are clients of the cluster)
#   HBASE_SERVERS   the master and the region servers of their own: asked to shut down together
#   REGION_SERVERS  the region servers that run as processes of their own (cluster: rs1 .. rsN)
#   HBASE_NEEDS     what HBase's servers cannot shut down cleanly without (cluster: zookeeper;
#                   with HDFS also the namenode)
#   STOPPED_AFTER_HBASE  what stops after HBase's servers and ZooKeeper, in order; each entry a
#                   group of names stopped together (with HDFS: the DataNodes, then the NameNode)
#   MODE_JVM_OPTS   options every JVM of the mode gets (cluster: distributed mode)
#   MODE_CLASSPATH  directories first on every JVM's classpath (with HDFS: conf/hdfs)
#   MASTER_HEAP     the master's -Xmx
MODE=standalone
RS_COUNT=0
DN_COUNT=0
MODE_SUMMARY=
MASTER_HEAP=2g
# each process's RPC (or client) port, every port it listens on, and its description
declare -A PORT_OF=() PORTS_OF=() DESCRIPTION_OF=()

# empties the above before a mode defines itself
clear_components() {
  COMPONENTS=()
  GATEWAYS=()
  HBASE_SERVERS=(master)
  REGION_SERVERS=()
  HBASE_NEEDS=()
  STOPPED_AFTER_HBASE=()
  MODE_JVM_OPTS=()
  MODE_CLASSPATH=()
  PORT_OF=()
  PORTS_OF=()
  DESCRIPTION_OF=()
}
clear_components
GATEWAYS=("${TCP_GATEWAYS[@]}")

# die_if_dead NAME...: if one of these processes is gone while starting, its log's tail, every
# process stopped, and the launcher ends
die_if_dead() {
  local name
  for name in "$@"; do
    if [[ -z "$(component_pid "$name")" ]]; then
      warn "error: $name died during startup; its log:"
      tail_logs 60 "$name" >&2
      stop_all
      die "$name failed to start (logs in $LOG_DIR)"
    fi
  done
}

# add_component NAME PORT DESCRIPTION [ALL PORTS]: one more process of the mode (started after
# those added before); ALL PORTS (space-separated) defaults to PORT
add_component() {
  COMPONENTS+=("$1")
  PORT_OF[$1]=$2
  PORTS_OF[$1]=${4:-$2}
  DESCRIPTION_OF[$1]=$3
}

port_of() { printf '%s' "${PORT_OF[$1]:-}"; }

# every port a process listens on
ports_of() { printf '%s' "${PORTS_OF[$1]:-}"; }

# human description of a process
describe() { printf '%s' "${DESCRIPTION_OF[$1]:-}"; }

# true if $1 names one of the gateways
is_gateway() {
  local name
  for name in "${GATEWAYS[@]}"; do
    [[ "$name" == "$1" ]] && return 0
  done
  return 1
}

# true if $1 is a process of the current mode
is_component() {
  local name
  for name in "${COMPONENTS[@]}"; do
    [[ "$name" == "$1" ]] && return 0
  done
  return 1
}

# ----------------------------------------------------------------------------- processes

pid_file() { printf '%s/%s.pid' "$RUN_DIR" "$1"; }
ready_file() { printf '%s/%s.ready' "$RUN_DIR" "$1"; }
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

# the running processes of the current mode, one name a line
running_components() {
  local name
  for name in "${COMPONENTS[@]}"; do
    [[ -z "$(component_pid "$name")" ]] || printf '%s\n' "$name"
  done
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

# ----------------------------------------------------------------------------- ports

# true if something accepts TCP connections on 127.0.0.1:$1
port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# dies if a port of the given components is taken (checked before anything starts)
check_ports_free() {
  local name port
  for name in "$@"; do
    for port in $(ports_of "$name"); do
      port_in_use "$port" &&
        die "port $port on 127.0.0.1 ($name) is already in use (another HBase/ZooKeeper? see 'ss -ltnp'); stop it or choose other ports: HBASE_ORM_ZK_PORT, HBASE_ORM_MASTER_PORT, HBASE_ORM_REGIONSERVER_PORT (cluster: it and the next $((RS_COUNT > 0 ? RS_COUNT - 1 : 0))), HBASE_ORM_THRIFT_PORT, HBASE_ORM_THRIFT_FRAMED_PORT, HBASE_ORM_THRIFT1_PORT, HBASE_ORM_THRIFT_SHORT_PORT, HBASE_ORM_THRIFT_HTTP_PORT, HBASE_ORM_THRIFT_HTTPS_PORT, HBASE_ORM_THRIFT1_HTTP_PORT, HBASE_ORM_THRIFT1_HTTPS_PORT, HBASE_ORM_NAMENODE_PORT, HBASE_ORM_NAMENODE_HTTP_PORT, HBASE_ORM_DATANODE_PORT (with HDFS: it and the next $((DN_COUNT > 0 ? DN_COUNT - 1 : 0)))"
    done
  done
  return 0
}

# dies if two processes of the mode were given the same port
check_ports_distinct() {
  local name port seen=" "
  for name in "${COMPONENTS[@]}"; do
    for port in $(ports_of "$name"); do
      [[ "$seen" != *" $port "* ]] ||
        die "port $port is given to two processes ($name and another); with $RS_COUNT region servers on $REGIONSERVER_RPC_PORT.. choose HBASE_ORM_REGIONSERVER_PORT / the other ports apart"
      seen+="$port "
    done
  done
}

# ----------------------------------------------------------------------------- readiness checks

have_python() { command -v python3 >/dev/null 2>&1; }

gateways_summary() {
  local name sep=""
  if ((${#GATEWAYS[@]} == 0)); then
    printf 'HBase %s, native backend only (no Thrift gateway on this line): hbase://127.0.0.1:%s' "$HBASE_VERSION" "$ZK_PORT"
    return
  fi
  for name in "${GATEWAYS[@]}"; do
    printf '%s%s' "$sep" "$(describe "$name")"
    sep="; "
  done
}

# real Thrift call on one gateway (quiet)
ping_component() {
  local name=$1 port
  port=$(port_of "$name")
  case "$name" in
    thrift | thrift-short) python3 "$PING" -q -t "${2:-5}" -p "$port" ;;
    thrift-framed) python3 "$PING" -q -t "${2:-5}" -p "$port" -f -c ;;
    thrift1) python3 "$PING" -q -t "${2:-5}" -p "$port" --thrift1 ;;
    thrift-http) python3 "$PING" -q -t "${2:-5}" -p "$port" --http ;;
    thrift1-http) python3 "$PING" -q -t "${2:-5}" -p "$port" --http --thrift1 ;;
    thrift-https) python3 "$PING" -q -t "${2:-5}" -p "$port" --https --cafile "$CA_PEM" ;;
    thrift1-https) python3 "$PING" -q -t "${2:-5}" -p "$port" --https --cafile "$CA_PEM" --thrift1 ;;
  esac
}

all_gateways_answer() {
  local name
  for name in "${GATEWAYS[@]}"; do
    ping_component "$name" "${1:-5}" || return 1
  done
}

# ZooKeeper answers its `srvr` command (the one four-letter word it allows by default)
zk_answers() {
  (
    exec 3<>"/dev/tcp/127.0.0.1/$ZK_PORT" || exit 1
    printf 'srvr' >&3
    IFS= read -r -t "${1:-3}" line <&3 || exit 1
    [[ "$line" == "Zookeeper version"* ]]
  ) 2>/dev/null
}

# The master or a region server answers a call over HBase's RPC (MasterService.IsMasterRunning,
# AdminService.GetServerInfo); prints the answer (a region server's name: host,port,startcode).
# Without python3: its port accepts connections.
rpc_answer() {
  local name=$1 kind=regionserver port out
  [[ "$name" == master ]] && kind=master
  port=$(port_of "$name")
  if ! have_python; then
    port_in_use "$port" && printf 'port open'
    return
  fi
  out=$(python3 "$PING" -t "${2:-5}" --rpc "$kind" -p "$port" 2>/dev/null) || return 1
  printf '%s' "$out" | sed -n 's/^ok .* RPC) \(.*\) in [0-9]* ms$/\1/p'
}

# True once the log of component $1 (this run's: spawn_jvm rotates it) has the line $2.
# The first sighting is remembered in run/<name>.ready (with the pid), as the log may roll over.
logged_since_start() {
  local name=$1 line=$2 pid f ready
  pid=$(component_pid "$name")
  [[ -n "$pid" ]] || return 1
  ready=$(ready_file "$name")
  [[ -f "$ready" && "$(cat "$ready" 2>/dev/null)" == "$pid" ]] && return 0
  f=$(log_file "$name")
  if [[ -f "$f" ]] && grep -qF -- "$line" "$f"; then
    printf '%s\n' "$pid" >"$ready" 2>/dev/null || true
    return 0
  fi
  return 1
}

master_initialized() { logged_since_start master "$READY_LINE"; }

# The master or a region server of the mode serves hbase:meta (asked over HBase's RPC, no
# gateway: ping.py --rpc meta). The readiness check where no gateway asks about hbase:namespace
# (HBase 3.x: no gateways, and no hbase:namespace table either).
meta_online() {
  local name port
  for name in master "${REGION_SERVERS[@]}"; do
    for port in $(ports_of "$name"); do
      [[ "$port" == "$ZK_PORT" ]] && continue
      python3 "$PING" -q -t "${1:-5}" --rpc meta -p "$port" && return 0
    done
  done
  return 1
}

# a region server is registered once the master accepted its report for duty
rs_registered() { logged_since_start "$1" "$RS_READY_LINE"; }

# one status line: name, state, pid, what it answers, description
status_line() {
  printf '%-13s %-8s %-12s %s (%s)\n' "$1" "$2" "${3:+pid $3}" "$4" "$(describe "$1")"
}

# status line of the running master (pid $1); false unless it is initialized and answers
master_status() {
  local pid=$1 answer
  answer=$(rpc_answer master 3 || true)
  if master_initialized && [[ -n "$answer" ]]; then
    status_line master running "$pid" "initialized, answers"
  elif master_initialized; then
    status_line master running "$pid" "initialized, NOT answering"
    return 1
  else
    status_line master running "$pid" "NOT initialized yet${answer:+, answers}"
    return 1
  fi
}

# status line of running gateway $1 (pid $2); false unless it answers
gateway_status() {
  if have_python && ping_component "$1" 5; then
    status_line "$1" running "$2" "answers"
  else
    status_line "$1" running "$2" "NOT answering"
    return 1
  fi
}

# ----------------------------------------------------------------------------- waiting

# wait_ready NAME CHECK: waits until `CHECK NAME` succeeds (the mode's readiness check), up to
# $UP_TIMEOUT s; dies if the process exits
wait_ready() {
  local name=$1 check=$2 t0=$SECONDS
  while ! "$check" "$name"; do
    if [[ -z "$(component_pid "$name")" ]]; then
      tail_logs 40 "$name" >&2
      die "$name died while starting (logs in $LOG_DIR)"
    fi
    ((SECONDS - t0 < UP_TIMEOUT)) || die "$name not ready within ${UP_TIMEOUT}s (logs in $LOG_DIR)"
    sleep 0.5
  done
}

# Waits until everything of the mode is ready (master initialized, region servers registered,
# gateways answering) and returns, leaving it to the caller to say so; on a process that dies
# or on the timeout, shows the logs, stops everything and dies.
wait_all_ready() {
  local t0=$1 deadline=$((SECONDS + UP_TIMEOUT)) master_ok=0 pending name
  local rs_left=("${REGION_SERVERS[@]}")
  say "waiting for HBase to be ready (timeout ${UP_TIMEOUT}s) ..."
  while :; do
    die_if_dead "${COMPONENTS[@]}"
    if ((master_ok == 0)) && master_initialized; then
      master_ok=1
      say "master initialized after $((SECONDS - t0)) s"
    fi
    if ((${#rs_left[@]})); then
      local still=()
      for name in "${rs_left[@]}"; do
        if rs_registered "$name"; then
          say "$name registered after $((SECONDS - t0)) s"
        else
          still+=("$name")
        fi
      done
      rs_left=("${still[@]}")
    fi
    if ((master_ok && ${#rs_left[@]} == 0 && ${#GATEWAYS[@]} == 0)); then
      # no gateway to make a real call through: hbase:meta is asked about over HBase's RPC
      meta_online 5 && return 0
      pending=(hbase:meta)
    elif ((master_ok && ${#rs_left[@]} == 0)); then
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
        return 0
      fi
    else
      pending=("${GATEWAYS[@]}")
    fi
    if ((SECONDS >= deadline)); then
      warn "error: HBase not ready after ${UP_TIMEOUT}s (master initialized: $( ((master_ok)) && echo yes || echo no); region servers not registered: ${rs_left[*]:-none}; not answering: ${pending[*]:-?})"
      tail_logs 60 >&2
      stop_all
      die "startup timed out (logs in $LOG_DIR; raise HBASE_ORM_UP_TIMEOUT if the machine is slow)"
    fi
    sleep 1
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

find_java_quiet() {
  (find_java) >/dev/null 2>&1 && find_java >/dev/null 2>&1
}

pom_hash() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$POM" | cut -d' ' -f1
  else
    shasum -a 256 "$POM" | cut -d' ' -f1
  fi
}

# Maven's options for the line's versions (pom.xml's properties; none for the default line,
# whose versions are the pom's own)
maven_line_opts() {
  MAVEN_LINE_OPTS=()
  [[ "$HBASE_VERSION" != "$DEFAULT_HBASE_VERSION" ]] || return 0
  MAVEN_LINE_OPTS=("-Dhbase.version=$HBASE_MAVEN_VERSION" "-Dhadoop.version=$HADOOP_VERSION")
  if has_gateways; then
    MAVEN_LINE_OPTS+=("-Dhbase.thrift.version=$THRIFT_MAVEN_VERSION")
  else
    MAVEN_LINE_OPTS+=(-Dhbase.without.thrift)
  fi
}

# What the lib folder was resolved from: the pom's sha256 (for the default line only that, the
# marker hbase-local/secure/secure.sh checks too), then the Maven options of another line
jars_marker() {
  maven_line_opts
  printf '%s' "$(pom_hash)${MAVEN_LINE_OPTS[*]:+ ${MAVEN_LINE_OPTS[*]}}"
}

# resolve the jars once into $LIB_DIR (skipped if the marker matches the current pom and line)
ensure_jars() {
  local want
  want=$(jars_marker)
  if [[ -f "$LIB_MARKER" && "$(cat "$LIB_MARKER")" == "$want" ]]; then
    return 0
  fi
  command -v mvn >/dev/null 2>&1 ||
    die "mvn not found (needed once to download the HBase jars). Install: apt-get install openjdk-17-jre-headless maven"
  say "resolving HBase $HBASE_VERSION jars (hbase $HBASE_MAVEN_VERSION, Hadoop $HADOOP_VERSION, hbase-thrift ${THRIFT_MAVEN_VERSION:-none})"
  say "with Maven into $LIB_DIR (first time only: about"
  say "120 MB from Maven Central, typically 20 s to 2 min; later starts skip this) ..."
  local tmp start mvn_pid m2
  start=$SECONDS
  mkdir -p "$(dirname "$LIB_DIR")"
  tmp=$(mktemp -d "$(dirname "$LIB_DIR")/lib.tmp.XXXXXX")
  chmod 755 "$tmp"
  m2="${MAVEN_REPO:-$HOME/.m2/repository}"
  maven_line_opts
  mvn -q -B -Dstyle.color=never -f "$POM" "${MAVEN_LINE_OPTS[@]}" dependency:copy-dependencies \
    -DoutputDirectory="$tmp" >"$tmp.mvn.log" 2>&1 </dev/null &
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
  ls "$tmp/hbase-server-$HBASE_MAVEN_VERSION.jar" >/dev/null 2>&1 ||
    { rm -rf "$tmp"; die "Maven did not produce hbase-server-$HBASE_MAVEN_VERSION.jar in $tmp"; }
  if has_gateways; then
    ls "$tmp/hbase-thrift-$THRIFT_MAVEN_VERSION.jar" >/dev/null 2>&1 ||
      { rm -rf "$tmp"; die "Maven did not produce hbase-thrift-$THRIFT_MAVEN_VERSION.jar in $tmp"; }
  fi
  printf '%s\n' "$want" >"$tmp/.complete"
  rm -rf "$LIB_DIR"
  mv "$tmp" "$LIB_DIR"
  say "jars ready: $(find "$LIB_DIR" -name '*.jar' | wc -l | tr -d ' ') files in $((SECONDS - start)) s"
}

# ----------------------------------------------------------------------------- starting a JVM

# JVM_OPTS for component $1 with heap $2 (and region server port $3; a directory $4 put first
# on the classpath, before the mode's own)
jvm_opts() {
  local name=$1 heap=$2 rs_port=${3:-$REGIONSERVER_RPC_PORT} classpath="$CONF_DIR:$LIB_DIR/*" dir
  for dir in "${MODE_CLASSPATH[@]}"; do
    classpath="$dir:$classpath"
  done
  [[ -z "${4:-}" ]] || classpath="$4:$classpath"
  JVM_OPTS=(
    "-Dhbase.orm.component=$name"
    "-Dhbase.orm.data=$DATA_DIR"
    "-Dhbase.orm.zk.port=$ZK_PORT"
    "-Dhbase.orm.master.port=$MASTER_RPC_PORT"
    "-Dhbase.orm.regionserver.port=$rs_port"
    "-Xmx$heap"
    "${JIT_FLAGS[@]}"
    -XX:+ExitOnOutOfMemoryError
    -Djava.net.preferIPv4Stack=true
    -Djava.awt.headless=true
    # what bin/hbase adds on JDK 11 and later (hbase-local/jdk-flags)
    "${JDK_FLAGS[@]}"
    # logging: conf/log4j2.properties -> $DATA/logs/<name>.log
    "-Dlog4j.configurationFile=$CONF_DIR/log4j2.properties"
    "-Dlog4j2.configurationFile=$CONF_DIR/log4j2.properties"
    "-Dhbase.log.dir=$LOG_DIR"
    "-Dhbase.log.file=$name.log"
    -Dlog4j2.shutdownHookEnabled=false
    -cp "$classpath"
    # what the mode gives every JVM (cluster: distributed mode, how many region servers the
    # master waits for, the ZooKeeper session timeout; with HDFS: the root dir in HDFS and
    # HDFS's ports; see conf/hbase-site.xml and conf/hdfs/)
    "${MODE_JVM_OPTS[@]}"
  )
}

# adds the words of $1 (an HBASE_ORM_*_JAVA_OPTS variable) to JVM_OPTS
add_extra_opts() {
  if [[ -n "$1" ]]; then
    local extra_words
    read -r -a extra_words <<<"$1"
    JVM_OPTS+=("${extra_words[@]}")
  fi
}

# spawn_jvm NAME MAIN [ARGS...]: starts `java $JVM_OPTS MAIN ARGS` in the background as
# component NAME, with a fresh log, in its own session; its pid goes to run/NAME.pid
spawn_jvm() {
  local name=$1 main=$2
  shift 2
  # a fresh log per run: "ready" is decided by grepping the logs
  local f
  for f in "$(log_file "$name")" "$(out_file "$name")"; do
    if [[ -f "$f" ]]; then mv -f "$f" "$f.prev"; fi
  done
  rm -f "$(log_file "$name")".[0-9]* # rolled-over logs of an earlier run
  rm -f "$(ready_file "$name")"
  local launcher=()
  # own session: the JVMs survive the terminal / CI step that ran `up`
  command -v setsid >/dev/null 2>&1 && launcher=(setsid)
  (
    cd "$DATA_DIR"
    exec 9>&- # do not leak the run-dir lock into the JVM
    exec "${launcher[@]}" nohup "$JAVA" "${JVM_OPTS[@]}" "$main" "$@" \
      >"$(out_file "$name")" 2>&1 </dev/null
  ) &
  printf '%s\n' "$!" >"$(pid_file "$name")"
}

# ----------------------------------------------------------------------------- TCP gateways

# adds TCP gateway $1 to the mode's processes
add_tcp_gateway() {
  local name=$1 port
  port=$(tcp_gateway_port "$name")
  case "$name" in
    thrift) add_component "$name" "$port" "Thrift2 127.0.0.1:$port buffered/binary" ;;
    thrift-framed) add_component "$name" "$port" "Thrift2 127.0.0.1:$port framed/compact" ;;
    thrift1) add_component "$name" "$port" "Thrift1 127.0.0.1:$port buffered/binary" ;;
    thrift-short) add_component "$name" "$port" "Thrift2 127.0.0.1:$port buffered/binary, scanners expire after $SHORT_SCANNER_MS ms" ;;
  esac
}

tcp_gateway_port() {
  case "$1" in
    thrift) printf '%s' "$THRIFT_PORT" ;;
    thrift-framed) printf '%s' "$THRIFT_FRAMED_PORT" ;;
    thrift1) printf '%s' "$THRIFT1_PORT" ;;
    thrift-short) printf '%s' "$THRIFT_SHORT_PORT" ;;
  esac
}

# says so and starts TCP gateway $1 (not running; its readiness: ping_component)
start_tcp_gateway() {
  local name=$1 main=org.apache.hadoop.hbase.thrift2.ThriftServer args
  case "$name" in
    thrift) args=(-b 127.0.0.1 -p "$THRIFT_PORT" --infoport -1 start) ;;
    thrift-framed) args=(-b 127.0.0.1 -p "$THRIFT_FRAMED_PORT" --infoport -1 -f -c -t "$FRAMED_IDLE_MS" start) ;;
    thrift1)
      main=org.apache.hadoop.hbase.thrift.ThriftServer
      args=(-b 127.0.0.1 -p "$THRIFT1_PORT" --infoport -1 start)
      ;;
    thrift-short) args=(-b 127.0.0.1 -p "$THRIFT_SHORT_PORT" --infoport -1 start) ;;
    *) die "unknown process $name" ;;
  esac
  if [[ "$name" == thrift-framed ]]; then
    say "starting gateway $(describe "$name") (closes sockets idle for ${FRAMED_IDLE_MS} ms)"
  else
    say "starting gateway $(describe "$name")"
  fi
  jvm_opts "$name" "$THRIFT_HEAP"
  if [[ "$name" == thrift-short ]]; then
    # the gateway's scanner cache drops scanners unused this long (conf/hbase-site.xml)
    JVM_OPTS+=("-Dhbase.orm.scanner.timeout.ms=$SHORT_SCANNER_MS")
  fi
  add_extra_opts "${HBASE_ORM_THRIFT_JAVA_OPTS:-}"
  spawn_jvm "$name" "$main" "${args[@]}"
}

# ----------------------------------------------------------------------------- stopping

# Stopping: term_components sends TERM without waiting (pids collected in STOP_PIDS/STOP_NAMES),
# wait_stopped waits up to $STOP_TIMEOUT s (or $1 s) for them, then KILLs what is left.
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
      rm -f "$(pid_file "$name")" "$(ready_file "$name")"
    fi
  done
}

wait_stopped() {
  local waited=0 alive i limit=${1:-$STOP_TIMEOUT}
  while ((${#STOP_PIDS[@]})); do
    alive=()
    for i in "${!STOP_PIDS[@]}"; do
      kill -0 "${STOP_PIDS[$i]}" 2>/dev/null && alive+=("$i")
    done
    ((${#alive[@]} == 0)) && break
    if ((waited >= limit)); then
      for i in "${alive[@]}"; do
        warn "${STOP_NAMES[$i]} (pid ${STOP_PIDS[$i]}) still running after ${limit}s: KILL"
        kill -KILL "${STOP_PIDS[$i]}" 2>/dev/null || true
      done
      sleep 1
      break
    fi
    sleep 1
    waited=$((waited + 1))
  done
  for i in "${!STOP_NAMES[@]}"; do
    rm -f "$(pid_file "${STOP_NAMES[$i]}")" "$(ready_file "${STOP_NAMES[$i]}")"
  done
  STOP_PIDS=()
  STOP_NAMES=()
}

stop_components() {
  term_components "$@"
  wait_stopped
}

# waits up to $STOP_TIMEOUT s for the processes of the named components to exit; false if some
# are still running then
wait_exit() {
  local name pid pids=() waited=0 alive
  for name in "$@"; do
    pid=$(component_pid "$name")
    [[ -z "$pid" ]] || pids+=("$pid")
  done
  while ((${#pids[@]})); do
    alive=0
    for pid in "${pids[@]}"; do
      kill -0 "$pid" 2>/dev/null && alive=1
    done
    ((alive)) || return 0
    ((waited < STOP_TIMEOUT)) || return 1
    sleep 1
    waited=$((waited + 1))
  done
}

# Asks the running master to shut the whole cluster down, the way bin/stop-hbase.sh does
# (`HMaster stop --shutDownCluster`, an RPC): the region servers close their regions and leave
# ZooKeeper, then the master exits. (In standalone mode a plain TERM works too, but then the
# region server spends ~20 s retrying the ZooKeeper that stopped with it.) False if the request
# could not be made; an uninitialized (starting or broken) master cannot serve it.
request_cluster_shutdown() {
  master_initialized || return 1
  [[ -n "$JAVA" ]] || find_java_quiet || return 1
  say "asking HBase to shut the cluster down (master pid $(component_pid master))"
  jvm_opts master-stop 256m
  rm -f "$(log_file master-stop)"
  local stopper=("$JAVA" "${JVM_OPTS[@]}" org.apache.hadoop.hbase.master.HMaster stop --shutDownCluster)
  # the stop client tries only once; bound it anyway
  command -v timeout >/dev/null 2>&1 && stopper=(timeout 60 "${stopper[@]}")
  if (cd "$DATA_DIR" && exec 9>&- && exec "${stopper[@]}" >"$(out_file master-stop)" 2>&1 </dev/null); then
    return 0
  fi
  warn "'HMaster stop' failed (see $(out_file master-stop))"
  return 1
}

# HBase's processes: gateways get TERM first (they are clients of the cluster), the master is
# asked to shut the cluster down while they exit, then whatever still runs gets TERM (KILL after
# $STOP_TIMEOUT s), the cluster's ZooKeeper last. A cluster whose ZooKeeper (or NameNode) is gone
# cannot shut down cleanly (its servers retry it while they stop): TERM, and KILL after 10 s.
stop_hbase() {
  term_components "${GATEWAYS[@]}"
  local servers=("${HBASE_SERVERS[@]}") name limit=$STOP_TIMEOUT lost=0
  for name in "${HBASE_NEEDS[@]}"; do
    [[ -n "$(component_pid "$name")" ]] || lost=1
  done
  if ((lost)); then
    limit=10
  elif [[ -n "$(component_pid master)" ]] && request_cluster_shutdown; then
    wait_exit "${servers[@]}" ||
      warn "still running ${STOP_TIMEOUT}s after the shutdown request: $(for name in "${servers[@]}"; do [[ -z "$(component_pid "$name")" ]] || printf '%s ' "$name"; done)(TERM)"
  fi
  term_components "${servers[@]}"
  wait_stopped "$limit"
  if is_component zookeeper; then
    stop_components zookeeper
  fi
}

# Everything of the current mode: HBase's processes (stop_hbase), then what the mode stops after
# them (HDFS: the DataNodes, then the NameNode).
stop_all() {
  stop_hbase
  local group
  for group in "${STOPPED_AFTER_HBASE[@]}"; do
    local names=()
    read -r -a names <<<"$group"
    stop_components "${names[@]}"
  done
}
