#!/usr/bin/env bash
# What a first `cxwatch serve --demo` costs: the time to load its history (as the demo prints
# it) and the server's peak resident memory (VmHWM) once the history is loaded and the alert
# engine has run over it, then its VmRSS at rest. Fails on nothing but set-up.
# Usage: scripts/bench-demo-load.sh [path/to/cxwatch] [days]   (default target/release/cxwatch, 30)
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
