// Accessibility of the administrator's forms and lists, each state checked
// with axe (0 serious, 0 critical): field errors readable (at least 4.5:1) on the forms that show
// them; 'Delete row' buttons whose accessible name begins with what they show; the phone's list
// cards without a misused <dl>; the alert setting's schedule on a phone as a day-by-day picker
// of buttons a finger can tap; Escape in a filter's drop-down closes the drop-down only, and
// the filter keeps its choices. English and French, desktop and phone where it applies.
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
  waitForDemoData,
} from "./lib.mjs";

const LANGS = ["en", "fr"];
const VIEWPORTS = ["desktop", "phone"];
const TEXT = {
  en: { deleteRow: "Delete row", contact: "Contact 2", wednesday: "Wednesday" },
  fr: { deleteRow: "Supprimer la ligne", contact: "Contact nº 2", wednesday: "mercredi" },
};

export default async function a11yAdmin({ server, browser, users: accounts, test }) {
  const { admin } = accounts;
  const token = await apiToken(server, admin);
  const { groups } = await waitForDemoData(server, admin, { runsToday: false });
  const report = await apiRequest(server, "POST", "reports", {
    token,
    body: {
      name: "A11y check",
      reportTypeID: 1,
      testCaseGroupID: groups[0].id,
      timeframeName: "Today",
      runType: "Manual",
    },
  });
  assertEqual(report.status, 200, `report created (${report.text})`);

  for (const lang of LANGS) {
    for (const viewport of VIEWPORTS) {
      const tag = `${lang}-${viewport}`;
      const T = TEXT[lang];
      await test(`a11y (${viewport}, ${lang}): forms with their errors, delete-row names, list cards`, async () => {
        const page = await newPage(browser, server, { viewport });
        try {
          await page.goto("/");
          await chooseLanguage(page, lang);
          await signIn(page, admin);

          // The three forms' errors (distribution list, group, alert setting), read by axe.
          await page.goto("/report/distribution/0");
          await page.waitForSelector("[data-testid=distribution-form]");
          await page.click("[data-testid=add-contact]");
          await page.click("[data-testid=distribution-form] [data-testid=form-save]");
          await page.waitForSelector("[data-testid=distribution-form] .field-error");
          await checkA11y(page, `distribution form with errors (${tag})`);
          // Each 'Delete row' is named by what it shows, then which row.
          for (const i of [0, 1]) {
            const button = page.getByTestId(`delete-contact-${i}`);
            assertEqual((await button.getAttribute("aria-label")) ?? null, null, "no name over the label");
            const name = (await button.textContent()).replace(/\s+/g, " ").trim();
            assert(name.startsWith(T.deleteRow), `delete row ${i}: '${name}' begins with its label`);
          }
          assert(
            (await page.getByTestId("delete-contact-1").textContent()).replace(/\s+/g, " ").includes(T.contact),
            "the second row's button names its row",
          );
          await screenshot(page, `a11y-distribution-errors-${tag}`, { fullPage: true });

          await page.goto("/settings/test-case-group/2");
          await page.click("[data-testid=new-group]");
          await page.waitForSelector("[data-testid=group-form]");
          await page.click("[data-testid=group-form] [data-testid=form-save]");
          await page.waitForSelector("[data-testid=group-form] .field-error");
          await checkA11y(page, `group dialog with errors (${tag})`);
          await page.keyboard.press("Escape");

          await page.goto("/report/setting/0");
          await page.waitForSelector("[data-testid=alert-setting-form]");
          await page.click("[data-testid=alert-setting-form] form > .form-actions [data-testid=form-save]");
          await page.waitForSelector("[data-testid=alert-setting-form] .field-error");
          await checkA11y(page, `alert setting form with errors (${tag})`);
          await screenshot(page, `a11y-alert-setting-errors-${tag}`, { fullPage: true });

          // The reports list: on a phone, an open card (its fields, then its actions).
          await page.goto(`/reports?search=${encodeURIComponent("A11y check")}`);
          const row = page.locator("[data-testid=table-row]").first();
          await row.waitFor();
          if (viewport === "phone") {
            await row.locator(".accordion-toggle").click();
            await row.locator(".accordion-fields").waitFor();
          }
          await checkA11y(page, `reports list${viewport === "phone" ? ", a card open" : ""} (${tag})`);
          await screenshot(page, `a11y-reports-${tag}`);
          assertEqual(page.problems, [], "page problems");
        } finally {
          await closePage(page);
        }
      });

      await test(`a11y (${viewport}, ${lang}): Escape in a filter's drop-down keeps the filter and its choices`, async () => {
        const page = await newPage(browser, server, { viewport });
        try {
          await page.goto("/");
          await chooseLanguage(page, lang);
          await signIn(page, admin);
          await page.goto("/reports");
          await page.click("[data-testid=open-filter]");
          const dialog = page.getByTestId("report-filter");
          await dialog.waitFor();
          await page.click("[data-testid=filter-type] .ms-button");
          await page.locator("[data-testid=filter-type] .ms-option input").first().check();
          await checkA11y(page, `report filter, a drop-down open (${tag})`);
          await page.keyboard.press("Escape");
          await page.locator("[data-testid=filter-type] .ms-panel").waitFor({ state: "detached" });
          assert(await dialog.isVisible(), "the filter stays open");
          assertEqual(
            await page.getAttribute("[data-testid=filter-type] .ms-button", "aria-expanded"),
            "false",
            "the drop-down closed",
          );
          assert(/1/.test(await page.textContent("[data-testid=filter-type] .ms-summary")), "the choice is kept");
          await page.keyboard.press("Escape");
          await dialog.waitFor({ state: "detached" });
          assertEqual(page.problems, [], "page problems");
        } finally {
          await closePage(page);
        }
      });
    }

    const T = TEXT[lang];
    await test(`a11y (phone, ${lang}): the alert setting's schedule is picked day by day`, async () => {
      const page = await newPage(browser, server, { viewport: "phone" });
      try {
        await page.goto("/");
        await chooseLanguage(page, lang);
        await signIn(page, admin);
        await page.goto("/report/setting/0");
        await page.waitForSelector("[data-testid=schedule-phone]");
        assertEqual(await page.locator("[data-testid=schedule-grid]").count(), 0, "no week grid on a phone");
        await page.click("[data-testid=schedule-phone-day-2]");
        assert(
          (await page.textContent(".schedule-phone-name")).trim().toLowerCase() === T.wednesday.toLowerCase(),
          "Wednesday chosen",
        );
        const slot = page.locator("[data-testid=schedule-phone-slot][data-slot='20']");
        const box = await slot.boundingBox();
        assert(box && box.width >= 44 && box.height >= 44, `a slot a finger can tap (${JSON.stringify(box)})`);
        await slot.tap();
        assertEqual(await slot.getAttribute("aria-pressed"), "true", "10:00 chosen by a tap");
        await page.click("[data-testid=schedule-phone-all]");
        assertEqual(
          await page.locator("[data-testid=schedule-phone-slot][aria-pressed=true]").count(),
          48,
          "the whole day",
        );
        await page.click("[data-testid=schedule-phone-day-0]");
        assertEqual(
          await page.locator("[data-testid=schedule-phone-slot][aria-pressed=true]").count(),
          0,
          "Monday is its own",
        );
        await checkA11y(page, `schedule on a phone (${lang})`);
        await screenshot(page, `a11y-schedule-phone-${lang}`, { fullPage: true });
        assertEqual(page.problems, [], "page problems");
      } finally {
        await closePage(page);
      }
    });
  }
}
