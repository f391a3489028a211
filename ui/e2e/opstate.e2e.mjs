// What the operator sees of an outage at 3 a.m., in English and French, on a desktop and a
// phone: the failing-now bar naming each failing group's alert state (open, acknowledged,
// muted, no alert yet: 4 of 5 failures), the alert list's state filters, a group mute shown on
// the alert after a reload and extended (not doubled) when muted again, the dashboard listing
// that mute once, and the handover view listing the night (printable). axe on every screen.
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
  newPage,
  screenshot,
  signIn,
  startServer,
  testNow,
  waitFor,
} from "./lib.mjs";

const CASE = 930001;
const TEXT = {
  en: {
    open: "alert open, not acknowledged",
    acked: "acknowledged by",
    muted: "muted until",
    notYet: "no alert yet: 4 of 5 failures",
    groupMuted: "The whole group is muted until",
    extended: "Mute extended until",
    handover: "Handover",
    opened: "Opened",
  },
  fr: {
    open: "alerte ouverte, non acquittée",
    acked: "acquittée par",
    muted: "en sourdine jusqu’à",
    notYet: "pas encore d’alerte : 4 échecs sur 5",
    groupMuted: "Tout le groupe est en sourdine jusqu’au",
    extended: "Sourdine prolongée jusqu’au",
    handover: "Relève",
    opened: "Ouverte",
  },
};

function run(id, caseId, secondsAgo, status) {
  return {
    engineRunId: `e2e-opstate-${id}`,
    testCase: {
      id: caseId,
      name: `Card line ${caseId - CASE}`,
      channel: "voice",
      ivr: { id: 9300, name: "Cards IVR" },
    },
    runTime: new Date(testNow().getTime() - secondsAgo * 1000).toISOString(),
    runDuration: 30.5,
    status,
    runType: "Manual",
    segments: [],
  };
}

const week = [1, 2, 3, 4, 5, 6, 7].map((day) => ({ dayOfWeek: day, startTimeSlot: "00:00", endTimeSlot: "24:00" }));

export default async function opstate({ browser, test }) {
  let server;
  try {
    server = await startServer({ args: [], env: { NODE_TLS_REJECT_UNAUTHORIZED: "0" } });
    // The ingest helper's fetch talks to the test server's own certificate.
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = "0";
    const who = addUser(server, { username: "night-lead@example.com", password: "night-Lead-pass-1" });
    const key = server.cli(["apikey", "add", "--name", "e2e-opstate"]).trim();
    const combos = ["en", "fr"].flatMap((lang) => ["desktop", "phone"].map((viewport) => ({ lang, viewport })));
    // Cases 0..3: one Card Services group each (one per combination, muted by it); 4: Claims
    // (4 of 5 failures); 5: Loans (acknowledged); 6: Travel (its group muted).
    const cards = combos.map((_, i) => CASE + i);
    const claims = CASE + 4;
    const loans = CASE + 5;
    const travel = CASE + 6;
    let token = "";
    const groups = {};
    const alertOf = {};

    await test("opstate: a 3 a.m. outage: open, acknowledged, muted and nearly alerting groups", async () => {
      const all = [...cards, claims, loans, travel];
      await ingestRuns(
        server,
        key,
        all.map((c) => run(`p${c}`, c, 900, "pass")),
      );
      token = await apiToken(server, who);
      const d = await apiRequest(server, "POST", "distributions", {
        token,
        body: { name: "Night on call", contacts: [{ name: "Ops", type: 1, info: "night@example.com" }] },
      });
      assert(d.status === 200, `list: ${d.text}`);
      const made = async (name, cases, threshold) => {
        const g = await apiRequest(server, "POST", "trs/v1/groups", {
          token,
          body: { name, channel: "voice", testCases: cases.map((id) => ({ id })) },
        });
        assert(g.status === 200, `group: ${g.text}`);
        const s = await apiRequest(server, "POST", "alerts/settings", {
          token,
          body: {
            name: `${name} down`,
            active: true,
            testCaseGroupId: g.json.data.id,
            distributionId: d.json.data.id,
            emailSubject: `${name} failing`,
            voiceMessage: "down",
            smsPrefix: "[CX]",
            failureToAlert: threshold,
            alertStatus: ["FAIL"],
            schedule: week,
          },
        });
        assert(s.status === 200, `setting: ${s.text}`);
        return g.json.data.id;
      };
      for (const [i, c] of cards.entries()) groups[c] = await made(`Card Services ${i + 1}`, [c], 1);
      groups[claims] = await made("Claims", [claims], 5);
      groups[loans] = await made("Loans", [loans], 1);
      groups[travel] = await made("Travel", [travel], 1);
      await ingestRuns(server, key, [
        ...[...cards, loans, travel].map((c) => run(`f${c}`, c, 60, "fail")),
        ...[4, 3, 2, 1].map((k) => run(`f${claims}-${k}`, claims, k * 10, "fail")),
      ]);
      const events = await apiRequest(server, "GET", "alerts/events?pageSize=50", { token });
      for (const e of events.json.data.content) alertOf[e.testCaseId] = e.alertId;
      for (const c of [...cards, loans, travel]) assert(alertOf[c], `an event of ${c}: ${events.text}`);
      assert(!alertOf[claims], "4 of 5 failures open nothing");
      const ack = await apiRequest(server, "POST", `alerts/${alertOf[loans]}/acknowledge`, { token });
      assert(ack.status === 200, `ack: ${ack.text}`);
      const mute = await apiRequest(server, "POST", `alerts/${alertOf[travel]}/mute`, {
        token,
        body: { until: new Date(testNow().getTime() + 3_600_000).toISOString(), target: "group" },
      });
      assert(mute.status === 200, `mute: ${mute.text}`);
    });

    for (const [i, { lang, viewport }] of combos.entries()) {
      const T = TEXT[lang];
      await test(`opstate (${lang}, ${viewport}): the failing-now bar names each group's alert state`, async () => {
        const page = await newPage(browser, server, { viewport });
        try {
          await page.goto("/");
          await chooseLanguage(page, lang);
          await signIn(page, who);
          await page.waitForSelector("[data-testid=dashboard][data-ready=true]");
          const state = (c) =>
            page.locator(`[data-testid=incident][data-group-id="${groups[c]}"] ~ [data-testid=incident-state]`);
          await waitFor("the states on the bar", async () => (await state(claims).count()) > 0, 20000);
          // Earlier combinations muted their own Card Services group; the others are still open.
          for (const [k, c] of cards.entries()) {
            const want = k < i ? "muted" : "open";
            assertEqual(await state(c).getAttribute("data-state"), want, `Card Services ${k + 1}`);
          }
          const text = async (c) => (await state(c).textContent()) ?? "";
          assert((await text(cards[i])) === T.open, `open: ${await text(cards[i])}`);
          assert(
            (await text(loans)).startsWith(T.acked) && (await text(loans)).includes(who.username),
            `ack: ${await text(loans)}`,
          );
          assert(/\d{2}:\d{2}$/.test(await text(loans)), `ack time: ${await text(loans)}`);
          assert((await text(travel)).startsWith(T.muted), `muted: ${await text(travel)}`);
          assert((await text(claims)) === T.notYet, `not yet: ${await text(claims)}`);
          assertEqual(
            await state(cards[i]).getAttribute("href"),
            `/alert/${alertOf[cards[i]]}`,
            "the open state's link",
          );
          await checkA11y(page, `failing-now bar (${lang}, ${viewport})`);
          await screenshot(page, `opstate-bar-${lang}-${viewport}`);
          // The state leads to the alert.
          await state(cards[i]).click();
          await page.waitForURL(`**/alert/${alertOf[cards[i]]}`);
          await page.waitForSelector("[data-testid=alert-actions] [data-testid=mute-choices]");

          // Mute the whole group for 1 h: shown on the alert after a reload.
          await page.check("[data-testid=mute-target-group]");
          await page.click("[data-testid=mute-1h]");
          await page.waitForSelector("[data-testid=alert-mute][data-target=group]");
          await page.reload();
          const note = page.locator("[data-testid=alert-mute]");
          await note.waitFor();
          assertEqual(await note.getAttribute("data-target"), "group", "the group mute after a reload");
          assert((await note.textContent()).includes(T.groupMuted), `note: ${await note.textContent()}`);
          assert((await note.textContent()).includes(who.username), "who muted");
          const windowId = Number(await note.getAttribute("data-window-id"));
          const before = await apiRequest(server, "GET", `maintenance/windows/${windowId}`, { token });
          // Muting again extends the same window.
          await page.click("[data-testid=mute-extend]");
          await page.waitForSelector(`[data-testid=banner-success]:has-text("${T.extended}")`);
          const after = await apiRequest(server, "GET", `maintenance/windows/${windowId}`, { token });
          assert(
            Date.parse(after.json.data.endTime) >= Date.parse(before.json.data.endTime) + 3_500_000,
            `extended: ${before.json.data.endTime} -> ${after.json.data.endTime}`,
          );
          const again = await apiRequest(server, "POST", `alerts/${alertOf[cards[i]]}/mute`, {
            token,
            body: { until: new Date(testNow().getTime() + 3_600_000).toISOString(), target: "group" },
          });
          assert(again.json.data.windowId === windowId && again.json.data.extended === false, `again: ${again.text}`);
          await checkA11y(page, `alert with a group mute (${lang}, ${viewport})`);
          await screenshot(page, `opstate-alert-muted-${lang}-${viewport}`, { fullPage: true });
          // The dashboard lists the group's mute once.
          await page.goto(`${server.url}/dashboard`);
          await page.waitForSelector("[data-testid=maintenance-banner]");
          const lines = await page.$$eval("[data-testid=maintenance-active]", (l) => l.map((e) => e.textContent ?? ""));
          const name = `Card Services ${i + 1}`;
          assertEqual(
            lines.filter((l) => l.includes(name)).length,
            1,
            `the mute of ${name} once in ${JSON.stringify(lines)}`,
          );
        } finally {
          await closePage(page);
        }
      });

      await test(`opstate (${lang}, ${viewport}): the alert list's filters and the handover of the night`, async () => {
        const page = await newPage(browser, server, { viewport });
        try {
          await page.goto("/");
          await chooseLanguage(page, lang);
          await signIn(page, who);
          await page.goto(`${server.url}/alerts`);
          const filter = page.locator("[data-testid=alert-state-filter]");
          await filter.waitFor();
          for (const state of ["open", "unacknowledged", "mine"]) {
            await filter.selectOption(state);
            await page.waitForURL((u) => u.searchParams.get("state") === state);
            const want = await apiRequest(server, "GET", `alerts/events?state=${state}&pageSize=50`, { token });
            const ids = want.json.data.content.map((e) => e.alertId).sort((a, b) => a - b);
            await waitFor(`the ${state} rows`, async () => {
              const shown = await page.$$eval("[data-testid=alert-link], [data-testid=alert-open-link]", (l) =>
                l.map((e) => Number((e.getAttribute("href") ?? "").split("/").pop())),
              );
              const unique = [...new Set(shown)].sort((a, b) => a - b);
              return JSON.stringify(unique) === JSON.stringify(ids) ? true : null;
            });
            if (state === "unacknowledged") assert(!ids.includes(alertOf[loans]), "the acknowledged alert is left out");
            if (state === "mine") assert(ids.includes(alertOf[loans]) && ids.includes(alertOf[travel]), "mine");
          }
          await checkA11y(page, `alerts filtered (${lang}, ${viewport})`);
          await screenshot(page, `opstate-alerts-mine-${lang}-${viewport}`, { fullPage: true });

          // The handover: the night since 12 hours, printable.
          await page.click("[data-testid=handover-link]");
          await page.waitForURL("**/alerts/handover");
          await page.waitForSelector("[data-testid=handover-period]");
          assertEqual(await page.locator("h1").textContent(), T.handover, "title");
          assert((await page.title()).startsWith(T.handover), `tab title: ${await page.title()}`);
          await page.selectOption("[data-testid=handover-since]", "12h");
          await page.waitForSelector("[data-testid=handover-row]");
          const kinds = await page.$$eval("[data-testid=handover-row]", (l) =>
            l.map((r) => r.getAttribute("data-kind")),
          );
          assert(kinds.filter((k) => k === "opened").length >= 6, `the openings: ${kinds}`);
          assert(kinds.includes("acknowledged") && kinds.includes("muted"), `what was done: ${kinds}`);
          const first = await page.locator("[data-testid=handover-row][data-kind=opened] td").nth(1).textContent();
          assertEqual(first, T.opened, "the kind in the language");
          await checkA11y(page, `handover (${lang}, ${viewport})`);
          await screenshot(page, `opstate-handover-${lang}-${viewport}`, { fullPage: true });
          await page.emulateMedia({ media: "print" });
          assert(!(await page.locator("[data-testid=handover-print]").isVisible()), "no controls on paper");
          assert(await page.locator("[data-testid=handover-table]").isVisible(), "the table on paper");
          await screenshot(page, `opstate-handover-print-${lang}-${viewport}`, { fullPage: true });
        } finally {
          await closePage(page);
        }
      });
    }
  } finally {
    await server?.stop().catch(() => {});
  }
}
