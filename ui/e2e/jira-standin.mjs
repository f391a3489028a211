// A Jira stand-in for the ticket tests (tests/jira.rs and e2e/tickets.e2e.mjs): the REST
// shapes Atlassian publishes for Jira Cloud (REST v3) or Jira Server / Data Center (REST v2),
// refusing what Jira refuses: wrong credentials, a v3 description that is not an Atlassian
// Document, a v2 description that is not a string, unknown projects, issue types or users,
// labels with spaces, an attachment without `X-Atlassian-Token: no-check` or without its
// multipart `file` part, the removed Cloud search `/rest/api/3/search`, unknown issues.
//
// Prints one JSON line when listening: {"port", "url", "flavour", "email", "token"}.
// Options: --flavour cloud|server (default cloud), --port N (0: any), --cert FILE --key FILE
// (HTTPS with that certificate and key, PEM, e.g. from a site's own CA; default plain HTTP).
// --people N adds N accounts (Agent 0001 …) to the three, for user lists past one page.
// Test controls (no auth):
//   GET  /_standin/issues          every issue with its raw fields and attachments
//   POST /_standin/down?on=1|0     answer 503 to every REST call (a Jira outage) or not
import { readFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";

const args = Object.fromEntries(
  process.argv
    .slice(2)
    .join(" ")
    .split("--")
    .filter(Boolean)
    .map((a) => a.trim().split(/\s+/)),
);
const flavour = args.flavour === "server" ? "server" : "cloud";
const cloud = flavour === "cloud";
const version = cloud ? 3 : 2;
const email = "cxwatch-bot@example.test";
const token = cloud ? "cloud-api-token-123" : "server-pat-456";

const people = [
  { accountId: "5b10ac8d82e05b22cc7d4ef5", name: "alee", displayName: "Ann Lee" },
  { accountId: "5b10a2844c20165700ede21g", name: "bstone", displayName: "Bob Stone" },
  { accountId: "712020:0e99b1a4-cb6d", name: "cmartin", displayName: "Chloé Martin" },
  // --people N: N more accounts, for a site past one page of users.
  ...Array.from({ length: Number(args.people ?? 0) }, (_, i) => ({
    accountId: `agent-${String(i + 1).padStart(4, "0")}`,
    name: `agent${i + 1}`,
    displayName: `Agent ${String(i + 1).padStart(4, "0")}`,
  })),
];
// A page of a user list as Jira cuts it: from startAt, at most maxResults (100 at most).
const page = (url, list) => {
  const start = Number(url.searchParams.get("startAt") ?? 0);
  const max = Math.min(Number(url.searchParams.get("maxResults") ?? 50), 100);
  return list.slice(start, start + max);
};
const projects = [
  { id: "10000", key: "CX", name: "Customer Experience" },
  { id: "10001", key: "OPS", name: "Operations" },
];
const statuses = [
  { id: "1", name: "Open" },
  { id: "3", name: "In Progress" },
  { id: "5", name: "Resolved" },
  { id: "6", name: "Closed" },
];
const issues = new Map(); // key -> { id, key, fields, attachments: [] }
const counters = new Map();
let down = false;

function send(res, status, body) {
  if (body === undefined) {
    res.writeHead(status);
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json;charset=UTF-8" });
  res.end(text);
}
const refuse = (res, status, errorMessages = [], errors = {}) => send(res, status, { errorMessages, errors });

function authorised(req) {
  const h = req.headers.authorization ?? "";
  if (cloud) {
    return h === `Basic ${Buffer.from(`${email}:${token}`).toString("base64")}`;
  }
  return h === `Bearer ${token}`;
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function person(p) {
  if (!p) return null;
  return cloud
    ? { accountId: p.accountId, displayName: p.displayName, active: true, accountType: "atlassian" }
    : { name: p.name, key: `JIRAUSER${10100 + people.indexOf(p)}`, displayName: p.displayName, active: true };
}
const findPerson = (v) =>
  people.find((p) => (cloud ? v?.accountId !== undefined && p.accountId === v.accountId : p.name === v?.name));

// The Atlassian Document Format as Jira Cloud checks it (the nodes the console writes).
function isAdf(d) {
  const inlineOk = (n) =>
    (n?.type === "text" && typeof n.text === "string" && n.text.length > 0) ||
    (n?.type === "mention" && typeof n.attrs?.id === "string" && n.attrs.id.length > 0) ||
    n?.type === "hardBreak";
  return (
    d !== null &&
    typeof d === "object" &&
    d.type === "doc" &&
    d.version === 1 &&
    Array.isArray(d.content) &&
    d.content.every(
      (b) =>
        b?.type === "paragraph" && (b.content === undefined || (Array.isArray(b.content) && b.content.every(inlineOk))),
    )
  );
}

/** Checks the fields of a create (`create`) or edit; answers the errors object (empty: fine). */
function checkFields(f, create) {
  const errors = {};
  if (create) {
    if (!projects.some((p) => p.key === f.project?.key || p.id === f.project?.id)) {
      errors.project = "valid project is required";
    }
    if (f.issuetype?.name !== "Bug" && f.issuetype?.id !== "10004") {
      errors.issuetype = "Specify a valid issue type";
    }
  }
  if (create || "summary" in f) {
    if (typeof f.summary !== "string" || !f.summary.trim()) {
      errors.summary = "You must specify a summary of the issue.";
    } else if (f.summary.length > 255) {
      errors.summary = "Summary must be less than 255 characters.";
    }
  }
  if (f.assignee !== undefined && f.assignee !== null && !findPerson(f.assignee)) {
    errors.assignee = cloud
      ? `Specified user does not exist or you do not have required permissions`
      : `User '${f.assignee?.name}' does not exist.`;
  }
  if (f.labels !== undefined) {
    if (!Array.isArray(f.labels) || f.labels.some((l) => typeof l !== "string")) {
      errors.labels = "data was not an array";
    } else {
      const bad = f.labels.find((l) => /\s/.test(l));
      if (bad !== undefined) errors.labels = `The label '${bad}' contains spaces which is invalid.`;
    }
  }
  if (f.description !== undefined && f.description !== null) {
    if (cloud && !isAdf(f.description)) {
      errors.description = "Operation value must be an Atlassian Document (see the Atlassian Document Format)";
    }
    if (!cloud && typeof f.description !== "string") {
      errors.description = "Operation value must be a string";
    }
  }
  return errors;
}

function issueJson(i) {
  const f = i.fields;
  return {
    id: i.id,
    key: i.key,
    self: `${base}/rest/api/${version}/issue/${i.id}`,
    fields: {
      summary: f.summary,
      labels: f.labels ?? [],
      assignee: person(findPerson(f.assignee)),
      project: projects.find((p) => p.key === f.project.key),
      issuetype: { id: "10004", name: "Bug" },
      status: statuses.find((s) => s.name === i.status),
      description: f.description ?? null,
      attachment: i.attachments.map((a) => ({ id: a.id, filename: a.filename, size: a.size, mimeType: a.mimeType })),
    },
  };
}

/** The parts of a multipart/form-data body: [{ name, filename, contentType, data }]. */
function multipart(req, body) {
  const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(req.headers["content-type"] ?? "");
  if (!m) return null;
  const boundary = Buffer.from(`--${m[1] ?? m[2]}`);
  const parts = [];
  let start = body.indexOf(boundary);
  while (start !== -1) {
    const next = body.indexOf(boundary, start + boundary.length);
    if (next === -1) break;
    const chunk = body.subarray(start + boundary.length + 2, next - 2);
    const sep = chunk.indexOf("\r\n\r\n");
    if (sep !== -1) {
      const head = chunk.subarray(0, sep).toString("utf8");
      const name = /name="([^"]*)"/i.exec(head)?.[1];
      const filename = /filename="([^"]*)"/i.exec(head)?.[1];
      const contentType = /content-type:\s*([^\r\n]+)/i.exec(head)?.[1] ?? "application/octet-stream";
      parts.push({ name, filename, contentType, data: chunk.subarray(sep + 4) });
    }
    start = next;
  }
  return parts;
}

/** A tiny JQL: `field = value` clauses joined by AND, on labels, project, key and status. */
function jqlMatch(jql, i) {
  return jql
    .replace(/\s+order\s+by\s+.*$/i, "")
    .split(/\s+AND\s+/i)
    .every((clause) => {
      const m = /^\s*(\w+)\s*=\s*"?([^"]*?)"?\s*$/.exec(clause);
      if (!m) return false;
      const [, field, value] = m;
      if (field === "labels") return (i.fields.labels ?? []).includes(value);
      if (field === "project") return i.fields.project.key === value;
      if (field === "key") return i.key === value;
      if (field === "status") return i.status === value;
      return false;
    });
}

async function rest(req, res, url, path) {
  const method = req.method;
  const body = method === "GET" ? Buffer.alloc(0) : await readBody(req);
  const json = () => {
    try {
      return JSON.parse(body.toString("utf8") || "null");
    } catch {
      return undefined;
    }
  };
  let m;
  if (path === "/myself" && method === "GET") return send(res, 200, person(people[0]));
  if (cloud && path === "/search") {
    return refuse(res, 410, [
      "The requested API has been removed. Please migrate to the /rest/api/3/search/jql API. A full migration guideline is available at https://developer.atlassian.com/changelog/#CHANGE-2046",
    ]);
  }
  if ((cloud ? path === "/search/jql" : path === "/search") && (method === "POST" || method === "GET")) {
    const q = method === "POST" ? json() : { jql: url.searchParams.get("jql") };
    if (!q || typeof q.jql !== "string")
      return refuse(res, 400, ["Invalid request payload. Refer to the REST API documentation and try again."]);
    const found = [...issues.values()].filter((i) => jqlMatch(q.jql, i)).map(issueJson);
    return send(
      res,
      200,
      cloud ? { issues: found, isLast: true } : { startAt: 0, maxResults: 50, total: found.length, issues: found },
    );
  }
  if (path === "/user/search" && method === "GET") {
    let q;
    if (cloud) q = url.searchParams.get("query") ?? "";
    else {
      q = url.searchParams.get("username");
      if (q === null) return refuse(res, 400, ["The username query parameter was not provided"]);
      if (q === ".") q = "";
    }
    const needle = q.toLowerCase();
    const found = people.filter(
      (p) => !needle || p.displayName.toLowerCase().includes(needle) || p.name.includes(needle),
    );
    return send(res, 200, page(url, found.map(person)));
  }
  if (!cloud && path === "/user" && method === "GET") {
    const p = people.find((x) => x.name === url.searchParams.get("username"));
    if (!p) return refuse(res, 404, ["The user named does not exist"]);
    return send(res, 200, person(p));
  }
  if (cloud && path === "/users/search" && method === "GET") {
    const app = {
      accountId: "557058:f58131cb-b67d",
      displayName: "Automation for Jira",
      accountType: "app",
      active: true,
    };
    return send(res, 200, page(url, [...people.map(person), app]));
  }
  if (path === "/project" && method === "GET") return send(res, 200, projects);
  if (cloud && path === "/project/search" && method === "GET") {
    const startAt = Number(url.searchParams.get("startAt") ?? 0);
    const max = Number(url.searchParams.get("maxResults") ?? 50);
    const values = projects.slice(startAt, startAt + max);
    return send(res, 200, {
      startAt,
      maxResults: max,
      total: projects.length,
      isLast: startAt + max >= projects.length,
      values,
    });
  }
  if (path === "/status" && method === "GET") return send(res, 200, statuses);
  if (path === "/issue" && method === "POST") {
    const b = json();
    if (!b || typeof b.fields !== "object") return refuse(res, 400, ["Can not deserialize the request body"]);
    const errors = checkFields(b.fields, true);
    if (Object.keys(errors).length) return refuse(res, 400, [], errors);
    const key = b.fields.project.key;
    const n = (counters.get(key) ?? 0) + 1;
    counters.set(key, n);
    const id = String(10000 + issues.size + 1);
    const issue = { id, key: `${key}-${n}`, fields: b.fields, status: "Open", attachments: [] };
    issues.set(issue.key, issue);
    return send(res, 201, { id, key: issue.key, self: `${base}/rest/api/${version}/issue/${id}` });
  }
  m = /^\/issue\/([^/]+)(\/transitions|\/attachments)?$/.exec(path);
  if (m) {
    const issue = issues.get(decodeURIComponent(m[1]));
    if (!issue) return refuse(res, 404, ["Issue does not exist or you do not have permission to see it."]);
    if (!m[2] && method === "GET") return send(res, 200, issueJson(issue));
    if (!m[2] && method === "PUT") {
      const b = json();
      if (!b || typeof b.fields !== "object") return refuse(res, 400, ["Can not deserialize the request body"]);
      if ("project" in b.fields || "issuetype" in b.fields) {
        return refuse(res, 400, [], {
          project: "Field 'project' cannot be set. It is not on the appropriate screen, or unknown.",
        });
      }
      const errors = checkFields(b.fields, false);
      if (Object.keys(errors).length) return refuse(res, 400, [], errors);
      Object.assign(issue.fields, b.fields);
      return send(res, 204);
    }
    if (m[2] === "/transitions") {
      const transitions = statuses
        .filter((s) => s.name !== issue.status)
        .map((s) => ({ id: String(Number(s.id) * 10 + 1), name: `To ${s.name}`, to: s }));
      if (method === "GET") return send(res, 200, { transitions });
      if (method === "POST") {
        const t = transitions.find((x) => x.id === json()?.transition?.id);
        if (!t) return refuse(res, 400, ["Transition id is not valid for this issue."]);
        issue.status = t.to.name;
        return send(res, 204);
      }
    }
    if (m[2] === "/attachments" && method === "POST") {
      if ((req.headers["x-atlassian-token"] ?? "").toLowerCase() !== "no-check") {
        res.writeHead(403, { "content-type": "text/plain" });
        return res.end("XSRF check failed");
      }
      const parts = multipart(req, body);
      const files = (parts ?? []).filter((p) => p.name === "file" && p.filename !== undefined);
      if (!files.length) return refuse(res, 400, ["Attachment file is not provided (multipart field 'file')."]);
      const made = files.map((f) => {
        const a = {
          id: String(20000 + issue.attachments.length + 1),
          filename: f.filename,
          size: f.data.length,
          mimeType: f.contentType,
          content: f.data.toString("utf8"),
        };
        issue.attachments.push(a);
        return { id: a.id, filename: a.filename, size: a.size, mimeType: a.mimeType };
      });
      return send(res, 200, made);
    }
  }
  return refuse(res, 404, [`No ${method} ${url.pathname} in this Jira stand-in.`]);
}

const tls = args.cert && args.key ? { cert: readFileSync(args.cert), key: readFileSync(args.key) } : null;
const scheme = tls ? "https" : "http";
const handler = async (req, res) => {
  try {
    const url = new URL(req.url, base);
    if (url.pathname === "/_standin/issues") {
      return send(
        res,
        200,
        [...issues.values()].map((i) => ({
          ...issueJson(i),
          status: i.status,
          rawFields: i.fields,
          attachments: i.attachments,
        })),
      );
    }
    if (url.pathname === "/_standin/down" && req.method === "POST") {
      down = url.searchParams.get("on") === "1";
      return send(res, 200, { down });
    }
    const prefix = `/rest/api/${version}`;
    if (down) return send(res, 503, { errorMessages: ["Service Unavailable"], errors: {} });
    if (!url.pathname.startsWith(`${prefix}/`)) {
      return refuse(res, 404, [`No ${req.method} ${url.pathname} in this Jira ${flavour} stand-in.`]);
    }
    if (!authorised(req)) {
      return refuse(res, 401, ["You are not authenticated. Authentication required to perform this operation."]);
    }
    await rest(req, res, url, url.pathname.slice(prefix.length));
  } catch (e) {
    send(res, 500, { errorMessages: [String(e?.stack ?? e)], errors: {} });
  }
};
const server = tls ? https.createServer(tls, handler) : http.createServer(handler);

let base = `${scheme}://127.0.0.1`;
server.listen(Number(args.port ?? 0), "127.0.0.1", () => {
  const { port } = server.address();
  base = `${scheme}://127.0.0.1:${port}`;
  console.log(JSON.stringify({ port, url: base, flavour, email, token }));
});
for (const s of ["SIGTERM", "SIGINT"]) process.on(s, () => server.close(() => process.exit(0)));
