// An administrator who takes rights from themselves is asked first: on their
// own profile, Save with the role User (or the access read-only) opens a confirmation; Cancel
// changes nothing; confirming saves, ends the session (the server ends every session of a user
// whose role or access changed) and the login page says why; signing in again lands on the
// dashboard, which the new role may see, with no settings and no 'Access is denied!'. Made a
// User with no test case group, they are warned first that they would see nothing. English
// and French, desktop and phone; axe on the confirmation and the login page.
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
  en: {
    role: "You are making yourself a User",
    access: "You are making your own access read-only",
    noGroups: "You have chosen no test case group: you will see no dashboard, report or alert data",
    notice: "Your permissions have changed. Sign in again to go on with them.",
  },
  fr: {
    role: "Vous faites de vous un Utilisateur",
    access: "Vous passez votre propre accès en lecture seule",
    noGroups: "Vous n’avez choisi aucun groupe de cas de test : vous ne verrez aucune donnée",
    notice: "Vos permissions ont changé. Reconnectez-vous pour continuer avec elles.",
  },
};

export default async function selfDemotion({ server, browser, users: accounts, test }) {
  const adminToken = await apiToken(server, accounts.admin);

  for (const { lang, viewport } of CASES) {
    const tag = `${lang}-${viewport}`;
    const T = TEXT[lang];
    for (const what of ["role", "access"]) {
      await test(`self-demotion (${viewport}, ${lang}): ${what} — asked first, then signed in again where the new rights may be`, async () => {
        const me = addUser(server, {
          username: `e2e-demote-${what}-${tag}@example.com`,
          password: "e2e-Demote-pass-1",
          role: "admin",
          access: "read-write",
        });
        const signin = await apiRequest(server, "POST", "auth/signin", {
          body: { username: me.username, password: me.password, remember: false },
        });
        const id = signin.json.data.id;
        const page = await newPage(browser, server, { viewport });
        try {
          await page.goto("/");
          await chooseLanguage(page, lang);
          await signIn(page, me);
          await page.goto(`/users/${id}`);
          await page.waitForFunction(() => document.querySelector("[data-testid=input-role]")?.value === "ROLE_ADMIN");
          // Accounts made with the CLI have no names: the form asks for them.
          await page.fill("[data-testid=input-firstName]", "Dana");
          await page.fill("[data-testid=input-lastName]", "Demoted");
          if (what === "role") await page.selectOption("[data-testid=input-role]", "ROLE_USER");
          else await page.selectOption("[data-testid=input-accessType]", "read-only");

          // Asked first; Cancel changes nothing.
          await page.click("[data-testid=user-form] [data-testid=form-save]");
          const dialog = page.getByTestId("demotion-dialog");
          await dialog.waitFor();
          assert((await dialog.textContent()).includes(T[what]), `the question says what is given up (${what})`);
          // A User with no group would see nothing at all: warned before saving.
          const warning = dialog.getByTestId("demotion-no-groups");
          if (what === "role") assert((await warning.textContent()).includes(T.noGroups), "warned: no group left");
          else assertEqual(await warning.count(), 0, "no group warning when the role stays");
          await checkA11y(page, `self-demotion question (${tag}, ${what})`);
          await screenshot(page, `self-demotion-${what}-${tag}`);
          await page.click("[data-testid=demotion-cancel]");
          await dialog.waitFor({ state: "detached" });
          let stored = (await apiRequest(server, "GET", `users/${id}`, { token: adminToken })).json.data;
          assertEqual([stored.roles[0], stored.accessType], ["ROLE_ADMIN", "read-write"], "unchanged after Cancel");

          // Confirmed: saved, signed out with the reason.
          await page.click("[data-testid=user-form] [data-testid=form-save]");
          await dialog.waitFor();
          await page.click("[data-testid=demotion-confirm]");
          await page.waitForSelector("[data-testid=role-change-notice]");
          assertEqual(
            (await page.textContent("[data-testid=role-change-notice]")).trim(),
            T.notice,
            "the login page says why",
          );
          stored = (await apiRequest(server, "GET", `users/${id}`, { token: adminToken })).json.data;
          assertEqual(
            [stored.roles[0], stored.accessType],
            what === "role" ? ["ROLE_USER", "read-write"] : ["ROLE_ADMIN", "read-only"],
            "saved",
          );
          await checkA11y(page, `login after self-demotion (${tag}, ${what})`);

          // Signed in again: the dashboard, and nothing the new rights may not use.
          await signIn(page, me);
          assertEqual(await page.locator("[data-testid=access-denied]").count(), 0, "no 'Access is denied!'");
          if (what === "role") {
            await page.goto("/settings/admin-settings/4");
            await page.waitForSelector("[data-testid=access-denied]");
          } else {
            await page.goto("/settings/admin-settings/4");
            await page.waitForSelector("[data-testid=users-table]");
            assertEqual(await page.locator("[data-testid=new-user]").count(), 0, "no New for a read-only admin");
          }
          assertEqual(page.problems, [], "page problems");
        } finally {
          await closePage(page);
        }
      });
    }
  }
}
