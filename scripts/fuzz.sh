#!/usr/bin/env bash
# Fuzzes the API with schemathesis against /api/openapi.json of the debug binary
# (target/debug/cxwatch, built by the Rust tests): every operation, a bounded number of
# examples, with a console token and an ingest API key. Fails on any 5xx, any response that
# violates the document, any undocumented status, and any schema-valid request refused
# with 400, 415 or 422: every check on every operation (scripts/fuzz.toml), the rules the
# document cannot state told to the fuzzer by scripts/fuzz_hooks.py. Twice, each on a fresh
# server on a free loopback port (plain HTTP, a throw-away data directory):
#  - an empty database (the answers with no data, ids that do not exist);
#  - a seeded one: the demo's history (`serve --demo --demo-seed --demo-days`: 2 days of runs,
#    reports, alerts, recordings), so that answers carry what real data carries
#    (null fields, recordings, CSV exports) and ids the fuzzer finds lead somewhere.
# CXWATCH_FUZZ_EXAMPLES: examples per operation and phase (default 20);
# CXWATCH_FUZZ_ONLY=empty|seeded runs one of the two;
# CXWATCH_FUZZ_POSTGRES=<server URL> (e.g. postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable)
# stores each phase in a fresh PostgreSQL database on that server (dropped at the end) instead
# of the SQLite file.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${CXWATCH_BIN:-target/debug/cxwatch}
EXAMPLES=${CXWATCH_FUZZ_EXAMPLES:-20}  # per operation and phase
ONLY=${CXWATCH_FUZZ_ONLY:-}
PG_SERVER=${CXWATCH_FUZZ_POSTGRES:-}
DEMO_SEED=7
DEMO_DAYS=2  # of history: loads in seconds (30 days take minutes in a debug build)
[ -x "$BIN" ] || { echo "fuzz: $BIN is missing (cargo build first)" >&2; exit 1; }

# Pinned: the checks and the command line below are schemathesis 4's.
SCHEMATHESIS=4.32.5
VENV=target/fuzz-venv
if ! "$VENV/bin/schemathesis" --version 2>/dev/null | grep -q " $SCHEMATHESIS\$"; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "schemathesis==$SCHEMATHESIS"
fi

PIDS=()
DIRS=()
DBS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  for d in "${DIRS[@]}"; do rm -rf "$d"; done
  for db in "${DBS[@]}"; do
    psql -X -q "$PG_SERVER" -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)" >/dev/null || true
  done
}
trap cleanup EXIT

# Starts a server on a fresh data directory with the serve arguments given; sets DATA,
# PORT, CX (the command line for this site) and waits until it answers.
start_server() {
  DATA=$(mktemp -d)
  DIRS+=("$DATA")
  PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  cat >"$DATA/config.toml" <<TOML
data_dir = "$DATA"
[server]
listen = "127.0.0.1:$PORT"
plain_http = true
[log]
format = "text"
TOML
  if [ -n "$PG_SERVER" ]; then
    local db
    db="cxwfuzz_$(basename "$DATA" | tr -c 'a-zA-Z0-9\n' '_' | tr 'A-Z' 'a-z')"
    psql -X -q "$PG_SERVER" -c "CREATE DATABASE \"$db\"" >/dev/null
    DBS+=("$db")
    # The server's URL with the database's name in place of its own.
    local url
    url=$(python3 -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' "$PG_SERVER" "$db")
    printf '[store]\nurl = "%s"\n' "$url" >>"$DATA/config.toml"
  fi
  # The script's own CXWATCH_* knobs are not config keys: cxwatch would refuse them.
  CX=(env -u CXWATCH_BIN -u CXWATCH_FUZZ -u CXWATCH_FUZZ_EXAMPLES -u CXWATCH_FUZZ_ONLY
    -u CXWATCH_FUZZ_POSTGRES "$BIN" --config "$DATA/config.toml" --data-dir "$DATA")
  "${CX[@]}" serve "$@" >"$DATA/server.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 100); do
    curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "fuzz: the server did not answer; its log:" >&2
  cat "$DATA/server.log" >&2
  exit 1
}

# An administrator and an ingest key for the fuzzer; sets TOKEN, KEY and CALLER_ID (the
# administrator's user id: the hooks keep the fuzzer from deleting or demoting itself).
caller() {
  local password='fuzz-password-1' signed_in
  printf '%s\n' "$password" | "${CX[@]}" user add --username fuzz@example.com --role admin \
    --access read-write --first-name Fuzz --last-name Er >/dev/null
  KEY=$("${CX[@]}" apikey add --name fuzz 2>/dev/null)
  signed_in=$(curl -fsS "http://127.0.0.1:$PORT/api/auth/signin" -H 'Content-Type: application/json' \
    -d "{\"username\":\"fuzz@example.com\",\"password\":\"$password\"}")
  TOKEN=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["accessToken"])' <<<"$signed_in")
  CALLER_ID=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["id"])' <<<"$signed_in")
}

# Checks: in scripts/fuzz.toml. FUZZ_CALLER_ID: the hooks keep the fuzzer's own account.
# One worker: with two, hypothesis's lambda-source cache is not thread-safe and now and
# then aborts an operation with "AST constructor recursion depth mismatch".
# Run from target/: schemathesis keeps its example database in ./.schemathesis.
# scripts/fuzz_hooks.py: the rules the document cannot state, how to send a recording.
st() {
  (cd target && PYTHONPATH=../scripts SCHEMATHESIS_HOOKS=fuzz_hooks FUZZ_CALLER_ID="$CALLER_ID" \
    "fuzz-venv/bin/schemathesis" \
    --config-file ../scripts/fuzz.toml run "http://127.0.0.1:$PORT/api/openapi.json" \
    --url "http://127.0.0.1:$PORT/api" \
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
fuzz() {
  st --exclude-operation-id signout --exclude-operation-id liveUpdates "$@" || FAILED=1
  st --include-operation-id signout "$@" || FAILED=1
}
FAILED=0

if [ "$ONLY" != seeded ]; then
  echo "fuzz: empty database${PG_SERVER:+ (PostgreSQL)}"
  start_server
  caller
  fuzz "$@"
  kill "${PIDS[-1]}"
fi

if [ "$ONLY" != empty ]; then
  echo "fuzz: seeded database${PG_SERVER:+ (PostgreSQL)} (demo history: $DEMO_DAYS days, seed $DEMO_SEED)"
  start_server --demo --demo-seed "$DEMO_SEED" --demo-days "$DEMO_DAYS"
  # The demo loads its history in the background while the server answers: wait for it.
  started=$SECONDS
  until grep -q '^demo: generated ' "$DATA/server.log"; do
    if [ $((SECONDS - started)) -gt 300 ] || ! kill -0 "${PIDS[-1]}" 2>/dev/null; then
      echo "fuzz: the demo history did not load; the server's log:" >&2
      cat "$DATA/server.log" >&2
      exit 1
    fi
    sleep 0.5
  done
  grep '^demo: generated ' "$DATA/server.log"
  caller
  fuzz "$@"
fi
exit $FAILED
