// One date format everywhere (the date field, the times in the modals, the run lists and the run
// detail), in both languages: the spec's yyyy/MM/dd (§9 'Date format in runs'), never the US
// order a browser's own date input shows. The locale parameter stays so a language with another
// order can be given one in `dateOrder`. Pure, tested beside.

export type DateOrder = "ymd" | "dmy";

/** The order of a date's parts in the interface language: the spec's for both of ours. */
export function dateOrder(_locale: string): DateOrder {
  return "ymd";
}

/** 'yyyy/MM/dd' or 'dd/MM/yyyy' of the parts of a date. */
export function joinDate(year: string, month: string, day: string, locale: string): string {
  return dateOrder(locale) === "dmy" ? `${day}/${month}/${year}` : `${year}/${month}/${day}`;
}

/** An ISO date (YYYY-MM-DD) as the language writes it; '' for anything else. */
export function formatDateField(iso: string, locale: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  return m ? joinDate(m[1], m[2], m[3], locale) : "";
}

/**
 * What a person typed, in the language's order (separators '/', '-', '.' or spaces; one-digit
 * day and month accepted), as an ISO date; null when it is not a real date.
 */
export function parseDateField(text: string, locale: string): string | null {
  const parts = text.trim().split(/[\s/.-]+/);
  if (parts.length !== 3 || parts.some((p) => !/^\d+$/.test(p))) return null;
  const [y, m, d] = dateOrder(locale) === "dmy" ? [parts[2], parts[1], parts[0]] : parts;
  if (y.length !== 4 || m.length > 2 || d.length > 2) return null;
  const year = Number(y);
  const month = Number(m);
  const day = Number(d);
  const probe = new Date(Date.UTC(year, month - 1, day));
  if (probe.getUTCFullYear() !== year || probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day) return null;
  return `${y}-${m.padStart(2, "0")}-${d.padStart(2, "0")}`;
}
