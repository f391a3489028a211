// Test-run detail, the runs behind a number and the test case groups editor, in
// English and French: from a red bar of the dashboard's chart modal to a failing run in two
// clicks; the run's players (one at a time, seek, forward, finish) and the recording's
// download; the demo's bad-audio incident (low MOS, the recording plays); creating, editing
// and deleting a group, and a save without test cases that sends nothing; a group in use, whose
// delete names what goes with it before anything is asked.
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
  newPage,
  screenshot,
  signIn,
  siteTimeZone,
  sleep,
  testNow,
  waitForDemoData,
} from "./lib.mjs";

const TEXT = {
  en: { failure: "Failure", counts: "2 from 1 IVR Applications", notFound: "This page could not be found" },
  fr: { failure: "Échec", counts: "2 de 1 applications SVI", notFound: "Cette page est introuvable" },
};

/** The hour (0-23) it is now at the site. */
function hourAt(timeZone) {
  return Number(new Intl.DateTimeFormat("en-GB", { timeZone, hour: "2-digit", hourCycle: "h23" }).format(testNow()));
}

/**
 * A group, run type and hour of today's dashboard with failing runs (the ongoing incident), in
 * an hour already over so its count no longer changes (the current one if it is the only one).
 */
async function failingBar(server, token, date, zone) {
  const now = hourAt(zone);
  const groups = (await apiRequest(server, "GET", "trs/v1/groups", { token })).json?.data ?? [];
  for (const runType of ["Manual", "Schedule"]) {
    for (const g of groups.filter((x) => x.channel === "voice")) {
      const m = await apiRequest(
        server,
        "GET",
        `trs/v1/groups/${g.id}/metric?level=case&startDate=${date}&caseRunType=${runType}`,
        { token },
      );
      const hours = Array.from({ length: 24 }, () => 0);
      for (const e of m.json?.data ?? []) {
        e.hourlyStatus.forEach((h, i) => {
          hours[i] += h.failureCount;
        });
      }
      for (let h = now - 1; h >= 0; h--) if (hours[h] > 0) return { group: g, runType, hour: h, failures: hours[h] };
      if (hours[now] > 0) return { group: g, runType, hour: now, failures: hours[now], live: true };
    }
  }
  return null;
}

/** The state of every player on the page: playing / paused / idle / loading. */
const states = (page) => page.$$eval("[data-testid$=player]", (l) => l.map((e) => e.getAttribute("data-state")));

/**
 * addUser, again while SQLite answers "database is locked": the demo loads its history in the
 * background and the CLI is a second writer that may find the file busy on a loaded machine.
 */
async function addUserRetrying(server, user) {
  for (let i = 0; ; i++) {
    try {
      return addUser(server, user);
    } catch (e) {
      if (i >= 20 || !/database is locked/.test(String(e))) throw e;
      await sleep(500);
    }
  }
}

export default async function rundetail({ server, browser, users: accounts, test }) {
  const { admin } = accounts;
  const readOnlyAdmin = await addUserRetrying(server, {
    username: "e2e-ro-admin-h8@example.com",
    password: "e2e-RoAdmin-pass-1",
    role: "admin",
    access: "read-only",
  });
  const restricted = await addUserRetrying(server, {
    username: "e2e-nogroups-h8@example.com",
    password: "e2e-NoGroups-pass-1",
    role: "user",
    access: "read-write",
  });
  // Just after the site's midnight there may be no manual run yet: schedule runs will do.
  await waitForDemoData(server, admin, { runsToday: false });
  const token = await apiToken(server, admin);
  const zone = await siteTimeZone(server);
  const today = dateAt(zone);

  for (const lang of ["en", "fr"]) {
    const T = TEXT[lang];

    await test(`run detail (${lang}): a red bar of the chart modal leads to a failing run in two clicks`, async () => {
      let bar = null;
      for (let i = 0; i < 120 && !bar; i++) {
        bar = await failingBar(server, token, today, zone);
        if (!bar) await sleep(500);
      }
      assert(bar, "the demo has failing runs today");
      const page = await newPage(browser, server);
      try {
        await page.goto("/");
        await chooseLanguage(page, lang);
        await signIn(page, admin);
        if (bar.runType === "Schedule") await page.click("[data-testid=main-runtype-Schedule]");
        const row = page.locator(`[data-testid=group-row][data-group-id="${bar.group.id}"]`);
        await row.waitFor();
        await row.locator("[data-testid=group-chart]").click();
        // Click 1: the failure segment of the hour (series 2 with every rate shown). Attached is
        // enough: empty segments of other series have no height, so "visible" may never come.
        const segment = page.locator(
          `[data-testid=chart-modal] .dataset-units.dataset-2 [data-point-index="${bar.hour}"]`,
        );
        await segment.waitFor({ state: "attached" });
        await segment.click({ force: true });
        await page.waitForURL(/\/report\/drill\/\d+\/failure\/.*level=group/);
        const url = new URL(page.url());
        assert(url.searchParams.get("hrSlot") === String(bar.hour), `the hour is kept (${url})`);
        await page.waitForSelector("[data-testid=run-link]");
        const count = Number((await page.textContent("[data-testid=drill-count]")).replace(/\D/g, ""));
        assert(
          bar.live ? count >= bar.failures : count === bar.failures,
          `the drill counts the bar's ${bar.failures} failures (${count})`,
        );
        const statuses = await page.$$eval("[data-testid=run-table] [data-testid=status]", (l) =>
          l.map((e) => e.getAttribute("data-status")),
        );
        assert(statuses.length && statuses.every((s) => s === "failure"), `only failures (${statuses})`);
        await screenshot(page, `drill-desktop-${lang}`);
        // Click 2: the run.
        await page.locator("[data-testid=run-link]").first().click();
        await page.waitForURL(/\/report\/run\/\d+$/);
        await page.waitForSelector("[data-testid=run-detail]");
        const status = await page.textContent("[data-testid=run-status]");
        assert(status.includes(T.failure), `the run reads ${T.failure} (${status})`);
        const time = await page.textContent("[data-testid=run-time]");
        assert(/^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2}$/.test(time), `start time yyyy/MM/dd HH:mm:ss (${time})`);
        const duration = await page.textContent("[data-testid=run-duration]");
        assert(/^\d+[.,]\d{2}\s?(sec|s)$/.test(duration.trim()), `duration with 2 decimals and sec (${duration})`);
        assert((await page.textContent("[data-testid=run-group]")).includes(bar.group.name), "the group is named");
        await screenshot(page, `run-detail-desktop-${lang}`, { fullPage: false });
        assert(page.problems.length === 0, page.problems.join("\n"));
      } finally {
        await closePage(page);
      }
    });

    await test(`run detail (${lang}): one player at a time, seek, forward, finish, download`, async () => {
      const bar = await failingBar(server, token, today, zone);
      assert(bar, "the demo has failing runs today");
      const runs = await apiRequest(
        server,
        "GET",
        `trs/v1/groups/${bar.group.id}/runs?startDate=${today}&status=total&pageSize=50`,
        { token },
      );
      // A run with a call recording and at least two step recordings.
      let runId = null;
      for (const r of runs.json?.data?.content ?? []) {
        const d = (await apiRequest(server, "GET", `trs/v1/testruns/${r.runId}`, { token })).json?.data;
        const steps = d.segments.flatMap((s) => s.steps).filter((s) => s.testResult.attachmentUrl);
        if (d.recordingUrl && steps.length >= 2) {
          runId = r.runId;
          break;
        }
      }
      assert(runId, "a run with a call recording and two step recordings");
      const page = await newPage(browser, server, { viewport: lang === "fr" ? "phone" : "desktop" });
      try {
        await page.goto("/");
        await chooseLanguage(page, lang);
        await signIn(page, admin);
        let fetched = 0;
        page.on("request", (r) => {
          if (r.url().includes("/getContent")) fetched += 1;
        });
        await page.goto(`/report/run/${runId}/1`);
        await page.waitForSelector("[data-testid=step-player]");
        await sleep(300);
        assert(fetched === 0, "no audio is fetched before a play");
        const players = page.locator("[data-testid=step-player]");
        const first = players.nth(0);
        const second = players.nth(1);
        await first.locator("[data-testid=audio-play]").click();
        await page.waitForFunction(
          () => document.querySelector("[data-testid=step-player]")?.getAttribute("data-state") === "playing",
        );
        assert(fetched === 1, `one fetch for one play (${fetched})`);
        await second.locator("[data-testid=audio-play]").click();
        await page.waitForFunction(
          () => document.querySelectorAll("[data-testid=step-player]")[1]?.getAttribute("data-state") === "playing",
        );
        const s = await states(page);
        assert(s.filter((x) => x === "playing").length === 1, `only one player plays (${s})`);
        assert((await first.getAttribute("data-state")) === "paused", "the first player stopped");

        // The call recording: seek, forward, finish.
        const call = page.locator("[data-testid=call-player]");
        await call.locator("[data-testid=audio-play]").click();
        await page.waitForFunction(
          () => document.querySelector("[data-testid=call-player]")?.getAttribute("data-state") === "playing",
        );
        assert((await second.getAttribute("data-state")) === "paused", "the step player stopped");
        await call.locator("[data-testid=audio-pause]").click();
        const duration = await call.locator("audio").evaluate((a) => a.duration);
        assert(duration > 2, `the call recording lasts (${duration} s)`);
        const target = Math.round(duration * 0.5 * 10) / 10;
        await call.locator("[data-testid=audio-seek]").evaluate((el, v) => {
          el.value = String(v);
          el.dispatchEvent(new Event("input", { bubbles: true }));
        }, target);
        await page.waitForFunction(
          (v) => Math.abs(document.querySelector("[data-testid=call-player] audio").currentTime - v) < 0.3,
          target,
        );
        await call.locator("[data-testid=audio-forward]").click();
        const after = await call.locator("audio").evaluate((a) => a.currentTime);
        assert(after > target + 1, `forward moves on (${target} -> ${after})`);
        await call.locator("[data-testid=audio-finish]").click();
        assert((await call.locator("audio").evaluate((a) => a.currentTime)) === 0, "finish goes back to the start");
        const vol = call.locator("[data-testid=audio-volume]");
        assert(
          (await vol.getAttribute("min")) === "0.01" &&
            (await vol.getAttribute("max")) === "1" &&
            (await vol.getAttribute("step")) === "0.025",
          "volume 0.01 to 1 in 0.025 steps",
        );
        // Slow steps stand out with a threshold of 1 s. The latency shows two decimals, so a
        // step of 1.004 s (slower than 1 s, marked) reads as '1': at least the threshold as shown.
        const slow = await page.$$eval("[data-testid=step][data-slow=true] [data-testid=step-latency]", (l) =>
          l.map((e) => Number.parseFloat(e.textContent.replace(",", "."))),
        );
        assert(
          slow.every((v) => v >= 1),
          `the marked steps are slower than 1 s (${slow})`,
        );

        // Download the call recording.
        const [download] = await Promise.all([
          page.waitForEvent("download"),
          call.locator("[data-testid=audio-download]").click(),
        ]);
        assert(/^run-\d+\.wav$/.test(download.suggestedFilename()), `file name (${download.suggestedFilename()})`);
        const file = await download.path();
        const { statSync } = await import("node:fs");
        assert(statSync(file).size > 1000, "the recording is downloaded whole");
        await screenshot(page, `run-detail-players-${lang === "fr" ? "phone" : "desktop"}-${lang}`);
        assert(page.problems.length === 0, page.problems.join("\n"));
      } finally {
        await closePage(page);
      }
    });
  }

  await test("run detail: the bad-audio incident shows low MOS and its recording plays", async () => {
    // Six days back, 08:00-12:30 at the site: Insurance Claims IVR bad audio.
    const day = dateAt(zone, daysFromNow(-6));
    const groups = (await apiRequest(server, "GET", "trs/v1/groups", { token })).json?.data ?? [];
    let found = null;
    // The history arrives newest day first, in the background: wait (at most 3 min) for that day.
    for (let i = 0; i < 360 && !found; i++) {
      if (i) await sleep(500);
      for (const g of groups.filter((x) => x.channel === "voice")) {
        const r = await apiRequest(
          server,
          "GET",
          `trs/v1/groups/${g.id}/runs?startDate=${day}&hrSlot=10&status=total&pageSize=200`,
          { token },
        );
        const low = (r.json?.data?.content ?? []).filter((x) => x.mosCqIn !== null && x.mosCqIn < 3);
        if (low.length) {
          found = { group: g, run: low[0] };
          break;
        }
      }
    }
    assert(found, `runs with MOS below 3 on ${day} at 10:00`);
    const page = await newPage(browser, server);
    try {
      await signIn(page, admin);
      await page.goto(`/report/drill/${found.group.id}/total/${day}/${day}?level=group&hrSlot=10`);
      await page.waitForSelector("[data-testid=run-link]");
      await page
        .locator(`[data-testid=run-table] tr:has-text("${found.run.runId}") [data-testid=run-link]`)
        .first()
        .click();
      await page.waitForSelector("[data-testid=run-mos]");
      const mos = Number.parseFloat(await page.textContent("[data-testid=run-mos]"));
      assert(mos < 3, `low MOS (${mos})`);
      const call = page.locator("[data-testid=call-player]");
      await call.locator("[data-testid=audio-play]").click();
      await page.waitForFunction(
        () => document.querySelector("[data-testid=call-player] audio")?.currentTime > 0.2,
        null,
        {
          timeout: 10000,
        },
      );
      await screenshot(page, "run-detail-bad-audio-en");
    } finally {
      await closePage(page);
    }
  });

  await test("run detail: a missing run reads as the 404 page; a run outside a user's groups says so", async () => {
    const page = await newPage(browser, server);
    try {
      await signIn(page, admin);
      await page.goto("/report/run/999999999");
      await page.waitForSelector("[data-testid=not-found]");
      assert((await page.textContent("[data-testid=not-found] h1")).includes(TEXT.en.notFound), "404 words");
    } finally {
      await closePage(page);
    }
    const groups = (await apiRequest(server, "GET", "trs/v1/groups", { token })).json?.data ?? [];
    const runs = await apiRequest(server, "GET", `trs/v1/groups/${groups[0].id}/runs?startDate=${today}&pageSize=1`, {
      token,
    });
    const runId = runs.json?.data?.content?.[0]?.runId;
    assert(runId, "a run today to try");
    const p2 = await newPage(browser, server);
    try {
      await signIn(p2, restricted);
      await p2.goto(`/report/run/${runId}`);
      await p2.waitForSelector("[data-testid=access-denied]");
      const text = await p2.textContent("[data-testid=access-denied]");
      assert(!text.includes(runs.json.data.content[0].testCaseName), "nothing of the run leaks");
    } finally {
      await closePage(p2);
    }
  });

  for (const lang of ["en", "fr"]) {
    const T = TEXT[lang];
    await test(`test case groups (${lang}): create, edit, delete; a save without test cases sends nothing`, async () => {
      const page = await newPage(browser, server);
      const name = `E2E group ${lang} ${Date.now() % 100000}`;
      try {
        await page.goto("/");
        await chooseLanguage(page, lang);
        await signIn(page, admin);
        let writes = 0;
        page.on("request", (r) => {
          if (/\/api\/trs\/v1\/groups(\/\d+)?$/.test(new URL(r.url()).pathname) && r.method() !== "GET") writes += 1;
        });
        await page.goto("/settings/test-case-group/2");
        await page.waitForSelector("[data-testid=groups-table]");
        await screenshot(page, `groups-list-${lang}`);
        await page.click("[data-testid=new-group]");
        await page.waitForSelector("[data-testid=group-form]");
        // Empty save: every field says so, nothing is sent.
        await page.click("[data-testid=form-save]");
        await page.waitForSelector("[data-testid=error-testCases]");
        assert(
          await page.$(
            "[data-testid=group-form] [data-testid$=-name] ~ .field-error, [data-testid=group-form] .field-error",
          ),
          "name error",
        );
        await page.fill("[data-testid=group-name]", name);
        await page.selectOption("[data-testid=group-channel]", "voice");
        await page.waitForSelector("[data-testid=case-row]");
        await page.click("[data-testid=form-save]");
        await page.waitForSelector("[data-testid=error-testCases]");
        await sleep(200);
        assert(writes === 0, `nothing sent without a test case (${writes})`);
        await screenshot(page, `group-dialog-errors-${lang}`);
        // Narrow by an IVR application, pick two test cases, save.
        const ivr = await page.$$eval("[data-testid=group-ivr] option", (o) => o.map((x) => x.value).filter(Boolean));
        await page.selectOption("[data-testid=group-ivr]", ivr[0]);
        await page.locator("[data-testid=case-select]").nth(0).check();
        await page.locator("[data-testid=case-select]").nth(1).check();
        await page.click("[data-testid=form-save]");
        await page.waitForSelector("[data-testid=group-dialog]", { state: "detached" });
        assert(writes === 1, `one save (${writes})`);
        await page.fill("[data-testid=search-box]", name);
        await page.waitForFunction(
          (n) =>
            [...document.querySelectorAll("[data-testid=groups-table] tbody tr, [data-testid=groups-table] li")].some(
              (r) => r.textContent.includes(n),
            ),
          name,
        );
        const list = await page.textContent("[data-testid=groups-table]");
        const counts = T.counts;
        assert(list.includes(counts), `the row reads '${counts}' (${list.slice(0, 300)})`);
        // Edit: rename.
        await page.locator("[data-testid=edit-group]").first().click();
        await page.waitForFunction(() => document.querySelector("[data-testid=group-name]")?.value);
        assert((await page.inputValue("[data-testid=group-name]")) === name, "the editor holds the group");
        assert((await page.locator("[data-testid=case-select]:checked").count()) === 2, "its test cases are checked");
        await page.fill("[data-testid=group-name]", `${name} renamed`);
        await page.click("[data-testid=form-save]");
        await page.waitForSelector("[data-testid=group-dialog]", { state: "detached" });
        await page.waitForFunction(
          (n) => document.querySelector("[data-testid=groups-table]")?.textContent.includes(n),
          `${name} renamed`,
        );
        // Delete.
        await page.locator("[data-testid=delete-group]").first().click();
        await page.click("[data-testid=confirm-delete]");
        await page.waitForFunction(
          (n) => !document.querySelector("[data-testid=groups-table]")?.textContent.includes(n),
          `${name} renamed`,
        );
        assert(writes === 3, `create, update, delete (${writes})`);
        const left = (
          await apiRequest(server, "GET", `trs/v1/groups/page?search=${encodeURIComponent(name)}`, { token })
        ).json;
        assert(left?.data?.totalElements === 0, "the group is gone on the server");
        assert(page.problems.length === 0, page.problems.join("\n"));
      } finally {
        await closePage(page);
      }
    });
  }

  await test("test case groups: a read-only administrator sees no New, edit or delete", async () => {
    const page = await newPage(browser, server);
    try {
      await signIn(page, readOnlyAdmin);
      await page.goto("/settings/test-case-group/2");
      await page
        .waitForSelector("[data-testid=groups-table] [data-testid=row-select], [data-testid=groups-table] tbody tr", {
          timeout: 10000,
        })
        .catch(() => {});
      await page.waitForSelector("[data-testid=groups-table]");
      for (const id of ["new-group", "delete-selected", "edit-group", "delete-group", "row-select"]) {
        assert(!(await page.$(`[data-testid=${id}]`)), `no ${id}`);
      }
    } finally {
      await closePage(page);
    }
  });

  // A group that an alert setting and a report use: its delete names them (and the users and
  // windows that have it) before anything is asked; Cancel keeps everything, 'Delete all of
  // this' takes them with it.
  const inUseText = {
    en: {
      title: "This group is in use",
      settings: "Deletes these alert settings",
      nothing: "Nothing has been deleted yet",
    },
    fr: {
      title: "Ce groupe est utilisé",
      settings: "Supprime ces paramètres d’alerte",
      nothing: "Rien n’a encore été supprimé",
    },
  };
  const lists = (await apiRequest(server, "GET", "distributions", { token })).json.data;
  // One of the demo's test cases, from one of its groups.
  const demoGroup = (await apiRequest(server, "GET", "trs/v1/groups", { token })).json.data[0];
  const demoCase = (await apiRequest(server, "GET", `trs/v1/groups/${demoGroup.id}`, { token })).json.data.testCases[0];
  const madeGroup = await apiRequest(server, "POST", "trs/v1/groups", {
    token,
    body: { name: "E2E group in use", channel: demoGroup.channel, testCases: [{ id: demoCase.id }] },
  });
  assert(madeGroup.status === 200, `the group: ${madeGroup.text}`);
  const used = madeGroup.json.data;
  const madeSetting = await apiRequest(server, "POST", "alerts/settings", {
    token,
    body: {
      name: "E2E setting of the group",
      active: false,
      testCaseGroupId: used.id,
      distributionId: lists[0].id,
      failureToAlert: 3,
      emailSubject: "Down",
      voiceMessage: "Down",
      smsPrefix: "[cx]",
      alertStatus: ["FAIL"],
      schedule: [{ dayOfWeek: 1, startTimeSlot: "00:00", endTimeSlot: "24:00" }],
    },
  });
  assert(madeSetting.status === 200, `the setting: ${madeSetting.text}`);
  const madeReport = await apiRequest(server, "POST", "reports?pageNo=0", {
    token,
    body: {
      name: "E2E report of the group",
      description: "",
      reportTypeID: 1,
      testCaseGroupID: used.id,
      timeframeName: "Last Week",
      runType: "Schedule",
      latencyWarn: 1000,
      latencyFail: 2000,
    },
  });
  assert(madeReport.status === 200, `the report: ${madeReport.text}`);
  const combos = [
    { lang: "en", viewport: "desktop" },
    { lang: "fr", viewport: "desktop" },
    { lang: "fr", viewport: "phone" },
    { lang: "en", viewport: "phone", cascade: true },
  ];
  for (const { lang, viewport, cascade } of combos) {
    await test(`test case groups (${lang}, ${viewport}): a group in use names what its delete takes${cascade ? ", then takes it" : ""}`, async () => {
      const page = await newPage(browser, server, { viewport });
      try {
        await page.goto("/");
        await chooseLanguage(page, lang);
        await signIn(page, admin);
        await page.goto(`/settings/test-case-group/2?search=${encodeURIComponent(used.name)}`);
        const row = page.locator("[data-testid=groups-table] [data-testid=table-row]", { hasText: used.name }).first();
        await row.waitFor();
        if (viewport === "phone") await row.locator(".accordion-toggle").click();
        await row.locator("[data-testid=delete-group]").click();
        const dialog = page.getByTestId("group-in-use-dialog");
        await dialog.waitFor();
        const text = (await dialog.textContent()) ?? "";
        const T = inUseText[lang];
        for (const says of [T.title, T.settings, T.nothing, madeSetting.json.data.name, madeReport.json.data.name]) {
          assert(text.includes(says), `says '${says}': ${text}`);
        }
        assert((await page.getByTestId("confirm-dialog").count()) === 0, "no 'cannot be undone' before");
        assert(
          (await dialog.locator(`a[href="/report/setting/${madeSetting.json.data.id}"]`).count()) === 1,
          "a link to the setting",
        );
        await checkA11y(page, `group in use (${lang}, ${viewport})`);
        await screenshot(page, `group-in-use-${lang}-${viewport}`);
        if (!cascade) {
          await page.getByTestId("group-in-use-cancel").click();
          await dialog.waitFor({ state: "detached" });
          const still = await apiRequest(server, "GET", `trs/v1/groups/${used.id}`, { token });
          assert(still.status === 200, "the group is still there");
          return;
        }
        await page.getByTestId("group-in-use-delete").click();
        await dialog.waitFor({ state: "detached" });
        await page.waitForFunction(
          (n) => !document.querySelector("[data-testid=groups-table]")?.textContent.includes(n),
          used.name,
        );
        for (const path of [`trs/v1/groups/${used.id}`, `alerts/settings/${madeSetting.json.data.id}`]) {
          const gone = await apiRequest(server, "GET", path, { token });
          assert(gone.status === 404, `${path} is gone: ${gone.status}`);
        }
        assert(page.problems.length === 0, page.problems.join("\n"));
      } finally {
        await closePage(page);
      }
    });
  }
}
