#!/usr/bin/env bash
# What open dashboards cost the server: 200 live streams (GET /api/live, server-sent events)
# held open with curl, memory (VmRSS) and CPU time of cxwatch before and after opening them,
# at rest and while ingest posts one batch a second; and the delay from a posted run to the
# event on a stream. Prints figures for docs/benchmarks.md; fails on nothing but set-up.
# Usage: scripts/bench-live.sh [path/to/cxwatch]   (default target/release/cxwatch)
set -euo pipefail
BIN=${1:-target/release/cxwatch}
N=${STREAMS:-200}
DIR=$(mktemp -d)
PORT=$((20000 + RANDOM % 20000))
URL=https://127.0.0.1:$PORT
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$DIR"' EXIT
"$BIN" --data-dir "$DIR" serve --listen 127.0.0.1:$PORT >"$DIR/log" 2>&1 &
SERVER=$!
for _ in $(seq 100); do curl -skf "$URL/healthz" >/dev/null && break; sleep 0.1; done
echo 'bench-password-123' | "$BIN" --data-dir "$DIR" user add --username b@x.test --role admin --access read-write >/dev/null 2>&1
KEY=$("$BIN" --data-dir "$DIR" apikey add --name bench 2>/dev/null)
TOKEN=$(curl -sk "$URL/api/auth/signin" -H 'content-type: application/json' \
  -d '{"username":"b@x.test","password":"bench-password-123"}' | sed 's/.*"accessToken":"\([^"]*\)".*/\1/')
rss() { awk '/VmRSS/ {print $2}' /proc/$SERVER/status; }
cpu() { awk '{print $14 + $15}' /proc/$SERVER/stat; }   # clock ticks
TCK=$(getconf CLK_TCK)
n=0
post() {
  n=$((n + 1))
  curl -sk "$URL/api/ingest/v1/runs" -H "X-API-Key: $KEY" -H 'content-type: application/json' \
    -d "{\"runs\":[{\"engineRunId\":\"b-$n-$RANDOM\",\"testCase\":{\"id\":$((n % 20 + 1)),\"name\":\"c\",\"channel\":\"voice\",\"ivr\":{\"id\":1,\"name\":\"i\"}},\"runTime\":\"$(date -u +%FT%TZ)\",\"runDuration\":1,\"status\":\"pass\",\"runType\":\"Schedule\",\"segments\":[]}]}" >/dev/null
}
ingest_for() { local end=$((SECONDS + $1)); while [ $SECONDS -lt $end ]; do post; sleep 1; done; }

post; sleep 1
r0=$(rss); c0=$(cpu); ingest_for 10; c1=$(cpu)
base_cpu=$(( (c1 - c0) * 1000 / TCK ))
for i in $(seq "$N"); do
  curl -skN "$URL/api/live" -H "Authorization: Bearer $TOKEN" >"$DIR/s$i" 2>/dev/null &
done
for _ in $(seq 100); do [ "$(grep -l 'event: open' "$DIR"/s* 2>/dev/null | wc -l)" -ge "$N" ] && break; sleep 0.1; done
opened=$(grep -l 'event: open' "$DIR"/s* | wc -l)
sleep 1
r1=$(rss); c2=$(cpu); sleep 10; c3=$(cpu)
rest_cpu=$(( (c3 - c2) * 1000 / TCK ))
c4=$(cpu); ingest_for 10; c5=$(cpu)
busy_cpu=$(( (c5 - c4) * 1000 / TCK ))
r2=$(rss)
# Delay: one stream read by a timestamping loop, 10 posts.
delays=()
exec 3< <(curl -skN "$URL/api/live" -H "Authorization: Bearer $TOKEN")
read -r -t 5 _ <&3 || true
for _ in $(seq 10); do
  t0=$(date +%s%N); post
  while read -r -t 5 line <&3; do [ "$line" = "event: runs" ] && break; done
  t1=$(date +%s%N); delays+=($(( (t1 - t0) / 1000000 ))); sleep 0.3
done
exec 3<&-
echo "live streams: $opened of $N open"
echo "memory (VmRSS): ${r0} KiB before, ${r1} KiB with the streams open (+$(( (r1 - r0) / 1024 )) MiB, $(( (r1 - r0) / N )) KiB a stream), ${r2} KiB after 10 s of ingest"
echo "CPU over 10 s: ${base_cpu} ms ingesting 1 batch/s without streams; ${rest_cpu} ms at rest with $N streams; ${busy_cpu} ms ingesting 1 batch/s with $N streams"
echo "ingest → event on a stream (post answered to event read, ms): ${delays[*]}"
