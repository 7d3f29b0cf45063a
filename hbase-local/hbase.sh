#!/usr/bin/env bash
# Local HBase 2.6.1 (or another line: HBASE_ORM_HBASE_VERSION, below) + Thrift gateways, from
# Maven jars (no HBase install needed): a standalone HBase (the default) with eight gateways
# (four over plain TCP, four over HTTP or HTTPS), or a distributed cluster on this machine with
# the four TCP ones, its root directory on the local file system or in an HDFS of its own (a
# NameNode and DataNodes from Hadoop's Maven jars).
#
#   hbase-local/hbase.sh up            start standalone HBase (idempotent) and wait until ready
#   hbase-local/hbase.sh up --cluster [N]
#                                      start a distributed cluster instead: ZooKeeper, a master
#                                      and N region servers (default 3, or the N the data dir's
#                                      cluster had), each its own JVM, plus the four TCP
#                                      gateways; waits until ready. Idempotent: starts whichever
#                                      of its processes are not running (after `kill rs2`, say)
#   hbase-local/hbase.sh up --cluster [N] --hdfs [M]
#                                      the same cluster on HDFS, as production runs it: first a
#                                      NameNode and M DataNodes (default 3, or the M the data
#                                      dir's HDFS had), each its own JVM; waits until HDFS is out
#                                      of safe mode with every DataNode registered, then starts
#                                      the cluster with its root dir, WALs and bulk-load staging
#                                      dir in HDFS. Idempotent too. Needs a data dir of its own
#   hbase-local/hbase.sh down [--purge] stop everything (and with --purge delete the data dir)
#   hbase-local/hbase.sh status        each process: pid, port, whether it answers; exit 0 iff all up
#   hbase-local/hbase.sh restart NAME  stop one process and start it again (or start it if it was
#                                      stopped); returns once it answers (for fault tests)
#   hbase-local/hbase.sh stop NAME     stop one process gracefully (SIGTERM) and leave it stopped
#   hbase-local/hbase.sh start NAME    start one stopped process; returns once it is ready
#   hbase-local/hbase.sh kill NAME     kill -9 one process (a crash) and leave it dead
#   hbase-local/hbase.sh logs [-f] [-n LINES]  tail of every process's log (-f follows)
#   hbase-local/hbase.sh logs --errors [-n LINES]  each process's last LINES lines that say it
#                                      failed or is going down (ERROR, FATAL, ABORTING, a session
#                                      expired, out of memory, a thread's uncaught exception)
#   hbase-local/hbase.sh hfile FILE... HBase's own HFile reader (HFilePrettyPrinter -v -m -k) over
#                                      each file: its trailer, file info, bloom and every cell
#                                      read; exits non-zero if one cannot be read. Needs no
#                                      running HBase, only the jars (fetched on first use)
#
# NAME is a gateway: thrift, thrift-framed, thrift1, thrift-short in either mode; thrift-http,
# thrift-https, thrift1-http, thrift1-https in standalone mode; in cluster mode also zookeeper,
# master or rs1 .. rsN; with HDFS also namenode and datanode1 .. datanodeM. Standalone mode:
# `kill master` kills the whole HBase; the master is otherwise started and stopped with up/down
# only.
#
# Modes. The data dir remembers the mode it was last started in ($DATA/mode: "standalone",
# "cluster N" or "cluster N hdfs M"; none = standalone), and status/down/stop/start/kill/logs
# act on that mode. `up` (or `up --cluster`, `up --cluster --hdfs`) refuses while the data dir
# runs in another mode (or a cluster of another size, an HDFS of another size): `down` first.
# Standalone and cluster mode keep HBase and ZooKeeper data in the same places, so a stopped
# data dir can be started in either. The cluster with HDFS keeps HBase's files in HDFS
# ($DATA/hdfs): `up` refuses to start it on a data dir that holds HBase on the local file
# system ($DATA/hbase), and refuses the other modes on a data dir with an HDFS, stopped or not
# (`down --purge` deletes it). To run two at once, give the second its own HBASE_ORM_DATA and
# ports (a port already in use makes `up` refuse too).
#
# HBase lines. HBASE_ORM_HBASE_VERSION picks the line (default 2.6.1); each takes from Maven
# Central what its own POM pins, into a jar folder of its own ($HBASE_ORM_CACHE/hbase-LINE/lib):
#   2.6.1          hbase 2.6.1-hadoop3, Hadoop 3.3.5, gateways from hbase-thrift 2.6.1
#   2.5.10         hbase 2.5.10-hadoop3, Hadoop 3.2.4, gateways from hbase-thrift 2.5.8 (no
#                  2.5.10 is published)
#   2.4.18         hbase 2.4.18 (Hadoop 2 only), Hadoop 2.10.0, gateways from hbase-thrift 2.4.17
#   3.0.0-alpha-4  hbase 3.0.0-alpha-4, Hadoop 3.2.4, NO gateways (no hbase-thrift 3.x is
#                  published): ZooKeeper, master and region server only, for the native backend
#                  (hbase://); ready once the master is initialized and hbase:meta is served
#                  (asked over HBase's RPC: 3.x has no hbase:namespace table)
# Standalone and cluster mode (on the local file system) run every line; the cluster with HDFS
# and the secured HBase (secure/secure.sh) run 2.6.1 only and refuse another line. A data dir
# remembers its line ($DATA/hbase-version; one with HBase's data but no such file is 2.6.1's):
# `up` refuses a data dir of another line, the other commands act on the data dir's line. To
# try a line beside a running HBase, give it its own HBASE_ORM_DATA and ports.
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
# With HDFS, before those (Hadoop's own classes, from the same jars: Hadoop 3.3.5, the version
# HBase 2.6.1's POM pins; settings in conf/hdfs/, first on every JVM's classpath in this mode):
#   namenode      org.apache.hadoop.hdfs.server.namenode.NameNode, RPC
#                 127.0.0.1:$HBASE_ORM_NAMENODE_PORT (8020): fs.defaultFS and the HBase root
#                 hdfs://127.0.0.1:8020/hbase; HTTP (its JMX, which hbase.sh reads)
#                 127.0.0.1:$HBASE_ORM_NAMENODE_HTTP_PORT (9870). Formatted on the first start
#                 of a data dir (NameNode -format -nonInteractive, metadata in $DATA/hdfs/namenode),
#                 which also makes a world-writable /tmp (mode 1777)
#   datanode1 .. datanodeM
#                 org.apache.hadoop.hdfs.server.datanode.DataNode; datanodeK's data transfer port
#                 127.0.0.1:$((HBASE_ORM_DATANODE_PORT + K - 1)) (9866, 9867, ...), its IPC and
#                 HTTP ports any free ones on 127.0.0.1; blocks in $DATA/hdfs/datanodeK.
#                 Replication min(3, M)
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
# No other port is opened: web UIs are off (info ports -1), so is ZooKeeper's admin server. (HDFS
# cannot switch its HTTP servers off: the NameNode's is on its port above, each DataNode's on a
# free port; all on 127.0.0.1, and without the UI pages, which Hadoop's Maven jars lack.)
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
# master is back. With HDFS, before HBase starts: the NameNode's JMX says safe mode is off, and
# each DataNode's log says it registered with the NameNode ("successfully registered with NN").
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
#     stops whatever is left, ZooKeeper last (with HDFS: then the DataNodes, the NameNode last).
# Cluster with HDFS facts (same machine):
#   - `up --cluster 3 --hdfs` from nothing takes ~33 s (HDFS formatted and ready in ~9 s, /tmp
#     made, then HBase); again on a stopped data dir ~27 s. 13 JVMs idle in ~2.1 GB resident.
#   - Every block is stored three times on this one disk: the master looks for archived store
#     files (dropped tables', compacted ones) and old WALs every 10 s and deletes them 10 s old
#     (HBase's defaults: every 10 minutes, 5 and 10 minutes old), else a benchmark of
#     1,000,000-row tables fills 20 GB in 3 minutes.
#   - Root hdfs://127.0.0.1:8020/hbase; WALs under it (<root>/WALs, HBase's default asyncfs
#     provider, hbase.unsafe.stream.capability.enforce on: HDFS can hflush/hsync); bulk loads
#     stage in <root>/staging (HBase 2.6 keeps the staging dir under the root; its old key
#     hbase.bulkload.staging.dir is ignored).
#   - dfs.permissions.enabled is on: the user who runs hbase.sh (root in CI) started the
#     NameNode and so is HDFS's superuser, and every process here runs as that user.
#   - A write pipeline that loses a DataNode goes on with the others (replace-datanode-on-failure
#     best effort): on 3 DataNodes there is no spare one to replace it with.
#   - `kill namenode`: the region servers abort once their WALs fail; `up --cluster --hdfs`
#     stops what is left of HBase and starts everything again (the master's recovery then takes
#     ~1 minute: the dead servers' WAL leases). `stop namenode` / `start namenode` while HBase
#     idles: HBase carries on.
# Environment:
#   HBASE_ORM_HBASE_VERSION      the HBase line: 2.6.1 (default), 2.5.10, 2.4.18, 3.0.0-alpha-4
#   HBASE_ORM_DATA               data, logs, pid files     (default <repo>/.hbase-local)
#   HBASE_ORM_CACHE              resolved jars, a folder per line (default ~/.cache/hbase-orm)
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
#   HBASE_ORM_NAMENODE_PORT      HDFS: NameNode RPC port   (default 8020)
#   HBASE_ORM_NAMENODE_HTTP_PORT HDFS: NameNode HTTP port  (default 9870)
#   HBASE_ORM_DATANODE_PORT      HDFS: datanode1's data transfer port (default 9866; datanodeK
#                                uses this + K - 1)
#   HBASE_ORM_UP_TIMEOUT         seconds `up` (and start/restart) waits (default 180)
#   HBASE_ORM_MASTER_HEAP        master -Xmx               (default 2g standalone: its region
#                                server holds every table; 1g died of OutOfMemoryError under four
#                                200,000-row put benchmarks one after another. Cluster: 512m)
#   HBASE_ORM_RS_HEAP            cluster: -Xmx of each region server (default 768m)
#   HBASE_ORM_ZK_HEAP            cluster: ZooKeeper's -Xmx (default 128m)
#   HBASE_ORM_NAMENODE_HEAP      HDFS: the NameNode's -Xmx (default 512m)
#   HBASE_ORM_DATANODE_HEAP      HDFS: each DataNode's -Xmx (default 256m)
#   HBASE_ORM_THRIFT_HEAP        -Xmx of each gateway      (default 512m)
#   HBASE_ORM_MASTER_JAVA_OPTS   extra JVM options for the master (word-split)
#   HBASE_ORM_RS_JAVA_OPTS       extra JVM options for each region server (word-split)
#   HBASE_ORM_ZK_JAVA_OPTS       extra JVM options for ZooKeeper (word-split)
#   HBASE_ORM_NAMENODE_JAVA_OPTS extra JVM options for the NameNode (word-split)
#   HBASE_ORM_DATANODE_JAVA_OPTS extra JVM options for each DataNode (word-split)
#   HBASE_ORM_THRIFT_JAVA_OPTS   extra JVM options for each gateway (word-split)
#   HBASE_ORM_JIT                quick (default): every JVM compiles with C1 only
#                                (-XX:TieredStopAtLevel=1): standalone `up` in ~14 s instead of
#                                ~22 s, and the test suite on a fresh HBase ~15% faster on
#                                2 cores (no C2 compiling beside the work; a warm JVM was as
#                                fast either way). full: the JVM's default tiered compilation,
#                                for benchmarks (a long run reaches C2's faster code).
#   JAVA_HOME                    JDK/JRE to use (else `java` on PATH)
set -euo pipefail

# This file is the entry point: the usage above, each command's options, and the dispatch. The
# work is done in launcher/, one concern a file, each sourced here in this order and calling
# only into the files sourced before it (the two mode files not into each other):
#   common.sh      settings, paths, jars, JVM options and starting a JVM, pid and log files,
#                  ports, readiness checks, waiting, stopping, the lock, the TCP gateways
#   standalone.sh  standalone mode: the one HMaster JVM, the HTTP(S) gateways, TLS material
#   cluster.sh     cluster mode: ZooKeeper, master and region servers, each a JVM
#   hdfs.sh        the cluster on HDFS: a NameNode and DataNodes under cluster.sh's processes
#   commands.sh    the commands, on the mode the data dir runs in ($DATA/mode)
LAUNCHER_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)/launcher
# shellcheck source=SCRIPTDIR/launcher/common.sh
source "$LAUNCHER_DIR/common.sh"
# shellcheck source=SCRIPTDIR/launcher/standalone.sh
source "$LAUNCHER_DIR/standalone.sh"
# shellcheck source=SCRIPTDIR/launcher/cluster.sh
source "$LAUNCHER_DIR/cluster.sh"
# shellcheck source=SCRIPTDIR/launcher/hdfs.sh
source "$LAUNCHER_DIR/hdfs.sh"
# shellcheck source=SCRIPTDIR/launcher/commands.sh
source "$LAUNCHER_DIR/commands.sh"

usage() {
  # the comment block at the top of this file
  awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "${BASH_SOURCE[0]}"
}

# up [--cluster [N] [--hdfs [M]]]
parse_up() {
  local want=standalone want_n="" hdfs=0 want_m="" arg
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
      --hdfs)
        hdfs=1
        if [[ "${1:-}" =~ ^[0-9]+$ ]]; then
          want_m=$1
          shift
        fi
        ;;
      --hdfs=*)
        hdfs=1
        want_m=${arg#--hdfs=}
        ;;
      *) die "unknown option for up: $arg (usage: hbase.sh up [--cluster [N] [--hdfs [M]]])" ;;
    esac
  done
  if [[ -n "$want_n" ]]; then
    if ! [[ "$want_n" =~ ^[0-9]+$ ]] || ((want_n < 1 || want_n > MAX_CLUSTER_SIZE)); then
      die "--cluster takes a number of region servers from 1 to $MAX_CLUSTER_SIZE, got '$want_n'"
    fi
  fi
  if ((hdfs)); then
    [[ "$want" == cluster ]] ||
      die "--hdfs goes with --cluster: HDFS runs under the cluster (hbase.sh up --cluster [N] --hdfs [M])"
    if [[ -n "$want_m" ]] && { ! [[ "$want_m" =~ ^[0-9]+$ ]] || ((want_m < 1 || want_m > MAX_DATANODES)); }; then
      die "--hdfs takes a number of DataNodes from 1 to $MAX_DATANODES, got '$want_m'"
    fi
  fi
  cmd_up "$want" "$want_n" "$hdfs" "$want_m"
}

# down [--purge]
parse_down() {
  local purge=0 arg
  for arg in "$@"; do
    case "$arg" in
      --purge) purge=1 ;;
      *) die "unknown option for down: $arg (usage: hbase.sh down [--purge])" ;;
    esac
  done
  cmd_down "$purge"
}

# logs [-f] [-n LINES] | logs --errors [-n LINES]
parse_logs() {
  local follow=0 lines=50 errors=0 arg
  while (($#)); do
    arg=$1
    shift
    case "$arg" in
      -f | --follow) follow=1 ;;
      --errors) errors=1 ;;
      -n) lines=${1:?-n needs a number}; shift ;;
      *) die "unknown option for logs: $arg (usage: hbase.sh logs [-f] [-n LINES] | logs --errors [-n LINES])" ;;
    esac
  done
  ((follow && errors)) && die "logs: --errors does not follow (usage: hbase.sh logs --errors [-n LINES])"
  if ((errors)); then
    cmd_log_errors "$lines"
  else
    cmd_logs "$follow" "$lines"
  fi
}

main() {
  local cmd=${1:-}
  shift || true
  case "$cmd" in
    up) parse_up "$@" ;;
    down) parse_down "$@" ;;
    stop)
      # `stop` alone (or with --purge) is `down`
      if [[ $# -eq 0 || "${1:-}" == --* ]]; then parse_down "$@"; else cmd_stop_one "$@"; fi
      ;;
    start) cmd_start "$@" ;;
    kill) cmd_kill "$@" ;;
    status) cmd_status "$@" ;;
    logs) parse_logs "$@" ;;
    restart) cmd_restart "$@" ;;
    hfile) cmd_hfile "$@" ;;
    -h | --help | help) usage ;;
    "") usage >&2; exit 2 ;;
    *) warn "unknown command: $cmd"; usage >&2; exit 2 ;;
  esac
}

main "$@"
