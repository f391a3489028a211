// A read-only administrator is offered no writes: Distribution Lists and
// Admin Settings show no New, Delete, Edit, Save, Confirm or Reset Password, as Reports, Alert
// Settings and Groups already did; a new list or user says why it cannot be opened; the own
// profile changes only its password. English and French, desktop and phone, axe on each state.
import {
  addUser,
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
} from "./lib.mjs";

const CASES = [
  { lang: "en", viewport: "desktop" },
  { lang: "fr", viewport: "desktop" },
  { lang: "en", viewport: "phone" },
  { lang: "fr", viewport: "phone" },
];

const TEXT = {
  en: { view: "View", newList: "you can see the distribution lists but not add one", newUser: "but not add one" },
  fr: {
    view: "Afficher",
    newList: "vous voyez les listes de distribution mais ne pouvez pas en ajouter",
    newUser: "mais ne pouvez pas en ajouter",
  },
};

/** How many elements match `selector` (0 when none). */
const count = (page, selector) => page.locator(selector).count();

/** The first row's actions on screen: on a phone, its card opened. */
async function firstRowActions(page, table, viewport) {
  await page.waitForSelector(`[data-testid=${table}] [data-testid=table-row]`);
  if (viewport === "phone") {
    await page.locator(`[data-testid=${table}] [data-testid=table-row] .accordion-toggle`).first().click();
  }
}

export default async function readonlyAdmin({ server, browser, users: accounts, test }) {
  const reader = addUser(server, {
    username: "e2e-ro-admin@example.com",
    password: "e2e-RoAdmin-pass-1",
    role: "admin",
    access: "read-only",
  });
  const adminToken = await apiToken(server, accounts.admin);
  const made = await apiRequest(server, "POST", "distributions", {
    token: adminToken,
    body: { name: "Read-only check", contacts: [{ name: "Desk", type: 1, info: "desk@example.com" }] },
  });
  assertEqual(made.status, 200, "the distribution list is created");
  const listId = made.json.data.id;
  const me = await apiRequest(server, "POST", "auth/signin", {
    body: { username: reader.username, password: reader.password, remember: false },
  });
  const readerToken = me.json?.data?.accessToken;
  const myId = me.json?.data?.id;
  assert(readerToken && myId, `the read-only admin signs in (${me.status} ${me.text})`);

  for (const { lang, viewport } of CASES) {
    const tag = `${lang}-${viewport}`;
    await test(`read-only admin (${viewport}, ${lang}): lists and forms offer no writes`, async () => {
      const page = await newPage(browser, server, { viewport });
      try {
        await page.goto("/");
        await chooseLanguage(page, lang);
        await signIn(page, reader);

        // Distribution lists: no New, no Delete, no check boxes; the row link says View.
        await page.goto("/settings/distribution-list/3");
        await firstRowActions(page, "distributions-table", viewport);
        await page.waitForSelector("[data-testid=distributions-table] [data-testid=edit-distribution]");
        for (const id of ["new-distribution", "delete-distribution", "delete-selected"]) {
          assertEqual(await count(page, `[data-testid=${id}]`), 0, `distribution lists: ${id}`);
        }
        assertEqual(await count(page, "[data-testid=distributions-table] input[type=checkbox]"), 0, "check boxes");
        const link = (await page.locator("[data-testid=edit-distribution]").first().textContent()).trim();
        assertEqual(link, TEXT[lang].view, "the row link");
        await checkA11y(page, `distribution lists, read-only (${tag})`);
        await screenshot(page, `readonly-distributions-${tag}`);

        // One list: shown, nothing to change or send.
        await page.goto(`/report/distribution/${listId}`);
        await page.waitForFunction(
          () => document.querySelector("[data-testid=input-name]")?.value === "Read-only check",
        );
        await page.waitForSelector("[data-testid=read-only-note]");
        for (const id of ["form-save", "confirm-contact-0", "add-contact", "delete-contact-0"]) {
          assertEqual(await count(page, `[data-testid=${id}]`), 0, `distribution form: ${id}`);
        }
        assert(await page.locator("[data-testid=input-name]").evaluate((e) => e.readOnly), "the name is read-only");
        assert(
          await page.locator("[data-testid=input-contact-type-0]").evaluate((e) => e.disabled),
          "the type is fixed",
        );
        await checkA11y(page, `distribution form, read-only (${tag})`);
        await screenshot(page, `readonly-distribution-form-${tag}`, { fullPage: true });

        // A new list: refused with its reason, not the administrators' one.
        await page.goto("/report/distribution/0");
        await page.waitForSelector("[data-testid=access-denied]");
        const why = await page.locator("[data-testid=access-denied]").textContent();
        assert(why.includes(TEXT[lang].newList), `the reason for a new list: ${why}`);

        // Admin Settings: no New, no Delete; another user's form has no Save, no Reset Password.
        await page.goto("/settings/admin-settings/4");
        await firstRowActions(page, "users-table", viewport);
        await page.waitForSelector("[data-testid=users-table] [data-testid=edit-user]");
        for (const id of ["new-user", "delete-user", "delete-selected"]) {
          assertEqual(await count(page, `[data-testid=${id}]`), 0, `admin settings: ${id}`);
        }
        await checkA11y(page, `admin settings, read-only (${tag})`);
        await screenshot(page, `readonly-users-${tag}`);
        const other = await apiRequest(server, "GET", "users?pageNo=0&pageSize=5&search=e2e-admin", {
          token: readerToken,
        });
        const otherId = other.json.data.content[0].id;
        await page.goto(`/users/${otherId}`);
        await page.waitForSelector("[data-testid=user-form][aria-busy=false] [data-testid=read-only-note]");
        for (const id of ["form-save", "change-password"]) {
          assertEqual(await count(page, `[data-testid=${id}]`), 0, `another user's form: ${id}`);
        }
        await page.goto("/users/0");
        await page.waitForSelector("[data-testid=access-denied]");
        const whyUser = await page.locator("[data-testid=access-denied]").textContent();
        assert(whyUser.includes(TEXT[lang].newUser), `the reason for a new user: ${whyUser}`);

        // One's own profile: Access Type cannot change (so nothing says 'updated'); the password can.
        await page.goto(`/users/${myId}`);
        await page.waitForSelector("[data-testid=user-form][aria-busy=false] [data-testid=read-only-note]");
        assert(await page.locator("[data-testid=input-accessType]").evaluate((e) => e.disabled), "access type fixed");
        assertEqual(await count(page, "[data-testid=form-save]"), 0, "own profile: Save");
        assertEqual(await count(page, "[data-testid=change-password]"), 1, "own profile: Change Password");
        await checkA11y(page, `own profile, read-only (${tag})`);
        await screenshot(page, `readonly-profile-${tag}`, { fullPage: true });
        assertEqual(page.problems, [], "page problems");
      } finally {
        await closePage(page);
      }
    });
  }
}
