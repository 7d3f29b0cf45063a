# shellcheck shell=bash
# Standalone mode of hbase-local/hbase.sh: one HMaster JVM runs ZooKeeper, the master and a
# region server (hbase.cluster.distributed=false), beside the four TCP gateways (common.sh) and
# the four over HTTP or HTTPS, which only this mode runs, with their TLS material and their
# proxy-user configuration. Calls into common.sh only.

# the gateways of standalone mode only (HTTP, HTTPS); not run on a line without gateways (3.x)
HTTP_GATEWAYS=(thrift-http thrift-https thrift1-http thrift1-https)
# the one user the gateways with proxy-user support let their own OS user impersonate
PROXY_USER_ALLOWED=alice
# Password of the HTTPS gateways' keystore (and of its key: PKCS12 has one for both). Test
# material on the loopback interface only; it is never printed, nor put on a command line.
TLS_STORE_PASSWORD=hbase-orm-local-test-keystore

# the processes of standalone mode (see common.sh, "the mode's processes")
standalone_define() {
  local name port http=()
  if has_gateways; then http=("${HTTP_GATEWAYS[@]}"); fi
  GATEWAYS=("${TCP_GATEWAYS[@]}" "${http[@]}")
  HBASE_SERVERS=(master)
  MASTER_HEAP=${HBASE_ORM_MASTER_HEAP:-2g}
  MODE_SUMMARY='standalone (ZooKeeper, master and region server in one JVM)'
  add_component master "$MASTER_RPC_PORT" \
    "ZooKeeper 127.0.0.1:$ZK_PORT, master :$MASTER_RPC_PORT, region server :$REGIONSERVER_RPC_PORT" \
    "$ZK_PORT $MASTER_RPC_PORT $REGIONSERVER_RPC_PORT"
  for name in "${TCP_GATEWAYS[@]}"; do
    add_tcp_gateway "$name"
  done
  for name in "${http[@]}"; do
    case "$name" in
      thrift-http)
        port=$THRIFT_HTTP_PORT
        add_component "$name" "$port" "Thrift2 http://127.0.0.1:$port/ binary, no doAs"
        ;;
      thrift-https)
        port=$THRIFT_HTTPS_PORT
        add_component "$name" "$port" "Thrift2 https://127.0.0.1:$port/ binary, doAs $PROXY_USER_ALLOWED"
        ;;
      thrift1-http)
        port=$THRIFT1_HTTP_PORT
        add_component "$name" "$port" "Thrift1 http://127.0.0.1:$port/ binary, no doAs"
        ;;
      thrift1-https)
        port=$THRIFT1_HTTPS_PORT
        add_component "$name" "$port" "Thrift1 https://127.0.0.1:$port/ binary, doAs $PROXY_USER_ALLOWED"
        ;;
    esac
  done
}

# says so and starts process $1 of standalone mode (not running)
standalone_start() {
  local name=$1 main args
  case "$name" in
    master)
      say "starting HBase $HBASE_VERSION master (standalone: ZooKeeper 127.0.0.1:$ZK_PORT + master + region server), data in $DATA_DIR"
      jvm_opts master "$MASTER_HEAP"
      # the region server's scanner lease (conf/hbase-site.xml's scanner timeout)
      JVM_OPTS+=("-Dhbase.orm.scanner.timeout.ms=$REGION_SCANNER_MS")
      add_extra_opts "${HBASE_ORM_MASTER_JAVA_OPTS:-}"
      spawn_jvm master org.apache.hadoop.hbase.master.HMaster start
      ;;
    thrift-http | thrift-https | thrift1-http | thrift1-https)
      if [[ "$name" == thrift1-* ]]; then
        main=org.apache.hadoop.hbase.thrift.ThriftServer
      else
        main=org.apache.hadoop.hbase.thrift2.ThriftServer
      fi
      args=(-b 127.0.0.1 -p "$(port_of "$name")" --infoport -1 start)
      say "starting gateway $(describe "$name")"
      case "$name" in
        thrift-http | thrift1-http)
          jvm_opts "$name" "$THRIFT_HEAP"
          # hbase.regionserver.thrift.http (conf/hbase-site.xml)
          JVM_OPTS+=(-Dhbase.orm.thrift.http=true)
          ;;
        *)
          # their generated core-site.xml (proxy-user rules, keystore passwords), first on the
          # classpath; HTTP, TLS with $KEYSTORE (hbase.thrift.ssl.*), doAs
          # (hbase.thrift.support.proxyuser)
          jvm_opts "$name" "$THRIFT_HEAP" "" "$GATEWAY_CONF_DIR"
          ensure_tls
          write_gateway_conf
          JVM_OPTS+=(-Dhbase.orm.thrift.http=true -Dhbase.orm.thrift.ssl=true -Dhbase.orm.thrift.proxyuser=true)
          ;;
      esac
      add_extra_opts "${HBASE_ORM_THRIFT_JAVA_OPTS:-}"
      spawn_jvm "$name" "$main" "${args[@]}"
      ;;
    *) start_tcp_gateway "$name" ;;
  esac
}

# Is process $1 ready? master: initialized; gateway: answers a real call.
standalone_ready() {
  case "$1" in
    master) master_initialized ;;
    *) ping_component "$1" 5 ;;
  esac
}

# status line of running process $1 (pid $2); false unless it is ready and answers
standalone_status() {
  case "$1" in
    master) master_status "$2" ;;
    *) gateway_status "$1" "$2" ;;
  esac
}

# `up` in standalone mode (the mode is set and saved, the lock held)
standalone_up() {
  local name pid
  local running=()
  for name in "${COMPONENTS[@]}"; do
    pid=$(component_pid "$name")
    [[ -n "$pid" ]] && running+=("$name")
  done

  if ((${#running[@]} == ${#COMPONENTS[@]})) && master_initialized && all_gateways_answer 3; then
    say "already up: $(gateways_summary); data in $DATA_DIR"
    if has_gateways; then say "$(tls_summary)"; fi
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
  if has_gateways; then
    ensure_tls
  else
    say "HBase $HBASE_VERSION: $NATIVE_ONLY_NOTE"
  fi

  for name in "${to_start[@]}"; do
    standalone_start "$name"
  done
  wait_all_ready "$t0"
  say "HBase is up after $((SECONDS - t0)) s: $(gateways_summary)"
  if has_gateways; then say "$(tls_summary)"; fi
}

# ----------------------------------------------------------------------------- TLS material

# where a client finds the CA certificate of the HTTPS gateways
tls_summary() {
  printf 'HTTPS gateways: CA certificate %s (%s: an unrelated one)' "$CA_PEM" "$OTHER_CA_PEM"
}

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
