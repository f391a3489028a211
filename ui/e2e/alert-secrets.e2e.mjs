// A read-only user's alert page shows no secret: the event's list has a
// Teams webhook with its secret path, an e-mail address and a number; the administrator's
// page shows them, the read-only user of the group sees the list's name, the channel, the
// outcome and its reason in their language (en and fr), a webhook's host at most, and none
// of the three anywhere in the page's text, HTML or the answers the page received.
import {
  addUser,
  apiRequest,
  apiToken,
  assert,
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

const CASE = 930001;
const SECRET = "wf-SECRET-9a8b7c";
const MAIL = "night-private@example.com";
const NUMBER = "+15145550177";
const TEXT = {
  en: { timeline: "Timeline", notConfigured: "The channel is not configured: nothing was sent." },
  fr: { timeline: "Historique", notConfigured: "Le canal n’est pas configuré\u202f: rien n’a été envoyé." },
};

// On the tests' clock: the runs' times only have to be in the past.
function run(id, status, time) {
  return {
    engineRunId: `e2e-secrets-${id}`,
    testCase: { id: CASE, name: "Secret IVR", channel: "voice", ivr: { id: 9300, name: "Secrets IVR" } },
    runTime: time,
    runDuration: 12.5,
    status,
    runType: "Schedule",
    segments: [],
  };
}

export default async function alertSecrets({ browser, test }) {
  const sinks = await startSinks();
  const config = `[notify]
poll_ms = 100
${sinks.smtpToml("cxwatch <alerts@cxwatch.test>")}
[notify.webhook]
enabled = true
ca = "${sinks.ca}"
allowed_hosts = ["localhost"]
`;
  let server;
  try {
    server = await startServer({ args: [], config });
    const admin = addUser(server, { username: "secrets-admin@example.com", password: "secrets-Admin-pass-1" });
    const viewer = { username: "secrets-viewer@example.com", password: "amber quarry heron 7" };
    let alertId = 0;

    await test("alert secrets: an alert goes to a Teams webhook, an e-mail and an SMS without a gateway", async () => {
      const key = server.cli(["apikey", "add", "--name", "e2e-secrets"]).trim();
      await ingestRuns(server, key, [run("p0", "pass", minutesBeforeNow(10))]);
      const token = await apiToken(server, admin);
      const g = await apiRequest(server, "POST", "trs/v1/groups", {
        token,
        body: { name: "Secrets", channel: "voice", testCases: [{ id: CASE }] },
      });
      assert(g.status === 200, `group: ${g.text}`);
      const u = await apiRequest(server, "POST", "users", {
        token,
        body: {
          username: viewer.username,
          firstName: "Read",
          lastName: "Only",
          roles: ["ROLE_USER"],
          accessType: "read-only",
          testCaseGroups: [{ id: g.json.data.id }],
          password: viewer.password,
        },
      });
      assert(u.status === 200, `user: ${u.text}`);
      const d = await apiRequest(server, "POST", "distributions", {
        token,
        body: {
          name: "Night shift",
          contacts: [
            { name: "Teams", type: 16, info: `https://localhost:${sinks.https}/teams/${SECRET}` },
            { name: "Mail", type: 1, info: MAIL },
            { name: "Phone", type: 2, info: NUMBER },
          ],
        },
      });
      assert(d.status === 200, `list: ${d.text}`);
      const s = await apiRequest(server, "POST", "alerts/settings", {
        token,
        body: {
          name: "Secrets down",
          active: true,
          testCaseGroupId: g.json.data.id,
          distributionId: d.json.data.id,
          emailSubject: "Secret IVR failing",
          voiceMessage: "down",
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
      await ingestRuns(server, key, [run("f1", "fail", minutesBeforeNow(9))]);
      const event = await waitFor("the event's three notifications attempted", async () => {
        const list = await apiRequest(server, "GET", "alerts/events?pageSize=50", { token });
        const e = list.json.data.content.find((x) => x.testCaseId === CASE);
        if (!e) return null;
        const one = await apiRequest(server, "GET", `alerts/events/${e.alertId}`, { token });
        const n = one.json.data.notifications;
        return n.length === 3 && n.every((x) => x.state !== "queued") ? one.json.data : null;
      });
      alertId = event.alertId;
      const text = JSON.stringify(event);
      for (const shown of [SECRET, MAIL, NUMBER]) assert(text.includes(shown), `the administrator sees ${shown}`);
    });

    for (const lang of ["en", "fr"]) {
      await test(`alert secrets (${lang}): the read-only user's alert page shows no address, number or path`, async () => {
        const p = await newPage(browser, server, { viewport: "desktop" });
        const answers = [];
        p.on("response", async (r) => {
          if (r.url().includes("/api/alerts/events/")) answers.push(await r.text().catch(() => ""));
        });
        try {
          await signIn(p, viewer);
          await chooseLanguage(p, lang);
          await p.goto(`${server.url}/alert/${alertId}`);
          await p.waitForSelector("[data-testid=alert-timeline]");
          await p.waitForSelector("[data-testid=alert-notifications] tbody tr");
          const html = await p.content();
          const body = (await p.locator("body").textContent()) ?? "";
          for (const secret of [SECRET, MAIL, NUMBER, "/teams/"]) {
            assert(!html.includes(secret), `${secret} in the page's HTML`);
            assert(!answers.some((a) => a.includes(secret)), `${secret} in an answer the page received`);
          }
          assert(answers.length > 0, "the page read the event");
          assert(body.includes("Night shift"), "the list's name stands for the recipients");
          assert(body.includes("https://localhost/…"), "the webhook's scheme and host");
          assert(body.includes(TEXT[lang].timeline), `the timeline in ${lang}`);
          // The SMS failed (no gateway): its reason in the reader's language, from its code.
          const reasons = await p.$$eval("[data-testid=timeline-reason]", (l) => l.map((e) => e.textContent.trim()));
          assert(reasons.includes(TEXT[lang].notConfigured), `reasons: ${JSON.stringify(reasons)}`);
          await screenshot(p, `alert-secrets-readonly-desktop-${lang}`, { fullPage: true });
        } finally {
          await closePage(p);
        }
      });
    }
  } finally {
    await server?.stop().catch(() => {});
    sinks.stop();
  }
}
