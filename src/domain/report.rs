//! Saved reports (spec §3 'Report', §4 timeframes, §5 report form, §9 report types and
//! latency heat map): the vocabulary and the pure rules. Named timeframes are computed from
//! today in the site's time zone ([`today_in`], [`resolve`]).

use chrono::{DateTime, Datelike, Duration, NaiveDate, Utc};
use chrono_tz::Tz;

use super::page::Sort;
use super::rules::{check_text, Problems, Rule};
use super::run::{Channel, RunType};

/// Longest report name.
pub const NAME_MAX: usize = 200;

/// The report types of spec §9: 2 trend, 5 segment performance, 6 latency by hour, 7 MOS,
/// any other test case performance (id 1 here).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportType {
    TestCasePerformance,
    Trend,
    SegmentPerformance,
    LatencyByHour,
    Mos,
}

impl ReportType {
    pub const ALL: [ReportType; 5] = [
        ReportType::Trend,
        ReportType::SegmentPerformance,
        ReportType::LatencyByHour,
        ReportType::Mos,
        ReportType::TestCasePerformance,
    ];

    pub fn id(self) -> i64 {
        match self {
            ReportType::TestCasePerformance => 1,
            ReportType::Trend => 2,
            ReportType::SegmentPerformance => 5,
            ReportType::LatencyByHour => 6,
            ReportType::Mos => 7,
        }
    }

    pub fn from_id(id: i64) -> Option<ReportType> {
        ReportType::ALL.into_iter().find(|t| t.id() == id)
    }

    /// The name lists and forms show (`reportTypeName`).
    pub fn name(self) -> &'static str {
        match self {
            ReportType::TestCasePerformance => "Test Case Performance",
            ReportType::Trend => "Trend",
            ReportType::SegmentPerformance => "Segment Performance",
            ReportType::LatencyByHour => "Test Script Latency by Hour",
            ReportType::Mos => "MOS",
        }
    }

    /// MOS is a call-quality score: voice only.
    pub fn fits(self, channel: Channel) -> bool {
        self != ReportType::Mos || channel == Channel::Voice
    }
}

/// The time frames of spec §9, in the order the form lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, poem_openapi::Enum)]
pub enum Timeframe {
    Custom,
    Today,
    Yesterday,
    #[oai(rename = "Current Week")]
    CurrentWeek,
    #[oai(rename = "Last Week")]
    LastWeek,
    #[oai(rename = "Current Month")]
    CurrentMonth,
    #[oai(rename = "Last Month")]
    LastMonth,
    #[oai(rename = "Last Year")]
    LastYear,
}

impl Timeframe {
    pub const ALL: [Timeframe; 8] = [
        Timeframe::Custom,
        Timeframe::Today,
        Timeframe::Yesterday,
        Timeframe::CurrentWeek,
        Timeframe::LastWeek,
        Timeframe::CurrentMonth,
        Timeframe::LastMonth,
        Timeframe::LastYear,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Timeframe::Custom => "Custom",
            Timeframe::Today => "Today",
            Timeframe::Yesterday => "Yesterday",
            Timeframe::CurrentWeek => "Current Week",
            Timeframe::LastWeek => "Last Week",
            Timeframe::CurrentMonth => "Current Month",
            Timeframe::LastMonth => "Last Month",
            Timeframe::LastYear => "Last Year",
        }
    }

    /// By name, without case.
    pub fn parse(s: &str) -> Option<Timeframe> {
        let s = s.trim();
        Timeframe::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(s))
    }
}

/// Today's date on the site's clock.
pub fn today_in(tz: Tz, now: DateTime<Utc>) -> NaiveDate {
    now.with_timezone(&tz).date_naive()
}

fn monday_of(d: NaiveDate) -> NaiveDate {
    d - Duration::days(i64::from(d.weekday().num_days_from_monday()))
}

fn first_of_month(d: NaiveDate) -> NaiveDate {
    d.with_day(1).unwrap_or(d)
}

/// The local dates (inclusive) a timeframe covers, computed from `today` (the site's):
/// weeks start on Monday; 'Current Week' and 'Current Month' run to today; 'Last Year' is
/// the previous calendar year; 'Custom' is `custom` (start, end), an empty end meaning the
/// start. `None` for Custom without a start.
pub fn resolve(
    tf: Timeframe,
    today: NaiveDate,
    custom: (Option<NaiveDate>, Option<NaiveDate>),
) -> Option<(NaiveDate, NaiveDate)> {
    let day = Duration::days(1);
    Some(match tf {
        Timeframe::Custom => {
            let start = custom.0?;
            (start, custom.1.unwrap_or(start))
        }
        Timeframe::Today => (today, today),
        Timeframe::Yesterday => (today - day, today - day),
        Timeframe::CurrentWeek => (monday_of(today), today),
        Timeframe::LastWeek => {
            let monday = monday_of(today) - Duration::days(7);
            (monday, monday + Duration::days(6))
        }
        Timeframe::CurrentMonth => (first_of_month(today), today),
        Timeframe::LastMonth => {
            let end = first_of_month(today) - day;
            (first_of_month(end), end)
        }
        Timeframe::LastYear => {
            let y = today.year() - 1;
            (
                NaiveDate::from_ymd_opt(y, 1, 1)?,
                NaiveDate::from_ymd_opt(y, 12, 31)?,
            )
        }
    })
}

/// A latency bucket of the heat map (spec §3 'Latency bucket'), bounds in ms: a latency
/// `l` is in the bucket when `lower_bound <= l < upper_bound` (no upper bound: the last).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LatencyBucket {
    pub id: i64,
    pub text: &'static str,
    pub lower_bound: u32,
    pub upper_bound: Option<u32>,
}

const fn bucket(
    id: i64,
    text: &'static str,
    lower_bound: u32,
    upper_bound: Option<u32>,
) -> LatencyBucket {
    LatencyBucket {
        id,
        text,
        lower_bound,
        upper_bound,
    }
}

/// The latency thresholds a type-6 report chooses from, and the heat map's rows.
pub const LATENCY_BUCKETS: [LatencyBucket; 8] = [
    bucket(1, "0 - 0.5 sec", 0, Some(500)),
    bucket(2, "0.5 - 1 sec", 500, Some(1000)),
    bucket(3, "1 - 1.5 sec", 1000, Some(1500)),
    bucket(4, "1.5 - 2 sec", 1500, Some(2000)),
    bucket(5, "2 - 3 sec", 2000, Some(3000)),
    bucket(6, "3 - 5 sec", 3000, Some(5000)),
    bucket(7, "5 - 10 sec", 5000, Some(10000)),
    bucket(8, "10 sec and more", 10000, None),
];

/// The bucket of a latency (ms).
pub fn bucket_of(latency_ms: u32) -> &'static LatencyBucket {
    LATENCY_BUCKETS
        .iter()
        .rev()
        .find(|b| latency_ms >= b.lower_bound)
        .unwrap_or(&LATENCY_BUCKETS[0])
}

pub fn bucket_by_id(id: i64) -> Option<&'static LatencyBucket> {
    LATENCY_BUCKETS.iter().find(|b| b.id == id)
}

/// A saved report (spec §3 'Report').
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub id: i64,
    pub name: String,
    pub report_type: ReportType,
    pub group_id: i64,
    pub group_name: String,
    pub channel: Channel,
    pub timeframe: Timeframe,
    /// Custom range as stored (start, end).
    pub custom: (Option<NaiveDate>, Option<NaiveDate>),
    pub run_type: RunType,
    /// ms; 0 unless type 6.
    pub latency_warn: u32,
    pub latency_fail: u32,
    pub jira_ticket: Option<String>,
    /// Seconds since the epoch.
    pub modified_at: i64,
}

impl Report {
    /// The local dates the report covers today.
    pub fn range(&self, today: NaiveDate) -> (NaiveDate, NaiveDate) {
        resolve(self.timeframe, today, self.custom).unwrap_or((today, today))
    }
}

/// What a create or update saves, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportDraft {
    pub name: String,
    pub report_type: ReportType,
    pub group_id: i64,
    pub timeframe: Timeframe,
    pub custom: (Option<NaiveDate>, Option<NaiveDate>),
    pub run_type: RunType,
    pub latency_warn: u32,
    pub latency_fail: u32,
}

/// The form's input before checking (the API body, parsed but unchecked).
#[derive(Debug, Clone, Default)]
pub struct ReportInput<'a> {
    pub name: Option<&'a str>,
    pub report_type: Option<i64>,
    pub group_id: Option<i64>,
    pub timeframe: Option<&'a str>,
    pub begin: Option<&'a str>,
    pub end: Option<&'a str>,
    pub run_type: Option<&'a str>,
    pub latency_warn: Option<i64>,
    pub latency_fail: Option<i64>,
}

fn given(v: Option<&str>) -> Option<&str> {
    v.map(str::trim).filter(|s| !s.is_empty())
}

fn date(p: &mut Problems, field: &str, v: Option<&str>) -> Result<Option<NaiveDate>, ()> {
    match given(v) {
        None => Ok(None),
        Some(s) => match super::buckets::parse_date(s) {
            Some(d) => Ok(Some(d)),
            None => {
                p.push(
                    field,
                    Rule::Invalid,
                    format!("{field} {s:?} is not a date (YYYY-MM-DD)."),
                );
                Err(())
            }
        },
    }
}

/// Checks a report form in the spec's order (§5): name, type, group, then for type 6 the
/// warning and failure thresholds; then the timeframe, its custom range and the run type.
/// Thresholds are kept only for type 6, otherwise 0. `max_days`: longest custom range.
pub fn check_report(p: &mut Problems, input: &ReportInput, max_days: i64) -> Option<ReportDraft> {
    let name = match given(input.name) {
        None => {
            p.push("name", Rule::Required, "Please enter a name");
            None
        }
        Some(n) => match check_text("name", n, NAME_MAX) {
            Ok(()) => Some(n.to_string()),
            Err(e) => {
                p.0.push(e);
                None
            }
        },
    };
    let report_type = match input.report_type.filter(|t| *t != 0) {
        None => {
            p.push("reportTypeID", Rule::Required, "Please select type");
            None
        }
        Some(t) => ReportType::from_id(t).or_else(|| {
            p.push(
                "reportTypeID",
                Rule::Invalid,
                format!("Report type {t} does not exist."),
            );
            None
        }),
    };
    let group_id = input.group_id.filter(|g| *g > 0);
    if group_id.is_none() {
        p.push("testCaseGroupID", Rule::Required, "Please select group");
    }
    let (mut warn, mut fail) = (0, 0);
    if report_type == Some(ReportType::LatencyByHour) {
        warn = threshold(
            p,
            "latencyWarn",
            input.latency_warn,
            "Please select threshold warning",
        );
        fail = threshold(
            p,
            "latencyFail",
            input.latency_fail,
            "Please select threshold failure",
        );
        if warn > 0 && fail > 0 && warn >= fail {
            p.push(
                "latencyFail",
                Rule::Invalid,
                "The failure threshold must be above the warning threshold.",
            );
        }
    }
    let timeframe = match given(input.timeframe) {
        None => Some(Timeframe::Custom),
        Some(s) => Timeframe::parse(s).or_else(|| {
            p.push(
                "timeframeName",
                Rule::Invalid,
                format!("timeframeName {s:?} is not a time frame."),
            );
            None
        }),
    };
    let begin = date(p, "timeframeBegin", input.begin);
    let end = date(p, "timeframeEnd", input.end);
    let mut custom = (None, None);
    if let (Some(Timeframe::Custom), Ok(b), Ok(e)) = (timeframe, begin, end) {
        match (b, e) {
            (None, _) => p.push(
                "timeframeBegin",
                Rule::Required,
                "Please select the start of the custom range.",
            ),
            (Some(b), Some(e)) if e < b => p.push(
                "timeframeEnd",
                Rule::Invalid,
                format!("The end {e} is before the start {b}."),
            ),
            (Some(b), e) if (e.unwrap_or(b) - b).num_days() + 1 > max_days => p.push(
                "timeframeEnd",
                Rule::Invalid,
                format!("The range is longer than {max_days} days."),
            ),
            (b, e) => custom = (b, e.or(b)),
        }
    }
    let run_type = match given(input.run_type) {
        None => Some(RunType::Manual),
        Some(s) => RunType::parse(s).or_else(|| {
            p.push(
                "runType",
                Rule::Invalid,
                format!("runType {s:?} is not a run type (Manual or Schedule)."),
            );
            None
        }),
    };
    if !p.is_empty() {
        return None;
    }
    Some(ReportDraft {
        name: name?,
        report_type: report_type?,
        group_id: group_id?,
        timeframe: timeframe?,
        custom,
        run_type: run_type?,
        latency_warn: warn,
        latency_fail: fail,
    })
}

fn threshold(p: &mut Problems, field: &str, v: Option<i64>, missing: &str) -> u32 {
    match v.filter(|v| *v != 0) {
        None => {
            p.push(field, Rule::Required, missing);
            0
        }
        Some(v) if !(1..=600_000).contains(&v) => {
            p.push(
                field,
                Rule::Invalid,
                format!("{field} {v} must be between 1 and 600000 ms."),
            );
            0
        }
        Some(v) => v as u32,
    }
}

/// Columns the report list sorts by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportSortField {
    Id,
    Name,
    ReportType,
    GroupName,
    Timeframe,
    LastModified,
}

impl ReportSortField {
    pub fn parse(s: &str) -> Option<ReportSortField> {
        Some(match s {
            "id" => ReportSortField::Id,
            "name" => ReportSortField::Name,
            "reportTypeName" | "reportTypeID" => ReportSortField::ReportType,
            "testCaseGroupName" => ReportSortField::GroupName,
            "timeframeName" => ReportSortField::Timeframe,
            "lastModifiedTime" => ReportSortField::LastModified,
            _ => return None,
        })
    }
}

/// The report list's filter (spec §2: search, reportType list, groupName list, startDate,
/// endDate, timeframe list).
#[derive(Debug, Clone, PartialEq)]
pub struct ReportFilter {
    /// Part of the name, or the id, without case.
    pub search: Option<String>,
    pub types: Vec<ReportType>,
    pub group_names: Vec<String>,
    /// Reports whose range starts on or after this date (today's range).
    pub start: Option<NaiveDate>,
    /// Reports whose range ends on or before this date.
    pub end: Option<NaiveDate>,
    pub timeframes: Vec<Timeframe>,
    pub sort: Sort<ReportSortField>,
    /// The site's today, to resolve named timeframes for the date filters.
    pub today: NaiveDate,
}

/// Colour of a heat-map bucket (spec §9): upper bound below the warning threshold green,
/// below the failure threshold orange, otherwise red. Thresholds and bounds in ms; the
/// open last bucket is red.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeatColour {
    Green,
    Orange,
    Red,
}

pub fn heat_colour(upper_bound: Option<u32>, warn: u32, fail: u32) -> HeatColour {
    match upper_bound {
        Some(u) if u < warn => HeatColour::Green,
        Some(u) if u < fail => HeatColour::Orange,
        _ => HeatColour::Red,
    }
}

/// The runs behind a view's cell as a client asks for them (`GET reports/{id}/testruns`):
/// its dates parsed, the rest as given.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CellAsk {
    pub start: Option<NaiveDate>,
    pub end: Option<NaiveDate>,
    /// Local hour slot.
    pub hour: Option<i64>,
    /// A latency bucket id; -1: any.
    pub latency_bucket: Option<i64>,
    pub min_mos: Option<f64>,
    pub max_mos: Option<f64>,
}

/// A cell's runs, checked: what the store filters them by.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CellFilter {
    pub start: Option<NaiveDate>,
    pub end: Option<NaiveDate>,
    pub hour: Option<u8>,
    /// Step latency `[lo, hi)` ms.
    pub latency: Option<(u32, Option<u32>)>,
    /// MOS in hundredths, inclusive.
    pub mos: Option<(u32, u32)>,
}

impl CellAsk {
    /// The cell's rules, in the spec's order after the paging, status, sort and dates
    /// (which the API parses): the hour slot, the latency bucket, the MOS range (a missing
    /// bound is 0 or 5), then the dates' order and a range of at most `max_days`. Each
    /// broken rule is a problem in `p`.
    pub fn check(&self, max_days: i64, p: &mut Problems) -> CellFilter {
        let hour = self.hour.and_then(|h| {
            let ok = (0..24).contains(&h);
            if !ok {
                p.push(
                    "hrSlot",
                    Rule::Invalid,
                    format!("hrSlot {h} must be between 0 and 23."),
                );
            }
            ok.then_some(h as u8)
        });
        let latency = match self.latency_bucket.filter(|b| *b != -1) {
            None => None,
            Some(b) => match bucket_by_id(b) {
                Some(b) => Some((b.lower_bound, b.upper_bound)),
                None => {
                    p.push(
                        "latencyThres",
                        Rule::Invalid,
                        format!("latencyThres {b} is not a latency bucket."),
                    );
                    None
                }
            },
        };
        let mut mos_units = |field: &str, v: f64| -> Option<u32> {
            if (0.0..=5.0).contains(&v) {
                Some((v * 100.0).round() as u32)
            } else {
                p.push(
                    field,
                    Rule::Invalid,
                    format!("{field} {v} must be between 0 and 5."),
                );
                None
            }
        };
        let mos = match (self.min_mos, self.max_mos) {
            (None, None) => None,
            (lo, hi) => {
                let lo = mos_units("minMos", lo.unwrap_or(0.0));
                let hi = mos_units("maxMos", hi.unwrap_or(5.0));
                lo.zip(hi)
            }
        };
        if let (Some(s), Some(e)) = (self.start, self.end) {
            if e < s {
                p.push(
                    "endDate",
                    Rule::Invalid,
                    format!("startDate {s} is after endDate {e}."),
                );
            } else if (e - s).num_days() + 1 > max_days {
                p.push(
                    "endDate",
                    Rule::Invalid,
                    format!("The range is longer than {max_days} days."),
                );
            }
        }
        CellFilter {
            start: self.start,
            end: self.end,
            hour,
            latency,
            mos,
        }
    }
}

impl CellFilter {
    /// The cell's dates, what was not given taken from the report's range `(first, last)`:
    /// a start alone is one day; an end alone starts at the report's first date (or the end,
    /// when that is earlier).
    pub fn dates(&self, (first, last): (NaiveDate, NaiveDate)) -> (NaiveDate, NaiveDate) {
        match (self.start, self.end) {
            (None, None) => (first, last),
            (Some(s), None) => (s, s),
            (None, Some(e)) => (first.min(e), e),
            (Some(s), Some(e)) => (s, e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, d).unwrap()
    }

    fn checked(ask: CellAsk) -> (CellFilter, Vec<String>) {
        let mut p = Problems::default();
        let f = ask.check(400, &mut p);
        (f, p.0.into_iter().map(|e| e.field).collect())
    }

    #[test]
    fn a_cell_s_rules_each_name_their_field_in_order() {
        let (_, fields) = checked(CellAsk {
            start: Some(day(20)),
            end: Some(day(10)),
            hour: Some(24),
            latency_bucket: Some(999),
            min_mos: Some(-1.0),
            max_mos: Some(5.5),
        });
        assert_eq!(
            fields,
            ["hrSlot", "latencyThres", "minMos", "maxMos", "endDate"]
        );
        let (_, fields) = checked(CellAsk {
            start: NaiveDate::from_ymd_opt(2025, 1, 1),
            end: Some(day(10)),
            ..CellAsk::default()
        });
        assert_eq!(fields, ["endDate"]);
    }

    #[test]
    fn a_cell_s_filter_takes_the_units_of_the_store() {
        let bucket = &LATENCY_BUCKETS[1];
        let (f, fields) = checked(CellAsk {
            hour: Some(23),
            latency_bucket: Some(bucket.id),
            min_mos: Some(3.5),
            ..CellAsk::default()
        });
        assert!(fields.is_empty(), "{fields:?}");
        assert_eq!(f.hour, Some(23));
        assert_eq!(f.latency, Some((bucket.lower_bound, bucket.upper_bound)));
        // A missing bound of the MOS range is the scale's end.
        assert_eq!(f.mos, Some((350, 500)));
        let (f, _) = checked(CellAsk {
            latency_bucket: Some(-1),
            ..CellAsk::default()
        });
        assert_eq!((f.latency, f.mos), (None, None));
    }

    #[test]
    fn a_cell_s_dates_default_to_the_report_s() {
        let report = (day(1), day(7));
        let f = |start, end| CellFilter {
            start,
            end,
            ..CellFilter::default()
        };
        assert_eq!(f(None, None).dates(report), report);
        assert_eq!(f(Some(day(3)), None).dates(report), (day(3), day(3)));
        assert_eq!(f(None, Some(day(5))).dates(report), (day(1), day(5)));
        assert_eq!(
            f(None, Some(NaiveDate::from_ymd_opt(2026, 10, 30).unwrap())).dates(report),
            (
                NaiveDate::from_ymd_opt(2026, 10, 30).unwrap(),
                NaiveDate::from_ymd_opt(2026, 10, 30).unwrap()
            )
        );
        assert_eq!(
            f(Some(day(2)), Some(day(9))).dates(report),
            (day(2), day(9))
        );
    }

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    fn r(tf: Timeframe, today: &str) -> (NaiveDate, NaiveDate) {
        resolve(tf, d(today), (None, None)).unwrap()
    }

    #[test]
    fn named_timeframes() {
        // 2026-11-23 is a Monday.
        assert_eq!(
            r(Timeframe::Today, "2026-11-23"),
            (d("2026-11-23"), d("2026-11-23"))
        );
        assert_eq!(
            r(Timeframe::Yesterday, "2026-11-23"),
            (d("2026-11-22"), d("2026-11-22"))
        );
        assert_eq!(
            r(Timeframe::CurrentWeek, "2026-11-23"),
            (d("2026-11-23"), d("2026-11-23"))
        );
        assert_eq!(
            r(Timeframe::CurrentWeek, "2026-11-29"),
            (d("2026-11-23"), d("2026-11-29"))
        );
        assert_eq!(
            r(Timeframe::LastWeek, "2026-11-23"),
            (d("2026-11-16"), d("2026-11-22"))
        );
        assert_eq!(
            r(Timeframe::LastWeek, "2026-11-29"),
            (d("2026-11-16"), d("2026-11-22"))
        );
        assert_eq!(
            r(Timeframe::CurrentMonth, "2026-11-23"),
            (d("2026-11-01"), d("2026-11-23"))
        );
        assert_eq!(
            r(Timeframe::LastYear, "2026-11-23"),
            (d("2025-01-01"), d("2025-12-31"))
        );
    }

    #[test]
    fn month_and_year_ends() {
        assert_eq!(
            r(Timeframe::LastMonth, "2026-03-31"),
            (d("2026-02-01"), d("2026-02-28"))
        );
        assert_eq!(
            r(Timeframe::LastMonth, "2024-03-01"),
            (d("2024-02-01"), d("2024-02-29"))
        );
        assert_eq!(
            r(Timeframe::LastMonth, "2026-01-01"),
            (d("2025-12-01"), d("2025-12-31"))
        );
        assert_eq!(
            r(Timeframe::Yesterday, "2026-01-01"),
            (d("2025-12-31"), d("2025-12-31"))
        );
        // A week across the year end: Thursday 2026-01-01 is in the week of Monday 2025-12-29.
        assert_eq!(
            r(Timeframe::CurrentWeek, "2026-01-01"),
            (d("2025-12-29"), d("2026-01-01"))
        );
        assert_eq!(
            r(Timeframe::LastWeek, "2026-01-04"),
            (d("2025-12-22"), d("2025-12-28"))
        );
        assert_eq!(
            r(Timeframe::CurrentMonth, "2026-12-31"),
            (d("2026-12-01"), d("2026-12-31"))
        );
        assert_eq!(
            r(Timeframe::LastYear, "2026-01-01"),
            (d("2025-01-01"), d("2025-12-31"))
        );
    }

    #[test]
    fn custom_ranges() {
        let t = d("2026-11-23");
        assert_eq!(resolve(Timeframe::Custom, t, (None, None)), None);
        assert_eq!(
            resolve(Timeframe::Custom, t, (Some(d("2026-10-01")), None)),
            Some((d("2026-10-01"), d("2026-10-01")))
        );
        assert_eq!(
            resolve(
                Timeframe::Custom,
                t,
                (Some(d("2026-10-01")), Some(d("2026-10-07")))
            ),
            Some((d("2026-10-01"), d("2026-10-07")))
        );
    }

    #[test]
    fn today_is_the_sites_around_daylight_saving() {
        let tz: Tz = "America/Toronto".parse().unwrap();
        let at = |s: &str| DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc);
        // 2026-03-08: clocks go 02:00 -> 03:00 (UTC-5 -> UTC-4).
        assert_eq!(today_in(tz, at("2026-03-08T04:59:00Z")), d("2026-03-07"));
        assert_eq!(today_in(tz, at("2026-03-08T05:00:00Z")), d("2026-03-08"));
        assert_eq!(today_in(tz, at("2026-03-09T03:59:00Z")), d("2026-03-08"));
        assert_eq!(today_in(tz, at("2026-03-09T04:00:00Z")), d("2026-03-09"));
        // 2026-11-01: clocks go 02:00 -> 01:00 (UTC-4 -> UTC-5).
        assert_eq!(today_in(tz, at("2026-11-01T03:59:00Z")), d("2026-10-31"));
        assert_eq!(today_in(tz, at("2026-11-01T04:00:00Z")), d("2026-11-01"));
        assert_eq!(today_in(tz, at("2026-11-02T04:59:00Z")), d("2026-11-01"));
        assert_eq!(today_in(tz, at("2026-11-02T05:00:00Z")), d("2026-11-02"));
        // Late on the last evening of the year in Toronto is already next year in UTC.
        let today = today_in(tz, at("2027-01-01T03:00:00Z"));
        assert_eq!(today, d("2026-12-31"));
        assert_eq!(
            r(Timeframe::LastYear, "2026-12-31"),
            (d("2025-01-01"), d("2025-12-31"))
        );
    }

    fn input() -> ReportInput<'static> {
        ReportInput {
            name: Some("Weekly"),
            report_type: Some(2),
            group_id: Some(3),
            timeframe: Some("Last Week"),
            ..ReportInput::default()
        }
    }

    fn messages(i: &ReportInput) -> Vec<String> {
        let mut p = Problems::default();
        check_report(&mut p, i, 400);
        p.0.into_iter().map(|e| e.message).collect()
    }

    #[test]
    fn validation_order_and_words() {
        let empty = ReportInput::default();
        assert_eq!(
            &messages(&empty)[..3],
            [
                "Please enter a name",
                "Please select type",
                "Please select group"
            ]
        );
        let lat = ReportInput {
            name: Some(" "),
            report_type: Some(6),
            ..ReportInput::default()
        };
        assert_eq!(
            &messages(&lat)[..4],
            [
                "Please enter a name",
                "Please select group",
                "Please select threshold warning",
                "Please select threshold failure"
            ]
        );
        assert!(messages(&input()).is_empty());
    }

    #[test]
    fn thresholds_only_for_latency() {
        let mut p = Problems::default();
        let i = ReportInput {
            latency_warn: Some(1000),
            latency_fail: Some(2000),
            ..input()
        };
        let d = check_report(&mut p, &i, 400).unwrap();
        assert_eq!((d.latency_warn, d.latency_fail), (0, 0));
        let i = ReportInput {
            report_type: Some(6),
            ..i
        };
        let d = check_report(&mut p, &i, 400).unwrap();
        assert_eq!((d.latency_warn, d.latency_fail), (1000, 2000));
        assert!(p.is_empty());
    }

    #[test]
    fn custom_range_rules() {
        let i = ReportInput {
            timeframe: Some("Custom"),
            begin: Some("2026-10-01"),
            ..input()
        };
        let mut p = Problems::default();
        let draft = check_report(&mut p, &i, 400).unwrap();
        assert_eq!(draft.custom, (Some(d("2026-10-01")), Some(d("2026-10-01"))));
        let bad = ReportInput {
            end: Some("2026-09-01"),
            ..i.clone()
        };
        assert_eq!(
            messages(&bad),
            ["The end 2026-09-01 is before the start 2026-10-01."]
        );
        let missing = ReportInput { begin: None, ..i };
        assert_eq!(messages(&missing).len(), 1);
    }

    #[test]
    fn heat_colours() {
        assert_eq!(heat_colour(Some(500), 1000, 2000), HeatColour::Green);
        assert_eq!(heat_colour(Some(1000), 1000, 2000), HeatColour::Orange);
        assert_eq!(heat_colour(Some(1500), 1000, 2000), HeatColour::Orange);
        assert_eq!(heat_colour(Some(2000), 1000, 2000), HeatColour::Red);
        assert_eq!(heat_colour(None, 1000, 2000), HeatColour::Red);
    }

    #[test]
    fn buckets_cover_every_latency() {
        assert_eq!(bucket_of(0).id, 1);
        assert_eq!(bucket_of(499).id, 1);
        assert_eq!(bucket_of(500).id, 2);
        assert_eq!(bucket_of(9_999).id, 7);
        assert_eq!(bucket_of(u32::MAX).id, 8);
        for w in LATENCY_BUCKETS.windows(2) {
            assert_eq!(w[0].upper_bound, Some(w[1].lower_bound));
        }
    }

    #[test]
    fn types_and_channels() {
        assert_eq!(ReportType::from_id(6), Some(ReportType::LatencyByHour));
        assert_eq!(ReportType::from_id(3), None);
        assert!(!ReportType::Mos.fits(Channel::Web));
        assert!(ReportType::Mos.fits(Channel::Voice));
        assert!(ReportType::Trend.fits(Channel::Web));
        assert_eq!(Timeframe::parse("last week"), Some(Timeframe::LastWeek));
    }
}
