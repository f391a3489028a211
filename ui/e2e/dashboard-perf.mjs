// The dashboard's load with many groups, measured in the browser from the Login click. Shared by the dashboard's browser test (one UI, figures printed) and
// scripts/bench-dashboard.mjs (two binaries side by side, rounds alternated).
//
// What is measured, in ms after the click on Login (performance.now() of the click's event):
// - numbers: the dashboard says every chosen group's numbers are in (data-ready);
// - view:    and every chart in the window is drawn (its box has data-drawn);
// - all:     every chart of the page is drawn. With `scroll`, the page is scrolled from the top to
//            the bottom one window per frame as soon as `view` is reached (a chart drawn only when
//            it nears the window is then drawn as a user flinging down the page makes it); without,
//            nothing is scrolled and `all` comes only from charts drawn in idle time.
// Each moment is stamped once the frame that shows it has been painted (a task after the next
// animation frame). Also: when the first and last day-metric call (groups/{id}/metric or
// groups/hourly) started and ended, how many /api calls the load made and their body bytes
// (as sent, compressed), and the renderer main thread's busy time from the click to `all`
// (Chromium's TaskDuration, through the DevTools protocol).

export const PERF_GROUPS = 100;

/** Installed before any page script: records the click and the three moments in window.__perf. */
function probe() {
  const P = { click: null, numbers: null, view: null, all: null, shown: 0, rows: 0, charts: 0 };
  window.__perf = P;
  const scroll = localStorage.getItem("cx-perf-scroll") === "1";
  document.addEventListener(
    "click",
    (e) => {
      if (P.click === null && e.target instanceof Element && e.target.closest("[data-testid=login-button]"))
        P.click = e.timeStamp;
    },
    true,
  );
  const painted = (set) =>
    requestAnimationFrame(() => {
      const ch = new MessageChannel();
      ch.port1.onmessage = () => set(performance.now());
      ch.port2.postMessage(0);
    });
  const pending = { numbers: false, view: false, all: false };
  const flingDown = () => {
    let y = 0;
    const step = () => {
      y += innerHeight;
      window.scrollTo(0, y);
      if (y < document.documentElement.scrollHeight) requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  };
  const check = () => {
    if (P.click === null || P.all !== null) return;
    const d = document.querySelector("[data-testid=dashboard]");
    if (d?.dataset.ready !== "true") return;
    if (!pending.numbers) {
      pending.numbers = true;
      painted((t) => {
        P.numbers = t;
      });
    }
    const charts = [...document.querySelectorAll("[data-testid=group-chart] .cx-chart")];
    const rows = document.querySelectorAll("[data-testid=group-row]").length;
    if (!pending.view) {
      const inView = charts.filter((c) => {
        const r = c.getBoundingClientRect();
        return r.bottom > 0 && r.top < innerHeight;
      });
      if (inView.every((c) => c.dataset.drawn === "true")) {
        pending.view = true;
        P.shown = inView.length;
        P.rows = rows;
        painted((t) => {
          P.view = t;
          if (scroll) flingDown();
        });
      }
    }
    if (pending.view && !pending.all && charts.length === rows && charts.every((c) => c.dataset.drawn === "true")) {
      pending.all = true;
      P.charts = charts.length;
      painted((t) => {
        P.all = t;
      });
    }
  };
  new MutationObserver(check).observe(document, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ["data-ready", "data-drawn"],
  });
}

/** Installs the probe on `page` (before its next navigation). */
export async function installProbe(page) {
  await page.addInitScript(probe);
}

/**
 * One measured sign-in: a fresh login page (the session and everything but the tenant config
 * and the dashboard's remembered groups cleared, as after a sign-out with a choice kept), the
 * Login click, and the dashboard until every chart is drawn. Resolves the figures.
 */
export async function measureSignIn(page, user, { scroll, timeoutMs = 30000 }) {
  await page.goto("/");
  await page.evaluate((scroll) => {
    const keep = ["cxwatch.dashboard.groups", "tenantConfig"].map((k) => [k, localStorage.getItem(k)]);
    localStorage.clear();
    for (const [k, v] of keep) if (v !== null) localStorage.setItem(k, v);
    if (scroll) localStorage.setItem("cx-perf-scroll", "1");
  }, scroll);
  await page.goto("/");
  await page.locator("#login-username").fill(user.username);
  await page.locator("#login-password").fill(user.password);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Performance.enable");
  const busy = async () =>
    (await cdp.send("Performance.getMetrics")).metrics.find((m) => m.name === "TaskDuration")?.value ?? 0;
  const before = await busy();
  await page.getByTestId("login-button").click();
  await page.waitForFunction(() => window.__perf?.all !== null, null, { timeout: timeoutMs, polling: 50 });
  const after = await busy();
  await cdp.detach();
  const f = await page.evaluate(() => {
    const P = window.__perf;
    const api = performance
      .getEntriesByType("resource")
      .filter((e) => e.name.includes("/api/") && e.startTime >= P.click);
    const day = api.filter((e) => /\/api\/trs\/v1\/groups\/(\d+\/metric|hourly)/.test(e.name));
    return {
      numbers: P.numbers - P.click,
      view: P.view - P.click,
      all: P.all - P.click,
      shown: P.shown,
      rows: P.rows,
      charts: P.charts,
      calls: api.length,
      dayCalls: day.length,
      bytes: api.reduce((n, e) => n + (e.encodedBodySize ?? 0), 0),
      firstDay: Math.min(...day.map((e) => e.startTime)) - P.click,
      lastDay: Math.max(...day.map((e) => e.responseEnd)) - P.click,
      protocol: day[0]?.nextHopProtocol,
    };
  });
  await page.evaluate(() => localStorage.removeItem("cx-perf-scroll"));
  return { ...f, busy: (after - before) * 1000 };
}

/** One line of figures. */
export function describe(f) {
  const r = Math.round;
  return (
    `numbers ${r(f.numbers)} ms, the ${f.shown} charts in view ${r(f.view)} ms, all ${f.charts} charts ${r(f.all)} ms; ` +
    `${f.dayCalls} day calls over ${f.protocol} from ${r(f.firstDay)} to ${r(f.lastDay)} ms, ${f.calls} /api calls, ` +
    `${(f.bytes / 1024).toFixed(0)} KiB; main thread busy ${r(f.busy)} ms`
  );
}

/** min / median / max of a list of numbers, rounded. */
export function spread(values) {
  const v = [...values].sort((a, b) => a - b);
  const r = Math.round;
  return { min: r(v[0]), median: r(v[Math.floor(v.length / 2)]), max: r(v[v.length - 1]) };
}

/**
 * Creates `n` groups with POST api/trs/v1/groups (spec §7: name, channel, testCases[{id}]), each
 * with up to 6 test cases of one channel, like the demo's own groups. Resolves [{id, name}].
 */
export async function createGroups(page, n) {
  const res = await page.evaluate(async (n) => {
    const h = { Authorization: `Bearer ${localStorage.getItem("accessToken")}`, "Content-Type": "application/json" };
    const ivrs = await fetch("/api/trs/v1/ivrs", { headers: h }).then((r) => r.json());
    const byChannel = new Map();
    for (const i of ivrs.data ?? []) {
      const list = byChannel.get(i.channel) ?? [];
      list.push(...(i.testCases ?? []).map((c) => c.id));
      byChannel.set(i.channel, list);
    }
    const channels = [...byChannel.keys()];
    if (!channels.length) return { error: "no test cases to make groups of" };
    const made = [];
    for (let i = 0; i < n; i++) {
      const channel = channels[i % channels.length];
      const cases = byChannel.get(channel);
      const size = Math.min(cases.length, 6);
      const first = (Math.floor(i / channels.length) * size) % cases.length;
      const testCases = Array.from({ length: size }, (_, k) => ({ id: cases[(first + k) % cases.length] }));
      const name = `Perf group ${String(i + 1).padStart(3, "0")}`;
      const r = await fetch("/api/trs/v1/groups", {
        method: "POST",
        headers: h,
        body: JSON.stringify({ name, channel, testCases }),
      });
      const body = await r.json().catch(() => null);
      if (r.status !== 200 || body?.code !== "OK")
        return { error: `POST groups ${name}: ${r.status} ${JSON.stringify(body)}`, made };
      made.push({ id: body.data.id, name: body.data.name });
    }
    return { made };
  }, n);
  if (res.error) {
    if (res.made?.length)
      await deleteGroups(
        page,
        res.made.map((g) => g.id),
      );
    throw new Error(`creating groups failed: ${res.error}`);
  }
  return res.made;
}

/** Deletes groups with DELETE api/trs/v1/groups/{id}. */
export async function deleteGroups(page, ids) {
  const failures = await page.evaluate(async (ids) => {
    const h = { Authorization: `Bearer ${localStorage.getItem("accessToken")}` };
    const bad = [];
    for (const id of ids) {
      const r = await fetch(`/api/trs/v1/groups/${id}`, { method: "DELETE", headers: h });
      if (r.status !== 200) bad.push(`${id}: ${r.status}`);
    }
    return bad;
  }, ids);
  if (failures.length) throw new Error(`DELETE groups failed: ${failures.join(", ")}`);
}
