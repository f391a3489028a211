// Every label exists in both catalogs, and French is complete and really French.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

interface Entry {
  id: string;
  str: string;
}

function unquote(lines: string[]): string {
  return lines.map((l) => JSON.parse(l.trim())).join("");
}

/** A minimal reader of the po files Lingui writes (msgctxt/msgid/msgstr, multi-line strings). */
function parsePo(text: string): Entry[] {
  const entries: Entry[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const lines = block.split(/\r?\n/).filter((l) => l && !l.startsWith("#"));
    let field = "";
    const parts: Record<string, string[]> = { msgctxt: [], msgid: [], msgstr: [] };
    for (const line of lines) {
      const m = /^(msgctxt|msgid|msgstr)\s+(".*")$/.exec(line);
      if (m) {
        field = m[1];
        parts[field].push(m[2]);
      } else if (line.startsWith('"') && field) {
        parts[field].push(line);
      }
    }
    if (!parts.msgid.length) continue;
    const id = (parts.msgctxt.length ? `${unquote(parts.msgctxt)}\u0004` : "") + unquote(parts.msgid);
    if (id === "") continue; // header
    entries.push({ id, str: unquote(parts.msgstr) });
  }
  return entries;
}

const read = (locale: string) =>
  parsePo(readFileSync(fileURLToPath(new URL(`../locales/${locale}/messages.po`, import.meta.url)), "utf8"));

describe("translation catalogs", () => {
  const en = read("en");
  const fr = read("fr");
  const frById = new Map(fr.map((e) => [e.id, e.str]));

  it("hold the console's labels", () => {
    expect(en.length).toBeGreaterThan(20);
    const ids = en.map((e) => e.id);
    for (const label of ["This page could not be found", "Please wait ...", "Access is denied!", "Required"]) {
      expect(ids).toContain(label);
    }
  });

  it("have the same message ids in English and French", () => {
    expect(fr.map((e) => e.id).sort()).toEqual(en.map((e) => e.id).sort());
  });

  it("give every English message a non-empty French translation", () => {
    const missing = en.filter((e) => !(frById.get(e.id) ?? "").trim()).map((e) => e.id);
    expect(missing).toEqual([]);
  });

  it("use typographic apostrophes in French", () => {
    const straight = en.filter((e) => (frById.get(e.id) ?? "").includes("'")).map((e) => e.id);
    expect(straight).toEqual([]);
  });

  it("keep the placeholders of each message in French", () => {
    // Named placeholders ('{name}') and plural heads ('{count, plural,'); the branches' words are translated.
    const placeholders = (s: string) => (s.match(/\{\w+(\}|, ?\w+,)/g) ?? []).sort();
    for (const e of en) {
      expect(placeholders(frById.get(e.id) ?? ""), e.id).toEqual(placeholders(e.id));
    }
  });

  it("translate the labels rather than copy the English", () => {
    // Words spelled the same in both languages are listed here when they appear.
    const same = new Set([
      "Agent",
      "Internet",
      "Chatbot",
      "SMS",
      "MOS",
      "Jira",
      "Total",
      "Notes",
      "Notification",
      "Description",
      "Distribution",
      "Code",
      "Date",
      "Message",
      "Type",
      "Actions",
      "Application",
      "Minimum",
      "Maximum",
      "Page",
      "Permissions",
      "Segment",
      "Segments",
      "CSV",
      "Ticket",
      // The word French documentation uses (Microsoft Teams, Slack, Mattermost).
      "Webhook",
      "Webhooks",
      // The site page: an audit record's action and kind, the page's name.
      "Action",
      "Session",
      "Site",
      // An outage's alerts together: 'incident' in French too; the wall's score in points.
      "Incident",
      "Incidents",
      "Incident {id}",
      "{points} pts",
    ]);
    const copied = en
      // Words outside the placeholders: '{day} {from}–{to}' has none to translate.
      .filter((e) => /[a-z]{3}/i.test(e.id.replace(/\{\w+\}/g, "")) && !same.has(e.id))
      .filter((e) => frById.get(e.id) === e.id)
      .map((e) => e.id);
    expect(copied).toEqual([]);
  });
});
