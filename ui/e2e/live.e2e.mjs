// The live dashboard end to end: with the dashboard open, a run posted to the ingest API makes
// the dashboard ask for its data again within 2 s (server-sent events on /api/live, one stream
// for the whole app), and again after the browser was offline for a while. Prints the delay
// from the ingest answer to the dashboard's fresh data (docs/benchmarks.md).
import http from "node:http";
import https from "node:https";
import { assert, closePage, newPage, signIn, sleep, testNow } from "./lib.mjs";

let runNo = 0;

/** Posts one run of a test case in no demo group, with an ingest API key. */
async function ingestRun(server, key) {
  runNo += 1;
  const body = {
    runs: [
      {
        engineRunId: `e2e-live-${Date.now()}-${runNo}`,
        testCase: { id: 990001, name: "Live check", channel: "voice", ivr: { id: 990, name: "Live IVR" } },
        runTime: testNow().toISOString(),
        runDuration: 12.5,
        status: "pass",
        runType: "Schedule",
        segments: [],
      },
    ],
  };
  const payload = JSON.stringify(body);
  const url = new URL("/api/ingest/v1/runs", server.url);
  const mod = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.request(
      url,
      {
        method: "POST",
        rejectUnauthorized: false,
        headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(payload), "X-API-Key": key },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c) => (text += c));
        res.on("end", () => resolve(JSON.parse(text)));
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/**
 * Posts a run and waits for the dashboard to ask for its data again: asserts the request
 * leaves within `timeoutMs` (the live path), and returns [ms to that request, ms to its answer]
 * (the answer's time is the server's query under whatever else the machine runs).
 */
async function delayToRefresh(page, server, key, timeoutMs) {
  const isGroups = (r) => /\/api\/trs\/v1\/groups/.test(r.url());
  let asked = 0;
  let answered = 0;
  const onRequest = (r) => {
    if (isGroups(r) && !asked) asked = Date.now();
  };
  const onResponse = (r) => {
    if (isGroups(r) && r.status() === 200 && !answered) answered = Date.now();
  };
  page.on("request", onRequest);
  page.on("response", onResponse);
  try {
    const out = await ingestRun(server, key);
    const posted = Date.now();
    if (process.env.LIVE_DEBUG) console.log(posted % 100000, "posted", JSON.stringify(out));
    assert(out?.data?.accepted === 1, `ingest accepted the run: ${JSON.stringify(out)}`);
    while (!asked && Date.now() < posted + timeoutMs) await sleep(10);
    assert(asked > 0, `the dashboard asked for fresh data within ${timeoutMs} ms of a posted run`);
    while (!answered && Date.now() < posted + 30000) await sleep(10);
    return [Math.max(0, asked - posted), answered ? answered - posted : NaN];
  } finally {
    page.off("request", onRequest);
    page.off("response", onResponse);
  }
}

export default async function live({ server, browser, users, test }) {
  const key = server.cli(["apikey", "add", "--name", "e2e-live"]).trim();

  await test("live: a run posted to ingest reaches the open dashboard within 2 s, also after a network drop", async () => {
    const page = await newPage(browser, server);
    const streams = [];
    page.on("request", (r) => {
      if (new URL(r.url()).pathname === "/api/live") streams.push(r.url());
      if (process.env.LIVE_DEBUG && r.url().includes("/api/")) console.log(Date.now() % 100000, r.method(), r.url());
    });
    try {
      await signIn(page, users.admin);
      for (let i = 0; i < 500 && streams.length === 0; i++) await sleep(20);
      await sleep(500);
      const delays = [];
      for (let i = 0; i < 3; i++) {
        delays.push(await delayToRefresh(page, server, key, 2000));
        await sleep(1200);
      }
      assert(streams.length === 1, `one live stream for the app, got ${streams.length}`);

      // The network drops for 3 s: the stream reconnects by itself and the dashboard is live again.
      if (process.env.LIVE_DEBUG) {
        page.on("console", (m) => console.log("console:", m.text()));
        await page.evaluate(() => {
          addEventListener("online", () => console.log("online event"));
          addEventListener("offline", () => console.log("offline event"));
        });
      }
      await page.context().setOffline(true);
      await sleep(3000);
      await page.context().setOffline(false);
      await sleep(1500);
      assert(streams.length >= 2, `the stream was opened again after the drop (${streams.length} opened)`);
      const after = await delayToRefresh(page, server, key, 2000);
      const fmt = ([q, a]) => `${q} ms to ask, ${a} ms to the answer`;
      console.log(`       ingest → dashboard: ${delays.map(fmt).join("; ")}; after a 3 s network drop: ${fmt(after)}`);
      assert(page.problems.length === 0, page.problems.join("\n"));
    } finally {
      await closePage(page);
    }
  });
}
