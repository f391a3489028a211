#!/usr/bin/env bash
# Where a cold install's time goes, measured several times:
#
#     sudo scripts/deb-install-times.sh target/debian/deb-test/current.deb [TRIES]
#
# Each try starts from a purged state (no cxwatch package, user or /var/lib/cxwatch, and
# man-db's index without the package's pages), runs `dpkg -i` as an administrator would (in a
# clean environment, triggers included) and times its parts from dpkg's own status lines:
# before unpacking (dpkg reads its database and the control member), unpacking, configuring
# (the postinst) and the triggers (man-db's). Then it starts the installed unit as
# scripts/deb-test.sh does (scripts/deb-unit.py, where no systemd runs) and times READY=1 and
# the first HTTPS 200 of the console. One line per try, then the medians.
#
# Where systemd runs, the postinst starts the service (and waits for READY=1) before dpkg runs
# the triggers: "console" is then the time to the console, "dpkg -i + start" the time to
# both dpkg's end and the console.
#
# As root; refuses to run where cxwatch is installed. Removes the user and the data
# directory at the end only when it made them.
set -euo pipefail
fail() {
  echo "deb-install-times: $*" >&2
  exit 1
}
[ "$(id -u)" = 0 ] || fail "runs as root"
[ $# -ge 1 ] && [ -f "$1" ] || fail "usage: deb-install-times.sh PACKAGE.deb [TRIES]"
DEB=$(realpath "$1")
TRIES=${2:-5}
HERE=$(cd "$(dirname "$0")" && pwd)
CLEAN_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
UNIT=/usr/lib/systemd/system/cxwatch.service
STATE=/var/lib/cxwatch
if dpkg-query -W -f='${db:Status-Status}' cxwatch 2>/dev/null | grep -qv '^not-installed$'; then
  fail "cxwatch is installed: this would purge it"
fi
getent passwd cxwatch >/dev/null && made_user=no || made_user=yes
[ -e "$STATE" ] && made_state=no || made_state=yes
TMP=$(mktemp -d)
SUP=
reset() {
  dpkg --purge cxwatch >/dev/null 2>&1 || true
  if [ "$made_state" = yes ]; then rm -rf "$STATE"; fi
  if [ "$made_user" = yes ]; then
    if getent passwd cxwatch >/dev/null; then userdel cxwatch; fi
    if getent group cxwatch >/dev/null; then groupdel cxwatch; fi
  fi
  # man-db's index as on a system that never had the package (mandb without -p drops the
  # pages that are gone).
  if [ -e /var/lib/man-db/auto-update ] && command -v mandb >/dev/null; then
    setpriv --reuid man --regid man --init-groups -- mandb -q || true
  fi
}
cleanup() {
  status=$?
  if [ -n "$SUP" ]; then
    kill -TERM "$SUP" 2>/dev/null || true
    wait "$SUP" 2>/dev/null || true
  fi
  reset
  rm -rf "$TMP"
  exit "$status"
}
trap cleanup EXIT
now() { date +%s.%N; }

echo "$(dpkg-deb --show --showformat='${Package} ${Version}' "$DEB"), $(stat -c %s "$DEB") bytes; $(nproc) cores;" \
  "$(find /usr/share/man/man1 -maxdepth 1 | wc -l) entries in /usr/share/man/man1"
for try in $(seq "$TRIES"); do
  reset
  sync
  load=$(cut -d' ' -f1 /proc/loadavg)
  rm -f "$TMP/status"
  t0=$(now)
  env -i PATH="$CLEAN_PATH" dpkg \
    --status-logger="while read -r l; do echo \"\$(date +%s.%N) \$l\"; done >>$TMP/status" \
    -i "$DEB" >"$TMP/dpkg.log" 2>&1 || {
    cat "$TMP/dpkg.log"
    fail "dpkg -i"
  }
  t1=$(now)
  # The logger may still be writing its last line when dpkg returns.
  for _ in $(seq 20); do grep -q ' status: cxwatch: installed$' "$TMP/status" && break; sleep 0.05; done

  port=$((20000 + RANDOM % 20000))
  sed -i "s|^#listen = \"0.0.0.0:8443\"|listen = \"127.0.0.1:$port\"|" /etc/cxwatch/config.toml
  rm -f "$TMP/ready"
  s0=$(now)
  env -i PATH="$CLEAN_PATH" python3 "$HERE/deb-unit.py" "$UNIT" "$TMP/ready" >"$TMP/serve.log" 2>&1 &
  SUP=$!
  # curl waits in the handshake until the service accepts: the first answer, to within 10 ms.
  until curl -sk -o /dev/null --max-time 30 "https://127.0.0.1:$port/"; do
    kill -0 "$SUP" 2>/dev/null || {
      cat "$TMP/serve.log"
      fail "the service ended before answering"
    }
    sleep 0.01
  done
  s200=$(now)
  sready=$(stat -c %.9Y "$TMP/ready" 2>/dev/null || echo "$s200")
  kill -TERM "$SUP"
  wait "$SUP" || fail "the service's exit status on SIGTERM: $?"
  SUP=
  awk -v t0="$t0" -v t1="$t1" -v s0="$s0" -v sr="$sready" -v s2="$s200" -v try="$try" -v ld="$load" '
    $2 == "processing:" && $3 == "install:" && $4 == "cxwatch" { u = $1 }
    $2 == "status:" && $3 == "cxwatch:" && $4 == "unpacked" { p = $1 }
    $2 == "processing:" && $3 == "configure:" && $4 == "cxwatch" { c = $1 }
    $2 == "status:" && $3 == "cxwatch:" && $4 == "installed" { i = $1 }
    $2 == "processing:" && $3 == "trigproc:" { trig = trig (trig ? "," : "") $4 }
    END {
      printf "try %d (load %s): dpkg -i %.2f = before unpacking %.2f + unpacking %.2f + postinst %.2f + triggers %.2f (%s); first start: READY %.2f, HTTPS 200 %.2f; dpkg -i + start %.2f; console %.2f\n",
        try, ld, t1 - t0, u - t0, p - u, i - c, t1 - i, trig ? trig : "none", sr - s0, s2 - s0,
        t1 - t0 + s2 - s0, i - t0 + s2 - s0
    }' "$TMP/status" | tee -a "$TMP/tries"
done
# The median of each figure over the tries.
python3 - "$TMP/tries" <<'PY'
import re, statistics, sys
rows = [list(map(float, re.findall(r"(?<![\w(])(\d+\.\d+)", l)))[1:] for l in open(sys.argv[1])]
names = ["dpkg -i", "before unpacking", "unpacking", "postinst", "triggers", "READY", "HTTPS 200",
         "dpkg -i + start", "console"]
print("median of %d: " % len(rows) + ", ".join(f"{n} {statistics.median(c):.2f}" for n, c in zip(names, zip(*rows))))
PY
