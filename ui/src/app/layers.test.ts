// The import direction of the console's layers:
//   app → anything; pages → components, api, lib; components → lib (and api types only);
//   api → lib; lib → nothing above it. i18n sits beside lib and imports only lib.
// Each source file's relative imports are read and checked against that table.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

type Layer = "app" | "pages" | "components" | "api" | "lib" | "i18n" | "locales" | "root";

/** What each layer may import (besides itself). */
const ALLOWED: Record<Layer, Layer[]> = {
  root: ["app", "pages", "components", "api", "lib", "i18n", "locales"],
  app: ["pages", "components", "api", "lib", "i18n", "locales"],
  pages: ["components", "api", "lib", "i18n"],
  components: ["lib", "i18n", "api"], // api: `import type` only, checked below
  api: ["lib"],
  lib: [],
  i18n: ["lib", "locales"],
  locales: [],
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return files(p);
    return /\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [p] : [];
  });
}

function layerOf(file: string): Layer | null {
  const rel = path.relative(SRC, file);
  if (rel.startsWith("..")) return null; // outside src (package.json)
  // `../api` names the folder itself (its index.ts).
  const top = rel.split(path.sep)[0];
  const layer = (["app", "pages", "components", "api", "lib", "i18n", "locales"] as const).find((l) => l === top);
  return layer ?? (rel.includes(path.sep) ? null : "root");
}

const IMPORT = /^\s*import\s+(type\s+)?(?:[^"']*?\s+from\s+)?["']([^"']+)["']/gm;

/** Every layer-breaking import of the source tree, as 'file: import'. */
function violations(): string[] {
  const out: string[] = [];
  for (const file of files(SRC)) {
    const from = layerOf(file);
    if (!from) continue;
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(IMPORT)) {
      const [, typeOnly, spec] = m;
      if (!spec.startsWith(".")) continue;
      const to = layerOf(path.resolve(path.dirname(file), spec));
      if (!to || to === from) continue;
      const ok = ALLOWED[from].includes(to) && !(from === "components" && to === "api" && !typeOnly);
      if (!ok) out.push(`${path.relative(SRC, file)}: ${spec}`);
    }
  }
  return out;
}

describe("layers", () => {
  it("import only downwards: lib imports nothing above it; components and api nothing from pages or app", () => {
    expect(violations()).toEqual([]);
  });

  it("the check sees imports (the source tree is read)", () => {
    expect(files(SRC).length).toBeGreaterThan(30);
    expect(layerOf(path.join(SRC, "lib", "session.ts"))).toBe("lib");
  });
});
