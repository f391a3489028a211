#!/usr/bin/env bash
# Generates src/api/schema.d.ts from the server's OpenAPI document with openapi-typescript.
#
#   scripts/gen-api.sh [openapi.json]   read the document from the file, or from stdin ("-" or none)
#   scripts/gen-api.sh --from-binary    ask the built server: `cxwatch openapi`
#   scripts/gen-api.sh --check          regenerate from the built server into a temp file and fail
#                                       when the committed schema.d.ts differs
#
# The binary is $CXWATCH_BIN (default ../target/debug/cxwatch).
set -euo pipefail
UI="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$UI/src/api/schema.d.ts"
BIN="${CXWATCH_BIN:-$UI/../target/debug/cxwatch}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

# Writes the server's OpenAPI document to $1.
from_binary() {
  [ -x "$BIN" ] || { echo "gen-api: no server binary at $BIN (cargo build first, or set CXWATCH_BIN)" >&2; exit 1; }
  "$BIN" openapi >"$1"
}

# Generates the TypeScript declarations of the document $1 into $2.
generate() {
  if ! (cd "$UI" && node_modules/.bin/openapi-typescript "$1" --output "$2") >"$TMP/gen.log" 2>&1; then
    cat "$TMP/gen.log" >&2
    exit 1
  fi
  # A header that says where the file comes from; stable, so the check can diff.
  { printf '// Generated from the server'"'"'s OpenAPI document by ui/scripts/gen-api.sh. Do not edit.\n'
    cat "$2"; } >"$2.tmp" && mv "$2.tmp" "$2"
}

case "${1:-}" in
  --check)
    from_binary "$TMP/openapi.json"
    generate "$TMP/openapi.json" "$TMP/schema.d.ts"
    if ! diff -u "$OUT" "$TMP/schema.d.ts" >"$TMP/diff"; then
      head -40 "$TMP/diff" >&2
      echo "ui/src/api/schema.d.ts is stale: the server's API changed. Run: (cd ui && npm run gen:api) and commit it." >&2
      exit 1
    fi
    echo "ui/src/api/schema.d.ts matches the server's OpenAPI document."
    ;;
  --from-binary)
    from_binary "$TMP/openapi.json"
    generate "$TMP/openapi.json" "$OUT"
    echo "wrote $OUT"
    ;;
  "" | -)
    cat >"$TMP/openapi.json"
    generate "$TMP/openapi.json" "$OUT"
    echo "wrote $OUT"
    ;;
  *)
    generate "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" "$OUT"
    echo "wrote $OUT"
    ;;
esac
