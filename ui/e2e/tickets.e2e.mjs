// Tickets (issue 12, part A): a console configured with the Jira stand-in (Cloud flavour,
// e2e/jira-standin.mjs) opens a ticket from the report list with a CSV file, a label and a
// mention, refuses a file that is not CSV, then edits the ticket and moves its status. English
// and French, desktop and phone screenshots, axe on the dialog.
import { spawn } from "node:child_process";
import readline from "node:readline";
import {
  addUser,
  apiRequest,
  apiToken,
  assert,
  assertEqual,
  checkA11y,
  chooseLanguage,
  closePage,
  httpGet,
  newPage,
  screenshot,
  signIn,
  startServer,
  UI_DIR,
  waitForDemoData,
} from "./lib.mjs";

const TEXT = {
  en: { created: "Created successfully", updated: "Updated successfully.", csv: "Please upload a CSV file" },
  fr: { created: "Créé avec succès", updated: "Mis à jour avec succès.", csv: "Veuillez téléverser un fichier CSV" },
};
const CSV = "runId,status\n101,fail\n";

/** Starts the Jira stand-in; resolves { url, email, token, issues(), stop() }. */
async function startJira(flavour = "cloud") {
  const child = spawn(process.execPath, ["e2e/jira-standin.mjs", "--flavour", flavour], {
    cwd: UI_DIR,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await new Promise((resolve, reject) => {
    const rl = readline.createInterface({ input: child.stdout });
    rl.once("line", resolve);
    child.once("exit", (c) => reject(new Error(`jira stand-in exited (${c})`)));
  });
  const info = JSON.parse(line);
  return {
    ...info,
    async issues() {
      const r = await httpGet(`${info.url}/_standin/issues`);
      return JSON.parse(r.body);
    },
    stop: () => child.kill("SIGTERM"),
  };
}

export default async function tickets({ browser, test }) {
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
    const admin = addUser(server, { username: "tickets-admin@example.com", password: "tickets-Admin-pass-1" });
    const { groups } = await waitForDemoData(server, admin, { runsToday: false });
    const token = await apiToken(server, admin);
    const group = groups[0];

    for (const lang of ["en", "fr"]) {
      const T = TEXT[lang];
      await test(`tickets (${lang}): create from a report with a CSV and a mention, refuse a non-CSV file, edit`, async () => {
        const name = `ticketed ${lang} ${Date.now()}`;
        const made = await apiRequest(server, "POST", "reports", {
          token,
          body: {
            name,
            reportTypeID: 1,
            testCaseGroupID: group.id,
            timeframeName: "Today",
            runType: "Manual",
          },
        });
        assertEqual(made.status, 200, `report created (${made.text})`);
        const id = made.json.data.id;
        const page = await newPage(browser, server, { viewport: "desktop" });
        try {
          await page.goto("/");
          await chooseLanguage(page, lang);
          await signIn(page, admin);
          await page.goto(`${server.url}/reports?search=${encodeURIComponent(name)}`);
          const row = page.locator(`[data-testid=table-row][data-row-id="${id}"]`);
          await row.waitFor();
          await row.locator("[data-testid=ticket-report]").click();
          await page.waitForSelector("[data-testid=ticket-form]");
          await page.waitForSelector('[data-testid=ticket-project] option[value="CX"]', { state: "attached" });
          await page.selectOption("[data-testid=ticket-project]", "CX");
          await page.fill("[data-testid=ticket-summary]", `IVR greeting fails (${lang})`);
          await page.selectOption("[data-testid=ticket-assignee]", { label: "Ann Lee" });
          await page.fill("[data-testid=ticket-label-input]", "ivr");
          await page.press("[data-testid=ticket-label-input]", "Enter");
          await page.fill("[data-testid=ticket-label-input]", "prod");
          await page.press("[data-testid=ticket-label-input]", "Enter");
          assertEqual(await page.locator("[data-testid=ticket-label]").count(), 2, "label chips");
          const area = page.locator("[data-testid=ticket-description]");
          await area.click();
          await area.pressSequentially("Calls fail. Please look @bo");
          await page.waitForSelector("[data-testid=mention-list]");
          await page.locator("[data-testid=mention-option]", { hasText: "Bob Stone" }).click();
          await area.pressSequentially("today.");
          // A file that is not CSV: refused, nothing kept.
          await page.setInputFiles("[data-testid=ticket-file]", {
            name: "notes.txt",
            mimeType: "text/plain",
            buffer: Buffer.from("x"),
          });
          const refused = page.locator("[data-testid=ticket-form] .field-error");
          await refused.waitFor();
          assertEqual((await refused.textContent())?.trim(), T.csv, "non-CSV message");
          await page.setInputFiles("[data-testid=ticket-file]", {
            name: "runs.csv",
            mimeType: "text/csv",
            buffer: Buffer.from(CSV),
          });
          assertEqual(await refused.count(), 0, "the CSV file is accepted");
          await checkA11y(page, `ticket dialog (${lang})`, { include: "[data-testid=ticket-dialog]" });
          await screenshot(page, `ticket-create-${lang}-desktop`);
          await page.click("[data-testid=ticket-save]");
          await page.waitForSelector(`[data-testid=banner-success]:has-text("${T.created}")`);
          const key = (await row.locator("[data-testid=ticket-key]").textContent({ timeout: 15000 }))?.trim();
          assert(/^CX-\d+$/.test(key ?? ""), `the key shows in the row (${key})`);
          const issue = (await jira.issues()).find((i) => i.key === key);
          assert(issue, `issue ${key} in Jira`);
          assertEqual(issue.fields.issuetype.name, "Bug", "issue type");
          assertEqual(issue.rawFields.labels, ["ivr", "prod"], "labels");
          assertEqual(issue.rawFields.assignee, { accountId: "5b10ac8d82e05b22cc7d4ef5" }, "assignee");
          const mention = issue.rawFields.description.content[0].content.find((n) => n.type === "mention");
          assertEqual(mention?.attrs, { id: "5b10a2844c20165700ede21g", text: "@Bob Stone" }, "mention node");
          assertEqual(
            issue.attachments.map((a) => [a.filename, a.content]),
            [["runs.csv", CSV]],
            "attachment",
          );

          // Edit: the ticket's fields come back; a new summary and status.
          await row.locator("[data-testid=ticket-report]").click();
          await page.waitForSelector("[data-testid=ticket-status]");
          assertEqual(
            await page.inputValue("[data-testid=ticket-summary]"),
            `IVR greeting fails (${lang})`,
            "summary read back",
          );
          assert(
            (await page.inputValue("[data-testid=ticket-description]")).includes("@Bob Stone today."),
            "description read back with its mention",
          );
          await page.fill("[data-testid=ticket-summary]", `IVR greeting fails after 9:00 (${lang})`);
          await page.selectOption("[data-testid=ticket-status]", "In Progress");
          await screenshot(page, `ticket-edit-${lang}-desktop`);
          await page.click("[data-testid=ticket-save]");
          await page.waitForSelector(`[data-testid=banner-success]:has-text("${T.updated}")`);
          const after = (await jira.issues()).find((i) => i.key === key);
          assertEqual(after.status, "In Progress", "status moved");
          assertEqual(after.fields.summary, `IVR greeting fails after 9:00 (${lang})`, "summary changed");
          assertEqual(page.problems, [], "page problems");
        } finally {
          await closePage(page);
        }
      });

      await test(`tickets (${lang}, phone): the dialog fits a phone`, async () => {
        const page = await newPage(browser, server, { viewport: "phone" });
        try {
          await page.goto("/");
          await chooseLanguage(page, lang);
          await signIn(page, admin);
          await page.goto(`${server.url}/reports?search=ticketed%20${lang}`);
          const row = page.locator("[data-testid=table-row]").first();
          await row.waitFor();
          await row.locator(".accordion-toggle").click();
          await row.locator("[data-testid=ticket-report]").click();
          await page.waitForSelector("[data-testid=ticket-status]");
          await screenshot(page, `ticket-edit-${lang}-phone`);
          await checkA11y(page, `ticket dialog phone (${lang})`, { include: "[data-testid=ticket-dialog]" });
        } finally {
          await closePage(page);
        }
      });
    }
  } finally {
    await server.stop().catch(() => {});
    jira.stop();
  }
}
