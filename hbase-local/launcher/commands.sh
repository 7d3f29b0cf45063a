# shellcheck shell=bash
# The commands of hbase-local/hbase.sh (which parses their options), each acting on the mode the
# data dir runs in: the mode remembered in $DATA/mode, and the calls that go to that mode's file
# (standalone.sh, cluster.sh, or hdfs.sh for the cluster with HDFS). Sourced after them.

# ----------------------------------------------------------------------------- modes

# set_mode standalone | set_mode cluster N [M]: the processes of the mode (common.sh, "the
# mode's processes"), defined by its file; M > 0: the cluster on HDFS with M DataNodes
set_mode() {
  MODE=$1
  RS_COUNT=${2:-0}
  DN_COUNT=${3:-0}
  clear_components
  if [[ "$MODE" == cluster ]] && ((DN_COUNT > 0)); then
    hdfs_define "$RS_COUNT" "$DN_COUNT"
  elif [[ "$MODE" == cluster ]]; then
    cluster_define "$RS_COUNT"
  else
    DN_COUNT=0
    standalone_define
  fi
}

# the mode the data dir was last started in (no file: standalone, as before cluster mode existed):
# "standalone", "cluster N" or "cluster N hdfs M"
load_mode() {
  local m="" n="" h="" k=""
  follow_data_dir_line
  if [[ -f "$MODE_FILE" ]]; then
    read -r m n h k <"$MODE_FILE" 2>/dev/null || true
  fi
  if [[ "$m" == cluster && "$n" =~ ^[0-9]+$ ]] && ((n >= 1)); then
    if [[ "$h" == hdfs && "$k" =~ ^[0-9]+$ ]] && ((k >= 1)); then
      set_mode cluster "$n" "$k"
    else
      set_mode cluster "$n"
    fi
  else
    set_mode standalone
  fi
}

save_mode() {
  if is_hdfs; then
    printf 'cluster %s hdfs %s\n' "$RS_COUNT" "$DN_COUNT" >"$MODE_FILE"
  elif is_cluster; then
    printf 'cluster %s\n' "$RS_COUNT" >"$MODE_FILE"
  else
    printf 'standalone\n' >"$MODE_FILE"
  fi
}

is_cluster() { [[ "$MODE" == cluster ]]; }

# the cluster on HDFS
is_hdfs() { is_cluster && ((DN_COUNT > 0)); }

# the mode's name in messages: standalone, cluster, or cluster with HDFS
mode_name() {
  if is_hdfs; then printf 'cluster+HDFS'; else printf '%s' "$MODE"; fi
}

# says so and starts process $1 of the mode (not running)
mode_start() {
  if is_hdfs; then
    hdfs_start "$1"
  elif is_cluster; then
    cluster_start "$1"
  else
    standalone_start "$1"
  fi
}

# true if process $1 of the mode is ready
mode_ready() {
  if is_hdfs; then
    hdfs_ready "$1"
  elif is_cluster; then
    cluster_ready "$1"
  else
    standalone_ready "$1"
  fi
}

# status line of running process $1 (pid $2); false unless it is ready
mode_status() {
  if is_hdfs; then
    hdfs_status "$1" "$2"
  elif is_cluster; then
    cluster_status "$1" "$2"
  else
    standalone_status "$1" "$2"
  fi
}

# true if starting HBase process $1 of the cluster needs its ZooKeeper (all but ZooKeeper and
# HDFS's)
needs_zookeeper() {
  [[ "$1" != zookeeper && "$1" != namenode ]] && ! is_datanode "$1"
}

# ----------------------------------------------------------------------------- HBase lines

# The HBase line the data dir was made with: its $DATA/hbase-version, else the default if it
# holds HBase's data (made before the line could be chosen), else nothing (a new data dir).
data_dir_line() {
  local line=""
  if [[ -s "$LINE_FILE" ]]; then
    read -r line <"$LINE_FILE" || true
  elif [[ -d "$DATA_DIR/hbase" || -d "$DATA_DIR/hdfs" ]]; then
    line=$DEFAULT_HBASE_VERSION
  fi
  printf '%s' "$line"
}

# The commands other than `up` act on the line the data dir was made with (its processes, the
# jars a stop request runs from), whatever HBASE_ORM_HBASE_VERSION says.
follow_data_dir_line() {
  local line
  line=$(data_dir_line)
  [[ -n "$line" && "$line" != "$HBASE_VERSION" ]] || return 0
  if [[ -n "${HBASE_ORM_HBASE_VERSION:-}" ]]; then
    warn "$DATA_DIR holds HBase $line (not $HBASE_VERSION, HBASE_ORM_HBASE_VERSION): acting on $line"
  fi
  set_hbase_line "$line"
}

# `up`: the line asked for must be the data dir's (HBase does not take another line's data
# over, least of all an older one's); a new data dir records it. Modes other than standalone
# and the cluster on the local file system run the default line only.
check_line_for_up() {
  local want_hdfs=$1 line
  if ((want_hdfs)) && [[ "$HBASE_VERSION" != "$DEFAULT_HBASE_VERSION" ]]; then
    die "the cluster with HDFS runs HBase $DEFAULT_HBASE_VERSION only (Hadoop $HADOOP_VERSION's NameNode and DataNodes are not set up here), not HBASE_ORM_HBASE_VERSION=$HBASE_VERSION: unset it, or run standalone or up --cluster on the local file system"
  fi
  line=$(data_dir_line)
  if [[ -n "$line" && "$line" != "$HBASE_VERSION" ]]; then
    die "$DATA_DIR holds the data of HBase $line, not $HBASE_VERSION (HBASE_ORM_HBASE_VERSION=${HBASE_ORM_HBASE_VERSION:-unset, default $DEFAULT_HBASE_VERSION}): give HBase $HBASE_VERSION a data dir of its own (HBASE_ORM_DATA), set HBASE_ORM_HBASE_VERSION=$line, or delete this one (hbase-local/hbase.sh down --purge)"
  fi
}

# ----------------------------------------------------------------------------- up, down

# cmd_up MODE [N [HDFS [M]]]: MODE standalone or cluster, N the cluster's region servers (empty:
# the data dir's cluster's, else $DEFAULT_CLUSTER_SIZE); HDFS 1: the cluster on HDFS, with M
# DataNodes (empty: the data dir's HDFS's, else $DEFAULT_DATANODES)
cmd_up() {
  local want=$1 want_n=${2:-} want_hdfs=${3:-0} want_m=${4:-}
  have_python || die "python3 not found (needed for the readiness check hbase-local/ping.py): apt-get install python3"
  check_line_for_up "$want_hdfs"
  find_java
  ensure_jars
  mkdir -p "$DATA_DIR" "$LOG_DIR" "$RUN_DIR"
  touch "$DATA_DIR/$DATA_MARKER_NAME"
  lock_run_dir
  check_line_for_up "$want_hdfs"
  printf '%s\n' "$HBASE_VERSION" >"$LINE_FILE"

  # the mode the data dir runs in now, if anything runs: the other mode (or size) is refused
  load_mode
  if [[ "$want" == cluster && -z "$want_n" ]]; then
    if is_cluster; then want_n=$RS_COUNT; else want_n=$DEFAULT_CLUSTER_SIZE; fi
  fi
  if ((want_hdfs)) && [[ -z "$want_m" ]]; then
    if is_hdfs; then want_m=$DN_COUNT; else want_m=$DEFAULT_DATANODES; fi
  fi
  ((want_hdfs)) || want_m=0
  local running want_name=$want
  ((want_hdfs)) && want_name=cluster+HDFS
  running=$(running_components | tr '\n' ' ')
  if [[ -n "$running" ]]; then
    if [[ "$want_name" != "$(mode_name)" ]]; then
      die "HBase runs in $(mode_name) mode on $DATA_DIR (${running% }); stop it first (hbase-local/hbase.sh down), or start the $want_name mode with its own HBASE_ORM_DATA and ports"
    fi
    if [[ "$want" == cluster ]] && ((want_n != RS_COUNT)); then
      die "a cluster of $RS_COUNT region servers runs on $DATA_DIR (${running% }); stop it first (hbase-local/hbase.sh down) to start one of $want_n"
    fi
    if ((want_hdfs && want_m != DN_COUNT)); then
      die "an HDFS of $DN_COUNT DataNodes runs on $DATA_DIR (${running% }); stop it first (hbase-local/hbase.sh down) to start one of $want_m"
    fi
  fi
  # HBase's files are either in HDFS or on the local file system: a data dir stays with one
  if ((want_hdfs)) && [[ ! -f "$HDFS_FORMATTED" && -d "$DATA_DIR/hbase" ]]; then
    die "$DATA_DIR holds an HBase on the local file system ($DATA_DIR/hbase): start the cluster with HDFS in a data dir of its own (HBASE_ORM_DATA=\$(mktemp -d) hbase-local/hbase.sh up --cluster --hdfs), or delete this one first (hbase-local/hbase.sh down --purge)"
  fi
  if ((!want_hdfs)) && [[ -f "$HDFS_FORMATTED" ]]; then
    die "$DATA_DIR keeps HBase in HDFS ($HDFS_DIR): start it with hbase-local/hbase.sh up --cluster --hdfs, or delete it first (hbase-local/hbase.sh down --purge)"
  fi
  set_mode "$want" "$want_n" "$want_m"
  check_ports_distinct
  save_mode

  if is_hdfs; then
    hdfs_up
  elif is_cluster; then
    cluster_up
  else
    standalone_up
  fi
}

# cmd_down 0|1: stops everything; 1: also deletes the data dir
cmd_down() {
  local purge=$1
  load_mode
  if [[ -d "$RUN_DIR" ]]; then
    lock_run_dir
    if [[ -n "$(running_components)" ]]; then
      stop_all
      say "stopped ($(mode_name) mode)"
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

# ----------------------------------------------------------------------------- status, logs

cmd_status() {
  load_mode
  local name pid all=1
  for name in "${COMPONENTS[@]}"; do
    pid=$(component_pid "$name")
    if [[ -z "$pid" ]]; then
      status_line "$name" stopped "" ""
      all=0
    elif ! mode_status "$name" "$pid"; then
      all=0
    fi
  done
  printf 'mode: %s\n' "$MODE_SUMMARY"
  printf 'data: %s\n' "$DATA_DIR"
  if is_hdfs; then
    printf 'hdfs: %s (HBase root %s/hbase, WALs %s/hbase/WALs, bulk-load staging %s/hbase/staging)\n' \
      "$(hdfs_url)" "$(hdfs_url)" "$(hdfs_url)" "$(hdfs_url)"
  fi
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

# cmd_logs FOLLOW LINES: the last LINES lines of every process's log; FOLLOW 1: follows them
cmd_logs() {
  local follow=$1 lines=$2
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

# cmd_log_errors LINES: of every process's log, the last LINES lines saying that it failed or is
# going down, under the process's name; "(none)" for a log without any. What a failed run
# prints last, so that the reason a process died is not buried under the tails of the others.
cmd_log_errors() {
  local lines=$1 name file found state
  load_mode
  for name in "${COMPONENTS[@]}"; do
    file=$(log_file "$name")
    [[ -f "$file" ]] || continue
    state="NOT running"
    [[ -n "$(component_pid "$name")" ]] && state=running
    found=$(grep -E ' (ERROR|FATAL) |ABORTING|[Ss]ession expired|OutOfMemoryError|Exception in thread' "$file" |
      cut -c1-400 | tail -n "$lines" || true)
    printf -- '--- %s (%s)\n%s\n' "$name" "$state" "${found:-(none)}"
  done
}

# ----------------------------------------------------------------------------- one process

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
    if ! is_hdfs && { [[ "$name" == namenode ]] || is_datanode "$name"; }; then
      die "$name exists in the cluster with HDFS only; $DATA_DIR is in $(mode_name) mode (hbase-local/hbase.sh up --cluster --hdfs)"
    fi
    if is_cluster && [[ " ${HTTP_GATEWAYS[*]} " == *" $name "* ]]; then
      die "$name runs in standalone mode only (the cluster starts the TCP gateways: ${TCP_GATEWAYS[*]})"
    fi
    die "no process '$name' in $(mode_name) mode; one of: $(single_names)"
  fi
  if [[ "$cmd" != kill && "$name" == master ]] && ! is_cluster; then
    die "the standalone master is the whole HBase: use hbase-local/hbase.sh down / up (or kill master)"
  fi
  return 0
}

# starts component $1 (not running) and waits until it is ready
start_one() {
  local name=$1 t0=$SECONDS
  if is_datanode "$name"; then
    [[ -n "$(component_pid namenode)" ]] ||
      die "the NameNode is not running: hbase-local/hbase.sh start namenode (or up --cluster --hdfs)"
  elif is_cluster; then
    ! needs_zookeeper "$name" || [[ -n "$(component_pid zookeeper)" ]] ||
      die "ZooKeeper is not running: hbase-local/hbase.sh start zookeeper (or up --cluster)"
  else
    [[ -n "$(component_pid master)" ]] || die "HBase is not running: hbase-local/hbase.sh up"
  fi
  find_java >/dev/null
  check_ports_free "$name"
  mode_start "$name"
  if is_region_server "$name" && [[ -z "$(component_pid master)" ]]; then
    say "no master is running: waiting for $name to answer; it registers when a master starts"
  fi
  wait_ready "$name" mode_ready
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
    wait_ready "$name" mode_ready
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
    ! needs_zookeeper "$name" || [[ -n "$(component_pid zookeeper)" ]] ||
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

# ----------------------------------------------------------------------------- hfile

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
