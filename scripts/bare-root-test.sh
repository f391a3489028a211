#!/usr/bin/env bash
# What a fresh Debian 12 has, tested in a bare bookworm root: mmdebstrap makes one from the
# apt mirror (variant minbase: the Essential packages and apt, no systemd, no Python, no
# curl), and in it, through chroot (no systemd as PID 1, no service started):
#
#   --deb FILE   the package installs: its Depends resolved with apt from the mirror, then
#                `dpkg -i` prints no warning; the system user (uid below 1000, home
#                /var/lib/cxwatch, shell nologin), the man pages every page names, the SBOMs
#                under /usr/share/doc/cxwatch/; the binary started as the unit would start it
#                answers its console over HTTPS with 200; the unit has WatchdogSec=, and its
#                ExecReload= (SIGHUP) makes the server serve a replaced certificate. Prints
#                the time from `dpkg -i` to the console's first HTTPS 200.
#   --man-db     with --deb: man-db is installed first, as on a server installed with
#                Debian's standard utilities, so that dpkg -i runs its trigger.
#   --prereqs    scripts/prereqs.sh installs what the test command needs and after it
#                `python3 -m venv`, psql, openssl, chromium, lintian, systemd-analyze... run; a
#                second run finds nothing missing.
#
# Without an option it does both (the package: target/debian/deb-test/current.deb, which
# scripts/deb-test.sh makes). As root (mmdebstrap's root mode), through sudo when not root.
# Prints how long each part took. Needs mmdebstrap: installed with apt when missing. The root
# is made once and kept for a week in target/bare-root/ (mmdebstrap takes about 70 s).
set -euo pipefail
SELF="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
HERE=$(dirname "$SELF")
fail() {
  echo "bare-root-test: FAILED: $*" >&2
  exit 1
}
say() { printf '\n== %s (at %d s)\n' "$*" "$SECONDS"; }
# Seconds since $1 (an $EPOCHREALTIME), to the millisecond.
elapsed() { awk -v now="$EPOCHREALTIME" -v t="$1" 'BEGIN { printf "%.3f", now - t }'; }

# ---- Inside the bare root (chroot), as root. ------------------------------------------------
if [ "${1:-}" = --inside ]; then
  shift
  export DEBIAN_FRONTEND=noninteractive PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
  cd /root/cx
  case "$1" in
    deb)
      DEB=/root/cx/cxwatch.deb
      say "bare root: $(cat /etc/debian_version), $(dpkg-query -W -f='${Package}\n' | wc -l) packages"
      for p in systemd python3 curl; do
        ! dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed ||
          fail "$p is in the bare root already: not the root a fresh install starts from"
      done
      apt-get update -qq
      depends=$(dpkg-deb --field "$DEB" Depends)
      echo "Depends: $depends"
      t=$SECONDS
      # What the package asks for, as apt would resolve it for `apt install ./cxwatch.deb`.
      apt-get satisfy -y -qq "$depends" >/tmp/satisfy.log 2>&1 || {
        cat /tmp/satisfy.log
        fail "apt-get satisfy $depends"
      }
      echo "dependencies installed in $((SECONDS - t)) s: $(grep -c '^Setting up' /tmp/satisfy.log) packages"
      if [ "${2:-}" = man-db ]; then
        apt-get install -y -qq man-db >/dev/null
        echo "man-db installed: its trigger indexes the package's pages during dpkg -i"
      fi
      t=$EPOCHREALTIME
      dpkg -i "$DEB" >/tmp/install.log 2>&1 || {
        cat /tmp/install.log
        fail "dpkg -i"
      }
      cat /tmp/install.log
      dpkg_s=$(elapsed "$t")
      echo "dpkg -i: $dpkg_s s"
      ! grep -qi 'warn' /tmp/install.log || fail "the install printed a warning: $(grep -i warn /tmp/install.log)"
      echo "no warning on install"
      IFS=: read -r _ _ uid gid _ home shell < <(getent passwd cxwatch) || fail "no cxwatch user"
      echo "user: $(getent passwd cxwatch)"
      [ "$uid" -lt 1000 ] || fail "cxwatch is not a system user (uid $uid)"
      [ "$(getent group cxwatch | cut -d: -f3)" = "$gid" ] || fail "the cxwatch user's group is not cxwatch"
      [ "$home" = /var/lib/cxwatch ] || fail "home $home"
      [ "$shell" = /usr/sbin/nologin ] || fail "shell $shell"
      [ "$(stat -c '%a %U:%G' /etc/cxwatch/config.toml)" = "640 root:cxwatch" ] || fail "config.toml mode"
      # Every page a man page names is installed.
      for page in /usr/share/man/man1/cxwatch*.1.gz; do
        for named in $(zcat "$page" | grep -oE 'cxwatch(\\-[a-z0-9]+)*\(1\)' | sed 's/\\//g; s/(1)$//' | sort -u); do
          [ -f "/usr/share/man/man1/$named.1.gz" ] || fail "$page names $named(1), which is not installed"
        done
      done
      echo "man pages: $(ls /usr/share/man/man1/cxwatch*.1.gz | wc -l), every page named installed"
      for sbom in cxwatch.cdx.json cxwatch-ui.cdx.json; do
        f=/usr/share/doc/cxwatch/$sbom
        [ -s "$f" ] || fail "$f is not installed"
        grep -q '"bomFormat": *"CycloneDX"' "$f" || fail "$f is not a CycloneDX document"
      done
      echo "SBOMs installed: $(ls /usr/share/doc/cxwatch/*.cdx.json | xargs -n1 basename | xargs)"
      # Served as the unit would serve it (its user, its state directory; no systemd here).
      apt-get install -y -qq curl >/dev/null
      install -d -m 0750 -o cxwatch -g cxwatch /var/lib/cxwatch
      port=$((20000 + RANDOM % 20000))
      t=$EPOCHREALTIME
      runuser -u cxwatch -- env -i PATH="$PATH" CXWATCH_SERVER__LISTEN="127.0.0.1:$port" \
        /usr/bin/cxwatch --config /etc/cxwatch/config.toml serve >/tmp/serve.log 2>&1 &
      pid=$!
      code=000
      for _ in $(seq 1200); do
        code=$(curl -sk -o /dev/null -w '%{http_code}' "https://127.0.0.1:$port/" || true)
        [ "$code" = 200 ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
      done
      [ "$code" = 200 ] || {
        kill -TERM "$pid" 2>/dev/null || true
        cat /tmp/serve.log
        fail "no console at https://127.0.0.1:$port/ (HTTP $code)"
      }
      start_s=$(elapsed "$t")
      echo "GET https://127.0.0.1:$port/: 200, $start_s s after the start"
      echo "dpkg -i to HTTPS 200: $(awk -v a="$dpkg_s" -v b="$start_s" 'BEGIN { printf "%.3f", a + b }') s (dpkg -i $dpkg_s s, then the start $start_s s)"
      # The unit's watchdog and reload: a certificate replaced in the state directory is
      # served after the unit's ExecReload= (SIGHUP), without a restart.
      unit=/usr/lib/systemd/system/cxwatch.service
      grep -q '^WatchdogSec=[1-9]' "$unit" || fail "the unit has no WatchdogSec="
      reload=$(sed -n 's/^ExecReload=//p' "$unit")
      [ "$reload" = '/bin/kill -HUP $MAINPID' ] || fail "the unit's ExecReload= is '$reload', not SIGHUP"
      subject() { curl -vsk -o /dev/null "https://127.0.0.1:$port/" 2>&1 | sed -n 's/^\*  *subject: *//p'; }
      install -o cxwatch -g cxwatch -m 600 reload.key /var/lib/cxwatch/tls/self-signed.key
      install -o cxwatch -g cxwatch -m 644 reload.crt /var/lib/cxwatch/tls/self-signed.crt
      # The unit's main pid is the server's own: runuser's child (runuser forks to close
      # its PAM session after), or $pid itself if it did not. Not any process named
      # cxwatch: this /proc shows the host's too (a test server beside this). pgrep: the
      # package depends on procps.
      main=$pid
      [ "$(cat "/proc/$pid/comm")" = cxwatch ] || main=$(pgrep -P "$pid" -x cxwatch | head -1)
      [ -n "$main" ] || fail "no cxwatch process"
      ${reload//\$MAINPID/$main}
      for _ in $(seq 50); do subject | grep -q 'CN *= *bare-root-reload' && break; sleep 0.2; done
      subject | grep -q 'CN *= *bare-root-reload' || fail "after the reload the old certificate is served: $(subject)"
      echo "reload (SIGHUP): the new certificate served ($(subject)); WatchdogSec= in the unit"
      kill -TERM "$pid" 2>/dev/null || true
      wait "$pid" || true
      ;;
    prereqs)
      say "bare root: $(cat /etc/debian_version), $(dpkg-query -W -f='${Package}\n' | wc -l) packages"
      echo "missing: $(bash prereqs.sh --list | xargs)"
      t=$SECONDS
      bash prereqs.sh
      echo "prereqs.sh installed them in $((SECONDS - t)) s"
      python3 -m venv /tmp/venv || fail "python3 -m venv"
      /tmp/venv/bin/python -m pip --version || fail "pip in the venv"
      psql --version
      openssl version
      chromium --version
      lintian --version
      systemd-analyze --version | head -1
      curl --version | head -1
      readelf --version | head -1
      cc --version | head -1
      ps --version
      setpriv --version
      left=$(bash prereqs.sh --list)
      [ -z "$left" ] || fail "prereqs.sh leaves missing: $left"
      echo "a second run finds nothing missing"
      ;;
  esac
  exit 0
fi

# ---- On the host. ------------------------------------------------------------------------
ARGS=("$@")
parts=()
DEB=
MAN_DB=
while [ $# -gt 0 ]; do
  case "$1" in
    --deb)
      DEB=$(realpath "$2")
      parts+=(deb)
      shift 2
      ;;
    --prereqs)
      parts+=(prereqs)
      shift
      ;;
    --man-db)
      MAN_DB=man-db
      shift
      ;;
    *) fail "unknown option $1" ;;
  esac
done
if [ ${#parts[@]} = 0 ]; then
  DEB=$(realpath "$HERE/../target/debian/deb-test/current.deb")
  parts=(deb prereqs)
fi
if [ "$(id -u)" != 0 ]; then
  exec sudo env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin bash "$SELF" "${ARGS[@]+"${ARGS[@]}"}"
fi
if ! command -v mmdebstrap >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap >/dev/null
fi
[ -z "$DEB" ] || [ -f "$DEB" ] || fail "$DEB is missing (scripts/deb-test.sh makes it)"
# The bare root, made once and kept as a tarball (target/bare-root/) for a week: each part
# runs in a fresh copy of it.
TAR=$HERE/../target/bare-root/bookworm-minbase.tar
if [ ! -s "$TAR" ] || [ -n "$(find "$TAR" -mtime +7)" ]; then
  # The mirror this machine's apt uses (deb.debian.org by default).
  MIRROR=$(sed -n 's/^URIs: *\([^ ]*\/debian\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
  MIRROR=${MIRROR:-http://deb.debian.org/debian}
  mkdir -p "$(dirname "$TAR")"
  t=$SECONDS
  # The name's .tar tells mmdebstrap to write a tarball.
  rm -rf "${TAR%.tar}.new.tar"
  mmdebstrap --quiet --mode=root --variant=minbase bookworm "${TAR%.tar}.new.tar" "$MIRROR" || fail "mmdebstrap"
  mv "${TAR%.tar}.new.tar" "$TAR"
  echo "bare-root-test: bookworm minbase root made with mmdebstrap in $((SECONDS - t)) s"
fi

ROOT=
cleanup() {
  [ -n "$ROOT" ] || return 0
  for m in dev proc; do
    if mountpoint -q "$ROOT/$m"; then umount -l "$ROOT/$m"; fi
  done
  # Never into a mount that is still there (the host's /dev).
  if ! grep -qF " $ROOT/" /proc/mounts; then rm -rf --one-file-system "$ROOT"; fi
  ROOT=
}
trap cleanup EXIT
for part in "${parts[@]}"; do
  started=$SECONDS
  ROOT=$(mktemp -d /tmp/cxwatch-bare-root.XXXXXX)
  tar -xf "$TAR" -C "$ROOT"
  mkdir -p "$ROOT/root/cx"
  cp "$SELF" "$HERE/prereqs.sh" "$ROOT/root/cx/"
  if [ "$part" = deb ]; then
    cp "$DEB" "$ROOT/root/cx/cxwatch.deb"
    # The certificate the reload check puts in place (made here: the bare root has no openssl).
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 365 \
      -subj /CN=bare-root-reload -addext subjectAltName=DNS:localhost \
      -keyout "$ROOT/root/cx/reload.key" -out "$ROOT/root/cx/reload.crt" 2>/dev/null || fail "openssl req"
  fi
  cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
  mount -t proc proc "$ROOT/proc"
  mount --bind /dev "$ROOT/dev"
  code=0
  chroot "$ROOT" /bin/bash /root/cx/"$(basename "$SELF")" --inside "$part" ${MAN_DB:+"$MAN_DB"} || code=$?
  cleanup
  [ "$code" = 0 ] || fail "the $part part in the bare root (exit $code)"
  echo "bare-root-test: $part: ok in $((SECONDS - started)) s (a fresh copy of the root, removed after)"
done
