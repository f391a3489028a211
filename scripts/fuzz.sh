#!/usr/bin/env bash
# Fuzzes the API with schemathesis against /api/openapi.json of the debug binary
# (target/debug/cxwatch, built by the Rust tests): every operation, a bounded number of
# examples, with a console token and an ingest API key. Fails on any 5xx, any response that
# violates the document and any undocumented status. Plain HTTP on a free loopback port, a
# throw-away data directory.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${CXWATCH_BIN:-target/debug/cxwatch}
EXAMPLES=${CXWATCH_FUZZ_EXAMPLES:-25}
[ -x "$BIN" ] || { echo "fuzz: $BIN is missing (cargo build first)" >&2; exit 1; }

VENV=target/fuzz-venv
if [ ! -x "$VENV/bin/schemathesis" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "schemathesis>=3.39,<4"
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
CX=("$BIN" --config "$DATA/config.toml")
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

"$VENV/bin/schemathesis" run "http://127.0.0.1:$PORT/api/openapi.json" \
  --base-url "http://127.0.0.1:$PORT/api" \
  --checks not_a_server_error,response_schema_conformance,status_code_conformance,content_type_conformance \
  --hypothesis-max-examples "$EXAMPLES" \
  --hypothesis-deadline none \
  --workers 2 \
  -H "Authorization: Bearer $TOKEN" \
  -H "X-API-Key: $KEY" \
  --no-color
