// From a red bar to the cause (items 1-3), in English and French, on a desktop and a
// phone: the run detail opens on a summary of the run and its failing step (expected against
// heard, latency against its limit, confidence, its own player, a 'jump to' for each failing
// step; a Call Connect does not read '<Utterance not recognized>'); the MOS drill lists the
// worst calls first and every run list sorts by its columns; the latency spike shows its day
// and hour at first sight, coloured by the count against the usual, and its latency is carried
// to the run's slow step. Then the clicks and seconds from the dashboard to a failing step's
// audio, to the worst MOS call and to the slowest step of the latency spike, printed.
import {
  apiRequest,
  apiToken,
  assert,
  checkA11y,
  chooseLanguage,
  closePage,
  dateAt,
  dayBefore,
  newPage,
  screenshot,
  signIn,
  siteDayIsYoung,
  siteTime,
  siteTimeZone,
  sleep,
  waitForDemoData,
} from "./lib.mjs";

const TEXT = {
  en: { notRecognized: "<Utterance not recognized>", failing: "Failing step", spike: "Latency spike" },
  fr: { notRecognized: "<Énoncé non reconnu>", failing: "Étape en échec", spike: "Pic de latence" },
};

const LATENCY_REPORT = "Retail Banking latency by hour - last 7 days";
const MOS_REPORT = "Insurance Claims call quality (MOS) - last 7 days";

/** The date `days` before `date` (YYYY-MM-DD). */
function daysBefore(date, days) {
  const d = new Date(`${date}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() - days);
  return d.toISOString().slice(0, 10);
}

async function reportNamed(server, token, name) {
  const r = await apiRequest(server, "GET", "reports?pageSize=100", { token });
  const list = r.json?.data?.content ?? r.json?.data ?? [];
  return list.find((x) => x.name === name);
}

/** Waits until the demo's 7 days of history hold the latency spike and the bad audio. */
async function waitForIncidents(server, token, spikeDay) {
  let last = "";
  for (let i = 0; i < 360; i++) {
    const lat = await reportNamed(server, token, LATENCY_REPORT);
    const mos = await reportNamed(server, token, MOS_REPORT);
    if (lat && mos) {
      const data = (await apiRequest(server, "GET", `reports/${lat.id}/latency`, { token })).json?.data;
      const day = data?.latencyByDay?.find((d) => d.date === spikeDay);
      const m = await apiRequest(
        server,
        "GET",
        `reports/${mos.id}/testruns?minMos=0&maxMos=5&sort=mosCqIn,asc&pageSize=1`,
        { token },
      );
      const worst = m.json?.data?.content?.[0]?.mosCqIn;
      const days = data?.latencyByDay?.length ?? 0;
      if (day && days >= 7 && worst !== undefined && worst < 3) return { lat, mos, worst };
      last = `${days} days of latency, spike day ${day ? "in" : "not in"}, worst MOS ${worst}`;
    }
    await sleep(1000);
  }
  throw new Error(`the demo's incidents did not arrive (${last})`);
}

/** A failing run of `day` with a failing step that has audio, and its detail. */
async function failingRun(server, token, day) {
  const groups = (await apiRequest(server, "GET", "trs/v1/groups", { token })).json?.data ?? [];
  for (const g of groups.filter((x) => x.channel === "voice")) {
    const runs = await apiRequest(
      server,
      "GET",
      `trs/v1/groups/${g.id}/runs?startDate=${day}&status=failure&pageSize=20`,
      { token },
    );
    for (const r of runs.json?.data?.content ?? []) {
      const d = (await apiRequest(server, "GET", `trs/v1/testruns/${r.runId}`, { token })).json?.data;
      const steps = d.segments.flatMap((s) => s.steps);
      const failing = steps.filter((s) => s.testResult.status === "fail" || s.testResult.status === "stopped");
      if (failing.length && failing[0].testResult.attachmentUrl) return { run: d, steps, failing };
    }
  }
  return null;
}

const top = (page, sel) =>
  page
    .locator(sel)
    .first()
    .evaluate((e) => e.getBoundingClientRect().top + window.scrollY);

export default async function investigate({ server, browser, users, test }) {
  const { admin } = users;
  await waitForDemoData(server, admin, { runsToday: false });
  const token = await apiToken(server, admin);
  const zone = await siteTimeZone(server);
  const today = dateAt(zone);
  const spikeDay = daysBefore(today, 2);
  // In the site's first hour the demo has no failing run today yet: the day before's.
  const runDay = siteDayIsYoung(zone) ? dayBefore(today) : today;
  const figures = [];

  // Item 1: the run detail opens on what went wrong.
  let found = null;
  for (let i = 0; i < 120 && !found; i++) {
    found = await failingRun(server, token, runDay);
    if (!found) await sleep(1000);
  }
  for (const lang of ["en", "fr"]) {
    for (const viewport of ["desktop", "phone"]) {
      await test(`run detail (${lang}, ${viewport}): opens on the run's summary and its failing step`, async () => {
        assert(found, "a failing run with a failing step that has audio");
        const { run, steps, failing } = found;
        const T = TEXT[lang];
        const page = await newPage(browser, server, { viewport });
        try {
          await page.goto("/");
          await chooseLanguage(page, lang);
          await signIn(page, admin);
          await page.goto(`/report/run/${run.runId}`);
          await page.waitForSelector("[data-testid=run-summary] [data-testid=focus-step]");
          const height = page.viewportSize().height;
          // The summary comes first, before every step card, and its player is on the first screen.
          const summaryTop = await top(page, "[data-testid=run-summary]");
          const firstStep = await top(page, "[data-testid=step]");
          assert(summaryTop < firstStep, `the summary (${summaryTop}) is above the steps (${firstStep})`);
          const focus = page.locator("[data-testid=focus-step]");
          assert((await focus.getAttribute("data-kind")) === "failing", "the summary shows the failing step");
          const stepId = Number(await focus.getAttribute("data-step-id"));
          assert(stepId === failing[0].stepId, `the first failing step (${stepId} vs ${failing[0].stepId})`);
          assert((await focus.locator("h2").textContent()).includes(T.failing), "headed as the failing step");
          const player = await top(page, "[data-testid=focus-player]");
          assert(player < height, `the failing step's player is on the first screen (${player} < ${height})`);
          const expected = (await page.textContent("[data-testid=focus-expected]")).trim();
          assert(expected === (failing[0].prompt || "—"), `expected prompt (${expected})`);
          const heard = (await page.textContent("[data-testid=focus-heard]")).trim();
          assert(heard === (failing[0].testResult.utterance ?? T.notRecognized), `what was heard (${heard})`);
          const lat = await page.textContent("[data-testid=focus-latency]");
          if (failing[0].promptLatencyMax) assert(lat.includes("/"), `latency against its limit (${lat})`);
          await page.locator("[data-testid=focus-confidence]").waitFor();
          // A jump to each failing step.
          const jumps = page.locator("[data-testid=jump-link][data-kind=failing]");
          assert((await jumps.count()) === failing.length, `a jump per failing step (${await jumps.count()})`);
          await jumps.last().click();
          const target = `step-${failing[failing.length - 1].stepId}`;
          await page.waitForFunction((id) => location.hash === `#${id}`, target);
          const inView = await page
            .locator(`#${target}`)
            .evaluate((e) => e.getBoundingClientRect().top >= 0 && e.getBoundingClientRect().top < window.innerHeight);
          assert(inView, "the jump brings the step into view");
          // A Call Connect expects no speech.
          const connect = steps.find((s) => s.stepType === "CALL_CONNECT" && s.testResult.utterance == null);
          if (connect) {
            const text = await page.textContent(`#step-${connect.stepId} [data-testid=step-utterance]`);
            assert(!text.includes(T.notRecognized), `a Call Connect does not read '${T.notRecognized}' (${text})`);
          }
          await page.evaluate(() => window.scrollTo(0, 0));
          await screenshot(page, `invest-run-summary-${viewport}-${lang}`);
          await checkA11y(page, `run detail summary (${viewport}, ${lang})`);
          assert(page.problems.length === 0, page.problems.join("\n"));
        } finally {
          await closePage(page);
        }
      });
    }
  }

  // Items 2 and 3 need the 7 days of history.
  let incidents = null;
  await test("set-up: the demo's 7 days hold the latency spike and the bad audio", async () => {
    incidents = await waitForIncidents(server, token, spikeDay);
  });

  for (const lang of ["en", "fr"]) {
    for (const viewport of ["desktop", "phone"]) {
      await test(`MOS drill (${lang}, ${viewport}): the worst calls first, every column sorts`, async () => {
        assert(incidents, "the incidents are in");
        const { mos } = incidents;
        const page = await newPage(browser, server, { viewport });
        try {
          await page.goto("/");
          await chooseLanguage(page, lang);
          await signIn(page, admin);
          await page.goto(`/report/view/${mos.id}`);
          await page.waitForSelector("[data-testid=mos-table] a[data-testid^=mos-min-]");
          // The lowest minimum of the table.
          const mins = await page.$$eval("[data-testid=mos-table] a[data-testid^=mos-min-]", (l) =>
            l.map((a) => ({
              id: a.getAttribute("data-testid"),
              v: Number.parseFloat(a.textContent.replace(",", ".")),
            })),
          );
          const lowest = mins.reduce((a, b) => (b.v < a.v ? b : a));
          await page.click(`[data-testid=${lowest.id}]`);
          await page.waitForURL(/\/report\/mos\//);
          await page.waitForSelector("[data-testid=runs-table] [data-testid=table-row]");
          const mosOf = () =>
            page.$$eval("[data-testid=runs-table] [data-testid=table-row]", (rows) =>
              rows.map((r) => {
                const cell = r.querySelector("[data-col=mosCqIn]");
                return cell ? Number.parseFloat(cell.textContent.replace(",", ".")) : null;
              }),
            );
          if (viewport === "desktop") {
            const values = await mosOf();
            assert(values.length > 1, "runs are listed");
            assert(
              values.every((v, i) => i === 0 || v >= values[i - 1]),
              `worst MOS first (${values.slice(0, 8)})`,
            );
            assert(values[0] <= lowest.v + 0.05, `the first run has the lowest MOS (${values[0]} vs ${lowest.v})`);
            await screenshot(page, `invest-mos-runs-${viewport}-${lang}`);
            // Every column sorts: duration descending.
            await page.click("[data-testid=sort-runDuration]");
            await page.waitForURL(/sort=runDuration%2Casc|sort=runDuration,asc/);
            await page.click("[data-testid=sort-runDuration]");
            await page.waitForURL(/sort=runDuration%2Cdesc|sort=runDuration,desc/);
            await page.waitForFunction(() => {
              const cells = [...document.querySelectorAll("[data-testid=runs-table] [data-col=runDuration]")].map((c) =>
                Number.parseFloat(c.textContent.replace(",", ".")),
              );
              return cells.length > 1 && cells.every((v, i) => i === 0 || v <= cells[i - 1]);
            });
            for (const key of ["runId", "testCaseName", "runTime", "runStatus", "mosCqIn"]) {
              assert(await page.locator(`[data-testid=sort-${key}]`).count(), `the ${key} column sorts`);
            }
          } else {
            const sortSelect = page.locator("[data-testid=runs-table] [data-testid=phone-sort]");
            assert((await sortSelect.inputValue()) === "mosCqIn,asc", "the phone lists the worst MOS first");
            await sortSelect.selectOption("runDuration,desc");
            await page.waitForURL(/sort=runDuration%2Cdesc|sort=runDuration,desc/);
            await screenshot(page, `invest-mos-runs-${viewport}-${lang}`);
          }
          await checkA11y(page, `MOS runs (${viewport}, ${lang})`);
          assert(page.problems.length === 0, page.problems.join("\n"));
        } finally {
          await closePage(page);
        }
      });
    }
  }

  for (const lang of ["en", "fr"]) {
    for (const viewport of ["desktop", { width: 1024, height: 768 }, "phone"]) {
      const vname = typeof viewport === "string" ? viewport : `${viewport.width}`;
      await test(`latency spike (${lang}, ${vname}): its day and hour at first sight, its latency carried to the step`, async () => {
        assert(incidents, "the incidents are in");
        const { lat } = incidents;
        const T = TEXT[lang];
        const page = await newPage(browser, server, { viewport });
        try {
          await page.goto("/");
          await chooseLanguage(page, lang);
          await signIn(page, admin);
          await page.goto(`/report/view/${lat.id}`);
          const callout = page.locator("[data-testid=latency-spike]");
          await callout.waitFor();
          assert((await callout.locator("h2").textContent()).includes(T.spike), "the spike is named");
          const height = page.viewportSize().height;
          const calloutTop = await top(page, "[data-testid=latency-spike]");
          assert(calloutTop < height, `the spike is on the first screen (${calloutTop})`);
          // The day as well as the hour: the demo's spike is 2 days ago, 13:00 to 17:30.
          const spikeCell = page.locator("[data-testid=day-heat-map] td.spike a");
          const cellId = await spikeCell.getAttribute("data-testid");
          const [, date, hour] = /^day-heat-(\d{4}-\d\d-\d\d)-(\d+)$/.exec(cellId) ?? [];
          assert(date === spikeDay, `the spike's day is ${spikeDay} (${date})`);
          assert(Number(hour) >= 13 && Number(hour) <= 17, `the spike's hour is 13 to 17 (${hour})`);
          // Well or far above the usual (the demo's spike is 3 to 5.5 times slower, so its
          // count against the median hour depends on the dates), and no cell is more unusual.
          const spikeLevel = Number(await spikeCell.locator("xpath=..").getAttribute("data-level"));
          const dayLevels = await page.$$eval("[data-testid=day-heat-map] td.heat-cell", (l) =>
            l.map((c) => Number(c.getAttribute("data-level"))),
          );
          assert(spikeLevel >= 2, `well above the usual (level ${spikeLevel})`);
          assert(Math.max(...dayLevels) === spikeLevel, `no cell above the spike's (${Math.max(...dayLevels)})`);
          // Colours by the count against the usual: not every hour of the heat map is red.
          const levels = await page.$$eval("[data-testid=heat-map] td.heat-cell", (l) =>
            l.map((c) => Number(c.getAttribute("data-level"))),
          );
          const hot = levels.filter((l) => l === 3).length;
          assert(hot > 0 && hot < 24, `a few cells stand out (${hot})`);
          // The spike's hour is in view in the scrolled table (1024 px and narrower).
          const visible = await page.evaluate(() => {
            const cell = document.querySelector("[data-testid=day-heat-map] td.spike");
            const box = cell.closest(".table-scroll").getBoundingClientRect();
            const r = cell.getBoundingClientRect();
            return r.left >= box.left - 1 && r.right <= box.right + 1;
          });
          assert(visible, "the spike's cell is scrolled into view");
          // One tab stop for the heat map's links.
          const tabbable = await page.$$eval("[data-testid=day-heat-map] a", (l) =>
            l.filter((a) => a.tabIndex >= 0).map((a) => a.getAttribute("data-testid")),
          );
          assert(tabbable.length === 1 && tabbable[0] === cellId, `one tab stop, the spike (${tabbable})`);
          await screenshot(page, `invest-latency-view-${vname}-${lang}`);
          await checkA11y(page, `latency report (${vname}, ${lang})`);
          // The runs of that hour, slowest first, with their latency.
          await page.click("[data-testid=spike-runs]");
          await page.waitForURL(new RegExp(`/report/latency/${hour}/-1/${lat.id}/total/${date}\\?to=${date}$`));
          await page.waitForSelector("[data-testid=runs-table] [data-testid=table-row]");
          if (vname !== "phone") {
            const l = await page.$$eval("[data-testid=runs-table] [data-col=latency]", (cells) =>
              cells.map((c) => Number.parseFloat(c.textContent.replace(",", "."))),
            );
            assert(l.length > 1 && l.every((v, i) => i === 0 || v <= l[i - 1]), `slowest first (${l.slice(0, 6)})`);
          }
          await screenshot(page, `invest-latency-runs-${vname}-${lang}`);
          await checkA11y(page, `latency runs (${vname}, ${lang})`);
          // The run opened from there marks its slow step.
          await page
            .locator(vname === "phone" ? "[data-testid=run-open]" : "[data-testid=run-link]")
            .first()
            .click();
          await page.waitForURL(/\/report\/run\/\d+\/[\d.]+$/);
          await page.waitForSelector("[data-testid=focus-step]");
          assert(await page.locator("[data-testid=step][data-slow=true]").count(), "a step is marked slow");
          const kind = await page.locator("[data-testid=focus-step]").getAttribute("data-kind");
          assert(kind === "slow" || kind === "failing", `the summary opens on the slow (or failing) step (${kind})`);
          assert(page.problems.length === 0, page.problems.join("\n"));
        } finally {
          await closePage(page);
        }
      });
    }
  }

  // The clicks and seconds from the dashboard (goal: 3 clicks or fewer each).
  await test("figures: clicks and seconds from the dashboard to a failing step's audio, the worst MOS call, the spike's slowest step", async () => {
    assert(incidents, "the incidents are in");
    const page = await newPage(browser, server, { viewport: "desktop" });
    try {
      await signIn(page, admin);
      const measure = async (what, steps, done) => {
        await page.goto("/dashboard");
        await page.waitForSelector("[data-testid=group-row]");
        const started = Date.now();
        let clicks = 0;
        for (const s of steps) {
          await s();
          clicks += 1;
        }
        await done();
        const seconds = (Date.now() - started) / 1000;
        figures.push({ what, clicks, seconds });
        console.log(`       figure: ${what}: ${clicks} clicks, ${seconds.toFixed(2)} s`);
        assert(clicks <= 3, `${what} in 3 clicks or fewer (${clicks})`);
      };
      // A failing step's audio: a group's chart, its failure segment, a run. Not every failing
      // step has audio (a step that timed out heard nothing), so the run is one of today's
      // manual failures whose failing step has it, and its bar is that run's hour.
      const bar = await (async () => {
        const groups = (await apiRequest(server, "GET", "trs/v1/groups", { token })).json?.data ?? [];
        for (const g of groups.filter((x) => x.channel === "voice")) {
          const runs = await apiRequest(
            server,
            "GET",
            `trs/v1/groups/${g.id}/runs?startDate=${today}&status=failure&caseRunType=Manual&pageNo=0&pageSize=20`,
            { token },
          );
          for (const r of runs.json?.data?.content ?? []) {
            const d = (await apiRequest(server, "GET", `trs/v1/testruns/${r.runId}`, { token })).json?.data;
            const steps = d.segments.flatMap((s) => s.steps);
            const failing = steps.find((s) => s.testResult.status === "fail" || s.testResult.status === "stopped");
            if (!failing?.testResult.attachmentUrl) continue;
            // The run is on the first page of its bar's list, as the drill asks for it.
            const hour = Number(siteTime(r.runTime, zone).slice(11, 13));
            const drill = await apiRequest(
              server,
              "GET",
              `trs/v1/groups/${g.id}/runs?startDate=${today}&hrSlot=${hour}&status=failure&caseRunType=Manual&pageNo=0&pageSize=20`,
              { token },
            );
            if ((drill.json?.data?.content ?? []).some((x) => x.runId === r.runId)) {
              return { group: g, hour, runId: r.runId };
            }
          }
        }
        return null;
      })();
      // The dashboard opens on today at the site: in the first hour of its day there is no
      // failing run on it yet, and this path is measured at other hours only.
      if (runDay === today) assert(bar, "a failing manual run today whose failing step has audio");
      else console.log("       (the site's day is young: no failing run today, the audio path is not measured)");
      if (bar && runDay === today)
        await measure(
          "dashboard -> a failing step's audio",
          [
            () =>
              page
                .locator(`[data-testid=group-row][data-group-id="${bar.group.id}"] [data-testid=group-chart]`)
                .click(),
            async () => {
              const seg = page.locator(
                `[data-testid=chart-modal] .dataset-units.dataset-2 [data-point-index="${bar.hour}"]`,
              );
              await seg.waitFor({ state: "attached" });
              await seg.click({ force: true });
            },
            async () => {
              const link = page.locator(`[data-testid=run-link][href="/report/run/${bar.runId}"]`);
              await link.waitFor();
              await link.click();
            },
          ],
          async () => {
            await page.waitForSelector("[data-testid=focus-step][data-kind=failing] [data-testid=focus-player]");
          },
        );
      // The worst MOS call: Reports, the MOS report, its worst call.
      await measure(
        "dashboard -> the worst MOS call",
        [
          () => page.click("[data-testid=nav-reports]"),
          async () => {
            const row = page.locator(
              `[data-testid=table-row][data-row-id="${incidents.mos.id}"] [data-testid=view-report]`,
            );
            await row.waitFor();
            await row.click();
          },
          async () => {
            const link = page.locator("[data-testid=worst-run-mos] [data-testid=worst-run-link]");
            await link.waitFor();
            await link.click();
          },
        ],
        async () => {
          await page.waitForSelector(
            "[data-testid=focus-step] [data-testid=focus-player], [data-testid=focus-no-audio]",
          );
          const mos = Number.parseFloat((await page.textContent("[data-testid=run-mos]")).replace(",", "."));
          assert(Math.abs(mos - incidents.worst) < 0.06, `the worst call (${mos} vs ${incidents.worst})`);
        },
      );
      // The slowest step of the latency spike: Reports, the latency report, the spike's slowest run.
      await measure(
        "dashboard -> the slowest step of the latency spike",
        [
          () => page.click("[data-testid=nav-reports]"),
          async () => {
            const row = page.locator(
              `[data-testid=table-row][data-row-id="${incidents.lat.id}"] [data-testid=view-report]`,
            );
            await row.waitFor();
            await row.click();
          },
          async () => {
            const link = page.locator("[data-testid=worst-run-latency] [data-testid=worst-run-link]");
            await link.waitFor();
            await link.click();
          },
        ],
        async () => {
          await page.waitForSelector("[data-testid=focus-step] [data-testid=focus-latency]");
          assert(await page.locator("[data-testid=step][data-slow=true]").count(), "the slow step is marked");
        },
      );
      assert(page.problems.length === 0, page.problems.join("\n"));
    } finally {
      await closePage(page);
    }
    console.log(`       figures: ${JSON.stringify(figures)}`);
  });
}
