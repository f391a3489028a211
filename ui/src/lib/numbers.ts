// Decimal numbers as the reader's language writes them: '1.08' in English, '1,08' in French
// (spec §9 gives the decimals; Intl gives the separators).
const formats = new Map<string, Intl.NumberFormat>();

/** `n` with exactly `digits` decimals in `locale`. */
export function fixed(n: number, digits: number, locale: string): string {
  const key = `${locale}:${digits}`;
  let f = formats.get(key);
  if (!f) {
    f = new Intl.NumberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits });
    formats.set(key, f);
  }
  return f.format(n);
}
