#!/usr/bin/env bash
# Entry point of the hbase-orm local HBase image (hbase-local/Dockerfile): runs, in one
# container, the standalone HBase master (ZooKeeper + master + region server in one JVM) and the
# same gateways as hbase-local/hbase.sh does on a host:
#   0.0.0.0:9090  Thrift2, buffered transport + binary protocol
#   0.0.0.0:9091  Thrift2, framed transport + compact protocol (closes sockets idle for 3 s)
#   0.0.0.0:9092  Thrift1, buffered transport + binary protocol
#   0.0.0.0:9093  a second Thrift2 gateway, buffered + binary, scanners expire after 2 s unused
#   0.0.0.0:2181, 16000, 16020  ZooKeeper, the master, the region server (for the native
#                 backend, hbase://127.0.0.1:2181: they advertise 127.0.0.1, so a client on the
#                 host reaches them through the same port numbers published)
# Data and logs live in $HBASE_ORM_DATA (default /data, a volume); the logs are also followed
# on stdout. On SIGTERM/SIGINT the gateways get TERM and the cluster is shut down cleanly. If any
# of the JVMs exits, the others are stopped and the container exits non-zero.
set -euo pipefail

HBASE_HOME=${HBASE_HOME:-/opt/hbase}
DATA=${HBASE_ORM_DATA:-/data}
THRIFT_PORT=${HBASE_ORM_THRIFT_PORT:-9090}
THRIFT_FRAMED_PORT=${HBASE_ORM_THRIFT_FRAMED_PORT:-9091}
FRAMED_IDLE_MS=${HBASE_ORM_FRAMED_IDLE_MS:-3000}
THRIFT1_PORT=${HBASE_ORM_THRIFT1_PORT:-9092}
THRIFT_SHORT_PORT=${HBASE_ORM_THRIFT_SHORT_PORT:-9093}
SHORT_SCANNER_MS=${HBASE_ORM_SHORT_SCANNER_MS:-2000}
THRIFT_BIND=${HBASE_ORM_THRIFT_BIND:-0.0.0.0}
MASTER_HEAP=${HBASE_ORM_MASTER_HEAP:-1g}
THRIFT_HEAP=${HBASE_ORM_THRIFT_HEAP:-512m}

LOG_DIR=$DATA/logs
mkdir -p "$LOG_DIR"

say() { printf '[hbase-local] %s\n' "$*"; }

# what bin/hbase needs on JDK 17 (repeated here in case the script version does not add them;
# repeated flags are harmless), plus the runtime parameters of conf/hbase-site.xml
COMMON_OPTS="-Dhbase.orm.data=$DATA
 -Dhbase.orm.bind=${HBASE_ORM_BIND:-0.0.0.0}
 -Djava.net.preferIPv4Stack=true
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
 -Dlog4j2.configurationFile=$HBASE_HOME/conf/log4j2.properties"
COMMON_OPTS=$(printf '%s' "$COMMON_OPTS" | tr '\n' ' ')

# run `bin/hbase <args>` in the background as component $1 with heap $2
# (bin/hbase passes HBASE_LOG_DIR/HBASE_LOGFILE on as -Dhbase.log.dir/-Dhbase.log.file,
# which conf/log4j2.properties uses: one log file per process)
PIDS=()
NAMES=()
run_hbase() {
  local name=$1 heap=$2
  shift 2
  local f
  for f in "$LOG_DIR/$name.log" "$LOG_DIR/$name.out"; do
    if [[ -f "$f" ]]; then mv -f "$f" "$f.prev"; fi
  done
  HBASE_HEAPSIZE=$heap HBASE_LOG_DIR=$LOG_DIR HBASE_LOGFILE=$name.log \
    HBASE_OPTS="${HBASE_OPTS:-} $COMMON_OPTS" \
    "$HBASE_HOME/bin/hbase" "$@" >"$LOG_DIR/$name.out" 2>&1 </dev/null &
  PIDS+=("$!")
  NAMES+=("$name")
}

TAIL_PID=
stopping=0
shutdown() {
  ((stopping)) && return 0
  stopping=1
  say "stopping"
  local i master_pid=
  # gateways: TERM (they are clients of the master)
  for i in "${!NAMES[@]}"; do
    if [[ "${NAMES[$i]}" == master ]]; then
      master_pid=${PIDS[$i]}
    else
      kill -TERM "${PIDS[$i]}" 2>/dev/null || true
    fi
  done
  # master: ask for a clean cluster shutdown (what stop-hbase.sh does), else TERM
  if [[ -n "$master_pid" ]] && kill -0 "$master_pid" 2>/dev/null; then
    HBASE_LOG_DIR=$LOG_DIR HBASE_LOGFILE=master-stop.log HBASE_OPTS="${HBASE_OPTS:-} $COMMON_OPTS" \
      timeout 30 "$HBASE_HOME/bin/hbase" master stop --shutDownCluster \
      >"$LOG_DIR/master-stop.out" 2>&1 </dev/null ||
      kill -TERM "$master_pid" 2>/dev/null || true
  fi
  local waited=0
  while ((waited < 30)); do
    local alive=0
    for i in "${!PIDS[@]}"; do
      kill -0 "${PIDS[$i]}" 2>/dev/null && alive=1
    done
    ((alive)) || break
    sleep 1
    waited=$((waited + 1))
  done
  for i in "${!PIDS[@]}"; do
    kill -KILL "${PIDS[$i]}" 2>/dev/null || true
  done
  [[ -z "$TAIL_PID" ]] || kill "$TAIL_PID" 2>/dev/null || true
}
trap 'shutdown; exit 0' TERM INT

say "starting HBase master (standalone), data in $DATA"
run_hbase master "$MASTER_HEAP" master start
say "starting Thrift2 gateway on $THRIFT_BIND:$THRIFT_PORT (buffered transport, binary protocol)"
run_hbase thrift "$THRIFT_HEAP" thrift2 -b "$THRIFT_BIND" -p "$THRIFT_PORT" --infoport -1 start
say "starting Thrift2 gateway on $THRIFT_BIND:$THRIFT_FRAMED_PORT (framed transport, compact protocol)"
run_hbase thrift-framed "$THRIFT_HEAP" thrift2 -b "$THRIFT_BIND" -p "$THRIFT_FRAMED_PORT" --infoport -1 -f -c -t "$FRAMED_IDLE_MS" start
say "starting Thrift1 gateway on $THRIFT_BIND:$THRIFT1_PORT (buffered transport, binary protocol)"
run_hbase thrift1 "$THRIFT_HEAP" thrift -b "$THRIFT_BIND" -p "$THRIFT1_PORT" --infoport -1 start
say "starting a second Thrift2 gateway on $THRIFT_BIND:$THRIFT_SHORT_PORT (scanners expire after $SHORT_SCANNER_MS ms)"
HBASE_OPTS="${HBASE_OPTS:-} -Dhbase.orm.scanner.timeout.ms=$SHORT_SCANNER_MS" \
  run_hbase thrift-short "$THRIFT_HEAP" thrift2 -b "$THRIFT_BIND" -p "$THRIFT_SHORT_PORT" --infoport -1 start

# follow the logs on stdout (docker logs)
tail -n +1 -F "$LOG_DIR/master.log" "$LOG_DIR/thrift.log" "$LOG_DIR/thrift-framed.log" \
  "$LOG_DIR/thrift1.log" "$LOG_DIR/thrift-short.log" "$LOG_DIR/master.out" "$LOG_DIR/thrift.out" \
  "$LOG_DIR/thrift-framed.out" "$LOG_DIR/thrift1.out" "$LOG_DIR/thrift-short.out" 2>/dev/null &
TAIL_PID=$!

# wait until one of the JVMs exits (or a signal arrives: the trap then runs)
set +e
wait -n "${PIDS[@]}"
rc=$?
set -e
for i in "${!PIDS[@]}"; do
  if ! kill -0 "${PIDS[$i]}" 2>/dev/null; then
    say "error: ${NAMES[$i]} exited (status $rc); stopping the others"
  fi
done
shutdown
exit 1
