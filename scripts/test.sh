#!/usr/bin/env bash
# Runs every test of cxwatch: formatting and lints, Rust unit and integration tests
# (in-process, and with the real binary where a process matters) on SQLite and again on
# PostgreSQL (the server on 127.0.0.1:5432), the time-sensitive ones again at pinned instants
# (midnight UTC and in Toronto, both daylight-saving changes), the UI's generated API
# types against the server's OpenAPI document, UI type check and unit tests, the Debian
# package (scripts/deb-test.sh: the tests' binary packaged, .deb installed on this machine with
# dpkg through sudo when not root, upgraded and purged), and the browser end-to-end tests in
# Debian's Chromium with that same binary on a pinned clock (the time-sensitive ones again at
# every pinned instant).
# Installs what the tests need when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

# The tests whose outcome hangs on the time of day, the date or the site's zone (see the step
# "Time-sensitive tests at pinned instants" below), by name, and the instants they run at again.
CLOCK_TESTS='test(/^alert_life::/) | test(/^kiosk::recent_counts/) | test(/^auth_api::(tokens_expire|signin_returns)/)
  | test(/^(escalation_crash|report_schedule_crash)::/) | test(/^webhooks::escalations/)
  | test(/^sso::an_expired_one_time_id/) | test(/^api_contract::answers_on_demo_data/)
  | test(/^role_matrix::each_caller_gets/)'
CLOCK_DEMO_TEST='test(/^demo::demo_site_serves/)'
# The browser tests all run on a pinned clock (CLOCK_E2E_INSTANT); those whose pages or
# assertions read the date, the time or "today" at the site, by file and by name, run again at
# every other pinned instant (see the last step).
CLOCK_E2E_FILES=(alerts dashboard shell wall)
CLOCK_E2E_TESTS="today|time zone|ingested now|idle|failing runs posted|alerts \\(en, desktop\\)"
CLOCK_E2E_INSTANT=2026-12-31T05:01:00Z # 00:01 on 31 December in Toronto: the site's day turns
PINNED_INSTANTS=(
  2026-12-31T23:59:00Z # 18:59 in Toronto, a minute before 2027 in UTC
  2027-01-01T00:01:00Z # a minute into 2027 in UTC, still 2026 in Toronto
  2026-12-31T04:59:00Z # 23:59 on 30 December in Toronto (the demo test runs across it)
  2026-12-31T05:01:00Z # 00:01 on 31 December in Toronto
  2026-03-08T06:59:00Z # 01:59 EST: a minute before the clocks spring forward to 03:00 EDT
  2026-11-01T05:59:00Z # 01:59 EDT: a minute before the clocks fall back to 01:00 EST
)
step() { printf '\n==> %s (at %d s)\n' "$*" "$SECONDS"; }

step "Tools"
# What the commands below run from Debian (Chromium, psql, openssl, python3-venv for the
# fuzzer, lintian, systemd-analyze...): installed with apt when missing. scripts/bare-root-test.sh
# --prereqs checks in a bare Debian 12 root that it is all.
scripts/prereqs.sh
if ! cargo nextest --version >/dev/null 2>&1; then
  cargo install cargo-nextest --locked
fi
if [ ! -f ui/node_modules/.package-lock.json ] || [ ui/package-lock.json -nt ui/node_modules/.package-lock.json ]; then
  (cd ui && npm ci --no-audit --no-fund)
fi
# cargo-deny, cargo-deb, rust-audit-info and cargo-cyclonedx, built from crates.io where
# missing: minutes of CPU on a fresh machine, at the lowest priority beside the lints and
# tests (whose waits leave a core idle), ready by the steps that use them.
mkdir -p target
nice -n 19 scripts/cargo-tools.sh >target/cargo-tools.log 2>&1 &
cargo_tools=$!

step "Formatting, lints, type check"
cargo fmt --check
(cd ui && npm run --silent lint && npm run --silent typecheck)
# Clippy checks every target in a build directory of its own (a second cargo on target/
# would wait for the tests' builds), at the lowest priority: it runs while the tests below
# wait on servers and sockets, and its verdict is read after the browser tests.
CARGO_TARGET_DIR=target/clippy nice -n 19 cargo clippy --all-targets --locked -- -D warnings \
  >target/clippy.log 2>&1 &
clippy=$!

step "UI unit tests"
(cd ui && npm test --silent)
# The vendor stand-in of the browser tests (ui/e2e/vendor-standin.mjs), against a fake source.
(cd ui && node --test e2e/vendor-standin.test.mjs)

step "Rust unit and integration tests"
cargo nextest run --locked --no-fail-fast

# The tests whose outcome hangs on the time (the demo's history, days and hours in the site's
# zone, schedules, maintenance windows, 'last 15 min', session and one-time id lifetimes), again
# with the clock pinned instead of whenever this runs: CXWATCH_TEST_NOW starts the clock of the
# test, of the binary it starts and of the in-process app (`[clock] start`; tests/common's
# `test_now`), running on from there. Just before and after midnight UTC and midnight in the
# site's zone (America/Toronto, the tests' site), and a minute before both daylight-saving
# changes of 2026 (the tests run on across them). The demo test (8 days of history there
# instead of 30) loads its history for a minute and then mostly waits for its live feed, so it
# runs beside the others, once, across midnight in Toronto (the riskiest instant: its day
# windows turn there);
# the generator's own unit test checks its history for every date of a year.
step "Time-sensitive tests at pinned instants"
CXWATCH_TEST_NOW=2026-12-31T04:59:00Z cargo nextest run --locked --no-fail-fast --status-level fail \
  -E "$CLOCK_DEMO_TEST" >target/clock-demo.log 2>&1 &
clock_demo=$!
clock_failed=0
for at in "${PINNED_INSTANTS[@]}"; do
  echo "-- CXWATCH_TEST_NOW=$at"
  CXWATCH_TEST_NOW="$at" cargo nextest run --locked --no-fail-fast --status-level fail \
    --final-status-level fail -E "$CLOCK_TESTS" || clock_failed=1
done
echo "-- CXWATCH_TEST_NOW=2026-12-31T04:59:00Z (demo)"
wait "$clock_demo" || { cat target/clock-demo.log; clock_failed=1; }
# And just after its weekly release window (Tuesday 03:08 in Toronto), where the demo's
# ad-hoc mute, made 20 minutes before, must fall on a case the window did not cover then.
echo "-- CXWATCH_TEST_NOW=2026-12-01T08:08:00Z (demo)"
CXWATCH_TEST_NOW=2026-12-01T08:08:00Z cargo nextest run --locked --no-fail-fast --status-level fail \
  --final-status-level fail -E "$CLOCK_DEMO_TEST" || clock_failed=1
[ "$clock_failed" = 0 ]

# Every test again on PostgreSQL, with no list to keep: the server on 127.0.0.1:5432 (trust
# auth; TEST_POSTGRES_SERVER for another). With TEST_POSTGRES_URL set, each store a test opens
# is a fresh database cxwt_* (the library's `store::testing::store()`, the in-process harness,
# and the binary that tests/common starts, whose config then names it), all dropped after; the
# PostgreSQL-only tests (two instances, store copy) run; tests without a store run again, cheaply.
step "Every test on PostgreSQL"
PG_SERVER="${TEST_POSTGRES_SERVER:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}"
if ! psql -X -q -At "$PG_SERVER" -c "SELECT 1" >/dev/null; then
  echo "PostgreSQL does not answer at $PG_SERVER: the tests on PostgreSQL need it (set TEST_POSTGRES_SERVER for another server)" >&2
  exit 1
fi
# One psql session for them all; each drop costs the server about 0.1 s (a checkpoint).
drop_test_databases() {
  psql -X -q -At "$PG_SERVER" \
    -c "SELECT format('DROP DATABASE IF EXISTS %I WITH (FORCE);', datname) FROM pg_database WHERE datname LIKE 'cxwt\_%'" |
    psql -X -q "$PG_SERVER"
}
drop_test_databases
TEST_POSTGRES_URL="$PG_SERVER" cargo nextest run --locked --no-fail-fast
# What the run leaves takes minutes to drop: dropped beside the steps below, and waited for
# at the end.
drop_test_databases >target/pg-drop.log 2>&1 &
pg_drop=$!

# The crates the binary is built from (deny.toml; dev-dependencies left out): licences on the
# allowed list, no banned crate (OpenSSL, native-tls, ring: one TLS stack), no crate in two
# versions unless listed. Offline once the crates are fetched; advisories are not checked
# here (their database comes from GitHub: docs/supply-chain.md).
step "Licences, banned and duplicate crates (cargo-deny)"
wait "$cargo_tools" || { cat target/cargo-tools.log; exit 1; }
# The crates of every target it checks, not only this machine's, fetched first.
cargo fetch --locked
cargo deny --locked --offline check licenses bans sources

step "UI API types match the server's OpenAPI document"
(cd ui && CXWATCH_BIN="$PWD/../target/debug/cxwatch" npm run --silent check:api)

# The API fuzzer (scripts/fuzz.sh: schemathesis, installed in target/fuzz-venv when
# missing) reuses the debug binary, on an empty and on a seeded (demo) database.
# CXWATCH_FUZZ=0 skips it.
if [ "${CXWATCH_FUZZ:-1}" = 1 ]; then
  step "API fuzzing (schemathesis)"
  scripts/fuzz.sh
fi

# One build for every step: the binary the tests' build made (target/debug/cxwatch, the UI
# embedded in it as in a release build; dependencies optimised) is packaged with cargo-deb and
# installed, served, upgraded, removed and purged on this machine, then the browser tests run on
# it. A second, release, build of every crate would add 8 minutes on two cores;
# `scripts/deb-test.sh` alone packages a release build.
step "Debian package"
CXWATCH_DEB_PROFILE=dev scripts/deb-test.sh
# The same package on a fresh Debian 12 (a bare bookworm root: its dependencies from the
# mirror, no warning on install, the system user, the man pages, the SBOMs, HTTPS 200). It
# waits on the mirror and dpkg more than on the CPU, so it runs beside the browser tests.
scripts/bare-root-test.sh --deb target/debian/deb-test/current.deb >target/bare-root.log 2>&1 &
bare_root=$!

# Every browser test on a pinned clock: CXWATCH_TEST_NOW starts the clock of ui/e2e/lib.mjs
# (testNow()), of the server it starts (`[clock] start`) and of every page it opens
# (Playwright's clock), all running on from there, so that no browser test reads the hour this
# runs at. The instant is the riskiest: a minute into the site's day, when "today" at the site
# is one minute old in the demo, the dashboard and the tests.
# Two runners side by side (E2E_RUNNERS, ui/e2e/run.mjs), each with its own server and
# browser, take the files from one queue: the suite mostly waits on pages and servers.
step "Browser end-to-end tests"
(cd ui && E2E_RUNNERS=2 CXWATCH_TEST_NOW="$CLOCK_E2E_INSTANT" CXWATCH_BIN="$PWD/../target/debug/cxwatch" \
  npm run --silent e2e)

# The browser tests that read the date, the time or "today" at the site (E2E_ONLY picks them
# by name in their files), again at every other pinned instant, one after the other: about
# a minute and a half each on two cores (run side by side they time out).
step "Time-sensitive browser tests at the other pinned instants"
clock_failed=0
for at in "${PINNED_INSTANTS[@]}"; do
  [ "$at" = "$CLOCK_E2E_INSTANT" ] && continue
  echo "-- CXWATCH_TEST_NOW=$at"
  (cd ui && E2E_ONLY="$CLOCK_E2E_TESTS" CXWATCH_TEST_NOW="$at" CXWATCH_BIN="$PWD/../target/debug/cxwatch" \
    npm run --silent e2e "${CLOCK_E2E_FILES[@]}") || clock_failed=1
done
[ "$clock_failed" = 0 ]

step "The package on a fresh Debian 12 (started after the package step)"
wait "$bare_root" || { cat target/bare-root.log; exit 1; }
grep -E '^(dpkg -i|GET |bare-root-test: deb)' target/bare-root.log

step "The test databases on PostgreSQL dropped (started after their tests)"
wait "$pg_drop" || { cat target/pg-drop.log; exit 1; }

step "Lints (clippy, started with the formatting check)"
wait "$clippy" || { cat target/clippy.log; exit 1; }
tail -n 1 target/clippy.log
