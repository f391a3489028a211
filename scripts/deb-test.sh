#!/usr/bin/env bash
# The Debian package, tested (issue 14, part 5). DRAFT: written on h14's branch but not yet
# run to its end there (the release build and cargo-deb did not fit the time); it is not
# called from scripts/test.sh until it has passed once. Needs root (dpkg -i), dpkg, adduser,
# systemd-analyze (systemd 252+), curl, python3, readelf, objdump.
#
# Builds the release binary once (reuse it: CXWATCH_BIN=target/release/cxwatch for the e2e),
# packages it twice (a "previous" build 0.1.0~prev and the current one), then:
#   shared-library needs fit a bare Debian 12; the unit passes systemd-analyze verify and its
#   security exposure is <= 2.0 (printed); install: files and modes, the system user, the
#   conffile; the installed binary as cxwatch with the unit's directories serves the console
#   and answers healthcheck; upgrade keeps config.toml and every row; remove keeps the config
#   and the data, purge removes the config and keeps the data (packaging/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf '\n== %s\n' "$*"; }
fail() { echo "deb-test: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "run as root (dpkg -i)"

command -v cargo-deb >/dev/null || cargo install cargo-deb --locked
if [ ! -x target/release/cxwatch ] || [ -n "${CXWATCH_REBUILD:-}" ]; then
  cargo build --release --locked
fi
BIN=target/release/cxwatch

say "shared libraries (a bare Debian 12 has libc6 2.36 and libgcc-s1)"
readelf -d "$BIN" | awk '/NEEDED/ {gsub(/[\[\]]/, "", $5); print $5}' | tee /tmp/deb-needed
while read -r lib; do
  case "$lib" in
    libc.so.6 | libm.so.6 | libgcc_s.so.1 | ld-linux-*.so.* | libpthread.so.0 | libdl.so.2 | librt.so.1) ;;
    *) fail "the binary needs $lib, which a bare Debian 12 does not have" ;;
  esac
done </tmp/deb-needed
newest=$(objdump -T "$BIN" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
echo "newest glibc symbol: $newest"
[ "$(printf '%s\nGLIBC_2.36\n' "$newest" | sort -V | tail -1)" = GLIBC_2.36 ] || fail "needs $newest > 2.36"

say "the unit"
systemd-analyze verify --man=no packaging/cxwatch.service 2>&1 | grep -v 'is not executable' || true
exposure=$(systemd-analyze security --offline=true packaging/cxwatch.service 2>/dev/null |
  sed -n 's/.*Overall exposure level for cxwatch.service: \([0-9.]*\).*/\1/p')
echo "security exposure: $exposure"
python3 -c "import sys; sys.exit(0 if float('$exposure') <= 2.0 else 1)" || fail "exposure $exposure > 2.0"

say "packages"
rm -f target/debian/cxwatch_*.deb
cargo deb --no-build --deb-version 0.1.0~prev
cargo deb --no-build
PREV=$(ls target/debian/cxwatch_0.1.0~prev_*.deb)
CUR=$(ls target/debian/cxwatch_*.deb | grep -v '~prev')

dpkg -P cxwatch >/dev/null 2>&1 || true
say "install the previous build"
dpkg -i "$PREV"
mode() { stat -c '%a %U:%G' "$1"; }
[ "$(mode /usr/bin/cxwatch)" = "755 root:root" ] || fail "/usr/bin/cxwatch: $(mode /usr/bin/cxwatch)"
[ "$(mode /etc/cxwatch/config.toml)" = "640 root:cxwatch" ] || fail "config: $(mode /etc/cxwatch/config.toml)"
unit=$(dpkg -L cxwatch | grep -E 'systemd/system/cxwatch.service$')
[ "$(mode "$unit")" = "644 root:root" ] || fail "$unit: $(mode "$unit")"
getent passwd cxwatch | grep -q ':/var/lib/cxwatch:/usr/sbin/nologin$' || fail "user: $(getent passwd cxwatch)"
dpkg-query -W -f='${Conffiles}\n' cxwatch | grep -q '/etc/cxwatch/config.toml' || fail "config.toml is not a conffile"

# The unit's directories, as systemd would make them (StateDirectory=cxwatch, mode 0750).
install -d -o cxwatch -g cxwatch -m 0750 /var/lib/cxwatch
PORT=$((20000 + RANDOM % 20000))
as_cx() { runuser -u cxwatch -- /usr/bin/cxwatch --config /etc/cxwatch/config.toml "$@"; }
serve() {
  as_cx serve --listen 127.0.0.1:$PORT >/tmp/deb-serve.log 2>&1 &
  SERVER=$!
  for _ in $(seq 100); do as_cx healthcheck --listen 127.0.0.1:$PORT >/dev/null 2>&1 && return; sleep 0.2; done
  cat /tmp/deb-serve.log; fail "the installed binary did not answer healthcheck"
}
stop() { kill -TERM "$SERVER"; wait "$SERVER" || true; }

say "serve as cxwatch"
serve
curl -skf "https://127.0.0.1:$PORT/" | grep -qi '<!doctype html' || fail "no console at /"
echo 'deb-test-password-1' | as_cx user add --username admin@deb.test --role admin --access read-write
KEY=$(as_cx apikey add --name deb-test 2>/dev/null)
curl -skf "https://127.0.0.1:$PORT/api/ingest/v1/runs" -H "X-API-Key: $KEY" -H 'content-type: application/json' \
  -d '{"runs":[{"engineRunId":"deb-1","testCase":{"id":1,"name":"c","channel":"voice","ivr":{"id":1,"name":"i"}},"runTime":"2026-11-23T05:00:00Z","runDuration":1,"status":"pass","runType":"Schedule","segments":[]}]}' >/dev/null
stop
counts() {
  python3 - <<'PY'
import sqlite3
c = sqlite3.connect("file:/var/lib/cxwatch/cxwatch.db?mode=ro", uri=True)
for (t,) in c.execute("SELECT name FROM sqlite_schema WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name"):
    print(t, c.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0])
PY
}
counts >/tmp/deb-before
echo "# kept across upgrades (deb-test)" >>/etc/cxwatch/config.toml

say "upgrade to the current build"
dpkg -i --force-confold "$CUR"
grep -q 'kept across upgrades' /etc/cxwatch/config.toml || fail "the upgrade lost the config"
[ "$(mode /etc/cxwatch/config.toml)" = "640 root:cxwatch" ] || fail "config mode after upgrade"
serve
stop
counts >/tmp/deb-after
# The current build may add tables (migrations); every table of before keeps its rows.
while read -r t n; do
  grep -qx "$t $n" /tmp/deb-after || fail "table $t had $n rows before the upgrade: $(grep "^$t " /tmp/deb-after)"
done </tmp/deb-before
echo "every row kept: $(wc -l </tmp/deb-before) tables"

say "remove, then purge"
dpkg -r cxwatch
[ ! -e /usr/bin/cxwatch ] || fail "remove left the binary"
[ -f /etc/cxwatch/config.toml ] || fail "remove took the config (a conffile stays until purge)"
[ -f /var/lib/cxwatch/cxwatch.db ] || fail "remove took the data"
dpkg -P cxwatch
[ ! -e /etc/cxwatch/config.toml ] || fail "purge left the config"
[ -f /var/lib/cxwatch/cxwatch.db ] || fail "purge took the data (packaging/README.md: kept)"
echo "deb-test: ok (exposure $exposure)"
