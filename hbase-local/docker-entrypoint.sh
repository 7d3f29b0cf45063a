#!/usr/bin/env bash
# Entry point of the hbase-orm local HBase image (hbase-local/Dockerfile): runs in one container
# what `hbase-local/hbase.sh up` runs on a host, started the same way (java -cp conf:lib/*
# <main class>, the flags of jdk-flags, conf/hbase-site.xml's runtime parameters as -D options):
#   master         org.apache.hadoop.hbase.master.HMaster start: standalone, ZooKeeper on 2181,
#                  the master on 16000 and the region server on 16020 in one JVM
#   thrift         Thrift2 on 9090, buffered transport + binary protocol
#   thrift-framed  Thrift2 on 9091, framed transport + compact protocol (closes sockets idle for
#                  $HBASE_ORM_FRAMED_IDLE_MS ms, default 3000)
#   thrift1        Thrift1 on 9092, buffered transport + binary protocol
#   thrift-short   a second Thrift2 gateway on 9093 whose scanners expire after
#                  $HBASE_ORM_SHORT_SCANNER_MS ms unused (default 2000)
#   thrift-http    Thrift2 over HTTP on 9094       thrift-https   Thrift2 over HTTPS on 9095
#   thrift1-http   Thrift1 over HTTP on 9096       thrift1-https  Thrift1 over HTTPS on 9097
# Everything listens on 0.0.0.0 inside the container (the published ports decide who reaches
# it). The master and the region server advertise $HBASE_ORM_ADVERTISE (default 127.0.0.1):
# ZooKeeper and hbase:meta send a native client there, so publish 2181, 16000 and 16020 on that
# address with the same numbers (docker-compose.yml does).
#
# HTTPS: at the first start (or when $HBASE_ORM_ADVERTISE changed) keytool makes a self-signed
# EC P-256 certificate for localhost, 127.0.0.1 and the advertised address, valid 10 years:
# $DATA/tls/gateway.p12 (the gateways' keystore) and $DATA/tls/ca.pem (the CA a client trusts;
# `docker cp <container>:/data/tls/ca.pem .`). The HTTPS gateways let their user act for
# `alice` (doAs header), from any address: the container is reached only through its published
# ports. The HTTP(S) gateways refuse every other doAs.
#
# Data, logs ($DATA/logs/NAME.log, NAME.out) and the TLS material live in $HBASE_ORM_DATA
# (default /data, a volume); the logs are also followed on stdout (docker logs). On
# SIGTERM/SIGINT the gateways get TERM and the master is asked to shut HBase down cleanly (as
# `hbase.sh down` does). If any JVM exits, the others are stopped and the container exits 1.
#
# Environment: HBASE_ORM_ADVERTISE, HBASE_ORM_DATA, HBASE_ORM_MASTER_HEAP (1g),
# HBASE_ORM_THRIFT_HEAP (512m), HBASE_ORM_FRAMED_IDLE_MS, HBASE_ORM_SHORT_SCANNER_MS,
# HBASE_ORM_REGION_SCANNER_MS (10000, the region server's scanner lease), HBASE_ORM_JIT (quick:
# C1 only, as the launcher; full: the JVM's default), HBASE_ORM_JAVA_OPTS (extra JVM options for
# every process, word-split).
#
# With arguments it runs them instead (`docker compose run --rm hbase bash` gives a shell in the
# image, the volume mounted, nothing started).
set -euo pipefail

if (($#)); then
  exec "$@"
fi

HOME_DIR=${HBASE_ORM_HOME:-/opt/hbase-orm}
CONF_DIR=$HOME_DIR/conf
LIB_DIR=$HOME_DIR/lib
DATA=${HBASE_ORM_DATA:-/data}
ADVERTISE=${HBASE_ORM_ADVERTISE:-127.0.0.1}
MASTER_HEAP=${HBASE_ORM_MASTER_HEAP:-1g}
THRIFT_HEAP=${HBASE_ORM_THRIFT_HEAP:-512m}
FRAMED_IDLE_MS=${HBASE_ORM_FRAMED_IDLE_MS:-3000}
SHORT_SCANNER_MS=${HBASE_ORM_SHORT_SCANNER_MS:-2000}
REGION_SCANNER_MS=${HBASE_ORM_REGION_SCANNER_MS:-10000}
# the same ports as hbase.sh; fixed: the advertised ones must be the published ones
ZK_PORT=2181
MASTER_PORT=16000
REGIONSERVER_PORT=16020
BIND=0.0.0.0
# the one user the HTTPS gateways' own user may act for (doAs), as in hbase.sh
PROXY_USER_ALLOWED=alice
# Password of the HTTPS gateways' keystore and key (PKCS12: one for both). Test material for a
# local HBase; never printed nor put on a command line (keytool reads it from its environment,
# the gateways from the core-site.xml below).
TLS_STORE_PASSWORD=hbase-orm-local-test-keystore

LOG_DIR=$DATA/logs
TLS_DIR=$DATA/tls
GATEWAY_CONF_DIR=$DATA/gateway-conf

say() { printf '[hbase-local] %s\n' "$*"; }
die() { say "error: $*" >&2; exit 1; }

[[ "$ADVERTISE" =~ ^[A-Za-z0-9._-]+$ ]] || die "HBASE_ORM_ADVERTISE must be a host name or an IPv4 address, not '$ADVERTISE'"
for v in FRAMED_IDLE_MS SHORT_SCANNER_MS REGION_SCANNER_MS; do
  [[ "${!v}" =~ ^[0-9]+$ ]] || die "HBASE_ORM_$v must be a number, got '${!v}'"
done
case "${HBASE_ORM_JIT:-quick}" in
  quick) JIT_FLAGS=(-XX:TieredStopAtLevel=1) ;;
  full) JIT_FLAGS=() ;;
  *) die "HBASE_ORM_JIT must be quick or full, not ${HBASE_ORM_JIT}" ;;
esac
EXTRA_OPTS=()
[[ -z "${HBASE_ORM_JAVA_OPTS:-}" ]] || read -r -a EXTRA_OPTS <<<"$HBASE_ORM_JAVA_OPTS"

# JVM flags every HBase process needs on JDK 11 and later (one a line, # comments)
mapfile -t JDK_FLAGS < <(grep -v '^#' "$HOME_DIR/jdk-flags")

mkdir -p "$LOG_DIR"
cd "$DATA"

# ----------------------------------------------------------------------------- TLS material

# Makes the HTTPS gateways' keystore and its certificate as ca.pem unless they are there for the
# same names (tls/names remembers them), into temporary names first so that the two match.
ensure_tls() {
  local names="DNS:localhost,IP:127.0.0.1" tmp log
  if [[ "$ADVERTISE" =~ ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
    [[ "$ADVERTISE" == 127.0.0.1 ]] || names+=",IP:$ADVERTISE"
  elif [[ "$ADVERTISE" != localhost ]]; then
    names+=",DNS:$ADVERTISE"
  fi
  mkdir -p "$TLS_DIR"
  if [[ -s "$TLS_DIR/gateway.p12" && -s "$TLS_DIR/ca.pem" && "$(cat "$TLS_DIR/names" 2>/dev/null)" == "$names" ]]; then
    return 0
  fi
  tmp=$(mktemp -d "$TLS_DIR/.new.XXXXXX")
  log=$tmp/keytool.log
  if ! HBASE_ORM_KEYTOOL_PASS=$TLS_STORE_PASSWORD keytool -genkeypair -alias gateway \
    -keyalg EC -groupname secp256r1 -sigalg SHA256withECDSA -validity 3650 \
    -dname "CN=localhost, OU=HTTPS gateways, O=hbase-orm local test" \
    -ext "SAN=$names" -ext KU=digitalSignature -ext EKU=serverAuth \
    -keystore "$tmp/gateway.p12" -storetype PKCS12 \
    -storepass:env HBASE_ORM_KEYTOOL_PASS -keypass:env HBASE_ORM_KEYTOOL_PASS >"$log" 2>&1 ||
    ! HBASE_ORM_KEYTOOL_PASS=$TLS_STORE_PASSWORD keytool -exportcert -rfc -alias gateway \
      -keystore "$tmp/gateway.p12" -storetype PKCS12 -storepass:env HBASE_ORM_KEYTOOL_PASS \
      -file "$tmp/ca.pem" >>"$log" 2>&1; then
    cat "$log" >&2
    die "keytool could not make the HTTPS gateways' certificate (output above)"
  fi
  chmod 600 "$tmp/gateway.p12"
  chmod 644 "$tmp/ca.pem"
  mv -f "$tmp/gateway.p12" "$TLS_DIR/gateway.p12"
  mv -f "$tmp/ca.pem" "$TLS_DIR/ca.pem"
  printf '%s\n' "$names" >"$TLS_DIR/names"
  rm -rf "$tmp"
  say "made a self-signed certificate for ${names//,/, }: CA certificate $TLS_DIR/ca.pem"
}

# core-site.xml of the HTTPS gateways, first on their classpath (hbase.sh writes the same):
# Hadoop's proxy-user rules, whose key names carry the gateway's user name, and the keystore
# passwords, kept off the command line.
write_gateway_conf() {
  local user
  user=$(id -un)
  mkdir -p "$GATEWAY_CONF_DIR"
  chmod 700 "$GATEWAY_CONF_DIR"
  cat >"$GATEWAY_CONF_DIR/core-site.xml" <<XML
<?xml version="1.0"?>
<!-- Written by docker-entrypoint.sh at each start (edits are lost). -->
<configuration>
  <!-- ProxyUsers: the gateway's own user ($user) may act as $PROXY_USER_ALLOWED (doAs header),
       from any address (a client reaches the container through its published ports only, and
       those arrive from the Docker bridge, not from 127.0.0.1) -->
  <property>
    <name>hadoop.proxyuser.$user.hosts</name>
    <value>*</value>
  </property>
  <property>
    <name>hadoop.proxyuser.$user.users</name>
    <value>$PROXY_USER_ALLOWED</value>
  </property>
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
  chmod 600 "$GATEWAY_CONF_DIR/core-site.xml"
}

# ----------------------------------------------------------------------------- processes

# the java command of process $1 (heap $2, main class $3, its arguments after), in JAVA_CMD
java_cmd() {
  local name=$1 heap=$2 main=$3 classpath="$CONF_DIR:$LIB_DIR/*"
  shift 3
  case "$name" in
    thrift-https | thrift1-https) classpath="$GATEWAY_CONF_DIR:$classpath" ;;
  esac
  JAVA_CMD=(
    java
    "-Dhbase.orm.component=$name"
    "-Dhbase.orm.data=$DATA"
    "-Dhbase.orm.bind=$BIND"
    "-Dhbase.orm.advertise=$ADVERTISE"
    "-Dhbase.orm.zk.port=$ZK_PORT"
    "-Dhbase.orm.master.port=$MASTER_PORT"
    "-Dhbase.orm.regionserver.port=$REGIONSERVER_PORT"
    "-Xmx$heap"
    "${JIT_FLAGS[@]}"
    -XX:+ExitOnOutOfMemoryError
    -Djava.net.preferIPv4Stack=true
    -Djava.awt.headless=true
    "${JDK_FLAGS[@]}"
    "-Dlog4j.configurationFile=$CONF_DIR/log4j2.properties"
    "-Dlog4j2.configurationFile=$CONF_DIR/log4j2.properties"
    "-Dhbase.log.dir=$LOG_DIR"
    "-Dhbase.log.file=$name.log"
    -Dlog4j2.shutdownHookEnabled=false
  )
  case "$name" in
    master) JAVA_CMD+=("-Dhbase.orm.scanner.timeout.ms=$REGION_SCANNER_MS") ;;
    thrift-short) JAVA_CMD+=("-Dhbase.orm.scanner.timeout.ms=$SHORT_SCANNER_MS") ;;
    thrift-http | thrift1-http) JAVA_CMD+=(-Dhbase.orm.thrift.http=true) ;;
    thrift-https | thrift1-https)
      JAVA_CMD+=(-Dhbase.orm.thrift.http=true -Dhbase.orm.thrift.ssl=true -Dhbase.orm.thrift.proxyuser=true)
      ;;
  esac
  JAVA_CMD+=("${EXTRA_OPTS[@]}" -cp "$classpath" "$main" "$@")
}

# starts process $1 in the background (heap $2, main class $3, arguments after); a fresh log
PIDS=()
NAMES=()
start() {
  local name=$1 f
  java_cmd "$@"
  for f in "$LOG_DIR/$name.log" "$LOG_DIR/$name.out"; do
    if [[ -f "$f" ]]; then mv -f "$f" "$f.prev"; fi
  done
  rm -f "$LOG_DIR/$name.log".[0-9]*
  : >"$LOG_DIR/$name.log"
  "${JAVA_CMD[@]}" >"$LOG_DIR/$name.out" 2>&1 </dev/null &
  PIDS+=("$!")
  NAMES+=("$name")
}

TAIL_PID=
stopping=0
# Gateways first (TERM: they are clients of HBase), then the master is asked to shut HBase down
# (HMaster stop --shutDownCluster, an RPC, what hbase.sh down does), else TERM; KILL what is
# left after 30 s.
shutdown() {
  ((stopping)) && return 0
  stopping=1
  say "stopping"
  local i master_pid=
  for i in "${!NAMES[@]}"; do
    if [[ "${NAMES[$i]}" == master ]]; then
      master_pid=${PIDS[$i]}
    else
      kill -TERM "${PIDS[$i]}" 2>/dev/null || true
    fi
  done
  if [[ -n "$master_pid" ]] && kill -0 "$master_pid" 2>/dev/null; then
    java_cmd master-stop 256m org.apache.hadoop.hbase.master.HMaster stop --shutDownCluster
    timeout 30 "${JAVA_CMD[@]}" >"$LOG_DIR/master-stop.out" 2>&1 </dev/null ||
      kill -TERM "$master_pid" 2>/dev/null || true
  fi
  local waited=0 alive
  while ((waited < 30)); do
    alive=0
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
  say "stopped"
}
trap 'shutdown; exit 0' TERM INT

ensure_tls
write_gateway_conf

T2=org.apache.hadoop.hbase.thrift2.ThriftServer
T1=org.apache.hadoop.hbase.thrift.ThriftServer
say "starting HBase (standalone: ZooKeeper :$ZK_PORT, master :$MASTER_PORT, region server :$REGIONSERVER_PORT, advertised as $ADVERTISE), data in $DATA"
start master "$MASTER_HEAP" org.apache.hadoop.hbase.master.HMaster start
say "starting the gateways: Thrift2 :9090 buffered/binary, :9091 framed/compact, Thrift1 :9092, Thrift2 :9093 (scanners expire after $SHORT_SCANNER_MS ms), Thrift2 http :9094 https :9095, Thrift1 http :9096 https :9097"
start thrift "$THRIFT_HEAP" "$T2" -b "$BIND" -p 9090 --infoport -1 start
start thrift-framed "$THRIFT_HEAP" "$T2" -b "$BIND" -p 9091 --infoport -1 -f -c -t "$FRAMED_IDLE_MS" start
start thrift1 "$THRIFT_HEAP" "$T1" -b "$BIND" -p 9092 --infoport -1 start
start thrift-short "$THRIFT_HEAP" "$T2" -b "$BIND" -p 9093 --infoport -1 start
start thrift-http "$THRIFT_HEAP" "$T2" -b "$BIND" -p 9094 --infoport -1 start
start thrift-https "$THRIFT_HEAP" "$T2" -b "$BIND" -p 9095 --infoport -1 start
start thrift1-http "$THRIFT_HEAP" "$T1" -b "$BIND" -p 9096 --infoport -1 start
start thrift1-https "$THRIFT_HEAP" "$T1" -b "$BIND" -p 9097 --infoport -1 start

# follow the logs on stdout (docker logs)
logs=()
for name in "${NAMES[@]}"; do
  logs+=("$LOG_DIR/$name.log" "$LOG_DIR/$name.out")
done
tail -n +1 -F "${logs[@]}" 2>/dev/null &
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
