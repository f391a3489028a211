//! A report's CSV (docs/api.md 'CSV files'): one line per test case (per segment for
//! type 5) and local hour with runs, through the one CSV writer (formula cells
//! neutralised). The export (`api/reports`) streams it; the scheduled report mail
//! (`notify::reports`) attaches it.

use chrono::NaiveDate;

use super::buckets;
use super::csv::CsvWriter;
use super::report::Report;

/// One line of a report's CSV: a test case (or segment) in one local hour.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportRow {
    pub date: NaiveDate,
    pub hour: u8,
    pub test_case_id: i64,
    pub test_case_name: String,
    pub segment: Option<(i64, String)>,
    /// pass, warn, fail, stopped.
    pub counts: [u64; 4],
    pub lat_n: u64,
    pub lat_sum: u64,
    pub mos_n: u64,
    pub mos_sum: u64,
}

/// The CSV's header line (documented in `docs/api.md`).
pub const CSV_HEADER: &str = "Date,Hour,Hour start,Test case ID,Test case,Segment ID,Segment,\
Test runs,Pass,Warning,Failure,Pass %,Warning %,Failure %,Average latency (sec),Average MOS\r\n";

/// `part` of `total` in percent, 2 decimals ('0.00' when there is none).
pub fn percent(part: u64, total: u64) -> String {
    if total == 0 {
        return "0.00".into();
    }
    format!("{:.2}", part as f64 * 100.0 / total as f64)
}

/// The start of a local hour in the site's zone with its offset (the first, when the
/// clocks fall back; the hour after the gap, when they spring forward).
pub fn hour_start(tz: chrono_tz::Tz, date: NaiveDate, hour: u8) -> String {
    use chrono::TimeZone;
    let local = date.and_hms_opt(u32::from(hour), 0, 0).unwrap_or_default();
    match tz.from_local_datetime(&local) {
        chrono::LocalResult::Single(t) | chrono::LocalResult::Ambiguous(t, _) => {
            t.format("%Y-%m-%dT%H:%M:%S%:z").to_string()
        }
        chrono::LocalResult::None => {
            let ms = buckets::local_day_start_ms(tz, date) + i64::from(hour) * 3_600_000;
            chrono::DateTime::from_timestamp_millis(ms)
                .unwrap_or_default()
                .with_timezone(&tz)
                .format("%Y-%m-%dT%H:%M:%S%:z")
                .to_string()
        }
    }
}

/// One CSV line of an export row (names through the one CSV writer, neutralised against
/// formulas; `docs/api.md` 'CSV files').
pub fn csv_line(out: &mut CsvWriter, tz: chrono_tz::Tz, r: &ExportRow) {
    let [pass, warn, fail, stopped] = r.counts;
    let failure = fail + stopped;
    let total = pass + warn + failure;
    out.number(r.date)
        .number(format_args!("{:02}", r.hour))
        .number(hour_start(tz, r.date, r.hour))
        .number(r.test_case_id)
        .text(&r.test_case_name);
    match &r.segment {
        Some((id, name)) => out.number(id).text(name),
        None => out.empty().empty(),
    };
    out.number(total)
        .number(pass)
        .number(warn)
        .number(failure)
        .number(percent(pass, total))
        .number(percent(warn, total))
        .number(percent(failure, total));
    if r.lat_n > 0 {
        out.number(format_args!(
            "{:.2}",
            r.lat_sum as f64 / r.lat_n as f64 / 1000.0
        ));
    } else {
        out.empty();
    }
    if r.mos_n > 0 {
        out.number(format_args!(
            "{:.1}",
            r.mos_sum as f64 / r.mos_n as f64 / 100.0
        ));
    } else {
        out.empty();
    }
    out.end();
}

/// A file name of ASCII letters, digits and dashes.
pub fn file_name(r: &Report, from: NaiveDate, to: NaiveDate) -> String {
    let mut slug = String::new();
    for c in r.name.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug: String = slug.trim_matches('-').chars().take(60).collect();
    let slug = if slug.is_empty() {
        "report".into()
    } else {
        slug
    };
    format!("report-{}-{slug}-{from}-{to}.csv", r.id)
}
