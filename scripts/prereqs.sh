#!/usr/bin/env bash
# Installs with apt what the test command needs from Debian and does not find: every program
# that scripts/test.sh, scripts/fuzz.sh, scripts/deb-test.sh and the browser tests (ui/e2e) run
# beside Rust, Node.js and npm. Called by scripts/test.sh and scripts/deb-test.sh; checked in a
# bare Debian 12 root by scripts/bare-root-test.sh. As root, or through sudo.
#
#   scripts/prereqs.sh                install what is missing (apt-get update first, once)
#   scripts/prereqs.sh --list         print the packages that would be installed, install nothing
#   scripts/prereqs.sh [--list] deb   only what scripts/deb-test.sh needs (run on its own)
#
# Rust (rustup) and Node.js 20.19+ are not Debian 12's: README.md says where they come from,
# and this script only says when they are missing. The PostgreSQL server the tests use is a
# service of the machine (127.0.0.1:5432), not installed here; its client psql is.
set -euo pipefail

need=()
want() { # want PACKAGE CHECK...: PACKAGE when the check fails
  local pkg=$1
  shift
  if ! "$@" >/dev/null 2>&1; then
    case " ${need[*]-} " in *" $pkg "*) ;; *) need+=("$pkg") ;; esac
  fi
}
has() { command -v "$1"; }

FOR=all
LIST=no
for arg in "$@"; do
  case "$arg" in
    --list) LIST=yes ;;
    deb | all) FOR=$arg ;;
    *) echo "prereqs: unknown argument $arg" >&2; exit 2 ;;
  esac
done
all() { [ "$FOR" = all ]; }

missing() {
  need=()
  # HTTPS to crates.io, npm and PyPI (cargo, npm ci, the fuzzer's pip) needs the CA bundle.
  want ca-certificates test -s /etc/ssl/certs/ca-certificates.crt
  want curl has curl                                  # fuzz.sh, deb-test.sh
  want openssl has openssl                            # ui/e2e/notify-sinks.mjs certificates, deb-test.sh
  all && want postgresql-client has psql              # the PostgreSQL run of every test
  all && want chromium has chromium                   # the browser tests (/usr/bin/chromium)
  all && want gcc has cc                              # crates that compile C (SQLite, aws-lc)
  all && want libc6-dev test -e /usr/include/stdio.h
  all && want make has make                           # jemalloc's build (tikv-jemalloc-sys)
  want binutils has readelf                           # deb-test.sh: readelf, objdump, objcopy, strings
  want systemd has systemd-analyze                    # deb-test.sh: the unit verified and rated
  want procps has ps                                  # deb-test.sh: who the service runs as
  want util-linux has setpriv                         # deb-unit.py: the unit's user, runuser
  want lintian has lintian                            # deb-test.sh: the package checked
  # deb-test.sh runs the system's python3 in a clean environment (deb-unit.py, the row counts).
  want python3 test -x /usr/bin/python3
  # fuzz.sh: `python3 -m venv` needs ensurepip, which Debian ships apart (python3-venv). A
  # python3 that is not Debian's (pyenv) has its own.
  if all && [ "$(command -v python3 || echo /usr/bin/python3)" = /usr/bin/python3 ]; then
    want python3-venv sh -c '[ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import ensurepip, venv"'
  fi
}
missing

if [ "$LIST" = yes ]; then
  printf '%s\n' "${need[@]+"${need[@]}"}"
  exit 0
fi

if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    as_root=()
  elif command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
  else
    echo "prereqs: ${need[*]} missing, and installing them needs root or sudo" >&2
    exit 1
  fi
  echo "prereqs: installing ${need[*]}"
  "${as_root[@]}" apt-get update -qq
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    "${need[@]}" >/dev/null
  missing
  [ ${#need[@]} = 0 ] || {
    echo "prereqs: still missing after apt-get install: ${need[*]}" >&2
    exit 1
  }
fi

for tool in cargo node npm; do
  command -v "$tool" >/dev/null 2>&1 || echo "prereqs: $tool is missing (README.md, 'Building needs')" >&2
done
exit 0
