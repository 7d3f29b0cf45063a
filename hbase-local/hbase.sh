#!/usr/bin/env bash
# Local HBase 2.6.1 + Thrift gateways, from Maven jars (no HBase install needed): a standalone
# HBase (the default) with eight gateways (four over plain TCP, four over HTTP or HTTPS), or a
# distributed cluster on this machine with the four TCP ones.
#
#   hbase-local/hbase.sh up            start standalone HBase (idempotent) and wait until ready
#   hbase-local/hbase.sh up --cluster [N]
#                                      start a distributed cluster instead: ZooKeeper, a master
#                                      and N region servers (default 3, or the N the data dir's
#                                      cluster had), each its own JVM, plus the four TCP
#                                      gateways; waits until ready. Idempotent: starts whichever
#                                      of its processes are not running (after `kill rs2`, say)
#   hbase-local/hbase.sh down [--purge] stop everything (and with --purge delete the data dir)
#   hbase-local/hbase.sh status        each process: pid, port, whether it answers; exit 0 iff all up
#   hbase-local/hbase.sh restart NAME  stop one process and start it again (or start it if it was
#                                      stopped); returns once it answers (for fault tests)
#   hbase-local/hbase.sh stop NAME     stop one process gracefully (SIGTERM) and leave it stopped
#   hbase-local/hbase.sh start NAME    start one stopped process; returns once it is ready
#   hbase-local/hbase.sh kill NAME     kill -9 one process (a crash) and leave it dead
#   hbase-local/hbase.sh logs [-f] [-n LINES]  tail of every process's log (-f follows)
#   hbase-local/hbase.sh hfile FILE... HBase's own HFile reader (HFilePrettyPrinter -v -m -k) over
#                                      each file: its trailer, file info, bloom and every cell
#                                      read; exits non-zero if one cannot be read. Needs no
#                                      running HBase, only the jars (fetched on first use)
#
# NAME is a gateway: thrift, thrift-framed, thrift1, thrift-short in either mode; thrift-http,
# thrift-https, thrift1-http, thrift1-https in standalone mode; in cluster mode also zookeeper,
# master or rs1 .. rsN. Standalone mode: `kill master` kills the whole HBase; the master is
# otherwise started and stopped with up/down only.
#
# Modes. The data dir remembers the mode it was last started in ($DATA/mode: "standalone" or
# "cluster N"; none = standalone), and status/down/stop/start/kill/logs act on that mode. `up`
# (or `up --cluster`) refuses while the data dir runs in the other mode (or a cluster of another
# size): `down` first. Both modes keep HBase and ZooKeeper data in the same places, so a stopped
# data dir can be started in either. To run both at once, give the second its own HBASE_ORM_DATA
# and ports (a port already in use makes `up` refuse too).
#
# Standalone processes (background JVMs, pid files in $DATA/run, logs in $DATA/logs/NAME.log):
#   master        org.apache.hadoop.hbase.master.HMaster start  (ZooKeeper + master + region
#                 server in one JVM, hbase.cluster.distributed=false)
# Cluster processes (hbase.cluster.distributed=true):
#   zookeeper     org.apache.hadoop.hbase.zookeeper.HQuorumPeer on 127.0.0.1:$HBASE_ORM_ZK_PORT.
#                 HBase's own ZooKeeper launcher, chosen over ZooKeeperServerMain PORT DIR because
#                 it reads everything from hbase-site.xml (port, bind address 127.0.0.1 where
#                 ZooKeeperServerMain binds all interfaces, data dir, the session limit) and keeps
#                 HBase's maxClientCnxns (300): plain ZooKeeper allows 60 connections per client
#                 address, and every JVM and test client here comes from 127.0.0.1
#   master        HMaster start, RPC 127.0.0.1:$HBASE_ORM_MASTER_PORT
#   rs1 .. rsN    org.apache.hadoop.hbase.regionserver.HRegionServer start; rsK binds and
#                 advertises 127.0.0.1:$((HBASE_ORM_REGIONSERVER_PORT + K - 1)) (16020, 16021, ...)
# Both modes, the TCP gateways:
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
# Standalone mode only, the HTTP gateways (hbase.regionserver.thrift.http=true: Jetty, one POST
# per call, binary protocol whatever -c says; settings in conf/hbase-site.xml, chosen per
# process with -Dhbase.orm.thrift.{http,ssl,proxyuser}=true):
#   thrift-http   Thrift2 over HTTP  127.0.0.1:$HBASE_ORM_THRIFT_HTTP_PORT (9094), no proxy users
#   thrift-https  Thrift2 over HTTPS 127.0.0.1:$HBASE_ORM_THRIFT_HTTPS_PORT (9095), proxy users on
#   thrift1-http  Thrift1 over HTTP  127.0.0.1:$HBASE_ORM_THRIFT1_HTTP_PORT (9096), no proxy users
#   thrift1-https Thrift1 over HTTPS 127.0.0.1:$HBASE_ORM_THRIFT1_HTTPS_PORT (9097), proxy users on
#                 "proxy users on" = hbase.thrift.support.proxyuser=true: a request's `doAs: USER`
#                 header makes USER the effective user if Hadoop's ProxyUsers rules allow it. The
#                 rules here: the gateway's own OS user (`id -un`, or $HADOOP_USER_NAME if set)
#                 may impersonate the user alice, from 127.0.0.1 only; any other doAs is refused
#                 (HTTP 500). The gateways without proxy users refuse every doAs (HTTP 500).
#                 The cluster leaves these four out: it already runs 5+ JVMs on 2 cores.
# No other port is opened: web UIs are off (info ports -1), so is ZooKeeper's admin server.
#
# TLS material (standalone `up` makes what is missing, with the JDK's keytool, in $DATA/tls):
#   gateway.p12   PKCS12 keystore of the HTTPS gateways: a self-signed EC P-256 certificate,
#                 CN=localhost, subject alternative names DNS:localhost and IP:127.0.0.1, valid
#                 10 years (its password is a fixed string of this script, for local tests only)
#   ca.pem        that certificate (PEM): the CA a client trusts to reach the HTTPS gateways
#   other-ca.pem  an unrelated self-signed certificate (PEM): a CA that must NOT be accepted
# $DATA/gateway-conf/core-site.xml (written at each start of an HTTPS gateway, first on its
# classpath) holds the proxy-user rules and the keystore passwords: the rules' key names carry
# the user's name, which hbase-site.xml cannot substitute, and the passwords stay off the
# command line.
#
# Ready means: the master's log says "Master has completed initialization"; in cluster mode
# also ZooKeeper answers `srvr` and each region server's log says "Serving as 127.0.0.1,PORT,..."
# (written once the master accepted it: registered); then every gateway answers a real call
# about hbase:namespace (hbase-local/ping.py; HTTPS: verified against ca.pem). `status` also
# asks the master and each region server over HBase's RPC (ping.py --rpc). A region server
# started while no master runs is ready once it answers its RPC port; it registers when a
# master is back.
#
# Cluster facts (details in conf/hbase-site.xml; times measured on the 2-core machine):
#   - `up --cluster` from nothing takes ~40 s (jars present): 8 JVMs starting on 2 cores.
#   - WALs go through Hadoop's RawLocalFileSystem (fs.file.impl), whose hflush reaches the OS:
#     writes a region server acknowledged survive its kill -9 and come back through the
#     master's WAL split (checked under load: none lost).
#   - A killed region server is noticed when its ZooKeeper session expires
#     ($HBASE_ORM_ZK_SESSION_MS, 10 s here; HBase's default is 90 s); the master's crash
#     procedure (WAL split, reassignment) then takes ~3 s: its regions serve again ~11-14 s
#     after the kill (a client's retry backoff may add more: HBase's own client resumed at
#     ~18 s). A graceful `stop rsK` moves its regions in ~1-2 s. The balancer moves regions
#     every 5 minutes: look a region's server up right before killing it.
#   - `stop master` only stops the master (SIGTERM): ZooKeeper, region servers and gateways
#     keep serving reads and writes of regions already open (checked for 2 minutes under
#     load); `start master` brings it back (~15 s) and it takes the region servers over.
#     `down` asks the master to shut the whole cluster down (as bin/stop-hbase.sh does), then
#     stops whatever is left, ZooKeeper last.
# Environment:
#   HBASE_ORM_DATA               data, logs, pid files     (default <repo>/.hbase-local)
#   HBASE_ORM_CACHE              resolved jars             (default ~/.cache/hbase-orm)
#   HBASE_ORM_THRIFT_PORT        buffered/binary gateway   (default 9090)
#   HBASE_ORM_THRIFT_FRAMED_PORT framed/compact gateway    (default 9091)
#   HBASE_ORM_FRAMED_IDLE_MS     its idle-socket timeout   (default 3000 ms; the others: 60 s)
#   HBASE_ORM_THRIFT1_PORT       Thrift1 gateway           (default 9092)
#   HBASE_ORM_THRIFT_SHORT_PORT  short-scanner gateway     (default 9093)
#   HBASE_ORM_THRIFT_HTTP_PORT   Thrift2 over HTTP         (default 9094; standalone only)
#   HBASE_ORM_THRIFT_HTTPS_PORT  Thrift2 over HTTPS        (default 9095; standalone only)
#   HBASE_ORM_THRIFT1_HTTP_PORT  Thrift1 over HTTP         (default 9096; standalone only)
#   HBASE_ORM_THRIFT1_HTTPS_PORT Thrift1 over HTTPS        (default 9097; standalone only)
#   HBASE_ORM_SHORT_SCANNER_MS   its scanner timeout       (default 2000 ms)
#   HBASE_ORM_REGION_SCANNER_MS  the region servers' scanner lease (default 10000 ms; HBase's
#                                own default is 60 s): a native scan paused longer than this
#                                finds its region scanner gone, as tests of resuming need
#   HBASE_ORM_ZK_PORT            ZooKeeper client port     (default 2181)
#   HBASE_ORM_MASTER_PORT        master RPC port           (default 16000)
#   HBASE_ORM_REGIONSERVER_PORT  region server RPC port    (default 16020; cluster: rs1's, rsK
#                                uses this + K - 1)
#   HBASE_ORM_ZK_SESSION_MS      cluster: ZooKeeper session timeout (default 10000 ms)
#   HBASE_ORM_UP_TIMEOUT         seconds `up` (and start/restart) waits (default 180)
#   HBASE_ORM_MASTER_HEAP        master -Xmx               (default 1g standalone, 512m cluster)
#   HBASE_ORM_RS_HEAP            cluster: -Xmx of each region server (default 768m)
#   HBASE_ORM_ZK_HEAP            cluster: ZooKeeper's -Xmx (default 128m)
#   HBASE_ORM_THRIFT_HEAP        -Xmx of each gateway      (default 512m)
#   HBASE_ORM_MASTER_JAVA_OPTS   extra JVM options for the master (word-split)
#   HBASE_ORM_RS_JAVA_OPTS       extra JVM options for each region server (word-split)
#   HBASE_ORM_ZK_JAVA_OPTS       extra JVM options for ZooKeeper (word-split)
#   HBASE_ORM_THRIFT_JAVA_OPTS   extra JVM options for each gateway (word-split)
#   HBASE_ORM_JIT                quick (default): every JVM compiles with C1 only
#                                (-XX:TieredStopAtLevel=1): standalone `up` in ~14 s instead of
#                                ~22 s, and the test suite on a fresh HBase ~15% faster on
#                                2 cores (no C2 compiling beside the work; a warm JVM was as
#                                fast either way). full: the JVM's default tiered compilation,
#                                for benchmarks (a long run reaches C2's faster code).
#   JAVA_HOME                    JDK/JRE to use (else `java` on PATH)
set -euo pipefail

HBASE_VERSION=2.6.1

SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
REPO_ROOT=$(cd -- "$SCRIPT_DIR/.." && pwd -P)
# JVM flags every HBase process needs on JDK 11 and later
mapfile -t JDK_FLAGS < <(grep -v '^#' "$SCRIPT_DIR/jdk-flags")
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
RS_HEAP=${HBASE_ORM_RS_HEAP:-768m}
ZK_HEAP=${HBASE_ORM_ZK_HEAP:-128m}
THRIFT_HEAP=${HBASE_ORM_THRIFT_HEAP:-512m}
STOP_TIMEOUT=30
DEFAULT_CLUSTER_SIZE=3
MAX_CLUSTER_SIZE=20

# the gateways of both modes (plain TCP), and those of standalone mode only (HTTP, HTTPS)
TCP_GATEWAYS=(thrift thrift-framed thrift1 thrift-short)
HTTP_GATEWAYS=(thrift-http thrift-https thrift1-http thrift1-https)
# the gateways of the current mode (set_mode)
GATEWAYS=("${TCP_GATEWAYS[@]}")
# the one user the gateways with proxy-user support let their own OS user impersonate
PROXY_USER_ALLOWED=alice
# Password of the HTTPS gateways' keystore (and of its key: PKCS12 has one for both). Test
# material on the loopback interface only; it is never printed, nor put on a command line.
TLS_STORE_PASSWORD=hbase-orm-local-test-keystore
READY_LINE="Master has completed initialization"
RS_READY_LINE="Serving as "
DATA_MARKER_NAME=.hbase-orm-data

# ----------------------------------------------------------------------------- helpers

say() { printf '[hbase-local] %s\n' "$*"; }
warn() { printf '[hbase-local] %s\n' "$*" >&2; }
die() { warn "error: $*"; exit 1; }

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
  # the HTTPS gateways' keystore (the path is also in conf/hbase-site.xml), the CA certificate
  # clients trust, an unrelated one; the generated conf dir of the HTTPS gateways
  TLS_DIR=$DATA_DIR/tls
  KEYSTORE=$TLS_DIR/gateway.p12
  CA_PEM=$TLS_DIR/ca.pem
  OTHER_CA_PEM=$TLS_DIR/other-ca.pem
  GATEWAY_CONF_DIR=$DATA_DIR/gateway-conf
}
abs_data_dir

# ----------------------------------------------------------------------------- modes

# MODE (standalone | cluster), RS_COUNT (cluster: region servers) and COMPONENTS (every process
# of the mode, in start order)
MODE=standalone
RS_COUNT=0
COMPONENTS=()
set_mode() {
  MODE=$1
  RS_COUNT=${2:-0}
  COMPONENTS=()
  if [[ "$MODE" == cluster ]]; then
    COMPONENTS=(zookeeper master)
    local i
    for ((i = 1; i <= RS_COUNT; i++)); do
      COMPONENTS+=("rs$i")
    done
    GATEWAYS=("${TCP_GATEWAYS[@]}")
  else
    COMPONENTS=(master)
    GATEWAYS=("${TCP_GATEWAYS[@]}" "${HTTP_GATEWAYS[@]}")
  fi
  COMPONENTS+=("${GATEWAYS[@]}")
}

# the mode the data dir was last started in (no file: standalone, as before cluster mode existed)
load_mode() {
  local m="" n=""
  if [[ -f "$MODE_FILE" ]]; then
    read -r m n <"$MODE_FILE" 2>/dev/null || true
  fi
  if [[ "$m" == cluster && "$n" =~ ^[0-9]+$ ]] && ((n >= 1)); then
    set_mode cluster "$n"
  else
    set_mode standalone
  fi
}

save_mode() {
  if [[ "$MODE" == cluster ]]; then
    printf 'cluster %s\n' "$RS_COUNT" >"$MODE_FILE"
  else
    printf 'standalone\n' >"$MODE_FILE"
  fi
}

is_cluster() { [[ "$MODE" == cluster ]]; }

mode_summary() {
  if is_cluster; then
    printf 'cluster (ZooKeeper, master, %s region servers)' "$RS_COUNT"
  else
    printf 'standalone (ZooKeeper, master and region server in one JVM)'
  fi
}

# the region servers of the cluster (rs1 .. rsN), or none
region_servers() {
  local i
  for ((i = 1; i <= RS_COUNT; i++)); do
    printf 'rs%s\n' "$i"
  done
}

is_region_server() { [[ "$1" =~ ^rs[1-9][0-9]*$ ]]; }

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

port_of() {
  case "$1" in
    zookeeper) printf '%s' "$ZK_PORT" ;;
    master) printf '%s' "$MASTER_RPC_PORT" ;;
    rs*) printf '%s' "$((REGIONSERVER_RPC_PORT + ${1#rs} - 1))" ;;
    thrift) printf '%s' "$THRIFT_PORT" ;;
    thrift-framed) printf '%s' "$THRIFT_FRAMED_PORT" ;;
    thrift1) printf '%s' "$THRIFT1_PORT" ;;
    thrift-short) printf '%s' "$THRIFT_SHORT_PORT" ;;
    thrift-http) printf '%s' "$THRIFT_HTTP_PORT" ;;
    thrift-https) printf '%s' "$THRIFT_HTTPS_PORT" ;;
    thrift1-http) printf '%s' "$THRIFT1_HTTP_PORT" ;;
    thrift1-https) printf '%s' "$THRIFT1_HTTPS_PORT" ;;
  esac
}

# every port a process listens on
ports_of() {
  if [[ "$1" == master ]] && ! is_cluster; then
    printf '%s %s %s' "$ZK_PORT" "$MASTER_RPC_PORT" "$REGIONSERVER_RPC_PORT"
  else
    port_of "$1"
  fi
}

# human description of a process
describe() {
  case "$1" in
    zookeeper) printf 'ZooKeeper 127.0.0.1:%s' "$ZK_PORT" ;;
    master)
      if is_cluster; then
        printf 'master 127.0.0.1:%s' "$MASTER_RPC_PORT"
      else
        printf 'ZooKeeper 127.0.0.1:%s, master :%s, region server :%s' "$ZK_PORT" "$MASTER_RPC_PORT" "$REGIONSERVER_RPC_PORT"
      fi
      ;;
    rs*) printf 'region server 127.0.0.1:%s' "$(port_of "$1")" ;;
    thrift) printf 'Thrift2 127.0.0.1:%s buffered/binary' "$THRIFT_PORT" ;;
    thrift-framed) printf 'Thrift2 127.0.0.1:%s framed/compact' "$THRIFT_FRAMED_PORT" ;;
    thrift1) printf 'Thrift1 127.0.0.1:%s buffered/binary' "$THRIFT1_PORT" ;;
    thrift-short) printf 'Thrift2 127.0.0.1:%s buffered/binary, scanners expire after %s ms' "$THRIFT_SHORT_PORT" "$SHORT_SCANNER_MS" ;;
    thrift-http) printf 'Thrift2 http://127.0.0.1:%s/ binary, no doAs' "$THRIFT_HTTP_PORT" ;;
    thrift-https) printf 'Thrift2 https://127.0.0.1:%s/ binary, doAs %s' "$THRIFT_HTTPS_PORT" "$PROXY_USER_ALLOWED" ;;
    thrift1-http) printf 'Thrift1 http://127.0.0.1:%s/ binary, no doAs' "$THRIFT1_HTTP_PORT" ;;
    thrift1-https) printf 'Thrift1 https://127.0.0.1:%s/ binary, doAs %s' "$THRIFT1_HTTPS_PORT" "$PROXY_USER_ALLOWED" ;;
  esac
}

# true if something accepts TCP connections on 127.0.0.1:$1
port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

have_python() { command -v python3 >/dev/null 2>&1; }

# where a client finds the CA certificate of the HTTPS gateways (standalone mode)
tls_summary() {
  printf 'HTTPS gateways: CA certificate %s (%s: an unrelated one)' "$CA_PEM" "$OTHER_CA_PEM"
}

gateways_summary() {
  local name sep=""
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

# True once the log of component $1 (this run's: start_component rotates it) has the line $2.
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

# a region server is registered once the master accepted its report for duty
rs_registered() { logged_since_start "$1" "$RS_READY_LINE"; }

# Is component $1 ready? ZooKeeper: answers; master: initialized; region server: registered (or,
# while no master runs, answers its RPC port); gateway: answers a real call.
component_ready() {
  local name=$1
  case "$name" in
    zookeeper) zk_answers 3 ;;
    master) master_initialized ;;
    rs*)
      if [[ -n "$(component_pid master)" ]]; then
        rs_registered "$name"
      else
        [[ -n "$(rpc_answer "$name" 3)" ]]
      fi
      ;;
    *) ping_component "$name" 5 ;;
  esac
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

# ----------------------------------------------------------------------------- TLS material

# the JDK's keytool beside $JAVA (or the one it links to), else keytool on PATH
find_keytool() {
  local dir
  [[ -n "$JAVA" ]] || find_java
  for dir in "$(dirname -- "$JAVA")" "$(dirname -- "$(readlink -f -- "$JAVA" 2>/dev/null || printf '%s' "$JAVA")")"; do
    if [[ -x "$dir/keytool" ]]; then
      printf '%s' "$dir/keytool"
      return 0
    fi
  done
  command -v keytool 2>/dev/null || die "keytool not found beside $JAVA nor on PATH (it comes with the JDK/JRE: apt-get install openjdk-17-jre-headless)"
}

# keytool -genkeypair of a self-signed EC P-256 certificate, valid 10 years, into PKCS12 keystore
# $1 (alias $2, subject $3, further keytool options after), then its certificate as PEM into $4.
# The password reaches keytool through its environment, never its command line.
make_self_signed() {
  local store=$1 alias=$2 dname=$3 pem=$4 keytool log
  shift 4
  keytool=$(find_keytool)
  log=$TLS_DIR/keytool.log
  if ! HBASE_ORM_KEYTOOL_PASS=$TLS_STORE_PASSWORD "$keytool" -genkeypair -alias "$alias" \
    -keyalg EC -groupname secp256r1 -sigalg SHA256withECDSA -validity 3650 -dname "$dname" "$@" \
    -keystore "$store" -storetype PKCS12 \
    -storepass:env HBASE_ORM_KEYTOOL_PASS -keypass:env HBASE_ORM_KEYTOOL_PASS >"$log" 2>&1 ||
    ! HBASE_ORM_KEYTOOL_PASS=$TLS_STORE_PASSWORD "$keytool" -exportcert -rfc -alias "$alias" \
      -keystore "$store" -storetype PKCS12 -storepass:env HBASE_ORM_KEYTOOL_PASS \
      -file "$pem" >>"$log" 2>&1; then
    cat "$log" >&2
    die "keytool could not make a test certificate in $TLS_DIR (output above; $keytool)"
  fi
  rm -f "$log"
}

# Makes the HTTPS gateways' TLS material in $TLS_DIR unless it is there: the keystore with the
# server certificate and that certificate as ca.pem (made together, into temporary names first,
# so that they always match), and other-ca.pem, an unrelated certificate.
ensure_tls() {
  mkdir -p "$TLS_DIR"
  chmod 755 "$TLS_DIR"
  rm -rf "$TLS_DIR"/.new.* # left by a keytool that failed
  local tmp
  if [[ ! -s "$KEYSTORE" || ! -s "$CA_PEM" ]]; then
    tmp=$(mktemp -d "$TLS_DIR/.new.XXXXXX")
    make_self_signed "$tmp/gateway.p12" gateway "CN=localhost, OU=HTTPS gateways, O=hbase-orm local test" \
      "$tmp/ca.pem" -ext SAN=DNS:localhost,IP:127.0.0.1 -ext KU=digitalSignature -ext EKU=serverAuth
    chmod 600 "$tmp/gateway.p12"
    chmod 644 "$tmp/ca.pem"
    mv -f "$tmp/gateway.p12" "$KEYSTORE"
    mv -f "$tmp/ca.pem" "$CA_PEM"
    rm -rf "$tmp"
    say "made a self-signed certificate for localhost/127.0.0.1: keystore $KEYSTORE, CA certificate $CA_PEM"
  fi
  if [[ ! -s "$OTHER_CA_PEM" ]]; then
    tmp=$(mktemp -d "$TLS_DIR/.new.XXXXXX")
    make_self_signed "$tmp/other.p12" other "CN=hbase-orm unrelated test CA, O=hbase-orm local test" \
      "$tmp/other-ca.pem" -ext SAN=DNS:localhost,IP:127.0.0.1
    chmod 644 "$tmp/other-ca.pem"
    mv -f "$tmp/other-ca.pem" "$OTHER_CA_PEM"
    rm -rf "$tmp"
    say "made an unrelated certificate for wrong-CA tests: $OTHER_CA_PEM"
  fi
}

# The user the gateways run as, as Hadoop sees it (simple authentication: $HADOOP_USER_NAME
# if set, else the OS user): the "real user" of a doAs request.
gateway_os_user() {
  local user=${HADOOP_USER_NAME:-}
  [[ -n "$user" ]] || user=$(id -un 2>/dev/null || true)
  [[ -n "$user" ]] || user=${USER:-}
  [[ "$user" =~ ^[A-Za-z0-9._][A-Za-z0-9._@-]*$ ]] ||
    die "cannot name the proxy-user rule after the user '$user' (id -un)"
  printf '%s' "$user"
}

# $GATEWAY_CONF_DIR/core-site.xml for the HTTPS gateways: Hadoop's proxy-user rules (their key
# names carry the real user's name) and the keystore passwords. Hadoop reads core-site.xml
# from the classpath before hbase-site.xml, which does not set these keys.
write_gateway_conf() {
  local user tmp
  user=$(gateway_os_user)
  mkdir -p "$GATEWAY_CONF_DIR"
  chmod 700 "$GATEWAY_CONF_DIR"
  tmp=$(mktemp "$GATEWAY_CONF_DIR/.core-site.XXXXXX")
  chmod 600 "$tmp"
  cat >"$tmp" <<XML
<?xml version="1.0"?>
<!-- Written by hbase-local/hbase.sh at each start of an HTTPS gateway (edits are lost). -->
<configuration>
  <!-- ProxyUsers: the gateway's own user ($user) may act as $PROXY_USER_ALLOWED (doAs header),
       from 127.0.0.1 only; read where hbase.thrift.support.proxyuser=true -->
  <property>
    <name>hadoop.proxyuser.$user.hosts</name>
    <value>127.0.0.1</value>
  </property>
  <property>
    <name>hadoop.proxyuser.$user.users</name>
    <value>$PROXY_USER_ALLOWED</value>
  </property>
  <!-- the keystore $KEYSTORE (conf/hbase-site.xml); PKCS12: one password for store and key -->
  <property>
    <name>hbase.thrift.ssl.keystore.password</name>
    <value>$TLS_STORE_PASSWORD</value>
  </property>
  <property>
    <name>hbase.thrift.ssl.keystore.keypassword</name>
    <value>$TLS_STORE_PASSWORD</value>
  </property>
</configuration>
XML
  mv -f "$tmp" "$GATEWAY_CONF_DIR/core-site.xml"
}

# ----------------------------------------------------------------------------- start / stop

master_heap() {
  if [[ -n "${HBASE_ORM_MASTER_HEAP:-}" ]]; then
    printf '%s' "$HBASE_ORM_MASTER_HEAP"
  elif is_cluster; then
    printf '512m'
  else
    printf '1g'
  fi
}

# JVM_OPTS for component $1 with heap $2 (and region server port $3)
jvm_opts() {
  local name=$1 heap=$2 rs_port=${3:-$REGIONSERVER_RPC_PORT} classpath="$CONF_DIR:$LIB_DIR/*"
  case "$name" in
    # their generated core-site.xml (proxy-user rules, keystore passwords), first on the path
    thrift-https | thrift1-https) classpath="$GATEWAY_CONF_DIR:$classpath" ;;
  esac
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
  )
  if is_cluster; then
    # conf/hbase-site.xml: distributed mode, how many region servers the master waits for at
    # startup, the ZooKeeper session timeout (every JVM's, and ZooKeeper's upper limit)
    JVM_OPTS+=(
      -Dhbase.orm.distributed=true
      "-Dhbase.orm.rs.count=$RS_COUNT"
      "-Dhbase.orm.zk.session.ms=$ZK_SESSION_MS"
    )
  fi
}

start_component() {
  local name=$1 heap main args=() extra=${HBASE_ORM_THRIFT_JAVA_OPTS:-}
  case "$name" in
    zookeeper)
      heap=$ZK_HEAP
      main=org.apache.hadoop.hbase.zookeeper.HQuorumPeer
      extra=${HBASE_ORM_ZK_JAVA_OPTS:-}
      ;;
    master)
      heap=$(master_heap)
      main=org.apache.hadoop.hbase.master.HMaster
      args=(start)
      extra=${HBASE_ORM_MASTER_JAVA_OPTS:-}
      ;;
    rs*)
      heap=$RS_HEAP
      main=org.apache.hadoop.hbase.regionserver.HRegionServer
      args=(start)
      extra=${HBASE_ORM_RS_JAVA_OPTS:-}
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
    thrift-http | thrift-https)
      heap=$THRIFT_HEAP
      main=org.apache.hadoop.hbase.thrift2.ThriftServer
      args=(-b 127.0.0.1 -p "$(port_of "$name")" --infoport -1 start)
      ;;
    thrift1-http | thrift1-https)
      heap=$THRIFT_HEAP
      main=org.apache.hadoop.hbase.thrift.ThriftServer
      args=(-b 127.0.0.1 -p "$(port_of "$name")" --infoport -1 start)
      ;;
    *) die "unknown process $name" ;;
  esac
  if is_region_server "$name"; then
    jvm_opts "$name" "$heap" "$(port_of "$name")"
  else
    jvm_opts "$name" "$heap"
  fi
  case "$name" in
    thrift-short)
      # the gateway's scanner cache drops scanners unused this long (conf/hbase-site.xml)
      JVM_OPTS+=("-Dhbase.orm.scanner.timeout.ms=$SHORT_SCANNER_MS")
      ;;
    master | rs*)
      # the region server's scanner lease (the same key, read by the region server)
      JVM_OPTS+=("-Dhbase.orm.scanner.timeout.ms=$REGION_SCANNER_MS")
      ;;
    zookeeper)
      # where the standalone master's embedded ZooKeeper keeps its data: either mode finds it
      JVM_OPTS+=("-Dhbase.orm.zk.data=$DATA_DIR/zookeeper/zookeeper_0")
      ;;
    thrift-http | thrift1-http)
      # hbase.regionserver.thrift.http (conf/hbase-site.xml)
      JVM_OPTS+=(-Dhbase.orm.thrift.http=true)
      ;;
    thrift-https | thrift1-https)
      # HTTP, TLS with $KEYSTORE (hbase.thrift.ssl.*), doAs (hbase.thrift.support.proxyuser)
      ensure_tls
      write_gateway_conf
      JVM_OPTS+=(-Dhbase.orm.thrift.http=true -Dhbase.orm.thrift.ssl=true -Dhbase.orm.thrift.proxyuser=true)
      ;;
  esac
  if [[ -n "$extra" ]]; then
    local extra_words
    read -r -a extra_words <<<"$extra"
    JVM_OPTS+=("${extra_words[@]}")
  fi
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
    exec "${launcher[@]}" nohup "$JAVA" "${JVM_OPTS[@]}" "$main" "${args[@]}" \
      >"$(out_file "$name")" 2>&1 </dev/null
  ) &
  printf '%s\n' "$!" >"$(pid_file "$name")"
}

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

find_java_quiet() {
  (find_java) >/dev/null 2>&1 && find_java >/dev/null 2>&1
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

stop_components() {
  term_components "$@"
  wait_stopped
}

# Everything of the current mode: gateways get TERM first (they are clients of the cluster), the
# master is asked to shut the cluster down while they exit, then whatever still runs gets TERM
# (KILL after $STOP_TIMEOUT s), ZooKeeper last. A cluster whose ZooKeeper is gone cannot shut
# down cleanly (its servers retry ZooKeeper while they stop): TERM, and KILL after 10 s.
stop_all() {
  term_components "${GATEWAYS[@]}"
  local servers=(master) name limit=$STOP_TIMEOUT
  if is_cluster; then
    while IFS= read -r name; do servers+=("$name"); done < <(region_servers)
  fi
  if is_cluster && [[ -z "$(component_pid zookeeper)" ]]; then
    limit=10
  elif [[ -n "$(component_pid master)" ]] && request_cluster_shutdown; then
    wait_exit "${servers[@]}" ||
      warn "still running ${STOP_TIMEOUT}s after the shutdown request: $(for name in "${servers[@]}"; do [[ -z "$(component_pid "$name")" ]] || printf '%s ' "$name"; done)(TERM)"
  fi
  term_components "${servers[@]}"
  wait_stopped "$limit"
  if is_cluster; then
    stop_components zookeeper
  fi
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

# dies if a port of the given components is taken (checked before anything starts)
check_ports_free() {
  local name port
  for name in "$@"; do
    for port in $(ports_of "$name"); do
      port_in_use "$port" &&
        die "port $port on 127.0.0.1 ($name) is already in use (another HBase/ZooKeeper? see 'ss -ltnp'); stop it or choose other ports: HBASE_ORM_ZK_PORT, HBASE_ORM_MASTER_PORT, HBASE_ORM_REGIONSERVER_PORT (cluster: it and the next $((RS_COUNT > 0 ? RS_COUNT - 1 : 0))), HBASE_ORM_THRIFT_PORT, HBASE_ORM_THRIFT_FRAMED_PORT, HBASE_ORM_THRIFT1_PORT, HBASE_ORM_THRIFT_SHORT_PORT, HBASE_ORM_THRIFT_HTTP_PORT, HBASE_ORM_THRIFT_HTTPS_PORT, HBASE_ORM_THRIFT1_HTTP_PORT, HBASE_ORM_THRIFT1_HTTPS_PORT"
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

# ----------------------------------------------------------------------------- commands

cmd_up() {
  local want=standalone want_n="" arg
  while (($#)); do
    arg=$1
    shift
    case "$arg" in
      --cluster)
        want=cluster
        if [[ "${1:-}" =~ ^[0-9]+$ ]]; then
          want_n=$1
          shift
        fi
        ;;
      --cluster=*)
        want=cluster
        want_n=${arg#--cluster=}
        ;;
      *) die "unknown option for up: $arg (usage: hbase.sh up [--cluster [N]])" ;;
    esac
  done
  if [[ -n "$want_n" ]]; then
    if ! [[ "$want_n" =~ ^[0-9]+$ ]] || ((want_n < 1 || want_n > MAX_CLUSTER_SIZE)); then
      die "--cluster takes a number of region servers from 1 to $MAX_CLUSTER_SIZE, got '$want_n'"
    fi
  fi
  have_python || die "python3 not found (needed for the readiness check hbase-local/ping.py): apt-get install python3"
  find_java
  ensure_jars
  mkdir -p "$DATA_DIR" "$LOG_DIR" "$RUN_DIR"
  touch "$DATA_DIR/$DATA_MARKER_NAME"
  lock_run_dir

  # the mode the data dir runs in now, if anything runs: the other mode (or size) is refused
  load_mode
  if [[ "$want" == cluster && -z "$want_n" ]]; then
    if is_cluster; then want_n=$RS_COUNT; else want_n=$DEFAULT_CLUSTER_SIZE; fi
  fi
  local running
  running=$(running_components | tr '\n' ' ')
  if [[ -n "$running" ]]; then
    if [[ "$want" != "$MODE" ]]; then
      die "HBase runs in $MODE mode on $DATA_DIR (${running% }); stop it first (hbase-local/hbase.sh down), or start the $want mode with its own HBASE_ORM_DATA and ports"
    fi
    if [[ "$want" == cluster ]] && ((want_n != RS_COUNT)); then
      die "a cluster of $RS_COUNT region servers runs on $DATA_DIR (${running% }); stop it first (hbase-local/hbase.sh down) to start one of $want_n"
    fi
  fi
  set_mode "$want" "$want_n"
  check_ports_distinct
  save_mode

  if is_cluster; then
    up_cluster
  else
    up_standalone
  fi
}

up_standalone() {
  local name pid
  local running=()
  for name in "${COMPONENTS[@]}"; do
    pid=$(component_pid "$name")
    [[ -n "$pid" ]] && running+=("$name")
  done

  if ((${#running[@]} == ${#COMPONENTS[@]})) && master_initialized && all_gateways_answer 3; then
    say "already up: $(gateways_summary); data in $DATA_DIR"
    say "$(tls_summary)"
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
  check_ports_free "${to_start[@]}"
  # the HTTPS gateways' certificate, before anything starts (a keytool failure stops `up` here)
  ensure_tls

  for name in "${to_start[@]}"; do
    announce_start "$name"
    start_component "$name"
  done
  wait_all_ready "$t0"
}

up_cluster() {
  local name pid
  local running=()
  for name in "${COMPONENTS[@]}"; do
    pid=$(component_pid "$name")
    [[ -n "$pid" ]] && running+=("$name")
  done
  if ((${#running[@]} == ${#COMPONENTS[@]})) && all_servers_ready && all_gateways_answer 3; then
    say "already up: $(mode_summary); $(gateways_summary); data in $DATA_DIR"
    return 0
  fi

  local t0=$SECONDS to_start=()
  if [[ -z "$(component_pid zookeeper)" ]]; then
    # without ZooKeeper, whatever still runs holds sessions of the old one: start afresh
    if ((${#running[@]})); then
      say "ZooKeeper is not running: stopping the rest (${running[*]}) to start everything again"
      stop_all
    fi
    to_start=("${COMPONENTS[@]}")
  else
    for name in "${COMPONENTS[@]}"; do
      [[ -n "$(component_pid "$name")" ]] || to_start+=("$name")
    done
    ((${#to_start[@]} == 0)) || say "already running: ${running[*]}"
  fi
  check_ports_free "${to_start[@]}"

  say "starting HBase $HBASE_VERSION in $(mode_summary), data in $DATA_DIR"
  for name in "${to_start[@]}"; do
    announce_start "$name"
    start_component "$name"
    if [[ "$name" == zookeeper ]]; then
      # the others retry until it answers, but a ZooKeeper that cannot start is better seen first
      wait_ready zookeeper
      say "ZooKeeper answers after $((SECONDS - t0)) s"
    fi
  done
  wait_all_ready "$t0"
}

announce_start() {
  local name=$1
  case "$name" in
    master)
      if is_cluster; then
        say "starting master ($(describe master))"
      else
        say "starting HBase $HBASE_VERSION master (standalone: ZooKeeper 127.0.0.1:$ZK_PORT + master + region server), data in $DATA_DIR"
      fi
      ;;
    zookeeper | rs*) say "starting $name ($(describe "$name"))" ;;
    thrift-framed) say "starting gateway $(describe "$name") (closes sockets idle for ${FRAMED_IDLE_MS} ms)" ;;
    *) say "starting gateway $(describe "$name")" ;;
  esac
}

# cluster: master initialized and every region server registered
all_servers_ready() {
  master_initialized || return 1
  if is_cluster; then
    zk_answers 3 || return 1
    local name
    while IFS= read -r name; do
      rs_registered "$name" || return 1
    done < <(region_servers)
  fi
  return 0
}

# Waits until everything of the mode is ready (master initialized, region servers registered,
# gateways answering); on a process that dies or on the timeout, shows the logs, stops
# everything and dies.
wait_all_ready() {
  local t0=$1 deadline=$((SECONDS + UP_TIMEOUT)) master_ok=0 pending name
  local rs_left=()
  if is_cluster; then
    while IFS= read -r name; do rs_left+=("$name"); done < <(region_servers)
  fi
  say "waiting for HBase to be ready (timeout ${UP_TIMEOUT}s) ..."
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
    if ((master_ok && ${#rs_left[@]} == 0)); then
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
        if is_cluster; then
          say "HBase cluster is up after $((SECONDS - t0)) s: ZooKeeper 127.0.0.1:$ZK_PORT, master 127.0.0.1:$MASTER_RPC_PORT, $RS_COUNT region servers on 127.0.0.1:$REGIONSERVER_RPC_PORT-$((REGIONSERVER_RPC_PORT + RS_COUNT - 1)); $(gateways_summary)"
        else
          say "HBase is up after $((SECONDS - t0)) s: $(gateways_summary)"
          say "$(tls_summary)"
        fi
        return 0
      fi
    else
      pending=("${GATEWAYS[@]}")
    fi
    if ((SECONDS >= deadline)); then
      warn "error: HBase not ready after ${UP_TIMEOUT}s (master initialized: $( ((master_ok)) && echo yes || echo no); region servers not registered: ${rs_left[*]:-none}; gateways not answering: ${pending[*]})"
      tail_logs 60 >&2
      stop_all
      die "startup timed out (logs in $LOG_DIR; raise HBASE_ORM_UP_TIMEOUT if the machine is slow)"
    fi
    sleep 1
  done
}

# waits until component $1 is ready (component_ready), up to $UP_TIMEOUT s; dies if it exits
wait_ready() {
  local name=$1 t0=$SECONDS
  while ! component_ready "$name"; do
    if [[ -z "$(component_pid "$name")" ]]; then
      tail_logs 40 "$name" >&2
      die "$name died while starting (logs in $LOG_DIR)"
    fi
    ((SECONDS - t0 < UP_TIMEOUT)) || die "$name not ready within ${UP_TIMEOUT}s (logs in $LOG_DIR)"
    sleep 0.5
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
  load_mode
  if [[ -d "$RUN_DIR" ]]; then
    lock_run_dir
    if [[ -n "$(running_components)" ]]; then
      stop_all
      say "stopped ($MODE mode)"
    else
      rm -f "$RUN_DIR"/*.pid "$RUN_DIR"/*.ready
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

# one status line: name, state, pid, what it answers, description
status_line() {
  printf '%-13s %-8s %-12s %s (%s)\n' "$1" "$2" "${3:+pid $3}" "$4" "$(describe "$1")"
}

cmd_status() {
  load_mode
  local name pid all=1 answer
  for name in "${COMPONENTS[@]}"; do
    pid=$(component_pid "$name")
    if [[ -z "$pid" ]]; then
      status_line "$name" stopped "" ""
      all=0
      continue
    fi
    case "$name" in
      zookeeper)
        if zk_answers 3; then
          status_line "$name" running "$pid" "answers"
        else
          status_line "$name" running "$pid" "NOT answering"
          all=0
        fi
        ;;
      master)
        answer=$(rpc_answer master 3 || true)
        if master_initialized && [[ -n "$answer" ]]; then
          status_line "$name" running "$pid" "initialized, answers"
        elif master_initialized; then
          status_line "$name" running "$pid" "initialized, NOT answering"
          all=0
        else
          status_line "$name" running "$pid" "NOT initialized yet${answer:+, answers}"
          all=0
        fi
        ;;
      rs*)
        answer=$(rpc_answer "$name" 3 || true)
        if rs_registered "$name" && [[ -n "$answer" ]]; then
          status_line "$name" running "$pid" "registered, answers as $answer"
        elif [[ -n "$answer" ]]; then
          status_line "$name" running "$pid" "NOT registered yet, answers as $answer"
          all=0
        else
          status_line "$name" running "$pid" "NOT answering"
          all=0
        fi
        ;;
      *)
        if have_python && ping_component "$name" 5; then
          status_line "$name" running "$pid" "answers"
        else
          status_line "$name" running "$pid" "NOT answering"
          all=0
        fi
        ;;
    esac
  done
  printf 'mode: %s\n' "$(mode_summary)"
  printf 'data: %s\n' "$DATA_DIR"
  if ! is_cluster; then
    if [[ -s "$CA_PEM" ]]; then
      printf 'tls:  %s (CA certificate of the HTTPS gateways)\n' "$CA_PEM"
    else
      printf 'tls:  %s not made yet (hbase-local/hbase.sh up makes it)\n' "$CA_PEM"
    fi
  fi
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
  load_mode
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

# the names `start`, `stop` and `restart` take in the current mode
single_names() {
  if is_cluster; then
    printf '%s' "${COMPONENTS[*]}"
  else
    printf '%s' "${GATEWAYS[*]}"
  fi
}

# dies unless `$1 NAME` applies to NAME in the current mode
check_single() {
  local cmd=$1 name=$2
  [[ -n "$name" ]] || die "usage: hbase.sh $cmd NAME, NAME one of: $(single_names)"
  if ! is_component "$name"; then
    if ! is_cluster && { [[ "$name" == zookeeper ]] || is_region_server "$name"; }; then
      die "$name exists in cluster mode only; $DATA_DIR is in $MODE mode (hbase-local/hbase.sh up --cluster)"
    fi
    if is_cluster && [[ " ${HTTP_GATEWAYS[*]} " == *" $name "* ]]; then
      die "$name runs in standalone mode only (the cluster starts the TCP gateways: ${TCP_GATEWAYS[*]})"
    fi
    die "no process '$name' in $MODE mode; one of: $(single_names)"
  fi
  if [[ "$cmd" != kill && "$name" == master ]] && ! is_cluster; then
    die "the standalone master is the whole HBase: use hbase-local/hbase.sh down / up (or kill master)"
  fi
  return 0
}

# starts component $1 (not running) and waits until it is ready
start_one() {
  local name=$1 t0=$SECONDS
  if is_cluster; then
    [[ "$name" == zookeeper || -n "$(component_pid zookeeper)" ]] ||
      die "ZooKeeper is not running: hbase-local/hbase.sh start zookeeper (or up --cluster)"
  else
    [[ -n "$(component_pid master)" ]] || die "HBase is not running: hbase-local/hbase.sh up"
  fi
  find_java >/dev/null
  check_ports_free "$name"
  announce_start "$name"
  start_component "$name"
  if is_region_server "$name" && [[ -z "$(component_pid master)" ]]; then
    say "no master is running: waiting for $name to answer; it registers when a master starts"
  fi
  wait_ready "$name"
  case "$name" in
    master) say "master is back and initialized after $((SECONDS - t0)) s" ;;
    rs*)
      if rs_registered "$name"; then
        say "$name is back and registered after $((SECONDS - t0)) s"
      else
        say "$name answers after $((SECONDS - t0)) s (not registered: no master)"
      fi
      ;;
    *) say "$name is back after $((SECONDS - t0)) s" ;;
  esac
}

cmd_start() {
  local name=${1:-}
  load_mode
  check_single start "$name"
  lock_run_dir
  if [[ -n "$(component_pid "$name")" ]]; then
    say "$name is already running (pid $(component_pid "$name"))"
    wait_ready "$name"
    return 0
  fi
  start_one "$name"
}

cmd_restart() {
  local name=${1:-}
  load_mode
  check_single restart "$name"
  lock_run_dir
  if is_cluster; then
    [[ "$name" == zookeeper || -n "$(component_pid zookeeper)" ]] ||
      die "ZooKeeper is not running: hbase-local/hbase.sh up --cluster"
  else
    [[ -n "$(component_pid master)" ]] || die "HBase is not running: hbase-local/hbase.sh up"
  fi
  stop_components "$name"
  start_one "$name"
}

cmd_stop_one() {
  local name=$1
  load_mode
  check_single stop "$name"
  lock_run_dir
  stop_components "$name"
  say "$name stopped; 'hbase-local/hbase.sh start $name' starts it again"
}

cmd_kill() {
  local name=${1:-} pid
  load_mode
  [[ -n "$name" ]] || die "usage: hbase.sh kill NAME, NAME one of: ${COMPONENTS[*]}"
  check_single kill "$name"
  lock_run_dir
  pid=$(component_pid "$name")
  [[ -n "$pid" ]] || die "$name is not running"
  kill -KILL "$pid" 2>/dev/null || true
  local waited=0
  while kill -0 "$pid" 2>/dev/null && ((waited < 50)); do
    sleep 0.1
    waited=$((waited + 1))
  done
  rm -f "$(pid_file "$name")" "$(ready_file "$name")"
  if [[ "$name" == master ]] && ! is_cluster; then
    say "killed the standalone HBase (pid $pid) with SIGKILL; 'hbase-local/hbase.sh up' starts it again"
  else
    say "killed $name (pid $pid) with SIGKILL; 'hbase-local/hbase.sh start $name' starts it again"
  fi
}

# HBase's HFilePrettyPrinter over each file (a path, or a URL such as file:///...): the reader the
# region servers open files with, so a file it cannot read would not load either. (Outside a
# region server it leaves the blocks' HBase checksums unchecked: a bulk load checks them.)
cmd_hfile() {
  (($# > 0)) || die "usage: hbase.sh hfile FILE..."
  find_java
  ensure_jars
  local file status=0
  for file in "$@"; do
    [[ "$file" == *:* ]] || file="file://$(readlink -f -- "$file")"
    "$JAVA" "${JDK_FLAGS[@]}" -Xmx512m -Dlog4j2.level=ERROR -cp "$LIB_DIR/*" \
      org.apache.hadoop.hbase.io.hfile.HFilePrettyPrinter -v -m -k -f "$file" || status=$?
  done
  return "$status"
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
      # `stop` alone (or with --purge) is `down`
      if [[ $# -eq 0 || "${1:-}" == --* ]]; then cmd_down "$@"; else cmd_stop_one "$@"; fi
      ;;
    start) cmd_start "$@" ;;
    kill) cmd_kill "$@" ;;
    status) cmd_status "$@" ;;
    logs) cmd_logs "$@" ;;
    restart) cmd_restart "$@" ;;
    hfile) cmd_hfile "$@" ;;
    -h | --help | help) usage ;;
    "") usage >&2; exit 2 ;;
    *) warn "unknown command: $cmd"; usage >&2; exit 2 ;;
  esac
}

main "$@"
