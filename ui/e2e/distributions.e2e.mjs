import {
  addUser,
  apiRequest,
  apiToken,
  assert,
  checkA11y,
  chooseLanguage,
  closePage,
  newPage,
  screenshot,
  signIn,
  siteTime,
  siteTimeZone,
  startServer,
  startSinks,
  waitFor,
} from "./lib.mjs";

const TEXT = {
  en: {
    emailOk: "Email has been confirmed.",
    smsOk: "Text/SMS has been confirmed.",
    created: "Distribution has been successfully created",
    notice: "recorded but not sent",
    inUse: "cannot be deleted while these use it",
    sendTo: "Alert settings that send to it",
  },
  fr: {
    emailOk: "L’adresse e-mail a été confirmée.",
    smsOk: "Le numéro (texto/SMS) a été confirmé.",
    created: "La liste de distribution a été créée",
    notice: "enregistrées mais pas envoyées",
    inUse: "ne peut pas être supprimée tant que ceux-ci l’utilisent",
    sendTo: "Paramètres d’alerte qui envoient à cette liste",
  },
};

/** Starts e2e/notify-sinks.mjs; resolves { smtp, http, ca, user, pass, stop, messages, smtpMode }. */
async function resultText(page, i) {
  const el = page.locator(`[data-testid=confirm-result-${i}]`);
  await el.waitFor({ timeout: 30000 });
  return (await el.textContent()) ?? "";
}

export default async function distributions({ server: demo, browser, users: accounts, test }) {
  const { admin } = accounts;

  await test("distributions: without a mail server the demo says notifications are recorded but not sent", async () => {
    const page = await newPage(browser, demo);
    try {
      await signIn(page, admin);
      await page.goto(`${demo.url}/settings/distribution-list/3`);
      const notice = page.locator("[data-testid=delivery-notice]");
      await notice.waitFor();
      assert((await notice.textContent()).includes(TEXT.en.notice), "the notice names it");
      await page.waitForSelector("[data-testid=distributions-table] tbody tr");
      await screenshot(page, "distributions-list-demo-en-desktop");
    } finally {
      await closePage(page);
    }
  });

  // A list an alert setting sends to is not deleted: the screen says what uses it before it
  // asks 'cannot be undone' (which used to end in the server's refusal, in English only). The
  // list's 'Last Modified' is site time in the one format of every screen, not the browser's.
  const token = await apiToken(demo, admin);
  const zone = await siteTimeZone(demo);
  // An alert setting on a demo group sends to a demo list (removed at the end).
  const groups = (await apiRequest(demo, "GET", "trs/v1/groups", { token })).json.data;
  const lists = (await apiRequest(demo, "GET", "distributions", { token })).json.data;
  assert(groups.length && lists.length, "the demo has groups and lists");
  const made = await apiRequest(demo, "POST", "alerts/settings", {
    token,
    body: {
      name: "E2E list in use",
      active: false,
      testCaseGroupId: groups[0].id,
      distributionId: lists[0].id,
      failureToAlert: 3,
      emailSubject: "Down",
      voiceMessage: "Down",
      smsPrefix: "[cx]",
      alertStatus: ["FAIL"],
      schedule: [{ dayOfWeek: 1, startTimeSlot: "00:00", endTimeSlot: "24:00" }],
    },
  });
  assert(made.status === 200, `the setting: ${made.text}`);
  const setting = made.json.data;
  const used = (await apiRequest(demo, "GET", `distributions/${setting.distributionId}`, { token })).json.data;
  for (const { lang, viewport } of [
    { lang: "en", viewport: "desktop" },
    { lang: "fr", viewport: "desktop" },
    { lang: "en", viewport: "phone" },
    { lang: "fr", viewport: "phone" },
  ]) {
    await test(`distributions (${lang}, ${viewport}): a list in use says what uses it before any 'cannot be undone'`, async () => {
      const page = await newPage(browser, demo, { viewport });
      try {
        await page.goto("/");
        await chooseLanguage(page, lang);
        await signIn(page, admin);
        await page.goto(`/settings/distribution-list/3?search=${encodeURIComponent(used.name)}`);
        const row = page
          .locator("[data-testid=distributions-table] [data-testid=table-row]", { hasText: used.name })
          .first();
        await row.waitFor();
        if (viewport === "phone") await row.locator(".accordion-toggle").click();
        const when = siteTime(used.lastModifiedTime, zone);
        await row.getByText(when, { exact: true }).waitFor();
        await row.locator("[data-testid=delete-distribution]").click();
        const dialog = page.getByTestId("list-in-use-dialog");
        await dialog.waitFor();
        const text = (await dialog.textContent()) ?? "";
        assert(text.includes(TEXT[lang].inUse), `says the list is in use: ${text}`);
        assert(text.includes(TEXT[lang].sendTo) && text.includes(setting.name), `names the setting: ${text}`);
        assert((await page.getByTestId("confirm-dialog").count()) === 0, "no 'cannot be undone' before");
        await checkA11y(page, `list in use (${lang}, ${viewport})`);
        await screenshot(page, `distribution-in-use-${lang}-${viewport}`);
        // Its link leads to the setting; closing changes nothing.
        assert((await dialog.locator(`a[href="/report/setting/${setting.id}"]`).count()) >= 1, "a link to the setting");
        await page.getByTestId("list-in-use-close").click();
        await dialog.waitFor({ state: "detached" });
        const still = await apiRequest(demo, "GET", `distributions/${used.id}`, { token });
        assert(still.status === 200, "the list is still there");
      } finally {
        await closePage(page);
      }
    });
  }
  await apiRequest(demo, "DELETE", `alerts/settings/${setting.id}`, { token });

  const sinks = await startSinks();
  const config = `[notify]
poll_ms = 100
retry_first_secs = 1
retry_max_secs = 2
public_url = "https://console.cxwatch.test"
${sinks.smtpToml("cxwatch <alerts@cxwatch.test>")}[notify.sms]
url = "http://127.0.0.1:${sinks.http}/sms"
body = "to={number}&text={text}"
`;
  let server;
  try {
    server = await startServer({ args: [], config });
    const who = addUser(server, { username: "dl-admin@example.com", password: "dl-Admin-pass-1" });

    for (const lang of ["en", "fr"]) {
      const T = TEXT[lang];
      const mail = `ops-${lang}@example.com`;
      const number = lang === "en" ? "+1 514 555 0100" : "+33 6 12 34 56 78";
      const e164 = number.replaceAll(" ", "");

      await test(`distributions (${lang}): a list with e-mail and SMS rows, each confirmed, messages arrive`, async () => {
        const page = await newPage(browser, server);
        try {
          await page.goto("/");
          await chooseLanguage(page, lang);
          await signIn(page, who);
          await page.goto(`${server.url}/settings/distribution-list/3`);
          await page.waitForSelector("[data-testid=distributions-table]");
          // Mail server and SMS gateway configured, no voice gateway: the notice names Voice only.
          const notice = (await page.locator("[data-testid=delivery-notice]").textContent()) ?? "";
          assert(!/E-?mail|SMS/i.test(notice.split(/[:.]/)[1] ?? ""), `only voice is not configured: ${notice}`);
          await page.click("[data-testid=new-distribution]");
          await page.waitForSelector("[data-testid=distribution-form]");
          // Delete row only beside another row; an empty save names the fields.
          assert((await page.locator("[data-testid=delete-contact-0]").count()) === 0, "one row: no delete");
          await page.click("[data-testid=form-save]");
          await page.waitForSelector("[data-testid^=error-]");
          await page.fill("[data-testid=input-name]", `On call ${lang}`);
          await page.fill("[data-testid=input-contact-name-0]", "Ops mailbox");
          assert((await page.getAttribute("[data-testid=input-contact-info-0]", "type")) === "email", "email input");
          await page.fill("[data-testid=input-contact-info-0]", mail);
          await page.click("[data-testid=confirm-contact-0]");
          const ok0 = await resultText(page, 0);
          assert(ok0.includes(T.emailOk), `e-mail confirmed: ${ok0}`);
          await page.click("[data-testid=add-contact]");
          await page.fill("[data-testid=input-contact-name-1]", "On-call phone");
          await page.selectOption("[data-testid=input-contact-type-1]", "2");
          assert((await page.getAttribute("[data-testid=input-contact-info-1]", "type")) === "tel", "phone input");
          await page.fill("[data-testid=input-contact-info-1]", number);
          await page.click("[data-testid=confirm-contact-1]");
          const ok1 = await resultText(page, 1);
          assert(ok1.includes(T.smsOk), `SMS confirmed: ${ok1}`);
          assert((await page.locator("[data-testid=delete-contact-0]").count()) === 1, "two rows: delete");
          await screenshot(page, `distribution-form-${lang}-desktop`, { fullPage: true });

          const got = await waitFor("the messages", async () => {
            const m = await sinks.messages();
            const email = m.mail.find((x) => x.rcptTo.includes(mail));
            const sms = m.http.find((x) => x.body.includes(encodeURIComponent(e164)));
            return email && sms ? { email, sms } : null;
          });
          assert(got.email.secure === true && got.email.user === sinks.user, "STARTTLS and AUTH");
          assert(got.email.subject === "cxwatch test message", got.email.subject);

          await page.click("[data-testid=form-save]");
          await page.waitForURL(/\/settings\/distribution-list\/3/);
          await page.waitForSelector(`text=${T.created}`);
          await page.waitForSelector(`[data-testid=distributions-table] >> text=On call ${lang}`);
          await page.selectOption("[data-testid=type-filter]", "2");
          await page.waitForSelector(`[data-testid=distributions-table] >> text=${e164}`);
          await screenshot(page, `distributions-list-${lang}-desktop`);
        } finally {
          await closePage(page);
        }
      });

      await test(`distributions (${lang}): a Confirm while the mail server is down shows its reason`, async () => {
        const page = await newPage(browser, server, { viewport: "phone" });
        try {
          await page.goto("/");
          await chooseLanguage(page, lang);
          await signIn(page, who);
          await sinks.smtpMode("down");
          await page.goto(`${server.url}/report/distribution/0`);
          await page.waitForSelector("[data-testid=distribution-form]");
          await page.fill("[data-testid=input-contact-name-0]", "Desk");
          await page.fill("[data-testid=input-contact-info-0]", `down-${lang}@example.com`);
          await page.click("[data-testid=confirm-contact-0]");
          const reason = await resultText(page, 0);
          assert(reason.includes(`SMTP 127.0.0.1:${sinks.smtp}`), `the reason names the server: ${reason}`);
          assert(!reason.includes(TEXT[lang].emailOk), "not confirmed");
          await screenshot(page, `distribution-confirm-down-${lang}-phone`, { fullPage: true });
          // Back up: the queued test message is delivered after all.
          await sinks.smtpMode("ok");
          await waitFor("the message after the server came back", async () =>
            (await sinks.messages()).mail.some((x) => x.rcptTo.includes(`down-${lang}@example.com`)),
          );
          await page.goto(`${server.url}/settings/distribution-list/3`);
          await page.waitForSelector("[data-testid=distributions-table]");
          await screenshot(page, `distributions-list-${lang}-phone`);
        } finally {
          await sinks.smtpMode("ok");
          await closePage(page);
        }
      });
    }
  } finally {
    await server?.stop();
    sinks.stop();
  }
}
