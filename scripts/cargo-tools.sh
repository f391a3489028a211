#!/usr/bin/env bash
# The cargo tools the test command and the package use beside cargo-nextest, pinned, and
# installed from crates.io when missing (or at another version):
#
#   scripts/cargo-tools.sh            every one of them
#   scripts/cargo-tools.sh NAME...    only these (cargo-deny, cargo-deb, rust-audit-info,
#                                     cargo-cyclonedx)
#
# They share one build directory (target/cargo-tools, removed after), so the crates they have
# in common are compiled once. scripts/test.sh runs this in the background at the lowest
# priority while its tests run: on a fresh machine the four take minutes of CPU that the
# tests' waits leave idle.
set -euo pipefail
cd "$(dirname "$0")/.."

# name version: the command that prints its version
TOOLS=(
  "cargo-deny 0.20.2"
  "cargo-deb 3.8.0"
  "rust-audit-info 0.5.4"
  "cargo-cyclonedx 0.5.9"
)
version_of() {
  case "$1" in
    cargo-deny) cargo deny --version ;;
    cargo-deb) cargo deb --version ;;
    cargo-cyclonedx) cargo cyclonedx --version ;;
    rust-audit-info) rust-audit-info --version ;;
  esac
}

wanted=("$@")
build_dir=$PWD/target/cargo-tools
for tool in "${TOOLS[@]}"; do
  read -r name version <<<"$tool"
  if [ ${#wanted[@]} -gt 0 ] && [[ " ${wanted[*]} " != *" $name "* ]]; then continue; fi
  # rust-audit-info has no --version: being there is enough.
  if [ "$name" = rust-audit-info ] && command -v rust-audit-info >/dev/null; then continue; fi
  if version_of "$name" 2>/dev/null | grep -qF "$version"; then continue; fi
  echo "cargo-tools: installing $name $version"
  CARGO_TARGET_DIR=$build_dir cargo install "$name" --locked --version "$version"
done
rm -rf "$build_dir"
