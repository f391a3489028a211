// The first screen's budget: the JavaScript and CSS a browser fetches before the console can
// draw anything (index.html's entry, the chunks it preloads, their stylesheets) and the
// default language's catalog, gzipped. The build prints it and fails above the budget, so a
// library or a screen that slips into the entry is seen the day it does.
import { readFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import type { Plugin } from "vite";

/** Bytes, gzipped (level 9, as the build's precompressed files). */
export const FIRST_SCREEN_BUDGET = 100_000;

export interface BundleFile {
  type: "chunk" | "asset";
  fileName: string;
  isEntry?: boolean;
  imports?: string[];
  facadeModuleId?: string | null;
  viteMetadata?: { importedCss?: Set<string> };
}

/** The files of the first screen: the entry and every chunk it imports statically, their CSS, and the catalog. */
export function firstScreenFiles(bundle: Record<string, BundleFile>, catalog: RegExp): string[] {
  const files = new Set<string>();
  const visit = (name: string) => {
    const f = bundle[name];
    if (!f || files.has(name)) return;
    files.add(name);
    for (const css of f.viteMetadata?.importedCss ?? []) files.add(css);
    for (const i of f.imports ?? []) visit(i);
  };
  const entries = Object.values(bundle).filter((f) => f.type === "chunk" && f.isEntry);
  for (const e of entries) visit(e.fileName);
  const messages = Object.values(bundle).find((f) => f.type === "chunk" && catalog.test(f.facadeModuleId ?? ""));
  if (!messages) throw new Error(`first screen: no chunk for the catalog ${catalog}`);
  visit(messages.fileName);
  return [...files].sort();
}

export function firstScreenBudget(): Plugin {
  return {
    name: "cxwatch-first-screen-budget",
    apply: "build",
    // The files as written, so that the figure is what a browser is sent.
    writeBundle(options, bundle) {
      const files = firstScreenFiles(bundle as unknown as Record<string, BundleFile>, /\/locales\/en\/messages\.po$/);
      let total = 0;
      for (const name of files) {
        total += gzipSync(readFileSync(path.join(options.dir ?? "dist", name)), { level: 9 }).length;
      }
      const kb = (n: number) => `${(n / 1000).toFixed(1)} kB`;
      const line = `first screen: ${kb(total)} gzip in ${files.length} files (budget ${kb(FIRST_SCREEN_BUDGET)})`;
      if (total > FIRST_SCREEN_BUDGET) {
        this.error(`${line}: over the budget. Load what the first screen does not draw lazily (${files.join(", ")}).`);
      }
      this.info(line);
    },
  };
}
