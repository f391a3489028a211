// Unit checks of the vendor stand-in (vendor-standin.mjs) against a small fake source that
// answers as cxwatch's embedded API does and records what it was asked.
// Run: cd ui && node --test e2e/vendor-standin.test.mjs
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, test } from "node:test";
import { SUCCESS_CODE, startVendorStandin } from "./vendor-standin.mjs";

const seen = []; // {method, path, query, body} as the source received them
const USERS = Array.from({ length: 12 }, (_, i) => ({
  id: i + 1,
  firstName: `F${i}`,
  lastName: `L${i}`,
  username: `u${i}@example.com`,
  roles: ["ROLE_USER"],
  accessType: "read-only",
  testCaseGroups: [{ id: 1, name: "G", caseCount: 3 }],
  createdAt: "2026-01-01T00:00:00Z",
}));

function answer(res, status, body) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

const source = http.createServer((req, res) => {
  const url = new URL(req.url, "http://source");
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks).toString("utf8");
    seen.push({ method: req.method, path: url.pathname, query: url.search, body });
    const q = url.searchParams;
    if (url.pathname === "/api/users" && req.method === "GET") {
      // cxwatch pages its users (default 10): the stand-in must fetch every page.
      const size = Number(q.get("pageSize") ?? 10);
      const no = Number(q.get("pageNo") ?? 0);
      return answer(res, 200, {
        code: "OK",
        data: { content: USERS.slice(no * size, no * size + size), totalElements: USERS.length },
        messages: [],
      });
    }
    if (url.pathname === "/api/users/3" && req.method === "GET") {
      return answer(res, 200, { code: "OK", data: USERS[2], messages: [] });
    }
    if (url.pathname === "/api/users/99") {
      return answer(res, 403, { code: "FORBIDDEN", messages: ["Administrators only."] });
    }
    if (url.pathname === "/api/users/3" && req.method === "PUT") {
      return answer(res, 200, { code: "OK", data: { ...USERS[2], ...JSON.parse(body) }, messages: [] });
    }
    if (url.pathname === "/api/alerts/events") {
      return answer(res, 200, {
        code: "OK",
        data: {
          content: [
            { alertId: 5, testCaseName: "T", testRunCount: 1, testRuns: [{ runStatusId: 7, runId: 9 }], open: true },
          ],
          totalElements: 40,
        },
        messages: [],
      });
    }
    if (url.pathname === "/api/trs/v1/testruns/8") {
      return answer(res, 200, {
        code: "OK",
        data: { runId: 8, testCaseId: 1, recordingUrl: "recordings/2", segments: [{ segmentId: 1, steps: [] }] },
        messages: [],
      });
    }
    answer(res, 404, { code: "NOT_FOUND", messages: ["no such thing"] });
  });
});

let standin;
before(async () => {
  await new Promise((r) => source.listen(0, "127.0.0.1", r));
  standin = await startVendorStandin({ source: `http://127.0.0.1:${source.address().port}` });
});
after(async () => {
  await standin.stop();
  source.closeAllConnections();
  await new Promise((r) => source.close(r));
});

async function call(method, path, body) {
  const r = await fetch(`${standin.url}/api/${path}`, {
    method,
    headers: { authorization: "Bearer t", ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: r.status, json: await r.json() };
}

test("a path outside section 7 is 404 and recorded as refused, without reaching the source", async () => {
  const before = seen.length;
  for (const p of [
    "alerts/events/open",
    "trs/v1/groups/recent",
    "trs/v1/groups/hourly",
    "trs/v1/groups/page",
    "jira/v1/config",
    "live",
  ]) {
    const r = await call("GET", p);
    assert.equal(r.status, 404, p);
    assert.deepEqual(r.json, { messages: ["Not found"] });
  }
  const signout = await call("POST", "auth/signout");
  assert.equal(signout.status, 404);
  assert.equal(seen.length, before, "nothing forwarded");
  const refused = standin.refused().map((x) => `${x.method} ${x.path}`);
  assert.ok(refused.includes("GET /api/alerts/events/open"), refused.join(", "));
  assert.ok(refused.includes("POST /api/auth/signout"));
});

test("a section 7 path with another method is 405 and refused", async () => {
  const r = await call("POST", "users/3");
  assert.equal(r.status, 405);
  assert.ok(standin.refused().some((x) => x.method === "POST" && x.path === "/api/users/3" && x.status === 405));
});

test("a list is a plain array of every item, with the section 3 fields only; a read has no code", async () => {
  const r = await call("GET", "users");
  assert.equal(r.status, 200);
  assert.ok(Array.isArray(r.json.data), "data is an array");
  assert.equal(r.json.data.length, 12, "every page of the source");
  assert.equal("code" in r.json, false, "no code on a read");
  assert.deepEqual(Object.keys(r.json.data[0]).sort(), [
    "accessType",
    "firstName",
    "id",
    "lastName",
    "roles",
    "testCaseGroups",
    "username",
  ]);
  assert.deepEqual(r.json.data[0].testCaseGroups, [{ id: 1, name: "G" }], "sub-fields stripped too");
  const one = await call("GET", "users/3");
  assert.equal("code" in one.json, false);
  assert.equal(one.json.data.id, 3);
});

test("an extra query parameter is not forwarded; alert events keep pageNo and pageSize", async () => {
  await fetch(`${standin.url}/api/users?pageNo=0&pageSize=5&search=ann&sort=id,desc`, {
    headers: { authorization: "Bearer t" },
  });
  const asked = seen.filter((s) => s.path === "/api/users").at(-1);
  assert.equal(new URLSearchParams(asked.query).get("search"), null);
  assert.equal(new URLSearchParams(asked.query).get("sort"), null);
  assert.equal(new URLSearchParams(asked.query).get("pageSize"), "1000", "the stand-in's own paging of the source");
  const r = await fetch(`${standin.url}/api/alerts/events?pageNo=1&pageSize=20&status=7`, {
    headers: { authorization: "Bearer t" },
  }).then((x) => x.json());
  const ev = seen.filter((s) => s.path === "/api/alerts/events").at(-1);
  const q = new URLSearchParams(ev.query);
  assert.equal(q.get("status"), null, "status is not a section 7 parameter");
  assert.equal(q.get("pageNo"), "1");
  assert.equal(q.get("pageSize"), "20");
  assert.deepEqual(r.data.totalElements, 40);
  assert.deepEqual(r.data.content[0], {
    alertId: 5,
    testCaseName: "T",
    testRunCount: 1,
    testRuns: [{ runStatusId: 7 }],
  });
  const entry = standin.requests.filter((x) => x.path === "/api/alerts/events").at(-1);
  assert.equal(entry.forwardedQuery, "pageNo=1&pageSize=20");
});

test("a write answers code SUCCESS and forwards only the payload fields", async () => {
  const r = await call("PUT", "users/3", { id: 3, firstName: "Ann", lastName: "L", username: "a@x.io", extra: 1 });
  assert.equal(r.status, 200);
  assert.equal(r.json.code, SUCCESS_CODE);
  assert.equal(SUCCESS_CODE, "SUCCESS");
  const sent = JSON.parse(seen.filter((s) => s.method === "PUT").at(-1).body);
  assert.equal("extra" in sent, false);
});

test("errors keep the source's status with messages only", async () => {
  const r = await call("GET", "users/99");
  assert.equal(r.status, 403);
  assert.deepEqual(r.json, { messages: ["Administrators only."] });
});

test("testruns/{id} answers with and without the trs/v1/ prefix, without cxwatch's additions", async () => {
  for (const p of ["testruns/8", "trs/v1/testruns/8"]) {
    const r = await call("GET", p);
    assert.equal(r.status, 200, p);
    assert.equal(r.json.data.runId, 8);
    assert.equal("recordingUrl" in r.json.data, false);
  }
  assert.equal(seen.filter((s) => s.path === "/api/trs/v1/testruns/8").length, 2);
});
