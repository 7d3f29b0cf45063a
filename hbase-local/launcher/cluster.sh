# shellcheck shell=bash
# Cluster mode of hbase-local/hbase.sh: HBase in distributed mode on this machine, every server
# a JVM of its own (ZooKeeper, a master, N region servers), plus the four TCP gateways
# (common.sh), its root directory on the local file system (hdfs.sh adds HDFS under it). Calls
# into common.sh only.

RS_HEAP=${HBASE_ORM_RS_HEAP:-768m}
ZK_HEAP=${HBASE_ORM_ZK_HEAP:-128m}
DEFAULT_CLUSTER_SIZE=3
MAX_CLUSTER_SIZE=20

is_region_server() { [[ "$1" =~ ^rs[1-9][0-9]*$ ]]; }

# HBase's processes of the cluster (those cluster_define adds: ZooKeeper, master, region servers,
# gateways), the ones cluster_up starts
CLUSTER_COMPONENTS=()

# the processes of a cluster of $1 region servers (see common.sh, "the mode's processes"), added
# after any defined before (hdfs_define's)
cluster_define() {
  local n=$1 i port name
  GATEWAYS=("${TCP_GATEWAYS[@]}")
  REGION_SERVERS=()
  for ((i = 1; i <= n; i++)); do
    REGION_SERVERS+=("rs$i")
  done
  HBASE_SERVERS=(master "${REGION_SERVERS[@]}")
  HBASE_NEEDS=(zookeeper)
  # conf/hbase-site.xml: distributed mode, how many region servers the master waits for at
  # startup, the ZooKeeper session timeout (every JVM's, and ZooKeeper's upper limit), region
  # replicas kept current
  MODE_JVM_OPTS=(
    -Dhbase.orm.distributed=true
    "-Dhbase.orm.rs.count=$n"
    "-Dhbase.orm.zk.session.ms=$ZK_SESSION_MS"
    -Dhbase.orm.region.replicas=true
  )
  MASTER_HEAP=${HBASE_ORM_MASTER_HEAP:-512m}
  MODE_SUMMARY="cluster (ZooKeeper, master, $n region servers)"
  add_component zookeeper "$ZK_PORT" "ZooKeeper 127.0.0.1:$ZK_PORT"
  add_component master "$MASTER_RPC_PORT" "master 127.0.0.1:$MASTER_RPC_PORT"
  for ((i = 1; i <= n; i++)); do
    # rsK binds and advertises the base port + K - 1
    port=$((REGIONSERVER_RPC_PORT + i - 1))
    add_component "rs$i" "$port" "region server 127.0.0.1:$port"
  done
  for name in "${GATEWAYS[@]}"; do
    add_tcp_gateway "$name"
  done
  CLUSTER_COMPONENTS=(zookeeper master "${REGION_SERVERS[@]}" "${GATEWAYS[@]}")
}

# says so and starts process $1 of the cluster (not running)
cluster_start() {
  local name=$1
  case "$name" in
    zookeeper)
      say "starting $name ($(describe "$name"))"
      jvm_opts zookeeper "$ZK_HEAP"
      # where the standalone master's embedded ZooKeeper keeps its data: either mode finds it
      JVM_OPTS+=("-Dhbase.orm.zk.data=$DATA_DIR/zookeeper/zookeeper_0")
      add_extra_opts "${HBASE_ORM_ZK_JAVA_OPTS:-}"
      spawn_jvm zookeeper org.apache.hadoop.hbase.zookeeper.HQuorumPeer
      ;;
    master)
      say "starting master ($(describe master))"
      jvm_opts master "$MASTER_HEAP"
      # the region servers' scanner lease (the scanner timeout of conf/hbase-site.xml)
      JVM_OPTS+=("-Dhbase.orm.scanner.timeout.ms=$REGION_SCANNER_MS")
      add_extra_opts "${HBASE_ORM_MASTER_JAVA_OPTS:-}"
      spawn_jvm master org.apache.hadoop.hbase.master.HMaster start
      ;;
    rs*)
      say "starting $name ($(describe "$name"))"
      jvm_opts "$name" "$RS_HEAP" "$(port_of "$name")"
      # the region server's scanner lease (the same key, read by the region server)
      JVM_OPTS+=("-Dhbase.orm.scanner.timeout.ms=$REGION_SCANNER_MS")
      add_extra_opts "${HBASE_ORM_RS_JAVA_OPTS:-}"
      spawn_jvm "$name" org.apache.hadoop.hbase.regionserver.HRegionServer start
      ;;
    *) start_tcp_gateway "$name" ;;
  esac
}

# Is process $1 ready? ZooKeeper: answers; master: initialized; region server: registered (or,
# while no master runs, answers its RPC port); gateway: answers a real call.
cluster_ready() {
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

# status line of running process $1 (pid $2); false unless it is ready and answers
cluster_status() {
  local name=$1 pid=$2 answer
  case "$name" in
    zookeeper)
      if zk_answers 3; then
        status_line "$name" running "$pid" "answers"
      else
        status_line "$name" running "$pid" "NOT answering"
        return 1
      fi
      ;;
    master) master_status "$pid" ;;
    rs*)
      answer=$(rpc_answer "$name" 3 || true)
      if rs_registered "$name" && [[ -n "$answer" ]]; then
        status_line "$name" running "$pid" "registered, answers as $answer"
      elif [[ -n "$answer" ]]; then
        status_line "$name" running "$pid" "NOT registered yet, answers as $answer"
        return 1
      else
        status_line "$name" running "$pid" "NOT answering"
        return 1
      fi
      ;;
    *) gateway_status "$name" "$pid" ;;
  esac
}

# master initialized, ZooKeeper answering and every region server registered
cluster_servers_ready() {
  master_initialized || return 1
  zk_answers 3 || return 1
  local name
  for name in "${REGION_SERVERS[@]}"; do
    rs_registered "$name" || return 1
  done
  return 0
}

# `up --cluster` (the mode is set and saved, the lock held; with HDFS, HDFS is up): starts
# whichever of HBase's processes are not running, all of them if ZooKeeper is not. $1: when the
# `up` began (default now), for the times it reports.
cluster_up() {
  local name pid t0=${1:-$SECONDS}
  local running=()
  for name in "${CLUSTER_COMPONENTS[@]}"; do
    pid=$(component_pid "$name")
    [[ -n "$pid" ]] && running+=("$name")
  done
  if ((${#running[@]} == ${#CLUSTER_COMPONENTS[@]})) && cluster_servers_ready && all_gateways_answer 3; then
    say "already up: $MODE_SUMMARY; $(gateways_summary); data in $DATA_DIR"
    return 0
  fi

  local to_start=()
  if [[ -z "$(component_pid zookeeper)" ]]; then
    # without ZooKeeper, whatever still runs holds sessions of the old one: start afresh
    if ((${#running[@]})); then
      say "ZooKeeper is not running: stopping the rest (${running[*]}) to start everything again"
      stop_hbase
    fi
    to_start=("${CLUSTER_COMPONENTS[@]}")
  else
    for name in "${CLUSTER_COMPONENTS[@]}"; do
      [[ -n "$(component_pid "$name")" ]] || to_start+=("$name")
    done
    ((${#to_start[@]} == 0)) || say "already running: ${running[*]}"
  fi
  check_ports_free "${to_start[@]}"

  say "starting HBase $HBASE_VERSION in $MODE_SUMMARY, data in $DATA_DIR"
  for name in "${to_start[@]}"; do
    cluster_start "$name"
    if [[ "$name" == zookeeper ]]; then
      # the others retry until it answers, but a ZooKeeper that cannot start is better seen first
      wait_ready zookeeper cluster_ready
      say "ZooKeeper answers after $((SECONDS - t0)) s"
    fi
  done
  wait_all_ready "$t0"
  say "HBase cluster is up after $((SECONDS - t0)) s: ZooKeeper 127.0.0.1:$ZK_PORT, master 127.0.0.1:$MASTER_RPC_PORT, $RS_COUNT region servers on 127.0.0.1:$REGIONSERVER_RPC_PORT-$((REGIONSERVER_RPC_PORT + RS_COUNT - 1)); $(gateways_summary)"
}
