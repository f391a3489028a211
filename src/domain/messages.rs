//! The console's message catalogs on the server: `ui/src/locales/{en,fr}/messages.po`, the
//! files Lingui extracts from the UI's sources, compiled in and read by message id (the
//! English message, as Lingui writes it). The report mail takes its words from here, so the
//! console and the mail say the same thing in each language and a translation is made once.
//! The mail's own messages are defined in `ui/src/lib/mailMessages.ts`, where the extractor
//! sees them and keeps them.
//!
//! Messages are ICU MessageFormat as Lingui writes them: `{name}` arguments and
//! `{n, plural, one {# run} other {# runs}}` (exact `=N` branches first, then the CLDR
//! category of the language, then `other`; `#` is the number). The plural categories are
//! the CLDR rules of the two languages for whole numbers, written here (see
//! [`plural_category`]): English 'one' is 1; French 'one' is 0 and 1, 'many' a non-zero
//! multiple of a million.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::report_schedule::Language;

const EN_PO: &str = include_str!("../../ui/src/locales/en/messages.po");
const FR_PO: &str = include_str!("../../ui/src/locales/fr/messages.po");

/// An argument of a message.
#[derive(Debug, Clone, Copy)]
pub enum Arg<'a> {
    Str(&'a str),
    /// A count: selects a plural branch; written with the language's digit grouping.
    Num(u64),
}

fn catalog(l: Language) -> &'static HashMap<String, String> {
    static EN: OnceLock<HashMap<String, String>> = OnceLock::new();
    static FR: OnceLock<HashMap<String, String>> = OnceLock::new();
    match l {
        Language::En => EN.get_or_init(|| parse_po(EN_PO)),
        Language::Fr => FR.get_or_init(|| parse_po(FR_PO)),
    }
}

/// Whether the catalog of `l` has a translation of `id` (not empty).
pub fn has(l: Language, id: &str) -> bool {
    catalog(l).get(id).is_some_and(|s| !s.is_empty())
}

/// Message `id` in `l` with `args`. A message missing from a catalog, or left empty there,
/// falls back to English and then to the id itself, as the console's Lingui does
/// (`fallbackLocales`); a test holds every id the mail uses to both catalogs.
pub fn t(l: Language, id: &str, args: &[(&str, Arg)]) -> String {
    let pattern = [l, Language::En]
        .into_iter()
        .find_map(|l| catalog(l).get(id).filter(|s| !s.is_empty()))
        .map_or(id, String::as_str);
    format(l, pattern, args)
}

/// The `msgid` → `msgstr` pairs of a PO file (continued lines joined, escapes read; the
/// header, with the empty id, left out).
pub fn parse_po(text: &str) -> HashMap<String, String> {
    #[derive(PartialEq)]
    enum Field {
        None,
        Id,
        Str,
    }
    let mut out = HashMap::new();
    let (mut id, mut msg, mut field) = (String::new(), String::new(), Field::None);
    let mut flush = |id: &mut String, msg: &mut String| {
        if !id.is_empty() {
            out.insert(std::mem::take(id), std::mem::take(msg));
        }
        id.clear();
        msg.clear();
    };
    for line in text.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("msgid ") {
            flush(&mut id, &mut msg);
            id = unquote(rest);
            field = Field::Id;
        } else if let Some(rest) = line.strip_prefix("msgstr ") {
            msg = unquote(rest);
            field = Field::Str;
        } else if line.starts_with('"') {
            match field {
                Field::Id => id.push_str(&unquote(line)),
                Field::Str => msg.push_str(&unquote(line)),
                Field::None => {}
            }
        } else if line.is_empty() || line.starts_with('#') {
            field = Field::None;
        }
    }
    flush(&mut id, &mut msg);
    out
}

/// A PO string's text: `"a \"b\"\n"` → `a "b"` and a new line.
fn unquote(s: &str) -> String {
    let s = s.trim();
    let s = s.strip_prefix('"').unwrap_or(s);
    let s = s.strip_suffix('"').unwrap_or(s);
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some(o) => out.push(o),
            None => {}
        }
    }
    out
}

/// The CLDR plural category of the whole number `n` in `l`: `one`, `many` or `other`.
pub fn plural_category(l: Language, n: u64) -> &'static str {
    match l {
        Language::En if n == 1 => "one",
        Language::En => "other",
        Language::Fr if n <= 1 => "one",
        Language::Fr if n.is_multiple_of(1_000_000) => "many",
        Language::Fr => "other",
    }
}

/// `n` with the language's digit grouping, as the console's `Intl.NumberFormat` writes it:
/// `12,345` in English, `12 345` (a narrow no-break space) in French.
pub fn count(l: Language, n: u64) -> String {
    let digits = n.to_string();
    let sep = match l {
        Language::En => ",",
        Language::Fr => "\u{202f}",
    };
    let mut out = String::with_capacity(digits.len() + 8);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push_str(sep);
        }
        out.push(c);
    }
    out
}

/// Formats an ICU message: arguments, plural branches, `#`, and ICU's apostrophe quoting.
pub fn format(l: Language, pattern: &str, args: &[(&str, Arg)]) -> String {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 16);
    write_part(l, &chars, args, None, &mut out);
    out
}

/// Writes `p` (a message or a plural branch's text; `hash` the branch's number).
fn write_part(l: Language, p: &[char], args: &[(&str, Arg)], hash: Option<u64>, out: &mut String) {
    let mut i = 0;
    while i < p.len() {
        match p[i] {
            '\'' => {
                // '' is an apostrophe; '{…' quotes up to the next lone apostrophe; else literal.
                if p.get(i + 1) == Some(&'\'') {
                    out.push('\'');
                    i += 2;
                } else if matches!(p.get(i + 1), Some('{' | '}'))
                    || (hash.is_some() && p.get(i + 1) == Some(&'#'))
                {
                    i += 1;
                    while i < p.len() {
                        if p[i] == '\'' {
                            if p.get(i + 1) == Some(&'\'') {
                                out.push('\'');
                                i += 2;
                                continue;
                            }
                            i += 1;
                            break;
                        }
                        out.push(p[i]);
                        i += 1;
                    }
                } else {
                    out.push('\'');
                    i += 1;
                }
            }
            '#' if hash.is_some() => {
                out.push_str(&count(l, hash.unwrap_or_default()));
                i += 1;
            }
            '{' => {
                let end = closing(p, i);
                write_argument(l, &p[i + 1..end], args, out);
                i = end + 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
}

/// The index of the `}` closing the `{` at `open` (or the end).
fn closing(p: &[char], open: usize) -> usize {
    let mut depth = 0usize;
    for (k, c) in p.iter().enumerate().skip(open) {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return k;
                }
            }
            _ => {}
        }
    }
    p.len()
}

/// Writes an argument: `name` or `name, plural, branches`.
fn write_argument(l: Language, inner: &[char], args: &[(&str, Arg)], out: &mut String) {
    let text: String = inner.iter().collect();
    let mut parts = text.splitn(3, ',');
    let name = parts.next().unwrap_or("").trim();
    let kind = parts.next().map(str::trim);
    let value = args.iter().find(|(n, _)| *n == name).map(|(_, v)| *v);
    match (kind, value) {
        (None, Some(Arg::Str(s))) => out.push_str(s),
        (None, Some(Arg::Num(n))) => out.push_str(&count(l, n)),
        (Some("plural"), Some(v)) => {
            let n = match v {
                Arg::Num(n) => n,
                Arg::Str(s) => s.parse().unwrap_or_default(),
            };
            let branches = parts.next().unwrap_or("");
            let branch = plural_branch(l, branches, n);
            let chars: Vec<char> = branch.chars().collect();
            write_part(l, &chars, args, Some(n), out);
        }
        // An argument not given (or a kind not used here) is written as the message has it.
        _ => {
            out.push('{');
            out.push_str(&text);
            out.push('}');
        }
    }
}

/// The text of the branch a plural argument takes for `n`.
fn plural_branch(l: Language, branches: &str, n: u64) -> String {
    let chars: Vec<char> = branches.chars().collect();
    let mut found: Vec<(String, String)> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let start = i;
        while i < chars.len() && chars[i] != '{' {
            i += 1;
        }
        let key: String = chars[start..i]
            .iter()
            .collect::<String>()
            .trim()
            .to_string();
        if i >= chars.len() {
            break;
        }
        let end = closing(&chars, i);
        let body: String = chars[i + 1..end.min(chars.len())].iter().collect();
        found.push((key, body));
        i = end + 1;
    }
    let exact = format!("={n}");
    let category = plural_category(l, n);
    [exact.as_str(), category, "other"]
        .iter()
        .find_map(|k| found.iter().find(|(key, _)| key == k))
        .map(|(_, body)| body.clone())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use Language::{En, Fr};

    #[test]
    fn the_plural_categories_are_cldrs() {
        assert_eq!(plural_category(En, 0), "other");
        assert_eq!(plural_category(En, 1), "one");
        assert_eq!(plural_category(En, 2), "other");
        assert_eq!(plural_category(Fr, 0), "one");
        assert_eq!(plural_category(Fr, 1), "one");
        assert_eq!(plural_category(Fr, 2), "other");
        assert_eq!(plural_category(Fr, 1_000_000), "many");
        assert_eq!(plural_category(Fr, 2_000_001), "other");
    }

    #[test]
    fn icu_messages_are_formatted_as_lingui_does() {
        let runs = "{n, plural, one {# run} other {# runs}}";
        assert_eq!(format(En, runs, &[("n", Arg::Num(1))]), "1 run");
        assert_eq!(format(En, runs, &[("n", Arg::Num(0))]), "0 runs");
        assert_eq!(format(En, runs, &[("n", Arg::Num(12345))]), "12,345 runs");
        let fr = "{n, plural, one {# exécution} other {# exécutions}}";
        assert_eq!(format(Fr, fr, &[("n", Arg::Num(0))]), "0 exécution");
        assert_eq!(format(Fr, fr, &[("n", Arg::Num(1))]), "1 exécution");
        assert_eq!(
            format(Fr, fr, &[("n", Arg::Num(1234))]),
            "1\u{202f}234 exécutions"
        );
        // Many falls back to other when the message has no such branch.
        assert_eq!(
            format(Fr, fr, &[("n", Arg::Num(1_000_000))]),
            "1\u{202f}000\u{202f}000 exécutions"
        );
        assert_eq!(
            format(
                En,
                "{n, plural, =0 {none} one {# run} other {# runs}}",
                &[("n", Arg::Num(0))]
            ),
            "none"
        );
        // Arguments inside branches, and ICU's apostrophes.
        assert_eq!(
            format(
                En,
                "{a} — {n, plural, one {# of {b}} other {# of {b}}} '{x}' it's ''q''",
                &[
                    ("a", Arg::Str("A")),
                    ("b", Arg::Str("B")),
                    ("n", Arg::Num(2))
                ]
            ),
            "A — 2 of B {x} it's 'q'"
        );
        assert_eq!(format(En, "{missing}", &[]), "{missing}");
    }

    #[test]
    fn po_files_are_read_by_message_id() {
        let po = "msgid \"\"\nmsgstr \"\"\n\"Language: fr\\n\"\n\n#: src/a.tsx\nmsgid \"Pass\"\nmsgstr \"Réussite\"\n\nmsgid \"\"\n\"a \\\"long\\\" \"\n\"one\"\nmsgstr \"\"\n\"une \"\n\"longue\"\n";
        let m = parse_po(po);
        assert_eq!(m.len(), 2, "{m:?}");
        assert_eq!(m["Pass"], "Réussite");
        assert_eq!(m["a \"long\" one"], "une longue");
        // The compiled-in catalogs are the console's.
        assert_eq!(t(Fr, "Pass", &[]), "Réussite");
        assert_eq!(t(En, "Pass", &[]), "Pass");
        assert_eq!(t(Fr, "not a message id", &[]), "not a message id");
    }
}
