#!/usr/bin/env bash
# Kerberos-secured HBase 2.6.1 on this machine, with secured Thrift gateways and a Kerberized
# HDFS (one HBase keeps its root dir in it), for testing clients against SPNEGO, SASL/GSSAPI
# and secure bulk load. Nothing to install by hand: missing Debian packages
# are installed with apt-get (as root), the HBase jars with Maven (the same pom and cache
# directory as hbase-local/hbase.sh).
#
#   hbase-local/secure/secure.sh up              start KDC, HDFS, the HBases, gateways; wait until
#                                                each answers a real authenticated call (idempotent)
#   hbase-local/secure/secure.sh down [--purge]  stop everything (--purge: delete the data dir,
#                                                KDC database, keytabs and certificates too)
#   hbase-local/secure/secure.sh status          pid and port of each process, and a real call
#                                                through every gateway; exit 0 iff all answer
#   hbase-local/secure/secure.sh logs [-n N]     the last N (default 40) lines of every log
#   hbase-local/secure/secure.sh env             shell exports for a client (eval "$(... env)")
#
# Processes (pid files in $DATA/run, logs in $DATA/logs):
#   kdc       MIT krb5kdc, realm $HBASE_ORM_SECURE_REALM, 127.0.0.1:$KDC_PORT (TCP and UDP)
#   master    HMaster standalone (ZooKeeper + master + region server), Kerberos RPC,
#             hbase.rpc.protection=authentication
#   master-privacy, master-integrity   two more standalone HBases, hbase.rpc.protection
#             privacy and integrity (SASL auth-conf and auth-int on HBase's own RPC); their
#             ports follow the first HBase's by one and by two
#   namenode  HDFS NameNode (Hadoop's jars from the lib dir), Kerberos RPC as hdfs/localhost,
#             127.0.0.1:$NAMENODE_PORT, HTTP (/jmx) 127.0.0.1:$NAMENODE_HTTP_PORT; formatted on the
#             first start of a data dir; metadata in $DATA/hdfs/namenode
#   datanode  HDFS DataNode, hdfs/localhost, SASL data transfer (QOP auth, block access tokens)
#             on 127.0.0.1:$DATANODE_PORT, HTTP $DATANODE_HTTP_PORT, IPC $DATANODE_IPC_PORT;
#             blocks in $DATA/hdfs/datanode. Once HDFS is out of safe mode with the DataNode
#             live, `up` makes /hbase (owner hbase, 755) and /tmp (1777), once per data dir.
#   master-hdfs  a fourth standalone HBase (ports: the first one's plus three), started after
#             that, hbase.rpc.protection=authentication, root dir hdfs://127.0.0.1:PORT/hbase
#             (WALs and the bulk-load staging dir in the Kerberized HDFS); home $DATA/hdfs-hbase
#   gateways  one JVM, every Thrift gateway (java/SecureGateways.java):
#     thrift2-https      Thrift2, HTTPS + SPNEGO, doAs header allowed   127.0.0.1:9290
#     thrift2-sasl-auth  Thrift2, SASL GSSAPI, QOP auth (buffered, binary)     9291
#     thrift2-sasl-int   Thrift2, SASL GSSAPI, QOP auth-int                    9292
#     thrift2-sasl-conf  Thrift2, SASL GSSAPI, QOP auth-conf                   9293
#     thrift1-https      Thrift1, HTTPS + SPNEGO, doAs header allowed          9294
#     thrift1-sasl-conf  Thrift1, SASL GSSAPI, QOP auth-conf                   9295
# Generated in the data dir: krb5.conf, keytabs/{hbase,hdfs,client,alice,bob}.keytab, tls/ca.pem
# (the CA that signed the HTTPS certificate), client.ccache (after `up`: a ticket of client@REALM),
# hadoop-conf/ (core-site.xml + hdfs-site.xml for an HDFS client: HADOOP_CONF_DIR in `env`).
# See README.md beside this file for principals, settings and how clients authenticate.
#
# Environment:
#   HBASE_ORM_SECURE_DATA     data dir                      (default /tmp/hbase-orm-secure)
#   HBASE_ORM_SECURE_REALM    Kerberos realm                (default EXAMPLE.COM)
#   HBASE_ORM_SECURE_KDC_PORT KDC port, TCP and UDP         (default 6088)
#   HBASE_ORM_SECURE_ZK_PORT  ZooKeeper                     (default 2381)
#   HBASE_ORM_SECURE_MASTER_PORT / _REGIONSERVER_PORT       (default 16200 / 16220)
#   HBASE_ORM_SECURE_PORT_BASE first gateway port; the others follow (default 9290)
#   HBASE_ORM_SECURE_NAMENODE_PORT / _NAMENODE_HTTP_PORT    (default 8220 / 9970)
#   HBASE_ORM_SECURE_DATANODE_PORT / _DATANODE_HTTP_PORT / _DATANODE_IPC_PORT
#                                                           (default 9966 / 9964 / 9967)
#   HBASE_ORM_SECURE_UP_TIMEOUT seconds `up` waits for readiness (default 240)
#   HBASE_ORM_SECURE_MASTER_HEAP / _GATEWAY_HEAP            (default 1g / 512m)
#   HBASE_ORM_SECURE_PROTECTED_HEAP  heap of master-privacy, master-integrity and master-hdfs
#                                    (default 512m)
#   HBASE_ORM_SECURE_NAMENODE_HEAP / _DATANODE_HEAP         (default 512m / 256m)
#   HBASE_ORM_CACHE           where the jars are cached (shared with hbase.sh;
#                             default ~/.cache/hbase-orm)
#   HBASE_ORM_HBASE_VERSION   hbase.sh's HBase line: this script runs 2.6.1 only and refuses
#                             another line
set -euo pipefail

HBASE_VERSION=2.6.1
if [[ -n "${HBASE_ORM_HBASE_VERSION:-}" && "$HBASE_ORM_HBASE_VERSION" != "$HBASE_VERSION" ]]; then
  printf '[secure] error: the secured HBase runs HBase %s only, not HBASE_ORM_HBASE_VERSION=%s (hbase.sh runs other lines, unsecured): unset it\n' \
    "$HBASE_VERSION" "$HBASE_ORM_HBASE_VERSION" >&2
  exit 1
fi
SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
LOCAL_DIR=$(cd -- "$SCRIPT_DIR/.." && pwd -P)
# JVM flags every HBase process needs on JDK 11 and later
mapfile -t JDK_FLAGS < <(grep -v '^#' "$LOCAL_DIR/jdk-flags")
POM=$LOCAL_DIR/pom.xml
CONF_SRC=$SCRIPT_DIR/conf
JAVA_SRC=$SCRIPT_DIR/java

if [[ -z "${HOME:-}" ]]; then
  HOME=$(getent passwd "$(id -u)" 2>/dev/null | cut -d: -f6 || true)
  HOME=${HOME:-/tmp}
fi
LIB_DIR=${HBASE_ORM_CACHE:-$HOME/.cache/hbase-orm}/hbase-$HBASE_VERSION/lib

DATA=${HBASE_ORM_SECURE_DATA:-/tmp/hbase-orm-secure}
case "$DATA" in /*) ;; *) DATA=$PWD/$DATA ;; esac
DATA=${DATA%/}
REALM=${HBASE_ORM_SECURE_REALM:-EXAMPLE.COM}
KDC_PORT=${HBASE_ORM_SECURE_KDC_PORT:-6088}
ZK_PORT=${HBASE_ORM_SECURE_ZK_PORT:-2381}
MASTER_PORT=${HBASE_ORM_SECURE_MASTER_PORT:-16200}
RS_PORT=${HBASE_ORM_SECURE_REGIONSERVER_PORT:-16220}
PORT_BASE=${HBASE_ORM_SECURE_PORT_BASE:-9290}
NAMENODE_PORT=${HBASE_ORM_SECURE_NAMENODE_PORT:-8220}
NAMENODE_HTTP_PORT=${HBASE_ORM_SECURE_NAMENODE_HTTP_PORT:-9970}
DATANODE_PORT=${HBASE_ORM_SECURE_DATANODE_PORT:-9966}
DATANODE_HTTP_PORT=${HBASE_ORM_SECURE_DATANODE_HTTP_PORT:-9964}
DATANODE_IPC_PORT=${HBASE_ORM_SECURE_DATANODE_IPC_PORT:-9967}
UP_TIMEOUT=${HBASE_ORM_SECURE_UP_TIMEOUT:-240}
MASTER_HEAP=${HBASE_ORM_SECURE_MASTER_HEAP:-1g}
GATEWAY_HEAP=${HBASE_ORM_SECURE_GATEWAY_HEAP:-512m}
PROTECTED_HEAP=${HBASE_ORM_SECURE_PROTECTED_HEAP:-512m}
NAMENODE_HEAP=${HBASE_ORM_SECURE_NAMENODE_HEAP:-512m}
DATANODE_HEAP=${HBASE_ORM_SECURE_DATANODE_HEAP:-256m}
# the host name in every service principal, and the one clients connect to
SVC_HOST=localhost

HTTPS2_PORT=$PORT_BASE
SASL_AUTH_PORT=$((PORT_BASE + 1))
SASL_INT_PORT=$((PORT_BASE + 2))
SASL_CONF_PORT=$((PORT_BASE + 3))
HTTPS1_PORT=$((PORT_BASE + 4))
SASL1_CONF_PORT=$((PORT_BASE + 5))

LOG_DIR=$DATA/logs
RUN_DIR=$DATA/run
KRB5_CONF=$DATA/krb5.conf
KDC_DIR=$DATA/kdc
KEYTABS=$DATA/keytabs
TLS_DIR=$DATA/tls
CLASSES=$DATA/classes
CCACHE=$DATA/client.ccache
MARKER=$DATA/.hbase-orm-secure-data
HDFS_DIR=$DATA/hdfs
# written by the NameNode's format: the data dir has an HDFS
HDFS_FORMATTED=$HDFS_DIR/namenode/current/VERSION
# written once /hbase and /tmp are made in HDFS
HDFS_PREPARED=$HDFS_DIR/.dirs-made
HDFS_URL=hdfs://127.0.0.1:$NAMENODE_PORT
# an HDFS client configuration (HADOOP_CONF_DIR of `env`)
HADOOP_CONF=$DATA/hadoop-conf
COMPONENTS=(kdc namenode datanode master master-privacy master-integrity master-hdfs gateways)
# the standalone HBases
MASTERS=(master master-privacy master-integrity master-hdfs)
# what `up` starts (cmd_up fills it); HDFS and master-hdfs are started by wait_ready, once the
# KDC (and then HDFS) is ready
TO_START=()
READY_LINE="Master has completed initialization"

say() { printf '[secure] %s\n' "$*"; }
warn() { printf '[secure] %s\n' "$*" >&2; }
die() { warn "error: $*"; exit 1; }

for v in KDC_PORT ZK_PORT MASTER_PORT RS_PORT PORT_BASE UP_TIMEOUT NAMENODE_PORT NAMENODE_HTTP_PORT \
  DATANODE_PORT DATANODE_HTTP_PORT DATANODE_IPC_PORT; do
  [[ "${!v}" =~ ^[0-9]+$ ]] || die "$v must be a number, got '${!v}'"
done
[[ "$REALM" =~ ^[A-Z0-9.-]+$ ]] || die "realm must be upper case letters, digits, dots: $REALM"

# ----------------------------------------------------------------------------- prerequisites

# command -> Debian package that provides it
declare -A PKG_OF=(
  [krb5kdc]=krb5-kdc [kdb5_util]=krb5-kdc [kadmin.local]=krb5-admin-server
  [kinit]=krb5-user [klist]=krb5-user [curl]=curl [java]=openjdk-17-jdk-headless
  [javac]=openjdk-17-jdk-headless [keytool]=openjdk-17-jdk-headless [mvn]=maven
  [ss]=iproute2 [tcpdump]=tcpdump
)

have() { command -v "$1" >/dev/null 2>&1 || [[ -x "/usr/sbin/$1" ]]; }

ensure_packages() {
  local cmd missing=() pkgs=()
  for cmd in "${!PKG_OF[@]}"; do
    have "$cmd" || missing+=("$cmd")
  done
  ((${#missing[@]} == 0)) && return 0
  for cmd in "${missing[@]}"; do
    [[ " ${pkgs[*]} " == *" ${PKG_OF[$cmd]} "* ]] || pkgs+=("${PKG_OF[$cmd]}")
  done
  if [[ $(id -u) != 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
    die "missing: ${missing[*]}; install: apt-get install ${pkgs[*]}"
  fi
  say "installing ${pkgs[*]} (missing: ${missing[*]}) ..."
  local start=$SECONDS
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >"$DATA/apt.log" 2>&1 ||
    { cat "$DATA/apt.log" >&2; die "apt-get install failed"; }
  say "installed in $((SECONDS - start)) s"
}

sbin() { if command -v "$1" >/dev/null 2>&1; then command -v "$1"; else echo "/usr/sbin/$1"; fi; }

# The HBase jars: the same Maven call and cache dir as hbase.sh (its marker file holds the
# pom's sha256), so whichever script runs first downloads them and the other reuses them.
ensure_jars() {
  local want
  want=$(sha256sum "$POM" | cut -d' ' -f1)
  if [[ -f "$LIB_DIR/.complete" && "$(cat "$LIB_DIR/.complete")" == "$want" ]]; then
    return 0
  fi
  say "resolving HBase $HBASE_VERSION jars with Maven into $LIB_DIR (first time only) ..."
  local tmp start=$SECONDS
  mkdir -p "$(dirname "$LIB_DIR")"
  tmp=$(mktemp -d "$(dirname "$LIB_DIR")/lib.tmp.XXXXXX")
  chmod 755 "$tmp"
  if ! mvn -q -B -Dstyle.color=never -f "$POM" dependency:copy-dependencies \
    -DoutputDirectory="$tmp" >"$tmp.log" 2>&1 </dev/null; then
    cat "$tmp.log" >&2
    rm -rf "$tmp" "$tmp.log"
    die "mvn dependency:copy-dependencies failed"
  fi
  rm -f "$tmp.log"
  printf '%s\n' "$want" >"$tmp/.complete"
  if [[ -f "$LIB_DIR/.complete" && "$(cat "$LIB_DIR/.complete")" == "$want" ]]; then
    rm -rf "$tmp" # hbase.sh finished the same download meanwhile
  else
    rm -rf "$LIB_DIR"
    mv "$tmp" "$LIB_DIR"
  fi
  say "jars ready in $((SECONDS - start)) s"
}

# compile java/*.java into $DATA/classes (again only when a source changed)
ensure_classes() {
  local want
  want=$(cat "$JAVA_SRC"/*.java | sha256sum | cut -d' ' -f1)
  if [[ -f "$CLASSES/.sources" && "$(cat "$CLASSES/.sources")" == "$want" ]]; then
    return 0
  fi
  rm -rf "$CLASSES"
  mkdir -p "$CLASSES"
  javac -nowarn -encoding UTF-8 -cp "$LIB_DIR/*" -d "$CLASSES" "$JAVA_SRC"/*.java ||
    die "javac failed"
  printf '%s\n' "$want" >"$CLASSES/.sources"
}

# ----------------------------------------------------------------------------- Kerberos

write_krb5_conf() {
  cat >"$KRB5_CONF" <<EOF
# generated by hbase-local/secure/secure.sh: clients use it with KRB5_CONFIG=$KRB5_CONF,
# the JVMs with -Djava.security.krb5.conf=$KRB5_CONF
[libdefaults]
  default_realm = $REALM
  # no DNS: the KDC is given below, every host maps to the realm
  dns_lookup_kdc = false
  dns_lookup_realm = false
  # a service name HTTP@localhost or hbase@localhost becomes exactly HTTP/localhost, with no
  # forward (canonical name) or reverse lookup that could turn localhost into the machine name
  dns_canonicalize_hostname = false
  rdns = false
  # TCP only: no UDP retries, and large tickets never hit the UDP size limit
  udp_preference_limit = 1
  default_ccache_name = FILE:$CCACHE
  ticket_lifetime = 24h
  renew_lifetime = 7d
  forwardable = true

[realms]
  $REALM = {
    kdc = 127.0.0.1:$KDC_PORT
  }

[domain_realm]
  localhost = $REALM
  .localhost = $REALM
  127.0.0.1 = $REALM
EOF
}

kdc_env() {
  export KRB5_CONFIG=$KRB5_CONF
  export KRB5_KDC_PROFILE=$KDC_DIR/kdc.conf
}

init_kdc() {
  [[ -f "$KDC_DIR/principal" ]] && return 0
  say "creating realm $REALM and principals ..."
  rm -rf "$KDC_DIR" "$KEYTABS"
  mkdir -p "$KDC_DIR" "$KEYTABS"
  chmod 700 "$KDC_DIR" "$KEYTABS"
  cat >"$KDC_DIR/kdc.conf" <<EOF
# generated by hbase-local/secure/secure.sh (used with KRB5_KDC_PROFILE)
[kdcdefaults]
  kdc_listen = 127.0.0.1:$KDC_PORT
  kdc_tcp_listen = 127.0.0.1:$KDC_PORT

[realms]
  $REALM = {
    database_name = $KDC_DIR/principal
    key_stash_file = $KDC_DIR/stash
    acl_file = $KDC_DIR/kadm5.acl
    max_life = 24h
    max_renewable_life = 7d
    # what MIT krb5 and Java 17 both do by default; no DES/RC4
    supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
  }

[logging]
  kdc = FILE:$KDC_DIR/kdc.log
EOF
  : >"$KDC_DIR/kadm5.acl"
  kdc_env
  local pw
  pw=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
  "$(sbin kdb5_util)" create -s -r "$REALM" -P "$pw" -W >"$KDC_DIR/init.log" 2>&1 ||
    { cat "$KDC_DIR/init.log" >&2; die "kdb5_util create failed"; }
  # random keys; the keytabs are the only way to authenticate
  "$(sbin kadmin.local)" -r "$REALM" >>"$KDC_DIR/init.log" 2>&1 <<EOF ||
addprinc -randkey hbase/$SVC_HOST
addprinc -randkey HTTP/$SVC_HOST
addprinc -randkey client
addprinc -randkey alice
addprinc -randkey bob
ktadd -k $KEYTABS/hbase.keytab hbase/$SVC_HOST HTTP/$SVC_HOST
ktadd -k $KEYTABS/client.keytab client
ktadd -k $KEYTABS/alice.keytab alice
ktadd -k $KEYTABS/bob.keytab bob
EOF
    { cat "$KDC_DIR/init.log" >&2; die "kadmin.local failed"; }
  [[ -s "$KEYTABS/client.keytab" && -s "$KEYTABS/hbase.keytab" ]] ||
    { cat "$KDC_DIR/init.log" >&2; die "keytabs were not written"; }
}

# HDFS's service principal, hdfs/localhost, in keytabs/hdfs.keytab with HTTP/localhost (the
# NameNode's SPNEGO acceptor). Its own step, so that a realm made before HDFS was added gets it
# too. HTTP/localhost is exported with -norandkey: a plain ktadd would give it a new random key
# (a new kvno) and the copy in hbase.keytab, which the HTTPS gateways use, would stop working.
ensure_hdfs_principal() {
  [[ -s "$KEYTABS/hdfs.keytab" ]] && return 0
  kdc_env
  local kadmin
  kadmin=$(sbin kadmin.local)
  if ! "$kadmin" -r "$REALM" -q "getprinc hdfs/$SVC_HOST" 2>/dev/null | grep -q '^Principal:'; then
    "$kadmin" -r "$REALM" -q "addprinc -randkey hdfs/$SVC_HOST" >>"$KDC_DIR/init.log" 2>&1 ||
      { cat "$KDC_DIR/init.log" >&2; die "kadmin.local addprinc hdfs/$SVC_HOST failed"; }
  fi
  "$kadmin" -r "$REALM" -q "ktadd -norandkey -k $KEYTABS/hdfs.keytab hdfs/$SVC_HOST HTTP/$SVC_HOST" \
    >>"$KDC_DIR/init.log" 2>&1 || { cat "$KDC_DIR/init.log" >&2; die "kadmin.local ktadd (hdfs.keytab) failed"; }
  klist -k "$KEYTABS/hdfs.keytab" 2>/dev/null | grep -q "HTTP/$SVC_HOST@" ||
    { cat "$KDC_DIR/init.log" >&2; die "hdfs.keytab was not written"; }
}

# ----------------------------------------------------------------------------- HDFS client conf

# $DATA/hadoop-conf: what an HDFS client outside the JVMs (HADOOP_CONF_DIR; e.g. the Rust crate
# hdfs-native, or Hadoop's own tools) needs to talk to the Kerberized HDFS
write_hadoop_conf() {
  mkdir -p "$HADOOP_CONF"
  cat >"$HADOOP_CONF/core-site.xml" <<EOF
<?xml version="1.0"?>
<!-- generated by hbase-local/secure/secure.sh: the client side of its Kerberized HDFS -->
<configuration>
  <property><name>fs.defaultFS</name><value>$HDFS_URL</value></property>
  <property><name>hadoop.security.authentication</name><value>kerberos</value></property>
  <property><name>hadoop.rpc.protection</name><value>authentication</value></property>
</configuration>
EOF
  cat >"$HADOOP_CONF/hdfs-site.xml" <<EOF
<?xml version="1.0"?>
<!-- generated by hbase-local/secure/secure.sh: the client side of its Kerberized HDFS -->
<configuration>
  <property><name>dfs.namenode.kerberos.principal</name><value>hdfs/$SVC_HOST@$REALM</value></property>
  <property><name>dfs.data.transfer.protection</name><value>authentication</value></property>
  <property><name>dfs.block.access.token.enable</name><value>true</value></property>
  <!-- one DataNode: one replica (the default, 3, leaves every block under-replicated) -->
  <property><name>dfs.replication</name><value>1</value></property>
</configuration>
EOF
}

# ----------------------------------------------------------------------------- TLS

init_tls() {
  [[ -f "$TLS_DIR/server.p12" && -f "$TLS_DIR/ca.pem" ]] && return 0
  say "creating a CA and the HTTPS certificate (localhost, 127.0.0.1) ..."
  rm -rf "$TLS_DIR"
  mkdir -p "$TLS_DIR"
  chmod 700 "$TLS_DIR"
  local pw kt=(keytool -noprompt -storetype pkcs12)
  pw=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
  printf '%s\n' "$pw" >"$TLS_DIR/password"
  (
    cd "$TLS_DIR"
    # a CA of its own (clients trust ca.pem), and a server certificate it signs: TLS libraries
    # such as rustls refuse a self-signed certificate that is its own trust anchor
    "${kt[@]}" -genkeypair -alias ca -keyalg RSA -keysize 2048 -validity 3650 \
      -dname "CN=hbase-orm secure test CA" -ext bc:c -keystore ca.p12 -storepass "$pw"
    "${kt[@]}" -exportcert -rfc -alias ca -keystore ca.p12 -storepass "$pw" -file ca.pem
    "${kt[@]}" -genkeypair -alias server -keyalg RSA -keysize 2048 -validity 3650 \
      -dname "CN=localhost" -keystore server.p12 -storepass "$pw"
    "${kt[@]}" -certreq -alias server -keystore server.p12 -storepass "$pw" -file server.csr
    "${kt[@]}" -gencert -alias ca -keystore ca.p12 -storepass "$pw" -infile server.csr \
      -outfile server.pem -rfc -validity 3650 \
      -ext SAN=dns:localhost,ip:127.0.0.1 -ext EKU=serverAuth \
      -ext KU=digitalSignature,keyEncipherment
    "${kt[@]}" -importcert -alias ca -file ca.pem -keystore server.p12 -storepass "$pw"
    "${kt[@]}" -importcert -alias server -file server.pem -keystore server.p12 -storepass "$pw"
    rm -f server.csr
  ) >"$DATA/logs/tls.log" 2>&1 || { cat "$DATA/logs/tls.log" >&2; die "keytool failed"; }
}

# ----------------------------------------------------------------------------- processes

pid_file() { printf '%s/%s.pid' "$RUN_DIR" "$1"; }
log_file() {
  case "$1" in
    kdc) printf '%s/kdc.log' "$KDC_DIR" ;;
    *) printf '%s/%s.log' "$LOG_DIR" "$1" ;;
  esac
}
out_file() { printf '%s/%s.out' "$LOG_DIR" "$1"; }

component_pid() {
  local f pid
  f=$(pid_file "$1")
  [[ -f "$f" ]] || return 1
  pid=$(cat "$f")
  [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 1
  # a pid file outlives a reboot or a crash, and pids are reused: only a process whose command
  # line names our data dir is ours (every JVM has -Dhbase.orm.secure.data=, krb5kdc -P)
  if [[ -r "/proc/$pid/cmdline" ]]; then
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$DATA/" || return 1
  fi
  printf '%s' "$pid"
}

# a standalone HBase's port offset from the first one's, and its hbase.rpc.protection
master_offset() {
  case "$1" in
    master) echo 0 ;;
    master-privacy) echo 1 ;;
    master-integrity) echo 2 ;;
    master-hdfs) echo 3 ;;
  esac
}
master_protection() {
  case "$1" in
    master | master-hdfs) echo authentication ;;
    *) echo "${1#master-}" ;;
  esac
}
# where a standalone HBase keeps its root dir, ZooKeeper data and temporary files
master_home() {
  case "$1" in
    master) echo "$DATA" ;;
    master-hdfs) echo "$DATA/hdfs-hbase" ;;
    *) echo "$DATA/${1#master-}" ;;
  esac
}
# its hbase.rootdir and hbase.wal.provider
master_rootdir() {
  case "$1" in
    master-hdfs) echo "$HDFS_URL/hbase" ;;
    *) echo "file://$(master_home "$1")/hbase" ;;
  esac
}
master_wal_provider() {
  case "$1" in
    # HBase's default: its own fan-out DFS output, which does the DataNode's SASL handshake
    master-hdfs) echo asyncfs ;;
    # FSHLog: the local filesystem cannot hflush, which asyncfs needs
    *) echo filesystem ;;
  esac
}

ports_of() {
  case "$1" in
    kdc) echo "$KDC_PORT" ;;
    namenode) echo "$NAMENODE_PORT $NAMENODE_HTTP_PORT" ;;
    datanode) echo "$DATANODE_PORT $DATANODE_HTTP_PORT $DATANODE_IPC_PORT" ;;
    master*)
      local o
      o=$(master_offset "$1")
      echo "$((ZK_PORT + o)) $((MASTER_PORT + o)) $((RS_PORT + o))"
      ;;
    gateways) echo "$HTTPS2_PORT $SASL_AUTH_PORT $SASL_INT_PORT $SASL_CONF_PORT $HTTPS1_PORT $SASL1_CONF_PORT" ;;
  esac
}

port_listening() { ss -ltnH "sport = :$1" 2>/dev/null | grep -q .; }

JAVA_OPTS=()
# jvm_opts NAME HEAP [HBASE]: the options of a JVM named NAME, a server or client of the
# standalone HBase HBASE (default master)
jvm_opts() {
  local name=$1 heap=$2 hbase=${3:-master} o
  o=$(master_offset "$hbase")
  JAVA_OPTS=(
    "-Xmx$heap" -XX:+ExitOnOutOfMemoryError
    -Djava.net.preferIPv4Stack=true -Djava.awt.headless=true
    # Kerberos: our krb5.conf; the JVM's host name resolves to localhost from our own hosts
    # file (HBase puts the resolved host name into the Thrift SASL server name)
    "-Djava.security.krb5.conf=$KRB5_CONF"
    "-Djdk.net.hosts.file=$DATA/conf/hosts"
    # ZooKeeper (embedded in the master) runs without SASL
    -Dzookeeper.sasl.client=false
    # run-time values substituted into conf/hbase-site.xml
    "-Dhbase.orm.secure.data=$DATA" "-Dhbase.orm.secure.realm=$REALM"
    "-Dhbase.orm.secure.host=$SVC_HOST" "-Dhbase.orm.secure.zk.port=$((ZK_PORT + o))"
    "-Dhbase.orm.secure.master.port=$((MASTER_PORT + o))"
    "-Dhbase.orm.secure.regionserver.port=$((RS_PORT + o))"
    "-Dhbase.orm.secure.home=$(master_home "$hbase")"
    "-Dhbase.orm.secure.rpc.protection=$(master_protection "$hbase")"
    "-Dhbase.orm.secure.tls.password=$(cat "$TLS_DIR/password")"
    "-Dhbase.orm.secure.rootdir=$(master_rootdir "$hbase")"
    "-Dhbase.orm.secure.wal.provider=$(master_wal_provider "$hbase")"
    # the Kerberized HDFS (conf/hdfs-site.xml)
    "-Dhbase.orm.secure.namenode.port=$NAMENODE_PORT"
    "-Dhbase.orm.secure.namenode.http.port=$NAMENODE_HTTP_PORT"
    "-Dhbase.orm.secure.datanode.port=$DATANODE_PORT"
    "-Dhbase.orm.secure.datanode.http.port=$DATANODE_HTTP_PORT"
    "-Dhbase.orm.secure.datanode.ipc.port=$DATANODE_IPC_PORT"
    # what bin/hbase adds on JDK 11 and later (hbase-local/jdk-flags)
    "${JDK_FLAGS[@]}"
    "-Dlog4j2.configurationFile=$CONF_SRC/log4j2.properties"
    "-Dhbase.log.dir=$LOG_DIR" "-Dhbase.log.file=$name.log" -Dlog4j2.shutdownHookEnabled=false
    -cp "$CONF_SRC:$CLASSES:$LIB_DIR/*"
  )
}

# run "$@" in the background in its own session, output to $2's .out, pid into its pid file
spawn() {
  local name=$1
  shift
  local f
  for f in "$(log_file "$name")" "$(out_file "$name")"; do
    [[ -f "$f" ]] && mv -f "$f" "$f.prev"
  done
  (
    cd "$DATA"
    exec setsid nohup "$@" >"$(out_file "$name")" 2>&1 </dev/null
  ) &
  printf '%s\n' "$!" >"$(pid_file "$name")"
}

start_kdc() {
  kdc_env
  # -n: stay in the foreground (our pid file holds the real pid); -P puts the data dir into
  # its command line, which component_pid checks
  spawn kdc "$(sbin krb5kdc)" -n -r "$REALM" -P "$KDC_DIR/krb5kdc.pid"
}

start_master() { # start_master NAME
  local heap=$MASTER_HEAP
  [[ "$1" == master ]] || heap=$PROTECTED_HEAP
  mkdir -p "$(master_home "$1")"
  jvm_opts "$1" "$heap" "$1"
  spawn "$1" java "${JAVA_OPTS[@]}" org.apache.hadoop.hbase.master.HMaster start
}

# ----------------------------------------------------------------------------- HDFS

# Formats the NameNode's metadata dir, in the foreground (first start of a data dir). The
# format logs in as hdfs/localhost: the KDC must answer.
hdfs_format() {
  say "formatting HDFS (first start of this data dir): NameNode metadata in $HDFS_DIR/namenode"
  mkdir -p "$HDFS_DIR"
  jvm_opts namenode-format "$NAMENODE_HEAP"
  # a new HDFS has neither /hbase nor /tmp yet; -force: a format cut short left a dir without
  # VERSION, which -nonInteractive alone refuses to format again
  rm -f "$HDFS_PREPARED"
  if ! (cd "$DATA" && exec java "${JAVA_OPTS[@]}" org.apache.hadoop.hdfs.server.namenode.NameNode \
    -format -nonInteractive -force -clusterid hbase-orm-secure >"$(out_file namenode-format)" 2>&1 </dev/null) ||
    [[ ! -f "$HDFS_FORMATTED" ]]; then
    tail -n 40 "$(out_file namenode-format)" "$(log_file namenode-format)" >&2 2>/dev/null
    die "formatting HDFS failed (logs in $LOG_DIR)"
  fi
}

start_namenode() {
  [[ -f "$HDFS_FORMATTED" ]] || hdfs_format
  jvm_opts namenode "$NAMENODE_HEAP"
  spawn namenode java "${JAVA_OPTS[@]}" org.apache.hadoop.hdfs.server.namenode.NameNode
}

start_datanode() {
  # its storage is made by the DataNode itself (mode 700, as it checks)
  mkdir -p "$HDFS_DIR"
  jvm_opts datanode "$DATANODE_HEAP"
  spawn datanode java "${JAVA_OPTS[@]}" org.apache.hadoop.hdfs.server.datanode.DataNode
}

# The NameNode's NameNodeInfo bean, from its /jmx over HTTP (open without SPNEGO: only WebHDFS
# and the NameNode's internal servlets ask for it)
namenode_info() {
  curl -s --max-time 3 \
    "http://127.0.0.1:$NAMENODE_HTTP_PORT/jmx?qry=Hadoop:service=NameNode,name=NameNodeInfo"
}

# true if the NameNode answers, is out of safe mode and counts the DataNode as live
hdfs_ready() {
  local info
  info=$(namenode_info) || return 1
  # LiveNodes is a JSON string in the JSON: drop its backslashes
  info=${info//\\/}
  [[ "$info" == *'"Safemode" : ""'* && "$info" == *"\"xferaddr\":\"127.0.0.1:$DATANODE_PORT\""* ]]
}

# /hbase owned by hbase (755) and /tmp (1777), as hdfs/localhost (HDFS's superuser), once per
# data dir (java/HdfsSetup.java)
hdfs_prepare() {
  [[ -f "$HDFS_PREPARED" ]] && return 0
  jvm_opts hdfs-setup 256m
  if ! (cd "$DATA" && exec timeout 120 java "${JAVA_OPTS[@]}" HdfsSetup "$HDFS_URL" \
    "$KEYTABS/hdfs.keytab" "hdfs/$SVC_HOST@$REALM" >"$(out_file hdfs-setup)" 2>&1 </dev/null); then
    tail -n 40 "$(out_file hdfs-setup)" >&2
    die "making /hbase and /tmp in HDFS failed (logs in $LOG_DIR)"
  fi
  touch "$HDFS_PREPARED"
  say "made /hbase (owner hbase, 755) and /tmp (1777) in HDFS"
}

start_gateways() {
  jvm_opts gateways "$GATEWAY_HEAP"
  local https="hbase.regionserver.thrift.http=true,hbase.thrift.ssl.enabled=true"
  https+=",hbase.thrift.support.proxyuser=true"
  spawn gateways java "${JAVA_OPTS[@]}" SecureGateways \
    "thrift2-https,thrift2,$HTTPS2_PORT,$https" \
    "thrift2-sasl-auth,thrift2,$SASL_AUTH_PORT,hbase.thrift.security.qop=authentication" \
    "thrift2-sasl-int,thrift2,$SASL_INT_PORT,hbase.thrift.security.qop=integrity" \
    "thrift2-sasl-conf,thrift2,$SASL_CONF_PORT,hbase.thrift.security.qop=privacy" \
    "thrift1-https,thrift1,$HTTPS1_PORT,$https" \
    "thrift1-sasl-conf,thrift1,$SASL1_CONF_PORT,hbase.thrift.security.qop=privacy"
}

# Ask HBase to shut down the way bin/stop-hbase.sh does (`HMaster stop --shutDownCluster`, a
# client JVM logged in as hbase/localhost from a ticket cache of its own). A plain SIGTERM to a
# standalone HMaster stops the master first; the region server in the same JVM then waits for
# it until Hadoop's shutdown-hook timeout (30 s) runs out.
request_shutdown() { # request_shutdown NAME
  grep -q "$READY_LINE" "$(log_file "$1")" 2>/dev/null || return 1
  component_pid kdc >/dev/null || return 1
  local cc=$RUN_DIR/$1-stop.ccache
  KRB5_CONFIG=$KRB5_CONF KRB5CCNAME=FILE:$cc kinit -kt "$KEYTABS/hbase.keytab" \
    "hbase/$SVC_HOST@$REALM" >/dev/null 2>&1 || return 1
  jvm_opts "$1-stop" 256m "$1"
  say "asking $1 to shut down"
  KRB5CCNAME=FILE:$cc timeout 60 java "${JAVA_OPTS[@]}" org.apache.hadoop.hbase.master.HMaster \
    stop --shutDownCluster >"$(out_file "$1-stop")" 2>&1 </dev/null
  local rc=$?
  rm -f "$cc"
  return "$rc"
}

wait_gone() { # wait_gone SECONDS PID...
  local limit=$1 i p alive
  shift
  for ((i = 0; i < limit * 10; i++)); do
    alive=0
    for p in "$@"; do kill -0 "$p" 2>/dev/null && alive=1; done
    ((alive)) || return 0
    sleep 0.1
  done
  return 1
}

# TERM the running ones of components "$@", wait up to 30 s for them together, then KILL
term_components() {
  local name pid pids=() names=() i
  for name in "$@"; do
    if pid=$(component_pid "$name"); then
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$pid")
      names+=("$name")
    fi
  done
  ((${#pids[@]})) || return 0
  wait_gone 30 "${pids[@]}" || true
  for i in "${!pids[@]}"; do
    if kill -0 "${pids[$i]}" 2>/dev/null; then
      warn "${names[$i]} (pid ${pids[$i]}) ignored TERM for 30 s: kill -9"
      kill -KILL "${pids[$i]}" 2>/dev/null || true
    fi
    say "stopped ${names[$i]} (pid ${pids[$i]})"
  done
}

stop_all() {
  local name pid i gw=""
  if gw=$(component_pid gateways); then
    kill -TERM "$gw" 2>/dev/null || true
  fi
  # the HBases shut down together (each asked by a client JVM of its own)
  local stopping=() stopping_names=()
  for name in "${MASTERS[@]}"; do
    if pid=$(component_pid "$name"); then
      request_shutdown "$name" &
      stopping+=("$pid")
      stopping_names+=("$name")
    fi
  done
  wait
  for i in "${!stopping[@]}"; do
    if wait_gone 30 "${stopping[$i]}"; then
      say "stopped ${stopping_names[$i]} (pid ${stopping[$i]})"
    else
      warn "${stopping_names[$i]} still running 30 s after the shutdown request"
    fi
  done
  if [[ -n "$gw" ]] && wait_gone 10 "$gw"; then
    say "stopped gateways (pid $gw)"
  fi
  # whatever is left, in reverse start order: the HBases and the gateways (TERM first), then
  # HDFS (master-hdfs is gone: its WALs are closed), DataNode before NameNode, then the KDC
  term_components gateways master-hdfs master-integrity master-privacy master
  term_components datanode
  term_components namenode
  term_components kdc
  rm -f "$RUN_DIR"/*.pid 2>/dev/null || true
}

# ----------------------------------------------------------------------------- probes

# the Thrift binary-protocol bytes of one call, to stdout
#   thrift2: tableExists(TTableName{ns=hbase, qualifier=namespace})
#   thrift1: isTableEnabled("hbase:namespace")
call_bytes() {
  case "$1" in
    thrift2)
      printf '\x80\x01\x00\x01\x00\x00\x00\x0btableExists\x00\x00\x00\x01'
      printf '\x0c\x00\x01\x0b\x00\x01\x00\x00\x00\x05hbase\x0b\x00\x02\x00\x00\x00\x09namespace'
      printf '\x00\x00'
      ;;
    thrift1)
      printf '\x80\x01\x00\x01\x00\x00\x00\x0eisTableEnabled\x00\x00\x00\x01'
      printf '\x0b\x00\x01\x00\x00\x00\x0fhbase:namespace\x00'
      ;;
  esac
}

client_ticket() {
  KRB5_CONFIG=$KRB5_CONF KRB5CCNAME=FILE:$CCACHE kinit -kt "$KEYTABS/client.keytab" \
    "client@$REALM" >/dev/null 2>&1
}

# true iff an HTTPS gateway answers the call with a REPLY whose bool field 0 is true
https_answers() {
  local port=$1 kind=$2 reply
  reply=$(call_bytes "$kind" | KRB5_CONFIG=$KRB5_CONF KRB5CCNAME=FILE:$CCACHE \
    curl -s --max-time 10 --negotiate -u : --cacert "$TLS_DIR/ca.pem" \
    -H 'Content-Type: application/x-thrift' --data-binary @- \
    "https://$SVC_HOST:$port/" | od -An -tx1 | tr -d ' \n') || return 1
  # 80010002 + name + seqid, then field 0 (bool) = 1, stop
  [[ "$reply" == 80010002* && "$reply" == *0200000100 ]]
}

# one JVM asks every SASL gateway
sasl_answer() {
  java -Djava.security.krb5.conf="$KRB5_CONF" -cp "$CLASSES" SaslProbe \
    --keytab "$KEYTABS/client.keytab" --principal "client@$REALM" "$@"
}

SASL_TARGETS=()
set_sasl_targets() {
  SASL_TARGETS=("auth:$SASL_AUTH_PORT" "auth-int:$SASL_INT_PORT" "auth-conf:$SASL_CONF_PORT"
    "t1:auth-conf:$SASL1_CONF_PORT")
}

# ----------------------------------------------------------------------------- commands

check_data_dir() {
  if [[ -d "$DATA" && ! -f "$MARKER" ]] && [[ -n "$(ls -A "$DATA" 2>/dev/null)" ]]; then
    die "$DATA exists and was not made by this script (no $(basename "$MARKER")): choose another HBASE_ORM_SECURE_DATA"
  fi
  mkdir -p "$DATA" "$LOG_DIR" "$RUN_DIR" "$DATA/conf"
  touch "$MARKER"
}

to_start_has() { [[ " ${TO_START[*]} " == *" $1 "* ]]; }

cmd_up() {
  local t0=$SECONDS name
  check_data_dir
  local to_start=()
  for name in "${COMPONENTS[@]}"; do
    component_pid "$name" >/dev/null || to_start+=("$name")
  done
  # master-hdfs lost its storage with a NameNode or DataNode that is not running: start it again
  # on the new one
  TO_START=("${to_start[@]}")
  if { to_start_has namenode || to_start_has datanode; } && component_pid master-hdfs >/dev/null; then
    say "HDFS is not running: stopping master-hdfs to start it again on HDFS"
    term_components master-hdfs
    TO_START+=(master-hdfs)
  fi
  if ((${#TO_START[@]})); then
    local p
    for name in "${TO_START[@]}"; do
      for p in $(ports_of "$name"); do
        port_listening "$p" && die "port $p (for $name) is in use by another process"
      done
    done
    ensure_packages
    ensure_jars
    ensure_classes
    write_krb5_conf
    init_kdc
    ensure_hdfs_principal
    init_tls
    write_hadoop_conf
    # the JVMs' view of host names (-Djdk.net.hosts.file): this machine's name is localhost
    printf '127.0.0.1 localhost %s\n' "$(hostname)" >"$DATA/conf/hosts"
    say "prepared in $((SECONDS - t0)) s; starting: ${TO_START[*]}"
    # the KDC now; the rest by wait_ready once it answers: HDFS first (its format logs in
    # from a keytab, and it is on the way to master-hdfs, the last to be ready), then the other
    # HBases and the gateways, master-hdfs once HDFS is ready
    if to_start_has kdc; then start_kdc; fi
  else
    say "already running"
  fi
  wait_ready "$t0"
}

# dies (with the end of its logs) unless every component in "$@" is running
die_if_dead() {
  local name
  for name in "$@"; do
    component_pid "$name" >/dev/null ||
      { tail -n 30 "$(out_file "$name")" "$(log_file "$name")" >&2 2>/dev/null; die "$name exited"; }
  done
}

wait_ready() {
  local t0=$1 deadline=$((SECONDS + UP_TIMEOUT)) name
  # the KDC
  until port_listening "$KDC_PORT" && client_ticket; do
    component_pid kdc >/dev/null || { tail -n 20 "$(log_file kdc)" "$(out_file kdc)" >&2; die "the KDC exited"; }
    ((SECONDS < deadline)) || die "no ticket from the KDC after $UP_TIMEOUT s"
    sleep 0.2
  done
  say "KDC ready ($((SECONDS - t0)) s); client@$REALM ticket in $CCACHE"
  # HDFS: the format and both daemons log in from hdfs.keytab
  if to_start_has namenode; then
    start_namenode
    say "started namenode ($((SECONDS - t0)) s)"
  fi
  if to_start_has datanode; then
    start_datanode
    say "started datanode ($((SECONDS - t0)) s)"
  fi
  for name in master master-privacy master-integrity gateways; do
    to_start_has "$name" || continue
    case "$name" in
      master*) start_master "$name" ;;
      gateways) start_gateways ;;
    esac
  done
  local others=(master master-privacy master-integrity gateways)
  until hdfs_ready; do
    die_if_dead namenode datanode "${others[@]}"
    ((SECONDS < deadline)) || die "HDFS not ready (out of safe mode, DataNode live) after $UP_TIMEOUT s (logs: $LOG_DIR)"
    sleep 0.5
  done
  say "HDFS ready: $HDFS_URL, DataNode 127.0.0.1:$DATANODE_PORT live ($((SECONDS - t0)) s)"
  hdfs_prepare
  if to_start_has master-hdfs; then
    start_master master-hdfs
    say "started master-hdfs ($((SECONDS - t0)) s)"
  fi
  local hbase
  for hbase in "${MASTERS[@]}"; do
    until grep -q "$READY_LINE" "$(log_file "$hbase")" 2>/dev/null; do
      die_if_dead namenode datanode "${MASTERS[@]}" gateways
      ((SECONDS < deadline)) || die "$hbase not initialized after $UP_TIMEOUT s (logs: $LOG_DIR)"
      sleep 1
    done
    say "$hbase initialized ($((SECONDS - t0)) s)"
  done
  set_sasl_targets
  local ok=0
  while ((SECONDS < deadline)); do
    component_pid gateways >/dev/null ||
      { tail -n 30 "$(out_file gateways)" >&2; die "the gateways JVM exited"; }
    if https_answers "$HTTPS2_PORT" thrift2 && https_answers "$HTTPS1_PORT" thrift1 &&
      sasl_answer "${SASL_TARGETS[@]}" >"$RUN_DIR/probe.out" 2>&1; then
      ok=1
      break
    fi
    sleep 1
  done
  ((ok)) || { cat "$RUN_DIR/probe.out" >&2 2>/dev/null; die "gateways not answering after $UP_TIMEOUT s"; }
  say "all gateways answer as client@$REALM ($((SECONDS - t0)) s from start)"
  describe
}

describe() {
  cat <<EOF
[secure] realm $REALM, KDC 127.0.0.1:$KDC_PORT, krb5.conf $KRB5_CONF
[secure] HBase: ZooKeeper 127.0.0.1:$ZK_PORT, master $MASTER_PORT, region server $RS_PORT (hbase.rpc.protection=authentication)
[secure] HBase: ZooKeeper 127.0.0.1:$((ZK_PORT + 1)), master $((MASTER_PORT + 1)), region server $((RS_PORT + 1)) (privacy)
[secure] HBase: ZooKeeper 127.0.0.1:$((ZK_PORT + 2)), master $((MASTER_PORT + 2)), region server $((RS_PORT + 2)) (integrity)
[secure] HBase: ZooKeeper 127.0.0.1:$((ZK_PORT + 3)), master $((MASTER_PORT + 3)), region server $((RS_PORT + 3)) (authentication; root dir $HDFS_URL/hbase)
[secure]   principal hbase/$SVC_HOST@$REALM ($KEYTABS/hbase.keytab)
[secure] HDFS: NameNode $HDFS_URL (HTTP 127.0.0.1:$NAMENODE_HTTP_PORT), DataNode 127.0.0.1:$DATANODE_PORT (HTTP $DATANODE_HTTP_PORT, IPC $DATANODE_IPC_PORT)
[secure]   principal hdfs/$SVC_HOST@$REALM ($KEYTABS/hdfs.keytab, HDFS superuser), SASL data transfer (auth), block tokens; /hbase owned by hbase, /tmp 1777
[secure]   client configuration: HADOOP_CONF_DIR=$HADOOP_CONF
[secure] Thrift2 HTTPS+SPNEGO   https://$SVC_HOST:$HTTPS2_PORT/   (HTTP/$SVC_HOST@$REALM, CA $TLS_DIR/ca.pem, doAs: client may act as alice and bob)
[secure] Thrift2 SASL auth      127.0.0.1:$SASL_AUTH_PORT   (service hbase@$SVC_HOST)
[secure] Thrift2 SASL auth-int  127.0.0.1:$SASL_INT_PORT
[secure] Thrift2 SASL auth-conf 127.0.0.1:$SASL_CONF_PORT
[secure] Thrift1 HTTPS+SPNEGO   https://$SVC_HOST:$HTTPS1_PORT/
[secure] Thrift1 SASL auth-conf 127.0.0.1:$SASL1_CONF_PORT
[secure] users: client@$REALM ($KEYTABS/client.keytab, HBase superuser), alice@$REALM and bob@$REALM ($KEYTABS/alice.keytab, bob.keytab: no rights until granted)
[secure] client setup: eval "\$($0 env)"   # then e.g. klist
EOF
}

cmd_env() {
  cat <<EOF
export KRB5_CONFIG=$KRB5_CONF
export KRB5CCNAME=FILE:$CCACHE
export HBASE_ORM_SECURE_CA=$TLS_DIR/ca.pem
export HBASE_ORM_SECURE_REALM=$REALM
export HBASE_ORM_SECURE_CLIENT_KEYTAB=$KEYTABS/client.keytab
export HBASE_ORM_SECURE_ALICE_KEYTAB=$KEYTABS/alice.keytab
export HBASE_ORM_SECURE_BOB_KEYTAB=$KEYTABS/bob.keytab
export HBASE_ORM_SECURE_HTTPS_URL=https://$SVC_HOST:$HTTPS2_PORT/
export HBASE_ORM_SECURE_SASL_AUTH=127.0.0.1:$SASL_AUTH_PORT
export HBASE_ORM_SECURE_SASL_INT=127.0.0.1:$SASL_INT_PORT
export HBASE_ORM_SECURE_SASL_CONF=127.0.0.1:$SASL_CONF_PORT
export HBASE_ORM_SECURE_ZK_PORT=$ZK_PORT
export HBASE_ORM_SECURE_RPC_PORTS=$MASTER_PORT,$RS_PORT
export HBASE_ORM_SECURE_PRIVACY_ZK_PORT=$((ZK_PORT + 1))
export HBASE_ORM_SECURE_PRIVACY_RPC_PORTS=$((MASTER_PORT + 1)),$((RS_PORT + 1))
export HBASE_ORM_SECURE_INTEGRITY_ZK_PORT=$((ZK_PORT + 2))
export HBASE_ORM_SECURE_INTEGRITY_RPC_PORTS=$((MASTER_PORT + 2)),$((RS_PORT + 2))
export HADOOP_CONF_DIR=$HADOOP_CONF
export HBASE_ORM_SECURE_HDFS_URL=$HDFS_URL
export HBASE_ORM_SECURE_NAMENODE_LOG=$(log_file namenode)
export HBASE_ORM_SECURE_HDFS_ZK_PORT=$((ZK_PORT + 3))
export HBASE_ORM_SECURE_HDFS_RPC_PORTS=$((MASTER_PORT + 3)),$((RS_PORT + 3))
EOF
}

cmd_down() {
  local purge=0
  [[ "${1:-}" == --purge ]] && purge=1
  [[ -d "$DATA" ]] || { say "nothing to stop ($DATA does not exist)"; return 0; }
  [[ -f "$MARKER" ]] || die "$DATA was not made by this script; not touching it"
  stop_all
  if ((purge)); then
    rm -rf "$DATA"
    say "removed $DATA"
  fi
}

cmd_status() {
  local name pid p all=0
  for name in "${COMPONENTS[@]}"; do
    if pid=$(component_pid "$name"); then
      local ports=""
      for p in $(ports_of "$name"); do
        if port_listening "$p"; then ports+=" $p"; else ports+=" $p(closed)"; all=1; fi
      done
      printf '%-9s pid %-7s ports%s\n' "$name" "$pid" "$ports"
    else
      printf '%-9s not running\n' "$name"
      all=1
    fi
  done
  if ((all == 0)); then
    if hdfs_ready; then
      echo "hdfs      $HDFS_URL out of safe mode, DataNode 127.0.0.1:$DATANODE_PORT live"
    else
      echo "hdfs      $HDFS_URL NOT ready (in safe mode, DataNode not live, or no answer)"
      all=1
    fi
    client_ticket || { echo "kinit: no ticket for client@$REALM"; all=1; }
    local kind port
    for kind in thrift2:$HTTPS2_PORT thrift1:$HTTPS1_PORT; do
      port=${kind#*:}
      if https_answers "$port" "${kind%%:*}"; then
        echo "$port https+spnego (${kind%%:*}): true"
      else
        echo "$port https+spnego (${kind%%:*}): FAILED"
        all=1
      fi
    done
    set_sasl_targets
    sasl_answer "${SASL_TARGETS[@]}" || all=1
  fi
  return "$all"
}

cmd_logs() {
  local n=40 name f
  [[ "${1:-}" == -n ]] && n=${2:-40}
  for name in "${COMPONENTS[@]}"; do
    for f in "$(log_file "$name")" "$(out_file "$name")"; do
      [[ -s "$f" ]] || continue
      printf '==> %s <==\n' "$f"
      tail -n "$n" "$f"
    done
  done
}

usage() { awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "${BASH_SOURCE[0]}"; }

case "${1:-}" in
  up) shift; cmd_up "$@" ;;
  down | stop) shift; cmd_down "$@" ;;
  status) shift; cmd_status "$@" ;;
  logs) shift; cmd_logs "$@" ;;
  env) cmd_env ;;
  -h | --help | help) usage ;;
  *) usage >&2; exit 2 ;;
esac
