// Users and profile: an admin creates, edits and deletes a user; a restricted user
// sees no settings sub-items and cannot open another user, and (read-only) sees their own
// profile read-only, without Save; changing your own password, then
// signing in with it; an admin resetting a password. English and French, desktop and phone.
// Needs the server's users API (GET/POST/PUT/PATCH/DELETE /api/users).
import {
  addUser,
  apiRequest,
  apiToken,
  assert,
  chooseLanguage,
  closePage,
  newPage,
  screenshot,
  signIn,
  sleep,
} from "./lib.mjs";

const CASES = [
  { lang: "en", viewport: "desktop" },
  { lang: "fr", viewport: "desktop" },
  { lang: "en", viewport: "phone" },
  { lang: "fr", viewport: "phone" },
];

const TEXT = {
  en: { deleteSelected: "Delete Selected", changed: "The password has been changed." },
  fr: { deleteSelected: "Supprimer la sélection", changed: "Le mot de passe a été changé." },
};

/** The id of the user with this username, through the API. */
async function userId(server, token, username) {
  const r = await apiRequest(server, "GET", `users?pageNo=0&pageSize=100&search=${encodeURIComponent(username)}`, {
    token,
  });
  const found = r.json?.data?.content?.find((u) => u.username.toLowerCase() === username.toLowerCase());
  return found?.id;
}

async function fill(page, testId, value) {
  await page.fill(`[data-testid=${testId}]`, value);
}

export default async function users({ server, browser, users: accounts, test }) {
  const { admin, user } = accounts;
  const adminToken = await apiToken(server, admin);

  for (const { lang, viewport } of CASES) {
    const tag = `${lang}-${viewport}`;
    const email = `e2e-made-${tag}@example.com`;

    await test(`users (${viewport}, ${lang}): an admin creates, edits and deletes a user`, async () => {
      const page = await newPage(browser, server, { viewport });
      try {
        await page.goto("/");
        await chooseLanguage(page, lang);
        await signIn(page, admin);
        await page.goto(`${server.url}/settings/admin-settings/4`);
        await page.waitForSelector("[data-testid=users-table]");
        await screenshot(page, `users-list-${tag}`);
        await page.click("[data-testid=new-user]");
        await page.waitForSelector("[data-testid=user-form]");
        // Empty save: the required fields say so, nothing is sent.
        await page.click("[data-testid=form-save]");
        await page.waitForSelector("[data-testid^=error-]");
        await fill(page, "input-firstName", "Ada");
        await fill(page, "input-lastName", "Lovelace");
        await fill(page, "input-username", email);
        await page.selectOption("[data-testid=input-role]", "ROLE_USER");
        await page.waitForSelector("[data-testid=input-groups]");
        await fill(page, "input-password", "a-long-password-1");
        await screenshot(page, `user-form-new-${tag}`);
        await page.click("[data-testid=form-save]");
        await page.waitForURL(/\/settings\/admin-settings\/4/);
        const id = await userId(server, adminToken, email);
        assert(id, "the new user exists on the server");

        // Edit: the last name changes.
        await page.goto(`${server.url}/users/${id}`);
        await page.waitForFunction(() => document.querySelector("[data-testid=input-lastName]")?.value === "Lovelace");
        await fill(page, "input-lastName", "King");
        await page.click("[data-testid=form-save]");
        await page.waitForURL(/\/settings\/admin-settings\/4/);
        const r = await apiRequest(server, "GET", `users/${id}`, { token: adminToken });
        assert(r.json?.data?.lastName === "King", `last name saved (${r.text})`);

        // Delete through the search, the check box, Delete Selected and the confirmation.
        await page.fill("[data-testid=search-box]", email);
        await page.waitForSelector(`[data-testid=table-row][data-row-id="${id}"]`);
        await page.waitForFunction(() => document.querySelectorAll("[data-testid=table-row]").length === 1);
        await page.click(`[data-testid=table-row][data-row-id="${id}"] [data-testid=row-select]`);
        await page.getByText(TEXT[lang].deleteSelected).click();
        await page.waitForSelector("[data-testid=confirm-dialog]");
        await screenshot(page, `users-confirm-${tag}`);
        await page.click("[data-testid=confirm-delete]");
        await page.waitForSelector(`[data-testid=table-row][data-row-id="${id}"]`, { state: "detached" });
        assert(!(await userId(server, adminToken, email)), "the user is gone on the server");
      } finally {
        await closePage(page);
      }
    });

    await test(`users (${viewport}, ${lang}): a restricted user sees no settings sub-items and cannot open another user`, async () => {
      const page = await newPage(browser, server, { viewport });
      try {
        await page.goto("/");
        await chooseLanguage(page, lang);
        await signIn(page, user);
        const me = await page.evaluate(() => JSON.parse(localStorage.getItem("user")));
        if (viewport === "phone") await page.click("[data-testid=open-menu]").catch(() => {});
        assert(
          (await page.locator('[data-testid=sidenav] a[href^="/settings/"]').count()) === 0,
          "no settings sub-items",
        );
        await page.goto(`${server.url}/users/${me.id === 1 ? 2 : 1}`);
        await page.waitForSelector("[data-testid=access-denied]");
        await page.goto(`${server.url}/settings/admin-settings/4`);
        await page.waitForSelector("[data-testid=access-denied]");
        await page.goto(`${server.url}/users/${me.id}`);
        await page.waitForSelector("[data-testid=user-form]");
        assert((await page.locator("[data-testid=input-role]").count()) === 0, "no permissions field on own profile");
        assert((await page.locator("[data-testid=field-groups]").count()) === 0, "no group field on own profile");
        // A read-only account: its profile shows read-only, without Save; the
        // password it can change.
        await page.waitForSelector("[data-testid=read-only-note]");
        for (const field of ["input-firstName", "input-lastName", "input-username"]) {
          assert(await page.locator(`[data-testid=${field}]`).evaluate((e) => e.readOnly), `${field} is read-only`);
        }
        assert((await page.locator("[data-testid=form-save]").count()) === 0, "no Save on a read-only profile");
        await page.waitForSelector("[data-testid=change-password]");
        await screenshot(page, `user-profile-restricted-${tag}`);
      } finally {
        await closePage(page);
      }
    });

    await test(`users (${viewport}, ${lang}): change your own password, then sign in with it`, async () => {
      const who = {
        username: `e2e-self-${tag}@example.com`,
        password: "e2e-Self-pass-1-old",
        role: "user",
        access: "read-write",
      };
      addUser(server, who);
      const fresh = `e2e-Self-pass-1-new-${lang}`;
      const page = await newPage(browser, server, { viewport });
      try {
        await page.goto("/");
        await chooseLanguage(page, lang);
        await signIn(page, who);
        const me = await page.evaluate(() => JSON.parse(localStorage.getItem("user")));
        await page.goto(`${server.url}/users/${me.id}`);
        await page.waitForSelector("[data-testid=user-form][aria-busy=false]");
        await page.click("[data-testid=change-password]");
        await page.waitForSelector("[data-testid=password-dialog]");
        // Confirm differs from new: refused beside the field.
        await fill(page, "input-oldPassword", who.password);
        await fill(page, "input-newPassword", fresh);
        await fill(page, "input-confirmPassword", `${fresh}x`);
        await page.click("[data-testid=password-dialog] [data-testid=form-save]");
        await page.waitForSelector("[data-testid=password-dialog] [data-testid^=error-]");
        await fill(page, "input-confirmPassword", fresh);
        await page.click("[data-testid=password-dialog] [data-testid=form-save]");
        await page.getByText(TEXT[lang].changed).waitFor();
        // The old session ended with the change; sign out where the control is shown (the
        // phone's footer has none).
        const signOut = page.locator("[data-testid=sign-out]").first();
        if (await signOut.isVisible()) await signOut.click();
        else await page.evaluate(() => localStorage.clear());
        await page.goto(server.url);
        await signIn(page, { ...who, password: fresh });
        await page.waitForURL(/\/dashboard/);
      } finally {
        await closePage(page);
      }
    });

    await test(`users (${viewport}, ${lang}): an admin resets a password`, async () => {
      const who = { username: `e2e-reset-${tag}@example.com`, password: "e2e-Reset-pass-1", role: "user" };
      addUser(server, who);
      const id = await userId(server, adminToken, who.username);
      assert(id, "the user to reset exists");
      const fresh = `e2e-Reset-pass-2-${lang}`;
      const page = await newPage(browser, server, { viewport });
      try {
        await page.goto("/");
        await chooseLanguage(page, lang);
        await signIn(page, admin);
        await page.goto(`${server.url}/users/${id}`);
        await page.waitForSelector("[data-testid=user-form][aria-busy=false]");
        await page.click("[data-testid=change-password]");
        await page.waitForSelector("[data-testid=password-dialog]");
        assert((await page.locator("[data-testid=input-oldPassword]").count()) === 0, "no current password asked");
        assert((await page.locator("[data-testid=input-confirmPassword]").count()) === 0, "only a new password");
        await fill(page, "input-newPassword", fresh);
        await page.click("[data-testid=password-dialog] [data-testid=form-save]");
        await page.getByText(TEXT[lang].changed).waitFor();
        await sleep(100);
        await apiToken(server, { ...who, password: fresh }); // throws when the new one does not work
      } finally {
        await closePage(page);
      }
    });
  }
}
