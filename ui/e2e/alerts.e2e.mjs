import {
  addUser,
  apiRequest,
  apiToken,
  assert,
  checkA11y,
  chooseLanguage,
  closePage,
  ingestRuns,
  minutesBeforeNow,
  newPage,
  screenshot,
  signIn,
  startServer,
  startSinks,
  waitFor,
} from "./lib.mjs";

const CASE = 880001;
const TEXT = {
  en: { title: "Alerts", details: "Number of Test Runs", failure: "Failure" },
  fr: { title: "Alertes", details: "Nombre d’exécutions", failure: "Échec" },
};

function run(id, minutesAgo, status) {
  return {
    engineRunId: `e2e-alert-${id}`,
    testCase: { id: CASE, name: "Card PIN reset", channel: "voice", ivr: { id: 8800, name: "Cards IVR" } },
    runTime: minutesBeforeNow(minutesAgo),
    runDuration: 42.5,
    status,
    runType: "Schedule",
    segments: [],
  };
}

export default async function alerts({ browser, test }) {
  const sinks = await startSinks();
  const config = `[notify]
poll_ms = 100
public_url = "https://console.cxwatch.test"
${sinks.smtpToml("cxwatch <alerts@cxwatch.test>")}`;
  let server;
  try {
    server = await startServer({ args: [], config, env: { NODE_TLS_REJECT_UNAUTHORIZED: "0" } });
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = "0";
    const who = addUser(server, { username: "alerts-admin@example.com", password: "alerts-Admin-pass-1" });
    const key = server.cli(["apikey", "add", "--name", "e2e-alerts"]).trim();
    let alertId = 0;

    await test("alerts: failing runs posted to ingest open an event; its e-mail arrives with the link", async () => {
      await ingestRuns(server, key, [run("p0", 30, "pass")]);
      const token = await apiToken(server, who);
      const g = await apiRequest(server, "POST", "trs/v1/groups", {
        token,
        body: { name: "Cards e2e", channel: "voice", testCases: [{ id: CASE }] },
      });
      assert(g.status === 200, `group: ${g.text}`);
      const d = await apiRequest(server, "POST", "distributions", {
        token,
        body: { name: "Cards on call", contacts: [{ name: "Ops", type: 1, info: "cards-ops@example.com" }] },
      });
      assert(d.status === 200, `list: ${d.text}`);
      const s = await apiRequest(server, "POST", "alerts/settings", {
        token,
        body: {
          name: "Cards down",
          active: true,
          testCaseGroupId: g.json.data.id,
          distributionId: d.json.data.id,
          emailSubject: "Cards IVR failing",
          voiceMessage: "Cards down",
          smsPrefix: "[CX]",
          failureToAlert: 2,
          notifyOnRecovery: true,
          alertStatus: ["FAIL"],
          schedule: [1, 2, 3, 4, 5, 6, 7].map((day) => ({
            dayOfWeek: day,
            startTimeSlot: "00:00",
            endTimeSlot: "24:00",
          })),
        },
      });
      assert(s.status === 200, `setting: ${s.text}`);
      await ingestRuns(server, key, [run("f1", 20, "fail"), run("f2", 10, "fail")]);
      const page = await apiRequest(server, "GET", "alerts/events", { token });
      assert(page.json.data.totalElements === 1, `one event: ${page.text}`);
      alertId = page.json.data.content[0].alertId;
      const link = `https://console.cxwatch.test/alert/${alertId}`;
      const mail = await waitFor("the alert's e-mail", async () =>
        (await sinks.messages()).mail.find((m) => m.subject === "Cards IVR failing"),
      );
      assert(mail.to.includes("cards-ops@example.com"), `to: ${mail.to}`);
      assert(mail.text.includes(link), `the link in the text: ${mail.text}`);
      assert(mail.text.includes("Card PIN reset"), "the test case in the text");
    });

    for (const lang of ["en", "fr"]) {
      for (const viewport of ["desktop", "phone"]) {
        await test(`alerts (${lang}, ${viewport}): the list, the details with each notification's state, a run`, async () => {
          const T = TEXT[lang];
          const page = await newPage(browser, server, { viewport });
          try {
            await page.goto("/");
            await chooseLanguage(page, lang);
            await signIn(page, who);
            await page.goto(`${server.url}/alerts`);
            await page.waitForSelector("[data-testid=alert-list]");
            assert((await page.locator("h1").textContent()).includes(T.title), "title");
            await page.waitForSelector("[data-testid=alerts-table] [data-testid=table-row]");
            if (viewport === "phone") {
              // Expandable cards: the first one opens on its toggle.
              await page.locator("[data-testid=alerts-table] .accordion-toggle").first().click();
              await page.waitForSelector("[data-testid=alerts-table] .accordion-body");
            }
            const body = (await page.locator("[data-testid=alerts-table]").textContent()) ?? "";
            assert(body.includes("Card PIN reset"), `the event's test case: ${body}`);
            // The chips: Warning shows none, Failure shows it.
            await page.click("[data-testid=status-chip-4]");
            await page.waitForURL(/status=4/);
            await page.waitForFunction(
              () => !document.querySelector("[data-testid=alert-link], [data-testid=alert-open-link]"),
            );
            await page.click("[data-testid=status-chip-7]");
            await page.waitForURL(/status=7/);
            await page.waitForSelector("[data-testid=alert-link], [data-testid=alert-open-link]");
            // The shell's Alerts entry counts the open event.
            if (viewport === "desktop") {
              await page.waitForSelector("[data-testid=sidenav] [data-testid=nav-badge]");
            } else {
              await page.waitForSelector("[data-testid=mobile-footer] [data-testid=nav-badge]");
            }
            await checkA11y(page, `alerts list (${lang}, ${viewport})`);
            await screenshot(page, `alerts-list-${lang}-${viewport}`);
            await page.goto(`${server.url}/alert/${alertId}`);
            await page.waitForSelector("[data-testid=alert-summary]");
            assert((await page.locator("[data-testid=alert-summary]").textContent()).includes(T.details), "summary");
            assert((await page.locator("[data-testid=alert-run-count]").textContent()).trim() === "2", "two runs");
            if (viewport === "phone") {
              await page.waitForSelector("[data-testid=alert-notifications] .accordion-toggle");
              await page.locator("[data-testid=alert-notifications] .accordion-toggle").first().click();
            }
            await page.waitForSelector("[data-testid=alert-notifications] [data-testid=notification-state]");
            await waitFor(
              "the e-mail marked sent",
              async () => (await page.locator("[data-testid=notification-state][data-state=sent]").count()) > 0,
            );
            await checkA11y(page, `alert details (${lang}, ${viewport})`);
            await screenshot(page, `alert-details-${lang}-${viewport}`, { fullPage: true });
            // A test case name opens the run.
            if (viewport === "desktop") {
              await page.locator("[data-testid=alert-runs] [data-testid=run-link]").first().click();
            } else {
              await page.locator("[data-testid=alert-runs] [data-testid=run-open]").first().click();
            }
            await page.waitForURL(/\/report\/run\/\d+/);
          } finally {
            await closePage(page);
          }
        });
      }
    }
  } finally {
    await server?.stop().catch(() => {});
    sinks.stop();
  }
}
