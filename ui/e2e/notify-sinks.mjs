// A real SMTP server (nodemailer's smtp-server: STARTTLS and AUTH required) and an HTTP sink
// standing in for an SMS/voice gateway, for the notification tests (tests/notify.rs and
// e2e/distributions.e2e.mjs). Prints one JSON line when listening:
//   {"smtp": port, "http": port, "ca": "/tmp/.../ca.pem"}
// then answers on the HTTP port:
//   GET  /_sink/messages           {"mail": [parsed messages], "http": [gateway requests]}
//   POST /_sink/smtp?mode=ok|tempfail|down   accept, answer 451 to MAIL FROM, or stop listening
//   POST /_sink/http?status=200    the status the gateway answers with
// Any other request on the HTTP port is a gateway request: recorded and answered.
// Options: --smtp-port N --http-port N (0: any), --user U --pass P (AUTH), --delay-ms N
// (each message waits that long before it is accepted), --implicit-tls (TLS from the first
// byte, as on port 465, instead of STARTTLS), --plain (no STARTTLS offered, no AUTH needed:
// a relay on a trusted network).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
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
          })),
        });
        cb();
      })
      .catch(cb);
  },
});

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

const sink = http.createServer(async (req, res) => {
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
    return json(200, { status: httpStatus });
  }
  requests.push({
    at: Date.now(),
    method: req.method,
    path: url.pathname,
    query: url.search,
    headers: req.headers,
    body,
  });
  res.writeHead(httpStatus, { "content-type": "text/plain" });
  res.end(httpStatus < 300 ? "queued\n" : `refused with ${httpStatus}\nsecond line\n`);
});

await listenSmtp();
await new Promise((r) => sink.listen(Number(args["http-port"] ?? 0), "127.0.0.1", r));
process.stdout.write(
  `${JSON.stringify({ smtp: smtpPort, http: sink.address().port, ca: join(dir, "ca.pem"), user, pass })}\n`,
);
process.on("SIGTERM", () => process.exit(0));
