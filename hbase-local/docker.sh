#!/usr/bin/env bash
# The Docker HBase of docker-compose.yml, brought up and down with one command on a machine
# with nothing installed by hand (Debian or Ubuntu, root; no systemd needed) and no Docker Hub:
#
#   hbase-local/docker.sh up       install, start the engine, make the base image, build, start,
#                                  and return once the container is healthy (bounded)
#   hbase-local/docker.sh prepare  up's first four steps only (nothing started but the engine):
#                                  a later up finds them done
#   hbase-local/docker.sh down     stop and remove the container and its data volume, and stop
#                                  the engine if `up` (or `prepare`) started it
#   hbase-local/docker.sh status   the container's state and health
#   hbase-local/docker.sh logs [N] the container's last N log lines (default 150)
#
# What `up` does, each step bounded by a timeout:
#   1. installs docker.io, debootstrap and, without Compose v2, docker-compose (v1) with apt
#      when missing; Compose v2 (`docker compose`) is used when there, else v1 (`docker-compose`,
#      which has no --wait: the health is polled here for both);
#   2. starts `dockerd --storage-driver=vfs` in a session of its own when no engine answers (its
#      pid and log in $HBASE_ORM_DOCKER_STATE, for `down`);
#   3. makes the base image when it is not there: by default a Debian bookworm with
#      openjdk-17-jre-headless, python3 and ca-certificates, made with debootstrap and
#      `docker import`ed (about a minute); HBASE_ORM_DOCKER_BASE=eclipse-temurin:17-jre builds on
#      Docker Hub's image instead, where it can be reached;
#   4. builds the image (the jars come from Maven Central inside the build), starts the
#      container (up -d) and waits until it is healthy.
# Then the gateways answer on $HBASE_ORM_DOCKER_ADDR (thrift2://ADDR:9090, ...) and the native
# backend reaches hbase://ADDR:2181; a bulk load gives BulkLoadOptions::staging_dir the directory
# the compose file mounts at the same path ($HBASE_ORM_BULK_DIR, default /tmp/hbase-orm-bulk).
#
# Environment:
#   HBASE_ORM_DOCKER_ADDR     host address the ports are published on and the servers
#                             advertise (default 127.0.0.1; 127.0.0.2 runs this beside the
#                             launcher's HBase on 127.0.0.1)
#   HBASE_ORM_DOCKER_BASE     base image (default hbase-orm-base:bookworm-jre17, made by `up`
#                             when missing; an existing image of that name is reused)
#   HBASE_ORM_DOCKER_PROJECT  the compose project name (default hbase-orm)
#   HBASE_ORM_DOCKER_HEALTH_TIMEOUT  seconds `up` waits for healthy (default 420)
#   HBASE_ORM_DOCKER_STATE    where the engine's pid and log are kept (default
#                             .hbase-local/docker in the checkout)
set -euo pipefail
cd "$(dirname "$0")/.."

ADDR=${HBASE_ORM_DOCKER_ADDR:-127.0.0.1}
BASE=${HBASE_ORM_DOCKER_BASE:-hbase-orm-base:bookworm-jre17}
HEALTH_TIMEOUT=${HBASE_ORM_DOCKER_HEALTH_TIMEOUT:-420}
STATE=${HBASE_ORM_DOCKER_STATE:-$PWD/.hbase-local/docker}
export HBASE_ORM_DOCKER_ADDR=$ADDR HBASE_ORM_DOCKER_BASE=$BASE
export COMPOSE_PROJECT_NAME=${HBASE_ORM_DOCKER_PROJECT:-hbase-orm}

say() { printf '[docker] %s\n' "$*"; }
die() {
  printf '[docker] error: %s\n' "$*" >&2
  exit 1
}

[[ "$ADDR" =~ ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$ ]] ||
  die "HBASE_ORM_DOCKER_ADDR must be an IPv4 address, not '$ADDR'"
[[ "$HEALTH_TIMEOUT" =~ ^[0-9]+$ ]] ||
  die "HBASE_ORM_DOCKER_HEALTH_TIMEOUT must be a number of seconds"

COMPOSE=()
# Compose v2 (the docker CLI's plugin) if there is one, else v1 (Debian's docker-compose).
pick_compose() {
  if docker compose version >/dev/null 2>&1; then
    COMPOSE=(docker compose)
  elif command -v docker-compose >/dev/null; then
    COMPOSE=(docker-compose)
  else
    die "neither 'docker compose' nor 'docker-compose' is installed (hbase-local/docker.sh up installs it)"
  fi
}

install_packages() {
  local missing=()
  command -v dockerd >/dev/null || missing+=(docker.io)
  command -v debootstrap >/dev/null || missing+=(debootstrap)
  if ! docker compose version >/dev/null 2>&1 && ! command -v docker-compose >/dev/null; then
    missing+=(docker-compose)
  fi
  if ((${#missing[@]})); then
    say "installing ${missing[*]}"
    timeout 600 apt-get update -qq
    DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y -qq "${missing[@]}"
  fi
}

# Starts dockerd when no engine answers; its pid goes into $STATE for `down`.
start_engine() {
  if timeout 20 docker info >/dev/null 2>&1; then
    say "a Docker engine answers: using it"
    return
  fi
  mkdir -p "$STATE"
  # its own session: a signal to the caller's process group does not reach it
  setsid dockerd --storage-driver=vfs >"$STATE/dockerd.log" 2>&1 </dev/null &
  local pid=$!
  echo "$pid" >"$STATE/dockerd.pid"
  say "started dockerd --storage-driver=vfs (pid $pid, log $STATE/dockerd.log)"
  local deadline=$((SECONDS + 90))
  until timeout 10 docker info >/dev/null 2>&1; do
    if ! kill -0 "$pid" 2>/dev/null; then
      rm -f "$STATE/dockerd.pid"
      tail -n 30 "$STATE/dockerd.log" >&2
      die "dockerd exited"
    fi
    ((SECONDS < deadline)) || die "dockerd does not answer after 90 s (log: $STATE/dockerd.log)"
    sleep 1
  done
}

# Stops the dockerd `up` started, if it did.
stop_engine() {
  [[ -f "$STATE/dockerd.pid" ]] || return 0
  local pid
  pid=$(cat "$STATE/dockerd.pid")
  if kill -0 "$pid" 2>/dev/null; then
    say "stopping the Docker engine up started (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    local waited=0
    while kill -0 "$pid" 2>/dev/null && ((waited < 60)); do
      sleep 1
      waited=$((waited + 1))
    done
    if kill -0 "$pid" 2>/dev/null; then
      say "dockerd still running after 60 s: KILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$STATE/dockerd.pid"
}

ROOTFS=
# A cut-short debootstrap may leave /proc or /sys mounted inside its root: unmounted, removed.
remove_rootfs() {
  [[ -n "$ROOTFS" ]] || return 0
  awk -v root="$ROOTFS/" 'index($2, root) == 1 { print $2 }' /proc/mounts | sort -r |
    while read -r mounted; do umount -l "$mounted"; done
  rm -rf --one-file-system "$ROOTFS" "$ROOTFS.log"
  ROOTFS=
}

# The stand-in base image when it is not there yet (Docker Hub is out of reach).
make_base() {
  if docker image inspect "$BASE" >/dev/null 2>&1; then
    say "base image $BASE is there: reused"
    return
  fi
  if [[ "$BASE" != hbase-orm-base:* ]]; then
    say "base image $BASE: pulled by the build"
    return
  fi
  ROOTFS=$(mktemp -d /var/tmp/hbase-orm-rootfs.XXXXXX)
  trap remove_rootfs EXIT
  # the image's / (mktemp made it 0700: no other user could reach anything in the image)
  chmod 755 "$ROOTFS"
  say "debootstrap bookworm into $ROOTFS (openjdk-17-jre-headless, python3, ca-certificates) ..."
  if ! timeout 1200 debootstrap --variant=minbase \
    --include=openjdk-17-jre-headless,python3,ca-certificates bookworm "$ROOTFS" \
    >"$ROOTFS.log" 2>&1; then
    tail -n 40 "$ROOTFS.log" >&2
    die "debootstrap failed"
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
    say "added this machine's certificate authorities: $(cd /usr/local/share/ca-certificates && echo *.crt)"
  fi
  tar -C "$ROOTFS" -c . | timeout 600 docker import - "$BASE" >/dev/null
  remove_rootfs
  trap - EXIT
  say "made $BASE"
}

container() { "${COMPOSE[@]}" ps -q hbase; }

# Waits until the container is healthy; fails on unhealthy, exited or the timeout.
wait_healthy() {
  local id=$1 t0=$SECONDS last='' state
  local deadline=$((SECONDS + HEALTH_TIMEOUT))
  while :; do
    state=$(docker inspect -f '{{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{end}}' "$id")
    [[ "$state" == "$last" ]] || say "$((SECONDS - t0)) s: $state"
    last=$state
    case "$state" in
      "running healthy") return 0 ;;
      *unhealthy*) die "the container is unhealthy (hbase-local/docker.sh logs)" ;;
      running*) ;;
      *) die "the container is not running ($state; hbase-local/docker.sh logs)" ;;
    esac
    if ((SECONDS >= deadline)); then
      docker inspect -f '{{range .State.Health.Log}}{{.Output}}{{end}}' "$id" | tail -n 20 >&2
      die "not healthy after $HEALTH_TIMEOUT s (the last health check's output is above)"
    fi
    sleep 2
  done
}

# What `up` does before it starts anything: packages, engine, base image, the image built (a
# later `up` finds them done; CI runs this in the background while its tests build).
prepare() {
  install_packages
  pick_compose
  say "compose: $("${COMPOSE[@]}" version 2>/dev/null | head -n 1)"
  start_engine
  make_base
  say "build (base $BASE): ${COMPOSE[*]} build"
  timeout 1800 "${COMPOSE[@]}" build
}

up() {
  local t0=$SECONDS
  prepare
  # the bulk-load directory the compose file mounts: made here, so that it is this user's
  mkdir -p "${HBASE_ORM_BULK_DIR:-/tmp/hbase-orm-bulk}"
  say "up on $ADDR: ${COMPOSE[*]} up -d, then wait until healthy (at most $HEALTH_TIMEOUT s)"
  timeout 300 "${COMPOSE[@]}" up -d
  local id
  id=$(container)
  [[ -n "$id" ]] || die "no container for the service hbase"
  wait_healthy "$id"
  say "healthy after $((SECONDS - t0)) s: thrift2://$ADDR:9090 (and 9091-9097), hbase://$ADDR:2181;" \
    "hbase-local/docker.sh down stops it"
}

down() {
  if timeout 20 docker info >/dev/null 2>&1; then
    pick_compose
    say "${COMPOSE[*]} down -v"
    timeout 180 "${COMPOSE[@]}" down -v --remove-orphans
  else
    say "no Docker engine answers: no container to stop"
  fi
  stop_engine
}

# Fails, saying so, when no Docker engine answers.
need_engine() {
  timeout 20 docker info >/dev/null 2>&1 ||
    die "no Docker engine answers (hbase-local/docker.sh up starts one)"
}

status() {
  need_engine
  pick_compose
  local id
  id=$(container)
  if [[ -z "$id" ]]; then
    say "no container (hbase-local/docker.sh up starts it)"
    return 1
  fi
  docker inspect -f 'container {{.Name}}: {{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{end}}' "$id"
}

logs() {
  need_engine
  pick_compose
  timeout 60 "${COMPOSE[@]}" logs --no-color --tail "${1:-150}"
}

case "${1:-}" in
  prepare)
    prepare
    say "prepared: hbase-local/docker.sh up starts the container"
    ;;
  up) up ;;
  down) down ;;
  status) status ;;
  logs) logs "${2:-150}" ;;
  *)
    sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
    [[ "${1:-}" == -h || "${1:-}" == --help ]] || exit 2
    ;;
esac
