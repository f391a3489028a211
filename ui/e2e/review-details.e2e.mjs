// Smaller defects of the operator review, on the demo site, in English and
// French, at 1440x900, 1024x768, 768x1024 and on a phone (390x844); axe on each state.
// - The health modal marks each component by its own status: an application whose claims
//   database failed shows that one component red and the others green (before, every component
//   took the application's red).
// - The segment performance chart labels every bar, each with its test case (before, frappe-charts
//   dropped the labels that did not fit, and a bar read 'Greeting' without saying whose); too
//   narrow for names, the bars are numbered and a key names each one.
// - At 1024 px the dashboard's group bars start within the first screen (before, a screen below).
import {
  apiRequest,
  apiToken,
  assert,
  assertEqual,
  checkA11y,
  chooseLanguage,
  closePage,
  newPage,
  screenshot,
  signIn,
  testNow,
  waitForDemoData,
} from "./lib.mjs";

const SIZES = {
  1440: { width: 1440, height: 900 },
  1024: { width: 1024, height: 768 },
  768: { width: 768, height: 1024 },
  390: { width: 390, height: 844 },
};
const LANGS = ["en", "fr"];
const ENDPOINT = "E2E-Health-IVR (+1 800 555 0177)";
const COMPONENTS = [
  ["CRM DB", "TRS_PASS", "pass"],
  ["Claims DB", "TRS_FAIL", "fail"],
  ["Policy DB", "TRS_PASS", "pass"],
];

async function signedIn(browser, server, user, lang, size) {
  const page = await newPage(browser, server, { viewport: SIZES[size] });
  await page.goto("/");
  await chooseLanguage(page, lang);
  await signIn(page, user);
  return page;
}

/** Boxes of the visible elements of `selector`, in document order. */
function boxes(page, selector) {
  return page.$$eval(selector, (els) =>
    els
      .filter((e) => e.offsetParent !== null && getComputedStyle(e).display !== "none")
      .map((e) => {
        const r = e.getBoundingClientRect();
        return { x: r.left, y: r.top, w: r.width, h: r.height, text: e.textContent.trim() };
      }),
  );
}

export default async function reviewDetails({ server, browser, users, test }) {
  const { admin } = users;
  await waitForDemoData(server, admin);
  const token = await apiToken(server, admin);

  // (a) One failed back end among three.
  await test("health (set-up): an engine reports an application whose claims database failed", async () => {
    const key = server.cli(["apikey", "add", "--name", "e2e-health-components"]).trim();
    const r = await apiRequest(server, "POST", "ingest/v1/health", {
      token: key,
      body: {
        clientApps: [
          {
            clientEndPoint: ENDPOINT,
            channel: "voice",
            lastRun: testNow().toISOString(),
            appStatus: { enabled: true, status: "TRS_FAIL" },
            telcoStatus: { enabled: true, status: "TRS_PASS" },
            agentStatus: { enabled: true, status: "TRS_PASS" },
            componentStatus: COMPONENTS.map(([name, status]) => ({ name, hasComponent: true, enabled: true, status })),
          },
        ],
      },
    });
    assertEqual(r.status, 200, `health (${r.text})`);
    const h = await apiRequest(server, "GET", "trs/v1/groups/health", { token });
    const app = h.json.data.flatMap((c) => c.clientApps).find((a) => a.clientEndPoint === ENDPOINT);
    assertEqual(
      app.componentStatus.map((c) => c.status),
      COMPONENTS.map(([, s]) => s),
      "each component's own status is kept",
    );
  });

  for (const lang of LANGS) {
    for (const size of [1440, 390]) {
      await test(`health (${lang}, ${size}): only the failed component is red`, async () => {
        const page = await signedIn(browser, server, admin, lang, size);
        try {
          // The application is a voice one (a phone may open on the digital channel).
          await page.getByTestId("channel-voice").first().click();
          await page.getByTestId("health-details").first().click();
          const modal = page.getByTestId("health-modal");
          await modal.waitFor();
          await screenshot(page, `review-health-${lang}-${size}`);
          const row = modal.locator("[data-testid=health-app]", { hasText: ENDPOINT });
          await row.waitFor();
          assertEqual(await row.getAttribute("data-failing"), "true", "the application is failing");
          const states = await row
            .locator(".health-components [data-state]")
            .evaluateAll((els) => els.map((e) => [e.getAttribute("aria-label"), e.dataset.state]));
          assertEqual(
            states.map(([, s]) => s),
            COMPONENTS.map(([, , s]) => s),
            `one red component (${JSON.stringify(states)})`,
          );
          assert(states[1][0].startsWith("Claims DB"), `the red one is the claims database (${states[1][0]})`);
          await row.scrollIntoViewIfNeeded();
          await screenshot(page, `review-health-${lang}-${size}`);
          await checkA11y(page, `health modal (${lang}, ${size})`, { include: "[data-testid=health-modal]" });
        } finally {
          await closePage(page);
        }
      });
    }
  }

  // (d) The group bars within the first screen at 1024 px (and at 1440, where they were).
  for (const lang of LANGS) {
    for (const size of [1024, 1440]) {
      await test(`dashboard (${lang}, ${size}): the first group's bars start within the first screen`, async () => {
        const page = await signedIn(browser, server, admin, lang, size);
        try {
          const chart = page.locator("[data-testid=group-row] [data-testid=group-chart]").first();
          await chart.waitFor();
          await page.waitForSelector("[data-testid=group-table][data-ready=true]");
          await screenshot(page, `review-dashboard-${lang}-${size}`);
          const box = await chart.boundingBox();
          const height = SIZES[size].height;
          assert(box, "the first group's chart");
          // The demo's clock may put a maintenance banner, its note or a 'failing now' ribbon
          // above: each takes its own room (and what it says comes first), so it is left out.
          const banners = await page.$$eval(
            ".dashboard > .maintenance-banner, .dashboard > .maintenance-note, .dashboard > .incident-ribbon",
            (els) =>
              els.reduce(
                (sum, e) =>
                  sum + e.getBoundingClientRect().height + parseFloat(getComputedStyle(e.parentElement).rowGap || "0"),
                0,
              ),
          );
          const top = box.y - banners;
          assert(
            top + box.height / 2 <= height,
            `the first group's bars are within the first ${height} px (top at ${Math.round(top)} without ${Math.round(banners)} px of banners, ${Math.round(box.height)} px tall)`,
          );
          await checkA11y(page, `dashboard (${lang}, ${size})`);
        } finally {
          await closePage(page);
        }
      });
    }
  }

  // (b) The dashboard's hour charts keep all 24 hour labels at 1440 and 768 px, none touching.
  for (const lang of LANGS) {
    for (const size of [1440, 768]) {
      await test(`dashboard (${lang}, ${size}): every hour labelled under each group's bars`, async () => {
        const page = await signedIn(browser, server, admin, lang, size);
        try {
          await page.waitForSelector("[data-testid=group-table][data-ready=true]");
          const chart = page.locator("[data-testid=group-row] [data-testid=group-chart]").first();
          await chart.scrollIntoViewIfNeeded();
          await page.waitForSelector("[data-testid=group-row] .cx-mini-x text");
          const labels = await chart.evaluate((c) =>
            [...c.querySelectorAll(".cx-mini-x text")].map((t) => {
              const r = t.getBoundingClientRect();
              return {
                text: t.textContent,
                shown: getComputedStyle(t).display !== "none" && r.width > 0,
                l: r.left,
                r: r.right,
              };
            }),
          );
          assertEqual(labels.length, 24, "24 hour labels");
          const hidden = labels.filter((x) => !x.shown).map((x) => x.text);
          assertEqual(hidden, [], "no hour label left out");
          for (let i = 1; i < labels.length; i++)
            assert(labels[i].l >= labels[i - 1].r, `'${labels[i - 1].text}' and '${labels[i].text}' do not touch`);
          await screenshot(page, `review-dashboard-hours-${lang}-${size}`);
        } finally {
          await closePage(page);
        }
      });
    }
  }

  // (b, c) Every bar of the segment performance chart labelled, with its test case.
  const reports = (await apiRequest(server, "GET", "reports?pageSize=100", { token })).json.data.content;
  const segment = reports.find((r) => r.reportTypeID === 5);
  for (const lang of LANGS) {
    for (const size of [1440, 1024, 768, 390]) {
      await test(`segment chart (${lang}, ${size}): every bar labelled with its segment and test case`, async () => {
        assert(segment, "a demo segment performance report");
        const page = await signedIn(browser, server, admin, lang, size);
        try {
          await page.goto(`${server.url}/report/view/${segment.id}`);
          const names = page.getByTestId("chart-bar-names");
          await names.waitFor();
          // The table's rows: test case, then segment; the chart shows the first ten.
          const rows = await page
            .locator("[data-testid=entity-table] tbody tr")
            .evaluateAll((trs) => trs.map((tr) => [tr.cells[0].textContent.trim(), tr.cells[1].textContent.trim()]));
          const shown = rows.slice(0, 10);
          assert(shown.length > 1, "bars to label");
          // The chart classes load with the first chart: its bars follow the names.
          const bar = page.locator(".cx-chart .dataset-0 rect, .cx-chart .dataset-1 rect, .cx-chart .dataset-2 rect");
          await bar.first().waitFor({ state: "attached" });
          assert((await bar.count()) > 0, "the chart is drawn");
          const titles = await page.getByTestId("chart-bar-label").evaluateAll((ls) => ls.map((l) => l.title));
          assertEqual(
            titles,
            shown.map(([tc, seg]) => `${seg} · ${tc}`),
            "one label per bar, each segment with its test case",
          );
          const named = await boxes(page, "[data-testid=chart-bar-label] .cx-bar-name");
          if (named.length) {
            // Names under the bars: every one shown, with its test case, none touching the next.
            assertEqual(named.length, shown.length, "every bar's name is shown");
            const details = await boxes(page, "[data-testid=chart-bar-label] .cx-bar-detail");
            assertEqual(details.length, shown.length, "every bar's test case is shown");
            for (let i = 0; i < named.length; i++) {
              assert(named[i].w > 0 && named[i].h > 0 && named[i].text.length > 0, `label ${i} has room`);
              if (i > 0) assert(named[i].x >= named[i - 1].x + named[i - 1].w - 0.5, `labels ${i - 1} and ${i} apart`);
            }
          } else {
            // Too narrow for names: numbered bars and a key naming each.
            const nums = await boxes(page, "[data-testid=chart-bar-label] .cx-bar-num");
            assertEqual(
              nums.map((n) => n.text),
              shown.map((_, i) => String(i + 1)),
              "numbered bars",
            );
            const key = await page.locator("[data-testid=chart-bar-key] li").allInnerTexts();
            assertEqual(
              key.map((k) => k.trim()),
              shown.map(([tc, seg]) => `${seg} · ${tc}`),
              "the key names each bar with its test case",
            );
          }
          await names.scrollIntoViewIfNeeded();
          await screenshot(page, `review-segment-chart-${lang}-${size}`);
          await checkA11y(page, `segment report (${lang}, ${size})`);
          assertEqual(page.problems, [], "page problems");
        } finally {
          await closePage(page);
        }
      });
    }
  }
}
