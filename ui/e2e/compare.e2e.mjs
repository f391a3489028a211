// The run detail's comparison with the last passing run of its test case, in English and
// French on desktop and phone: it opens on the first step that differs (scrolled to, focused,
// highlighted), side by side with the passing run's expected and heard text, latency and MOS;
// a run with no pass before it says so; axe finds nothing serious. And the run of an alert,
// reached from the alert's runs, offers the alert's acknowledge, mute and ticket actions.
import {
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
  testNow,
  waitFor,
} from "./lib.mjs";

/** The test cases of these tests, apart from the demo's. */
const CASE = 880001;
const ALERT_CASE = 880101;

const TEXT = {
  en: {
    title: "Comparison with the last passing run",
    first: "First difference",
    none: "No run of this test case passed before this one.",
  },
  fr: {
    title: "Comparaison avec la dernière exécution réussie",
    first: "Première différence",
    none: "Aucune exécution de ce cas de test n’a réussi avant celle-ci.",
  },
};

/** A run at a fixed instant: greeting, menu (what was heard there), a key press. */
function run(id, caseId, time, status, menuHeard, menuLatency) {
  return {
    engineRunId: `e2e-compare-${id}`,
    testCase: {
      id: caseId,
      name: `Balance enquiry ${caseId - CASE}`,
      channel: "voice",
      ivr: { id: 8800, name: "Compare IVR" },
    },
    runTime: time,
    runDuration: 42.5,
    status,
    runType: "Schedule",
    mosCqIn: status === "pass" ? 4.3 : 3.1,
    segments: [
      {
        segmentId: 1,
        segmentName: "Greeting",
        steps: [
          {
            stepId: 11,
            stepType: "PROMPT",
            typeDisplayText: "Prompt",
            prompt: "Welcome to Northbridge",
            promptLatencyMin: 200,
            promptLatencyMax: 3000,
            testResult: { status: "pass", utterance: "Welcome to Northbridge.", latency: 800, confidence: 0.95 },
          },
        ],
      },
      {
        segmentId: 2,
        segmentName: "Main menu",
        steps: [
          {
            stepId: 21,
            stepType: "PROMPT",
            typeDisplayText: "Prompt",
            prompt: "For your balance press 1",
            promptLatencyMin: 200,
            promptLatencyMax: 3000,
            testResult: { status: "pass", utterance: menuHeard, latency: menuLatency, confidence: 0.9 },
          },
          {
            stepId: 22,
            stepType: "DTMF",
            typeDisplayText: "Key press",
            testResult: { status, latency: 400 },
          },
        ],
      },
    ],
  };
}

export default async function compare({ server, browser, users, test }) {
  const { admin } = users;
  const key = server.cli(["apikey", "add", "--name", "e2e-compare"]).match(/cxw_[0-9a-f]+/)?.[0];
  assert(key, "an ingest API key from the CLI");
  let token = "";
  let passId = 0;
  let failId = 0;

  await test("comparison set-up: a pass, then a failure whose menu heard something else", async () => {
    token = await apiToken(server, admin);
    await ingest(server, key, [
      run("p0", CASE, "2026-01-14T09:00:00Z", "pass", "For your balance press 1", 900),
      run("p1", CASE, "2026-01-15T09:00:00Z", "pass", "For your balance, press 1.", 1000),
      run("w1", CASE, "2026-01-15T09:30:00Z", "warn", "For your balance press 1", 1100),
      run("f1", CASE, "2026-01-15T10:00:00Z", "fail", "All our agents are busy", 1200),
    ]);
    const list = await apiRequest(
      server,
      "GET",
      `trs/v1/testcases/${CASE}/runs?startDate=2026-01-14&endDate=2026-01-15&pageNo=0&pageSize=10`,
      { token },
    );
    const runs = list.json.data.content;
    assertEqual(runs.length, 4, `the runs: ${list.text}`);
    failId = runs[0].runId;
    passId = runs[2].runId;
    const first = runs[3].runId;
    const last = await apiRequest(server, "GET", `trs/v1/testruns/${failId}/lastPassing`, { token });
    assertEqual(last.json.data.runId, passId, "the last pass before the failure");
    const none = await apiRequest(server, "GET", `trs/v1/testruns/${first}/lastPassing`, { token });
    assertEqual(none.json.data.runId, null, "nothing passed before the first run");
  });

  for (const lang of ["en", "fr"]) {
    for (const viewport of ["desktop", "phone"]) {
      await test(`comparison (${lang}, ${viewport}): opens on the first difference, side by side with the last pass`, async () => {
        const T = TEXT[lang];
        const p = await newPage(browser, server, { viewport });
        try {
          await p.goto("/");
          if (lang === "fr") await chooseLanguage(p, "fr");
          await signIn(p, admin);
          await p.goto(`/report/run/${failId}`);
          await p.getByTestId("compare-open").click();
          await p.waitForURL((u) => u.search.includes("compare=1"));
          const firstRow = p.locator("[data-testid=compare-row][data-first=true]");
          await firstRow.waitFor();
          assertEqual(await p.locator("#compare-title").textContent(), T.title, "the title");
          assertEqual(
            await p.getAttribute("[data-testid=compare-run-before]", "data-run-id"),
            String(passId),
            "compared with the last passing run (not the warning between)",
          );
          // The greeting agrees (case and punctuation aside); the menu is the first difference.
          assertEqual(await firstRow.getAttribute("data-key"), "2/21", "the first difference");
          assertEqual(
            await p.locator("[data-testid=compare-row][data-key='1/11']").getAttribute("data-differs"),
            "false",
            "the greeting agrees",
          );
          const heard = await firstRow.locator("[data-testid=compare-heard]").allTextContents();
          assertEqual(heard, ["All our agents are busy", "For your balance, press 1."], "heard, side by side");
          assert((await firstRow.textContent()).includes(T.first), "said to be the first difference");
          const latency = await firstRow.locator("[data-testid=compare-latency]").allTextContents();
          assert(latency[0].includes(lang === "fr" ? "1,20" : "1.20"), `this run's latency: ${latency}`);
          const mos = await p.locator("[data-testid=compare-mos]").allTextContents();
          assert(mos.length === 2 && mos[0].includes(lang === "fr" ? "3,1" : "3.1"), `both MOS: ${mos}`);
          // Opened on it: focused and in the window, highlighted.
          const where = await firstRow.evaluate((e) => ({
            focused: document.activeElement === e,
            top: e.getBoundingClientRect().top,
            bottom: e.getBoundingClientRect().bottom,
            h: innerHeight,
            border: getComputedStyle(e).borderTopWidth,
          }));
          assert(where.focused, "the first difference has the focus");
          assert(where.top >= 0 && where.top < where.h, `the first difference is in view (${where.top} of ${where.h})`);
          assert(parseFloat(where.border) >= 2, `highlighted (${where.border})`);
          await checkA11y(p, `comparison (${lang}, ${viewport})`);
          await screenshot(p, `compare-${lang}-${viewport}`);
          // A reload keeps the comparison open; closing it leaves the run's page.
          await p.reload();
          await firstRow.waitFor();
          await p.getByTestId("compare-close").click();
          await p.getByTestId("compare-open").waitFor();
          assert(!p.url().includes("compare=1"), "closed");
          // The first pass has nothing to compare with.
          const list = await apiRequest(
            server,
            "GET",
            `trs/v1/testcases/${CASE}/runs?startDate=2026-01-14&endDate=2026-01-14`,
            { token },
          );
          await p.goto(`/report/run/${list.json.data[0].runId}?compare=1`);
          assertEqual(await p.getByTestId("compare-none").textContent(), T.none, "no earlier pass");
          assertEqual(p.problems, [], "page problems");
        } finally {
          await closePage(p);
        }
      });
    }
  }

  await test("the run of an alert: acknowledge and mute from the run, reached from the alert's runs", async () => {
    await ingest(server, key, [
      run("alert-pass", ALERT_CASE, minutesBeforeNow(30), "pass", "For your balance press 1", 900),
    ]);
    const ag = await apiRequest(server, "POST", "trs/v1/groups", {
      token,
      body: { name: "Compare alert cases", channel: "voice", testCases: [{ id: ALERT_CASE }] },
    });
    assertEqual(ag.status, 200, `group: ${ag.text}`);
    const d = await apiRequest(server, "POST", "distributions", {
      token,
      body: { name: "Compare night", contacts: [{ name: "Ops", type: 1, info: "compare-ops@example.com" }] },
    });
    assertEqual(d.status, 200, `list: ${d.text}`);
    const s = await apiRequest(server, "POST", "alerts/settings", {
      token,
      body: {
        name: "Compare balance failing",
        active: true,
        testCaseGroupId: ag.json.data.id,
        distributionId: d.json.data.id,
        emailSubject: "Balance failing",
        voiceMessage: "Balance down",
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
    assertEqual(s.status, 200, `setting: ${s.text}`);
    await ingest(server, key, [
      run("alert-fail", ALERT_CASE, testNow().toISOString(), "fail", "All our agents are busy", 1200),
    ]);
    let event = null;
    await waitFor("the alert event", async () => {
      const events = await apiRequest(server, "GET", "alerts/events?pageSize=100", { token });
      event = events.json?.data?.content?.find((e) => e.testCaseId === ALERT_CASE && e.open);
      return !!event;
    });
    const id = event.alertId;
    const p = await newPage(browser, server, { viewport: "desktop" });
    try {
      await signIn(p, admin);
      await p.goto(`/alert/${id}`);
      await p.locator("[data-testid=alert-runs] [data-testid=run-link]").first().click();
      await p.waitForURL((u) => u.pathname.startsWith("/report/run/") && u.search.includes(`alert=${id}`));
      const bar = p.getByTestId("run-alert");
      await bar.waitFor();
      // The comparison from the alert's run: the pass half an hour before.
      await p.getByTestId("compare-open").click();
      await p.locator("[data-testid=compare-row][data-first=true]").waitFor();
      await checkA11y(p, "the run of an alert with its comparison");
      await screenshot(p, "compare-alert-run-desktop-en");
      await bar.locator("[data-testid=acknowledge]").click();
      await bar.locator("[data-testid=alert-acknowledged]").waitFor();
      const after = await apiRequest(server, "GET", `alerts/events/${id}`, { token });
      assertEqual(after.json.data.acknowledgedBy, admin.username, "acknowledged from the run");
      await bar.locator("[data-testid=mute-1h]").click();
      await p.waitForSelector('[data-testid=banner-success]:has-text("Muted until")');
      await waitFor("the mute made from the run", async () => {
        const now = await apiRequest(server, "GET", "maintenance/now", { token });
        return (now.json?.data?.active ?? []).some((w) => w.alertId === id);
      });
      // Reload: the alert's state is on the run's page.
      await p.reload();
      await bar.locator("[data-testid=alert-acknowledged]").waitFor();
      await screenshot(p, "compare-alert-run-acknowledged-desktop-en");
      assertEqual(p.problems, [], "page problems");
    } finally {
      await closePage(p);
    }
  });
}

/** What a test engine does: POSTs `runs` with its key (the server's certificate is self-signed). */
async function ingest(server, key, runs) {
  const r = await apiRequest(server, "POST", "ingest/v1/runs", { token: key, body: { runs } });
  assert(r.status === 200 && r.json?.data?.rejected?.length === 0, `ingest: ${r.text}`);
  return r.json.data;
}
