#!/usr/bin/env bash
# CI stage: the Docker path (docker-compose.yml, hbase-local/Dockerfile) built and run for real.
# On a fresh Debian bookworm machine with nothing installed by hand:
#   1. installs docker.io, docker-compose and debootstrap with apt if missing;
#   2. starts `dockerd --storage-driver=vfs` in the background if no engine answers (no
#      systemd here), and stops it at the end if this stage started it;
#   3. makes the stand-in base image when it is not there yet: Docker Hub is out of reach, so a
#      Debian bookworm with openjdk-17-jre-headless, python3 and ca-certificates, made with
#      debootstrap and `docker import`ed as $HBASE_ORM_DOCKER_BASE;
#   4. builds the image on it (docker compose build; the jars come from Maven Central inside the
#      build), starts it (up -d) and waits until the container is healthy (bounded);
#   5. checks from the host that every gateway answers on $HBASE_ORM_DOCKER_ADDR (ping.py, the
#      HTTPS ones against the container's CA certificate), then runs the main example through
#      the Thrift2 gateway and through the native backend (ZooKeeper, master and region server
#      as the container advertises them);
#   6. down -v (the data volume goes too), whatever happened; on a failure the container's
#      logs are printed first.
# Every step is bounded by a timeout. The launcher's HBase must not hold the same ports:
# .ci/run stops it first (hbase-local/hbase.sh down).
#
# Environment:
#   HBASE_ORM_DOCKER_ADDR  host address the ports are published on and the servers advertise
#                          (default 127.0.0.1, as in docker-compose.yml; 127.0.0.2 runs this
#                          beside a launcher's HBase on 127.0.0.1)
#   HBASE_ORM_DOCKER_BASE  base image (default hbase-orm-base:bookworm-jre17, the stand-in this
#                          stage makes when missing; an existing image of that name is reused)
#   HBASE_ORM_DOCKER_HEALTH_TIMEOUT  seconds to wait for healthy (default 420)
set -euo pipefail
cd "$(dirname "$0")/.."

ADDR=${HBASE_ORM_DOCKER_ADDR:-127.0.0.1}
BASE=${HBASE_ORM_DOCKER_BASE:-hbase-orm-base:bookworm-jre17}
HEALTH_TIMEOUT=${HBASE_ORM_DOCKER_HEALTH_TIMEOUT:-420}
# a project name of its own: `down -v` finds what an earlier run of this stage left
PROJECT=hbase-orm-ci
export HBASE_ORM_DOCKER_ADDR=$ADDR HBASE_ORM_DOCKER_BASE=$BASE
export COMPOSE_PROJECT_NAME=$PROJECT

t_stage=$SECONDS
t_step=$SECONDS
TIMES=()
say() { printf '\n== docker: %s\n' "$*"; }
# ends the current step: its time for the summary
step_done() {
  TIMES+=("$(printf '%-34s %4d s' "$1" "$((SECONDS - t_step))")")
  t_step=$SECONDS
}

[[ "$ADDR" =~ ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$ ]] || {
  echo "HBASE_ORM_DOCKER_ADDR must be an IPv4 address, not '$ADDR'" >&2
  exit 2
}
[[ "$HEALTH_TIMEOUT" =~ ^[0-9]+$ ]] || {
  echo "HBASE_ORM_DOCKER_HEALTH_TIMEOUT must be a number of seconds" >&2
  exit 2
}

# ----------------------------------------------------------------------------- 1. packages

say "packages: docker.io, docker-compose, debootstrap"
missing=()
command -v dockerd >/dev/null || missing+=(docker.io)
command -v debootstrap >/dev/null || missing+=(debootstrap)
# Compose v2 (the docker CLI's plugin) if there is one, else v1 (Debian's docker-compose)
if ! docker compose version >/dev/null 2>&1 && ! command -v docker-compose >/dev/null; then
  missing+=(docker-compose)
fi
if ((${#missing[@]})); then
  timeout 600 apt-get update -qq
  DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y -qq "${missing[@]}"
fi
if docker compose version >/dev/null 2>&1; then
  COMPOSE=(docker compose)
else
  COMPOSE=(docker-compose)
fi
compose() { "${COMPOSE[@]}" "$@"; }
echo "compose: $(compose version 2>/dev/null | head -n 1)"
step_done "packages"

# ----------------------------------------------------------------------------- 2. engine

DOCKERD_PID=
DOCKERD_LOG=
stop_dockerd() {
  [[ -n "$DOCKERD_PID" ]] || return 0
  say "stop the Docker engine this stage started (pid $DOCKERD_PID)"
  kill -TERM "$DOCKERD_PID" 2>/dev/null || true
  local waited=0
  while kill -0 "$DOCKERD_PID" 2>/dev/null && ((waited < 60)); do
    sleep 1
    waited=$((waited + 1))
  done
  if kill -0 "$DOCKERD_PID" 2>/dev/null; then
    echo "dockerd still running after 60 s: KILL" >&2
    kill -KILL "$DOCKERD_PID" 2>/dev/null || true
  fi
  DOCKERD_PID=
}

ROOTFS=
CA_DIR=
UP=0
# on any exit: the container's logs if the stage failed, then down -v, then the engine
cleanup() {
  local rc=$?
  trap - EXIT
  set +e
  if ((UP)); then
    if ((rc != 0)); then
      say "the container's logs (last 150 lines) and state"
      timeout 60 "${COMPOSE[@]}" logs --no-color --tail 150
      timeout 30 "${COMPOSE[@]}" ps
    fi
    say "down -v"
    timeout 120 "${COMPOSE[@]}" down -v --remove-orphans
  fi
  if [[ -n "$ROOTFS" ]]; then
    # debootstrap cut short, or the step below, may have left /proc or /sys mounted inside
    awk -v root="$ROOTFS/" 'index($2, root) == 1 { print $2 }' /proc/mounts | sort -r |
      while read -r mounted; do umount -l "$mounted"; done
    rm -rf --one-file-system "$ROOTFS" "$ROOTFS.log"
  fi
  [[ -z "$CA_DIR" ]] || rm -rf "$CA_DIR"
  if ((rc != 0)) && [[ -n "$DOCKERD_LOG" && -s "$DOCKERD_LOG" ]]; then
    say "dockerd's log (last 30 lines)"
    tail -n 30 "$DOCKERD_LOG"
  fi
  stop_dockerd
  [[ -z "$DOCKERD_LOG" ]] || rm -f "$DOCKERD_LOG"
  exit "$rc"
}
trap cleanup EXIT
# a TERM or INT (a timeout around this stage) ends the stage through the same cleanup
trap 'exit 143' TERM
trap 'exit 130' INT

say "engine"
if timeout 20 docker info >/dev/null 2>&1; then
  echo "a Docker engine answers: using it"
else
  DOCKERD_LOG=$(mktemp /tmp/hbase-orm-dockerd.XXXXXX.log)
  # its own session: a signal to this stage's process group does not reach it, the cleanup
  # stops it after down -v
  setsid dockerd --storage-driver=vfs >"$DOCKERD_LOG" 2>&1 </dev/null &
  DOCKERD_PID=$!
  echo "started dockerd --storage-driver=vfs (pid $DOCKERD_PID, log $DOCKERD_LOG)"
  deadline=$((SECONDS + 90))
  until timeout 10 docker info >/dev/null 2>&1; do
    if ! kill -0 "$DOCKERD_PID" 2>/dev/null; then
      DOCKERD_PID=
      echo "dockerd exited" >&2
      exit 1
    fi
    if ((SECONDS >= deadline)); then
      echo "dockerd does not answer after 90 s" >&2
      exit 1
    fi
    sleep 1
  done
fi
docker version --format 'engine {{.Server.Version}}, client {{.Client.Version}}'
step_done "engine"

# ----------------------------------------------------------------------------- 3. base image

say "base image $BASE"
if docker image inspect "$BASE" >/dev/null 2>&1; then
  echo "$BASE is there: reused"
else
  ROOTFS=$(mktemp -d /var/tmp/hbase-orm-rootfs.XXXXXX)
  # the image's / (mktemp made it 0700: no other user could reach anything in the image)
  chmod 755 "$ROOTFS"
  echo "debootstrap bookworm into $ROOTFS (openjdk-17-jre-headless, python3, ca-certificates) ..."
  if ! timeout 1200 debootstrap --variant=minbase \
    --include=openjdk-17-jre-headless,python3,ca-certificates bookworm "$ROOTFS" \
    >"$ROOTFS.log" 2>&1; then
    tail -n 40 "$ROOTFS.log" >&2
    rm -f "$ROOTFS.log"
    echo "debootstrap failed" >&2
    exit 1
  fi
  rm -f "$ROOTFS.log"
  # The certificate authorities this machine's administrator added (Debian's place for them)
  # are trusted inside too, so that Maven in the image's build stage reaches Maven Central as
  # the host's Maven does, on a network that inspects TLS as well. update-ca-certificates also
  # rewrites Java's cacerts, with the image's java: that needs /proc.
  if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
    cp /usr/local/share/ca-certificates/*.crt "$ROOTFS/usr/local/share/ca-certificates/"
    mount -t proc proc "$ROOTFS/proc"
    timeout 300 chroot "$ROOTFS" update-ca-certificates
    umount "$ROOTFS/proc"
    echo "added this machine's certificate authorities: $(cd /usr/local/share/ca-certificates && echo *.crt)"
  fi
  tar -C "$ROOTFS" -c . | timeout 600 docker import - "$BASE" >/dev/null
  rm -rf --one-file-system "$ROOTFS"
  ROOTFS=
  echo "made $BASE"
fi
step_done "base image"

# ----------------------------------------------------------------------------- 4. build, up

say "build (base $BASE): ${COMPOSE[*]} build"
timeout 1800 "${COMPOSE[@]}" build
step_done "image build"

say "up on $ADDR: ${COMPOSE[*]} up -d, then wait until healthy (at most $HEALTH_TIMEOUT s)"
UP=1
# whatever an earlier, interrupted run of this stage left
timeout 180 "${COMPOSE[@]}" down -v --remove-orphans >/dev/null 2>&1 || true
timeout 300 "${COMPOSE[@]}" up -d
CONTAINER=$(compose ps -q hbase)
[[ -n "$CONTAINER" ]] || { echo "no container for the service hbase" >&2; exit 1; }
deadline=$((SECONDS + HEALTH_TIMEOUT))
last=
while :; do
  state=$(docker inspect -f '{{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{end}}' "$CONTAINER")
  [[ "$state" == "$last" ]] || echo "$((SECONDS - t_step)) s: $state"
  last=$state
  case "$state" in
    "running healthy") break ;;
    *unhealthy*) echo "the container is unhealthy" >&2; exit 1 ;;
    running*) ;;
    *) echo "the container is not running ($state)" >&2; exit 1 ;;
  esac
  if ((SECONDS >= deadline)); then
    echo "not healthy after $HEALTH_TIMEOUT s (last health check output below)" >&2
    docker inspect -f '{{range .State.Health.Log}}{{.Output}}{{end}}' "$CONTAINER" | tail -n 20 >&2
    exit 1
  fi
  sleep 2
done
step_done "up until healthy"

# ----------------------------------------------------------------------------- 5. clients

say "every gateway answers on $ADDR (ping.py)"
CA_DIR=$(mktemp -d)
docker cp "$CONTAINER:/data/tls/ca.pem" "$CA_DIR/ca.pem"
PING=(timeout 60 python3 hbase-local/ping.py -H "$ADDR" -t 10)
"${PING[@]}" -p 9090 -p 9093
"${PING[@]}" -p 9091 -f -c
"${PING[@]}" -p 9092 --thrift1
"${PING[@]}" -p 9094 --http
"${PING[@]}" -p 9096 --http --thrift1
"${PING[@]}" -p 9095 --https --cafile "$CA_DIR/ca.pem"
"${PING[@]}" -p 9097 --https --cafile "$CA_DIR/ca.pem" --thrift1 --doas alice
# the native backend's servers, at the address the container advertises
"${PING[@]}" --rpc master -p 16000
"${PING[@]}" --rpc regionserver -p 16020
step_done "gateways answer"

say "main example through Thrift2: HBASE_ORM_URL=thrift2://$ADDR:9090 cargo run --example customer_orders"
HBASE_ORM_URL=thrift2://$ADDR:9090 timeout 900 cargo run --quiet --example customer_orders
step_done "example, Thrift2"

say "main example on the native backend: HBASE_ORM_URL=hbase://$ADDR:2181 cargo run --example customer_orders"
HBASE_ORM_URL=hbase://$ADDR:2181 timeout 600 cargo run --quiet --example customer_orders
step_done "example, native"

# A bulk load into the container: the files go into the directory docker-compose.yml mounts
# at the same path inside, where the region server reads them.
BULK_DIR=${HBASE_ORM_BULK_DIR:-/tmp/hbase-orm-bulk}
say "bulk load example: HBASE_ORM_BULK_DIR=$BULK_DIR HBASE_ORM_URL=hbase://$ADDR:2181 cargo run --example bulk_load"
HBASE_ORM_BULK_DIR=$BULK_DIR HBASE_ORM_URL=hbase://$ADDR:2181 timeout 600 cargo run --quiet --example bulk_load
step_done "bulk load example, native"

# ----------------------------------------------------------------------------- 6. down

say "down -v"
UP=0
timeout 180 "${COMPOSE[@]}" down -v --remove-orphans
step_done "down -v"
stop_dockerd
step_done "engine stopped"

say "passed in $((SECONDS - t_stage)) s"
printf '%s\n' "${TIMES[@]}"
