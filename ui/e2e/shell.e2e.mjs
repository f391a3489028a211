// The console shell: login, single sign-on return, routes, language, side navigation, banners,
// sign-out and idle sign-out, on a desktop and a phone.
import {
  addUser,
  assert,
  assertEqual,
  chooseLanguage,
  closePage,
  loginLink,
  newPage,
  screenshot,
  signIn,
  sleep,
  startServer,
} from "./lib.mjs";

const NOT_FOUND = "This page could not be found";

async function storedUser(page) {
  return page.evaluate(() => JSON.parse(localStorage.getItem("user") ?? "null"));
}

export default async function shell({ server, browser, users, test }) {
  const { admin, user } = users;
  const problems = [];
  const open = async (opts) => {
    const page = await newPage(browser, server, opts);
    problems.push(page.problems);
    return page;
  };

  await test("login page: fields, Remember Me, Login, language selector, version, no SSO without ssoUrl", async () => {
    const page = await open();
    await page.goto("/");
    await page.getByLabel("Username").waitFor();
    await page.getByLabel("Password").waitFor();
    await page.getByText("Remember Me").waitFor();
    await page.getByRole("button", { name: "Login" }).waitFor();
    await page.getByTestId("language-select").waitFor();
    await page.getByText("v0.1.0").waitFor();
    assertEqual(await page.getByTestId("sso-button").count(), 0, "SSO buttons without a tenant ssoUrl");
    const tenant = await page.evaluate(() => localStorage.getItem("tenantConfig"));
    console.log(`       tenant config stored: ${tenant}`);
    await screenshot(page, "login-desktop-en");
    await closePage(page);
  });

  await test("login: empty fields are marked 'Required' (trimmed) and the call is still made", async () => {
    const page = await open();
    await page.goto("/");
    await page.locator("#login-username").fill("   ");
    const call = page.waitForRequest((r) => r.url().endsWith("/api/auth/signin") && r.method() === "POST");
    await page.getByTestId("login-button").click();
    const req = await call;
    assertEqual(JSON.parse(req.postData() ?? "{}"), { username: "   ", password: "", remember: false }, "sign-in body");
    assertEqual(await page.locator(".field-error").allTextContents(), ["Required", "Required"], "field errors");
    await closePage(page);
  });

  await test("failed login shows the credentials modal, which disappears after 2.5 s", async () => {
    const page = await open();
    await page.goto("/");
    await page.locator("#login-username").fill(admin.username);
    await page.locator("#login-password").fill("wrong password");
    await page.getByTestId("login-button").click();
    const modal = page.getByTestId("login-error");
    await modal.waitFor({ state: "visible", timeout: 10000 });
    const shownAt = Date.now();
    await page.getByText("Please check your credentials and try again, otherwise contact support").waitFor();
    await sleep(1500);
    assert(await modal.isVisible(), "the modal is still there after 1.5 s");
    await modal.waitFor({ state: "hidden", timeout: 3000 });
    const shownFor = Date.now() - shownAt;
    assert(shownFor >= 2000 && shownFor <= 4000, `modal shown for ${shownFor} ms, expected about 2500`);
    assert(page.url().endsWith("/"), `still on the login page, got ${page.url()}`);
    assertEqual(await storedUser(page), null, "no user stored");
    await closePage(page);
  });

  await test("'Please wait ...' shows while a call is under way", async () => {
    const page = await open();
    await page.route("**/api/auth/signin", async (route) => {
      await sleep(1500);
      await route.continue();
    });
    await page.goto("/");
    await page.locator("#login-username").fill(admin.username);
    await page.locator("#login-password").fill("wrong password 2");
    await page.getByTestId("login-button").click();
    await page.getByText("Please wait ...").waitFor({ timeout: 1400 });
    await page.getByTestId("login-error").waitFor();
    assertEqual(await page.getByText("Please wait ...").count(), 0, "overlay after the answer");
    await closePage(page);
  });

  await test("a signed-out user visiting a protected route goes to /", async () => {
    const page = await open();
    await page.goto("/dashboard");
    await page.waitForURL((u) => u.pathname === "/");
    await page.getByTestId("login-form").waitFor();
    await closePage(page);
  });

  await test("unknown paths show 'This page could not be found'; /callback without id and /login show the login screen", async () => {
    const page = await open();
    await page.goto("/no/such/page");
    await page.getByText(NOT_FOUND).waitFor();
    await page.goto("/callback");
    await page.waitForURL((u) => u.pathname === "/login");
    await page.getByTestId("login-form").waitFor();
    assertEqual(await page.getByText(NOT_FOUND).count(), 0, "no 404 on /login");
    await closePage(page);
  });

  await test("a good login lands on /dashboard and stores the token and the user", async () => {
    const page = await open();
    await signIn(page, { ...admin, remember: true });
    const u = await storedUser(page);
    assert(u, "user stored");
    // The skip link is the first stop of the keyboard, shown when focused, and leads to the content.
    await page.evaluate(() => {
      document.activeElement?.blur?.();
      window.getSelection()?.removeAllRanges();
    });
    await page.keyboard.press("Tab");
    assertEqual(await page.evaluate(() => document.activeElement?.className), "skip-link", "skip link focused first");
    const box = await page.locator(".skip-link").boundingBox();
    assert(box && box.y >= 0, `skip link on screen when focused (${JSON.stringify(box)})`);
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.activeElement?.id === "main");
    assertEqual(
      Object.keys(u).sort(),
      ["accessToken", "accessType", "id", "remember", "roles", "username"],
      "stored user fields",
    );
    assertEqual(
      [u.username, u.roles[0], u.accessType, u.remember],
      [admin.username, "ROLE_ADMIN", "read-write", true],
      "user",
    );
    assert(typeof u.accessToken === "string" && u.accessToken.length > 10, "token stored");
    assertEqual(await page.evaluate(() => localStorage.getItem("accessToken")), u.accessToken, "token key");
    // Signed in, / leads to the dashboard.
    await page.goto("/");
    await page.waitForURL("**/dashboard");
    await closePage(page);
  });

  await test("side navigation: icons, expands on mouse enter, collapses on leave, Settings lists, version", async () => {
    const page = await open();
    await signIn(page, admin);
    const nav = page.getByTestId("sidenav");
    const width = async () => (await nav.boundingBox()).width;
    await page.mouse.move(900, 500);
    await sleep(300);
    assert((await width()) <= 72, `collapsed width ${await width()}`);
    await nav.hover();
    await sleep(400);
    assert((await width()) >= 200, `expanded width ${await width()}`);
    for (const name of ["Dashboard", "Reports", "Alerts", "User Profile", "Sign out"]) {
      await nav.getByText(name, { exact: true }).waitFor();
    }
    await nav.getByRole("button", { name: "Settings" }).click();
    for (const name of ["Alert Settings", "Test Cases Groups", "Distribution List", "Admin Settings"]) {
      await nav.getByRole("link", { name }).waitFor();
    }
    assertEqual(await nav.getByTestId("version").textContent(), "v0.1.0", "version line");
    await screenshot(page, "shell-desktop-en-expanded");
    const id = (await storedUser(page)).id;
    assertEqual(
      await nav.getByRole("link", { name: "User Profile" }).getAttribute("href"),
      `/users/${id}`,
      "profile link",
    );
    await page.mouse.move(900, 500);
    await sleep(400);
    assert((await width()) <= 72, `collapsed again: ${await width()}`);
    await screenshot(page, "shell-desktop-en");
    // Alerts is a real screen: the alert events list.
    await nav.hover();
    await nav.getByRole("link", { name: "Alerts" }).click();
    await page.waitForURL("**/alerts");
    await page.getByTestId("alert-list").waitFor();
    await page.getByTestId("status-chip-7").waitFor();
    await page.getByTestId("sidenav").waitFor();
    await closePage(page);
  });

  await test("a user whose first role is ROLE_USER sees no settings lists", async () => {
    const page = await open();
    await signIn(page, user);
    const nav = page.getByTestId("sidenav");
    await nav.hover();
    await nav.getByText("Alerts", { exact: true }).waitFor();
    assertEqual(await nav.getByText("Admin Settings").count(), 0, "Admin Settings links");
    assertEqual(await nav.getByText("Alert Settings").count(), 0, "Alert Settings links");
    await closePage(page);
  });

  await test("French: the login page and the shell switch to French and the choice is remembered", async () => {
    const page = await open();
    await page.goto("/");
    await chooseLanguage(page, "fr");
    await page.getByLabel("Nom d’utilisateur").waitFor();
    await page.getByLabel("Mot de passe").waitFor();
    await page.getByRole("button", { name: "Connexion", exact: true }).waitFor();
    await page.getByText("Se souvenir de moi").waitFor();
    await screenshot(page, "login-desktop-fr");
    await page.reload();
    await page.getByLabel("Mot de passe").waitFor();
    await page.locator("#login-username").fill(admin.username);
    await page.locator("#login-password").fill(admin.password);
    await page.getByTestId("login-button").click();
    await page.waitForURL("**/dashboard");
    const nav = page.getByTestId("sidenav");
    await nav.hover();
    for (const name of ["Tableau de bord", "Rapports", "Alertes", "Paramètres", "Profil utilisateur", "Déconnexion"]) {
      await nav.getByText(name, { exact: true }).waitFor();
    }
    await page.mouse.move(900, 500);
    await sleep(300);
    await screenshot(page, "shell-desktop-fr");
    await page.goto("/nowhere");
    await page.getByText("Cette page est introuvable").waitFor();
    await closePage(page);
  });

  await test("Sign out returns to / and clears local storage", async () => {
    const page = await open();
    await signIn(page, admin);
    const signout = page.waitForRequest((r) => r.url().endsWith("/api/auth/signout"));
    await page.getByTestId("sidenav").hover();
    await page.getByTestId("sign-out").click();
    await signout;
    await page.waitForURL((u) => u.pathname === "/");
    await page.getByTestId("login-form").waitFor();
    assertEqual(await storedUser(page), null, "user after sign-out");
    assertEqual(await page.evaluate(() => localStorage.getItem("accessToken")), null, "token after sign-out");
    await page.goto("/dashboard");
    await page.waitForURL((u) => u.pathname === "/");
    await closePage(page);
  });

  await test("the signed-out token no longer works: 401 shows 'Access is denied!', gone after 6 s", async () => {
    const page = await open();
    await signIn(page, admin);
    const u = await storedUser(page);
    // End the session on the server only, keeping the browser's copy of the token.
    const r = await page.evaluate(
      (token) =>
        fetch("/api/auth/signout", { method: "POST", headers: { Authorization: `Bearer ${token}` } }).then(
          (x) => x.status,
        ),
      u.accessToken,
    );
    assertEqual(r, 200, "server sign-out");
    await page.reload();
    const banner = page.getByTestId("banner-error").filter({ hasText: "Access is denied!" }).first();
    await banner.waitFor({ timeout: 15000 });
    await banner.waitFor({ state: "detached", timeout: 9000 });
    await closePage(page);
  });

  await test("idle for 15 minutes: local storage is cleared and the user is back on /", async () => {
    // The page runs on Playwright's clock (newPage): the minutes are skipped ahead.
    const page = await open();
    await signIn(page, admin);
    await page.clock.fastForward(10 * 60 * 1000);
    await page.mouse.move(300, 300);
    await page.mouse.move(310, 320);
    await page.clock.fastForward(10 * 60 * 1000);
    assert(page.url().endsWith("/dashboard"), "activity restarted the 15 minutes");
    await page.clock.fastForward(6 * 60 * 1000);
    await page.waitForURL((u) => u.pathname === "/");
    assertEqual(await storedUser(page), null, "user after idle sign-out");
    // The login page says why, once.
    assert(
      (await page.getByTestId("idle-notice").textContent()).includes("15 minutes without activity"),
      "idle sign-out explained",
    );
    await page.reload();
    await page.getByTestId("login-form").waitFor();
    assertEqual(await page.getByTestId("idle-notice").count(), 0, "said once");
    await closePage(page);
  });

  await test("phone: login without the desktop-only parts, shell with drawer and footer menu", async () => {
    const page = await open({ viewport: "phone" });
    await page.goto("/");
    await page.getByTestId("login-form").waitFor();
    await screenshot(page, "login-phone-en");
    await chooseLanguage(page, "fr");
    await screenshot(page, "login-phone-fr");
    await chooseLanguage(page, "en");
    await signIn(page, admin);
    const footer = page.getByTestId("mobile-footer");
    await footer.waitFor();
    const id = (await storedUser(page)).id;
    assertEqual(
      await footer.locator("a").evaluateAll((as) => as.map((a) => a.getAttribute("href"))),
      ["/dashboard", "/alerts", "/settings/alert-settings/1", `/users/${id}`, "/"],
      "footer links",
    );
    assert(!(await page.getByTestId("sidenav").isVisible()), "side menu hidden until opened");
    await screenshot(page, "shell-phone-en");
    await page.getByTestId("open-menu").click();
    const nav = page.getByTestId("sidenav");
    await nav.getByText("Alerts", { exact: true }).waitFor();
    assertEqual(await nav.getByText("Reports", { exact: true }).count(), 0, "Reports on a phone");
    await nav.getByRole("button", { name: "Settings" }).click();
    await nav.getByRole("link", { name: "Alert Settings" }).waitFor();
    assertEqual(await nav.getByText("Admin Settings").count(), 0, "Admin Settings on a phone");
    await screenshot(page, "shell-phone-en-menu");
    await page.keyboard.press("Escape");
    await nav.waitFor({ state: "hidden" });
    await page.getByTestId("open-menu").click();
    await nav.getByRole("button", { name: "Settings" }).waitFor();
    if ((await nav.getByRole("link", { name: "Alert Settings" }).count()) === 0) {
      await nav.getByRole("button", { name: "Settings" }).click();
    }
    await nav.getByRole("link", { name: "Alert Settings" }).click();
    await page.waitForURL("**/settings/alert-settings/1");
    assert(!(await nav.isVisible()), "menu closes after navigating");
    await chooseLanguage(page, "fr");
    await page.goto("/dashboard");
    await footer.getByText("Tableau de bord").waitFor();
    await screenshot(page, "shell-phone-fr");
    await closePage(page);
  });

  await test("keyboard: Tab into the side navigation shows its labels", async () => {
    const page = await open();
    await signIn(page, admin);
    const nav = page.getByTestId("sidenav");
    await page.mouse.move(900, 500);
    await page.locator("#main").focus();
    await page.getByTestId("nav-dashboard").focus();
    await page.keyboard.press("Tab");
    await sleep(400);
    assert((await nav.boundingBox()).width >= 200, "expanded while focused from the keyboard");
    await closePage(page);
  });

  await test("single sign-on return: /callback?id= signs in once and lands on /dashboard", async () => {
    const page = await open();
    const link = loginLink(server, admin.username);
    await page.goto(link);
    await page.waitForURL("**/dashboard", { timeout: 15000 });
    const u = await storedUser(page);
    assertEqual([u.username, u.remember], [admin.username, false], "user from the one-time id");
    await closePage(page);
    // The same id does not work twice: back to the login page; a 401 reads 'Access is denied!'.
    const again = await open();
    await again.goto(link);
    await again.waitForURL((url) => url.pathname === "/");
    await again.getByTestId("banner-error").filter({ hasText: "Access is denied!" }).waitFor();
    assertEqual(await storedUser(again), null, "no user after a used id");
    await closePage(again);
  });

  await test("single sign-on button: desktop only, when the tenant has an ssoUrl; returns to <origin>/callback", async () => {
    const sso = await startServer({
      config: `[[tenants]]\nname = "acme"\nhosts = ["127.0.0.1"]\nsso_url = "https://sso.example.test/login?realm=ops"\n`,
    });
    try {
      const page = await newPage(browser, sso);
      let reached = null;
      await page.route("https://sso.example.test/**", (route) => {
        reached = route.request().url();
        return route.fulfill({ status: 200, contentType: "text/html", body: "<p>identity service</p>" });
      });
      await page.goto("/");
      const button = page.getByTestId("sso-button");
      await button.waitFor();
      await screenshot(page, "login-desktop-en-sso");
      await button.click();
      await page.waitForURL("https://sso.example.test/**");
      const url = new URL(reached);
      assertEqual(url.searchParams.get("realm"), "ops", "the address's own query");
      assertEqual(url.searchParams.get("redirect_uri"), `${sso.url}/callback`, "redirect_uri");
      await closePage(page);
      const phone = await newPage(browser, sso, { viewport: "phone" });
      await phone.goto("/");
      await phone.getByTestId("login-form").waitFor();
      assertEqual(await phone.getByTestId("sso-button").count(), 0, "SSO button on a phone");
      await closePage(phone);
      // The tenant's name shows in the shell.
      addUser(sso, admin);
      const desk = await newPage(browser, sso);
      await signIn(desk, admin);
      assertEqual(await desk.getByTestId("tenant-name").textContent(), "acme", "tenant name");
      await closePage(desk);
    } finally {
      await sso.stop();
    }
  });

  await test("no page error, refused content or request to another origin on any page", async () => {
    const all = problems.flat();
    assertEqual(all, [], "problems");
  });
}
