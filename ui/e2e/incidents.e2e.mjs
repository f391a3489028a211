// Incidents: a 3 a.m. outage of one IVR behind five groups opens five alerts, which the console
// shows as one incident; acknowledged and muted from the incident, every alert says so after a
// reload, in English and French, on desktop and phone. Also counts the clicks from the dashboard
// to 'acknowledged' for such an outage, and runs axe on the incident screens.
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
  waitFor,
} from "./lib.mjs";

const BASE = 930000;
const GROUPS = 5;
const TEXT = {
  en: {
    ack: "Acknowledge incident (5 alerts)",
    acknowledged: "Acknowledged by",
    open: "Open, not acknowledged",
    muted: "Muted until",
    alertsTitle: "Alerts of this incident",
    panel: "This alert is one of 5 alerts in 5 groups of one outage.",
  },
  fr: {
    ack: "Acquitter l’incident (5 alertes)",
    acknowledged: "Acquitté par",
    open: "Ouvert, non acquitté",
    muted: "En sourdine jusqu’au",
    alertsTitle: "Alertes de cet incident",
    panel: "Cette alerte est l’une des 5 alertes de 5 groupes d’une même panne.",
  },
};

/** The outage `n`'s IVR and its five test cases (one per group). */
const ivrOf = (n) => ({ id: 9300 + n, name: `Card Services IVR ${n}` });
const casesOf = (n) => Array.from({ length: GROUPS }, (_, g) => BASE + n * 10 + g);

function run(id, n, caseId, minutesAgo, status) {
  return {
    engineRunId: `e2e-incident-${id}`,
    testCase: { id: caseId, name: `Card case ${caseId - BASE}`, channel: "voice", ivr: ivrOf(n) },
    runTime: minutesBeforeNow(minutesAgo),
    runDuration: 30.5,
    status,
    runType: "Schedule",
    segments: [],
  };
}

export default async function incidents({ browser, test }) {
  let server;
  try {
    server = await startServer({
      args: [],
      config: `[notify]\npoll_ms = 100\npublic_url = "https://console.cxwatch.test"\n`,
      env: { NODE_TLS_REJECT_UNAUTHORIZED: "0" },
    });
    // The ingest calls reach the server's own certificate.
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = "0";
    const who = addUser(server, { username: "incident-admin@example.com", password: "incident-Admin-pass-1" });
    const key = server.cli(["apikey", "add", "--name", "e2e-incidents"]).trim();
    const combos = ["en", "fr"].flatMap((lang) => ["desktop", "phone"].map((viewport) => ({ lang, viewport })));
    // Outages 0-3: one per combination; outage 4: the clicks count from the dashboard.
    const outages = [0, 1, 2, 3, 4];
    let token = "";
    const groupsOf = outages.map(() => []);

    await test("incidents: five groups behind one IVR fail: five alerts, one incident per outage", async () => {
      token = await apiToken(server, who);
      await ingestRuns(
        server,
        key,
        outages.flatMap((n) => casesOf(n).map((c) => run(`p${c}`, n, c, 40, "pass"))),
      );
      const d = await apiRequest(server, "POST", "distributions", {
        token,
        body: { name: "Night on call", contacts: [{ name: "Ops", type: 1, info: "night-ops@example.com" }] },
      });
      assert(d.status === 200, `list: ${d.text}`);
      for (const n of outages) {
        for (const [g, c] of casesOf(n).entries()) {
          const grp = await apiRequest(server, "POST", "trs/v1/groups", {
            token,
            body: { name: `Outage ${n} group ${g + 1}`, channel: "voice", testCases: [{ id: c }] },
          });
          assert(grp.status === 200, `group: ${grp.text}`);
          groupsOf[n].push(grp.json.data.id);
          const s = await apiRequest(server, "POST", "alerts/settings", {
            token,
            body: {
              name: `Outage ${n} group ${g + 1} down`,
              active: true,
              testCaseGroupId: grp.json.data.id,
              distributionId: d.json.data.id,
              emailSubject: "Cards failing",
              voiceMessage: "Cards down",
              smsPrefix: "[CX]",
              failureToAlert: 1,
              alertStatus: ["FAIL"],
              schedule: [1, 2, 3, 4, 5, 6, 7].map((day) => ({
                dayOfWeek: day,
                startTimeSlot: "00:00",
                endTimeSlot: "24:00",
              })),
            },
          });
          assert(s.status === 200, `setting: ${s.text}`);
        }
      }
      // Outages 0-3 first; outage 4 last, so that its alerts head the list.
      for (const batch of [[0, 1, 2, 3], [4]]) {
        await ingestRuns(
          server,
          key,
          batch.flatMap((n) => casesOf(n).map((c) => run(`f${c}`, n, c, 10, "fail"))),
        );
      }
      const events = await apiRequest(server, "GET", "alerts/events?pageSize=50", { token });
      for (const n of outages) {
        const mine = events.json.data.content.filter((e) => casesOf(n).includes(e.testCaseId));
        assert(mine.length === GROUPS, `five alerts of outage ${n}: ${events.text}`);
        const ids = new Set(mine.map((e) => e.incidentId));
        assert(ids.size === 1 && typeof mine[0].incidentId === "number", `one incident for outage ${n}: ${[...ids]}`);
      }
      const list = await apiRequest(server, "GET", "alerts/incidents?state=open&pageSize=50", { token });
      assert(list.json.data.totalElements === outages.length, `five open incidents: ${list.text}`);
    });

    await test("incidents: clicks from the dashboard to 'acknowledged' for an outage of 5 groups", async () => {
      const page = await newPage(browser, server, { viewport: "desktop" });
      try {
        await signIn(page, who);
        await page.goto("/dashboard");
        // The outage's runs are scheduled ones: the run type the night shift keeps chosen
        // (it stays across visits), chosen before the count.
        await page.click("[data-testid=main-runtype-Schedule]");
        let clicks = 0;
        // The failing-now bar names each failing group's alert state, a link to its alert.
        const state = page
          .locator("li", { has: page.locator(`[data-testid=incident][data-group-id="${groupsOf[4][0]}"]`) })
          .locator("[data-testid=incident-state]");
        await state.waitFor();
        await state.click();
        clicks++;
        // The alert's page: its incident's panel acknowledges every alert of the outage.
        await page.waitForSelector("[data-testid=incident-acknowledge]");
        await page.click("[data-testid=incident-acknowledge]");
        clicks++;
        await page.waitForSelector("[data-testid=incident-state][data-state=acknowledged]");
        const events = await apiRequest(server, "GET", "alerts/events?pageSize=50", { token });
        const acked = events.json.data.content.filter((e) => casesOf(4).includes(e.testCaseId) && e.acknowledgedBy);
        assert(acked.length === GROUPS, `all five alerts acknowledged: ${acked.length}`);
        assert(clicks <= 2, `at most 2 clicks (${clicks})`);
        console.log(`  clicks from the dashboard to 'acknowledged' (5 groups): ${clicks}, through the failing-now bar`);
      } finally {
        await closePage(page);
      }
    });

    for (const [i, { lang, viewport }] of combos.entries()) {
      await test(`incidents (${lang}, ${viewport}): the alert names its incident; mute and acknowledge it; a reload keeps both`, async () => {
        const T = TEXT[lang];
        const events = await apiRequest(server, "GET", "alerts/events?pageSize=50", { token });
        const mine = events.json.data.content.filter((e) => casesOf(i).includes(e.testCaseId));
        const incident = mine[0].incidentId;
        const page = await newPage(browser, server, { viewport });
        try {
          await page.goto("/");
          await chooseLanguage(page, lang);
          await signIn(page, who);
          // From an alert (where the dashboard's failing-now bar leads): the incident panel.
          await page.goto(`/alert/${mine[0].alertId}`);
          const panel = page.locator("[data-testid=incident-panel]");
          await panel.waitFor();
          assert((await panel.locator(".incident-panel-line").textContent()) === T.panel, "panel line");
          assert(
            (await panel.locator("[data-testid=incident-state] .incident-badge").textContent()) === T.open,
            "open",
          );
          await checkA11y(page, `alert with its incident (${lang}, ${viewport})`);
          await panel.locator("[data-testid=incident-link]").click();
          await page.waitForURL(`**/incident/${incident}`);
          // On a phone the rows are cards, each with its Open link.
          const alertLink = viewport === "phone" ? "incident-alert-open" : "incident-alert-link";
          await page.locator(`[data-testid=incident-alerts] [data-testid=${alertLink}]`).first().waitFor();
          const title = await page.locator("[data-testid=incident-title]").textContent();
          assert(title.includes(`Card Services IVR ${i}`), `titled by its IVR: ${title}`);
          assert(
            (await page.locator("[data-testid=incident-groups]").textContent()).split(", ").length === GROUPS,
            "five groups",
          );
          assert(
            (await page.locator(`[data-testid=incident-alerts] [data-testid=${alertLink}]`).count()) === GROUPS,
            "five alerts",
          );
          assert(
            (await page.locator(".page h2.alert-section-title").first().textContent()) === T.alertsTitle,
            "alerts title",
          );
          await checkA11y(page, `incident (${lang}, ${viewport})`);
          await screenshot(page, `incident-open-${lang}-${viewport}`, { fullPage: true });

          // Mute for 1 h, then acknowledge: from the incident, on every alert.
          await page.click("[data-testid=incident-mute-1h]");
          await page.waitForSelector("[data-testid=incident-muted]");
          assert((await page.locator("[data-testid=incident-acknowledge]").textContent()) === T.ack, "ack label");
          await page.click("[data-testid=incident-acknowledge]");
          await page.waitForSelector("[data-testid=incident-state][data-state=acknowledged]");

          // After a reload: acknowledged by whom, muted until when.
          await page.reload();
          const state = page.locator("[data-testid=incident-summary] [data-testid=incident-state]");
          await state.waitFor();
          const text = await state.textContent();
          assert(text.includes(T.acknowledged) && text.includes(who.username), `acknowledged after reload: ${text}`);
          assert(text.includes(T.muted), `muted after reload: ${text}`);
          await screenshot(page, `incident-acknowledged-${lang}-${viewport}`, { fullPage: true });

          // Another alert of it: acknowledged by the incident's acknowledgement.
          await page.goto(`/alert/${mine[GROUPS - 1].alertId}`);
          await page.waitForSelector("[data-testid=alert-ack-state] [data-testid=alert-acknowledged]");
          await waitFor("every alert acknowledged", async () => {
            const ev = await apiRequest(server, "GET", "alerts/events?pageSize=50", { token });
            return ev.json.data.content.filter((e) => e.incidentId === incident && e.acknowledgedBy).length === GROUPS;
          });
          assert(page.problems.length === 0, page.problems.join("\n"));
        } finally {
          await closePage(page);
        }
      });
    }

    await test("incidents: the list filters open and resolved", async () => {
      const page = await newPage(browser, server, { viewport: "desktop" });
      try {
        await signIn(page, who);
        await page.goto("/incidents?state=open");
        await page.waitForSelector("[data-testid=incident-row-link]");
        assert((await page.locator("[data-testid=incident-row-link]").count()) === outages.length, "five open");
        await checkA11y(page, "incident list");
        await page.click("[data-testid=incident-filter-resolved]");
        await page.waitForURL("**/incidents?state=resolved");
        await waitFor(
          "no resolved incident",
          async () => (await page.locator("[data-testid=incident-row-link]").count()) === 0,
        );
      } finally {
        await closePage(page);
      }
    });
  } finally {
    await server?.stop().catch(() => {});
  }
}
