//! The demo's saved reports: one of every type, each on a group whose incident shows in it
//! (the Retail Banking latency spike in the latency heat map, the Insurance Claims bad audio
//! in the MOS report, the Card Services outage in the trend). Created once, after the
//! groups, when the site has no report yet.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use chrono_tz::Tz;

use super::group_ids;
use super::DemoError;
use crate::domain::caller::Scope;
use crate::domain::page::{PageRequest, Sort};
use crate::domain::report::{ReportDraft, ReportFilter, ReportSortField, ReportType, Timeframe};
use crate::domain::run::RunType;
use crate::store::Store;

struct Seed {
    name: &'static str,
    report_type: ReportType,
    group: &'static str,
    /// Custom range of this many days up to the anchor's date, or a named timeframe.
    days: Option<i64>,
    timeframe: Timeframe,
    warn_fail: (u32, u32),
}

const SEEDS: [Seed; 6] = [
    Seed {
        name: "Retail Banking latency by hour - last 7 days",
        report_type: ReportType::LatencyByHour,
        group: "Banking - Core Journeys",
        days: Some(7),
        timeframe: Timeframe::Custom,
        warn_fail: (2000, 3000),
    },
    Seed {
        name: "Insurance Claims call quality (MOS) - last 7 days",
        report_type: ReportType::Mos,
        group: "Claims - FNOL",
        days: Some(7),
        timeframe: Timeframe::Custom,
        warn_fail: (0, 0),
    },
    Seed {
        name: "Card Services hourly trend - last 7 days",
        report_type: ReportType::Trend,
        group: "Cards - Lost & Stolen",
        days: Some(7),
        timeframe: Timeframe::Custom,
        warn_fail: (0, 0),
    },
    Seed {
        name: "Retail Banking segment performance - last 7 days",
        report_type: ReportType::SegmentPerformance,
        group: "Banking - Core Journeys",
        days: Some(7),
        timeframe: Timeframe::Custom,
        warn_fail: (0, 0),
    },
    Seed {
        name: "Support Chatbot test case performance - last 14 days",
        report_type: ReportType::TestCasePerformance,
        group: "Chat - Support",
        days: Some(14),
        timeframe: Timeframe::Custom,
        warn_fail: (0, 0),
    },
    Seed {
        name: "Insurance Claims segment performance - yesterday",
        report_type: ReportType::SegmentPerformance,
        group: "Claims - FNOL",
        days: None,
        timeframe: Timeframe::Yesterday,
        warn_fail: (0, 0),
    },
];

/// Creates the demo reports when the site has none.
pub fn seed_reports(store: &Store, tz: Tz, anchor: DateTime<Utc>) -> Result<usize, DemoError> {
    let today: NaiveDate = anchor.with_timezone(&tz).date_naive();
    let filter = ReportFilter {
        search: None,
        types: Vec::new(),
        group_names: Vec::new(),
        start: None,
        end: None,
        timeframes: Vec::new(),
        sort: Sort {
            field: ReportSortField::Id,
            descending: true,
        },
        today,
    };
    let existing =
        Store::block_on(store.list_reports(Scope::All, PageRequest { no: 0, size: 1 }, &filter))?;
    if existing.total > 0 {
        return Ok(0);
    }
    let groups = group_ids(store)?;
    let mut made = 0;
    for s in &SEEDS {
        let Some(&group_id) = groups.get(s.group) else {
            continue;
        };
        let custom = match s.days {
            Some(d) => (Some(today - Duration::days(d - 1)), Some(today)),
            None => (None, None),
        };
        Store::block_on(store.create_report(
            Scope::All,
            &ReportDraft {
                name: s.name.to_string(),
                report_type: s.report_type,
                group_id,
                timeframe: s.timeframe,
                custom,
                run_type: RunType::Schedule,
                latency_warn: s.warn_fail.0,
                latency_fail: s.warn_fail.1,
            },
        ))?;
        made += 1;
    }
    Ok(made)
}
