#!/usr/bin/env bash
# What a first `cxwatch serve --demo` costs: the time to load its history (as the demo prints
# it) and the server's peak resident memory (VmHWM) once the history is loaded and the alert
# engine has run over it, then its VmRSS at rest. With CLIENTS set, then CLIENTS console
# clients at once for 20 s of reads (dashboard, hourly table, runs, alerts), the peak during
# them and the VmRSS 40 s after: what the server hands back after a peak. Fails on nothing
# but set-up.
# Usage: [CLIENTS=200] scripts/bench-demo-load.sh [path/to/cxwatch] [days]
#        (default target/release/cxwatch, 30 days)
set -euo pipefail
BIN=${1:-target/release/cxwatch}
DAYS=${2:-30}
DIR=$(mktemp -d)
PORT=$((20000 + RANDOM % 20000))
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$DIR"' EXIT
"$BIN" --data-dir "$DIR" serve --demo --demo-days "$DAYS" --listen 127.0.0.1:$PORT >"$DIR/log" 2>&1 &
SERVER=$!
kib() { awk -v f="$1:" '$1 == f {print $2}' /proc/$SERVER/status; }
# The history is loaded when the demo says how long it took; the alert engine then runs over
# it and the live feed starts ("demo: the alert engine opened ..." or nothing when none opened).
for _ in $(seq 6000); do grep -q '^demo: generated' "$DIR/log" && break; sleep 0.1; done
for _ in $(seq 600); do grep -q '^demo: the alert engine opened' "$DIR/log" && break; sleep 0.1; done
loaded=$(grep '^demo: generated' "$DIR/log")
peak=$(kib VmHWM)
sleep 5
rest=$(kib VmRSS)
echo "$loaded"
echo "peak VmHWM $((peak / 1024)) MiB ($peak KiB); VmRSS 5 s later $((rest / 1024)) MiB"

[ -n "${CLIENTS:-}" ] || exit 0
URL=https://127.0.0.1:$PORT
echo 'bench-password-123' | "$BIN" --data-dir "$DIR" user add --username load@x.test --role admin --access read-write >/dev/null 2>&1
TOKEN=$(curl -sk "$URL/api/auth/signin" -H 'content-type: application/json' \
  -d '{"username":"load@x.test","password":"bench-password-123"}' | sed 's/.*"accessToken":"\([^"]*\)".*/\1/')
today=$(date -u +%F); month=$(date -u -d '30 days ago' +%F)
for i in $(seq 400); do
  for path in "trs/v1/groups" "trs/v1/groups/recent?minutes=60" \
      "trs/v1/groups/hourly?startDate=$month&endDate=$today" \
      "trs/v1/groups/$((i % 8 + 1))/runs?startDate=$today" "alerts/events"; do
    echo "url = \"$URL/api/$path\""
    echo "output = /dev/null"
  done
done >"$DIR/urls"
before=$(kib VmRSS)
echo 5 >/proc/$SERVER/clear_refs   # VmHWM from here on: the clients' peak alone
t0=$SECONDS
while [ $((SECONDS - t0)) -lt 20 ]; do
  curl -sk --no-progress-meter --parallel --parallel-max "$CLIENTS" -H "Authorization: Bearer $TOKEN" -K "$DIR/urls"
done
peak=$(kib VmHWM)
sleep 40
rest=$(kib VmRSS)
echo "$CLIENTS clients for 20 s: VmRSS before $((before / 1024)) MiB, peak VmHWM $((peak / 1024)) MiB, VmRSS 40 s later $((rest / 1024)) MiB"
