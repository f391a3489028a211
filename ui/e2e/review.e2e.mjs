// The operator review's smaller defects, in English and French, on a
// desktop and a phone: the side rail folds after a click; the phone menu keeps the focus and
// Escape gives it back; the language selector's focus is a ring; the latency segments table is
// a scroll region the keyboard reaches; the signed-out 404 has a main landmark and a way to
// sign in; the MOS chart has a legend; the trend's drill does not read 'All latencies';
// French seconds do not wrap before 's'; the volume reaches 1; 'Download CSV' keeps its
// distance; a phone's 15-minute strip says it scrolls and offers no Wall mode; a restricted
// user's footer has no Alert Settings; the error banner leaves the phone's top bar visible.
import {
  apiRequest,
  apiToken,
  assert,
  checkA11y,
  chooseLanguage,
  closePage,
  newPage,
  screenshot,
  signIn,
  waitForDemoData,
} from "./lib.mjs";

const TEXT = {
  en: { allLatencies: "All latencies", signIn: "Sign in" },
  fr: { allLatencies: "Toutes les latences", signIn: "Se connecter" },
};

async function reportOfType(server, token, type) {
  const r = await apiRequest(server, "GET", `reports?reportType=${type}&pageSize=100`, { token });
  return (r.json?.data?.content ?? r.json?.data ?? [])[0];
}

const box = (page, sel) =>
  page
    .locator(sel)
    .first()
    .evaluate((e) => e.getBoundingClientRect().toJSON());

export default async function review({ server, browser, users, test }) {
  const { admin, user } = users;
  await waitForDemoData(server, admin, { runsToday: false });
  const token = await apiToken(server, admin);

  for (const lang of ["en", "fr"]) {
    const T = TEXT[lang];

    await test(`review (${lang}, desktop): the side rail folds after a click, the pointer still on it`, async () => {
      const page = await newPage(browser, server, { viewport: "desktop" });
      try {
        await page.goto("/");
        await chooseLanguage(page, lang);
        await signIn(page, admin);
        const link = page.locator("[data-testid=nav-alerts]");
        const icon = await link.evaluate((e) => e.getBoundingClientRect().toJSON());
        // Over the icon (inside the folded rail too), then a click.
        await page.mouse.move(icon.x + 20, icon.y + icon.height / 2);
        await page.waitForSelector(".sidenav.expanded");
        await page.mouse.click(icon.x + 20, icon.y + icon.height / 2);
        await page.waitForURL(/\/alerts$/);
        await page.mouse.move(icon.x + 22, icon.y + icon.height / 2);
        await page.waitForSelector(".sidenav.collapsed", { timeout: 3000 });
        // Leaving and coming back expands it again.
        await page.mouse.move(700, 400, { steps: 5 });
        await page.mouse.move(icon.x + 20, icon.y + icon.height / 2, { steps: 5 });
        await page.waitForSelector(".sidenav.expanded");
        await page.mouse.move(700, 400);
        // The language selector's keyboard focus is a ring.
        await page.locator("[data-testid=language-select]").first().focus();
        await page.keyboard.press("Shift+Tab");
        await page.keyboard.press("Tab");
        const outline = await page
          .locator(".language-select")
          .first()
          .evaluate((e) => Number.parseFloat(getComputedStyle(e).outlineWidth));
        assert(outline >= 2, `the language selector's focus ring (${outline}px)`);
        assert(page.problems.length === 0, page.problems.join("\n"));
      } finally {
        await closePage(page);
      }
    });

    await test(`review (${lang}, phone): the menu keeps the focus, Escape gives it back; no Wall mode; the strip says it scrolls`, async () => {
      const page = await newPage(browser, server, { viewport: "phone" });
      try {
        await page.goto("/");
        await chooseLanguage(page, lang);
        await signIn(page, admin);
        await page.waitForSelector("[data-testid=status-strip] [data-testid=strip-badge]");
        assert((await page.locator("[data-testid=wall-toggle]").count()) === 0, "no Wall mode on a phone");
        const badges = await page.locator("[data-testid=strip-badge]").count();
        if (badges > 1) await page.locator("[data-testid=strip-hint]").waitFor();
        await screenshot(page, `review-dashboard-phone-${lang}`);
        const inside = () =>
          page.evaluate(() => document.querySelector("[data-testid=sidenav]").contains(document.activeElement));
        // Tab at once after the tap, as a quick keyboard user does (CI once pressed it before the
        // drawer had taken the focus and the Tab went to the page behind).
        await page.evaluate(() => document.querySelector("[data-testid=open-menu]").click());
        await page.keyboard.press("Tab");
        assert(await inside(), "a Tab straight after the tap stays in the menu");
        await page.waitForSelector("[data-testid=sidenav]:not([hidden])");
        // Tab through every control and beyond: the focus stays in the drawer.
        for (let i = 0; i < 15; i++) {
          await page.keyboard.press("Tab");
          assert(await inside(), `Tab ${i + 1} keeps the focus in the menu`);
        }
        await page.keyboard.press("Shift+Tab");
        assert(await inside(), "Shift+Tab keeps the focus in the menu");
        await page.keyboard.press("Escape");
        await page.waitForSelector("[data-testid=sidenav][hidden]", { state: "attached" });
        await page.waitForFunction(() => document.activeElement?.getAttribute("data-testid") === "open-menu");
        await checkA11y(page, `dashboard (phone, ${lang})`);
        assert(page.problems.length === 0, page.problems.join("\n"));
      } finally {
        await closePage(page);
      }
    });

    await test(`review (${lang}, 768 px): the group names are whole`, async () => {
      const page = await newPage(browser, server, { viewport: { width: 768, height: 1024 } });
      try {
        await page.goto("/");
        await chooseLanguage(page, lang);
        await signIn(page, admin);
        await page.waitForSelector("[data-testid=group-row] .group-name");
        const cut = await page.$$eval("[data-testid=group-row] .group-name", (l) =>
          l.filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.textContent),
        );
        assert(cut.length === 0, `no group name is cut (${cut})`);
        await screenshot(page, `review-dashboard-768-${lang}`);
        // An alert's runs: the actions column is in view.
        const events = await apiRequest(server, "GET", "alerts/events?pageNo=0&pageSize=1", { token });
        const alertId = events.json?.data?.content?.[0]?.alertId;
        if (alertId) {
          await page.goto(`/alert/${alertId}`);
          const actions = page.locator("[data-testid=alert-runs] td.col-actions").first();
          await actions.waitFor();
          const r = await actions.evaluate((e) => e.getBoundingClientRect().right);
          assert(r <= 768, `the actions column is on screen (${r})`);
          await screenshot(page, `review-alert-768-${lang}`);
        }
      } finally {
        await closePage(page);
      }
    });

    await test(`review (${lang}, phone): a restricted user's footer offers no Alert Settings`, async () => {
      const page = await newPage(browser, server, { viewport: "phone" });
      try {
        await page.goto("/");
        await chooseLanguage(page, lang);
        await signIn(page, user);
        await page.waitForSelector("[data-testid=mobile-footer]");
        const hrefs = await page.$$eval("[data-testid=mobile-footer] a", (l) => l.map((a) => a.getAttribute("href")));
        assert(!hrefs.some((h) => h.startsWith("/settings/")), `no settings in the footer (${hrefs})`);
        await page.click("[data-testid=open-menu]");
        const menu = await page.$$eval("[data-testid=sidenav] a", (l) => l.map((a) => a.getAttribute("href")));
        assert(!menu.some((h) => h.startsWith("/settings/")), "the drawer has none either");
      } finally {
        await closePage(page);
      }
    });

    await test(`review (${lang}, phone): the error banner leaves the top bar visible`, async () => {
      const page = await newPage(browser, server, { viewport: "phone" });
      try {
        await page.goto("/");
        await chooseLanguage(page, lang);
        await signIn(page, admin);
        // A failing list call: the console says so in a banner.
        await page.route("**/api/alerts/events**", (route) =>
          route.fulfill({ status: 500, contentType: "application/json", body: '{"code":"ERROR","messages":["boom"]}' }),
        );
        await page.goto("/alerts");
        await page.waitForSelector("[data-testid=banner-error]");
        const banner = await box(page, "[data-testid=banner-error]");
        const bar = await box(page, ".topbar");
        assert(banner.top >= bar.bottom, `the banner (${banner.top}) is under the top bar (${bar.bottom})`);
        await screenshot(page, `review-banner-phone-${lang}`);
      } finally {
        await closePage(page);
      }
    });

    await test(`review (${lang}): the signed-out 404 has a main landmark and a way to sign in`, async () => {
      const page = await newPage(browser, server, { viewport: "desktop" });
      try {
        await page.goto("/");
        await chooseLanguage(page, lang);
        await page.goto("/no/such/page");
        await page.waitForSelector("[data-testid=not-found]");
        assert((await page.locator("main [data-testid=not-found]").count()) === 1, "inside a main landmark");
        const link = page.locator("[data-testid=not-found-sign-in]");
        assert((await link.textContent()).includes(T.signIn), "a sign-in link");
        await checkA11y(page, `signed-out 404 (${lang})`);
        await link.click();
        await page.waitForSelector("#login-username");
      } finally {
        await closePage(page);
      }
    });

    await test(`review (${lang}): reports: MOS legend, trend drill wording, segments scroll region, CSV spacing, French seconds, volume`, async () => {
      const mos = await reportOfType(server, token, 7);
      const trend = await reportOfType(server, token, 2);
      const lat = await reportOfType(server, token, 6);
      assert(mos && trend && lat, "the demo's reports");
      const page = await newPage(browser, server, { viewport: "desktop" });
      try {
        await page.goto("/");
        await chooseLanguage(page, lang);
        await signIn(page, admin);
        // The MOS chart's legend.
        await page.goto(`/report/view/${mos.id}`);
        await page.waitForSelector("[data-testid=mos-legend] li");
        assert((await page.locator("[data-testid=mos-legend] li").count()) === 3, "average, minimum, maximum");
        // 'Download CSV' keeps its distance from the first card.
        const csv = await box(page, "[data-testid=download-csv]");
        const card = await box(page, ".report-card");
        assert(card.top - csv.bottom >= 8, `a gap under 'Download CSV' (${card.top - csv.bottom}px)`);
        // The trend's drill names runs, not latencies.
        await page.goto(`/report/view/${trend.id}`);
        const cell = page.locator("[data-testid=trend-table] a[data-testid^=trend-failure-]").first();
        await cell.waitFor();
        await cell.click();
        await page.waitForSelector("[data-testid=runs-what]");
        const what = await page.textContent("[data-testid=runs-what]");
        assert(!what.includes(T.allLatencies), `the trend drill does not read '${T.allLatencies}' (${what})`);
        // The latency segments table: a labelled scroll region in the tab order.
        await page.goto(`/report/view/${lat.id}`);
        const region = page.locator("[data-testid=latency-segments]").locator("xpath=..");
        await region.waitFor();
        assert((await region.getAttribute("tabindex")) === "0", "the segments' scroll region is reachable");
        assert(!!(await region.getAttribute("aria-label")), "and labelled");
        await checkA11y(page, `latency report (${lang})`);
        // Seconds keep their unit on the same line.
        const runs = await apiRequest(server, "GET", `reports/${mos.id}/testruns?pageSize=1`, { token });
        const runId = runs.json?.data?.content?.[0]?.runId;
        assert(runId, "a run");
        await page.goto(`/report/run/${runId}`);
        const duration = await page.textContent("[data-testid=run-duration]");
        assert(/\d\u00a0(s|sec)$/.test(duration.trim()), `no break before the unit (${JSON.stringify(duration)})`);
        // The volume slider's last step is full volume.
        const vol = page.locator("[data-testid=call-player] [data-testid=audio-volume]");
        await vol.focus();
        await page.keyboard.press("End");
        const volume = await page.locator("[data-testid=call-player] audio").evaluate((a) => a.volume);
        assert(volume === 1, `the volume reaches 1 (${volume})`);
        await screenshot(page, `review-run-${lang}`);
        assert(page.problems.length === 0, page.problems.join("\n"));
      } finally {
        await closePage(page);
      }
    });
  }
}
