//! The scheduled report's mail, pure: the summary of a report's rows
//! for its period against the previous period of the same length (totals; pass, warning
//! and failure rates with their change in points; the worst test cases and hours of the
//! day), and its text and HTML in English or French. The words come from the console's
//! catalogs (`super::messages`); the HTML is the askama template
//! `templates/report_mail.html`, which escapes every value. The chart of the daily rates is
//! drawn outside the domain (`notify::report_chart`) and shown by Content-ID.

use std::collections::BTreeMap;

use askama::Template;
use chrono::NaiveDate;

use super::messages::{t, Arg};
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
    /// Runs of the period in maintenance windows, left out of every figure above.
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

/// The message ids the mail uses (`ui/src/lib/mailMessages.ts` defines those of its own;
/// the others are the console's).
pub mod ids {
    pub const SUBJECT: &str = "cxwatch report: {name} ({from} – {to})";
    pub const PERIOD: &str = "Period: {from} to {to} ({zone})";
    pub const RUNS: &str = "Test runs: {runs} (previous period: {previous})";
    pub const LABELLED: &str = "{label}: {value}";
    pub const POINTS: &str = "{points} pts";
    pub const WORST_CASES: &str = "Worst test cases";
    pub const WORST_HOURS: &str = "Worst hours";
    pub const FAILURES_OF: &str = "{name} — {failures, plural, one {# failure} other {# failures}} of {runs, plural, one {# run} other {# runs}} ({rate})";
    pub const NO_FAILURES: &str = "No failures in this period.";
    pub const NO_RUNS: &str = "No runs in this period.";
    pub const NO_DATA: &str = "No data";
    pub const OPEN: &str = "Open the report";
    pub const ATTACHED: &str = "The report's CSV is attached.";
    pub const CHART: &str = "Daily pass, warning and failure rates";
    pub const SENT_BY_SCHEDULE: &str = "Sent by cxwatch on the report's schedule.";
    pub const SENT_NOW: &str = "A copy sent now from the console at the request of {user}.";
    pub const SHORT: &str =
        "{name}: {runs, plural, one {# run} other {# runs}}, pass {pass}, failure {failure}";
    /// The console's.
    pub const PASS: &str = "Pass";
    pub const WARNING: &str = "Warning";
    pub const FAILURE: &str = "Failure";
    pub const LEFT_OUT: &str = "{n, plural, one {# run in a maintenance window is left out of these figures.} other {# runs in maintenance windows are left out of these figures.}}";

    /// Every id above, and the report types' names.
    pub const ALL: &[&str] = &[
        SUBJECT,
        PERIOD,
        RUNS,
        LABELLED,
        POINTS,
        WORST_CASES,
        WORST_HOURS,
        FAILURES_OF,
        NO_FAILURES,
        NO_RUNS,
        NO_DATA,
        OPEN,
        ATTACHED,
        CHART,
        SENT_BY_SCHEDULE,
        SENT_NOW,
        SHORT,
        PASS,
        WARNING,
        FAILURE,
        LEFT_OUT,
    ];
}

/// Why a mail is sent: at a slot of the report's schedule, or as a copy someone asked for
/// ('Send now'), which must not say it came on the schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    Schedule,
    /// Asked by this user (their user name).
    Copy(String),
}

/// A number with 2 decimals: `12.50` in English, `12,50` in French.
pub fn num(l: Language, v: f64) -> String {
    let s = format!("{v:.2}");
    match l {
        Language::En => s,
        Language::Fr => s.replace('.', ","),
    }
}

/// A percentage: `12.50%` / `12,50 %` (a narrow no-break space in French).
pub fn pct(l: Language, v: f64) -> String {
    match l {
        Language::En => format!("{}%", num(l, v)),
        Language::Fr => format!("{}\u{202f}%", num(l, v)),
    }
}

/// A change in points, signed: `+1.20 pts`, `−0.50 pts`, `0.00 pts`.
fn change(l: Language, v: f64) -> String {
    let v = (v * 100.0).round() / 100.0;
    let points = if v > 0.0 {
        format!("+{}", num(l, v))
    } else if v < 0.0 {
        format!("\u{2212}{}", num(l, -v))
    } else {
        num(l, 0.0)
    };
    t(l, ids::POINTS, &[("points", Arg::Str(&points))])
}

fn hour_range(h: u8) -> String {
    format!("{:02}:00–{:02}:00", h, (h + 1) % 24)
}

/// `label: value` with the language's colon.
fn labelled(l: Language, label: &str, value: &str) -> String {
    t(
        l,
        ids::LABELLED,
        &[("label", Arg::Str(label)), ("value", Arg::Str(value))],
    )
}

/// The mail of a report: subject, text, HTML (the chart as `cid:{CHART_CID}`).
pub struct ReportMail {
    pub subject: String,
    pub text: String,
    pub html: String,
}

/// The Content-ID of the chart in the HTML part.
pub const CHART_CID: &str = "chart@cxwatch";
/// The chart's size in pixels.
pub const CHART_W: u32 = 640;
pub const CHART_H: u32 = 240;

/// One of the three rates.
struct Rate {
    label: String,
    colour: &'static str,
    rate: String,
    /// Against the previous period (empty when it had no runs).
    change: String,
}

/// A list of the worst, with its title.
struct Section {
    title: String,
    items: Vec<String>,
}

/// The HTML part; every `{{ }}` is escaped (askama's HTML escaper: `& < > " '`).
#[derive(Template)]
#[template(path = "report_mail.html")]
struct Html<'a> {
    lang: &'a str,
    title: &'a str,
    period: &'a str,
    runs: &'a str,
    maintenance: Option<&'a str>,
    /// 'No runs in this period.' in place of the rates.
    no_runs: Option<&'a str>,
    rates: &'a [Rate],
    chart_alt: &'a str,
    chart_cid: &'a str,
    chart_w: u32,
    chart_h: u32,
    sections: &'a [Section],
    none: &'a str,
    link: &'a str,
    open: &'a str,
    attached: &'a str,
    footer: &'a str,
}

/// The report type's name in `l` (the console's labels).
pub fn type_name(l: Language, r: &Report) -> String {
    t(l, r.report_type.name(), &[])
}

/// The line of a test case or an hour: `name — 5 failures of 10 runs (50.00%)`.
fn failures_of(l: Language, name: &str, c: &Counts) -> String {
    let rate = pct(l, c.rates()[2]);
    t(
        l,
        ids::FAILURES_OF,
        &[
            ("name", Arg::Str(name)),
            ("failures", Arg::Num(c.fail)),
            ("runs", Arg::Num(c.total())),
            ("rate", Arg::Str(&rate)),
        ],
    )
}

/// The one line SMS, voice and short texts carry: name, runs, pass and failure rates.
pub fn short_line(l: Language, r: &Report, s: &Summary) -> String {
    let rates = s.totals.rates();
    let (pass, failure) = (pct(l, rates[0]), pct(l, rates[2]));
    t(
        l,
        ids::SHORT,
        &[
            ("name", Arg::Str(&r.name)),
            ("runs", Arg::Num(s.totals.total())),
            ("pass", Arg::Str(&pass)),
            ("failure", Arg::Str(&failure)),
        ],
    )
}

/// The mail of report `r` summed up in `s`, in `l`; `link` the report's page in the
/// console (empty: none); `tz` the site's zone's name; `origin` why it is sent.
pub fn compose(
    l: Language,
    r: &Report,
    s: &Summary,
    link: &str,
    tz: &str,
    origin: &Origin,
) -> ReportMail {
    let (from, to) = (s.from.to_string(), s.to.to_string());
    let subject = t(
        l,
        ids::SUBJECT,
        &[
            ("name", Arg::Str(&r.name)),
            ("from", Arg::Str(&from)),
            ("to", Arg::Str(&to)),
        ],
    );
    let title = format!("{} — {}, {}", r.name, type_name(l, r), r.group_name);
    let period = t(
        l,
        ids::PERIOD,
        &[
            ("from", Arg::Str(&from)),
            ("to", Arg::Str(&to)),
            ("zone", Arg::Str(tz)),
        ],
    );
    let runs = t(
        l,
        ids::RUNS,
        &[
            ("runs", Arg::Num(s.totals.total())),
            ("previous", Arg::Num(s.previous.total())),
        ],
    );
    let maintenance =
        (s.maintenance > 0).then(|| t(l, ids::LEFT_OUT, &[("n", Arg::Num(s.maintenance))]));
    let no_runs = (s.totals.total() == 0).then(|| t(l, ids::NO_RUNS, &[]));
    let now = s.totals.rates();
    let before = s.previous.rates();
    let rates: Vec<Rate> = [
        (ids::PASS, "#2e7d32"),
        (ids::WARNING, "#ef6c00"),
        (ids::FAILURE, "#c62828"),
    ]
    .iter()
    .enumerate()
    .map(|(i, (id, colour))| Rate {
        label: t(l, id, &[]),
        colour,
        rate: pct(l, now[i]),
        change: if s.previous.total() > 0 {
            change(l, now[i] - before[i])
        } else {
            String::new()
        },
    })
    .collect();
    let sections = [
        Section {
            title: t(l, ids::WORST_CASES, &[]),
            items: s
                .worst_cases
                .iter()
                .map(|(n, c)| failures_of(l, n, c))
                .collect(),
        },
        Section {
            title: t(l, ids::WORST_HOURS, &[]),
            items: s
                .worst_hours
                .iter()
                .map(|(h, c)| failures_of(l, &hour_range(*h), c))
                .collect(),
        },
    ];
    let none = t(l, ids::NO_FAILURES, &[]);
    let open = t(l, ids::OPEN, &[]);
    let attached = t(l, ids::ATTACHED, &[]);
    let footer = match origin {
        Origin::Schedule => t(l, ids::SENT_BY_SCHEDULE, &[]),
        Origin::Copy(user) => t(l, ids::SENT_NOW, &[("user", Arg::Str(user))]),
    };

    // The text part: the same lines, plain.
    let mut text = format!("{title}\n{period}\n\n{runs}\n");
    if let Some(m) = &maintenance {
        text.push_str(&format!("{m}\n"));
    }
    match &no_runs {
        Some(none) => text.push_str(&format!("{none}\n")),
        None => {
            for r in &rates {
                let value = if r.change.is_empty() {
                    r.rate.clone()
                } else {
                    format!("{} ({})", r.rate, r.change)
                };
                text.push_str(&format!("{}\n", labelled(l, &r.label, &value)));
            }
        }
    }
    for sec in &sections {
        text.push_str(&format!("\n{}\n", labelled(l, &sec.title, "").trim_end()));
        if sec.items.is_empty() {
            text.push_str(&format!("  {none}\n"));
        }
        for (i, item) in sec.items.iter().enumerate() {
            text.push_str(&format!("  {}. {item}\n", i + 1));
        }
    }
    if !link.is_empty() {
        text.push_str(&format!("\n{}\n", labelled(l, &open, link)));
    }
    text.push_str(&format!("{attached}\n\n— {footer}\n"));

    let html = Html {
        lang: l.as_str(),
        title: &title,
        period: &period,
        runs: &runs,
        maintenance: maintenance.as_deref(),
        no_runs: no_runs.as_deref(),
        rates: &rates,
        chart_alt: &t(l, ids::CHART, &[]),
        chart_cid: CHART_CID,
        chart_w: CHART_W,
        chart_h: CHART_H,
        sections: &sections,
        none: &none,
        link,
        open: &open,
        attached: &attached,
        footer: &footer,
    }
    .render()
    // Rendering writes to a String with Display values: it cannot fail.
    .unwrap_or_default();
    ReportMail {
        subject,
        text,
        html,
    }
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
            &Origin::Schedule,
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
        let fr = compose(
            Language::Fr,
            &report(),
            &s,
            "",
            "America/Toronto",
            &Origin::Schedule,
        );
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
        let en = compose(
            Language::En,
            &report(),
            &m,
            "",
            "America/Toronto",
            &Origin::Schedule,
        );
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
        let fr = compose(
            Language::Fr,
            &report(),
            &m,
            "",
            "America/Toronto",
            &Origin::Schedule,
        );
        assert!(
            fr.text
                .contains("1 exécution en fenêtre de maintenance est exclue de ces chiffres."),
            "{}",
            fr.text
        );
    }

    #[test]
    fn every_word_of_the_mail_is_in_both_catalogs() {
        use crate::domain::messages::has;
        use crate::domain::report::ReportType;
        let types = [
            ReportType::TestCasePerformance,
            ReportType::Trend,
            ReportType::SegmentPerformance,
            ReportType::LatencyByHour,
            ReportType::Mos,
        ];
        for id in ids::ALL.iter().copied().chain(types.map(ReportType::name)) {
            assert!(
                has(Language::En, id),
                "{id:?} is not in the English catalog"
            );
            assert!(has(Language::Fr, id), "{id:?} has no French in the catalog");
            if id.chars().any(char::is_alphabetic) && id != "MOS" && !id.starts_with('{') {
                assert_ne!(
                    t(Language::Fr, id, &[]),
                    t(Language::En, id, &[]),
                    "{id:?} is English in the French catalog"
                );
            }
        }
    }

    #[test]
    fn names_are_escaped_in_the_html_and_kept_in_the_text() {
        let mut r = report();
        r.name = r#"<b>Q&A</b> "weekly" it's"#.into();
        r.group_name = "R&D <script>".into();
        let from = "2026-11-16".parse().unwrap();
        let mut rows = vec![row("2026-11-16", 9, 1, [1, 0, 2, 0])];
        rows[0].test_case_name = r#"Case <1> & "two" 'three'"#.into();
        let s = summarize(from, from, &rows, &[]);
        let m = compose(
            Language::En,
            &r,
            &s,
            "https://c.test/report/4?a=1&b='2'",
            "UTC",
            &Origin::Schedule,
        );
        let h = &m.html;
        for raw in [
            "<b>", "<script>", "<1>", "'three'", "\"two\"", "it's", "Q&A", "'2'",
        ] {
            assert!(!h.contains(raw), "{raw} left unescaped in {h}");
        }
        // askama writes numeric character references.
        assert!(
            h.contains("&#60;b&#62;Q&#38;A&#60;/b&#62; &#34;weekly&#34; it&#39;s"),
            "{h}"
        );
        assert!(h.contains("R&#38;D &#60;script&#62;"), "{h}");
        assert!(
            h.contains("Case &#60;1&#62; &#38; &#34;two&#34; &#39;three&#39;"),
            "{h}"
        );
        assert!(
            h.contains("href=\"https://c.test/report/4?a=1&#38;b=&#39;2&#39;\""),
            "{h}"
        );
        // The text part is plain: the names as they are.
        assert!(
            m.text
                .contains(r#"Case <1> & "two" 'three' — 2 failures of 3 runs"#),
            "{}",
            m.text
        );
        assert!(m.subject.contains(r#"<b>Q&A</b> "weekly" it's"#));
    }

    #[test]
    fn counts_are_singular_and_plural_in_each_language() {
        let from = "2026-11-16".parse().unwrap();
        let one = [row("2026-11-16", 9, 1, [0, 0, 1, 0])];
        let s = summarize(from, from, &one, &[]);
        let en = compose(Language::En, &report(), &s, "", "UTC", &Origin::Schedule);
        assert!(
            en.text.contains("Case 1 — 1 failure of 1 run (100.00%)"),
            "{}",
            en.text
        );
        let fr = compose(Language::Fr, &report(), &s, "", "UTC", &Origin::Schedule);
        assert!(
            fr.text
                .contains("Case 1 — 1 échec sur 1 exécution (100,00\u{202f}%)"),
            "{}",
            fr.text
        );
        let many = [row("2026-11-16", 9, 1, [1, 0, 1, 1])];
        let s = summarize(from, from, &many, &[]);
        let en = compose(Language::En, &report(), &s, "", "UTC", &Origin::Schedule);
        assert!(
            en.text.contains("Case 1 — 2 failures of 3 runs"),
            "{}",
            en.text
        );
        let fr = compose(Language::Fr, &report(), &s, "", "UTC", &Origin::Schedule);
        assert!(
            fr.text.contains("Case 1 — 2 échecs sur 3 exécutions"),
            "{}",
            fr.text
        );
        // The short line of SMS and voice: French 0 and 1 are singular.
        let empty = summarize(from, from, &[], &[]);
        assert_eq!(
            short_line(Language::En, &report(), &empty),
            "Billing weekly: 0 runs, pass 0.00%, failure 0.00%"
        );
        assert_eq!(
            short_line(Language::Fr, &report(), &empty),
            "Billing weekly\u{a0}: 0 exécution, réussite 0,00\u{202f}%, échec 0,00\u{202f}%"
        );
        let one = summarize(from, from, &one, &[]);
        assert!(short_line(Language::En, &report(), &one).contains(": 1 run, "));
    }

    #[test]
    fn a_period_without_runs_says_so_instead_of_zero_rates() {
        let from = "2026-11-16".parse().unwrap();
        let s = summarize(from, from + chrono::Duration::days(6), &[], &[]);
        let en = compose(Language::En, &report(), &s, "", "UTC", &Origin::Schedule);
        assert!(
            en.text
                .contains("Test runs: 0 (previous period: 0)\nNo runs in this period.\n"),
            "{}",
            en.text
        );
        assert!(!en.text.contains("0.00%"), "{}", en.text);
        assert!(
            en.html.contains("<p>No runs in this period.</p>"),
            "{}",
            en.html
        );
        assert!(!en.html.contains("<table"), "{}", en.html);
        let fr = compose(Language::Fr, &report(), &s, "", "UTC", &Origin::Schedule);
        assert!(
            fr.text.contains("Aucune exécution sur cette période."),
            "{}",
            fr.text
        );
    }

    #[test]
    fn a_copy_sent_by_hand_does_not_claim_the_schedule() {
        let from = "2026-11-16".parse().unwrap();
        let s = summarize(from, from, &[], &[]);
        let scheduled = compose(Language::En, &report(), &s, "", "UTC", &Origin::Schedule);
        assert!(
            scheduled
                .text
                .ends_with("— Sent by cxwatch on the report's schedule.\n"),
            "{}",
            scheduled.text
        );
        let by = Origin::Copy("ana@example.com".into());
        for l in [Language::En, Language::Fr] {
            let copy = compose(l, &report(), &s, "", "UTC", &by);
            for part in [&copy.text, &copy.html] {
                assert!(
                    !part.contains("schedule") && !part.contains("planification"),
                    "{part}"
                );
                assert!(part.contains("ana@example.com"), "{part}");
            }
        }
        let copy = compose(Language::En, &report(), &s, "", "UTC", &by);
        assert!(
            copy.text.ends_with(
                "— A copy sent now from the console at the request of ana@example.com.\n"
            ),
            "{}",
            copy.text
        );
        let copy = compose(Language::Fr, &report(), &s, "", "UTC", &by);
        assert!(
            copy.text.contains(
                "Copie envoyée maintenant depuis la console à la demande de ana@example.com."
            ),
            "{}",
            copy.text
        );
    }
}
