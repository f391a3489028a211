//! The scheduled report's mail (issue 29, item 1), pure: the summary of a report's rows
//! for its period against the previous period of the same length (totals; pass, warning
//! and failure rates with their change in points; the worst test cases and hours of the
//! day), its text and HTML in English or French, and the chart of the daily rates as a PNG
//! drawn here (stacked bars, a 5×7 bitmap font compiled in: nothing is fetched, and mail
//! clients show a PNG where they refuse SVG).

use std::collections::BTreeMap;
use std::io::Write;

use chrono::NaiveDate;

use super::report::Report;
use super::report_csv::ExportRow;
use super::report_schedule::Language;

/// Test cases and hours listed as the worst.
pub const WORST: usize = 5;

/// Runs by outcome: pass, warning, failure (failed and stopped).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub pass: u64,
    pub warn: u64,
    pub fail: u64,
}

impl Counts {
    pub fn total(&self) -> u64 {
        self.pass + self.warn + self.fail
    }

    fn add(&mut self, r: &ExportRow) {
        let [p, w, f, s] = r.counts;
        self.pass += p;
        self.warn += w;
        self.fail += f + s;
    }

    /// Percentages (pass, warning, failure); zeros without runs.
    pub fn rates(&self) -> [f64; 3] {
        let t = self.total();
        if t == 0 {
            return [0.0; 3];
        }
        [self.pass, self.warn, self.fail].map(|n| n as f64 * 100.0 / t as f64)
    }
}

/// A report's period summed up.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub from: NaiveDate,
    pub to: NaiveDate,
    pub totals: Counts,
    pub previous: Counts,
    /// Test cases by failures (most first; ties by name): name, counts.
    pub worst_cases: Vec<(String, Counts)>,
    /// Local hours of the day by failure rate (highest first): hour, counts.
    pub worst_hours: Vec<(u8, Counts)>,
    /// Each date of the period with its counts (dates without runs included).
    pub days: Vec<(NaiveDate, Counts)>,
    /// Runs of the period in maintenance windows, left out of every figure above (issue 28).
    pub maintenance: u64,
}

/// Sums `rows` (one per test case and hour; rows of segments are not to be given) of the
/// period `from..=to` against `previous` (the rows of the period before).
pub fn summarize(
    from: NaiveDate,
    to: NaiveDate,
    rows: &[ExportRow],
    previous: &[ExportRow],
) -> Summary {
    let mut totals = Counts::default();
    let mut cases: BTreeMap<(i64, &str), Counts> = BTreeMap::new();
    let mut hours: BTreeMap<u8, Counts> = BTreeMap::new();
    let mut days: BTreeMap<NaiveDate, Counts> = BTreeMap::new();
    let mut d = from;
    while d <= to {
        days.insert(d, Counts::default());
        d = d.succ_opt().unwrap_or(to + chrono::Duration::days(1));
    }
    for r in rows {
        totals.add(r);
        cases
            .entry((r.test_case_id, r.test_case_name.as_str()))
            .or_default()
            .add(r);
        hours.entry(r.hour).or_default().add(r);
        days.entry(r.date).or_default().add(r);
    }
    let mut prev = Counts::default();
    for r in previous {
        prev.add(r);
    }
    let mut worst_cases: Vec<(String, Counts)> = cases
        .into_iter()
        .filter(|(_, c)| c.fail > 0)
        .map(|((_, n), c)| (n.to_string(), c))
        .collect();
    worst_cases.sort_by(|a, b| b.1.fail.cmp(&a.1.fail).then_with(|| a.0.cmp(&b.0)));
    worst_cases.truncate(WORST);
    let mut worst_hours: Vec<(u8, Counts)> =
        hours.into_iter().filter(|(_, c)| c.fail > 0).collect();
    worst_hours.sort_by(|a, b| {
        b.1.rates()[2]
            .total_cmp(&a.1.rates()[2])
            .then_with(|| a.0.cmp(&b.0))
    });
    worst_hours.truncate(WORST);
    Summary {
        from,
        to,
        totals,
        previous: prev,
        worst_cases,
        worst_hours,
        days: days.into_iter().collect(),
        maintenance: 0,
    }
}

/// The period of the same length just before `from..=to`.
pub fn previous_period(from: NaiveDate, to: NaiveDate) -> (NaiveDate, NaiveDate) {
    let len = (to - from).num_days() + 1;
    (
        from - chrono::Duration::days(len),
        from - chrono::Duration::days(1),
    )
}

/// The words of the mail in one language.
struct Words {
    subject: &'static str,
    period: &'static str,
    from: &'static str,
    to: &'static str,
    runs: &'static str,
    previous: &'static str,
    pass: &'static str,
    warning: &'static str,
    failure: &'static str,
    points: &'static str,
    worst_cases: &'static str,
    worst_hours: &'static str,
    failures_of: &'static str,
    runs_word: &'static str,
    none: &'static str,
    open: &'static str,
    attached: &'static str,
    chart: &'static str,
    sent_by: &'static str,
}

const EN: Words = Words {
    subject: "cxwatch report",
    period: "Period",
    from: "",
    to: "to",
    runs: "Test runs",
    previous: "previous period",
    pass: "Pass",
    warning: "Warning",
    failure: "Failure",
    points: "pts",
    worst_cases: "Worst test cases",
    worst_hours: "Worst hours",
    failures_of: "failures of",
    runs_word: "runs",
    none: "No failures in this period.",
    open: "Open the report",
    attached: "The report's CSV is attached.",
    chart: "Daily pass, warning and failure rates",
    sent_by: "Sent by cxwatch on its schedule",
};

const FR: Words = Words {
    subject: "Rapport cxwatch",
    period: "Période",
    from: "du ",
    to: "au",
    runs: "Exécutions de test",
    previous: "période précédente",
    pass: "Réussite",
    warning: "Avertissement",
    failure: "Échec",
    points: "pts",
    worst_cases: "Cas de test les plus en échec",
    worst_hours: "Heures les plus en échec",
    failures_of: "échecs sur",
    runs_word: "exécutions",
    none: "Aucun échec sur cette période.",
    open: "Ouvrir le rapport",
    attached: "Le CSV du rapport est joint.",
    chart: "Taux quotidiens de réussite, d'avertissement et d'échec",
    sent_by: "Envoyé par cxwatch selon sa planification",
};

fn words(l: Language) -> &'static Words {
    match l {
        Language::En => &EN,
        Language::Fr => &FR,
    }
}

/// A number with 2 decimals: `12.50` in English, `12,50` in French.
fn num(l: Language, v: f64) -> String {
    let s = format!("{v:.2}");
    match l {
        Language::En => s,
        Language::Fr => s.replace('.', ","),
    }
}

/// A percentage: `12.50 %` / `12,50 %` (a narrow no-break space in French).
fn pct(l: Language, v: f64) -> String {
    match l {
        Language::En => format!("{}%", num(l, v)),
        Language::Fr => format!("{}\u{202f}%", num(l, v)),
    }
}

/// A change in points, signed: `+1.20 pts`, `−0.50 pts`, `0.00 pts`.
fn change(l: Language, v: f64) -> String {
    let w = words(l);
    let v = (v * 100.0).round() / 100.0;
    if v > 0.0 {
        format!("+{} {}", num(l, v), w.points)
    } else if v < 0.0 {
        format!("\u{2212}{} {}", num(l, -v), w.points)
    } else {
        format!("{} {}", num(l, 0.0), w.points)
    }
}

fn hour_range(h: u8) -> String {
    format!("{:02}:00–{:02}:00", h, (h + 1) % 24)
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The mail of a report: subject, text, HTML (the chart as `cid:{chart_cid}`).
pub struct ReportMail {
    pub subject: String,
    pub text: String,
    pub html: String,
}

/// The Content-ID of the chart in the HTML part.
pub const CHART_CID: &str = "chart@cxwatch";

/// Words the mail's lines are made of, shared by the text and the HTML.
struct Lines {
    title: String,
    period: String,
    runs: String,
    /// How many runs in maintenance windows were left out, when any were.
    maintenance: Option<String>,
    rates: [(String, &'static str, String, String); 3],
    cases: Vec<String>,
    hours: Vec<String>,
}

/// The console's note on runs left out (its catalogs' words, ui/src/locales).
fn left_out(l: Language, n: u64) -> String {
    match (l, n) {
        (Language::En, 1) => "1 run in a maintenance window is left out of these figures.".into(),
        (Language::En, n) => {
            format!("{n} runs in maintenance windows are left out of these figures.")
        }
        (Language::Fr, 1) => {
            "1 exécution en fenêtre de maintenance est exclue de ces chiffres.".into()
        }
        (Language::Fr, n) => {
            format!("{n} exécutions en fenêtres de maintenance sont exclues de ces chiffres.")
        }
    }
}

fn lines(l: Language, r: &Report, s: &Summary, tz: &str) -> Lines {
    let w = words(l);
    let colon = if l == Language::Fr { "\u{a0}:" } else { ":" };
    let now = s.totals.rates();
    let before = s.previous.rates();
    let colours = ["#2e7d32", "#ef6c00", "#c62828"];
    let names = [w.pass, w.warning, w.failure];
    let rates = [0, 1, 2].map(|i| {
        (
            names[i].to_string(),
            colours[i],
            pct(l, now[i]),
            if s.previous.total() > 0 {
                change(l, now[i] - before[i])
            } else {
                String::new()
            },
        )
    });
    Lines {
        title: format!("{} — {}, {}", r.name, r.report_type.name(), r.group_name),
        period: format!(
            "{}{colon} {}{} {} {} ({tz})",
            w.period, w.from, s.from, w.to, s.to
        ),
        runs: format!(
            "{}{colon} {} ({}{colon} {})",
            w.runs,
            s.totals.total(),
            w.previous,
            s.previous.total()
        ),
        maintenance: (s.maintenance > 0).then(|| left_out(l, s.maintenance)),
        rates,
        cases: s
            .worst_cases
            .iter()
            .map(|(n, c)| {
                format!(
                    "{n} — {} {} {} {} ({})",
                    c.fail,
                    w.failures_of,
                    c.total(),
                    w.runs_word,
                    pct(l, c.rates()[2])
                )
            })
            .collect(),
        hours: s
            .worst_hours
            .iter()
            .map(|(h, c)| {
                format!(
                    "{} — {} {} {} {} ({})",
                    hour_range(*h),
                    c.fail,
                    w.failures_of,
                    c.total(),
                    w.runs_word,
                    pct(l, c.rates()[2])
                )
            })
            .collect(),
    }
}

/// The mail of report `r` summed up in `s`, in `l`; `link` the report's page in the
/// console (empty: none); `tz` the site's zone's name.
pub fn compose(l: Language, r: &Report, s: &Summary, link: &str, tz: &str) -> ReportMail {
    let w = words(l);
    let x = lines(l, r, s, tz);
    let colon = if l == Language::Fr { "\u{a0}:" } else { ":" };
    let subject = format!("{}{colon} {} ({} – {})", w.subject, r.name, s.from, s.to);
    let mut text = format!("{}\n{}\n\n{}\n", x.title, x.period, x.runs);
    if let Some(m) = &x.maintenance {
        text.push_str(&format!("{m}\n"));
    }
    for (name, _, rate, ch) in &x.rates {
        if ch.is_empty() {
            text.push_str(&format!("{name}{colon} {rate}\n"));
        } else {
            text.push_str(&format!("{name}{colon} {rate} ({ch})\n"));
        }
    }
    text.push_str(&format!("\n{}{colon}\n", w.worst_cases));
    if x.cases.is_empty() {
        text.push_str(&format!("  {}\n", w.none));
    }
    for (i, c) in x.cases.iter().enumerate() {
        text.push_str(&format!("  {}. {c}\n", i + 1));
    }
    text.push_str(&format!("\n{}{colon}\n", w.worst_hours));
    if x.hours.is_empty() {
        text.push_str(&format!("  {}\n", w.none));
    }
    for h in &x.hours {
        text.push_str(&format!("  {h}\n"));
    }
    if !link.is_empty() {
        text.push_str(&format!("\n{}{colon} {link}\n", w.open));
    }
    text.push_str(&format!("{}\n\n— {}\n", w.attached, w.sent_by));

    let mut html = String::with_capacity(4096);
    html.push_str(&format!(
        "<!DOCTYPE html><html lang=\"{}\"><body style=\"font-family:Arial,Helvetica,sans-serif;color:#1f2933\">",
        l.as_str()
    ));
    html.push_str(&format!(
        "<h2 style=\"margin:0 0 4px\">{}</h2><p style=\"margin:0 0 12px;color:#52606d\">{}</p>",
        esc(&x.title),
        esc(&x.period)
    ));
    html.push_str(&format!("<p><strong>{}</strong></p>", esc(&x.runs)));
    if let Some(m) = &x.maintenance {
        html.push_str(&format!("<p style=\"color:#52606d\">{}</p>", esc(m)));
    }
    html.push_str("<table cellpadding=\"4\" style=\"border-collapse:collapse\">");
    for (name, colour, rate, ch) in &x.rates {
        html.push_str(&format!(
            "<tr><td><span style=\"display:inline-block;width:10px;height:10px;background:{colour}\"></span> {}</td><td style=\"text-align:right\"><strong>{}</strong></td><td style=\"color:#52606d\">{}</td></tr>",
            esc(name),
            esc(rate),
            esc(ch)
        ));
    }
    html.push_str("</table>");
    html.push_str(&format!(
        "<p><img src=\"cid:{CHART_CID}\" width=\"{CHART_W}\" height=\"{CHART_H}\" alt=\"{}\" style=\"max-width:100%;height:auto\"></p>",
        esc(w.chart)
    ));
    for (title, items) in [(w.worst_cases, &x.cases), (w.worst_hours, &x.hours)] {
        html.push_str(&format!(
            "<h3 style=\"margin:16px 0 4px\">{}</h3>",
            esc(title)
        ));
        if items.is_empty() {
            html.push_str(&format!("<p>{}</p>", esc(w.none)));
        } else {
            html.push_str("<ol>");
            for i in items {
                html.push_str(&format!("<li>{}</li>", esc(i)));
            }
            html.push_str("</ol>");
        }
    }
    if !link.is_empty() {
        html.push_str(&format!(
            "<p><a href=\"{0}\">{1}</a></p>",
            esc(link),
            esc(w.open)
        ));
    }
    html.push_str(&format!(
        "<p style=\"color:#52606d\">{}<br>— {}</p></body></html>",
        esc(w.attached),
        esc(w.sent_by)
    ));
    ReportMail {
        subject,
        text,
        html,
    }
}

// ---- The chart ------------------------------------------------------------------------

pub const CHART_W: u32 = 640;
pub const CHART_H: u32 = 240;
/// Colours of the bars: pass, warning, failure (the console's), days without runs, axes.
pub const PASS_RGB: [u8; 3] = [0x2e, 0x7d, 0x32];
pub const WARN_RGB: [u8; 3] = [0xef, 0x6c, 0x00];
pub const FAIL_RGB: [u8; 3] = [0xc6, 0x28, 0x28];
const EMPTY_RGB: [u8; 3] = [0xe4, 0xe7, 0xeb];
const GRID_RGB: [u8; 3] = [0xcb, 0xd2, 0xd9];
const TEXT_RGB: [u8; 3] = [0x3e, 0x4c, 0x59];
/// The plot's box inside the image.
pub const PLOT_LEFT: u32 = 44;
pub const PLOT_TOP: u32 = 10;
pub const PLOT_RIGHT: u32 = CHART_W - 10;
pub const PLOT_BOTTOM: u32 = CHART_H - 24;

/// 5×7 glyphs (rows top to bottom, 5 bits each, high bit left) of what the axes write.
fn glyph(c: char) -> [u8; 7] {
    match c {
        '0' => [0x0e, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0e],
        '1' => [0x04, 0x0c, 0x04, 0x04, 0x04, 0x04, 0x0e],
        '2' => [0x0e, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1f],
        '3' => [0x1f, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0e],
        '4' => [0x02, 0x06, 0x0a, 0x12, 0x1f, 0x02, 0x02],
        '5' => [0x1f, 0x10, 0x1e, 0x01, 0x01, 0x11, 0x0e],
        '6' => [0x06, 0x08, 0x10, 0x1e, 0x11, 0x11, 0x0e],
        '7' => [0x1f, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
        '8' => [0x0e, 0x11, 0x11, 0x0e, 0x11, 0x11, 0x0e],
        '9' => [0x0e, 0x11, 0x11, 0x0f, 0x01, 0x02, 0x0c],
        '%' => [0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03],
        '-' => [0x00, 0x00, 0x00, 0x1f, 0x00, 0x00, 0x00],
        '/' => [0x01, 0x01, 0x02, 0x04, 0x08, 0x10, 0x10],
        _ => [0; 7],
    }
}

struct Canvas {
    w: u32,
    h: u32,
    px: Vec<u8>,
}

impl Canvas {
    fn new(w: u32, h: u32) -> Canvas {
        Canvas {
            w,
            h,
            px: vec![0xff; (w * h * 3) as usize],
        }
    }

    fn rect(&mut self, x0: u32, y0: u32, x1: u32, y1: u32, rgb: [u8; 3]) {
        for y in y0.min(self.h)..y1.min(self.h) {
            for x in x0.min(self.w)..x1.min(self.w) {
                let i = ((y * self.w + x) * 3) as usize;
                self.px[i..i + 3].copy_from_slice(&rgb);
            }
        }
    }

    fn text(&mut self, x: u32, y: u32, s: &str, rgb: [u8; 3]) {
        for (k, c) in s.chars().enumerate() {
            let g = glyph(c);
            for (row, bits) in g.iter().enumerate() {
                for col in 0..5 {
                    if bits & (0x10 >> col) != 0 {
                        let px = x + k as u32 * 6 + col;
                        let py = y + row as u32;
                        self.rect(px, py, px + 1, py + 1, rgb);
                    }
                }
            }
        }
    }

    fn png(&self) -> Vec<u8> {
        fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
            out.extend_from_slice(&(data.len() as u32).to_be_bytes());
            out.extend_from_slice(kind);
            out.extend_from_slice(data);
            let mut h = crc32fast::Hasher::new();
            h.update(kind);
            h.update(data);
            out.extend_from_slice(&h.finalize().to_be_bytes());
        }
        let mut raw = Vec::with_capacity(((self.w * 3 + 1) * self.h) as usize);
        for y in 0..self.h {
            raw.push(0); // filter: none
            let start = (y * self.w * 3) as usize;
            raw.extend_from_slice(&self.px[start..start + (self.w * 3) as usize]);
        }
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        z.write_all(&raw).expect("writing to memory");
        let idat = z.finish().expect("writing to memory");
        let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
        let mut ihdr = Vec::with_capacity(13);
        ihdr.extend_from_slice(&self.w.to_be_bytes());
        ihdr.extend_from_slice(&self.h.to_be_bytes());
        ihdr.extend_from_slice(&[8, 2, 0, 0, 0]); // 8-bit RGB
        chunk(&mut out, b"IHDR", &ihdr);
        chunk(&mut out, b"IDAT", &idat);
        chunk(&mut out, b"IEND", &[]);
        out
    }
}

/// The x range `[x0, x1)` of day `i` of `n` in the plot.
pub fn bar_span(i: usize, n: usize) -> (u32, u32) {
    let width = PLOT_RIGHT - PLOT_LEFT;
    let n = n.max(1) as u32;
    let x0 = PLOT_LEFT + width * i as u32 / n;
    let x1 = PLOT_LEFT + width * (i as u32 + 1) / n;
    let gap = ((x1 - x0) / 5).min(6);
    (x0 + gap / 2 + u32::from(gap > 0), x1 - gap / 2)
}

/// The chart of the daily rates: one bar per day, stacked failure (bottom), warning,
/// pass (top), 0 to 100 %; a day without runs is a grey bar. PNG, 8-bit RGB.
pub fn chart_png(days: &[(NaiveDate, Counts)]) -> Vec<u8> {
    let mut c = Canvas::new(CHART_W, CHART_H);
    let plot_h = PLOT_BOTTOM - PLOT_TOP;
    for (pct, label) in [(0u32, "0%"), (50, "50%"), (100, "100%")] {
        let y = PLOT_BOTTOM - plot_h * pct / 100;
        c.rect(PLOT_LEFT - 3, y, PLOT_RIGHT, y + 1, GRID_RGB);
        let tw = label.chars().count() as u32 * 6;
        c.text(PLOT_LEFT - 6 - tw, y.saturating_sub(3), label, TEXT_RGB);
    }
    let n = days.len();
    // Date labels (MM/DD) that fit: at most one per 40 pixels.
    let every = ((n as u32 * 40) / (PLOT_RIGHT - PLOT_LEFT)).max(1) as usize;
    for (i, (date, k)) in days.iter().enumerate() {
        let (x0, x1) = bar_span(i, n);
        let t = k.total();
        let h = u64::from(plot_h);
        match (h * k.fail).checked_div(t) {
            None => c.rect(x0, PLOT_BOTTOM - plot_h, x1, PLOT_BOTTOM, EMPTY_RGB),
            Some(fail) => {
                let fail_h = fail as u32;
                let warn_h = (h * (k.fail + k.warn) / t) as u32 - fail_h;
                let pass_h = plot_h - fail_h - warn_h;
                let mut y = PLOT_BOTTOM;
                for (h, rgb) in [(fail_h, FAIL_RGB), (warn_h, WARN_RGB), (pass_h, PASS_RGB)] {
                    c.rect(x0, y - h, x1, y, rgb);
                    y -= h;
                }
            }
        }
        if i % every == 0 {
            let label = date.format("%m/%d").to_string();
            let mid = (x0 + x1) / 2;
            c.text(mid.saturating_sub(15), PLOT_BOTTOM + 8, &label, TEXT_RGB);
        }
    }
    c.png()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::report::{ReportType, Timeframe};
    use crate::domain::run::{Channel, RunType};

    fn row(date: &str, hour: u8, case: i64, counts: [u64; 4]) -> ExportRow {
        ExportRow {
            date: date.parse().unwrap(),
            hour,
            test_case_id: case,
            test_case_name: format!("Case {case}"),
            segment: None,
            counts,
            lat_n: 0,
            lat_sum: 0,
            mos_n: 0,
            mos_sum: 0,
        }
    }

    fn report() -> Report {
        Report {
            id: 4,
            name: "Billing weekly".into(),
            report_type: ReportType::TestCasePerformance,
            group_id: 1,
            group_name: "Billing".into(),
            channel: Channel::Voice,
            timeframe: Timeframe::LastWeek,
            custom: (None, None),
            run_type: RunType::Schedule,
            latency_warn: 0,
            latency_fail: 0,
            jira_ticket: None,
            modified_at: 0,
        }
    }

    #[test]
    fn the_summary_compares_with_the_previous_period() {
        let (from, to) = ("2026-11-16".parse().unwrap(), "2026-11-22".parse().unwrap());
        assert_eq!(
            previous_period(from, to),
            ("2026-11-09".parse().unwrap(), "2026-11-15".parse().unwrap())
        );
        let rows = [
            row("2026-11-16", 9, 1, [8, 1, 1, 0]),
            row("2026-11-16", 14, 2, [5, 0, 3, 2]),
            row("2026-11-18", 14, 1, [10, 0, 0, 0]),
        ];
        let prev = [row("2026-11-10", 9, 1, [18, 1, 1, 0])];
        let s = summarize(from, to, &rows, &prev);
        assert_eq!(
            s.totals,
            Counts {
                pass: 23,
                warn: 1,
                fail: 6
            }
        );
        assert_eq!(s.days.len(), 7);
        assert_eq!(s.days[1].1.total(), 0);
        assert_eq!(s.worst_cases[0].0, "Case 2");
        assert_eq!(s.worst_cases[0].1.fail, 5);
        assert_eq!(s.worst_hours[0].0, 14, "{:?}", s.worst_hours);
        let en = compose(
            Language::En,
            &report(),
            &s,
            "https://c.test/report/4",
            "America/Toronto",
        );
        assert_eq!(
            en.subject,
            "cxwatch report: Billing weekly (2026-11-16 – 2026-11-22)"
        );
        assert!(
            en.text.contains("Test runs: 30 (previous period: 20)"),
            "{}",
            en.text
        );
        // 23/30 = 76.67 % against 18/20 = 90 %: −13.33 points.
        assert!(
            en.text.contains("Pass: 76.67% (\u{2212}13.33 pts)"),
            "{}",
            en.text
        );
        assert!(
            en.text
                .contains("1. Case 2 — 5 failures of 10 runs (50.00%)"),
            "{}",
            en.text
        );
        assert!(en.text.contains("14:00–15:00"), "{}", en.text);
        assert!(en.html.contains("cid:chart@cxwatch"));
        assert!(en.html.contains("href=\"https://c.test/report/4\""));
        let fr = compose(Language::Fr, &report(), &s, "", "America/Toronto");
        assert_eq!(
            fr.subject,
            "Rapport cxwatch\u{a0}: Billing weekly (2026-11-16 – 2026-11-22)"
        );
        assert!(
            fr.text
                .contains("Réussite\u{a0}: 76,67\u{202f}% (\u{2212}13,33 pts)"),
            "{}",
            fr.text
        );
        assert!(
            fr.text
                .contains("Exécutions de test\u{a0}: 30 (période précédente\u{a0}: 20)"),
            "{}",
            fr.text
        );
        assert!(
            !fr.html.contains("href="),
            "no link without a public address"
        );
        // No note without runs in maintenance; with them, the console's note in each language.
        assert!(!en.text.contains("maintenance"), "{}", en.text);
        let mut m = s.clone();
        m.maintenance = 3;
        let en = compose(Language::En, &report(), &m, "", "America/Toronto");
        assert!(
            en.text.contains(
                "Test runs: 30 (previous period: 20)\n3 runs in maintenance windows are left out of these figures."
            ),
            "{}",
            en.text
        );
        assert!(en
            .html
            .contains("3 runs in maintenance windows are left out"));
        m.maintenance = 1;
        let fr = compose(Language::Fr, &report(), &m, "", "America/Toronto");
        assert!(
            fr.text
                .contains("1 exécution en fenêtre de maintenance est exclue de ces chiffres."),
            "{}",
            fr.text
        );
    }

    #[test]
    fn the_chart_is_a_png_of_stacked_daily_bars() {
        let days = vec![
            (
                "2026-11-16".parse().unwrap(),
                Counts {
                    pass: 50,
                    warn: 25,
                    fail: 25,
                },
            ),
            ("2026-11-17".parse().unwrap(), Counts::default()),
        ];
        let png = chart_png(&days);
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(&png[12..16], b"IHDR");
        assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), CHART_W);
        assert_eq!(u32::from_be_bytes(png[20..24].try_into().unwrap()), CHART_H);
        // Decode and look at the first bar: failure at the bottom, pass at the top.
        let len = u32::from_be_bytes(png[33..37].try_into().unwrap()) as usize;
        assert_eq!(&png[37..41], b"IDAT");
        let mut raw = Vec::new();
        use std::io::Read;
        flate2::read::ZlibDecoder::new(&png[41..41 + len])
            .read_to_end(&mut raw)
            .unwrap();
        let at = |x: u32, y: u32| {
            let i = (y * (CHART_W * 3 + 1) + 1 + x * 3) as usize;
            [raw[i], raw[i + 1], raw[i + 2]]
        };
        let (x0, x1) = bar_span(0, 2);
        let mid = (x0 + x1) / 2;
        assert_eq!(at(mid, PLOT_BOTTOM - 2), FAIL_RGB);
        // Failure is the bottom quarter, warning the next one (just below the middle).
        assert_eq!(at(mid, (PLOT_BOTTOM + PLOT_TOP) / 2 + 2), WARN_RGB);
        assert_eq!(at(mid, PLOT_TOP + 2), PASS_RGB);
        let (y0, y1) = bar_span(1, 2);
        assert_eq!(at((y0 + y1) / 2, PLOT_TOP + 2), EMPTY_RGB);
    }
}
