// The night shift's dashboard: axe-core on every screen (login, shell, dashboard and
// its modals, 404, the alerts list, wall mode, the dark theme) in English and French at
// desktop and phone sizes with the real Content-Security-Policy on; the layout at 768 and
// 1024 px (no overlap, no sideways scrolling); wall mode (dark, large type, 'refreshed … ago',
// changed numbers highlighted, the tiles following a run ingested now); wall mode for a room at
// 1920x1080 and 3840x2160 (no scrolling, 24 px type, the frame turning red with a tone when a
// group starts failing, pages turning when more groups than fit); kiosk
// sessions (allowed per user, read-only on the server, not signed out when idle); the health
// modal of a restricted user.
import {
  apiRequest,
  apiToken,
  assert,
  assertEqual,
  checkA11y,
  chooseLanguage,
  closePage,
  dateAt,
  minutesBeforeNow,
  newPage,
  screenshot,
  signIn,
  sleep,
  testNow,
} from "./lib.mjs";

async function waitReady(page) {
  await page.waitForSelector("[data-testid=dashboard][data-ready=true]", { timeout: 30000 });
}

async function noSidewaysScroll(page, what) {
  const { sw, cw } = await page.evaluate(() => ({
    sw: document.documentElement.scrollWidth,
    cw: document.documentElement.clientWidth,
  }));
  assert(sw <= cw, `${what}: the page scrolls sideways (${sw} > ${cw})`);
}

/** Boxes of the visible elements matching `selector`, with a name for the message. */
async function boxes(page, selector) {
  return page.$$eval(selector, (els) =>
    els
      .map((e) => {
        const r = e.getBoundingClientRect();
        return {
          name: `${e.tagName.toLowerCase()}.${[...e.classList].join(".")}${e.dataset.testid ? `[${e.dataset.testid}]` : ""}`,
          left: r.left + window.scrollX,
          top: r.top + window.scrollY,
          right: r.right + window.scrollX,
          bottom: r.bottom + window.scrollY,
          w: r.width,
          h: r.height,
        };
      })
      .filter((b) => b.w > 0 && b.h > 0),
  );
}

function overlap(a, b) {
  const x = Math.min(a.right, b.right) - Math.max(a.left, b.left);
  const y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
  return x > 1 && y > 1;
}

function assertNoOverlap(list, what) {
  for (let i = 0; i < list.length; i++)
    for (let j = i + 1; j < list.length; j++)
      assert(!overlap(list[i], list[j]), `${what}: ${list[i].name} overlaps ${list[j].name}`);
}

/** Every box of `inner` lies inside some box of `outer` (a child never spills out of its card). */
function assertInside(inner, outer, what) {
  for (const b of inner) {
    const ok = outer.some(
      (o) => b.left >= o.left - 1 && b.right <= o.right + 1 && b.top >= o.top - 1 && b.bottom <= o.bottom + 1,
    );
    assert(ok, `${what}: ${b.name} spills out (${Math.round(b.left)}..${Math.round(b.right)})`);
  }
}

async function bodyBackground(page) {
  return page.evaluate(() => getComputedStyle(document.body).backgroundColor);
}

const DARK_BG = "rgb(11, 17, 27)";

export default async function wall({ server, browser, users, test }) {
  const admin = users.admin;

  for (const lang of ["en", "fr"]) {
    for (const viewport of ["desktop", "phone"]) {
      await test(`axe (${viewport}, ${lang}): login, dashboard, its modals, 404, alerts, wall mode, dark theme`, async () => {
        const p = await newPage(browser, server, { viewport });
        try {
          await p.goto("/");
          await p.getByTestId("login-form").waitFor();
          if (lang === "fr") await chooseLanguage(p, "fr");
          await checkA11y(p, `login (${viewport}, ${lang})`);
          await p.goto("/login?kiosk");
          await p.getByTestId("kiosk-notice").waitFor();
          await checkA11y(p, `kiosk login (${viewport}, ${lang})`);
          await signIn(p, admin);
          await waitReady(p);
          await checkA11y(p, `dashboard (${viewport}, ${lang})`);
          await screenshot(p, `wall-axe-dashboard-${viewport}-${lang}`);
          // The health modal.
          await p.locator("[data-testid=health-details]:visible").first().click();
          await p.waitForSelector("[data-testid=health-modal]");
          await checkA11y(p, `health modal (${viewport}, ${lang})`);
          await p.keyboard.press("Escape");
          await p.waitForSelector("[data-testid=health-modal]", { state: "detached" });
          // A group's chart modal.
          await p.locator("[data-testid=group-chart]:visible").first().click();
          await p.waitForSelector("[data-testid=chart-modal]");
          await checkA11y(p, `chart modal (${viewport}, ${lang})`);
          await p.keyboard.press("Escape");
          await p.waitForSelector("[data-testid=chart-modal]", { state: "detached" });
          // The side navigation opened (phone: the drawer).
          if (viewport === "phone") {
            await p.getByTestId("open-menu").click();
            await sleep(300);
            await checkA11y(p, `navigation drawer (${viewport}, ${lang})`);
            await p.keyboard.press("Escape");
          }
          await p.goto("/no/such/page");
          await p.waitForSelector(".not-found, [data-testid=not-found]", { timeout: 10000 }).catch(() => {});
          await checkA11y(p, `404 (${viewport}, ${lang})`);
          await p.goto("/reports");
          await p.waitForSelector("[data-testid=table-row]", { timeout: 10000 }).catch(() => {});
          await checkA11y(p, `reports (${viewport}, ${lang})`);
          await p.goto("/alerts");
          await p.waitForSelector("[data-testid=alert-list]", { timeout: 10000 }).catch(() => {});
          await sleep(300);
          await checkA11y(p, `alerts (${viewport}, ${lang})`);
          // Wall mode: the dark theme and large type.
          await p.goto("/dashboard?wall=1");
          await waitReady(p);
          assertEqual(await bodyBackground(p), DARK_BG, "wall mode is dark");
          await checkA11y(p, `wall mode (${viewport}, ${lang})`);
          await screenshot(p, `wall-mode-${viewport}-${lang}`);
          // The system's dark theme, outside wall mode too.
          await p.emulateMedia({ colorScheme: "dark" });
          await p.goto("/dashboard");
          await waitReady(p);
          assertEqual(await bodyBackground(p), DARK_BG, "dark when the system is");
          await checkA11y(p, `dark dashboard (${viewport}, ${lang})`);
          await screenshot(p, `wall-dark-dashboard-${viewport}-${lang}`);
          await p.locator("[data-testid=health-details]:visible").first().click();
          await p.waitForSelector("[data-testid=health-modal]");
          await checkA11y(p, `dark health modal (${viewport}, ${lang})`);
          await p.keyboard.press("Escape");
          assertEqual(p.problems, [], "page problems (the CSP refused nothing)");
        } finally {
          await closePage(p);
        }
      });
    }
  }

  for (const size of [
    { width: 768, height: 1024 },
    { width: 1024, height: 768 },
  ]) {
    for (const lang of ["en", "fr"]) {
      await test(`layout at ${size.width} px (${lang}): no overlap, nothing spills out of its card, no sideways scrolling`, async () => {
        const p = await newPage(browser, server, { viewport: size });
        try {
          await p.goto("/");
          if (lang === "fr") await chooseLanguage(p, "fr");
          await signIn(p, admin);
          await waitReady(p);
          await sleep(500);
          await noSidewaysScroll(p, `dashboard at ${size.width}`);
          const blocks = await boxes(
            p,
            ".sidenav, .dash-head, .incident-ribbon, .status-strip, .journey-card, .health-card, .controls-card, .table-card",
          );
          assert(blocks.length >= 6, `the dashboard's blocks (${blocks.map((b) => b.name).join(", ")})`);
          assertNoOverlap(blocks, `dashboard at ${size.width} (${lang})`);
          assertNoOverlap(await boxes(p, ".jn-node"), `journey nodes at ${size.width} (${lang})`);
          assertInside(await boxes(p, ".jn-node"), await boxes(p, ".journey-card"), `journey at ${size.width}`);
          assertInside(
            await boxes(p, ".health-legend li, .donut-total"),
            await boxes(p, ".health-card"),
            `overall health at ${size.width}`,
          );
          assertInside(
            await boxes(p, ".strip-badge"),
            await boxes(p, ".status-strip"),
            `status strip at ${size.width}`,
          );
          // A legend word is never split over two lines.
          const split = await p.$$eval(".legend-label", (l) =>
            l
              .filter((e) => e.getClientRects().length > 1 || e.scrollWidth > e.clientWidth + 1)
              .map((e) => e.textContent),
          );
          assertEqual(split, [], "legend words split");
          await screenshot(p, `wall-layout-${size.width}-${lang}`);
          assertEqual(p.problems, [], "page problems");
        } finally {
          await closePage(p);
        }
      });
    }
  }

  await test("wall mode: dark, large type, no controls, 'refreshed … ago' and the tiles follow a failing run ingested now; changed numbers light up", async () => {
    const key = server.cli(["apikey", "add", "--name", "e2e-wall"]).match(/cxw_[0-9a-f]+/)?.[0];
    assert(key, "an ingest API key from the CLI");
    const p = await newPage(browser, server, { viewport: "desktop" });
    try {
      await signIn(p, admin);
      await waitReady(p);
      assertEqual(await p.getAttribute("[data-testid=wall-toggle]", "aria-pressed"), "false", "wall mode off");
      await p.click("[data-testid=wall-toggle]");
      await p.waitForURL("**/dashboard?wall=1");
      // The wall board is a chunk of its own, loaded when wall mode is turned on.
      await p.waitForSelector("html.wall [data-testid=group-name]");
      assertEqual(await bodyBackground(p), DARK_BG, "dark");
      assertEqual(await p.locator(".sidenav:visible").count(), 0, "no side navigation");
      assertEqual(await p.getByTestId("controls-card").count(), 0, "no controls");
      const rowFont = await p.$eval("[data-testid=group-name]", (e) => parseFloat(getComputedStyle(e).fontSize));
      assert(rowFont >= 24, `large type (${rowFont}px)`);
      const ago = p.getByTestId("refreshed-ago");
      assert(/^refreshed \d+ s ago$/.test(await ago.textContent()), `'${await ago.textContent()}'`);
      const at0 = Number(await ago.getAttribute("data-at"));
      await sleep(2100);
      const secs = Number((await ago.textContent()).match(/\d+/)[0]);
      assert(secs >= 2, `it ticks (${secs} s)`);

      // A failing run of a chosen group, now: the next refresh shows it (the strip, the counts).
      const groups = (await apiRequest(server, "GET", "trs/v1/groups", { token: await apiToken(server, admin) })).json
        .data;
      const token = await apiToken(server, admin);
      let target = null;
      // A group whose tile is on the page shown (more groups than fit turn by page).
      const onPage = new Set(await p.$$eval("[data-testid=group-row]", (l) => l.map((e) => Number(e.dataset.groupId))));
      for (const g of groups.filter((g) => g.channel === "voice" && onPage.has(g.id))) {
        const d = (await apiRequest(server, "GET", `trs/v1/groups/${g.id}`, { token })).json.data;
        if (d?.testCases?.length) {
          target = { group: g, tc: d.testCases[0] };
          break;
        }
      }
      assert(target, "a voice group with a test case");
      const ivrs = (await apiRequest(server, "GET", "trs/v1/ivrs", { token })).json.data;
      const ivr = ivrs.find((i) => i.testCases?.some((t) => t.id === target.tc.id));
      const countNow = async () =>
        Number(await p.getAttribute(`[data-testid=group-row][data-group-id="${target.group.id}"]`, "data-count"));
      let before = await countNow();
      // The highlight lasts a few seconds: watched from now on, so a late look on a busy machine
      // does not miss it.
      await p.evaluate((id) => {
        const lit = () => document.querySelector(`[data-testid=group-row][data-group-id="${id}"] [data-changed=true]`);
        window.__lit = false;
        new MutationObserver(() => {
          if (lit()) window.__lit = true;
        }).observe(document.body, { subtree: true, childList: true, attributes: true });
      }, target.group.id);
      // The run counts on the site's day it is ingested on: when the site's midnight passes
      // before the refresh shows it (the tests also run a minute before it), once more.
      const zone = "America/Toronto";
      const failNow = async () => {
        const now = testNow().getTime();
        const res = await apiRequest(server, "POST", "ingest/v1/runs", {
          token: key,
          body: {
            runs: [
              {
                engineRunId: `e2e-wall/${now}`,
                testCase: {
                  id: target.tc.id,
                  name: target.tc.name,
                  channel: "voice",
                  ivr: { id: ivr.id, name: ivr.name },
                },
                runTime: new Date(now).toISOString(),
                runDuration: 30,
                status: "fail",
                runType: "Manual",
                segments: [],
              },
            ],
          },
        });
        assertEqual(res.status, 200, `ingest answered ${res.text}`);
        // The 30 s refresh (no click: a wall display has no one at it): the group's tile fails.
        await p
          .waitForFunction(
            (id) =>
              document.querySelector(`[data-testid=group-row][data-group-id="${id}"]`)?.dataset.state === "failure",
            target.group.id,
            { timeout: 45000, polling: 250 },
          )
          .catch(async (e) => {
            const tiles = await p.$$eval("[data-testid=group-row]", (l) =>
              l.map((b) => `${b.dataset.groupId}:${b.dataset.state}:${b.textContent}`),
            );
            const recent = await apiRequest(server, "GET", "trs/v1/groups/recent?caseRunType=Manual", { token });
            throw new Error(
              `${e.message}\ntiles: ${tiles.join(" | ")}\nAPI: ${recent.text.slice(0, 800)}\ntarget ${JSON.stringify(target)}`,
            );
          });
      };
      const day = dateAt(zone);
      await failNow().catch(async (e) => {
        if (dateAt(zone) === day) throw e;
        before = await countNow();
        await failNow();
      });
      await p.waitForFunction(
        ({ id, before }) =>
          Number(document.querySelector(`[data-testid=group-row][data-group-id="${id}"]`)?.dataset.count) > before,
        { id: target.group.id, before },
        { timeout: 45000, polling: 250 },
      );
      assert(await p.evaluate(() => window.__lit), "the changed count lights up");
      const at1 = Number(await ago.getAttribute("data-at"));
      assert(at1 > at0, "the refresh moved 'refreshed … ago' on");
      const after = Number((await ago.textContent()).match(/\d+/)[0]);
      assert(after < 10, `refreshed a moment ago (${after} s)`);
      // Failures first among the tiles.
      const states = await p.$$eval("[data-testid=group-row]", (l) => l.map((e) => e.dataset.state));
      const rank = { failure: 0, warning: 1, pass: 2, maintenance: 3, none: 4 };
      assertEqual(
        states,
        [...states].sort((a, b) => rank[a] - rank[b]),
        "worst first among the tiles",
      );
      await screenshot(p, "wall-mode-after-run-desktop-en");
      await p.click("[data-testid=wall-toggle]");
      await p.waitForURL((u) => u.pathname === "/dashboard" && !u.search.includes("wall"));
      assert(!(await p.evaluate(() => document.documentElement.classList.contains("wall"))), "wall mode left");
      assertEqual(p.problems, [], "page problems");
    } finally {
      await closePage(p);
    }
  });

  await test("kiosk: allowed per user by an administrator, read-only on the server, not signed out when idle", async () => {
    const token = await apiToken(server, admin);
    const wallUser = { username: "e2e-wall@example.com", password: "e2e-Wall-pass-12" };
    const created = await apiRequest(server, "POST", "users", {
      token,
      body: {
        username: wallUser.username,
        firstName: "Wall",
        lastName: "Display",
        roles: ["ROLE_ADMIN"],
        accessType: "read-write",
        testCaseGroups: [],
        password: wallUser.password,
        kiosk: false,
      },
    });
    assertEqual(created.status, 200, `user created: ${created.text}`);
    const id = created.json.data.id;
    // Not allowed yet: the kiosk sign-in says why.
    let p = await newPage(browser, server, { viewport: "desktop" });
    try {
      await p.goto("/login?kiosk");
      await p.locator("#login-username").fill(wallUser.username);
      await p.locator("#login-password").fill(wallUser.password);
      await p.getByTestId("login-button").click();
      await p.getByTestId("kiosk-refused").waitFor();
      // The administrator allows it in the user's form.
      await signInFresh(p, admin);
      await p.goto(`/users/${id}`);
      await p.waitForFunction(() => document.querySelector("[data-testid=input-lastName]")?.value === "Display");
      await p.getByTestId("input-kiosk").check();
      await p.click("[data-testid=form-save]");
      await p.waitForURL(/\/settings\/admin-settings\/4/);
      const saved = await apiRequest(server, "GET", `users/${id}`, { token });
      assertEqual(saved.json.data.kiosk, true, "kiosk allowed");
    } finally {
      await closePage(p);
    }
    p = await newPage(browser, server, { viewport: "desktop" });
    try {
      await p.goto("/login?kiosk");
      await p.getByTestId("kiosk-notice").waitFor();
      assertEqual(await p.locator('input[name="remember"]:visible').count(), 0, "no Remember Me for a kiosk");
      await p.locator("#login-username").fill(wallUser.username);
      await p.locator("#login-password").fill(wallUser.password);
      await p.getByTestId("login-button").click();
      await p.waitForURL("**/dashboard?wall=1");
      const stored = await p.evaluate(() => JSON.parse(localStorage.getItem("user") ?? "null"));
      assertEqual(stored?.kiosk, true, "a kiosk session");
      // Read-only on the server, whatever the user's access type.
      const put = await p.evaluate(async (id) => {
        const r = await fetch(`/api/users/${id}`, {
          method: "PUT",
          headers: {
            Authorization: `Bearer ${localStorage.getItem("accessToken")}`,
            "Content-Type": "application/json",
          },
          body: JSON.stringify({
            username: "x@example.com",
            firstName: "x",
            lastName: "y",
            roles: ["ROLE_ADMIN"],
            accessType: "read-write",
          }),
        });
        return r.status;
      }, id);
      assertEqual(put, 403, "a kiosk session changes nothing");
      // Not signed out after 15 minutes and more without activity.
      await p.clock.fastForward(20 * 60 * 1000);
      await sleep(300);
      assert(p.url().includes("/dashboard"), `still on the dashboard (${p.url()})`);
      assert(await p.evaluate(() => localStorage.getItem("accessToken") !== null), "still signed in");
      await screenshot(p, "wall-kiosk-desktop-en");
    } finally {
      await closePage(p);
    }
  });

  await test("health modal of a restricted user: only the applications of their groups, and the IVR count says so", async () => {
    const token = await apiToken(server, admin);
    const groups = (await apiRequest(server, "GET", "trs/v1/groups", { token })).json.data
      .filter((g) => g.channel === "voice")
      .sort((a, b) => a.ivrCount - b.ivrCount);
    assert(groups.length >= 2, "two voice groups");
    const mine = groups.slice(0, 2);
    // The IVR applications behind the two groups, against all of them.
    const ivrsOf = async (g) =>
      (await apiRequest(server, "GET", `trs/v1/groups/${g.id}`, { token })).json.data.testCases.map((c) => c.ivrId);
    const myIvrs = new Set([...(await ivrsOf(mine[0])), ...(await ivrsOf(mine[1]))]);
    const allIvrs = (await apiRequest(server, "GET", "trs/v1/ivrs", { token })).json.data.filter(
      (i) => i.channel === "voice",
    );
    const user = { username: "e2e-two-groups@example.com", password: "violet tundra sparrow" };
    const r = await apiRequest(server, "POST", "users", {
      token,
      body: {
        username: user.username,
        firstName: "Two",
        lastName: "Groups",
        roles: ["ROLE_USER"],
        accessType: "read-only",
        testCaseGroups: mine.map((g) => ({ id: g.id })),
        password: user.password,
      },
    });
    assertEqual(r.status, 200, r.text);
    const userToken = await apiToken(server, user);
    const seen = (await apiRequest(server, "GET", "trs/v1/groups/health", { token: userToken })).json.data;
    const all = (await apiRequest(server, "GET", "trs/v1/groups/health", { token })).json.data;
    const endpoints = (h) =>
      (h.find((c) => c.channel === "voice")?.clientApps ?? []).map((a) => a.clientEndPoint).sort();
    const p = await newPage(browser, server, { viewport: "desktop" });
    try {
      await signIn(p, user);
      await waitReady(p);
      await p.locator("[data-testid=health-details]:visible").first().click();
      await p.waitForSelector("[data-testid=health-modal]");
      const shown = (await p.$$eval("[data-testid=health-endpoint]", (l) => l.map((e) => e.textContent.trim()))).sort();
      assertEqual(shown, endpoints(seen), "the modal lists the user's applications");
      if (myIvrs.size < allIvrs.length)
        assert(
          endpoints(seen).length < endpoints(all).length,
          `fewer applications than an administrator sees (${myIvrs.size} of ${allIvrs.length} IVRs)`,
        );
      // The IVR node's count is of the user's applications too.
      const enabled = (seen.find((c) => c.channel === "voice")?.clientApps ?? []).filter(
        (a) => a.appStatus.enabled,
      ).length;
      await p.keyboard.press("Escape");
      const badge = await p.$("[data-testid=ivr-failures]");
      if (badge)
        assert((await badge.textContent()).endsWith(`/${enabled}`), `IVR count of the user's ${enabled} applications`);
      await checkA11y(p, "restricted health modal");
      await screenshot(p, "wall-restricted-health-desktop-en");
    } finally {
      await closePage(p);
    }
  });

  // Wall mode for a room (a 1920x1080 TV, and a 4K one): everything on one screen without
  // scrolling, names and states of at least 24 px, maintenance in one line.
  for (const lang of ["en", "fr"]) {
    for (const size of [
      { width: 1920, height: 1080 },
      { width: 3840, height: 2160 },
    ]) {
      await test(`wall at ${size.width}x${size.height} (${lang}): no vertical scroll, names and states of 24 px or more, one maintenance line`, async () => {
        const p = await newPage(browser, server, { viewport: size });
        try {
          await p.goto("/");
          if (lang === "fr") await chooseLanguage(p, "fr");
          await signIn(p, admin);
          await p.goto("/dashboard?wall=1");
          await waitReady(p);
          await p.waitForSelector("[data-testid=dashboard][data-counts=in]", { timeout: 30000 });
          await sleep(500);
          await assertFits(p, `${size.width}x${size.height} ${lang}`);
          assert(
            (await p.locator("[data-testid=wall-maintenance]").count()) <= 1 &&
              (await p.locator("[data-testid=maintenance-banner], [data-testid=maintenance-left-out]").count()) === 0,
            "maintenance folded into one line",
          );
          await checkA11y(p, `wall ${size.width}x${size.height} (${lang})`);
          await screenshot(p, `wall-room-${size.width}x${size.height}-${lang}`);
          assertEqual(p.problems, [], "page problems");
        } finally {
          await closePage(p);
        }
      });
    }
  }

  for (const [i, lang] of ["en", "fr"].entries()) {
    await test(`wall alarm (${lang}): a group that starts failing turns the frame red and, started with sound, plays a tone`, async () => {
      const token = await apiToken(server, admin);
      const key = server.cli(["apikey", "add", "--name", `e2e-wall-alarm-${lang}`]).match(/cxw_[0-9a-f]+/)?.[0];
      assert(key, "an ingest API key");
      const caseId = ALARM_CASE + i;
      const alarmRun = (id, minutesAgo, status) => ({
        engineRunId: `e2e-wall-alarm-${lang}-${id}`,
        testCase: {
          id: caseId,
          name: `Wall alarm case ${lang}`,
          channel: "voice",
          ivr: { id: 8700, name: "Wall IVR" },
        },
        runTime: minutesBeforeNow(minutesAgo),
        runDuration: 20,
        status,
        runType: "Manual",
        segments: [],
      });
      // A pass outside the last 15 minutes: the group shows 'No runs' until its failure.
      await ingest(server, key, [alarmRun("pass", 40, "pass")]);
      const name = `Wall alarm ${lang}`;
      const g = await apiRequest(server, "POST", "trs/v1/groups", {
        token,
        body: { name, channel: "voice", testCases: [{ id: caseId }] },
      });
      assertEqual(g.status, 200, `group: ${g.text}`);
      const groupId = g.json.data.id;
      const p = await newPage(browser, server, { viewport: { width: 1920, height: 1080 } });
      try {
        await p.goto("/");
        if (lang === "fr") await chooseLanguage(p, "fr");
        await signIn(p, admin);
        // Started with sound: the click is the gesture that lets the page play it.
        await p.click("[data-testid=wall-sound-start]");
        await p.waitForURL("**/dashboard?wall=1&sound=1");
        await waitReady(p);
        await p.waitForSelector("[data-testid=dashboard][data-counts=in]", { timeout: 30000 });
        assertEqual(await p.getAttribute("[data-testid=wall-sound]", "aria-pressed"), "true", "sound on");
        assertEqual(await p.getAttribute("[data-testid=wall-frame]", "data-alarm"), "false", "no alarm yet");
        const tones0 = Number(await p.getAttribute("[data-testid=wall-frame]", "data-tones"));
        await sleep(300);
        await ingest(server, key, [alarmRun("fail", 0, "fail")]);
        // The next refresh (the live feed or the 30 s poll; nobody clicks a wall).
        await p.waitForFunction(
          () => document.querySelector("[data-testid=wall-frame]")?.dataset.alarm === "true",
          null,
          { timeout: 45000, polling: 250 },
        );
        const tile = p.locator(`[data-testid=group-row][data-group-id="${groupId}"]`);
        assertEqual(await tile.getAttribute("data-state"), "failure", "the group's tile fails");
        const alarm = await p.getByTestId("wall-alarm").textContent();
        assert(alarm.includes(ALARM_TEXT[lang]) && alarm.includes(name), `the alarm names the group: '${alarm}'`);
        const color = await p.$eval("[data-testid=wall-frame]", (e) => getComputedStyle(e).borderTopColor);
        assert(/^rgb\(2[0-9]{2}, /.test(color) || /^rgb\(1[7-9][0-9], /.test(color), `the frame is red (${color})`);
        const width = await p.$eval("[data-testid=wall-frame]", (e) => parseFloat(getComputedStyle(e).borderTopWidth));
        assert(width >= 8, `a frame a room sees (${width}px)`);
        const tones = Number(await p.getAttribute("[data-testid=wall-frame]", "data-tones"));
        assert(tones > tones0, `a tone played (${tones0} -> ${tones})`);
        await assertFits(p, `alarm ${lang}`);
        await screenshot(p, `wall-alarm-1920x1080-${lang}`);
        assertEqual(p.problems, [], "page problems");
      } finally {
        await closePage(p);
      }
    });
  }

  await test("wall pages: more groups than fit turn by page, with a page indicator, still without scrolling", async () => {
    const token = await apiToken(server, admin);
    for (let n = 1; n <= 40; n++) {
      const r = await apiRequest(server, "POST", "trs/v1/groups", {
        token,
        body: { name: `Wall page ${String(n).padStart(2, "0")}`, channel: "voice", testCases: [{ id: 1001 }] },
      });
      assertEqual(r.status, 200, `group ${n}: ${r.text}`);
    }
    const p = await newPage(browser, server, { viewport: { width: 1920, height: 1080 } });
    try {
      await signIn(p, admin);
      await p.goto("/dashboard?wall=1");
      await waitReady(p);
      await p.waitForSelector("[data-testid=wall-page]", { timeout: 30000 });
      const pages = Number(await p.getAttribute("[data-testid=wall-page]", "data-pages"));
      const perPage = Number(await p.getAttribute("[data-testid=wall-grid]", "data-per-page"));
      const total = (await apiRequest(server, "GET", "trs/v1/groups", { token })).json.data.length;
      assertEqual(pages, Math.ceil(total / perPage), `pages of ${perPage} for ${total} groups`);
      assertEqual(await p.getAttribute("[data-testid=wall-page]", "data-page"), "1", "first page");
      assert(/^Page 1 of \d+$/.test(await p.getByTestId("wall-page").textContent()), "the page indicator");
      const first = await p.$$eval("[data-testid=group-row]", (l) => l.map((e) => e.dataset.groupId));
      assertEqual(first.length, perPage, "a full first page");
      await assertFits(p, "page 1");
      await screenshot(p, "wall-pages-1-1920x1080-en");
      await p.clock.fastForward(15_000);
      await p.waitForFunction(() => document.querySelector("[data-testid=wall-page]")?.dataset.page === "2");
      const second = await p.$$eval("[data-testid=group-row]", (l) => l.map((e) => e.dataset.groupId));
      assert(second.length > 0 && second.every((id) => !first.includes(id)), "the second page shows other groups");
      await assertFits(p, "page 2");
      await screenshot(p, "wall-pages-2-1920x1080-en");
      assertEqual(p.problems, [], "page problems");
    } finally {
      await closePage(p);
    }
  });
}

const ALARM_CASE = 870001;
const ALARM_TEXT = { en: "Started failing", fr: "Commence à échouer" };

/**
 * The wall fits its screen: no vertical (or sideways) scrolling, every tile whole inside the
 * window, group names and states of 24 px or more.
 */
async function assertFits(p, what) {
  const m = await p.evaluate(() => {
    const tiles = [...document.querySelectorAll("[data-testid=group-row]")].map((e) => e.getBoundingClientRect());
    const fonts = [...document.querySelectorAll("[data-testid=group-name], [data-testid=wall-state]")].map((e) =>
      parseFloat(getComputedStyle(e).fontSize),
    );
    return {
      sh: document.scrollingElement.scrollHeight,
      sw: document.scrollingElement.scrollWidth,
      ih: innerHeight,
      iw: innerWidth,
      lowest: Math.max(0, ...tiles.map((r) => r.bottom)),
      tiles: tiles.length,
      smallest: Math.min(...fonts),
    };
  });
  assert(m.sh <= m.ih, `${what}: the page scrolls (${m.sh} > ${m.ih})`);
  assert(m.sw <= m.iw, `${what}: the page scrolls sideways (${m.sw} > ${m.iw})`);
  assert(m.tiles > 0, `${what}: tiles shown`);
  assert(m.lowest <= m.ih, `${what}: a tile is cut off at the bottom (${m.lowest} > ${m.ih})`);
  assert(m.smallest >= 24, `${what}: type of ${m.smallest}px`);
}

/** Signs out whoever is signed in on this page and signs `user` in. */
async function signInFresh(page, user) {
  await page.evaluate(() => localStorage.clear());
  await signIn(page, user);
}

/** What a test engine does: POSTs `runs` with its key (the server's certificate is self-signed). */
async function ingest(server, key, runs) {
  const r = await apiRequest(server, "POST", "ingest/v1/runs", { token: key, body: { runs } });
  assert(r.status === 200 && r.json?.data?.rejected?.length === 0, `ingest: ${r.text}`);
  return r.json.data;
}
