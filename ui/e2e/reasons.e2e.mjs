// The right reason, in the page's language: a report outside the viewer's
// groups says so (not 'This page is for administrators.'), a report that does not exist says
// that, a read-only account is told its access is read-only, and the server's English messages
// are said in French on French pages (a test e-mail without a mail server). The sign-in lock-out
// is login-messages.e2e.mjs's. English and French, desktop and phone; axe on each state.
import {
  apiRequest,
  apiToken,
  assert,
  assertEqual,
  checkA11y,
  chooseLanguage,
  closePage,
  newPage,
  screenshot,
  signIn,
  waitForDemoData,
} from "./lib.mjs";

const CASES = [
  { lang: "en", viewport: "desktop" },
  { lang: "fr", viewport: "desktop" },
  { lang: "en", viewport: "phone" },
  { lang: "fr", viewport: "phone" },
];

const TEXT = {
  en: {
    hidden: (id) => `Report ${id} is not in your test case groups.`,
    missing: (id) => `Report ${id} does not exist.`,
    denied: "Access is denied!",
    notFound: "Not found",
    readOnly: "Your access is read-only: you can see the reports but not change them.",
    noMail: "No mail server is configured on this site: a test e-mail cannot be sent.",
  },
  fr: {
    hidden: (id) => `Le rapport ${id} n’est pas dans vos groupes de cas de test.`,
    missing: (id) => `Le rapport ${id} n’existe pas.`,
    denied: "Accès refusé !",
    notFound: "Introuvable",
    readOnly: "Votre accès est en lecture seule : vous voyez les rapports mais ne pouvez pas les modifier.",
    noMail: "Aucun serveur de courriel n’est configuré sur ce site : un courriel de test ne peut pas être envoyé.",
  },
};

const ADMINS_ONLY = /This page is for administrators|Cette page est réservée/;

export default async function reasons({ server, browser, users: accounts, test }) {
  const { admin, user } = accounts;
  const token = await apiToken(server, admin);
  const { groups } = await waitForDemoData(server, admin, { runsToday: false });
  // A report on a group the restricted user was not given (they have none).
  const made = await apiRequest(server, "POST", "reports", {
    token,
    body: {
      name: "Reasons check",
      reportTypeID: 1,
      testCaseGroupID: groups[0].id,
      timeframeName: "Today",
      runType: "Manual",
    },
  });
  assertEqual(made.status, 200, `report created (${made.text})`);
  const id = made.json.data.id;
  const gone = id + 100000;

  for (const { lang, viewport } of CASES) {
    const tag = `${lang}-${viewport}`;
    const T = TEXT[lang];
    await test(`reasons (${viewport}, ${lang}): a report outside the groups, a missing one, a read-only edit`, async () => {
      const page = await newPage(browser, server, { viewport });
      try {
        await page.goto("/");
        await chooseLanguage(page, lang);
        await signIn(page, user);

        await page.goto(`/report/view/${id}`);
        await page.waitForSelector("[data-testid=refused]");
        assertEqual((await page.textContent("[data-testid=refused] h1")).trim(), T.denied, "hidden: the title");
        assertEqual((await page.textContent("[data-testid=refused-reason]")).trim(), T.hidden(id), "hidden: why");
        // Said once, by the page: no banner repeats it (in English or otherwise).
        assertEqual(await page.locator("[data-testid=banner-error]").count(), 0, "no error banner");
        await checkA11y(page, `report outside the groups (${tag})`);
        await screenshot(page, `reason-hidden-report-${tag}`);

        await page.goto(`/report/view/${gone}`);
        await page.waitForSelector("[data-testid=refused]");
        assertEqual((await page.textContent("[data-testid=refused] h1")).trim(), T.notFound, "missing: the title");
        assertEqual((await page.textContent("[data-testid=refused-reason]")).trim(), T.missing(gone), "missing: why");
        assert(!ADMINS_ONLY.test(await page.textContent("main")), "not 'for administrators'");
        await checkA11y(page, `report that does not exist (${tag})`);
        await screenshot(page, `reason-missing-report-${tag}`);

        // A read-only account opening the report editor: its access, not 'administrators'.
        await page.goto(`/report/edit/${id}`);
        await page.waitForSelector("[data-testid=access-denied]");
        assert((await page.textContent("[data-testid=access-denied]")).includes(T.readOnly), "read-only: why");
        assertEqual(page.problems, [], "page problems");
      } finally {
        await closePage(page);
      }
    });

    await test(`reasons (${viewport}, ${lang}): a test e-mail without a mail server is refused in the page's language`, async () => {
      const page = await newPage(browser, server, { viewport });
      try {
        await page.goto("/");
        await chooseLanguage(page, lang);
        await signIn(page, admin);
        await page.goto("/report/distribution/0");
        await page.waitForSelector("[data-testid=distribution-form]");
        await page.fill("[data-testid=input-contact-name-0]", "Desk");
        await page.selectOption("[data-testid=input-contact-type-0]", "1");
        await page.fill("[data-testid=input-contact-info-0]", "desk@example.com");
        await page.click("[data-testid=confirm-contact-0]");
        const result = page.getByTestId("confirm-result-0");
        await result.waitFor();
        assertEqual((await result.textContent()).trim(), T.noMail, "the reason beside the row");
        await checkA11y(page, `test e-mail refused (${tag})`);
        await screenshot(page, `reason-no-mail-${tag}`, { fullPage: true });
        assertEqual(page.problems, [], "page problems");
      } finally {
        await closePage(page);
      }
    });
  }
}
