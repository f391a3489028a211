// What is English on a French screen, pure (used by sweep-fr.e2e.mjs, tested by
// english.test.mjs: cd ui && node --test e2e/english.test.mjs): the catalogs read, the English
// messages as patterns, the words only English has, the API's data told from the server's own
// words, and the route table's patterns.
import { readFileSync } from "node:fs";
import path from "node:path";

/** msgid → msgstr of a .po file (continuation lines joined, escapes read). */
export function readPo(file) {
  const out = new Map();
  let id = null;
  let str = null;
  let into = null;
  const unq = (s) => JSON.parse(s);
  const flush = () => {
    if (id !== null && str !== null && id !== "") out.set(id, str);
    id = str = into = null;
  };
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.startsWith("msgid ")) {
      flush();
      id = unq(line.slice(6));
      into = "id";
    } else if (line.startsWith("msgstr ")) {
      str = unq(line.slice(7));
      into = "str";
    } else if (line.startsWith('"') && into) {
      if (into === "id") id += unq(line);
      else str += unq(line);
    } else if (!line.trim()) {
      flush();
    }
  }
  flush();
  return out;
}

/** The texts an ICU message can show: each branch of a plural or select, `#` a placeholder. */
export function branches(message) {
  const m = /^\{(\w+), (plural|select|selectordinal),/.exec(message);
  if (!m) return [message];
  const out = [];
  let i = m[0].length;
  for (;;) {
    const open = message.indexOf("{", i);
    if (open < 0) break;
    let depth = 0;
    let j = open;
    for (; j < message.length; j++) {
      if (message[j] === "{") depth++;
      else if (message[j] === "}" && --depth === 0) break;
    }
    out.push(...branches(message.slice(open + 1, j).replace(/#/g, "{#}")));
    i = j + 1;
  }
  return out;
}

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Placeholders and Lingui's component tags: they stand for anything. */
const PLACEHOLDER = /\{[^{}]*\}|<\/?\d+>/;

/** A message as a pattern over a whole text. */
function patternOf(message) {
  const parts = message.split(PLACEHOLDER).map((p) => escapeRe(p.replace(/\s+/g, " ")));
  return new RegExp(`^${parts.join("(?:.*?)").trim()}$`, "s");
}

/**
 * English messages whose French differs, as patterns over a whole text: placeholders and
 * Lingui's component tags stand for anything. Messages with fewer than two letters of their
 * own (only placeholders and signs) are left out: they say nothing in any language.
 */
export function englishPatterns(en, fr) {
  const out = [];
  // Every French message as a pattern: a text one of them gives is French, whatever English
  // message it also fits ('Close', an alert's state, is not the button 'Close').
  out.french = [...fr.values()]
    .flatMap(branches)
    .filter((m) => (m.split(PLACEHOLDER).join("").match(/\p{L}/gu) ?? []).length >= 2)
    .map(patternOf);
  for (const [id, enStr] of en) {
    const frStr = fr.get(id) ?? "";
    if (!enStr || enStr === frStr) continue;
    // A text the French message also gives is French ('Contact nº 1' is 'Contact {n}' too).
    const french = branches(frStr).map(patternOf);
    for (const text of branches(enStr)) {
      const literal = text.split(PLACEHOLDER).join("");
      if ((literal.match(/\p{L}/gu) ?? []).length < 2) continue;
      out.push({ message: text, re: patternOf(text), french });
    }
  }
  return out;
}

/** Words only English has (none of them is a French word a label would hold). */
const ENGLISH_WORDS = new Set(
  `the and of with is are was were this that these those your you not has have had been will would could
  should can't don't isn't from into which there their when where what who why how any none nothing yet ago
  failed failing sent queued opened closed acknowledged muted unmuted created updated deleted signed sign
  settings setting dashboard alerts alert groups group runs run hour hours day days today yesterday week
  month save cancel delete edit add new search select back next previous loading please wait show hide
  more less last first by at to for yes no all passed passing warning warnings failure failures
  details name names time times list lists user users log logs out only per since until`
    .split(/\s+/)
    .filter(Boolean),
);

/** Fields the server words itself (English sentences, status words): not data. */
const SERVER_WORDS = new Set([
  "reason",
  "reasons",
  "messages",
  "message",
  "error",
  "errors",
  "detail",
  "status",
  "runStatus",
  "runResult",
  "state",
  "outcome",
  "kind",
  "action",
  "cause",
  "type",
  "runType",
  "caseRunType",
  "timeframe",
  "timeframeName",
  "channel",
]);

/**
 * Every string value of an API answer (data), minus the server's own words. `url` is where it
 * came from: a maintenance window's `reason` is what a user wrote, not the server's words.
 */
export function dataStrings(json, into = new Set(), url = "") {
  const own = url.includes("/maintenance/") ? new Set([...SERVER_WORDS].filter((k) => k !== "reason")) : SERVER_WORDS;
  const walk = (v, key) => {
    if (typeof v === "string") {
      if (!own.has(key) && v.trim().length >= 2) into.add(v.replace(/\s+/g, " ").trim());
    } else if (Array.isArray(v)) {
      for (const x of v) walk(x, key);
    } else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) walk(x, k);
    }
  };
  walk(json, "");
  return into;
}

/**
 * What is English in one text (null when nothing): the message it is, the English words it
 * holds once the data in it is taken out, a raw code, or a decimal point.
 */
export function englishIn(text, { patterns, data, numbers = true }) {
  if (data.has(text)) return null;
  let rest = text;
  const sorted = data.sorted ?? [...data].sort((a, b) => b.length - a.length);
  for (const d of sorted) if (d.length >= 3 && rest.includes(d)) rest = rest.split(d).join(" ");
  // Addresses, paths and e-mail addresses are not words ('/api/ingest/v1/runs').
  rest = rest.replace(/\S*[/@]\S*/g, " ");
  if (!/\p{L}{2}/u.test(rest) && !(numbers && /\d\.\d/.test(rest))) return null;
  const french = patterns.french ?? [];
  const hit = patterns.find((p) => p.re.test(text)) && !french.some((f) => f.test(text));
  const which = hit ? patterns.find((p) => p.re.test(text)) : null;
  if (which) return `message '${which.message}'`;
  if (/(^|\s)[a-z]+(_[a-z]+)+(\s|$)/.test(rest)) return "a code shown as it is";
  const words = (rest.toLowerCase().match(/[\p{L}']+/gu) ?? []).filter((w) => ENGLISH_WORDS.has(w));
  if (words.length) return `English word(s) ${[...new Set(words)].join(", ")}`;
  if (numbers && /(^|[^\d./:\w])\d+\.\d+(?![\d.])/.test(rest)) return "a decimal point";
  return null;
}

/** The route table's patterns, in its order (as wouter's Switch tries them). */
export function routePatterns(uiDir) {
  const src = readFileSync(path.join(uiDir, "src/app/routes.tsx"), "utf8");
  return [...src.matchAll(/path: "([^"]+)"/g)].map((m) => m[1]);
}

/** A wouter pattern as a regular expression over a path. */
export function routeRe(pattern) {
  if (pattern === "/") return /^\/$/;
  const body = pattern
    .split("/")
    .slice(1)
    .map((seg) => (seg.endsWith("?") ? "(?:/[^/]+)?" : seg.startsWith(":") ? "/[^/]+" : `/${escapeRe(seg)}`))
    .join("");
  return new RegExp(`^${body}/?$`);
}
