// What the Login page says when a sign-in fails for another reason than the credentials, in
// English and French: after too many attempts, that sign-in is locked and for how long (not 'check your
// credentials'); when the service cannot be reached (a proxy whose upstream is down, or no
// answer at all), that it cannot be reached. Its own servers: the throttle counts every
// failure from this machine, and the shared server's other specs must not be slowed down.
import {
  addUser,
  apiRequest,
  assert,
  assertEqual,
  chooseLanguage,
  closePage,
  freePort,
  newPage,
  startServer,
} from "./lib.mjs";

/** Submits the login form and resolves the failure modal's text and the answer's status. */
async function tryToSignIn(page, { username, password }) {
  await page.goto("/");
  await page.locator("#login-username").fill(username);
  await page.locator("#login-password").fill(password);
  // No response at all when the request is aborted: status 0.
  const answer = page
    .waitForResponse((r) => r.url().endsWith("/api/auth/signin"), { timeout: 15000 })
    .catch(() => null);
  await page.getByTestId("login-button").click();
  const modal = page.getByTestId("login-error");
  await modal.waitFor({ state: "visible", timeout: 15000 });
  const text = (await modal.locator(".login-error p").textContent()) ?? "";
  const res = await Promise.race([answer, new Promise((r) => setTimeout(() => r(null), 1000))]);
  return { status: res ? res.status() : 0, text: text.trim() };
}

export default async function loginMessages({ browser, test }) {
  const user = { username: "throttled@example.com", password: "throttle-Pass-1" };

  await test("login: after too many attempts the page says how long to wait, in English and French", async () => {
    const server = await startServer({ args: [] });
    try {
      addUser(server, user);
      // Five wrong passwords from this address (the browser's too).
      for (let i = 0; i < 5; i++) {
        const r = await apiRequest(server, "POST", "auth/signin", {
          body: { username: user.username, password: `wrong ${i}` },
        });
        assertEqual(r.status, 401, `wrong password ${i + 1}`);
      }
      const page = await newPage(browser, server);
      let seen = await tryToSignIn(page, user);
      assertEqual(seen.status, 429, "the right password waits");
      const wait = /^Sign-in is locked after too many failed attempts\. Try again in (\d+) seconds\.$/.exec(seen.text);
      assert(wait && Number(wait[1]) >= 1 && Number(wait[1]) <= 30, `en: ${seen.text}`);
      assert(!/credentials/i.test(seen.text), "not about the credentials");

      await chooseLanguage(page, "fr");
      seen = await tryToSignIn(page, user);
      assert(
        /^La connexion est bloquée après trop de tentatives échouées\. Réessayez dans \d+ secondes\.$/.test(seen.text),
        `fr: ${seen.text}`,
      );

      // Fifteen more usernames guessed once each: this address has used its twenty failures
      // and waits three minutes, whoever it signs in as.
      for (let i = 0; i < 15; i++) {
        const r = await apiRequest(server, "POST", "auth/signin", {
          body: { username: `guess${i}@example.com`, password: "guess" },
        });
        assertEqual(r.status, 401, `guess ${i + 1}`);
      }
      seen = await tryToSignIn(page, user);
      assertEqual(
        seen.text,
        "La connexion est bloquée après trop de tentatives échouées. Réessayez dans 3 minutes.",
        "fr, in minutes",
      );
      await chooseLanguage(page, "en");
      seen = await tryToSignIn(page, user);
      assertEqual(
        seen.text,
        "Sign-in is locked after too many failed attempts. Try again in 3 minutes.",
        "en, in minutes",
      );
      assertEqual(page.problems, [], "page problems");
      await closePage(page);
    } finally {
      await server.stop();
    }
  });

  await test("login: when the service cannot be reached the page says so, not 'check your credentials'", async () => {
    // Proxy mode in front of an upstream that is down (a port nobody listens on).
    const closed = await freePort();
    const front = await startServer({
      args: [],
      config: [
        `[api]`,
        `mode = "proxy"`,
        `[[tenants]]`,
        `name = "Down"`,
        `hosts = ["127.0.0.1"]`,
        `upstream = "http://127.0.0.1:${closed}"`,
        "",
      ].join("\n"),
    });
    try {
      const page = await newPage(browser, front);
      let seen = await tryToSignIn(page, user);
      assertEqual(seen.status, 502, "the proxy's answer");
      assertEqual(
        seen.text,
        "The service cannot be reached. Try again later, otherwise contact support.",
        "en, upstream down",
      );
      await chooseLanguage(page, "fr");
      seen = await tryToSignIn(page, user);
      assertEqual(
        seen.text,
        "Le service est injoignable. Réessayez plus tard, sinon contactez le support.",
        "fr, upstream down",
      );
      // No answer at all (the network fails): the same.
      await chooseLanguage(page, "en");
      await page.route("**/api/auth/signin", (route) => route.abort("connectionrefused"));
      seen = await tryToSignIn(page, user);
      assertEqual(
        seen.text,
        "The service cannot be reached. Try again later, otherwise contact support.",
        "en, no answer",
      );
      assertEqual(page.problems, [], "page problems");
      await closePage(page);
    } finally {
      await front.stop();
    }
  });
}
