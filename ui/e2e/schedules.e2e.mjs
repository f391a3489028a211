import { inflateSync } from "node:zlib";
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

const CASE = 890001;
const TEXT = {
  en: {
    when: "Weekly on Wednesday at 07:45",
    saved: "The schedule has been saved.",
    subject: "cxwatch report: ",
    runs: "Test runs: ",
    mailed: "A copy has been mailed to",
    teamsOk: "Microsoft Teams has been confirmed.",
  },
  fr: {
    when: "Hebdomadaire le mercredi à 07:45",
    saved: "La planification a été enregistrée.",
    subject: "Rapport cxwatch\u00a0: ",
    runs: "Exécutions de test\u00a0: ",
    mailed: "Une copie a été envoyée à",
    teamsOk: "Microsoft Teams a été confirmé.",
  },
};

function run(id, minutesAgo, status) {
  return {
    engineRunId: `e2e-sched-${id}`,
    testCase: { id: CASE, name: "Balance enquiry", channel: "voice", ivr: { id: 8900, name: "Retail IVR" } },
    runTime: minutesBeforeNow(minutesAgo),
    runDuration: 40,
    status,
    runType: "Schedule",
    segments: [],
  };
}

/** Width, height and the RGB pixel at (x, y) of an 8-bit RGB PNG without interlace. */
function png(bytes) {
  assert(bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), "a PNG");
  let at = 8;
  let width = 0;
  let height = 0;
  const idat = [];
  while (at < bytes.length) {
    const len = bytes.readUInt32BE(at);
    const type = bytes.toString("latin1", at + 4, at + 8);
    const data = bytes.subarray(at + 8, at + 8 + len);
    if (type === "IHDR") {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      assert(data[8] === 8 && data[9] === 2, "8-bit RGB");
    }
    if (type === "IDAT") idat.push(data);
    at += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const pixel = (x, y) => {
    const i = y * (width * 3 + 1) + 1 + x * 3;
    return [raw[i], raw[i + 1], raw[i + 2]];
  };
  return { width, height, pixel };
}

export default async function schedules({ browser, test }) {
  const sinks = await startSinks(["--webhook-secret", "e2e-hook-secret"]);
  const config = `[notify]
poll_ms = 100
public_url = "https://console.cxwatch.test"
${sinks.smtpToml("cxwatch <reports@cxwatch.test>")}[notify.webhook]
enabled = true
secret = "e2e-hook-secret"
ca = "${sinks.ca}"
timeout_secs = 5
# The receivers listen on this machine: loopback targets are refused unless listed.
allowed_hosts = ["localhost", "127.0.0.1"]
`;
  let server;
  try {
    server = await startServer({ args: [], config });
    // The server's certificate is self-signed: the ingest calls below go through fetch.
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = "0";
    const who = addUser(server, { username: "sched-admin@example.com", password: "sched-Admin-pass-1" });
    const key = server.cli(["apikey", "add", "--name", "e2e-schedules"]).trim();
    const token = await apiToken(server, who);
    // Runs of today and of the days before, a group, a report on it, a list to mail it to.
    await ingestRuns(server, key, [run("p1", 60 * 24 * 2, "pass"), run("w1", 60 * 24, "warn"), run("p0", 30, "pass")]);
    const g = await apiRequest(server, "POST", "trs/v1/groups", {
      token,
      body: { name: "Retail e2e", channel: "voice", testCases: [{ id: CASE }] },
    });
    assert(g.status === 200, `group: ${g.text}`);
    const group = g.json.data.id;
    const d = await apiRequest(server, "POST", "distributions", {
      token,
      body: { name: "Report readers", contacts: [{ name: "Managers", type: 1, info: "managers@example.com" }] },
    });
    assert(d.status === 200, `list: ${d.text}`);
    const r = await apiRequest(server, "POST", "reports", {
      token,
      body: {
        name: "Retail weekly",
        reportTypeID: 1,
        testCaseGroupID: group,
        timeframeName: "Current Week",
        runType: "Schedule",
      },
    });
    assert(r.status === 200, `report: ${r.text}`);
    const reportId = r.json.data.id;

    for (const lang of ["en", "fr"]) {
      const T = TEXT[lang];
      await test(`schedules (${lang}): a report scheduled from the list, sent now, its mail read`, async () => {
        const page = await newPage(browser, server, { locale: lang === "fr" ? "fr-CA" : "en-US" });
        try {
          await signIn(page, who);
          await chooseLanguage(page, lang);
          await page.goto(`${server.url}/reports`);
          const row = page.locator("[data-testid=reports-table] tbody tr", { hasText: "Retail weekly" });
          await row.locator("[data-testid=schedule-report]").click();
          const dialog = page.locator("[data-testid=schedule-dialog]");
          await dialog.waitFor();
          await page.selectOption("[data-testid=schedule-frequency]", "weekly");
          await page.selectOption("[data-testid=schedule-day-of-week]", "3");
          await page.fill("[data-testid=schedule-time]", "07:45");
          await page.selectOption("[data-testid=schedule-list]", String(d.json.data.id));
          await page.selectOption("[data-testid=schedule-language]", lang);
          await checkA11y(page, `schedule dialog ${lang}`);
          await screenshot(page, `schedule-dialog-${lang}-desktop`);
          await page.click("[data-testid=schedule-save]");
          await page.locator(".banner", { hasText: T.saved }).first().waitFor();
          const cell = row.locator("[data-testid=report-delivery]");
          await cell.waitFor();
          const text = (await cell.textContent()) ?? "";
          assert(text.includes(T.when), `the list says when: ${text}`);
          await screenshot(page, `schedule-list-${lang}-desktop`);

          // Send now: a copy to oneself, through the real mail server.
          const before = (await sinks.messages()).mail.length;
          await row.locator("[data-testid=schedule-report]").click();
          await dialog.waitFor();
          await page.click("[data-testid=schedule-send-now]");
          const result = page.locator("[data-testid=send-now-result]");
          await result.waitFor({ timeout: 30000 });
          const said = (await result.textContent()) ?? "";
          assert(said.includes(T.mailed) && said.includes(who.username), `sent: ${said}`);
          const m = await waitFor("the copy", async () => {
            const all = (await sinks.messages()).mail;
            return all.length > before && all.slice(before).find((x) => x.rcptTo.includes(who.username));
          });
          assert(m.subject.startsWith(T.subject), `subject: ${m.subject}`);
          assert(m.text.includes(`${T.runs}3`), `summary: ${m.text}`);
          assert(m.text.includes(`https://console.cxwatch.test/report/view/${reportId}`), "the link");
          // mailparser inlines the related part's cid: reference as a data: address.
          assert(/<img src="(cid:chart@cxwatch|data:image\/png;base64,)/.test(m.html), "the chart in the HTML");
          const chart = m.attachments.find((a) => a.contentType === "image/png");
          assert(
            chart?.related && chart.contentId.includes("chart@cxwatch"),
            `inline chart: ${JSON.stringify(m.attachments)}`,
          );
          const img = png(Buffer.from(chart.base64, "base64"));
          assert(img.width === 640 && img.height === 240, `chart ${img.width}x${img.height}`);
          const csv = m.attachments.find((a) => a.contentType.startsWith("text/csv"));
          assert(csv?.filename.startsWith(`report-${reportId}-retail-weekly-`), `csv: ${csv?.filename}`);
          const lines = Buffer.from(csv.base64, "base64")
            .toString("utf8")
            .replace(/^\ufeff/, "")
            .trim()
            .split("\r\n");
          assert(lines[0].startsWith("Date,Hour,Hour start,Test case ID,Test case"), `header: ${lines[0]}`);
          const total = lines.slice(1).reduce((n, l) => n + Number(l.split(",")[7]), 0);
          assert(total >= 1 && total <= 3, `runs in the CSV: ${total}`);
          await screenshot(page, `schedule-sent-${lang}-desktop`);
          await page.click("[data-testid=schedule-cancel]");
        } finally {
          await closePage(page);
        }
      });

      await test(`schedules (${lang}): the dialog on a phone`, async () => {
        const page = await newPage(browser, server, { viewport: "phone", locale: lang === "fr" ? "fr-CA" : "en-US" });
        try {
          await signIn(page, who);
          await chooseLanguage(page, lang);
          await page.goto(`${server.url}/report/edit/${reportId}`);
          await page.click("[data-testid=open-schedule]");
          await page.locator("[data-testid=schedule-state]").waitFor();
          await checkA11y(page, `schedule dialog phone ${lang}`);
          await screenshot(page, `schedule-dialog-${lang}-phone`);
        } finally {
          await closePage(page);
        }
      });
    }

    // A restricted user's schedule dialog never lists another team's distribution lists: the
    // server answers only the lists their groups use, and the dialog, which they cannot change,
    // shows only the list the schedule mails.
    const other = await apiRequest(server, "POST", "distributions", {
      token,
      body: { name: "Other team desk", contacts: [{ name: "Desk", type: 1, info: "desk@example.com" }] },
    });
    assert(other.status === 200, `other list: ${other.text}`);
    const reader = addUser(server, {
      username: "sched-user@example.com",
      password: "sched-User-pass-1",
      role: "user",
      access: "read-write",
    });
    const signedIn = await apiRequest(server, "POST", "auth/signin", {
      body: { username: reader.username, password: reader.password, remember: false },
    });
    const readerId = signedIn.json.data.id;
    const put = await apiRequest(server, "PUT", `users/${readerId}`, {
      token,
      body: {
        id: readerId,
        username: reader.username,
        firstName: "Sam",
        lastName: "Reader",
        roles: ["ROLE_USER"],
        accessType: "read-write",
        testCaseGroups: [{ id: group, name: "Retail e2e" }],
      },
    });
    assert(put.status === 200, `the reader's group: ${put.text}`);
    for (const { lang, viewport } of [
      { lang: "en", viewport: "desktop" },
      { lang: "fr", viewport: "phone" },
    ]) {
      await test(`schedules (${lang}, ${viewport}): a restricted user sees only their team's lists`, async () => {
        const readerToken = await apiToken(server, reader);
        const seen = await apiRequest(server, "GET", "alerts/contactGroups", { token: readerToken });
        const names = (seen.json?.data ?? []).map((l) => l.name);
        assert(names.includes("Report readers") && !names.includes("Other team desk"), `their lists: ${names}`);
        const all = await apiRequest(server, "GET", "alerts/contactGroups", { token });
        assert(
          all.json.data.some((l) => l.name === "Other team desk"),
          "an administrator sees every list",
        );
        const page = await newPage(browser, server, { viewport, locale: lang === "fr" ? "fr-CA" : "en-US" });
        try {
          await signIn(page, reader);
          await chooseLanguage(page, lang);
          await page.goto(`${server.url}/report/edit/${reportId}`);
          await page.click("[data-testid=open-schedule]");
          await page.locator("[data-testid=schedule-state]").waitFor();
          const options = await page
            .locator("[data-testid=schedule-list] option")
            .evaluateAll((os) => os.map((o) => o.textContent));
          assert(options.includes("Report readers"), `the schedule's list: ${options}`);
          assert(!options.includes("Other team desk"), `no other team's list: ${options}`);
          await checkA11y(page, `schedule dialog of a restricted user ${lang} ${viewport}`);
          await screenshot(page, `schedule-dialog-restricted-${lang}-${viewport}`);
        } finally {
          await closePage(page);
        }
      });
    }

    await test("webhooks: a Teams contact is confirmed from the form; Teams and a generic webhook receive an alert", async () => {
      const page = await newPage(browser, server);
      try {
        await signIn(page, who);
        await page.goto(`${server.url}/report/distribution/0`);
        await page.fill("[data-testid=input-name]", "Ops channels");
        await page.fill("[data-testid=input-contact-name-0]", "Ops Teams");
        await page.selectOption("[data-testid=input-contact-type-0]", "16");
        await page.fill("[data-testid=input-contact-info-0]", `https://localhost:${sinks.https}/teams/ops`);
        await page.click("[data-testid=add-contact]");
        await page.fill("[data-testid=input-contact-name-1]", "Ops hook");
        await page.selectOption("[data-testid=input-contact-type-1]", "8");
        await page.fill("[data-testid=input-contact-info-1]", `https://localhost:${sinks.https}/webhook/ops`);
        await page.click("[data-testid=confirm-contact-0]");
        const ok = page.locator("[data-testid=confirm-result-0]");
        await ok.waitFor({ timeout: 30000 });
        assert(((await ok.textContent()) ?? "").includes(TEXT.en.teamsOk), `confirmed: ${await ok.textContent()}`);
        const confirm = await waitFor("the Teams test", async () =>
          (await sinks.messages()).http.find((h) => h.path === "/teams/ops"),
        );
        assert(confirm.problems.length === 0 && confirm.secure, `Teams format: ${JSON.stringify(confirm.problems)}`);
        await checkA11y(page, "distribution form with webhooks");
        await screenshot(page, "webhook-contacts-en-desktop");
        await page.click("[data-testid=form-save]");
        await page.waitForURL("**/settings/distribution-list/3**");

        const lists = await apiRequest(server, "GET", "distributions?search=Ops%20channels&pageNo=0&pageSize=10", {
          token,
        });
        const list = lists.json.data.content[0].id;
        const s = await apiRequest(server, "POST", "alerts/settings", {
          token,
          body: {
            name: "Retail down",
            active: true,
            testCaseGroupId: group,
            distributionId: list,
            emailSubject: "Retail IVR failing",
            voiceMessage: "Retail down",
            smsPrefix: "[CX]",
            failureToAlert: 1,
            notifyOnRecovery: false,
            alertStatus: ["FAIL"],
            schedule: [1, 2, 3, 4, 5, 6, 7].map((day) => ({
              dayOfWeek: day,
              startTimeSlot: "00:00",
              endTimeSlot: "24:00",
            })),
          },
        });
        assert(s.status === 200, `setting: ${s.text}`);
        await ingestRuns(server, key, [run("f1", 5, "fail")]);
        const got = await waitFor("the alert on both channels", async () => {
          const http = (await sinks.messages()).http;
          const teams = http.filter((h) => h.path === "/teams/ops" && h.body.includes("Retail IVR failing"));
          const hook = http.filter((h) => h.path === "/webhook/ops" && h.body.includes('"event":"alert"'));
          return teams.length && hook.length ? { teams: teams[0], hook: hook[0] } : null;
        });
        assert(got.teams.problems.length === 0, `Teams alert format: ${JSON.stringify(got.teams.problems)}`);
        assert(got.hook.problems.length === 0 && got.hook.signatureOk, "the generic webhook is well formed and signed");
        const body = JSON.parse(got.hook.body);
        assert(body.link.startsWith("https://console.cxwatch.test/alert/"), `link: ${body.link}`);
      } finally {
        await closePage(page);
      }
    });
  } finally {
    await server?.stop().catch(() => {});
    sinks.stop();
  }
}
