#!/usr/bin/env bash
# Health check of the hbase-orm local HBase image (hbase-local/Dockerfile's HEALTHCHECK): healthy
# when each of the eight gateways docker-entrypoint.sh starts answers a real call about
# hbase:namespace (ping.py), which also means that the master has initialized and hbase:meta is
# online. The HTTPS ones are verified against the container's own CA certificate
# ($HBASE_ORM_DATA/tls/ca.pem, ping.py's default). Quiet; exit status 0 if all answer.
set -euo pipefail

PING=${HBASE_ORM_HOME:-/opt/hbase-orm}/ping.py
TIMEOUT=4

# the four TCP gateways, 9090-9093 (ping.py's default set)
python3 "$PING" -q -t "$TIMEOUT"
python3 "$PING" -q -t "$TIMEOUT" -p 9094 --http
python3 "$PING" -q -t "$TIMEOUT" -p 9095 --https
python3 "$PING" -q -t "$TIMEOUT" -p 9096 --http --thrift1
python3 "$PING" -q -t "$TIMEOUT" -p 9097 --https --thrift1
