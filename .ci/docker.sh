#!/usr/bin/env bash
# CI stage: the Docker path (docker-compose.yml, hbase-local/Dockerfile) built and run for real,
# through the command users run (hbase-local/docker.sh), on a fresh machine with nothing
# installed by hand:
#   1. hbase-local/docker.sh up: installs docker.io, debootstrap and Compose when missing,
#      starts the engine when none answers, makes the Debian bookworm base image (Docker Hub
#      is out of reach), builds the image, starts the container and waits until it is healthy;
#   2. checks from the host that every gateway answers on $HBASE_ORM_DOCKER_ADDR (ping.py, the
#      HTTPS ones against the container's CA certificate), then runs the main example through
#      the Thrift2 gateway and through the native backend (ZooKeeper, master and region server
#      as the container advertises them), and the bulk-load example with its files in the
#      directory the container mounts at the same path;
#   3. hbase-local/docker.sh down (the container, its data volume, and the engine if up
#      started it), whatever happened; on a failure the container's logs are printed first.
# Every step is bounded by a timeout. The launcher's HBase must not hold the same ports:
# .ci/run stops it first (hbase-local/hbase.sh down).
#
# Environment: hbase-local/docker.sh's (HBASE_ORM_DOCKER_ADDR: 127.0.0.2 runs this beside a
# launcher's HBase on 127.0.0.1; HBASE_ORM_DOCKER_BASE, HBASE_ORM_DOCKER_HEALTH_TIMEOUT), and
# HBASE_ORM_BULK_DIR (default /tmp/hbase-orm-bulk).
set -euo pipefail
cd "$(dirname "$0")/.."

ADDR=${HBASE_ORM_DOCKER_ADDR:-127.0.0.1}
export HBASE_ORM_DOCKER_ADDR=$ADDR
# a project name of its own: `down` finds what an earlier run of this stage left
export HBASE_ORM_DOCKER_PROJECT=hbase-orm-ci

t_stage=$SECONDS
t_step=$SECONDS
TIMES=()
say() { printf '\n== docker: %s\n' "$*"; }
step_done() {
  TIMES+=("$(printf '%-34s %4d s' "$1" "$((SECONDS - t_step))")")
  t_step=$SECONDS
}

CA_DIR=
# on any exit: the container's logs if the stage failed, then down
cleanup() {
  local rc=$?
  trap - EXIT
  set +e
  if ((rc != 0)); then
    say "the container's logs (last 150 lines) and state"
    hbase-local/docker.sh logs 150
    hbase-local/docker.sh status
  fi
  say "hbase-local/docker.sh down"
  timeout 300 hbase-local/docker.sh down
  [[ -z "$CA_DIR" ]] || rm -rf "$CA_DIR"
  exit "$rc"
}
trap cleanup EXIT
# a TERM or INT (a timeout around this stage) ends the stage through the same cleanup
trap 'exit 143' TERM
trap 'exit 130' INT

say "hbase-local/docker.sh up (on $ADDR)"
# whatever an earlier, interrupted run of this stage left
timeout 300 hbase-local/docker.sh down >/dev/null 2>&1 || true
timeout 2100 hbase-local/docker.sh up
step_done "up (install, engine, base, build, healthy)"

say "every gateway answers on $ADDR (ping.py)"
CA_DIR=$(mktemp -d)
CONTAINER=$(docker ps -q --filter "label=com.docker.compose.project=$HBASE_ORM_DOCKER_PROJECT" --filter "label=com.docker.compose.service=hbase")
[[ -n "$CONTAINER" ]] || { echo "no container for the service hbase" >&2; exit 1; }
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

say "hbase-local/docker.sh down"
trap - EXIT
timeout 300 hbase-local/docker.sh down
rm -rf "$CA_DIR"
step_done "down"

say "passed in $((SECONDS - t_stage)) s"
printf '%s\n' "${TIMES[@]}"
