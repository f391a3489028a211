#!/usr/bin/env bash
# Generates src/api/schema.d.ts from the server's OpenAPI document with openapi-typescript.
#
#   scripts/gen-api.sh [openapi.json]   read the document from the file, or from stdin ("-" or none)
#   scripts/gen-api.sh --from-binary    ask the built server: `cxwatch openapi`
#   scripts/gen-api.sh --check          regenerate from the built server into a temp file and fail
#                                       when the committed schema.d.ts differs
#
# The binary is $CXWATCH_BIN (default ../target/debug/cxwatch). A binary without the `openapi`
# subcommand is started as a throw-away demo server and /api/openapi.json is read from it.
set -euo pipefail
UI="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$UI/src/api/schema.d.ts"
BIN="${CXWATCH_BIN:-$UI/../target/debug/cxwatch}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

# Writes the server's OpenAPI document to $1.
from_binary() {
  [ -x "$BIN" ] || { echo "gen-api: no server binary at $BIN (cargo build first, or set CXWATCH_BIN)" >&2; exit 1; }
  if "$BIN" openapi >"$1" 2>"$TMP/openapi.err"; then return; fi
  # Older binaries: read the document from a demo server on a free port.
  local port data pid
  port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
  data="$TMP/data"
  mkdir -p "$data"
  env -u CXWATCH_BIN CXWATCH_SERVER__PLAIN_HTTP=true "$BIN" --data-dir "$data" serve --demo \
    --listen "127.0.0.1:$port" >"$TMP/server.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 600); do
    if curl -sf "http://127.0.0.1:$port/api/openapi.json" -o "$1" 2>/dev/null; then
      kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
      return
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill "$pid" 2>/dev/null || true
  echo "gen-api: could not read the OpenAPI document from $BIN:" >&2
  cat "$TMP/openapi.err" "$TMP/server.log" >&2
  exit 1
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
