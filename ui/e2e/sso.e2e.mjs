// Single sign-on: the button shows only when the tenant has [tenants.sso] and only
// on a desktop; signing in through a real OpenID Connect provider's login page (panva's
// oidc-provider from ../tests/oidc, started here on 127.0.0.1) lands on /dashboard as the
// mapped user with the mapped role; a user the mapping refuses is back on the login page with
// the reason; /callback without an id goes to /login. English and French.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  apiRequest,
  assert,
  assertEqual,
  chooseLanguage,
  closePage,
  freePort,
  newPage,
  REPO_DIR,
  screenshot,
  startServer,
} from "./lib.mjs";

const OIDC_DIR = path.join(REPO_DIR, "tests", "oidc");

const TEXT = {
  en: { notAllowed: "Your account is not allowed to use this console." },
  fr: { notAllowed: "Votre compte n’est pas autorisé à utiliser cette console." },
};

const ACCOUNTS = [
  {
    login: "ann@acme.test",
    password: "ann-pw",
    claims: { email: "ann@acme.test", given_name: "Ann", family_name: "Admin", groups: ["cx-admins"] },
  },
  {
    login: "ulf@acme.test",
    password: "ulf-pw",
    claims: { email: "ulf@acme.test", given_name: "Ulf", family_name: "User", groups: ["cx-users"] },
  },
  { login: "mia@acme.test", password: "mia-pw", claims: { email: "mia@acme.test", groups: ["marketing"] } },
];

/** Starts the provider (installing it when missing); resolves { issuer, stop() }. */
async function startProvider(port, consoleUrl) {
  if (!existsSync(path.join(OIDC_DIR, "node_modules", "oidc-provider"))) {
    const r = spawnSync("npm", ["ci", "--no-audit", "--no-fund", "--silent"], { cwd: OIDC_DIR, stdio: "inherit" });
    if (r.status !== 0) throw new Error("npm ci in tests/oidc failed");
  }
  const cfg = {
    port,
    kid: "e2e",
    client: {
      client_id: "cxwatch",
      client_secret: "e2e-secret",
      redirect_uris: [`${consoleUrl}/api/auth/sso/callback`],
      post_logout_redirect_uris: [`${consoleUrl}/login`],
    },
    accounts: ACCOUNTS,
  };
  const child = spawn(process.execPath, [path.join(OIDC_DIR, "provider.mjs"), JSON.stringify(cfg)], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  await new Promise((resolve, reject) => {
    child.stdout.once("data", (d) => (String(d).startsWith("listening") ? resolve() : reject(new Error(String(d)))));
    child.once("exit", (code) => reject(new Error(`provider exited (${code})`)));
  });
  return { issuer: `http://127.0.0.1:${port}`, stop: () => child.kill() };
}

/** At the provider's login page: signs in as `account`. */
async function signInAtProvider(page, account) {
  await page.waitForSelector('input[name="login"]');
  await page.fill('input[name="login"]', account.login);
  await page.fill('input[name="password"]', account.password);
  await page.click('button[type="submit"]');
}

export default async function sso({ server, browser, test }) {
  await test("sso: no single sign-on button when the tenant has none", async () => {
    const page = await newPage(browser, server, { viewport: "desktop" });
    try {
      await page.goto("/");
      await page.waitForSelector("[data-testid=login-form]");
      assertEqual(await page.getByTestId("sso-button").count(), 0, "SSO buttons");
    } finally {
      await closePage(page);
    }
  });

  const providerPort = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), "cxwatch-sso-"));
  const secret = path.join(dir, "client-secret");
  writeFileSync(secret, "e2e-secret\n");
  let console_;
  let provider;
  try {
    console_ = await startServer({
      args: [],
      config: [
        "[[tenants]]",
        'name = "acme"',
        'hosts = ["127.0.0.1"]',
        "[tenants.sso]",
        `issuer = "http://127.0.0.1:${providerPort}"`,
        'client_id = "cxwatch"',
        `client_secret_file = "${secret}"`,
        'scopes = ["openid", "email", "profile", "groups"]',
        "create_users = true",
        'admin_groups = ["cx-admins"]',
        'read_write_groups = ["cx-admins"]',
        'user_groups = ["cx-users"]',
        // Discovery at each sign-in, so that the stopped provider is noticed at the start.
        "metadata_ttl_secs = 1",
        "",
      ].join("\n"),
    });
    provider = await startProvider(providerPort, console_.url);

    for (const lang of ["en", "fr"]) {
      const account = lang === "en" ? ACCOUNTS[0] : ACCOUNTS[1];
      const role = lang === "en" ? "ROLE_ADMIN" : "ROLE_USER";
      await test(`sso (desktop, ${lang}): sign in at the provider and land on /dashboard as ${role}`, async () => {
        const page = await newPage(browser, console_, { viewport: "desktop" });
        try {
          await page.goto("/");
          await chooseLanguage(page, lang);
          await page.getByTestId("sso-button").waitFor();
          await screenshot(page, `sso-login-${lang}-desktop`);
          await page.getByTestId("sso-button").click();
          await signInAtProvider(page, account);
          await page.waitForURL(/\/dashboard$/, { timeout: 30000 });
          const user = await page.evaluate(() => JSON.parse(localStorage.getItem("user") ?? "null"));
          assertEqual(user?.username, account.login, "signed-in user");
          assertEqual(user?.roles?.[0], role, "mapped role");
          assertEqual(user?.accessType, lang === "en" ? "read-write" : "read-only", "mapped access");
          await screenshot(page, `sso-dashboard-${lang}-desktop`);
        } finally {
          await closePage(page);
        }
      });

      await test(`sso (desktop, ${lang}): a user the mapping refuses is back at the login with the reason`, async () => {
        const page = await newPage(browser, console_, { viewport: "desktop" });
        try {
          await page.goto("/");
          await chooseLanguage(page, lang);
          await page.getByTestId("sso-button").click();
          await signInAtProvider(page, ACCOUNTS[2]);
          await page.getByTestId("sso-error").waitFor({ timeout: 30000 });
          const text = (await page.getByTestId("sso-error").textContent()) ?? "";
          assert(text.startsWith(TEXT[lang].notAllowed), `message: ${text}`);
          assert(!page.url().includes("sso_error"), `the code leaves the address: ${page.url()}`);
          await screenshot(page, `sso-refused-${lang}-desktop`);
        } finally {
          await closePage(page);
        }
      });

      await test(`sso (phone, ${lang}): no single sign-on button`, async () => {
        const page = await newPage(browser, console_, { viewport: "phone" });
        try {
          await page.goto("/");
          await chooseLanguage(page, lang);
          await page.waitForSelector("[data-testid=login-form]");
          assertEqual(await page.getByTestId("sso-button").count(), 0, "SSO buttons on a phone");
          await screenshot(page, `sso-login-${lang}-phone`);
        } finally {
          await closePage(page);
        }
      });
    }

    await test("sso: signing out ends the console session, then the provider's (RP-initiated logout)", async () => {
      const page = await newPage(browser, console_, { viewport: "desktop" });
      try {
        await page.goto("/");
        await page.getByTestId("sso-button").click();
        await signInAtProvider(page, ACCOUNTS[0]);
        await page.waitForURL(/\/dashboard$/, { timeout: 30000 });
        const token = await page.evaluate(() => localStorage.getItem("accessToken"));
        const signout = page.waitForResponse((r) => r.url().endsWith("/api/auth/signout"));
        await page.getByTestId("sidenav").hover();
        await page.getByTestId("sign-out").click();
        assertEqual((await signout).status(), 200, "console sign-out");
        // The provider asks to confirm, then returns to the console's login page.
        await page.waitForURL((u) => u.port === String(providerPort), { timeout: 30000 });
        await page.locator('button[name="logout"]').click();
        await page.waitForURL(/\/login$/, { timeout: 30000 });
        await page.waitForSelector("[data-testid=login-form]");
        const after = await apiRequest(console_, "GET", "users", { token });
        assertEqual(after.status, 401, "the token no longer works");
      } finally {
        await closePage(page);
      }
    });

    await test("sso: /callback without an id goes to /login", async () => {
      const page = await newPage(browser, console_, { viewport: "desktop" });
      try {
        await page.goto("/callback");
        await page.waitForURL(/\/login$/, { timeout: 15000 });
        await page.waitForSelector("[data-testid=login-form]");
      } finally {
        await closePage(page);
      }
    });

    await test("sso: with the provider stopped, the login page says it cannot be reached", async () => {
      provider.stop();
      provider = undefined;
      const page = await newPage(browser, console_, { viewport: "desktop" });
      try {
        await page.goto("/");
        await page.getByTestId("sso-button").click();
        await page.getByTestId("sso-error").waitFor({ timeout: 30000 });
        const text = (await page.getByTestId("sso-error").textContent()) ?? "";
        assert(text.startsWith("The identity provider cannot be reached."), `message: ${text}`);
      } finally {
        await closePage(page);
      }
    });
  } finally {
    provider?.stop();
    await console_?.stop();
  }
}
