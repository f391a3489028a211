#!/usr/bin/env bash
# Fuzzes the API with schemathesis against /api/openapi.json of the debug binary
# (target/debug/cxwatch, built by the Rust tests): every operation, a bounded number of
# examples, with a console token and an ingest API key. Fails on any 5xx, any response that
# violates the document and any undocumented status. Plain HTTP on a free loopback port, a
# throw-away data directory.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${CXWATCH_BIN:-target/debug/cxwatch}
EXAMPLES=${CXWATCH_FUZZ_EXAMPLES:-25}  # per operation and phase
[ -x "$BIN" ] || { echo "fuzz: $BIN is missing (cargo build first)" >&2; exit 1; }

# Pinned: the checks and the command line below are schemathesis 4's.
SCHEMATHESIS=4.32.5
VENV=target/fuzz-venv
if ! "$VENV/bin/schemathesis" --version 2>/dev/null | grep -q " $SCHEMATHESIS\$"; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "schemathesis==$SCHEMATHESIS"
fi

DATA=$(mktemp -d)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$DATA/config.toml" <<TOML
data_dir = "$DATA"
[server]
listen = "127.0.0.1:$PORT"
plain_http = true
[log]
format = "text"
TOML
# The script's own CXWATCH_* knobs are not config keys: cxwatch would refuse them.
CX=(env -u CXWATCH_BIN -u CXWATCH_FUZZ -u CXWATCH_FUZZ_EXAMPLES "$BIN" --config "$DATA/config.toml")
"${CX[@]}" serve >"$DATA/server.log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null || true; wait $PID 2>/dev/null || true; rm -rf "$DATA"' EXIT
for _ in $(seq 100); do
  curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break
  sleep 0.1
done

PASSWORD='fuzz-password-1'
printf '%s\n' "$PASSWORD" | "${CX[@]}" user add --username fuzz@example.com --role admin \
  --access read-write --first-name Fuzz --last-name Er >/dev/null
KEY=$("${CX[@]}" apikey add --name fuzz 2>/dev/null)
TOKEN=$(curl -fsS "http://127.0.0.1:$PORT/api/auth/signin" -H 'Content-Type: application/json' \
  -d "{\"username\":\"fuzz@example.com\",\"password\":\"$PASSWORD\"}" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["accessToken"])')

# Checks: 5xx, responses against the document (body schema, content type, headers, status
# documented), and a method the path lacks answered 405 with `Allow`. Left out on purpose:
# positive_data_acceptance (it expects any schema-valid input to succeed, but the server
# also applies rules a schema cannot say: a sort column, a user deleting themselves, the
# password rules) and negative_data_rejection (it expects every schema-invalid input to be
# refused, but path ids beyond the schema's range are a 404, as they should be).
# One worker: with two, hypothesis's lambda-source cache is not thread-safe and now and
# then aborts an operation with "AST constructor recursion depth mismatch".
CHECKS=not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance,unsupported_method
# Run from target/: schemathesis keeps its example database in ./.schemathesis.
st() {
  (cd target && "fuzz-venv/bin/schemathesis" run "http://127.0.0.1:$PORT/api/openapi.json" \
    --url "http://127.0.0.1:$PORT/api" \
    --checks "$CHECKS" \
    --max-examples "$EXAMPLES" \
    --workers 1 \
    --seed "${FUZZ_SEED:-1}" \
    --suppress-health-check all \
    -H "Authorization: Bearer $TOKEN" \
    -H "X-API-Key: $KEY" \
    --no-color "$@")
}
# Sign-out ends the fuzzer's session: every other operation first, sign-out on its own last.
# GET api/live is a server-sent event stream: schemathesis checks each event against the
# stream's own schema (an array) and cannot pass it; tests/live_metrics.rs covers the stream.
st --exclude-operation-id signout --exclude-operation-id liveUpdates "$@"
st --include-operation-id signout "$@"
