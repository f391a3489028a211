// axe-core in the browser tests, with the console's real Content-Security-Policy on: axe's
// source is evaluated through the DevTools protocol (Playwright's page.evaluate), which the
// page's CSP does not govern, instead of an injected <script> (which the CSP refuses).
//
//   await checkA11y(page, "login (phone, fr)");
//
// fails on any serious or critical violation and lists each with the elements concerned.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

/** Impacts that fail a test. */
export const FAILING_IMPACTS = ["serious", "critical"];

/** Runs axe on the page (or on `include`, a CSS selector); resolves the failing violations. */
export async function axeViolations(page, { include, exclude = [] } = {}) {
  // Colours are read as painted: a dialog still fading in would give mixed colours.
  await page
    .waitForFunction(
      () =>
        document
          .getAnimations()
          .every((a) => a.playState !== "running" || a.effect?.getTiming().iterations === Number.POSITIVE_INFINITY),
      null,
      {
        timeout: 3000,
      },
    )
    .catch(() => {});
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  if (!(await page.evaluate(() => typeof window.axe === "object"))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(
    async ({ include, exclude, impacts }) => {
      const context = include ? { include: [include], exclude } : exclude.length ? { exclude } : document;
      const r = await window.axe.run(context, { resultTypes: ["violations"] });
      return r.violations
        .filter((v) => impacts.includes(v.impact))
        .map((v) => ({
          id: v.id,
          impact: v.impact,
          help: v.help,
          nodes: v.nodes
            .slice(0, 6)
            .map(
              (n) =>
                `${n.target.join(" ")}${n.failureSummary ? ` (${n.failureSummary.replace(/\s+/g, " ").slice(0, 160)})` : ""}`,
            ),
        }));
    },
    { include, exclude, impacts: FAILING_IMPACTS },
  );
}

/** Fails (throws) when axe finds a serious or critical violation on the page. */
export async function checkA11y(page, what, opts = {}) {
  const found = await axeViolations(page, opts);
  if (found.length) {
    const lines = found.map((v) => `${v.impact} ${v.id} (${v.help}): ${v.nodes.join("; ")}`);
    throw new Error(`axe on ${what}: ${found.length} serious/critical violation(s)\n  ${lines.join("\n  ")}`);
  }
}
