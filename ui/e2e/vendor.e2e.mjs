// The console on the vendor's own API: a cxwatch in proxy mode whose tenant's upstream
// is the vendor stand-in (vendor-standin.mjs), which answers exactly the spec's section 7 calls
// with section 3 fields in front of the demo server. Every screen of the spec's route table is
// visited as an administrator and as a ROLE_USER, at desktop and phone size, and each fails on:
// an error banner, a page error, a list shown empty (or 'No Data') while the stand-in has data
// for it, 'Please wait ...' that never goes, or a call the stand-in refused (404/405: not a
// section 7 call). Also clicked through: a dashboard bar to its drill, a run of the drill to its
// run detail. Prints a table screen x role x size and "N of M screens work", and the refused
// calls (what the console still asks a spec-only upstream for).
import { readFileSync } from "node:fs";
import path from "node:path";
import {
  addUser,
  apiRequest,
  apiToken,
  assert,
  closePage,
  dateAt,
  newPage,
  REPO_DIR,
  signIn,
  sleep,
  startServer,
  waitForDemoData,
  waitForDemoHistory,
} from "./lib.mjs";
import { startVendorStandin } from "./vendor-standin.mjs";

/** Whether this binary's config knows the tenant key `api_flavor` (it refuses unknown keys). */
function knowsApiFlavor() {
  try {
    return /^\s*#?\s*api_flavor\s*=/m.test(readFileSync(path.join(REPO_DIR, "config.example.toml"), "utf8"));
  } catch {
    return false;
  }
}

const ROLE_USER = {
  username: "vendor-user@example.com",
  password: "vendor-User-pass-1",
  role: "user",
  access: "read-only",
};

/** A call to the stand-in as a console would make it. Resolves { status, data }. */
async function vendorGet(standin, token, p) {
  const r = await fetch(`${standin.url}/api/${p}`, { headers: { authorization: `Bearer ${token}` } });
  const body = await r.json().catch(() => null);
  return { status: r.status, data: r.ok ? body?.data : null, body };
}

/** `apiRequest` tried again when the loaded server drops the connection (setup calls only). */
async function request(...args) {
  for (let i = 0; ; i++) {
    try {
      return await apiRequest(...args);
    } catch (e) {
      if (i >= 3 || !/socket hang up|ECONNRESET/.test(String(e?.message))) throw e;
      await sleep(500);
    }
  }
}

/** A link to a run detail: the test case's name on desktop, 'Open' on a phone's row. */
const RUN_LINK = 'a[href^="/report/run/"]';

const total = (m) => (m ?? []).reduce((n, e) => n + e.successCount + e.warningCount + e.failureCount, 0);
const normalise = (p) => p.replace(/\/\d+(?=\/|$)/g, "/{id}");

/**
 * What the stand-in has for one role: the screens to visit, each with the texts one of which
 * must show (a list's names) and whether 'No Data' would be wrong.
 */
async function screensFor(standin, token, me, adminData) {
  const get = (p) => vendorGet(standin, token, p).then((r) => r.data);
  const today = dateAt("America/Toronto");
  const [groups, reports, events, settings, distributions, users] = await Promise.all([
    get("trs/v1/groups"),
    get("reports"),
    get("alerts/events?pageNo=0&pageSize=10"),
    get("alerts/settings"),
    get("distributions"),
    get("users"),
  ]);
  const names = (list, key = "name") => (list ?? []).map((x) => x[key]).filter(Boolean);
  const s = [];
  const add = (name, url, expect = {}) => s.push({ name, url, ...expect });

  // Dashboard: the groups, and runs today somewhere.
  const metrics = await Promise.all(
    (groups ?? []).map((g) =>
      get(`trs/v1/groups/${g.id}/metric?level=case&startDate=${today}&caseRunType=Manual`).then((m) => ({ g, m })),
    ),
  );
  const runsToday = metrics.some((x) => total(x.m) > 0);
  add("/dashboard", "/dashboard", { texts: names(groups), noNoData: runsToday });

  add("/reports", "/reports", { texts: names(reports) });
  add("/report/add", "/report/add");
  const byType = new Map();
  for (const r of reports ?? []) if (!byType.has(r.reportTypeID)) byType.set(r.reportTypeID, r);
  const anyReport = (reports ?? [])[0];
  // A read-only user gets no edit form: the name shows only for those who may edit.
  if (anyReport) {
    add("/report/edit/{id}", `/report/edit/${anyReport.id}`, {
      texts: me.accessType === "read-write" ? [anyReport.name] : [],
    });
  }
  for (const [type, r] of [...byType.entries()].sort((a, b) => a[0] - b[0])) {
    let hasData = false;
    if (type === 6) {
      const l = await get(`reports/${r.id}/latency`);
      hasData = (l?.latencyByHr ?? []).some((h) => h.runCount > 0);
    } else if (type === 7) {
      const m = await get(
        `trs/v1/groups/${r.testCaseGroupID}/mos?startDate=${r.timeframeBegin}&endDate=${r.timeframeEnd}&caseRunType=${r.runType}`,
      );
      hasData = (m ?? []).some((h) => h.avgMosCq !== null && h.avgMosCq !== undefined);
    } else {
      const level = type === 5 ? "segment" : "case";
      const m = await get(
        `trs/v1/groups/${r.testCaseGroupID}/metric?level=${level}&startDate=${r.timeframeBegin}&endDate=${r.timeframeEnd}&caseRunType=${r.runType}`,
      );
      hasData = total(m) > 0;
    }
    add(`/report/view/{id} (type ${type})`, `/report/view/${r.id}`, { texts: [r.name], noNoData: hasData });
  }
  const caseReport = byType.get(1) ?? anyReport;
  if (caseReport)
    add("/report/view/testcase/{id}", `/report/view/testcase/${caseReport.id}`, { texts: [caseReport.name] });

  add("/alerts", "/alerts", { texts: names(events?.content, "testCaseName") });
  const event = events?.content?.[0];
  if (event) {
    const d = await get(`alerts/events/${event.alertId}`);
    add("/alert/{id}", `/alert/${event.alertId}`, { texts: [d?.testCaseName ?? event.testCaseName] });
  }

  add("/settings/alert-settings/1", "/settings/alert-settings/1", { texts: names(settings) });
  add("/settings/test-case-group/2", "/settings/test-case-group/2", { texts: me.admin ? names(groups) : [] });
  add("/settings/distribution-list/3", "/settings/distribution-list/3", { texts: names(distributions) });
  // Phone rows show the names, desktop rows the usernames too.
  add("/settings/admin-settings/4", "/settings/admin-settings/4", {
    texts: [...names(users, "username"), ...names(users, "firstName")],
  });

  add("/report/setting/0", "/report/setting/0");
  const setting = (settings ?? [])[0] ?? adminData.setting;
  if (setting) {
    add("/report/setting/{id}", `/report/setting/${setting.id}`, { texts: [setting.name] });
    const tickets = await get(`alerts/autojiraticket/${setting.id}`);
    add("/report/setting/autojiratickets/{id}", `/report/setting/autojiratickets/${setting.id}`, {
      texts: names(tickets, "jiraTicket"),
    });
  }
  add("/report/distribution/0", "/report/distribution/0");
  const distribution = (distributions ?? [])[0] ?? adminData.distribution;
  if (distribution) {
    add("/report/distribution/{id}", `/report/distribution/${distribution.id}`, {
      texts: me.admin ? [distribution.name] : [],
    });
  }
  add("/users/0", "/users/0");
  const other = me.admin ? (users ?? []).find((u) => u.id !== me.id) : null;
  add("/users/{id}", `/users/${other?.id ?? me.id}`, { texts: [other?.username ?? me.username] });

  // A test case's drill: a case with failures today, its runs through testcases/{id}/runs.
  let drillRun = null;
  for (const { m } of metrics) {
    const e = (m ?? []).find((x) => x.failureCount > 0);
    if (!e) continue;
    const runs = (await get(`testcases/${e.entityId}/runs?startDate=${today}&endDate=${today}`)) ?? [];
    const failing = runs.filter((r) => r.runStatusId === 7);
    add("/report/drill/{testCaseId}/failure/{day}/{day}", `/report/drill/${e.entityId}/failure/${today}/${today}`, {
      texts: names(failing, "testCaseName"),
      runLinks: failing.length > 0,
    });
    drillRun = failing[0] ?? runs[0] ?? null;
    break;
  }
  // A dashboard bar's drill (a group's hour and status), as the bar links it.
  for (const { g, m } of metrics) {
    const hour = Array.from({ length: 24 }, (_, h) => h).find((h) =>
      (m ?? []).some((e) => (e.hourlyStatus?.[h]?.failureCount ?? 0) > 0),
    );
    if (hour === undefined) continue;
    add(
      "/report/drill/{groupId}/failure/{day}/{day}?level=group&hrSlot (a bar)",
      `/report/drill/${g.id}/failure/${today}/${today}?level=group&hrSlot=${hour}&caseRunType=Manual`,
      { runLinks: true },
    );
    break;
  }
  // A report segment's drill (type 5): the report's runs of that segment.
  const seg = byType.get(5);
  if (seg) {
    const m = await get(
      `trs/v1/groups/${seg.testCaseGroupID}/metric?level=segment&startDate=${seg.timeframeBegin}&endDate=${seg.timeframeEnd}&caseRunType=${seg.runType}`,
    );
    const e = (m ?? []).find((x) => x.failureCount > 0) ?? (m ?? [])[0];
    if (e) {
      const runs =
        (await get(
          `reports/${seg.id}/testruns?segmentId=${e.segmentId ?? e.entityId}&startDate=${seg.timeframeBegin}&endDate=${seg.timeframeEnd}`,
        )) ?? [];
      const failing = runs.filter((r) => r.runStatusId === 7);
      add(
        "/report/drill/{segmentId}/failure/{start}/{end}/{reportId}",
        `/report/drill/${e.segmentId ?? e.entityId}/failure/${seg.timeframeBegin}/${seg.timeframeEnd}/${seg.id}`,
        { texts: names(failing, "testCaseName"), runLinks: failing.length > 0 },
      );
    }
  }
  if (drillRun) {
    add("/report/run/{runId}", `/report/run/${drillRun.runId}`, { texts: [drillRun.testCaseName] });
  }
  const lat = byType.get(6);
  if (lat) {
    const l = await get(`reports/${lat.id}/latency`);
    const hour = (l?.latencyByHr ?? []).find((h) => h.runCount > 0)?.hour ?? 0;
    const runs = (await get(`reports/${lat.id}/testruns?latencyThres=-1&hrSlot=${hour}`)) ?? [];
    add("/report/latency/{hour}/-1/{reportId}", `/report/latency/${hour}/-1/${lat.id}`, {
      texts: names(runs, "testCaseName"),
      runLinks: runs.length > 0,
    });
  }
  const mos = byType.get(7);
  if (mos) {
    const rows =
      (await get(
        `trs/v1/groups/${mos.testCaseGroupID}/mos?startDate=${mos.timeframeBegin}&endDate=${mos.timeframeEnd}&caseRunType=${mos.runType}`,
      )) ?? [];
    const hour = Math.max(
      0,
      rows.findIndex((h) => h.minMosCq !== null && h.minMosCq !== undefined),
    );
    const v = Math.floor((rows[hour]?.minMosCq ?? 1) * 10) / 10;
    const runs =
      (await get(
        `reports/${mos.id}/testruns?hrSlot=${hour}&startDate=${mos.timeframeBegin}&endDate=${mos.timeframeEnd}&minMos=${v}&maxMos=5`,
      )) ?? [];
    add(
      "/report/mos/{reportId}/{mos}/{hour}/{date}",
      `/report/mos/${mos.id}/${v.toFixed(1)}/${hour}/${mos.timeframeBegin}`,
      { texts: names(runs, "testCaseName"), runLinks: runs.length > 0 },
    );
  }
  add("/setting", "/setting");
  add("/telco", "/telco");
  add("/callback (no id)", "/callback", { landsOn: ["/login", "/dashboard"] });
  add("unknown path", "/no-such-page-here", { texts: ["This page could not be found"] });
  return { screens: s, today, runsToday };
}

/** The page's visible text and the values of its fields. */
const pageText = (page) =>
  page.evaluate(
    () =>
      // biome-ignore lint/performance/useDomNodeTextContent: the text a person sees, not hidden nodes'
      `${document.body.innerText}\n${[...document.querySelectorAll("input, textarea, select")]
        .map((e) => (e instanceof HTMLSelectElement ? (e.selectedOptions[0]?.textContent ?? "") : e.value))
        .join("\n")}`,
  );
const visible = (page, selector) =>
  page.evaluate((sel) => [...document.querySelectorAll(sel)].some((e) => e.getClientRects().length > 0), selector);
const visibleText = (page, text) =>
  page.evaluate(
    (t) =>
      [...document.querySelectorAll("body *")].some(
        (e) => e.childElementCount === 0 && e.textContent.trim() === t && e.getClientRects().length > 0,
      ),
    text,
  );

/**
 * Settles the current screen and judges it. `since` is the stand-in's request count when the
 * screen was opened, `problems` the page's problem count. Resolves a list of reasons (empty: ok).
 */
async function judge(page, standin, screen, since, problems) {
  await page.waitForLoadState("networkidle", { timeout: 8000 }).catch(() => {});
  const reasons = [];
  let waited = 0;
  while (await visibleText(page, "Please wait ...")) {
    if (waited > 15000) {
      reasons.push("'Please wait ...' never goes");
      break;
    }
    await sleep(250);
    waited += 250;
  }
  const texts = screen.texts ?? [];
  if (texts.length) {
    let found = false;
    for (let i = 0; i < 24 && !found; i++) {
      const text = await pageText(page);
      found = texts.some((t) => text.includes(t));
      if (!found) await sleep(250);
    }
    if (!found) reasons.push(`shows none of ${texts.length} item(s) the stand-in has (e.g. '${texts[0]}')`);
  }
  // A run link, or a phone's accordion row (which renders its link once opened).
  let links = 0;
  for (let i = 0; screen.runLinks && i < 24 && !links; i++) {
    links = await page.locator(`${RUN_LINK}, [data-testid=table-row]`).count();
    if (!links) await sleep(250);
  }
  if (screen.runLinks && !links) {
    reasons.push("lists no run while the stand-in has runs");
  }
  if (screen.noNoData && (await visibleText(page, "No Data"))) reasons.push("'No Data' while the stand-in has data");
  if (screen.landsOn) {
    const at = new URL(page.url()).pathname;
    if (!screen.landsOn.includes(at)) reasons.push(`lands on ${at}`);
  }
  if (await visible(page, "[data-testid=banner-error]")) {
    const t = await page
      .locator("[data-testid=banner-error]")
      .first()
      .textContent()
      .catch(() => "");
    reasons.push(`error banner '${t.trim().slice(0, 80)}'`);
  }
  for (const p of page.problems.slice(problems)) reasons.push(p.slice(0, 120));
  const refused = standin.requests.slice(since).filter((r) => r.refused);
  for (const r of refused) reasons.push(`refused ${r.status} ${r.method} ${normalise(r.path)}`);
  return [...new Set(reasons)];
}

export default async function vendor({ server, browser, users, test }) {
  let standin;
  let front;
  let flavour = false;
  const admin = users.admin;
  await test("vendor: the stand-in in front of the demo, a cxwatch in proxy mode in front of the stand-in", async () => {
    const { groups } = await waitForDemoData(server, admin, { runsToday: true });
    // A ROLE_USER with some of the groups (the runner's restricted user has none, so every list
    // would rightly be empty): those of the latency, MOS and segment reports and one with runs.
    const adminToken = await apiToken(server, admin);
    // The demo adds its alert settings and events after the history: wait for them too.
    await waitForDemoHistory(server);
    for (let waited = 0; ; waited += 500) {
      const [settings, events] = await Promise.all([
        request(server, "GET", "alerts/settings?pageNo=0&pageSize=1", { token: adminToken }),
        request(server, "GET", "alerts/events?pageNo=0&pageSize=1", { token: adminToken }),
      ]);
      if (settings.json?.data?.totalElements > 0 && events.json?.data?.totalElements > 0) break;
      assert(waited < 120000, "the demo's alert settings and events did not arrive within 120 s");
      await sleep(500);
    }
    addUser(server, ROLE_USER);
    const reports = await request(server, "GET", "reports?pageNo=0&pageSize=1000", { token: adminToken });
    const want = new Set();
    for (const r of reports.json?.data?.content ?? []) {
      if ([5, 6, 7].includes(r.reportTypeID)) want.add(r.testCaseGroupID);
    }
    want.add(groups[0].id);
    const found = await request(
      server,
      "GET",
      `users?pageNo=0&pageSize=100&search=${encodeURIComponent(ROLE_USER.username)}`,
      {
        token: adminToken,
      },
    );
    const u = found.json.data.content.find((x) => x.username === ROLE_USER.username);
    const put = await request(server, "PUT", `users/${u.id}`, {
      token: adminToken,
      body: {
        id: u.id,
        username: u.username,
        firstName: u.firstName || "Vendor",
        lastName: u.lastName || "User",
        roles: ["ROLE_USER"],
        accessType: "read-only",
        testCaseGroups: [...want].map((id) => ({ id })),
      },
    });
    assert(put.status === 200, `groups of the ROLE_USER: ${put.status} ${put.text}`);

    const ca = path.join(server.dataDir, "tls", "self-signed.crt");
    standin = await startVendorStandin({ source: server.url, ca });
    flavour = knowsApiFlavor();
    front = await startServer({
      args: [],
      config: [
        `[api]`,
        `mode = "proxy"`,
        `[[tenants]]`,
        `name = "Vendor"`,
        `hosts = ["127.0.0.1"]`,
        `upstream = "${standin.url}"`,
        // The key arrives with a newer server; older binaries refuse unknown keys.
        ...(flavour ? [`api_flavor = "spec"`] : []),
        "",
      ].join("\n"),
    });
    console.log(
      `       stand-in ${standin.url}, proxy ${front.url}, api_flavor ${flavour ? '"spec"' : "not known to this binary"}`,
    );
  });
  if (!front) {
    await standin?.stop();
    return;
  }

  const rows = []; // {screen, role, size, reasons}
  try {
    const roles = [
      { name: "admin", account: admin },
      { name: "user", account: ROLE_USER },
    ];
    let adminData = {};
    for (const role of roles) {
      const signin = await fetch(`${standin.url}/api/auth/signin`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ username: role.account.username, password: role.account.password, remember: false }),
      }).then((r) => r.json());
      const me = { ...signin.data, admin: signin.data?.roles?.[0] !== "ROLE_USER" };
      const { screens } = await screensFor(standin, me.accessToken, me, adminData);
      if (me.admin) {
        const get = (p) => vendorGet(standin, me.accessToken, p).then((r) => r.data);
        adminData = { setting: (await get("alerts/settings"))?.[0], distribution: (await get("distributions"))?.[0] };
      }
      for (const size of ["desktop", "phone"]) {
        await test(`vendor (${role.name}, ${size}): every screen of the route table on a section 7 upstream`, async () => {
          const page = await newPage(browser, front, { viewport: size });
          try {
            // Sign-in through the form (POST auth/signin); when the console cannot, the session
            // is stored as a successful sign-in would, so that every screen is still judged.
            let since = standin.requests.length;
            let problems = page.problems.length;
            const login = { name: "/ (sign-in)", url: "/" };
            try {
              await signIn(page, role.account);
              rows.push({
                screen: login.name,
                role: role.name,
                size,
                reasons: await judge(page, standin, {}, since, problems),
              });
            } catch (e) {
              const reasons = await judge(page, standin, {}, since, problems);
              reasons.unshift(`sign-in did not reach /dashboard (${String(e.message).split("\n")[0].slice(0, 60)})`);
              rows.push({ screen: login.name, role: role.name, size, reasons });
              await page.evaluate((u) => {
                localStorage.setItem("user", JSON.stringify(u));
                localStorage.setItem("accessToken", u.accessToken);
              }, signin.data);
            }
            for (const screen of screens) {
              since = standin.requests.length;
              problems = page.problems.length;
              let reasons;
              try {
                await page.goto(screen.url);
                reasons = await judge(page, standin, screen, since, problems);
              } catch (e) {
                reasons = [String(e.message).split("\n")[0].slice(0, 120)];
              }
              rows.push({ screen: screen.name, role: role.name, size, reasons });
            }
            // Click-through: a dashboard bar to its drill, a run of the drill to its detail.
            since = standin.requests.length;
            problems = page.problems.length;
            let reasons = [];
            try {
              await page.goto("/dashboard");
              await page.waitForLoadState("networkidle", { timeout: 8000 }).catch(() => {});
              // The first group whose chart has a bar with runs (just after midnight, site
              // time, a group may have none yet today).
              let bar = null;
              const charts = page.locator("[data-testid=group-chart]");
              await charts.first().waitFor({ timeout: 10000 });
              for (let i = 0; !bar && i < Math.min(await charts.count(), 6); i++) {
                await charts.nth(i).click({ timeout: 10000 });
                // Bars of an empty hour have no size: wait for the chart to be drawn (its
                // classes load with the first chart) and its bars to exist, not to show.
                await page.waitForSelector("[data-testid=chart-modal] [data-drawn=true] [data-point-index]", {
                  state: "attached",
                  timeout: 10000,
                });
                bar = await page.evaluate(() => {
                  const bars = [...document.querySelectorAll("[data-testid=chart-modal] [data-point-index]")]
                    .map((e) => e.getBoundingClientRect())
                    .filter((r) => r.height > 2 && r.width > 0);
                  const b = bars.sort((x, y) => y.height - x.height)[0];
                  return b ? { x: b.x + b.width / 2, y: b.y + b.height / 2 } : null;
                });
                if (!bar) await page.keyboard.press("Escape");
              }
              assert(bar, "no bar with runs in the chart");
              await page.mouse.click(bar.x, bar.y);
              await page.waitForURL((u) => u.pathname.startsWith("/report/drill/"), { timeout: 10000 });
              reasons = await judge(page, standin, { runLinks: true }, since, problems);
            } catch (e) {
              reasons = [
                ...(await judge(page, standin, {}, since, problems)),
                String(e.message).split("\n")[0].slice(0, 100),
              ];
            }
            rows.push({ screen: "click: dashboard bar -> drill", role: role.name, size, reasons });
            since = standin.requests.length;
            problems = page.problems.length;
            try {
              assert(new URL(page.url()).pathname.startsWith("/report/drill/"), "not on a drill");
              await page.locator(`${RUN_LINK} >> visible=true`).first().click({ timeout: 10000 });
              await page.waitForURL((u) => u.pathname.startsWith("/report/run/"), { timeout: 10000 });
              reasons = await judge(page, standin, {}, since, problems);
            } catch (e) {
              reasons = [
                ...(await judge(page, standin, {}, since, problems)),
                String(e.message).split("\n")[0].slice(0, 100),
              ];
            }
            rows.push({ screen: "click: drill run -> run detail", role: role.name, size, reasons });
            if (size === "desktop") {
              // Sign-out from the side navigation: back to the login page.
              since = standin.requests.length;
              problems = page.problems.length;
              try {
                await page.goto("/unknown-page-before-sign-out");
                await page.getByTestId("sidenav").hover();
                await page.getByTestId("sign-out").click({ timeout: 10000 });
                await page.waitForURL((u) => u.pathname === "/", { timeout: 10000 });
                reasons = await judge(page, standin, {}, since, problems);
              } catch (e) {
                reasons = [
                  ...(await judge(page, standin, {}, since, problems)),
                  String(e.message).split("\n")[0].slice(0, 100),
                ];
              }
              rows.push({ screen: "click: sign out", role: role.name, size, reasons });
            }
          } finally {
            await closePage(page);
          }
          const bad = rows.filter((r) => r.role === role.name && r.size === size && r.reasons.length);
          assert(!bad.length, `${bad.length} screen(s) do not work: ${bad.map((r) => r.screen).join(", ")}`);
        });
      }
    }
  } finally {
    report(rows, standin, flavour);
    await front.stop();
    await standin.stop();
  }
}

/** Prints the table screen x role x size, the count, and the refused calls. */
function report(rows, standin, flavour) {
  if (!rows.length) return;
  const combos = [...new Set(rows.map((r) => `${r.role} ${r.size}`))];
  const screens = [...new Set(rows.map((r) => r.screen))];
  const width = Math.max(...screens.map((s) => s.length));
  console.log(
    `\n       Screens on a section 7 upstream (api_flavor ${flavour ? '"spec"' : "unknown to this binary"}):`,
  );
  console.log(`       ${"screen".padEnd(width)}  ${combos.map((c) => c.padEnd(13)).join(" ")}`);
  for (const s of screens) {
    const cells = combos.map((c) => {
      const r = rows.find((x) => x.screen === s && `${x.role} ${x.size}` === c);
      return (r ? (r.reasons.length ? "FAIL" : "ok") : "-").padEnd(13);
    });
    console.log(`       ${s.padEnd(width)}  ${cells.join(" ")}`);
  }
  const failing = rows.filter((r) => r.reasons.length);
  if (failing.length) {
    console.log("\n       Reasons:");
    for (const r of failing) console.log(`       - ${r.screen} (${r.role}, ${r.size}): ${r.reasons.join("; ")}`);
  }
  const working = screens.filter((s) => rows.filter((r) => r.screen === s).every((r) => !r.reasons.length));
  console.log(`\n       ${working.length} of ${screens.length} screens work (every role and size)`);
  console.log(`       ${rows.length - failing.length} of ${rows.length} screen visits work`);
  const refused = new Map();
  for (const r of standin.refused()) {
    const k = `${r.status} ${r.method} ${normalise(r.path)}`;
    refused.set(k, (refused.get(k) ?? 0) + 1);
  }
  console.log(`\n       Calls the stand-in refused (not section 7): ${refused.size ? "" : "none"}`);
  for (const [k, n] of [...refused.entries()].sort()) console.log(`       ${k}  x${n}`);
}
