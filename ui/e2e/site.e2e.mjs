import https from "node:https";
import {
  addUser,
  assert,
  assertEqual,
  checkA11y,
  chooseLanguage,
  closePage,
  newPage,
  screenshot,
  sleep,
  startServer,
  startSinks,
  testNow,
} from "./lib.mjs";

const CASES = [
  { lang: "en", viewport: "desktop" },
  { lang: "fr", viewport: "desktop" },
  { lang: "en", viewport: "phone" },
  { lang: "fr", viewport: "phone" },
];

const TEXT = {
  en: {
    steps: "First steps",
    hint: /This site is not set up yet: 0 of 5 first steps done\./,
    made: /Copy it now: it is shown only this once\./,
    emailOff: "E-mail (SMTP) is not configured: set notify.smtp.host in the configuration file.",
    notConfigured: "Not configured",
    revoked: /Key engine-1 is revoked/,
    taken: "A key named ENGINE-1 already exists, with these capitals or others",
    created: "Created",
    deleted: "Deleted",
  },
  fr: {
    steps: "Premiers pas",
    hint: /Ce site n’est pas encore prêt : 0 sur 5 premiers pas faits\./,
    made: /Copiez-la maintenant : elle n’est montrée que cette fois\./,
    emailOff: "Courriel (SMTP) n’est pas configuré : définissez notify.smtp.host dans le fichier de configuration.",
    notConfigured: "Non configuré",
    revoked: /La clé engine-1 est révoquée/,
    taken: "Une clé nommée ENGINE-1 existe déjà, avec ces majuscules ou d’autres",
    created: "Créé",
    deleted: "Supprimé",
  },
};

/**
 * A run as a test engine posts it: a first test run by hand (the dashboard opens on Manual runs),
 * a minute ago (so today's dashboard shows it).
 */
function engineRun(id) {
  const at = new Date(testNow().getTime() - 60_000).toISOString().replace(/\.\d+Z$/, "Z");
  return {
    engineRunId: id,
    testCase: { id: 101, name: "Billing balance enquiry", channel: "voice", ivr: { id: 7, name: "Acme main IVR" } },
    runTime: at,
    runDuration: 61.25,
    status: "pass",
    runType: "Manual",
    segments: [
      {
        segmentId: 1,
        segmentName: "Greeting",
        steps: [
          {
            stepId: 11,
            stepType: "PROMPT",
            typeDisplayText: "Prompt",
            prompt: "Thank you for calling Acme.",
            testResult: { status: "pass", utterance: "Thank you for calling Acme.", latency: 940 },
          },
        ],
      },
    ],
  };
}

/** What the engine does: POST api/ingest/v1/runs with its key (no console token). */
function postRuns(server, key, runs) {
  const url = new URL("/api/ingest/v1/runs", server.url);
  const payload = JSON.stringify({ runs });
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      {
        method: "POST",
        rejectUnauthorized: false,
        headers: {
          "X-API-Key": key,
          "Content-Type": "application/json",
          "Content-Length": Buffer.byteLength(payload),
        },
      },
      (res) => {
        let text = "";
        res.on("data", (c) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode, text }));
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** Starts e2e/notify-sinks.mjs (a real SMTP server and a gateway sink), as distributions.e2e does. */
const SENT = {
  en: {
    mail: (to) => `The mail server took the test e-mail to ${to}.`,
    sms: (to) => `The gateway took the test SMS to ${to}.`,
    failed: "The test failed:",
    delivered: "Last: delivered,",
    lastFailed: "Last: failed,",
  },
  fr: {
    mail: (to) => `Le serveur de courriel a pris le courriel de test pour ${to}.`,
    sms: (to) => `La passerelle a pris le SMS de test vers ${to}.`,
    failed: "Le test a échoué :",
    delivered: "Dernier : remis,",
    lastFailed: "Dernier : échec,",
  },
};

export default async function site({ browser, test }) {
  const figures = [];
  for (const { lang, viewport } of CASES) {
    const tag = `${lang}-${viewport}`;
    const words = TEXT[lang];
    const phone = viewport === "phone";
    await test(`site page (${viewport}, ${lang}): a fresh install to its first run on the dashboard with the console and the engine's key`, async () => {
      // A fresh install: no demo, an empty store, the first administrator made with the CLI.
      const server = await startServer({ args: [] });
      const page = await newPage(browser, server, { viewport });
      try {
        const admin = addUser(server, {
          username: "first.admin@example.com",
          password: "Falcon-orbit-47-lantern",
          role: "admin",
          access: "read-write",
        });
        let clicks = 0;
        const click = async (locator) => {
          clicks += 1;
          await locator.click();
        };
        await page.goto("/");
        await chooseLanguage(page, lang);
        const started = Date.now();

        // Sign in: the empty dashboard says 'No Data' and where to set the site up.
        await page.locator("#login-username").fill(admin.username);
        await page.locator("#login-password").fill(admin.password);
        await click(page.getByTestId("login-button"));
        await page.waitForURL("**/dashboard");
        const hint = page.getByTestId("set-up-hint");
        await hint.waitFor();
        assert(words.hint.test(await hint.textContent()), `the hint: ${await hint.textContent()}`);
        await checkA11y(page, `empty dashboard with the set-up hint (${tag})`);
        await screenshot(page, `site-empty-dashboard-${tag}`);
        await click(page.getByTestId("set-up-link"));
        await page.waitForURL("**/settings/site");

        // The checklist: nothing done, the key first.
        const checklist = page.getByTestId("site-checklist");
        await checklist.waitFor();
        assert((await checklist.textContent()).includes(words.steps), "the checklist's title");
        for (const key of ["apiKey", "run", "group", "distributionList", "alertSetting"]) {
          assertEqual(await page.getByTestId(`checklist-${key}`).getAttribute("data-done"), "false", `${key} not done`);
        }
        await checkA11y(page, `site page, fresh (${tag})`);
        await screenshot(page, `site-fresh-${tag}`, { fullPage: true });

        // A key for the engine, made in the console and shown once.
        await click(page.getByTestId("checklist-apiKey").locator("a"));
        await page.getByTestId("api-key-name").fill("engine-1");
        await click(page.getByTestId("api-key-create"));
        const made = page.getByTestId("api-key-made");
        await made.waitFor();
        assert(
          words.made.test(await made.textContent()),
          `the key is said to be shown once: ${await made.textContent()}`,
        );
        const key = (await page.getByTestId("api-key-value").textContent()).trim();
        assert(/^cxw_[0-9a-f]{64}$/.test(key), `a key: ${key}`);
        await checkA11y(page, `site page, key made (${tag})`);
        await screenshot(page, `site-key-made-${tag}`, { fullPage: true });
        await page.locator("[data-testid=checklist-apiKey][data-done=true]").waitFor({ timeout: 10000 });

        // The engine posts a run with it; the checklist ticks it by itself.
        const posted = await postRuns(server, key, [engineRun(`engine-1/${tag}/1`)]);
        assertEqual(posted.status, 200, `the engine's post (${posted.text})`);
        await page.locator("[data-testid=checklist-run][data-done=true]").waitFor({ timeout: 15000 });

        // A group holds the engine's test case: the checklist's next step.
        await click(page.getByTestId("checklist-group").locator("a"));
        await page.waitForURL("**/settings/test-case-group/2");
        await click(page.getByTestId("new-group"));
        await page.getByTestId("group-form").waitFor();
        await page.getByTestId("group-name").fill("Billing");
        await page.getByTestId("group-channel").selectOption("voice");
        clicks += 1; // the channel chosen
        await click(page.getByTestId("case-select").first());
        await click(page.locator("[data-testid=group-form] [data-testid=form-save]"));
        await page.getByTestId("group-form").waitFor({ state: "detached" });

        // The dashboard shows the run.
        if (phone) {
          await click(page.locator('[data-testid=mobile-footer] a[href="/dashboard"]'));
        } else {
          await click(page.getByTestId("nav-dashboard"));
        }
        await page.waitForURL("**/dashboard");
        const row = page.locator('[data-testid=group-row][data-count="1"]');
        await row.waitFor({ timeout: 20000 }).catch(async (e) => {
          const seen = await page
            .locator("[data-testid=group-row]")
            .evaluateAll((rows) => rows.map((r) => r.outerHTML.slice(0, 300)));
          await screenshot(page, `site-no-row-${tag}`);
          throw new Error(`${e.message}\nrows: ${JSON.stringify(seen)}`);
        });
        const seconds = (Date.now() - started) / 1000;
        assertEqual(
          (await row.getByTestId("group-name").textContent()).trim(),
          "Billing",
          "the group on the dashboard",
        );
        figures.push({ tag, clicks, seconds });
        console.log(
          `       FIGURE ${tag}: fresh install -> first ingested run on the dashboard: ${clicks} clicks, ${seconds.toFixed(1)} s (sign-in page to the group's row)`,
        );
        await checkA11y(page, `dashboard with the first run (${tag})`);
        await screenshot(page, `site-first-run-${tag}`);

        // Back on the site page: two steps done out of five... three: key, run, group.
        await page.goto("/settings/site");
        await page.locator("[data-testid=checklist-group][data-done=true]").waitFor();
        assertEqual(await page.locator("[data-testid^=checklist-][data-done=true]").count(), 3, "three steps done");

        // The key says when the engine last used it, in site time beside when it was made;
        // another case of its name is the same name.
        const keyRow = page.getByTestId("api-key-table").getByTestId("table-row").first();
        if (phone) await keyRow.locator(".accordion-toggle").click();
        await keyRow
          .getByText(/^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2}$/)
          .nth(1)
          .waitFor();
        await screenshot(page, `site-key-last-used-${tag}`);
        if (phone) await keyRow.locator(".accordion-toggle").click();
        await page.getByTestId("api-key-name").fill("ENGINE-1");
        await page.getByTestId("api-key-create").click();
        await page.getByText(words.taken).waitFor();
        await page.getByTestId("api-key-name").fill("");

        // The channels: none configured on a fresh install; a test says so, in the page's language.
        const email = page.getByTestId("channel-email");
        await email.waitFor();
        assertEqual(await email.getAttribute("data-configured"), "false", "no mail server");
        assert((await email.textContent()).includes(words.notConfigured), "the e-mail channel says so");
        await email.getByTestId("channel-test").click();
        const dialog = page.getByTestId("channel-test-dialog");
        await dialog.waitFor();
        assertEqual(
          await page.getByTestId("channel-test-to").inputValue(),
          admin.username,
          "the test goes to the caller",
        );
        await page.getByTestId("channel-test-send").click();
        const result = page.getByTestId("channel-test-result");
        await result.waitFor();
        assertEqual((await result.textContent()).trim(), words.emailOff, "the test's answer");
        await checkA11y(page, `channel test, not configured (${tag})`);
        await screenshot(page, `site-channel-test-${tag}`);
        await page.getByTestId("channel-test-close").click();
        await dialog.waitFor({ state: "detached" });

        // Revoked in the console: the engine is refused at once.
        // On a phone a row's actions are in the row, opened first.
        if (phone) await page.locator("[data-testid=api-key-table] .accordion-toggle").first().click();
        await page.getByTestId("api-key-revoke").first().click();
        await page.getByTestId("confirm-delete").click();
        await page.locator(".banner-success").filter({ hasText: words.revoked }).waitFor();
        const refused = await postRuns(server, key, [engineRun(`engine-1/${tag}/2`)]);
        assertEqual(refused.status, 401, "the revoked key is refused");
        await page.getByTestId("api-key-table").getByTestId("table-empty").waitFor();

        // The audit log: the key's creation and revocation, found by text and by action.
        const audit = page.getByTestId("site-audit");
        await audit.locator("[data-testid=search-box]").fill("engine-1");
        await page.waitForURL(/auditSearch=engine-1/);
        const rows = audit.locator("[data-testid=audit-table] [data-testid=table-row]");
        const rowCount = (n) =>
          page.waitForFunction(
            (n) => document.querySelectorAll("[data-testid=audit-table] [data-testid=table-row]").length === n,
            n,
            { timeout: 10000 },
          );
        await rowCount(2);
        const text = await audit.getByTestId("audit-table").textContent();
        assert(text.includes(words.created) && text.includes(words.deleted), `created and deleted: ${text}`);
        assert(!text.includes(key), "never the key itself");
        await audit.getByTestId("audit-action").selectOption("delete");
        await page.waitForURL(/auditAction=delete/);
        await rowCount(1);
        assertEqual(await rows.count(), 1, "one row: the revocation");
        await checkA11y(page, `audit log searched (${tag})`);
        await screenshot(page, `site-audit-${tag}`, { fullPage: true });
        assertEqual(page.problems, [], "page problems");
      } finally {
        await closePage(page);
        await server.stop();
      }
    });
  }
  for (const lang of ["en", "fr"]) {
    await test(`site page (desktop, ${lang}): a read-only administrator sees the state and changes nothing`, async () => {
      const server = await startServer({ args: [] });
      const page = await newPage(browser, server, { viewport: "desktop" });
      try {
        const reader = addUser(server, {
          username: "reader@example.com",
          password: "Quiet-harbour-52-meadow",
          role: "admin",
          access: "read-only",
        });
        server.cli(["apikey", "add", "--name", "engine-cli"]);
        await page.goto("/");
        await chooseLanguage(page, lang);
        await page.locator("#login-username").fill(reader.username);
        await page.locator("#login-password").fill(reader.password);
        await page.getByTestId("login-button").click();
        await page.waitForURL("**/dashboard");
        // Settings → Site in the side navigation (it expands on hover).
        await page.getByTestId("sidenav").hover();
        await page.locator("[data-testid=sidenav] button[aria-expanded]").click();
        await page.locator('[data-testid=sidenav] a[href="/settings/site"]').click();
        await page.waitForURL("**/settings/site");
        await page.locator("[data-testid=checklist-apiKey][data-done=true]").waitFor();
        await page.getByTestId("channel-email").waitFor();
        await page.getByTestId("api-key-table").getByText("engine-cli").waitFor();
        for (const id of ["api-key-form", "api-key-revoke", "channel-test", "site-audit"]) {
          assertEqual(await page.getByTestId(id).count(), 0, `no ${id} for a read-only administrator`);
        }
        await checkA11y(page, `site page, read-only administrator (${lang})`);
        await screenshot(page, `site-read-only-${lang}`, { fullPage: true });
        assertEqual(page.problems, [], "page problems");
      } finally {
        await closePage(page);
        await server.stop();
      }
    });
  }
  // Channels that are configured: a real test through the real mail server and gateway sink.
  const sinks = await startSinks();
  const config = `[notify]
poll_ms = 100
retry_first_secs = 1
retry_max_secs = 2
${sinks.smtpToml("cxwatch <alerts@cxwatch.test>")}[notify.sms]
url = "http://127.0.0.1:${sinks.http}/sms?key=gw-s3cret"
body = "to={number}&text={text}"
`;
  let configured;
  try {
    configured = await startServer({ args: [], config });
    const who = addUser(configured, { username: "site-ops@example.com", password: "Copper-kettle-81-willow" });
    for (const { lang, viewport } of [
      { lang: "en", viewport: "desktop" },
      { lang: "fr", viewport: "phone" },
    ]) {
      const said = SENT[lang];
      await test(`site page (${viewport}, ${lang}): configured channels say where they go and their tests really send`, async () => {
        const page = await newPage(browser, configured, { viewport });
        try {
          await page.goto("/");
          await chooseLanguage(page, lang);
          await page.locator("#login-username").fill(who.username);
          await page.locator("#login-password").fill(who.password);
          await page.getByTestId("login-button").click();
          await page.waitForURL("**/dashboard");
          await page.goto("/settings/site");
          const email = page.getByTestId("channel-email");
          await email.waitFor();
          assertEqual(await email.getAttribute("data-configured"), "true", "the mail server is configured");
          const card = await email.textContent();
          assert(card.includes(`127.0.0.1:${sinks.smtp} (STARTTLS), from cxwatch <alerts@cxwatch.test>`), card);
          const all = await page.getByTestId("site-channels").textContent();
          for (const secret of [sinks.pass, "gw-s3cret", "/sms"]) assert(!all.includes(secret), `${secret} shown`);

          // E-mail: to the caller, through the real server. Delivery is at least once (an
          // answer too slow for the sender's timeout is sent again, under the same
          // Message-ID): what counts is one message, by its Message-ID, since the click.
          const seen = new Set((await sinks.messages()).mail.map((m) => m.messageId));
          await email.getByTestId("channel-test").click();
          await page.getByTestId("channel-test-send").click();
          const result = page.getByTestId("channel-test-result");
          await result.waitFor({ timeout: 30000 });
          assertEqual((await result.textContent()).trim(), said.mail(who.username), "the e-mail test's answer");
          const mails = (await sinks.messages()).mail.filter((m) => !seen.has(m.messageId));
          assertEqual(new Set(mails.map((m) => m.messageId)).size, 1, "one message reached the mail server");
          assertEqual(mails.at(-1).rcptTo, [who.username], "to the caller");
          await checkA11y(page, `channel test sent (${viewport}, ${lang})`);
          await screenshot(page, `site-channel-sent-${lang}-${viewport}`);
          await page.getByTestId("channel-test-close").click();
          await email.getByTestId("channel-last").filter({ hasText: said.delivered }).waitFor();

          // SMS: to a number typed, through the gateway.
          await page.getByTestId("channel-sms").getByTestId("channel-test").click();
          await page.getByTestId("channel-test-to").fill("+15145550100");
          await page.getByTestId("channel-test-send").click();
          await result.waitFor({ timeout: 30000 });
          assertEqual((await result.textContent()).trim(), said.sms("+15145550100"), "the SMS test's answer");
          assert(
            (await sinks.messages()).http.some((r) => r.path === "/sms" && r.body.includes("15145550100")),
            "the gateway got it",
          );
          await page.getByTestId("channel-test-close").click();

          // A mail server that is down: the test says why, and so does the card.
          await sinks.smtpMode("down");
          try {
            await email.getByTestId("channel-test").click();
            await page.getByTestId("channel-test-send").click();
            await result.waitFor({ timeout: 30000 });
            const text = (await result.textContent()).trim();
            // The server's English detail (it names the mail server) on an English console only.
            assert(text.startsWith(said.failed), text);
            assert(lang !== "en" || text.includes(`SMTP 127.0.0.1:${sinks.smtp}`), text);
            await page.getByTestId("channel-test-close").click();
            await email.getByTestId("channel-last").filter({ hasText: said.lastFailed }).waitFor();
            await checkA11y(page, `channel failed (${viewport}, ${lang})`);
            await screenshot(page, `site-channel-failed-${lang}-${viewport}`, { fullPage: true });
          } finally {
            await sinks.smtpMode("ok");
            await sleep(200);
          }
          assertEqual(page.problems, [], "page problems");
        } finally {
          await closePage(page);
        }
      });
    }
  } finally {
    await configured?.stop();
    sinks.stop();
  }

  await test("site page: the closing figure (clicks and seconds, fresh install to first run on the dashboard)", async () => {
    assert(figures.length > 0, "figures were measured");
    for (const f of figures) console.log(`       ${f.tag}: ${f.clicks} clicks, ${f.seconds.toFixed(1)} s`);
  });
}
