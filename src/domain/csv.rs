//! The server's one CSV writer, and the one rule against formula injection.
//!
//! Every CSV the server writes goes through [`CsvWriter`]: the report exports of every type
//! and the runs attached to an auto ticket. A CSV a person uploads for a ticket goes through
//! [`neutralise_upload`] before it reaches Jira. Quoting is RFC 4180, done by the `csv`
//! crate: a field holding a comma, a double quote, a carriage return or a line feed is
//! quoted, its quotes doubled; lines end with CRLF.
//!
//! The formula rule (OWASP 'CSV Injection'): a text cell that starts with `=`, `+`, `-`, `@`,
//! a tab or a carriage return (or the full-width `＝`, `＋`, `－`, `＠`, which some
//! spreadsheets read the same way) gets a single quote `'` in front, so that a spreadsheet
//! shows it as text and never evaluates it. A cell that is a plain decimal number (`-12`,
//! `-0.5`) is a value, not a formula, and stays as it is, so negative numbers stay readable;
//! the numbers the server formats itself (counts, percentages, latencies, ids) are written
//! with [`CsvWriter::number`] and never prefixed. A cell that already starts with `'` is left
//! alone, so the rule can be applied twice without harm.

use std::borrow::Cow;
use std::fmt::Display;

/// The single quote put before a cell a spreadsheet would read as a formula.
pub const PREFIX: char = '\'';

/// UTF-8 byte-order mark, as a spreadsheet expects before a UTF-8 CSV.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Full-width forms of `=`, `+`, `-` and `@` in UTF-8 (U+FF1D, U+FF0B, U+FF0D, U+FF20).
const FULL_WIDTH: [&[u8]; 4] = [
    "\u{ff1d}".as_bytes(),
    "\u{ff0b}".as_bytes(),
    "\u{ff0d}".as_bytes(),
    "\u{ff20}".as_bytes(),
];

/// A decimal number with an optional leading minus: `-12`, `0.5`, `-3.25`.
fn is_plain_number(cell: &[u8]) -> bool {
    let digits = cell.strip_prefix(b"-").unwrap_or(cell);
    let (int, frac) = match digits.iter().position(|b| *b == b'.') {
        Some(i) => (&digits[..i], Some(&digits[i + 1..])),
        None => (digits, None),
    };
    !int.is_empty()
        && int.iter().all(u8::is_ascii_digit)
        && frac.is_none_or(|f| !f.is_empty() && f.iter().all(u8::is_ascii_digit))
}

/// Whether a spreadsheet could read `cell` as a formula (see the module's rule).
pub fn is_formula(cell: &[u8]) -> bool {
    match cell.first() {
        Some(b'=' | b'+' | b'-' | b'@' | b'\t' | b'\r') => !is_plain_number(cell),
        Some(_) => FULL_WIDTH.iter().any(|p| cell.starts_with(p)),
        None => false,
    }
}

/// `cell` as it goes into a CSV: with `'` in front when it could be read as a formula.
pub fn neutralise(cell: &str) -> Cow<'_, str> {
    if is_formula(cell.as_bytes()) {
        Cow::Owned(format!("{PREFIX}{cell}"))
    } else {
        Cow::Borrowed(cell)
    }
}

fn neutralise_bytes(cell: &[u8]) -> Cow<'_, [u8]> {
    if is_formula(cell) {
        let mut v = Vec::with_capacity(cell.len() + 1);
        v.push(PREFIX as u8);
        v.extend_from_slice(cell);
        Cow::Owned(v)
    } else {
        Cow::Borrowed(cell)
    }
}

/// Writes CSV lines into memory: text cells neutralised, numbers as they are, RFC 4180
/// quoting, CRLF line ends. Writing into memory cannot fail, so no method returns an error.
pub struct CsvWriter {
    w: csv::Writer<Vec<u8>>,
    buf: String,
}

impl Default for CsvWriter {
    fn default() -> Self {
        CsvWriter::new()
    }
}

impl CsvWriter {
    pub fn new() -> CsvWriter {
        CsvWriter::with_capacity(0)
    }

    /// A writer whose output starts with room for `bytes`.
    pub fn with_capacity(bytes: usize) -> CsvWriter {
        CsvWriter {
            w: csv::WriterBuilder::new()
                .has_headers(false)
                .flexible(true)
                .terminator(csv::Terminator::CRLF)
                .from_writer(Vec::with_capacity(bytes)),
            buf: String::new(),
        }
    }

    fn field(&mut self, bytes: &[u8]) {
        // Into a Vec: no I/O error is possible.
        let _ = self.w.write_field(bytes);
    }

    /// A text cell (anything that may come from outside: names, statuses, labels),
    /// neutralised when a spreadsheet could read it as a formula.
    pub fn text(&mut self, cell: &str) -> &mut Self {
        let c = neutralise(cell);
        self.field(c.as_bytes());
        self
    }

    /// A value the server formats itself (a count, a percentage, an id, a date): written as
    /// it is, so that a negative number stays a number.
    pub fn number(&mut self, value: impl Display) -> &mut Self {
        use std::fmt::Write;
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        let _ = write!(buf, "{value}");
        self.field(buf.as_bytes());
        self.buf = buf;
        self
    }

    /// An empty cell.
    pub fn empty(&mut self) -> &mut Self {
        self.field(b"");
        self
    }

    /// A whole line of text cells.
    pub fn line<'a>(&mut self, cells: impl IntoIterator<Item = &'a str>) {
        for c in cells {
            self.text(c);
        }
        self.end();
    }

    /// Ends the line (CRLF).
    pub fn end(&mut self) {
        let _ = self.w.write_record(None::<&[u8]>);
    }

    /// Everything written so far.
    pub fn into_bytes(self) -> Vec<u8> {
        self.w
            .into_inner()
            .map_err(|e| e.into_error())
            .unwrap_or_default()
    }
}

/// A CSV file someone uploads (a ticket's attachment), made safe to pass on: unchanged, byte
/// for byte, when no cell could be read as a formula; otherwise parsed (RFC 4180, rows of
/// any length) and written again with those cells neutralised, keeping a leading byte-order
/// mark. `Err` when it is not CSV that can be read.
pub fn neutralise_upload(bytes: &[u8]) -> Result<Cow<'_, [u8]>, csv::Error> {
    let (bom, body) = match bytes.strip_prefix(BOM) {
        Some(rest) => (true, rest),
        None => (false, bytes),
    };
    let reader = || {
        csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(body)
    };
    let mut any = false;
    for record in reader().byte_records() {
        if record?.iter().any(is_formula) {
            any = true;
            break;
        }
    }
    if !any {
        return Ok(Cow::Borrowed(bytes));
    }
    let mut out = CsvWriter::with_capacity(bytes.len() + 64);
    for record in reader().byte_records() {
        for cell in record?.iter() {
            let c = neutralise_bytes(cell);
            out.field(&c);
        }
        out.end();
    }
    let mut v = out.into_bytes();
    if bom {
        v.splice(0..0, BOM.iter().copied());
    }
    Ok(Cow::Owned(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(cells: &[&str]) -> String {
        let mut w = CsvWriter::new();
        w.line(cells.iter().copied());
        String::from_utf8(w.into_bytes()).unwrap()
    }

    #[test]
    fn every_formula_prefix_is_neutralised() {
        for (cell, want) in [
            ("=1+1", "'=1+1"),
            ("+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"),
            ("-2+3+cmd|' /C calc'!A0", "'-2+3+cmd|' /C calc'!A0"),
            ("@SUM(1+1)", "'@SUM(1+1)"),
            ("\tx", "'\tx"),
            ("\r=1", "'\r=1"),
            ("\u{ff1d}1+1", "'\u{ff1d}1+1"),
            ("\u{ff0b}1", "'\u{ff0b}1"),
            ("\u{ff0d}1", "'\u{ff0d}1"),
            ("\u{ff20}SUM(1)", "'\u{ff20}SUM(1)"),
            ("-", "'-"),
            ("--1", "'--1"),
            ("-1.", "'-1."),
            ("-1e5", "'-1e5"),
            ("- 1", "'- 1"),
        ] {
            assert_eq!(neutralise(cell), want, "{cell:?}");
            assert!(is_formula(cell.as_bytes()), "{cell:?}");
        }
    }

    #[test]
    fn plain_text_and_numbers_stay_as_they_are() {
        for cell in [
            "",
            "Billing IVR",
            "a=b",
            "1+1",
            " =1",
            "'=1+1",
            "-12",
            "-0.5",
            "12.25",
            "0",
            "é=1",
        ] {
            assert!(matches!(neutralise(cell), Cow::Borrowed(_)), "{cell:?}");
            assert!(!is_formula(cell.as_bytes()), "{cell:?}");
        }
        // Neutralising twice changes nothing more.
        let once = neutralise("=1").into_owned();
        assert_eq!(neutralise(&once), once);
    }

    #[test]
    fn quoting_follows_rfc_4180() {
        assert_eq!(line(&["a", "b c", ""]), "a,b c,\r\n");
        assert_eq!(line(&["a,b"]), "\"a,b\"\r\n");
        assert_eq!(line(&["say \"hi\""]), "\"say \"\"hi\"\"\"\r\n");
        assert_eq!(line(&["two\nlines"]), "\"two\nlines\"\r\n");
        assert_eq!(line(&["two\r\nlines"]), "\"two\r\nlines\"\r\n");
        // Neutralised and quoted: the quote goes inside the field.
        assert_eq!(
            line(&["=HYPERLINK(\"http://x\",\"y\")"]),
            "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"\r\n"
        );
        assert_eq!(line(&["\r=1"]), "\"'\r=1\"\r\n");
        assert_eq!(line(&["\tx"]), "'\tx\r\n");
    }

    #[test]
    fn numbers_are_never_prefixed() {
        let mut w = CsvWriter::new();
        w.number(-5).number("-2.50").number(7u64).empty().text("-5");
        w.end();
        assert_eq!(
            String::from_utf8(w.into_bytes()).unwrap(),
            "-5,-2.50,7,,-5\r\n"
        );
    }

    #[test]
    fn uploads_pass_unchanged_unless_a_cell_is_a_formula() {
        let safe = "runId,status\n101,\"fail, hard\"\n102,-3\n";
        assert!(matches!(
            neutralise_upload(safe.as_bytes()).unwrap(),
            Cow::Borrowed(_)
        ));
        let hostile = "\u{feff}runId,name\n1,\"=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"\n2,@SUM(1+1),extra\n3,-2\n";
        let out = neutralise_upload(hostile.as_bytes()).unwrap();
        assert_eq!(
            String::from_utf8(out.into_owned()).unwrap(),
            "\u{feff}runId,name\r\n1,\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"\r\n2,'@SUM(1+1),extra\r\n3,-2\r\n"
        );
        // Bytes that are not UTF-8 are kept as they are.
        let latin1 = b"name\n=caf\xe9\n";
        assert_eq!(
            neutralise_upload(latin1).unwrap().as_ref(),
            b"name\r\n'=caf\xe9\r\n"
        );
    }
}
