// Names are unique without case: a second test case group or distribution
// list of a name already taken (in another case) is refused by the server (409, field `name`,
// rule `taken`) and the form says so beside the name, in English and French, on a desktop and
// a phone; the form keeps what was typed and nothing is created. axe on the refused forms.
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
  en: { group: "Another test case group has this name", list: "Another distribution list has this name" },
  fr: { group: "Un autre groupe de cas de test porte ce nom", list: "Une autre liste de distribution porte ce nom" },
};

/** The message beside the field whose control has `testId`. */
const errorBeside = (page, testId) => page.locator(`.field:has([data-testid=${testId}]) .field-error`);

export default async function duplicateNames({ server, browser, users: accounts, test }) {
  const { admin } = accounts;
  const token = await apiToken(server, admin);
  const { groups } = await waitForDemoData(server, admin, { runsToday: false });
  const existing = groups[0].name;
  const made = await apiRequest(server, "POST", "distributions", {
    token,
    body: { name: "Twin check", contacts: [{ name: "Desk", type: 1, info: "desk@example.com" }] },
  });
  assertEqual(made.status, 200, "the first list is created");
  const count = async (path) => {
    const r = await apiRequest(server, "GET", path, { token });
    return r.json?.data?.length;
  };

  for (const { lang, viewport } of CASES) {
    const tag = `${lang}-${viewport}`;
    await test(`duplicate names (${viewport}, ${lang}): a group and a list of a taken name are refused beside the name`, async () => {
      const page = await newPage(browser, server, { viewport });
      try {
        await page.goto("/");
        await chooseLanguage(page, lang);
        await signIn(page, admin);

        // A group named as an existing one, in upper case.
        const groupsBefore = (await apiRequest(server, "GET", "trs/v1/groups", { token })).json.data.length;
        await page.goto("/settings/test-case-group/2");
        await page.click("[data-testid=new-group]");
        await page.waitForSelector("[data-testid=group-form]");
        await page.fill("[data-testid=group-name]", existing.toUpperCase());
        await page.selectOption("[data-testid=group-channel]", groups[0].channel ?? "voice");
        await page.locator("[data-testid=case-select]").first().check();
        await page.click("[data-testid=group-form] [data-testid=form-save]");
        const beside = errorBeside(page, "group-name");
        await beside.waitFor();
        assertEqual((await beside.textContent()).trim(), TEXT[lang].group, "the group name's message");
        assertEqual(await page.inputValue("[data-testid=group-name]"), existing.toUpperCase(), "the name typed");
        assert(await page.getByTestId("group-dialog").isVisible(), "the dialog stays open");
        await checkA11y(page, `group dialog, name taken (${tag})`);
        await screenshot(page, `duplicate-group-${tag}`);
        const groupsAfter = (await apiRequest(server, "GET", "trs/v1/groups", { token })).json.data.length;
        assertEqual(groupsAfter, groupsBefore, "no group was created");
        await page.keyboard.press("Escape");

        // A distribution list named as 'Twin check', in another case.
        const listsBefore = await count("distributions");
        await page.goto("/report/distribution/0");
        await page.waitForSelector("[data-testid=distribution-form]");
        await page.fill("[data-testid=input-name]", "twin CHECK");
        await page.fill("[data-testid=input-contact-name-0]", "Desk");
        await page.selectOption("[data-testid=input-contact-type-0]", "1");
        await page.fill("[data-testid=input-contact-info-0]", "desk@example.com");
        await page.click("[data-testid=distribution-form] [data-testid=form-save]");
        const besideList = errorBeside(page, "input-name");
        await besideList.waitFor();
        assertEqual((await besideList.textContent()).trim(), TEXT[lang].list, "the list name's message");
        assert(page.url().endsWith("/report/distribution/0"), "the form stays");
        await checkA11y(page, `distribution form, name taken (${tag})`);
        await screenshot(page, `duplicate-list-${tag}`, { fullPage: true });
        assertEqual(await count("distributions"), listsBefore, "no list was created");
        assertEqual(page.problems, [], "page problems");
      } finally {
        await closePage(page);
      }
    });
  }
}
