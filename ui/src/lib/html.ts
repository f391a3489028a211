// Text that some library writes with innerHTML (frappe-charts' tooltip) must reach it escaped:
// names come from test engines and users and may hold markup.

const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "`": "&#96;",
};

/**
 * `value` as HTML text: `& < > " ' \`` become entities, so the result shows the same characters
 * and can never open a tag, close an attribute or start an entity. Anything not a string (a
 * number, null) is made a string first; null and undefined give "".
 */
export function escapeHtml(value: unknown): string {
  if (value === null || value === undefined) return "";
  return String(value).replace(/[&<>"'`]/g, (c) => ENTITIES[c]);
}
