// `npm run e2e`: one cxwatch server and one browser for every e2e/*.e2e.mjs file. Each file
// exports `default async function (ctx)` and registers its tests with `ctx.test(name, fn)`.
//
// E2E_RUNNERS=N: N runners side by side, each with its own server and browser, taking the
// files from one queue (the suite mostly waits on pages and servers, so two runners share
// two cores well). Each line a runner prints starts with its number.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { addUser, createRunner, launchBrowser, startServer, UI_DIR } from "./lib.mjs";

const only = process.argv.slice(2); // optional: names of spec files to run
const dir = path.join(UI_DIR, "e2e");
// The longest files first, so that runners sharing the queue end together; the rest by name.
// The first two start servers of their own, so the demo loads its history meanwhile. (vendor,
// as long, stays late: its click-through needs a run of the site's day, which a minute into
// the day only the live feed brings.)
const LONGEST = ["hostile", "alert-life", "sweep-fr"];
const rank = (f) => {
  const i = LONGEST.indexOf(f.replace(/\.e2e\.mjs$/, ""));
  return i < 0 ? LONGEST.length : i;
};
const specs = readdirSync(dir)
  .filter((f) => f.endsWith(".e2e.mjs"))
  .filter((f) => !only.length || only.some((o) => f.startsWith(o)))
  .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));

const runners = Number(process.env.E2E_RUNNERS ?? 1);
if (runners > 1 && !process.env.E2E_QUEUE) process.exit(await runSideBySide(runners));

/** Starts `n` runners of this script on one queue; 1 when any failed. */
async function runSideBySide(n) {
  const queue = mkdtempSync(path.join(os.tmpdir(), "cxwatch-e2e-queue-"));
  const codes = await Promise.all(
    Array.from({ length: n }, (_, i) => {
      const child = spawn(process.execPath, [process.argv[1], ...only], {
        env: { ...process.env, E2E_QUEUE: queue, E2E_RUNNERS: "1" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      for (const stream of [child.stdout, child.stderr]) {
        createInterface({ input: stream }).on("line", (line) => console.log(`[${i + 1}] ${line}`));
      }
      return new Promise((resolve) => child.on("exit", (code) => resolve(code ?? 1)));
    }),
  );
  rmSync(queue, { recursive: true, force: true });
  console.log(`\nrunners: ${codes.map((c, i) => `[${i + 1}] ${c === 0 ? "passed" : "FAILED"}`).join(", ")}`);
  return codes.every((c) => c === 0) ? 0 : 1;
}

/** With a queue, whether this runner takes `spec` (a directory made once, by one runner). */
function take(spec) {
  if (!process.env.E2E_QUEUE) return true;
  try {
    mkdirSync(path.join(process.env.E2E_QUEUE, spec));
    return true;
  } catch (e) {
    if (e.code === "EEXIST") return false;
    throw e;
  }
}

const runner = createRunner();
let server;
let browser;
let failedSetup = false;
try {
  server = await startServer();
  console.log(`cxwatch at ${server.url}`);
  // Accounts every spec may use; specs can add more with addUser(ctx.server, ...).
  const users = {
    admin: { username: "e2e-admin@example.com", password: "e2e-Admin-pass-1", role: "admin", access: "read-write" },
    user: { username: "e2e-user@example.com", password: "e2e-User-pass-1", role: "user", access: "read-only" },
  };
  await runner.test("set-up: create an administrator and a restricted user with the CLI", async () => {
    addUser(server, users.admin);
    addUser(server, users.user);
  });
  browser = await launchBrowser();
  const ctx = { server, browser, users, test: runner.test };
  const took = [];
  for (const spec of specs) {
    if (!take(spec)) continue;
    console.log(`\n${spec}`);
    const t0 = performance.now();
    const mod = await import(pathToFileURL(path.join(dir, spec)).href);
    await mod.default(ctx);
    took.push([spec, (performance.now() - t0) / 1000]);
  }
  // Where the step's time goes, longest first (CI has two cores and a time limit).
  console.log("\nseconds per file:");
  for (const [spec, s] of took.sort((a, b) => b[1] - a[1])) console.log(`  ${s.toFixed(1).padStart(6)}  ${spec}`);
} catch (e) {
  failedSetup = true;
  runner.results.push({ name: "set-up", ok: false, error: e });
  console.error(`e2e set-up failed: ${e?.stack ?? e}`);
} finally {
  await browser?.close().catch(() => {});
  await server?.stop().catch(() => {});
}
const failed = runner.summary();
process.exit(failed || failedSetup ? 1 : 0);
