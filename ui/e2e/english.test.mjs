// Unit checks of the French sweep's rules (english.mjs).
// Run: cd ui && node --test e2e/english.test.mjs
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { branches, dataStrings, englishIn, englishPatterns, readPo, routeRe } from "./english.mjs";

const po = (entries) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "sweep-po-"));
  const file = path.join(dir, "messages.po");
  const body = entries.map(([id, str]) => `msgid ${JSON.stringify(id)}\nmsgstr ${JSON.stringify(str)}\n`).join("\n");
  writeFileSync(file, `msgid ""\nmsgstr ""\n"Language: x\\n"\n\n${body}`);
  return readPo(file);
};

const en = po([
  ["Alerts", "Alerts"],
  ["Site", "Site"],
  ["Acknowledged by {who} at {when}", "Acknowledged by {who} at {when}"],
  ["{0, plural, one {# run} other {# runs}}", "{0, plural, one {# run} other {# runs}}"],
  ["{name}", "{name}"],
  ["Contact {n}", "Contact {n}"],
  ["Close", "Close"],
  ["Closed", "Closed"],
  ["MOS {0}", "MOS {0}"],
  ["MOS (audio quality)", "MOS (audio quality)"],
]);
const fr = po([
  ["Alerts", "Alertes"],
  ["Site", "Site"],
  ["Acknowledged by {who} at {when}", "Acquittée par {who} à {when}"],
  ["{0, plural, one {# run} other {# runs}}", "{0, plural, one {# exécution} other {# exécutions}}"],
  ["{name}", "{name}"],
  ["Contact {n}", "Contact nº {n}"],
  ["Close", "Fermer"],
  ["Closed", "Close"],
  ["MOS {0}", "MOS : {0}"],
  ["MOS (audio quality)", "MOS (qualité audio)"],
]);
const patterns = englishPatterns(en, fr);
const data = dataStrings({ content: [{ name: "Card Services - Check the balance", reason: "connection refused" }] });
const check = (text) => englishIn(text, { patterns, data });

test("reads a catalog and the branches of a plural", () => {
  assert.equal(en.get("Alerts"), "Alerts");
  assert.deepEqual(branches("{0, plural, one {# run} other {# runs}}"), ["{#} run", "{#} runs"]);
});

test("a message of the English catalog is English; one the same in French is not", () => {
  assert.match(check("Alerts"), /message 'Alerts'/);
  assert.match(check("Acknowledged by ana at 2026/11/29 03:12:00"), /message/);
  assert.match(check("3 runs"), /message/);
  assert.equal(check("Site"), null);
  assert.equal(check("Alertes"), null);
  assert.equal(check("Acquittée par ana à 2026/11/29 03:12:00"), null);
  // What the French message gives too is French.
  assert.equal(check("Contact nº 1"), null);
  assert.match(check("Contact 1"), /message 'Contact \{n\}'/);
  // What another French message gives is French: an alert 'Close' (closed), not the button.
  assert.equal(check("Close"), null);
  assert.equal(check("MOS (qualité audio)"), null);
  assert.match(check("MOS (audio quality)"), /message/);
});

test("data is left out by its source, the server's own words are not", () => {
  assert.equal(check("Card Services - Check the balance"), null);
  assert.equal(check("Lire : Card Services - Check the balance"), null);
  assert.match(check("connection refused: the server did not answer"), /English word/);
  assert.equal(check("/api/ingest/v1/runs"), null);
  // A maintenance window's reason is a user's words; a notification's is the server's.
  const windows = dataStrings(
    { data: [{ reason: "Claims IVR release (every Tuesday night)" }] },
    new Set(),
    "/api/maintenance/windows",
  );
  assert.equal(englishIn("Claims IVR release (every Tuesday night)", { patterns, data: windows }), null);
  const sends = dataStrings({ data: [{ reason: "the server did not answer" }] }, new Set(), "/api/alerts/events/1");
  assert.match(englishIn("the server did not answer", { patterns, data: sends }), /English word/);
});

test("English words, raw codes and decimal points are found", () => {
  assert.match(check("Nothing failed yet"), /English word/);
  assert.match(check("sign_in"), /code/);
  assert.match(check("Latence 1.25 s"), /decimal point/);
  assert.equal(check("Latence 1,25 s"), null);
  assert.equal(check("127.0.0.1"), null);
  assert.equal(englishIn("Latence 1.25", { patterns, data, numbers: false }), null);
});

test("route patterns match addresses as wouter does", () => {
  assert.ok(routeRe("/alert/:id").test("/alert/12"));
  assert.ok(!routeRe("/alert/:id").test("/alerts"));
  assert.ok(routeRe("/report/run/:runId/:latency?").test("/report/run/5"));
  assert.ok(routeRe("/report/run/:runId/:latency?").test("/report/run/5/2.5"));
  assert.ok(routeRe("/").test("/"));
  assert.ok(!routeRe("/").test("/dashboard"));
});
