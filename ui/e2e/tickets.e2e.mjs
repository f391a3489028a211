// Tickets (part A): a console configured with the Jira stand-in (Cloud flavour,
// e2e/jira-standin.mjs) opens a ticket from the report list with a CSV file, a label and a
// mention, refuses a file that is not CSV, then edits the ticket and moves its status; an alert
// setting with attach ticket makes the engine open a ticket from failing runs sent to ingest,
// listed among the setting's auto tickets and edited from there. English and French, desktop and
// phone screenshots, axe on the dialog and the list.
import {
  addUser,
  apiRequest,
  apiToken,
  assert,
  assertEqual,
  checkA11y,
  chooseLanguage,
  closePage,
  ingestRuns,
  minutesBeforeNow,
  newPage,
  screenshot,
  signIn,
  startJira,
  startServer,
  waitForDemoData,
} from "./lib.mjs";

const TEXT = {
  en: { created: "Created successfully", updated: "Updated successfully.", csv: "Please upload a CSV file" },
  fr: { created: "Créé avec succès", updated: "Mis à jour avec succès.", csv: "Veuillez téléverser un fichier CSV" },
};
const CSV = "runId,status\n101,fail\n";
/** Ann Lee's accountId on the stand-in's Cloud flavour. */
const ANN_CLOUD = "5b10ac8d82e05b22cc7d4ef5";
const AUTO_CASE = 990001;

function autoRun(id, minutesAgo, status) {
  return {
    engineRunId: `e2e-auto-ticket-${id}`,
    testCase: { id: AUTO_CASE, name: "Billing balance", channel: "voice", ivr: { id: 9900, name: "Billing IVR" } },
    runTime: minutesBeforeNow(minutesAgo),
    runDuration: 30,
    status,
    runType: "Schedule",
    segments: [],
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
      CXWATCH_NOTIFY__POLL_MS: "200",
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
          // As a user would: type on once the chosen name is in the text.
          await page.waitForFunction(
            () => document.querySelector("[data-testid=ticket-description]")?.value.endsWith("@Bob Stone "),
            null,
            { timeout: 15000 },
          );
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
          const readBack = await page.inputValue("[data-testid=ticket-description]");
          assert(readBack.includes("@Bob Stone today."), `description read back with its mention (${readBack})`);
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

    let settingId = 0;
    await test("auto tickets: failing runs of a setting with attach ticket open exactly one Jira ticket", async () => {
      const prev = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
      process.env.NODE_TLS_REJECT_UNAUTHORIZED = "0";
      try {
        const key = server.cli(["apikey", "add", "--name", "e2e-auto-tickets"]).trim();
        await ingestRuns(server, key, [autoRun("p0", 30, "pass")]);
        const g = await apiRequest(server, "POST", "trs/v1/groups", {
          token,
          body: { name: "Billing e2e", channel: "voice", testCases: [{ id: AUTO_CASE }] },
        });
        assertEqual(g.status, 200, `group (${g.text})`);
        const d = await apiRequest(server, "POST", "distributions", {
          token,
          body: { name: "Billing on call", contacts: [{ name: "Ops", type: 1, info: "billing-ops@example.com" }] },
        });
        assertEqual(d.status, 200, `list (${d.text})`);
        const st = await apiRequest(server, "POST", "alerts/settings", {
          token,
          body: {
            name: "Billing down",
            active: true,
            testCaseGroupId: g.json.data.id,
            distributionId: d.json.data.id,
            emailSubject: "Billing IVR failing",
            voiceMessage: "Billing down",
            smsPrefix: "[CX]",
            failureToAlert: 2,
            notifyOnRecovery: false,
            attachJiraTicket: true,
            jiraProject: "CX",
            jiraAssignee: ANN_CLOUD,
            jiraUsername: "ann",
            alertStatus: ["FAIL"],
            schedule: [1, 2, 3, 4, 5, 6, 7].map((day) => ({
              dayOfWeek: day,
              startTimeSlot: "00:00",
              endTimeSlot: "24:00",
            })),
          },
        });
        assertEqual(st.status, 200, `setting (${st.text})`);
        settingId = st.json.data.id;
        // A second setting on the group, without attach ticket: its event is ticketed by hand.
        const plain = await apiRequest(server, "POST", "alerts/settings", {
          token,
          body: {
            ...JSON.parse(st.text).data,
            id: undefined,
            name: "Billing down (no ticket)",
            attachJiraTicket: false,
          },
        });
        assertEqual(plain.status, 200, `second setting (${plain.text})`);
        await ingestRuns(server, key, [autoRun("f1", 20, "fail"), autoRun("f2", 10, "fail")]);
        const deadline = Date.now() + 30000;
        let list;
        for (;;) {
          list = await apiRequest(server, "GET", `alerts/autojiraticket/${settingId}?pageNo=0&pageSize=10`, { token });
          if (list.json?.data?.totalElements > 0 || Date.now() > deadline) break;
          await new Promise((r) => setTimeout(r, 250));
        }
        assertEqual(list.json.data.totalElements, 1, `one auto ticket (${list.text})`);
        const t = list.json.data.content[0];
        const issues = (await jira.issues()).filter((i) => i.key === t.jiraTicket);
        assertEqual(issues.length, 1, "the ticket is in Jira once");
        assert(
          issues[0].attachments.some((a) => a.filename.endsWith(".csv")),
          "the runs as a CSV attachment",
        );
      } finally {
        if (prev === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
        else process.env.NODE_TLS_REJECT_UNAUTHORIZED = prev;
      }
    });

    for (const lang of ["en", "fr"]) {
      for (const viewport of ["desktop", "phone"]) {
        await test(`auto tickets (${lang}, ${viewport}): listed with their runs, edited from the list`, async () => {
          const page = await newPage(browser, server, { viewport });
          try {
            await page.goto("/");
            await chooseLanguage(page, lang);
            await signIn(page, admin);
            if (viewport === "desktop") {
              // The settings list offers each setting's auto tickets (on a phone, inside the row's card).
              await page.goto(`${server.url}/settings/alert-settings/1`);
              await page.locator("[data-testid=auto-tickets]").first().waitFor();
            }
            await page.goto(`${server.url}/report/setting/autojiratickets/${settingId}`);
            if (viewport !== "desktop") {
              // A phone shows each ticket as a card that opens to its columns.
              await page.locator("[data-testid=auto-tickets-table] .accordion-toggle").first().click();
            }
            await page.waitForSelector("[data-testid=auto-ticket-key]");
            assertEqual(await page.locator("[data-testid=auto-ticket-run]").count(), 2, "the two failing runs");
            await screenshot(page, `auto-tickets-${lang}-${viewport}`);
            await checkA11y(page, `auto tickets ${lang} ${viewport}`);
            if (viewport !== "desktop") return;
            const key = (await page.locator("[data-testid=auto-ticket-key]").textContent())?.trim();
            await page.locator("[data-testid=auto-ticket-key]").click();
            await page.waitForSelector("[data-testid=ticket-form]");
            const summary = page.locator("[data-testid=ticket-summary]");
            await page.waitForFunction(() => document.querySelector("[data-testid=ticket-summary]")?.value);
            await summary.fill(`Billing balance failing (${lang})`);
            await page.locator("[data-testid=ticket-save]").click();
            await page.waitForSelector("[data-testid=ticket-dialog]", { state: "detached" });
            const issue = (await jira.issues()).find((i) => i.key === key);
            assertEqual(issue?.fields?.summary, `Billing balance failing (${lang})`, "the edit reached Jira");
          } finally {
            await closePage(page);
          }
        });
      }
    }

    let plainEvent = 0;
    for (const lang of ["en", "fr"]) {
      const create = lang === "en";
      await test(`alert details (${lang}): the ticket action ${create ? "opens a ticket for the alert" : "edits the alert's ticket"}`, async () => {
        if (!plainEvent) {
          const autoIds = (
            await apiRequest(server, "GET", `alerts/autojiraticket/${settingId}?pageNo=0&pageSize=10`, { token })
          ).json.data.content.map((a) => a.alertId);
          const events = await apiRequest(server, "GET", "alerts/events?pageNo=0&pageSize=50", { token });
          for (const e of events.json.data.content) {
            const d = await apiRequest(server, "GET", `alerts/events/${e.alertId}`, { token });
            if (d.json.data.testCaseId === AUTO_CASE && !autoIds.includes(e.alertId)) plainEvent = e.alertId;
          }
        }
        assert(plainEvent > 0, "the plain setting's event");
        const page = await newPage(browser, server, { viewport: "desktop" });
        try {
          await page.goto("/");
          await chooseLanguage(page, lang);
          await signIn(page, admin);
          await page.goto(`${server.url}/alert/${plainEvent}`);
          await page.locator("[data-testid=alert-ticket]").first().click();
          await page.waitForSelector("[data-testid=ticket-form]");
          if (create) {
            await page.waitForSelector('[data-testid=ticket-project] option[value="CX"]', { state: "attached" });
            await page.selectOption("[data-testid=ticket-project]", "CX");
          } else {
            await page.waitForSelector("[data-testid=ticket-status]");
            await page.waitForFunction(() => document.querySelector("[data-testid=ticket-summary]")?.value);
          }
          const summary = `Alert ${plainEvent} (${lang})`;
          await page.fill("[data-testid=ticket-summary]", summary);
          await checkA11y(page, `alert ticket ${lang}`);
          await page.click("[data-testid=ticket-save]");
          await page.waitForSelector("[data-testid=ticket-dialog]", { state: "detached" });
          const d = await apiRequest(server, "GET", `alerts/events/${plainEvent}`, { token });
          const key = d.json.data.jiraTicket;
          assert(/^CX-\d+$/.test(key ?? ""), `the alert keeps its ticket (${key})`);
          await page.locator("[data-testid=alert-ticket]", { hasText: key }).first().waitFor();
          await screenshot(page, `alert-ticket-${lang}`);
          const issue = (await jira.issues()).find((i) => i.key === key);
          assertEqual(issue?.fields?.summary, summary, "the ticket in Jira");
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
