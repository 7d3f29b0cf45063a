# shellcheck shell=bash
# The cluster with HDFS (`hbase-local/hbase.sh up --cluster [N] --hdfs [M]`): cluster mode
# (cluster.sh) whose root directory, WALs and bulk-load staging directory are in an HDFS on this
# machine, a NameNode and M DataNodes started from Hadoop's own jars (those HBase's POM pins,
# already in the lib dir), each a JVM like HBase's. Their settings are conf/hdfs/core-site.xml and
# conf/hdfs/hdfs-site.xml, first on the classpath of every JVM of this mode. Adds to cluster.sh:
# calls into cluster.sh and common.sh.

NAMENODE_PORT=${HBASE_ORM_NAMENODE_PORT:-8020}
NAMENODE_HTTP_PORT=${HBASE_ORM_NAMENODE_HTTP_PORT:-9870}
DATANODE_PORT=${HBASE_ORM_DATANODE_PORT:-9866}
NAMENODE_HEAP=${HBASE_ORM_NAMENODE_HEAP:-512m}
DATANODE_HEAP=${HBASE_ORM_DATANODE_HEAP:-256m}
DEFAULT_DATANODES=3
MAX_DATANODES=20
HDFS_CONF_DIR=$CONF_DIR/hdfs
HDFS_DIR=$DATA_DIR/hdfs
# written by the NameNode's format: the data dir has an HDFS
HDFS_FORMATTED=$HDFS_DIR/namenode/current/VERSION
# a DataNode's log says so once the NameNode accepted it (BPServiceActor, at INFO)
DN_READY_LINE="successfully registered with NN"

for v in NAMENODE_PORT NAMENODE_HTTP_PORT DATANODE_PORT; do
  [[ "${!v}" =~ ^[0-9]+$ ]] || die "$v must be a number, got '${!v}'"
done

# the DataNodes of the mode (datanode1 .. datanodeM)
DATANODES=()

is_datanode() { [[ "$1" =~ ^datanode[1-9][0-9]*$ ]]; }

hdfs_url() { printf 'hdfs://127.0.0.1:%s' "$NAMENODE_PORT"; }

# the processes of a cluster of $1 region servers on HDFS with $2 DataNodes (see common.sh, "the
# mode's processes"): HDFS first, then the cluster's own
hdfs_define() {
  local n=$1 m=$2 k port
  add_component namenode "$NAMENODE_PORT" \
    "NameNode $(hdfs_url), HTTP 127.0.0.1:$NAMENODE_HTTP_PORT" "$NAMENODE_PORT $NAMENODE_HTTP_PORT"
  DATANODES=()
  for ((k = 1; k <= m; k++)); do
    port=$((DATANODE_PORT + k - 1))
    add_component "datanode$k" "$port" "DataNode 127.0.0.1:$port"
    DATANODES+=("datanode$k")
  done
  cluster_define "$n"
  HBASE_NEEDS+=(namenode)
  STOPPED_AFTER_HBASE=("${DATANODES[*]}" namenode)
  MODE_CLASSPATH=("$HDFS_CONF_DIR")
  # conf/hbase-site.xml: the root dir (and so the WALs and the staging dir) in HDFS, HBase's
  # default WAL provider, the check that WAL streams can hflush/hsync on; conf/hdfs: HDFS's
  # ports, and as many replicas as there are DataNodes, 3 at most
  MODE_JVM_OPTS+=(
    "-Dhbase.orm.rootdir=$(hdfs_url)/hbase"
    -Dhbase.orm.wal.provider=asyncfs
    -Dhbase.orm.stream.capability.enforce=true
    # archived store files and old WALs go within seconds: HDFS keeps each block three times
    -Dhbase.orm.cleaner.interval.ms=10000
    -Dhbase.orm.hfilecleaner.ttl.ms=10000
    -Dhbase.orm.logcleaner.ttl.ms=10000
    "-Dhbase.orm.namenode.port=$NAMENODE_PORT"
    "-Dhbase.orm.namenode.http.port=$NAMENODE_HTTP_PORT"
    "-Dhbase.orm.dfs.replication=$((m < 3 ? m : 3))"
  )
  MODE_SUMMARY="cluster (ZooKeeper, master, $n region servers; HDFS: NameNode, $m DataNodes)"
}

# the Hadoop version of the jars (from hadoop-hdfs-<version>.jar)
hadoop_version() {
  local jar
  for jar in "$LIB_DIR"/hadoop-hdfs-[0-9]*.jar; do
    jar=${jar##*/hadoop-hdfs-}
    printf '%s' "${jar%.jar}"
    return 0
  done
}

# The NameNode's view, from its JMX over HTTP (NameNodeInfo), within $1 s: prints its safe mode
# ("off", or the NameNode's message) on the first line, then the data transfer address of each
# DataNode it counts as live, one a line. False if it does not answer.
namenode_info() {
  python3 - "$NAMENODE_HTTP_PORT" "${1:-3}" 2>/dev/null <<'PY'
import json, sys, urllib.request

url = "http://127.0.0.1:%s/jmx?qry=Hadoop:service=NameNode,name=NameNodeInfo" % sys.argv[1]
try:
    with urllib.request.urlopen(url, timeout=float(sys.argv[2])) as reply:
        bean = json.load(reply)["beans"][0]
    live = json.loads(bean["LiveNodes"])
except Exception:
    sys.exit(1)
print(" ".join((bean.get("Safemode") or "off").split()))
for node in live.values():
    print(node["xferaddr"])
PY
}

# true if the NameNode answers and is out of safe mode
namenode_ready() {
  local info
  info=$(namenode_info 3) || return 1
  [[ "${info%%$'\n'*}" == off ]]
}

# true if DataNode $1 registered with the NameNode since it started
datanode_registered() { logged_since_start "$1" "$DN_READY_LINE"; }

# true if the NameNode is out of safe mode and every DataNode registered
hdfs_all_ready() {
  namenode_ready || return 1
  local name
  for name in "${DATANODES[@]}"; do
    datanode_registered "$name" || return 1
  done
}

# Formats the NameNode's metadata dir (the first start of a data dir), in the foreground.
hdfs_format() {
  say "formatting HDFS (first start of this data dir): NameNode metadata in $HDFS_DIR/namenode"
  mkdir -p "$HDFS_DIR"
  jvm_opts namenode-format "$NAMENODE_HEAP"
  rm -f "$(log_file namenode-format)"
  if ! (cd "$DATA_DIR" && exec 9>&- && exec "$JAVA" "${JVM_OPTS[@]}" \
    org.apache.hadoop.hdfs.server.namenode.NameNode -format -nonInteractive -clusterid hbase-orm-local \
    >"$(out_file namenode-format)" 2>&1 </dev/null) || [[ ! -f "$HDFS_FORMATTED" ]]; then
    tail_logs 40 namenode-format >&2
    die "formatting HDFS failed (logs in $LOG_DIR)"
  fi
}

# Makes /tmp in HDFS, world-writable with the sticky bit as in any Hadoop installation, once
# per data dir (after the format; HDFS out of safe mode), with Hadoop's FsShell.
hdfs_make_tmp() {
  local marker=$HDFS_DIR/.tmp-made command
  [[ -f "$marker" ]] && return 0
  jvm_opts hdfs-shell 256m
  for command in "-mkdir -p /tmp" "-chmod 1777 /tmp"; do
    # shellcheck disable=SC2086 # the command's words
    if ! (cd "$DATA_DIR" && exec 9>&- && exec timeout 120 "$JAVA" "${JVM_OPTS[@]}" \
      org.apache.hadoop.fs.FsShell $command >"$(out_file hdfs-shell)" 2>&1 </dev/null); then
      tail_logs 40 hdfs-shell >&2
      die "hdfs dfs $command failed (logs in $LOG_DIR)"
    fi
  done
  touch "$marker"
  say "made /tmp in HDFS (mode 1777)"
}

# says so and starts process $1 (not running)
hdfs_start() {
  local name=$1
  case "$name" in
    namenode)
      [[ -f "$HDFS_FORMATTED" ]] || hdfs_format
      say "starting namenode ($(describe namenode))"
      jvm_opts namenode "$NAMENODE_HEAP"
      add_extra_opts "${HBASE_ORM_NAMENODE_JAVA_OPTS:-}"
      spawn_jvm namenode org.apache.hadoop.hdfs.server.namenode.NameNode
      ;;
    datanode*)
      say "starting $name ($(describe "$name"))"
      jvm_opts "$name" "$DATANODE_HEAP"
      # its port and storage (conf/hdfs/hdfs-site.xml); the storage is made by the DataNode
      # itself (mode 700, as it checks)
      JVM_OPTS+=("-Dhbase.orm.datanode.port=$(port_of "$name")" "-Dhbase.orm.datanode.dir=$HDFS_DIR/$name")
      add_extra_opts "${HBASE_ORM_DATANODE_JAVA_OPTS:-}"
      spawn_jvm "$name" org.apache.hadoop.hdfs.server.datanode.DataNode
      ;;
    *) cluster_start "$name" ;;
  esac
}

# Is process $1 ready? NameNode: answers, out of safe mode; DataNode: registered with the
# NameNode; the others: as in the cluster without HDFS.
hdfs_ready() {
  case "$1" in
    namenode) namenode_ready ;;
    datanode*) datanode_registered "$1" ;;
    *) cluster_ready "$1" ;;
  esac
}

# status line of running process $1 (pid $2); false unless it is ready
hdfs_status() {
  local name=$1 pid=$2 info safemode live
  case "$name" in
    namenode)
      if ! info=$(namenode_info 3); then
        status_line "$name" running "$pid" "NOT answering"
        return 1
      fi
      safemode=${info%%$'\n'*}
      live=$(($(printf '%s\n' "$info" | wc -l) - 1))
      if [[ "$safemode" == off ]]; then
        status_line "$name" running "$pid" "answers, out of safe mode, $live DataNodes live"
      else
        status_line "$name" running "$pid" "answers, IN SAFE MODE ($safemode), $live DataNodes live"
        return 1
      fi
      ;;
    datanode*)
      info=$(namenode_info 3 || true)
      if datanode_registered "$name" && [[ $'\n'"$info"$'\n' == *$'\n'"127.0.0.1:$(port_of "$name")"$'\n'* ]]; then
        status_line "$name" running "$pid" "registered, live"
      elif datanode_registered "$name"; then
        status_line "$name" running "$pid" "registered, NOT live (NameNode down?)"
        return 1
      else
        status_line "$name" running "$pid" "NOT registered with the NameNode"
        return 1
      fi
      ;;
    *) cluster_status "$name" "$pid" ;;
  esac
}

# Waits until HDFS is ready (hdfs_all_ready); on a process that dies or on the timeout, shows
# the logs, stops everything and dies.
wait_hdfs_ready() {
  local t0=$1 deadline=$((SECONDS + UP_TIMEOUT))
  say "waiting for HDFS: out of safe mode, $DN_COUNT DataNodes registered (timeout ${UP_TIMEOUT}s) ..."
  while ! hdfs_all_ready; do
    die_if_dead namenode "${DATANODES[@]}"
    if ((SECONDS >= deadline)); then
      warn "error: HDFS not ready after ${UP_TIMEOUT}s (NameNode: $(namenode_info 3 | head -n1 || echo 'not answering'))"
      tail_logs 60 namenode "${DATANODES[@]}" >&2
      stop_all
      die "startup timed out (logs in $LOG_DIR; raise HBASE_ORM_UP_TIMEOUT if the machine is slow)"
    fi
    sleep 0.5
  done
}

# `up --cluster --hdfs` (the mode is set and saved, the lock held): starts whichever HDFS
# processes are not running and waits for HDFS, then the cluster (cluster_up).
hdfs_up() {
  local t0=$SECONDS name to_start=() hbase_running=()
  for name in namenode "${DATANODES[@]}"; do
    [[ -n "$(component_pid "$name")" ]] || to_start+=("$name")
  done
  if ((${#to_start[@]} == 0)) && hdfs_all_ready; then
    hdfs_make_tmp
    cluster_up "$t0"
    return 0
  fi
  if [[ -z "$(component_pid namenode)" ]]; then
    # HBase's servers lost their storage with the NameNode: start them again on the new one
    for name in "${CLUSTER_COMPONENTS[@]}"; do
      [[ -z "$(component_pid "$name")" ]] || hbase_running+=("$name")
    done
    if ((${#hbase_running[@]})); then
      say "the NameNode is not running: stopping HBase (${hbase_running[*]}) to start it again on HDFS"
      stop_hbase
    fi
  fi
  check_ports_free "${to_start[@]}"
  say "starting HDFS (Hadoop $(hadoop_version)) for HBase $HBASE_VERSION, data in $HDFS_DIR"
  for name in "${to_start[@]}"; do
    hdfs_start "$name"
  done
  wait_hdfs_ready "$t0"
  say "HDFS is up after $((SECONDS - t0)) s: NameNode $(hdfs_url) (HBase root $(hdfs_url)/hbase), $DN_COUNT DataNodes on 127.0.0.1:$DATANODE_PORT-$((DATANODE_PORT + DN_COUNT - 1))"
  hdfs_make_tmp
  cluster_up "$t0"
}
