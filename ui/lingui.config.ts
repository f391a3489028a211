import { defineConfig } from "@lingui/cli";
import { formatter } from "@lingui/format-po";

// English is the source locale; every label also lives in the French catalog.
export default defineConfig({
  sourceLocale: "en",
  locales: ["en", "fr"],
  fallbackLocales: { default: "en" },
  catalogs: [
    {
      path: "<rootDir>/src/locales/{locale}/messages",
      include: ["<rootDir>/src"],
      exclude: ["**/*.test.ts", "**/*.test.tsx"],
    },
  ],
  format: formatter({ lineNumbers: false }),
  orderBy: "message",
});
