// Proxy mode end to end: a second cxwatch with `api.mode = "proxy"` serves the same UI and
// forwards /api to the demo server (embedded mode) as the tenant's upstream. A person signs in
// through the proxy, sees the upstream's groups on the dashboard, and signs out. The upstream is
// another cxwatch, so the tenant says `api_flavor = "cxwatch"`: its additions, the server-side
// sign-out among them, are there (vendor.e2e.mjs tests the spec-only flavour).
import path from "node:path";
import { assert, assertEqual, closePage, httpGet, newPage, signIn, startServer, waitForDemoData } from "./lib.mjs";

export default async function proxy({ server, browser, users, test }) {
  let front;
  await test("proxy: a cxwatch in proxy mode starts with the demo server as its tenant's upstream", async () => {
    // The demo upstream creates its groups once the first day of its history is in.
    await waitForDemoData(server, users.admin, { runsToday: false });
    const ca = path.join(server.dataDir, "tls", "self-signed.crt");
    front = await startServer({
      args: [],
      config: [
        `[api]`,
        `mode = "proxy"`,
        `[[tenants]]`,
        `name = "Northbridge"`,
        `hosts = ["127.0.0.1"]`,
        `upstream = "${server.url}"`,
        `upstream_ca = "${ca}"`,
        // The upstream is another cxwatch: the full console, additions included.
        `api_flavor = "cxwatch"`,
        "",
      ].join("\n"),
    });
    const direct = await httpGet(`${server.url}/api/openapi.json`);
    const proxied = await httpGet(`${front.url}/api/openapi.json`);
    assertEqual(proxied.status, 200, "openapi.json through the proxy");
    assertEqual(proxied.body, direct.body, "the proxy's answer is the upstream's");
  });
  if (!front) return;

  try {
    await test("proxy: sign in through the proxy, the dashboard shows the upstream's groups, sign out", async () => {
      const page = await newPage(browser, front);
      await signIn(page, users.admin);
      const token = await page.evaluate(() => JSON.parse(localStorage.getItem("user")).accessToken);
      // The token was issued by the upstream: it works there directly.
      const groups = await httpGet(`${server.url}/api/trs/v1/groups`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      assertEqual(groups.status, 200, "upstream groups with the token from the proxy");
      const names = JSON.parse(groups.body).data.map((g) => g.name);
      assert(names.length > 0, "the demo upstream has groups");
      const tenant = await page.evaluate(() => JSON.parse(localStorage.getItem("tenantConfig") ?? "null"));
      assertEqual(tenant?.name, "Northbridge", "tenant config served by the proxy");
      // The group picker lists the upstream's groups.
      await page.getByText(`${names.length} of ${names.length} selected`).first().waitFor({ timeout: 15000 });
      await page.getByText(names[0]).first().waitFor({ timeout: 15000 });
      assertEqual(page.problems, [], "page problems");
      assertEqual(tenant?.apiFlavor, "cxwatch", "the tenant's API flavour");
      const signout = page.waitForResponse((r) => r.url().endsWith("/api/auth/signout"));
      await page.getByTestId("sidenav").hover();
      await page.getByTestId("sign-out").click();
      assertEqual((await signout).status(), 200, "sign-out through the proxy");
      await page.waitForURL((u) => u.pathname === "/");
      const after = await httpGet(`${server.url}/api/trs/v1/groups`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      assertEqual(after.status, 401, "the token no longer works upstream after signing out through the proxy");
      await closePage(page);
    });
  } finally {
    await front.stop();
  }
}
