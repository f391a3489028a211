// The French sweep: signs in on the demo in French and visits every route of the route table
// (app/routes.tsx) with real ids found by following the console's own links, with its dialogs
// open, on a desktop and a phone; on each screen it collects the visible text, the tab's title
// and the titles, accessible names, placeholders and alternative texts, and counts what is still
// English:
// - a text that is one of the English catalog's messages (placeholders standing for anything)
//   whose French differs (words the same in both languages, 'Site', 'Jira', 'SMS', do not count);
// - a text holding a word only English has ('the', 'of', 'failed', ...);
// - a code shown as it is (`sign_in`): a label the console has no words for;
// - a number with a decimal point (French writes the decimal comma), CSV excepted (it is a file);
// - a tab titled 'cxwatch' alone (every tab names its page).
// Text from data is not a label: every string value the API answered on that page (a test case's
// name, a group's, a user's, an expected prompt) is left out by its source, except the fields the
// server words itself in English (`reason`, `messages`, a status), which the console must show
// from their codes. It prints the count and every string with where it was, and fails on any.
import path from "node:path";
import { dataStrings, englishIn, englishPatterns, readPo, routePatterns, routeRe } from "./english.mjs";
import {
  apiRequest,
  apiToken,
  assert,
  chooseLanguage,
  closePage,
  newPage,
  screenshot,
  signIn,
  sleep,
  UI_DIR,
  waitFor,
  waitForDemoData,
} from "./lib.mjs";

// ---------------------------------------------------------------- in the page

/** The page's visible texts and named attributes, with where each is. */
function collect() {
  const out = [];
  const where = (el) => {
    const t = el.closest("[data-testid]");
    return `${el.tagName.toLowerCase()}${t ? ` in [${t.getAttribute("data-testid")}]` : ""}`;
  };
  const visible = (el) => {
    if (el.closest("select")) return el.closest("select").checkVisibility();
    const svgTitle = el.closest("svg title, svg desc");
    if (svgTitle) return svgTitle.parentElement?.checkVisibility?.() ?? false;
    return el.checkVisibility ? el.checkVisibility() : true;
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || el.closest("script, style, noscript, template, [data-sweep-skip]")) continue;
    const text = (n.textContent ?? "").replace(/\s+/g, " ").trim();
    if (!text || !visible(el)) continue;
    out.push({ text, where: where(el), machine: !!el.closest(".audit-change, code, pre, kbd") });
  }
  for (const el of document.querySelectorAll("[title], [aria-label], [placeholder], [alt], [aria-roledescription]")) {
    if (!visible(el) && !el.closest("dialog[open]")) continue;
    for (const a of ["title", "aria-label", "placeholder", "alt", "aria-roledescription"]) {
      const v = el.getAttribute(a)?.replace(/\s+/g, " ").trim();
      if (v) out.push({ text: v, where: `${where(el)} @${a}` });
    }
  }
  out.push({ text: document.title, where: "tab title" });
  return out;
}

// ---------------------------------------------------------------- the walk

/** The screens this change touched, photographed in French for a look. */
const SHOTS = {
  "/alert/:id": "alert",
  "/settings/site": "site",
  "/report/view/:id": "report",
  "/dashboard": "dashboard",
};

/** Waits until the screen has loaded what it asked for (no 'Please wait', nothing busy). */
async function settle(page) {
  await page
    .waitForFunction(
      () =>
        !document.querySelector("[data-testid=table-loading], [aria-busy=true], .loading-overlay.visible") &&
        document.querySelector("main, .login-page, [data-testid=not-found]"),
      null,
      { timeout: 15000 },
    )
    .catch(() => {});
  await sleep(700);
}

export default async function sweep({ server, browser, users, test }) {
  const en = readPo(path.join(UI_DIR, "src/locales/en/messages.po"));
  const fr = readPo(path.join(UI_DIR, "src/locales/fr/messages.po"));
  const patterns = englishPatterns(en, fr);
  const routes = routePatterns(UI_DIR);
  const { admin } = users;
  await waitForDemoData(server, admin, { runsToday: false });

  // Screens not reached by a link: the forms of new items, the signed-out pages.
  const token = await apiToken(server, admin);
  const seeds = ["/dashboard", "/reports", "/report/add", "/alerts", "/settings/alert-settings/1"];
  seeds.push("/settings/test-case-group/2", "/settings/distribution-list/3", "/settings/admin-settings/4");
  seeds.push("/settings/maintenance", "/settings/maintenance/0", "/settings/site", "/report/distribution/0");
  seeds.push("/report/setting/0", "/no-such-page");
  // An alert of the demo (the Card Services outage: its events come with the history).
  const alertId = await waitFor(
    "an alert event of the demo",
    async () =>
      /"alertId":(\d+)/.exec((await apiRequest(server, "GET", "alerts/events?pageSize=50", { token })).text)?.[1],
    600000,
  );
  seeds.push(`/alert/${alertId}`);

  // What to open on a screen (first match of its route): dialogs, menus, a form's errors.
  const extras = {
    "/dashboard": [
      ["a group's chart", (p) => p.locator("[data-testid=group-chart]").first().click()],
      ["the components' health", (p) => p.locator("[data-testid=health-details]").first().click()],
      ["wall mode", (p) => p.goto("/dashboard?wall=1")],
    ],
    "/reports": [["the report filter", (p) => p.click("[data-testid=open-filter]")]],
    "/report/edit/:id": [["the report's schedule", (p) => p.click("[data-testid=open-schedule]")]],
    "/settings/test-case-group/:id": [["a new group", (p) => p.click("[data-testid=new-group]")]],
    "/settings/site": [["a channel's test", (p) => p.locator("[data-testid=channel-test]").first().click()]],
    "/report/distribution/:id": [
      [
        "the form's errors",
        async (p) => {
          await p.click("[data-testid=add-contact]");
          await p.click("[data-testid=distribution-form] [data-testid=form-save]");
        },
      ],
    ],
    "/report/setting/:id": [
      [
        "the form's errors",
        (p) => p.click("[data-testid=alert-setting-form] form > .form-actions [data-testid=form-save]"),
      ],
    ],
    "/settings/maintenance/:id": [["the form's errors", (p) => p.click("[data-testid=form-save]")]],
  };

  const found = new Map(); // text → { why, where: Set }
  const visitedRoutes = new Set();
  const routeOf = (p) => routes.find((r) => routeRe(r).test(p));

  const record = (items, screen, data) => {
    for (const { text, where, machine } of items) {
      let why = null;
      if (where === "tab title") {
        if (text === "cxwatch") why = "a tab titled 'cxwatch' alone";
        else why = englishIn(text.replace(/\s+–\s+cxwatch$/, ""), { patterns, data });
      } else if (!machine) {
        // The audit log's changed values are the stored values as they are (column names,
        // JSON), like code: not labels.
        why = englishIn(text, { patterns, data });
      }
      if (!why) continue;
      const f = found.get(text) ?? { why, where: new Set() };
      f.where.add(`${screen} (${where})`);
      found.set(text, f);
    }
  };

  for (const viewport of ["desktop", "phone"]) {
    await test(`French sweep (${viewport}): every route, its dialogs, signed out and in`, async () => {
      const page = await newPage(browser, server, { viewport, locale: "fr-FR" });
      // Data: every string the API answered in this session (a screen may show what an earlier
      // one fetched, from the query cache).
      const data = new Set();
      page.on("response", async (r) => {
        if (!r.url().includes("/api/") || !(r.headers()["content-type"] ?? "").includes("json")) return;
        try {
          dataStrings(await r.json(), data, r.url());
        } catch {
          // not JSON after all, or gone
        }
      });
      const snapshot = async (screen) => {
        data.sorted = [...data].sort((a, b) => b.length - a.length);
        record(await page.evaluate(collect), screen, data);
      };
      try {
        // Signed out: the sign-in page, a failed sign-in, the one-time link's page, a 404.
        await page.goto("/");
        await chooseLanguage(page, "fr");
        await settle(page);
        await snapshot(`/ ${viewport}`);
        await page.locator("#login-username").fill("nobody@example.com");
        await page.locator("#login-password").fill("not-the-password");
        await page.getByTestId("login-button").click();
        await page
          .getByTestId("login-error")
          .waitFor({ timeout: 10000 })
          .catch(() => {});
        await snapshot(`/ failed sign-in ${viewport}`);
        for (const p of ["/login", "/callback?id=nothing", "/no-such-page"]) {
          await page.goto(p);
          await settle(page);
          await snapshot(`${p} signed out ${viewport}`);
        }
        visitedRoutes.add("/").add("/login").add("/callback");

        await signIn(page, admin);
        await page.waitForFunction(() => document.documentElement.lang === "fr");
        const queue = [...seeds];
        const seen = new Set();
        const perRoute = new Map();
        while (queue.length) {
          const href = queue.shift();
          const route = routeOf(href.split("?")[0]) ?? "(no route)";
          // One address per route, but every report (each type shows other links onward).
          const most = route === "/report/view/:id" ? 20 : 1;
          if (seen.has(href) || (perRoute.get(route) ?? 0) >= most) continue;
          seen.add(href);
          perRoute.set(route, (perRoute.get(route) ?? 0) + 1);
          visitedRoutes.add(route);
          await page.goto(href);
          await settle(page);
          if (viewport === "phone") {
            // The phone's cards: open the first so its fields show.
            await page
              .locator("[data-testid=table-row] .accordion-toggle")
              .first()
              .click({ timeout: 1000 })
              .catch(() => {});
          }
          await snapshot(`${href} ${viewport}`);
          if (SHOTS[route] && !perRoute.get(`shot ${route}`)) {
            perRoute.set(`shot ${route}`, 1);
            await screenshot(page, `sweep-fr-${SHOTS[route]}-${viewport}`, { fullPage: true });
          }
          // The links onward: one address per route is enough (real ids, the console's own).
          const links = await page.$$eval("a[href^='/']", (as) => as.map((a) => a.getAttribute("href")));
          for (const l of links) if (l && !seen.has(l)) queue.push(l);
          // The addresses the screens lead to only sometimes: a report by test case, a
          // setting's auto tickets.
          for (const l of links) {
            const view = /^\/report\/view\/(\d+)$/.exec(l ?? "");
            if (view) queue.push(`/report/view/testcase/${view[1]}`);
            const setting = /^\/report\/setting\/(\d+)$/.exec(l ?? "");
            if (setting && setting[1] !== "0") queue.push(`/report/setting/autojiratickets/${setting[1]}`);
          }
          for (const [what, open] of extras[route] ?? []) {
            try {
              await open(page);
              await sleep(900);
              await snapshot(`${href} with ${what} ${viewport}`);
            } catch (e) {
              console.log(`       (could not open ${what} on ${href}: ${String(e.message).split("\n")[0]})`);
            }
            await page.keyboard.press("Escape").catch(() => {});
            await page.goto(href);
            await settle(page);
          }
          if (viewport === "phone" && href === "/dashboard") {
            await page.click("[data-testid=open-menu]").catch(() => {});
            await sleep(500);
            await snapshot(`the menu ${viewport}`);
          }
        }
      } finally {
        await closePage(page);
      }
    });
  }

  await test("French sweep: every route was visited, and no English is left", async () => {
    const missed = routes.filter((r) => !visitedRoutes.has(r));
    const lines = [...found].map(
      ([text, f]) => `  «${text}» — ${f.why}\n      at ${[...f.where].slice(0, 3).join("; ")}`,
    );
    console.log(`\n  English strings left on French screens: ${found.size}`);
    if (lines.length) console.log(lines.join("\n"));
    console.log(`  routes visited: ${routes.length - missed.length} of ${routes.length}`);
    assert(!missed.length, `routes not visited: ${missed.join(", ")}`);
    assert(found.size === 0, `${found.size} English string(s) left on French screens (listed above)`);
  });
}
