// The dashboard with 100 groups, two cxwatch binaries side by side (issue 25, item 2): each
// serves its demo site with 100 more groups chosen, and the rounds alternate between them, so
// that both share the machine's state. Each round is one sign-in measured from the Login click
// (e2e/dashboard-perf.mjs says what is measured), scrolled down as soon as the charts in view
// are drawn; with --idle, B is also measured without scrolling (charts drawn in idle time).
// With --spec, both consoles take the API for a spec-only one (the tenant config kept in the
// browser says apiFlavor "spec"): the calls of section 7 only, as in proxy mode.
//
//   node scripts/bench-dashboard.mjs --a <binary A> --b <binary B> [--rounds 8] [--idle] [--spec]
//
// Figures only: it never fails on a time.
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createGroups, describe, installProbe, measureSignIn, PERF_GROUPS, spread } from "../e2e/dashboard-perf.mjs";
import {
  addUser,
  closePage,
  launchBrowser,
  newPage,
  signIn,
  startServer,
  waitForDemoData,
  waitForOutput,
} from "../e2e/lib.mjs";

const { values } = parseArgs({
  options: {
    a: { type: "string" },
    b: { type: "string" },
    rounds: { type: "string", default: "8" },
    idle: { type: "boolean", default: false },
    spec: { type: "boolean", default: false },
  },
});
if (!values.a || !values.b) {
  console.error("usage: node scripts/bench-dashboard.mjs --a <binary A> --b <binary B> [--rounds N] [--idle]");
  process.exit(2);
}
const rounds = Number(values.rounds);
const admin = {
  username: "bench-admin@example.com",
  password: "bench-Admin-pass-1",
  role: "admin",
  access: "read-write",
};

async function site(name, bin) {
  const server = await startServer({ bin: path.resolve(bin) });
  addUser(server, admin);
  await waitForDemoData(server, admin);
  if (!(await waitForOutput(server, /demo: generated \d+ runs/, 180000)))
    console.log(`${name}: the demo history is still loading`);
  return { name, bin, server };
}

const sites = [];
let browser;
try {
  // One after the other: each demo loads its history with the machine to itself.
  sites.push(await site("A", values.a));
  sites.push(await site("B", values.b));
  browser = await launchBrowser();
  for (const s of sites) {
    s.page = await newPage(browser, s.server, { viewport: "desktop" });
    await signIn(s.page, admin);
    const made = await createGroups(s.page, PERF_GROUPS);
    await s.page.evaluate(
      (ids) => localStorage.setItem("cxwatch.dashboard.groups", JSON.stringify(ids)),
      made.map((g) => g.id),
    );
    if (values.spec)
      await s.page.evaluate(() => {
        const c = JSON.parse(localStorage.getItem("tenantConfig") ?? "{}");
        localStorage.setItem("tenantConfig", JSON.stringify({ ...c, apiFlavor: "spec" }));
      });
    await installProbe(s.page);
    s.figures = { scroll: [], idle: [] };
  }
  const load = os.loadavg()[0];
  for (let i = 0; i <= rounds; i++) {
    // A B, then B A: neither always goes first.
    const order = i % 2 ? [...sites].reverse() : sites;
    for (const s of order) {
      const modes = values.idle && s.name === "B" ? ["scroll", "idle"] : ["scroll"];
      for (const mode of modes) {
        const f = await measureSignIn(s.page, admin, { scroll: mode === "scroll" });
        console.log(`${s.name} ${mode}${i === 0 ? " (warm-up)" : ""}: ${describe(f)}`);
        if (i > 0) s.figures[mode].push(f);
      }
    }
  }
  console.log(
    `\n${rounds} rounds after a warm-up, ${PERF_GROUPS} groups chosen, 1440x900, API flavour ${values.spec ? "spec" : "cxwatch"}; ` +
      "ms from the Login click, median (min–max); " +
      `${os.cpus().length} CPUs, load average ${load.toFixed(2)} before, ${os.loadavg()[0].toFixed(2)} after`,
  );
  for (const s of sites) {
    for (const mode of ["scroll", "idle"]) {
      const list = s.figures[mode];
      if (!list.length) continue;
      const line = (k) => {
        const v = spread(list.map((f) => f[k]));
        return `${v.median} (${v.min}–${v.max})`;
      };
      console.log(
        `${s.name} (${s.bin}), ${mode === "scroll" ? "scrolled down" : "no scrolling"}: numbers ${line("numbers")}, charts in view ${line("view")}, ` +
          `all ${PERF_GROUPS} charts ${line("all")}, first day call ${line("firstDay")}, last answer ${line("lastDay")}, ` +
          `${list[0].dayCalls} day calls, ${list[0].calls} /api calls, ${(list[0].bytes / 1024).toFixed(0)} KiB, main thread busy ${line("busy")}`,
      );
    }
  }
  for (const s of sites) await closePage(s.page);
} finally {
  await browser?.close().catch(() => {});
  for (const s of sites) await s.server.stop().catch(() => {});
}
