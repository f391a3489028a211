import {
  addUser,
  apiRequest,
  apiToken,
  assert,
  checkA11y,
  chooseLanguage,
  closePage,
  dateAt,
  daysFromNow,
  ingestRuns,
  minutesBeforeNow,
  newPage,
  screenshot,
  signIn,
  siteTimeZone,
  sleep,
  startServer,
  startSinks,
  testNow,
  waitFor,
} from "./lib.mjs";

const CASE = 890001;
/** A test case whose setting escalates after 1 minute (the timing asked of an escalation). */
const ESC_CASE = 890101;
const TEXT = {
  en: {
    ack: "Acknowledge",
    ackBy: "Acknowledged by",
    comments: "Comments",
    timeline: "Timeline",
    muted: "Muted until",
    windows: "Maintenance Windows",
    banner: "Maintenance now",
    maintenance: "Maintenance",
    mutedFrom: "Muted from alert",
    stripMaintenance: "Maintenance:",
    leftOut: "left out of these pass rates",
  },
  fr: {
    ack: "Acquitter",
    ackBy: "Acquittée par",
    comments: "Commentaires",
    timeline: "Historique",
    muted: "En sourdine jusqu’au",
    windows: "Fenêtres de maintenance",
    banner: "Maintenance en cours",
    maintenance: "En maintenance",
    mutedFrom: "Mise en sourdine depuis l’alerte",
    stripMaintenance: "En maintenance\u202f:",
    leftOut: "de ces taux de réussite",
  },
};

function run(id, caseId, minutesAgo, status) {
  return {
    engineRunId: `e2e-life-${id}`,
    testCase: {
      id: caseId,
      name: `Card unlock ${caseId - CASE}`,
      channel: "voice",
      ivr: { id: 8900, name: "Cards IVR" },
    },
    runTime: minutesBeforeNow(minutesAgo),
    runDuration: 30.5,
    status,
    runType: "Schedule",
    segments: [],
  };
}

export default async function alertLife({ browser, test }) {
  const sinks = await startSinks();
  const config = `[notify]
poll_ms = 100
public_url = "https://console.cxwatch.test"
${sinks.smtpToml("cxwatch <alerts@cxwatch.test>")}`;
  let server;
  try {
    server = await startServer({ args: [], config, env: { NODE_TLS_REJECT_UNAUTHORIZED: "0" } });
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = "0";
    const who = addUser(server, { username: "life-admin@example.com", password: "life-Admin-pass-1" });
    const viewer = addUser(server, {
      username: "life-viewer@example.com",
      password: "life-Viewer-pass-1",
      access: "read-only",
    });
    const key = server.cli(["apikey", "add", "--name", "e2e-life"]).trim();
    const combos = ["en", "fr"].flatMap((lang) => ["desktop", "phone"].map((viewport) => ({ lang, viewport })));
    const cases = combos.map((_, i) => CASE + i);
    let token = "";
    let groupId = 0;
    let escAlert = null;
    let trendReport = 0;

    await test("alert life: one failing run per test case opens an event; its mail links to acknowledge", async () => {
      await ingestRuns(
        server,
        key,
        [...cases, ESC_CASE].map((c) => run(`p${c}`, c, 30, "pass")),
      );
      token = await apiToken(server, who);
      const g = await apiRequest(server, "POST", "trs/v1/groups", {
        token,
        body: { name: "Cards life", channel: "voice", testCases: cases.map((id) => ({ id })) },
      });
      assert(g.status === 200, `group: ${g.text}`);
      groupId = g.json.data.id;
      // A trend report on the group over today: it leaves the muted runs out and says so.
      const today = testNow().toISOString().slice(0, 10);
      const rep = await apiRequest(server, "POST", "reports", {
        token,
        body: {
          name: "Cards life trend",
          reportTypeID: 2,
          testCaseGroupID: groupId,
          timeframeName: "Custom",
          timeframeBegin: daysFromNow(-1).toISOString().slice(0, 10),
          timeframeEnd: today,
          runType: "Schedule",
        },
      });
      assert(rep.status === 200, `report: ${rep.text}`);
      trendReport = rep.json.data.id;
      const d = await apiRequest(server, "POST", "distributions", {
        token,
        body: { name: "Cards night", contacts: [{ name: "Ops", type: 1, info: "night-ops@example.com" }] },
      });
      assert(d.status === 200, `list: ${d.text}`);
      const s = await apiRequest(server, "POST", "alerts/settings", {
        token,
        body: {
          name: "Cards unlock down",
          active: true,
          testCaseGroupId: groupId,
          distributionId: d.json.data.id,
          emailSubject: "Cards unlock failing",
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
      await ingestRuns(
        server,
        key,
        cases.map((c) => run(`f${c}`, c, 20, "fail")),
      );
      // A second setting escalates to the managers after 1 minute; its event opens now.
      const eg = await apiRequest(server, "POST", "trs/v1/groups", {
        token,
        body: { name: "Cards escalation", channel: "voice", testCases: [{ id: ESC_CASE }] },
      });
      assert(eg.status === 200, `group: ${eg.text}`);
      const managers = await apiRequest(server, "POST", "distributions", {
        token,
        body: { name: "Cards managers", contacts: [{ name: "Boss", type: 1, info: "cards-boss@example.com" }] },
      });
      assert(managers.status === 200, `list: ${managers.text}`);
      const es = await apiRequest(server, "POST", "alerts/settings", {
        token,
        body: {
          name: "Cards escalation",
          active: true,
          testCaseGroupId: eg.json.data.id,
          distributionId: d.json.data.id,
          emailSubject: "Cards escalation test",
          voiceMessage: "Cards down",
          smsPrefix: "[CX]",
          failureToAlert: 1,
          alertStatus: ["FAIL"],
          schedule: [1, 2, 3, 4, 5, 6, 7].map((day) => ({
            dayOfWeek: day,
            startTimeSlot: "00:00",
            endTimeSlot: "24:00",
          })),
          escalationDistributionId: managers.json.data.id,
          escalationDelayMin: 1,
        },
      });
      assert(es.status === 200 && es.json.data.escalationDelayMin === 1, `escalating setting: ${es.text}`);
      await ingestRuns(server, key, [run(`f${ESC_CASE}`, ESC_CASE, 0, "fail")]);
      const escEvents = await apiRequest(server, "GET", "alerts/events?pageSize=50", { token });
      escAlert = escEvents.json.data.content.find((e) => e.testCaseId === ESC_CASE);
      assert(escAlert, `the escalating event: ${escEvents.text}`);
      const mails = await waitFor("the four alert mails", async () => {
        // The first names the incident the four alerts form; the others say they joined it.
        const m = (await sinks.messages()).mail.filter((x) => x.subject.endsWith("Cards unlock failing"));
        return m.length === cases.length ? m : null;
      });
      for (const m of mails) {
        assert(/Acknowledge: https:\/\/console\.cxwatch\.test\/alert\/\d+\?acknowledge=1/.test(m.text), m.text);
      }
    });

    for (const [i, { lang, viewport }] of combos.entries()) {
      await test(`alert life (${lang}, ${viewport}): acknowledge from the mail's link, comment, mute for 1 h`, async () => {
        const T = TEXT[lang];
        const caseId = cases[i];
        const events = await apiRequest(server, "GET", "alerts/events?pageSize=50", { token });
        const event = events.json.data.content.find((e) => e.testCaseId === caseId);
        assert(event?.open && event.acknowledgedBy === null, `an open event: ${events.text}`);
        const id = event.alertId;
        // The mail's link, on this server.
        const mail = (await sinks.messages()).mail.find(
          (m) => m.subject.endsWith("Cards unlock failing") && m.text.includes(`/alert/${id}?`),
        );
        const link = /https:\/\/console\.cxwatch\.test(\/alert\/\d+\?acknowledge=1)/.exec(mail.text)[1];

        // A read-only account sees the timeline and no action.
        const ro = await newPage(browser, server, { viewport });
        try {
          await ro.goto("/");
          await chooseLanguage(ro, lang);
          await signIn(ro, viewer);
          await ro.goto(`${server.url}${link}`);
          await ro.waitForSelector("[data-testid=alert-timeline] [data-testid=timeline-entry]");
          assert((await ro.locator("[data-testid=acknowledge]").count()) === 0, "no Acknowledge for read-only");
          assert((await ro.locator("[data-testid=comment-text]").count()) === 0, "no comment form for read-only");
          assert((await ro.locator("[data-testid=mute-choices]").count()) === 0, "no mute for read-only");
        } finally {
          await closePage(ro);
        }

        const page = await newPage(browser, server, { viewport });
        try {
          await page.goto("/");
          await chooseLanguage(page, lang);
          await signIn(page, who);
          await page.goto(`${server.url}${link}`);
          await page.waitForSelector("[data-testid=alert-actions].alert-actions-asked");
          const timeline = page.locator("[data-testid=alert-timeline]");
          assert((await page.locator("#alert-timeline-title").textContent()) === T.timeline, "timeline title");
          await waitFor("the notified entry", async () => (await timeline.locator("[data-kind=notified]").count()) > 0);
          await checkA11y(page, `alert life before (${lang}, ${viewport})`);
          await screenshot(page, `alert-life-open-${lang}-${viewport}`, { fullPage: true });

          // Acknowledge: who and when, in the summary and the timeline.
          assert(
            (await page.locator("[data-testid=alert-actions] [data-testid=acknowledge]").textContent()) === T.ack,
            "label",
          );
          await page.click("[data-testid=alert-actions] [data-testid=acknowledge]");
          await page.waitForSelector("[data-testid=alert-ack-state] [data-testid=alert-acknowledged]");
          const ackText = await page.locator("[data-testid=alert-ack-state]").textContent();
          assert(ackText.includes(T.ackBy) && ackText.includes(who.username), `who: ${ackText}`);
          await timeline.locator("[data-kind=acknowledged]").waitFor();

          // A comment: in the thread and the timeline.
          const note = `IVR vendor paged (${lang} ${viewport})`;
          assert((await page.locator("#alert-comments-title").textContent()) === T.comments, "comments title");
          await page.fill("[data-testid=comment-text]", note);
          await page.click("[data-testid=comment-save]");
          await page.waitForSelector(`[data-testid=alert-comment]:has-text("${note}")`);
          await timeline.locator(`[data-kind=commented]:has-text("${note}")`).waitFor();
          assert((await page.locator("[data-testid=comment-text]").inputValue()) === "", "the form is emptied");

          // Mute for 1 h: an ad-hoc window on the test case.
          await page.click("[data-testid=mute-1h]");
          await page.waitForSelector(`[data-testid=banner-success]:has-text("${T.muted}")`);
          await checkA11y(page, `alert life after (${lang}, ${viewport})`);
          await screenshot(page, `alert-life-acknowledged-${lang}-${viewport}`, { fullPage: true });
        } finally {
          await closePage(page);
        }

        // While muted: a failing run is stored and marked, joins nothing, mails nobody.
        const before = (await sinks.messages()).mail.length;
        await ingestRuns(server, key, [run(`m${caseId}`, caseId, 0, "fail")]);
        const after = await apiRequest(server, "GET", `alerts/events/${id}`, { token });
        assert(after.json.data.testRunCount === 1, `the run did not join: ${after.json.data.testRunCount}`);
        assert(after.json.data.acknowledgedBy === who.username, "acknowledged");
        const today = testNow().toISOString().slice(0, 10);
        const yesterday = daysFromNow(-1).toISOString().slice(0, 10);
        const runs = await apiRequest(
          server,
          "GET",
          `trs/v1/testcases/${caseId}/runs?startDate=${yesterday}&endDate=${today}&pageNo=0&pageSize=10`,
          { token },
        );
        const marked = runs.json.data.content.filter((r) => r.maintenance === true);
        assert(marked.length === 1, `one marked run: ${runs.text}`);
        await sleep(1500);
        assert((await sinks.messages()).mail.length === before, "no mail while muted");
      });
    }

    for (const lang of ["en", "fr"]) {
      for (const viewport of ["desktop", "phone"]) {
        await test(`maintenance windows (${lang}, ${viewport}): the list, the banner, the drill, a window made and ended`, async () => {
          const T = TEXT[lang];
          const page = await newPage(browser, server, { viewport });
          try {
            await page.goto("/");
            await chooseLanguage(page, lang);
            await signIn(page, who);
            // The dashboard's banner while the mutes are active.
            await page.goto(`${server.url}/dashboard`);
            await page.waitForSelector("[data-testid=maintenance-banner] [data-testid=maintenance-active]");
            assert((await page.locator("[data-testid=maintenance-banner]").textContent()).includes(T.banner), "banner");
            await screenshot(page, `maintenance-banner-${lang}-${viewport}`);
            // The strip: the group's only runs of the last 15 minutes were muted: maintenance, not red.
            await page.click("[data-testid=main-runtype-Schedule]");
            const badge = page.locator(`[data-testid=strip-badge][data-group-id="${groupId}"]`);
            await page.waitForSelector(`[data-testid=strip-badge][data-group-id="${groupId}"][data-state=maintenance]`);
            assert((await badge.textContent()).includes(T.stripMaintenance), `badge: ${await badge.textContent()}`);
            await screenshot(page, `maintenance-strip-${lang}-${viewport}`);
            // The trend report: the muted runs are left out, and it says how many.
            await page.goto(`${server.url}/report/view/${trendReport}`);
            const note = page.locator("[data-testid=report-view-trend] [data-testid=maintenance-left-out]");
            await note.waitFor();
            assert(Number(await note.getAttribute("data-count")) >= cases.length, "every muted run left out");
            assert((await note.textContent()).includes(T.leftOut), `note: ${await note.textContent()}`);
            await checkA11y(page, `trend report with runs left out (${lang}, ${viewport})`);
            await screenshot(page, `maintenance-report-note-${lang}-${viewport}`, { fullPage: true });
            // The drill of the muted case's group shows the marked run as maintenance.
            await page.goto(`${server.url}/settings/maintenance`);
            await page.waitForSelector("[data-testid=maintenance-table] [data-testid=table-row]");
            assert((await page.locator("h1").textContent()) === T.windows, "title");
            const body = (await page.locator("[data-testid=maintenance-table]").textContent()) ?? "";
            assert(body.includes("Card unlock"), `the mutes: ${body}`);
            // A mute stores no reason: it reads in the reader's language.
            assert(body.includes(T.mutedFrom), `the mute's reason in ${lang}: ${body}`);
            await checkA11y(page, `maintenance list (${lang}, ${viewport})`);
            await screenshot(page, `maintenance-list-${lang}-${viewport}`, { fullPage: true });

            // A window made with the form: once, on the group, then ended early.
            const reason = `IVR release ${lang} ${viewport}`;
            await page.click("[data-testid=new-window]");
            await page.waitForSelector("[data-testid=window-form]");
            await page.fill("[data-testid=input-reason]", reason);
            await page.click("[data-testid=input-window-groups] button");
            await page.locator("[data-testid=input-window-groups] label:has-text('Cards life')").click();
            await page.keyboard.press("Escape");
            await checkA11y(page, `maintenance form (${lang}, ${viewport})`);
            await screenshot(page, `maintenance-form-${lang}-${viewport}`, { fullPage: true });
            await page.click("[data-testid=form-save]");
            await page.waitForURL(/\/settings\/maintenance$/);
            const row = page.locator(`[data-testid=maintenance-table] [data-testid=table-row]:has-text("${reason}")`);
            await row.waitFor();
            if (viewport === "phone") await row.locator(".accordion-toggle").click();
            await row.locator("[data-testid=window-state][data-state=active]").first().waitFor();
            await row.locator("[data-testid=end-window]").click();
            await row.locator("[data-testid=window-state][data-state=ended]").first().waitFor();

            // The drill of the muted runs: maintenance, not red. Over the site's yesterday and
            // today (its time zone's dates, not UTC's): the runs may be from before its midnight.
            const caseId = cases[0];
            const zone = await siteTimeZone(server);
            const [from, to] = [dateAt(zone, daysFromNow(-1)), dateAt(zone)];
            await page.goto(`${server.url}/report/drill/${caseId}/total/${from}/${to}`);
            await page.waitForSelector("[data-status=maintenance]");
            assert(
              (await page.locator("[data-status=maintenance]").first().textContent()).includes(T.maintenance),
              "badge",
            );
            await screenshot(page, `maintenance-drill-${lang}-${viewport}`);
          } finally {
            await closePage(page);
          }
        });
      }
    }
    await test("escalation: the second list's mail comes once, within 5 s of the 1-minute delay", async () => {
      const due = Date.parse(escAlert.alertTime) + 60_000;
      const wait = due + 15_000 - testNow().getTime();
      const mail = await waitFor(
        "the escalation mail",
        async () => (await sinks.messages()).mail.find((m) => m.subject === "Escalated: Cards escalation test"),
        Math.max(wait, 1000),
      );
      const late = mail.at - due;
      console.log(`  escalation mail ${late} ms after the 1-minute delay (alert ${escAlert.alertId})`);
      assert(mail.to.includes("cards-boss@example.com"), `to: ${mail.to}`);
      assert(late >= 0 && late <= 5000, `the escalation came ${late} ms after the delay`);
      await sleep(2000);
      const all = (await sinks.messages()).mail.filter((m) => m.subject === "Escalated: Cards escalation test");
      assert(all.length === 1, `once: ${all.length}`);
      const d = await apiRequest(server, "GET", `alerts/events/${escAlert.alertId}`, { token });
      assert(d.json.data.escalatedTime, `escalatedTime: ${d.text}`);
      assert(
        d.json.data.timeline.some((t) => t.kind === "escalated"),
        "the timeline has the escalation",
      );
    });
  } finally {
    await server?.stop().catch(() => {});
    sinks.stop();
  }
}
