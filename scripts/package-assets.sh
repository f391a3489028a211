#!/usr/bin/env bash
# Makes the files the Debian package installs beside the binary, from the release binary's own
# command-line definitions: the man page (gzipped as Debian wants) and the bash, zsh and fish
# completions, in target/package/. Run it after `cargo build --release` and before `cargo deb`
# (scripts/deb-test.sh does).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${CXWATCH_BIN:-target/release/cxwatch}
[ -x "$BIN" ] || { echo "package-assets: $BIN is missing (cargo build --release first)" >&2; exit 1; }
out=target/package
rm -rf "$out"
mkdir -p "$out"
"$BIN" manpage | gzip -9n >"$out/cxwatch.1.gz"
"$BIN" completions bash >"$out/cxwatch.bash"
"$BIN" completions zsh >"$out/_cxwatch"
"$BIN" completions fish >"$out/cxwatch.fish"
echo "package-assets: $(ls "$out" | tr '\n' ' ')"
