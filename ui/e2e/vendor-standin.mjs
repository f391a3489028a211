// A stand-in for the vendor's own API, written from the functional spec alone
// (`console-spec.md` §7 for the paths, methods and query parameters, §3 for the fields, §4 and
// §8 for the sentences around them), as `jira-standin.mjs` stands in for Jira. It answers what a
// customer's backend is known to answer, and nothing else, so that cxwatch's proxy mode and its
// console can be tried against it (e2e/vendor.e2e.mjs).
//
// Where its data comes from: it sits in front of a real cxwatch in embedded mode (the "source",
// e.g. the e2e runner's demo server). Each allowed call is forwarded to the source with the
// caller's bearer token and only the query parameters §7 lists, and the answer is reshaped into
// the vendor's shape. The source's own permission answers (401/403/404) pass through, so a
// ROLE_USER's restrictions are the real ones.
//
// The vendor's shapes, as the stand-in answers them:
// - Only the §7 calls, under /api/ (table ROUTES below). Any other path answers 404
//   {"messages":["Not found"]}, including cxwatch's own additions (auth/signout, auth/sso/*,
//   live, alerts/events/open, trs/v1/groups/recent, trs/v1/groups/hourly, trs/v1/groups/{id}/runs,
//   trs/v1/groups/page, alerts/contactGroups, jira/v1/config, openapi.json, ...). A §7 path with another method
//   answers 405. Both are recorded as refused.
// - Query parameters §7 does not list for a call are dropped before the call is served: no
//   paging, search, sort or status on lists, except alerts/events?pageNo&pageSize.
// - Reads (GET) answer {"data": ...} WITHOUT a `code` field: the spec checks `code` on write
//   responses only ("Write responses are checked for a 'code' field").
// - Writes (POST, PUT, PATCH, DELETE) answer {"code": "SUCCESS", "data": ..., "messages": [...]}.
//   The spec does not give the success value of `code`; "SUCCESS" is chosen on purpose, NOT
//   cxwatch's "OK", so a console that compares with "OK" shows up.
// - Errors: the HTTP status and {"messages": [...]} (no `code`, no `fields`).
// - Lists are plain arrays in `data` ("lists are read from the data of the response data");
//   only alerts/events is paged ({content, totalElements}, §3 and §7). When the source pages a
//   list, the stand-in fetches every page and answers the whole array.
// - Entities carry the §3 fields only, recursively where §3 lists sub-fields (see SHAPES).
//   Where §3 is silent about a list row, the choice is written beside the shape.
// - Ambiguous paths are accepted both ways: testcases/{id}/runs, testruns/{id} and getContent
//   with and without the trs/v1/ prefix. The "{kind}/{id}" blob download of §7 Files is
//   accepted as recordings/{id} (with and without trs/v1/).
// - Write payloads: only the §3 payload fields are forwarded. A multipart body (the ticket
//   issue calls) is forwarded as sent.
//
// Use from a test: `startVendorStandin({ source, ca, token, port })` resolves
// `{ url, port, requests, refused(), stop() }`; `requests` holds every call as
// {method, path, query, forwardedQuery, status, refused}. `token` is used for calls that come
// without an Authorization header (handy by hand).
// By hand: node ui/e2e/vendor-standin.mjs --source https://127.0.0.1:8443 --ca path/to/cert.crt --port 9000
// Listens on 127.0.0.1, plain HTTP (a cxwatch proxy reaches it with upstream = "http://127.0.0.1:PORT").
import { readFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import { fileURLToPath } from "node:url";

/** The success value of `code` on write responses (the spec does not give it). */
export const SUCCESS_CODE = "SUCCESS";

// ---- Shapes: the §3 fields of each entity. A field listed as `name: SHAPE` is reshaped
// recursively (an array element by element); a plain name keeps its value as it is.

/** Keeps only `shape`'s fields of `v` (an object, or an array of them). */
export function strip(v, shape) {
  if (shape === undefined || v === null || v === undefined) return v;
  if (Array.isArray(v)) return v.map((x) => strip(x, shape));
  if (typeof shape === "function") return shape(v);
  if (typeof v !== "object") return v;
  const out = {};
  for (const [k, sub] of Object.entries(shape)) {
    if (k in v) out[k] = sub === true ? v[k] : strip(v[k], sub);
  }
  return out;
}
const fields = (...names) => Object.fromEntries(names.map((n) => [n, true]));

const TEST_CASE = fields("id", "ivrId", "name");
// §3 Test case group: id, name, channel, caseCount, ivrCount, testCases[] (id, ivrId, name).
const GROUP = { ...fields("id", "name", "channel", "caseCount", "ivrCount"), testCases: TEST_CASE };
// §7 says GET groups lists (id, name, channel); the settings list shows '{caseCount} from
// {ivrCount} IVR Applications', so list rows keep the §3 counts too (not the test cases).
const GROUP_ROW = fields("id", "name", "channel", "caseCount", "ivrCount");
const CHANNEL = fields("id", "name");
const IVR = { ...fields("id", "name", "channel"), testCases: TEST_CASE };
const STATUS = fields("enabled", "status");
const CLIENT_APP = {
  ...fields("clientEndPoint", "channel", "lastRun"),
  appStatus: STATUS,
  telcoStatus: STATUS,
  agentStatus: STATUS,
  componentStatus: fields("name", "hasComponent", "enabled"),
};
// §7 "list by channel with clientApps".
const HEALTH = { channel: true, clientApps: CLIENT_APP };
const METRIC = {
  ...fields(
    "entityId",
    "entityName",
    "entityType",
    "channel",
    "periodStart",
    "periodEnd",
    "successCount",
    "warningCount",
    "failureCount",
    "segmentId",
    "segmentName",
  ),
  hourlyStatus: fields("hourly", "successCount", "warningCount", "failureCount"),
};
const MOS_ROW = fields("hourly", "minMosCq", "maxMosCq", "avgMosCq", "medianMosCq");
const REPORT = fields(
  "id",
  "name",
  "description",
  "reportTypeName",
  "reportTypeID",
  "latencyWarn",
  "latencyFail",
  "runType",
  "testCaseGroupName",
  "testCaseGroupID",
  "timeframeName",
  "timeframeBegin",
  "timeframeEnd",
  "lastModifiedTime",
  "jiraTicket",
);
const REPORT_PAYLOAD = fields(
  "id",
  "name",
  "description",
  "reportTypeName",
  "reportTypeID",
  "testCaseGroupName",
  "testCaseGroupID",
  "timeframeName",
  "runType",
  "timeframeBegin",
  "timeframeEnd",
  "latencyWarn",
  "latencyFail",
);
// §3 is silent about report types and distribution types: {id, name}.
const ID_NAME = fields("id", "name");
const LATENCY_BUCKET = fields("id", "text", "lowerBound", "uppperBound");
// §3 "Latency report data: segments[] and latencyByHr[] (hour, latency, runCount)"; a segment's
// fields are not listed, so segments are kept as the source gives them.
const LATENCY = { segments: true, latencyByHr: fields("hour", "latency", "runCount") };
const TEST_RUN = fields("runId", "testCaseId", "testCaseName", "runTime", "runDuration", "runStatusId", "mosCqIn");
const STEP = {
  ...fields(
    "stepId",
    "stepType",
    "typeDisplayText",
    "prompt",
    "promptLatencyMin",
    "promptLatencyMax",
    "incompleteTimeout",
    "completeTimeout",
    "recordingId",
    "bargeInTime",
    // "Step-type specific fields also exist": cxwatch keeps them under `extra`.
    "extra",
  ),
  testResult: fields(
    "status",
    "utterance",
    "latency",
    "confidence",
    "recordingDuration",
    "startTime",
    "endTime",
    "attachmentUrl",
  ),
};
// §3 Run detail: "segmentRuns or segments, each with stepRuns or steps". The run's own fields are
// the Test run's; a segment keeps segmentId and segmentName (the names the metric uses).
const SEGMENT = { ...fields("segmentId", "segmentName"), steps: STEP, stepRuns: STEP };
const RUN_DETAIL = { ...TEST_RUN, segments: SEGMENT, segmentRuns: SEGMENT };
const ALERT_EVENT = {
  ...fields("alertId", "testCaseName", "alertTime", "distributionName", "testRunCount"),
  testRuns: fields("runStatusId"),
};
const ALERT_DETAILS = {
  ...fields("alertId", "testCaseId", "testCaseName", "testRunCount", "distributionName", "jiraTicket"),
  testRuns: TEST_RUN,
};
const ALERT_STATUS = fields("id", "code", "text", "statusGroup", "supportChannel");
const ALERT_SETTING = {
  ...fields(
    "id",
    "name",
    "active",
    "testCaseGroupId",
    "distributionId",
    "testCaseGroupName",
    "distributionName",
    "emailSubject",
    "voiceMessage",
    "smsPrefix",
    "attachRecording",
    "attachJiraTicket",
    "failureToAlert",
    "notifyOnRecovery",
    "alertStatus",
    "jiraAssignee",
    "jiraProject",
    "jiraUsername",
  ),
  schedule: fields("dayOfWeek", "startTimeSlot", "endTimeSlot"),
};
// §3: "List rows use id, name, testCaseGroupName, distributionName, active."
const ALERT_SETTING_ROW = fields("id", "name", "testCaseGroupName", "distributionName", "active");
const CONTACT = fields("name", "type", "info");
const DISTRIBUTION = {
  ...fields("id", "name", "label", "type", "email", "lastModifiedTime"),
  contacts: CONTACT,
};
// §3 is silent about a distribution list row; the settings list shows label, labels, type,
// email/number and last modified, so a row is the whole §3 list (contacts included).
const DISTRIBUTION_ROW = DISTRIBUTION;
const USER = {
  ...fields("id", "firstName", "lastName", "username", "roles", "accessType"),
  testCaseGroups: fields("id", "name"),
};
// §3 is silent about a user row: the same fields as the user (the Admin Settings columns need them).
const USER_PAYLOAD = { ...USER, password: true };
// §3 Logged-in user, plus the token (§7: "accessToken plus user fields").
const SIGNED_IN = fields("id", "username", "roles", "accessType", "accessToken", "remember");
const AUTO_TICKET = fields("id", "alertSettingId", "testcaseId", "jiraTicket", "runIds", "alertTime");
const JIRA_USER = fields("accountId", "name");
const JIRA_PROJECT = fields("key", "name");
const JIRA_ISSUE = fields("labels", "summary", "assigneeId", "project", "status", "description");
// §7 "GET issueStatus: names": a list of strings.
const JIRA_STATUS = (s) => (typeof s === "string" ? s : s?.name);
const KEY = fields("key");

// ---- Routes: exactly §7. `path` segments in braces match a number; `src` is the source's path
// when it differs; `query` the parameters kept; `list` fetches every page of a paged source list;
// `paged` keeps the {content, totalElements} page; `body` the payload fields forwarded.
const TRS = (p) => `trs/v1/${p}`;
const ROUTES = [
  // Authentication
  { m: "POST", path: "auth/signin", body: fields("username", "password", "remember"), shape: SIGNED_IN },
  { m: "GET", path: "auth/getToken", query: ["id"], shape: SIGNED_IN },
  // Groups and metrics (api/trs/v1)
  { m: "GET", path: TRS("groups"), shape: GROUP_ROW },
  { m: "GET", path: TRS("groups/channels"), shape: CHANNEL },
  { m: "GET", path: TRS("groups/health"), shape: HEALTH },
  { m: "GET", path: TRS("groups/{id}"), shape: GROUP },
  { m: "GET", path: TRS("ivrs"), shape: IVR },
  {
    m: "GET",
    path: TRS("groups/{id}/metric"),
    query: ["level", "startDate", "endDate", "caseRunType"],
    shape: METRIC,
  },
  { m: "GET", path: TRS("groups/{id}/mos"), query: ["startDate", "endDate", "caseRunType"], shape: MOS_ROW },
  { m: "POST", path: TRS("groups"), body: { ...fields("name", "channel"), testCases: fields("id") }, shape: GROUP },
  {
    m: "PUT",
    path: TRS("groups/{id}"),
    body: { ...fields("id", "name", "channel"), testCases: fields("id") },
    shape: GROUP,
  },
  { m: "DELETE", path: TRS("groups/{id}") },
  // "and a list delete": its path is not given; accepted as DELETE trs/v1/groups with a JSON
  // array of ids, served as one DELETE groups/{id} per id (stopping at the first failure).
  { m: "DELETE", path: TRS("groups"), listDelete: true },
  // Reports
  { m: "GET", path: "reports", list: true, shape: REPORT },
  { m: "GET", path: "reports/types", query: ["channel"], shape: ID_NAME },
  { m: "GET", path: "reports/timeframes" },
  { m: "GET", path: "reports/latencythresholds", shape: LATENCY_BUCKET },
  { m: "GET", path: "reports/{id}", shape: REPORT },
  { m: "GET", path: "reports/{id}/latency", shape: LATENCY },
  { m: "GET", path: "reports/{id}/export", blob: true },
  { m: "POST", path: "reports", body: REPORT_PAYLOAD, shape: REPORT },
  { m: "PUT", path: "reports/{id}", body: REPORT_PAYLOAD, shape: REPORT },
  { m: "DELETE", path: "reports/{id}" },
  {
    m: "GET",
    path: "reports/{id}/testruns",
    query: ["startDate", "endDate", "segmentId", "latencyThres", "hrSlot", "perfStatus", "minMos", "maxMos"],
    list: true,
    shape: TEST_RUN,
  },
  // §7 "GET testcases/{id}/runs?startDate&endDate. GET testruns/{id}." under the Reports
  // heading, without the trs/v1/ prefix: accepted both ways.
  ...["", "trs/v1/"].flatMap((p) => [
    {
      m: "GET",
      path: `${p}testcases/{id}/runs`,
      src: TRS("testcases/{id}/runs"),
      query: ["startDate", "endDate"],
      list: true,
      shape: TEST_RUN,
    },
    { m: "GET", path: `${p}testruns/{id}`, src: TRS("testruns/{id}"), shape: RUN_DETAIL },
  ]),
  // Alerts
  { m: "GET", path: "alerts/events", query: ["pageNo", "pageSize"], paged: true, shape: ALERT_EVENT },
  { m: "GET", path: "alerts/events/{id}", shape: ALERT_DETAILS },
  { m: "GET", path: "alerts/allStatus", shape: ALERT_STATUS },
  { m: "GET", path: "alerts/settings", list: true, shape: ALERT_SETTING_ROW },
  { m: "GET", path: "alerts/settings/{id}", shape: ALERT_SETTING },
  { m: "POST", path: "alerts/settings", body: ALERT_SETTING, shape: ALERT_SETTING },
  { m: "PUT", path: "alerts/settings/{id}", body: ALERT_SETTING, shape: ALERT_SETTING },
  { m: "DELETE", path: "alerts/settings/{id}" },
  // The auto-ticket list of an alert setting.
  { m: "GET", path: "alerts/autojiraticket/{id}", list: true, shape: AUTO_TICKET },
  // "PUT alerts/{id}": the alert's comment and ticket key. §3 gives no payload, so the alert
  // details' jiraTicket and a `comment` are forwarded.
  { m: "PUT", path: "alerts/{id}", body: fields("alertId", "jiraTicket", "comment") },
  // "PUT autojiraticket/{id}": §3 gives no payload; the body is forwarded as sent.
  { m: "PUT", path: "autojiraticket/{id}" },
  // Distributions
  { m: "GET", path: "distributions/types", shape: ID_NAME },
  { m: "GET", path: "distributions", list: true, shape: DISTRIBUTION_ROW },
  { m: "GET", path: "distributions/{id}", shape: DISTRIBUTION },
  { m: "POST", path: "distributions", body: DISTRIBUTION, shape: DISTRIBUTION },
  { m: "PUT", path: "distributions/{id}", body: DISTRIBUTION, shape: DISTRIBUTION },
  { m: "DELETE", path: "distributions/{id}" },
  { m: "POST", path: "distributions/testContact", query: ["email", "sms"], body: {} },
  // Users
  { m: "GET", path: "users", list: true, shape: USER },
  { m: "GET", path: "users/{id}", shape: USER },
  { m: "POST", path: "users", body: USER_PAYLOAD, shape: USER },
  { m: "PUT", path: "users/{id}", body: USER_PAYLOAD, shape: USER },
  { m: "PATCH", path: "users/{id}/overridePassword", body: fields("newPassword", "oldPassword") },
  { m: "DELETE", path: "users/{id}" },
  // Files: getContent?attachmentUrl and "{kind}/{id}" (the recordings) as blobs.
  ...["", "trs/v1/"].flatMap((p) => [
    { m: "GET", path: `${p}getContent`, src: TRS("getContent"), query: ["attachmentUrl"], blob: true },
    { m: "GET", path: `${p}recordings/{id}`, src: TRS("recordings/{id}"), blob: true },
  ]),
  // Issue-tracker calls
  { m: "GET", path: "jira/v1/users", query: ["username"], shape: JIRA_USER },
  { m: "GET", path: "jira/v1/projects", query: ["username"], shape: JIRA_PROJECT },
  { m: "GET", path: "jira/v1/issueStatus", query: ["username"], shape: JIRA_STATUS },
  { m: "POST", path: "jira/v1/issue", rawBody: true, shape: KEY },
  { m: "PUT", path: "jira/v1/issue", query: ["username", "issueId"], rawBody: true, shape: KEY },
  { m: "GET", path: "jira/v1/issue", query: ["username", "issueId"], shape: JIRA_ISSUE },
].map((r) => ({
  ...r,
  query: r.query ?? [],
  re: new RegExp(`^${r.path.replace(/\{id\}/g, "(\\d+)")}$`),
}));

/** The §7 calls, as "METHOD path" lines (for docs and tests). */
export const SECTION7 = ROUTES.map((r) => `${r.m} ${r.path}`);

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function sendJson(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/**
 * Starts the stand-in. `source`: the cxwatch (embedded mode) it reads from; `ca`: the path of
 * that server's certificate (else it is not checked); `token`: a bearer for calls that come
 * without one; `port`: 0 for any.
 */
export function startVendorStandin({ source, ca, token, port = 0 }) {
  const sourceUrl = new URL(source);
  const tls = sourceUrl.protocol === "https:";
  const agentOptions = tls
    ? ca
      ? { ca: readFileSync(ca), keepAlive: true }
      : { rejectUnauthorized: false, keepAlive: true }
    : { keepAlive: true };
  const agent = tls ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
  const requests = [];

  /**
   * One call to the source. Resolves { status, headers, body: Buffer }. A connection the source
   * closed while idle (a kept-alive socket reused at that moment), or a GET's reset, is tried
   * once more.
   */
  function call(method, srcPath, params, headers, body, retry = true) {
    const url = new URL(`/api/${srcPath}`, sourceUrl);
    for (const [k, v] of params) url.searchParams.append(k, v);
    const mod = tls ? https : http;
    return new Promise((resolve, reject) => {
      const req = mod.request(url, { method, headers, agent, timeout: 30000 }, (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on("error", reject);
      });
      req.on("timeout", () => req.destroy(new Error(`source timeout: ${method} ${url}`)));
      req.on("error", (e) => {
        const reset = e.code === "ECONNRESET" || /socket hang up/.test(e.message);
        if (retry && reset && (req.reusedSocket || method === "GET")) {
          resolve(call(method, srcPath, params, headers, body, false));
        } else {
          reject(e);
        }
      });
      if (body !== undefined) req.write(body);
      req.end();
    });
  }
  const json = (r) => {
    try {
      return JSON.parse(r.body.toString("utf8"));
    } catch {
      return null;
    }
  };
  /** The source's error as the vendor's: its status and messages. */
  const failure = (r) => {
    const j = json(r);
    const messages = Array.isArray(j?.messages) && j.messages.length ? j.messages : [`HTTP ${r.status}`];
    return { status: r.status, body: { messages } };
  };

  async function serve(req, route, ids, params) {
    const srcPath = (route.src ?? route.path).replace(/\{id\}/g, () => ids.shift());
    const auth = req.headers.authorization ?? (token ? `Bearer ${token}` : undefined);
    const headers = { accept: req.headers.accept ?? "application/json" };
    if (auth) headers.authorization = auth;
    const write = WRITES.has(route.m);

    if (route.blob) {
      if (req.headers.range) headers.range = req.headers.range;
      const r = await call("GET", srcPath, params, headers);
      if (r.status >= 400) return failure(r);
      const pass = ["content-type", "content-length", "content-disposition", "content-range", "accept-ranges", "etag"];
      return {
        status: r.status,
        raw: r.body,
        headers: Object.fromEntries(pass.filter((h) => r.headers[h]).map((h) => [h, r.headers[h]])),
      };
    }

    let body;
    const raw = await readBody(req);
    if (route.rawBody) {
      body = raw;
      if (req.headers["content-type"]) headers["content-type"] = req.headers["content-type"];
    } else if (route.body !== undefined || route.listDelete || route.m === "PUT") {
      let parsed = null;
      if (raw.length) {
        try {
          parsed = JSON.parse(raw.toString("utf8"));
        } catch {
          return { status: 400, body: { messages: ["The body is not JSON."] } };
        }
      }
      if (route.listDelete) {
        const list = Array.isArray(parsed) ? parsed : (parsed?.ids ?? []);
        let last = null;
        for (const id of list) {
          last = await call("DELETE", TRS(`groups/${Number(id)}`), [], headers);
          if (last.status >= 300) return failure(last);
        }
        return { status: 200, body: { code: SUCCESS_CODE, data: list, messages: [] } };
      }
      const payload =
        route.body === undefined
          ? parsed
          : route.body && Object.keys(route.body).length
            ? strip(parsed, route.body)
            : undefined;
      if (payload !== undefined && payload !== null) {
        body = Buffer.from(JSON.stringify(payload));
        headers["content-type"] = "application/json";
      }
    }
    if (body !== undefined) headers["content-length"] = body.length;

    let data;
    let messages = [];
    if (route.list) {
      // The source pages: fetch every page and answer the whole list.
      const all = [];
      for (let pageNo = 0; ; pageNo++) {
        const r = await call("GET", srcPath, [...params, ["pageNo", String(pageNo)], ["pageSize", "1000"]], headers);
        if (r.status >= 300) return failure(r);
        const d = json(r)?.data;
        if (Array.isArray(d)) {
          all.push(...d);
          break;
        }
        const content = d?.content ?? [];
        all.push(...content);
        if (!content.length || all.length >= (d?.totalElements ?? 0)) break;
      }
      data = all;
    } else {
      const r = await call(route.m, srcPath, params, headers, body);
      if (r.status >= 300) return failure(r);
      const j = json(r);
      data = j?.data ?? null;
      if (Array.isArray(j?.messages)) messages = j.messages;
    }
    if (route.shape !== undefined) {
      data =
        route.paged && data && !Array.isArray(data)
          ? { content: strip(data.content ?? [], route.shape), totalElements: data.totalElements ?? 0 }
          : strip(data, route.shape);
    }
    return { status: 200, body: write ? { code: SUCCESS_CODE, data, messages } : { data } };
  }

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, "http://standin");
    const entry = {
      method: req.method,
      path: url.pathname,
      query: url.search.replace(/^\?/, ""),
      status: 0,
      refused: false,
    };
    requests.push(entry);
    const done = (status, body, refused = false) => {
      entry.status = status;
      entry.refused = refused;
      sendJson(res, status, body);
    };
    const rest = url.pathname.startsWith("/api/") ? url.pathname.slice(5).replace(/\/$/, "") : null;
    const matches = rest === null ? [] : ROUTES.filter((r) => r.re.test(rest));
    if (!matches.length) {
      req.resume();
      return done(404, { messages: ["Not found"] }, true);
    }
    const route = matches.find((r) => r.m === req.method);
    if (!route) {
      req.resume();
      res.setHeader("allow", [...new Set(matches.map((r) => r.m))].join(", "));
      return done(405, { messages: ["Method not allowed"] }, true);
    }
    const ids = rest.match(route.re).slice(1);
    const params = [...url.searchParams].filter(([k]) => route.query.includes(k));
    entry.forwardedQuery = new URLSearchParams(params).toString();
    try {
      const out = await serve(req, route, ids, params);
      entry.status = out.status;
      if (out.raw !== undefined) {
        res.writeHead(out.status, out.headers);
        res.end(out.raw);
      } else {
        sendJson(res, out.status, out.body);
      }
    } catch (e) {
      done(502, { messages: [`The source did not answer: ${e.message}`] });
    }
  });

  // Idle connections stay open longer than the proxy's pool keeps them (reqwest: 90 s), so the
  // proxy never reuses one the stand-in is closing at that moment (a 502 in the console).
  server.keepAliveTimeout = 120000;
  server.headersTimeout = 121000;

  return new Promise((resolve, reject) => {
    server.on("error", reject);
    server.listen(port, "127.0.0.1", () => {
      const actual = server.address().port;
      resolve({
        url: `http://127.0.0.1:${actual}`,
        port: actual,
        requests,
        refused: () => requests.filter((r) => r.refused),
        stop: () =>
          new Promise((r) => {
            agent.destroy();
            server.closeAllConnections?.();
            server.close(() => r());
          }),
      });
    });
  });
}

// By hand: node ui/e2e/vendor-standin.mjs --source URL [--ca FILE] [--token T] [--port N]
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = {};
  for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];
  if (!args.source) {
    console.error(
      "usage: node ui/e2e/vendor-standin.mjs --source https://127.0.0.1:8443 [--ca cert.crt] [--token T] [--port 9000]",
    );
    process.exit(2);
  }
  const s = await startVendorStandin({
    source: args.source,
    ca: args.ca,
    token: args.token,
    port: Number(args.port ?? 0),
  });
  console.log(JSON.stringify({ url: s.url, port: s.port, source: args.source }));
  const stop = async () => {
    const refused = s.refused();
    console.error(`${s.requests.length} calls, ${refused.length} refused`);
    for (const r of refused) console.error(`  ${r.status} ${r.method} ${r.path}${r.query ? `?${r.query}` : ""}`);
    await s.stop();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
