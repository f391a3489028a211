// A real OpenID Connect provider for the single sign-on tests: panva's certified
// `oidc-provider`, on 127.0.0.1, with a small login page of its own (the library's
// interaction API) and consent granted for the one first-party client.
//
// Configured by one JSON argument:
//   { "port": 0, "issuer": "http://127.0.0.1:PORT", "kid": "k1",
//     "client": { "client_id", "client_secret", "redirect_uris": [..], "post_logout_redirect_uris": [..] },
//     "accounts": [ { "login", "password", "claims": { "email", "given_name", "family_name", "groups" } } ] }
//   "tls": { "cert": "/path/server.pem", "key": "/path/server-key.pem" }   (optional: HTTPS)
// `issuer` defaults to http://127.0.0.1:<port> (https:// with `tls`). Prints `listening <port>`
// once it accepts requests.
// Claims are put in the ID token (conformIdTokenClaims off), as ADFS does; userinfo has them too.
import { createPrivateKey, generateKeyPairSync, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import Provider from "oidc-provider";

const cfg = JSON.parse(process.argv[2] ?? "{}");
// The key leaves the generator as PEM and is read again before its export as a JWK: Node 20
// can deadlock when the collector frees a generator's job while a key object that shares the
// job's key is being exported (the JWK export holds the key's lock, the job's destructor takes
// it again). A test once hung here for good, with the provider asleep before it listened.
const { privateKey: pem } = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
});
const jwk = { ...createPrivateKey(pem).export({ format: "jwk" }), kid: cfg.kid ?? "k1", use: "sig", alg: "RS256" };

const accounts = new Map((cfg.accounts ?? []).map((a) => [a.login.toLowerCase(), a]));

const server = cfg.tls
  ? https.createServer({ cert: readFileSync(cfg.tls.cert), key: readFileSync(cfg.tls.key) })
  : http.createServer();
await new Promise((resolve) => server.listen(cfg.port ?? 0, "127.0.0.1", resolve));
const port = server.address().port;
const issuer = cfg.issuer ?? `${cfg.tls ? "https" : "http"}://127.0.0.1:${port}`;

const provider = new Provider(issuer, {
  clients: [
    {
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic",
      ...cfg.client,
    },
  ],
  jwks: { keys: [jwk] },
  cookies: { keys: [randomBytes(16).toString("hex")] },
  claims: {
    openid: ["sub"],
    email: ["email", "email_verified"],
    profile: ["given_name", "family_name", "name", "preferred_username"],
    groups: ["groups"],
  },
  conformIdTokenClaims: false,
  pkce: { required: () => true },
  features: {
    devInteractions: { enabled: false },
    rpInitiatedLogout: { enabled: true },
  },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  // First-party client: consent is implied for every scope and claim it asks for.
  async loadExistingGrant(ctx) {
    const grant = new ctx.oidc.provider.Grant({
      clientId: ctx.oidc.client.clientId,
      accountId: ctx.oidc.session.accountId,
    });
    grant.addOIDCScope(ctx.oidc.requestParamScopes ? [...ctx.oidc.requestParamScopes].join(" ") : "openid");
    await grant.save();
    return grant;
  },
  async findAccount(_ctx, id) {
    const account = accounts.get(id);
    if (!account) return undefined;
    return {
      accountId: id,
      async claims() {
        return { sub: id, email_verified: true, ...account.claims };
      },
    };
  },
  ttl: { Session: 600, Interaction: 600, Grant: 600, AuthorizationCode: 60, AccessToken: 600, IdToken: 600 },
});
provider.on("server_error", (_ctx, err) => console.error("provider error:", err));

const esc = (s) => String(s).replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (uid, message = "") => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Test identity provider</title></head>
<body><main><h1>Test identity provider</h1>
${message ? `<p role="alert">${esc(message)}</p>` : ""}
<form method="post" action="/interaction/${esc(uid)}/login">
<label>Username <input name="login" autocomplete="username" autofocus></label>
<label>Password <input name="password" type="password" autocomplete="current-password"></label>
<button type="submit">Sign in</button>
</form></main></body></html>`;

async function body(req) {
  let text = "";
  for await (const chunk of req) text += chunk;
  return new URLSearchParams(text);
}

const callback = provider.callback();
server.on("request", async (req, res) => {
  const m = /^\/interaction\/([\w-]+)(\/login)?$/.exec(req.url.split("?")[0]);
  if (!m) return callback(req, res);
  try {
    const details = await provider.interactionDetails(req, res);
    if (req.method === "GET") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
      return res.end(page(details.uid));
    }
    const form = await body(req);
    const login = (form.get("login") ?? "").trim().toLowerCase();
    const account = accounts.get(login);
    if (!account || account.password !== form.get("password")) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      return res.end(page(details.uid, "Wrong username or password."));
    }
    await provider.interactionFinished(req, res, { login: { accountId: login } }, { mergeWithLastSubmission: false });
  } catch (err) {
    res.writeHead(400, { "content-type": "text/plain" });
    res.end(String(err?.message ?? err));
  }
});

console.log(`listening ${port}`);
