// Reusable end-to-end harness: starts the real cxwatch binary on a free port with a throw-away
// data directory, creates users through its CLI, drives Debian's Chromium with playwright-core,
// takes screenshots, and runs tests with a `N passed, N failed` summary.
//
// Nothing is installed here: Chromium is expected at /usr/bin/chromium (scripts/test.sh
// installs it), the binary at $CXWATCH_BIN (default ../target/debug/cxwatch).
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
export const UI_DIR = path.resolve(here, "..");
export const REPO_DIR = path.resolve(UI_DIR, "..");
export const BIN = path.resolve(UI_DIR, process.env.CXWATCH_BIN ?? "../target/debug/cxwatch");
export const SCREENSHOT_DIR = process.env.E2E_SCREENSHOTS ?? path.join(REPO_DIR, "screenshots");

/**
 * The environment for the binary: cxwatch reads every CXWATCH_* variable as config and refuses
 * unknown keys, so the harness's own CXWATCH_BIN is left out.
 */
function serverEnv(extra) {
  const env = { ...process.env };
  delete env.CXWATCH_BIN;
  return { ...env, ...extra };
}

export const VIEWPORTS = {
  desktop: { width: 1440, height: 900 },
  phone: { width: 390, height: 844 },
};

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The tests' clock. CXWATCH_TEST_NOW (RFC 3339; scripts/test.sh pins it to midnights and the
// daylight-saving changes) is where it starts, else the real now; read once, it then runs on at
// the real pace, like the server's `[clock] start` (src/clock.rs). The server, its CLI and every
// page the lib opens run on it, so that "now", "today" and "the last 15 minutes" are the same
// instant for the test, the server and the page whenever the tests run.
const PINNED_NOW = (process.env.CXWATCH_TEST_NOW ?? "").trim();
const CLOCK_START_MS = PINNED_NOW ? Date.parse(PINNED_NOW) : Date.now();
if (Number.isNaN(CLOCK_START_MS)) {
  throw new Error(`CXWATCH_TEST_NOW: '${PINNED_NOW}' is not an RFC 3339 instant such as 2026-03-08T06:59:00Z`);
}
const CLOCK_STARTED = performance.now();

/** Now on the tests' clock (a Date): CXWATCH_TEST_NOW plus the time elapsed since, else the real now. */
export function testNow() {
  return new Date(CLOCK_START_MS + Math.round(performance.now() - CLOCK_STARTED));
}

/** `minutes` before now on the tests' clock, as an ISO string (a run's runTime). */
export function minutesBeforeNow(minutes) {
  return new Date(testNow().getTime() - minutes * 60000).toISOString();
}

/** `days` days (of 24 hours) from now on the tests' clock (negative: before), as a Date. */
export function daysFromNow(days) {
  return new Date(testNow().getTime() + days * 86400000);
}

/** The server's config for the tests' clock: `[clock] start` at the current test instant when pinned. */
function clockEnv() {
  return PINNED_NOW ? { CXWATCH_CLOCK__START: testNow().toISOString() } : {};
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** GET over HTTP(S), accepting the self-signed certificate. Resolves { status, body }. */
export function httpGet(url, { timeoutMs = 3000, headers = {} } = {}) {
  const mod = url.startsWith("https:") ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.get(url, { rejectUnauthorized: false, timeout: timeoutMs, headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body }));
    });
    req.on("timeout", () => req.destroy(new Error(`timeout: ${url}`)));
    req.on("error", reject);
  });
}

/**
 * Starts `cxwatch --data-dir <tmp> serve --demo --listen 127.0.0.1:<port>` and waits for
 * /healthz. `config` is the text of a TOML config file to use (e.g. with [[tenants]]); `bin` another
 * binary than $CXWATCH_BIN (the dashboard bench compares two).
 * Returns { url, dataDir, cli(args, stdin), stop(), logs() }.
 */
export async function startServer({ args = ["--demo"], env = {}, config, startupMs = 60000, bin = BIN } = {}) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "cxwatch-e2e-"));
  const global = ["--data-dir", dataDir];
  if (config !== undefined) {
    const file = path.join(dataDir, "config.toml");
    writeFileSync(file, config);
    global.push("--config", file);
  }
  const port = await freePort();
  const plain = env.CXWATCH_SERVER__PLAIN_HTTP === "true";
  const url = `${plain ? "http" : "https"}://127.0.0.1:${port}`;
  let output = "";
  const child = spawn(bin, [...global, "serve", ...args, "--listen", `127.0.0.1:${port}`], {
    env: serverEnv({ CXWATCH_LOG__FORMAT: "text", ...clockEnv(), ...env }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  let exited = null;
  child.on("exit", (code, signal) => (exited = { code, signal }));

  const deadline = Date.now() + startupMs;
  for (;;) {
    if (exited) {
      rmSync(dataDir, { recursive: true, force: true });
      throw new Error(`cxwatch exited during start-up (${JSON.stringify(exited)}):\n${output}`);
    }
    try {
      const r = await httpGet(`${url}/healthz`, { timeoutMs: 1000 });
      if (r.status === 200) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`cxwatch did not answer /healthz within ${startupMs} ms:\n${output}`);
    }
    await sleep(150);
  }

  return {
    url,
    port,
    dataDir,
    logs: () => output,
    /**
     * Runs `cxwatch --data-dir <dataDir> <args>` with `stdin`; throws on failure. Tried again
     * (up to 10 times, 300 ms apart) while the running server's writer holds the database.
     */
    cli(cliArgs, stdin = "") {
      let r;
      for (let i = 0; i < 10; i++) {
        r = spawnSync(bin, [...global, ...cliArgs], {
          input: stdin,
          encoding: "utf8",
          env: serverEnv({ ...clockEnv(), ...env }),
          timeout: 30000,
        });
        if (r.status === 0 || !/database is locked/.test(`${r.stderr}${r.stdout}`)) break;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
      }
      if (r.status !== 0) {
        throw new Error(`cxwatch ${cliArgs.join(" ")} failed (${r.status}): ${r.stderr || r.stdout}`);
      }
      return r.stdout;
    },
    async stop() {
      if (!exited) {
        child.kill("SIGTERM");
        for (let i = 0; i < 100 && !exited; i++) await sleep(50);
        if (!exited) child.kill("SIGKILL");
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A JSON call to the server's API (`path` under /api/) with Node, accepting the self-signed
 * certificate. Resolves { status, json }.
 */
export function apiRequest(server, method, apiPath, { token, body, headers: extra = {}, timeoutMs = 15000 } = {}) {
  const url = new URL(`/api/${apiPath}`, server.url);
  const mod = url.protocol === "https:" ? https : http;
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers = { Accept: "application/json", ...extra };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (payload !== undefined) {
    headers["Content-Type"] = "application/json";
    headers["Content-Length"] = Buffer.byteLength(payload);
  }
  return new Promise((resolve, reject) => {
    const req = mod.request(url, { method, headers, rejectUnauthorized: false, timeout: timeoutMs }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (text += c));
      res.on("end", () => {
        let json = null;
        try {
          json = JSON.parse(text);
        } catch {
          // not JSON
        }
        resolve({ status: res.statusCode, json, text });
      });
    });
    req.on("timeout", () => req.destroy(new Error(`timeout: ${method} ${url}`)));
    req.on("error", reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/** What a test engine does: POSTs `runs` to api/ingest/v1/runs with its key; asserts none was rejected. */
export async function ingestRuns(server, key, runs) {
  // Through apiRequest: a server started with a configuration of its own serves a
  // self-signed certificate that fetch() refuses.
  const r = await apiRequest(server, "POST", "ingest/v1/runs", { body: { runs }, headers: { "X-API-Key": key } });
  const json = r.json;
  assert(r.status === 200 && json?.data?.rejected?.length === 0, `ingest: ${r.text}`);
  return json.data;
}

/** Signs `user` in through the API; resolves the access token. */
export async function apiToken(server, user) {
  const r = await apiRequest(server, "POST", "auth/signin", {
    body: { username: user.username, password: user.password, remember: false },
  });
  const token = r.json?.data?.accessToken;
  if (r.status !== 200 || !token) throw new Error(`sign-in of ${user.username} failed: ${r.status} ${r.text}`);
  return token;
}

/** The site's time zone as the tenant config gives it (America/Toronto when it says none). */
export async function siteTimeZone(server) {
  const r = await httpGet(`${server.url}/tenant-config?ac=127.0.0.1`);
  return JSON.parse(r.body)?.data?.timezone ?? "America/Toronto";
}

/** The date at `timeZone` of `now` (default: now on the tests' clock), YYYY-MM-DD. */
export function dateAt(timeZone, now = testNow()) {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" })
      .formatToParts(now)
      .map((x) => [x.type, x.value]),
  );
  return `${p.year}-${p.month}-${p.day}`;
}

/** The calendar day before `date` (YYYY-MM-DD), whatever the zone's daylight-saving changes. */
export function dayBefore(date) {
  const d = new Date(`${date}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

/** Minutes since midnight at `timeZone` of `now` (default: now on the tests' clock). */
export function minutesIntoDay(timeZone, now = testNow()) {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat("en-GB", { timeZone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" })
      .formatToParts(now)
      .map((x) => [x.type, x.value]),
  );
  return Number(p.hour) * 60 + Number(p.minute);
}

/**
 * Whether the site's day is under an hour old: the demo then has few or no manual runs "today"
 * yet (a handful an hour at night), as a real site would not, so tests look at the day before.
 */
export function siteDayIsYoung(timeZone, now = testNow()) {
  return minutesIntoDay(timeZone, now) < 60;
}

/**
 * The demo site answers at once and loads its history in the background, newest day first;
 * its groups appear once the first day is in. Waits (at most `timeoutMs`) until there are
 * groups, client application health, and, with `runsToday`, manual runs today at the site (the
 * day before in the first hour of its day).
 * Resolves { groups, waitedMs }.
 */
export async function waitForDemoData(server, user, { runsToday = true, groupNames = [], timeoutMs = 120000 } = {}) {
  const token = await apiToken(server, user);
  const started = Date.now();
  let last = "no answer yet";
  for (;;) {
    const get = (p) => apiRequest(server, "GET", p, { token }).then((r) => (r.status === 200 ? r.json?.data : null));
    const [groups, health, tenant] = await Promise.all([
      get("trs/v1/groups"),
      get("trs/v1/groups/health"),
      httpGet(`${server.url}/tenant-config?ac=127.0.0.1`)
        .then((r) => JSON.parse(r.body)?.data ?? {})
        .catch(() => ({})),
    ]);
    const apps = (health ?? []).reduce((n, h) => n + (h.clientApps?.length ?? 0), 0);
    const missing = groupNames.filter((n) => !(groups ?? []).some((g) => g.name === n));
    if (groups?.length && apps && !missing.length) {
      if (!runsToday) return { groups, waitedMs: Date.now() - started };
      // In the first hour of the site's day, the day before (see siteDayIsYoung).
      const zone = tenant.timezone ?? "America/Toronto";
      const today = siteDayIsYoung(zone) ? dayBefore(dateAt(zone)) : dateAt(zone);
      for (const g of groups) {
        const m = await get(`trs/v1/groups/${g.id}/metric?level=case&startDate=${today}&caseRunType=Manual`);
        const runs = (m ?? []).reduce((n, e) => n + e.successCount + e.warningCount + e.failureCount, 0);
        if (runs > 0) return { groups, waitedMs: Date.now() - started };
      }
      last = `${groups.length} groups, no manual run on ${today} yet`;
    } else {
      last = `${groups?.length ?? 0} groups (${missing.join(", ") || "none"} missing), ${apps} client applications`;
    }
    if (Date.now() - started > timeoutMs) {
      throw new Error(`the demo data did not arrive within ${timeoutMs} ms (${last})`);
    }
    await sleep(500);
  }
}

/** Waits (at most `timeoutMs`) until the server's output matches `pattern`; resolves whether it did. */
export async function waitForOutput(server, pattern, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(server.logs())) {
    if (Date.now() > deadline) return false;
    await sleep(250);
  }
  return true;
}

/**
 * Waits (at most `timeoutMs`) until the demo server has loaded its whole history: it prints
 * 'demo: generated …', then adds its alert settings and runs the engine over the history. The
 * files that read those call it first, since with two runners (E2E_RUNNERS) a file may start
 * while the history is still loading, newest day first.
 */
export async function waitForDemoHistory(server, timeoutMs = 600000) {
  if (!(await waitForOutput(server, /demo: generated \d+ runs/, timeoutMs))) {
    throw new Error(`the demo's history did not load within ${timeoutMs} ms`);
  }
}

/** Creates a user with the CLI (password on stdin). role: admin | user; access: read-write | read-only. */
export function addUser(server, { username, password, role = "admin", access = "read-write" }) {
  server.cli(["user", "add", "--username", username, "--role", role, "--access", access], `${password}\n`);
  return { username, password, role, access };
}

/** A one-time sign-in address (`/callback?id=...`) for a user, made with the CLI. */
export function loginLink(server, username) {
  const out = server.cli(["user", "login-link", "--username", username]);
  const link = out.split(/\s+/).find((w) => w.startsWith("/callback?id="));
  if (!link) throw new Error(`no /callback?id= address in: ${out}`);
  return link;
}

export function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
}

/**
 * A fresh browser context (empty local storage) and page, on the tests' clock (`testNow()`).
 * `problems` collects uncaught page errors, refused content (CSP) and requests to any other origin.
 */
export async function newPage(browser, server, { viewport = "desktop", locale = "en-US", clock = true } = {}) {
  const size = typeof viewport === "string" ? VIEWPORTS[viewport] : viewport;
  const context = await browser.newContext({
    baseURL: server.url,
    viewport: size,
    ignoreHTTPSErrors: true,
    locale,
    isMobile: size.width < 768,
    hasTouch: size.width < 768,
  });
  // The page's scripts read time (today, 'last refreshed', relative times, timers) on
  // Playwright's clock, started at the tests' now and running on; a test moves it further with
  // page.clock.fastForward / runFor / pauseAt, never with a second install. `clock: false` only
  // for a page that measures with the browser's performance timeline, which that clock empties
  // (performance.getEntries*); its dates are then the real ones.
  if (clock) await context.clock.install({ time: testNow() });
  const page = await context.newPage();
  const problems = [];
  const origin = new URL(server.url).origin;
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error" && /Refused to|Content Security Policy/i.test(m.text())) {
      problems.push(`refused: ${m.text()}`);
    }
  });
  page.on("request", (r) => {
    const u = r.url();
    if (!u.startsWith(origin) && !u.startsWith("data:") && !u.startsWith("blob:")) {
      problems.push(`request to another origin: ${u}`);
    }
  });
  page.problems = problems;
  return page;
}

export async function closePage(page) {
  await page.context().close();
}

/** Signs in through the login form and waits for /dashboard. */
export async function signIn(page, { username, password, remember = false }) {
  await page.goto("/");
  await page.locator("#login-username").fill(username);
  await page.locator("#login-password").fill(password);
  if (remember) await page.locator('input[name="remember"]').check();
  await page.getByTestId("login-button").click();
  await page.waitForURL("**/dashboard", { timeout: 15000 });
}

/** Chooses the interface language with the selector on the page ('en' or 'fr'). */
export async function chooseLanguage(page, locale) {
  await page.getByTestId("language-select").first().selectOption(locale);
  await page.waitForFunction((l) => document.documentElement.lang === l, locale);
}

/** Saves a full-page PNG as <SCREENSHOT_DIR>/<name>.png and returns its path. */
export async function screenshot(page, name, { fullPage = false } = {}) {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage });
  return file;
}

export function assert(cond, message) {
  if (!cond) throw new Error(message);
}

export function assertEqual(actual, expected, what = "value") {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${what}: expected ${e}, got ${a}`);
}

/**
 * A tiny sequential test runner: `test(name, fn)` runs at once and records the outcome. With
 * E2E_ONLY (a regular expression), only the tests whose names match run; the others are
 * counted as skipped (scripts/test.sh runs the tests that read the date again at other instants).
 */
export function createRunner() {
  const results = [];
  const only = process.env.E2E_ONLY ? new RegExp(process.env.E2E_ONLY) : null;
  let skipped = 0;
  return {
    results,
    async test(name, fn) {
      if (only && !only.test(name) && !name.startsWith("set-up")) {
        skipped += 1;
        return;
      }
      const started = Date.now();
      try {
        await fn();
        results.push({ name, ok: true });
        console.log(`  ok   ${name} (${Date.now() - started} ms)`);
      } catch (e) {
        results.push({ name, ok: false, error: e });
        console.log(
          `  FAIL ${name}\n       ${String(e?.stack ?? e)
            .split("\n")
            .join("\n       ")}`,
        );
      }
    },
    summary() {
      const passed = results.filter((r) => r.ok).length;
      const failed = results.length - passed;
      console.log(`\n${passed} passed, ${failed} failed${only ? `, ${skipped} skipped (E2E_ONLY)` : ""}`);
      // Named again at the end: a CI log is often read from its tail only.
      for (const r of results.filter((r) => !r.ok)) {
        console.log(`  FAIL ${r.name}: ${String(r.error?.message ?? r.error).split("\n")[0]}`);
      }
      return failed;
    },
  };
}

// axe-core for every spec: `checkA11y(page, what)` (see axe.mjs).
export { axeViolations, checkA11y } from "./axe.mjs";

/** 'yyyy/MM/dd HH:mm:ss' of an ISO time at `timeZone`. */
export function siteTime(iso, timeZone) {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat("en-CA", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
    })
      .formatToParts(new Date(iso))
      .map((x) => [x.type, x.value]),
  );
  return `${p.year}/${p.month}/${p.day} ${p.hour === "24" ? "00" : p.hour}:${p.minute}:${p.second}`;
}

/** Starts the Jira stand-in; resolves { url, email, token, issues(), stop() }. */
export async function startJira(flavour = "cloud") {
  const child = spawn(process.execPath, ["e2e/jira-standin.mjs", "--flavour", flavour], {
    cwd: UI_DIR,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await new Promise((resolve, reject) => {
    const rl = readline.createInterface({ input: child.stdout });
    rl.once("line", resolve);
    child.once("exit", (c) => reject(new Error(`jira stand-in exited (${c})`)));
  });
  const info = JSON.parse(line);
  return {
    ...info,
    async issues() {
      const r = await httpGet(`${info.url}/_standin/issues`);
      return JSON.parse(r.body);
    },
    stop: () => child.kill("SIGTERM"),
  };
}

/**
 * Starts the notification sinks (e2e/notify-sinks.mjs: a real SMTP server with its own CA, the
 * SMS and voice gateway, the webhook receiver); `args` go to the script (e.g. a webhook secret).
 * Resolves its ports and certificates, `messages()`, `smtpMode(mode)` and `stop()`.
 */
export async function startSinks(args = []) {
  const child = spawn(process.execPath, ["e2e/notify-sinks.mjs", ...args], {
    cwd: UI_DIR,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await new Promise((resolve, reject) => {
    readline.createInterface({ input: child.stdout }).once("line", resolve);
    child.once("exit", (c) => reject(new Error(`sinks exited (${c})`)));
  });
  const info = JSON.parse(line);
  const control = (p, method = "GET") => fetch(`http://127.0.0.1:${info.http}${p}`, { method }).then((r) => r.json());
  return {
    ...info,
    stop: () => child.kill("SIGTERM"),
    /** What the sinks received; each `at` (the sinks' real clock) moved onto the tests' clock. */
    messages: async () => {
      const got = await control("/_sink/messages");
      const shift = testNow().getTime() - Date.now();
      for (const m of [...got.mail, ...got.http]) m.at += shift;
      return got;
    },
    smtpMode: (mode) => control(`/_sink/smtp?mode=${mode}`, "POST"),
    /** The config's `[notify.smtp]` section for this SMTP server (STARTTLS with its CA, AUTH). */
    smtpToml: (from) =>
      `[notify.smtp]\nhost = "127.0.0.1"\nport = ${info.smtp}\nsecurity = "starttls"\nusername = "${info.user}"\n` +
      `password = "${info.pass}"\nca = "${info.ca}"\nfrom = "${from}"\ntimeout_secs = 5\n`,
  };
}

/** Polls `fn` every 200 ms until it returns something truthy (resolved), or fails after `timeoutMs`. */
export async function waitFor(what, fn, timeoutMs = 20000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}
