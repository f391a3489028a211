// A Jira refusal keeps what was typed: the spec's dialog closes on a failure
// (§8) and says why; opening it again brings back the project, summary, assignee, labels and
// description, and says so; a save that succeeds forgets the draft, and so does Cancel. The Jira
// stand-in refuses a summary over 255 characters. English and French, desktop and phone; axe on
// the restored dialog.
import {
  addUser,
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
  startJira,
  startServer,
  waitForDemoData,
} from "./lib.mjs";

const CASES = [
  { lang: "en", viewport: "desktop" },
  { lang: "fr", viewport: "desktop" },
  { lang: "en", viewport: "phone" },
  { lang: "fr", viewport: "phone" },
];

const TEXT = {
  en: { restored: "What you typed before the ticket was refused is back.", created: "Created successfully" },
  fr: { restored: "Ce que vous aviez saisi avant le refus du ticket est rétabli.", created: "Créé avec succès" },
};

/** The drafts kept in the tab's session storage. */
const drafts = (page) =>
  page.evaluate(() => Object.keys(sessionStorage).filter((k) => k.startsWith("cxwatch.ticketDraft.")));

export default async function ticketDraft({ browser, test }) {
  const jira = await startJira("cloud");
  const server = await startServer({
    env: {
      CXWATCH_JIRA__URL: jira.url,
      CXWATCH_JIRA__FLAVOUR: "cloud",
      CXWATCH_JIRA__EMAIL: jira.email,
      CXWATCH_JIRA__TOKEN: jira.token,
    },
  });
  try {
    const admin = addUser(server, { username: "draft-admin@example.com", password: "draft-Admin-pass-1" });
    const { groups } = await waitForDemoData(server, admin, { runsToday: false });
    const token = await apiToken(server, admin);

    for (const { lang, viewport } of CASES) {
      const tag = `${lang}-${viewport}`;
      const T = TEXT[lang];
      await test(`ticket draft (${viewport}, ${lang}): a Jira refusal closes the dialog and keeps what was typed`, async () => {
        const name = `draft ${tag}`;
        const made = await apiRequest(server, "POST", "reports", {
          token,
          body: { name, reportTypeID: 1, testCaseGroupID: groups[0].id, timeframeName: "Today", runType: "Manual" },
        });
        assertEqual(made.status, 200, `report created (${made.text})`);
        const id = made.json.data.id;
        const page = await newPage(browser, server, { viewport });
        try {
          await page.goto("/");
          await chooseLanguage(page, lang);
          await signIn(page, admin);
          await page.goto(`/reports?search=${encodeURIComponent(name)}`);
          const row = page.locator(`[data-testid=table-row][data-row-id="${id}"]`);
          await row.waitFor();
          const open = async () => {
            if (viewport === "phone" && !(await row.locator("[data-testid=ticket-report]").isVisible())) {
              await row.locator(".accordion-toggle").click();
            }
            await row.locator("[data-testid=ticket-report]").click();
            await page.waitForSelector("[data-testid=ticket-form]");
            await page.waitForSelector('[data-testid=ticket-project] option[value="CX"]', { state: "attached" });
          };

          // Typed, then refused by Jira (a summary over 255 characters): the dialog closes.
          const long = `Greeting fails ${"x".repeat(260)}`;
          await open();
          await page.selectOption("[data-testid=ticket-project]", "CX");
          await page.fill("[data-testid=ticket-summary]", long);
          await page.fill("[data-testid=ticket-label-input]", "ivr");
          await page.press("[data-testid=ticket-label-input]", "Enter");
          await page.fill("[data-testid=ticket-description]", `Seen at 9:00 (${lang}).`);
          await page.click("[data-testid=ticket-save]");
          await page.waitForSelector("[data-testid=banner-error]");
          await page.getByTestId("ticket-dialog").waitFor({ state: "detached" });
          assertEqual((await jira.issues()).filter((i) => i.fields.summary === long).length, 0, "nothing in Jira");

          // Opened again: what was typed is back, and the dialog says so.
          await open();
          await page.waitForSelector("[data-testid=ticket-draft-restored]");
          assert(
            (await page.textContent("[data-testid=ticket-draft-restored]")).includes(T.restored),
            "the dialog says the draft is back",
          );
          assertEqual(await page.inputValue("[data-testid=ticket-project]"), "CX", "project restored");
          assertEqual(await page.inputValue("[data-testid=ticket-summary]"), long, "summary restored");
          assertEqual(await page.locator("[data-testid=ticket-label]").allTextContents(), ["ivr"], "labels restored");
          assertEqual(
            await page.inputValue("[data-testid=ticket-description]"),
            `Seen at 9:00 (${lang}).`,
            "description restored",
          );
          await checkA11y(page, `ticket dialog with its draft (${tag})`, { include: "[data-testid=ticket-dialog]" });
          await screenshot(page, `ticket-draft-${tag}`);

          // Fixed and saved: created, and the draft is forgotten.
          await page.fill("[data-testid=ticket-summary]", `Greeting fails (${tag})`);
          await page.click("[data-testid=ticket-save]");
          await page.waitForSelector(`[data-testid=banner-success]:has-text("${T.created}")`);
          assertEqual(await drafts(page), [], "no draft after a save");
          assert(
            (await jira.issues()).some((i) => i.fields.summary === `Greeting fails (${tag})`),
            "the issue is in Jira",
          );
          assertEqual(page.problems, [], "page problems");
        } finally {
          await closePage(page);
        }
      });
    }
  } finally {
    await server.stop();
    jira.stop();
  }
}
