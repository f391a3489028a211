#!/usr/bin/env bash
# The Debian package, tested. Called by scripts/test.sh (step "Debian package");
# runs on its own too: scripts/deb-test.sh. It installs the package on THIS machine with
# dpkg (as root, through sudo when not root), then purges it and removes what it made.
#
# As the calling user:
#   - installs cargo-deb when missing; builds the release binary (`cargo build --release
#     --locked`) and prints how long it took, or, with CXWATCH_DEB_PROFILE=dev, takes the
#     binary the tests' build made (target/debug/cxwatch: scripts/test.sh);
#   - the binary's shared-library needs fit a bare Debian 12 (libc6 2.36, libgcc-s1): printed;
#   - packages it twice with cargo-deb: a previous build (version 0.1.0~prev) and the current one.
# As root (scripts/deb-test.sh --installed PREV CUR, in a clean environment):
#   - install the previous build: every file with its mode and owner (config 0640
#     root:cxwatch), the system user, the conffile;
#   - the installed unit passes `systemd-analyze verify`; `systemd-analyze security
#     --offline=true` rates its exposure, at most 2.0, printed;
#   - the installed binary, started as the unit would start it (scripts/deb-unit.py: User,
#     Group, UMask, StateDirectory made as systemd makes it, no capabilities, Type=notify),
#     serves the console over TLS, `cxwatch healthcheck` passes as the cxwatch user, users,
#     API keys and ingest work, and SIGTERM stops it with status 0;
#   - upgrade to the current build: the config.toml edit (the listen address the server then
#     uses) and every row of every table are kept; the unit has WatchdogSec= and its
#     ExecReload= (SIGHUP) makes the service serve a replaced certificate;
#   - remove keeps the config and the data; purge removes the config and keeps the data and
#     the user (packaging/README.md).
# Needs dpkg, systemd (systemd-analyze, systemd-sysusers), util-linux (setpriv, runuser),
# procps, binutils, lintian, python3, curl and openssl: scripts/prereqs.sh installs them with
# apt when missing.
set -euo pipefail
SELF="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
cd "$(dirname "$0")/.."
say() { printf '\n== %s\n' "$*"; }
fail() {
  echo "deb-test: FAILED: $*" >&2
  exit 1
}
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
CLEAN_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# The binary packaged: a release build by default; CXWATCH_DEB_PROFILE=dev packages the binary
# the tests' build already made (scripts/test.sh: one build for the tests, the package and the
# browser tests, instead of a second, release, build of every crate).
PROFILE=${CXWATCH_DEB_PROFILE:-release}
case "$PROFILE" in
  release) PROFILE_DIR=release ;;
  dev) PROFILE_DIR=debug ;;
  *) fail "CXWATCH_DEB_PROFILE is release or dev, not $PROFILE" ;;
esac

if [ "${1:-}" != --installed ]; then
  started=$SECONDS
  say "tools"
  scripts/prereqs.sh deb
  # cargo-deb, and cargo-auditable's reader of the dependency list in a binary.
  scripts/cargo-tools.sh cargo-deb rust-audit-info

  if [ "$PROFILE" = release ]; then
    say "release build"
    t=$SECONDS
    cargo build --release --locked
    echo "release build: $((SECONDS - t)) s"
  fi
  BIN=target/$PROFILE_DIR/cxwatch
  [ -x "$BIN" ] || fail "$BIN is missing: the tests' build makes it (cargo nextest run)"
  export CXWATCH_BIN=$BIN

  say "shared libraries: what a bare Debian 12 has (libc6 2.36, libgcc-s1)"
  needed=$(readelf -d "$BIN" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  [ -n "$needed" ] || fail "readelf found no NEEDED entry in $BIN"
  while read -r lib; do
    echo "NEEDED $lib"
    case "$lib" in
      libc.so.6 | libm.so.6 | libgcc_s.so.1 | ld-linux-x86-64.so.2 | ld-linux-aarch64.so.1 | \
        libpthread.so.0 | libdl.so.2 | librt.so.1 | libutil.so.1) ;;
      *) fail "the binary needs $lib, which a bare Debian 12 does not have" ;;
    esac
  done <<<"$needed"
  glibc=$(objdump -T "$BIN" | grep -o 'GLIBC_[0-9][0-9.]*' | sort -uV | tail -1)
  gcc=$(objdump -T "$BIN" | grep -o 'GCC_[0-9][0-9.]*' | sort -uV | tail -1 || true)
  echo "newest versioned symbols: ${glibc} ${gcc:-(none from libgcc_s)}"
  [ "$(printf '%s\nGLIBC_2.36\n' "$glibc" | sort -V | tail -1)" = GLIBC_2.36 ] ||
    fail "the binary needs $glibc; Debian 12 has GLIBC_2.36"
  # Debian 12's libgcc-s1 is GCC 12's.
  [ -z "$gcc" ] || [ "$(printf '%s\nGCC_12.0.0\n' "$gcc" | sort -V | tail -1)" = GCC_12.0.0 ] ||
    fail "the binary needs $gcc from libgcc_s"

  say "packages ($(cargo deb --version))"
  t=$SECONDS
  out=target/debian/deb-test
  rm -rf "$out"
  mkdir -p "$out"
  # --fast: the previous build's compression does not matter; the current one is as shipped.
  scripts/package-assets.sh
  cargo deb --no-build --locked --profile "$PROFILE" --fast --deb-version 0.1.0~prev --output "$out/prev.deb"
  cargo deb --no-build --locked --profile "$PROFILE" --output "$out/current.deb"
  # cargo-deb writes no md5sums: dpkg --verify and debsums need them in the package.
  scripts/deb-md5sums.py "$out/prev.deb" "$out/current.deb"
  echo "packaged in $((SECONDS - t)) s"
  for deb in "$out/prev.deb" "$out/current.deb"; do
    dpkg-deb --field "$deb" Package Version Architecture Depends Installed-Size
  done
  say "lintian"
  # Errors fail the test; warnings are printed (the overrides say why the config is 0640).
  lintian --fail-on error --no-tag-display-limit "$out/current.deb" | tee "$out/lintian.txt" ||
    fail "lintian found errors in the package"
  echo "lintian: $(grep -c '^E:' "$out/lintian.txt" || true) errors, $(grep -c '^W:' "$out/lintian.txt" || true) warnings"
  depends=$(dpkg-deb --field "$out/current.deb" Depends)
  # What the package asks of a Debian 12 system: the C library, libgcc, systemd-sysusers
  # (systemd, or the standalone one where systemd is not installed) and procps (the unit's
  # ExecReload= runs its /bin/kill, which a minimal root lacks).
  extra=$(echo "$depends" | tr ',|' '\n\n' | sed 's/^ *//; s/ .*//' |
    grep -vxE 'libc6|libgcc-s1|procps|systemd|systemd-standalone-sysusers|systemd-sysusers' || true)
  [ -z "$extra" ] || fail "the package depends on more than a Debian 12 system has: $extra"

  say "what a scanner reads: the dependency list in the binary, the SBOMs"
  # The binary as the package ships it (cargo-deb strips it): its .dep-v0 section, read as
  # cargo-auditable's readers read it (zlib, then JSON).
  rm -rf "$out/x"
  dpkg-deb -x "$out/current.deb" "$out/x"
  objcopy --dump-section .dep-v0="$out/dep-v0" "$out/x/usr/bin/cxwatch" "$out/x.o" ||
    fail "the packaged binary has no .dep-v0 section"
  rm -f "$out/x.o"
  python3 - "$out/dep-v0" "$out/x/usr/share/doc/cxwatch" Cargo.lock <<'PY' || fail "the dependency list or the SBOMs"
import json, sys, zlib
dep = json.loads(zlib.decompress(open(sys.argv[1], "rb").read()))
pk = dep["packages"]
roots = [p for p in pk if p.get("root")]
assert [r["name"] for r in roots] == ["cxwatch"], roots
names = {p["name"] for p in pk}
for must in ("poem", "rustls", "aws-lc-rs", "rusqlite", "tokio-postgres"):
    assert must in names, f"{must} is not in the dependency list"
# Dev-dependencies only (the tests' tools) are not compiled into the binary.
for dev in ("pulldown-cmark",):
    assert dev not in names, f"{dev}, a dev-dependency, is in the dependency list"
assert all(0 <= d < len(pk) for p in pk for d in p.get("dependencies", [])), "a dependency index out of range"
build = sum(p.get("kind") == "build" for p in pk)
lock = open(sys.argv[3]).read().count("[[package]]")
rust = json.load(open(sys.argv[2] + "/cxwatch.cdx.json"))
ui = json.load(open(sys.argv[2] + "/cxwatch-ui.cdx.json"))
for bom in (rust, ui):
    assert bom["bomFormat"] == "CycloneDX", bom.get("bomFormat")
def comps(bom):
    out = []
    for c in bom.get("components", []):
        out.append(c)
        out.extend(comps(c))
    return out
rc = comps(rust)
rust_names = {c["name"] for c in rc}
missing = sorted(n for n in names if n not in rust_names and n != "cxwatch")
assert not missing, f"crates in the binary but not in cxwatch.cdx.json: {missing}"
print(f".dep-v0: {len(pk)} packages ({build} build-time), root cxwatch; Cargo.lock: {lock} packages (every platform, dev-dependencies)")
print(f"cxwatch.cdx.json: {len(rc)} components; cxwatch-ui.cdx.json: {len(comps(ui))} components")
PY
  rust-audit-info "$out/x/usr/bin/cxwatch" >"$out/audit-info.json" ||
    fail "rust-audit-info cannot read the packaged binary"
  python3 -c 'import json, sys; print("rust-audit-info:", len(json.load(open(sys.argv[1]))["packages"]), "packages")' "$out/audit-info.json"
  rm -rf "$out/x"

  as_root env -i PATH="$CLEAN_PATH" bash "$SELF" --installed "$PWD/$out/prev.deb" "$PWD/$out/current.deb"
  echo "deb-test: the $PROFILE build packaged, whole step $((SECONDS - started)) s"
  exit 0
fi

# ---- As root, in a clean environment: install, serve, upgrade, remove, purge. -------------
PREV=$2
CUR=$3
[ "$(id -u)" = 0 ] || fail "--installed runs as root"
STATE=/var/lib/cxwatch
MARK=/var/lib/.cxwatch-deb-test
if dpkg-query -W -f='${db:Status-Status}' cxwatch 2>/dev/null | grep -qv '^not-installed$'; then
  [ -e "$MARK" ] || fail "cxwatch is installed on this machine: deb-test would replace it (it only runs where it made the install itself)"
fi
if [ ! -e "$MARK" ]; then
  # What this machine had before: only what the test makes is removed afterwards.
  getent passwd cxwatch >/dev/null && made_user=no || made_user=yes
  [ -e "$STATE" ] && made_state=no || made_state=yes
  printf 'made_user=%s\nmade_state=%s\n' "$made_user" "$made_state" >"$MARK"
fi
# shellcheck disable=SC1090
. "$MARK"

TMP=$(mktemp -d)
SUP=
cleanup() {
  status=$?
  if [ -n "$SUP" ]; then
    kill -TERM "$SUP" 2>/dev/null || true
    wait "$SUP" 2>/dev/null || true
  fi
  dpkg -P cxwatch >/dev/null 2>&1 || true
  if [ "$made_state" = yes ]; then rm -rf "$STATE"; fi
  if [ "$made_user" = yes ] && getent passwd cxwatch >/dev/null; then
    userdel cxwatch || true
  fi
  if [ "$made_user" = yes ] && getent group cxwatch >/dev/null; then
    groupdel cxwatch || true
  fi
  rm -rf "$MARK" "$TMP"
  exit "$status"
}
trap cleanup EXIT

mode() { stat -c '%a %U:%G' "$1"; }
since() { awk -v t0="$1" -v t1="$(date +%s.%N)" 'BEGIN { printf "%.1f", t1 - t0 }'; }
as_cx() { runuser -u cxwatch -- env -i PATH="$CLEAN_PATH" /usr/bin/cxwatch --config /etc/cxwatch/config.toml "$@"; }
version() { dpkg-query -W -f='${Version}' cxwatch; }
DEB_UNIT="$(dirname "$SELF")/deb-unit.py"

# Where systemd runs, the package's postinst starts (and after an upgrade restarts) the real
# service; it is stopped so that the test starts it its own way everywhere (deb-unit.py).
systemd_stop() {
  if [ -d /run/systemd/system ]; then systemctl stop cxwatch.service || true; fi
}

files() {
  # Every file the package installed, with its mode and owner; the subcommands' man pages as
  # one line (each has its own check below).
  dpkg -L cxwatch | while read -r f; do [ -f "$f" ] && stat -c '%n %a %U:%G' "$f"; done |
    sed 's|^/usr/share/man/man1/cxwatch-[a-z0-9-]*\.1\.gz \(.*\)$|/usr/share/man/man1/cxwatch-*.1.gz \1 (one per subcommand)|' | sort -u
}

say "install the previous build"
t_install=$(date +%s.%N)
# dpkg's status lines, each with the time it came: where the install's time goes.
dpkg --status-logger="while read -r l; do echo \"\$(date +%s.%N) \$l\"; done >>$TMP/status" \
  -i "$PREV" 2>&1 | tee "$TMP/install.log"
[ "${PIPESTATUS[0]}" = 0 ] || fail "dpkg -i $PREV"
t_installed=$(date +%s.%N)
install_s=$(since "$t_install")
# The logger may still be writing its last line when dpkg returns.
for _ in $(seq 20); do grep -q ' status: cxwatch: installed$' "$TMP/status" 2>/dev/null && break; sleep 0.05; done
# Before unpacking, dpkg reads its database (every installed file) and the control member;
# configuring runs the postinst; the triggers run last: man-db's `mandb` reads again every
# page of a man page directory the package added to, so it takes as long as this system
# has pages there, whatever the package ships.
install_parts=$(awk -v t0="$t_install" -v t1="$t_installed" '
  $2 == "processing:" && $3 == "install:" && $4 == "cxwatch" { u = $1 }
  $2 == "status:" && $3 == "cxwatch:" && $4 == "unpacked" { p = $1 }
  $2 == "processing:" && $3 == "configure:" && $4 == "cxwatch" { c = $1 }
  $2 == "status:" && $3 == "cxwatch:" && $4 == "installed" { i = $1 }
  $2 == "processing:" && $3 == "trigproc:" { trig = trig (trig ? " " : "") $4 }
  END {
    if (!u || !p || !c || !i) { print "no breakdown (dpkg status lines missing)"; exit }
    printf "before unpacking %.2f s, unpacking %.2f s, configuring (postinst) %.2f s, triggers %.2f s (%s)",
      u - t0, p - u, i - c, t1 - i, trig ? trig : "none"
    printf "\n%.2f", t1 - i
  }' "$TMP/status")
triggers_s=$(echo "$install_parts" | sed -n 2p)
install_parts=$(echo "$install_parts" | sed -n 1p)
systemd_stop
# A fresh install says nothing the administrator must look into (adduser's 'Warning: The home
# dir ... can't be accessed' was one).
! grep -qi 'warn' "$TMP/install.log" || fail "the install printed a warning: $(grep -i warn "$TMP/install.log")"
echo "no warning on install; dpkg -i took $install_s s: $install_parts"
[ "$(version)" = "$(dpkg-deb --field "$PREV" Version)" ] || fail "installed version $(version)"
UNIT=/usr/lib/systemd/system/cxwatch.service
files | tee "$TMP/files"
diff -u - "$TMP/files" <<EOF || fail "the installed files differ from what packaging/README.md lists"
/etc/cxwatch/config.toml 640 root:cxwatch
/usr/bin/cxwatch 755 root:root
/usr/lib/systemd/system/cxwatch.service 644 root:root
/usr/lib/sysusers.d/cxwatch.conf 644 root:root
/usr/share/bash-completion/completions/cxwatch 644 root:root
/usr/share/doc/cxwatch/LICENSE-DejaVu.txt 644 root:root
/usr/share/doc/cxwatch/README.md 644 root:root
/usr/share/doc/cxwatch/alerting.md 644 root:root
/usr/share/doc/cxwatch/api-data.md 644 root:root
/usr/share/doc/cxwatch/api-reports.md 644 root:root
/usr/share/doc/cxwatch/api-tickets.md 644 root:root
/usr/share/doc/cxwatch/api.md 644 root:root
/usr/share/doc/cxwatch/backup.md 644 root:root
/usr/share/doc/cxwatch/changelog.Debian.gz 644 root:root
/usr/share/doc/cxwatch/config.example.toml 644 root:root
/usr/share/doc/cxwatch/copyright 644 root:root
/usr/share/doc/cxwatch/cxwatch-ui.cdx.json 644 root:root
/usr/share/doc/cxwatch/cxwatch.cdx.json 644 root:root
/usr/share/doc/cxwatch/grafana-dashboard.json 644 root:root
/usr/share/doc/cxwatch/ingest.md 644 root:root
/usr/share/doc/cxwatch/metrics.md 644 root:root
/usr/share/doc/cxwatch/postgres.md 644 root:root
/usr/share/doc/cxwatch/proxy.md 644 root:root
/usr/share/doc/cxwatch/sso.md 644 root:root
/usr/share/doc/cxwatch/supply-chain.md 644 root:root
/usr/share/fish/vendor_completions.d/cxwatch.fish 644 root:root
/usr/share/lintian/overrides/cxwatch 644 root:root
/usr/share/man/man1/cxwatch-*.1.gz 644 root:root (one per subcommand)
/usr/share/man/man1/cxwatch.1.gz 644 root:root
/usr/share/zsh/vendor-completions/_cxwatch 644 root:root
EOF
say "installed documentation, man page, completions and checksums"
# Every /usr/share/doc/cxwatch/... path the binary and the config name is installed.
for doc in $( (strings /usr/bin/cxwatch; cat /etc/cxwatch/config.toml) | grep -oE '/usr/share/doc/cxwatch/[A-Za-z0-9-]+\.(md|json|toml)' | sort -u); do
  [ -f "$doc" ] || fail "$doc is named by the binary or the config but not installed"
  echo "named and installed: $doc"
done
python3 -c 'import json; json.load(open("/usr/share/doc/cxwatch/grafana-dashboard.json"))' || fail "the Grafana dashboard is not JSON"
zcat /usr/share/man/man1/cxwatch.1.gz | grep -q '^\.TH cxwatch 1' || fail "the man page has no .TH cxwatch 1"
for section in OPTIONS SUBCOMMANDS '"EXIT STATUS"' FILES ENVIRONMENT; do
  zcat /usr/share/man/man1/cxwatch.1.gz | grep -q "^\.SH $section" || fail "cxwatch(1) has no $section section"
done
# Every page a page names, `cxwatch\-user\-add(1)` in roff, is installed.
named=0
for page in /usr/share/man/man1/cxwatch*.1.gz; do
  for name in $(zcat "$page" | grep -oE 'cxwatch(\\-[a-z0-9]+)*\(1\)' | sed 's/\\//g; s/(1)$//' | sort -u); do
    [ -f "/usr/share/man/man1/$name.1.gz" ] || fail "$page names $name(1), which is not installed"
    named=$((named + 1))
  done
done
# ...and every page installed but cxwatch(1) is named by one.
zcat /usr/share/man/man1/cxwatch*.1.gz >"$TMP/man.txt"
for page in /usr/share/man/man1/cxwatch-*.1.gz; do
  name=$(basename "$page" .1.gz)
  roff=$(echo "$name" | sed 's/-/\\-/g')
  grep -qF "$roff(1)" "$TMP/man.txt" || fail "no page names $name(1)"
done
pages=$(ls /usr/share/man/man1/cxwatch*.1.gz | wc -l)
echo "man pages: $pages installed; the $named names they give are all installed"
[ "$pages" -gt 10 ] || fail "only $pages man pages: one per subcommand is installed"
grep -q '_cxwatch' /usr/share/bash-completion/completions/cxwatch || fail "no bash completion function"
grep -q ' usr/bin/cxwatch$' /var/lib/dpkg/info/cxwatch.md5sums || fail "md5sums do not list usr/bin/cxwatch"
dpkg-deb --ctrl-tarfile "$PREV" | tar -t | grep -qE '^(\./)?md5sums$' || fail "the package has no md5sums"
verify=$(dpkg --verify cxwatch) || true
[ -z "$verify" ] || fail "dpkg --verify cxwatch: $verify"
echo "dpkg --verify cxwatch: every file as packaged"
cmp -s /etc/cxwatch/config.toml /usr/share/doc/cxwatch/config.example.toml || fail "config.toml is not config.example.toml"
dpkg-statoverride --list /etc/cxwatch/config.toml | grep -qx 'root cxwatch 640 /etc/cxwatch/config.toml' ||
  fail "no statoverride for config.toml: $(dpkg-statoverride --list /etc/cxwatch/config.toml || true)"
echo "user: $(getent passwd cxwatch)"
echo "group: $(getent group cxwatch)"
IFS=: read -r _ _ uid gid _ home shell < <(getent passwd cxwatch)
[ "$uid" -lt 1000 ] || fail "cxwatch is not a system user (uid $uid)"
[ "$(getent group cxwatch | cut -d: -f3)" = "$gid" ] || fail "the cxwatch user's group is not cxwatch"
[ "$home" = /var/lib/cxwatch ] || fail "home $home"
[ "$shell" = /usr/sbin/nologin ] || fail "shell $shell"
conffiles=$(dpkg-query -W -f='${Conffiles}\n' cxwatch)
echo "conffiles:$conffiles"
[ "$(echo "$conffiles" | awk 'NF {print $1}')" = /etc/cxwatch/config.toml ] || fail "the conffiles are not just config.toml"
[ -L /etc/systemd/system/multi-user.target.wants/cxwatch.service ] || fail "the unit is not enabled"

say "the installed unit: systemd-analyze verify and security"
verify=$(systemd-analyze verify --man=no "$UNIT" 2>&1) || fail "systemd-analyze verify: $verify"
[ -z "$verify" ] || fail "systemd-analyze verify warns: $verify"
echo "systemd-analyze verify $UNIT: no warning"
systemd-analyze security --offline=true --no-pager "$UNIT" >"$TMP/security" 2>&1 || true
grep -v '^✓' "$TMP/security"
exposure=$(sed -n 's/.*Overall exposure level for cxwatch\.service: \([0-9.]*\).*/\1/p' "$TMP/security")
[ -n "$exposure" ] || fail "systemd-analyze security printed no exposure"
echo "security exposure of the unit: $exposure (at most 2.0)"
awk -v e="$exposure" 'BEGIN { exit !(e <= 2.0) }' || fail "exposure $exposure > 2.0"

# The administrator's edit: a port of its own (8443 may be taken on a test machine).
PORT=$((20000 + RANDOM % 20000))
sed -i "s|^#listen = \"0.0.0.0:8443\"|listen = \"127.0.0.1:$PORT\"  # deb-test edit|" /etc/cxwatch/config.toml
grep -q "^listen = \"127.0.0.1:$PORT\"" /etc/cxwatch/config.toml || fail "could not edit config.toml"

start() {
  rm -f "$TMP/ready"
  local t0
  t0=$(date +%s.%N)
  python3 "$DEB_UNIT" "$UNIT" "$TMP/ready" >"$TMP/serve.log" 2>&1 &
  SUP=$!
  for _ in $(seq 1200); do
    [ -s "$TMP/ready" ] && break
    kill -0 "$SUP" 2>/dev/null || break
    sleep 0.05
  done
  [ -s "$TMP/ready" ] || {
    cat "$TMP/serve.log"
    fail "the service did not send READY=1"
  }
  local ready_s
  ready_s=$(since "$t0")
  # The console first, then the other checks: the first start's time is to its first answer,
  # not to the end of a `cxwatch healthcheck` run beside it.
  curl -sS --fail -k "https://127.0.0.1:$PORT/" -o "$TMP/index.html" -w 'GET / over %{scheme}: %{http_code}\n'
  # The first start is the cold one: no database, no certificate yet.
  if [ -z "${first_start_s:-}" ]; then
    first_start_s=$(since "$t0")
    echo "first start: READY=1 $ready_s s and the console answered HTTPS 200 $first_start_s s after the service started"
  fi
  local pid
  pid=$(cat "$TMP/ready")
  echo "serving as $(ps -o user=,group=,supgrp= -p "$pid" | xargs), umask $(awk '/^Umask/ {print $2}' /proc/"$pid"/status), NoNewPrivs $(awk '/^NoNewPrivs/ {print $2}' /proc/"$pid"/status), CapBnd $(awk '/^CapBnd/ {print $2}' /proc/"$pid"/status)"
  [ "$(ps -o user= -p "$pid")" = cxwatch ] || fail "the service does not run as cxwatch"
  as_cx healthcheck || fail "cxwatch healthcheck as cxwatch"
  grep -qi '<!doctype html' "$TMP/index.html" || fail "no console at https://127.0.0.1:$PORT/"
  # TLS with the certificate the service generated in its state directory.
  echo | openssl s_client -connect "127.0.0.1:$PORT" 2>/dev/null | grep -q 'BEGIN CERTIFICATE' ||
    fail "no TLS certificate on 127.0.0.1:$PORT"
}
stop() {
  kill -TERM "$SUP"
  local code=0
  wait "$SUP" || code=$?
  SUP=
  grep '^deb-unit:' "$TMP/serve.log"
  if [ "$code" != 0 ]; then
    cat "$TMP/serve.log"
    fail "the service exited with status $code on SIGTERM"
  fi
  grep -q 'notifications:.*READY=1.*STOPPING=1' "$TMP/serve.log" || fail "no READY=1 then STOPPING=1"
}
counts() {
  # As cxwatch, read-only: root must not leave files in the data directory.
  runuser -u cxwatch -- python3 - <<'PY'
import sqlite3
c = sqlite3.connect("file:/var/lib/cxwatch/cxwatch.db?mode=ro", uri=True)
for (t,) in c.execute("SELECT name FROM sqlite_schema WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name"):
    print(t, c.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0])
PY
}

say "a config typo: exit status 78 (EX_CONFIG), not restarted, the reason named in JSON"
cp /etc/cxwatch/config.toml "$TMP/config.good"
sed -i "s|^listen = \"127.0.0.1:$PORT\"|lisen = \"127.0.0.1:$PORT\"|" /etc/cxwatch/config.toml
code=0
timeout 60 python3 "$DEB_UNIT" "$UNIT" "$TMP/ready" >"$TMP/typo.log" 2>&1 || code=$?
grep '^deb-unit:' "$TMP/typo.log"
[ "$code" = 78 ] || { cat "$TMP/typo.log"; fail "a config typo ended the service with status $code, not 78"; }
grep -q 'systemd would start it again: no (exit status 78 is in RestartPreventExitStatus)' "$TMP/typo.log" ||
  fail "the unit would restart on a config typo"
grep -q 'server.lisen: unknown key' "$TMP/typo.log" || fail "the typo is not named"
grep -v '^deb-unit:' "$TMP/typo.log" | python3 -c 'import json, sys; [json.loads(l) for l in sys.stdin if l.strip()]' ||
  fail "the service wrote a line that is not JSON"
code=0
as_cx config check >/dev/null 2>"$TMP/check.log" || code=$?
[ "$code" = 78 ] || fail "cxwatch config check: status $code on the typo, not 78"
echo "config check: $(cat "$TMP/check.log")"
cp "$TMP/config.good" /etc/cxwatch/config.toml
as_cx config check >/dev/null || fail "cxwatch config check refuses the good config"

say "serve as the unit would, on 127.0.0.1:$PORT"
start
ls -l "$STATE"
[ "$(mode "$STATE")" = "750 cxwatch:cxwatch" ] || fail "$STATE: $(mode "$STATE")"
find "$STATE" -mindepth 1 -perm /o=rwx | grep . && fail "files in $STATE readable by others (UMask=0027)"
echo 'deb-test-password-1' | as_cx user add --username admin@deb.test --role admin --access read-write
KEY=$(as_cx apikey add --name deb-test 2>/dev/null)
reply=$(curl -sS --fail-with-body -k "https://127.0.0.1:$PORT/api/ingest/v1/runs" -H "X-API-Key: $KEY" \
  -H 'content-type: application/json' --data-binary @- <<'EOF'
{"runs":[{"engineRunId":"deb-1","testCase":{"id":1,"name":"Debian package","channel":"voice",
 "ivr":{"id":1,"name":"deb-test"}},"runTime":"2026-11-23T05:00:00Z","runDuration":1,
 "status":"pass","runType":"Schedule","segments":[]}]}
EOF
)
echo "ingest: $reply"
echo "$reply" | grep -q '"accepted":1' || fail "ingest did not accept the run"
stop
counts >"$TMP/before"
awk '{n += $2} END {print NR " tables, " n " rows before the upgrade"}' "$TMP/before"
for t in users api_keys test_runs; do
  grep -qE "^$t [1-9]" "$TMP/before" || fail "no row in $t: $(cat "$TMP/before")"
done

say "upgrade to the current build"
dpkg -i "$CUR" </dev/null
systemd_stop
[ "$(version)" = "$(dpkg-deb --field "$CUR" Version)" ] || fail "version after the upgrade: $(version)"
grep -q "^listen = \"127.0.0.1:$PORT\"  # deb-test edit" /etc/cxwatch/config.toml || fail "the upgrade lost the config.toml edit"
[ "$(mode /etc/cxwatch/config.toml)" = "640 root:cxwatch" ] || fail "config.toml after the upgrade: $(mode /etc/cxwatch/config.toml)"
[ "$(mode /usr/bin/cxwatch)" = "755 root:root" ] || fail "/usr/bin/cxwatch after the upgrade"
start # on the edited port: the kept edit is in force

# ---- Reload and watchdog (packaging/cxwatch.service: ExecReload=, WatchdogSec=) -----------
say "reload: a replaced certificate is served without a restart"
grep -q '^WatchdogSec=[1-9]' "$UNIT" || fail "the unit has no WatchdogSec="
reload=$(sed -n 's/^ExecReload=//p' "$UNIT")
[ "$reload" = '/bin/kill -HUP $MAINPID' ] || fail "the unit's ExecReload= is '$reload', not SIGHUP"
served() { echo | openssl s_client -connect "127.0.0.1:$PORT" 2>/dev/null | openssl x509 -noout -subject -fingerprint -sha256; }
before=$(served)
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 365 \
  -subj /CN=deb-test-reload -addext subjectAltName=DNS:localhost \
  -keyout "$TMP/reload.key" -out "$TMP/reload.crt" 2>/dev/null
install -o cxwatch -g cxwatch -m 600 "$TMP/reload.key" "$STATE/tls/self-signed.key"
install -o cxwatch -g cxwatch -m 644 "$TMP/reload.crt" "$STATE/tls/self-signed.crt"
# The service runs under deb-unit.py, not systemd: the unit's ExecReload= with its main pid.
${reload//\$MAINPID/$(cat "$TMP/ready")}
for _ in $(seq 50); do [ "$(served)" != "$before" ] && break; sleep 0.2; done
served | grep -q 'CN *= *deb-test-reload' || fail "after the reload the old certificate is served: $(served)"
grep -q 'TLS certificate reloaded' "$TMP/serve.log" || fail "no 'TLS certificate reloaded' in the log"
as_cx healthcheck || fail "cxwatch healthcheck after the reload"
echo "reload: the new certificate served, $(served | grep -i fingerprint)"
# ---- end of reload and watchdog ----------------------------------------------------------
stop
counts >"$TMP/after"
# A newer build may add tables (migrations): every table of before keeps all its rows.
while read -r t n; do
  grep -qx "$t $n" "$TMP/after" || fail "table $t had $n rows before the upgrade: $(grep "^$t " "$TMP/after" || echo gone)"
done <"$TMP/before"
echo "every row kept: $(wc -l <"$TMP/before") tables"

say "remove: the config and the data stay"
dpkg -r cxwatch
[ "$(dpkg-query -W -f='${db:Status-Status}' cxwatch)" = config-files ] || fail "status after remove"
[ ! -e /usr/bin/cxwatch ] || fail "remove left the binary"
[ ! -e "$UNIT" ] || fail "remove left the unit"
grep -q "# deb-test edit" /etc/cxwatch/config.toml || fail "remove took the config (a conffile stays until purge)"
[ -f "$STATE/cxwatch.db" ] || fail "remove took the data"
echo "kept: /etc/cxwatch/config.toml, $STATE"

say "purge: the config goes, the data and the user stay"
dpkg -P cxwatch
[ "$(dpkg-query -W -f='${db:Status-Status}' cxwatch 2>/dev/null || echo not-installed)" = not-installed ] || fail "status after purge"
[ ! -e /etc/cxwatch ] || fail "purge left /etc/cxwatch: $(ls -la /etc/cxwatch)"
[ -z "$(dpkg-statoverride --list /etc/cxwatch/config.toml || true)" ] || fail "purge left the statoverride"
[ -f "$STATE/cxwatch.db" ] || fail "purge took the data (packaging/README.md: kept)"
getent passwd cxwatch >/dev/null || fail "purge removed the system user"
[ ! -e /etc/systemd/system/multi-user.target.wants/cxwatch.service ] || fail "purge left the unit enabled"
echo "kept: $STATE, the cxwatch user"
# Where systemd runs, the postinst starts the service (and waits for READY=1) before dpkg runs
# the triggers: the console answers without waiting for them.
echo "deb-test: ok (security exposure $exposure; cold install to the console over HTTPS: dpkg -i $install_s s + first start $first_start_s s = $(awk -v a="$install_s" -v b="$first_start_s" 'BEGIN { printf "%.1f", a + b }') s, of which triggers ${triggers_s:-?} s; where systemd starts the service in the postinst, before the triggers: $(awk -v a="$install_s" -v t="${triggers_s:-0}" -v b="$first_start_s" 'BEGIN { printf "%.1f", a - t + b }') s)"
