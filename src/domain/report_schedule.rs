//! A report's delivery schedule: daily at a time, weekly on a day or
//! monthly on a day, in the site's time zone, to a distribution list, in English or French.
//! Pure: the form's rules and the next slot after an instant ([`next_slot`]), across
//! daylight-saving changes (a time the clocks skip is sent at the first instant after the
//! gap; a time they repeat, at its first occurrence) and short months (day 31 is the
//! month's last day).

use chrono::{DateTime, Datelike, Duration, LocalResult, NaiveDate, NaiveTime, TimeZone, Utc};
use chrono_tz::Tz;

use super::rules::{Problems, Rule};

#[derive(Debug, Clone, Copy, PartialEq, Eq, poem_openapi::Enum)]
#[oai(rename_all = "lowercase")]
pub enum Frequency {
    Daily,
    Weekly,
    Monthly,
}

impl Frequency {
    pub fn as_str(self) -> &'static str {
        match self {
            Frequency::Daily => "daily",
            Frequency::Weekly => "weekly",
            Frequency::Monthly => "monthly",
        }
    }

    pub fn parse(s: &str) -> Option<Frequency> {
        Some(match s {
            "daily" => Frequency::Daily,
            "weekly" => Frequency::Weekly,
            "monthly" => Frequency::Monthly,
            _ => return None,
        })
    }
}

/// The language of the mail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, poem_openapi::Enum)]
#[oai(rename_all = "lowercase")]
pub enum Language {
    En,
    Fr,
}

impl Language {
    pub fn as_str(self) -> &'static str {
        match self {
            Language::En => "en",
            Language::Fr => "fr",
        }
    }

    pub fn parse(s: &str) -> Option<Language> {
        Some(match s {
            "en" => Language::En,
            "fr" => Language::Fr,
            _ => return None,
        })
    }
}

/// When a schedule sends, as saved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cadence {
    pub frequency: Frequency,
    /// Minutes after local midnight, 0..1440.
    pub minute: u32,
    /// 1 (Monday) ..= 7 (Sunday), for weekly.
    pub weekday: u32,
    /// 1 ..= 31, for monthly (beyond the month's last day: its last day).
    pub month_day: u32,
}

/// A schedule as saved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduleDraft {
    pub cadence: Cadence,
    pub distribution_id: i64,
    pub language: Language,
    pub active: bool,
}

/// A report's schedule, with its delivery state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    pub report_id: i64,
    pub draft: ScheduleDraft,
    pub distribution_name: String,
    /// The next slot (UTC ms); none when inactive.
    pub next_ms: Option<i64>,
    /// The last slot delivered (queued to the outbox), UTC ms.
    pub last_slot_ms: Option<i64>,
    /// Outcome of the last delivery: `queued`, `sent` or `failed` (any contact failed).
    pub last_state: Option<String>,
    /// The last delivery's outbox cause (`report:{id}:{slot}`).
    pub last_cause: Option<String>,
}

/// `HH:MM` → minutes after midnight.
pub fn parse_time(s: &str) -> Option<u32> {
    let t = NaiveTime::parse_from_str(s.trim(), "%H:%M").ok()?;
    Some(chrono::Timelike::hour(&t) * 60 + chrono::Timelike::minute(&t))
}

pub fn format_time(minute: u32) -> String {
    format!("{:02}:{:02}", minute / 60, minute % 60)
}

/// The schedule form's input before checking.
#[derive(Debug, Clone, Default)]
pub struct ScheduleInput<'a> {
    pub frequency: Option<&'a str>,
    pub time: Option<&'a str>,
    pub day_of_week: Option<i64>,
    pub day_of_month: Option<i64>,
    pub distribution_id: Option<i64>,
    pub language: Option<&'a str>,
    pub active: Option<bool>,
}

/// Checks a schedule in the form's order: frequency, time, day (of the week or month),
/// distribution list, language. Fields: `frequency`, `time`, `dayOfWeek`, `dayOfMonth`,
/// `distributionID`, `language`.
pub fn check_schedule(p: &mut Problems, i: &ScheduleInput) -> Option<ScheduleDraft> {
    let frequency = match i.frequency {
        None => {
            p.push(
                "frequency",
                Rule::Required,
                "frequency is required: daily, weekly or monthly.",
            );
            None
        }
        Some(f) => Frequency::parse(f).or_else(|| {
            p.push(
                "frequency",
                Rule::Invalid,
                format!("frequency '{f}' is not daily, weekly or monthly."),
            );
            None
        }),
    };
    let minute = match i.time {
        None => {
            p.push("time", Rule::Required, "time is required (HH:MM).");
            None
        }
        Some(t) => parse_time(t).or_else(|| {
            p.push(
                "time",
                Rule::Invalid,
                format!("time '{t}' is not a time of day (HH:MM, 00:00 to 23:59)."),
            );
            None
        }),
    };
    let mut weekday = 1;
    let mut month_day = 1;
    let mut days_ok = true;
    match frequency {
        Some(Frequency::Weekly) => match i.day_of_week {
            Some(d @ 1..=7) => weekday = d as u32,
            Some(d) => {
                p.push(
                    "dayOfWeek",
                    Rule::Invalid,
                    format!("dayOfWeek {d} is not 1 (Monday) to 7 (Sunday)."),
                );
                days_ok = false;
            }
            None => {
                p.push(
                    "dayOfWeek",
                    Rule::Required,
                    "dayOfWeek is required for a weekly schedule (1 Monday to 7 Sunday).",
                );
                days_ok = false;
            }
        },
        Some(Frequency::Monthly) => match i.day_of_month {
            Some(d @ 1..=31) => month_day = d as u32,
            Some(d) => {
                p.push(
                    "dayOfMonth",
                    Rule::Invalid,
                    format!("dayOfMonth {d} is not 1 to 31."),
                );
                days_ok = false;
            }
            None => {
                p.push(
                    "dayOfMonth",
                    Rule::Required,
                    "dayOfMonth is required for a monthly schedule (1 to 31).",
                );
                days_ok = false;
            }
        },
        _ => {}
    }
    let distribution_id = match i.distribution_id {
        Some(d) if d > 0 => Some(d),
        _ => {
            p.push(
                "distributionID",
                Rule::Required,
                "distributionID is required: the distribution list the report is mailed to.",
            );
            None
        }
    };
    let language = match i.language {
        None => Some(Language::En),
        Some(l) => Language::parse(l).or_else(|| {
            p.push(
                "language",
                Rule::Invalid,
                format!("language '{l}' is not en or fr."),
            );
            None
        }),
    };
    let (frequency, minute, distribution_id, language) =
        (frequency?, minute?, distribution_id?, language?);
    days_ok.then_some(ScheduleDraft {
        cadence: Cadence {
            frequency,
            minute,
            weekday,
            month_day,
        },
        distribution_id,
        language,
        active: i.active.unwrap_or(true),
    })
}

/// The instant a local date and time is on the site's clock: in a gap, the first instant
/// after it; when repeated, the first.
fn at_local(tz: Tz, date: NaiveDate, minute: u32) -> DateTime<Utc> {
    let t = date
        .and_hms_opt(minute / 60, minute % 60, 0)
        .unwrap_or_default();
    match tz.from_local_datetime(&t) {
        LocalResult::Single(x) | LocalResult::Ambiguous(x, _) => x.with_timezone(&Utc),
        LocalResult::None => {
            // Spring forward: step minutes until the local clock exists again.
            let mut probe = t;
            for _ in 0..180 {
                probe += Duration::minutes(1);
                if let LocalResult::Single(x) | LocalResult::Ambiguous(x, _) =
                    tz.from_local_datetime(&probe)
                {
                    return x.with_timezone(&Utc);
                }
            }
            Utc.from_utc_datetime(&t)
        }
    }
}

fn last_day_of_month(y: i32, m: u32) -> u32 {
    let (ny, nm) = if m == 12 { (y + 1, 1) } else { (y, m + 1) };
    NaiveDate::from_ymd_opt(ny, nm, 1)
        .map(|d| (d - Duration::days(1)).day())
        .unwrap_or(28)
}

/// Whether `date` is a sending day of `c`.
fn sends_on(c: &Cadence, date: NaiveDate) -> bool {
    match c.frequency {
        Frequency::Daily => true,
        Frequency::Weekly => date.weekday().number_from_monday() == c.weekday,
        Frequency::Monthly => {
            date.day()
                == c.month_day
                    .min(last_day_of_month(date.year(), date.month()))
        }
    }
}

/// The first slot of `c` strictly after `after`, in zone `tz`.
pub fn next_slot(c: &Cadence, tz: Tz, after: DateTime<Utc>) -> DateTime<Utc> {
    let mut date = after.with_timezone(&tz).date_naive() - Duration::days(1);
    // At most 62 days ahead (a monthly slot); 400 to be safe.
    for _ in 0..400 {
        if sends_on(c, date) {
            let at = at_local(tz, date, c.minute);
            if at > after {
                return at;
            }
        }
        date += Duration::days(1);
    }
    after + Duration::days(1)
}

/// The local date a slot is on (the report's named timeframe is computed from it).
pub fn slot_date(tz: Tz, slot: DateTime<Utc>) -> NaiveDate {
    slot.with_timezone(&tz).date_naive()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    fn cadence(frequency: Frequency, time: &str, weekday: u32, month_day: u32) -> Cadence {
        Cadence {
            frequency,
            minute: parse_time(time).unwrap(),
            weekday,
            month_day,
        }
    }

    #[test]
    fn slots_follow_the_site_clock() {
        let tz: Tz = "America/Toronto".parse().unwrap();
        let daily = cadence(Frequency::Daily, "07:30", 1, 1);
        // 2026-11-26 07:30 Toronto = 12:30 UTC.
        assert_eq!(
            next_slot(&daily, tz, utc("2026-11-26T12:00:00Z")),
            utc("2026-11-26T12:30:00Z")
        );
        assert_eq!(
            next_slot(&daily, tz, utc("2026-11-26T12:30:00Z")),
            utc("2026-11-27T12:30:00Z"),
            "strictly after"
        );
        // Weekly on Monday 08:00: from Thursday 2026-11-26 to Monday 2026-11-30.
        let weekly = cadence(Frequency::Weekly, "08:00", 1, 1);
        assert_eq!(
            next_slot(&weekly, tz, utc("2026-11-26T12:00:00Z")),
            utc("2026-11-30T13:00:00Z")
        );
        // Monthly on the 31st: November's last day is the 30th.
        let monthly = cadence(Frequency::Monthly, "06:00", 1, 31);
        assert_eq!(
            next_slot(&monthly, tz, utc("2026-11-26T12:00:00Z")),
            utc("2026-11-30T11:00:00Z")
        );
        assert_eq!(
            next_slot(&monthly, tz, utc("2026-11-30T11:00:00Z")),
            utc("2026-12-31T11:00:00Z")
        );
        // Spring forward (2027-03-14, 02:00 → 03:00): 02:30 is sent at 03:00 EDT.
        let night = cadence(Frequency::Daily, "02:30", 1, 1);
        assert_eq!(
            next_slot(&night, tz, utc("2027-03-14T05:00:00Z")),
            utc("2027-03-14T07:00:00Z")
        );
        // Fall back (2026-11-01, 01:00–02:00 twice): 01:30 once, the first.
        let late = cadence(Frequency::Daily, "01:30", 1, 1);
        let first = next_slot(&late, tz, utc("2026-11-01T04:00:00Z"));
        assert_eq!(first, utc("2026-11-01T05:30:00Z"));
        assert_eq!(next_slot(&late, tz, first), utc("2026-11-02T06:30:00Z"));
    }

    #[test]
    fn the_form_is_checked_in_order() {
        let mut p = Problems::default();
        assert!(check_schedule(
            &mut p,
            &ScheduleInput {
                frequency: Some("hourly"),
                time: Some("24:00"),
                language: Some("de"),
                ..Default::default()
            }
        )
        .is_none());
        let fields: Vec<_> = p.0.iter().map(|e| (e.field.as_str(), e.rule)).collect();
        assert_eq!(
            fields,
            [
                ("frequency", Rule::Invalid),
                ("time", Rule::Invalid),
                ("distributionID", Rule::Required),
                ("language", Rule::Invalid)
            ]
        );
        let mut p = Problems::default();
        assert!(check_schedule(
            &mut p,
            &ScheduleInput {
                frequency: Some("weekly"),
                time: Some("08:00"),
                distribution_id: Some(3),
                ..Default::default()
            }
        )
        .is_none());
        assert_eq!(p.0[0].field, "dayOfWeek");
        let mut p = Problems::default();
        let d = check_schedule(
            &mut p,
            &ScheduleInput {
                frequency: Some("monthly"),
                time: Some("6:05"),
                day_of_month: Some(31),
                distribution_id: Some(3),
                language: Some("fr"),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(d.cadence.minute, 365);
        assert_eq!(d.cadence.month_day, 31);
        assert_eq!(d.language, Language::Fr);
        assert!(d.active);
        assert_eq!(format_time(365), "06:05");
    }
}
