// `npm run e2e`: one cxwatch server and one browser for every e2e/*.e2e.mjs file. Each file
// exports `default async function (ctx)` and registers its tests with `ctx.test(name, fn)`.
import { readdirSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { addUser, createRunner, launchBrowser, startServer, UI_DIR } from "./lib.mjs";

const only = process.argv.slice(2); // optional: names of spec files to run
const dir = path.join(UI_DIR, "e2e");
const specs = readdirSync(dir)
  .filter((f) => f.endsWith(".e2e.mjs"))
  .filter((f) => !only.length || only.some((o) => f.startsWith(o)))
  .sort();

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
