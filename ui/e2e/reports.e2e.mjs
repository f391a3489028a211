// Reports: create a report of each type, view it, follow its drill-downs (the drill
// route, the latency and MOS run lists, then a run's detail route), edit it, export its CSV,
// filter and page the list, delete one report and then several. English and French, desktop
// and phone. The drill table and the run detail show what the links ask for.
import {
  apiRequest,
  apiToken,
  assert,
  assertEqual,
  chooseLanguage,
  closePage,
  newPage,
  screenshot,
  signIn,
  waitForDemoData,
  waitForDemoHistory,
} from "./lib.mjs";

const CASES = [
  { lang: "en", viewport: "desktop" },
  { lang: "fr", viewport: "desktop" },
  { lang: "en", viewport: "phone" },
  { lang: "fr", viewport: "phone" },
];

const TEXT = {
  en: {
    created: "New Report successfully created",
    edited: "Edit Report successfully.",
    name: "Please enter a name",
    type: "Please select type",
    group: "Please select group",
    warn: "Please select threshold warning",
    reportId: "Report ID",
    deleteSelected: "Delete Selected",
  },
  fr: {
    created: "Nouveau rapport créé avec succès",
    edited: "Rapport modifié avec succès.",
    name: "Veuillez saisir un nom",
    type: "Veuillez choisir un type",
    group: "Veuillez choisir un groupe",
    warn: "Veuillez choisir le seuil d’avertissement",
    reportId: "ID du rapport",
    deleteSelected: "Supprimer la sélection",
  },
};

const TYPES = [
  { id: 2, view: "trend" },
  { id: 5, view: "segment" },
  { id: 6, view: "latency" },
  { id: 7, view: "mos" },
  { id: 1, view: "testcase" },
];

const BANKING = "Banking - Core Journeys";

async function reportsNamed(server, token, search) {
  const r = await apiRequest(server, "GET", `reports?pageSize=100&search=${encodeURIComponent(search)}`, { token });
  return r.json?.data?.content ?? [];
}

/** A row action; on a phone the row opens first. */
async function rowAction(page, viewport, id, action) {
  const row = page.locator(`[data-testid=table-row][data-row-id="${id}"]`);
  if (viewport === "phone") await row.locator(".accordion-toggle").click();
  await row.locator(`[data-testid=${action}]`).click();
}

async function searchFor(page, text, count) {
  await page.fill("[data-testid=search-box]", text);
  await page.waitForFunction((n) => document.querySelectorAll("[data-testid=table-row]").length === n, count, {
    timeout: 15000,
  });
}

export default async function reports({ server, browser, users: accounts, test }) {
  const { admin, user } = accounts;
  const { groups } = await waitForDemoData(server, admin);
  // The reports read up to 30 days back: the whole history, not only today's runs.
  await waitForDemoHistory(server);
  const token = await apiToken(server, admin);
  const banking = groups.find((g) => g.name === BANKING);

  await test("reports: the demo has a saved report of every type", async () => {
    const r = await apiRequest(server, "GET", "reports?pageSize=100", { token });
    const types = new Set((r.json?.data?.content ?? []).map((x) => x.reportTypeID));
    for (const t of TYPES) assert(types.has(t.id), `a demo report of type ${t.id} (${[...types]})`);
  });

  for (const { lang, viewport } of CASES) {
    const tag = `${lang}-${viewport}`;
    const T = TEXT[lang];
    const prefix = `e2e ${tag}`;

    await test(`reports (${viewport}, ${lang}): create one of each type, view, drill, edit, export`, async () => {
      const page = await newPage(browser, server, { viewport });
      try {
        await page.goto("/");
        await chooseLanguage(page, lang);
        await signIn(page, admin);
        await page.goto(`${server.url}/reports`);
        await page.waitForSelector("[data-testid=reports-table] [data-testid=table-row]");
        await screenshot(page, `reports-list-${tag}`);

        // The form's checks, in the spec's order and words.
        await page.click("[data-testid=add-report]");
        await page.waitForSelector("[data-testid=report-edit]");
        await page.click("[data-testid=form-save]");
        await page.waitForSelector("[data-testid=error-report-name]");
        assertEqual(await page.textContent("[data-testid=error-report-name]"), T.name, "name message");
        assertEqual(await page.textContent("[data-testid=error-report-reportTypeID]"), T.type, "type message");
        assertEqual(await page.textContent("[data-testid=error-report-testCaseGroupID]"), T.group, "group message");
        await screenshot(page, `report-form-errors-${tag}`);

        for (const ty of TYPES) {
          const name = `${prefix} type ${ty.id}`;
          await page.goto(`${server.url}/report/add`);
          await page.waitForSelector("[data-testid=report-edit]");
          await page.fill("[data-testid=report-name]", name);
          await page.selectOption("[data-testid=report-group]", String(banking.id));
          await page.waitForSelector(`[data-testid=report-type] option[value="${ty.id}"]`, { state: "attached" });
          await page.selectOption("[data-testid=report-type]", String(ty.id));
          await page.selectOption("[data-testid=report-runtype]", "Schedule");
          if (ty.id === 6) {
            await page.click("[data-testid=form-save]");
            await page.waitForSelector("[data-testid=error-report-latencyWarn]");
            assertEqual(await page.textContent("[data-testid=error-report-latencyWarn]"), T.warn, "threshold message");
            await page.selectOption("[data-testid=report-warn]", "1000");
            await page.selectOption("[data-testid=report-fail]", "2000");
          }
          if (ty.id === 2) await screenshot(page, `report-form-${tag}`);
          await page.click("[data-testid=form-save]");
          await page.waitForURL(/\/reports(\?|$)/);
          await page.waitForSelector(`[data-testid=banner-success]:has-text("${T.created}")`);
          const [made] = await reportsNamed(server, token, name);
          assert(made && made.reportTypeID === ty.id, `report ${name} saved (${JSON.stringify(made)})`);
          assertEqual(made.latencyWarn, ty.id === 6 ? 1000 : 0, "warning threshold");

          // View: a full page load from the list's view action.
          await searchFor(page, name.toLowerCase(), 1);
          await rowAction(page, viewport, made.id, "view-report");
          await page.waitForURL(new RegExp(`/report/view/${made.id}$`));
          await page.waitForSelector(`[data-testid=report-view-${ty.view}]`);
          await page.waitForTimeout(300);
          await screenshot(page, `report-view-${ty.view}-${tag}`, { fullPage: viewport === "desktop" });

          if (ty.view === "segment" || ty.view === "testcase") {
            const link = page.locator("[data-testid=entity-table] [data-testid=drill-total]").first();
            await link.click();
            const want =
              ty.view === "segment"
                ? new RegExp(`/report/drill/\\d+/total/\\d{4}-\\d\\d-\\d\\d/\\d{4}-\\d\\d-\\d\\d/${made.id}$`)
                : /\/report\/drill\/\d+\/total\/\d{4}-\d\d-\d\d\/\d{4}-\d\d-\d\d$/;
            await page.waitForURL(want);
            // The drill table lists the runs behind the number.
            await page.waitForSelector("[data-testid=drill] [data-testid=table-row]");
          }
          if (ty.view === "trend") {
            await page.locator("[data-testid=trend-table] a[data-testid^=trend-success-]").first().click();
            await page.waitForURL(new RegExp(`/report/latency/\\d+/-1/${made.id}/success/\\d{4}-\\d\\d-\\d\\d$`));
            await page.waitForSelector("[data-testid=runs-table] [data-testid=table-row]");
          }
          if (ty.view === "latency") {
            await page.locator("[data-testid=heat-map] tbody a").first().click();
            await page.waitForURL(new RegExp(`/report/latency/\\d+/\\d+/${made.id}$`));
            await page.waitForSelector("[data-testid=runs-table] [data-testid=table-row]");
            await screenshot(page, `report-latency-runs-${tag}`);
            const row = page.locator("[data-testid=runs-table] [data-testid=table-row]").first();
            if (viewport === "phone") await row.locator(".accordion-toggle").click();
            const href = await row.locator("[data-testid=run-link]").getAttribute("href");
            await row.locator("[data-testid=run-link]").click();
            await page.waitForURL(/\/report\/run\/\d+$/);
            assert(/^\/report\/run\/\d+$/.test(href ?? ""), `run link ${href}`);
            await page.waitForSelector("[data-testid=run-detail]");
          }
          if (ty.view === "mos") {
            await page.locator("[data-testid=mos-table] a[data-testid^=mos-avg-]").first().click();
            await page.waitForURL(new RegExp(`/report/mos/${made.id}/\\d\\.\\d/\\d+/\\d{4}-\\d\\d-\\d\\d$`));
            await page.waitForSelector("[data-testid=runs-table] [data-testid=table-row]");
            await screenshot(page, `report-mos-runs-${tag}`);
          }

          // Export from the view.
          if (ty.view === "mos" || ty.view === "segment") {
            await page.goto(`${server.url}/report/view/${made.id}`);
            await page.waitForSelector(`[data-testid=report-view-${ty.view}]`);
            const [download] = await Promise.all([
              page.waitForEvent("download"),
              page.click("[data-testid=download-csv]"),
            ]);
            assert(
              new RegExp(`^report-${made.id}-e2e-.*\\.csv$`).test(download.suggestedFilename()),
              `CSV file name ${download.suggestedFilename()}`,
            );
            const text = await new Promise((resolve, reject) => {
              download
                .createReadStream()
                .then((s) => {
                  let body = "";
                  s.setEncoding("utf8");
                  s.on("data", (c) => (body += c));
                  s.on("end", () => resolve(body));
                })
                .catch(reject);
            });
            assert(text.startsWith("\ufeffDate,Hour,Hour start,"), "CSV with a BOM and the header");
          }
          await page.goto(`${server.url}/reports`);
        }

        // Edit the trend report: 'Report ID' shows, the name changes.
        const [trend] = await reportsNamed(server, token, `${prefix} type 2`);
        await page.goto(`${server.url}/reports`);
        await searchFor(page, `${prefix} type 2`.toLowerCase(), 1);
        await rowAction(page, viewport, trend.id, "edit-report");
        await page.waitForURL(new RegExp(`/report/edit/${trend.id}$`));
        await page.waitForSelector("[data-testid=report-id]");
        assert((await page.textContent("[data-testid=report-id]")).includes(T.reportId), "Report ID shows");
        await page.waitForFunction(() => document.querySelector("[data-testid=report-name]")?.value !== "");
        await page.fill("[data-testid=report-name]", `${prefix} type 2 renamed`);
        await screenshot(page, `report-edit-${tag}`);
        await page.click("[data-testid=form-save]");
        await page.waitForSelector(`[data-testid=banner-success]:has-text("${T.edited}")`);
        const again = await apiRequest(server, "GET", `reports/${trend.id}`, { token });
        assertEqual(again.json?.data?.name, `${prefix} type 2 renamed`, "renamed");

        // Download from the list.
        await searchFor(page, `${prefix} type 2 renamed`.toLowerCase(), 1);
        const [download] = await Promise.all([
          page.waitForEvent("download"),
          rowAction(page, viewport, trend.id, "download-report"),
        ]);
        assert(download.suggestedFilename().endsWith(".csv"), `CSV ${download.suggestedFilename()}`);
        assert(page.problems.length === 0, page.problems.join("\n"));
      } finally {
        await closePage(page);
      }
    });

    await test(`reports (${viewport}, ${lang}): filter and page the list, delete one, then several`, async () => {
      const page = await newPage(browser, server, { viewport });
      try {
        await page.goto("/");
        await chooseLanguage(page, lang);
        await signIn(page, admin);
        // Filter: latency reports only.
        await page.goto(`${server.url}/reports`);
        await page.waitForSelector("[data-testid=reports-table] [data-testid=table-row]");
        await page.click("[data-testid=open-filter]");
        await page.waitForSelector("[data-testid=report-filter]");
        await page.click("[data-testid=filter-type] button");
        await page.locator("[data-testid=filter-type] input[type=checkbox]").nth(2).check();
        await screenshot(page, `report-filter-${tag}`);
        await page.click("[data-testid=filter-apply]");
        await page.waitForURL(/type=6/);
        const latency = await apiRequest(server, "GET", "reports?reportType=6&pageSize=100", { token });
        await page.waitForFunction(
          (n) => document.querySelectorAll("[data-testid=table-row]").length === Math.min(n, 10),
          latency.json.data.totalElements,
        );
        // Page: 10 a page, the second page shows the rest.
        await page.goto(`${server.url}/reports?size=10&page=2`);
        const all = await apiRequest(server, "GET", "reports?pageSize=1", { token });
        const total = all.json.data.totalElements;
        assert(total > 10, `more than one page of reports (${total})`);
        await page.waitForFunction(
          (n) => document.querySelectorAll("[data-testid=table-row]").length === n,
          Math.min(10, total - 10),
        );
        assert((await page.textContent("[data-testid=pager-range]")).includes(`${total}`), "range text");

        // Delete one with its row action, then the others of this case with Delete Selected.
        const mine = await reportsNamed(server, token, prefix);
        assert(mine.length === 5, `five reports of ${prefix} (${mine.length})`);
        await page.goto(`${server.url}/reports`);
        await searchFor(page, prefix.toLowerCase(), 5);
        await rowAction(page, viewport, mine[0].id, "delete-report");
        await page.waitForSelector("[data-testid=confirm-dialog]");
        await page.click("[data-testid=confirm-delete]");
        await page.waitForSelector(`[data-testid=table-row][data-row-id="${mine[0].id}"]`, { state: "detached" });
        for (const r of mine.slice(1)) {
          await page.click(`[data-testid=table-row][data-row-id="${r.id}"] [data-testid=row-select]`);
        }
        await page.getByText(T.deleteSelected).click();
        await page.waitForSelector("[data-testid=confirm-dialog]");
        await screenshot(page, `report-confirm-${tag}`);
        await page.click("[data-testid=confirm-delete]");
        await page.waitForFunction(() => document.querySelectorAll("[data-testid=table-row]").length === 0);
        assertEqual((await reportsNamed(server, token, prefix)).length, 0, "reports left");
        assert(page.problems.length === 0, page.problems.join("\n"));
      } finally {
        await closePage(page);
      }
    });
  }

  await test("reports: a read-only user sees view and download only", async () => {
    const page = await newPage(browser, server, { viewport: "desktop" });
    try {
      await page.goto("/");
      await signIn(page, user);
      await page.goto(`${server.url}/reports`);
      await page.waitForSelector("[data-testid=reports-table]");
      assertEqual(await page.locator("[data-testid=add-report]").count(), 0, "add buttons");
      assertEqual(await page.locator("[data-testid=edit-report]").count(), 0, "edit buttons");
      assertEqual(await page.locator("[data-testid=delete-report]").count(), 0, "delete buttons");
    } finally {
      await closePage(page);
    }
  });
}
