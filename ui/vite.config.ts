/// <reference types="vitest/config" />
import { transformAsync } from "@babel/core";
import linguiMacro from "@lingui/babel-plugin-lingui-macro";
import { lingui } from "@lingui/vite-plugin";
import { defineConfig, type Plugin } from "vite";
import { firstScreenBudget } from "./firstScreen";

const MACRO_IMPORT = /from\s+["']@lingui\/(core|react)\/macro["']/;

/**
 * Compiles Lingui macros (`t`, `msg`, `<Trans>`, `useLingui`) with Babel before Vite's own
 * TypeScript/JSX transform. Only files that import a macro go through Babel.
 */
function linguiMacros(): Plugin {
  return {
    name: "cxwatch-lingui-macros",
    enforce: "pre",
    async transform(code, id) {
      const file = id.split("?")[0];
      if (!/\.[cm]?[jt]sx?$/.test(file) || file.includes("/node_modules/")) return null;
      if (!MACRO_IMPORT.test(code)) return null;
      const out = await transformAsync(code, {
        filename: file,
        babelrc: false,
        configFile: false,
        sourceMaps: true,
        parserOpts: { plugins: ["typescript", "jsx"] },
        plugins: [linguiMacro],
      });
      return out?.code ? { code: out.code, map: out.map } : null;
    },
  };
}

export default defineConfig({
  plugins: [linguiMacros(), lingui(), firstScreenBudget()],
  resolve: {
    alias: [
      { find: /^react$/, replacement: "preact/compat" },
      { find: /^react-dom$/, replacement: "preact/compat" },
      { find: /^react-dom\/client$/, replacement: "preact/compat/client" },
      { find: /^react\/jsx-runtime$/, replacement: "preact/jsx-runtime" },
      { find: /^react\/jsx-dev-runtime$/, replacement: "preact/jsx-runtime" },
    ],
  },
  oxc: {
    jsx: { runtime: "automatic", importSource: "preact" },
  },
  build: {
    target: "es2020",
    modulePreload: { polyfill: false },
    sourcemap: false,
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 200,
    rolldownOptions: {
      onwarn(warning, warn) {
        // @lingui/react marks itself "use client" for React Server Components; not used here.
        if (warning.code === "MODULE_LEVEL_DIRECTIVE") return;
        warn(warning);
      },
    },
  },
  test: {
    environment: "node",
    include: ["src/**/*.test.ts", "src/**/*.test.tsx"],
    // Component tests: these libraries import 'react', which must become preact/compat too.
    server: { deps: { inline: [/@lingui\/react/, /@tanstack\/react-query/, /wouter/] } },
  },
});
