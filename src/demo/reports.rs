//! The demo's saved reports: one of every type, each on a group whose incident shows in it
//! (the Retail Banking latency spike in the latency heat map, the Insurance Claims bad audio
//! in the MOS report, the Card Services outage in the trend). Created once, after the
//! groups, when the site has no report yet. The Card Services weekly report is mailed to
//! the 'IVR owners' list every Monday at 08:00: its slot of this week is due at once, so the
//! scheduler delivers it at start and the list shows its last delivery.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use chrono_tz::Tz;

use super::group_ids;
use super::DemoError;
use crate::domain::caller::Scope;
use crate::domain::distribution::{DistributionFilter, DistributionSortField};
use crate::domain::page::{PageRequest, Sort};
use crate::domain::report::{ReportDraft, ReportFilter, ReportSortField, ReportType, Timeframe};
use crate::domain::report_schedule::{next_slot, Cadence, Frequency, Language, ScheduleDraft};
use crate::domain::run::RunType;
use crate::store::Store;

/// The report mailed every week.
const WEEKLY: &str = "Card Services weekly performance - last week";
/// The list it is mailed to.
const WEEKLY_LIST: &str = "IVR owners";

struct Seed {
    name: &'static str,
    report_type: ReportType,
    group: &'static str,
    /// Custom range of this many days up to the anchor's date, or a named timeframe.
    days: Option<i64>,
    timeframe: Timeframe,
    warn_fail: (u32, u32),
}

const SEEDS: [Seed; 7] = [
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
        name: WEEKLY,
        report_type: ReportType::TestCasePerformance,
        group: "Cards - Lost & Stolen",
        days: None,
        timeframe: Timeframe::LastWeek,
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
        let id = Store::block_on(store.create_report(
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
        if s.name == WEEKLY {
            schedule_weekly(store, tz, anchor, id)?;
        }
        made += 1;
    }
    Ok(made)
}

/// Mails report `id` to the 'IVR owners' list on Mondays at 08:00, English; this week's
/// slot (the latest one before `anchor`) is due, for the scheduler to deliver at start.
fn schedule_weekly(store: &Store, tz: Tz, anchor: DateTime<Utc>, id: i64) -> Result<(), DemoError> {
    let filter = DistributionFilter {
        search: Some(WEEKLY_LIST.into()),
        kind: None,
        sort: Sort {
            field: DistributionSortField::Id,
            descending: false,
        },
    };
    let lists =
        Store::block_on(store.list_distributions(PageRequest { no: 0, size: 10 }, &filter))?;
    let Some(list) = lists.items.iter().find(|d| d.name == WEEKLY_LIST) else {
        return Ok(());
    };
    let cadence = Cadence {
        frequency: Frequency::Weekly,
        minute: 8 * 60,
        weekday: 1,
        month_day: 1,
    };
    let due = next_slot(&cadence, tz, anchor - Duration::days(7));
    Store::block_on(store.set_report_schedule(
        id,
        ScheduleDraft {
            cadence,
            distribution_id: list.id,
            language: Language::En,
            active: true,
        },
        due.timestamp_millis(),
    ))?;
    Ok(())
}
