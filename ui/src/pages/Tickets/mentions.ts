// The ticket dialog's description (spec §2 'Ticket dialog', §9: 5 recent mentions): the
// editor shows '@Name'; the server takes `@[Name](id)` (src/domain/ticket.rs). Pure, but for
// the remembered mentions in local storage.

export interface Mention {
  id: string | null | undefined;
  name: string | null | undefined;
}

export const RECENT_MENTIONS = 5;
const RECENT_KEY = "recentMentions";

const real = (v: string | null | undefined): v is string =>
  typeof v === "string" && v.trim() !== "" && v !== "null" && v !== "undefined";

/** Mentions with a real id and name, each id once. */
export function cleanMentions(list: Mention[]): { id: string; name: string }[] {
  const out: { id: string; name: string }[] = [];
  for (const m of list) {
    if (real(m.id) && real(m.name) && !out.some((o) => o.id === m.id)) out.push({ id: m.id, name: m.name });
  }
  return out;
}

/** The editor's text and mentions of a server description (`@[Name](id)` becomes '@Name'). */
export function fromWire(text: string): { text: string; mentions: { id: string; name: string }[] } {
  const mentions: Mention[] = [];
  const shown = text.replace(/@\[([^\]\n]+)\]\(([^)\n]*)\)/g, (_all, name: string, id: string) => {
    mentions.push({ id, name });
    return `@${name}`;
  });
  return { text: shown, mentions: cleanMentions(mentions) };
}

/**
 * The server's description: each '@Name' of a chosen mention becomes `@[Name](id)`; mentions
 * with a null or undefined id or name are dropped (their text stays as typed).
 */
export function toWire(text: string, mentions: Mention[]): string {
  const list = cleanMentions(mentions).sort((a, b) => b.name.length - a.name.length);
  if (!list.length) return text;
  const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const re = new RegExp(`@(${list.map((m) => escapeRe(m.name)).join("|")})`, "g");
  return text.replace(re, (all, name: string) => {
    const m = list.find((x) => x.name === name);
    return m ? `@[${m.name}](${m.id})` : all;
  });
}

/** The '@…' being typed before the caret, if any: where it starts and what follows the '@'. */
export function mentionAt(text: string, caret: number): { start: number; query: string } | null {
  const before = text.slice(0, caret);
  const at = before.lastIndexOf("@");
  if (at === -1) return null;
  if (at > 0 && !/\s/.test(before[at - 1])) return null;
  const query = before.slice(at + 1);
  if (query.includes("\n") || query.length > 40 || /\s{2}/.test(query)) return null;
  return { start: at, query };
}

/** The text with the '@…' from `start` to `caret` replaced by '@Name '; the new caret. */
export function insertMention(text: string, start: number, caret: number, name: string) {
  const inserted = `@${name} `;
  return { text: text.slice(0, start) + inserted + text.slice(caret), caret: start + inserted.length };
}

/** The recent mentions with `m` first, at most 5, each once. */
export function remember(recent: Mention[], m: Mention): { id: string; name: string }[] {
  return cleanMentions([m, ...recent]).slice(0, RECENT_MENTIONS);
}

/** People matching what follows the '@', the recent ones first. */
export function suggestions<T extends { accountId: string; name: string }>(
  people: T[],
  recent: Mention[],
  query: string,
): T[] {
  const q = query.trim().toLowerCase();
  const match = people.filter((p) => !q || p.name.toLowerCase().includes(q));
  const recentIds = cleanMentions(recent).map((r) => r.id);
  const first = recentIds.map((id) => match.find((p) => p.accountId === id)).filter((p): p is T => !!p);
  return [...first, ...match.filter((p) => !recentIds.includes(p.accountId))];
}

export function loadRecent(): { id: string; name: string }[] {
  try {
    const v = JSON.parse(localStorage.getItem(RECENT_KEY) ?? "[]");
    return Array.isArray(v) ? cleanMentions(v).slice(0, RECENT_MENTIONS) : [];
  } catch {
    return [];
  }
}

export function saveRecent(list: Mention[]): void {
  try {
    localStorage.setItem(RECENT_KEY, JSON.stringify(cleanMentions(list).slice(0, RECENT_MENTIONS)));
  } catch {
    // storage full or blocked: the list is only a convenience
  }
}

/** An attached file must be a CSV file (spec §5). */
export function isCsvFile(name: string): boolean {
  return /^.+\.csv$/i.test(name);
}

/** Labels as chips: Enter adds the trimmed text once; spaces are not allowed in a Jira label. */
export function addLabel(labels: string[], text: string): string[] {
  const l = text.trim().replace(/\s+/g, "-");
  return l && !labels.includes(l) ? [...labels, l] : labels;
}
