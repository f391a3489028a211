// Auto tickets that fail are not silent. Without a Jira the alert setting form
// offers no Attach Ticket. With the Jira stand-in (Cloud), a setting whose assignee was typed as a
// name ('Ann Lee', as the old free-text field allowed) makes Jira refuse every ticket with its
// 400 answer: the Auto Tickets screen lists the waiting ticket with Jira's reason and its
// attempts, and the alert setting form says so, names the assignee as not a Jira account, and its
// Ticket Details dialog picks the assignee and the project from Jira's own lists. Choosing Ann's
// account and saving opens the waiting ticket at once, assigned to her. English and French,
// desktop and phone; axe on every state.
import {
  addUser,
  apiRequest,
  apiToken,
  assert,
  assertEqual,
  checkA11y,
  chooseLanguage,
  closePage,
  minutesBeforeNow,
  newPage,
  screenshot,
  signIn,
  startJira,
  startServer,
} from "./lib.mjs";

const CASES = [
  { lang: "en", viewport: "desktop" },
  { lang: "fr", viewport: "desktop" },
  { lang: "en", viewport: "phone" },
  { lang: "fr", viewport: "phone" },
];
/** The failure's screens also at the narrow desktop widths. */
const WIDER = [...CASES, { lang: "en", viewport: "1024" }, { lang: "fr", viewport: "768" }];
const SIZES = { 1024: { width: 1024, height: 768 }, 768: { width: 768, height: 1024 } };

const TEXT = {
  en: {
    title: "1 ticket could not be opened in Jira",
    answer: "Jira's answer:",
    notAccount: "Ann Lee (not a Jira account)",
    pick: "Not a Jira account: choose a person from Jira's list",
    updated: "Alert setting has been successfully updated",
  },
  fr: {
    title: "1 ticket n’a pas pu être ouvert dans Jira",
    answer: "Réponse de Jira :",
    notAccount: "Ann Lee (pas un compte Jira)",
    pick: "Pas un compte Jira : choisissez une personne dans la liste de Jira",
    updated: "Le paramètre d’alerte a été modifié avec succès",
  },
};

/** Ann Lee's accountId on the stand-in's Cloud flavour. */
const ANN_CLOUD = "5b10ac8d82e05b22cc7d4ef5";
const CASE_ID = 990301;
/** Jira's words for an assignee it does not know (Cloud). */
const REFUSAL = "assignee: Specified user does not exist";

function run(id, minutesAgo, status) {
  return {
    engineRunId: `e2e-ticket-failure-${id}`,
    testCase: { id: CASE_ID, name: "Payments balance", channel: "voice", ivr: { id: 9930, name: "Payments IVR" } },
    runTime: minutesBeforeNow(minutesAgo),
    runDuration: 30,
    status,
    runType: "Schedule",
    segments: [],
  };
}

async function ingest(server, key, runs) {
  const r = await apiRequest(server, "POST", "ingest/v1/runs", { token: key, body: { runs } });
  assert(r.status === 200 && r.json.data.rejected.length === 0, `ingest: ${r.text}`);
}

/** Polls `fn` (every 250 ms, at most `ms`) until it answers something truthy. */
async function until(what, fn, ms = 30000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function openSetting(page, server, id, viewport) {
  await page.goto(`${server.url}/report/setting/${id}`);
  await page.waitForFunction(() => document.querySelector("[data-testid=input-name]")?.value);
  if (viewport === "phone") await page.getByTestId("waiting-tickets").scrollIntoViewIfNeeded();
}

export default async function ticketFailures({ browser, server: plain, users, test }) {
  // The shared server has no [jira]: Attach Ticket is not offered.
  for (const { lang, viewport } of CASES) {
    await test(`no Jira (${lang}, ${viewport}): the alert setting form offers no Attach Ticket`, async () => {
      const page = await newPage(browser, plain, { viewport });
      try {
        await page.goto("/");
        await chooseLanguage(page, lang);
        await signIn(page, users.admin);
        // The form once the console has asked whether there is a Jira (there is none).
        const asked = page.waitForResponse((r) => r.url().includes("/api/jira/v1/config"));
        await page.goto(`${plain.url}/report/setting/0`);
        await page.getByTestId("input-active").waitFor();
        assertEqual((await (await asked).json()).data.configured, false, "no Jira");
        await page.waitForTimeout(200);
        assertEqual(await page.getByTestId("input-attach-ticket").count(), 0, "Attach Ticket is not offered");
        assertEqual(await page.getByTestId("ticket-details").count(), 0, "no Ticket Details");
        await checkA11y(page, `alert setting form without Jira (${lang}, ${viewport})`);
      } finally {
        await closePage(page);
      }
    });
  }

  const jira = await startJira("cloud");
  const server = await startServer({
    args: [],
    env: {
      CXWATCH_JIRA__URL: jira.url,
      CXWATCH_JIRA__FLAVOUR: "cloud",
      CXWATCH_JIRA__EMAIL: jira.email,
      CXWATCH_JIRA__TOKEN: jira.token,
      CXWATCH_NOTIFY__POLL_MS: "200",
      CXWATCH_NOTIFY__RETRY_FIRST_SECS: "1",
      CXWATCH_NOTIFY__RETRY_MAX_SECS: "2",
    },
  });
  try {
    const admin = addUser(server, { username: "failures-admin@example.com", password: "failures-Admin-pass-1" });
    const token = await apiToken(server, admin);
    let settingId = 0;

    await test("ticket failure: an assignee typed as a name makes Jira refuse the ticket, listed with its reason", async () => {
      const key = server.cli(["apikey", "add", "--name", "e2e-ticket-failures"]).trim();
      await ingest(server, key, [run("p0", 40, "pass")]);
      const g = await apiRequest(server, "POST", "trs/v1/groups", {
        token,
        body: { name: "Payments e2e", channel: "voice", testCases: [{ id: CASE_ID }] },
      });
      assertEqual(g.status, 200, `group (${g.text})`);
      const d = await apiRequest(server, "POST", "distributions", {
        token,
        body: { name: "Payments on call", contacts: [{ name: "Ops", type: 1, info: "payments-ops@example.com" }] },
      });
      assertEqual(d.status, 200, `list (${d.text})`);
      const st = await apiRequest(server, "POST", "alerts/settings", {
        token,
        body: {
          name: "Payments down",
          active: true,
          testCaseGroupId: g.json.data.id,
          distributionId: d.json.data.id,
          emailSubject: "Payments IVR failing",
          voiceMessage: "Payments down",
          smsPrefix: "[CX]",
          failureToAlert: 1,
          notifyOnRecovery: false,
          attachJiraTicket: true,
          jiraProject: "CX",
          jiraAssignee: "Ann Lee",
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
      await ingest(server, key, [run("f1", 20, "fail")]);
      const waiting = await until("the refusal is recorded", async () => {
        const w = await apiRequest(server, "GET", `alerts/autojiraticket/${settingId}/waiting`, { token });
        return w.json?.data?.[0]?.reason ? w.json.data[0] : null;
      });
      assert(waiting.reason.includes(REFUSAL), `Jira's reason (${waiting.reason})`);
      assertEqual(waiting.assignee, "Ann Lee", "the assignee it was tried with");
      assertEqual((await jira.issues()).length, 0, "Jira opened nothing");
      assert(server.logs().includes("auto ticket not opened"), "the log has it too");
    });

    for (const { lang, viewport } of WIDER) {
      const T = TEXT[lang];
      const tag = `${lang}-${viewport}`;
      await test(`ticket failure (${lang}, ${viewport}): Auto Tickets and the setting show Jira's refusal; the dialog lists Jira's people`, async () => {
        assert(settingId > 0, "the setting");
        const page = await newPage(browser, server, { viewport: SIZES[viewport] ?? viewport });
        try {
          await page.goto("/");
          await chooseLanguage(page, lang);
          await signIn(page, admin);

          // Auto Tickets: no ticket yet, and the one waiting with Jira's reason.
          await page.goto(`${server.url}/report/setting/autojiratickets/${settingId}`);
          const box = page.getByTestId("waiting-tickets");
          await box.waitFor();
          const text = await box.textContent();
          assert(text.includes(T.title), `the title (${text})`);
          assert(text.includes(T.answer) && text.includes(REFUSAL), `Jira's reason shown (${text})`);
          assertEqual(await page.getByTestId("waiting-ticket").count(), 1, "one waiting ticket");
          await screenshot(page, `ticket-failures-list-${tag}`);
          await checkA11y(page, `auto tickets with a refused ticket (${tag})`);

          // The alert setting form: the refusal, and the assignee named as not a Jira account.
          await openSetting(page, server, settingId, viewport);
          const compact = await page.getByTestId("waiting-tickets").textContent();
          assert(compact.includes(T.title) && compact.includes(REFUSAL), `the form says why (${compact})`);
          await page.getByTestId("waiting-link").waitFor();
          // Said once Jira's people have loaded.
          const summary = page.getByTestId("ticket-summary");
          await summary
            .filter({ hasText: T.notAccount })
            .waitFor({ timeout: 15000 })
            .catch(() => {});
          const said = await summary.textContent();
          assert(said.includes(T.notAccount), `the assignee is not a Jira account (${said})`);
          await screenshot(page, `ticket-failures-form-${tag}`, { fullPage: viewport === "desktop" });
          await checkA11y(page, `alert setting with a refused ticket (${tag})`);

          // Ticket Details: Jira's people and projects, the stored name marked.
          await page.getByTestId("ticket-details").click();
          const dialog = page.getByTestId("ticket-dialog");
          await dialog.waitFor();
          await dialog
            .locator(`[data-testid=input-assignee] option[value="${ANN_CLOUD}"]`)
            .waitFor({ state: "attached" });
          const people = await dialog
            .locator("[data-testid=input-assignee] option")
            .evaluateAll((os) => os.map((o) => [o.value, o.textContent]));
          for (const name of ["Ann Lee", "Bob Stone", "Chloé Martin"]) {
            assert(
              people.some(([v, t]) => t === name && v.length > 8),
              `${name} by account (${JSON.stringify(people)})`,
            );
          }
          assert(!people.some(([, t]) => t === "Automation for Jira"), "apps are not people");
          const projects = await dialog
            .locator("[data-testid=input-project] option")
            .evaluateAll((os) => os.map((o) => o.value));
          assert(projects.includes("CX") && projects.includes("OPS"), `Jira's projects (${projects})`);
          assertEqual(
            await dialog.getByTestId("error-ticket-assignee").textContent(),
            T.pick,
            "the stored name is marked",
          );
          await screenshot(page, `ticket-failures-dialog-${tag}`);
          await checkA11y(page, `ticket details with Jira's lists (${tag})`);
          // Saving the dialog with the name is refused beside the field.
          await dialog.getByTestId("form-save").click();
          await dialog.getByTestId("error-ticket-assignee").waitFor();
          assertEqual(page.problems, [], "page problems");
        } finally {
          await closePage(page);
        }
      });
    }

    await test("ticket failure (fr, desktop): choosing Ann's account from Jira's list opens the waiting ticket at once", async () => {
      const page = await newPage(browser, server, { viewport: "desktop" });
      try {
        await page.goto("/");
        await chooseLanguage(page, "fr");
        await signIn(page, admin);
        await openSetting(page, server, settingId, "desktop");
        await page.getByTestId("ticket-details").click();
        const dialog = page.getByTestId("ticket-dialog");
        await dialog
          .locator(`[data-testid=input-assignee] option[value="${ANN_CLOUD}"]`)
          .waitFor({ state: "attached" });
        await dialog.getByTestId("input-assignee").selectOption(ANN_CLOUD);
        assertEqual(await dialog.getByTestId("error-ticket-assignee").count(), 0, "the mark goes with the choice");
        await dialog.getByTestId("form-save").click();
        await dialog.waitFor({ state: "detached" });
        const summary = await page.getByTestId("ticket-summary").textContent();
        assert(summary.includes("Ann Lee") && !summary.includes("pas un compte"), `Ann by her account (${summary})`);
        await page.click("[data-testid=alert-setting-form] form > .form-actions [data-testid=form-save]");
        await page.waitForSelector(`[data-testid=banner-success]:has-text("${TEXT.fr.updated}")`);
        const list = await until("the waiting ticket is opened", async () => {
          const l = await apiRequest(server, "GET", `alerts/autojiraticket/${settingId}?pageNo=0&pageSize=10`, {
            token,
          });
          return l.json?.data?.totalElements === 1 ? l.json.data.content : null;
        });
        const issue = (await jira.issues()).find((i) => i.key === list[0].jiraTicket);
        assertEqual(issue?.rawFields?.assignee, { accountId: ANN_CLOUD }, "assigned to Ann's account");
        const w = await apiRequest(server, "GET", `alerts/autojiraticket/${settingId}/waiting`, { token });
        assertEqual(w.json.data.length, 0, "nothing waits");
        await page.goto(`${server.url}/report/setting/autojiratickets/${settingId}`);
        await page.getByTestId("auto-ticket-key").waitFor();
        assertEqual(await page.getByTestId("waiting-tickets").count(), 0, "no failure shown");
        await screenshot(page, "ticket-failures-mended-fr-desktop");
        await checkA11y(page, "auto tickets once mended (fr)");
      } finally {
        await closePage(page);
      }
    });
  } finally {
    await server.stop().catch(() => {});
    jira.stop();
  }
}
