#!/usr/bin/env bash
# Checks, with real Kerberos clients, that every gateway of a running secure.sh stack
# authenticates and impersonates as it should. Not a test suite: a record of the exact steps,
# runnable again. Needs `secure.sh up` first. Prints one line per check, then "N passed, N failed".
#
#   hbase-local/secure/prove.sh            the checks
#   hbase-local/secure/prove.sh --trace    also the byte-level SASL handshake of each QOP
set -uo pipefail

SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
eval "$("$SCRIPT_DIR/secure.sh" env)"
DATA=$(dirname "$KRB5_CONFIG")
REALM=$HBASE_ORM_SECURE_REALM
PORT_BASE=${HBASE_ORM_SECURE_PORT_BASE:-9290}
HTTPS2=https://localhost:$PORT_BASE/
HTTPS1=https://localhost:$((PORT_BASE + 4))/
TRACE=()
[[ "${1:-}" == --trace ]] && TRACE=(--trace)

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1

# Thrift binary-protocol calls (strict: 0x80010001 = version 1, message type CALL)
printf '\x80\x01\x00\x01\x00\x00\x00\x0btableExists\x00\x00\x00\x01\x0c\x00\x01\x0b\x00\x01\x00\x00\x00\x05hbase\x0b\x00\x02\x00\x00\x00\x09namespace\x00\x00' >tableExists.bin
printf '\x80\x01\x00\x01\x00\x00\x00\x0eisTableEnabled\x00\x00\x00\x01\x0b\x00\x01\x00\x00\x00\x0fhbase:namespace\x00' >isTableEnabled.bin
printf '\x80\x01\x00\x01\x00\x00\x00\x0fcreateNamespace\x00\x00\x00\x01\x0c\x00\x01\x0b\x00\x01\x00\x00\x00\x0bprove_ns_%02d\x00\x00' $((RANDOM % 100)) >createNs.bin
ns=$(tail -c 13 createNs.bin | head -c 11)
printf '\x80\x01\x00\x01\x00\x00\x00\x0fdeleteNamespace\x00\x00\x00\x01\x0b\x00\x01\x00\x00\x00\x0b%s\x00' "$ns" >deleteNs.bin

pass=0
fail=0
check() { # check NAME CONDITION-STATUS DETAIL
  if [[ "$2" == 0 ]]; then
    pass=$((pass + 1))
    printf 'PASS  %s  (%s)\n' "$1" "$3"
  else
    fail=$((fail + 1))
    printf 'FAIL  %s  (%s)\n' "$1" "$3"
  fi
}

# post CCACHE URL FILE [extra curl args]: sets CODE, HDRS, BODY (hex), TEXT (printable)
post() {
  local cc=$1 url=$2 file=$3
  shift 3
  CODE=$(KRB5CCNAME=$cc curl -sS --negotiate -u : --cacert "$HBASE_ORM_SECURE_CA" \
    -H 'Content-Type: application/x-thrift' --data-binary "@$file" -D hdrs.txt -o body.bin \
    -w '%{http_code}' "$@" "$url" 2>curl.err)
  HDRS=$(tr -d '\r' <hdrs.txt 2>/dev/null)
  BODY=$(od -An -tx1 body.bin | tr -d ' \n')
  TEXT=$(tr -c '[:print:]' '.' <body.bin | sed 's/<[^>]*>//g' | cut -c1-400)
}
# a REPLY whose bool field 0 is true
is_true() { [[ "$BODY" == 80010002* && "$BODY" == *0200000100 ]]; }

CLIENT_CC=FILE:$WORK/client.cc
ALICE_CC=FILE:$WORK/alice.cc
KRB5CCNAME=$CLIENT_CC kinit -kt "$DATA/keytabs/client.keytab" "client@$REALM"
check "kinit client@$REALM from its keytab" $? "$(KRB5CCNAME=$CLIENT_CC klist | grep -c krbtgt) TGT"
KRB5CCNAME=$ALICE_CC kinit -kt "$DATA/keytabs/alice.keytab" "alice@$REALM"
check "kinit alice@$REALM from its keytab" $? "ok"

echo "--- Thrift2 over HTTPS + SPNEGO ($HTTPS2)"
post "FILE:$WORK/none.cc" "$HTTPS2" tableExists.bin
[[ "$CODE" == 401 && "$HDRS" == *"WWW-Authenticate: Negotiate"* ]]
check "no ticket: 401 + WWW-Authenticate: Negotiate" $? "status $CODE"

post "$CLIENT_CC" "$HTTPS2" tableExists.bin
[[ "$CODE" == 200 ]] && is_true && [[ "$HDRS" == *"WWW-Authenticate: Negotiate "?* ]]
check "client ticket: tableExists(hbase:namespace) = true" $? "status $CODE, reply $BODY, mutual-auth token in WWW-Authenticate"

post "$CLIENT_CC" "https://127.0.0.1:$PORT_BASE/" tableExists.bin
[[ "$CODE" == 401 ]]
check "URL with 127.0.0.1 instead of localhost: no ticket for HTTP/127.0.0.1, 401" $? "status $CODE"

post "$CLIENT_CC" "$HTTPS2" tableExists.bin -H 'doAs: alice'
[[ "$CODE" == 200 ]] && is_true
check "client, doAs: alice: tableExists = true" $? "status $CODE"

post "$CLIENT_CC" "$HTTPS2" tableExists.bin -H 'doAs: mallory'
[[ "$CODE" != 200 && "$TEXT" == *"not allowed to impersonate mallory"* ]]
check "client, doAs: mallory: refused" $? "status $CODE: $(grep -o 'User: client is not allowed to impersonate mallory' <<<"$TEXT" | head -1)"

post "$ALICE_CC" "$HTTPS2" tableExists.bin -H 'doAs: client'
[[ "$CODE" != 200 && "$TEXT" == *"not allowed to impersonate client"* ]]
check "alice, doAs: client: refused (alice has no proxy rights)" $? "status $CODE"

post "$CLIENT_CC" "$HTTPS2" createNs.bin -H 'doAs: alice'
[[ "$CODE" == 200 && "$TEXT" == *"AccessDeniedException: Insufficient permissions for user 'alice'"* ]]
check "client, doAs: alice: createNamespace denied by HBase's ACLs as alice" $? "status $CODE, TIOError: $(grep -o "Insufficient permissions for user 'alice'[^.]*" <<<"$TEXT" | head -1)"

post "$CLIENT_CC" "$HTTPS2" createNs.bin
created=$BODY
post "$CLIENT_CC" "$HTTPS2" deleteNs.bin
[[ "$created" == 80010002*0000000100 && "$BODY" == 80010002*0000000100 ]]
check "client (HBase superuser): createNamespace + deleteNamespace $ns" $? "void replies"

echo "--- Thrift1 over HTTPS + SPNEGO ($HTTPS1)"
post "$CLIENT_CC" "$HTTPS1" isTableEnabled.bin
[[ "$CODE" == 200 ]] && is_true
check "client ticket: isTableEnabled(hbase:namespace) = true" $? "status $CODE"

echo "--- Thrift2/Thrift1 over TCP + SASL GSSAPI (Java client, java/SaslProbe.java)"
out=$(java -Djava.security.krb5.conf="$KRB5_CONFIG" -cp "$DATA/classes" SaslProbe "${TRACE[@]}" \
  --keytab "$DATA/keytabs/client.keytab" --principal "client@$REALM" \
  "auth:$((PORT_BASE + 1))" "auth-int:$((PORT_BASE + 2))" "auth-conf:$((PORT_BASE + 3))" \
  "t1:auth-conf:$((PORT_BASE + 5))" 2>&1)
[[ ${#TRACE[@]} -gt 0 ]] && printf '%s\n' "$out" | grep -v '^[0-9]* auth'
while read -r line; do
  [[ "$line" =~ ^[0-9]+\ auth ]] || continue
  [[ "$line" == *"=true "* ]]
  check "SASL ${line%%:*}" $? "${line#*: }"
done <<<"$out"

# a client that wants a layer the gateway does not offer is refused by the client itself
out=$(java -Djava.security.krb5.conf="$KRB5_CONFIG" -cp "$DATA/classes" SaslProbe \
  --keytab "$DATA/keytabs/client.keytab" --principal "client@$REALM" "auth-conf:$((PORT_BASE + 1))" 2>&1)
[[ "$out" == *"server offers layers none, not auth-conf"* ]]
check "SASL: auth-conf wanted, gateway offers only auth: no common layer" $? "${out#*: }"

echo "$pass passed, $fail failed"
((fail == 0))
