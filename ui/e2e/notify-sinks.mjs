// A real SMTP server (nodemailer's smtp-server: STARTTLS and AUTH required) and an HTTP sink
// standing in for an SMS/voice gateway, for the notification tests (tests/notify.rs and
// e2e/distributions.e2e.mjs). Prints one JSON line when listening:
//   {"smtp": port, "http": port, "ca": "/tmp/.../ca.pem"}
// then answers on the HTTP port:
//   GET  /_sink/messages           {"mail": [parsed messages], "http": [gateway requests]}
//   POST /_sink/smtp?mode=ok|tempfail|down   accept, answer 451 to MAIL FROM, or stop listening
//   POST /_sink/http?status=200[&retryAfter=S]   the status the gateway answers with (and
//                                  the Retry-After of a refusal)
// Any other request on the HTTP port is a gateway request: recorded and answered. The same
// requests are answered over TLS on the "https" port (a certificate of the private CA).
// Requests to /teams/*, /slack/*, /mattermost/* and /webhook/* are incoming webhooks: their
// body is checked against the vendor's published format (webhookProblems below), a bad one
// is answered 400 with the problem as the vendor would, and each is recorded with `problems`
// ([] when well formed) and, for /webhook/*, `signatureOk` (X-Cxwatch-Signature checked with
// --webhook-secret S).
// Options: --smtp-port N --http-port N (0: any), --user U --pass P (AUTH), --delay-ms N
// (each message waits that long before it is accepted), --implicit-tls (TLS from the first
// byte, as on port 465, instead of STARTTLS), --plain (no STARTTLS offered, no AUTH needed:
// a relay on a trusted network).
import { execFileSync } from "node:child_process";
import { createHash, createHmac } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

const args = Object.fromEntries(
  process.argv
    .slice(2)
    .join(" ")
    .split("--")
    .filter(Boolean)
    .map((a) => a.trim().split(/\s+/)),
);
const user = args.user ?? "cxwatch";
const pass = args.pass ?? "s3cret-pass";
const delayMs = Number(args["delay-ms"] ?? 0);
const webhookSecret = args["webhook-secret"] ?? "";

// A private CA and a certificate for 127.0.0.1 and localhost signed by it.
const dir = mkdtempSync(join(tmpdir(), "cxwatch-sinks-"));
const ssl = (...a) => execFileSync("openssl", a, { stdio: ["ignore", "ignore", "pipe"] });
const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
ssl(
  "req",
  "-x509",
  ...ec,
  "-keyout",
  join(dir, "ca.key"),
  "-out",
  join(dir, "ca.pem"),
  "-days",
  "2",
  "-subj",
  "/CN=cxwatch test CA",
);
ssl("req", ...ec, "-keyout", join(dir, "key.pem"), "-out", join(dir, "req.csr"), "-subj", "/CN=localhost");
writeFileSync(
  join(dir, "ext.cnf"),
  "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
);
ssl(
  "x509",
  "-req",
  "-in",
  join(dir, "req.csr"),
  "-CA",
  join(dir, "ca.pem"),
  "-CAkey",
  join(dir, "ca.key"),
  "-CAcreateserial",
  "-out",
  join(dir, "cert.pem"),
  "-days",
  "2",
  "-extfile",
  join(dir, "ext.cnf"),
);

const mail = [];
const requests = [];
let smtpMode = "ok";
let httpStatus = 200;
let retryAfter = null; // the Retry-After of a refusal (429, 503), when set

const smtp = new SMTPServer({
  secure: "implicit-tls" in args,
  disabledCommands: "plain" in args ? ["STARTTLS", "AUTH"] : [],
  key: readFileSync(join(dir, "key.pem")),
  cert: readFileSync(join(dir, "cert.pem")),
  authMethods: ["PLAIN", "LOGIN"],
  allowInsecureAuth: false,
  logger: false,
  onAuth(auth, _session, cb) {
    if (auth.username === user && auth.password === pass) return cb(null, { user: auth.username });
    return cb(new Error("Invalid username or password"));
  },
  onMailFrom(_address, session, cb) {
    if (!session.user && !("plain" in args))
      return cb(Object.assign(new Error("Authentication required"), { responseCode: 530 }));
    if (smtpMode === "tempfail") {
      return cb(Object.assign(new Error("Try again later"), { responseCode: 451 }));
    }
    return cb();
  },
  onData(stream, session, cb) {
    simpleParser(stream)
      .then(async (m) => {
        if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
        mail.push({
          at: Date.now(),
          secure: session.secure,
          user: session.user,
          envelopeFrom: session.envelope.mailFrom?.address,
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          clientHostname: session.clientHostname,
          heloName: session.hostNameAppearsAs,
          subject: m.subject,
          from: m.from?.text,
          to: m.to?.text,
          messageId: m.messageId,
          text: m.text,
          html: m.html || null,
          headers: Object.fromEntries(
            [...m.headers].map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]),
          ),
          attachments: m.attachments.map((a) => ({
            filename: a.filename,
            contentType: a.contentType,
            size: a.size,
            sha256: createHash("sha256").update(a.content).digest("hex"),
            contentId: a.contentId ?? null,
            related: Boolean(a.related),
            // The bytes of small files, for the tests to parse (a report's CSV and chart).
            base64: a.size <= 1024 * 1024 ? a.content.toString("base64") : null,
          })),
        });
        cb();
      })
      .catch(cb);
  },
});
// A client that vanishes mid-session (a sender killed with kill -9) resets its connection:
// smtp-server reports it as an 'error' event, which would end this process unheard.
smtp.on("error", (e) => process.stderr.write(`smtp sink: ${e.message}\n`));

let smtpPort = Number(args["smtp-port"] ?? 0);
const listenSmtp = () =>
  new Promise((resolve, reject) => {
    smtp.server.once("error", reject);
    smtp.listen(smtpPort, "127.0.0.1", () => {
      smtpPort = smtp.server.address().port;
      resolve();
    });
  });

const readBody = (req) =>
  new Promise((resolve) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });

// What a vendor would refuse in a webhook body (empty: well formed).
// Microsoft Teams (Workflows "When a Teams webhook request is received", and the incoming
// webhooks): {"type":"message","attachments":[{"contentType":
// "application/vnd.microsoft.card.adaptive","contentUrl":null,"content":{"type":"AdaptiveCard",
// "version":...,"body":[...]}}]}, at most 28 KB.
// Slack incoming webhooks: "text" and/or "blocks" (Block Kit: at most 50 blocks; section text
// at most 3000 characters; header plain_text at most 150; buttons' text plain_text at most
// 75 and url at most 3000); answered "ok".
// Mattermost incoming webhooks: a JSON body with "text" (or attachments); answered "ok".
// cxwatch's generic webhook: docs/notifications.md 'Webhooks'.
export function webhookProblems(vendor, headers, raw) {
  const p = [];
  if (!String(headers["content-type"] ?? "").startsWith("application/json"))
    p.push("content-type is not application/json");
  let b;
  try {
    b = JSON.parse(raw);
  } catch {
    return [...p, "body is not JSON"];
  }
  const str = (v) => typeof v === "string";
  if (vendor === "teams") {
    if (Buffer.byteLength(raw) > 28 * 1024) p.push("message larger than 28 KB");
    if (b.type !== "message") p.push('type is not "message"');
    if (!Array.isArray(b.attachments) || !b.attachments.length) p.push("no attachments");
    for (const a of b.attachments ?? []) {
      if (a.contentType !== "application/vnd.microsoft.card.adaptive") p.push("attachment is not an Adaptive Card");
      const c = a.content ?? {};
      if (c.type !== "AdaptiveCard") p.push('content.type is not "AdaptiveCard"');
      if (!str(c.version)) p.push("card has no version");
      if (!Array.isArray(c.body) || !c.body.length) p.push("card has no body");
      for (const e of c.body ?? []) {
        if (!["TextBlock", "FactSet", "Image", "Container", "ColumnSet"].includes(e.type))
          p.push(`unknown element ${e.type}`);
        if (e.type === "TextBlock" && !str(e.text)) p.push("TextBlock without text");
        if (e.type === "FactSet" && !(e.facts ?? []).every((f) => str(f.title) && str(f.value))) p.push("bad fact");
      }
      for (const x of c.actions ?? []) {
        if (x.type !== "Action.OpenUrl" || !str(x.url) || !str(x.title)) p.push("bad action");
      }
    }
  } else if (vendor === "slack") {
    if (!str(b.text) && !Array.isArray(b.blocks)) p.push("neither text nor blocks");
    if ((b.blocks ?? []).length > 50) p.push("more than 50 blocks");
    for (const k of b.blocks ?? []) {
      if (k.type === "section") {
        if (!["mrkdwn", "plain_text"].includes(k.text?.type) || !str(k.text.text)) p.push("bad section text");
        else if (k.text.text.length > 3000) p.push("section text above 3000");
      } else if (k.type === "header") {
        if (k.text?.type !== "plain_text" || !str(k.text.text) || k.text.text.length > 150) p.push("bad header");
      } else if (k.type === "actions") {
        for (const e of k.elements ?? []) {
          if (e.type !== "button" || e.text?.type !== "plain_text" || e.text.text.length > 75) p.push("bad button");
          if (e.url !== undefined && (!str(e.url) || e.url.length > 3000)) p.push("bad button url");
        }
      } else if (!["divider", "context", "image", "rich_text"].includes(k.type)) p.push(`unknown block ${k.type}`);
    }
  } else if (vendor === "mattermost") {
    if (!(str(b.text) && b.text.length) && !Array.isArray(b.attachments)) p.push("no text");
  } else {
    for (const k of ["event", "subject", "text", "testCase", "status", "link", "key", "cause", "sentAt"]) {
      if (!str(b[k])) p.push(`${k} missing`);
    }
    if (!str(headers["x-cxwatch-timestamp"])) p.push("no X-Cxwatch-Timestamp");
    if (headers["x-cxwatch-delivery"] !== b.key) p.push("X-Cxwatch-Delivery is not the key");
  }
  return p;
}

const signatureOk = (headers, raw) =>
  headers["x-cxwatch-signature"] ===
  `sha256=${createHmac("sha256", webhookSecret).update(`${headers["x-cxwatch-timestamp"]}.${raw}`).digest("hex")}`;

const handler = async (req, res) => {
  const url = new URL(req.url, "http://127.0.0.1");
  const body = await readBody(req);
  const json = (status, value) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(value));
  };
  if (url.pathname === "/_sink/messages") return json(200, { mail, http: requests });
  if (url.pathname === "/_sink/smtp") {
    const mode = url.searchParams.get("mode") ?? "ok";
    if (mode === "down" && smtpMode !== "down") {
      await new Promise((r) => smtp.server.close(r));
      for (const c of smtp.connections ?? []) c.close?.();
    } else if (mode !== "down" && smtpMode === "down") {
      await listenSmtp();
    }
    smtpMode = mode;
    return json(200, { mode });
  }
  if (url.pathname === "/_sink/http") {
    httpStatus = Number(url.searchParams.get("status") ?? 200);
    retryAfter = url.searchParams.get("retryAfter");
    return json(200, { status: httpStatus, retryAfter });
  }
  const vendor = url.pathname.split("/")[1];
  const hook = ["teams", "slack", "mattermost", "webhook"].includes(vendor);
  const problems = hook ? webhookProblems(vendor, req.headers, body) : undefined;
  requests.push({
    at: Date.now(),
    method: req.method,
    path: url.pathname,
    query: url.search,
    secure: Boolean(req.socket.encrypted),
    headers: req.headers,
    body,
    problems,
    signatureOk: vendor === "webhook" && webhookSecret ? signatureOk(req.headers, body) : undefined,
  });
  if (problems?.length && httpStatus < 300) {
    res.writeHead(400, { "content-type": "text/plain" });
    return res.end(`invalid_payload: ${problems.join("; ")}\n`);
  }
  res.writeHead(httpStatus, {
    "content-type": "text/plain",
    ...(httpStatus >= 300 && retryAfter ? { "retry-after": retryAfter } : {}),
  });
  if (httpStatus >= 300) return res.end(`refused with ${httpStatus}\nsecond line\n`);
  res.end(hook && vendor !== "webhook" ? "ok" : hook ? "" : "queued\n");
};
const sink = http.createServer(handler);
const secureSink = https.createServer(
  { key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) },
  handler,
);

await listenSmtp();
await new Promise((r) => sink.listen(Number(args["http-port"] ?? 0), "127.0.0.1", r));
await new Promise((r) => secureSink.listen(Number(args["https-port"] ?? 0), "127.0.0.1", r));
process.stdout.write(
  `${JSON.stringify({
    smtp: smtpPort,
    http: sink.address().port,
    https: secureSink.address().port,
    ca: join(dir, "ca.pem"),
    user,
    pass,
  })}\n`,
);
process.on("SIGTERM", () => process.exit(0));
