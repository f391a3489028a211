#!/usr/bin/env bash
# Makes the files the Debian package installs beside the binary, in target/package/:
#  - from the binary's own command-line definitions: the man pages (man/cxwatch.1.gz and one
#    cxwatch-<subcommand>.1.gz per subcommand, gzipped as Debian wants) and the bash, zsh and
#    fish completions;
#  - the software bills of materials, CycloneDX JSON: cxwatch.cdx.json, the Rust crates the
#    binary is built from (cargo-cyclonedx, from Cargo.lock: this target's runtime and build
#    dependencies, no dev-dependencies), and cxwatch-ui.cdx.json, the UI's npm packages
#    (@cyclonedx/cyclonedx-npm, from ui/package-lock.json without the devDependencies, the
#    build tools that are not in the bundle). Both tools are installed when missing (the npm
#    one in target/sbom-tools).
# Run it after the build and before `cargo deb` (scripts/deb-test.sh does); CXWATCH_BIN names
# the binary (default target/release/cxwatch).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${CXWATCH_BIN:-target/release/cxwatch}
CYCLONEDX_NPM_VERSION=6.0.1
[ -x "$BIN" ] || { echo "package-assets: $BIN is missing (cargo build --release first)" >&2; exit 1; }
out=target/package
rm -rf "$out"
mkdir -p "$out/man"
"$BIN" manpage --out-dir "$out/man" >/dev/null
gzip -9n "$out"/man/*.1
"$BIN" completions bash >"$out/cxwatch.bash"
"$BIN" completions zsh >"$out/_cxwatch"
"$BIN" completions fish >"$out/cxwatch.fish"

scripts/cargo-tools.sh cargo-cyclonedx
# It writes cxwatch.cdx.json beside Cargo.toml: moved at once. Dated as the commit, so that
# the same commit gives the same file; cxwatch's own licence is no SPDX term.
SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null || date +%s) \
  cargo cyclonedx --format json --spec-version 1.5 --target "$(rustc -vV | sed -n 's/^host: //p')" \
  --license-accept-named Proprietary --override-filename cxwatch.cdx
mv cxwatch.cdx.json "$out/cxwatch.cdx.json"

npm_tool=target/sbom-tools/node_modules/.bin/cyclonedx-npm
if ! "$npm_tool" --version 2>/dev/null | grep -qxF "$CYCLONEDX_NPM_VERSION"; then
  npm install --prefix target/sbom-tools --no-audit --no-fund --silent "@cyclonedx/cyclonedx-npm@$CYCLONEDX_NPM_VERSION"
fi
(cd ui && "../$npm_tool" --package-lock-only --omit dev --flatten-components --output-reproducible \
  --output-format JSON --output-file "../$out/cxwatch-ui.cdx.json" package.json)

echo "package-assets: $(cd "$out" && find . -type f | sed 's|^\./||' | sort | tr '\n' ' ')"
