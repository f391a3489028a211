//! Site-local time buckets. Runs are stored with UTC times; metrics count them per local
//! calendar day and local wall-clock hour of the site's time zone (`site.timezone`).
//!
//! A run belongs to the hour its local clock showed when it started. On the day clocks
//! spring forward the skipped hour has no runs (a zero slot); on the day they fall back
//! the repeated hour's runs all land in that one slot. Every day has 24 slots.

use chrono::{Datelike, Duration, LocalResult, NaiveDate, NaiveDateTime, TimeZone, Timelike, Utc};
use chrono_tz::Tz;

/// Hours in a day's slot list, whatever the clocks did that day.
pub const SLOTS: usize = 24;

/// Local day number: days since 1970-01-01 of the local calendar date.
pub fn day_number(date: NaiveDate) -> i32 {
    date.num_days_from_ce() - 719_163
}

/// The calendar date of a local day number.
pub fn day_date(day: i32) -> NaiveDate {
    NaiveDate::from_num_days_from_ce_opt(day + 719_163).unwrap_or(NaiveDate::MIN)
}

/// The local (day, hour) of an instant given in milliseconds since the epoch (UTC).
pub fn local_slot(tz: Tz, utc_ms: i64) -> (i32, u8) {
    let utc = Utc
        .timestamp_millis_opt(utc_ms)
        .single()
        .unwrap_or_default();
    let local = utc.with_timezone(&tz);
    (day_number(local.date_naive()), local.hour() as u8)
}

/// The first instant (ms since the epoch) whose local date is `date`. Local midnight
/// normally; when a zone skips midnight itself, the first local time that exists.
pub fn local_day_start_ms(tz: Tz, date: NaiveDate) -> i64 {
    local_start_ms(tz, date.and_hms_opt(0, 0, 0).unwrap_or(NaiveDateTime::MIN))
}

/// The first instant whose local time is `at` or later (the earlier of a repeated time).
fn local_start_ms(tz: Tz, midnight: NaiveDateTime) -> i64 {
    let mut t = midnight;
    // Gaps are at most a few hours; walk forward a minute at a time until a local time exists.
    for _ in 0..(24 * 60) {
        match tz.from_local_datetime(&t) {
            LocalResult::Single(dt) => return dt.timestamp_millis(),
            LocalResult::Ambiguous(first, _) => return first.timestamp_millis(),
            LocalResult::None => t += Duration::minutes(1),
        }
    }
    midnight.and_utc().timestamp_millis()
}

/// The UTC range `[start, end)` in ms covering local dates `from..=to`.
pub fn local_range_ms(tz: Tz, from: NaiveDate, to: NaiveDate) -> (i64, i64) {
    let end = to.succ_opt().unwrap_or(to);
    (local_day_start_ms(tz, from), local_day_start_ms(tz, end))
}

/// The UTC range `[start, end)` in ms of the runs counted in local hour slot `hour` (0-23)
/// of `date`: empty for an hour the clocks skipped, both passes of an hour they repeated.
pub fn local_hour_range_ms(tz: Tz, date: NaiveDate, hour: u32) -> (i64, i64) {
    let at = |h: u32| match date.and_hms_opt(h, 0, 0) {
        Some(t) => local_start_ms(tz, t),
        None => local_day_start_ms(tz, date.succ_opt().unwrap_or(date)),
    };
    let start = at(hour);
    (start, at(hour + 1).max(start))
}

/// The label of an hour slot: `YYYY-MM-DDTHH:00:00`, local.
pub fn hour_label(date: NaiveDate, hour: usize) -> String {
    format!("{}T{:02}:00:00", date.format("%Y-%m-%d"), hour)
}

/// Parses a `YYYY-MM-DD` date strictly (zero-padded, nothing around it).
pub fn parse_date(s: &str) -> Option<NaiveDate> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    NaiveDate::parse_from_str(s, "%Y-%m-%d").ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono_tz::America::Toronto;

    #[test]
    fn hour_ranges_follow_the_clocks() {
        let d = |s: &str| parse_date(s).unwrap();
        let m = |s: &str| ms(s);
        assert_eq!(
            local_hour_range_ms(Toronto, d("2026-01-15"), 14),
            (m("2026-01-15T19:00:00Z"), m("2026-01-15T20:00:00Z"))
        );
        assert_eq!(
            local_hour_range_ms(Toronto, d("2026-01-15"), 23),
            (m("2026-01-16T04:00:00Z"), m("2026-01-16T05:00:00Z"))
        );
        // Spring forward: 02:00 does not exist.
        let (a, b) = local_hour_range_ms(Toronto, d("2026-03-08"), 2);
        assert_eq!(a, b);
        // Fall back: 01:00 happens twice, both in the slot.
        assert_eq!(
            local_hour_range_ms(Toronto, d("2026-11-01"), 1),
            (m("2026-11-01T05:00:00Z"), m("2026-11-01T07:00:00Z"))
        );
        for h in 0..24 {
            let (_, end) = local_hour_range_ms(Toronto, d("2026-11-01"), h);
            let (start, _) = local_hour_range_ms(Toronto, d("2026-11-01"), h + 1);
            if h < 23 {
                assert_eq!(end, start);
            }
            let (s, e) = local_hour_range_ms(Toronto, d("2026-11-01"), h);
            assert!(s <= e);
            if s < e {
                assert_eq!(
                    local_slot(Toronto, s),
                    (day_number(d("2026-11-01")), h as u8)
                );
                assert_eq!(local_slot(Toronto, e - 1).1, h as u8);
            }
        }
    }

    fn ms(rfc3339: &str) -> i64 {
        chrono::DateTime::parse_from_rfc3339(rfc3339)
            .unwrap()
            .timestamp_millis()
    }

    fn d(s: &str) -> NaiveDate {
        parse_date(s).unwrap()
    }

    #[test]
    fn day_numbers() {
        assert_eq!(day_number(d("1970-01-01")), 0);
        assert_eq!(day_number(d("2026-03-08")), 20_520);
        assert_eq!(day_date(20_520), d("2026-03-08"));
        assert_eq!(day_date(day_number(d("1969-12-31"))), d("1969-12-31"));
    }

    #[test]
    fn ordinary_hour() {
        // 14:30 UTC in July is 10:30 in Toronto (EDT, UTC-4).
        let (day, hour) = local_slot(Toronto, ms("2026-07-15T14:30:00Z"));
        assert_eq!((day_date(day), hour), (d("2026-07-15"), 10));
        // 03:30 UTC is still the previous local day.
        let (day, hour) = local_slot(Toronto, ms("2026-07-15T03:30:00Z"));
        assert_eq!((day_date(day), hour), (d("2026-07-14"), 23));
    }

    #[test]
    fn spring_forward_skips_hour_two() {
        // 2026-03-08: 02:00 EST becomes 03:00 EDT (07:00 UTC).
        let before = local_slot(Toronto, ms("2026-03-08T06:59:59Z"));
        let after = local_slot(Toronto, ms("2026-03-08T07:00:00Z"));
        assert_eq!(before, (day_number(d("2026-03-08")), 1));
        assert_eq!(after, (day_number(d("2026-03-08")), 3));
        // No instant of that day has local hour 2.
        let start = local_day_start_ms(Toronto, d("2026-03-08"));
        let end = local_day_start_ms(Toronto, d("2026-03-09"));
        assert_eq!(end - start, 23 * 3_600_000);
        let hours: Vec<u8> = (start..end)
            .step_by(60_000)
            .map(|t| local_slot(Toronto, t).1)
            .collect();
        assert!(!hours.contains(&2));
        assert!(hours.contains(&1) && hours.contains(&3));
    }

    #[test]
    fn fall_back_repeats_hour_one() {
        // 2026-11-01: 02:00 EDT becomes 01:00 EST; 01:xx happens twice.
        let first = local_slot(Toronto, ms("2026-11-01T05:30:00Z"));
        let second = local_slot(Toronto, ms("2026-11-01T06:30:00Z"));
        let day = day_number(d("2026-11-01"));
        assert_eq!(first, (day, 1));
        assert_eq!(second, (day, 1));
        assert_eq!(local_slot(Toronto, ms("2026-11-01T07:00:00Z")), (day, 2));
        let start = local_day_start_ms(Toronto, d("2026-11-01"));
        let end = local_day_start_ms(Toronto, d("2026-11-02"));
        assert_eq!(end - start, 25 * 3_600_000);
    }

    #[test]
    fn day_start_is_local_midnight() {
        assert_eq!(
            local_day_start_ms(Toronto, d("2026-01-10")),
            ms("2026-01-10T05:00:00Z")
        );
        assert_eq!(
            local_range_ms(Toronto, d("2026-07-01"), d("2026-07-02")),
            (ms("2026-07-01T04:00:00Z"), ms("2026-07-03T04:00:00Z"))
        );
    }

    #[test]
    fn midnight_gap_uses_first_existing_time() {
        // America/Havana skipped 00:00-01:00 on 2019-03-10.
        let tz: Tz = "America/Havana".parse().unwrap();
        let start = local_day_start_ms(tz, d("2019-03-10"));
        assert_eq!(start, ms("2019-03-10T05:00:00Z"));
        assert_eq!(local_slot(tz, start), (day_number(d("2019-03-10")), 1));
    }

    #[test]
    fn strict_dates() {
        assert!(parse_date("2026-03-08").is_some());
        for bad in [
            "2026-3-8",
            "2026-02-30",
            "20260308",
            " 2026-03-08",
            "2026-03-08T00",
            "",
        ] {
            assert!(parse_date(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn labels() {
        assert_eq!(hour_label(d("2026-03-08"), 7), "2026-03-08T07:00:00");
    }
}
